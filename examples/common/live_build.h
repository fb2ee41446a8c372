/* live_build.h: how the examples' live hosts build their module
 * (docs/live.md): a Ninja file of its own that generates the world with
 * `strata-gen --live` and compiles it with the game's sources into a
 * shared library. Ninja's restat and the generator, which rewrites a file
 * only when its bytes change, rebuild only what an edit touched. */
#ifndef LIVE_BUILD_H
#define LIVE_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "strata_live.h"

typedef struct live_build {
    const char *dir;            /* the build's folder: its Ninja file, the generated world, the objects */
    const char *schema;         /* the world's schema */
    const char *world;          /* its `world:`, the stem of the generated files */
    const char *const *sources; /* the game's C files, NULL-terminated */
    const char *includes;       /* -I flags the sources need (the generated world's folder comes first) */
    const char *module;         /* the shared library to write */
} live_build;

/* Write b->dir/build.ninja (making the folder), and in command the shell
 * command that runs it. False when it cannot be written (errno says why). */
bool live_build_write(const live_build *b, char *command, size_t size);

/* Write the module's build (live_build_write) and open a live session on
 * it: desc's module and build are filled in here, the rest is the
 * caller's. NULL when that fails (desc->log says why). */
strata_live_t *live_build_open(const live_build *b, strata_live_desc_t *desc);

#endif

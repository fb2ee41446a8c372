/* host.c: opening Rectangle Eater on the live loop (host.h). */
#define _POSIX_C_SOURCE 200809L
#include "host.h"

#include <glob.h>
#include <stdio.h>
#include <string.h>

#include "live_build.h"

/* What the session's start needs: the seed. */
static uint64_t host_seed;

static strata_world_t *host_start(const strata_live_module_t *m, const strata_world_desc_t *desc, void *user) {
    (void)user;
    const rect_live_table *game = m->game->table;
    return game->start(desc, host_seed);
}

/* The game's sources in folder: every .c there but the front ends, which have a main. */
static size_t host_sources(const char *folder, glob_t *found, const char **out, size_t max) {
    char pattern[1100];
    snprintf(pattern, sizeof pattern, "%s/*.c", folder);
    size_t n = 0;
    if (glob(pattern, 0, NULL, found) == 0) {
        for (size_t i = 0; i < found->gl_pathc && n + 1 < max; i++) {
            const char *name = strrchr(found->gl_pathv[i], '/') + 1;
            if (strcmp(name, "demo.c") != 0 && strcmp(name, "play.c") != 0) {
                out[n++] = found->gl_pathv[i];
            }
        }
    }
    return n;
}

strata_live_t *rect_host_open(const rect_host_desc *d) {
    glob_t found = {0};
    const char *sources[64];
    size_t n = host_sources(d->game, &found, sources, sizeof sources / sizeof sources[0] - 3);
    sources[n++] = "examples/rectangle_eater/live/module.c";
    sources[n++] = "examples/common/canvas.c";
    sources[n++] = "examples/common/font.c";
    sources[n] = NULL;
    char includes[1200], module[1100];
    snprintf(includes, sizeof includes, "-I%s -Iexamples/rectangle_eater/live -Iexamples/common", d->game);
    snprintf(module, sizeof module, "%s/rect.so", d->dir);
    live_build build = {d->dir, d->schema, "rect", sources, includes, module};
    const char *watch[] = {d->schema, d->game, "examples/common", NULL};
    host_seed = d->seed;
    strata_live_desc_t desc = {.watch = watch,
                               .world = {.threads = d->threads},
                               .start = host_start,
                               .log = d->log,
                               .user = d->user,
                               .game_version = RECT_LIVE_GAME_VERSION,
                               .game_size = sizeof(rect_live_table),
                               .verify = d->verify};
    strata_live_t *live = live_build_open(&build, &desc);
    globfree(&found);
    return live;
}

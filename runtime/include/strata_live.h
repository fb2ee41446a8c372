/* strata_live.h: live reload, libstrata_live (`pkg-config strata-live`).
 *
 * A game on the live loop is a host and a module (docs/live.md). The host
 * is the executable: window, input, the main loop; it links the runtime
 * whole and exports it (pkg-config's flags do both), and this library.
 * The module is a shared library built from the generated world (both the
 * world's .c and the <world>_live.c that `strata-gen --live` writes) and
 * the game's systems; it links no runtime of its own.
 *
 * strata_live_open builds and loads the module and makes the world. A
 * thread watches the files given (inotify); after a change and a moment of
 * quiet it runs the build, and loads what it built beside the running
 * module. strata_live_poll, called once a frame between two steps, then
 * migrates the world into a world of the new module (strata_world_migrate:
 * every entity, value, resource, link and system switch carried by name)
 * and unloads the old module; or, when the build failed, the module did
 * not load, or the migration would lose values, says so and keeps the old
 * module and the world as they were. Every line it says goes to the log.
 */
#ifndef STRATA_LIVE_H
#define STRATA_LIVE_H

#include "strata.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- The module's side: what the generator emits ------------------------- */

/* The version of the structs below; a module built with another is not loaded. */
#define STRATA_LIVE_ABI 1u

/* The one symbol the library looks up in a module: a strata_live_module_t. */
#define STRATA_LIVE_ENTRY "strata_live_entry"

/* The entry is the one symbol a module exports (modules are built with
 * -fvisibility=hidden); a game's table is found without exporting it. */
#if defined(__GNUC__) || defined(__clang__)
#define STRATA_LIVE_EXPORT __attribute__((visibility("default")))
#define STRATA_LIVE_WEAK __attribute__((weak, visibility("hidden")))
#else
#define STRATA_LIVE_EXPORT
#define STRATA_LIVE_WEAK
#endif

/* What a location names. */
typedef enum strata_live_place_t {
    STRATA_LIVE_COMPONENT = 1, /* a component or relation, or one of its fields */
    STRATA_LIVE_RESOURCE,      /* a resource or one of its fields */
    STRATA_LIVE_TYPE,          /* a struct or enum of `types:`, or one of its fields */
    STRATA_LIVE_WORLD,         /* the schema's `world:` */
} strata_live_place_t;

/* Where one element is declared in the module's schema (static data). */
typedef struct strata_live_location_t {
    const char *name; /* spelled as a load report spells it: "Position", "Position.x", "resource.Rules",
                       * "resource.Rules.speed"; a type's "Color", "Color.r"; the world's name */
    const char *type; /* a field of a struct type: the type (a longer path goes on in it); else NULL */
    uint8_t place;    /* strata_live_place_t */
    uint32_t line;    /* 1-based */
    uint32_t column;  /* 1-based */
} strata_live_location_t;

/* A game's own table of functions, which host and module share through a
 * header of the game: the module defines `const strata_live_game_t
 * <world>_live_game = {VERSION, sizeof table, &table}`. */
typedef struct strata_live_game_t {
    uint32_t version;  /* the game's number for its table: a host expecting another refuses the module */
    uint32_t size;     /* sizeof the table */
    const void *table; /* the game's struct of function pointers */
} strata_live_game_t;

struct strata_inspect_desc_t;

/* A module's entry (static data in <world>_live.c, named STRATA_LIVE_ENTRY). */
typedef struct strata_live_module_t {
    uint32_t abi;             /* STRATA_LIVE_ABI of the header it was compiled with */
    uint32_t size;            /* sizeof(strata_live_module_t) then */
    uint32_t runtime_version; /* STRATA_VERSION of the strata.h it was compiled with */
    const char *world;        /* the schema's `world:` */
    const char *schema;       /* the schema file, as the generator was given it */
    /* An empty world of the module's schema (NULL when out of memory). */
    strata_world_t *(*create)(const strata_world_desc_t *desc);
    /* Fill an inspector desc's schedule: its systems and their switches. */
    void (*inspect)(struct strata_inspect_desc_t *desc);
    uint32_t location_count;
    const strata_live_location_t *locations;
    const strata_live_game_t *game; /* <world>_live_game, or NULL when the game defines none */
} strata_live_module_t;

/* The entry a module holds: <world>_live.c defines it, the host never names it. */
STRATA_LIVE_EXPORT extern const strata_live_module_t strata_live_entry;

/* --- The host's side ------------------------------------------------------ */

/* A live session: the module, the world, the watching thread. */
typedef struct strata_live_t strata_live_t;

/* What a poll (or an accept, a restart) did. */
typedef enum strata_live_event_t {
    STRATA_LIVE_NONE = 0,  /* nothing: the same module and world */
    STRATA_LIVE_RELOADED,  /* a new module, the world migrated into it: ask for the world and game again */
    STRATA_LIVE_RESTARTED, /* a new module with a fresh world (strata_live_restart) */
    STRATA_LIVE_REFUSED,   /* the new module would lose values: the old one runs on, the world unchanged */
    STRATA_LIVE_FAILED,    /* the build failed, or the module did not load: the old one runs on */
} strata_live_event_t;

/* One attempt, as the host and the inspector show it. */
typedef struct strata_live_reload_t {
    uint32_t number;             /* 1, 2, ... */
    uint8_t event;               /* strata_live_event_t: RELOADED, RESTARTED, REFUSED or FAILED */
    double when;                 /* seconds since strata_live_open when the first change was seen */
    double build_ms;             /* the build command (0 without one) */
    double load_ms;              /* copying and loading the module */
    double migrate_ms;           /* the migration (or the fresh world) */
    double total_ms;             /* from the first change seen to the new world's first step being possible */
    uint32_t changes;            /* file changes seen before the build started */
    uint32_t entities;           /* entities carried (or refused) */
    const char *text;            /* what happened, lines each ending in '\n': the changes migrated, the
                             * refusal's `schema:line:col: error: ...` lines, the build's output */
    strata_load_report_t report; /* the migration's report (zero when there was none) */
} strata_live_reload_t;

/* Options for strata_live_open; zero means default for every field but `module`. */
typedef struct strata_live_desc_t {
    const char *module;       /* the module's shared library (required) */
    const char *build;        /* a shell command (sh -c) that rebuilds it; NULL: none, reload when the module changes */
    const char *const *watch; /* NULL-terminated files and folders (not their subfolders) whose changes start a
                                * build; NULL: the module alone. Watch sources, not what the build writes. */
    strata_world_desc_t world; /* every world's desc (allocator, threads, ...); `user` carries from world to world */
    /* The world of a new game from module m (at open and at restart); NULL
     * means an empty world of m's schema. Returns NULL when out of memory. */
    strata_world_t *(*start)(const strata_live_module_t *m, const strata_world_desc_t *desc, void *user);
    void (*log)(const char *line, void *user); /* each line said, without '\n'; NULL: stderr */
    void *user;                                /* given to start and log */
    uint32_t game_version;                     /* the game table's version this host is built for (0: none) */
    uint32_t game_size;                        /* and its size: a module's may be larger, not smaller */
    double quiet; /* seconds without a change before a build starts (default 0.05): a save is a burst of writes */
    bool verify;  /* after each migration, compare every carried value of the two worlds (slow: tests, demos) */
} strata_live_desc_t;

/* Build (when desc->build is set) and load the module, make the world, and
 * start watching. Returns STRATA_OK and the session in *out;
 * STRATA_ERR_IO when the build fails or the module does not load (the log
 * says why), STRATA_ERR_NOMEM. */
strata_result_t strata_live_open(const strata_live_desc_t *desc, strata_live_t **out);

/* Stop watching (a build under way is stopped), destroy the world, unload
 * the modules. NULL is a no-op. */
void strata_live_close(strata_live_t *l);

/* The frame's check, between two steps: STRATA_LIVE_NONE at the cost of
 * one atomic load when the watcher has nothing new; else the outcome of
 * the attempt it applied (strata_live_last has the details). Not inside a
 * step, an iterator or a scope of the world. */
strata_live_event_t strata_live_poll(strata_live_t *l);

/* Block until the watcher has something for poll, or `seconds` pass;
 * true if it has (headless tools and tests). */
bool strata_live_wait(strata_live_t *l, double seconds);

/* Start a build now, as a change to a watched file would. */
void strata_live_rebuild(strata_live_t *l);

/* The refused module, taken with its loss: the world migrated with
 * STRATA_MIGRATE_ACCEPT_LOSS. STRATA_LIVE_NONE when nothing is refused. */
strata_live_event_t strata_live_accept(strata_live_t *l);

/* A fresh world (desc.start) from the newest module that loaded: the
 * refused one when there is one, else the running one. */
strata_live_event_t strata_live_restart(strata_live_t *l);

/* The world now (it changes at RELOADED and RESTARTED). */
strata_world_t *strata_live_world(const strata_live_t *l);

/* The module running now. */
const strata_live_module_t *strata_live_current(const strata_live_t *l);

/* Its game table (checked against desc.game_version and game_size), or NULL. */
const void *strata_live_game(const strata_live_t *l);

/* True while a refused module waits for strata_live_accept or _restart. */
bool strata_live_refused(const strata_live_t *l);

/* The last attempt, or NULL before the first. Valid until the next poll, accept or restart. */
const strata_live_reload_t *strata_live_last(const strata_live_t *l);

/* Compare every value `from` holds with what a migration carried into
 * `to`, by the report's changes (what it says was added, dropped or lost
 * is not compared): the same entities, each component, field, link and
 * resource value converted exactly. True if all match; else the first
 * difference in why ("entity 4v1: Position.x is 2, was 1.5"). */
bool strata_live_verify(strata_world_t *to, strata_world_t *from, const strata_load_report_t *report, char *why,
                        size_t why_size);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_LIVE_H */

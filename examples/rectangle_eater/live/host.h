/* host.h: Rectangle Eater on the live loop, as both its live hosts open it
 * (window.c, demo.c): the module built in a folder of its own from a
 * schema and a folder of the game's sources (every .c there but the front
 * ends), those watched, and a new game from the module's table. */
#ifndef RECT_LIVE_HOST_H
#define RECT_LIVE_HOST_H

#include "game_table.h"
#include "strata_live.h"

typedef struct rect_host_desc {
    const char *dir;    /* the module's build folder */
    const char *schema; /* the world's schema */
    const char *game;   /* the folder of the game's sources (game.h, systems.c, ...) */
    uint64_t seed;      /* the game's */
    uint32_t threads;   /* the world's */
    bool verify;        /* compare every carried value after each reload (strata_live_desc_t.verify) */
    void (*log)(const char *line, void *user);
    void *user;
} rect_host_desc;

/* Build the module, load it and start a game; NULL when that fails (the
 * log says why). Close it with strata_live_close. */
strata_live_t *rect_host_open(const rect_host_desc *d);

/* The running module's table (it changes when a reload succeeds). */
static inline const rect_live_table *rect_host_table(const strata_live_t *l) {
    return (const rect_live_table *)strata_live_game(l);
}

#endif

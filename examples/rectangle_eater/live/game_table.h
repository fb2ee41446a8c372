/* game_table.h: what Rectangle Eater's live hosts (window.c, demo.c) call
 * in its module (module.c), through the module's game table
 * (docs/live.md). It names no generated type, so a host never includes
 * rect.h and no schema edit can leave a host behind. */
#ifndef RECT_LIVE_GAME_TABLE_H
#define RECT_LIVE_GAME_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "screen.h"
#include "strata.h"

/* The table's version: a host refuses a module whose table has another. */
#define RECT_LIVE_GAME_VERSION 1u

/* How a game is going, for a host's title bar or log. */
typedef struct rect_live_status {
    int32_t score;
    uint32_t frame;
    bool over;
} rect_live_status;

typedef struct rect_live_table {
    /* A new game seeded with seed (rect_game_create), stepped by
     * desc->threads threads; NULL when out of memory. */
    strata_world_t *(*start)(const strata_world_desc_t *desc, uint64_t seed);
    /* Draw w's steps into s (NULL: none), which must outlive its use: it is
     * the world's game pointer, which a reload carries to the next world. */
    void (*render_to)(strata_world_t *w, rect_screen *s);
    /* This frame's steering, -1..1 on each axis (the Controls resource). */
    void (*steer)(strata_world_t *w, float dx, float dy);
    /* Let the autopilot steer, or not. */
    void (*autopilot)(strata_world_t *w, bool on);
    void (*status)(strata_world_t *w, rect_live_status *out);
    /* The state hash (rect_state_hash): equal hashes, equal games. */
    uint64_t (*hash)(strata_world_t *w);
} rect_live_table;

#endif

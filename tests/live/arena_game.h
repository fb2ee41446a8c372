/* arena_game.h: the table the live reload test's module gives its host
 * (tests/live/test_live.c), as a game's header would. */
#ifndef ARENA_GAME_H
#define ARENA_GAME_H

#include "strata.h"

/* The table's version: a module with another is not loaded. */
#define ARENA_GAME_VERSION 1u

typedef struct arena_game_t {
    /* A world of `count` entities: positions, velocities, health, links,
     * one destroyed (its index free), Tick switched off. NULL when out of memory. */
    strata_world_t *(*start)(const strata_world_desc_t *desc, uint32_t count);
} arena_game_t;

#endif

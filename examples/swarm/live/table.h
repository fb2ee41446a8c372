/* table.h: what the swarm's live hosts (main.c, bench/live.c) call in its
 * module (module.c), through the module's game table (docs/live.md). It
 * names no generated type: a host never includes swarm.h. */
#ifndef SWARM_LIVE_TABLE_H
#define SWARM_LIVE_TABLE_H

#include <stdint.h>

#include "strata.h"

/* The table's version: a host refuses a module whose table has another. */
#define SWARM_LIVE_TABLE_VERSION 1u

typedef struct swarm_live_table {
    /* A flock of `count` boids (a tenth fast) scattered as `ninja swarm`
     * scatters it, the picture's Splat off; NULL when out of memory. */
    strata_world_t *(*start)(const strata_world_desc_t *desc, uint32_t count);
    /* Steps the flock has taken (the Clock resource). */
    uint32_t (*steps)(strata_world_t *w);
} swarm_live_table;

#endif

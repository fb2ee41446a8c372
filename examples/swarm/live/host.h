/* host.h: the swarm on the live loop, as its live hosts open it: the
 * module built in a folder of its own from a schema and a folder of the
 * swarm's sources (systems.c, flock.h), those watched, and a flock from
 * the module's table. */
#ifndef SWARM_LIVE_HOST_H
#define SWARM_LIVE_HOST_H

#include "strata_live.h"
#include "table.h"

typedef struct swarm_host_desc {
    const char *dir;    /* the module's build folder */
    const char *schema; /* the world's schema */
    const char *game;   /* the folder of the swarm's systems.c and flock.h */
    uint32_t count;     /* boids */
    uint32_t threads;   /* the world's */
    void (*log)(const char *line, void *user);
    void *user;
} swarm_host_desc;

/* Build the module, load it and make the flock; NULL when that fails (the
 * log says why). Close it with strata_live_close. */
strata_live_t *swarm_host_open(const swarm_host_desc *d);

/* The running module's table (it changes when a reload succeeds). */
static inline const swarm_live_table *swarm_host_table(const strata_live_t *l) {
    return (const swarm_live_table *)strata_live_game(l);
}

#endif

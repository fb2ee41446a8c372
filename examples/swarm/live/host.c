/* host.c: opening the swarm on the live loop (host.h). */
#include "host.h"

#include <stdio.h>

#include "live_build.h"

static uint32_t host_count; /* what the session's start needs */

static strata_world_t *host_start(const strata_live_module_t *m, const strata_world_desc_t *desc, void *user) {
    (void)user;
    const swarm_live_table *table = m->game->table;
    return table->start(desc, host_count);
}

strata_live_t *swarm_host_open(const swarm_host_desc *d) {
    char systems[1100], includes[1200], module[1100];
    snprintf(systems, sizeof systems, "%s/systems.c", d->game);
    snprintf(includes, sizeof includes, "-I%s -Iexamples/swarm/live", d->game);
    snprintf(module, sizeof module, "%s/swarm.so", d->dir);
    const char *sources[] = {systems, "examples/swarm/live/module.c", NULL};
    live_build build = {d->dir, d->schema, "swarm", sources, includes, module};
    const char *watch[] = {d->schema, d->game, NULL};
    host_count = d->count;
    strata_live_desc_t desc = {.watch = watch,
                               .world = {.threads = d->threads},
                               .start = host_start,
                               .log = d->log,
                               .user = d->user,
                               .game_version = SWARM_LIVE_TABLE_VERSION,
                               .game_size = sizeof(swarm_live_table)};
    return live_build_open(&build, &desc);
}

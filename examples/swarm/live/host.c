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
    char systems[1100], includes[1200], module[1100], command[1200];
    snprintf(systems, sizeof systems, "%s/systems.c", d->game);
    snprintf(includes, sizeof includes, "-I%s -Iexamples/swarm/live", d->game);
    snprintf(module, sizeof module, "%s/swarm.so", d->dir);
    const char *sources[] = {systems, "examples/swarm/live/module.c", NULL};
    live_build build = {d->dir, d->schema, "swarm", sources, includes, module};
    if (!live_build_write(&build, command, sizeof command)) {
        char line[1200];
        snprintf(line, sizeof line, "%s: cannot write the module's build file", d->dir);
        d->log(line, d->user);
        return NULL;
    }
    const char *watch[] = {d->schema, d->game, NULL};
    host_count = d->count;
    strata_live_desc_t desc = {.module = module,
                               .build = command,
                               .watch = watch,
                               .world = {.threads = d->threads},
                               .start = host_start,
                               .log = d->log,
                               .user = d->user,
                               .game_version = SWARM_LIVE_TABLE_VERSION,
                               .game_size = sizeof(swarm_live_table)};
    strata_live_t *live = NULL;
    return strata_live_open(&desc, &live) == STRATA_OK ? live : NULL;
}

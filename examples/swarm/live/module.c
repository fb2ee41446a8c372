/* module.c: the swarm as a live module (docs/live.md): the table its hosts
 * call (table.h). The rest of the module is the swarm's systems.c and the
 * generated world with its entry (swarm_live.c). The grid and the picture
 * the systems keep beside the world are the module's own: a reload starts
 * them anew, and Bin rebuilds the grid each step anyway. */
#include <stdlib.h>

#include "flock.h"
#include "strata_live.h"
#include "table.h"

static strata_world_t *start(const strata_world_desc_t *desc, uint32_t count) {
    strata_world_desc_t sized = *desc;
    sized.initial_capacity = count;
    swarm_world *w = swarm_world_create(&sized);
    swarm_entity *handles = malloc(sizeof *handles * (count - count / 10 > 0 ? count - count / 10 : 1));
    bool ok = w != NULL && handles != NULL && swarm_spawn_boid_many(w, count - count / 10, handles) == STRATA_OK &&
              swarm_spawn_fast_boid_many(w, count / 10, handles) == STRATA_OK;
    free(handles);
    if (!ok) {
        swarm_world_destroy(w);
        return NULL;
    }
    flock_scatter(w);
    swarm_splat_enable(w, false);
    return swarm_world_core(w);
}

static uint32_t steps(strata_world_t *w) {
    return swarm_clock_res((swarm_world *)(void *)w)->steps;
}

static const swarm_live_table table = {start, steps};

const strata_live_game_t swarm_live_game = {SWARM_LIVE_TABLE_VERSION, sizeof table, &table};

/* particles: a console demo of a generated Strata world.
 * An emitter spawns particles, gravity pulls the heavy ones, every particle
 * moves and ages, and expired ones are destroyed at the end of the step. */
#include "pfx.h"

#include <stdio.h>

int main(void) {
    pfx_world *w = pfx_world_create(NULL);
    if (!w) {
        fprintf(stderr, "particles: out of memory\n");
        return 1;
    }
    const float dt = 1.0f / 60.0f;
    for (int step = 0; step < 240; step++) {
        strata_result_t r = pfx_world_step(w, dt);
        if (r != STRATA_OK) {
            fprintf(stderr, "particles: step %d: %s\n", step, strata_result_str(r));
            pfx_world_destroy(w);
            return 1;
        }
    }
    strata_world_stats_t stats;
    pfx_world_stats(w, &stats);
    printf("after 240 steps: %u alive (%u falling), %u archetypes, %zu bytes\n", (unsigned)stats.entities,
           (unsigned)pfx_falling_count(w), (unsigned)stats.tables, stats.bytes);
    pfx_world_destroy(w);
    return 0;
}

/* Step 3: flies and a frog spawned from the schema's assemblages. */
#include "pond.h"

#include "../check.h"

int main(void) {
    pond_world *w = pond_world_create(NULL);
    if (w == NULL) {
        return 1;
    }
    pond_entity frog = pond_spawn_frog(w);
    pond_entity flies[10];
    if (pond_entity_eq(frog, POND_ENTITY_NULL) || pond_spawn_fly_many(w, 10, flies) != STRATA_OK) {
        return 1; /* out of memory */
    }
    for (int i = 0; i < 10; i++) { /* in a column, one metre to the frog's left */
        pond_position_set(w, flies[i], (pond_position){.x = -1, .y = 0.1f * (float)i});
    }

    for (int frame = 0; frame < 60; frame++) {
        if (pond_world_step(w, 1.0f / 60) != STRATA_OK) {
            return 1;
        }
    }

    strata_world_stats_t stats;
    pond_world_stats(w, &stats);
    const pond_position *first = pond_position_get(w, flies[0]), *at = pond_position_get(w, frog);
    printf("%u entities; after 1 s the first fly is at (%.2f, %.2f), the frog at (%g, %g)\n", (unsigned)stats.entities,
           first->x, first->y, at->x, at->y);
    CHECK(stats.entities == 11);
    CHECK(pond_fly_has(w, flies[9]) && !pond_fly_has(w, frog));
    CHECK(pond_frog_get(w, frog)->reach == 0.3f);         /* the component's default */
    CHECK(near(pond_velocity_get(w, flies[3])->x, 0.5f)); /* the assemblage's value */
    CHECK(near(first->x, -0.5f));                         /* moved by Move */
    CHECK(at->x == 0 && at->y == 0);                      /* no Velocity: Move skips it */

    pond_world_destroy(w);
    return check_failed();
}

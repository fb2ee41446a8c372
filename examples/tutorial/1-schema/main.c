/* Step 1: a world, two entities, their components read back. */
#include "pond.h"

#include "../check.h"

int main(void) {
    pond_world *w = pond_world_create(NULL); /* NULL: malloc and free */
    if (w == NULL) {
        return 1;
    }

    /* A lily pad: an entity, then one component. */
    pond_entity pad = pond_entity_create(w);
    pond_position_add(w, pad, (pond_position){.x = 2, .y = 1});

    /* A fly: both components at once, in a bundle. */
    pond_bundle parts = {.position = &(pond_position){.x = 0, .y = 0},
                         .velocity = &(pond_velocity){.x = 0.5f, .y = 0.25f}};
    pond_entity fly = pond_entity_create_bundle(w, &parts);

    const pond_position *p = pond_position_get(w, pad);
    const pond_velocity *v = pond_velocity_get(w, fly);
    printf("the pad is at (%g, %g); the fly flies at (%g, %g) m/s\n", p->x, p->y, v->x, v->y);

    CHECK(p->x == 2 && p->y == 1);
    CHECK(v->x == 0.5f && v->y == 0.25f);
    CHECK(pond_velocity_get(w, pad) == NULL); /* the pad has no Velocity */
    CHECK(!pond_velocity_has(w, pad));

    pond_entity_destroy(w, fly);
    CHECK(!pond_entity_alive(w, fly));
    CHECK(pond_position_get(w, fly) == NULL); /* a stale handle finds nothing */

    pond_world_destroy(w);
    return check_failed();
}

/* Step 2: the world steps, and Move moves the fly but not the pad. */
#include "pond.h"

#include "../check.h"

int main(void) {
    pond_world *w = pond_world_create(NULL);
    if (w == NULL) {
        return 1;
    }
    pond_entity pad = pond_entity_create_bundle(w, &(pond_bundle){.position = &(pond_position){2, 1}});
    pond_bundle parts = {.position = &(pond_position){0, 0}, .velocity = &(pond_velocity){0.5f, 0.25f}};
    pond_entity fly = pond_entity_create_bundle(w, &parts);

    for (int frame = 0; frame < 120; frame++) { /* two seconds at 60 frames a second */
        if (pond_world_step(w, 1.0f / 60) != STRATA_OK) {
            return 1;
        }
    }

    const pond_position *f = pond_position_get(w, fly), *p = pond_position_get(w, pad);
    printf("after 2 s the fly is at (%.2f, %.2f); the pad is still at (%g, %g)\n", f->x, f->y, p->x, p->y);
    CHECK(near(f->x, 1.0f) && near(f->y, 0.5f));
    CHECK(p->x == 2 && p->y == 1);

    pond_world_destroy(w);
    return check_failed();
}

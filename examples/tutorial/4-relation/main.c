/* Step 4: frogs pick flies; a fly's destroy takes the links to it. */
#include "pond.h"

#include "../check.h"

int main(void) {
    pond_world *w = pond_world_create(NULL);
    if (w == NULL) {
        return 1;
    }
    pond_entity left = pond_spawn_frog(w), right = pond_spawn_frog(w);
    pond_position_set(w, left, (pond_position){-1, 0});
    pond_position_set(w, right, (pond_position){1, 0});
    pond_entity near_left = pond_spawn_fly(w), near_right = pond_spawn_fly(w), far = pond_spawn_fly(w);
    pond_position_set(w, near_left, (pond_position){-1, 1});
    pond_position_set(w, near_right, (pond_position){1, 1});
    pond_position_set(w, far, (pond_position){0, 3});

    pond_world_step(w, 1.0f / 60);
    CHECK(pond_entity_eq(pond_hunts_target(w, left), near_left));
    CHECK(pond_entity_eq(pond_hunts_target(w, right), near_right));

    uint32_t n = 0;
    pond_hunts_sources(w, near_left, &n); /* the frogs hunting it */
    CHECK(n == 1);

    /* The left frog's fly is gone: so is the left frog's link. */
    pond_entity_destroy(w, near_left);
    printf("left frog hunts something: %s\n", pond_hunts_has(w, left) ? "yes" : "no");
    CHECK(!pond_hunts_has(w, left));

    /* Aim sees a frog without Hunts again, and picks the nearest fly left. */
    pond_world_step(w, 1.0f / 60);
    CHECK(pond_entity_eq(pond_hunts_target(w, left), near_right));
    printf("now both frogs hunt the same fly: %s\n",
           pond_entity_eq(pond_hunts_target(w, left), pond_hunts_target(w, right)) ? "yes" : "no");

    pond_world_destroy(w);
    return check_failed();
}

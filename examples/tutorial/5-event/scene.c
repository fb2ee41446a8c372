/* The scene of steps 5 to 7: two frogs, three flies. */
#include "scene.h"

pond_world *scene_create(pond_entity *frogs) {
    pond_world *w = pond_world_create(NULL);
    pond_entity mine[2], flies[3];
    frogs = frogs != NULL ? frogs : mine;
    if (w == NULL || pond_spawn_frog_many(w, 2, frogs) != STRATA_OK || pond_spawn_fly_many(w, 3, flies) != STRATA_OK) {
        pond_world_destroy(w); /* NULL is fine */
        return NULL;
    }
    pond_position_set(w, frogs[0], (pond_position){0, 0.1f});
    pond_position_set(w, frogs[1], (pond_position){0, -0.1f});
    for (int i = 0; i < 3; i++) {
        pond_position_set(w, flies[i], (pond_position){-1.0f - (float)i, 0});
    }
    return w;
}

bool scene_play(pond_world *w, float seconds) {
    for (int frame = 0; frame < (int)(seconds * 60); frame++) {
        if (pond_world_step(w, 1.0f / 60) != STRATA_OK) {
            return false;
        }
    }
    return true;
}

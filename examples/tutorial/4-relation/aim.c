/* The Aim system: a frog that hunts nothing picks the nearest fly. */
#include "pond.h"

/* The fly nearest to `at`, or POND_ENTITY_NULL when there is none. */
static pond_entity nearest_fly(pond_world *w, pond_position at) {
    pond_entity best = POND_ENTITY_NULL;
    float best_d2 = 0;
    for (pond_flies_iter it = pond_flies_begin(w); pond_flies_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++) {
            float dx = it.position[i].x - at.x, dy = it.position[i].y - at.y;
            if (pond_entity_eq(best, POND_ENTITY_NULL) || dx * dx + dy * dy < best_d2) {
                best = it.entities[i];
                best_d2 = dx * dx + dy * dy;
            }
        }
    }
    return best;
}

void pond_aim_run(pond_aim_ctx *ctx) {
    while (pond_aim_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            pond_entity fly = nearest_fly(ctx->world, ctx->position[i]);
            if (!pond_entity_eq(fly, POND_ENTITY_NULL)) {
                pond_hunts_set(ctx->world, ctx->entities[i], fly); /* applied when Aim returns */
            }
        }
    }
}

/* The Catch system: a frog whose fly is within reach catches it. */
#include "pond.h"

void pond_catch_run(pond_catch_ctx *ctx) {
    while (pond_catch_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            pond_entity fly = ctx->hunts[i].target;
            const pond_position *at = pond_position_get(ctx->world, fly);
            float dx = at->x - ctx->position[i].x, dy = at->y - ctx->position[i].y;
            float reach = ctx->frog[i].reach;
            if (dx * dx + dy * dy <= reach * reach) {
                pond_caught_emit(ctx, &(pond_caught){.frog = ctx->entities[i], .fly = fly});
            }
        }
    }
}

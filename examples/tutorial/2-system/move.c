/* The Move system: whatever has a Velocity moves by it. */
#include "pond.h"

void pond_move_run(pond_move_ctx *ctx) {
    while (pond_move_next(ctx)) { /* one table of matching entities at a time */
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->position[i].x += ctx->velocity[i].x * ctx->dt;
            ctx->position[i].y += ctx->velocity[i].y * ctx->dt;
        }
    }
}

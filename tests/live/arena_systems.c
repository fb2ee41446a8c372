/* arena_systems.c: the live reload test's systems. The test edits a copy
 * of this file (the speed below) and reloads it. */
#include "arena.h"

#define ARENA_SPEED 1.0f

void arena_move_run(arena_move_ctx *ctx) {
    while (arena_move_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->position[i].x += ctx->velocity[i].x * ARENA_SPEED;
            ctx->position[i].y += ctx->velocity[i].y * ARENA_SPEED;
        }
    }
}

void arena_tick_run(arena_tick_ctx *ctx) {
    ctx->clock->ticks++;
}

void arena_drift_run(arena_drift_ctx *ctx) {
    (void)ctx;
}

void arena_busy_run(arena_busy_ctx *ctx) {
    (void)ctx;
}

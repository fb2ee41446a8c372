/* The game's systems: strata-gen declares them in game.h, the game defines them. */
#include "game.h"

void game_move_run(game_move_ctx *ctx) {
    while (game_move_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->position[i].x += ctx->velocity[i].x * ctx->dt;
            ctx->position[i].y += ctx->velocity[i].y * ctx->dt;
        }
    }
}

void game_tick_run(game_tick_ctx *ctx) {
    ctx->clock->steps++;
}

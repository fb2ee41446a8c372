/* game.c: Duel's systems. Each reads and writes only the world: the food's
 * generator is the Field resource, the players' places for the food to
 * test are the Seats resource, the inputs of the frame are Pads. */
#include "game.h"

/* The next number of the field's generator (xorshift64*). */
static uint64_t field_next(duel_field *f) {
    uint64_t x = f->seed;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    f->seed = x;
    return x * 0x2545f4914f6cdd1du;
}

/* A number in [0, 1) from the generator. */
static float field_unit(duel_field *f) {
    return (float)(field_next(f) >> 40) / (float)(1u << 24);
}

void duel_steer_run(duel_steer_ctx *ctx) {
    while (duel_steer_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            uint8_t held = ctx->pads->held[ctx->player[i].seat & 1];
            ctx->vel[i].x = 3.0f * (float)(((held & PAD_RIGHT) != 0) - ((held & PAD_LEFT) != 0));
            ctx->vel[i].y = 3.0f * (float)(((held & PAD_DOWN) != 0) - ((held & PAD_UP) != 0));
        }
    }
}

/* Keep v within [lo, hi]. */
static float clamp(float v, float lo, float hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

void duel_drive_run(duel_drive_ctx *ctx) {
    while (duel_drive_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            uint32_t seat = ctx->player[i].seat & 1u;
            uint32_t eaten = ctx->score->eaten[seat];
            ctx->player[i].size = 6.0f + (float)(eaten < 120 ? eaten : 120) * 0.05f; /* up to 12 */
            ctx->pos[i].x = clamp(ctx->pos[i].x + ctx->vel[i].x, 0, DUEL_W);
            ctx->pos[i].y = clamp(ctx->pos[i].y + ctx->vel[i].y, 0, DUEL_H);
            ctx->seats->x[seat] = ctx->pos[i].x;
            ctx->seats->y[seat] = ctx->pos[i].y;
            ctx->seats->size[seat] = ctx->player[i].size;
        }
    }
}

/* v moved into [0, size). */
static float wrap(float v, float size) {
    return v < 0 ? v + size : v >= size ? v - size : v;
}

void duel_drift_run(duel_drift_ctx *ctx) {
    while (duel_drift_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->pos[i].x = wrap(ctx->pos[i].x + ctx->vel[i].x, DUEL_W);
            ctx->pos[i].y = wrap(ctx->pos[i].y + ctx->vel[i].y, DUEL_H);
        }
    }
}

/* A piece within a player's square is eaten (seat 0 first when both reach it). */
void duel_eat_run(duel_eat_ctx *ctx) {
    while (duel_eat_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            for (uint32_t seat = 0; seat < 2; seat++) {
                float dx = ctx->pos[i].x - ctx->seats->x[seat], dy = ctx->pos[i].y - ctx->seats->y[seat];
                float r = ctx->seats->size[seat];
                if (dx > -r && dx < r && dy > -r && dy < r) {
                    ctx->score->eaten[seat] += ctx->food[i].value;
                    ctx->field->food--;
                    (void)duel_entity_destroy(ctx->world, ctx->entities[i]); /* at the step's end */
                    break;
                }
            }
        }
    }
}

/* The field refilled to `want` pieces, each placed and sent drifting by the generator. */
void duel_spawn_run(duel_spawn_ctx *ctx) {
    duel_field *f = ctx->field;
    while (f->food < f->want) {
        duel_pos p = {field_unit(f) * DUEL_W, field_unit(f) * DUEL_H};
        duel_vel v = {field_unit(f) - 0.5f, field_unit(f) - 0.5f};
        duel_food food = {1 + (uint32_t)(field_next(f) % 3)};
        if (duel_entity_eq(duel_entity_create_bundle(ctx->world, &(duel_bundle){.pos = &p, .vel = &v, .food = &food}),
                           DUEL_ENTITY_NULL)) {
            break; /* out of memory: the next step tries again */
        }
        f->food++;
    }
}

duel_world *duel_game_new(uint32_t food, uint64_t seed) {
    duel_world *w = duel_world_create(&(duel_world_desc_t){.initial_capacity = food + 64});
    if (w == NULL) {
        return NULL;
    }
    duel_field_res(w)->want = food;
    duel_field_res(w)->seed = seed != 0 ? seed : 1;
    for (uint8_t seat = 0; seat < 2; seat++) {
        duel_pos p = {seat == 0 ? 40.0f : DUEL_W - 40.0f, DUEL_H / 2};
        duel_vel v = {0, 0};
        duel_player pl = {.seat = seat, .size = 6};
        if (duel_entity_eq(duel_entity_create_bundle(w, &(duel_bundle){.pos = &p, .vel = &v, .player = &pl}),
                           DUEL_ENTITY_NULL)) {
            duel_world_destroy(w);
            return NULL;
        }
    }
    return w;
}

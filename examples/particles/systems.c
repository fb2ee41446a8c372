/* The particle systems: the game's side of the generated pfx world. */
#include "pfx.h"

#include <stdio.h>

/* A small deterministic generator, so every run prints the same figures. */
static uint32_t xorshift32(uint32_t *state) {
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

/* A number in [lo, hi) from the emitter's seed. */
static float uniform(uint32_t *state, float lo, float hi) {
    return lo + (hi - lo) * (float)(xorshift32(state) >> 8) / (float)(1u << 24);
}

void pfx_emit_run(pfx_emit_ctx *ctx) {
    for (uint32_t i = 0; i < ctx->emitter->per_step; i++) {
        uint32_t *seed = &ctx->emitter->seed;
        pfx_position p = {0.0f, 0.0f};
        pfx_velocity v = {uniform(seed, -1.0f, 1.0f), uniform(seed, 0.5f, 2.0f)};
        pfx_lifetime life = {uniform(seed, 0.5f, 2.5f)};
        /* Created now; its components land in their table when Emit returns. */
        pfx_entity e = pfx_entity_create_bundle(ctx->world, &(pfx_bundle){.position = &p,
                                                                          .velocity = &v,
                                                                          .lifetime = &life,
                                                                          .heavy = (i % 4 == 0)});
        if (pfx_entity_eq(e, PFX_ENTITY_NULL)) {
            return; /* out of memory: emit fewer this step */
        }
        ctx->stats->spawned++;
    }
    ctx->stats->steps++;
}

void pfx_gravity_run(pfx_gravity_ctx *ctx) {
    while (pfx_gravity_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->velocity[i].y -= 9.81f * ctx->dt;
        }
    }
}

void pfx_move_run(pfx_move_ctx *ctx) {
    while (pfx_move_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->position[i].x += ctx->velocity[i].x * ctx->dt;
            ctx->position[i].y += ctx->velocity[i].y * ctx->dt;
        }
    }
}

void pfx_age_run(pfx_age_ctx *ctx) {
    while (pfx_age_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->lifetime[i].seconds -= ctx->dt;
            if (ctx->lifetime[i].seconds <= 0.0f) {
                /* Stays alive, and visible to Report, until the step ends. */
                pfx_entity_destroy(ctx->world, ctx->entities[i]);
                ctx->stats->expired++;
            }
        }
    }
}

void pfx_report_run(pfx_report_ctx *ctx) {
    if (ctx->stats->steps % 30 != 0) {
        pfx_report_end(ctx);
        return;
    }
    uint32_t heavy = 0, total = 0;
    float lowest = 0.0f;
    while (pfx_report_next(ctx)) {
        total += ctx->count;
        heavy += ctx->heavy ? ctx->count : 0;
        for (uint32_t i = 0; i < ctx->count; i++) {
            lowest = ctx->position[i].y < lowest ? ctx->position[i].y : lowest;
        }
    }
    printf("step %3u: %5u particles (%4u heavy), lowest y %7.2f, spawned %u, expired %u\n", (unsigned)ctx->stats->steps,
           (unsigned)total, (unsigned)heavy, (double)lowest, (unsigned)ctx->stats->spawned,
           (unsigned)ctx->stats->expired);
}

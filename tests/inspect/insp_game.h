/* insp_game.h: the systems of the inspector's test world
 * (tests/inspect/inspect.yaml) and the entities it starts with, shared by
 * its cmocka test, the program the browser test opens, and its bench.
 * Include once per program, after insp.h. The systems are never inlined, so
 * a step written by hand calls them as the generated step does. */
#ifndef INSP_GAME_H
#define INSP_GAME_H

#include <stdbool.h>

#define INSP_SYSTEM __attribute__((noinline))

INSP_SYSTEM void insp_move_run(insp_move_ctx *ctx) {
    while (insp_move_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->position[i].x += ctx->velocity[i].x;
        }
    }
}

INSP_SYSTEM void insp_tally_run(insp_tally_ctx *ctx) {
    ctx->score->value++;
}

INSP_SYSTEM void insp_watch_run(insp_watch_ctx *ctx) {
    while (insp_watch_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->aspect[i].seen++;
        }
    }
}

/* Writes the Health of the poisoned after Watch ran: they wait in its set between steps. */
INSP_SYSTEM void insp_hurt_run(insp_hurt_ctx *ctx) {
    while (insp_hurt_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->health[i].max = (uint8_t)(ctx->health[i].max + 1u);
        }
    }
}

/* The loop's systems: their runs are counted by the inspector. */
INSP_SYSTEM void insp_blink_run(insp_blink_ctx *ctx) {
    (void)ctx;
}

INSP_SYSTEM void insp_beat_run(insp_beat_ctx *ctx) {
    (void)ctx;
}

INSP_SYSTEM void insp_greet_run(insp_greet_ctx *ctx) {
    (void)ctx;
}

/* Entity i of the starting set: Position and Velocity; Health if i is even,
 * Label if i % 5 == 0, Poisoned if i % 10 == 4. False if an add failed. */
static bool insp_game_spawn(insp_world *w, uint32_t i, insp_entity *out) {
    insp_entity e = insp_entity_create(w);
    bool ok = insp_position_add(w, e, (insp_position){(float)i, 0}) == STRATA_OK &&
              insp_velocity_add(w, e, (insp_velocity){1, 0}) == STRATA_OK;
    if (ok && i % 2 == 0) {
        ok = insp_health_add(w, e, (insp_health){10, 100}) == STRATA_OK;
    }
    if (ok && i % 5 == 0) {
        ok = insp_label_add(w, e, (insp_label){.text = "box"}) == STRATA_OK;
    }
    if (ok && i % 10 == 4) {
        ok = insp_poisoned_add(w, e) == STRATA_OK;
    }
    *out = e;
    return ok;
}

#endif /* INSP_GAME_H */

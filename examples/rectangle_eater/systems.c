/* systems.c: the game's rules, as the original game's systems in its order — user
 * input, collision, decay — then spawning and the lose condition, in the
 * fixed phase `physics` (60 runs a second of game time), run only while
 * Mode is playing: the schema's gate, so no rule asks whether the game is
 * paused or over. Then the score, once a frame. Rendering is in render.c,
 * the autopilot in autopilot.c. */
#include "game.h"

#include <math.h>

/* --- physics: UserInput, Collide, Decay, Spawn, Referee ------------------------------ */

/* Move the player-controlled rectangles by this frame's Controls, inside the
 * arena. Diagonals are no faster than straight lines. */
void rect_user_input_run(rect_user_input_ctx *ctx) {
    float dx = ctx->controls->dx, dy = ctx->controls->dy;
    float len2 = dx * dx + dy * dy;
    if (len2 > 1.0f) {
        float inv = 1.0f / sqrtf(len2);
        dx *= inv;
        dy *= inv;
    }
    float step = ctx->rules->player_speed * ctx->dt;
    while (rect_user_input_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            rect_position *p = &ctx->position[i];
            float h = rect_half_extent(ctx->appearance[i].size);
            p->x = fminf(fmaxf(p->x + dx * step, h), (float)RECT_WIDTH - h);
            p->y = fminf(fmaxf(p->y + dy * step, (float)RECT_HUD + h), (float)RECT_HEIGHT - h);
        }
    }
}

/* True if two centred squares overlap (touching edges do not). */
static bool overlap(rect_position a, float ha, rect_position b, float hb) {
    return fabsf(a.x - b.x) < ha + hb && fabsf(a.y - b.y) < ha + hb;
}

/* The original game's collision system: a player-controlled rectangle that touches a
 * food rectangle eats it — health (up to max_health), and the food is gone
 * (marked Dead at once for the systems after this one, destroyed when the
 * step ends). It says so with an Eaten event, which Score counts once a
 * frame, and counts it hungry for Spawn to replace in this run (a system of
 * a fixed phase receives no event: it may run 0..n times a frame). */
void rect_collide_run(rect_collide_ctx *ctx) {
    while (rect_collide_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            float reach = rect_half_extent(ctx->appearance[i].size);
            for (rect_food_iter food = rect_food_begin(ctx->world); rect_food_next(&food);) {
                for (uint32_t j = 0; j < food.count; j++) {
                    float size = food.appearance[j].size;
                    if (!overlap(ctx->position[i], reach, food.position[j], rect_half_extent(size))) {
                        continue;
                    }
                    float health = ctx->health[i].value + rect_eat_gain(ctx->rules, size, ctx->health[i].value);
                    ctx->health[i].value = fminf(health, ctx->rules->max_health);
                    (void)rect_eaten_emit(ctx, &(rect_eaten){.who = food.entities[j],
                                                             .by = ctx->entities[i],
                                                             .size = size}); /* NOMEM: one uncounted */
                    ctx->game->hungry++;
                    rect_dead_add(ctx->world, food.entities[j]);
                    rect_entity_destroy(ctx->world, food.entities[j]);
                }
            }
        }
    }
}

/* The original game's decay system: everything with Health loses some each step —
 * fast while big, slowly when nearly gone — and shrinks with it. Food that
 * runs out is gone; the player's decay speeds up as the game goes on, and
 * its colour says how it is doing. */
void rect_decay_run(rect_decay_ctx *ctx) {
    const rect_rules *rules = ctx->rules;
    float seconds = (float)ctx->game->frame * RECT_DT;
    float ramp = 1.0f + seconds / rules->drain_ramp;
    while (rect_decay_next(ctx)) {
        bool player = ctx->player_controlled;
        for (uint32_t i = 0; i < ctx->count; i++) {
            rect_health *health = &ctx->health[i];
            rect_appearance *look = &ctx->appearance[i];
            float rate = rect_decay_rate(rules, health->value) * (player ? ramp : 1.0f);
            health->value -= rate * ctx->dt;
            if (health->value > 0.0f) {
                look->size = health->value * rules->size_per_health;
                if (player) {
                    look->color = health->value > 10.0f ? (rect_color){50, 255, 50, 255}
                                                        : (rect_color){255, 50, 50, 255};
                }
            } else if (player) {
                look->size = 0.0f; /* Referee ends the game */
            } else {
                rect_dead_add(ctx->world, ctx->entities[i]);
                rect_entity_destroy(ctx->world, ctx->entities[i]);
            }
        }
    }
}

/* Replace eaten rectangles — each one eaten gives spawn_tries chances of a
 * new one, while there are fewer than max_food — and top the food up to
 * min_food so the arena never runs dry. */
void rect_spawn_run(rect_spawn_ctx *ctx) {
    const rect_rules *rules = ctx->rules;
    /* Dead food was marked by the systems before this one, so it is not counted. */
    uint32_t food = rect_food_count(ctx->world);
    uint32_t tries = ctx->game->hungry * rules->spawn_tries;
    ctx->game->hungry = 0;
    for (uint32_t i = 0; i < tries && food < rules->max_food; i++) {
        if (rect_rand_range(ctx->rng, 0.0f, 1.0f) < rules->spawn_chance &&
            !rect_entity_eq(rect_game_add_food(ctx->world, ctx->rng, rules, ctx->game), RECT_ENTITY_NULL)) {
            food++;
        }
    }
    while (food < rules->min_food &&
           !rect_entity_eq(rect_game_add_food(ctx->world, ctx->rng, rules, ctx->game), RECT_ENTITY_NULL)) {
        food++;
    }
}

/* The lose condition, and the game's clock: when the player's health is
 * gone, Mode goes to over at the end of this run (the runs after it in the
 * frame find the rules gated off). */
void rect_referee_run(rect_referee_ctx *ctx) {
    ctx->game->frame++;
    while (rect_referee_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            if (ctx->health[i].value <= 0.0f) {
                (void)rect_mode_set(ctx->world, RECT_MODE_OVER);
            }
        }
    }
}

/* Entering over: the game is lost (the HUD's panel, the front ends' end). */
void rect_game_over_run(rect_game_over_ctx *ctx) {
    ctx->game->over = true;
}

/* --- update: Score --------------------------------------------------------------- */

/* A point for each rectangle eaten since the last frame (in its fixed runs). */
void rect_score_run(rect_score_ctx *ctx) {
    ctx->game->score += (int32_t)ctx->eaten_count;
}

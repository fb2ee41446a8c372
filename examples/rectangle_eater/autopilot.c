/* autopilot.c: a player that presses the keys itself, for the headless demo
 * and the tests (P toggles it in the window). It sees what a player sees —
 * the rectangles, their sizes, its own health — and chooses, every step,
 * one of the eight directions a keyboard gives, or none. It plays well
 * enough to eat for a while; the player's decay keeps growing, and sooner
 * or later it cannot eat fast enough. */
#include "game.h"

#include <math.h>

enum { MAX_OBSTACLES = 64, LOOKAHEAD_STEPS = 8 };

typedef struct obstacle_t {
    rect_position at;
    float half;
} obstacle_t;

/* How good a rectangle is to go for: health gained per second of travel,
 * judged on its size when the player would get there. */
static float worth(const rect_rules *rules, rect_position from, float reach, float speed, float health,
                   rect_position at, float size, const rect_health *decays) {
    float dx = at.x - from.x, dy = at.y - from.y;
    float gap = sqrtf(dx * dx + dy * dy) - reach - rect_half_extent(size);
    float seconds = (gap > 0.0f ? gap : 0.0f) / speed;
    if (decays) {
        float left = decays->value - rect_decay_rate(rules, decays->value) * seconds;
        if (left <= 0.1f) {
            return -1.0f; /* gone before we get there */
        }
        size = left * rules->size_per_health;
    }
    return rect_eat_gain(rules, size, health) / (seconds + 0.3f);
}

/* True if a player of half-side `half` at p would touch one of the obstacles. */
static bool blocked(rect_position p, float half, const obstacle_t *obstacles, int n) {
    for (int i = 0; i < n; i++) {
        float reach = half + obstacles[i].half + 1.0f;
        if (fabsf(p.x - obstacles[i].at.x) < reach && fabsf(p.y - obstacles[i].at.y) < reach) {
            return true;
        }
    }
    return false;
}

void rect_autopilot_run(rect_autopilot_ctx *ctx) {
    *ctx->controls = (rect_controls){0};
    const rect_position *me = rect_position_get(ctx->world, ctx->game->player);
    const rect_appearance *look = rect_appearance_get(ctx->world, ctx->game->player);
    const rect_health *health = rect_health_get(ctx->world, ctx->game->player);
    if (!me || !look || !health) {
        return;
    }
    const rect_rules *rules = ctx->rules;
    float half = rect_half_extent(look->size);

    /* The best rectangle to eat; the ones that would hurt are obstacles. */
    obstacle_t obstacles[MAX_OBSTACLES];
    int n_obstacles = 0;
    rect_position target = {RECT_WIDTH / 2.0f, (RECT_HUD + RECT_HEIGHT) / 2.0f};
    float best = 0.0f;
    for (rect_food_iter food = rect_food_begin(ctx->world); rect_food_next(&food);) {
        for (uint32_t j = 0; j < food.count; j++) {
            float size = food.appearance[j].size;
            if (size > rules->danger_size || rect_eat_gain(rules, size, health->value) <= 0.0f) {
                if (n_obstacles < MAX_OBSTACLES) {
                    obstacles[n_obstacles++] = (obstacle_t){food.position[j], rect_half_extent(size)};
                }
                continue;
            }
            float w = worth(rules, *me, half, rules->player_speed, health->value, food.position[j], size,
                            food.health ? &food.health[j] : NULL);
            if (w > best) {
                best = w;
                target = food.position[j];
            }
        }
    }

    /* The key (or pair of keys) whose path for the next few steps stays
     * clear and ends nearest the target. */
    float step = rules->player_speed * ctx->dt * LOOKAHEAD_STEPS;
    float best_cost = INFINITY, best_blocked_cost = INFINITY;
    rect_controls choice = {0}, blocked_choice = {0};
    for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
            float scale = (dx && dy) ? 0.70710678f : 1.0f;
            rect_position next = {me->x + (float)dx * scale * step, me->y + (float)dy * scale * step};
            next.x = fminf(fmaxf(next.x, half), (float)RECT_WIDTH - half);
            next.y = fminf(fmaxf(next.y, (float)RECT_HUD + half), (float)RECT_HEIGHT - half);
            /* Near the target a full look-ahead overshoots: judge one step there. */
            rect_position near = {me->x + (float)dx * scale * step / LOOKAHEAD_STEPS,
                                  me->y + (float)dy * scale * step / LOOKAHEAD_STEPS};
            float ex = near.x - target.x, ey = near.y - target.y;
            float cost = ex * ex + ey * ey;
            if (blocked(next, half, obstacles, n_obstacles) || blocked(near, half, obstacles, n_obstacles)) {
                if (cost < best_blocked_cost) {
                    best_blocked_cost = cost;
                    blocked_choice = (rect_controls){(float)dx, (float)dy};
                }
            } else if (cost < best_cost) {
                best_cost = cost;
                choice = (rect_controls){(float)dx, (float)dy};
            }
        }
    }
    *ctx->controls = best_cost < INFINITY ? choice : blocked_choice;
}

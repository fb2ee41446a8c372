/* game.c: making a game of Rectangle Eater, its rules as functions, and the
 * state hash the determinism tests compare. */
#include "game.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- Randomness: xorshift64* in the Rng resource, so a seed replays ------ */

uint32_t rect_rand(rect_rng *rng) {
    uint64_t x = rng->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng->state = x;
    return (uint32_t)((x * 0x2545F4914F6CDD1DULL) >> 32);
}

float rect_rand_range(rect_rng *rng, float lo, float hi) {
    return lo + (hi - lo) * (float)(rect_rand(rng) >> 8) / 16777216.0f;
}

/* splitmix64: spreads any seed (0 included) over the state, never zero. */
static uint64_t seed_state(uint64_t seed) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return z ? z : 0x9E3779B97F4A7C15ULL;
}

/* --- The rules ------------------------------------------------------------ */

float rect_eat_gain(const rect_rules *rules, float size, float health) {
    float gain = rules->eat_base - size / rules->size_per_health;
    if (gain < rules->eat_min) {
        gain = rules->eat_min;
    }
    /* The original game's extra bonus for tiny rectangles, "so it doesn't get out of control". */
    if (size < rules->tiny_size && health < rules->tiny_bonus_below) {
        gain += rules->tiny_bonus;
    }
    return gain;
}

float rect_decay_rate(const rect_rules *rules, float health) {
    int band = 0;
    while (band < 4 && health >= rules->decay_below[band]) {
        band++;
    }
    return rules->decay_rate[band];
}

/* --- Making a game ---------------------------------------------------------- */

/* The food's colours: the original game's teal-blue and friends; never the player's
 * green or red. */
static const rect_color palette[] = {
    {0, 100, 150, 255},  {52, 152, 219, 255}, {155, 89, 182, 255},  {241, 196, 15, 255},
    {230, 126, 34, 255}, {26, 188, 156, 255}, {236, 112, 160, 255}, {90, 110, 230, 255},
};

rect_entity rect_game_add_food(rect_world *w, rect_rng *rng, const rect_rules *rules, rect_game *game) {
    bool decays = rect_rand_range(rng, 0.0f, 1.0f) < rules->decaying_chance;
    rect_health health = {rect_rand_range(rng, rules->food_health_min, rules->food_health_max)};
    /* A decaying rectangle's size follows its health; the others keep a
     * random one (the original game's 1..30 made most of them big and dark). */
    float size = decays ? health.value * rules->size_per_health
                        : rect_rand_range(rng, rules->still_size_min, rules->still_size_max);
    rect_appearance look = {palette[rect_rand(rng) % (sizeof palette / sizeof palette[0])], size};
    float h = rect_half_extent(size) + 1.0f;

    /* Not on top of the player (a free meal): a few tries, then anywhere. */
    const rect_position *player = rect_position_get(w, game->player);
    const rect_appearance *player_look = rect_appearance_get(w, game->player);
    rect_position at = {0};
    for (int tries = 0; tries < 8; tries++) {
        at.x = rect_rand_range(rng, h, (float)RECT_WIDTH - h);
        at.y = rect_rand_range(rng, (float)RECT_HUD + h, (float)RECT_HEIGHT - h);
        if (!player || !player_look) {
            break;
        }
        float reach = h + rect_half_extent(player_look->size) + 12.0f;
        if (fabsf(at.x - player->x) > reach || fabsf(at.y - player->y) > reach) {
            break;
        }
    }
    /* From the assemblage, then what is random about this one. Inside a
     * system the spawn and the overwrites are deferred, and applied in
     * order when it returns: one placement, then the values. */
    rect_entity e = decays ? rect_spawn_food(w) : rect_spawn_rect(w);
    if (rect_entity_eq(e, RECT_ENTITY_NULL)) {
        return RECT_ENTITY_NULL;
    }
    if (rect_position_add(w, e, at) != STRATA_OK || rect_appearance_add(w, e, look) != STRATA_OK ||
        (decays && rect_health_add(w, e, health) != STRATA_OK)) {
        rect_entity_destroy(w, e); /* out of memory: not a rectangle at the template's place */
        return RECT_ENTITY_NULL;
    }
    game->spawned++;
    return e;
}

rect_world *rect_game_create(uint64_t seed) {
    return rect_game_create_threads(seed, 1);
}

rect_world *rect_game_create_threads(uint64_t seed, uint32_t threads) {
    rect_world *w = rect_world_create(&(rect_world_desc_t){.threads = threads});
    if (!w) {
        return NULL;
    }
    rect_rng *rng = rect_rng_res(w);
    const rect_rules *rules = rect_rules_res(w);
    rect_game *game = rect_game_res(w);
    rng->state = seed_state(seed);

    /* The player: the original game's rectangle with a PlayerControlled component and
     * its appearance edited to green, all in the Player assemblage. */
    game->player = rect_spawn_player(w);
    bool ok = !rect_entity_eq(game->player, RECT_ENTITY_NULL);
    for (int i = 0; ok && i < rules->start_food; i++) {
        ok = !rect_entity_eq(rect_game_add_food(w, rng, rules, game), RECT_ENTITY_NULL);
    }
    if (!ok) {
        rect_world_destroy(w);
        return NULL;
    }
    rect_autopilot_enable(w, false);
    (void)rect_mode_set(w, RECT_MODE_PLAYING); /* the first step enters it; a front end may ask for title */
    return w;
}

/* --- The state hash --------------------------------------------------------- */

typedef struct hash_t {
    uint64_t h;
} hash_t;

static void mix(hash_t *s, const void *data, size_t n) {
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i++) {
        s->h = (s->h ^ p[i]) * 0x100000001B3ULL;
    }
}

/* Field by field, so struct padding never counts. */
static void mix_u64(hash_t *s, uint64_t v) {
    mix(s, &v, sizeof v);
}
static void mix_u32(hash_t *s, uint32_t v) {
    mix(s, &v, sizeof v);
}
static void mix_f32(hash_t *s, float v) {
    mix(s, &v, sizeof v);
}
static void mix_color(hash_t *s, rect_color c) {
    mix_u32(s, (uint32_t)c.r << 24 | (uint32_t)c.g << 16 | (uint32_t)c.b << 8 | c.a);
}

/* One entity's components, as the hash reads them. */
typedef struct body_t {
    uint64_t id;
    rect_position position;
    rect_appearance appearance;
    rect_health health;
    uint32_t has; /* a bit per component present */
} body_t;

static int by_id(const void *a, const void *b) {
    uint64_t x = ((const body_t *)a)->id, y = ((const body_t *)b)->id;
    return (x > y) - (x < y);
}

uint64_t rect_state_hash(rect_world *w) {
    hash_t s = {0xCBF29CE484222325ULL};
    uint32_t n = rect_bodies_count(w);
    body_t *bodies = calloc(n ? n : 1, sizeof *bodies);
    if (!bodies) {
        return 0;
    }
    uint32_t k = 0;
    for (rect_bodies_iter it = rect_bodies_begin(w); rect_bodies_next(&it);) {
        for (uint32_t i = 0; i < it.count && k < n; i++, k++) {
            body_t *b = &bodies[k];
            b->id = it.entities[i].id;
            b->position = it.position[i];
            b->has = 1u << RECT_POSITION;
            if (it.appearance) {
                b->appearance = it.appearance[i];
                b->has |= 1u << RECT_APPEARANCE;
            }
            if (it.health) {
                b->health = it.health[i];
                b->has |= 1u << RECT_HEALTH;
            }
            b->has |= (uint32_t)it.collision << RECT_COLLISION |
                      (uint32_t)it.player_controlled << RECT_PLAYER_CONTROLLED | (uint32_t)it.dead << RECT_DEAD;
        }
    }
    /* Tables are visited in the order they were made: sort, so the hash
     * depends on the entities, not on the history of the archetypes. */
    qsort(bodies, k, sizeof *bodies, by_id);
    strata_world_stats_t stats;
    rect_world_stats(w, &stats);
    mix_u32(&s, stats.entities);
    for (uint32_t i = 0; i < k; i++) {
        const body_t *b = &bodies[i];
        mix_u64(&s, b->id);
        mix_u32(&s, b->has);
        mix_f32(&s, b->position.x);
        mix_f32(&s, b->position.y);
        mix_color(&s, b->appearance.color);
        mix_f32(&s, b->appearance.size);
        mix_f32(&s, b->health.value);
    }
    free(bodies);

    const rect_controls *controls = rect_controls_res(w);
    mix_f32(&s, controls->dx);
    mix_f32(&s, controls->dy);
    const rect_game *game = rect_game_res(w);
    mix_u64(&s, game->player.id);
    mix_u32(&s, (uint32_t)game->score);
    mix_u32(&s, game->frame);
    mix_u32(&s, game->over);
    mix_u32(&s, game->spawned);
    mix_u32(&s, game->hungry);
    mix_u32(&s, (uint32_t)rect_mode_get(w));
    mix_u64(&s, rect_rng_res(w)->state);
    const rect_rules *r = rect_rules_res(w);
    const float tuning[] = {r->player_speed,   r->size_per_health, r->food_health_min,  r->food_health_max,
                            r->still_size_min, r->still_size_max,  r->spawn_chance,     r->decaying_chance,
                            r->drain_ramp,     r->max_health,      r->eat_base,         r->eat_min,
                            r->tiny_size,      r->tiny_bonus,      r->tiny_bonus_below, r->danger_size};
    for (size_t i = 0; i < sizeof tuning / sizeof tuning[0]; i++) {
        mix_f32(&s, tuning[i]);
    }
    for (int i = 0; i < 4; i++) {
        mix_f32(&s, r->decay_below[i]);
    }
    for (int i = 0; i < 5; i++) {
        mix_f32(&s, r->decay_rate[i]);
    }
    mix_u32(&s,
            (uint32_t)r->start_food << 24 | (uint32_t)r->max_food << 16 | (uint32_t)r->min_food << 8 | r->spawn_tries);
    return s.h;
}

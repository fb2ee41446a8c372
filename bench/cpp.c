/* two_systems and seven_systems, in the shape of the C++ ecs_benchmark
 * suite (abeimler): 1,048,576 entities with Position and Velocity, every
 * other one also with Data.
 *
 *   two_systems:   Movement (p += v dt) and UpdateData (counters and an
 *                  xorshift RNG in Data).
 *   seven_systems: every entity also is a hero, a monster or an NPC (Player,
 *                  Health, Damage, Sprite, drawn from an RNG as the suite
 *                  does); the systems add MoreComplex (steers by the RNG),
 *                  UpdateHealth, ApplyDamage, UpdateSprite and Render (plots
 *                  each sprite into a 64 x 64 frame, a resource).
 *
 * One op: one system visiting one entity (1.5 n a step for two, 6 n for
 * seven). The baseline keeps the two kinds of entity (with Data, without)
 * in two groups of plain arrays and runs the same kernels in the same
 * order, so both end in the same state: the frames are compared after. */
#include "bench.h"
#include "cpp.h"

#include <stdlib.h>
#include <string.h>

#define FRAME_SIDE 64

static uint32_t xorshift32(uint32_t *state) {
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

/* --- The kernels: each system's work on n rows -------------------------- */

BENCH_KERNEL void movement_rows(cpp_position *restrict p, const cpp_velocity *restrict v, int n, float dt) {
    for (int i = 0; i < n; i++) {
        p[i].x += v[i].x * dt;
        p[i].y += v[i].y * dt;
    }
}

BENCH_KERNEL void data_rows(cpp_data *restrict d, int n, float dt) {
    for (int i = 0; i < n; i++) {
        d[i].thingy = (d[i].thingy + 1) % 1000000;
        d[i].dingy += 0.0001 * dt;
        d[i].mingy = !d[i].mingy;
        d[i].numgy = xorshift32(&d[i].seed);
    }
}

BENCH_KERNEL void more_complex_rows(const cpp_position *restrict p, cpp_velocity *restrict v, cpp_data *restrict d,
                                    int n) {
    for (int i = 0; i < n; i++) {
        if (d[i].thingy % 10 == 0) {
            uint32_t r = xorshift32(&d[i].seed);
            bool wide = p[i].x > p[i].y;
            v[i].x = (float)(r % (wide ? 6u : 11u));
            v[i].y = (float)((r >> 8) % (wide ? 11u : 6u));
        }
    }
}

/* Dead ones respawn a step later, so the mix stays the same step after step. */
BENCH_KERNEL void health_rows(cpp_health *restrict h, int n) {
    for (int i = 0; i < n; i++) {
        if (h[i].status == CPP_STATUS_DEAD) {
            h[i].hp = h[i].maxhp;
            h[i].status = CPP_STATUS_SPAWN;
        } else if (h[i].hp <= 0) {
            h[i].hp = 0;
            h[i].status = CPP_STATUS_DEAD;
        } else if (h[i].hp > h[i].maxhp) {
            h[i].hp = h[i].maxhp;
        } else {
            h[i].status = CPP_STATUS_ALIVE;
        }
    }
}

BENCH_KERNEL void damage_rows(cpp_health *restrict h, const cpp_damage *restrict d, int n) {
    for (int i = 0; i < n; i++) {
        int32_t total = d[i].atk - d[i].def;
        if (total > 0) {
            h[i].hp -= total;
        }
    }
}

BENCH_KERNEL void sprite_rows(cpp_sprite *restrict s, const cpp_player *restrict p, const cpp_health *restrict h,
                              int n) {
    static const uint8_t alive[] =
        {[CPP_PLAYER_KIND_NPC] = 'h', [CPP_PLAYER_KIND_MONSTER] = 'k', [CPP_PLAYER_KIND_HERO] = '@'};
    for (int i = 0; i < n; i++) {
        switch (h[i].status) {
        case CPP_STATUS_ALIVE: s[i].character = alive[p[i].kind]; break;
        case CPP_STATUS_DEAD: s[i].character = '|'; break;
        case CPP_STATUS_SPAWN: s[i].character = '_'; break;
        }
    }
}

BENCH_KERNEL void render_rows(cpp_frame *restrict f, const cpp_position *restrict p, const cpp_sprite *restrict s,
                              int n) {
    for (int i = 0; i < n; i++) {
        uint32_t x = (uint32_t)(int32_t)p[i].x % FRAME_SIDE, y = (uint32_t)(int32_t)p[i].y % FRAME_SIDE;
        f->pixels[y * FRAME_SIDE + x] = s[i].character;
    }
    f->drawn += (uint32_t)n;
}

/* --- The systems ---------------------------------------------------------- */

void cpp_movement_run(cpp_movement_ctx *ctx) {
    while (cpp_movement_next(ctx)) {
        movement_rows(ctx->position, ctx->velocity, (int)ctx->count, ctx->dt);
    }
}

void cpp_update_data_run(cpp_update_data_ctx *ctx) {
    while (cpp_update_data_next(ctx)) {
        data_rows(ctx->data, (int)ctx->count, ctx->dt);
    }
}

void cpp_more_complex_run(cpp_more_complex_ctx *ctx) {
    while (cpp_more_complex_next(ctx)) {
        more_complex_rows(ctx->position, ctx->velocity, ctx->data, (int)ctx->count);
    }
}

void cpp_update_health_run(cpp_update_health_ctx *ctx) {
    while (cpp_update_health_next(ctx)) {
        health_rows(ctx->health, (int)ctx->count);
    }
}

void cpp_apply_damage_run(cpp_apply_damage_ctx *ctx) {
    while (cpp_apply_damage_next(ctx)) {
        damage_rows(ctx->health, ctx->damage, (int)ctx->count);
    }
}

void cpp_update_sprite_run(cpp_update_sprite_ctx *ctx) {
    while (cpp_update_sprite_next(ctx)) {
        sprite_rows(ctx->sprite, ctx->player, ctx->health, (int)ctx->count);
    }
}

void cpp_render_run(cpp_render_ctx *ctx) {
    while (cpp_render_next(ctx)) {
        render_rows(ctx->frame, ctx->position, ctx->sprite, (int)ctx->count);
    }
}

/* --- The baseline --------------------------------------------------------- */

/* One kind of entity as arrays; data is NULL in the group without Data, the
 * hero arrays are NULL in two_systems. */
typedef struct group {
    int n;
    cpp_position *position;
    cpp_velocity *velocity;
    cpp_data *data;
    cpp_player *player;
    cpp_health *health;
    cpp_damage *damage;
    cpp_sprite *sprite;
} group;

typedef struct plain {
    group g[2];
    bool seven;
    cpp_frame frame;
} plain;

static const float dt = 1.0f / 60.0f;

static void plain_pass(void *state) {
    plain *p = state;
    group *g = p->g;
    for (int k = 0; k < 2; k++) {
        movement_rows(g[k].position, g[k].velocity, g[k].n, dt);
    }
    data_rows(g[0].data, g[0].n, dt);
    if (!p->seven) {
        return;
    }
    more_complex_rows(g[0].position, g[0].velocity, g[0].data, g[0].n);
    for (int k = 0; k < 2; k++) {
        health_rows(g[k].health, g[k].n);
    }
    for (int k = 0; k < 2; k++) {
        damage_rows(g[k].health, g[k].damage, g[k].n);
    }
    for (int k = 0; k < 2; k++) {
        sprite_rows(g[k].sprite, g[k].player, g[k].health, g[k].n);
    }
    for (int k = 0; k < 2; k++) {
        render_rows(&p->frame, g[k].position, g[k].sprite, g[k].n);
    }
}

static void strata_pass(void *state) {
    cpp_world_step(state, dt);
}

/* --- Making the entities -------------------------------------------------- */

/* Entity i's components, from its own RNG: the suite's hero/monster/NPC
 * rates (27 / 70 / 3 %) and stat ranges. */
typedef struct values {
    cpp_position position;
    cpp_velocity velocity;
    cpp_data data;
    cpp_player player;
    cpp_health health;
    cpp_damage damage;
    cpp_sprite sprite;
} values;

static uint32_t in_range(uint32_t *rng, uint32_t lo, uint32_t hi) {
    return lo + xorshift32(rng) % (hi - lo + 1);
}

static values make_values(uint32_t i) {
    uint32_t rng = i * 2654435761u + 1u;
    values v = {.position = {(float)(i % 640), (float)(i % 480)},
                .velocity = {(float)in_range(&rng, 0, 5), (float)in_range(&rng, 0, 5)},
                .data = {.seed = i + 1u},
                .health = {.status = CPP_STATUS_SPAWN},
                .sprite = {'_'}};
    uint32_t roll = in_range(&rng, 1, 100);
    if (roll <= 3) {
        v.player.kind = CPP_PLAYER_KIND_NPC;
        v.health.maxhp = (int32_t)in_range(&rng, 6, 12);
        v.damage = (cpp_damage){0, (int32_t)in_range(&rng, 3, 8)};
    } else if (roll <= 30) {
        v.player.kind = CPP_PLAYER_KIND_HERO;
        v.health.maxhp = (int32_t)in_range(&rng, 5, 15);
        v.damage = (cpp_damage){(int32_t)in_range(&rng, 4, 10), (int32_t)in_range(&rng, 2, 6)};
    } else {
        v.player.kind = CPP_PLAYER_KIND_MONSTER;
        v.health.maxhp = (int32_t)in_range(&rng, 4, 12);
        v.damage = (cpp_damage){(int32_t)in_range(&rng, 3, 9), (int32_t)in_range(&rng, 2, 8)};
    }
    v.health.hp = v.health.maxhp;
    return v;
}

/* A group's arrays for n entities (hero arrays only if `seven`). */
static group group_make(int n, bool with_data, bool seven) {
    size_t m = (size_t)n;
    return (group){n,
                   bench_alloc(sizeof(cpp_position) * m),
                   bench_alloc(sizeof(cpp_velocity) * m),
                   with_data ? bench_alloc(sizeof(cpp_data) * m) : NULL,
                   seven ? bench_alloc(sizeof(cpp_player) * m) : NULL,
                   seven ? bench_alloc(sizeof(cpp_health) * m) : NULL,
                   seven ? bench_alloc(sizeof(cpp_damage) * m) : NULL,
                   seven ? bench_alloc(sizeof(cpp_sprite) * m) : NULL};
}

static void group_free(group *g) {
    free(g->position);
    free(g->velocity);
    free(g->data);
    free(g->player);
    free(g->health);
    free(g->damage);
    free(g->sprite);
}

static void run(const char *name, bool seven) {
    const uint32_t size = 1u << 20;
    uint32_t n = bench_count(size);
    cpp_world *w = cpp_world_create(&(strata_world_desc_t){.initial_capacity = n});
    bench_check(w != NULL, "cpp: world create");
    cpp_more_complex_enable(w, seven);
    cpp_update_health_enable(w, seven);
    cpp_apply_damage_enable(w, seven);
    cpp_update_sprite_enable(w, seven);
    cpp_render_enable(w, seven);
    plain *p = bench_alloc(sizeof *p);
    *p = (plain){{group_make((int)(n - n / 2), true, seven), group_make((int)(n / 2), false, seven)}, seven, {{0}, 0}};
    for (uint32_t i = 0; i < n; i++) {
        values v = make_values(i);
        bool full = i % 2 == 0;
        cpp_bundle b = {.position = &v.position, .velocity = &v.velocity, .data = full ? &v.data : NULL};
        if (seven) {
            b.player = &v.player;
            b.health = &v.health;
            b.damage = &v.damage;
            b.sprite = &v.sprite;
        }
        bench_check(!cpp_entity_eq(cpp_entity_create_bundle(w, &b), CPP_ENTITY_NULL), "cpp: create");
        group *g = &p->g[full ? 0 : 1];
        uint32_t row = i / 2;
        g->position[row] = v.position;
        g->velocity[row] = v.velocity;
        if (full) {
            g->data[row] = v.data;
        }
        if (seven) {
            g->player[row] = v.player;
            g->health[row] = v.health;
            g->damage[row] = v.damage;
            g->sprite[row] = v.sprite;
        }
    }
    double ops = (double)cpp_movement_count(w) + cpp_update_data_count(w);
    if (seven) {
        ops += (double)cpp_more_complex_count(w) + cpp_update_health_count(w) + cpp_apply_damage_count(w) +
               cpp_update_sprite_count(w) + cpp_render_count(w);
    }
    bench_run_pair(&(bench_pair){.name = name,
                                 .op = seven ? "7 systems, one step" : "2 systems, one step",
                                 .size = size,
                                 .ops = ops,
                                 .strata = strata_pass,
                                 .strata_state = w,
                                 .plain = plain_pass,
                                 .plain_state = p});
    /* The same kernels in the same order over the same rows: the same end. */
    const cpp_frame *f = cpp_frame_res(w);
    cpp_update_data_ctx ctx = cpp_update_data_begin(w, dt);
    bench_check(cpp_update_data_next(&ctx) && ctx.data[1].numgy == p->g[0].data[1].numgy, "cpp: data differs");
    cpp_update_data_end(&ctx);
    bench_check(f->drawn == p->frame.drawn && memcmp(f->pixels, p->frame.pixels, sizeof f->pixels) == 0,
                "cpp: frames differ");
    group_free(&p->g[0]);
    group_free(&p->g[1]);
    free(p);
    cpp_world_destroy(w);
}

void bench_two_systems(void) {
    run("two_systems", false);
}

void bench_seven_systems(void) {
    run("seven_systems", true);
}

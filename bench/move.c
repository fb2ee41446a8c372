/* move: entities with Position and Velocity ({f32 x, y} each), the
 * reference benchmark of docs/performance.md. Rows: the pass p += v
 * (1,000,000 and 16,000,000 entities) and its fixed cost at 1,000; creating one by one and in bulk,
 * destroying; at 1,000,000 also adding and removing a tag and a 4-byte
 * component one entity at a time, adding a tag to all of them in one call
 * (move_marked_add_many: a whole table moves at once), the first add of a
 * tag into a table reserved ahead (against the steady add of the same run),
 * and the memory an entity costs.
 *
 * "In bulk" spawns n entities from the Mover assemblage
 * (move_spawn_mover_many: one placement, values from the schema). The
 * structural baselines are the hand-written pool and
 * sparse sets of plain.h, growing from empty as the world does. */
#include "bench.h"
#include "move.h"
#include "plain.h"

#include <stdlib.h>

BENCH_KERNEL void move_rows(move_position *restrict p, const move_velocity *restrict v, int n) {
    for (int i = 0; i < n; i++) {
        p[i].x += v[i].x;
        p[i].y += v[i].y;
    }
}

void move_move_run(move_move_ctx *ctx) {
    while (move_move_next(ctx)) {
        move_rows(ctx->position, ctx->velocity, (int)ctx->count);
    }
}

static const move_position p0 = {1.0f, 2.0f};
static const move_velocity v0 = {0.5f, 0.25f};

/* --- Iteration ------------------------------------------------------------ */

typedef struct arrays {
    move_position *p;
    move_velocity *v;
    int n;
} arrays;

static void plain_pass(void *state) {
    arrays *a = state;
    move_rows(a->p, a->v, a->n);
}

/* A whole step: what a game calls each frame. */
static void step_pass(void *state) {
    move_world_step(state, 1.0f);
}

/* The system's query alone, outside a step. */
static void query_pass(void *state) {
    move_move_ctx ctx = move_move_begin(state, 1.0f);
    move_move_run(&ctx);
}

/* The system's query with the loop written as the README shows it, on the
 * context's fields: gcc -O2 leaves it scalar (see bench/vectorize.c). */
static void readme_pass(void *state) {
    move_move_ctx ctx = move_move_begin(state, 1.0f);
    while (move_move_next(&ctx)) {
        for (uint32_t i = 0; i < ctx.count; i++) {
            ctx.position[i].x += ctx.velocity[i].x;
            ctx.position[i].y += ctx.velocity[i].y;
        }
    }
}

/* A world of n moving entities made in one placement, and the same as arrays. */
static move_world *moving(uint32_t n, arrays *a) {
    move_world *w = move_world_create(&(strata_world_desc_t){.initial_capacity = n});
    bench_check(w != NULL, "move: world create");
    move_entity *ids = bench_alloc(sizeof *ids * n);
    bench_check(move_entity_create_many(w, &(move_bundle){.position = &p0, .velocity = &v0}, n, ids) == STRATA_OK,
                "move: create");
    free(ids);
    *a = (arrays){bench_alloc(sizeof *a->p * n), bench_alloc(sizeof *a->v * n), (int)n};
    for (uint32_t i = 0; i < n; i++) {
        a->p[i] = p0;
        a->v[i] = v0;
    }
    return w;
}

static void iteration(uint32_t size) {
    arrays a;
    uint32_t n = bench_count(size);
    move_world *w = moving(n, &a);
    bench_run_pair(&(bench_pair){.name = "move",
                                 .op = "pass p += v (world step)",
                                 .size = size,
                                 .ops = size,
                                 .strata = step_pass,
                                 .strata_state = w,
                                 .plain = plain_pass,
                                 .plain_state = &a,
                                 .target = BENCH_RATIO(1.10)});
    if (size <= 1000000) {
        bench_run_pair(&(bench_pair){.name = "move",
                                     .op = "  same, README-style loop (query)",
                                     .size = size,
                                     .ops = size,
                                     .strata = readme_pass,
                                     .strata_state = w,
                                     .plain = plain_pass,
                                     .plain_state = &a});
    }
    bench_check(move_move_count(w) == n, "move: count");
    free(a.p);
    free(a.v);
    move_world_destroy(w);
}

/* One pass over 1,000 entities, Strata's query beside the plain loop: the
 * difference is what a pass costs beyond its rows. */
static void fixed_cost(void) {
    const uint32_t size = 1000;
    arrays a;
    move_world *w = moving(bench_count(size), &a);
    double query[BENCH_MAX_RUNS], plain[BENCH_MAX_RUNS], over[BENCH_MAX_RUNS];
    bench_time_pair(
        &(bench_pair){.ops = 1, .strata = query_pass, .strata_state = w, .plain = plain_pass, .plain_state = &a}, query,
        plain);
    for (int r = 0; r < bench_runs(); r++) {
        over[r] = query[r] - plain[r];
    }
    bench_record("move", "pass over 1,000 (system query)", size, "ns/pass", query, plain, bench_runs(), BENCH_NONE);
    bench_record("move", "fixed cost of one pass", size, "ns/pass", over, NULL, bench_runs(), BENCH_AT_MOST(50));
    bench_time_pair(
        &(bench_pair){.ops = 1, .strata = readme_pass, .strata_state = w, .plain = plain_pass, .plain_state = &a},
        query, plain);
    bench_record("move", "  same, README-style loop", size, "ns/pass", query, plain, bench_runs(), BENCH_NONE);
    free(a.p);
    free(a.v);
    move_world_destroy(w);
}

/* --- Structural changes, one entity at a time ------------------------------ */

/* One side of the comparison: the same steps over a Strata world or over
 * the hand-written pool, each step a loop over n entities whose handles
 * (either kind is 64 bits) are in ids[]. */
typedef struct subject {
    void *(*make)(uint32_t n); /* an empty world, about to hold n entities */
    void (*free)(void *w);
    void (*create)(void *w, uint32_t n, uint64_t *ids);      /* one by one */
    void (*create_many)(void *w, uint32_t n, uint64_t *ids); /* in bulk */
    void (*add_tag)(void *w, uint32_t n, const uint64_t *ids);
    void (*remove_tag)(void *w, uint32_t n, const uint64_t *ids);
    void (*add_small)(void *w, uint32_t n, const uint64_t *ids);
    void (*remove_small)(void *w, uint32_t n, const uint64_t *ids);
    void (*add_tag_many)(void *w, uint32_t n, const uint64_t *ids); /* in one call */
    void (*destroy)(void *w, uint32_t n, const uint64_t *ids);
    void (*reserve_tag)(void *w, uint32_t n); /* room for n tagged rows ahead; NULL: nothing to reserve */
} subject;

static const move_bundle two = {.position = &p0, .velocity = &v0};

static void *world_make(uint32_t n) {
    (void)n; /* a world grows as a game's does, from the default capacity */
    move_world *w = move_world_create(NULL);
    bench_check(w != NULL, "move: world create");
    return w;
}

static void world_free(void *w) {
    move_world_destroy(w);
}

static void world_create(void *w, uint32_t n, uint64_t *ids) {
    for (uint32_t i = 0; i < n; i++) {
        ids[i] = move_entity_create_bundle(w, &two).id;
    }
    bench_check(move_move_count(w) == n && ids[n - 1] != 0, "move: create");
}

static void world_create_many(void *w, uint32_t n, uint64_t *ids) {
    /* A handle is one uint64_t. */
    bench_check(move_spawn_mover_many(w, n, (move_entity *)(void *)ids) == STRATA_OK, "move: spawn_mover_many");
}

static void world_add_tag(void *w, uint32_t n, const uint64_t *ids) {
    for (uint32_t i = 0; i < n; i++) {
        move_marked_add(w, (move_entity){ids[i]});
    }
    bench_check(move_marked_has(w, (move_entity){ids[0]}), "move: add tag");
}

static void world_remove_tag(void *w, uint32_t n, const uint64_t *ids) {
    for (uint32_t i = 0; i < n; i++) {
        move_marked_remove(w, (move_entity){ids[i]});
    }
    bench_check(!move_marked_has(w, (move_entity){ids[0]}), "move: remove tag");
}

static void world_add_small(void *w, uint32_t n, const uint64_t *ids) {
    for (uint32_t i = 0; i < n; i++) {
        move_small_add(w, (move_entity){ids[i]}, (move_small){(int32_t)i});
    }
    bench_check(move_small_get(w, (move_entity){ids[n - 1]})->value == (int32_t)(n - 1), "move: add small");
}

static void world_remove_small(void *w, uint32_t n, const uint64_t *ids) {
    for (uint32_t i = 0; i < n; i++) {
        move_small_remove(w, (move_entity){ids[i]});
    }
    bench_check(!move_small_has(w, (move_entity){ids[0]}), "move: remove small");
}

static void world_add_tag_many(void *w, uint32_t n, const uint64_t *ids) {
    /* A handle is one uint64_t. */
    bench_check(move_marked_add_many(w, (const move_entity *)(const void *)ids, n) == STRATA_OK, "move: add_many");
    bench_check(move_marked_has(w, (move_entity){ids[n - 1]}), "move: add_many");
}

static void world_destroy_all(void *w, uint32_t n, const uint64_t *ids) {
    for (uint32_t i = 0; i < n; i++) {
        move_entity_destroy(w, (move_entity){ids[i]});
    }
    bench_check(move_move_count(w) == 0, "move: destroy");
}

/* The tagged archetype's rows for n, made ahead (move_reserve_bundle). */
static void world_reserve_tag(void *w, uint32_t n) {
    move_bundle tagged = two;
    tagged.marked = true;
    bench_check(move_reserve_bundle(w, &tagged, n) == STRATA_OK, "move: reserve");
}

static const subject strata = {world_make,         world_free,        world_create,     world_create_many,
                               world_add_tag,      world_remove_tag,  world_add_small,  world_remove_small,
                               world_add_tag_many, world_destroy_all, world_reserve_tag};

/* The baseline's world: a pool of handles, the two columns and the handle
 * column by row, and a sparse set for the tag and one for the 4-byte value. */
typedef struct pool {
    plain_ids ids;
    move_position *p;
    move_velocity *v;
    plain_handle *owner;
    uint32_t count, capacity;
    plain_set marked, small;
} pool;

/* Empty, with the world's defaults (1,024 records, 8 rows a table) and the
 * sets sized once: the world's tables also grow only in their first use. */
static void *pool_make(uint32_t n) {
    pool *b = bench_alloc(sizeof *b);
    *b = (pool){plain_ids_make(1024),
                bench_alloc(sizeof(move_position) * 8),
                bench_alloc(sizeof(move_velocity) * 8),
                bench_alloc(sizeof(plain_handle) * 8),
                0,
                8,
                plain_set_make(n, n, true),
                plain_set_make(n, n, false)};
    return b;
}

static void pool_free(void *w) {
    pool *b = w;
    plain_ids_free(&b->ids);
    free(b->p);
    free(b->v);
    free(b->owner);
    plain_set_free(&b->marked);
    plain_set_free(&b->small);
    free(b);
}

/* Room for n more rows, growing geometrically. */
static void pool_reserve(pool *b, uint32_t n) {
    if (b->count + n <= b->capacity) {
        return;
    }
    while (b->count + n > b->capacity) {
        b->capacity *= 2;
    }
    b->p = plain_grow(b->p, sizeof *b->p * b->capacity);
    b->v = plain_grow(b->v, sizeof *b->v * b->capacity);
    b->owner = plain_grow(b->owner, sizeof *b->owner * b->capacity);
}

static void pool_create(void *w, uint32_t n, uint64_t *ids) {
    pool *b = w;
    for (uint32_t i = 0; i < n; i++) {
        pool_reserve(b, 1);
        uint32_t row = b->count++;
        ids[i] = b->owner[row] = plain_ids_take(&b->ids, row);
        b->p[row] = p0;
        b->v[row] = v0;
    }
}

static void pool_create_many(void *w, uint32_t n, uint64_t *ids) {
    pool *b = w;
    pool_reserve(b, n);
    if (b->ids.capacity < n) {
        b->ids.capacity = n;
        b->ids.generation = plain_grow(b->ids.generation, sizeof(uint32_t) * n);
        b->ids.slot = plain_grow(b->ids.slot, sizeof(uint32_t) * n);
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t row = b->count++;
        ids[i] = b->owner[row] = plain_ids_take(&b->ids, row);
        b->p[row] = p0;
        b->v[row] = v0;
    }
}

static void pool_add_tag(void *w, uint32_t n, const uint64_t *ids) {
    pool *b = w;
    plain_set_add_each(&b->ids, &b->marked, n, ids);
}

static void pool_remove_tag(void *w, uint32_t n, const uint64_t *ids) {
    pool *b = w;
    plain_set_remove_each(&b->ids, &b->marked, n, ids);
}

static void pool_add_small(void *w, uint32_t n, const uint64_t *ids) {
    pool *b = w;
    plain_set_add_each(&b->ids, &b->small, n, ids);
}

static void pool_remove_small(void *w, uint32_t n, const uint64_t *ids) {
    pool *b = w;
    plain_set_remove_each(&b->ids, &b->small, n, ids);
}

static void pool_destroy(void *w, uint32_t n, const uint64_t *ids) {
    pool *b = w;
    for (uint32_t i = 0; i < n; i++) {
        plain_handle h = ids[i];
        if (!plain_ids_alive(&b->ids, h)) {
            continue;
        }
        uint32_t row = b->ids.slot[plain_index(h)], last = --b->count;
        if (row != last) {
            b->p[row] = b->p[last];
            b->v[row] = b->v[last];
            b->owner[row] = b->owner[last];
            b->ids.slot[plain_index(b->owner[row])] = row;
        }
        plain_ids_release(&b->ids, h);
    }
    bench_check(b->count == 0, "move: plain destroy");
}

/* The baseline's "in one call" is its loop over the set: what a C
 * programmer writes to tag many entities. */
static const subject plain =
    {pool_make,      pool_free,         pool_create,  pool_create_many, pool_add_tag, pool_remove_tag,
     pool_add_small, pool_remove_small, pool_add_tag, pool_destroy,     NULL};

/* The samples of every structural row, one per run. */
typedef struct samples {
    double create[BENCH_MAX_RUNS], create_reused[BENCH_MAX_RUNS], bulk_new[BENCH_MAX_RUNS], bulk_reused[BENCH_MAX_RUNS],
        add_tag_cold[BENCH_MAX_RUNS], add_tag_reserved[BENCH_MAX_RUNS], add_c_cold[BENCH_MAX_RUNS],
        add_tag[BENCH_MAX_RUNS], rm_tag[BENCH_MAX_RUNS], add_c[BENCH_MAX_RUNS], rm_c[BENCH_MAX_RUNS],
        add_many[BENCH_MAX_RUNS], destroy[BENCH_MAX_RUNS], scratch[BENCH_MAX_RUNS];
} samples;

/* One run of every step over one subject, each timed into run r of out.
 * The add/remove steps run twice: the first time the target tables grow
 * (and fault their pages in), the second is the steady state of a game
 * whose tables already have room. */
static void script(const subject *s, uint32_t n, bool all, uint64_t *ids, samples *out, int r) {
    void *w = s->make(n);
    double t = bench_now();
    s->create(w, n, ids);
    t = bench_lap(&out->create[r], t, n);
    if (all) {
        s->add_tag(w, n, ids);
        t = bench_lap(&out->add_tag_cold[r], t, n);
        s->remove_tag(w, n, ids);
        t = bench_lap(&out->scratch[r], t, n);
        s->add_small(w, n, ids);
        t = bench_lap(&out->add_c_cold[r], t, n);
        s->remove_small(w, n, ids);
        t = bench_lap(&out->scratch[r], t, n);
        s->add_tag(w, n, ids);
        t = bench_lap(&out->add_tag[r], t, n);
        s->remove_tag(w, n, ids);
        t = bench_lap(&out->rm_tag[r], t, n);
        s->add_small(w, n, ids);
        t = bench_lap(&out->add_c[r], t, n);
        s->remove_small(w, n, ids);
        t = bench_lap(&out->rm_c[r], t, n);
        s->add_tag_many(w, n, ids);
        t = bench_lap(&out->add_many[r], t, n);
        s->remove_tag(w, n, ids);
        t = bench_now();
    }
    s->destroy(w, n, ids);
    t = bench_lap(&out->destroy[r], t, n);
    s->create(w, n, ids);
    bench_lap(&out->create_reused[r], t, n);
    s->destroy(w, n, ids);
    t = bench_now();
    s->create_many(w, n, ids);
    bench_lap(&out->bulk_reused[r], t, n);
    s->free(w);

    w = s->make(n);
    t = bench_now();
    s->create_many(w, n, ids);
    bench_lap(&out->bulk_new[r], t, n);
    if (all && s->reserve_tag != NULL) {
        /* The first add of a tag into a table reserved (and its pages
         * faulted in) ahead: what the steady add costs, if the reserve
         * took the growth away. */
        s->reserve_tag(w, n);
        t = bench_now();
        s->add_tag(w, n, ids);
        bench_lap(&out->add_tag_reserved[r], t, n);
    }
    s->free(w);
}

static void structural(uint32_t size, int runs, bool all) {
    uint32_t n = bench_count(size);
    samples *s = bench_alloc(sizeof *s), *p = bench_alloc(sizeof *p);
    uint64_t *ids = bench_alloc(sizeof *ids * n);
    for (int r = 0; r < runs; r++) {
        script(&strata, n, all, ids, s, r);
        script(&plain, n, all, ids, p, r);
    }
    free(ids);
    const char *m = "move";
    bench_record(m, "create 2 components, one by one", size, "ns/op", s->create, p->create, runs, BENCH_AT_MOST(20));
    bench_record(m, "  same, indices and rows reused", size, "ns/op", s->create_reused, p->create_reused, runs,
                 BENCH_AT_MOST(20));
    bench_record(m, "create in bulk from an assemblage", size, "ns/op", s->bulk_new, p->bulk_new, runs,
                 BENCH_AT_MOST(3));
    bench_record(m, "  same, indices and rows reused", size, "ns/op", s->bulk_reused, p->bulk_reused, runs,
                 BENCH_AT_MOST(3));
    if (all) {
        bench_record(m, "add a tag, first time (table grows)", size, "ns/op", s->add_tag_cold, p->add_tag_cold, runs,
                     BENCH_NONE);
        bench_record(m, "add a tag", size, "ns/op", s->add_tag, p->add_tag, runs, BENCH_AT_MOST_AND_RATIO(8, 4.0));
        /* Its baseline column is Strata's own steady add of the same run. */
        bench_record(m, "first add of a tag after reserve", size, "ns/op", s->add_tag_reserved, s->add_tag, runs,
                     BENCH_RATIO(1.3));
        bench_record(m, "remove a tag", size, "ns/op", s->rm_tag, p->rm_tag, runs, BENCH_AT_MOST(10));
        bench_record(m, "add 4-byte, first time (table grows)", size, "ns/op", s->add_c_cold, p->add_c_cold, runs,
                     BENCH_NONE);
        bench_record(m, "add a 4-byte component", size, "ns/op", s->add_c, p->add_c, runs,
                     BENCH_AT_MOST_AND_RATIO(10, 5.5));
        bench_record(m, "remove a 4-byte component", size, "ns/op", s->rm_c, p->rm_c, runs, BENCH_AT_MOST(10));
        bench_record(m, "add a tag to 1,000,000 entities with add_many", size, "ns/op", s->add_many, p->add_many, runs,
                     BENCH_RATIO(1.5));
    }
    bench_record(m, "destroy", size, "ns/op", s->destroy, p->destroy, runs, BENCH_AT_MOST(20));
    free(s);
    free(p);
}

/* Bytes the world holds per entity (components included), made in one
 * placement so no table has room to spare. */
static void memory(uint32_t size) {
    arrays a, e;
    move_world *empty = moving(0, &e);
    move_world *w = moving(bench_count(size), &a);
    strata_world_stats_t s0, s1;
    move_world_stats(empty, &s0);
    move_world_stats(w, &s1);
    double per = (double)(s1.bytes - s0.bytes) / size;
    const double components = sizeof(move_position) + sizeof(move_velocity);
    bench_record("move", "memory per entity (16 B components)", size, "B/entity", &per, NULL, 1,
                 BENCH_AT_MOST(components + 24));
    free(a.p);
    free(a.v);
    free(e.p);
    free(e.v);
    move_world_destroy(w);
    move_world_destroy(empty);
}

void bench_move(void) {
    iteration(1000000);
    iteration(16000000);
    fixed_cost();
    structural(1000000, bench_runs(), true);
    /* Seconds a run at this size, and gigabytes: three runs are enough. */
    structural(16000000, bench_runs() < 3 ? bench_runs() : 3, false);
    memory(1000000);
}

/* sparse: 1,000,000 entities with Position and Velocity, and components
 * stored sparse (`storage: sparse`): adding and removing a tag and a
 * 4-byte component one entity at a time, which moves no row; and the pass
 * p += v over the entities that hold the tag, half of them chosen at
 * random, filtered by it.
 *
 * The structural baselines are plain.h's sparse sets over the entities'
 * indices (the kept-reference path of a sparse-set library: a handle
 * checked against its generation, then the set); the pass's baseline is a
 * plain loop over the arrays that tests a byte flag per entity. */
#include "bench.h"
#include "plain.h"
#include "sparse_bench.h"

#include <stdlib.h>

/* The one half of the entities that hold the tag: a fixed hash of the index. */
static bool chosen(uint32_t i) {
    uint32_t x = i * 2654435761u;
    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    return ((x ^ (x >> 12)) & 1u) != 0;
}

void sparse_bench_drift_run(sparse_bench_drift_ctx *ctx) {
    while (sparse_bench_drift_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->position[i].x += ctx->velocity[i].x;
            ctx->position[i].y += ctx->velocity[i].y;
        }
    }
}

/* --- The filtered pass ----------------------------------------------------- */

typedef struct flagged {
    sparse_bench_position *p;
    sparse_bench_velocity *v;
    uint8_t *flag;
    int n;
} flagged;

BENCH_KERNEL void flagged_rows(sparse_bench_position *restrict p, const sparse_bench_velocity *restrict v,
                               const uint8_t *restrict flag, int n) {
    for (int i = 0; i < n; i++) {
        if (flag[i]) {
            p[i].x += v[i].x;
            p[i].y += v[i].y;
        }
    }
}

static void flagged_pass(void *state) {
    flagged *a = state;
    flagged_rows(a->p, a->v, a->flag, a->n);
}

static void drift_pass(void *state) {
    sparse_bench_world_step(state, 1.0f);
}

static void filtered(uint32_t size) {
    uint32_t n = bench_count(size);
    sparse_bench_world *w = sparse_bench_world_create(&(strata_world_desc_t){.initial_capacity = n});
    bench_check(w != NULL, "sparse: world create");
    sparse_bench_entity *ids = bench_alloc(sizeof *ids * n);
    const sparse_bench_position p0 = {1, 2};
    const sparse_bench_velocity v0 = {0.5f, 0.25f};
    bench_check(sparse_bench_entity_create_many(w, &(sparse_bench_bundle){.position = &p0, .velocity = &v0}, n, ids) ==
                    STRATA_OK,
                "sparse: create");
    flagged a = {bench_alloc(sizeof *a.p * n), bench_alloc(sizeof *a.v * n), bench_alloc(n), (int)n};
    uint32_t held = 0;
    for (uint32_t i = 0; i < n; i++) {
        a.p[i] = p0;
        a.v[i] = v0;
        a.flag[i] = chosen(i);
        held += a.flag[i];
        if (a.flag[i]) {
            bench_check(sparse_bench_stunned_add(w, ids[i]) == STRATA_OK, "sparse: add the tag");
        }
    }
    bench_check(sparse_bench_drift_count(w) == held && held > n / 3 && held < n / 3 * 2, "sparse: half hold the tag");
    bench_run_pair(&(bench_pair){.name = "sparse",
                                 .op = "p += v over entities half of which hold a sparse tag, filtered by it",
                                 .size = size,
                                 .ops = size,
                                 .strata = drift_pass,
                                 .strata_state = w,
                                 .plain = flagged_pass,
                                 .plain_state = &a,
                                 .target = BENCH_RATIO(2.0)});
    free(ids);
    free(a.p);
    free(a.v);
    free(a.flag);
    sparse_bench_world_destroy(w);
}

/* --- Adding and removing, one entity at a time ---------------------------------- */

/* One side: the same four steps over a Strata world or over the sets of
 * plain.h, each a loop over n entities whose handles are in ids[]. */
typedef struct subject {
    void *(*make)(uint32_t n, uint64_t *ids); /* n entities with Position and Velocity */
    void (*free)(void *w);
    void (*add_tag)(void *w, uint32_t n, const uint64_t *ids);
    void (*remove_tag)(void *w, uint32_t n, const uint64_t *ids);
    void (*add_small)(void *w, uint32_t n, const uint64_t *ids);
    void (*remove_small)(void *w, uint32_t n, const uint64_t *ids);
} subject;

static void *world_make(uint32_t n, uint64_t *ids) {
    sparse_bench_world *w = sparse_bench_world_create(NULL);
    bench_check(w != NULL, "sparse: world create");
    const sparse_bench_position p0 = {1, 2};
    const sparse_bench_velocity v0 = {0.5f, 0.25f};
    /* A handle is one uint64_t. */
    bench_check(sparse_bench_entity_create_many(w, &(sparse_bench_bundle){.position = &p0, .velocity = &v0}, n,
                                                (sparse_bench_entity *)(void *)ids) == STRATA_OK,
                "sparse: create");
    return w;
}

static void world_free(void *w) {
    sparse_bench_world_destroy(w);
}

static void world_add_tag(void *w, uint32_t n, const uint64_t *ids) {
    for (uint32_t i = 0; i < n; i++) {
        sparse_bench_stunned_add(w, (sparse_bench_entity){ids[i]});
    }
    bench_check(sparse_bench_stunned_has(w, (sparse_bench_entity){ids[n - 1]}), "sparse: add tag");
}

static void world_remove_tag(void *w, uint32_t n, const uint64_t *ids) {
    for (uint32_t i = 0; i < n; i++) {
        sparse_bench_stunned_remove(w, (sparse_bench_entity){ids[i]});
    }
    bench_check(!sparse_bench_stunned_has(w, (sparse_bench_entity){ids[0]}), "sparse: remove tag");
}

static void world_add_small(void *w, uint32_t n, const uint64_t *ids) {
    for (uint32_t i = 0; i < n; i++) {
        sparse_bench_charge_add(w, (sparse_bench_entity){ids[i]}, (sparse_bench_charge){(int32_t)i});
    }
    bench_check(sparse_bench_charge_get(w, (sparse_bench_entity){ids[n - 1]})->value == (int32_t)(n - 1),
                "sparse: add small");
}

static void world_remove_small(void *w, uint32_t n, const uint64_t *ids) {
    for (uint32_t i = 0; i < n; i++) {
        sparse_bench_charge_remove(w, (sparse_bench_entity){ids[i]});
    }
    bench_check(!sparse_bench_charge_has(w, (sparse_bench_entity){ids[0]}), "sparse: remove small");
}

static const subject strata = {world_make,       world_free,      world_add_tag,
                               world_remove_tag, world_add_small, world_remove_small};

/* The baseline: handles, and a sparse set for the tag and one for the value. */
typedef struct sets {
    plain_ids ids;
    plain_set stunned, charge;
} sets;

static void *sets_make(uint32_t n, uint64_t *ids) {
    sets *s = bench_alloc(sizeof *s);
    *s = (sets){plain_ids_make(1024), plain_set_make(n, n, true), plain_set_make(n, n, false)};
    for (uint32_t i = 0; i < n; i++) {
        ids[i] = plain_ids_take(&s->ids, i);
    }
    return s;
}

static void sets_free(void *w) {
    sets *s = w;
    plain_ids_free(&s->ids);
    plain_set_free(&s->stunned);
    plain_set_free(&s->charge);
    free(s);
}

static void sets_add_tag(void *w, uint32_t n, const uint64_t *ids) {
    sets *s = w;
    plain_set_add_each(&s->ids, &s->stunned, n, ids);
}

static void sets_remove_tag(void *w, uint32_t n, const uint64_t *ids) {
    sets *s = w;
    plain_set_remove_each(&s->ids, &s->stunned, n, ids);
}

static void sets_add_small(void *w, uint32_t n, const uint64_t *ids) {
    sets *s = w;
    plain_set_add_each(&s->ids, &s->charge, n, ids);
}

static void sets_remove_small(void *w, uint32_t n, const uint64_t *ids) {
    sets *s = w;
    plain_set_remove_each(&s->ids, &s->charge, n, ids);
}

static const subject plain = {sets_make, sets_free, sets_add_tag, sets_remove_tag, sets_add_small, sets_remove_small};

typedef struct samples {
    double add_tag[BENCH_MAX_RUNS], rm_tag[BENCH_MAX_RUNS], add_c[BENCH_MAX_RUNS], rm_c[BENCH_MAX_RUNS];
} samples;

/* One run over one subject: each step once untimed (the sets grow, pages
 * fault in), then timed, as a game whose sets already have room. */
static void script(const subject *s, uint32_t n, uint64_t *ids, samples *out, int r) {
    void *w = s->make(n, ids);
    s->add_tag(w, n, ids);
    s->remove_tag(w, n, ids);
    s->add_small(w, n, ids);
    s->remove_small(w, n, ids);
    double t = bench_now();
    s->add_tag(w, n, ids);
    t = bench_lap(&out->add_tag[r], t, n);
    s->remove_tag(w, n, ids);
    t = bench_lap(&out->rm_tag[r], t, n);
    s->add_small(w, n, ids);
    t = bench_lap(&out->add_c[r], t, n);
    s->remove_small(w, n, ids);
    bench_lap(&out->rm_c[r], t, n);
    s->free(w);
}

static void structural(uint32_t size) {
    uint32_t n = bench_count(size);
    int runs = bench_runs();
    samples *s = bench_alloc(sizeof *s), *p = bench_alloc(sizeof *p);
    uint64_t *ids = bench_alloc(sizeof *ids * n);
    for (int r = 0; r < runs; r++) {
        script(&strata, n, ids, s, r);
        script(&plain, n, ids, p, r);
    }
    free(ids);
    const char *c = "sparse";
    bench_record(c, "add a sparse tag", size, "ns/op", s->add_tag, p->add_tag, runs, BENCH_RATIO(2.5));
    bench_record(c, "remove a sparse tag", size, "ns/op", s->rm_tag, p->rm_tag, runs, BENCH_RATIO(2.5));
    bench_record(c, "add a sparse 4-byte component", size, "ns/op", s->add_c, p->add_c, runs, BENCH_RATIO(3.0));
    bench_record(c, "remove a sparse 4-byte component", size, "ns/op", s->rm_c, p->rm_c, runs, BENCH_RATIO(3.0));
    free(s);
    free(p);
}

void bench_sparse(void) {
    structural(1000000);
    filtered(1000000);
}

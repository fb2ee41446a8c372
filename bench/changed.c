/* changed: 1,000,000 entities with Position; each step writes 1% of them
 * (set, at scattered rows), then a `changed` system visits what was
 * written. One op: one written entity, marked and visited. The baseline is
 * what a game would write by hand: a flag per entity and a list of written
 * indices, walked once. A second row is the full pass over every entity,
 * so the table shows what the changed pass saves; two more time `set` of a
 * tracked and of an untracked component (no query has it under `changed`)
 * at the same rows: tracking costs only where it is asked for. The visit
 * alone is timed inside the first row's passes (the clock read around the
 * visit, for Strata and the baseline alike). */
#include "bench.h"
#include "changed.h"

#include <stdbool.h>
#include <stdlib.h>

/* Entities, and those written a pass: 1,000,000 and 1% (fewer with --smoke). */
static uint32_t count, written;
#define STRIDE 97u /* scatter the writes over the rows */

/* The same body everywhere: read the position. */
BENCH_KERNEL float sum_x(const changed_position *restrict p, int n) {
    float sum = 0.0f;
    for (int i = 0; i < n; i++) {
        sum += p[i].x;
    }
    return sum;
}

static volatile float sink;
static uint32_t visited;
static uint32_t step;      /* which 1% is written next */
static double visit_ns[2]; /* time spent visiting: Strata, the baseline */

void changed_render_run(changed_render_ctx *ctx) {
    float sum = 0.0f;
    while (changed_render_next(ctx)) {
        sum += sum_x(ctx->position, (int)ctx->count);
        visited += ctx->count;
    }
    sink = sum;
}

typedef struct world_state {
    changed_world *w;
    changed_entity *ids;
} world_state;

/* Write 1%, then let the changed system visit them. */
static void strata_pass(void *state) {
    world_state *s = state;
    step++;
    for (uint32_t k = 0; k < written; k++) {
        changed_position_set(s->w, s->ids[(k * STRIDE + step) % count], (changed_position){(float)k, 0});
    }
    visited = 0;
    double t0 = bench_now();
    changed_render_ctx ctx = changed_render_begin(s->w, 0);
    changed_render_run(&ctx);
    changed_render_end(&ctx);
    visit_ns[0] += bench_now() - t0;
    bench_check(visited == written, "changed: every written entity visited once");
}

/* set 1% of the rows: Position (tracked) or Velocity (not). */
static void set_tracked(void *state) {
    world_state *s = state;
    step++;
    for (uint32_t k = 0; k < written; k++) {
        changed_position_set(s->w, s->ids[(k * STRIDE + step) % count], (changed_position){(float)k, 0});
    }
}

static void set_untracked(void *state) {
    world_state *s = state;
    step++;
    for (uint32_t k = 0; k < written; k++) {
        changed_velocity_set(s->w, s->ids[(k * STRIDE + step) % count], (changed_velocity){(float)k, 0});
    }
}

static void strata_full(void *state) {
    world_state *s = state;
    float sum = 0.0f;
    for (changed_everything_iter it = changed_everything_begin(s->w); changed_everything_next(&it);) {
        sum += sum_x(it.position, (int)it.count);
    }
    sink = sum;
}

/* The hand-written dirty tracking: a flag per entity, a list of indices. */
typedef struct plain {
    changed_position *position;
    bool *dirty;
    uint32_t *list;
    uint32_t count, n;
} plain;

static void plain_pass(void *state) {
    plain *p = state;
    step++;
    for (uint32_t k = 0; k < written; k++) {
        uint32_t i = (k * STRIDE + step) % p->n;
        p->position[i] = (changed_position){(float)k, 0};
        if (!p->dirty[i]) {
            p->dirty[i] = true;
            p->list[p->count++] = i;
        }
    }
    double t0 = bench_now();
    float sum = 0.0f;
    for (uint32_t k = 0; k < p->count; k++) {
        uint32_t i = p->list[k];
        p->dirty[i] = false;
        sum += sum_x(&p->position[i], 1);
    }
    p->count = 0;
    sink = sum;
    visit_ns[1] += bench_now() - t0;
}

static void plain_full(void *state) {
    plain *p = state;
    sink = sum_x(p->position, (int)p->n);
}

void bench_changed(void) {
    uint32_t n = count = bench_count(1000000u);
    written = count / 100;
    world_state s = {changed_world_create(&(strata_world_desc_t){.initial_capacity = n}),
                     bench_alloc(sizeof(changed_entity) * n)};
    bench_check(s.w != NULL, "changed: world create");
    bench_check(changed_entity_create_many(s.w,
                                           &(changed_bundle){.position = &(changed_position){1, 2},
                                                             .velocity = &(changed_velocity){0, 0}},
                                           n, s.ids) == STRATA_OK,
                "changed: create");
    changed_world_step(s.w, 0); /* the first run visits every new entity */
    plain p = {bench_alloc(sizeof(changed_position) * n), bench_alloc(sizeof(bool) * n),
               bench_alloc(sizeof(uint32_t) * n), 0, n};
    for (uint32_t i = 0; i < n; i++) {
        p.position[i] = (changed_position){1, 2};
        p.dirty[i] = false;
    }
    bench_run_pair(&(bench_pair){.name = "changed",
                                 .op = "write 1%, visit them (per written)",
                                 .size = count,
                                 .ops = written,
                                 .strata = strata_pass,
                                 .strata_state = &s,
                                 .plain = plain_pass,
                                 .plain_state = &p});
    /* The visit alone: runs of a fixed number of the same passes, the
     * clock read around each visit. */
    double visit[2][BENCH_MAX_RUNS];
    for (int r = 0; r < bench_runs(); r++) {
        enum { PASSES = 32 };
        for (int side = 0; side < 2; side++) {
            int first = (side + r) % 2; /* alternate which side goes first */
            visit_ns[first] = 0;
            for (int k = 0; k < PASSES; k++) {
                first == 0 ? strata_pass(&s) : plain_pass(&p);
            }
            visit[first][r] = visit_ns[first] / PASSES / written;
        }
    }
    bench_record("changed", "the visit alone (per written)", count, "ns/op", visit[0], visit[1], bench_runs(),
                 BENCH_AT_MOST(4.0));
    bench_run_pair(&(bench_pair){.name = "changed",
                                 .op = "full pass, for scale (per entity)",
                                 .size = count,
                                 .ops = count,
                                 .strata = strata_full,
                                 .strata_state = &s,
                                 .plain = plain_full,
                                 .plain_state = &p});
    /* Tracked against untracked: the same sets, compared like a baseline. */
    bench_run_pair(&(bench_pair){.name = "changed",
                                 .op = "set, tracked (baseline: untracked)",
                                 .size = count,
                                 .ops = written,
                                 .strata = set_tracked,
                                 .strata_state = &s,
                                 .plain = set_untracked,
                                 .plain_state = &s});
    changed_world_destroy(s.w);
    free(s.ids);
    free(p.position);
    free(p.dirty);
    free(p.list);
}

/* events: 10,000 and 100,000 events a step, emitted by one system and
 * received by the next (one op: one event emitted and received). The baseline is what a
 * game writes by hand: a growable array of the same structs, pushed to,
 * walked, emptied. A second world times a step whose systems emit and
 * receive an event type nobody emitted that step: the fixed cost of an
 * event type (per step, beside the same step with no event type at all).
 * A third world emits from a split system (one event a row, 100,000 rows
 * in chunks) at 1 and 2 threads, beside the same hand-written array. */
#include "bench.h"
#include "event_bench.h"
#include "split_event_bench.h"

#include <stdlib.h>

#define COUNT 100000u

static uint32_t emit_count; /* events Fire emits a step */
static int64_t received;    /* what Absorb summed */
static volatile int64_t sink;

/* The same body on both sides: the event made from its index, and the sum. */
static inline event_bench_hit make_hit(uint32_t i) {
    return (event_bench_hit){.who = {i + 1}, .damage = (int32_t)(i & 7), .x = (float)i};
}

BENCH_KERNEL int64_t sum_hits(const event_bench_hit *restrict h, uint32_t n) {
    int64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        sum += h[i].damage;
    }
    return sum;
}

void event_bench_fire_run(event_bench_fire_ctx *ctx) {
    for (uint32_t i = 0; i < emit_count; i++) {
        event_bench_hit h = make_hit(i);
        (void)event_bench_hit_emit(ctx, &h);
    }
}

void event_bench_absorb_run(event_bench_absorb_ctx *ctx) {
    received += sum_hits(ctx->hit_events, ctx->hit_count);
}

/* The split emitter: the same events, one a row, made from the row's index. */
void split_event_bench_fire_run(split_event_bench_fire_ctx *ctx) {
    while (split_event_bench_fire_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            event_bench_hit h = make_hit(ctx->source[i].i);
            (void)split_event_bench_hit_emit(ctx,
                                             &(split_event_bench_hit){.who = {h.who.id}, .damage = h.damage, .x = h.x});
        }
    }
}

void split_event_bench_absorb_run(split_event_bench_absorb_ctx *ctx) {
    _Static_assert(sizeof(split_event_bench_hit) == sizeof(event_bench_hit), "the same struct");
    received += sum_hits((const event_bench_hit *)(const void *)ctx->hit_events, ctx->hit_count);
}

static void split_pass(void *state) {
    received = 0;
    bench_check(split_event_bench_world_step(state, 0) == STRATA_OK, "events: split step");
    bench_check(received == (int64_t)(emit_count / 8) * 28, "events: every split event received once");
    sink = received;
}

/* A world of `threads` threads whose Fire has n rows, Source 0 .. n - 1. */
static split_event_bench_world *split_world(uint32_t threads, uint32_t n) {
    split_event_bench_world *w = split_event_bench_world_create(&(split_event_bench_world_desc_t){.threads = threads});
    bench_check(w != NULL, "events: split world create");
    for (uint32_t i = 0; i < n; i++) {
        split_event_bench_source s = {i};
        split_event_bench_entity e = split_event_bench_entity_create_bundle(w,
                                                                            &(split_event_bench_bundle){.source = &s});
        bench_check(e.id != 0, "events: split world entity");
    }
    return w;
}

void event_bench_hush_run(event_bench_hush_ctx *ctx) {
    (void)ctx;
}

void event_bench_listen_run(event_bench_listen_ctx *ctx) {
    received += ctx->quiet_count;
}

static void strata_pass(void *state) {
    received = 0;
    event_bench_world_step(state, 0);
    bench_check(received == (int64_t)(emit_count / 8) * 28, "events: every event received once");
    sink = received;
}

/* The hand-written array of structs. */
typedef struct plain {
    event_bench_hit *hits;
    size_t count, cap;
} plain;

static void plain_push(plain *p, event_bench_hit h) {
    if (p->count == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 64;
        p->hits = realloc(p->hits, sizeof *p->hits * p->cap);
        bench_check(p->hits != NULL, "events: plain realloc");
    }
    p->hits[p->count++] = h;
}

static void plain_pass(void *state) {
    plain *p = state;
    for (uint32_t i = 0; i < emit_count; i++) {
        plain_push(p, make_hit(i));
    }
    int64_t sum = sum_hits(p->hits, (uint32_t)p->count);
    p->count = 0;
    bench_check(sum == (int64_t)(emit_count / 8) * 28, "events: plain sum");
    sink = sum;
}

/* A step where nothing is emitted: Fire and Hush run and emit nothing. */
static void quiet_steps(void *state) {
    for (int i = 0; i < 1000; i++) {
        event_bench_world_step(state, 0);
    }
}

/* The same steps in a world whose event systems are disabled: the base
 * the fixed cost is measured against. */
static void bare_steps(void *state) {
    for (int i = 0; i < 1000; i++) {
        event_bench_world_step(state, 0);
    }
}

void bench_events(void) {
    event_bench_world *w = event_bench_world_create(NULL);
    bench_check(w != NULL, "events: world create");
    plain p = {0};
    /* In cache and out of it: Absorb follows Fire, so both hold one step's events. */
    emit_count = bench_count(COUNT / 10);
    bench_run_pair(&(bench_pair){.name = "events",
                                 .op = "emit + receive, 10k a step (per event)",
                                 .size = COUNT / 10,
                                 .ops = COUNT / 10,
                                 .strata = strata_pass,
                                 .strata_state = w,
                                 .plain = plain_pass,
                                 .plain_state = &p,
                                 .target = BENCH_RATIO(1.5)});
    emit_count = bench_count(COUNT);
    bench_run_pair(&(bench_pair){.name = "events",
                                 .op = "emit + receive, 100k a step (per event)",
                                 .size = COUNT,
                                 .ops = COUNT,
                                 .strata = strata_pass,
                                 .strata_state = w,
                                 .plain = plain_pass,
                                 .plain_state = &p,
                                 .target = BENCH_NONE});
    emit_count = 0;
    event_bench_world *bare = event_bench_world_create(NULL);
    bench_check(bare != NULL, "events: world create");
    event_bench_hush_enable(bare, false);
    event_bench_listen_enable(bare, false);
    event_bench_fire_enable(w, false);
    event_bench_absorb_enable(w, false);
    bench_run_pair(&(bench_pair){.name = "events",
                                 .op = "type nobody emitted (per step; base: none)",
                                 .size = 0,
                                 .ops = 1000,
                                 .strata = quiet_steps,
                                 .strata_state = w,
                                 .plain = bare_steps,
                                 .plain_state = bare,
                                 .target = BENCH_NONE});
    event_bench_world_destroy(w);
    event_bench_world_destroy(bare);
    /* Through a split emitter, its chunks merged in chunk order. */
    emit_count = bench_count(COUNT);
    for (uint32_t threads = 1; threads <= 2; threads++) {
        split_event_bench_world *sw = split_world(threads, emit_count);
        bench_run_pair(&(bench_pair){.name = "events",
                                     .op = threads == 1 ? "split emitter + receive, 100k, 1 thread (per event)"
                                                        : "split emitter + receive, 100k, 2 threads (per event)",
                                     .size = emit_count,
                                     .ops = emit_count,
                                     .strata = split_pass,
                                     .strata_state = sw,
                                     .plain = plain_pass,
                                     .plain_state = &p,
                                     .target = BENCH_NONE});
        split_event_bench_world_destroy(sw);
    }
    free(p.hits);
}

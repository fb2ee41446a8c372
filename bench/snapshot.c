/* snapshot: rollback's costs on 10,000 entities of 48 bytes (Pos, Vel,
 * Body) in 20 archetypes. A full take and a restore against a memcpy of
 * the entities' component bytes (480,000) into a buffer of their own; a
 * take after one of the 20 tables was written (5%) against a full take;
 * the checksum in ns per byte of what it hashes (what a save holds). One op:
 * one entity (one byte for the checksum). */
#include "bench.h"
#include "snapshot.h"

#include <stdlib.h>
#include <string.h>

#define SNAP_ENTITIES 10000u
#define SNAP_TABLES 20u

typedef struct snap_bench_t {
    snapshot_world *w;
    snapshot_snapshot_t *s;
    snapshot_entity one; /* an entity of the table One writes */
} snap_bench_t;

typedef struct copy_bench_t {
    unsigned char *from, *to;
    size_t bytes;
} copy_bench_t;

/* Every table opened for writing (its rows untouched): the next take copies all of them. */
static void take_full_pass(void *state) {
    snap_bench_t *b = state;
    snapshot_all_iter it = snapshot_all_begin(b->w);
    (void)snapshot_all_end(&it);
    bench_check(snapshot_snapshot_take(b->w, b->s) == STRATA_OK, "snapshot: take");
}

/* One row of one table written: the take copies that table. */
static void take_delta_pass(void *state) {
    snap_bench_t *b = state;
    snapshot_pos_mut(b->w, b->one)->x += 1.0f;
    bench_check(snapshot_snapshot_take(b->w, b->s) == STRATA_OK, "snapshot: take");
}

static void restore_pass(void *state) {
    snap_bench_t *b = state;
    bench_check(snapshot_snapshot_restore(b->w, b->s) == STRATA_OK, "snapshot: restore");
}

static volatile uint64_t checksum_sink;

static void checksum_pass(void *state) {
    snap_bench_t *b = state;
    uint64_t sum = 0;
    bench_check(snapshot_checksum(b->w, &sum) == STRATA_OK, "snapshot: checksum");
    checksum_sink = sum;
}

static void copy_pass(void *state) {
    copy_bench_t *c = state;
    memcpy(c->to, c->from, c->bytes);
    __asm__ volatile("" : : "r"(c->to) : "memory"); /* the copy is used */
}

/* A world of n entities, entity i in archetype i % 20 (tags: the bits of i % 20, plus T4 from 16). */
static snap_bench_t world_of(uint32_t n) {
    snap_bench_t b = {.w = snapshot_world_create(&(strata_world_desc_t){.initial_capacity = n})};
    bench_check(b.w != NULL, "snapshot: world");
    strata_world_t *core = snapshot_world_core(b.w);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t ids[8] = {SNAPSHOT_POS, SNAPSHOT_VEL, SNAPSHOT_BODY}, k = 3;
        for (uint32_t bit = 0; bit < 5; bit++) {
            if ((i % SNAP_TABLES) >> bit & 1u) {
                ids[k++] = SNAPSHOT_T0 + bit;
            }
        }
        snapshot_pos p = {(float)i, 1};
        const void *values[8] = {&p};
        strata_entity_t e = STRATA_ENTITY_NULL;
        bench_check(strata_entity_create_many(core, 1, k, ids, values, &e) == STRATA_OK, "snapshot: create");
        if (i % SNAP_TABLES == 15) {
            b.one = (snapshot_entity){e};
        }
    }
    strata_world_stats_t st;
    snapshot_world_stats(b.w, &st);
    bench_check(st.tables == SNAP_TABLES + 1, "snapshot: 20 tables (and the empty one)");
    bench_check(snapshot_one_count(b.w) == n / SNAP_TABLES, "snapshot: One's table");
    b.s = snapshot_snapshot_create(b.w);
    bench_check(b.s != NULL && snapshot_snapshot_take(b.w, b.s) == STRATA_OK, "snapshot: first take");
    return b;
}

void bench_snapshot(void) {
    const uint32_t size = SNAP_ENTITIES;
    uint32_t n = bench_count(size); /* (fewer in a smoke run) */
    snap_bench_t b = world_of(n);
    copy_bench_t c = {.bytes = (size_t)n * 48};
    c.from = bench_alloc(c.bytes);
    c.to = bench_alloc(c.bytes);
    memset(c.from, 1, c.bytes);
    memset(c.to, 2, c.bytes);
    bench_run_pair(&(bench_pair){.name = "snapshot",
                                 .op = "take (all 20 tables)",
                                 .size = size,
                                 .ops = size,
                                 .strata = take_full_pass,
                                 .strata_state = &b,
                                 .plain = copy_pass,
                                 .plain_state = &c,
                                 .target = BENCH_RATIO(2.0)});
    bench_run_pair(&(bench_pair){.name = "snapshot",
                                 .op = "restore",
                                 .size = size,
                                 .ops = size,
                                 .strata = restore_pass,
                                 .strata_state = &b,
                                 .plain = copy_pass,
                                 .plain_state = &c,
                                 .target = BENCH_RATIO(2.0)});
    /* The baseline of this row is the full take of the same run. */
    snap_bench_t full = world_of(n);
    bench_run_pair(&(bench_pair){.name = "snapshot",
                                 .op = "take after 1 of 20 tables written",
                                 .size = size,
                                 .ops = size,
                                 .strata = take_delta_pass,
                                 .strata_state = &b,
                                 .plain = take_full_pass,
                                 .plain_state = &full,
                                 .target = BENCH_RATIO(0.15)});
    size_t bytes = 0;
    strata_result_t r = snapshot_world_save_mem(b.w, NULL, 0, &bytes);
    bench_check((r == STRATA_ERR_LIMIT || r == STRATA_OK) && bytes > (size_t)n * 48, "snapshot: save size");
    copy_bench_t hashed = {.bytes = bytes, .from = bench_alloc(bytes), .to = bench_alloc(bytes)};
    memset(hashed.from, 3, bytes);
    bench_run_pair(&(bench_pair){.name = "snapshot",
                                 .op = "checksum, a byte (target: 5 GB/s)",
                                 .size = size,
                                 .ops = (double)bytes,
                                 .strata = checksum_pass,
                                 .strata_state = &b,
                                 .plain = copy_pass,
                                 .plain_state = &hashed,
                                 .target = BENCH_AT_MOST(0.2)});
    free(hashed.from);
    free(hashed.to);
    free(c.from);
    free(c.to);
    snapshot_snapshot_destroy(full.s);
    snapshot_world_destroy(full.w);
    snapshot_snapshot_destroy(b.s);
    snapshot_world_destroy(b.w);
}

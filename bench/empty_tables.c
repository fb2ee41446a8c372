/* empty_tables: a world of 1,000,000 moving entities (Position and
 * Velocity, p += v in one system) that once passed through 65,000 other
 * archetypes, each matching the system (a set of tags beside Position and
 * Velocity) and each left empty, against the same world that never made
 * them. One op: the system visiting one entity. The first row's ratio is
 * what the empty tables cost a step (nothing, if the system never visits
 * them); the second times the step again once they are freed
 * (empty_tables_world_free_empty_tables), the third the free itself. */
#include "bench.h"
#include "empty_tables.h"

#include <stdlib.h>

_Static_assert(EMPTY_TABLES_T15 == EMPTY_TABLES_T0 + 15, "the tags' ids follow each other");

#define EMPTY_TABLES 65000u

BENCH_KERNEL void empty_tables_rows(empty_tables_position *restrict p, const empty_tables_velocity *restrict v, int n) {
    for (int i = 0; i < n; i++) {
        p[i].x += v[i].x;
        p[i].y += v[i].y;
    }
}

void empty_tables_move_run(empty_tables_move_ctx *ctx) {
    while (empty_tables_move_next(ctx)) {
        empty_tables_rows(ctx->position, ctx->velocity, (int)ctx->count);
    }
}

static void step_pass(void *state) {
    empty_tables_world_step(state, 1.0f);
}

/* n moving entities in one placement. */
static empty_tables_world *moving(uint32_t n) {
    empty_tables_world *w = empty_tables_world_create(&(strata_world_desc_t){.initial_capacity = n});
    bench_check(w != NULL, "empty_tables: world create");
    empty_tables_entity *ids = bench_alloc(sizeof *ids * n);
    const empty_tables_position p = {1.0f, 2.0f};
    const empty_tables_velocity v = {0.5f, 0.25f};
    bench_check(empty_tables_entity_create_many(w, &(empty_tables_bundle){.position = &p, .velocity = &v}, n, ids) ==
                    STRATA_OK,
                "empty_tables: create");
    free(ids);
    return w;
}

/* Make `count` archetypes the system matches (Position, Velocity and the
 * tags of the bits of i, for i from 1), each with one entity, then
 * destroy it: `count` empty tables. */
static void pass_through(empty_tables_world *w, uint32_t count) {
    strata_world_t *core = empty_tables_world_core(w);
    for (uint32_t i = 1; i <= count; i++) {
        uint32_t ids[2 + 16] = {EMPTY_TABLES_POSITION, EMPTY_TABLES_VELOCITY};
        uint32_t k = 2;
        for (uint32_t b = 0; b < 16; b++) {
            if (i >> b & 1u) {
                ids[k++] = EMPTY_TABLES_T0 + b;
            }
        }
        strata_entity_t e = STRATA_ENTITY_NULL;
        bench_check(strata_entity_create_many(core, 1, k, ids, NULL, &e) == STRATA_OK, "empty_tables: a table");
        bench_check(strata_entity_destroy(core, e) == STRATA_OK, "empty_tables: destroy");
    }
    strata_world_stats_t s;
    empty_tables_world_stats(w, &s);
    bench_check(s.tables == count + 2, "empty_tables: table count");
}

void bench_empty_tables(void) {
    const uint32_t size = 1000000;
    uint32_t n = bench_count(size);
    empty_tables_world *never = moving(n), *once = moving(n);
    pass_through(once, EMPTY_TABLES);
    bench_run_pair(&(bench_pair){.name = "empty_tables",
                                 .op = "step over 65,000 empty tables",
                                 .size = size,
                                 .ops = size,
                                 .strata = step_pass,
                                 .strata_state = once,
                                 .plain = step_pass,
                                 .plain_state = never,
                                 .target = BENCH_RATIO(2.0)});
    /* The free, timed on worlds made for it (a few: each costs 65,000 tables). */
    int runs = bench_runs() < 3 ? bench_runs() : 3;
    double per_table[BENCH_MAX_RUNS];
    for (int r = 0; r < runs; r++) {
        empty_tables_world *w = r == 0 ? once : moving(bench_count(1000));
        if (r > 0) {
            pass_through(w, EMPTY_TABLES);
        }
        double t0 = bench_now();
        uint32_t freed = empty_tables_world_free_empty_tables(w);
        per_table[r] = (bench_now() - t0) / EMPTY_TABLES;
        bench_check(freed == EMPTY_TABLES, "empty_tables: freed");
        if (r > 0) {
            empty_tables_world_destroy(w);
        }
    }
    bench_run_pair(&(bench_pair){.name = "empty_tables",
                                 .op = "  same, once freed",
                                 .size = size,
                                 .ops = size,
                                 .strata = step_pass,
                                 .strata_state = once,
                                 .plain = step_pass,
                                 .plain_state = never});
    bench_record("empty_tables", "free 65,000 empty tables, a table", EMPTY_TABLES, "ns/op", per_table, NULL, runs,
                 BENCH_NONE);
    bench_check(empty_tables_move_count(once) == n && empty_tables_move_count(never) == n, "empty_tables: count");
    empty_tables_world_destroy(once);
    empty_tables_world_destroy(never);
}

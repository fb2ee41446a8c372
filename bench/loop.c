/* loop: what the game loop costs a step (docs/performance.md, "The game
 * loop"). Rows:
 *  - gated: a step of 64 systems every one of which is gated off (32 by a
 *    run_if condition, 32 by in_state), in ns per gated system; its
 *    baseline is the same step with the 64 switched off (an empty step),
 *    so the ratio is the gated step over the empty one;
 *  - a system in a fixed phase stepped at its rate (one run a step),
 *    against the same system in an ordinary phase, in ns a step; and the
 *    difference, what the fixed phase adds a step.
 * No entity: the fixed cost is the point. */
#include "bench.h"
#include "lbench.h"
#include "lfixed.h"
#include "lplain.h"

/* The systems: the gated ones never run (their gates stay shut). */
#define GATED(i)                                                                                                       \
    void lbench_g##i##_run(lbench_g##i##_ctx *ctx) {                                                                   \
        (void)ctx;                                                                                                     \
        bench_die("a gated system ran");                                                                               \
    }
#define GATED10(t)                                                                                                     \
    GATED(t##0)                                                                                                        \
    GATED(t##1)                                                                                                        \
    GATED(t##2)                                                                                                        \
    GATED(t##3)                                                                                                        \
    GATED(t##4)                                                                                                        \
    GATED(t##5)                                                                                                        \
    GATED(t##6)                                                                                                        \
    GATED(t##7)                                                                                                        \
    GATED(t##8)                                                                                                        \
    GATED(t##9)
GATED(0)
GATED(1)
GATED(2)
GATED(3)
GATED(4)
GATED(5)
GATED(6)
GATED(7)
GATED(8)
GATED(9)
GATED10(1)
GATED10(2)
GATED10(3)
GATED10(4)
GATED10(5)
GATED(60)
GATED(61)
GATED(62)
GATED(63)

void lfixed_move_run(lfixed_move_ctx *ctx) {
    while (lfixed_move_next(ctx)) {}
}

void lplain_move_run(lplain_move_ctx *ctx) {
    while (lplain_move_next(ctx)) {}
}

/* A frame of 1/60 s as a clock reads it: one run of the 60 Hz phase a step. */
#define FRAME_NS UINT64_C(16666667)

static void lbench_pass(void *state) {
    bench_check(lbench_world_step_ns(state, FRAME_NS) == STRATA_OK, "step");
}

static void lfixed_pass(void *state) {
    bench_check(lfixed_world_step_ns(state, FRAME_NS) == STRATA_OK, "step");
}

static void lplain_pass(void *state) {
    bench_check(lplain_world_step_ns(state, FRAME_NS) == STRATA_OK, "step");
}

void bench_loop(void) {
    lbench_world *gated = lbench_world_create(NULL), *empty = lbench_world_create(NULL);
    lfixed_world *fixed_world = lfixed_world_create(NULL);
    lplain_world *plain = lplain_world_create(NULL);
    bench_check(gated != NULL && empty != NULL && fixed_world != NULL && plain != NULL, "create");

    /* 64 gated off (Flags.on false, Mode menu) against the same 64 switched off. */
    for (uint32_t id = 0; id < LBENCH_SYSTEM_COUNT; id++) {
        lbench_system_set_enabled(lbench_world_core(empty), id, false);
    }
    bench_run_pair(&(bench_pair){.name = "loop",
                                 .op = "gated: 64 systems gated off, per system",
                                 .size = 0,
                                 .ops = LBENCH_SYSTEM_COUNT,
                                 .strata = lbench_pass,
                                 .strata_state = gated,
                                 .plain = lbench_pass,
                                 .plain_state = empty,
                                 .target = BENCH_AT_MOST(5.0)});

    /* Move in the fixed phase (one run a step) against Move in an ordinary phase. */
    int runs = bench_runs();
    double fixed[BENCH_MAX_RUNS], ordinary[BENCH_MAX_RUNS], added[BENCH_MAX_RUNS];
    bench_pair pair = {.name = "loop",
                       .op = "a system in a fixed phase, a step",
                       .size = 0,
                       .ops = 1,
                       .strata = lfixed_pass,
                       .strata_state = fixed_world,
                       .plain = lplain_pass,
                       .plain_state = plain};
    bench_time_pair(&pair, fixed, ordinary);
    bench_check(lfixed_fixed_runs(fixed_world) == 1, "one fixed run a step");
    bench_record("loop", pair.op, 0, "ns/step", fixed, ordinary, runs, BENCH_NONE);
    for (int i = 0; i < runs; i++) {
        added[i] = fixed[i] - ordinary[i];
    }
    bench_record("loop", "  what the fixed phase adds a step", 0, "ns/step", added, NULL, runs, BENCH_AT_MOST(20.0));

    lbench_world_destroy(gated);
    lbench_world_destroy(empty);
    lfixed_world_destroy(fixed_world);
    lplain_world_destroy(plain);
}

/* bench.h: the harness every benchmark case uses, and the case list.
 *
 * A case builds its worlds (and the plain-C baseline of the same work), then
 * hands the harness one pass of each to time: bench_run_pair calibrates how
 * many passes make a run, runs the baseline and Strata alternately several
 * times, and records a row: ns per entity-op (median, min, max) and the
 * ratio to the baseline of the same run. Cases whose passes cannot simply
 * repeat (creating worlds) time themselves and call bench_record.
 *
 * Adding a case: write bench/<name>.yaml (its world, `world: <name>`) and
 * bench/<name>.c (a `void bench_<name>(void)`), declare the function below
 * and add one line to the table in bench/main.c; configure.py picks up both
 * files (run it, then ninja bench).
 */
#ifndef STRATA_BENCH_H
#define STRATA_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Runs per row at most (--runs cannot ask for more). */
#define BENCH_MAX_RUNS 31

/* What a performance target bounds: the median in the row's unit, or
 * the median ratio to the plain-C baseline. */
typedef enum bench_target_kind {
    BENCH_NO_TARGET,
    BENCH_TARGET_MAX,
    BENCH_TARGET_RATIO,
} bench_target_kind;

typedef struct bench_target {
    bench_target_kind kind;
    double limit; /* the median must be at most this */
    double ratio; /* with kind BENCH_TARGET_MAX, also a bound on the median ratio; 0 if none */
} bench_target;

/* The row has no target. */
#define BENCH_NONE ((bench_target){BENCH_NO_TARGET, 0, 0})
/* The median must be at most `x` (in the row's unit). */
#define BENCH_AT_MOST(x) ((bench_target){BENCH_TARGET_MAX, (x), 0})
/* The median ratio to the baseline must be at most `r`. */
#define BENCH_RATIO(r) ((bench_target){BENCH_TARGET_RATIO, (r), 0})
/* Both: the median at most `x`, and its ratio to the baseline at most `r`. */
#define BENCH_AT_MOST_AND_RATIO(x, r) ((bench_target){BENCH_TARGET_MAX, (x), (r)})

/* One pass of a case over the state it was given. */
typedef void (*bench_pass_fn)(void *state);

/* Two ways to do the same work, timed side by side. */
typedef struct bench_pair {
    const char *name;     /* the case, as in the issue: "packed_5" */
    const char *op;       /* the row within the case: "5 systems, value *= 2" */
    uint32_t size;        /* entities in the world */
    double ops;           /* entity-ops in one pass: the divisor of ns per op */
    bench_pass_fn strata; /* one pass through Strata */
    void *strata_state;
    bench_pass_fn plain; /* the same pass over plain C arrays; NULL if none */
    void *plain_state;
    bench_target target;
} bench_pair;

/* Time a pair (see the top of this file) and record its row. */
void bench_run_pair(const bench_pair *p);

/* Time a pair without recording it: bench_runs() samples of ns per op for
 * each side into strata[] and (if p->plain) plain[]. */
void bench_time_pair(const bench_pair *p, double *strata, double *plain);

/* Record a row the case timed itself: `runs` samples in `unit` (ns/op,
 * ns/pass, bytes/entity) for Strata and, unless NULL, for the baseline of
 * the same runs. */
void bench_record(const char *name, const char *op, uint32_t size, const char *unit, const double *strata,
                  const double *plain, int runs, bench_target target);

/* Runs per row for this invocation (--runs; default 9). */
int bench_runs(void);

/* Nanoseconds on the monotonic clock. */
double bench_now(void);

/* The ns per entity of n entities since t0 into *slot (a step of a
 * structural script); returns now, the next step's t0. */
double bench_lap(double *slot, double t0, uint32_t n);

/* `n`, laundered through a volatile: entity counts are run-time values in a
 * game, and a constant count would let the compiler specialize the plain
 * loops (unroll to the exact size, drop the remainder) as no game's loop is. */
uint32_t bench_count(uint32_t n);

/* malloc that exits on failure (sizes here are fixed, failure is fatal). */
void *bench_alloc(size_t bytes);

/* Print "bench: WHAT failed" and exit 1: a broken case must not print figures. */
_Noreturn void bench_die(const char *what);

/* Exit through bench_die unless `ok`: the checks that a pass did its work. */
void bench_check(bool ok, const char *what);

/* The per-entity loops of a case are written once and called both by its
 * systems (once per table) and by its baseline (once per array), so the two
 * differ only in how they reach the rows. Not inlined: otherwise each copy
 * lands at its own code alignment, and on this machine the same 4-line loop
 * then runs at 0.32 or 0.55 ns per entity depending on where the linker put
 * it, which would swamp what the ratio is meant to show. */
#define BENCH_KERNEL static __attribute__((noinline))

/* value * 2 wrapping at 32 bits: the same arithmetic in every baseline and
 * system, and no signed overflow however many passes run. */
static inline int32_t bench_double(int32_t v) {
    return (int32_t)((uint32_t)v << 1);
}

/* The cases, in the order `ninja bench` runs them. */
void bench_packed5(void);
void bench_changed(void);
void bench_events(void);
void bench_simple_iter(void);
void bench_frag_iter(void);
void bench_empty_tables(void);
void bench_entity_cycle(void);
void bench_add_remove(void);
void bench_move(void);
void bench_snapshot(void);
void bench_two_systems(void);
void bench_seven_systems(void);
void bench_relations(void);
void bench_threads(void);
void bench_sparse(void);
void bench_loop(void);

#endif /* STRATA_BENCH_H */

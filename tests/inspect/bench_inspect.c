/* inspect-bench: what the inspector costs a step (`ninja bench`). The
 * inspector's test world (40 entities, four systems) steps
 *   - by hand: begin, run and end each system, without the step's observer
 *     calls (what the generated step was before it reported timing);
 *   - by its generated step, no inspector attached (the observer is NULL:
 *     one branch a system);
 *   - by its generated step after strata_inspect_poll, the inspector on and
 *     no client connected (the poll, and the clock and entity count read
 *     around each system).
 * The three take turns, run after run; each figure is the median of the
 * runs, in ns a step. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "strata_inspect.h"

#include "insp.h"
#include "insp_game.h"

#define ENTITIES 40
#define STEPS 100000
#define RUNS 11

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One system as the generated step runs it, minus the observer calls. */
#define BY_HAND(name)                                                                                                  \
    if (insp_##name##_enabled(w)) {                                                                                    \
        strata_defer_begin(core);                                                                                      \
        insp_##name##_ctx ctx = insp_##name##_begin(w, dt);                                                            \
        insp_##name##_run(&ctx);                                                                                       \
        ok &= insp_##name##_end(&ctx) == STRATA_OK;                                                                    \
        ok &= strata_defer_end(core) == STRATA_OK;                                                                     \
    }

static bool step_by_hand(insp_world *w, float dt) {
    strata_world_t *core = insp_world_core(w);
    bool ok = true;
    strata_step_begin(core);
    BY_HAND(move)
    BY_HAND(tally)
    BY_HAND(watch)
    BY_HAND(hurt)
    return ok && strata_step_end(core) == STRATA_OK;
}

enum { HAND, STEP, INSPECTED, MODES };

/* ns a step over STEPS steps in `mode`. */
static double sample(insp_world *w, strata_inspect_t *in, int mode) {
    bool ok = true;
    double t0 = now_ns();
    for (int s = 0; s < STEPS; s++) {
        if (mode == HAND) {
            ok &= step_by_hand(w, 1.0f / 60.0f);
        } else if (mode == STEP || strata_inspect_poll(in)) {
            ok &= insp_world_step(w, 1.0f / 60.0f) == STRATA_OK;
        }
    }
    if (!ok) {
        fprintf(stderr, "inspect-bench: a step failed\n");
        exit(1);
    }
    return (now_ns() - t0) / STEPS;
}

int main(void) {
    insp_world *w = insp_world_create(NULL);
    for (uint32_t i = 0; w != NULL && i < ENTITIES; i++) {
        insp_entity e;
        if (!insp_game_spawn(w, i, &e)) {
            w = NULL;
        }
    }
    strata_inspect_t *in = NULL;
    if (w == NULL) {
        fprintf(stderr, "inspect-bench: out of memory\n");
        return 1;
    }
    strata_inspect_desc_t desc = {.any_port = true};
    if (insp_inspect_start(w, &desc, &in) != STRATA_OK) {
        fprintf(stderr, "inspect-bench: the inspector cannot listen\n");
        return 1;
    }
    /* The modes take turns, so a busy machine slows them alike. */
    strata_world_t *core = insp_world_core(w);
    const strata_step_observer_t *observer = strata_world_step_observer(core);
    double samples[MODES][RUNS], median[MODES];
    (void)sample(w, NULL, STEP); /* warm up */
    for (int r = 0; r < RUNS; r++) {
        for (int mode = 0; mode < MODES; mode++) {
            strata_world_set_step_observer(core, mode == INSPECTED ? observer : NULL); /* off: as if never started */
            samples[mode][r] = sample(w, in, mode);
        }
    }
    strata_world_set_step_observer(core, observer);
    strata_inspect_stop(in);
    for (int mode = 0; mode < MODES; mode++) {
        qsort(samples[mode], RUNS, sizeof(double), by_value);
        median[mode] = samples[mode][RUNS / 2];
    }
    printf("\ninspector, cost a step (%u entities, %u systems; medians of %d x %d steps):\n", ENTITIES,
           (unsigned)INSP_SYSTEM_COUNT, RUNS, STEPS);
    printf("  %-50s %9.1f ns\n", "the systems by hand, no observer calls", median[HAND]);
    printf("  %-50s %9.1f ns  (%+.1f)\n", "insp_world_step, no inspector", median[STEP], median[STEP] - median[HAND]);
    printf("  %-50s %9.1f ns  (%+.1f)\n", "poll + insp_world_step, inspector on, no client", median[INSPECTED],
           median[INSPECTED] - median[STEP]);
    insp_world_destroy(w);
    return 0;
}

/* inspect-bench: what the inspector costs a step (`ninja bench`). The
 * inspector's test world (four systems; no entities, so that the fixed cost
 * is not lost in the systems' work, or `inspect-bench COUNT`) steps
 *   - by hand: begin, run and end each system, without the step's observer
 *     calls (what the generated step was before it reported timing);
 *   - by its generated step, no step observer (one branch a system): a game
 *     without the inspector, or with it and no client lately;
 *   - by its generated step after strata_inspect_poll, the inspector on and
 *     no client connected (the poll: an atomic load);
 *   - the same just after a client asked (one GET before each run): the
 *     step and each system timed, their entities counted.
 * The first three take turns, run after run, then the last runs; each
 * figure is the median of the runs, in ns a step.
 *
 *     inspect-bench [COUNT [STEPS RUNS]]
 *
 * Under callgrind, each mode's steps are one function's (sample_hand,
 * sample_step, sample_inspected, sample_watched): its inclusive count over
 * RUNS * STEPS is the instructions a step, recording included:
 *     valgrind --tool=callgrind build/release/inspect-bench 1000 2000 1 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "strata_inspect.h"

#include "insp.h"
#include "insp_game.h"

#define STEPS 100000
#define RUNS_MAX 11

static int steps = STEPS, runs = RUNS_MAX;

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
#define BY_HAND(name, position)                                                                                        \
    if (insp_##name##_enabled(w)) {                                                                                    \
        strata_event_at(core, position);                                                                               \
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
    strata_event_step(core);
    BY_HAND(move, 0)
    BY_HAND(watch, 1)
    BY_HAND(hurt, 2)
    BY_HAND(tally, 3)
    strata_event_at(core, 3);
    return ok && strata_step_end(core) == STRATA_OK;
}

enum { HAND, STEP, INSPECTED, WATCHED, MODES };

/* A client: one GET of /api/world to the port in *arg, read to the end. */
static void *client(void *arg) {
    unsigned port = *(const unsigned *)arg;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0) {
        char buf[4096];
        int n = snprintf(buf, sizeof buf, "GET /api/world HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n", port);
        if (send(fd, buf, (size_t)n, 0) == n) {
            while (recv(fd, buf, sizeof buf, 0) > 0) {}
        }
    }
    if (fd >= 0) {
        close(fd);
    }
    __atomic_store_n((unsigned *)arg, 0u, __ATOMIC_RELEASE);
    return NULL;
}

/* Ask once, polling and stepping until the answer is read: the inspector then times the steps. */
static void ask(insp_world *w, strata_inspect_t *in) {
    unsigned port = strata_inspect_port(in);
    pthread_t t;
    if (pthread_create(&t, NULL, client, &port) != 0) {
        fprintf(stderr, "inspect-bench: no thread for the client\n");
        exit(1);
    }
    while (__atomic_load_n(&port, __ATOMIC_ACQUIRE) != 0) {
        if (strata_inspect_poll(in)) {
            (void)insp_world_step(w, 1.0f / 60.0f);
        }
    }
    pthread_join(t, NULL);
}

/* ns a step over `steps` steps in `mode`. */
static double sample(insp_world *w, strata_inspect_t *in, int mode) {
    bool ok = true;
    double t0 = now_ns();
    for (int s = 0; s < steps; s++) {
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
    return (now_ns() - t0) / steps;
}

/* One function a mode, so that callgrind counts each mode's instructions apart. */
__attribute__((noinline)) static double sample_hand(insp_world *w, strata_inspect_t *in) {
    return sample(w, in, HAND);
}
__attribute__((noinline)) static double sample_step(insp_world *w, strata_inspect_t *in) {
    return sample(w, in, STEP);
}
__attribute__((noinline)) static double sample_inspected(insp_world *w, strata_inspect_t *in) {
    return sample(w, in, INSPECTED);
}
__attribute__((noinline)) static double sample_watched(insp_world *w, strata_inspect_t *in) {
    return sample(w, in, WATCHED); /* polls as INSPECTED does */
}

int main(int argc, char **argv) {
    uint32_t entities = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 0;
    if (argc > 3) {
        steps = (int)strtol(argv[2], NULL, 10);
        runs = (int)strtol(argv[3], NULL, 10);
    }
    if (steps < 1 || runs < 1 || runs > RUNS_MAX) {
        fprintf(stderr, "usage: inspect-bench [COUNT [STEPS RUNS (1..%d)]]\n", RUNS_MAX);
        return 2;
    }
    insp_world *w = insp_world_create(NULL);
    for (uint32_t i = 0; w != NULL && i < entities; i++) {
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
    double samples[MODES][RUNS_MAX], median[MODES];
    (void)sample(w, NULL, STEP); /* warm up */
    for (int r = 0; r < runs; r++) {
        samples[HAND][r] = sample_hand(w, in);
        samples[STEP][r] = sample_step(w, in);
        samples[INSPECTED][r] = sample_inspected(w, in);
    }
    /* Then with a client: its request keeps the step observed (and recorded) for seconds after. */
    for (int r = 0; r < runs; r++) {
        ask(w, in);
        samples[WATCHED][r] = sample_watched(w, in);
    }
    strata_inspect_stop(in);
    for (int mode = 0; mode < MODES; mode++) {
        qsort(samples[mode], (size_t)runs, sizeof(double), by_value);
        median[mode] = samples[mode][runs / 2];
    }
    printf("\ninspector, cost a step (%u entities, %u systems; medians of %d x %d steps):\n", (unsigned)entities,
           (unsigned)INSP_SYSTEM_COUNT, runs, steps);
    printf("  %-50s %9.1f ns\n", "the systems by hand, no observer calls", median[HAND]);
    printf("  %-50s %9.1f ns  (%+.1f)\n", "insp_world_step, no step observer", median[STEP],
           median[STEP] - median[HAND]);
    printf("  %-50s %9.1f ns  (%+.1f)\n", "poll + insp_world_step, inspector on, no client", median[INSPECTED],
           median[INSPECTED] - median[STEP]);
    printf("  %-50s %9.1f ns  (%+.1f)\n", "the same, a client asked: step and systems timed", median[WATCHED],
           median[WATCHED] - median[STEP]);
    insp_world_destroy(w);
    return 0;
}

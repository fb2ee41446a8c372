/* threads: the threaded step (docs/threads.md), each figure beside the
 * same run's one-thread figure. Rows:
 *  - the move pass p += v at 16,000,000 entities (memory-bound) at 1 and
 *    2 threads, against a plain C loop over the same bytes at 1 and 2
 *    threads (the machine's limit), in ns/op and in GB/s (24 bytes an
 *    entity: p read and written, v read);
 *  - a steering pass at 1,000,000 entities (compute-bound: a square root
 *    and a division an entity, the swarm's kind of work) at 1 and 2 threads;
 *  - the fixed cost of a step of two split systems with nothing to do.
 * The speed-up rows are the one-thread median over the two-thread one. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "bench.h"
#include "tbench.h"

BENCH_KERNEL void tbench_move_rows(tbench_position *restrict p, const tbench_velocity *restrict v, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        p[i].x += v[i].x;
        p[i].y += v[i].y;
    }
}

BENCH_KERNEL void tbench_steer_rows(const tbench_position *restrict p, tbench_velocity *restrict v, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        float dx = 512.0f - p[i].x, dy = 512.0f - p[i].y;
        float inv = 1.0f / (sqrtf(dx * dx + dy * dy) + 1.0f);
        float nx = v[i].x + (dx - 0.3f * dy) * inv, ny = v[i].y + (dy + 0.3f * dx) * inv;
        float scale = 40.0f / (sqrtf(nx * nx + ny * ny) + 1e-6f);
        v[i].x = nx * scale;
        v[i].y = ny * scale;
    }
}

void tbench_move_run(tbench_move_ctx *ctx) {
    while (tbench_move_next(ctx)) {
        tbench_move_rows(ctx->position, ctx->velocity, ctx->count);
    }
}

void tbench_steer_run(tbench_steer_ctx *ctx) {
    while (tbench_steer_next(ctx)) {
        tbench_steer_rows(ctx->position, ctx->velocity, ctx->count);
    }
}

/* A world of `threads` threads with n entities, one system on. */
static tbench_world *world(uint32_t threads, uint32_t n, bool move) {
    tbench_world *w = tbench_world_create(&(tbench_world_desc_t){.initial_capacity = n, .threads = threads});
    bench_check(w != NULL, "tbench_world_create");
    tbench_position p = {1.0f, 2.0f};
    tbench_velocity v = {0.5f, 0.25f};
    tbench_entity *out = bench_alloc(sizeof *out * (n > 0 ? n : 1));
    bench_check(tbench_entity_create_many(w, &(tbench_bundle){.position = &p, .velocity = &v}, n, out) == STRATA_OK,
                "create");
    free(out);
    tbench_move_enable(w, move);
    tbench_steer_enable(w, !move);
    return w;
}

static void step_pass(void *state) {
    bench_check(tbench_world_step(state, 1.0f) == STRATA_OK, "step");
}

/* The plain baseline: the same rows over two arrays, cut in `threads` parts. */
typedef struct plain_part {
    tbench_position *p;
    tbench_velocity *v;
    uint32_t n;
    bool move;
} plain_part;

typedef struct plain {
    plain_part parts[2];
    uint32_t threads;
} plain;

static void *plain_part_run(void *arg) {
    plain_part *part = arg;
    if (part->move) {
        tbench_move_rows(part->p, part->v, part->n);
    } else {
        tbench_steer_rows(part->p, part->v, part->n);
    }
    return NULL;
}

/* One pass: the second half on a thread of its own (started and joined
 * each pass: microseconds against a pass of milliseconds). */
static void plain_pass(void *state) {
    plain *pl = state;
    if (pl->threads == 1) {
        plain_part_run(&pl->parts[0]);
        return;
    }
    pthread_t t;
    bench_check(pthread_create(&t, NULL, plain_part_run, &pl->parts[1]) == 0, "pthread_create");
    plain_part_run(&pl->parts[0]);
    pthread_join(t, NULL);
}

static plain plain_make(uint32_t n, uint32_t threads, bool move) {
    tbench_position *p = bench_alloc(sizeof *p * n);
    tbench_velocity *v = bench_alloc(sizeof *v * n);
    for (uint32_t i = 0; i < n; i++) {
        p[i] = (tbench_position){1.0f, 2.0f};
        v[i] = (tbench_velocity){0.5f, 0.25f};
    }
    plain pl = {.threads = threads};
    uint32_t half = threads == 1 ? n : n / 2;
    pl.parts[0] = (plain_part){p, v, half, move};
    pl.parts[1] = (plain_part){p + half, v + half, n - half, move};
    return pl;
}

static void plain_free(plain *pl) {
    free(pl->parts[0].p);
    free(pl->parts[0].v);
}

static double median(double *x, int n) {
    for (int i = 1; i < n; i++) {
        for (int j = i; j > 0 && x[j] < x[j - 1]; j--) {
            double t = x[j];
            x[j] = x[j - 1];
            x[j - 1] = t;
        }
    }
    return x[n / 2];
}

/* Time one pass (Strata world and plain loop) at 1 and at 2 threads; record
 * the 2-thread rows and the speed-ups. */
static void rows(const char *name, const char *what, uint32_t n, bool move, bench_target two_target) {
    int runs = bench_runs();
    double strata[2][BENCH_MAX_RUNS], base[2][BENCH_MAX_RUNS];
    for (uint32_t t = 1; t <= 2; t++) {
        tbench_world *w = world(t, bench_count(n), move);
        plain pl = plain_make(bench_count(n), t, move);
        char op[64];
        snprintf(op, sizeof op, "%s, %u thread%s", what, (unsigned)t, t == 1 ? "" : "s");
        bench_pair pair = {.name = name,
                           .op = op,
                           .size = n,
                           .ops = n,
                           .strata = step_pass,
                           .strata_state = w,
                           .plain = plain_pass,
                           .plain_state = &pl,
                           .target = t == 2 ? two_target : BENCH_NONE};
        bench_time_pair(&pair, strata[t - 1], base[t - 1]);
        bench_record(name, op, n, "ns/op", strata[t - 1], base[t - 1], runs, pair.target);
        tbench_world_destroy(w);
        plain_free(&pl);
    }
    if (move) {
        double gbs[2][BENCH_MAX_RUNS];
        for (int i = 0; i < runs; i++) {
            gbs[0][i] = 24.0 / strata[1][i]; /* bytes an entity over ns an entity: GB/s */
            gbs[1][i] = 24.0 / base[1][i];
        }
        bench_record(name, "move pass, 2 threads, GB/s (plain: 2-thread C)", n, "GB/s", gbs[0], gbs[1], runs,
                     BENCH_NONE);
    }
    double one = median(strata[0], runs), plain_one = median(base[0], runs);
    double up[BENCH_MAX_RUNS], plain_up[BENCH_MAX_RUNS];
    for (int i = 0; i < runs; i++) {
        up[i] = one / strata[1][i];
        plain_up[i] = plain_one / base[1][i];
    }
    char op[64];
    snprintf(op, sizeof op, "%s, speed-up 2 threads / 1", what);
    bench_record(name, op, n, "x", up, plain_up, runs, BENCH_NONE);
}

/* The fixed cost of a step whose two split systems have no row, at 1 and 2 threads. */
static void empty_step_rows(void) {
    int runs = bench_runs();
    double us[2][BENCH_MAX_RUNS];
    for (uint32_t t = 1; t <= 2; t++) {
        tbench_world *w = world(t, 0, true);
        tbench_steer_enable(w, true);
        bench_pair pair =
            {.name = "threads", .op = "empty step", .size = 0, .ops = 1, .strata = step_pass, .strata_state = w};
        bench_time_pair(&pair, us[t - 1], NULL);
        for (int i = 0; i < runs; i++) {
            us[t - 1][i] /= 1000.0;
        }
        tbench_world_destroy(w);
    }
    bench_record("threads", "empty step of 2 split systems, 1 thread", 0, "us/step", us[0], NULL, runs, BENCH_NONE);
    bench_record("threads", "empty step of 2 split systems, 2 threads", 0, "us/step", us[1], us[0], runs, BENCH_NONE);
}

void bench_threads(void) {
    rows("threads", "move pass", 16000000, true, BENCH_RATIO(1.1));
    rows("threads", "steer pass", 1000000, false, BENCH_NONE);
    empty_step_rows();
}

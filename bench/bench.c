/* bench: Strata's figures next to a hand-written C loop in the same run.
 * Every case runs several times; the table shows the median, min and max in
 * ns per entity (or per pass) and, for iteration, the ratio to plain arrays.
 * DESIGN section 7 has the targets. */
#define _POSIX_C_SOURCE 199309L
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 7
#define BIG 1000000u
#define SMALL 1000u

/* Entity counts read at run time, as a game's are: a constant count would let
 * the compiler specialize the plain loop and no real game loop. */
static volatile uint32_t big_count = BIG, small_count = SMALL;

typedef struct vec2 {
    float x, y;
} vec2;

typedef struct figure {
    double median, min, max;
} figure;

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static figure summarize(double *samples, int n) {
    qsort(samples, (size_t)n, sizeof *samples, by_value);
    return (figure){samples[n / 2], samples[0], samples[n - 1]};
}

static void print_row(const char *name, unsigned size, figure f, const char *unit, const char *note) {
    printf("%-34s %9u %9.3f %9.3f %9.3f  %-8s %s\n", name, size, f.median, f.min, f.max, unit, note);
}

static void die(const char *what) {
    fprintf(stderr, "bench: %s failed\n", what);
    exit(1);
}

/* The baseline: p += v over plain arrays. */
static void plain_move(vec2 *restrict p, const vec2 *restrict v, int n) {
    for (int i = 0; i < n; i++) {
        p[i].x += v[i].x;
        p[i].y += v[i].y;
    }
}

/* The same loop over a table's columns, as a game writes it. */
static void move_rows(bench_position *restrict p, const bench_velocity *restrict v, int n) {
    for (int i = 0; i < n; i++) {
        p[i].x += v[i].x;
        p[i].y += v[i].y;
    }
}

void bench_move_run(bench_move_ctx *ctx) {
    while (bench_move_next(ctx)) {
        move_rows(ctx->position, ctx->velocity, (int)ctx->count);
    }
}

/* A world with n entities holding Position and Velocity. */
static bench_world *make_world(uint32_t n, bench_entity *out) {
    bench_world *w = bench_world_create(&(strata_world_desc_t){.initial_capacity = n});
    if (!w) {
        die("world create");
    }
    bench_position p = {1.0f, 2.0f};
    bench_velocity v = {0.5f, 0.25f};
    bench_entity *ids = out ? out : malloc(sizeof *ids * (n ? n : 1));
    if (!ids || bench_entity_create_many(w, &(bench_bundle){.position = &p, .velocity = &v}, n, ids) != STRATA_OK) {
        die("bulk create");
    }
    if (!out) {
        free(ids);
    }
    return w;
}

/* Ratio of two passes: how a query compares with the plain loop. */
static void iteration(void) {
    double plain[RUNS], query[RUNS];
    const int passes = 20;
    const int n = (int)big_count;
    vec2 *p = malloc(sizeof *p * BIG), *v = malloc(sizeof *v * BIG);
    if (!p || !v) {
        die("malloc");
    }
    for (uint32_t i = 0; i < BIG; i++) {
        p[i] = (vec2){1.0f, 2.0f};
        v[i] = (vec2){0.5f, 0.25f};
    }
    bench_world *w = make_world(BIG, NULL);
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_ns();
        for (int k = 0; k < passes; k++) {
            plain_move(p, v, n);
        }
        double t1 = now_ns();
        for (int k = 0; k < passes; k++) {
            bench_world_step(w, 1.0f);
        }
        double t2 = now_ns();
        plain[r] = (t1 - t0) / passes / BIG;
        query[r] = (t2 - t1) / passes / BIG;
    }
    /* Use the plain result so its passes are not optimized away. */
    volatile float sink = p[BIG / 2].x;
    (void)sink;
    figure fp = summarize(plain, RUNS), fq = summarize(query, RUNS);
    char note[64];
    snprintf(note, sizeof note, "ratio %.2f (target <= 1.10)", fq.median / fp.median);
    print_row("move pass, plain C arrays", BIG, fp, "ns/ent", "");
    print_row("move pass, system iterator (step)", BIG, fq, "ns/ent", note);
    bench_world_destroy(w);
    free(p);
    free(v);
}

/* The fixed cost of one pass over a small world: iterator overhead. */
static void fixed_cost(void) {
    double plain[RUNS], query[RUNS], over[RUNS];
    const int passes = 20000;
    const int n = (int)small_count;
    vec2 p[SMALL], v[SMALL];
    for (uint32_t i = 0; i < SMALL; i++) {
        p[i] = (vec2){1.0f, 2.0f};
        v[i] = (vec2){0.5f, 0.25f};
    }
    bench_world *w = make_world(SMALL, NULL);
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_ns();
        for (int k = 0; k < passes; k++) {
            plain_move(p, v, n);
        }
        double t1 = now_ns();
        for (int k = 0; k < passes; k++) {
            bench_move_ctx ctx = bench_move_begin(w, 1.0f);
            bench_move_run(&ctx);
        }
        double t2 = now_ns();
        plain[r] = (t1 - t0) / passes;
        query[r] = (t2 - t1) / passes;
        over[r] = query[r] - plain[r];
    }
    volatile float sink = p[3].x;
    (void)sink;
    print_row("pass over 1,000, plain C arrays", SMALL, summarize(plain, RUNS), "ns/pass", "");
    print_row("pass over 1,000, system iterator", SMALL, summarize(query, RUNS), "ns/pass", "");
    print_row("fixed cost of a pass (difference)", SMALL, summarize(over, RUNS), "ns/pass", "target <= 50");
    bench_world_destroy(w);
}

/* Structural operations, one entity at a time, over BIG entities. */
static void structural(void) {
    double create[RUNS], bulk[RUNS], destroy[RUNS], add_tag[RUNS], rm_tag[RUNS], add_c[RUNS], rm_c[RUNS];
    bench_entity *ids = malloc(sizeof *ids * BIG);
    if (!ids) {
        die("malloc");
    }
    bench_position p = {1.0f, 2.0f};
    bench_velocity v = {0.5f, 0.25f};
    const bench_bundle two = {.position = &p, .velocity = &v};
    for (int r = 0; r < RUNS; r++) {
        bench_world *w = bench_world_create(NULL);
        if (!w) {
            die("world create");
        }
        double t0 = now_ns();
        for (uint32_t i = 0; i < BIG; i++) {
            ids[i] = bench_entity_create_bundle(w, &two);
        }
        double t1 = now_ns();
        for (uint32_t i = 0; i < BIG; i++) {
            bench_marked_add(w, ids[i]);
        }
        double t2 = now_ns();
        for (uint32_t i = 0; i < BIG; i++) {
            bench_marked_remove(w, ids[i]);
        }
        double t3 = now_ns();
        for (uint32_t i = 0; i < BIG; i++) {
            bench_small_add(w, ids[i], (bench_small){(int32_t)i});
        }
        double t4 = now_ns();
        for (uint32_t i = 0; i < BIG; i++) {
            bench_small_remove(w, ids[i]);
        }
        double t5 = now_ns();
        for (uint32_t i = 0; i < BIG; i++) {
            bench_entity_destroy(w, ids[i]);
        }
        double t6 = now_ns();
        if (bench_move_count(w) != 0) {
            die("destroy");
        }
        bench_world_destroy(w);
        create[r] = (t1 - t0) / BIG;
        add_tag[r] = (t2 - t1) / BIG;
        rm_tag[r] = (t3 - t2) / BIG;
        add_c[r] = (t4 - t3) / BIG;
        rm_c[r] = (t5 - t4) / BIG;
        destroy[r] = (t6 - t5) / BIG;

        w = bench_world_create(NULL);
        if (!w) {
            die("world create");
        }
        double t7 = now_ns();
        if (bench_entity_create_many(w, &two, BIG, ids) != STRATA_OK) {
            die("bulk create");
        }
        double t8 = now_ns();
        bench_world_destroy(w);
        bulk[r] = (t8 - t7) / BIG;
    }
    free(ids);
    print_row("create with 2 components, one by one", BIG, summarize(create, RUNS), "ns/ent", "target <= 20");
    print_row("create with 2 components, in bulk", BIG, summarize(bulk, RUNS), "ns/ent", "target <= 3");
    print_row("add a tag", BIG, summarize(add_tag, RUNS), "ns/ent", "target <= 8");
    print_row("remove a tag", BIG, summarize(rm_tag, RUNS), "ns/ent", "target <= 10");
    print_row("add a 4-byte component", BIG, summarize(add_c, RUNS), "ns/ent", "target <= 10");
    print_row("remove a 4-byte component", BIG, summarize(rm_c, RUNS), "ns/ent", "target <= 10");
    print_row("destroy", BIG, summarize(destroy, RUNS), "ns/ent", "target <= 20");
}

/* Bytes held per entity beyond its component bytes. */
static void memory(void) {
    bench_world *empty = make_world(0, NULL);
    bench_world *w = make_world(BIG, NULL);
    strata_world_stats_t s0, s1;
    bench_world_stats(empty, &s0);
    bench_world_stats(w, &s1);
    double per = (double)(s1.bytes - s0.bytes) / BIG;
    double overhead = per - (double)(sizeof(bench_position) + sizeof(bench_velocity));
    char note[64];
    snprintf(note, sizeof note, "%.1f bytes of components + %.1f (target <= 24)",
             (double)(sizeof(bench_position) + sizeof(bench_velocity)), overhead);
    print_row("memory per entity", BIG, (figure){per, per, per}, "bytes", note);
    bench_world_destroy(w);
    bench_world_destroy(empty);
}

int main(void) {
    printf("Strata bench: %d runs per case; median, min, max\n", RUNS);
    printf("%-34s %9s %9s %9s %9s  %-8s %s\n", "case", "entities", "median", "min", "max", "unit", "");
    iteration();
    fixed_cost();
    structural();
    memory();
    return 0;
}

/* bench-changed: the cost of a `changed` pass against a full pass.
 * 1,000,000 entities with Position; each step writes 1% of them (set), then
 * the changed system visits what was written. The figure to look at is the
 * changed pass as a fraction of a full pass over every entity, and its cost
 * per visited entity. */
#define _POSIX_C_SOURCE 199309L
#include "chg.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RUNS 9
#define COUNT 1000000u
#define WRITTEN (COUNT / 100)

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2];
}

static volatile float sink;
static uint32_t visited;

/* The same body in both passes: read the position. */
void chg_render_run(chg_render_ctx *ctx) {
    float sum = 0.0f;
    while (chg_render_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            sum += ctx->position[i].x;
        }
        visited += ctx->count;
    }
    sink = sum;
}

static void full_pass(chg_world *w) {
    float sum = 0.0f;
    for (chg_everything_iter it = chg_everything_begin(w); chg_everything_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++) {
            sum += it.position[i].x;
        }
    }
    sink = sum;
}

int main(void) {
    chg_world *w = chg_world_create(&(strata_world_desc_t){.initial_capacity = COUNT});
    chg_entity *ids = malloc(sizeof *ids * COUNT);
    if (!w || !ids ||
        chg_entity_create_many(w, &(chg_bundle){.position = &(chg_position){1, 2}}, COUNT, ids) != STRATA_OK) {
        fprintf(stderr, "bench-changed: setup failed\n");
        return 1;
    }
    chg_world_step(w, 0); /* the first run sees every new entity */
    double full[RUNS], mark[RUNS], changed[RUNS];
    uint32_t stride = 97; /* spread the writes over the tables' rows */
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_ns();
        full_pass(w);
        double t1 = now_ns();
        for (uint32_t k = 0; k < WRITTEN; k++) {
            chg_entity e = ids[(k * stride + (uint32_t)r) % COUNT];
            chg_position_set(w, e, (chg_position){(float)k, 0});
        }
        double t2 = now_ns();
        visited = 0;
        chg_render_ctx ctx = chg_render_begin(w, 0);
        chg_render_run(&ctx);
        chg_render_end(&ctx);
        double t3 = now_ns();
        if (visited != WRITTEN) {
            fprintf(stderr, "bench-changed: visited %u, expected %u\n", (unsigned)visited, (unsigned)WRITTEN);
            return 1;
        }
        full[r] = t1 - t0;
        mark[r] = (t2 - t1) / WRITTEN;
        changed[r] = t3 - t2;
    }
    double f = median(full, RUNS), m = median(mark, RUNS), c = median(changed, RUNS);
    printf("\nchanged: %u entities, %u (1%%) written per step; median of %d runs\n", COUNT, WRITTEN, RUNS);
    printf("  full pass over every entity      %10.1f us  (%.2f ns/entity)\n", f / 1e3, f / COUNT);
    printf("  changed pass over the written    %10.1f us  (%.2f ns/visited entity)\n", c / 1e3, c / WRITTEN);
    printf("  changed pass / full pass         %10.1f %%\n", 100.0 * c / f);
    printf("  marking a write (set)            %10.2f ns\n", m);
    chg_world_destroy(w);
    free(ids);
    return 0;
}

/* simple_iter (noctjs ecs-benchmark): n entities each of (A,B), (A,B,C),
 * (A,B,C,D) and (A,B,C,E); three systems swap A with B, C with D, C with E.
 * One op: one system visiting one entity, 6 n a pass. The baseline keeps the
 * four kinds of entity in four groups of plain arrays, as C code without an
 * ECS would. */
#include "bench.h"
#include "simple_iter.h"

#include <stdlib.h>

BENCH_KERNEL void swap_ab(simple_iter_a *restrict a, simple_iter_b *restrict b, int n) {
    for (int i = 0; i < n; i++) {
        int32_t t = a[i].value;
        a[i].value = b[i].value;
        b[i].value = t;
    }
}

BENCH_KERNEL void swap_cd(simple_iter_c *restrict c, simple_iter_d *restrict d, int n) {
    for (int i = 0; i < n; i++) {
        int32_t t = c[i].value;
        c[i].value = d[i].value;
        d[i].value = t;
    }
}

BENCH_KERNEL void swap_ce(simple_iter_c *restrict c, simple_iter_e *restrict e, int n) {
    for (int i = 0; i < n; i++) {
        int32_t t = c[i].value;
        c[i].value = e[i].value;
        e[i].value = t;
    }
}

void simple_iter_swap_ab_run(simple_iter_swap_ab_ctx *ctx) {
    while (simple_iter_swap_ab_next(ctx)) {
        swap_ab(ctx->a, ctx->b, (int)ctx->count);
    }
}

void simple_iter_swap_cd_run(simple_iter_swap_cd_ctx *ctx) {
    while (simple_iter_swap_cd_next(ctx)) {
        swap_cd(ctx->c, ctx->d, (int)ctx->count);
    }
}

void simple_iter_swap_ce_run(simple_iter_swap_ce_ctx *ctx) {
    while (simple_iter_swap_ce_next(ctx)) {
        swap_ce(ctx->c, ctx->e, (int)ctx->count);
    }
}

/* One kind of entity: an array per component it has, NULL for the others. */
typedef struct group {
    simple_iter_a *a;
    simple_iter_b *b;
    simple_iter_c *c;
    simple_iter_d *d;
    simple_iter_e *e;
} group;

typedef struct plain {
    group g[4];
    int n;
} plain;

static void plain_pass(void *state) {
    plain *p = state;
    for (int k = 0; k < 4; k++) {
        swap_ab(p->g[k].a, p->g[k].b, p->n);
    }
    for (int k = 0; k < 4; k++) {
        if (p->g[k].d) {
            swap_cd(p->g[k].c, p->g[k].d, p->n);
        }
    }
    for (int k = 0; k < 4; k++) {
        if (p->g[k].e) {
            swap_ce(p->g[k].c, p->g[k].e, p->n);
        }
    }
}

static void strata_pass(void *state) {
    simple_iter_world_step(state, 0.0f);
}

/* An array of n copies of a value of component T, or NULL unless `want`. */
#define ARRAY(T, want, v) ((want) ? fill_##T(bench_alloc(sizeof(T) * n), n, v) : NULL)
#define FILL(T)                                                                                                        \
    static T *fill_##T(T *arr, uint32_t n, int32_t v) {                                                                \
        for (uint32_t i = 0; i < n; i++) {                                                                             \
            arr[i].value = v;                                                                                          \
        }                                                                                                              \
        return arr;                                                                                                    \
    }
FILL(simple_iter_a)
FILL(simple_iter_b)
FILL(simple_iter_c)
FILL(simple_iter_d)
FILL(simple_iter_e)

void bench_simple_iter(void) {
    const uint32_t size = 1000;
    uint32_t n = bench_count(size);
    simple_iter_world *w = simple_iter_world_create(NULL);
    bench_check(w != NULL, "simple_iter: world create");
    const simple_iter_a a = {0};
    const simple_iter_b b = {1};
    const simple_iter_c c = {2};
    const simple_iter_d d = {3};
    const simple_iter_e e = {4};
    const simple_iter_bundle kinds[4] = {
        {.a = &a, .b = &b},
        {.a = &a, .b = &b, .c = &c},
        {.a = &a, .b = &b, .c = &c, .d = &d},
        {.a = &a, .b = &b, .c = &c, .e = &e},
    };
    simple_iter_entity *ids = bench_alloc(sizeof *ids * n);
    plain p = {.n = (int)n};
    for (int k = 0; k < 4; k++) {
        bench_check(simple_iter_entity_create_many(w, &kinds[k], n, ids) == STRATA_OK, "simple_iter: create");
        p.g[k] = (group){ARRAY(simple_iter_a, 1, 0), ARRAY(simple_iter_b, 1, 1), ARRAY(simple_iter_c, k > 0, 2),
                         ARRAY(simple_iter_d, k == 2, 3), ARRAY(simple_iter_e, k == 3, 4)};
    }
    free(ids);
    bench_run_pair(&(bench_pair){.name = "simple_iter",
                                 .op = "3 systems, swap two values",
                                 .size = 4 * size,
                                 .ops = 6.0 * n,
                                 .strata = strata_pass,
                                 .strata_state = w,
                                 .plain = plain_pass,
                                 .plain_state = &p});
    bench_check(simple_iter_swap_ab_count(w) == 4 * n && simple_iter_swap_cd_count(w) == n,
                "simple_iter: entity count");
    for (int k = 0; k < 4; k++) {
        free(p.g[k].a);
        free(p.g[k].b);
        free(p.g[k].c);
        free(p.g[k].d);
        free(p.g[k].e);
    }
    simple_iter_world_destroy(w);
}

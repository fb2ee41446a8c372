/* packed_5 (noctjs ecs-benchmark): n entities with A, B, C, D and E (an i32
 * each); five systems, each doubling one of them. One op: one system
 * visiting one entity, so 5 n a pass. The baseline: five plain arrays. */
#include "bench.h"
#include "packed5.h"

#include <stdlib.h>

/* double_X(rows, n): the kernel; packed5_double_X_run: the system around it. */
#define DOUBLER(x)                                                                                                     \
    BENCH_KERNEL void double_##x(packed5_##x *restrict v, int n) {                                                     \
        for (int i = 0; i < n; i++) {                                                                                  \
            v[i].value = bench_double(v[i].value);                                                                     \
        }                                                                                                              \
    }                                                                                                                  \
    void packed5_double_##x##_run(packed5_double_##x##_ctx *ctx) {                                                     \
        while (packed5_double_##x##_next(ctx)) {                                                                       \
            double_##x(ctx->x, (int)ctx->count);                                                                       \
        }                                                                                                              \
    }
DOUBLER(a)
DOUBLER(b)
DOUBLER(c)
DOUBLER(d)
DOUBLER(e)

/* The same data as five arrays of the same structs. */
typedef struct plain {
    packed5_a *a;
    packed5_b *b;
    packed5_c *c;
    packed5_d *d;
    packed5_e *e;
    int n;
} plain;

static void plain_pass(void *state) {
    plain *p = state;
    double_a(p->a, p->n);
    double_b(p->b, p->n);
    double_c(p->c, p->n);
    double_d(p->d, p->n);
    double_e(p->e, p->n);
}

static void strata_pass(void *state) {
    packed5_world_step(state, 0.0f);
}

static void run(uint32_t size) {
    uint32_t n = bench_count(size);
    packed5_world *w = packed5_world_create(&(strata_world_desc_t){.initial_capacity = n});
    bench_check(w != NULL, "packed_5: world create");
    packed5_entity *ids = bench_alloc(sizeof *ids * n);
    const packed5_bundle all = {.a = &(packed5_a){1},
                                .b = &(packed5_b){1},
                                .c = &(packed5_c){1},
                                .d = &(packed5_d){1},
                                .e = &(packed5_e){1}};
    bench_check(packed5_entity_create_many(w, &all, n, ids) == STRATA_OK, "packed_5: create");
    free(ids);

    plain p = {bench_alloc(sizeof *p.a * n), bench_alloc(sizeof *p.b * n), bench_alloc(sizeof *p.c * n),
               bench_alloc(sizeof *p.d * n), bench_alloc(sizeof *p.e * n), (int)n};
    for (uint32_t i = 0; i < n; i++) {
        p.a[i].value = p.b[i].value = p.c[i].value = p.d[i].value = p.e[i].value = 1;
    }
    bench_run_pair(&(bench_pair){.name = "packed_5",
                                 .op = "5 systems, value *= 2",
                                 .size = size,
                                 .ops = 5.0 * n,
                                 .strata = strata_pass,
                                 .strata_state = w,
                                 .plain = plain_pass,
                                 .plain_state = &p});
    bench_check(packed5_double_e_count(w) == n, "packed_5: entity count");
    free(p.a);
    free(p.b);
    free(p.c);
    free(p.d);
    free(p.e);
    packed5_world_destroy(w);
}

void bench_packed5(void) {
    run(1000);
    run(1000000);
}

/* frag_iter (noctjs ecs-benchmark): 26 component types A..Z, n entities
 * with (X, Data) for each; one system doubles Data everywhere, the next
 * doubles Z. One op: one system visiting one entity, 26 n + n a pass.
 *
 * The baseline keeps every Data in one array and every Z in another: the
 * layout a C programmer would pick, and one an archetype ECS cannot have
 * here (Data is spread over 26 tables), so the ratio is the price of that
 * fragmentation. A second row compares the same pass with a baseline
 * fragmented the same way (26 arrays of Data, one kernel call each): its
 * ratio is what the iterator itself costs. */
#include "bench.h"
#include "frag_iter.h"

#include <stdlib.h>

BENCH_KERNEL void double_data(frag_iter_data *restrict v, int n) {
    for (int i = 0; i < n; i++) {
        v[i].value = bench_double(v[i].value);
    }
}

BENCH_KERNEL void double_z(frag_iter_z *restrict v, int n) {
    for (int i = 0; i < n; i++) {
        v[i].value = bench_double(v[i].value);
    }
}

void frag_iter_double_data_run(frag_iter_double_data_ctx *ctx) {
    while (frag_iter_double_data_next(ctx)) {
        double_data(ctx->data, (int)ctx->count);
    }
}

void frag_iter_double_z_run(frag_iter_double_z_ctx *ctx) {
    while (frag_iter_double_z_next(ctx)) {
        double_z(ctx->z, (int)ctx->count);
    }
}

typedef struct plain {
    frag_iter_data *data;
    frag_iter_z *z;
    int data_count, z_count;
} plain;

static void plain_pass(void *state) {
    plain *p = state;
    double_data(p->data, p->data_count);
    double_z(p->z, p->z_count);
}

/* The same work over 26 separate Data arrays of n, one kernel call each. */
typedef struct plain_split {
    frag_iter_data *data[26];
    frag_iter_z *z;
    int n;
} plain_split;

static void plain_split_pass(void *state) {
    plain_split *p = state;
    for (int k = 0; k < 26; k++) {
        double_data(p->data[k], p->n);
    }
    double_z(p->z, p->n);
}

static void strata_pass(void *state) {
    frag_iter_world_step(state, 0.0f);
}

void bench_frag_iter(void) {
    const uint32_t size = 100;
    uint32_t n = bench_count(size);
    frag_iter_world *w = frag_iter_world_create(NULL);
    bench_check(w != NULL, "frag_iter: world create");
    const frag_iter_data data = {1};
    /* Each letter's component is its own type: one bundle a letter. */
#define LETTER(x)                                                                                                      \
    { .x = &(frag_iter_##x){1}, .data = &data }
    const frag_iter_bundle letters[26] = {
        LETTER(a), LETTER(b), LETTER(c), LETTER(d), LETTER(e), LETTER(f), LETTER(g), LETTER(h), LETTER(i),
        LETTER(j), LETTER(k), LETTER(l), LETTER(m), LETTER(n), LETTER(o), LETTER(p), LETTER(q), LETTER(r),
        LETTER(s), LETTER(t), LETTER(u), LETTER(v), LETTER(w), LETTER(x), LETTER(y), LETTER(z),
    };
#undef LETTER
    frag_iter_entity *ids = bench_alloc(sizeof *ids * n);
    for (int k = 0; k < 26; k++) {
        bench_check(frag_iter_entity_create_many(w, &letters[k], n, ids) == STRATA_OK, "frag_iter: create");
    }
    free(ids);

    plain p = {bench_alloc(sizeof *p.data * 26 * n), bench_alloc(sizeof *p.z * n), (int)(26 * n), (int)n};
    for (uint32_t i = 0; i < 26 * n; i++) {
        p.data[i].value = 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        p.z[i].value = 1;
    }
    bench_pair row = {.name = "frag_iter",
                      .op = "Data *= 2 in 26 tables, Z *= 2",
                      .size = 26 * size,
                      .ops = 27.0 * n,
                      .strata = strata_pass,
                      .strata_state = w,
                      .plain = plain_pass,
                      .plain_state = &p,
                      .target = BENCH_RATIO(1.10)};
    bench_run_pair(&row);
    plain_split split = {.z = bench_alloc(sizeof *split.z * n), .n = (int)n};
    for (int k = 0; k < 26; k++) {
        split.data[k] = bench_alloc(sizeof *split.data[k] * n);
        for (uint32_t i = 0; i < n; i++) {
            split.data[k][i].value = 1;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        split.z[i].value = 1;
    }
    /* The same Strata pass, against the fragmented baseline; no target. */
    row.op = "the same (baseline: 26 arrays)";
    row.plain = plain_split_pass;
    row.plain_state = &split;
    row.target = BENCH_NONE;
    bench_run_pair(&row);
    bench_check(frag_iter_double_data_count(w) == 26 * n && frag_iter_double_z_count(w) == n,
                "frag_iter: entity count");
    for (int k = 0; k < 26; k++) {
        free(split.data[k]);
    }
    free(split.z);
    free(p.data);
    free(p.z);
    frag_iter_world_destroy(w);
}

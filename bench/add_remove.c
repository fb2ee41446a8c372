/* add_remove (noctjs ecs-benchmark): n entities with A; one system adds B to
 * each, the next removes it again. One op: one add or one remove, 2 n a pass.
 *
 * In Strata the changes are made inside the systems, as a game makes them:
 * recorded while the system iterates and applied when it returns. The
 * baseline (plain.h) keeps B in a hand-written sparse set over the
 * entities' indices. */
#include "bench.h"
#include "add_remove.h"
#include "plain.h"

#include <stdlib.h>

void add_remove_add_b_run(add_remove_add_b_ctx *ctx) {
    while (add_remove_add_b_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            add_remove_b_add(ctx->world, ctx->entities[i], (add_remove_b){0});
        }
    }
}

void add_remove_remove_b_run(add_remove_remove_b_ctx *ctx) {
    while (add_remove_remove_b_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            add_remove_b_remove(ctx->world, ctx->entities[i]);
        }
    }
}

typedef struct plain {
    plain_ids ids; /* the entities' handles */
    plain_handle *a_owner;
    int32_t *a_value; /* their A, by row */
    int n;
    plain_set b; /* who has B */
} plain;

static void plain_pass(void *state) {
    plain *p = state;
    for (int i = 0; i < p->n; i++) {
        plain_handle h = p->a_owner[i];
        bench_check(plain_ids_alive(&p->ids, h), "add_remove: plain handle");
        plain_set_add(&p->b, h, 0);
    }
    for (uint32_t row = p->b.count; row-- > 0;) {
        plain_handle h = p->b.owner[row];
        bench_check(plain_ids_alive(&p->ids, h), "add_remove: plain handle");
        plain_set_remove(&p->b, h);
    }
}

static void strata_pass(void *state) {
    add_remove_world_step(state, 0.0f);
}

static void run(uint32_t size) {
    uint32_t n = bench_count(size);
    add_remove_world *w = add_remove_world_create(&(strata_world_desc_t){.initial_capacity = n});
    bench_check(w != NULL, "add_remove: world create");
    add_remove_entity *ids = bench_alloc(sizeof *ids * n);
    bench_check(add_remove_entity_create_many(w, &(add_remove_bundle){.a = &(add_remove_a){1}}, n, ids) == STRATA_OK,
                "add_remove: create");
    free(ids);
    plain p = {plain_ids_make(n), bench_alloc(sizeof(plain_handle) * n), bench_alloc(sizeof(int32_t) * n), (int)n,
               plain_set_make(n, n, false)};
    for (uint32_t i = 0; i < n; i++) {
        p.a_owner[i] = plain_ids_take(&p.ids, i);
        p.a_value[i] = 1;
    }
    bench_run_pair(&(bench_pair){.name = "add_remove",
                                 .op = "add B to n, then remove it",
                                 .size = size,
                                 .ops = 2.0 * n,
                                 .strata = strata_pass,
                                 .strata_state = w,
                                 .plain = plain_pass,
                                 .plain_state = &p,
                                 .target = size == 1000000 ? BENCH_RATIO(4.0) : BENCH_NONE});
    bench_check(add_remove_remove_b_count(w) == 0 && add_remove_add_b_count(w) == n && p.b.count == 0,
                "add_remove: counts");
    plain_ids_free(&p.ids);
    free(p.a_owner);
    free(p.a_value);
    plain_set_free(&p.b);
    add_remove_world_destroy(w);
}

void bench_add_remove(void) {
    run(1000);
    run(1000000);
}

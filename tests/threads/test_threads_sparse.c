/* Sparse components from split systems (runtime/pool.c, runtime/sparse.c):
 * chunks that add and remove sparse components record them and the batch
 * applies them in chunk order; chunks visit only their rows that meet the
 * sparse terms (chunks need not start at a multiple of 64 rows); a sparse
 * write term marks only the rows visited. The world after any number of
 * steps is byte for byte the same at 1, 2, 3 and 4 threads. Built with
 * ThreadSanitizer too (the tsan variant). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "thread_test.h"
#include "thsp.h"

static atomic_uint dash_slow; /* rows Dash visited that were slow */

void thsp_roll_run(thsp_roll_ctx *ctx) {
    ctx->seed->s = mix(ctx->seed->s);
}

/* Each row, from its handle, its health and the step's seed: toggle Slow,
 * add or remove Hot, or only lose health. */
void thsp_flip_run(thsp_flip_ctx *ctx) {
    thsp_world *w = ctx->world;
    while (thsp_flip_next(ctx)) {
        assert_int_equal(ctx->count, 1); /* an optional sparse term: a row a batch */
        thsp_entity e = ctx->entities[0];
        assert_int_equal(ctx->slow, thsp_slow_has(w, e));
        uint32_t h = mix(ctx->seed->s ^ (uint32_t)e.id * 2654435761u ^ (uint32_t)ctx->hp[0].v);
        ctx->hp[0].v -= 1;
        strata_result_t r = STRATA_OK; /* or NOMEM: recording ran out of memory (a test makes it) */
        switch (h % 5) {
        case 0: r = ctx->slow ? thsp_slow_remove(w, e) : thsp_slow_add(w, e); break;
        case 1: r = thsp_hot_add(w, e, (thsp_hot){(float)(h % 17)}); break;
        case 2: (void)thsp_hot_remove(w, e); break;
        default: break;
        }
        assert_true(r == STRATA_OK || (r == STRATA_ERR_NOMEM && atomic_load(&allocations_left) <= 0));
        assert_int_equal(thsp_slow_has(w, e), ctx->slow); /* recorded: the batch applies it */
    }
}

void thsp_dash_run(thsp_dash_ctx *ctx) {
    while (thsp_dash_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            if (thsp_slow_has(ctx->world, ctx->entities[i])) {
                atomic_fetch_add(&dash_slow, 1u);
            }
            ctx->pos[i].x += ctx->vel[i].x;
            ctx->pos[i].y += ctx->vel[i].y;
        }
    }
}

void thsp_heat_run(thsp_heat_ctx *ctx) {
    while (thsp_heat_next(ctx)) {
        assert_int_equal(ctx->count, 1);
        ctx->hot->t = ctx->hot->t * 0.5f + 1.0f;
    }
}

void thsp_tally_run(thsp_tally_ctx *ctx) {
    while (thsp_tally_next(ctx)) {
        ctx->stats->changed += ctx->count;
        ctx->stats->slow += ctx->count;
    }
}

/* A world of n entities from a fixed seed, some slow, some hot. */
static thsp_world *world_with(uint32_t threads, uint32_t chunk_rows, uint32_t n) {
    thsp_world *w = thsp_world_create(&(thsp_world_desc_t){.threads = threads,
                                                           .chunk_rows = chunk_rows,
                                                           .allocator = {fail_alloc, fail_realloc, fail_free, NULL}});
    assert_non_null(w);
    uint32_t s = 777;
    for (uint32_t i = 0; i < n; i++) {
        s = mix(s + i);
        thsp_pos p = {(float)(s % 100), 0};
        thsp_vel v = {(float)(s % 5) - 2.0f, 1};
        thsp_hp hp = {(int32_t)(s % 40)};
        thsp_hot hot = {(float)(s % 3)};
        thsp_entity e = thsp_entity_create_bundle(
            w, &(thsp_bundle){.pos = &p, .vel = &v, .hp = &hp, .hot = s % 4 == 0 ? &hot : NULL, .slow = s % 3 == 0});
        assert_true(e.id != 0);
    }
    return w;
}

/* The world's binary save after `steps` steps, in a buffer the caller frees. */
static unsigned char *run(uint32_t threads, uint32_t chunk_rows, uint32_t n, int steps, size_t *size) {
    thsp_world *w = world_with(threads, chunk_rows, n);
    for (int s = 0; s < steps; s++) {
        assert_int_equal(thsp_world_step(w, 1.0f), STRATA_OK);
    }
    assert_int_equal(thsp_world_save_mem(w, NULL, 0, size), STRATA_ERR_LIMIT);
    unsigned char *buf = malloc(*size);
    assert_non_null(buf);
    assert_int_equal(thsp_world_save_mem(w, buf, *size, size), STRATA_OK);
    assert_true(thsp_stats_res(w)->changed > 0);
    thsp_world_destroy(w);
    assert_int_equal(atomic_load(&bytes_held), 0);
    return buf;
}

static void test_threads_sparse_same_world_at_1_2_3_4_threads(void **state) {
    (void)state;
    static const uint32_t chunks[] = {100, 1000}; /* 100: chunks start mid-word */
    for (size_t c = 0; c < 2; c++) {
        size_t one_size = 0;
        unsigned char *one = run(1, chunks[c], 3000, 25, &one_size);
        for (uint32_t threads = 2; threads <= 4; threads++) {
            size_t size = 0;
            unsigned char *other = run(threads, chunks[c], 3000, 25, &size);
            assert_int_equal(size, one_size);
            assert_memory_equal(other, one, size);
            free(other);
        }
        free(one);
    }
    assert_int_equal(atomic_load(&dash_slow), 0u);
}

/* What single-threaded calls give: Dash moves exactly the rows without Slow. */
static void test_threads_sparse_chunks_visit_their_matching_rows(void **state) {
    (void)state;
    for (uint32_t threads = 1; threads <= 3; threads++) {
        thsp_world *w = world_with(threads, 70, 500);
        thsp_flip_enable(w, false);
        thsp_heat_enable(w, false);
        uint32_t slow = 0;
        thsp_entity all[500];
        uint32_t n = 0;
        for (thsp_dash_ctx it = thsp_dash_begin(w, 0); thsp_dash_next(&it);) {
            n += it.count;
        }
        for (uint32_t i = 0; i < 500; i++) {
            all[i] = (thsp_entity){(uint64_t)1 << 32 | i}; /* made first, in a fresh world */
            slow += thsp_slow_has(w, all[i]);
        }
        assert_int_equal(n, 500 - slow);
        assert_int_equal(thsp_dash_count(w), 500 - slow);
        float before = thsp_pos_get(w, all[0])->x;
        assert_int_equal(thsp_world_step(w, 1.0f), STRATA_OK);
        float moved = thsp_pos_get(w, all[0])->x - before;
        assert_float_equal(moved, thsp_slow_has(w, all[0]) ? 0.0f : thsp_vel_get(w, all[0])->x, 0);
        thsp_world_destroy(w);
    }
}

/* Out of memory while a batch applies what its chunks recorded: the step
 * says so, nothing is lost or half done (what could not be applied waits),
 * and with memory again the world goes on as one that never ran out. */
static void test_threads_sparse_out_of_memory_in_a_batch(void **state) {
    (void)state;
    for (long budget = 0; budget < 40; budget += 3) {
        thsp_world *w = world_with(2, 100, 600);
        assert_int_equal(thsp_world_step(w, 1.0f), STRATA_OK); /* the buffers grow once */
        atomic_store(&allocations_left, budget);
        strata_result_t r = thsp_world_step(w, 1.0f);
        atomic_store(&allocations_left, 1L << 40);
        assert_true(r == STRATA_OK || r == STRATA_ERR_NOMEM);
        assert_int_equal(thsp_world_step(w, 1.0f), STRATA_OK);
        strata_world_stats_t stats;
        thsp_world_stats(w, &stats);
        assert_int_equal(stats.pending, 0);
        uint32_t visited = 0;
        for (thsp_dash_ctx it = thsp_dash_begin(w, 0); thsp_dash_next(&it);) {
            for (uint32_t i = 0; i < it.count; i++) {
                assert_false(thsp_slow_has(w, it.entities[i]));
                visited++;
            }
        }
        assert_int_equal(visited, thsp_dash_count(w));
        thsp_world_destroy(w);
        assert_int_equal(atomic_load(&bytes_held), 0);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_sparse_same_world_at_1_2_3_4_threads),
        cmocka_unit_test(test_threads_sparse_chunks_visit_their_matching_rows),
        cmocka_unit_test(test_threads_sparse_out_of_memory_in_a_batch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The threaded step (runtime/pool.c, the generated batches): the world after
 * any number of steps is byte for byte the same (binary saves compared) at
 * 1, 2, 3, 4 and 8 threads; a stress run of creating, destroying, adding
 * and removing from split systems at 8 threads against 1; split systems
 * run once a chunk, with the chunks independent of the thread count; a
 * `main_thread` system stays on the calling thread; created entities get
 * null handles inside a split system and exist after it; out of memory
 * while starting the workers fails world creation cleanly. Built with
 * ThreadSanitizer too (the tsan variant). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "thr.h"
#include "thread_test.h"

/* --- The systems ------------------------------------------------------------ */

static atomic_uint move_calls;     /* _run calls of Move: one a chunk */
static atomic_uint churn_nulls;    /* handles a split system's creates returned: all null */
static atomic_uint paint_off_main; /* Paint runs that were not on the calling thread */
static pthread_t caller;

void thr_roll_run(thr_roll_ctx *ctx) {
    uint32_t s = ctx->seed->s;
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    ctx->seed->s = s;
}

void thr_move_run(thr_move_ctx *ctx) {
    atomic_fetch_add(&move_calls, 1u);
    while (thr_move_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->pos[i].x += ctx->vel[i].x * ctx->dt;
            ctx->pos[i].y += ctx->vel[i].y * ctx->dt;
        }
    }
}

void thr_paint_run(thr_paint_ctx *ctx) {
    if (!pthread_equal(pthread_self(), caller)) {
        atomic_fetch_add(&paint_off_main, 1u);
    }
    while (thr_paint_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->tint[i].r = (uint8_t)(int32_t)(ctx->vel[i].x * 8.0f); /* negative x: wraps, as an int does */
        }
    }
}

/* Each row, from its handle, its health, its position and the step's seed:
 * destroy it, create another, add or remove the tag, or only lose health. */
static atomic_bool churn_cheats; /* Churn writes the Seed it only reads (the debug check must see it) */

void thr_churn_run(thr_churn_ctx *ctx) {
    thr_world *w = ctx->world;
    if (atomic_exchange(&churn_cheats, false)) {
        ((thr_seed *)(uintptr_t)ctx->seed)->s += 1;
    }
    while (thr_churn_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            thr_entity e = ctx->entities[i];
            uint32_t h = mix(ctx->seed->s ^ (uint32_t)e.id * 2654435761u ^ (uint32_t)ctx->hp[i].v ^
                             (uint32_t)(int32_t)ctx->pos[i].x);
            ctx->hp[i].v -= 1;
            switch (h % 11) {
            case 0: thr_entity_destroy(w, e); break;
            case 1: {
                thr_pos p = {ctx->pos[i].y, ctx->pos[i].x};
                thr_vel v = {(float)(h % 7) - 3.0f, (float)(h % 5) - 2.0f};
                thr_hp hp = {(int32_t)(h % 100)};
                thr_entity made = thr_entity_create_bundle(w, &(thr_bundle){.pos = &p, .vel = &v, .hp = &hp});
                if (made.id == 0) {
                    atomic_fetch_add(&churn_nulls, 1u);
                }
                break;
            }
            case 2:
                if (ctx->marked) {
                    thr_marked_remove(w, e);
                } else {
                    thr_marked_add(w, e);
                }
                break;
            case 3: thr_tint_add(w, e, (thr_tint){(uint8_t)h}); break;
            case 4: thr_tint_remove(w, e); break;
            default: break;
            }
        }
    }
}

void thr_tally_run(thr_tally_ctx *ctx) {
    ctx->stats->steps++;
    while (thr_tally_next(ctx)) {
        ctx->stats->changed += ctx->count;
    }
}

/* --- Helpers ----------------------------------------------------------------- */

/* A world of `threads` threads and `chunk_rows` rows a chunk with n entities
 * made from a fixed seed: some with Vel and Hp only, some tagged. */
static thr_world *world_with(uint32_t threads, uint32_t chunk_rows, uint32_t n) {
    thr_world *w = thr_world_create(&(thr_world_desc_t){.threads = threads, .chunk_rows = chunk_rows});
    assert_non_null(w);
    uint32_t s = 12345;
    for (uint32_t i = 0; i < n; i++) {
        s = mix(s + i);
        thr_pos p = {(float)(s % 1000), (float)(s / 1000 % 1000)};
        thr_vel v = {(float)(s % 9) - 4.0f, (float)(s % 13) - 6.0f};
        thr_hp hp = {(int32_t)(s % 50) + 10};
        thr_entity e = thr_entity_create_bundle(w,
                                                &(thr_bundle){.pos = &p, .vel = &v, .hp = &hp, .marked = s % 3 == 0});
        assert_true(e.id != 0);
    }
    return w;
}

/* The world's binary save, in a buffer the caller frees. */
static unsigned char *save_of(thr_world *w, size_t *size) {
    assert_int_equal(thr_world_save_mem(w, NULL, 0, size), STRATA_ERR_LIMIT);
    unsigned char *buf = malloc(*size);
    assert_non_null(buf);
    assert_int_equal(thr_world_save_mem(w, buf, *size, size), STRATA_OK);
    return buf;
}

/* Step a world `steps` times and return its save. */
static unsigned char *run(uint32_t threads, uint32_t chunk_rows, uint32_t n, int steps, size_t *size) {
    thr_world *w = world_with(threads, chunk_rows, n);
    assert_int_equal(strata_world_threads(thr_world_core(w)), threads);
    for (int s = 0; s < steps; s++) {
        assert_int_equal(thr_world_step(w, 0.5f), STRATA_OK);
    }
    strata_world_stats_t stats;
    thr_world_stats(w, &stats);
    assert_true(stats.entities > 0);
    unsigned char *buf = save_of(w, size);
    thr_world_destroy(w);
    return buf;
}

/* Runs at thread counts a and b end in the same saved world. */
static void same_world(uint32_t a, uint32_t b, uint32_t chunk_rows, uint32_t n, int steps) {
    size_t a_size = 0, b_size = 0;
    unsigned char *one = run(a, chunk_rows, n, steps, &a_size);
    unsigned char *other = run(b, chunk_rows, n, steps, &b_size);
    assert_int_equal(a_size, b_size);
    assert_memory_equal(one, other, a_size);
    free(one);
    free(other);
}

/* Runs at 2, 3, 4 and 8 threads end in the 1-thread run's saved world
 * (made once: each run starts from the same seed). */
static void same_at_every_thread_count(uint32_t chunk_rows, uint32_t n, int steps) {
    static const uint32_t counts[] = {2, 3, 4, 8};
    size_t one_size = 0;
    unsigned char *one = run(1, chunk_rows, n, steps, &one_size);
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        size_t size = 0;
        unsigned char *other = run(counts[i], chunk_rows, n, steps, &size);
        assert_int_equal(size, one_size);
        assert_memory_equal(other, one, one_size);
        free(other);
    }
    free(one);
}

/* --- Tests --------------------------------------------------------------------- */

static void test_threads_same_world_at_1_2_3_4_8_threads(void **state) {
    (void)state;
    same_at_every_thread_count(1024, 20000, 30);
}

/* Thousands of steps of churn from split systems, at more threads than the
 * machine has cores (so workers are preempted at any point), against one. */
static void test_threads_stress_8_threads_same_as_1(void **state) {
    (void)state;
    same_world(1, 8, 64, 1500, 2000);
}

/* The same thread count twice gives the same world (no run-to-run noise). */
static void test_threads_every_run_the_same(void **state) {
    (void)state;
    same_world(4, 4, 256, 5000, 40);
}

/* _run once a chunk: a table cut every chunk_rows rows, the same at any thread count. */
static void test_threads_split_system_runs_once_a_chunk(void **state) {
    (void)state;
    for (uint32_t threads = 1; threads <= 4; threads *= 2) {
        thr_world *w = world_with(threads, 1000, 0);
        thr_entity made[2500];
        thr_pos p = {0, 0};
        thr_vel v = {1, 1};
        assert_int_equal(thr_entity_create_many(w, &(thr_bundle){.pos = &p, .vel = &v}, 2500, made), STRATA_OK);
        assert_int_equal(thr_entity_create_many(w, &(thr_bundle){.pos = &p, .vel = &v, .marked = true}, 10, made),
                         STRATA_OK);
        thr_churn_enable(w, false);
        atomic_store(&move_calls, 0u);
        assert_int_equal(thr_world_step(w, 1.0f), STRATA_OK);
        assert_int_equal(atomic_load(&move_calls), 3u + 1u); /* 1000 + 1000 + 500 rows, then the tagged 10 */
        assert_true(thr_pos_get(w, made[9])->x == 1.0f);
        thr_world_destroy(w);
    }
}

/* No chunk for a split system with no rows: its _run is not called. */
static void test_threads_split_system_with_no_rows_runs_no_chunk(void **state) {
    (void)state;
    thr_world *w = world_with(2, 0, 0);
    atomic_store(&move_calls, 0u);
    assert_int_equal(thr_world_step(w, 1.0f), STRATA_OK);
    assert_int_equal(atomic_load(&move_calls), 0u);
    assert_int_equal(thr_stats_res(w)->steps, 1u);
    thr_world_destroy(w);
}

/* Paint (main_thread) shares a batch with others yet runs on the caller. */
static void test_threads_main_thread_system_stays_on_the_caller(void **state) {
    (void)state;
    caller = pthread_self();
    thr_world *w = world_with(4, 128, 3000);
    atomic_store(&paint_off_main, 0u);
    for (int s = 0; s < 20; s++) {
        assert_int_equal(thr_world_step(w, 0.1f), STRATA_OK);
    }
    assert_int_equal(atomic_load(&paint_off_main), 0u);
    thr_world_destroy(w);
}

/* Inside a split system a create gives the null handle; the entity exists
 * when the system ends, its components in place. */
static void test_threads_entity_created_in_a_split_system_has_no_handle_until_it_ends(void **state) {
    (void)state;
    thr_world *w = world_with(2, 0, 500);
    strata_world_stats_t before, after;
    thr_world_stats(w, &before);
    atomic_store(&churn_nulls, 0u);
    assert_int_equal(thr_world_step(w, 1.0f), STRATA_OK);
    thr_world_stats(w, &after);
    unsigned made = atomic_load(&churn_nulls);
    assert_true(made > 0);
    /* Every create happened; some of the old entities were destroyed at the step's end. */
    assert_true(after.entities + 500 / 4 > before.entities + made);
    assert_int_equal(thr_world_step(w, 1.0f), STRATA_OK);
    thr_world_destroy(w);
}

/* The rows a split system writes are marked, as a single-threaded run marks them. */
static void test_threads_split_writes_feed_changed_sets(void **state) {
    (void)state;
    thr_world *w = world_with(3, 100, 1000);
    thr_roll_enable(w, false);
    thr_move_enable(w, false);
    thr_paint_enable(w, false);
    assert_int_equal(thr_world_step(w, 1.0f), STRATA_OK);
    /* Churn wrote every row of 1000 (Hp); Tally saw each once, plus what it creates (marked by their add). */
    assert_true(thr_stats_res(w)->changed >= 1000u);
    thr_world_destroy(w);
}

/* Out of memory at each allocation of creating a 4-thread world: NULL and nothing held. */
static void test_threads_out_of_memory_starting_workers_fails_creation(void **state) {
    (void)state;
    thr_world_desc_t desc = {.allocator = {fail_alloc, fail_realloc, fail_free, NULL}, .threads = 4};
    for (long k = 0;; k++) {
        atomic_store(&allocations_left, k);
        atomic_store(&bytes_held, 0);
        thr_world *w = thr_world_create(&desc);
        if (w == NULL) {
            assert_int_equal(atomic_load(&bytes_held), 0);
            continue;
        }
        assert_int_equal(strata_world_threads(thr_world_core(w)), 4u);
        thr_world_destroy(w);
        assert_int_equal(atomic_load(&bytes_held), 0);
        assert_true(k > 2); /* the pool's allocations were among those failed */
        break;
    }
}

/* A step of a threaded world with allocations failing mid-batch reports
 * NOMEM, and the world then steps on. */
static void test_threads_step_out_of_memory_is_reported(void **state) {
    (void)state;
    thr_world_desc_t desc = {.allocator = {fail_alloc, fail_realloc, fail_free, NULL}, .threads = 2, .chunk_rows = 50};
    atomic_store(&allocations_left, 1000000);
    atomic_store(&bytes_held, 0);
    thr_world *w = thr_world_create(&desc);
    assert_non_null(w);
    thr_pos p = {1, 2};
    thr_vel v = {1, 1};
    thr_hp hp = {30};
    thr_entity made[400];
    assert_int_equal(thr_entity_create_many(w, &(thr_bundle){.pos = &p, .vel = &v, .hp = &hp}, 400, made), STRATA_OK);
    atomic_store(&allocations_left, 0);
    assert_int_equal(thr_world_step(w, 1.0f), STRATA_ERR_NOMEM);
    atomic_store(&allocations_left, 1000000);
    for (int s = 0; s < 5; s++) {
        assert_int_equal(thr_world_step(w, 1.0f), STRATA_OK);
    }
    thr_world_destroy(w);
    assert_int_equal(atomic_load(&bytes_held), 0);
}

#ifndef NDEBUG
static jmp_buf asserted;

static void jump_on_assert(const char *condition, const char *file, int line, void *user) {
    (void)condition;
    (void)file;
    (void)line;
    (void)user;
    longjmp(asserted, 1);
}

/* Debug builds: a split system that writes a resource it only reads trips
 * an assert when its batch ends (before anything is applied; the test then
 * closes the step and frees the world). */
static void test_threads_write_to_a_read_resource_asserts(void **state) {
    (void)state;
    /* One thread: the cheating write is a real data race beside a worker
     * reading the resource (ThreadSanitizer would rightly report it); the
     * check does not depend on the thread count. */
    thr_world *w = world_with(1, 0, 100);
    atomic_store(&churn_cheats, true);
    strata_assert_handler_set(jump_on_assert, NULL);
    volatile bool tripped = false;
    if (setjmp(asserted) == 0) {
        (void)thr_world_step(w, 1.0f);
    } else {
        tripped = true;
    }
    strata_assert_handler_set(NULL, NULL);
    assert_true(tripped);
    (void)strata_step_end(thr_world_core(w));
    thr_world_destroy(w);
}
#endif

int main(void) {
    caller = pthread_self();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_same_world_at_1_2_3_4_8_threads),
        cmocka_unit_test(test_threads_stress_8_threads_same_as_1),
        cmocka_unit_test(test_threads_every_run_the_same),
        cmocka_unit_test(test_threads_split_system_runs_once_a_chunk),
        cmocka_unit_test(test_threads_split_system_with_no_rows_runs_no_chunk),
        cmocka_unit_test(test_threads_main_thread_system_stays_on_the_caller),
        cmocka_unit_test(test_threads_entity_created_in_a_split_system_has_no_handle_until_it_ends),
        cmocka_unit_test(test_threads_split_writes_feed_changed_sets),
        cmocka_unit_test(test_threads_out_of_memory_starting_workers_fails_creation),
        cmocka_unit_test(test_threads_step_out_of_memory_is_reported),
#ifndef NDEBUG
        cmocka_unit_test(test_threads_write_to_a_read_resource_asserts),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The examples at several thread counts: Rectangle Eater (its split Decay
 * adds, destroys and changes health from chunks) and the swarm (batches of
 * split systems over a flock cut into chunks) end each run in the same
 * state, hash and binary save, at 1, 2, 3, 4 and 8 threads. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flock.h"
#include "game.h"

static const uint32_t thread_counts[] = {1, 2, 3, 4, 8};
#define COUNTS (sizeof thread_counts / sizeof thread_counts[0])

/* A binary save in a buffer the caller frees (core: the world's runtime handle). */
static unsigned char *save_of(const strata_world_t *core, size_t *size) {
    assert_int_equal(strata_world_save_mem(core, NULL, 0, size), STRATA_ERR_LIMIT);
    unsigned char *buf = malloc(*size);
    assert_non_null(buf);
    assert_int_equal(strata_world_save_mem(core, buf, *size, size), STRATA_OK);
    return buf;
}

static void all_equal(unsigned char *saves[], const size_t sizes[]) {
    for (size_t i = 1; i < COUNTS; i++) {
        assert_int_equal(sizes[i], sizes[0]);
        assert_memory_equal(saves[i], saves[0], sizes[0]);
    }
    for (size_t i = 0; i < COUNTS; i++) {
        free(saves[i]);
    }
}

/* --- Rectangle Eater ----------------------------------------------------------- */

static void test_threads_rectangle_eater_same_game_at_every_thread_count(void **state) {
    (void)state;
    uint64_t hashes[COUNTS];
    unsigned char *saves[COUNTS];
    size_t sizes[COUNTS];
    for (size_t i = 0; i < COUNTS; i++) {
        rect_world *w = rect_game_create_threads(7, thread_counts[i]);
        assert_non_null(w);
        assert_int_equal(strata_world_threads(rect_world_core(w)), thread_counts[i]);
        rect_autopilot_enable(w, true);
        for (int frame = 0; frame < 900; frame++) {
            assert_int_equal(rect_world_step(w, RECT_DT), STRATA_OK);
        }
        assert_true(rect_game_res(w)->score > 0); /* played, not frozen */
        hashes[i] = rect_state_hash(w);
        saves[i] = save_of(rect_world_core(w), &sizes[i]);
        rect_world_destroy(w);
    }
    for (size_t i = 1; i < COUNTS; i++) {
        assert_true(hashes[i] == hashes[0]);
    }
    all_equal(saves, sizes);
}

/* --- The swarm ------------------------------------------------------------------- */

/* A flock of n boids (a tenth fast), scattered from a fixed seed. */
static swarm_world *flock(uint32_t n, uint32_t threads) {
    swarm_world *w = swarm_world_create(&(strata_world_desc_t){.initial_capacity = n, .threads = threads});
    assert_non_null(w);
    swarm_entity *handles = malloc(sizeof *handles * n);
    assert_non_null(handles);
    assert_int_equal(swarm_spawn_boid_many(w, n - n / 10, handles), STRATA_OK);
    assert_int_equal(swarm_spawn_fast_boid_many(w, n / 10, handles), STRATA_OK);
    free(handles);
    flock_scatter(w);
    swarm_splat_enable(w, false);
    return w;
}

static void test_threads_swarm_same_flock_at_every_thread_count(void **state) {
    (void)state;
    unsigned char *saves[COUNTS];
    size_t sizes[COUNTS];
    for (size_t i = 0; i < COUNTS; i++) {
        swarm_world *w = flock(3 * STRATA_CHUNK_ROWS + 1000, thread_counts[i]); /* several chunks a table */
        for (int s = 0; s < 12; s++) {
            assert_int_equal(swarm_world_step(w, 1.0f / 30.0f), STRATA_OK);
        }
        assert_int_equal(swarm_clock_res(w)->steps, 12u);
        saves[i] = save_of(swarm_world_core(w), &sizes[i]);
        swarm_world_destroy(w);
    }
    all_equal(saves, sizes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_rectangle_eater_same_game_at_every_thread_count),
        cmocka_unit_test(test_threads_swarm_same_flock_at_every_thread_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The game loop on the worker threads (tests/threads/thread_loop.yaml): a
 * fixed phase of split systems, gated systems sharing a batch, transitions
 * whose systems split, create and destroy. The world after the same steps
 * (random frame times, random requests, conditions flipping) is byte for
 * byte the same at 1 to 8 threads. Built with ThreadSanitizer too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "thread_test.h"
#include "tlp.h"

/* --- The systems ------------------------------------------------------------- */

static uint32_t roll(tlp_seed *seed) {
    seed->s = mix(seed->s + 0x9E3779B9u);
    return seed->s;
}

void tlp_roll_run(tlp_roll_ctx *ctx) {
    uint32_t r = roll(ctx->seed);
    ctx->flags->fast = (r & 7u) == 0 ? !ctx->flags->fast : ctx->flags->fast;
    ctx->flags->hot = (r & 0x30u) != 0;
    if ((r >> 8) % 9 == 0) {
        (void)tlp_mode_set(ctx->world, (tlp_mode)((r >> 16) % 3));
    }
}

void tlp_move_run(tlp_move_ctx *ctx) {
    while (tlp_move_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->pos[i].x += ctx->vel[i].x * ctx->dt;
            ctx->pos[i].y += ctx->vel[i].y * ctx->dt;
        }
    }
}

void tlp_heat_run(tlp_heat_ctx *ctx) {
    while (tlp_heat_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->hp[i].v -= 1 + (int32_t)(mix(ctx->entities[i].id) & 3u);
        }
    }
}

void tlp_drift_run(tlp_drift_ctx *ctx) {
    while (tlp_drift_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->vel[i].y = ctx->pos[i].x > 50.0f ? -1.0f : 1.0f;
        }
    }
}

void tlp_sparks_run(tlp_sparks_ctx *ctx) {
    while (tlp_sparks_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            (void)tlp_entity_destroy(ctx->world, ctx->entities[i]);
        }
    }
}

void tlp_burst_run(tlp_burst_ctx *ctx) {
    uint32_t made = 0;
    while (tlp_burst_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count && made < 8; i++) {
            if (ctx->hp[i].v < 0 && (mix(ctx->entities[i].id ^ ctx->seed->s) & 15u) == 0) {
                (void)tlp_entity_create_bundle(ctx->world,
                                               &(tlp_bundle){.pos = &(tlp_pos){(float)i, 0}, .spark = true});
                made++;
            }
        }
    }
}

void tlp_counter_run(tlp_counter_ctx *ctx) {
    ctx->tally->counted += tlp_burst_count(ctx->world);
}

void tlp_start_run(tlp_start_ctx *ctx) {
    while (tlp_start_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->vel[i].x = 0.5f + (float)(mix(ctx->entities[i].id) % 8u);
        }
    }
}

void tlp_stop_run(tlp_stop_ctx *ctx) {
    ctx->tally->exits++;
}

void tlp_menu_run(tlp_menu_ctx *ctx) {
    ctx->tally->menus++;
}

/* --- The test ------------------------------------------------------------------ */

/* A world of `threads` threads (chunks of 64 rows, so the split systems
 * split) after `steps` steps of random lengths from `seed`; its save. */
static unsigned char *played(uint32_t threads, uint32_t steps, uint32_t seed, size_t *size) {
    tlp_world *w = tlp_world_create(&(tlp_world_desc_t){.allocator = {fail_alloc, fail_realloc, fail_free, NULL},
                                                        .threads = threads,
                                                        .chunk_rows = 64});
    assert_non_null(w);
    tlp_entity out[1000];
    assert_int_equal(tlp_entity_create_many(w,
                                            &(tlp_bundle){.pos = &(tlp_pos){0, 0},
                                                          .vel = &(tlp_vel){1, 0},
                                                          .hp = &(tlp_hp){100}},
                                            1000, out),
                     STRATA_OK);
    uint32_t s = seed;
    for (uint32_t i = 0; i < steps; i++) {
        s = mix(s);
        assert_int_equal(tlp_world_step_ns(w, 1000000u + s % 60000000u), STRATA_OK); /* 1 to 61 ms */
    }
    assert_int_equal(tlp_world_save_mem(w, NULL, 0, size), STRATA_ERR_LIMIT);
    unsigned char *bytes = malloc(*size);
    assert_non_null(bytes);
    assert_int_equal(tlp_world_save_mem(w, bytes, *size, size), STRATA_OK);
    /* The run went through everything: transitions both ways, sparks made and gone. */
    const tlp_tally *tally = tlp_tally_res(w);
    assert_true(tally->exits > 0 && tally->menus > 0 && tally->counted > 0);
    tlp_world_destroy(w);
    assert_int_equal(atomic_load(&bytes_held), 0); /* everything went back through the hooks */
    return bytes;
}

static void test_thread_loop_same_world_at_1_to_8_threads(void **state) {
    (void)state;
    for (uint32_t seed = 1; seed <= 2; seed++) {
        size_t one_size = 0;
        unsigned char *one = played(1, 300, seed, &one_size);
        for (uint32_t threads = 2; threads <= 8; threads++) {
            size_t size = 0;
            unsigned char *other = played(threads, 300, seed, &size);
            assert_int_equal(size, one_size);
            assert_memory_equal(other, one, size);
            free(other);
        }
        free(one);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thread_loop_same_world_at_1_to_8_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* A component switching storage between a save and a load: a save of the
 * fire world (tests/schema/fire.yaml: Burning, Stunned, Selected, Aim
 * sparse) loads into fire2 (tests/schema/fire2.yaml: those in tables,
 * Position, Health and Frozen sparse) and back, binary and JSON, with every
 * entity's components and values, and no change reported. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fire.h"
#include "fire2.h"

/* The fire world's hooks and systems: none of them runs here. */
void fire_burning_on_add(fire_world *w, fire_entity e, fire_burning *value) {
    (void)w, (void)e, (void)value;
}
void fire_burning_on_remove(fire_world *w, fire_entity e, fire_burning *value) {
    (void)w, (void)e, (void)value;
}
void fire_burning_on_set(fire_world *w, fire_entity e, fire_burning *value) {
    (void)w, (void)e, (void)value;
}
void fire_burn_on_add(fire_world *w, fire_entity e, fire_burn_aspect *aspect) {
    (void)w, (void)e, (void)aspect;
}
void fire_burn_on_remove(fire_world *w, fire_entity e, fire_burn_aspect *aspect) {
    (void)w, (void)e, (void)aspect;
}
void fire_move_run(fire_move_ctx *ctx) {
    (void)ctx;
}
void fire_burn_run(fire_burn_ctx *ctx) {
    (void)ctx;
}
void fire_wake_run(fire_wake_ctx *ctx) {
    (void)ctx;
}

enum { N = 90 };

/* A fire world of N entities with a mix of components (entity i's values from i). */
static fire_world *fire_made(fire_entity *e) {
    fire_world *w = fire_world_create(NULL);
    assert_non_null(w);
    for (uint32_t i = 0; i < N; i++) {
        e[i] = fire_entity_create_bundle(w,
                                         &(fire_bundle){.position = i % 5 != 0 ? &(fire_position){(float)i, -1} : NULL,
                                                        .velocity = i % 2 == 0 ? &(fire_velocity){1, (float)i} : NULL,
                                                        .health = i % 3 == 0 ? &(fire_health){(int32_t)i} : NULL,
                                                        .burning = i % 4 == 0 ? &(fire_burning){(float)i / 4} : NULL,
                                                        .stunned = i % 7 == 0,
                                                        .selected = i % 11 == 0,
                                                        .frozen = i % 6 == 0});
        assert_true(e[i].id != 0);
    }
    for (uint32_t i = 0; i < N; i += 9) {
        assert_int_equal(fire_aim_add(w, e[i], (fire_aim){e[(i + 13) % N]}), STRATA_OK);
    }
    return w;
}

/* Every entity of the fire2 world has what fire_made gave it. */
static void fire2_holds(const fire2_world *w, const fire_entity *made) {
    for (uint32_t i = 0; i < N; i++) {
        fire2_entity e = {made[i].id};
        assert_true(fire2_entity_alive(w, e));
        assert_int_equal(fire2_position_has(w, e), i % 5 != 0);
        if (i % 5 != 0) {
            assert_float_equal(fire2_position_get(w, e)->x, (float)i, 0);
        }
        assert_int_equal(fire2_velocity_has(w, e), i % 2 == 0);
        assert_int_equal(fire2_health_has(w, e), i % 3 == 0);
        if (i % 3 == 0) {
            assert_int_equal(fire2_health_get(w, e)->value, (int32_t)i);
        }
        assert_int_equal(fire2_burning_has(w, e), i % 4 == 0);
        if (i % 4 == 0) {
            assert_float_equal(fire2_burning_get(w, e)->heat, (float)i / 4, 0);
        }
        assert_int_equal(fire2_stunned_has(w, e), i % 7 == 0);
        assert_int_equal(fire2_selected_has(w, e), i % 11 == 0);
        assert_int_equal(fire2_frozen_has(w, e), i % 6 == 0);
        assert_int_equal(fire2_aim_has(w, e), i % 9 == 0);
        if (i % 9 == 0) {
            assert_int_equal(fire2_aim_get(w, e)->at.id, made[(i + 13) % N].id);
        }
    }
}

static void test_sparse_evolve_binary_both_ways(void **state) {
    (void)state;
    fire_entity e[N];
    fire_world *w = fire_made(e);
    size_t size = 0;
    assert_int_equal(fire_world_save_mem(w, NULL, 0, &size), STRATA_ERR_LIMIT);
    unsigned char *bytes = malloc(size);
    assert_int_equal(fire_world_save_mem(w, bytes, size, &size), STRATA_OK);
    fire2_world *other = fire2_world_create(NULL);
    fire2_load_report_t report;
    assert_int_equal(fire2_world_load_mem(other, bytes, size, &report), STRATA_OK);
    assert_int_equal(report.change_count, 0);
    fire2_holds(other, e);
    assert_int_equal(fire2_dazed_count(other), fire_dazed_count(w));
    /* And back: fire2's save into a fresh fire world, the same save as the first. */
    size_t back_size = 0;
    assert_int_equal(fire2_world_save_mem(other, NULL, 0, &back_size), STRATA_ERR_LIMIT);
    unsigned char *back = malloc(back_size);
    assert_int_equal(fire2_world_save_mem(other, back, back_size, &back_size), STRATA_OK);
    fire_world *again = fire_world_create(NULL);
    assert_int_equal(fire_world_load_mem(again, back, back_size, &report), STRATA_OK);
    assert_int_equal(report.change_count, 0);
    fire_entity x = {e[44].id};
    assert_true(fire_burning_has(again, x));
    assert_true(fire_selected_has(again, x));
    assert_int_equal(fire_burners_count(again), fire_burners_count(w));
    assert_int_equal(fire_picked_count(again), fire_picked_count(w));
    free(back);
    free(bytes);
    fire_world_destroy(again);
    fire2_world_destroy(other);
    fire_world_destroy(w);
}

static void test_sparse_evolve_json_both_ways(void **state) {
    (void)state;
    fire_entity e[N];
    fire_world *w = fire_made(e);
    size_t size = 0;
    assert_int_equal(fire_world_dump_json_mem(w, NULL, 0, &size), STRATA_ERR_LIMIT);
    char *text = malloc(size + 1);
    assert_int_equal(fire_world_dump_json_mem(w, text, size + 1, &size), STRATA_OK);
    fire2_world *other = fire2_world_create(NULL);
    assert_int_equal(fire2_world_load_json_mem(other, text, size, NULL), STRATA_OK);
    fire2_holds(other, e);
    size_t back_size = 0;
    assert_int_equal(fire2_world_dump_json_mem(other, NULL, 0, &back_size), STRATA_ERR_LIMIT);
    char *back = malloc(back_size + 1);
    assert_int_equal(fire2_world_dump_json_mem(other, back, back_size + 1, &back_size), STRATA_OK);
    fire_world *again = fire_world_create(NULL);
    assert_int_equal(fire_world_load_json_mem(again, back, back_size, NULL), STRATA_OK);
    assert_int_equal(fire_burners_count(again), fire_burners_count(w));
    assert_int_equal(fire_dazed_count(again), fire_dazed_count(w));
    free(back);
    free(text);
    fire_world_destroy(again);
    fire2_world_destroy(other);
    fire_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_evolve_binary_both_ways),
        cmocka_unit_test(test_sparse_evolve_json_both_ways),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

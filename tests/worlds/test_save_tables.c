/* Room made ahead and tables given back, through the generated API of
 * tests/schema/save.yaml: <world>_reserve_<assemblage>, _reserve_bundle and
 * _reserve_entities make room the spawns and adds after them do not grow
 * (out of memory: an error and the world as it was); <world>_world_free_empty_tables
 * and desc.free_empty_tables_after free the archetypes left without rows,
 * and a world whose tables were freed and renumbered saves, loads and
 * follows its entity references as before. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "save.h"
#include "test_alloc.h"

/* --- Helpers -------------------------------------------------------------- */

static save_world *counted_world(uint32_t free_after) {
    save_world_desc_t d = {.allocator = {counting_alloc, counting_resize, test_release, NULL},
                           .free_empty_tables_after = free_after};
    save_world *w = save_world_create(&d);
    assert_non_null(w);
    return w;
}

static uint32_t tables_of(const save_world *w) {
    save_world_stats_t s;
    save_world_stats(w, &s);
    return s.tables;
}

static unsigned char *save_bytes(const save_world *w, size_t *size) {
    assert_int_equal(save_world_save_mem(w, NULL, 0, size), STRATA_ERR_LIMIT);
    unsigned char *bytes = malloc(*size);
    assert_non_null(bytes);
    assert_int_equal(save_world_save_mem(w, bytes, *size, size), STRATA_OK);
    return bytes;
}

/* --- Reserving ------------------------------------------------------------- */

static void test_save_tables_reserve_assemblage_then_spawn_allocates_nothing(void **state) {
    (void)state;
    enum { N = 3000 };
    save_world *w = counted_world(0);
    static save_entity out[N];
    assert_int_equal(save_reserve_hero(w, N), STRATA_OK);
    long before = allocations;
    assert_int_equal(save_spawn_hero_many(w, N / 2, out), STRATA_OK);
    for (uint32_t i = N / 2; i < N; i++) {
        out[i] = save_spawn_hero(w);
        assert_false(save_entity_eq(out[i], SAVE_ENTITY_NULL));
    }
    assert_int_equal(allocations, before);
    assert_int_equal(save_health_get(w, out[N - 1])->max, 300);
    save_world_destroy(w);
}

static void test_save_tables_reserve_bundle_then_adds_allocate_nothing(void **state) {
    (void)state;
    enum { N = 2000 };
    save_world *w = counted_world(0);
    static save_entity e[N];
    assert_int_equal(save_spawn_mover_many(w, N, e), STRATA_OK);
    save_bundle b = {.position = &(save_position){0, 0}, .velocity = &SAVE_VELOCITY_DEFAULT, .frozen = true};
    assert_int_equal(save_reserve_bundle(w, &b, N), STRATA_OK);
    assert_int_equal(save_frozen_add(w, e[0]), STRATA_OK); /* the edge, made once */
    long before = allocations;
    for (uint32_t i = 1; i < N; i++) {
        assert_int_equal(save_frozen_add(w, e[i]), STRATA_OK);
    }
    assert_int_equal(allocations, before);
    /* Creates with no component: their records, and rows of the empty
     * archetype (an empty bundle's). */
    assert_int_equal(save_reserve_entities(w, N), STRATA_OK);
    assert_int_equal(save_reserve_bundle(w, &(save_bundle){0}, N), STRATA_OK);
    before = allocations;
    for (uint32_t i = 0; i < N; i++) {
        assert_false(save_entity_eq(save_entity_create(w), SAVE_ENTITY_NULL));
    }
    assert_int_equal(allocations, before);
    save_world_destroy(w);
}

/* Each allocation of a reserve fails in turn: an error, and nothing to
 * see (no table made, no entity); then it succeeds. */
static void test_save_tables_reserve_out_of_memory_changes_nothing(void **state) {
    (void)state;
    save_world_desc_t d = {.allocator = {failing_alloc, failing_resize, test_release, NULL}};
    int fails = 0;
    for (int k = 0;; k++) {
        budget = 1 << 20;
        save_world *w = save_world_create(&d);
        assert_non_null(w);
        save_entity e = save_spawn_mover(w);
        save_world_stats_t before, after;
        save_world_stats(w, &before);
        budget = k;
        save_result_t r = save_reserve_rock(w, 5000);
        budget = 1 << 20;
        save_world_stats(w, &after);
        if (r == STRATA_OK) {
            assert_int_equal(after.tables, before.tables + 1);
            save_world_destroy(w);
            break;
        }
        fails++;
        assert_int_equal(r, STRATA_ERR_NOMEM);
        assert_int_equal(after.tables, before.tables);
        assert_int_equal(after.entities, before.entities);
        assert_true(save_entity_alive(w, e));
        assert_non_null(save_position_get(w, e));
        save_world_destroy(w);
    }
    assert_true(fails >= 3);
}

/* --- Freeing ---------------------------------------------------------------- */

/* Archetypes made and emptied, freed (the kept ones renumbered): the
 * world holds the tables of one that never made them, saves, loads into
 * the same bytes, and its entity references still name the same entities. */
static void test_save_tables_saves_after_frees_load_the_same(void **state) {
    (void)state;
    save_world *w = counted_world(0), *plain = counted_world(0);
    save_entity keep[2], other[2], gone[16];
    for (int i = 0; i < 16; i++) {
        gone[i] = save_entity_create(w);
        save_health_add(w, gone[i], (save_health){i, 100});
        for (int b = 0; b < 4; b++) {
            if (i >> b & 1) {
                (void)(b == 0   ? save_frozen_add(w, gone[i])
                       : b == 1 ? save_legacy_add(w, gone[i])
                       : b == 2 ? save_old_add(w, gone[i], SAVE_OLD_DEFAULT)
                                : save_velocity_add(w, gone[i], SAVE_VELOCITY_DEFAULT));
            }
        }
    }
    save_world *both[2] = {w, plain};
    for (int k = 0; k < 2; k++) {
        save_entity *mine = k == 0 ? keep : other;
        mine[0] = save_spawn_hero(both[k]);
        mine[1] = save_spawn_rock(both[k]);
        assert_int_equal(save_target_add(both[k], mine[1], (save_target){mine[0], 1.5f}), STRATA_OK);
    }
    for (int i = 0; i < 16; i++) {
        assert_int_equal(save_entity_destroy(w, gone[i]), STRATA_OK);
    }
    uint32_t made = tables_of(w);
    assert_true(save_world_free_empty_tables(w) >= 10);
    assert_true(tables_of(w) < made);
    assert_int_equal(save_world_free_empty_tables(plain), 1); /* the Rock's, left by the Target add */
    assert_int_equal(tables_of(w), tables_of(plain));
    assert_int_equal(save_target_get(w, keep[1])->who.id, keep[0].id);
    /* Saved, loaded, saved again: the same bytes, the same references. */
    size_t size = 0;
    unsigned char *bytes = save_bytes(w, &size);
    save_world *loaded = counted_world(0);
    assert_int_equal(save_world_load_mem(loaded, bytes, size, NULL), STRATA_OK);
    size_t again_size = 0;
    unsigned char *again = save_bytes(loaded, &again_size);
    assert_int_equal(again_size, size);
    assert_memory_equal(again, bytes, size);
    assert_int_equal(save_target_get(loaded, keep[1])->who.id, keep[0].id);
    assert_int_equal(save_health_get(loaded, keep[0])->max, 300);
    assert_true(save_frozen_has(loaded, keep[1]));
    /* Adds after the free make the freed archetypes again. */
    save_entity e = save_entity_create(w);
    assert_int_equal(save_health_add(w, e, (save_health){1, 2}), STRATA_OK);
    assert_int_equal(save_frozen_add(w, e), STRATA_OK);
    assert_int_equal(tables_of(w), tables_of(plain) + 2);
    free(bytes);
    free(again);
    save_world_destroy(loaded);
    save_world_destroy(plain);
    save_world_destroy(w);
}

/* desc.free_empty_tables_after: the step that leaves an archetype empty
 * for that many steps frees it; the policy survives a load. */
static void test_save_tables_policy_frees_at_a_steps_end(void **state) {
    (void)state;
    save_world *w = counted_world(1);
    save_entity a = save_spawn_rock(w), b = save_spawn_hero(w);
    uint32_t tables = tables_of(w);
    assert_int_equal(save_entity_destroy(w, a), STRATA_OK);
    assert_int_equal(tables_of(w), tables);
    assert_int_equal(save_world_step(w, 0.0f), STRATA_OK);
    assert_int_equal(tables_of(w), tables - 1);
    size_t size = 0;
    unsigned char *bytes = save_bytes(w, &size);
    assert_int_equal(save_world_load_mem(w, bytes, size, NULL), STRATA_OK);
    free(bytes);
    tables = tables_of(w);
    assert_int_equal(save_name_remove(w, b), STRATA_OK); /* {Mover, Health, Name} empties */
    assert_int_equal(save_world_step(w, 0.0f), STRATA_OK);
    assert_int_equal(tables_of(w), tables); /* one made, one freed */
    assert_int_equal(save_health_get(w, b)->max, 300);
    save_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_save_tables_reserve_assemblage_then_spawn_allocates_nothing),
        cmocka_unit_test(test_save_tables_reserve_bundle_then_adds_allocate_nothing),
        cmocka_unit_test(test_save_tables_reserve_out_of_memory_changes_nothing),
        cmocka_unit_test(test_save_tables_saves_after_frees_load_the_same),
        cmocka_unit_test(test_save_tables_policy_frees_at_a_steps_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_rel_tables.c: freeing empty tables beside a saved cascade pass
 * (tests/schema/rel.yaml). A free renumbers tables, so a table id the
 * saved pass noted may name another table afterwards; the pass must not
 * replay over it, even when that other table has the same row count and
 * has never lost a row (what the pass's stamps compare). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rel.h"
#include "strata_internal.h" /* table ids, to set the trap the test is about */

void rel_spread_run(rel_spread_ctx *ctx) {
    while (rel_spread_next(ctx)) {}
}

void rel_guard_on_remove(rel_world *w, rel_entity e) {
    (void)w;
    (void)e;
}

enum { KIDS = 40 };

/* One pass of Propagate: each child's batch gives its own parent's Global. */
static uint32_t pass(rel_world *w) {
    uint32_t visited = 0;
    for (rel_propagate_iter it = rel_propagate_begin(w); rel_propagate_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++, visited++) {
            if (it.child_of != NULL && it.child_of[i].depth_ > 0) {
                assert_non_null(it.up.row);
                assert_ptr_equal(&it.up.global[it.up.row[i]], rel_global_get(w, it.child_of[i].target));
            }
        }
    }
    return visited;
}

/* The table id of e. */
static uint32_t table_of(rel_world *w, rel_entity e) {
    const sti_record_t *rec = sti_record_lookup(rel_world_core(w), e.id);
    assert_non_null(rec);
    return rec->table;
}

/* An entity of a table the pass does not visit (no Local), kept. */
static rel_entity elsewhere(rel_world *w, bool leash) {
    const rel_global g = {0};
    const rel_leash l = {REL_ENTITY_NULL};
    const rel_note n = {REL_ENTITY_NULL};
    rel_bundle b = {.global = &g, .leash = leash ? &l : NULL, .note = leash ? NULL : &n};
    rel_entity e = rel_entity_create_bundle(w, &b);
    assert_false(rel_entity_eq(e, REL_ENTITY_NULL));
    return e;
}

/* A pass saves itself over {parents} and {children} (ids 1 and 5); the
 * free takes ids 2 to 4 and moves the children's table to 2; new tables
 * take 3, 4 and 5, the last with the children in the other order,
 * appended only and no link changed: the stamp of id 5 (its count, no row
 * moved) holds for it. The pass after must not replay the old runs (each
 * row would get another row's parent). */
static void test_rel_tables_a_free_renumbers_tables_under_a_saved_cascade(void **state) {
    (void)state;
    rel_world *w = rel_world_create(NULL);
    assert_non_null(w);
    rel_entity parents[KIDS], kids[KIDS];
    for (uint32_t i = 0; i < KIDS; i++) {
        parents[i] = rel_entity_create_bundle(w, &(rel_bundle){.local = &(rel_local){(float)i, 0},
                                                               .global = &(rel_global){0}});
    }
    /* Three tables the pass matches, left empty (ids 2, 3, 4). */
    rel_bundle empties[3] = {
        {.local = &(rel_local){0}, .note = &(rel_note){REL_ENTITY_NULL}},
        {.local = &(rel_local){0}, .leash = &(rel_leash){REL_ENTITY_NULL}},
        {.local = &(rel_local){0}, .aim = &(rel_aim){REL_ENTITY_NULL}},
    };
    for (int k = 0; k < 3; k++) {
        rel_entity e = rel_entity_create_bundle(w, &empties[k]);
        assert_int_equal(table_of(w, e), 2 + k);
        assert_int_equal(rel_entity_destroy(w, e), STRATA_OK);
    }
    for (uint32_t i = 0; i < KIDS; i++) {
        kids[i] = rel_entity_create_bundle(w, &(rel_bundle){.local = &(rel_local){1, 1},
                                                            .global = &(rel_global){0},
                                                            .child_of = &(rel_child_of){.target = parents[i]}});
    }
    assert_int_equal(table_of(w, kids[0]), 5);
    for (int k = 0; k < 3; k++) { /* built, saved, replayed */
        assert_int_equal(pass(w), 2 * KIDS);
    }
    assert_int_equal(rel_world_free_empty_tables(w), 3);
    assert_int_equal(table_of(w, kids[0]), 2);
    assert_int_equal(table_of(w, elsewhere(w, false)), 3);
    assert_int_equal(table_of(w, elsewhere(w, true)), 4);
    /* The children move, last first, to {.., Note}: id 5, appended only, as many rows. */
    for (uint32_t i = KIDS; i-- > 0;) {
        assert_int_equal(rel_note_add(w, kids[i], (rel_note){REL_ENTITY_NULL}), STRATA_OK);
    }
    assert_int_equal(table_of(w, kids[0]), 5);
    assert_int_equal(table_of(w, kids[KIDS - 1]), 5);
    assert_int_equal(pass(w), 2 * KIDS);
    assert_int_equal(pass(w), 2 * KIDS);
    rel_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rel_tables_a_free_renumbers_tables_under_a_saved_cascade),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

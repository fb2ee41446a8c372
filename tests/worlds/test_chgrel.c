/* Tests of `changed` sets and the cascade sort (tests/schema/chgrel.yaml):
 * a cascade query reorders a table's rows by depth, and each row's mark
 * goes with it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "chgrel.h"

static int setup(void **state) {
    *state = chgrel_world_create(NULL);
    return *state == NULL;
}

static int teardown(void **state) {
    chgrel_world_destroy(*state);
    return 0;
}

/* Visit Seen to its end, the handles in out; each carries its own Pos (x: its index). */
static uint32_t visit(chgrel_world *w, chgrel_entity *out) {
    uint32_t n = 0;
    for (chgrel_seen_iter it = chgrel_seen_begin(w); chgrel_seen_next(&it);) {
        assert_true(it.pos[0].x == (float)chgrel_entity_index(it.entities[0]));
        out[n++] = it.entities[0];
    }
    return n;
}

static void test_chgrel_marks_follow_the_cascade_sort(void **state) {
    chgrel_world *w = *state;
    chgrel_entity e[4], got[4];
    for (uint32_t i = 0; i < 4; i++) {
        e[i] = chgrel_entity_create(w);
        assert_int_equal(chgrel_pos_add(w, e[i], (chgrel_pos){(float)chgrel_entity_index(e[i]), 0}), STRATA_OK);
    }
    assert_int_equal(visit(w, got), 4);
    /* Linked bottom-up, the children's table holds e[3], e[2], e[1]: the
     * deepest first, so the cascade sorts it (e[1], e[2], e[3]). */
    assert_int_equal(chgrel_child_of_set(w, e[3], e[2]), STRATA_OK);
    assert_int_equal(chgrel_child_of_set(w, e[2], e[1]), STRATA_OK);
    assert_int_equal(chgrel_child_of_set(w, e[1], e[0]), STRATA_OK);
    assert_int_equal(chgrel_child_of_depth(w, e[3]), 3);
    /* Rows 0 and 1 marked: e[3] and e[2]. */
    for (uint32_t i = 2; i < 4; i++) {
        assert_int_equal(chgrel_pos_set(w, e[i], (chgrel_pos){(float)chgrel_entity_index(e[i]), 1}), STRATA_OK);
    }
    uint32_t order = 0;
    for (chgrel_tree_iter it = chgrel_tree_begin(w); chgrel_tree_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++, order++) {
            assert_true(chgrel_entity_eq(it.entities[i], e[order])); /* parents first */
        }
    }
    assert_int_equal(order, 4);
    assert_int_equal(chgrel_seen_changed_count(w), 2);
    assert_int_equal(visit(w, got), 2);
    /* Row order after the sort: e[2] (row 1), then e[3] (row 2). */
    assert_true(chgrel_entity_eq(got[0], e[2]));
    assert_true(chgrel_entity_eq(got[1], e[3]));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_chgrel_marks_follow_the_cascade_sort, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

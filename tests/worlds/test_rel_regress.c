/* test_rel_regress.c: runtime bugs the differential fuzz test
 * (tests/fuzz/diff.c) found in relations, each kept as the smallest case
 * that showed it. The world is tests/schema/rel.yaml. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_alloc.h"

#include "rel.h"

/* The world's system and hook: not used here. */
void rel_spread_run(rel_spread_ctx *ctx) {
    while (rel_spread_next(ctx)) {}
}

void rel_guard_on_remove(rel_world *w, rel_entity e) {
    (void)w;
    (void)e;
}

static rel_entity make_local(rel_world *w) {
    rel_entity e = rel_entity_create_bundle(w, &(rel_bundle){.local = &(rel_local){1, 2}, .global = &(rel_global){0}});
    assert_false(rel_entity_eq(e, REL_ENTITY_NULL));
    return e;
}

/* Destroys scheduled in a step that cover a whole table (here every
 * parent, in row order) were applied by freeing the table's rows at once,
 * which skipped the relations' policies: the children outlived their
 * parents, linked to dead handles, and Aim kept naming a dead entity. */
static void test_rel_scheduled_destroys_of_a_whole_table_apply_policies(void **state) {
    (void)state;
    rel_world *w = rel_world_create(&(rel_world_desc_t){.allocator = {test_alloc, test_resize, test_release, NULL}});
    assert_non_null(w);
    rel_entity p1 = make_local(w), p2 = make_local(w); /* the only rows of {Local} */
    rel_entity c1 = rel_entity_create(w), c2 = rel_entity_create(w), aim = rel_entity_create(w);
    assert_int_equal(rel_child_of_set(w, c1, p1), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, c2, p2), STRATA_OK);
    assert_int_equal(rel_aim_add(w, aim, (rel_aim){p2}), STRATA_OK);
    strata_world_t *core = rel_world_core(w);
    strata_step_begin(core);
    assert_int_equal(rel_entity_destroy(w, p1), STRATA_OK);
    assert_int_equal(rel_entity_destroy(w, p2), STRATA_OK);
    assert_int_equal(strata_step_end(core), STRATA_OK);
    assert_false(rel_entity_alive(w, p1));
    assert_false(rel_entity_alive(w, p2));
    assert_false(rel_entity_alive(w, c1)); /* ChildOf: on_target_destroy: destroy */
    assert_false(rel_entity_alive(w, c2));
    assert_true(rel_entity_eq(rel_aim_get(w, aim)->who, REL_ENTITY_NULL)); /* Aim.who: clear */
    rel_world_destroy(w);
}

/* Out of memory for its list of batches, a cascade pass visited nothing;
 * it now walks the tables once per depth, parents still first. */
static void test_rel_cascade_out_of_memory_still_visits_parents_first(void **state) {
    (void)state;
    enum { N = 40 };
    budget = 1 << 20;
    rel_world_desc_t desc = {.allocator = {failing_alloc, failing_resize, test_release, NULL}};
    rel_world *w = rel_world_create(&desc);
    assert_non_null(w);
    rel_entity e[N];
    for (int i = 0; i < N; i++) {
        e[i] = make_local(w);
        /* A chain, each linked to the one made before, in another table than its parent every other time. */
        if (i > 0) {
            assert_int_equal(rel_child_of_set(w, e[i], e[i - 1]), STRATA_OK);
        }
        if (i % 2) {
            assert_int_equal(rel_guard_add(w, e[i]), STRATA_OK);
        }
    }
    for (int fail_after = 0; fail_after < 4; fail_after++) {
        budget = fail_after;
        uint32_t seen = 0;
        int32_t last = -1;
        for (rel_propagate_iter it = rel_propagate_begin(w); rel_propagate_next(&it);) {
            for (uint32_t i = 0; i < it.count; i++) {
                int32_t depth = rel_child_of_depth(w, it.entities[i]);
                assert_true(depth >= last); /* a chain: depths come in order */
                last = depth;
                seen++;
            }
        }
        budget = 1 << 20;
        assert_int_equal(seen, N);
    }
    rel_world_destroy(w);
}

/* The changes a destroy's policies record (here: destroy each child) were
 * recorded from inside the destroy, which cannot fail: out of memory, they
 * were lost, and the children outlived their parent. The destroy now makes
 * room for them first, and waits (STRATA_ERR_NOMEM, or a settle that
 * stops) when it cannot: at once, deferred, and at a step's end. */
static void test_rel_destroy_out_of_memory_loses_no_policy(void **state) {
    (void)state;
    enum { KIDS = 6 };
    for (int how = 0; how < 3; how++) {
        for (int fail_after = 0; fail_after < 24; fail_after++) {
            budget = 1 << 20;
            rel_world_desc_t desc = {.allocator = {failing_alloc, failing_resize, test_release, NULL},
                                     .initial_capacity = 1};
            rel_world *w = rel_world_create(&desc);
            assert_non_null(w);
            strata_world_t *core = rel_world_core(w);
            rel_entity parent = make_local(w), kids[KIDS];
            for (int i = 0; i < KIDS; i++) {
                kids[i] = make_local(w);
                assert_int_equal(rel_child_of_set(w, kids[i], parent), STRATA_OK);
            }
            budget = fail_after;
            if (how == 0) {
                (void)rel_entity_destroy(w, parent);
            } else if (how == 1) {
                strata_defer_begin(core);
                (void)rel_entity_destroy(w, parent);
                (void)strata_defer_end(core);
            } else {
                strata_step_begin(core);
                (void)rel_entity_destroy(w, parent);
                (void)strata_step_end(core);
            }
            budget = 1 << 20;
            strata_defer_begin(core); /* what a failed settle kept */
            assert_int_equal(strata_defer_end(core), STRATA_OK);
            bool alive = rel_entity_alive(w, parent);
            for (int i = 0; i < KIDS; i++) {
                assert_int_equal(rel_entity_alive(w, kids[i]), alive);
                assert_true(!alive || rel_entity_eq(rel_child_of_target(w, kids[i]), parent));
            }
            rel_world_destroy(w);
        }
    }
}

/* An add (or bundle) of ChildOf to an entity that already had it wrote the
 * new target without filing it again: the index still listed the entity
 * under its old parent, and the old parent's destroy killed it. An
 * overwrite of a link is now a re-link, now or when a step replays it; one
 * that would close a cycle is dropped, as a fresh add's is. */
static void test_rel_add_over_a_link_files_it_again(void **state) {
    (void)state;
    rel_world *w = rel_world_create(&(rel_world_desc_t){.allocator = {test_alloc, test_resize, test_release, NULL}});
    assert_non_null(w);
    rel_entity p1 = make_local(w), p2 = make_local(w), c = make_local(w), g = make_local(w);
    assert_int_equal(rel_child_of_set(w, c, p1), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, g, c), STRATA_OK);
    assert_int_equal(rel_entity_add_bundle(w, c, &(rel_bundle){.child_of = &(rel_child_of){.target = p2}}), STRATA_OK);
    uint32_t n = 9;
    (void)rel_child_of_sources(w, p1, &n);
    assert_int_equal(n, 0);
    const rel_entity *under = rel_child_of_sources(w, p2, &n);
    assert_int_equal(n, 1);
    assert_true(rel_entity_eq(under[0], c));
    assert_int_equal(rel_child_of_depth(w, g), 2);
    /* With another component in the same add (a move to another table). */
    assert_int_equal(rel_entity_add_bundle(w, c,
                                           &(rel_bundle){.child_of = &(rel_child_of){.target = p1},
                                                         .aim = &(rel_aim){p2}}),
                     STRATA_OK);
    (void)rel_child_of_sources(w, p2, &n);
    assert_int_equal(n, 0);
    (void)rel_child_of_sources(w, p1, &n);
    assert_int_equal(n, 1);
    /* Replayed at a step's end. */
    strata_world_t *core = rel_world_core(w);
    strata_step_begin(core);
    assert_int_equal(rel_entity_add_bundle(w, c, &(rel_bundle){.child_of = &(rel_child_of){.target = p2}}), STRATA_OK);
    assert_int_equal(strata_step_end(core), STRATA_OK);
    (void)rel_child_of_sources(w, p1, &n);
    assert_int_equal(n, 0);
    assert_true(rel_entity_eq(rel_child_of_target(w, c), p2));
    /* A link that would close a cycle (c under its own child g) is dropped. */
    assert_int_equal(rel_entity_add_bundle(w, c, &(rel_bundle){.child_of = &(rel_child_of){.target = g}}), STRATA_OK);
    assert_true(rel_entity_eq(rel_child_of_target(w, c), REL_ENTITY_NULL));
    (void)rel_child_of_sources(w, p2, &n);
    assert_int_equal(n, 0);
    assert_int_equal(rel_child_of_depth(w, g), 1);
    /* The old parents' destroys leave c alone; its new parent's kills it. */
    assert_int_equal(rel_child_of_set(w, c, p2), STRATA_OK);
    assert_int_equal(rel_entity_destroy(w, p1), STRATA_OK);
    assert_true(rel_entity_alive(w, c));
    assert_int_equal(rel_entity_destroy(w, p2), STRATA_OK);
    assert_false(rel_entity_alive(w, c));
    assert_false(rel_entity_alive(w, g));
    rel_world_destroy(w);
}

/* The first link of a non-exclusive relation, out of memory while its
 * by-index arrays were still unmade: the add took the address of the
 * entity's list in a NULL array before it checked the growth (undefined
 * behaviour, caught by UBSan in the fuzz test). It now returns
 * STRATA_ERR_NOMEM with nothing linked, and links once memory is back. */
static void test_rel_first_link_out_of_memory_before_the_index_is_made(void **state) {
    (void)state;
    budget = 1 << 20;
    rel_world *w = rel_world_create(
        &(rel_world_desc_t){.allocator = {failing_alloc, failing_resize, test_release, NULL}});
    assert_non_null(w);
    rel_entity a = rel_entity_create(w), b = rel_entity_create(w);
    assert_int_equal(rel_entity_index(a), 0); /* the list at index 0: a zero offset into NULL */
    budget = 0;
    assert_int_equal(rel_targets_add(w, a, b), STRATA_ERR_NOMEM);
    budget = 1 << 20;
    assert_false(rel_targets_has(w, a, b));
    uint32_t n = 1;
    (void)rel_targets_targets(w, a, &n);
    assert_int_equal(n, 0);
    assert_int_equal(rel_targets_add(w, a, b), STRATA_OK);
    assert_true(rel_targets_has(w, a, b));
    (void)rel_targets_sources(w, b, &n);
    assert_int_equal(n, 1);
    rel_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rel_scheduled_destroys_of_a_whole_table_apply_policies),
        cmocka_unit_test(test_rel_cascade_out_of_memory_still_visits_parents_first),
        cmocka_unit_test(test_rel_destroy_out_of_memory_loses_no_policy),
        cmocka_unit_test(test_rel_add_over_a_link_files_it_again),
        cmocka_unit_test(test_rel_first_link_out_of_memory_before_the_index_is_made),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

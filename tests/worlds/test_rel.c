/* Tests of relations (tests/schema/rel.yaml): links and the index of
 * sources, cycles, the policies a target's destroy applies (now, deferred in
 * iterators and steps, from inside hooks), entity fields with policies,
 * stale handles, allocation failures, and links in saves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_alloc.h"

#include "rel.h"

/* --- The world's system and hook, steered by the test running ------------- */

static struct {
    bool spread_reparents;   /* Spread moves each child it sees under `to` */
    bool spread_destroys;    /* Spread destroys each child's parent */
    rel_entity to;           /* where Spread reparents */
    bool guard_kills_parent; /* Guard's on_remove destroys the entity's parent */
    uint32_t guard_calls;
} sys;

void rel_spread_run(rel_spread_ctx *ctx) {
    while (rel_spread_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->local[i].x += 1;
            if (sys.spread_reparents) {
                assert_int_equal(rel_child_of_set(ctx->world, ctx->entities[i], sys.to), STRATA_OK);
            }
            if (sys.spread_destroys) {
                (void)rel_entity_destroy(ctx->world, ctx->child_of[i].target);
            }
        }
    }
}

void rel_guard_on_remove(rel_world *w, rel_entity e) {
    sys.guard_calls++;
    if (sys.guard_kills_parent) {
        rel_entity parent = rel_child_of_target(w, e);
        if (!rel_entity_eq(parent, REL_ENTITY_NULL)) {
            (void)rel_entity_destroy(w, parent);
        }
    }
}

static int setup(void **state) {
    memset(&sys, 0, sizeof sys);
    /* cmocka checks its blocks before teardown: this world uses libc's. */
    *state = rel_world_create(NULL);
    return *state == NULL;
}

static int teardown(void **state) {
    rel_world_destroy(*state);
    return 0;
}

static rel_entity make(rel_world *w) {
    rel_entity e = rel_entity_create(w);
    assert_false(rel_entity_eq(e, REL_ENTITY_NULL));
    return e;
}

/* True if `e` is among the n handles at list. */
static bool listed(const rel_entity *list, uint32_t n, rel_entity e) {
    for (uint32_t i = 0; i < n; i++) {
        if (rel_entity_eq(list[i], e)) {
            return true;
        }
    }
    return false;
}

/* The number of sources of `t` in ChildOf. */
static uint32_t children(const rel_world *w, rel_entity t) {
    uint32_t n = 99;
    (void)rel_child_of_sources(w, t, &n);
    return n;
}

/* Every entity with a ChildOf link is filed under its target, once; every
 * filed source links to that target. */
static void check_index(rel_world *w, const rel_entity *all, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        if (!rel_entity_alive(w, all[i])) {
            continue;
        }
        uint32_t count = 0;
        const rel_entity *below = rel_child_of_sources(w, all[i], &count);
        for (uint32_t k = 0; k < count; k++) {
            assert_true(rel_entity_eq(rel_child_of_target(w, below[k]), all[i]));
        }
        rel_entity up = rel_child_of_target(w, all[i]);
        if (!rel_entity_eq(up, REL_ENTITY_NULL) && rel_entity_alive(w, up)) {
            below = rel_child_of_sources(w, up, &count);
            uint32_t seen = 0;
            for (uint32_t k = 0; k < count; k++) {
                seen += rel_entity_eq(below[k], all[i]);
            }
            assert_int_equal(seen, 1);
        }
    }
}

/* --- Links ------------------------------------------------------------------- */

static void test_rel_set_target_sources_depth(void **state) {
    rel_world *w = *state;
    rel_entity root = make(w), a = make(w), b = make(w), c = make(w);
    assert_int_equal(rel_child_of_set(w, a, root), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, b, root), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, c, a), STRATA_OK);
    assert_true(rel_entity_eq(rel_child_of_target(w, a), root));
    assert_true(rel_child_of_has(w, c));
    assert_false(rel_child_of_has(w, root));
    uint32_t n = 0;
    const rel_entity *kids = rel_child_of_sources(w, root, &n);
    assert_int_equal(n, 2);
    assert_true(listed(kids, n, a) && listed(kids, n, b));
    assert_int_equal(rel_child_of_depth(w, root), 0);
    assert_int_equal(rel_child_of_depth(w, a), 1);
    assert_int_equal(rel_child_of_depth(w, c), 2);
    /* Reparenting moves c from a's sources to b's. */
    assert_int_equal(rel_child_of_set(w, c, b), STRATA_OK);
    assert_int_equal(children(w, a), 0);
    assert_int_equal(children(w, b), 1);
    assert_int_equal(rel_child_of_remove(w, c), STRATA_OK);
    assert_int_equal(children(w, b), 0);
    assert_int_equal(rel_child_of_remove(w, c), STRATA_ERR_MISSING);
    assert_int_equal(rel_child_of_depth(w, c), 0);
    rel_entity all[] = {root, a, b, c};
    check_index(w, all, 4);
}

static void test_rel_cycles_and_self_links_are_refused(void **state) {
    rel_world *w = *state;
    rel_entity a = make(w), b = make(w), c = make(w);
    assert_int_equal(rel_child_of_set(w, a, a), STRATA_ERR_CYCLE);
    assert_int_equal(rel_child_of_set(w, b, a), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, c, b), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, a, c), STRATA_ERR_CYCLE);
    assert_int_equal(rel_child_of_set(w, a, b), STRATA_ERR_CYCLE);
    assert_false(rel_child_of_has(w, a));
    /* Another relation is its own forest. */
    assert_int_equal(rel_pinned_set(w, a, c), STRATA_OK);
    assert_int_equal(rel_pinned_set(w, c, c), STRATA_ERR_CYCLE);
    assert_string_equal(strata_result_str(STRATA_ERR_CYCLE), "link would close a cycle");
}

static void test_rel_deferred_cycle_is_dropped_when_applied(void **state) {
    rel_world *w = *state;
    rel_entity a = make(w), b = make(w);
    strata_defer_begin(rel_world_core(w));
    /* Each is fine when recorded; together they would close a cycle. */
    assert_int_equal(rel_child_of_set(w, a, b), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, b, a), STRATA_OK);
    assert_false(rel_child_of_has(w, a));
    assert_int_equal(strata_defer_end(rel_world_core(w)), STRATA_OK);
    assert_true(rel_entity_eq(rel_child_of_target(w, a), b));
    assert_false(rel_child_of_has(w, b)); /* as if its link had never been recorded */
    rel_entity all[] = {a, b};
    check_index(w, all, 2);
}

static void test_rel_data_on_the_link(void **state) {
    rel_world *w = *state;
    rel_entity ship = make(w), station = make(w), other = make(w);
    assert_int_equal(rel_docked_set(w, ship, station, NULL), STRATA_OK);
    assert_int_equal(rel_docked_get(w, ship)->slot, 7); /* the schema's default */
    assert_int_equal(rel_docked_set(w, ship, other, &(rel_docked){.slot = 3}), STRATA_OK);
    assert_int_equal(rel_docked_get(w, ship)->slot, 3);
    assert_true(rel_entity_eq(rel_docked_get(w, ship)->target, other));
    assert_int_equal(children(w, station), 0);
    uint32_t n = 0;
    assert_true(rel_entity_eq(rel_docked_sources(w, other, &n)[0], ship));
    assert_int_equal(n, 1);
}

static void test_rel_many_targets(void **state) {
    rel_world *w = *state;
    rel_entity a = make(w), b = make(w), t1 = make(w), t2 = make(w);
    assert_int_equal(rel_targets_add(w, a, t1), STRATA_OK);
    assert_int_equal(rel_targets_add(w, a, t2), STRATA_OK);
    assert_int_equal(rel_targets_add(w, a, t2), STRATA_OK); /* once only */
    assert_int_equal(rel_targets_add(w, b, t1), STRATA_OK);
    assert_int_equal(rel_targets_add(w, a, a), STRATA_OK); /* a non-exclusive relation may link to itself */
    uint32_t n = 0;
    const rel_entity *ts = rel_targets_targets(w, a, &n);
    assert_int_equal(n, 3);
    assert_true(listed(ts, n, t1) && listed(ts, n, t2) && listed(ts, n, a));
    assert_true(rel_targets_has(w, b, t1));
    assert_false(rel_targets_has(w, b, t2));
    const rel_entity *ss = rel_targets_sources(w, t1, &n);
    assert_int_equal(n, 2);
    assert_true(listed(ss, n, a) && listed(ss, n, b));
    assert_int_equal(rel_targeting_count(w), 2); /* the tag: a query can require the relation */
    assert_int_equal(rel_targets_remove(w, b, t1), STRATA_OK);
    assert_int_equal(rel_targets_remove(w, b, t1), STRATA_ERR_MISSING);
    assert_int_equal(rel_targeting_count(w), 1);
    (void)rel_targets_sources(w, t1, &n);
    assert_int_equal(n, 1);
    /* a dies: its links leave its targets' lists. */
    assert_int_equal(rel_entity_destroy(w, a), STRATA_OK);
    (void)rel_targets_sources(w, t1, &n);
    assert_int_equal(n, 0);
    (void)rel_targets_sources(w, t2, &n);
    assert_int_equal(n, 0);
    assert_int_equal(rel_targeting_count(w), 0);
}

/* --- Policies ------------------------------------------------------------------ */

static void test_rel_destroy_policy_takes_the_subtree(void **state) {
    rel_world *w = *state;
    rel_entity root = make(w), a = make(w), b = make(w), c = make(w), keep = make(w);
    assert_int_equal(rel_child_of_set(w, a, root), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, b, root), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, c, a), STRATA_OK);
    assert_int_equal(rel_entity_destroy(w, root), STRATA_OK);
    assert_false(rel_entity_alive(w, root));
    assert_false(rel_entity_alive(w, a));
    assert_false(rel_entity_alive(w, b));
    assert_false(rel_entity_alive(w, c));
    assert_true(rel_entity_alive(w, keep));
    rel_world_stats_t st;
    rel_world_stats(w, &st);
    assert_int_equal(st.entities, 1);
    assert_int_equal(st.pending, 0);
}

static void test_rel_remove_clear_keep_policies(void **state) {
    rel_world *w = *state;
    rel_entity t = make(w), docked = make(w), pinned = make(w), owned = make(w), follower = make(w),
               targeting = make(w), t2 = make(w);
    assert_int_equal(rel_docked_set(w, docked, t, NULL), STRATA_OK);
    assert_int_equal(rel_pinned_set(w, pinned, t), STRATA_OK);
    assert_int_equal(rel_owned_set(w, owned, t), STRATA_OK);
    assert_int_equal(rel_follows_add(w, follower, t), STRATA_OK);
    assert_int_equal(rel_targets_add(w, targeting, t), STRATA_OK);
    assert_int_equal(rel_targets_add(w, targeting, t2), STRATA_OK);
    assert_int_equal(rel_entity_destroy(w, t), STRATA_OK);
    assert_false(rel_docked_has(w, docked)); /* remove */
    assert_true(rel_pinned_has(w, pinned));  /* clear */
    assert_true(rel_entity_eq(rel_pinned_target(w, pinned), REL_ENTITY_NULL));
    assert_true(rel_entity_eq(rel_owned_target(w, owned), t)); /* keep: stale */
    assert_false(rel_entity_alive(w, follower));               /* destroy */
    assert_false(rel_targets_has(w, targeting, t));            /* remove, one of two */
    assert_true(rel_targets_has(w, targeting, t2));
    assert_int_equal(rel_targeting_count(w), 1);
    /* A new entity on t's index starts with no sources. */
    rel_entity again = make(w);
    for (int i = 0; i < 4 && rel_entity_index(again) != rel_entity_index(t); i++) {
        again = make(w);
    }
    assert_int_equal(rel_entity_index(again), rel_entity_index(t));
    assert_int_equal(children(w, again), 0);
    uint32_t n = 9;
    assert_null(rel_owned_sources(w, again, &n));
    assert_int_equal(n, 0);
    /* The kept stale link goes quietly. */
    assert_int_equal(rel_owned_remove(w, owned), STRATA_OK);
}

static void test_rel_entity_field_policies(void **state) {
    rel_world *w = *state;
    rel_entity t = make(w), aim = make(w), leash = make(w), bound = make(w), note = make(w);
    assert_int_equal(rel_aim_add(w, aim, (rel_aim){t}), STRATA_OK);
    assert_int_equal(rel_leash_add(w, leash, (rel_leash){t}), STRATA_OK);
    assert_int_equal(rel_bound_add(w, bound, (rel_bound){t}), STRATA_OK);
    assert_int_equal(rel_note_add(w, note, (rel_note){t}), STRATA_OK);
    assert_int_equal(rel_entity_destroy(w, t), STRATA_OK);
    assert_true(rel_aim_has(w, aim));
    assert_true(rel_entity_eq(rel_aim_get(w, aim)->who, REL_ENTITY_NULL));
    assert_false(rel_leash_has(w, leash));
    assert_true(rel_entity_alive(w, leash));
    assert_false(rel_entity_alive(w, bound));
    assert_true(rel_entity_eq(rel_note_get(w, note)->of, t)); /* keep, as without a policy */
}

static void test_rel_destroys_inside_an_iterator_wait_for_its_end(void **state) {
    rel_world *w = *state;
    rel_entity root = make(w), kid = make(w), other = make(w);
    assert_int_equal(rel_local_add(w, kid, (rel_local){0}), STRATA_OK);
    assert_int_equal(rel_local_add(w, other, (rel_local){0}), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, kid, root), STRATA_OK);
    uint32_t seen = 0;
    for (rel_children_iter it = rel_children_begin(w); rel_children_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++) {
            assert_int_equal(rel_entity_destroy(w, it.child_of[i].target), STRATA_OK);
            /* A new link made while iterating is an add: deferred too. */
            assert_int_equal(rel_child_of_set(w, other, it.entities[i]), STRATA_OK);
            assert_true(rel_entity_alive(w, it.child_of[i].target));
            assert_false(rel_child_of_has(w, other));
            seen++;
        }
    }
    assert_int_equal(seen, 1);
    /* root's destroy took kid, and other (linked to kid) with it. */
    assert_false(rel_entity_alive(w, root));
    assert_false(rel_entity_alive(w, kid));
    assert_false(rel_entity_alive(w, other));
}

static void test_rel_destroys_in_a_step_apply_at_its_end(void **state) {
    rel_world *w = *state;
    rel_entity root = make(w), kid = make(w), grand = make(w);
    assert_int_equal(rel_local_add(w, kid, (rel_local){0}), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, kid, root), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, grand, kid), STRATA_OK);
    sys.spread_destroys = true;
    assert_int_equal(rel_world_step(w, 0.1f), STRATA_OK);
    assert_false(rel_entity_alive(w, root));
    assert_false(rel_entity_alive(w, kid));
    assert_false(rel_entity_alive(w, grand));
}

static void test_rel_reparent_inside_a_system(void **state) {
    rel_world *w = *state;
    rel_entity a = make(w), b = make(w), kids[8];
    for (int i = 0; i < 8; i++) {
        kids[i] = make(w);
        assert_int_equal(rel_local_add(w, kids[i], (rel_local){0}), STRATA_OK);
        assert_int_equal(rel_child_of_set(w, kids[i], a), STRATA_OK);
    }
    sys.spread_reparents = true;
    sys.to = b;
    assert_int_equal(rel_world_step(w, 0.1f), STRATA_OK);
    assert_int_equal(children(w, a), 0);
    assert_int_equal(children(w, b), 8);
    for (int i = 0; i < 8; i++) {
        assert_true(rel_entity_eq(rel_child_of_target(w, kids[i]), b));
        assert_true(rel_local_get(w, kids[i])->x == 1.0f); /* visited once */
    }
    rel_entity all[10] = {a, b};
    memcpy(all + 2, kids, sizeof kids);
    check_index(w, all, 10);
}

static void test_rel_destroying_a_target_inside_a_hook_of_its_child(void **state) {
    rel_world *w = *state;
    rel_entity parent = make(w), kid = make(w), sibling = make(w);
    assert_int_equal(rel_guard_add(w, kid), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, kid, parent), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, sibling, parent), STRATA_OK);
    sys.guard_kills_parent = true;
    /* kid's Guard hook destroys its parent, whose policy then takes the sibling
     * (and kid, already going). */
    assert_int_equal(rel_entity_destroy(w, kid), STRATA_OK);
    assert_int_equal(sys.guard_calls, 1);
    assert_false(rel_entity_alive(w, kid));
    assert_false(rel_entity_alive(w, parent));
    assert_false(rel_entity_alive(w, sibling));
    /* The other way: the parent goes first and its child's hook finds it going. */
    parent = make(w);
    kid = make(w);
    assert_int_equal(rel_guard_add(w, kid), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, kid, parent), STRATA_OK);
    assert_int_equal(rel_entity_destroy(w, parent), STRATA_OK);
    assert_int_equal(sys.guard_calls, 2);
    assert_false(rel_entity_alive(w, kid));
    rel_world_stats_t st;
    rel_world_stats(w, &st);
    assert_int_equal(st.entities, 0);
}

static void test_rel_destroy_tree(void **state) {
    rel_world *w = *state;
    rel_entity nodes[40];
    nodes[0] = make(w);
    for (int i = 1; i < 40; i++) {
        nodes[i] = make(w);
        /* Owned keeps its sources on a destroy: only destroy_tree takes them. */
        assert_int_equal(rel_owned_set(w, nodes[i], nodes[(i - 1) / 3]), STRATA_OK);
    }
    rel_entity outside = make(w);
    assert_int_equal(rel_owned_destroy_tree(w, nodes[1]), STRATA_OK);
    uint32_t alive = 0;
    for (int i = 0; i < 40; i++) {
        alive += rel_entity_alive(w, nodes[i]);
    }
    /* nodes[1]'s subtree: 1, 4..6, 13..21 (the children of 4..6): 13 nodes. */
    assert_int_equal(alive, 40 - 13);
    assert_true(rel_entity_alive(w, nodes[2]) && rel_entity_alive(w, outside));
    assert_int_equal(rel_owned_destroy_tree(w, nodes[1]), STRATA_ERR_STALE);
}

/* --- Stale handles ----------------------------------------------------------- */

static void test_rel_stale_handles(void **state) {
    rel_world *w = *state;
    rel_entity dead = make(w), live = make(w);
    assert_int_equal(rel_entity_destroy(w, dead), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, dead, live), STRATA_ERR_STALE);
    assert_int_equal(rel_child_of_set(w, live, dead), STRATA_ERR_STALE);
    assert_int_equal(rel_child_of_remove(w, dead), STRATA_ERR_STALE);
    assert_int_equal(rel_targets_add(w, live, dead), STRATA_ERR_STALE);
    assert_int_equal(rel_targets_remove(w, dead, live), STRATA_ERR_STALE);
    assert_false(rel_targets_has(w, dead, live));
    assert_int_equal(rel_child_of_depth(w, dead), -1);
    assert_int_equal(rel_child_of_destroy_tree(w, dead), STRATA_ERR_STALE);
    assert_true(rel_entity_eq(rel_child_of_target(w, dead), REL_ENTITY_NULL));
    uint32_t n = 5;
    assert_null(rel_child_of_sources(w, dead, &n));
    assert_int_equal(n, 0);
    assert_null(rel_targets_targets(w, dead, &n));
    assert_int_equal(n, 0);
    assert_false(rel_child_of_has(w, live));
}

/* --- Allocation failures --------------------------------------------------------- */

/* Run op with the budget of allocations growing from 0 until it succeeds;
 * each failure must be STRATA_ERR_NOMEM and leave `check` true. */
typedef rel_result_t (*op_fn)(rel_world *w, rel_entity *e);
typedef bool (*check_fn)(rel_world *w, rel_entity *e, bool done);

static void sweep(op_fn setup_op, op_fn op, check_fn check) {
    for (int start = 0;; start++) {
        budget = 1 << 20;
        rel_world_desc_t desc = {.allocator = {failing_alloc, failing_resize, test_release, NULL},
                                 .initial_capacity = 1};
        rel_world *w = rel_world_create(&desc);
        assert_non_null(w);
        rel_entity e[8];
        assert_int_equal(setup_op(w, e), STRATA_OK);
        budget = start;
        rel_result_t r = op(w, e);
        budget = 1 << 20;
        if (r == STRATA_OK) {
            assert_true(check(w, e, true));
            rel_world_destroy(w);
            return;
        }
        assert_int_equal(r, STRATA_ERR_NOMEM);
        assert_true(check(w, e, false));
        rel_world_destroy(w);
        assert_true(start < 100);
    }
}

static rel_result_t make_eight(rel_world *w, rel_entity *e) {
    for (int i = 0; i < 8; i++) {
        e[i] = rel_entity_create(w);
    }
    return rel_child_of_set(w, e[1], e[0]);
}

static rel_result_t op_set(rel_world *w, rel_entity *e) {
    return rel_docked_set(w, e[2], e[3], &(rel_docked){.slot = 1});
}

static bool check_set(rel_world *w, rel_entity *e, bool done) {
    uint32_t n = 0;
    (void)rel_docked_sources(w, e[3], &n);
    return rel_docked_has(w, e[2]) == done && n == (done ? 1u : 0u);
}

static rel_result_t op_add(rel_world *w, rel_entity *e) {
    return rel_targets_add(w, e[2], e[3]);
}

static bool check_add(rel_world *w, rel_entity *e, bool done) {
    uint32_t n = 0;
    (void)rel_targets_sources(w, e[3], &n);
    return rel_targets_has(w, e[2], e[3]) == done && n == (done ? 1u : 0u) && rel_targeting_count(w) == done;
}

static rel_result_t op_remove(rel_world *w, rel_entity *e) {
    return rel_child_of_remove(w, e[1]);
}

static bool check_remove(rel_world *w, rel_entity *e, bool done) {
    return rel_child_of_has(w, e[1]) == !done && children(w, e[0]) == (done ? 0u : 1u);
}

static rel_result_t op_set_deferred(rel_world *w, rel_entity *e) {
    strata_defer_begin(rel_world_core(w));
    rel_result_t r = rel_child_of_set(w, e[1], e[2]);
    rel_result_t end = strata_defer_end(rel_world_core(w));
    return r != STRATA_OK ? r : end;
}

/* The index agrees with the links, once what waits has settled. */
static bool check_set_deferred(rel_world *w, rel_entity *e, bool done) {
    (void)done;
    rel_entity all[8];
    memcpy(all, e, sizeof all);
    check_index(w, all, 8);
    return true;
}

static rel_result_t op_destroy_tree(rel_world *w, rel_entity *e) {
    return rel_child_of_destroy_tree(w, e[0]);
}

static bool check_destroy_tree(rel_world *w, rel_entity *e, bool done) {
    return !done || (!rel_entity_alive(w, e[0]) && !rel_entity_alive(w, e[1]));
}

static void test_rel_allocation_failures(void **state) {
    (void)state;
    sweep(make_eight, op_set, check_set);
    sweep(make_eight, op_add, check_add);
    sweep(make_eight, op_remove, check_remove);
    sweep(make_eight, op_destroy_tree, check_destroy_tree);
}

static void test_rel_allocation_failures_deferred(void **state) {
    (void)state;
    for (int start = 0; start < 40; start++) {
        budget = 1 << 20;
        rel_world_desc_t desc = {.allocator = {failing_alloc, failing_resize, test_release, NULL},
                                 .initial_capacity = 1};
        rel_world *w = rel_world_create(&desc);
        rel_entity e[8];
        assert_int_equal(make_eight(w, e), STRATA_OK);
        budget = start;
        (void)op_set_deferred(w, e);
        budget = 1 << 20;
        (void)strata_defer_begin(rel_world_core(w));
        assert_int_equal(strata_defer_end(rel_world_core(w)), STRATA_OK);
        assert_true(check_set_deferred(w, e, true));
        rel_world_destroy(w);
    }
}

/* --- Saves --------------------------------------------------------------------- */

static void test_rel_links_survive_binary_and_json_saves(void **state) {
    rel_world *w = *state;
    rel_entity root = make(w), a = make(w), b = make(w), station = make(w), ship = make(w);
    assert_int_equal(rel_child_of_set(w, a, root), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, b, a), STRATA_OK);
    assert_int_equal(rel_docked_set(w, ship, station, &(rel_docked){.slot = 5}), STRATA_OK);
    size_t size = 0;
    assert_int_equal(rel_world_save_mem(w, NULL, 0, &size), STRATA_ERR_LIMIT);
    unsigned char *buf = malloc(size);
    assert_int_equal(rel_world_save_mem(w, buf, size, &size), STRATA_OK);
    size_t jsize = 0;
    assert_int_equal(rel_world_dump_json_mem(w, NULL, 0, &jsize), STRATA_ERR_LIMIT);
    char *text = malloc(jsize + 1);
    assert_int_equal(rel_world_dump_json_mem(w, text, jsize + 1, &jsize), STRATA_OK);
    assert_non_null(strstr(text, "\"ChildOf\""));
    assert_non_null(strstr(text, "\"slot\""));
    for (int pass = 0; pass < 2; pass++) {
        /* cmocka's allocator: a leak of the loaded index is reported. */
        rel_world *v = rel_world_create(
            &(rel_world_desc_t){.allocator = {test_alloc, test_resize, test_release, NULL}});
        rel_load_report_t report;
        rel_result_t r = pass == 0 ? rel_world_load_mem(v, buf, size, &report)
                                   : rel_world_load_json_mem(v, text, jsize, &report);
        assert_int_equal(r, STRATA_OK);
        assert_true(rel_entity_eq(rel_child_of_target(v, b), a));
        assert_int_equal(rel_child_of_depth(v, b), 2);
        assert_int_equal(children(v, root), 1);
        assert_int_equal(rel_docked_get(v, ship)->slot, 5);
        uint32_t n = 0;
        assert_true(rel_entity_eq(rel_docked_sources(v, station, &n)[0], ship));
        /* The loaded index works: root's destroy takes its tree. */
        assert_int_equal(rel_entity_destroy(v, root), STRATA_OK);
        assert_false(rel_entity_alive(v, b));
        rel_world_destroy(v);
    }
    free(text);
    free(buf);
}

static void test_rel_load_with_a_link_to_a_missing_entity_fails(void **state) {
    rel_world *w = *state;
    rel_entity kept = make(w);
    assert_int_equal(rel_local_add(w, kept, (rel_local){.x = 4}), STRATA_OK);
    /* A save whose ChildOf points at an entity the save does not hold: made by
     * hand, as a save of this world cannot hold one. */
    const char *text = "{\"strata\": 1, \"schema\": \"rel\", \"version\": 1, \"indices\": 1, \"free\": [],\n"
                       "\"resources\": {}, \"entities\": [\n"
                       "{\"id\": 4294967296, \"components\": {\"ChildOf\": {\"target\": 4294967297}}}\n]}\n";
    rel_load_report_t report;
    rel_result_t r = rel_world_load_json_mem(w, text, strlen(text), &report);
    assert_int_equal(r, STRATA_ERR_CORRUPT);
    assert_non_null(strstr(report.error, "ChildOf"));
    assert_true(rel_entity_alive(w, kept));
    assert_true(rel_local_get(w, kept)->x == 4.0f);
}

/* --- Cascade passes ------------------------------------------------------------- */

enum { FOREST = 300 };

/* A forest of FOREST entities made in a shuffled order, with Local x = index
 * and Global zero: node i's parent is a node made before it in a random
 * order, or none. */
static void make_forest(rel_world *w, rel_entity *nodes, unsigned seed) {
    srand(seed);
    for (int i = 0; i < FOREST; i++) {
        nodes[i] = make(w);
        assert_int_equal(rel_local_add(w, nodes[i], (rel_local){.x = (float)i, .y = 1}), STRATA_OK);
        assert_int_equal(rel_global_add(w, nodes[i], (rel_global){0}), STRATA_OK);
    }
    for (int i = 1; i < FOREST; i++) {
        if (rand() % 8 != 0) {
            assert_int_equal(rel_child_of_set(w, nodes[i], nodes[rand() % i]), STRATA_OK);
        }
    }
    /* Reparent some, so rows and depths are out of order. */
    for (int k = 0; k < 60; k++) {
        int i = 1 + rand() % (FOREST - 1), j = rand() % FOREST;
        rel_result_t r = rel_child_of_set(w, nodes[i], nodes[j]);
        assert_true(r == STRATA_OK || r == STRATA_ERR_CYCLE);
    }
}

/* One cascade pass: Global = parent's Global + Local; every parent before its children. */
static void propagate(rel_world *w, uint32_t *visited) {
    uint32_t order = 0;
    for (rel_propagate_iter it = rel_propagate_begin(w); rel_propagate_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++) {
            rel_global g = {it.local[i].x, it.local[i].y};
            if (it.child_of != NULL && it.child_of[i].depth_ > 0) {
                rel_entity up = it.child_of[i].target;
                assert_true(visited[rel_entity_index(up)] > 0); /* the parent came first */
                assert_int_equal(it.child_of[i].depth_, (uint32_t)rel_child_of_depth(w, up) + 1);
                /* The batch's parents: their rows in their table's columns. */
                assert_non_null(it.up.row);
                const rel_global *pg = &it.up.global[it.up.row[i]];
                assert_ptr_equal(pg, rel_global_get(w, up));
                assert_ptr_equal(&it.up.local[it.up.row[i]], rel_local_get(w, up));
                g.x += pg->x;
                g.y += pg->y;
            } else {
                assert_null(it.up.row); /* roots: no parent */
            }
            it.global[i] = g;
            visited[rel_entity_index(it.entities[i])] = ++order;
        }
    }
    assert_int_equal(order, rel_propagate_count(w));
}

static void test_rel_cascade_visits_parents_first(void **state) {
    rel_world *w = *state;
    rel_entity nodes[FOREST];
    make_forest(w, nodes, 7);
    uint32_t visited[FOREST + 8] = {0};
    propagate(w, visited);
    for (int i = 0; i < FOREST; i++) {
        /* Global.y counts the links up to the root, plus one. */
        assert_true(rel_global_get(w, nodes[i])->y == (float)(rel_child_of_depth(w, nodes[i]) + 1));
        float x = 0;
        for (rel_entity e = nodes[i]; !rel_entity_eq(e, REL_ENTITY_NULL); e = rel_child_of_target(w, e)) {
            x += rel_local_get(w, e)->x;
        }
        assert_true(rel_global_get(w, nodes[i])->x == x);
    }
    rel_entity all[FOREST];
    memcpy(all, nodes, sizeof all);
    check_index(w, all, FOREST);
    /* Inside a scope the rows stay put; the order still holds. */
    memset(visited, 0, sizeof visited);
    strata_defer_begin(rel_world_core(w));
    assert_int_equal(rel_child_of_set(w, nodes[5], nodes[0]), STRATA_OK); /* recorded */
    propagate(w, visited);
    assert_int_equal(strata_defer_end(rel_world_core(w)), STRATA_OK);
    memset(visited, 0, sizeof visited);
    propagate(w, visited);
}

static void test_rel_cascade_batches_a_sorted_hierarchy_by_depth(void **state) {
    rel_world *w = *state;
    rel_entity nodes[FOREST];
    make_forest(w, nodes, 11);
    uint32_t visited[FOREST + 8] = {0};
    propagate(w, visited); /* sorts the rows */
    uint32_t batches = 0, depth = 0;
    for (rel_propagate_iter it = rel_propagate_begin(w); rel_propagate_next(&it);) {
        uint32_t d = it.child_of != NULL ? it.child_of[0].depth_ : 0;
        assert_true(d >= depth);
        depth = d;
        for (uint32_t i = 0; it.child_of != NULL && i < it.count; i++) {
            assert_int_equal(it.child_of[i].depth_, d);
        }
        batches++;
    }
    /* One batch a depth of the children's table, and the roots' table. */
    assert_true(batches <= 1 + (uint32_t)FOREST / 10);
    int32_t top = 0;
    for (int i = 0; i < FOREST; i++) {
        top = rel_child_of_depth(w, nodes[i]) > top ? rel_child_of_depth(w, nodes[i]) : top;
    }
    assert_int_equal(batches, (uint32_t)top + 1);
}

static void test_rel_cascade_gives_each_batch_its_parents(void **state) {
    rel_world *w = *state;
    enum { NODES = 9000 };
    rel_entity *nodes = malloc(sizeof *nodes * NODES);
    uint32_t *visited = calloc(NODES + 8, sizeof *visited);
    srand(3);
    for (int i = 0; i < NODES; i++) {
        nodes[i] = make(w);
        assert_int_equal(rel_local_add(w, nodes[i], (rel_local){.x = (float)(i % 5), .y = 1}), STRATA_OK);
        assert_int_equal(rel_global_add(w, nodes[i], (rel_global){0}), STRATA_OK);
        if (i % 3 == 0) { /* a third in a table of their own: parents of one depth in two tables */
            assert_int_equal(rel_aim_add(w, nodes[i], (rel_aim){0}), STRATA_OK);
        }
        if (i >= 4) {
            assert_int_equal(rel_child_of_set(w, nodes[i], nodes[rand() % (i / 2 + 1)]), STRATA_OK);
        }
    }
    propagate(w, visited); /* sorts; each row's parent checked against its get */
    memset(visited, 0, sizeof *visited * (NODES + 8));
    propagate(w, visited);
    uint32_t batches = 0, widest = 0;
    for (rel_propagate_iter it = rel_propagate_begin(w); rel_propagate_next(&it);) {
        batches++;
        widest = it.count > widest ? it.count : widest;
    }
    int32_t top = 0;
    for (int i = 0; i < NODES; i++) {
        top = rel_child_of_depth(w, nodes[i]) > top ? rel_child_of_depth(w, nodes[i]) : top;
        float x = 0;
        for (rel_entity e = nodes[i]; !rel_entity_eq(e, REL_ENTITY_NULL); e = rel_child_of_target(w, e)) {
            x += rel_local_get(w, e)->x;
        }
        assert_true(rel_global_get(w, nodes[i])->x == x);
    }
    /* More batches than depths and tables: split where the parents' table changes. */
    assert_true(batches > 2 * (uint32_t)(top + 1));
    assert_true(widest <= 4096);
    free(visited);
    free(nodes);
}

static void test_rel_cascade_out_of_memory_still_gives_parents_first(void **state) {
    (void)state;
    /* The first pass of a query allocates its list of batches and the
     * buffer of parents' rows: each allocation failing in turn, the pass
     * still visits every row once, parents first, each with its parent. */
    for (int start = 0; start < 8; start++) {
        budget = 1 << 20;
        rel_world *w = rel_world_create(
            &(rel_world_desc_t){.allocator = {failing_alloc, failing_resize, test_release, NULL}});
        rel_entity nodes[FOREST];
        make_forest(w, nodes, 5);
        uint32_t visited[FOREST + 8] = {0};
        budget = start;
        propagate(w, visited); /* checks each row's parent against its get */
        budget = 1 << 20;
        for (int i = 0; i < FOREST; i++) {
            assert_true(visited[rel_entity_index(nodes[i])] > 0);
        }
        rel_world_destroy(w);
    }
}

static void test_rel_renamed_relation_loads_old_saves(void **state) {
    rel_world *w = *state;
    const char *text = "{\"strata\": 1, \"schema\": \"rel\", \"version\": 1, \"indices\": 2, \"free\": [],\n"
                       "\"resources\": {}, \"entities\": [\n"
                       "{\"id\": 4294967296, \"components\": {}},\n"
                       "{\"id\": 4294967297, \"components\": {\"Parent\": {\"target\": 4294967296}}}\n]}\n";
    rel_load_report_t report;
    assert_int_equal(rel_world_load_json_mem(w, text, strlen(text), &report), STRATA_OK);
    rel_entity a = {4294967296u}, b = {4294967297u};
    assert_true(rel_entity_eq(rel_child_of_target(w, b), a));
    assert_int_equal(children(w, a), 1);
    assert_int_equal(report.changes[0].kind, STRATA_CHANGE_RENAMED);
}

/* --- A random walk against a reference model ------------------------------------------ */

enum { WALK = 64 };

/* The model: by slot, the handle, its ChildOf parent (destroy), its Pinned
 * target (clear) and its Targets (remove), as slots; -1 for none. */
typedef struct walk_model {
    rel_entity h[WALK];
    bool alive[WALK];
    int child_of[WALK], pinned[WALK];
    bool targets[WALK][WALK];
} walk_model;

static bool walk_reaches(const walk_model *m, int from, int e) {
    for (int steps = 0; from >= 0 && steps <= WALK; steps++) {
        if (from == e) {
            return true;
        }
        from = m->child_of[from];
    }
    return false;
}

static void walk_destroy(walk_model *m, int x) {
    if (!m->alive[x]) {
        return;
    }
    m->alive[x] = false;
    for (int s = 0; s < WALK; s++) {
        m->targets[x][s] = false;
        m->targets[s][x] = false;
        if (m->pinned[s] == x) {
            m->pinned[s] = -1;
        }
    }
    m->child_of[x] = m->pinned[x] = -1;
    for (int s = 0; s < WALK; s++) {
        if (m->alive[s] && m->child_of[s] == x) {
            walk_destroy(m, s);
        }
    }
}

static void walk_compare(rel_world *w, const walk_model *m) {
    rel_world_stats_t st;
    rel_world_stats(w, &st);
    uint32_t alive = 0;
    for (int i = 0; i < WALK; i++) {
        alive += m->alive[i];
        assert_int_equal(rel_entity_alive(w, m->h[i]), m->alive[i]);
        if (!m->alive[i]) {
            continue;
        }
        rel_entity up = m->child_of[i] >= 0 ? m->h[m->child_of[i]] : REL_ENTITY_NULL;
        assert_true(rel_entity_eq(rel_child_of_target(w, m->h[i]), up));
        int depth = 0;
        for (int s = m->child_of[i]; s >= 0; s = m->child_of[s]) {
            depth++;
        }
        assert_int_equal(rel_child_of_depth(w, m->h[i]), depth);
        rel_entity pin = m->pinned[i] >= 0 ? m->h[m->pinned[i]] : REL_ENTITY_NULL;
        assert_true(rel_entity_eq(rel_pinned_target(w, m->h[i]), pin));
        uint32_t n = 0, want = 0, kids = 0;
        (void)rel_targets_targets(w, m->h[i], &n);
        for (int t = 0; t < WALK; t++) {
            want += m->targets[i][t];
            assert_int_equal(rel_targets_has(w, m->h[i], m->h[t]), m->targets[i][t]);
            kids += m->alive[t] && m->child_of[t] == i;
        }
        assert_int_equal(n, want);
        assert_int_equal(rel_targets_has(w, m->h[i], m->h[i]) ? 1 : 0, m->targets[i][i]);
        assert_int_equal(children(w, m->h[i]), kids);
    }
    assert_int_equal(st.entities, alive);
    check_index(w, m->h, WALK);
}

static void test_rel_random_walk_matches_the_model(void **state) {
    (void)state;
    srand(2024);
    for (int round = 0; round < 20; round++) {
        rel_world *w = rel_world_create(NULL);
        walk_model m;
        memset(&m, 0, sizeof m);
        for (int i = 0; i < WALK; i++) {
            m.h[i] = make(w);
            m.alive[i] = true;
            m.child_of[i] = m.pinned[i] = -1;
        }
        for (int op = 0; op < 400; op++) {
            int a = rand() % WALK, b = rand() % WALK;
            rel_result_t r;
            switch (rand() % 9) {
            case 8: {
                /* Links set inside a scope apply at its end, in order: each
                 * replaces the link, and one that would close a cycle then
                 * (or names a target gone by then) leaves no link. */
                int src[3], dst[3];
                bool recorded[3];
                strata_defer_begin(rel_world_core(w));
                for (int k = 0; k < 3; k++) {
                    src[k] = rand() % WALK;
                    dst[k] = rand() % WALK;
                    r = rel_child_of_set(w, m.h[src[k]], m.h[dst[k]]);
                    recorded[k] = r == STRATA_OK;
                    if (!m.alive[src[k]] || !m.alive[dst[k]]) {
                        assert_int_equal(r, STRATA_ERR_STALE);
                    } else {
                        assert_int_equal(r, walk_reaches(&m, dst[k], src[k]) ? STRATA_ERR_CYCLE : STRATA_OK);
                    }
                }
                assert_int_equal(strata_defer_end(rel_world_core(w)), STRATA_OK);
                for (int k = 0; k < 3; k++) {
                    if (recorded[k]) {
                        m.child_of[src[k]] = -1;
                        if (!walk_reaches(&m, dst[k], src[k])) {
                            m.child_of[src[k]] = dst[k];
                        }
                    }
                }
                break;
            }
            case 0:
            case 1:
                r = rel_child_of_set(w, m.h[a], m.h[b]);
                if (!m.alive[a] || !m.alive[b]) {
                    assert_int_equal(r, STRATA_ERR_STALE);
                } else if (walk_reaches(&m, b, a)) {
                    assert_int_equal(r, STRATA_ERR_CYCLE);
                } else {
                    assert_int_equal(r, STRATA_OK);
                    m.child_of[a] = b;
                }
                break;
            case 2:
                r = rel_child_of_remove(w, m.h[a]);
                assert_int_equal(r, !m.alive[a]         ? STRATA_ERR_STALE
                                    : m.child_of[a] < 0 ? STRATA_ERR_MISSING
                                                        : STRATA_OK);
                m.child_of[a] = -1;
                break;
            case 3:
                r = rel_pinned_set(w, m.h[a], m.h[b]);
                if (r == STRATA_OK) {
                    m.pinned[a] = b;
                }
                assert_true(r == STRATA_OK || r == STRATA_ERR_CYCLE || r == STRATA_ERR_STALE);
                break;
            case 4:
                r = rel_targets_add(w, m.h[a], m.h[b]);
                assert_int_equal(r, m.alive[a] && m.alive[b] ? STRATA_OK : STRATA_ERR_STALE);
                m.targets[a][b] |= r == STRATA_OK;
                break;
            case 5:
                r = rel_targets_remove(w, m.h[a], m.h[b]);
                assert_int_equal(r, !m.alive[a] ? STRATA_ERR_STALE : !m.targets[a][b] ? STRATA_ERR_MISSING : STRATA_OK);
                m.targets[a][b] = false;
                break;
            case 6:
                /* Destroys inside a scope apply at its end, policies included. */
                strata_defer_begin(rel_world_core(w));
                r = rel_entity_destroy(w, m.h[a]);
                (void)rel_entity_destroy(w, m.h[b]);
                assert_int_equal(strata_defer_end(rel_world_core(w)), STRATA_OK);
                assert_int_equal(r, m.alive[a] ? STRATA_OK : STRATA_ERR_STALE);
                walk_destroy(&m, a);
                walk_destroy(&m, b);
                break;
            default:
                r = rel_entity_destroy(w, m.h[a]);
                assert_int_equal(r, m.alive[a] ? STRATA_OK : STRATA_ERR_STALE);
                walk_destroy(&m, a);
                break;
            }
            walk_compare(w, &m);
        }
        rel_world_destroy(w);
    }
}

static void test_rel_world_clear_forgets_links(void **state) {
    rel_world *w = *state;
    rel_entity a = make(w), b = make(w);
    assert_int_equal(rel_child_of_set(w, b, a), STRATA_OK);
    assert_int_equal(rel_targets_add(w, b, a), STRATA_OK);
    rel_world_clear(w);
    rel_entity c = make(w);
    assert_int_equal(children(w, c), 0);
    uint32_t n = 9;
    (void)rel_targets_sources(w, c, &n);
    assert_int_equal(n, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rel_set_target_sources_depth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_cycles_and_self_links_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_deferred_cycle_is_dropped_when_applied, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_data_on_the_link, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_many_targets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_destroy_policy_takes_the_subtree, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_remove_clear_keep_policies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_entity_field_policies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_destroys_inside_an_iterator_wait_for_its_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_destroys_in_a_step_apply_at_its_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_reparent_inside_a_system, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_destroying_a_target_inside_a_hook_of_its_child, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_destroy_tree, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_stale_handles, setup, teardown),
        cmocka_unit_test(test_rel_allocation_failures),
        cmocka_unit_test(test_rel_allocation_failures_deferred),
        cmocka_unit_test_setup_teardown(test_rel_links_survive_binary_and_json_saves, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_load_with_a_link_to_a_missing_entity_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_world_clear_forgets_links, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_cascade_visits_parents_first, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_cascade_batches_a_sorted_hierarchy_by_depth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_cascade_gives_each_batch_its_parents, setup, teardown),
        cmocka_unit_test(test_rel_cascade_out_of_memory_still_gives_parents_first),
        cmocka_unit_test_setup_teardown(test_rel_renamed_relation_loads_old_saves, setup, teardown),
        cmocka_unit_test(test_rel_random_walk_matches_the_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

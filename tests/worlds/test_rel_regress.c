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
    /* A link that would close a cycle (c under its own child g) is dropped:
     * c keeps the link it had. */
    assert_int_equal(rel_entity_add_bundle(w, c, &(rel_bundle){.child_of = &(rel_child_of){.target = g}}), STRATA_OK);
    assert_true(rel_entity_eq(rel_child_of_target(w, c), p2));
    (void)rel_child_of_sources(w, p2, &n);
    assert_int_equal(n, 1);
    assert_int_equal(rel_child_of_depth(w, g), 2);
    /* The old parents' destroys leave c alone; its new parent's kills it. */
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

/* --- Dropped links ---------------------------------------------------------
 * A recorded link that could not be filed when applied (its target's
 * destroy recorded before it, or a link recorded beside it closing a
 * cycle) was dropped, but the source kept the relation's component with a
 * null target (`_has` true, depth 0). The source now ends as if the link
 * had never been recorded: without the component, or with the link it had
 * before (as when `_set` refuses a link now). */

/* A world on the counting allocator. */
static rel_world *world_new(void) {
    rel_world *w = rel_world_create(&(rel_world_desc_t){.allocator = {test_alloc, test_resize, test_release, NULL}});
    assert_non_null(w);
    return w;
}

/* The number of ChildOf sources of t. */
static uint32_t kids_of(const rel_world *w, rel_entity t) {
    uint32_t n = 99;
    (void)rel_child_of_sources(w, t, &n);
    return n;
}

/* Inside an open iterator: a link to a target destroyed before it, and
 * two links that close a cycle together, leave no component. */
static void test_rel_dropped_deferred_link_leaves_no_component(void **state) {
    (void)state;
    rel_world *w = world_new();
    rel_entity t = make_local(w), s = make_local(w), p = make_local(w), q = make_local(w);
    uint32_t visits = 0;
    for (rel_roots_iter it = rel_roots_begin(w); rel_roots_next(&it);) {
        if (visits++ == 0) {
            assert_int_equal(rel_entity_destroy(w, t), STRATA_OK);
            assert_int_equal(rel_child_of_set(w, s, t), STRATA_OK); /* t is alive until the iterator ends */
            assert_int_equal(rel_child_of_set(w, p, q), STRATA_OK);
            assert_int_equal(rel_child_of_set(w, q, p), STRATA_OK);
        }
    }
    assert_false(rel_entity_alive(w, t));
    assert_true(rel_entity_alive(w, s));
    assert_false(rel_child_of_has(w, s));
    assert_null(rel_child_of_get(w, s));
    assert_int_equal(rel_child_of_depth(w, s), 0);
    assert_true(rel_entity_eq(rel_child_of_target(w, p), q));
    assert_false(rel_child_of_has(w, q));
    assert_int_equal(rel_child_of_depth(w, p), 1);
    assert_int_equal(kids_of(w, q), 1);
    assert_int_equal(kids_of(w, p), 0);
    assert_int_equal(rel_children_count(w), 1); /* p only */
    assert_int_equal(rel_roots_count(w), 2);
    rel_world_destroy(w);
}

/* A source with a link already keeps it when the new one is dropped
 * (ChildOf, and Docked with its data). */
static void test_rel_dropped_deferred_link_keeps_the_old_one(void **state) {
    (void)state;
    rel_world *w = world_new();
    strata_world_t *core = rel_world_core(w);
    rel_entity old = make_local(w), t = make_local(w), s = make_local(w), a = make_local(w), b = make_local(w),
               c = make_local(w), ship = make_local(w), station = make_local(w);
    assert_int_equal(rel_child_of_set(w, s, old), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, b, c), STRATA_OK);
    assert_int_equal(rel_docked_set(w, ship, station, &(rel_docked){.slot = 3}), STRATA_OK);
    strata_defer_begin(core);
    assert_int_equal(rel_entity_destroy(w, t), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, s, t), STRATA_OK);
    assert_int_equal(rel_docked_set(w, ship, t, &(rel_docked){.slot = 9}), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, a, b), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, b, a), STRATA_OK); /* closes a -> b -> a: dropped, b stays under c */
    assert_int_equal(strata_defer_end(core), STRATA_OK);
    assert_true(rel_entity_eq(rel_child_of_target(w, s), old));
    assert_int_equal(rel_child_of_depth(w, s), 1);
    assert_int_equal(kids_of(w, old), 1);
    assert_true(rel_entity_eq(rel_docked_target(w, ship), station));
    assert_int_equal(rel_docked_get(w, ship)->slot, 3);
    uint32_t n = 0;
    assert_non_null(rel_docked_sources(w, station, &n));
    assert_int_equal(n, 1);
    assert_true(rel_entity_eq(rel_child_of_target(w, b), c));
    assert_true(rel_entity_eq(rel_child_of_target(w, a), b));
    assert_int_equal(rel_child_of_depth(w, a), 2);
    assert_int_equal(kids_of(w, c), 1);
    assert_int_equal(kids_of(w, b), 1);
    /* A fresh source of Docked gets no component. */
    rel_entity t2 = make_local(w), ship2 = make_local(w);
    strata_defer_begin(core);
    assert_int_equal(rel_entity_destroy(w, t2), STRATA_OK);
    assert_int_equal(rel_docked_set(w, ship2, t2, &(rel_docked){.slot = 1}), STRATA_OK);
    assert_int_equal(strata_defer_end(core), STRATA_OK);
    assert_false(rel_docked_has(w, ship2));
    assert_int_equal(rel_docks_count(w), 1);
    rel_world_destroy(w);
}

/* Non-exclusive relations: a link to a target whose destroy was recorded
 * before it is dropped (Follows' destroy policy does not take the source),
 * and the source keeps its other links and its tag only with them. */
static void test_rel_dropped_deferred_link_non_exclusive(void **state) {
    (void)state;
    rel_world *w = world_new();
    strata_world_t *core = rel_world_core(w);
    rel_entity t = make_local(w), u = make_local(w), s = make_local(w), f = make_local(w), g = make_local(w);
    assert_int_equal(rel_follows_add(w, g, u), STRATA_OK);
    strata_defer_begin(core);
    assert_int_equal(rel_entity_destroy(w, t), STRATA_OK);
    assert_int_equal(rel_targets_add(w, s, t), STRATA_OK);
    assert_int_equal(rel_follows_add(w, f, t), STRATA_OK);
    assert_int_equal(rel_follows_add(w, g, t), STRATA_OK);
    assert_int_equal(strata_defer_end(core), STRATA_OK);
    assert_false(rel_entity_alive(w, t));
    assert_true(rel_entity_alive(w, s));
    assert_true(rel_entity_alive(w, f));
    assert_true(rel_entity_alive(w, g));
    uint32_t n = 9;
    assert_null(rel_targets_targets(w, s, &n));
    assert_int_equal(n, 0);
    assert_null(rel_follows_targets(w, f, &n));
    assert_int_equal(n, 0);
    assert_int_equal(rel_targeting_count(w), 0);
    const rel_entity *ts = rel_follows_targets(w, g, &n);
    assert_int_equal(n, 1);
    assert_true(rel_entity_eq(ts[0], u));
    assert_true(rel_follows_has(w, g, u));
    /* A destroy recorded after the link takes its policy as before. */
    strata_defer_begin(core);
    assert_int_equal(rel_follows_add(w, f, u), STRATA_OK);
    assert_int_equal(rel_entity_destroy(w, u), STRATA_OK);
    assert_int_equal(strata_defer_end(core), STRATA_OK);
    assert_false(rel_entity_alive(w, f));
    assert_false(rel_entity_alive(w, g));
    rel_world_destroy(w);
}

/* The batched replay: a deferred create of several entities whose bundle
 * links them to a target destroyed before it, and an add to each entity a
 * system visits, apply their other components and no link. */
static void test_rel_dropped_deferred_link_in_a_batch(void **state) {
    (void)state;
    enum { N = 5 };
    rel_world *w = world_new();
    strata_world_t *core = rel_world_core(w);
    rel_entity t = make_local(w), made[N], old = make_local(w);
    strata_defer_begin(core);
    assert_int_equal(rel_entity_destroy(w, t), STRATA_OK);
    assert_int_equal(rel_entity_create_many(w,
                                            &(rel_bundle){.local = &(rel_local){1, 2},
                                                          .child_of = &(rel_child_of){.target = t},
                                                          .docked = &(rel_docked){.target = t, .slot = 2}},
                                            N, made),
                     STRATA_OK);
    assert_int_equal(strata_defer_end(core), STRATA_OK);
    for (int i = 0; i < N; i++) {
        assert_true(rel_entity_alive(w, made[i]));
        assert_false(rel_child_of_has(w, made[i]));
        assert_false(rel_docked_has(w, made[i]));
        assert_non_null(rel_local_get(w, made[i]));
    }
    /* Half of them linked to `old` before, the add of a bundle to each. */
    for (int i = 0; i < N; i += 2) {
        assert_int_equal(rel_child_of_set(w, made[i], old), STRATA_OK);
    }
    rel_entity t2 = make_local(w);
    strata_defer_begin(core);
    assert_int_equal(rel_entity_destroy(w, t2), STRATA_OK);
    for (int i = 0; i < N; i++) {
        assert_int_equal(rel_entity_add_bundle(w, made[i],
                                               &(rel_bundle){.child_of = &(rel_child_of){.target = t2}, .guard = true}),
                         STRATA_OK);
    }
    assert_int_equal(strata_defer_end(core), STRATA_OK);
    for (int i = 0; i < N; i++) {
        assert_true(rel_guard_has(w, made[i]));
        assert_int_equal(rel_child_of_has(w, made[i]), i % 2 == 0);
        assert_true(i % 2 != 0 || rel_entity_eq(rel_child_of_target(w, made[i]), old));
    }
    assert_int_equal(kids_of(w, old), (N + 1) / 2);
    assert_int_equal(rel_children_count(w), (N + 1) / 2);
    rel_world_destroy(w);
}

/* Applied now, an add whose link names a dead target or closes a cycle
 * leaves the same: no component, or the link the entity had. */
static void test_rel_dropped_link_added_now(void **state) {
    (void)state;
    rel_world *w = world_new();
    rel_entity dead = make_local(w), s = make_local(w), up = make_local(w), kid = make_local(w);
    assert_int_equal(rel_entity_destroy(w, dead), STRATA_OK);
    assert_int_equal(rel_entity_add_bundle(w, s, &(rel_bundle){.child_of = &(rel_child_of){.target = dead}}),
                     STRATA_OK);
    assert_false(rel_child_of_has(w, s));
    rel_entity born = rel_entity_create_bundle(w, &(rel_bundle){.local = &(rel_local){0},
                                                                .child_of = &(rel_child_of){.target = dead}});
    assert_true(rel_entity_alive(w, born));
    assert_false(rel_child_of_has(w, born));
    assert_non_null(rel_local_get(w, born));
    assert_int_equal(rel_child_of_set(w, s, up), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, kid, s), STRATA_OK);
    assert_int_equal(rel_entity_add_bundle(w, s, &(rel_bundle){.child_of = &(rel_child_of){.target = kid}}), STRATA_OK);
    assert_true(rel_entity_eq(rel_child_of_target(w, s), up));
    assert_int_equal(rel_child_of_depth(w, kid), 2);
    assert_int_equal(kids_of(w, up), 1);
    rel_world_destroy(w);
}

/* --- Links and the hooks of the queries they change --------------------------
 * Setting or removing a link takes a shorter path when the move runs no
 * hook but the link's own (no monitored query starts or stops matching).
 * A hand-made world with a query hook on links of entities with a Pos:
 * the hooks still run exactly when the entity starts or stops matching. */

enum { HK_LINK, HK_POS, HK_COMPONENTS };
typedef struct hk_link {
    strata_entity_t target;
    uint32_t depth;
    uint32_t spare;
} hk_link;
static uint32_t hk_added, hk_removed;

static void hk_link_added(strata_world_t *w, strata_entity_t e, void *value) {
    strata_relation_hook(w, 0, e, value, true);
}

static void hk_link_removed(strata_world_t *w, strata_entity_t e, void *value) {
    strata_relation_hook(w, 0, e, value, false);
}

static void hk_query_added(strata_world_t *w, strata_entity_t e, void *aspect) {
    (void)w, (void)e, (void)aspect;
    hk_added++;
}

static void hk_query_removed(strata_world_t *w, strata_entity_t e, void *aspect) {
    (void)w, (void)e, (void)aspect;
    hk_removed++;
}

static void test_rel_links_run_the_hooks_of_the_queries_they_change(void **state) {
    (void)state;
    static const strata_component_desc_t components[HK_COMPONENTS] = {
        [HK_LINK] = {.name = "Link",
                     .size = sizeof(hk_link),
                     .align = _Alignof(hk_link),
                     .on_add = hk_link_added,
                     .on_remove = hk_link_removed},
        [HK_POS] = {.name = "Pos", .size = sizeof(float), .align = _Alignof(float)},
    };
    static const strata_query_desc_t queries[1] = {
        {.name = "Placed",
         .all = {{(1u << HK_LINK) | (1u << HK_POS)}},
         .on_add = hk_query_added,
         .on_remove = hk_query_removed},
    };
    static const strata_relation_desc_t relations[1] = {
        {.name = "Link", .component = HK_LINK, .exclusive = true, .policy = STRATA_POLICY_DESTROY}};
    static const strata_schema_t schema = {.name = "hk",
                                           .version = 1,
                                           .component_count = HK_COMPONENTS,
                                           .components = components,
                                           .query_count = 1,
                                           .queries = queries,
                                           .relation_count = 1,
                                           .relations = relations};
    strata_world_t *w = NULL;
    assert_int_equal(strata_world_create(&schema, NULL, &w), STRATA_OK);
    hk_added = hk_removed = 0;
    strata_entity_t root, bare, placed[2];
    uint32_t pos = HK_POS;
    assert_int_equal(strata_entity_create(w, &root), STRATA_OK);
    assert_int_equal(strata_entity_create(w, &bare), STRATA_OK);
    assert_int_equal(strata_entity_create_many(w, 2, 1, &pos, NULL, placed), STRATA_OK);
    for (int round = 0; round < 2; round++) { /* the second round finds the edges made */
        assert_int_equal(strata_relation_set(w, 0, bare, root, NULL), STRATA_OK); /* matches nothing: no hook */
        assert_int_equal(hk_added, 2 * round);
        assert_int_equal(strata_relation_set(w, 0, placed[0], bare, NULL), STRATA_OK);
        assert_int_equal(strata_relation_set(w, 0, placed[1], placed[0], NULL), STRATA_OK);
        assert_int_equal(hk_added, 2 * round + 2);
        assert_int_equal(strata_relation_depth(w, 0, placed[1]), 3);
        uint32_t n = 0;
        assert_true(strata_relation_sources(w, 0, bare, &n)[0] == placed[0] && n == 1);
        assert_int_equal(strata_relation_remove(w, 0, placed[1], STRATA_ENTITY_NULL), STRATA_OK);
        assert_int_equal(strata_relation_remove(w, 0, placed[0], STRATA_ENTITY_NULL), STRATA_OK);
        assert_int_equal(strata_relation_remove(w, 0, bare, STRATA_ENTITY_NULL), STRATA_OK);
        assert_int_equal(hk_removed, 2 * round + 2);
        assert_null(strata_relation_sources(w, 0, bare, &n));
        assert_int_equal(strata_relation_depth(w, 0, placed[0]), 0);
    }
    /* A destroy takes the subtree, each one leaving the query as it goes. */
    assert_int_equal(strata_relation_set(w, 0, bare, root, NULL), STRATA_OK);
    assert_int_equal(strata_relation_set(w, 0, placed[0], bare, NULL), STRATA_OK);
    assert_int_equal(strata_relation_set(w, 0, placed[1], bare, NULL), STRATA_OK);
    assert_int_equal(strata_entity_destroy(w, root), STRATA_OK);
    assert_false(strata_entity_alive(w, placed[0]) || strata_entity_alive(w, placed[1]));
    assert_int_equal(hk_added, 6);
    assert_int_equal(hk_removed, 6);
    strata_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rel_scheduled_destroys_of_a_whole_table_apply_policies),
        cmocka_unit_test(test_rel_cascade_out_of_memory_still_visits_parents_first),
        cmocka_unit_test(test_rel_destroy_out_of_memory_loses_no_policy),
        cmocka_unit_test(test_rel_add_over_a_link_files_it_again),
        cmocka_unit_test(test_rel_first_link_out_of_memory_before_the_index_is_made),
        cmocka_unit_test(test_rel_dropped_deferred_link_leaves_no_component),
        cmocka_unit_test(test_rel_dropped_deferred_link_keeps_the_old_one),
        cmocka_unit_test(test_rel_dropped_deferred_link_non_exclusive),
        cmocka_unit_test(test_rel_dropped_deferred_link_in_a_batch),
        cmocka_unit_test(test_rel_dropped_link_added_now),
        cmocka_unit_test(test_rel_links_run_the_hooks_of_the_queries_they_change),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

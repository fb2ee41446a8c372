/* test_rel_oom.c: links made by every path (a create with a bundle, a bulk
 * create, an add, a link set now, in a scope or in a step, a replayed bulk
 * create, a re-parent, a second target of a non-exclusive relation, a link
 * with data) with each allocation they make failing in turn. A call that
 * returns STRATA_ERR_NOMEM leaves the world as it was; a settle that stops
 * keeps what it did not apply, and the next settle applies it; at no point
 * does a link lose its target or miss the index. The world is
 * tests/schema/rel.yaml. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
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

/* Entities an operation makes at most. */
enum { MADE = 64, KIDS = 4, PLENTY = 1 << 24 };

/* A world built with failing hooks, and every handle it made. */
typedef struct scene_t {
    rel_world *w;
    rel_entity p1, p2;     /* parents, each with KIDS children: their lists are full */
    rel_entity kid[KIDS];  /* p1's children */
    rel_entity loose;      /* no link yet */
    rel_entity made[MADE]; /* what the operation created */
    uint32_t made_count;
} scene_t;

/* One operation of the test: its result (a settle's, for deferred ones). */
typedef rel_result_t (*operation_t)(scene_t *s);

static rel_entity make(rel_world *w, const rel_bundle *b) {
    rel_entity e = rel_entity_create_bundle(w, b);
    assert_false(rel_entity_eq(e, REL_ENTITY_NULL));
    return e;
}

/* The scene, with enough memory, its allocator failing when told
 * (`failing`) or never; initial capacity 1, so the operation's
 * allocations include growing tables, records and the index. */
static void scene_build(scene_t *s, bool failing) {
    budget = PLENTY;
    memset(s, 0, sizeof *s);
    strata_allocator_t fails = {failing_alloc, failing_resize, test_release, NULL};
    strata_allocator_t never = {test_alloc, test_resize, test_release, NULL};
    s->w = rel_world_create(&(rel_world_desc_t){.allocator = failing ? fails : never, .initial_capacity = 1});
    assert_non_null(s->w);
    const rel_local l = {1, 2};
    s->p1 = make(s->w, &(rel_bundle){.local = &l});
    s->p2 = make(s->w, &(rel_bundle){.local = &l});
    for (int i = 0; i < KIDS; i++) {
        s->kid[i] = make(s->w, &(rel_bundle){.local = &l, .child_of = &(rel_child_of){.target = s->p1}});
        rel_entity other = make(s->w, &(rel_bundle){.child_of = &(rel_child_of){.target = s->p2}});
        assert_int_equal(rel_docked_set(s->w, other, s->p2, &(rel_docked){.slot = 1}), STRATA_OK);
        assert_int_equal(rel_targets_add(s->w, other, s->p2), STRATA_OK);
    }
    s->loose = make(s->w, &(rel_bundle){.local = &l});
    assert_int_equal(rel_targets_add(s->w, s->loose, s->p1), STRATA_OK);
}

/* The world as JSON (malloc'd), made with enough memory. */
static char *scene_json(const scene_t *s) {
    int left = budget;
    budget = PLENTY;
    size_t size = 0;
    assert_int_equal(rel_world_dump_json_mem(s->w, NULL, 0, &size), STRATA_ERR_LIMIT);
    char *text = malloc(size + 1);
    assert_non_null(text);
    assert_int_equal(rel_world_dump_json_mem(s->w, text, size + 1, &size), STRATA_OK);
    text[size] = '\0';
    budget = left;
    return text;
}

/* Fail, naming the first line that differs, unless the dumps are equal. */
static void same_world(const char *now, const char *want, int line) {
    size_t i = 0, start = 0;
    while (now[i] != '\0' && now[i] == want[i]) {
        start = now[i] == '\n' ? i + 1 : start;
        i++;
    }
    if (now[i] != want[i]) {
        print_error("line %d: the world differs:\n  now:  %.200s\n  want: %.200s\n", line, now + start, want + start);
        fail();
    }
}

/* True if `list` holds e. */
static bool listed(const rel_entity *list, uint32_t n, rel_entity e) {
    for (uint32_t i = 0; i < n; i++) {
        if (rel_entity_eq(list[i], e)) {
            return true;
        }
    }
    return false;
}

/* Every link of e: a live target, and e among its sources. */
static void check_links_of(const rel_world *w, rel_entity e) {
    uint32_t n = 0;
    if (!rel_entity_alive(w, e)) {
        return;
    }
    if (rel_child_of_has(w, e)) {
        rel_entity t = rel_child_of_target(w, e);
        assert_true(rel_entity_alive(w, t)); /* never a null or stale target */
        const rel_entity *sources = rel_child_of_sources(w, t, &n);
        assert_true(listed(sources, n, e));
        assert_int_equal(rel_child_of_depth(w, e), rel_child_of_depth(w, t) + 1);
    }
    if (rel_docked_has(w, e)) {
        rel_entity t = rel_docked_target(w, e);
        assert_true(rel_entity_alive(w, t));
        const rel_entity *sources = rel_docked_sources(w, t, &n);
        assert_true(listed(sources, n, e));
    }
    const rel_entity *targets = rel_targets_targets(w, e, &n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t m = 0;
        const rel_entity *sources = rel_targets_sources(w, targets[i], &m);
        assert_true(listed(sources, m, e));
    }
}

/* Each source a target lists links to it. */
static void check_sources_of(const rel_world *w, rel_entity t) {
    uint32_t n = 0;
    const rel_entity *sources = rel_child_of_sources(w, t, &n);
    for (uint32_t i = 0; i < n; i++) {
        assert_true(rel_entity_eq(rel_child_of_target(w, sources[i]), t));
    }
    sources = rel_docked_sources(w, t, &n);
    for (uint32_t i = 0; i < n; i++) {
        assert_true(rel_entity_eq(rel_docked_target(w, sources[i]), t));
    }
    sources = rel_targets_sources(w, t, &n);
    for (uint32_t i = 0; i < n; i++) {
        assert_true(rel_targets_has(w, sources[i], t));
    }
}

/* The links of every entity the scene knows agree with the index. */
static void scene_check(const scene_t *s) {
    const rel_entity fixed[] = {s->p1, s->p2, s->loose, s->kid[0], s->kid[1], s->kid[2], s->kid[3]};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        check_links_of(s->w, fixed[i]);
        check_sources_of(s->w, fixed[i]);
    }
    for (uint32_t i = 0; i < s->made_count; i++) {
        check_links_of(s->w, s->made[i]);
    }
}

/* Apply what a stopped settle kept. */
static rel_result_t settle(rel_world *w) {
    strata_defer_begin(rel_world_core(w));
    return strata_defer_end(rel_world_core(w));
}

/* Run op on a fresh scene, every allocation it makes from the
 * fail_after-th on failing (until it returns). NOMEM: the world as before (or, deferred, with what the settle
 * applied); then settling and, if nothing was kept, running op again ends
 * as op with enough memory does (`full`, NULL to record it). Returns
 * false once op made fewer allocations than fail_after. */
static bool run_failing(operation_t op, int fail_after, bool deferred, char **full) {
    scene_t s;
    scene_build(&s, *full != NULL);
    char *before = scene_json(&s);
    budget = *full == NULL ? PLENTY : fail_after;
    rel_result_t r = op(&s);
    bool failed = budget < 0;
    budget = PLENTY;
    scene_check(&s);
    if (*full == NULL) {
        assert_int_equal(r, STRATA_OK);
        *full = scene_json(&s);
    } else if (!failed) {
        assert_int_equal(r, STRATA_OK);
    } else {
        assert_true(r == STRATA_OK || r == STRATA_ERR_NOMEM);
        char *now = scene_json(&s);
        if (r == STRATA_ERR_NOMEM && !deferred) {
            same_world(now, before, __LINE__); /* nothing changed */
        }
        free(now);
        assert_int_equal(settle(s.w), STRATA_OK); /* what a stopped settle kept */
        scene_check(&s);
        now = scene_json(&s);
        if (strcmp(now, *full) != 0) {
            same_world(now, before, __LINE__); /* nothing was recorded: made again */
            s.made_count = 0;
            assert_int_equal(op(&s), STRATA_OK);
            scene_check(&s);
            free(now);
            now = scene_json(&s);
        }
        same_world(now, *full, __LINE__);
        free(now);
    }
    free(before);
    rel_world_destroy(s.w);
    return *full == NULL || failed;
}

/* op (`name`) with each of its allocations failing in turn, until one run
 * has none left to fail. */
static void sweep(operation_t op, bool deferred, const char *name) {
    char *full = NULL;
    (void)run_failing(op, 0, deferred, &full); /* the outcome with enough memory */
    int fail_after = 0;
    while (run_failing(op, fail_after, deferred, &full)) {
        fail_after++;
    }
    assert_true(fail_after > 0); /* op allocated: the sweep failed something */
    print_message("%s: %d allocations, each made to fail in turn\n", name, fail_after);
    free(full);
}

/* sweep, naming op in the output. */
#define SWEEP(op, deferred) sweep(op, deferred, #op)

/* --- The operations ------------------------------------------------------- */

static rel_result_t op_create_bundle(scene_t *s) {
    /* A new component set: its table is made too. */
    const rel_bundle b = {.local = &(rel_local){3, 4}, .guard = true, .child_of = &(rel_child_of){.target = s->p1}};
    rel_entity e = rel_entity_create_bundle(s->w, &b);
    if (rel_entity_eq(e, REL_ENTITY_NULL)) {
        return STRATA_ERR_NOMEM;
    }
    s->made[s->made_count++] = e;
    return STRATA_OK;
}

/* A create through the ids and values an assemblage's spawn passes. */
static rel_result_t op_spawn(scene_t *s) {
    static const rel_global global = {5, 6};
    const rel_child_of link = {.target = s->p1};
    const uint32_t ids[] = {REL_GLOBAL, REL_CHILD_OF};
    const void *const values[] = {&global, &link};
    strata_entity_t e = STRATA_ENTITY_NULL;
    rel_result_t r = strata_entity_create_many(rel_world_core(s->w), 1, 2, ids, values, &e);
    if (r == STRATA_OK) {
        s->made[s->made_count++] = (rel_entity){e};
    }
    return r;
}

/* Enough entities to grow the records, the table and the index. */
static rel_result_t op_create_many(scene_t *s) {
    enum { N = 24 };
    rel_result_t r = rel_entity_create_many(s->w, &(rel_bundle){.child_of = &(rel_child_of){.target = s->p1}}, N,
                                            s->made + s->made_count);
    s->made_count += r == STRATA_OK ? N : 0;
    return r;
}

/* The add of a bundle holding a link, applied now. */
static rel_result_t op_add_bundle(scene_t *s) {
    return rel_entity_add_bundle(s->w, s->loose,
                                 &(rel_bundle){.guard = true, .child_of = &(rel_child_of){.target = s->p1}});
}

static rel_result_t op_set_now(scene_t *s) {
    return rel_child_of_set(s->w, s->loose, s->p1);
}

/* A link set in a scope: recorded, applied at its end. */
static rel_result_t op_set_in_scope(scene_t *s) {
    strata_defer_begin(rel_world_core(s->w));
    rel_result_t r = rel_child_of_set(s->w, s->loose, s->p1);
    rel_result_t end = strata_defer_end(rel_world_core(s->w));
    return r != STRATA_OK ? r : end;
}

/* A bundle with a link added in a step, inside a scope as a system's
 * changes are: applied at the scope's end, or (if that stops) the step's. */
static rel_result_t op_add_in_step(scene_t *s) {
    strata_world_t *core = rel_world_core(s->w);
    strata_step_begin(core);
    strata_defer_begin(core);
    rel_result_t r = rel_entity_add_bundle(s->w, s->loose, &(rel_bundle){.child_of = &(rel_child_of){.target = s->p1}});
    rel_result_t end = strata_defer_end(core);
    rel_result_t step = strata_step_end(core);
    return r != STRATA_OK ? r : end != STRATA_OK ? end : step;
}

/* A bulk create in a scope: the entities now, one command adding their
 * components to all of them at its end (a batch). */
static rel_result_t op_create_many_in_scope(scene_t *s) {
    enum { N = 24 };
    strata_defer_begin(rel_world_core(s->w));
    rel_result_t r = rel_entity_create_many(s->w,
                                            &(rel_bundle){.local = &(rel_local){7, 8},
                                                          .docked = &(rel_docked){.target = s->p2, .slot = 9}},
                                            N, s->made + s->made_count);
    s->made_count += r == STRATA_OK ? N : 0;
    rel_result_t end = strata_defer_end(rel_world_core(s->w));
    return r != STRATA_OK ? r : end;
}

static rel_result_t op_reparent_now(scene_t *s) {
    return rel_child_of_set(s->w, s->kid[1], s->p2);
}

static rel_result_t op_reparent_in_scope(scene_t *s) {
    strata_defer_begin(rel_world_core(s->w));
    rel_result_t r = rel_child_of_set(s->w, s->kid[1], s->p2);
    rel_result_t end = strata_defer_end(rel_world_core(s->w));
    return r != STRATA_OK ? r : end;
}

static rel_result_t op_second_target(scene_t *s) {
    return rel_targets_add(s->w, s->loose, s->p2);
}

static rel_result_t op_second_target_in_scope(scene_t *s) {
    strata_defer_begin(rel_world_core(s->w));
    rel_result_t r = rel_targets_add(s->w, s->loose, s->p2);
    rel_result_t end = strata_defer_end(rel_world_core(s->w));
    return r != STRATA_OK ? r : end;
}

static rel_result_t op_create_with_data(scene_t *s) {
    rel_entity e = rel_entity_create_bundle(s->w, &(rel_bundle){.docked = &(rel_docked){.target = s->p2, .slot = 4}});
    if (rel_entity_eq(e, REL_ENTITY_NULL)) {
        return STRATA_ERR_NOMEM;
    }
    s->made[s->made_count++] = e;
    return STRATA_OK;
}

static rel_result_t op_link_with_data(scene_t *s) {
    return rel_docked_set(s->w, s->loose, s->p2, &(rel_docked){.slot = 3});
}

static rel_result_t op_link_with_data_in_step(scene_t *s) {
    strata_world_t *core = rel_world_core(s->w);
    strata_step_begin(core);
    strata_defer_begin(core);
    rel_result_t r = rel_docked_set(s->w, s->loose, s->p2, &(rel_docked){.slot = 3});
    rel_result_t end = strata_defer_end(core);
    rel_result_t step = strata_step_end(core);
    return r != STRATA_OK ? r : end != STRATA_OK ? end : step;
}

/* --- Tests ------------------------------------------------------------------ */

static void test_rel_oom_create_with_a_bundle(void **state) {
    (void)state;
    SWEEP(op_create_bundle, false);
}

static void test_rel_oom_spawn(void **state) {
    (void)state;
    SWEEP(op_spawn, false);
}

static void test_rel_oom_create_many(void **state) {
    (void)state;
    SWEEP(op_create_many, false);
}

static void test_rel_oom_add_now(void **state) {
    (void)state;
    SWEEP(op_add_bundle, false);
    SWEEP(op_set_now, false);
}

static void test_rel_oom_add_deferred(void **state) {
    (void)state;
    SWEEP(op_set_in_scope, true);
    SWEEP(op_add_in_step, true);
}

static void test_rel_oom_batched_replay(void **state) {
    (void)state;
    SWEEP(op_create_many_in_scope, true);
}

static void test_rel_oom_reparent(void **state) {
    (void)state;
    SWEEP(op_reparent_now, false);
    SWEEP(op_reparent_in_scope, true);
}

static void test_rel_oom_second_target(void **state) {
    (void)state;
    SWEEP(op_second_target, false);
    SWEEP(op_second_target_in_scope, true);
}

static void test_rel_oom_link_with_data(void **state) {
    (void)state;
    SWEEP(op_create_with_data, false);
    SWEEP(op_link_with_data, false);
    SWEEP(op_link_with_data_in_step, true);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rel_oom_create_with_a_bundle),
        cmocka_unit_test(test_rel_oom_spawn),
        cmocka_unit_test(test_rel_oom_create_many),
        cmocka_unit_test(test_rel_oom_add_now),
        cmocka_unit_test(test_rel_oom_add_deferred),
        cmocka_unit_test(test_rel_oom_batched_replay),
        cmocka_unit_test(test_rel_oom_reparent),
        cmocka_unit_test(test_rel_oom_second_target),
        cmocka_unit_test(test_rel_oom_link_with_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_hook.c: query hooks with aspects, component hooks and dirty sets at
 * the runtime level: when they run, what they see, that structural changes
 * they make are deferred, and that out of memory runs no hook and changes
 * nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "strata_internal.h"
#include "fixture.h"

/* --- A schema ------------------------------------------------------------- */

typedef struct vec2 {
    float x, y;
} vec2;
typedef struct texture {
    uint32_t handle;
} texture;
typedef struct track {
    _Alignas(32) double sum[2];
    uint32_t seen;
} track; /* over-aligned aspect */

enum { POSITION, VELOCITY, TEXTURE, FROZEN, COMPONENT_COUNT };
enum { Q_MOVING, Q_TEXTURED, Q_CHANGED, QUERY_COUNT };

/* What the hooks saw. */
static struct {
    uint32_t moving_added, moving_removed, textured_added, textured_removed;
    uint32_t texture_added, texture_removed;
    uint32_t last_handle;
    strata_entity_t destroy_on_remove; /* the texture on_remove hook destroys this entity */
    uint32_t create_in_hooks;          /* texture hooks create this many entities */
    bool aspect_aligned;
} hooks;

/* Create entities from inside a hook (creation is never deferred): enough
 * of them move the records array under the change that runs the hook. */
static void hook_creates(strata_world_t *w) {
    for (uint32_t i = 0; i < hooks.create_in_hooks; i++) {
        strata_entity_t e;
        assert_int_equal(strata_entity_create(w, &e), STRATA_OK);
    }
}

static void moving_on_add(strata_world_t *w, strata_entity_t e, void *aspect) {
    (void)w;
    (void)e;
    const track *t = aspect;
    assert_int_equal(t->seen, 5); /* its defaults */
    hooks.aspect_aligned = ((uintptr_t)aspect % 32) == 0;
    hooks.moving_added++;
}

static void moving_on_remove(strata_world_t *w, strata_entity_t e, void *aspect) {
    (void)w;
    (void)e;
    assert_non_null(aspect);
    hooks.moving_removed++;
}

static void textured_on_add(strata_world_t *w, strata_entity_t e, void *aspect) {
    assert_null(aspect); /* hooks without an aspect */
    assert_true(strata_has(w, e, TEXTURE));
    hooks.textured_added++;
}

static void textured_on_remove(strata_world_t *w, strata_entity_t e, void *aspect) {
    (void)w;
    (void)e;
    assert_null(aspect);
    hooks.textured_removed++;
}

static void texture_on_add(strata_world_t *w, strata_entity_t e, void *value) {
    (void)e;
    hooks.last_handle = ((const texture *)value)->handle;
    hooks.texture_added++;
    hook_creates(w);
}

static void texture_on_remove(strata_world_t *w, strata_entity_t e, void *value) {
    (void)e;
    hooks.last_handle = ((const texture *)value)->handle;
    hooks.texture_removed++;
    hook_creates(w);
    if (hooks.destroy_on_remove != STRATA_ENTITY_NULL) {
        assert_int_equal(strata_entity_destroy(w, hooks.destroy_on_remove), STRATA_OK);
        assert_true(strata_entity_alive(w, hooks.destroy_on_remove)); /* deferred */
        hooks.destroy_on_remove = STRATA_ENTITY_NULL;
    }
}

static const track track_defaults = {{0.0, 0.0}, 5};

static const strata_component_desc_t components[COMPONENT_COUNT] = {
    [POSITION] = COMPONENT("Position", vec2, NULL),
    [VELOCITY] = COMPONENT("Velocity", vec2, NULL),
    [TEXTURE] = {.name = "Texture",
                 .size = sizeof(texture),
                 .align = _Alignof(texture),
                 .on_add = texture_on_add,
                 .on_remove = texture_on_remove},
    [FROZEN] = TAG("Frozen"),
};

static const strata_query_desc_t queries[QUERY_COUNT] = {
    [Q_MOVING] = {.name = "Moving",
                  .all = {{BIT(POSITION) | BIT(VELOCITY)}},
                  .none = {{BIT(FROZEN)}},
                  .aspect_size = sizeof(track),
                  .aspect_align = _Alignof(track),
                  .aspect_defaults = &track_defaults,
                  .on_add = moving_on_add,
                  .on_remove = moving_on_remove},
    [Q_TEXTURED] = {.name = "Textured",
                    .all = {{BIT(TEXTURE)}},
                    .on_add = textured_on_add,
                    .on_remove = textured_on_remove},
    [Q_CHANGED] = {.name = "Changed", .all = {{BIT(POSITION)}}, .changed = {{BIT(POSITION)}}},
};

static const strata_schema_t schema = {
    .name = "hooks",
    .version = 1,
    .component_count = COMPONENT_COUNT,
    .components = components,
    .query_count = QUERY_COUNT,
    .queries = queries,
};

static int reset(void **state) {
    memset(&hooks, 0, sizeof hooks);
    return setup(state);
}

/* A new entity with Position and Velocity. */
static strata_entity_t mover(fixture_t *f) {
    const uint32_t ids[] = {POSITION, VELOCITY};
    strata_entity_t e;
    assert_int_equal(strata_entity_create_many(f->w, 1, 2, ids, NULL, &e), STRATA_OK);
    return e;
}

/* --- Tests ----------------------------------------------------------------- */

static void test_hook_aspect_ids_follow_the_components(void **state) {
    fixture_t *f = world_open(state);
    assert_int_equal(strata_query_aspect_id(f->w, Q_MOVING), COMPONENT_COUNT);
    assert_int_equal(strata_query_aspect_id(f->w, Q_TEXTURED), UINT32_MAX);
    world_close(f);
}

static void test_hook_query_hooks_follow_matching(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = mover(f); /* created straight into a matching table */
    assert_int_equal(hooks.moving_added, 1);
    assert_true(hooks.aspect_aligned);
    assert_int_equal(strata_add(f->w, e, FROZEN, NULL), STRATA_OK);
    assert_int_equal(hooks.moving_removed, 1);
    assert_int_equal(strata_remove(f->w, e, FROZEN), STRATA_OK);
    assert_int_equal(hooks.moving_added, 2);
    assert_int_equal(strata_remove(f->w, e, VELOCITY), STRATA_OK);
    assert_int_equal(hooks.moving_removed, 2);
    assert_int_equal(strata_entity_destroy(f->w, e), STRATA_OK);
    assert_int_equal(hooks.moving_removed, 2);
    world_close(f);
}

static void test_hook_aspect_column_moves_with_the_entity(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = mover(f);
    mover(f);
    const sti_table_t *t = f->w->tables[f->w->records[(uint32_t)e].table];
    uint32_t id = strata_query_aspect_id(f->w, Q_MOVING);
    track *a = (track *)t->columns[id] + f->w->records[(uint32_t)e].row;
    a->seen = 77;
    /* Texture moves it to another matching table: the aspect goes along. */
    assert_int_equal(strata_add(f->w, e, TEXTURE, &(texture){3}), STRATA_OK);
    t = f->w->tables[f->w->records[(uint32_t)e].table];
    assert_non_null(t->columns[id]);
    assert_int_equal(((track *)t->columns[id])[f->w->records[(uint32_t)e].row].seen, 77);
    assert_int_equal(hooks.moving_added, 2);
    assert_int_equal(hooks.moving_removed, 0);
    world_close(f);
}

static void test_hook_component_hooks_on_create_add_remove_destroy(void **state) {
    fixture_t *f = world_open(state);
    const uint32_t ids[] = {POSITION, TEXTURE};
    const texture tex = {9};
    const void *values[] = {NULL, &tex};
    strata_entity_t e[3];
    assert_int_equal(strata_entity_create_many(f->w, 3, 2, ids, values, e), STRATA_OK);
    assert_int_equal(hooks.texture_added, 3);
    assert_int_equal(hooks.textured_added, 3);
    assert_int_equal(hooks.last_handle, 9);
    assert_int_equal(strata_set(f->w, e[0], TEXTURE, &(texture){4}), STRATA_OK); /* a write, not an add */
    assert_int_equal(hooks.texture_added, 3);
    assert_int_equal(strata_remove(f->w, e[0], TEXTURE), STRATA_OK);
    assert_int_equal(hooks.texture_removed, 1);
    assert_int_equal(hooks.last_handle, 4);
    assert_int_equal(hooks.textured_removed, 1);
    assert_int_equal(strata_entity_destroy(f->w, e[1]), STRATA_OK);
    assert_int_equal(hooks.texture_removed, 2);
    world_close(f); /* e[2] dies with the world */
    assert_int_equal(hooks.texture_removed, 3);
    assert_int_equal(hooks.textured_removed, 3);
}

static void test_hook_destroy_from_a_hook_is_deferred(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t victim = mover(f);
    strata_entity_t e;
    assert_int_equal(strata_entity_create(f->w, &e), STRATA_OK);
    assert_int_equal(strata_add(f->w, e, TEXTURE, &(texture){1}), STRATA_OK);
    hooks.destroy_on_remove = victim;
    assert_int_equal(strata_remove(f->w, e, TEXTURE), STRATA_OK);
    assert_false(strata_entity_alive(f->w, victim)); /* applied once the remove was done */
    assert_int_equal(hooks.moving_removed, 1);
    assert_true(strata_entity_alive(f->w, e));
    world_close(f);
}

static void test_hook_creating_entities_in_hooks_keeps_records_valid(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = mover(f);
    hooks.create_in_hooks = 3000; /* past the initial records: they move */
    assert_int_equal(strata_add(f->w, e, TEXTURE, &(texture){6}), STRATA_OK);
    assert_true(strata_has(f->w, e, TEXTURE) && strata_has(f->w, e, VELOCITY));
    hooks.create_in_hooks = 6000;
    assert_int_equal(strata_remove(f->w, e, TEXTURE), STRATA_OK);
    assert_false(strata_has(f->w, e, TEXTURE));
    assert_int_equal(strata_add(f->w, e, TEXTURE, &(texture){7}), STRATA_OK);
    hooks.create_in_hooks = 12000;
    assert_int_equal(strata_entity_destroy(f->w, e), STRATA_OK);
    assert_false(strata_entity_alive(f->w, e));
    strata_world_stats_t s;
    strata_world_stats(f->w, &s);
    assert_int_equal(s.entities, 3000 + 6000 + 6000 + 12000); /* the adds ran the hook twice at 6000 */
    world_close(f);
}

static void test_hook_deferred_add_runs_hooks_when_applied(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = mover(f);
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    assert_true(strata_iter_next(&it));
    assert_int_equal(strata_add(f->w, e, TEXTURE, &(texture){2}), STRATA_OK);
    assert_int_equal(hooks.texture_added, 0);
    assert_false(strata_iter_next(&it));
    assert_int_equal(hooks.texture_added, 1);
    world_close(f);
}

static void test_hook_out_of_memory_runs_no_hook_and_changes_nothing(void **state) {
    fixture_t *f = *state;
    bool done = false;
    for (long n = 1; !done && n < 200; n++) {
        memset(&hooks, 0, sizeof hooks);
        f->heap = (heap_t){0};
        world_open(state);
        strata_entity_t e = mover(f);
        const uint32_t before_tables = f->w->table_count;
        f->heap.fail_at = f->heap.calls + n; /* the n-th allocation from here fails */
        strata_result_t r = strata_add(f->w, e, TEXTURE, &(texture){8});
        if (r == STRATA_OK) {
            done = true;
            assert_int_equal(hooks.texture_added, 1);
            assert_int_equal(hooks.textured_added, 1);
        } else {
            assert_int_equal(r, STRATA_ERR_NOMEM);
            assert_int_equal(hooks.texture_added + hooks.textured_added + hooks.moving_removed, 0);
            assert_false(strata_has(f->w, e, TEXTURE));
            assert_true(strata_has(f->w, e, VELOCITY));
            assert_int_equal(strata_query_count(f->w, Q_MOVING), 1);
            assert_true(f->w->table_count <= before_tables + 1); /* at most an empty new table */
        }
        world_close(f);
    }
    assert_true(done);
}

static void test_hook_dirty_sets_grow_with_records_or_fail_cleanly(void **state) {
    fixture_t *f = *state;
    bool done = false;
    for (long n = 1; !done && n < 200; n++) {
        f->heap = (heap_t){0};
        world_open(state);
        const uint32_t ids[] = {POSITION};
        static strata_entity_t out[5000];
        f->heap.fail_at = f->heap.calls + n;
        strata_result_t r = strata_entity_create_many(f->w, 5000, 1, ids, NULL, out);
        strata_world_stats_t s;
        strata_world_stats(f->w, &s);
        if (r == STRATA_OK) {
            done = true;
            assert_int_equal(s.entities, 5000);
            assert_int_equal(strata_query_changed_count(f->w, Q_CHANGED), 5000);
        } else {
            assert_int_equal(r, STRATA_ERR_NOMEM);
            assert_int_equal(s.entities, 0);
            assert_int_equal(strata_query_changed_count(f->w, Q_CHANGED), 0);
        }
        world_close(f);
    }
    assert_true(done);
}

static void test_hook_changed_iteration_yields_one_row_at_its_place(void **state) {
    fixture_t *f = world_open(state);
    const uint32_t ids[] = {POSITION};
    strata_entity_t e[6];
    assert_int_equal(strata_entity_create_many(f->w, 6, 1, ids, NULL, e), STRATA_OK);
    strata_iter_t it = strata_iter(f->w, Q_CHANGED);
    while (strata_iter_next(&it)) {}
    assert_int_equal(strata_query_changed_count(f->w, Q_CHANGED), 0);
    assert_int_equal(strata_set(f->w, e[4], POSITION, &(vec2){4, 4}), STRATA_OK);
    strata_mark(f->w, e[2], POSITION);
    strata_mark(f->w, e[2], VELOCITY); /* not tracked: no-op */
    it = strata_iter(f->w, Q_CHANGED);
    uint32_t rows = 0;
    while (strata_iter_next(&it)) {
        assert_int_equal(it.count, 1);
        const vec2 *p = (const vec2 *)it.columns[POSITION] + it.row;
        assert_true(it.entities[0] == e[4] || it.entities[0] == e[2]);
        if (it.entities[0] == e[4]) {
            assert_true(p->x == 4.0f);
        }
        rows++;
    }
    assert_int_equal(rows, 2);
    world_close(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hook_aspect_ids_follow_the_components, reset, teardown),
        cmocka_unit_test_setup_teardown(test_hook_query_hooks_follow_matching, reset, teardown),
        cmocka_unit_test_setup_teardown(test_hook_aspect_column_moves_with_the_entity, reset, teardown),
        cmocka_unit_test_setup_teardown(test_hook_component_hooks_on_create_add_remove_destroy, reset, teardown),
        cmocka_unit_test_setup_teardown(test_hook_destroy_from_a_hook_is_deferred, reset, teardown),
        cmocka_unit_test_setup_teardown(test_hook_creating_entities_in_hooks_keeps_records_valid, reset, teardown),
        cmocka_unit_test_setup_teardown(test_hook_deferred_add_runs_hooks_when_applied, reset, teardown),
        cmocka_unit_test_setup_teardown(test_hook_out_of_memory_runs_no_hook_and_changes_nothing, reset, teardown),
        cmocka_unit_test_setup_teardown(test_hook_dirty_sets_grow_with_records_or_fail_cleanly, reset, teardown),
        cmocka_unit_test_setup_teardown(test_hook_changed_iteration_yields_one_row_at_its_place, reset, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

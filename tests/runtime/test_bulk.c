/* test_bulk.c: one component added to or removed from many entities in one
 * call (strata_bulk_add, strata_bulk_remove, strata_query_add,
 * strata_query_remove): a whole table moves at once, the rest one at a
 * time; stale handles and out of memory change nothing; hooks, marks,
 * deferral and sparse components as for one entity at a time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "strata_internal.h"
#include "fixture.h"

typedef struct vec2 {
    float x, y;
} vec2;
typedef struct small {
    int32_t v;
} small;

enum { POS, VEL, TAG, SMALL, STUN, HEAT, HOOKED, COMPONENT_COUNT };
enum { Q_POS, Q_STUNNED, Q_CHANGED, QUERY_COUNT };

static struct { uint32_t added, removed; } hooks;

static void hooked_on_add(strata_world_t *w, strata_entity_t e, void *value) {
    (void)value;
    assert_true(strata_has(w, e, HOOKED));
    hooks.added++;
}

static void hooked_on_remove(strata_world_t *w, strata_entity_t e, void *value) {
    (void)w, (void)e, (void)value;
    hooks.removed++;
}

static const small small_defaults = {7};

static const strata_component_desc_t components[COMPONENT_COUNT] = {
    [POS] = COMPONENT("Pos", vec2, NULL),
    [VEL] = COMPONENT("Vel", vec2, NULL),
    [TAG] = TAG("Tag"),
    [SMALL] = COMPONENT("Small", small, &small_defaults),
    [STUN] = {.name = "Stun", .storage = STRATA_STORAGE_SPARSE},
    [HEAT] = {.name = "Heat", .size = sizeof(small), .align = _Alignof(small), .storage = STRATA_STORAGE_SPARSE},
    [HOOKED] = {.name = "Hooked", .on_add = hooked_on_add, .on_remove = hooked_on_remove},
};

static const strata_query_desc_t queries[QUERY_COUNT] = {
    [Q_POS] = QUERY("Pos", BIT(POS), 0),
    [Q_STUNNED] = QUERY("Stunned", BIT(POS) | BIT(STUN), 0),
    [Q_CHANGED] = {.name = "Changed", .all = {{BIT(SMALL)}}, .changed = {{BIT(SMALL)}}},
};

static const strata_schema_t schema = {
    .name = "bulk",
    .version = 1,
    .component_count = COMPONENT_COUNT,
    .components = components,
    .query_count = QUERY_COUNT,
    .queries = queries,
};

/* The same components but the hooked one: a world without hooks, whose
 * deferred changes of one component are runs. */
static const strata_schema_t schema_unhooked = {
    .name = "bulk",
    .version = 1,
    .component_count = HOOKED,
    .components = components,
    .query_count = QUERY_COUNT,
    .queries = queries,
};

static int reset(void **state) {
    memset(&hooks, 0, sizeof hooks);
    return setup(state);
}

/* n entities with Pos (x = their number) and, if `vel`, Vel. */
static void spawn(fixture_t *f, uint32_t n, bool vel, strata_entity_t *out) {
    const uint32_t ids[] = {POS, VEL};
    assert_int_equal(strata_entity_create_many(f->w, n, vel ? 2 : 1, ids, NULL, out), STRATA_OK);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(strata_set(f->w, out[i], POS, &(vec2){(float)i, 0}), STRATA_OK);
    }
}

/* The entities have c (has) and their Pos is intact. */
static void all_have(const fixture_t *f, uint32_t n, const strata_entity_t *e, uint32_t c, bool has) {
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(strata_has(f->w, e[i], c), has);
        assert_float_equal(((const vec2 *)strata_get(f->w, e[i], POS))->x, (float)i, 0);
    }
}

static void test_bulk_whole_table_moves_at_once(void **state) {
    fixture_t *f = world_open(state);
    enum { N = 1000 };
    strata_entity_t e[N];
    spawn(f, N, false, e);
    const sti_table_t *from = f->w->tables[sti_record_lookup(f->w, e[0])->table];
    assert_int_equal(strata_bulk_add(f->w, TAG, N, e, NULL), STRATA_OK);
    all_have(f, N, e, TAG, true);
    const sti_table_t *to = f->w->tables[sti_record_lookup(f->w, e[0])->table];
    assert_ptr_not_equal(to, from);
    assert_int_equal(from->count, 0);
    assert_int_equal(to->count, N);
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(sti_record_lookup(f->w, e[i])->row, i); /* in their order */
    }
    /* A value for each, along an edge with a column: one copy a column. */
    small values[N];
    for (uint32_t i = 0; i < N; i++) {
        values[i].v = (int32_t)i * 3;
    }
    assert_int_equal(strata_bulk_add(f->w, SMALL, N, e, values), STRATA_OK);
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(((const small *)strata_get(f->w, e[i], SMALL))->v, (int32_t)i * 3);
    }
    assert_int_equal(strata_bulk_remove(f->w, TAG, N, e), STRATA_OK);
    all_have(f, N, e, TAG, false);
    assert_int_equal(strata_bulk_remove(f->w, TAG, N, e), STRATA_ERR_MISSING);
    assert_int_equal(strata_bulk_remove(f->w, SMALL, N, e), STRATA_OK);
    all_have(f, N, e, SMALL, false);
    world_close(f);
}

static void test_bulk_scattered_entities_and_duplicates(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[40], picked[12];
    spawn(f, 20, false, e);
    spawn(f, 20, true, e + 20);
    small values[12];
    for (uint32_t i = 0; i < 12; i++) {
        picked[i] = e[(i * 7) % 40]; /* over two tables, out of order */
        values[i].v = (int32_t)i;
    }
    picked[11] = picked[3]; /* twice: the last value wins */
    assert_int_equal(strata_bulk_add(f->w, SMALL, 12, picked, values), STRATA_OK);
    assert_int_equal(((const small *)strata_get(f->w, picked[3], SMALL))->v, 11);
    assert_int_equal(((const small *)strata_get(f->w, picked[5], SMALL))->v, 5);
    assert_int_equal(strata_query_count(f->w, Q_CHANGED), 11);
    assert_int_equal(strata_query_changed_count(f->w, Q_CHANGED), 11);     /* an add marks */
    assert_int_equal(strata_bulk_add(f->w, SMALL, 3, e, NULL), STRATA_OK); /* defaults; one had it */
    assert_int_equal(((const small *)strata_get(f->w, e[0], SMALL))->v, 7);
    assert_int_equal(strata_bulk_remove(f->w, SMALL, 40, e), STRATA_OK); /* those without it are skipped */
    for (uint32_t i = 0; i < 40; i++) {
        assert_false(strata_has(f->w, e[i], SMALL));
        assert_float_equal(((const vec2 *)strata_get(f->w, e[i], POS))->x, (float)(i % 20), 0);
    }
    world_close(f);
}

/* A run the check found to be a whole table stops being one when a
 * handle before it moves a row of that table: it goes one at a time. */
static void test_bulk_whole_table_broken_before_its_turn(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[5];
    spawn(f, 5, false, e);
    const strata_entity_t picked[6] = {e[1], e[0], e[1], e[2], e[3], e[4]}; /* e[1], then its whole table */
    const small values[6] = {{10}, {11}, {12}, {13}, {14}, {15}};
    assert_int_equal(strata_bulk_add(f->w, SMALL, 6, picked, values), STRATA_OK);
    for (uint32_t i = 1; i < 6; i++) { /* the last value of each wins */
        assert_int_equal(((const small *)strata_get(f->w, picked[i], SMALL))->v, values[i].v);
    }
    all_have(f, 5, e, SMALL, true);
    world_close(f);
}

static void test_bulk_stale_handles_change_nothing(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[10];
    spawn(f, 10, false, e);
    strata_entity_t dead = e[4];
    assert_int_equal(strata_entity_destroy(f->w, dead), STRATA_OK);
    e[4] = dead;
    assert_int_equal(strata_bulk_add(f->w, TAG, 10, e, NULL), STRATA_ERR_STALE);
    assert_int_equal(strata_bulk_add(f->w, STUN, 10, e, NULL), STRATA_ERR_STALE);
    strata_entity_t forged = sti_entity_make(900, 1), null_one = STRATA_ENTITY_NULL;
    assert_int_equal(strata_bulk_add(f->w, TAG, 1, &forged, NULL), STRATA_ERR_STALE);
    assert_int_equal(strata_bulk_remove(f->w, TAG, 1, &null_one), STRATA_ERR_STALE);
    for (uint32_t i = 0; i < 10; i++) {
        assert_false(strata_has(f->w, e[i], TAG));
        assert_false(strata_has(f->w, e[i], STUN));
    }
    assert_int_equal(strata_bulk_add(f->w, TAG, 0, NULL, NULL), STRATA_OK);
    assert_int_equal(strata_bulk_remove(f->w, TAG, 0, NULL), STRATA_ERR_MISSING);
    world_close(f);
}

/* Every allocation of a bulk add fails in turn: NOMEM, and no entity has
 * changed; then it succeeds. Tables, edges and room it made may stay. */
static void test_bulk_out_of_memory_changes_nothing(void **state) {
    fixture_t *f = world_open(state);
    enum { N = 300 };
    strata_entity_t e[N], picked[N / 2];
    spawn(f, N / 2, false, e);
    spawn(f, N / 2, true, e + N / 2);
    for (uint32_t i = 0; i < N / 2; i++) {
        picked[i] = e[(i * 37) % N];
    }
    const uint32_t cs[] = {SMALL, TAG, HEAT, STUN};
    for (uint32_t k = 0; k < 4; k++) {
        for (long at = 1;; at++) {
            f->heap.fail_at = f->heap.calls + at;
            strata_result_t r = k % 2 == 0 ? strata_bulk_add(f->w, cs[k], N / 2, picked, NULL)
                                           : strata_query_add(f->w, Q_POS, cs[k], NULL);
            f->heap.fail_at = 0;
            if (r == STRATA_OK) {
                break;
            }
            assert_int_equal(r, STRATA_ERR_NOMEM);
            for (uint32_t i = 0; i < N; i++) {
                assert_false(strata_has(f->w, e[i], cs[k]));
            }
        }
        for (uint32_t i = 0; i < N / 2; i++) {
            assert_true(strata_has(f->w, picked[i], cs[k]));
        }
    }
    for (uint32_t i = 0; i < N; i++) {
        assert_true(strata_has(f->w, e[i], TAG) && strata_has(f->w, e[i], STUN));
        assert_float_equal(((const vec2 *)strata_get(f->w, e[i], POS))->x, (float)(i % (N / 2)), 0);
    }
    world_close(f);
}

static void test_bulk_sparse_components(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[100];
    spawn(f, 100, false, e);
    small values[100];
    for (uint32_t i = 0; i < 100; i++) {
        values[i].v = (int32_t)i + 1;
    }
    uint32_t tables = f->w->table_count;
    assert_int_equal(strata_bulk_add(f->w, HEAT, 100, e, values), STRATA_OK);
    assert_int_equal(strata_bulk_add(f->w, STUN, 50, e, NULL), STRATA_OK);
    assert_int_equal(f->w->table_count, tables);
    for (uint32_t i = 0; i < 100; i++) {
        assert_int_equal(((const small *)strata_get(f->w, e[i], HEAT))->v, (int32_t)i + 1);
        assert_int_equal(strata_has(f->w, e[i], STUN), i < 50);
    }
    assert_int_equal(strata_query_count(f->w, Q_STUNNED), 50);
    assert_int_equal(strata_query_remove(f->w, Q_STUNNED, HEAT), STRATA_OK); /* from the stunned only */
    for (uint32_t i = 0; i < 100; i++) {
        assert_int_equal(strata_has(f->w, e[i], HEAT), i >= 50);
    }
    assert_int_equal(strata_bulk_remove(f->w, STUN, 100, e), STRATA_OK);
    assert_int_equal(strata_query_count(f->w, Q_STUNNED), 0);
    world_close(f);
}

static void test_bulk_query_form(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[60], bare;
    spawn(f, 30, false, e);
    spawn(f, 30, true, e + 30);
    assert_int_equal(strata_entity_create(f->w, &bare), STRATA_OK);
    assert_int_equal(strata_query_add(f->w, Q_POS, SMALL, &(small){42}), STRATA_OK);
    for (uint32_t i = 0; i < 60; i++) {
        assert_int_equal(((const small *)strata_get(f->w, e[i], SMALL))->v, 42);
    }
    assert_false(strata_has(f->w, bare, SMALL));
    assert_int_equal(strata_query_add(f->w, Q_POS, TAG, NULL), STRATA_OK);
    assert_int_equal(strata_query_remove(f->w, Q_POS, TAG), STRATA_OK);
    assert_int_equal(strata_query_remove(f->w, Q_POS, TAG), STRATA_OK);        /* none has it: nothing to do */
    assert_int_equal(strata_query_add(f->w, Q_STUNNED, TAG, NULL), STRATA_OK); /* none matches */
    for (uint32_t i = 0; i < 60; i++) {
        assert_false(strata_has(f->w, e[i], TAG));
    }
    world_close(f);
}

static void test_bulk_hooks_run_for_each_entity(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[64];
    spawn(f, 64, false, e);
    assert_int_equal(strata_bulk_add(f->w, HOOKED, 64, e, NULL), STRATA_OK);
    assert_int_equal(hooks.added, 64);
    assert_int_equal(strata_bulk_add(f->w, HOOKED, 64, e, NULL), STRATA_OK); /* present: no hook */
    assert_int_equal(hooks.added, 64);
    assert_int_equal(strata_query_remove(f->w, Q_POS, HOOKED), STRATA_OK);
    assert_int_equal(hooks.removed, 64);
    all_have(f, 64, e, HOOKED, false);
    world_close(f);
}

static void test_bulk_deferred_until_the_scope_ends(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[20];
    spawn(f, 20, false, e);
    small values[20];
    for (uint32_t i = 0; i < 20; i++) {
        values[i].v = (int32_t)i;
    }
    for (int hooked = 0; hooked < 2; hooked++) { /* a tag, then a hooked one (this world has hooks: a command each) */
        strata_defer_begin(f->w);
        assert_int_equal(strata_bulk_add(f->w, SMALL, 20, e, values), STRATA_OK);
        assert_int_equal(strata_bulk_add(f->w, hooked ? HOOKED : TAG, 10, e, NULL), STRATA_OK);
        assert_int_equal(strata_query_add(f->w, Q_POS, STUN, NULL), STRATA_OK);
        values[0].v = 99; /* the values were copied when recorded */
        assert_false(strata_has(f->w, e[0], SMALL));
        assert_int_equal(strata_bulk_remove(f->w, SMALL, 20, e), STRATA_ERR_MISSING); /* checked now */
        assert_int_equal(strata_defer_end(f->w), STRATA_OK);
        for (uint32_t i = 0; i < 20; i++) {
            assert_int_equal(((const small *)strata_get(f->w, e[i], SMALL))->v, i == 0 ? 0 : (int32_t)i);
            assert_int_equal(strata_has(f->w, e[i], hooked ? HOOKED : TAG), i < 10);
            assert_true(strata_has(f->w, e[i], STUN));
        }
        strata_defer_begin(f->w);
        assert_int_equal(strata_bulk_remove(f->w, SMALL, 20, e), STRATA_OK);
        assert_int_equal(strata_query_remove(f->w, Q_POS, STUN), STRATA_OK);
        assert_int_equal(strata_defer_end(f->w), STRATA_OK);
        for (uint32_t i = 0; i < 20; i++) {
            assert_false(strata_has(f->w, e[i], SMALL));
            assert_false(strata_has(f->w, e[i], STUN));
        }
        values[0].v = 0;
    }
    assert_int_equal(hooks.added, 10);
    world_close(f);
}

/* Without hooks, a deferred bulk change is one run (an entry an entity),
 * whose replay moves a whole table as one. */
static void test_bulk_deferred_runs_without_hooks(void **state) {
    fixture_t *f = fixture_open(state, &schema_unhooked);
    strata_entity_t e[200];
    spawn(f, 200, false, e);
    strata_defer_begin(f->w);
    assert_int_equal(strata_bulk_add(f->w, TAG, 200, e, NULL), STRATA_OK);
    assert_int_equal(strata_bulk_add(f->w, HEAT, 100, e + 100, NULL), STRATA_OK);
    strata_world_stats_t stats;
    strata_world_stats(f->w, &stats);
    assert_int_equal(stats.pending, 300);
    assert_int_equal(f->w->cmd_count, 300);
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    all_have(f, 200, e, TAG, true);
    for (uint32_t i = 0; i < 200; i++) {
        assert_int_equal(strata_has(f->w, e[i], HEAT), i >= 100);
    }
    strata_defer_begin(f->w);
    for (long at = 1;; at++) { /* recording runs out of memory: nothing recorded */
        f->heap.fail_at = f->heap.calls + at;
        strata_result_t r = strata_bulk_remove(f->w, TAG, 200, e);
        f->heap.fail_at = 0;
        if (r == STRATA_OK) {
            break;
        }
        assert_int_equal(r, STRATA_ERR_NOMEM);
        assert_int_equal(f->w->cmd_count, 0);
    }
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    all_have(f, 200, e, TAG, false);
    world_close(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_bulk_whole_table_moves_at_once, reset, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_scattered_entities_and_duplicates, reset, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_whole_table_broken_before_its_turn, reset, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_stale_handles_change_nothing, reset, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_out_of_memory_changes_nothing, reset, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_sparse_components, reset, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_query_form, reset, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_hooks_run_for_each_entity, reset, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_deferred_until_the_scope_ends, reset, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_deferred_runs_without_hooks, reset, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_query.c: the query cache (matching tables, kept up to date as
 * tables appear, those with rows first: a table that empties or fills
 * moves between the parts), iteration (the tables with rows only, never
 * visiting an empty one; columns by id, scopes opened and closed exactly
 * once), query counts. */
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
typedef struct health {
    int32_t hp;
} health;

enum { POSITION, VELOCITY, HEALTH, FROZEN, HIGH = 100, COMPONENT_COUNT = 130 };
enum { Q_MOVING, Q_ALIVE, Q_FROZEN, Q_HIGH, QUERY_COUNT };

static const strata_component_desc_t components[COMPONENT_COUNT] = {
    [POSITION] = COMPONENT("Position", vec2, NULL),
    [VELOCITY] = COMPONENT("Velocity", vec2, NULL),
    [HEALTH] = COMPONENT("Health", health, NULL),
    [FROZEN] = TAG("Frozen"),
    /* The others are unnamed tags; HIGH sits in the mask's second word. */
};

static const strata_query_desc_t queries[QUERY_COUNT] = {
    [Q_MOVING] = QUERY("Moving", BIT(POSITION) | BIT(VELOCITY), BIT(FROZEN)),
    [Q_ALIVE] = QUERY("Alive", BIT(HEALTH), 0),
    [Q_FROZEN] = QUERY("Frozen", BIT(FROZEN), 0),
    [Q_HIGH] = {.name = "High", .all = {{BIT(POSITION), BIT(HIGH - 64)}}},
};

static const strata_schema_t schema = {
    .name = "test",
    .version = 1,
    .component_count = COMPONENT_COUNT,
    .components = components,
    .query_count = QUERY_COUNT,
    .queries = queries,
};


/* n new entities with the components in ids (defaults). */
static void spawn(fixture_t *f, uint32_t n, uint32_t k, const uint32_t *ids, strata_entity_t *out) {
    assert_int_equal(strata_entity_create_many(f->w, n, k, ids, NULL, out), STRATA_OK);
}

/* na entities with Position and Velocity into a[], nb with Health too into b[]. */
static void spawn_two_tables(fixture_t *f, uint32_t na, strata_entity_t *a, uint32_t nb, strata_entity_t *b) {
    uint32_t pv[] = {POSITION, VELOCITY};
    uint32_t pvh[] = {POSITION, VELOCITY, HEALTH};
    spawn(f, na, 2, pv, a);
    spawn(f, nb, 3, pvh, b);
}

/* --- Tests ---------------------------------------------------------------- */

static void test_query_matches_all_and_none(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[10];
    uint32_t pv[] = {POSITION, VELOCITY};
    uint32_t pvf[] = {POSITION, VELOCITY, FROZEN};
    uint32_t p[] = {POSITION};
    uint32_t pvh[] = {POSITION, VELOCITY, HEALTH};
    spawn(f, 3, 2, pv, e);
    spawn(f, 2, 3, pvf, e);
    spawn(f, 4, 1, p, e);
    spawn(f, 1, 3, pvh, e);
    assert_int_equal(strata_query_count(f->w, Q_MOVING), 4);
    assert_int_equal(strata_query_count(f->w, Q_FROZEN), 2);
    assert_int_equal(strata_query_count(f->w, Q_ALIVE), 1);
    assert_int_equal(f->w->queries[Q_MOVING].count, 2);
    assert_int_equal(f->w->queries[Q_FROZEN].count, 1);
    world_close(f);
}

static void test_query_cache_follows_new_tables_and_second_mask_word(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e;
    assert_int_equal(strata_entity_create(f->w, &e), STRATA_OK);
    assert_int_equal(strata_query_count(f->w, Q_HIGH), 0);
    assert_int_equal(strata_add(f->w, e, HIGH, NULL), STRATA_OK);
    assert_int_equal(strata_query_count(f->w, Q_HIGH), 0);
    assert_int_equal(strata_add(f->w, e, POSITION, NULL), STRATA_OK);
    assert_int_equal(strata_query_count(f->w, Q_HIGH), 1);
    assert_int_equal(strata_add(f->w, e, VELOCITY, NULL), STRATA_OK);
    assert_int_equal(strata_query_count(f->w, Q_HIGH), 1);
    assert_int_equal(strata_query_count(f->w, Q_MOVING), 1);
    assert_int_equal(f->w->queries[Q_HIGH].count, 2); /* both tables stay listed */
    world_close(f);
}

static void test_query_iteration_skips_empty_tables(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a[3], b[2];
    spawn_two_tables(f, 3, a, 2, b);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(strata_entity_destroy(f->w, a[i]), STRATA_OK);
    }
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    int tables = 0;
    while (strata_iter_next(&it)) {
        tables++;
        assert_int_equal(it.count, 2);
        assert_int_equal(it.entities[0], b[0]);
        assert_int_equal(it.entities[1], b[1]);
        assert_non_null(it.columns[POSITION]);
        assert_non_null(it.columns[HEALTH]);
        assert_null(it.columns[FROZEN]);
    }
    assert_int_equal(tables, 1);
    assert_false(it.open);
    assert_false(strata_is_deferred(f->w));
    world_close(f);
}

static void test_query_iteration_exposes_columns_by_id(void **state) {
    fixture_t *f = world_open(state);
    enum { N = 50 };
    strata_entity_t e[N];
    for (int i = 0; i < N; i++) {
        vec2 p = {(float)i, 0.0f}, v = {1.0f, (float)i};
        uint32_t ids[] = {POSITION, VELOCITY};
        const void *values[] = {&p, &v};
        assert_int_equal(strata_entity_create_many(f->w, 1, 2, ids, values, &e[i]), STRATA_OK);
        if (i % 2) {
            assert_int_equal(strata_add(f->w, e[i], HEALTH, NULL), STRATA_OK);
        }
    }
    /* p += v through the columns, then read back through get. */
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    uint32_t seen = 0;
    while (strata_iter_next(&it)) {
        vec2 *pos = it.columns[POSITION];
        const vec2 *vel = it.columns[VELOCITY];
        for (uint32_t i = 0; i < it.count; i++) {
            pos[i].x += vel[i].x;
            pos[i].y += vel[i].y;
        }
        seen += it.count;
    }
    assert_int_equal(seen, N);
    for (int i = 0; i < N; i++) {
        const vec2 *p = strata_get(f->w, e[i], POSITION);
        assert_true(p->x == (float)i + 1.0f && p->y == (float)i);
    }
    world_close(f);
}

static void test_query_iter_end_is_idempotent_and_stops(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[4];
    uint32_t pv[] = {POSITION, VELOCITY};
    uint32_t pvh[] = {POSITION, VELOCITY, HEALTH};
    spawn(f, 2, 2, pv, e);
    spawn(f, 2, 3, pvh, e + 2);
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    assert_true(strata_is_deferred(f->w));
    assert_true(strata_iter_next(&it));
    assert_int_equal(strata_entity_destroy(f->w, e[0]), STRATA_OK); /* deferred */
    assert_true(strata_entity_alive(f->w, e[0]));
    assert_int_equal(strata_iter_end(&it), STRATA_OK);
    assert_false(strata_is_deferred(f->w));
    assert_false(strata_entity_alive(f->w, e[0]));
    assert_int_equal(strata_iter_end(&it), STRATA_OK);
    assert_false(strata_iter_next(&it)); /* ended: nothing more, no second close */
    assert_false(strata_is_deferred(f->w));
    /* After the natural end too. */
    it = strata_iter(f->w, Q_MOVING);
    while (strata_iter_next(&it)) {}
    assert_false(strata_is_deferred(f->w));
    assert_int_equal(strata_iter_end(&it), STRATA_OK);
    assert_false(strata_iter_next(&it));
    assert_false(strata_is_deferred(f->w));
    world_close(f);
}

static void test_query_finished_iterator_ignores_tables_made_by_its_settle(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e;
    uint32_t pv[] = {POSITION, VELOCITY};
    spawn(f, 1, 2, pv, &e);
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    while (strata_iter_next(&it)) {
        assert_int_equal(strata_add(f->w, e, HEALTH, NULL), STRATA_OK); /* a new matching table at the end */
    }
    assert_int_equal(f->w->queries[Q_MOVING].count, 2);
    assert_false(strata_iter_next(&it));
    assert_false(strata_is_deferred(f->w));
    world_close(f);
}

static void test_query_nested_iterators_settle_at_outermost_end(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[3];
    uint32_t pv[] = {POSITION, VELOCITY};
    spawn(f, 3, 2, pv, e);
    strata_iter_t outer = strata_iter(f->w, Q_MOVING);
    while (strata_iter_next(&outer)) {
        strata_iter_t inner = strata_iter(f->w, Q_MOVING);
        while (strata_iter_next(&inner)) {
            for (uint32_t i = 0; i < inner.count; i++) {
                assert_int_equal(strata_add(f->w, inner.entities[i], HEALTH, NULL), STRATA_OK);
            }
        }
        /* The inner end closed its scope only. */
        assert_true(strata_is_deferred(f->w));
        assert_int_equal(strata_query_count(f->w, Q_ALIVE), 0);
    }
    assert_false(strata_is_deferred(f->w));
    assert_int_equal(strata_query_count(f->w, Q_ALIVE), 3);
    world_close(f);
}

static void test_query_empty_world_iterates_nothing(void **state) {
    fixture_t *f = world_open(state);
    strata_iter_t it = strata_iter(f->w, Q_ALIVE);
    assert_false(strata_iter_next(&it));
    assert_int_equal(it.count, 0);
    assert_null(it.entities);
    assert_false(strata_is_deferred(f->w));
    assert_int_equal(strata_query_count(f->w, Q_ALIVE), 0);
    world_close(f);
}

/* The iterator's range: the list's first part, the tables with rows. */
static uint32_t range_of(strata_world_t *w, uint32_t q) {
    strata_iter_t it = strata_iter(w, q);
    uint32_t n = (uint32_t)(it.stop - it.at);
    assert_int_equal(strata_iter_end(&it), STRATA_OK);
    return n;
}

static void test_query_emptied_table_leaves_the_walk(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a[3], b[2];
    spawn_two_tables(f, 3, a, 2, b);
    assert_int_equal(range_of(f->w, Q_MOVING), 2);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(strata_entity_destroy(f->w, a[i]), STRATA_OK);
        check_tables(f->w);
    }
    /* {Position, Velocity} is still listed, behind the range: never visited. */
    assert_int_equal(f->w->queries[Q_MOVING].count, 2);
    assert_int_equal(f->w->queries[Q_MOVING].live, 1);
    assert_int_equal(range_of(f->w, Q_MOVING), 1);
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    assert_true(strata_iter_next(&it));
    assert_int_equal(it.count, 2);
    assert_int_equal(it.entities[0], b[0]);
    assert_false(strata_iter_next(&it));
    assert_int_equal(strata_query_count(f->w, Q_MOVING), 2);
    world_close(f);
}

static void test_query_refilled_table_rejoins_the_walk(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a, b[2];
    spawn_two_tables(f, 1, &a, 2, b);
    /* Empty both, refill the first: the order of the first part follows the fills. */
    assert_int_equal(strata_entity_destroy(f->w, a), STRATA_OK);
    assert_int_equal(strata_remove(f->w, b[0], HEALTH), STRATA_OK); /* refills {P, V} */
    assert_int_equal(strata_remove(f->w, b[1], HEALTH), STRATA_OK); /* empties {P, V, H} */
    check_tables(f->w);
    assert_int_equal(range_of(f->w, Q_MOVING), 1);
    assert_int_equal(range_of(f->w, Q_ALIVE), 0);
    assert_int_equal(strata_add(f->w, b[1], HEALTH, NULL), STRATA_OK); /* refills {P, V, H} */
    check_tables(f->w);
    assert_int_equal(range_of(f->w, Q_MOVING), 2);
    assert_int_equal(range_of(f->w, Q_ALIVE), 1);
    uint32_t seen = 0;
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    while (strata_iter_next(&it)) {
        assert_int_equal(it.count, 1);
        seen++;
    }
    assert_int_equal(seen, 2);
    world_close(f);
}

/* Every way a table's count reaches 0 or leaves it keeps the lists whole:
 * one create and many, an add and a remove on the leaf path and off it,
 * destroy now and at a step's end (a whole table at once), deferred moves
 * of a whole table at once, a clear. */
static void test_query_lists_follow_every_path_that_empties_or_fills(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[8], one;
    uint32_t pv[] = {POSITION, VELOCITY};
    spawn(f, 4, 2, pv, e);
    check_tables(f->w);
    assert_int_equal(strata_entity_create(f->w, &one), STRATA_OK);    /* the empty table fills */
    assert_int_equal(strata_add(f->w, one, HEALTH, NULL), STRATA_OK); /* a new edge: the slow path */
    check_tables(f->w);
    assert_int_equal(strata_remove(f->w, one, HEALTH), STRATA_OK);
    assert_int_equal(strata_add(f->w, one, HEALTH, NULL), STRATA_OK); /* the leaf path, into an empty table */
    check_tables(f->w);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(strata_add(f->w, e[i], FROZEN, NULL), STRATA_OK);
    }
    check_tables(f->w);
    assert_int_equal(strata_query_count(f->w, Q_MOVING), 0);
    /* Deferred: the run of removes moves the whole table at once. */
    strata_iter_t it = strata_iter(f->w, Q_FROZEN);
    while (strata_iter_next(&it)) {
        for (uint32_t i = 0; i < it.count; i++) {
            assert_int_equal(strata_remove(f->w, it.entities[i], FROZEN), STRATA_OK);
        }
    }
    check_tables(f->w);
    assert_int_equal(range_of(f->w, Q_FROZEN), 0);
    assert_int_equal(strata_query_count(f->w, Q_MOVING), 4);
    /* Destroys at a step's end: the whole table at once. */
    strata_step_begin(f->w);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(strata_entity_destroy(f->w, e[i]), STRATA_OK);
    }
    assert_int_equal(range_of(f->w, Q_MOVING), 1);
    assert_int_equal(strata_step_end(f->w), STRATA_OK);
    check_tables(f->w);
    assert_int_equal(range_of(f->w, Q_MOVING), 0);
    spawn(f, 2, 2, pv, e);
    check_tables(f->w);
    strata_world_clear(f->w);
    check_tables(f->w);
    assert_int_equal(range_of(f->w, Q_MOVING), 0);
    assert_int_equal(range_of(f->w, Q_ALIVE), 0);
    world_close(f);
}

/* While an iterator is open its range holds: changes wait for its end, so
 * the tables it visits keep their rows; after it, the lists follow. */
static void test_query_range_holds_while_the_visit_empties_tables(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a[2], b[2];
    spawn_two_tables(f, 2, a, 2, b);
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    uint32_t seen = 0;
    while (strata_iter_next(&it)) {
        for (uint32_t i = 0; i < it.count; i++, seen++) {
            assert_int_equal(strata_entity_destroy(f->w, it.entities[i]), STRATA_OK);
        }
        assert_int_equal(f->w->queries[Q_MOVING].live, 2);
    }
    assert_int_equal(seen, 4);
    check_tables(f->w);
    assert_int_equal(f->w->queries[Q_MOVING].live, 0);
    world_close(f);
}

static void test_query_assert_query_out_of_range(void **state) {
    fixture_t *f = world_open(state);
    expect_assert_failure(strata_iter(f->w, QUERY_COUNT));
    expect_assert_failure(strata_query_count(f->w, QUERY_COUNT));
    assert_false(strata_is_deferred(f->w));
    world_close(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_query_matches_all_and_none, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_cache_follows_new_tables_and_second_mask_word, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_iteration_skips_empty_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_iteration_exposes_columns_by_id, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_iter_end_is_idempotent_and_stops, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_finished_iterator_ignores_tables_made_by_its_settle, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_query_nested_iterators_settle_at_outermost_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_empty_world_iterates_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_emptied_table_leaves_the_walk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_refilled_table_rejoins_the_walk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_lists_follow_every_path_that_empties_or_fills, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_range_holds_while_the_visit_empties_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_assert_query_out_of_range, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_entity.c: entity ids (index + generation, LIFO reuse), stale
 * handles, creation one by one and in bulk, destruction, limits, memory
 * per entity. */
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

enum { POSITION, VELOCITY, HEALTH, FROZEN, COMPONENT_COUNT };
enum { Q_MOVING, Q_ALIVE, QUERY_COUNT };

static const vec2 position_defaults = {1.0f, 2.0f};
static const health health_defaults = {100};

static const strata_component_desc_t components[COMPONENT_COUNT] = {
    [POSITION] = COMPONENT("Position", vec2, &position_defaults),
    [VELOCITY] = COMPONENT("Velocity", vec2, NULL),
    [HEALTH] = COMPONENT("Health", health, &health_defaults),
    [FROZEN] = TAG("Frozen"),
};

static const strata_query_desc_t queries[QUERY_COUNT] = {
    [Q_MOVING] = QUERY("Moving", BIT(POSITION) | BIT(VELOCITY), BIT(FROZEN)),
    [Q_ALIVE] = QUERY("Alive", BIT(HEALTH), 0),
};

static const strata_schema_t schema = {
    .name = "test",
    .version = 1,
    .component_count = COMPONENT_COUNT,
    .components = components,
    .query_count = QUERY_COUNT,
    .queries = queries,
};


/* --- Tests ---------------------------------------------------------------- */

static void test_entity_create_gives_distinct_live_handles(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[100];
    for (int i = 0; i < 100; i++) {
        assert_int_equal(strata_entity_create(f->w, &e[i]), STRATA_OK);
        assert_true(e[i] != STRATA_ENTITY_NULL);
        assert_int_equal(e[i] >> 32, 1); /* first generation */
        assert_true(strata_entity_alive(f->w, e[i]));
        for (int j = 0; j < i; j++) {
            assert_true(e[i] != e[j]);
        }
    }
    strata_world_stats_t s;
    strata_world_stats(f->w, &s);
    assert_int_equal(s.entities, 100);
    world_close(f);
}

static void test_entity_destroy_makes_handle_stale(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e;
    assert_int_equal(strata_entity_create(f->w, &e), STRATA_OK);
    assert_int_equal(strata_entity_destroy(f->w, e), STRATA_OK);
    assert_false(strata_entity_alive(f->w, e));
    assert_int_equal(strata_entity_destroy(f->w, e), STRATA_ERR_STALE);
    strata_world_stats_t s;
    strata_world_stats(f->w, &s);
    assert_int_equal(s.entities, 0);
    world_close(f);
}

static void test_entity_reuses_last_freed_index_with_new_generation(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a, b, c;
    assert_int_equal(strata_entity_create(f->w, &a), STRATA_OK);
    assert_int_equal(strata_entity_create(f->w, &b), STRATA_OK);
    assert_int_equal(strata_entity_create(f->w, &c), STRATA_OK);
    assert_int_equal(strata_entity_destroy(f->w, a), STRATA_OK);
    assert_int_equal(strata_entity_destroy(f->w, b), STRATA_OK);
    strata_entity_t d, e;
    assert_int_equal(strata_entity_create(f->w, &d), STRATA_OK);
    assert_int_equal(strata_entity_create(f->w, &e), STRATA_OK);
    /* Last freed, first reused. */
    assert_int_equal((uint32_t)d, (uint32_t)b);
    assert_int_equal((uint32_t)e, (uint32_t)a);
    assert_int_equal(d >> 32, 2);
    assert_false(strata_entity_alive(f->w, b));
    assert_true(strata_entity_alive(f->w, d));
    assert_true(strata_entity_alive(f->w, c));
    world_close(f);
}

static void test_entity_generation_skips_zero_on_wrap(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e;
    assert_int_equal(strata_entity_create(f->w, &e), STRATA_OK);
    uint32_t index = (uint32_t)e;
    /* Pretend this index has been reused 2^32 - 2 times. */
    f->w->records[index].generation = UINT32_MAX;
    e = sti_entity_make(index, UINT32_MAX);
    assert_true(strata_entity_alive(f->w, e));
    assert_int_equal(strata_entity_destroy(f->w, e), STRATA_OK);
    strata_entity_t again;
    assert_int_equal(strata_entity_create(f->w, &again), STRATA_OK);
    assert_int_equal((uint32_t)again, index);
    assert_int_equal(again >> 32, 1);
    assert_false(strata_entity_alive(f->w, e));
    world_close(f);
}

static void test_entity_stale_handles_fail_every_operation(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t dead, live;
    vec2 p = {5.0f, 6.0f};
    assert_int_equal(strata_entity_create(f->w, &dead), STRATA_OK);
    assert_int_equal(strata_entity_create(f->w, &live), STRATA_OK);
    assert_int_equal(strata_add(f->w, live, POSITION, &p), STRATA_OK);
    assert_int_equal(strata_add(f->w, dead, POSITION, &p), STRATA_OK);
    assert_int_equal(strata_entity_destroy(f->w, dead), STRATA_OK);
    /* A new entity takes the dead one's index: the stale handle now names a
     * live index with another generation. */
    strata_entity_t reuse;
    assert_int_equal(strata_entity_create(f->w, &reuse), STRATA_OK);
    assert_int_equal((uint32_t)reuse, (uint32_t)dead);
    assert_int_equal(strata_add(f->w, reuse, HEALTH, NULL), STRATA_OK);

    strata_entity_t stale[] = {
        dead,
        STRATA_ENTITY_NULL,
        sti_entity_make(5000, 1),           /* index out of range */
        sti_entity_make((uint32_t)live, 0), /* generation 0 is never live */
        sti_entity_make((uint32_t)live, 7), /* wrong generation */
    };
    uint32_t ids[] = {POSITION, HEALTH};
    for (size_t i = 0; i < sizeof stale / sizeof stale[0]; i++) {
        strata_entity_t e = stale[i];
        assert_false(strata_entity_alive(f->w, e));
        assert_int_equal(strata_entity_destroy(f->w, e), STRATA_ERR_STALE);
        assert_int_equal(strata_add(f->w, e, VELOCITY, NULL), STRATA_ERR_STALE);
        assert_int_equal(strata_add_many(f->w, e, 2, ids, NULL), STRATA_ERR_STALE);
        assert_int_equal(strata_remove(f->w, e, POSITION), STRATA_ERR_STALE);
        assert_int_equal(strata_remove_many(f->w, e, 2, ids), STRATA_ERR_STALE);
        assert_int_equal(strata_set(f->w, e, POSITION, &p), STRATA_ERR_STALE);
        assert_false(strata_has(f->w, e, POSITION));
        assert_null(strata_get(f->w, e, POSITION));
        assert_null(strata_get_mut(f->w, e, POSITION));
    }
    /* Nothing touched the live ones. */
    assert_true(strata_entity_alive(f->w, live));
    assert_true(strata_entity_alive(f->w, reuse));
    const vec2 *got = strata_get(f->w, live, POSITION);
    assert_true(got->x == 5.0f && got->y == 6.0f);
    assert_false(strata_has(f->w, live, VELOCITY));
    assert_true(strata_has(f->w, reuse, HEALTH));
    assert_false(strata_has(f->w, reuse, POSITION));
    assert_false(strata_has(f->w, reuse, VELOCITY));
    world_close(f);
}

static void test_entity_destroy_keeps_other_rows_intact(void **state) {
    fixture_t *f = world_open(state);
    enum { N = 200 };
    strata_entity_t e[N];
    for (int i = 0; i < N; i++) {
        vec2 p = {(float)i, (float)-i};
        assert_int_equal(strata_entity_create(f->w, &e[i]), STRATA_OK);
        assert_int_equal(strata_add(f->w, e[i], POSITION, &p), STRATA_OK);
    }
    /* Destroy rows from the middle and the end, so the last row moves. */
    for (int i = 0; i < N; i += 3) {
        assert_int_equal(strata_entity_destroy(f->w, e[i]), STRATA_OK);
    }
    for (int i = 0; i < N; i++) {
        if (i % 3 == 0) {
            assert_false(strata_entity_alive(f->w, e[i]));
            continue;
        }
        const vec2 *p = strata_get(f->w, e[i], POSITION);
        assert_non_null(p);
        assert_true(p->x == (float)i && p->y == (float)-i);
    }
    world_close(f);
}

static void test_entity_create_many_places_entities_in_final_table(void **state) {
    fixture_t *f = world_open(state);
    enum { N = 1000 };
    static strata_entity_t e[N];
    vec2 v = {0.25f, 0.5f};
    uint32_t ids[] = {VELOCITY, POSITION, HEALTH, FROZEN};
    const void *values[] = {&v, NULL, NULL, NULL}; /* Position and Health take their defaults */
    assert_int_equal(strata_entity_create_many(f->w, N, 4, ids, values, e), STRATA_OK);
    strata_world_stats_t s;
    strata_world_stats(f->w, &s);
    assert_int_equal(s.entities, N);
    assert_int_equal(s.tables, 2); /* the empty table and the final one, nothing between */
    assert_int_equal(strata_query_count(f->w, Q_ALIVE), N);
    assert_int_equal(strata_query_count(f->w, Q_MOVING), 0); /* Frozen */
    for (int i = 0; i < N; i++) {
        assert_true(strata_entity_alive(f->w, e[i]));
        const vec2 *vel = strata_get(f->w, e[i], VELOCITY);
        const vec2 *pos = strata_get(f->w, e[i], POSITION);
        const health *hp = strata_get(f->w, e[i], HEALTH);
        assert_true(vel->x == 0.25f && vel->y == 0.5f);
        assert_true(pos->x == 1.0f && pos->y == 2.0f);
        assert_int_equal(hp->hp, 100);
        assert_true(strata_has(f->w, e[i], FROZEN));
        assert_null(strata_get(f->w, e[i], FROZEN));
    }
    world_close(f);
}

static void test_entity_create_many_values_null_means_defaults(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[3];
    uint32_t ids[] = {POSITION, VELOCITY};
    assert_int_equal(strata_entity_create_many(f->w, 3, 2, ids, NULL, e), STRATA_OK);
    for (int i = 0; i < 3; i++) {
        const vec2 *p = strata_get(f->w, e[i], POSITION);
        const vec2 *v = strata_get(f->w, e[i], VELOCITY);
        assert_true(p->x == 1.0f && p->y == 2.0f);
        assert_true(v->x == 0.0f && v->y == 0.0f); /* no defaults: zeros */
    }
    world_close(f);
}

static void test_entity_create_many_without_components_or_entities(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[4];
    assert_int_equal(strata_entity_create_many(f->w, 4, 0, NULL, NULL, e), STRATA_OK);
    for (int i = 0; i < 4; i++) {
        assert_true(strata_entity_alive(f->w, e[i]));
        assert_false(strata_has(f->w, e[i], POSITION));
    }
    uint32_t ids[] = {POSITION};
    assert_int_equal(strata_entity_create_many(f->w, 0, 1, ids, NULL, NULL), STRATA_OK);
    strata_world_stats_t s;
    strata_world_stats(f->w, &s);
    assert_int_equal(s.entities, 4);
    world_close(f);
}

static void test_entity_create_many_reuses_freed_indices_first(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a[10], b[15];
    uint32_t ids[] = {HEALTH};
    assert_int_equal(strata_entity_create_many(f->w, 10, 1, ids, NULL, a), STRATA_OK);
    for (int i = 0; i < 10; i += 2) {
        assert_int_equal(strata_entity_destroy(f->w, a[i]), STRATA_OK);
    }
    assert_int_equal(strata_entity_create_many(f->w, 15, 1, ids, NULL, b), STRATA_OK);
    /* The five freed indices, most recently freed first, then fresh ones. */
    for (int i = 0; i < 5; i++) {
        assert_int_equal((uint32_t)b[i], (uint32_t)a[8 - 2 * i]);
        assert_int_equal(b[i] >> 32, 2);
    }
    for (int i = 5; i < 15; i++) {
        assert_int_equal((uint32_t)b[i], 10 + (i - 5));
        assert_int_equal(b[i] >> 32, 1);
    }
    assert_int_equal(strata_query_count(f->w, Q_ALIVE), 20);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(strata_entity_alive(f->w, a[i]), i % 2 == 1);
    }
    world_close(f);
}

static void test_entity_create_stops_at_the_entity_limit(void **state) {
    fixture_t *f = world_open(state);
    f->w->entity_limit = 5;
    strata_entity_t e[5], extra = 1;
    for (int i = 0; i < 5; i++) {
        assert_int_equal(strata_entity_create(f->w, &e[i]), STRATA_OK);
    }
    assert_int_equal(strata_entity_create(f->w, &extra), STRATA_ERR_LIMIT);
    assert_int_equal(extra, STRATA_ENTITY_NULL);
    /* A freed index can be used again. */
    assert_int_equal(strata_entity_destroy(f->w, e[2]), STRATA_OK);
    assert_int_equal(strata_entity_create(f->w, &extra), STRATA_OK);
    assert_int_equal((uint32_t)extra, (uint32_t)e[2]);
    world_close(f);
}

static void test_entity_create_many_is_all_or_nothing_at_the_limit(void **state) {
    fixture_t *f = world_open(state);
    f->w->entity_limit = 10;
    strata_entity_t e[12];
    uint32_t ids[] = {POSITION};
    assert_int_equal(strata_entity_create_many(f->w, 8, 1, ids, NULL, e), STRATA_OK);
    assert_int_equal(strata_entity_destroy(f->w, e[0]), STRATA_OK);
    /* One freed index and two fresh ones: three fit, four do not. */
    assert_int_equal(strata_entity_create_many(f->w, 4, 1, ids, NULL, e), STRATA_ERR_LIMIT);
    strata_world_stats_t s;
    strata_world_stats(f->w, &s);
    assert_int_equal(s.entities, 7);
    assert_int_equal(strata_query_count(f->w, Q_MOVING), 0);
    assert_int_equal(strata_entity_create_many(f->w, 3, 1, ids, NULL, e), STRATA_OK);
    strata_world_stats(f->w, &s);
    assert_int_equal(s.entities, 10);
    world_close(f);
}

static void test_entity_create_many_nomem_creates_nothing(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[64];
    uint32_t ids[] = {POSITION, VELOCITY};
    for (long k = 1;; k++) {
        f->heap.fail_at = f->heap.calls + k; /* fail the k-th allocation of this call */
        strata_result_t r = strata_entity_create_many(f->w, 64, 2, ids, NULL, e);
        if (r == STRATA_OK) {
            break;
        }
        assert_int_equal(r, STRATA_ERR_NOMEM);
        strata_world_stats_t s;
        strata_world_stats(f->w, &s);
        assert_int_equal(s.entities, 0);
        assert_int_equal(strata_query_count(f->w, Q_MOVING), 0);
    }
    assert_int_equal(strata_query_count(f->w, Q_MOVING), 64);
    world_close(f);
}

static void test_entity_memory_per_entity_within_24_bytes(void **state) {
    fixture_t *f = world_open(state);
    assert_true(sizeof(sti_record_t) + sizeof(strata_entity_t) <= 24);
    enum { N = 100000 };
    strata_entity_t *e = test_malloc(sizeof(strata_entity_t) * N);
    strata_world_stats_t before, after;
    strata_world_stats(f->w, &before);
    uint32_t ids[] = {POSITION, VELOCITY};
    assert_int_equal(strata_entity_create_many(f->w, N, 2, ids, NULL, e), STRATA_OK);
    strata_world_stats(f->w, &after);
    double per_entity = (double)(after.bytes - before.bytes) / N - 2 * sizeof(vec2);
    assert_true(per_entity <= 24.0);
    test_free(e);
    world_close(f);
}

static void test_entity_assert_null_world(void **state) {
    (void)state;
    expect_assert_failure(strata_entity_destroy(NULL, 1));
    expect_assert_failure(strata_entity_alive(NULL, 1));
}

/* --- Handles' parts, and visiting every entity ----------------------------- */

static void test_entity_index_and_generation_are_the_handle_parts(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a, b;
    assert_int_equal(strata_entity_create(f->w, &a), STRATA_OK);
    assert_int_equal(strata_entity_create(f->w, &b), STRATA_OK);
    assert_int_equal(strata_entity_index(b), strata_entity_index(a) + 1);
    assert_int_equal(strata_entity_generation(a), 1);
    assert_int_equal(strata_entity_destroy(f->w, a), STRATA_OK);
    strata_entity_t again;
    assert_int_equal(strata_entity_create(f->w, &again), STRATA_OK);
    assert_int_equal(strata_entity_index(again), strata_entity_index(a));
    assert_int_equal(strata_entity_generation(again), 2);
    assert_true(again == ((uint64_t)strata_entity_generation(again) << 32 | strata_entity_index(again)));
    assert_int_equal(strata_entity_index(STRATA_ENTITY_NULL), 0);
    assert_int_equal(strata_entity_generation(STRATA_ENTITY_NULL), 0);
    world_close(f);
}

/* What each_visit saw, and what it does to what it sees. */
typedef struct visit_t {
    strata_entity_t seen[64];
    uint32_t count;
    bool destroy, create;
} visit_t;

static void each_visit(strata_world_t *w, strata_entity_t e, void *user) {
    visit_t *v = user;
    assert_true(strata_entity_alive(w, e));
    assert_true(strata_is_deferred(w));
    assert_true(v->count < 64);
    v->seen[v->count++] = e;
    if (v->destroy) {
        assert_int_equal(strata_entity_destroy(w, e), STRATA_OK);
    }
    if (v->create) {
        strata_entity_t made;
        assert_int_equal(strata_entity_create(w, &made), STRATA_OK);
    }
}

static bool visit_saw(const visit_t *v, strata_entity_t e) {
    uint32_t times = 0;
    for (uint32_t i = 0; i < v->count; i++) {
        times += v->seen[i] == e;
    }
    assert_true(times <= 1);
    return times == 1;
}

/* No query reaches an entity without components; strata_entity_each does. */
static void test_entity_each_visits_every_live_entity_once(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[8];
    vec2 p = {1, 2};
    health h = {5};
    for (int i = 0; i < 8; i++) {
        assert_int_equal(strata_entity_create(f->w, &e[i]), STRATA_OK);
        if (i % 3 == 1) {
            assert_int_equal(strata_add(f->w, e[i], POSITION, &p), STRATA_OK);
        }
        if (i % 3 == 2) {
            assert_int_equal(strata_add(f->w, e[i], HEALTH, &h), STRATA_OK);
            assert_int_equal(strata_add(f->w, e[i], FROZEN, NULL), STRATA_OK);
        }
    }
    assert_int_equal(strata_entity_destroy(f->w, e[4]), STRATA_OK);
    visit_t v = {0};
    assert_int_equal(strata_entity_each(f->w, each_visit, &v), STRATA_OK);
    assert_int_equal(v.count, 7);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(visit_saw(&v, e[i]), i != 4);
    }
    assert_false(strata_is_deferred(f->w));
    world_close(f);
}

/* Destroys made while visiting wait for its end (nothing skipped or seen
 * twice); entities made meanwhile are not visited. */
static void test_entity_each_defers_changes_and_skips_new_entities(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[6];
    vec2 p = {1, 2};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(strata_entity_create(f->w, &e[i]), STRATA_OK);
        if (i % 2) {
            assert_int_equal(strata_add(f->w, e[i], POSITION, &p), STRATA_OK);
        }
    }
    visit_t v = {.destroy = true, .create = true};
    assert_int_equal(strata_entity_each(f->w, each_visit, &v), STRATA_OK);
    assert_int_equal(v.count, 6);
    for (int i = 0; i < 6; i++) {
        assert_true(visit_saw(&v, e[i]));
        assert_false(strata_entity_alive(f->w, e[i]));
    }
    strata_world_stats_t s;
    strata_world_stats(f->w, &s);
    assert_int_equal(s.entities, 6); /* the six made while visiting */
    assert_int_equal(s.pending, 0);
    world_close(f);
}

static void test_entity_each_of_an_empty_world_calls_nothing(void **state) {
    fixture_t *f = world_open(state);
    visit_t v = {0};
    assert_int_equal(strata_entity_each(f->w, each_visit, &v), STRATA_OK);
    assert_int_equal(v.count, 0);
    expect_assert_failure(strata_entity_each(f->w, NULL, NULL));
    world_close(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_entity_create_gives_distinct_live_handles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_destroy_makes_handle_stale, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_reuses_last_freed_index_with_new_generation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_generation_skips_zero_on_wrap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_stale_handles_fail_every_operation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_destroy_keeps_other_rows_intact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_create_many_places_entities_in_final_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_create_many_values_null_means_defaults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_create_many_without_components_or_entities, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_create_many_reuses_freed_indices_first, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_create_stops_at_the_entity_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_create_many_is_all_or_nothing_at_the_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_create_many_nomem_creates_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_memory_per_entity_within_24_bytes, setup, teardown),
        cmocka_unit_test(test_entity_assert_null_world),
        cmocka_unit_test_setup_teardown(test_entity_index_and_generation_are_the_handle_parts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_each_visits_every_live_entity_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_each_defers_changes_and_skips_new_entities, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_each_of_an_empty_world_calls_nothing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

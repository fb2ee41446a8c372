/* test_component.c: add, add_many, remove, remove_many, has, get, get_mut,
 * set; defaults; tags; overwrites; swap-remove integrity; the archetype
 * graph's cached edges; no allocation in the steady state; table limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "strata_internal.h"
#include "fixture.h"

/* --- A schema: several sizes, alignments and tags -------------------------- */

typedef struct vec2 {
    float x, y;
} vec2;
typedef struct health {
    int32_t hp;
} health;
typedef struct name {
    char text[23];
} name; /* odd size, align 1 */
typedef struct big {
    double m[6];
} big; /* above STI_SMALL_SIZE */
typedef struct wide {
    _Alignas(32) float v[8];
} wide; /* over-aligned */
typedef struct tiny {
    uint8_t a, b, c;
} tiny; /* 3 bytes */

enum { POSITION, VELOCITY, HEALTH, FROZEN, NAME, BIG, WIDE, TINY, MARKED, COMPONENT_COUNT };
enum { Q_POSITIONED, QUERY_COUNT };

static const vec2 position_defaults = {1.0f, 2.0f};
static const health health_defaults = {100};
static const name name_defaults = {"nobody"};

static const strata_component_desc_t components[COMPONENT_COUNT] = {
    [POSITION] = COMPONENT("Position", vec2, &position_defaults),
    [VELOCITY] = COMPONENT("Velocity", vec2, NULL),
    [HEALTH] = COMPONENT("Health", health, &health_defaults),
    [FROZEN] = TAG("Frozen"),
    [NAME] = COMPONENT("Name", name, &name_defaults),
    [BIG] = COMPONENT("Big", big, NULL),
    [WIDE] = COMPONENT("Wide", wide, NULL),
    [TINY] = COMPONENT("Tiny", tiny, NULL),
    [MARKED] = TAG("Marked"),
};

static const strata_query_desc_t queries[QUERY_COUNT] = {
    [Q_POSITIONED] = QUERY("Positioned", BIT(POSITION), 0),
};

static const strata_schema_t schema = {
    .name = "test",
    .version = 1,
    .component_count = COMPONENT_COUNT,
    .components = components,
    .query_count = QUERY_COUNT,
    .queries = queries,
};


/* A new entity with no components. */
static strata_entity_t spawn(fixture_t *f) {
    strata_entity_t e;
    assert_int_equal(strata_entity_create(f->w, &e), STRATA_OK);
    return e;
}

/* The table an entity is in (private: tests watch moves). */
static const sti_table_t *table_of(fixture_t *f, strata_entity_t e) {
    return f->w->tables[sti_record_lookup(f->w, e)->table];
}

/* --- Tests ---------------------------------------------------------------- */

static void test_component_add_stores_value(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn(f);
    vec2 p = {3.0f, 4.0f};
    assert_false(strata_has(f->w, e, POSITION));
    assert_int_equal(strata_add(f->w, e, POSITION, &p), STRATA_OK);
    assert_true(strata_has(f->w, e, POSITION));
    const vec2 *got = strata_get(f->w, e, POSITION);
    assert_non_null(got);
    assert_true(got->x == 3.0f && got->y == 4.0f);
    assert_int_equal(strata_query_count(f->w, Q_POSITIONED), 1);
    world_close(f);
}

static void test_component_add_null_uses_defaults_or_zeros(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn(f);
    assert_int_equal(strata_add(f->w, e, POSITION, NULL), STRATA_OK);
    assert_int_equal(strata_add(f->w, e, VELOCITY, NULL), STRATA_OK);
    assert_int_equal(strata_add(f->w, e, NAME, NULL), STRATA_OK);
    const vec2 *p = strata_get(f->w, e, POSITION);
    const vec2 *v = strata_get(f->w, e, VELOCITY);
    const name *n = strata_get(f->w, e, NAME);
    assert_true(p->x == 1.0f && p->y == 2.0f);
    assert_true(v->x == 0.0f && v->y == 0.0f);
    assert_string_equal(n->text, "nobody");
    world_close(f);
}

static void test_component_add_present_overwrites_without_moving(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn(f);
    vec2 p = {3.0f, 4.0f}, q = {5.0f, 6.0f};
    assert_int_equal(strata_add(f->w, e, POSITION, &p), STRATA_OK);
    assert_int_equal(strata_add(f->w, e, FROZEN, NULL), STRATA_OK);
    const sti_table_t *t = table_of(f, e);
    const vec2 *where = strata_get(f->w, e, POSITION);
    assert_int_equal(strata_add(f->w, e, POSITION, &q), STRATA_OK);
    assert_int_equal(strata_add(f->w, e, FROZEN, NULL), STRATA_OK);
    assert_ptr_equal(table_of(f, e), t);
    assert_ptr_equal(strata_get(f->w, e, POSITION), where);
    assert_true(where->x == 5.0f && where->y == 6.0f);
    assert_int_equal(strata_add(f->w, e, POSITION, NULL), STRATA_OK); /* back to the defaults */
    assert_true(where->x == 1.0f && where->y == 2.0f);
    world_close(f);
}

static void test_component_tags_have_no_column(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn(f);
    assert_int_equal(strata_add(f->w, e, FROZEN, NULL), STRATA_OK);
    assert_true(strata_has(f->w, e, FROZEN));
    assert_null(strata_get(f->w, e, FROZEN));
    assert_null(strata_get_mut(f->w, e, FROZEN));
    assert_int_equal(strata_set(f->w, e, FROZEN, NULL), STRATA_OK);
    assert_int_equal(strata_set(f->w, e, MARKED, NULL), STRATA_ERR_MISSING);
    const sti_table_t *t = table_of(f, e);
    assert_int_equal(t->column_count, 0);
    assert_null(t->columns[FROZEN]);
    assert_int_equal(strata_remove(f->w, e, FROZEN), STRATA_OK);
    assert_false(strata_has(f->w, e, FROZEN));
    assert_int_equal(strata_remove(f->w, e, FROZEN), STRATA_ERR_MISSING);
    world_close(f);
}

static void test_component_remove_keeps_the_other_values(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn(f);
    vec2 p = {3.0f, 4.0f}, v = {7.0f, 8.0f};
    health h = {9};
    assert_int_equal(strata_add(f->w, e, POSITION, &p), STRATA_OK);
    assert_int_equal(strata_add(f->w, e, VELOCITY, &v), STRATA_OK);
    assert_int_equal(strata_add(f->w, e, HEALTH, &h), STRATA_OK);
    assert_int_equal(strata_remove(f->w, e, VELOCITY), STRATA_OK);
    assert_false(strata_has(f->w, e, VELOCITY));
    assert_null(strata_get(f->w, e, VELOCITY));
    const vec2 *gp = strata_get(f->w, e, POSITION);
    const health *gh = strata_get(f->w, e, HEALTH);
    assert_true(gp->x == 3.0f && gp->y == 4.0f);
    assert_int_equal(gh->hp, 9);
    assert_int_equal(strata_remove(f->w, e, VELOCITY), STRATA_ERR_MISSING);
    world_close(f);
}

static void test_component_set_and_get_mut_write_in_place(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn(f);
    vec2 p = {3.0f, 4.0f};
    assert_int_equal(strata_set(f->w, e, POSITION, &p), STRATA_ERR_MISSING);
    assert_false(strata_has(f->w, e, POSITION));
    assert_int_equal(strata_add(f->w, e, POSITION, NULL), STRATA_OK);
    assert_int_equal(strata_set(f->w, e, POSITION, &p), STRATA_OK);
    vec2 *m = strata_get_mut(f->w, e, POSITION);
    assert_true(m->x == 3.0f);
    m->y = 10.0f;
    const vec2 *g = strata_get(f->w, e, POSITION);
    assert_true(g->y == 10.0f);
    world_close(f);
}

static void test_component_add_many_moves_once_and_overwrites(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn(f);
    vec2 p = {3.0f, 4.0f}, v = {5.0f, 6.0f};
    health h = {7};
    assert_int_equal(strata_add(f->w, e, POSITION, NULL), STRATA_OK);
    uint32_t ids[] = {HEALTH, POSITION, FROZEN, VELOCITY};
    const void *values[] = {&h, &p, NULL, &v};
    strata_world_stats_t s0, s1;
    strata_world_stats(f->w, &s0);
    assert_int_equal(strata_add_many(f->w, e, 4, ids, values), STRATA_OK);
    strata_world_stats(f->w, &s1);
    assert_int_equal(s1.tables, s0.tables + 1); /* no intermediate archetypes */
    const vec2 *gp = strata_get(f->w, e, POSITION);
    const vec2 *gv = strata_get(f->w, e, VELOCITY);
    const health *gh = strata_get(f->w, e, HEALTH);
    assert_true(gp->x == 3.0f && gv->y == 6.0f && gh->hp == 7);
    assert_true(strata_has(f->w, e, FROZEN));
    /* All present: values overwrite in place, no move. */
    const sti_table_t *t = table_of(f, e);
    health h2 = {8};
    const void *values2[] = {&h2, NULL, NULL, NULL};
    assert_int_equal(strata_add_many(f->w, e, 4, ids, values2), STRATA_OK);
    assert_ptr_equal(table_of(f, e), t);
    assert_int_equal(((const health *)strata_get(f->w, e, HEALTH))->hp, 8);
    gp = strata_get(f->w, e, POSITION);
    gv = strata_get(f->w, e, VELOCITY);
    assert_true(gp->x == 1.0f && gv->x == 0.0f); /* NULL values: defaults, zeros */
    assert_int_equal(strata_add_many(f->w, e, 0, NULL, NULL), STRATA_OK);
    world_close(f);
}

static void test_component_remove_many_skips_absent(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn(f);
    health h = {7};
    uint32_t add[] = {POSITION, HEALTH, FROZEN};
    const void *values[] = {NULL, &h, NULL};
    assert_int_equal(strata_add_many(f->w, e, 3, add, values), STRATA_OK);
    uint32_t absent[] = {VELOCITY, NAME};
    assert_int_equal(strata_remove_many(f->w, e, 2, absent), STRATA_ERR_MISSING);
    assert_int_equal(strata_remove_many(f->w, e, 0, NULL), STRATA_ERR_MISSING);
    uint32_t some[] = {VELOCITY, POSITION, FROZEN};
    assert_int_equal(strata_remove_many(f->w, e, 3, some), STRATA_OK);
    assert_false(strata_has(f->w, e, POSITION));
    assert_false(strata_has(f->w, e, FROZEN));
    assert_true(strata_has(f->w, e, HEALTH));
    assert_int_equal(((const health *)strata_get(f->w, e, HEALTH))->hp, 7);
    world_close(f);
}

static void test_component_swap_remove_keeps_every_value(void **state) {
    fixture_t *f = world_open(state);
    enum { N = 300 };
    strata_entity_t e[N];
    for (int i = 0; i < N; i++) {
        e[i] = spawn(f);
        vec2 p = {(float)i, 0.5f};
        name n;
        memset(&n, 0, sizeof n);
        n.text[0] = (char)('a' + i % 26);
        big b = {{(double)i, 0, 0, 0, 0, (double)-i}};
        wide wd = {{(float)i}};
        tiny ty = {(uint8_t)i, 1, 2};
        assert_int_equal(strata_add(f->w, e[i], POSITION, &p), STRATA_OK);
        assert_int_equal(strata_add(f->w, e[i], NAME, &n), STRATA_OK);
        assert_int_equal(strata_add(f->w, e[i], BIG, &b), STRATA_OK);
        assert_int_equal(strata_add(f->w, e[i], WIDE, &wd), STRATA_OK);
        assert_int_equal(strata_add(f->w, e[i], TINY, &ty), STRATA_OK);
    }
    /* Move a third of them away (tag, then a column), from everywhere in the table. */
    for (int i = 0; i < N; i += 3) {
        assert_int_equal(strata_add(f->w, e[i], MARKED, NULL), STRATA_OK);
    }
    for (int i = 1; i < N; i += 3) {
        assert_int_equal(strata_remove(f->w, e[i], BIG), STRATA_OK);
    }
    for (int i = 0; i < N; i++) {
        const vec2 *p = strata_get(f->w, e[i], POSITION);
        const name *n = strata_get(f->w, e[i], NAME);
        const big *b = strata_get(f->w, e[i], BIG);
        const wide *wd = strata_get(f->w, e[i], WIDE);
        const tiny *ty = strata_get(f->w, e[i], TINY);
        assert_true(p->x == (float)i && p->y == 0.5f);
        assert_int_equal(n->text[0], 'a' + i % 26);
        assert_int_equal(n->text[1], 0);
        assert_int_equal((uintptr_t)wd % 32, 0);
        assert_true(wd->v[0] == (float)i);
        assert_int_equal(ty->a, (uint8_t)i);
        assert_int_equal(ty->c, 2);
        if (i % 3 == 1) {
            assert_null(b);
        } else {
            assert_true(b->m[0] == (double)i && b->m[5] == (double)-i);
        }
        assert_int_equal(strata_has(f->w, e[i], MARKED), i % 3 == 0);
    }
    world_close(f);
}

static void test_component_edges_are_cached_both_ways(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn(f);
    assert_int_equal(strata_add(f->w, e, POSITION, NULL), STRATA_OK);
    sti_table_t *p = f->w->tables[sti_record_lookup(f->w, e)->table];
    assert_int_equal(strata_add(f->w, e, HEALTH, NULL), STRATA_OK);
    sti_table_t *ph = f->w->tables[sti_record_lookup(f->w, e)->table];
    uint32_t cc = COMPONENT_COUNT;
    assert_ptr_equal(p->edges[HEALTH].table, ph);
    assert_ptr_equal(ph->edges[cc + HEALTH].table, p);
    /* The hole is Health's place among ph's columns (Position, Health). */
    assert_int_equal(p->edges[HEALTH].hole, 1);
    assert_int_equal(ph->edges[cc + HEALTH].hole, 1);
    assert_int_equal(strata_add(f->w, e, FROZEN, NULL), STRATA_OK);
    assert_int_equal(ph->edges[FROZEN].hole, STI_NO_HOLE);
    /* The graph, not a search, takes it back. */
    strata_world_stats_t s0, s1;
    strata_world_stats(f->w, &s0);
    assert_int_equal(strata_remove(f->w, e, FROZEN), STRATA_OK);
    assert_int_equal(strata_remove(f->w, e, HEALTH), STRATA_OK);
    strata_world_stats(f->w, &s1);
    assert_int_equal(s1.tables, s0.tables);
    assert_ptr_equal(table_of(f, e), p);
    world_close(f);
}

static void test_component_steady_state_does_not_allocate(void **state) {
    fixture_t *f = world_open(state);
    enum { N = 500 };
    strata_entity_t e[N];
    uint32_t ids[] = {POSITION, VELOCITY};
    assert_int_equal(strata_entity_create_many(f->w, N, 2, ids, NULL, e), STRATA_OK);
    health h = {1};
    for (int round = 0; round < 3; round++) {
        if (round == 1) {
            f->heap.fail_at = f->heap.calls + 1; /* any allocation from now on fails */
        }
        for (int i = 0; i < N; i++) {
            assert_int_equal(strata_add(f->w, e[i], FROZEN, NULL), STRATA_OK);
            assert_int_equal(strata_add(f->w, e[i], HEALTH, &h), STRATA_OK);
        }
        for (int i = 0; i < N; i++) {
            assert_int_equal(strata_remove(f->w, e[i], FROZEN), STRATA_OK);
            assert_int_equal(strata_remove(f->w, e[i], HEALTH), STRATA_OK);
        }
        assert_int_equal(strata_entity_destroy(f->w, e[0]), STRATA_OK);
        assert_int_equal(strata_entity_create_many(f->w, 1, 2, ids, NULL, &e[0]), STRATA_OK);
    }
    assert_true(f->heap.calls < f->heap.fail_at);
    f->heap.fail_at = 0;
    world_close(f);
}

static void test_component_nomem_on_move_leaves_entity_as_it_was(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn(f);
    vec2 p = {3.0f, 4.0f};
    assert_int_equal(strata_add(f->w, e, POSITION, &p), STRATA_OK);
    for (long k = 1;; k++) {
        f->heap.fail_at = f->heap.calls + k;
        strata_result_t r = strata_add(f->w, e, BIG, NULL);
        if (r == STRATA_OK) {
            break;
        }
        assert_int_equal(r, STRATA_ERR_NOMEM);
        assert_false(strata_has(f->w, e, BIG));
        const vec2 *g = strata_get(f->w, e, POSITION);
        assert_true(g->x == 3.0f && g->y == 4.0f);
    }
    assert_true(strata_has(f->w, e, BIG));
    world_close(f);
}

static void test_component_table_limit_is_an_error(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn(f);
    f->w->table_limit = 3; /* the empty table, {Position}, {Position, Health} */
    assert_int_equal(strata_add(f->w, e, POSITION, NULL), STRATA_OK);
    assert_int_equal(strata_add(f->w, e, HEALTH, NULL), STRATA_OK);
    assert_int_equal(strata_add(f->w, e, FROZEN, NULL), STRATA_ERR_LIMIT);
    assert_false(strata_has(f->w, e, FROZEN));
    assert_int_equal(strata_remove(f->w, e, POSITION), STRATA_ERR_LIMIT); /* {Health} would be new */
    assert_true(strata_has(f->w, e, POSITION));
    assert_int_equal(strata_remove(f->w, e, HEALTH), STRATA_OK); /* {Position} exists */
    strata_entity_t more[2];
    uint32_t ids[] = {VELOCITY};
    assert_int_equal(strata_entity_create_many(f->w, 2, 1, ids, NULL, more), STRATA_ERR_LIMIT);
    strata_world_stats_t s;
    strata_world_stats(f->w, &s);
    assert_int_equal(s.tables, 3);
    assert_int_equal(s.entities, 1);
    world_close(f);
}

static void test_component_assert_set_null_value(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn(f);
    assert_int_equal(strata_add(f->w, e, POSITION, NULL), STRATA_OK);
    expect_assert_failure(strata_set(f->w, e, POSITION, NULL));
    expect_assert_failure(strata_remove(f->w, e, COMPONENT_COUNT));
    world_close(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_component_add_stores_value, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_add_null_uses_defaults_or_zeros, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_add_present_overwrites_without_moving, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_tags_have_no_column, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_remove_keeps_the_other_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_set_and_get_mut_write_in_place, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_add_many_moves_once_and_overwrites, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_remove_many_skips_absent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_swap_remove_keeps_every_value, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_edges_are_cached_both_ways, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_steady_state_does_not_allocate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_nomem_on_move_leaves_entity_as_it_was, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_table_limit_is_an_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_assert_set_null_value, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

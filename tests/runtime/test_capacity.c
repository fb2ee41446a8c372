/* test_capacity.c: room made ahead and given back. Freeing the tables
 * without rows (on request and by the world's policy): the graph's edges,
 * the queries' lists, the hash, the changed sets' lists and the records of
 * renumbered tables stay consistent; a later add makes a freed table
 * again; nothing is freed while a step, an iterator or a scope is open (it
 * waits for its end); nothing is allocated. Reserving: rows of a table and
 * entity records made ahead, so that the adds after grow nothing; out of
 * memory leaves the world as it was. */
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
typedef struct track {
    uint32_t seen;
} track;

enum { POSITION, VELOCITY, HEALTH, T0, T1, T2, T3, T4, T5, T6, T7, COMPONENT_COUNT };
enum { Q_MOVING, Q_HURT, Q_TRACKED, QUERY_COUNT };

/* The tracked query's hooks count what entered and left it. */
static uint32_t tracked_in, tracked_out;

static void tracked_on_add(strata_world_t *w, strata_entity_t e, void *aspect) {
    (void)w;
    (void)e;
    assert_int_equal(((track *)aspect)->seen, 0);
    tracked_in++;
}

static void tracked_on_remove(strata_world_t *w, strata_entity_t e, void *aspect) {
    (void)w;
    (void)e;
    (void)aspect;
    tracked_out++;
}

static const vec2 origin = {1.0f, 2.0f};

static const strata_component_desc_t components[COMPONENT_COUNT] = {
    [POSITION] = COMPONENT("Position", vec2, &origin),
    [VELOCITY] = COMPONENT("Velocity", vec2, NULL),
    [HEALTH] = COMPONENT("Health", health, NULL),
    [T0] = TAG("T0"),
    [T1] = TAG("T1"),
    [T2] = TAG("T2"),
    [T3] = TAG("T3"),
    [T4] = TAG("T4"),
    [T5] = TAG("T5"),
    [T6] = TAG("T6"),
    [T7] = TAG("T7"),
};

static const strata_query_desc_t queries[QUERY_COUNT] = {
    [Q_MOVING] = QUERY("Moving", BIT(POSITION) | BIT(VELOCITY), 0),
    [Q_HURT] = {.name = "Hurt", .all = {{BIT(HEALTH)}}, .changed = {{BIT(HEALTH)}}},
    [Q_TRACKED] = {.name = "Tracked",
                   .all = {{BIT(T0)}},
                   .aspect_size = sizeof(track),
                   .aspect_align = _Alignof(track),
                   .on_add = tracked_on_add,
                   .on_remove = tracked_on_remove},
};

static const strata_schema_t schema = {
    .name = "capacity",
    .version = 1,
    .component_count = COMPONENT_COUNT,
    .components = components,
    .query_count = QUERY_COUNT,
    .queries = queries,
};

/* --- Helpers -------------------------------------------------------------- */

static uint32_t tables_of(const strata_world_t *w) {
    strata_world_stats_t s;
    strata_world_stats(w, &s);
    return s.tables;
}

/* One entity with Position, Health {hp} and the tags of the bits of `tags` (T0 up). */
static strata_entity_t make_tagged(strata_world_t *w, uint32_t tags, int32_t hp) {
    uint32_t ids[3 + 8] = {POSITION, HEALTH};
    const void *values[3 + 8] = {&origin, &(health){hp}};
    uint32_t k = 2;
    for (uint32_t b = 0; b < 8; b++) {
        if (tags >> b & 1u) {
            values[k] = NULL;
            ids[k++] = T0 + b;
        }
    }
    strata_entity_t e = STRATA_ENTITY_NULL;
    assert_int_equal(strata_entity_create_many(w, 1, k, ids, values, &e), STRATA_OK);
    return e;
}

static int32_t hp_of(const strata_world_t *w, strata_entity_t e) {
    const health *h = strata_get(w, e, HEALTH);
    assert_non_null(h);
    return h->hp;
}

/* The entities of Hurt's changed set, by visiting it (which empties it). */
static uint32_t visit_hurt(strata_world_t *w, strata_entity_t *out, uint32_t max) {
    uint32_t n = 0;
    strata_iter_t it = strata_iter(w, Q_HURT);
    while (strata_iter_next(&it)) {
        for (uint32_t i = 0; i < it.count; i++) {
            assert_true(n < max);
            out[n++] = it.entities[i];
        }
    }
    return n;
}

/* --- Freeing --------------------------------------------------------------- */

static void test_capacity_free_empty_tables_frees_only_tables_without_rows(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[16];
    for (uint32_t i = 0; i < 16; i++) {
        e[i] = make_tagged(f->w, i, (int32_t)i);
    }
    uint32_t made = tables_of(f->w); /* the empty one and 16 */
    assert_int_equal(made, 17);
    assert_int_equal(strata_world_free_empty_tables(f->w), 0);
    for (uint32_t i = 0; i < 16; i += 2) {
        assert_int_equal(strata_entity_destroy(f->w, e[i]), STRATA_OK);
    }
    size_t before = f->w->bytes;
    assert_int_equal(strata_world_free_empty_tables(f->w), 8);
    assert_int_equal(tables_of(f->w), 9);
    assert_true(f->w->bytes < before);
    check_tables(f->w);
    for (uint32_t i = 1; i < 16; i += 2) {
        assert_int_equal(hp_of(f->w, e[i]), (int32_t)i);
        for (uint32_t b = 0; b < 8; b++) {
            assert_int_equal(strata_has(f->w, e[i], T0 + b), (i >> b & 1u) != 0);
        }
    }
    for (uint32_t i = 0; i < 16; i += 2) { /* stale handles stay stale */
        assert_false(strata_entity_alive(f->w, e[i]));
        assert_int_equal(strata_add(f->w, e[i], T7, NULL), STRATA_ERR_STALE);
    }
    /* The empty table stays, even empty. */
    strata_world_clear(f->w);
    assert_int_equal(strata_world_free_empty_tables(f->w), 8);
    assert_int_equal(tables_of(f->w), 1);
    check_tables(f->w);
    world_close(f);
}

/* The tables kept above the new count take the freed ids: their rows'
 * records follow, and moves along their edges (kept) still land right. */
static void test_capacity_free_renumbers_kept_tables_and_their_records(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[32];
    for (uint32_t i = 0; i < 32; i++) {
        e[i] = make_tagged(f->w, i % 8, (int32_t)i); /* 4 rows a table, 8 tables */
    }
    /* Edges from each table: add and remove T7. */
    for (uint32_t i = 0; i < 8; i++) {
        assert_int_equal(strata_add(f->w, e[i], T7, NULL), STRATA_OK);
        assert_int_equal(strata_remove(f->w, e[i], T7), STRATA_OK);
    }
    /* Empty the first tables made (rows with tags 0..3), keep the last ones. */
    for (uint32_t i = 0; i < 32; i++) {
        if (i % 8 < 4) {
            assert_int_equal(strata_entity_destroy(f->w, e[i]), STRATA_OK);
        }
    }
    uint32_t freed = strata_world_free_empty_tables(f->w);
    assert_true(freed >= 4);
    check_tables(f->w);
    for (uint32_t i = 0; i < 32; i++) {
        if (i % 8 < 4) {
            continue;
        }
        const sti_record_t *rec = sti_record_lookup(f->w, e[i]);
        assert_non_null(rec);
        assert_true(f->w->tables[rec->table]->entities[rec->row] == e[i]);
        assert_int_equal(hp_of(f->w, e[i]), (int32_t)i);
        assert_int_equal(strata_add(f->w, e[i], T7, NULL), STRATA_OK); /* along a kept edge */
        assert_true(strata_has(f->w, e[i], T7));
        assert_int_equal(hp_of(f->w, e[i]), (int32_t)i);
    }
    check_tables(f->w);
    world_close(f);
}

static void test_capacity_entity_added_after_a_free_makes_the_table_again(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a = make_tagged(f->w, 0, 1), b = make_tagged(f->w, 0, 2);
    assert_int_equal(strata_add(f->w, a, T3, NULL), STRATA_OK);
    assert_int_equal(strata_remove(f->w, a, T3), STRATA_OK); /* {P, H, T3}: empty, with edges */
    uint32_t tables = tables_of(f->w);
    assert_int_equal(strata_world_free_empty_tables(f->w), 1);
    assert_int_equal(tables_of(f->w), tables - 1);
    /* The edge from {P, H} by T3 is gone; the add makes the table again. */
    sti_table_t *ph = f->w->tables[sti_record_lookup(f->w, b)->table];
    assert_null(ph->edges[T3].table);
    assert_int_equal(strata_add(f->w, b, T3, NULL), STRATA_OK);
    assert_int_equal(tables_of(f->w), tables);
    assert_true(strata_has(f->w, b, T3));
    assert_int_equal(hp_of(f->w, b), 2);
    check_tables(f->w);
    /* And a create into it. */
    strata_entity_t c = make_tagged(f->w, 1u << 3, 3);
    assert_int_equal(hp_of(f->w, c), 3);
    assert_int_equal(strata_query_count(f->w, Q_HURT), 3);
    check_tables(f->w);
    world_close(f);
}

static void test_capacity_free_inside_an_iterator_waits_for_its_end(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a = make_tagged(f->w, 1, 1), b = make_tagged(f->w, 2, 2);
    assert_int_equal(strata_entity_destroy(f->w, a), STRATA_OK);
    uint32_t tables = tables_of(f->w);
    uint32_t rows = 0;
    strata_iter_t it = strata_iter(f->w, Q_HURT);
    while (strata_iter_next(&it)) {
        assert_int_equal(strata_world_free_empty_tables(f->w), 0); /* waits */
        assert_int_equal(tables_of(f->w), tables);
        assert_int_equal(strata_entity_destroy(f->w, b), STRATA_OK); /* its table empties at the end */
        rows += it.count;
    }
    assert_int_equal(rows, 1);
    /* The end settled (b's table emptied), then freed both. */
    assert_int_equal(tables_of(f->w), tables - 2);
    check_tables(f->w);
    world_close(f);
}

static void test_capacity_free_inside_a_step_waits_for_the_step_end(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a = make_tagged(f->w, 1, 1);
    (void)make_tagged(f->w, 2, 2);
    uint32_t tables = tables_of(f->w);
    strata_step_begin(f->w);
    assert_int_equal(strata_entity_destroy(f->w, a), STRATA_OK); /* at the step's end */
    assert_int_equal(strata_world_free_empty_tables(f->w), 0);
    strata_defer_begin(f->w); /* a system's scope, closed inside the step: nothing yet */
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_int_equal(tables_of(f->w), tables);
    assert_int_equal(strata_step_end(f->w), STRATA_OK);
    assert_int_equal(tables_of(f->w), tables - 1);
    check_tables(f->w);
    world_close(f);
}

static void test_capacity_free_in_nested_scopes_waits_for_the_outermost(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a = make_tagged(f->w, 1, 1);
    uint32_t tables = tables_of(f->w);
    strata_defer_begin(f->w);
    strata_defer_begin(f->w);
    assert_int_equal(strata_entity_destroy(f->w, a), STRATA_OK);
    assert_int_equal(strata_world_free_empty_tables(f->w), 0);
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_int_equal(tables_of(f->w), tables);
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_int_equal(tables_of(f->w), tables - 1);
    check_tables(f->w);
    world_close(f);
}

/* desc.free_empty_tables_after = 2: a table left empty by step s goes at
 * the end of step s + 1; one refilled before then stays. */
static void test_capacity_policy_frees_tables_idle_for_its_steps(void **state) {
    fixture_t *f = *state;
    strata_world_desc_t d = heap_desc(&f->heap, 0);
    d.free_empty_tables_after = 2;
    assert_int_equal(strata_world_create(&schema, &d, &f->w), STRATA_OK);
    strata_entity_t a = make_tagged(f->w, 1, 1), b = make_tagged(f->w, 2, 2);
    uint32_t tables = tables_of(f->w);
    strata_step_begin(f->w);
    assert_int_equal(strata_entity_destroy(f->w, a), STRATA_OK);
    assert_int_equal(strata_remove(f->w, b, HEALTH), STRATA_OK); /* {P, T1} empties, {P, T1} made */
    assert_int_equal(strata_step_end(f->w), STRATA_OK);
    uint32_t made = tables_of(f->w);
    assert_int_equal(made, tables + 1);
    strata_step_begin(f->w);
    assert_int_equal(strata_step_end(f->w), STRATA_OK); /* the second step end: {P, H, T0}, {P, H, T1} go */
    assert_int_equal(tables_of(f->w), made - 2);
    check_tables(f->w);
    /* A table emptied and refilled within the policy's steps stays. */
    assert_int_equal(strata_add(f->w, b, HEALTH, &(health){5}), STRATA_OK); /* {P, H, T1} again */
    strata_step_begin(f->w);
    assert_int_equal(strata_remove(f->w, b, HEALTH), STRATA_OK);
    assert_int_equal(strata_step_end(f->w), STRATA_OK);
    assert_int_equal(strata_add(f->w, b, HEALTH, &(health){6}), STRATA_OK);
    strata_step_begin(f->w);
    assert_int_equal(strata_step_end(f->w), STRATA_OK);
    assert_int_equal(hp_of(f->w, b), 6);
    /* Its edge back to {P, T1}, made before the steps, is still there. */
    assert_non_null(f->w->tables[sti_record_lookup(f->w, b)->table]->edges[COMPONENT_COUNT + HEALTH].table);
    check_tables(f->w);
    /* With nothing idle long enough, a step's end looks at the list's head only. */
    uint32_t now = tables_of(f->w);
    for (int i = 0; i < 3; i++) {
        strata_step_begin(f->w);
        assert_int_equal(strata_step_end(f->w), STRATA_OK);
    }
    assert_int_equal(tables_of(f->w), now - 1); /* {P, T1}, idle since the remove */
    world_close(f);
}

/* Entities in a changed set, in tables freed around them and renumbered:
 * the set's list follows, the visit yields each once. */
static void test_capacity_changed_sets_survive_a_free(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[24], seen[24];
    for (uint32_t i = 0; i < 24; i++) {
        e[i] = make_tagged(f->w, i % 12, (int32_t)i); /* created: in Hurt's set */
    }
    assert_int_equal(visit_hurt(f->w, seen, 24), 24);
    for (uint32_t i = 0; i < 24; i++) {
        if (i % 12 < 6) {
            assert_int_equal(strata_entity_destroy(f->w, e[i]), STRATA_OK);
        } else if (i % 2 == 0) {
            assert_int_equal(strata_set(f->w, e[i], HEALTH, &(health){100 + (int32_t)i}), STRATA_OK);
        }
    }
    assert_int_equal(strata_query_changed_count(f->w, Q_HURT), 6);
    assert_int_equal(strata_world_free_empty_tables(f->w), 6);
    check_tables(f->w);
    assert_int_equal(strata_query_changed_count(f->w, Q_HURT), 6);
    uint32_t n = visit_hurt(f->w, seen, 24);
    assert_int_equal(n, 6);
    for (uint32_t k = 0; k < n; k++) {
        int32_t hp = hp_of(f->w, seen[k]);
        assert_true(hp >= 100 && (hp - 100) % 12 >= 6 && hp % 2 == 0);
        assert_true(seen[k] == e[hp - 100]);
    }
    assert_int_equal(strata_query_changed_count(f->w, Q_HURT), 0);
    world_close(f);
}

/* Tables with aspect columns and hooks are freed like others; the hooks
 * run for what enters and leaves, not for the free. */
static void test_capacity_aspects_and_hooks_survive_a_free(void **state) {
    fixture_t *f = world_open(state);
    tracked_in = tracked_out = 0;
    strata_entity_t e[8];
    for (uint32_t i = 0; i < 8; i++) {
        e[i] = make_tagged(f->w, 1u | (i << 1), (int32_t)i); /* T0 and more: tracked */
    }
    assert_int_equal(tracked_in, 8);
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(strata_entity_destroy(f->w, e[i]), STRATA_OK);
    }
    assert_int_equal(tracked_out, 4);
    assert_int_equal(strata_world_free_empty_tables(f->w), 4);
    assert_int_equal(tracked_in, 8);
    assert_int_equal(tracked_out, 4);
    check_tables(f->w);
    for (uint32_t i = 4; i < 8; i++) {
        assert_int_equal(strata_remove(f->w, e[i], T0), STRATA_OK);
        assert_int_equal(strata_add(f->w, e[i], T0, NULL), STRATA_OK);
    }
    assert_int_equal(tracked_in, 12);
    assert_int_equal(tracked_out, 8);
    check_tables(f->w);
    world_close(f);
}

/* Freeing allocates nothing: with every allocation failing it still frees. */
static void test_capacity_free_allocates_nothing(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[6];
    for (uint32_t i = 0; i < 6; i++) {
        e[i] = make_tagged(f->w, i, 0);
    }
    for (uint32_t i = 0; i < 6; i += 2) {
        assert_int_equal(strata_entity_destroy(f->w, e[i]), STRATA_OK);
    }
    long calls = f->heap.calls;
    f->heap.fail_at = calls + 1;
    assert_int_equal(strata_world_free_empty_tables(f->w), 3);
    assert_int_equal(f->heap.calls, calls);
    f->heap.fail_at = 0;
    check_tables(f->w);
    world_close(f);
}

static void test_capacity_free_from_a_worker_view_is_an_assert(void **state) {
    fixture_t *f = world_open(state);
    strata_world_t view = *f->w;
    view.slot = (sti_slot_t *)(uintptr_t)1; /* what a batch's view holds */
    expect_assert_failure(strata_world_free_empty_tables(&view));
    expect_assert_failure(strata_entity_reserve(&view, 1));
    world_close(f);
}

/* --- Reserving ------------------------------------------------------------- */

/* After a reserve, adds into the table allocate nothing (but the first,
 * which makes the edge) and its rows need no new pages. */
static void test_capacity_reserve_makes_room_for_the_adds(void **state) {
    fixture_t *f = world_open(state);
    enum { N = 1000 };
    static strata_entity_t e[N];
    uint32_t pv[] = {POSITION, VELOCITY};
    assert_int_equal(strata_entity_create_many(f->w, N, 2, pv, NULL, e), STRATA_OK);
    uint32_t tables = tables_of(f->w);
    uint32_t pvt[] = {POSITION, VELOCITY, T5};
    assert_int_equal(strata_reserve(f->w, 3, pvt, N), STRATA_OK);
    assert_int_equal(tables_of(f->w), tables + 1); /* made, no row */
    check_tables(f->w);
    sti_table_t *t = NULL;
    strata_mask_t mask = {{BIT(POSITION) | BIT(VELOCITY) | BIT(T5)}};
    assert_int_equal(sti_table_ensure(f->w, &mask, &t), STRATA_OK);
    assert_int_equal(t->count, 0);
    assert_true(t->capacity >= N);
    assert_int_equal(strata_add(f->w, e[0], T5, NULL), STRATA_OK); /* the edge */
    long calls = f->heap.calls;
    for (uint32_t i = 1; i < N; i++) {
        assert_int_equal(strata_add(f->w, e[i], T5, NULL), STRATA_OK);
    }
    assert_int_equal(f->heap.calls, calls);
    /* A second reserve of room that exists allocates nothing either. */
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(strata_remove(f->w, e[i], T5), STRATA_OK);
    }
    calls = f->heap.calls;
    assert_int_equal(strata_reserve(f->w, 3, pvt, N), STRATA_OK);
    assert_int_equal(strata_reserve(f->w, 3, pvt, 0), STRATA_OK);
    assert_int_equal(f->heap.calls, calls);
    check_tables(f->w);
    world_close(f);
}

/* Each allocation of a reserve fails in turn: NOMEM, and the world as it
 * was (the table made by the call goes again); then it succeeds. */
static void test_capacity_reserve_nomem_leaves_the_world_as_it_was(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a = make_tagged(f->w, 1, 1);
    uint32_t ids[] = {POSITION, VELOCITY, HEALTH, T2};
    uint32_t tables = tables_of(f->w);
    strata_result_t r = STRATA_ERR_NOMEM;
    long fails = 0;
    for (long k = 1; r == STRATA_ERR_NOMEM; k++) {
        f->heap.fail_at = f->heap.calls + k;
        r = strata_reserve(f->w, 4, ids, 100);
        f->heap.fail_at = 0;
        if (r == STRATA_ERR_NOMEM) {
            fails++;
            assert_int_equal(tables_of(f->w), tables);
            check_tables(f->w);
            assert_int_equal(hp_of(f->w, a), 1);
        }
    }
    assert_int_equal(r, STRATA_OK);
    assert_true(fails >= 4); /* the table, the lists, the columns */
    assert_int_equal(tables_of(f->w), tables + 1);
    check_tables(f->w);
    /* Into a table that exists: its growth fails, it stays. */
    f->heap.fail_at = f->heap.calls + 1;
    assert_int_equal(strata_reserve(f->w, 4, ids, 100000), STRATA_ERR_NOMEM);
    f->heap.fail_at = 0;
    assert_int_equal(tables_of(f->w), tables + 1);
    world_close(f);
}

static void test_capacity_reserve_past_the_table_limit(void **state) {
    fixture_t *f = world_open(state);
    (void)make_tagged(f->w, 0, 0);
    f->w->table_limit = f->w->table_count;
    uint32_t ids[] = {POSITION, T1};
    assert_int_equal(strata_reserve(f->w, 2, ids, 10), STRATA_ERR_LIMIT);
    uint32_t ph[] = {POSITION, HEALTH};
    assert_int_equal(strata_reserve(f->w, 2, ph, 10), STRATA_OK); /* exists */
    check_tables(f->w);
    world_close(f);
}

static void test_capacity_reserve_inside_a_scope_is_an_assert(void **state) {
    fixture_t *f = world_open(state);
    uint32_t ids[] = {POSITION};
    strata_defer_begin(f->w);
    expect_assert_failure(strata_reserve(f->w, 1, ids, 10));
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    strata_step_begin(f->w);
    expect_assert_failure(strata_reserve(f->w, 1, ids, 10));
    assert_int_equal(strata_step_end(f->w), STRATA_OK);
    uint32_t bad[] = {COMPONENT_COUNT};
    expect_assert_failure(strata_reserve(f->w, 1, bad, 10));
    expect_assert_failure(strata_reserve(NULL, 1, ids, 10));
    world_close(f);
}

static void test_capacity_entity_reserve_makes_room_for_the_creates(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[4];
    for (int i = 0; i < 4; i++) {
        assert_int_equal(strata_entity_create(f->w, &e[i]), STRATA_OK);
    }
    assert_int_equal(strata_entity_destroy(f->w, e[0]), STRATA_OK); /* one index free */
    assert_int_equal(strata_entity_reserve(f->w, 5000), STRATA_OK);
    assert_true(f->w->record_capacity >= (size_t)f->w->record_count + 5000 - 1);
    uint32_t ph[] = {POSITION, HEALTH};
    assert_int_equal(strata_reserve(f->w, 2, ph, 5000), STRATA_OK);
    long calls = f->heap.calls;
    static strata_entity_t out[5000];
    for (int i = 0; i < 5000; i++) {
        assert_int_equal(strata_entity_create_many(f->w, 1, 2, ph, NULL, &out[i]), STRATA_OK);
    }
    assert_int_equal(f->heap.calls, calls);
    /* Allowed while deferred, as a create is. */
    strata_defer_begin(f->w);
    assert_int_equal(strata_entity_reserve(f->w, 10), STRATA_OK);
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    check_tables(f->w);
    world_close(f);
}

static void test_capacity_entity_reserve_limit_and_nomem_change_nothing(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e;
    assert_int_equal(strata_entity_create(f->w, &e), STRATA_OK);
    f->w->entity_limit = 100;
    assert_int_equal(strata_entity_reserve(f->w, 100), STRATA_ERR_LIMIT);
    assert_int_equal(strata_entity_reserve(f->w, 99), STRATA_OK);
    f->w->entity_limit = STRATA_MAX_ENTITIES;
    size_t cap = f->w->record_capacity;
    f->heap.fail_at = f->heap.calls + 1;
    assert_int_equal(strata_entity_reserve(f->w, 100000), STRATA_ERR_NOMEM);
    f->heap.fail_at = 0;
    assert_int_equal(f->w->record_capacity, cap);
    assert_true(strata_entity_alive(f->w, e));
    assert_int_equal(strata_entity_reserve(f->w, 0), STRATA_OK);
    world_close(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_capacity_free_empty_tables_frees_only_tables_without_rows, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_capacity_free_renumbers_kept_tables_and_their_records, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capacity_entity_added_after_a_free_makes_the_table_again, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capacity_free_inside_an_iterator_waits_for_its_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capacity_free_inside_a_step_waits_for_the_step_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capacity_free_in_nested_scopes_waits_for_the_outermost, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capacity_policy_frees_tables_idle_for_its_steps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capacity_changed_sets_survive_a_free, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capacity_aspects_and_hooks_survive_a_free, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capacity_free_allocates_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capacity_free_from_a_worker_view_is_an_assert, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capacity_reserve_makes_room_for_the_adds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capacity_reserve_nomem_leaves_the_world_as_it_was, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capacity_reserve_past_the_table_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capacity_reserve_inside_a_scope_is_an_assert, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capacity_entity_reserve_makes_room_for_the_creates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capacity_entity_reserve_limit_and_nomem_change_nothing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

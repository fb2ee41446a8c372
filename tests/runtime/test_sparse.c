/* test_sparse.c: components stored sparse, at the runtime level: adding
 * and removing them moves no row, their bits and values follow the rows
 * that move and leave, queries test them row by row, hooks and monitors
 * see them come and go, deferred changes replay them, and out of memory
 * leaves the world as it was. */
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
typedef struct heat {
    float t;
} heat;
typedef struct wide {
    _Alignas(32) double d[4];
    uint32_t id;
} wide; /* over-aligned, larger than the hot paths copy inline */

enum { POSITION, VELOCITY, HEAT, STUN, MARK, WIDE, GLOW, COMPONENT_COUNT };
enum { Q_HOT, Q_STUNNED, Q_FREE, Q_ONLY, Q_WATCH, Q_CHANGED, Q_MOVING, Q_CALM, QUERY_COUNT };

/* What the hooks saw. */
static struct {
    uint32_t glow_added, glow_removed, watch_added, watch_removed, calm_added, calm_removed;
    float last_heat;
    uint32_t create_in_hooks; /* GLOW's hooks create this many entities */
    uint32_t aspect_seen;     /* the aspect Watch's on_add found */
} hooks;

static void glow_on_add(strata_world_t *w, strata_entity_t e, void *value) {
    assert_null(value); /* a tag */
    assert_true(strata_has(w, e, GLOW));
    hooks.glow_added++;
    for (uint32_t i = 0; i < hooks.create_in_hooks; i++) {
        strata_entity_t made;
        assert_int_equal(strata_entity_create(w, &made), STRATA_OK);
    }
}

static void glow_on_remove(strata_world_t *w, strata_entity_t e, void *value) {
    assert_null(value);
    assert_true(strata_has(w, e, GLOW)); /* still there while its hook runs */
    hooks.glow_removed++;
    for (uint32_t i = 0; i < hooks.create_in_hooks; i++) {
        strata_entity_t made;
        assert_int_equal(strata_entity_create(w, &made), STRATA_OK);
    }
}

static void heat_on_set(strata_world_t *w, strata_entity_t e, void *value) {
    (void)w;
    (void)e;
    hooks.last_heat = ((const heat *)value)->t;
}

static void watch_on_add(strata_world_t *w, strata_entity_t e, void *aspect) {
    (void)w;
    (void)e;
    hooks.aspect_seen = *(const uint32_t *)aspect;
    *(uint32_t *)aspect = 100;
    hooks.watch_added++;
}

static void watch_on_remove(strata_world_t *w, strata_entity_t e, void *aspect) {
    (void)w;
    (void)e;
    assert_int_equal(*(const uint32_t *)aspect, 100);
    hooks.watch_removed++;
}

static void calm_on_add(strata_world_t *w, strata_entity_t e, void *aspect) {
    (void)aspect;
    assert_false(strata_has(w, e, STUN));
    hooks.calm_added++;
}

static void calm_on_remove(strata_world_t *w, strata_entity_t e, void *aspect) {
    (void)w;
    (void)e;
    (void)aspect;
    hooks.calm_removed++;
}

static const heat heat_defaults = {20.0f};
static const uint32_t watch_defaults = 7;

static const strata_component_desc_t components[COMPONENT_COUNT] = {
    [POSITION] = COMPONENT("Position", vec2, NULL),
    [VELOCITY] = COMPONENT("Velocity", vec2, NULL),
    [HEAT] = {.name = "Heat",
              .size = sizeof(heat),
              .align = _Alignof(heat),
              .defaults = &heat_defaults,
              .on_set = heat_on_set,
              .storage = STRATA_STORAGE_SPARSE},
    [STUN] = {.name = "Stun", .storage = STRATA_STORAGE_SPARSE},
    [MARK] = TAG("Mark"),
    [WIDE] = {.name = "Wide", .size = sizeof(wide), .align = _Alignof(wide), .storage = STRATA_STORAGE_SPARSE},
    [GLOW] = {.name = "Glow", .on_add = glow_on_add, .on_remove = glow_on_remove, .storage = STRATA_STORAGE_SPARSE},
};

static const strata_query_desc_t queries[QUERY_COUNT] = {
    [Q_HOT] = QUERY("Hot", BIT(POSITION) | BIT(HEAT), 0),
    [Q_STUNNED] = QUERY("Stunned", BIT(POSITION) | BIT(STUN), 0),
    [Q_FREE] = QUERY("Free", BIT(POSITION), BIT(STUN)),
    [Q_ONLY] = QUERY("Only", BIT(STUN), 0),
    [Q_WATCH] = {.name = "Watch",
                 .all = {{BIT(VELOCITY) | BIT(STUN)}},
                 .aspect_size = sizeof(uint32_t),
                 .aspect_align = _Alignof(uint32_t),
                 .aspect_defaults = &watch_defaults,
                 .on_add = watch_on_add,
                 .on_remove = watch_on_remove},
    [Q_CHANGED] = {.name = "Changed", .all = {{BIT(HEAT)}}, .changed = {{BIT(HEAT)}}},
    [Q_MOVING] = {.name = "Moving", .all = {{BIT(POSITION) | BIT(STUN)}}, .write = {{BIT(HEAT)}}},
    [Q_CALM] = {.name = "Calm",
                .all = {{BIT(VELOCITY)}},
                .none = {{BIT(STUN)}},
                .on_add = calm_on_add,
                .on_remove = calm_on_remove},
};

static const strata_schema_t schema = {
    .name = "sparse",
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

/* n new entities with Position (and Velocity if `moving`). */
static void spawn(fixture_t *f, uint32_t n, bool moving, strata_entity_t *out) {
    const uint32_t ids[] = {POSITION, VELOCITY};
    assert_int_equal(strata_entity_create_many(f->w, n, moving ? 2 : 1, ids, NULL, out), STRATA_OK);
}

/* Where e lives: its table and row. */
static sti_record_t where(const fixture_t *f, strata_entity_t e) {
    return *sti_record_lookup(f->w, e);
}

/* The entities a query visits, in visit order, through the runtime's iterator. */
static uint32_t visit(fixture_t *f, uint32_t q, strata_entity_t *out) {
    uint32_t n = 0;
    for (strata_iter_t it = strata_iter(f->w, q); strata_iter_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++) {
            out[n++] = it.entities[i];
        }
    }
    return n;
}

/* True if e is among the n handles of list. */
static bool among(const strata_entity_t *list, uint32_t n, strata_entity_t e) {
    for (uint32_t i = 0; i < n; i++) {
        if (list[i] == e) {
            return true;
        }
    }
    return false;
}

/* --- Adding and removing ------------------------------------------------------ */

static void test_sparse_add_and_remove_move_no_row(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[3];
    spawn(f, 3, false, e);
    sti_record_t before = where(f, e[1]);
    uint32_t moved = f->w->tables[before.table]->moved, tables = f->w->table_count;
    assert_int_equal(strata_add(f->w, e[1], STUN, NULL), STRATA_OK);
    assert_int_equal(strata_add(f->w, e[1], HEAT, &(heat){3.5f}), STRATA_OK);
    assert_true(strata_has(f->w, e[1], STUN));
    assert_true(strata_has(f->w, e[1], HEAT));
    assert_false(strata_has(f->w, e[0], STUN));
    assert_false(strata_has(f->w, e[2], HEAT));
    assert_float_equal(((const heat *)strata_get(f->w, e[1], HEAT))->t, 3.5f, 0);
    assert_null(strata_get(f->w, e[0], HEAT));
    assert_null(strata_get(f->w, e[1], STUN)); /* a tag has no value */
    sti_record_t after = where(f, e[1]);
    assert_int_equal(after.table, before.table);
    assert_int_equal(after.row, before.row);
    assert_int_equal(f->w->tables[before.table]->moved, moved);
    assert_int_equal(f->w->table_count, tables); /* no archetype for a sparse component */
    assert_int_equal(strata_remove(f->w, e[1], STUN), STRATA_OK);
    assert_int_equal(strata_remove(f->w, e[1], STUN), STRATA_ERR_MISSING);
    assert_int_equal(strata_remove(f->w, e[1], HEAT), STRATA_OK);
    assert_false(strata_has(f->w, e[1], HEAT));
    assert_null(strata_get(f->w, e[1], HEAT));
    assert_int_equal(where(f, e[1]).row, before.row);
    world_close(f);
}

static void test_sparse_add_overwrites_and_set_writes_in_place(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e;
    spawn(f, 1, false, &e);
    assert_int_equal(strata_set(f->w, e, HEAT, &(heat){1}), STRATA_ERR_MISSING);
    assert_int_equal(strata_add(f->w, e, HEAT, NULL), STRATA_OK);
    assert_float_equal(((const heat *)strata_get(f->w, e, HEAT))->t, 20.0f, 0); /* its defaults */
    assert_int_equal(strata_add(f->w, e, HEAT, &(heat){5}), STRATA_OK);
    assert_int_equal(f->w->sparse_sets[f->w->sparse_plane[HEAT]].count, 1);
    assert_int_equal(strata_set(f->w, e, HEAT, &(heat){6}), STRATA_OK);
    assert_float_equal(hooks.last_heat, 6.0f, 0); /* on_set, before set returns */
    heat *h = strata_get_mut(f->w, e, HEAT);
    h->t = 8;
    assert_float_equal(((const heat *)strata_get(f->w, e, HEAT))->t, 8.0f, 0);
    world_close(f);
}

static void test_sparse_stale_handles_fail_and_change_nothing(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[2];
    spawn(f, 2, false, e);
    assert_int_equal(strata_add(f->w, e[0], HEAT, &(heat){4}), STRATA_OK);
    assert_int_equal(strata_entity_destroy(f->w, e[0]), STRATA_OK);
    assert_int_equal(strata_add(f->w, e[0], HEAT, NULL), STRATA_ERR_STALE);
    assert_int_equal(strata_add(f->w, e[0], STUN, NULL), STRATA_ERR_STALE);
    assert_int_equal(strata_remove(f->w, e[0], STUN), STRATA_ERR_STALE);
    assert_int_equal(strata_set(f->w, e[0], HEAT, &(heat){1}), STRATA_ERR_STALE);
    assert_false(strata_has(f->w, e[0], HEAT));
    assert_null(strata_get(f->w, e[0], HEAT));
    assert_null(strata_get_mut(f->w, e[0], HEAT));
    assert_int_equal(f->w->sparse_sets[f->w->sparse_plane[HEAT]].count, 0);
    assert_false(strata_has(f->w, e[1], HEAT));
    /* The index is reused: the new entity has none of the old one's. */
    strata_entity_t again;
    spawn(f, 1, false, &again);
    assert_int_equal(strata_entity_index(again), strata_entity_index(e[0]));
    assert_false(strata_has(f->w, again, HEAT));
    world_close(f);
}

static void test_sparse_values_follow_moving_and_leaving_rows(void **state) {
    fixture_t *f = world_open(state);
    enum { N = 130 }; /* three words of bits */
    strata_entity_t e[N];
    spawn(f, N, false, e);
    for (uint32_t i = 0; i < N; i++) {
        if (i % 3 != 0) {
            assert_int_equal(strata_add(f->w, e[i], HEAT, &(heat){(float)i}), STRATA_OK);
        }
        if (i % 2 == 0) {
            assert_int_equal(strata_add(f->w, e[i], STUN, NULL), STRATA_OK);
        }
        if (i % 5 == 0) {
            assert_int_equal(strata_add(f->w, e[i], WIDE, &(wide){{1, 2, 3, (double)i}, i}), STRATA_OK);
        }
    }
    /* Rows move (an archetype add, swap-removes) and leave (destroys). */
    for (uint32_t i = 0; i < N; i += 4) {
        assert_int_equal(strata_add(f->w, e[i], VELOCITY, &(vec2){1, 1}), STRATA_OK);
    }
    for (uint32_t i = 1; i < N; i += 7) {
        assert_int_equal(strata_entity_destroy(f->w, e[i]), STRATA_OK);
    }
    for (uint32_t i = 0; i < N; i += 8) {
        assert_int_equal(strata_remove(f->w, e[i], VELOCITY), i % 7 != 1 ? STRATA_OK : STRATA_ERR_STALE);
    }
    for (uint32_t i = 0; i < N; i++) {
        bool alive = i % 7 != 1;
        assert_int_equal(strata_has(f->w, e[i], HEAT), alive && i % 3 != 0);
        assert_int_equal(strata_has(f->w, e[i], STUN), alive && i % 2 == 0);
        assert_int_equal(strata_has(f->w, e[i], WIDE), alive && i % 5 == 0);
        const heat *h = strata_get(f->w, e[i], HEAT);
        if (h != NULL) {
            assert_float_equal(h->t, (float)i, 0);
        }
        const wide *wv = strata_get(f->w, e[i], WIDE);
        if (wv != NULL) {
            assert_int_equal(wv->id, i);
            assert_true((uintptr_t)wv % 32 == 0);
        }
    }
    world_close(f);
}

static void test_sparse_create_many_with_sparse_components(void **state) {
    fixture_t *f = world_open(state);
    const uint32_t ids[] = {POSITION, HEAT, STUN};
    const void *values[] = {&(vec2){1, 2}, &(heat){9}, NULL};
    strata_entity_t e[5];
    assert_int_equal(strata_entity_create_many(f->w, 5, 3, ids, values, e), STRATA_OK);
    for (uint32_t i = 0; i < 5; i++) {
        assert_true(strata_has(f->w, e[i], STUN));
        assert_float_equal(((const heat *)strata_get(f->w, e[i], HEAT))->t, 9.0f, 0);
        assert_false(strata_mask_test(&f->w->tables[where(f, e[i]).table]->mask, HEAT));
    }
    /* Only sparse components: the empty table, with their bits. */
    const uint32_t only[] = {STUN};
    strata_entity_t bare;
    assert_int_equal(strata_entity_create_many(f->w, 1, 1, only, NULL, &bare), STRATA_OK);
    assert_int_equal(where(f, bare).table, 0);
    assert_true(strata_has(f->w, bare, STUN));
    world_close(f);
}

static void test_sparse_add_many_mixes_table_and_sparse(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e;
    spawn(f, 1, false, &e);
    const uint32_t ids[] = {VELOCITY, HEAT, STUN};
    const void *values[] = {&(vec2){3, 4}, &(heat){2}, NULL};
    assert_int_equal(strata_add_many(f->w, e, 3, ids, values), STRATA_OK);
    assert_true(strata_has(f->w, e, VELOCITY));
    assert_true(strata_has(f->w, e, STUN));
    assert_float_equal(((const heat *)strata_get(f->w, e, HEAT))->t, 2.0f, 0);
    assert_int_equal(strata_remove_many(f->w, e, 2, (const uint32_t[]){STUN, MARK}), STRATA_OK);
    assert_false(strata_has(f->w, e, STUN));
    assert_int_equal(strata_remove_many(f->w, e, 2, (const uint32_t[]){STUN, MARK}), STRATA_ERR_MISSING);
    assert_int_equal(strata_remove_many(f->w, e, 2, (const uint32_t[]){VELOCITY, HEAT}), STRATA_OK);
    assert_false(strata_has(f->w, e, VELOCITY));
    assert_false(strata_has(f->w, e, HEAT));
    world_close(f);
}

/* --- Queries -------------------------------------------------------------------- */

static void test_sparse_queries_visit_the_rows_that_meet_their_terms(void **state) {
    fixture_t *f = world_open(state);
    enum { N = 200 };
    strata_entity_t e[N], seen[N + 8];
    spawn(f, N / 2, false, e);
    spawn(f, N / 2, true, e + N / 2); /* a second table */
    for (uint32_t i = 0; i < N; i++) {
        if (i % 3 == 0 || (i >= 64 && i < 140)) { /* runs across words and tables */
            assert_int_equal(strata_add(f->w, e[i], STUN, NULL), STRATA_OK);
        }
    }
    uint32_t n = visit(f, Q_STUNNED, seen);
    uint32_t expected = 0;
    for (uint32_t i = 0; i < N; i++) {
        bool stunned = i % 3 == 0 || (i >= 64 && i < 140);
        expected += stunned;
        assert_int_equal(among(seen, n, e[i]), stunned);
    }
    assert_int_equal(n, expected);
    assert_int_equal(strata_query_count(f->w, Q_STUNNED), expected);
    n = visit(f, Q_FREE, seen);
    assert_int_equal(n, N - expected);
    assert_int_equal(strata_query_count(f->w, Q_FREE), N - expected);
    for (uint32_t i = 0; i < n; i++) {
        assert_false(strata_has(f->w, seen[i], STUN));
    }
    /* A query of sparse terms alone matches every table, the empty one too. */
    strata_entity_t bare;
    assert_int_equal(strata_entity_create(f->w, &bare), STRATA_OK);
    assert_int_equal(strata_add(f->w, bare, STUN, NULL), STRATA_OK);
    n = visit(f, Q_ONLY, seen);
    assert_int_equal(n, expected + 1);
    assert_true(among(seen, n, bare));
    world_close(f);
}

static void test_sparse_visit_yields_one_row_a_batch_with_its_columns(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[10];
    spawn(f, 10, false, e);
    for (uint32_t i = 0; i < 10; i++) {
        assert_int_equal(strata_set(f->w, e[i], POSITION, &(vec2){(float)i, 0}), STRATA_OK);
        if (i >= 3 && i < 7) {
            assert_int_equal(strata_add(f->w, e[i], STUN, NULL), STRATA_OK);
        }
    }
    uint32_t rows = 0;
    for (strata_iter_t it = strata_iter(f->w, Q_STUNNED); strata_iter_next(&it);) {
        assert_int_equal(it.count, 1);
        const vec2 *p = (const vec2 *)it.columns[POSITION] + it.row;
        assert_float_equal(p->x, (float)(3 + rows), 0);
        assert_int_equal(it.entities[0], e[3 + rows]);
        rows++;
    }
    assert_int_equal(rows, 4);
    /* What generated code does: the rest of the word in runs. */
    strata_iter_t it = strata_iter(f->w, Q_STUNNED);
    assert_true(strata_iter_next(&it));
    assert_int_equal(it.row, 3);
    uint32_t row = 0, count = 0;
    assert_true(strata_iter_sparse_run(&it, &row, &count));
    assert_int_equal(row, 4);
    assert_int_equal(count, 3);
    assert_false(strata_iter_sparse_run(&it, &row, &count));
    assert_false(strata_iter_next(&it));
    world_close(f);
}

static void test_sparse_runs_stop_at_gaps_and_word_ends(void **state) {
    (void)state;
    strata_iter_t it = {0};
    it.row_base = 128;
    it.row_bits = ~(uint64_t)0;
    uint32_t row, count;
    assert_true(strata_iter_sparse_run(&it, &row, &count));
    assert_int_equal(row, 128);
    assert_int_equal(count, 64);
    assert_false(strata_iter_sparse_run(&it, &row, &count));
    it.row_bits = (uint64_t)1 << 63 | (uint64_t)0x6 | (uint64_t)0xf0;
    assert_true(strata_iter_sparse_run(&it, &row, &count));
    assert_int_equal(row, 129);
    assert_int_equal(count, 2);
    assert_true(strata_iter_sparse_run(&it, &row, &count));
    assert_int_equal(row, 132);
    assert_int_equal(count, 4);
    assert_true(strata_iter_sparse_run(&it, &row, &count));
    assert_int_equal(row, 191);
    assert_int_equal(count, 1);
    assert_false(strata_iter_sparse_run(&it, &row, &count));
}

static void test_sparse_changes_made_while_visiting_wait_for_the_end(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[20], seen[20];
    spawn(f, 20, false, e);
    for (uint32_t i = 0; i < 20; i += 2) {
        assert_int_equal(strata_add(f->w, e[i], STUN, NULL), STRATA_OK);
    }
    uint32_t visited = 0;
    for (strata_iter_t it = strata_iter(f->w, Q_STUNNED); strata_iter_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++) {
            strata_entity_t x = it.entities[i];
            assert_int_equal(strata_remove(f->w, x, STUN), STRATA_OK); /* recorded */
            assert_true(strata_has(f->w, x, STUN));
            strata_entity_t next = e[strata_entity_index(x) + 1];
            assert_int_equal(strata_add(f->w, next, STUN, NULL), STRATA_OK);
            assert_false(strata_has(f->w, next, STUN));
            visited++;
        }
    }
    assert_int_equal(visited, 10);
    uint32_t n = visit(f, Q_STUNNED, seen);
    assert_int_equal(n, 10);
    for (uint32_t i = 0; i < 20; i++) {
        assert_int_equal(strata_has(f->w, e[i], STUN), i % 2 == 1);
    }
    world_close(f);
}

static void test_sparse_changed_visits_skip_rows_without_the_component(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[6], seen[6];
    spawn(f, 6, false, e);
    for (uint32_t i = 0; i < 6; i++) {
        assert_int_equal(strata_add(f->w, e[i], HEAT, NULL), STRATA_OK); /* an add marks */
    }
    assert_int_equal(strata_query_changed_count(f->w, Q_CHANGED), 6);
    assert_int_equal(visit(f, Q_CHANGED, seen), 6);
    assert_int_equal(visit(f, Q_CHANGED, seen), 0);
    assert_int_equal(strata_set(f->w, e[1], HEAT, &(heat){1}), STRATA_OK);
    ((heat *)strata_get_mut(f->w, e[4], HEAT))->t = 2;
    assert_int_equal(strata_set(f->w, e[5], HEAT, &(heat){3}), STRATA_OK);
    assert_int_equal(strata_remove(f->w, e[5], HEAT), STRATA_OK); /* written, then gone */
    assert_int_equal(visit(f, Q_CHANGED, seen), 2);
    assert_true(among(seen, 2, e[1]));
    assert_true(among(seen, 2, e[4]));
    world_close(f);
}

static void test_sparse_write_terms_mark_only_the_rows_visited(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[8], seen[8];
    spawn(f, 8, false, e);
    for (uint32_t i = 0; i < 8; i++) {
        assert_int_equal(strata_add(f->w, e[i], HEAT, NULL), STRATA_OK);
    }
    (void)visit(f, Q_CHANGED, seen);
    assert_int_equal(strata_add(f->w, e[2], STUN, NULL), STRATA_OK);
    assert_int_equal(strata_add(f->w, e[6], STUN, NULL), STRATA_OK);
    /* Moving writes Heat: only its rows (those with Stun) are marked. */
    assert_int_equal(visit(f, Q_MOVING, seen), 2);
    assert_int_equal(strata_query_changed_count(f->w, Q_CHANGED), 2);
    assert_int_equal(visit(f, Q_CHANGED, seen), 2);
    assert_true(among(seen, 2, e[2]));
    assert_true(among(seen, 2, e[6]));
    world_close(f);
}

/* --- Hooks and monitors ------------------------------------------------------------- */

static void test_sparse_component_hooks_run_on_add_remove_destroy(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[3];
    spawn(f, 3, false, e);
    hooks.create_in_hooks = 2000; /* enough to move the records array under the hook */
    assert_int_equal(strata_add(f->w, e[1], GLOW, NULL), STRATA_OK);
    assert_int_equal(hooks.glow_added, 1);
    assert_int_equal(strata_add(f->w, e[1], GLOW, NULL), STRATA_OK); /* present: no hook */
    assert_int_equal(hooks.glow_added, 1);
    assert_int_equal(strata_remove(f->w, e[1], GLOW), STRATA_OK);
    assert_int_equal(hooks.glow_removed, 1);
    assert_false(strata_has(f->w, e[1], GLOW));
    hooks.create_in_hooks = 0;
    assert_int_equal(strata_add(f->w, e[0], GLOW, NULL), STRATA_OK);
    assert_int_equal(strata_add(f->w, e[2], GLOW, NULL), STRATA_OK);
    assert_int_equal(strata_entity_destroy(f->w, e[0]), STRATA_OK);
    assert_int_equal(hooks.glow_removed, 2);
    /* Created with it: on_add; the world cleared or destroyed: on_remove. */
    strata_entity_t made;
    const uint32_t ids[] = {GLOW};
    assert_int_equal(strata_entity_create_many(f->w, 1, 1, ids, NULL, &made), STRATA_OK);
    assert_int_equal(hooks.glow_added, 4);
    strata_world_clear(f->w);
    assert_int_equal(hooks.glow_removed, 4);
    assert_false(strata_has(f->w, e[2], GLOW));
    spawn(f, 1, false, &made);
    assert_int_equal(strata_add(f->w, made, GLOW, NULL), STRATA_OK);
    world_close(f);
    assert_int_equal(hooks.glow_removed, 5);
}

static void test_sparse_monitors_follow_the_sparse_terms(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[2];
    spawn(f, 2, true, e);
    assert_int_equal(hooks.watch_added, 0);
    assert_int_equal(strata_add(f->w, e[0], STUN, NULL), STRATA_OK);
    assert_int_equal(hooks.watch_added, 1);
    assert_int_equal(hooks.aspect_seen, 7); /* made at its defaults */
    /* A move between tables that both match keeps it; one to a table that does not ends it. */
    assert_int_equal(strata_add(f->w, e[0], MARK, NULL), STRATA_OK);
    assert_int_equal(hooks.watch_removed, 0);
    uint32_t id = strata_query_aspect_id(f->w, Q_WATCH);
    sti_record_t at = where(f, e[0]);
    assert_int_equal(*((const uint32_t *)f->w->tables[at.table]->columns[id] + at.row), 100);
    assert_int_equal(strata_remove(f->w, e[0], VELOCITY), STRATA_OK);
    assert_int_equal(hooks.watch_removed, 1);
    assert_int_equal(strata_add(f->w, e[0], VELOCITY, NULL), STRATA_OK);
    assert_int_equal(hooks.watch_added, 2);
    assert_int_equal(strata_remove(f->w, e[0], STUN), STRATA_OK);
    assert_int_equal(hooks.watch_removed, 2);
    /* e[1] never matched: its destroy runs nothing; e[0]'s once it matches again. */
    assert_int_equal(strata_entity_destroy(f->w, e[1]), STRATA_OK);
    assert_int_equal(hooks.watch_removed, 2);
    assert_int_equal(strata_add(f->w, e[0], STUN, NULL), STRATA_OK);
    assert_int_equal(strata_entity_destroy(f->w, e[0]), STRATA_OK);
    assert_int_equal(hooks.watch_added, 3);
    assert_int_equal(hooks.watch_removed, 3);
    world_close(f);
}

/* A monitor that excludes a sparse tag stops matching when the tag comes
 * and starts again when it goes; a change of several components is one
 * change: no hook for a state between (a bundle of Velocity and Stun never
 * makes the entity Calm). */
static void test_sparse_excluding_monitors_and_changes_of_several(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e;
    spawn(f, 1, false, &e);
    const uint32_t both[] = {VELOCITY, STUN};
    assert_int_equal(strata_add_many(f->w, e, 2, both, NULL), STRATA_OK);
    assert_int_equal(hooks.calm_added, 0);
    assert_int_equal(strata_remove(f->w, e, STUN), STRATA_OK);
    assert_int_equal(hooks.calm_added, 1);
    assert_int_equal(strata_add(f->w, e, STUN, NULL), STRATA_OK);
    assert_int_equal(hooks.calm_removed, 1);
    assert_int_equal(strata_remove_many(f->w, e, 2, both), STRATA_OK);
    assert_int_equal(hooks.calm_added, 1); /* never Calm between the two removes */
    assert_int_equal(hooks.calm_removed, 1);
    assert_int_equal(strata_add(f->w, e, VELOCITY, NULL), STRATA_OK);
    assert_int_equal(hooks.calm_added, 2);
    const uint32_t glow_stun[] = {STUN, GLOW};
    assert_int_equal(strata_add_many(f->w, e, 2, glow_stun, NULL), STRATA_OK); /* Calm ends, Glow's on_add */
    assert_int_equal(hooks.calm_removed, 2);
    assert_int_equal(hooks.glow_added, 1);
    assert_int_equal(strata_entity_destroy(f->w, e), STRATA_OK);
    assert_int_equal(hooks.calm_removed, 2); /* it was not Calm any more */
    assert_int_equal(hooks.glow_removed, 1);
    world_close(f);
}

/* --- Deferral ------------------------------------------------------------------------- */

static void test_sparse_deferred_changes_replay_in_order(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[4];
    spawn(f, 4, false, e);
    strata_defer_begin(f->w);
    assert_int_equal(strata_add(f->w, e[0], HEAT, &(heat){1}), STRATA_OK);
    assert_int_equal(strata_add(f->w, e[1], HEAT, &(heat){2}), STRATA_OK);
    assert_int_equal(strata_remove(f->w, e[0], HEAT), STRATA_ERR_MISSING); /* not yet there */
    assert_int_equal(strata_add(f->w, e[2], STUN, NULL), STRATA_OK);
    assert_int_equal(strata_entity_destroy(f->w, e[3]), STRATA_OK);
    assert_int_equal(strata_add(f->w, e[3], STUN, NULL), STRATA_OK); /* after its destroy: dropped */
    assert_false(strata_has(f->w, e[0], HEAT));
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_float_equal(((const heat *)strata_get(f->w, e[0], HEAT))->t, 1.0f, 0);
    assert_float_equal(((const heat *)strata_get(f->w, e[1], HEAT))->t, 2.0f, 0);
    assert_true(strata_has(f->w, e[2], STUN));
    assert_false(strata_entity_alive(f->w, e[3]));
    strata_defer_begin(f->w);
    assert_int_equal(strata_remove(f->w, e[0], HEAT), STRATA_OK);
    assert_int_equal(strata_add(f->w, e[0], HEAT, &(heat){5}), STRATA_OK);
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_float_equal(((const heat *)strata_get(f->w, e[0], HEAT))->t, 5.0f, 0);
    world_close(f);
}

static void test_sparse_destroys_at_the_step_end_free_their_values(void **state) {
    fixture_t *f = world_open(state);
    enum { N = 70 };
    strata_entity_t e[N];
    spawn(f, N, false, e);
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(strata_add(f->w, e[i], HEAT, &(heat){(float)i}), STRATA_OK);
    }
    strata_step_begin(f->w);
    for (uint32_t i = 0; i < N; i++) { /* a whole table in row order: freed at once */
        assert_int_equal(strata_entity_destroy(f->w, e[i]), STRATA_OK);
    }
    assert_int_equal(strata_step_end(f->w), STRATA_OK);
    assert_int_equal(f->w->sparse_sets[f->w->sparse_plane[HEAT]].count, 0);
    spawn(f, N, false, e);
    for (uint32_t i = 0; i < N; i++) {
        assert_false(strata_has(f->w, e[i], HEAT));
    }
    world_close(f);
}

/* --- Out of memory ---------------------------------------------------------------------- */

/* Every allocation of an add of sparse components fails in turn: the add
 * reports NOMEM and the world is as it was; then it succeeds. */
static void test_sparse_out_of_memory_changes_nothing(void **state) {
    fixture_t *f = world_open(state);
    enum { N = 40 };
    strata_entity_t e[N];
    spawn(f, N, false, e);
    const uint32_t ids[] = {VELOCITY, WIDE, HEAT};
    const void *values[] = {NULL, &(wide){{1, 2, 3, 4}, 9}, &(heat){3}};
    for (uint32_t i = 0; i < N; i++) {
        for (long at = 1;; at++) {
            size_t bytes = f->w->bytes;
            f->heap.fail_at = f->heap.calls + at;
            strata_result_t r = i % 2 == 0 ? strata_add(f->w, e[i], WIDE, values[1])
                                           : strata_add_many(f->w, e[i], 3, ids, values);
            f->heap.fail_at = 0;
            if (r == STRATA_OK) {
                break;
            }
            assert_int_equal(r, STRATA_ERR_NOMEM);
            assert_false(strata_has(f->w, e[i], WIDE));
            assert_false(strata_has(f->w, e[i], HEAT));
            assert_false(strata_has(f->w, e[i], VELOCITY));
            assert_true(f->w->bytes >= bytes); /* at most room was made */
        }
        assert_int_equal(((const wide *)strata_get(f->w, e[i], WIDE))->id, 9);
    }
    strata_entity_t made[3];
    const uint32_t sparse_ids[] = {POSITION, HEAT};
    for (long at = 1;; at++) {
        uint32_t alive = f->w->alive;
        f->heap.fail_at = f->heap.calls + at;
        strata_result_t r = strata_entity_create_many(f->w, 3, 2, sparse_ids, NULL, made);
        f->heap.fail_at = 0;
        if (r == STRATA_OK) {
            break;
        }
        assert_int_equal(r, STRATA_ERR_NOMEM);
        assert_int_equal(f->w->alive, alive);
    }
    assert_true(strata_has(f->w, made[2], HEAT));
    world_close(f);
}

/* The sparse entry points generated code calls: the results of strata_add
 * and strata_remove, stale handles and out of memory included. */
static void test_sparse_entry_points_match_add_and_remove(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[3];
    spawn(f, 3, false, e);
    assert_int_equal(strata_sparse_add(f->w, e[0], STUN, NULL), STRATA_OK);
    assert_int_equal(strata_sparse_add(f->w, e[0], STUN, NULL), STRATA_OK);
    assert_true(strata_has(f->w, e[0], STUN));
    assert_int_equal(strata_sparse_add(f->w, e[1], WIDE, &(wide){{1}, 5}), STRATA_OK);
    assert_int_equal(((const wide *)strata_term_value(f->w, e[1], WIDE))->id, 5);
    assert_null(strata_term_value(f->w, e[0], WIDE));
    assert_int_equal(strata_sparse_add(f->w, e[1], GLOW, NULL), STRATA_OK); /* hooked: the slow path */
    assert_int_equal(hooks.glow_added, 1);
    assert_int_equal(strata_sparse_remove(f->w, e[1], GLOW), STRATA_OK);
    assert_int_equal(hooks.glow_removed, 1);
    assert_int_equal(strata_sparse_remove(f->w, e[2], STUN), STRATA_ERR_MISSING);
    assert_int_equal(strata_sparse_remove(f->w, e[0], STUN), STRATA_OK);
    assert_int_equal(strata_sparse_remove(f->w, e[1], WIDE), STRATA_OK);
    assert_int_equal(strata_sparse_remove(f->w, e[1], WIDE), STRATA_ERR_MISSING);
    strata_defer_begin(f->w);
    assert_int_equal(strata_sparse_add(f->w, e[2], HEAT, &(heat){4}), STRATA_OK);
    assert_false(strata_has(f->w, e[2], HEAT));
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_float_equal(((const heat *)strata_get(f->w, e[2], HEAT))->t, 4.0f, 0);
    assert_int_equal(strata_entity_destroy(f->w, e[2]), STRATA_OK);
    assert_int_equal(strata_sparse_add(f->w, e[2], STUN, NULL), STRATA_ERR_STALE);
    assert_int_equal(strata_sparse_remove(f->w, e[2], STUN), STRATA_ERR_STALE);
    assert_null(strata_term_value(f->w, e[2], HEAT));
    strata_entity_t many[200];
    spawn(f, 200, false, many);
    for (uint32_t i = 0; i < 200; i++) { /* the set grows under them: each failure changes nothing */
        for (long at = 1;; at++) {
            f->heap.fail_at = f->heap.calls + at;
            strata_result_t r = strata_sparse_add(f->w, many[i], WIDE, &(wide){{0}, i});
            f->heap.fail_at = 0;
            if (r == STRATA_OK) {
                break;
            }
            assert_int_equal(r, STRATA_ERR_NOMEM);
            assert_false(strata_has(f->w, many[i], WIDE));
        }
        assert_int_equal(((const wide *)strata_get(f->w, many[i], WIDE))->id, i);
    }
    world_close(f);
}

/* The leaf adds test one mask for "no scope open and nothing watches":
 * inside nested scopes, and a scope closed inside another, they record;
 * a stale handle gets no place. */
static void test_sparse_leaf_adds_wait_for_the_outermost_scope(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[2];
    spawn(f, 2, false, e);
    assert_int_equal(strata_sparse_add(f->w, e[0], WIDE, &(wide){{0}, 0}), STRATA_OK); /* makes the set's room */
    wide *at = strata_sparse_place(f->w, e[0], WIDE);
    assert_non_null(at);
    at->id = 1;
    assert_int_equal(((const wide *)strata_get(f->w, e[0], WIDE))->id, 1);
    assert_int_equal(strata_sparse_add(f->w, e[0], HEAT, &(heat){1}), STRATA_OK);
    assert_null(strata_sparse_place(f->w, e[0], HEAT)); /* a changed set tracks Heat: never the leaf */
    strata_defer_begin(f->w);
    strata_defer_begin(f->w);
    assert_null(strata_sparse_place(f->w, e[0], WIDE));
    assert_int_equal(strata_defer_end(f->w), STRATA_OK); /* the outer scope still open */
    assert_null(strata_sparse_place(f->w, e[0], WIDE));
    assert_int_equal(strata_sparse_tag_add(f->w, e[1], STUN), STRATA_OK);
    assert_int_equal(strata_sparse_add(f->w, e[1], WIDE, &(wide){{0}, 2}), STRATA_OK);
    assert_false(strata_has(f->w, e[1], STUN));
    assert_false(strata_has(f->w, e[1], WIDE));
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_true(strata_has(f->w, e[1], STUN));
    assert_int_equal(((const wide *)strata_get(f->w, e[1], WIDE))->id, 2);
    assert_non_null(strata_sparse_place(f->w, e[1], WIDE)); /* no scope left open */
    assert_int_equal(strata_entity_destroy(f->w, e[1]), STRATA_OK);
    assert_null(strata_sparse_place(f->w, e[1], WIDE));
    assert_int_equal(strata_sparse_tag_add(f->w, e[1], STUN), STRATA_ERR_STALE);
    world_close(f);
}

static void test_sparse_stats_count_the_sets_bytes(void **state) {
    fixture_t *f = world_open(state);
    enum { N = 1000 };
    strata_entity_t e[N];
    spawn(f, N, false, e);
    strata_world_stats_t before, after;
    strata_world_stats(f->w, &before);
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(strata_add(f->w, e[i], WIDE, NULL), STRATA_OK);
    }
    strata_world_stats(f->w, &after);
    assert_true(after.bytes >= before.bytes + N * (sizeof(wide) + sizeof(strata_entity_t) + sizeof(uint32_t)));
    assert_int_equal(after.bytes, f->heap.bytes); /* every byte the world holds is counted */
    world_close(f);
}

/* A reserve that names sparse components makes the table of the others
 * only, and room in the sets of those with values: the creates and adds
 * it was made for then allocate nothing. */
static void test_sparse_reserve_makes_room_in_the_sets_not_a_table(void **state) {
    fixture_t *f = world_open(state);
    enum { N = 100 };
    const uint32_t ids[] = {POSITION, HEAT, STUN};
    assert_int_equal(strata_reserve(f->w, 3, ids, N), STRATA_OK);
    for (uint32_t t = 0; t < f->w->table_count; t++) {
        assert_false(strata_mask_test(&f->w->tables[t]->mask, HEAT));
        assert_false(strata_mask_test(&f->w->tables[t]->mask, STUN));
    }
    const sti_sparse_t *heat_set = &f->w->sparse_sets[f->w->sparse_plane[HEAT]];
    assert_true(heat_set->capacity >= N);
    assert_true(heat_set->slot_capacity >= N);
    assert_int_equal(strata_entity_reserve(f->w, N), STRATA_OK);
    long calls = f->heap.calls;
    for (uint32_t i = 0; i < N; i++) {
        strata_entity_t e;
        assert_int_equal(strata_entity_create_many(f->w, 1, 1, ids, NULL, &e), STRATA_OK);
        assert_int_equal(strata_add(f->w, e, HEAT, &(heat){(float)i}), STRATA_OK);
        assert_int_equal(strata_add(f->w, e, STUN, NULL), STRATA_OK);
    }
    assert_int_equal(f->heap.calls, calls);
    world_close(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sparse_add_and_remove_move_no_row, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_add_overwrites_and_set_writes_in_place, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_stale_handles_fail_and_change_nothing, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_values_follow_moving_and_leaving_rows, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_create_many_with_sparse_components, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_add_many_mixes_table_and_sparse, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_queries_visit_the_rows_that_meet_their_terms, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_visit_yields_one_row_a_batch_with_its_columns, reset, teardown),
        cmocka_unit_test(test_sparse_runs_stop_at_gaps_and_word_ends),
        cmocka_unit_test_setup_teardown(test_sparse_changes_made_while_visiting_wait_for_the_end, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_changed_visits_skip_rows_without_the_component, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_write_terms_mark_only_the_rows_visited, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_component_hooks_run_on_add_remove_destroy, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_monitors_follow_the_sparse_terms, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_excluding_monitors_and_changes_of_several, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_deferred_changes_replay_in_order, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_destroys_at_the_step_end_free_their_values, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_out_of_memory_changes_nothing, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_entry_points_match_add_and_remove, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_leaf_adds_wait_for_the_outermost_scope, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_stats_count_the_sets_bytes, reset, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_reserve_makes_room_in_the_sets_not_a_table, reset, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

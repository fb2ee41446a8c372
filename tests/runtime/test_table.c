/* test_table.c: archetype tables: the empty table, lookup by mask (the
 * hash and its growth), columns by id, growth (geometric, aligned, values
 * kept, all or nothing), the table limit; `room`, the touch of a
 * reserve's pages, and taking tables out of the set (the hash's deletion,
 * the renumbering, edges). */
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
typedef struct wide {
    _Alignas(32) float v[8];
} wide;

/* Elements of the sizes a copy plan has its own copiers for. */
typedef struct bytes4 {
    unsigned char b[4];
} bytes4;
typedef struct bytes12 {
    unsigned char b[12];
} bytes12;
typedef struct bytes16 {
    unsigned char b[16];
} bytes16;

enum {
    POSITION,
    VELOCITY,
    WIDE,
    T0,
    T1,
    T2,
    T3,
    T4,
    T5,
    T6,
    B4A, /* three components of each size class: B<size><A..C> */
    B4B,
    B4C,
    B8C, /* with Position and Velocity, three of 8 bytes */
    B12A,
    B12B,
    B12C,
    B16A,
    B16B,
    B16C,
    COMPONENT_COUNT
};
enum { Q_POSITIONED, QUERY_COUNT };

static const strata_component_desc_t components[COMPONENT_COUNT] = {
    [POSITION] = COMPONENT("Position", vec2, NULL),
    [VELOCITY] = COMPONENT("Velocity", vec2, NULL),
    [WIDE] = COMPONENT("Wide", wide, NULL),
    [T0] = TAG("T0"),
    [T1] = TAG("T1"),
    [T2] = TAG("T2"),
    [T3] = TAG("T3"),
    [T4] = TAG("T4"),
    [T5] = TAG("T5"),
    [T6] = TAG("T6"),
    [B4A] = COMPONENT("B4A", bytes4, NULL),
    [B4B] = COMPONENT("B4B", bytes4, NULL),
    [B4C] = COMPONENT("B4C", bytes4, NULL),
    [B8C] = COMPONENT("B8C", vec2, NULL),
    [B12A] = COMPONENT("B12A", bytes12, NULL),
    [B12B] = COMPONENT("B12B", bytes12, NULL),
    [B12C] = COMPONENT("B12C", bytes12, NULL),
    [B16A] = COMPONENT("B16A", bytes16, NULL),
    [B16B] = COMPONENT("B16B", bytes16, NULL),
    [B16C] = COMPONENT("B16C", bytes16, NULL),
};

static const strata_query_desc_t queries[QUERY_COUNT] = {
    [Q_POSITIONED] = QUERY("Positioned", (uint64_t)1 << POSITION, 0),
};

static const strata_schema_t schema = {
    .name = "test",
    .version = 1,
    .component_count = COMPONENT_COUNT,
    .components = components,
    .query_count = QUERY_COUNT,
    .queries = queries,
};


/* The mask of the components in ids. */
static strata_mask_t mask_of(uint32_t k, const uint32_t *ids) {
    strata_mask_t m = {{0}};
    for (uint32_t i = 0; i < k; i++) {
        strata_mask_set(&m, ids[i]);
    }
    return m;
}

/* --- Tests ---------------------------------------------------------------- */

static void test_table_empty_table_exists_from_creation(void **state) {
    fixture_t *f = world_open(state);
    assert_int_equal(f->w->table_count, 1);
    const sti_table_t *t = f->w->tables[0];
    assert_int_equal(t->id, 0);
    assert_int_equal(t->column_count, 0);
    for (uint32_t c = 0; c < COMPONENT_COUNT; c++) {
        assert_false(strata_mask_test(&t->mask, c));
        assert_null(t->columns[c]);
    }
    strata_entity_t e;
    assert_int_equal(strata_entity_create(f->w, &e), STRATA_OK);
    assert_int_equal(sti_record_lookup(f->w, e)->table, 0);
    assert_int_equal(t->count, 1);
    world_close(f);
}

static void test_table_ensure_finds_the_same_table_by_mask(void **state) {
    fixture_t *f = world_open(state);
    uint32_t a[] = {VELOCITY, POSITION, T3};
    uint32_t b[] = {T3, POSITION, VELOCITY};
    strata_mask_t ma = mask_of(3, a), mb = mask_of(3, b), mc = mask_of(2, a);
    sti_table_t *ta = NULL, *tb = NULL, *tc = NULL;
    assert_int_equal(sti_table_ensure(f->w, &ma, &ta), STRATA_OK);
    assert_int_equal(sti_table_ensure(f->w, &mb, &tb), STRATA_OK);
    assert_int_equal(sti_table_ensure(f->w, &mc, &tc), STRATA_OK);
    assert_ptr_equal(ta, tb);
    assert_ptr_not_equal(ta, tc);
    assert_int_equal(f->w->table_count, 3);
    /* Columns by id, in ascending order; tags and absent components have none. */
    assert_int_equal(ta->column_count, 2);
    assert_int_equal(ta->dense[0].id, POSITION);
    assert_int_equal(ta->dense[1].id, VELOCITY);
    assert_null(ta->columns[T3]);
    assert_null(ta->columns[WIDE]);
    world_close(f);
}

static void test_table_hash_grows_and_keeps_every_table(void **state) {
    fixture_t *f = world_open(state);
    /* Every set of the seven tags with Position: 128 tables. */
    sti_table_t *made[128];
    for (uint32_t bits = 0; bits < 128; bits++) {
        strata_mask_t m = {{0}};
        strata_mask_set(&m, POSITION);
        for (uint32_t i = 0; i < 7; i++) {
            if (bits & (1u << i)) {
                strata_mask_set(&m, T0 + i);
            }
        }
        assert_int_equal(sti_table_ensure(f->w, &m, &made[bits]), STRATA_OK);
    }
    assert_int_equal(f->w->table_count, 129);
    assert_true(f->w->hash_capacity >= 2 * 129);
    for (uint32_t bits = 0; bits < 128; bits++) {
        sti_table_t *again = NULL;
        assert_int_equal(sti_table_ensure(f->w, &made[bits]->mask, &again), STRATA_OK);
        assert_ptr_equal(again, made[bits]);
    }
    assert_int_equal(f->w->table_count, 129);
    assert_int_equal(f->w->queries[Q_POSITIONED].count, 128);
    world_close(f);
}

/* The tag sets of `bits` (seven tags) with Position, as a mask. */
static strata_mask_t tagged(uint32_t bits) {
    strata_mask_t m = {{0}};
    strata_mask_set(&m, POSITION);
    for (uint32_t i = 0; i < 7; i++) {
        if (bits & (1u << i)) {
            strata_mask_set(&m, T0 + i);
        }
    }
    return m;
}

/* Tables taken out of the set in an order that breaks the hash's probe
 * runs (every third, then every other of the rest, out of 128 crowded in
 * a hash at most half full): every table left is found by its mask, ids
 * are indices again, the rows of the tables renumbered keep their records,
 * and the edges to tables that went are gone. */
static void test_table_unlink_renumber_compact_keep_the_set_whole(void **state) {
    fixture_t *f = world_open(state);
    sti_table_t *made[128];
    strata_entity_t in[128];
    for (uint32_t bits = 0; bits < 128; bits++) {
        strata_mask_t m = tagged(bits);
        assert_int_equal(sti_table_ensure(f->w, &m, &made[bits]), STRATA_OK);
        uint32_t ids[8] = {POSITION}, k = 1;
        for (uint32_t i = 0; i < 7; i++) {
            if (bits & (1u << i)) {
                ids[k++] = T0 + i;
            }
        }
        assert_int_equal(strata_entity_create_many(f->w, 1, k, ids, NULL, &in[bits]), STRATA_OK);
        if (bits > 0) { /* an edge to each from the untagged table */
            assert_int_equal(sti_table_edge(f->w, made[0], T0 + (uint32_t)__builtin_ctz(bits), true, NULL), STRATA_OK);
        }
    }
    check_tables(f->w);
    bool gone[128] = {false};
    for (int round = 0; round < 2; round++) {
        uint32_t step = round == 0 ? 3 : 2, seen = 0;
        for (uint32_t bits = 1; bits < 128; bits++) {
            if (gone[bits] || seen++ % step != 0) {
                continue;
            }
            assert_int_equal(strata_entity_destroy(f->w, in[bits]), STRATA_OK);
            sti_table_unlink(f->w, made[bits]);
            gone[bits] = true;
        }
        uint32_t left = sti_table_renumber(f->w);
        sti_table_compact(f->w, left);
        assert_int_equal(f->w->table_count, left);
        check_tables(f->w);
        for (uint32_t i = 0; i < 7; i++) { /* the untagged table's edges to one tag: gone with their tables */
            assert_ptr_equal(made[0]->edges[T0 + i].table, gone[1u << i] ? NULL : made[1u << i]);
        }
        for (uint32_t bits = 0; bits < 128; bits++) {
            strata_mask_t m = tagged(bits);
            sti_table_t *t = NULL;
            uint32_t before = f->w->table_count;
            assert_int_equal(sti_table_ensure(f->w, &m, &t), STRATA_OK);
            if (gone[bits]) {
                assert_int_equal(f->w->table_count, before + 1); /* made again: it was not found */
                sti_table_unlink(f->w, t);
                sti_table_compact(f->w, sti_table_renumber(f->w));
                continue;
            }
            assert_ptr_equal(t, made[bits]);
            const sti_record_t *rec = sti_record_lookup(f->w, in[bits]);
            assert_non_null(rec);
            assert_ptr_equal(f->w->tables[rec->table], t);
            assert_true(t->entities[rec->row] == in[bits]);
        }
        check_tables(f->w);
    }
    world_close(f);
}

/* room is the capacity while a table has rows and 0 while it has none;
 * sti_table_touch writes only the room past the rows. */
static void test_table_room_follows_rows_and_touch_keeps_them(void **state) {
    fixture_t *f = world_open(state);
    uint32_t pv[] = {POSITION, VELOCITY};
    strata_mask_t m = mask_of(2, pv);
    sti_table_t *t = NULL;
    assert_int_equal(sti_table_ensure(f->w, &m, &t), STRATA_OK);
    assert_int_equal(sti_table_reserve(f->w, t, 100), STRATA_OK);
    assert_true(t->capacity >= 100);
    assert_int_equal(t->room, 0);
    strata_entity_t e[3];
    vec2 v = {4, 5};
    const void *values[] = {&v, &v};
    assert_int_equal(strata_entity_create_many(f->w, 3, 2, pv, values, e), STRATA_OK);
    assert_int_equal(t->room, t->capacity);
    sti_table_touch(t);
    for (int i = 0; i < 3; i++) {
        assert_true(((const vec2 *)strata_get(f->w, e[i], POSITION))->x == 4.0f);
    }
    assert_int_equal(sti_table_reserve(f->w, t, 1000), STRATA_OK);
    assert_int_equal(t->room, t->capacity);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(strata_entity_destroy(f->w, e[i]), STRATA_OK);
    }
    assert_int_equal(t->room, 0);
    assert_true(t->capacity >= 1003);
    check_tables(f->w);
    world_close(f);
}

static void test_table_grows_geometrically_keeping_values_aligned(void **state) {
    fixture_t *f = world_open(state);
    enum { N = 1000 };
    static strata_entity_t e[N];
    uint32_t growths = 0, capacity = 0;
    for (int i = 0; i < N; i++) {
        wide wd = {{(float)i, 0, 0, 0, 0, 0, 0, (float)-i}};
        vec2 p = {(float)i, 1.0f};
        uint32_t ids[] = {WIDE, POSITION};
        const void *values[] = {&wd, &p};
        assert_int_equal(strata_entity_create_many(f->w, 1, 2, ids, values, &e[i]), STRATA_OK);
        const sti_table_t *t = f->w->tables[sti_record_lookup(f->w, e[i])->table];
        if (t->capacity != capacity) {
            growths++;
            capacity = t->capacity;
        }
        assert_int_equal((uintptr_t)t->columns[WIDE] % 32, 0);
    }
    assert_true(growths <= 10); /* 8, 16, ..., 1024 */
    for (int i = 0; i < N; i++) {
        const wide *wd = strata_get(f->w, e[i], WIDE);
        const vec2 *p = strata_get(f->w, e[i], POSITION);
        assert_true(wd->v[0] == (float)i && wd->v[7] == (float)-i);
        assert_true(p->x == (float)i && p->y == 1.0f);
    }
    world_close(f);
}

static void test_table_failed_growth_leaves_table_as_it_was(void **state) {
    fixture_t *f = world_open(state);
    uint32_t ids[] = {POSITION, WIDE};
    strata_mask_t m = mask_of(2, ids);
    sti_table_t *t = NULL;
    assert_int_equal(sti_table_ensure(f->w, &m, &t), STRATA_OK);
    strata_entity_t e[8];
    assert_int_equal(strata_entity_create_many(f->w, 8, 2, ids, NULL, e), STRATA_OK);
    assert_int_equal(t->capacity, 8);
    for (long k = 1;; k++) {
        f->heap.fail_at = f->heap.calls + k;
        strata_result_t r = sti_table_reserve(f->w, t, 1);
        if (r == STRATA_OK) {
            break;
        }
        assert_int_equal(r, STRATA_ERR_NOMEM);
        assert_int_equal(t->capacity, 8);
        assert_int_equal(t->count, 8);
        assert_int_equal((uintptr_t)t->columns[WIDE] % 32, 0);
        for (int i = 0; i < 8; i++) {
            assert_int_equal(t->entities[i], e[i]);
        }
    }
    assert_int_equal(t->capacity, 16);
    world_close(f);
}

static void test_table_limit_stops_creation(void **state) {
    fixture_t *f = world_open(state);
    f->w->table_limit = 2;
    uint32_t a[] = {POSITION}, b[] = {VELOCITY};
    strata_mask_t ma = mask_of(1, a), mb = mask_of(1, b);
    sti_table_t *t = NULL;
    assert_int_equal(sti_table_ensure(f->w, &ma, &t), STRATA_OK);
    sti_table_t *untouched = t;
    assert_int_equal(sti_table_ensure(f->w, &mb, &t), STRATA_ERR_LIMIT);
    assert_ptr_equal(t, untouched);
    assert_int_equal(f->w->table_count, 2);
    assert_int_equal(sti_table_ensure(f->w, &ma, &t), STRATA_OK); /* existing ones still found */
    world_close(f);
}

static void test_table_nomem_on_creation_changes_nothing_visible(void **state) {
    fixture_t *f = world_open(state);
    uint32_t a[] = {POSITION, VELOCITY, T1};
    strata_mask_t m = mask_of(3, a);
    sti_table_t *t = NULL;
    for (long k = 1;; k++) {
        f->heap.fail_at = f->heap.calls + k;
        strata_result_t r = sti_table_ensure(f->w, &m, &t);
        if (r == STRATA_OK) {
            break;
        }
        assert_int_equal(r, STRATA_ERR_NOMEM);
        assert_int_equal(f->w->table_count, 1);
        assert_int_equal(f->w->queries[Q_POSITIONED].count, 0);
    }
    assert_int_equal(f->w->table_count, 2);
    assert_int_equal(f->w->queries[Q_POSITIONED].count, 1);
    world_close(f);
}

/* Byte j of component c's value for the i-th entity of a move test. */
static unsigned char move_byte(uint32_t i, uint32_t c, uint32_t j) {
    return (unsigned char)(i * 31u + c * 7u + j + 1u);
}

/* Every value of ids (k) of each of the n entities is its pattern. */
static void move_check(const fixture_t *f, const strata_entity_t *e, uint32_t n, uint32_t k, const uint32_t *ids) {
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t c = 0; c < k; c++) {
            const unsigned char *v = strata_get(f->w, e[i], ids[c]);
            assert_non_null(v);
            for (uint32_t j = 0; j < components[ids[c]].size; j++) {
                assert_int_equal(v[j], move_byte(i, ids[c], j));
            }
        }
    }
}

/* A move along an edge copies each column the two tables share, whatever
 * the plan's copier: one to three columns of each size class, mixed sizes,
 * a tag added or removed (same columns), a column added or dropped (a
 * remove edge's), the moved row in the middle of its table (the last row
 * fills its place) or at its end. */
static void test_table_moves_copy_every_column_of_every_plan(void **state) {
    fixture_t *f = world_open(state);
    static const uint32_t sets[][3] = {
        {B4A, B4B, B4C}, {POSITION, VELOCITY, B8C}, {B12A, B12B, B12C}, {B16A, B16B, B16C}, {B4A, POSITION, B16A},
    };
    enum { N = 3 };
    for (uint32_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
        for (uint32_t k = 1; k <= 3; k++) {
            const uint32_t *ids = sets[s];
            strata_entity_t e[N];
            for (uint32_t i = 0; i < N; i++) {
                unsigned char values[3][32];
                const void *pointers[3];
                for (uint32_t c = 0; c < k; c++) {
                    for (uint32_t j = 0; j < components[ids[c]].size; j++) {
                        values[c][j] = move_byte(i, ids[c], j);
                    }
                    pointers[c] = values[c];
                }
                assert_int_equal(strata_entity_create_many(f->w, 1, k, ids, pointers, &e[i]), STRATA_OK);
            }
            /* A tag: the middle row (filled from the last), then the one now last. */
            assert_int_equal(strata_add(f->w, e[1], T0, NULL), STRATA_OK);
            assert_int_equal(strata_add(f->w, e[2], T0, NULL), STRATA_OK);
            move_check(f, e, N, k, ids);
            assert_int_equal(strata_remove(f->w, e[1], T0), STRATA_OK);
            move_check(f, e, N, k, ids);
            /* A value column added, then dropped again (the remove edge's plan). */
            wide wd = {{1, 2, 3, 4, 5, 6, 7, 8}};
            assert_int_equal(strata_add(f->w, e[0], WIDE, &wd), STRATA_OK);
            assert_int_equal(strata_add(f->w, e[2], WIDE, &wd), STRATA_OK);
            move_check(f, e, N, k, ids);
            assert_true(((const wide *)strata_get(f->w, e[0], WIDE))->v[7] == 8.0f);
            assert_int_equal(strata_remove(f->w, e[0], WIDE), STRATA_OK);
            move_check(f, e, N, k, ids);
            assert_false(strata_has(f->w, e[0], WIDE));
            assert_true(((const wide *)strata_get(f->w, e[2], WIDE))->v[0] == 1.0f);
            for (uint32_t i = 0; i < N; i++) {
                assert_int_equal(strata_entity_destroy(f->w, e[i]), STRATA_OK);
            }
        }
    }
    world_close(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_table_empty_table_exists_from_creation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_ensure_finds_the_same_table_by_mask, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_hash_grows_and_keeps_every_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_unlink_renumber_compact_keep_the_set_whole, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_room_follows_rows_and_touch_keeps_them, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_grows_geometrically_keeping_values_aligned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_failed_growth_leaves_table_as_it_was, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_limit_stops_creation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_nomem_on_creation_changes_nothing_visible, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_moves_copy_every_column_of_every_plan, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Tests of `changed` sets kept as a bit a row (tests/schema/chg.yaml):
 * membership follows each row through the paths that move or remove rows
 * (adds and removes both ways, swap-removes, destroys one by one and a
 * table at once, the batched replay of a run of removes), the visit's
 * order and its early end, marks made while a visit is open, and the
 * bitmap's growth when memory runs out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "chg.h"

/* --- The world's system ----------------------------------------------------- */

/* Cull destroys every tagged entity (at the step's end: one table at once). */
void chg_cull_run(chg_cull_ctx *ctx) {
    while (chg_cull_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            assert_int_equal(chg_entity_destroy(ctx->world, ctx->entities[i]), STRATA_OK);
        }
    }
}

static int setup(void **state) {
    *state = chg_world_create(NULL);
    return *state == NULL;
}

static int teardown(void **state) {
    chg_world_destroy(*state);
    return 0;
}

/* --- Helpers ------------------------------------------------------------------ */

enum { MAX = 512 };

/* Visit Seen to its end: the handles visited go to out (if not NULL), each
 * checked to come once and to carry its own Pos (x == its index). */
static uint32_t visit(chg_world *w, chg_entity *out) {
    uint32_t n = 0;
    static uint8_t seen[MAX * 2];
    memset(seen, 0, sizeof seen);
    for (chg_seen_iter it = chg_seen_begin(w); chg_seen_next(&it);) {
        assert_int_equal(it.count, 1);
        uint32_t index = chg_entity_index(it.entities[0]);
        assert_true(index < MAX * 2);
        assert_int_equal(seen[index]++, 0);
        assert_true(it.pos[0].x == (float)index);
        if (out != NULL) {
            out[n] = it.entities[0];
        }
        n++;
    }
    return n;
}

/* n entities with Pos (x: the index) and the given extras, the set then emptied. */
static void spawn(chg_world *w, chg_entity *e, uint32_t n, bool vel, bool tag) {
    for (uint32_t i = 0; i < n; i++) {
        chg_pos p = {0, 0};
        e[i] = chg_entity_create_bundle(w, &(chg_bundle){.pos = &p, .vel = vel ? &(chg_vel){1, 1} : NULL, .tag = tag});
        assert_false(chg_entity_eq(e[i], CHG_ENTITY_NULL));
        chg_pos_mut(w, e[i])->x = (float)chg_entity_index(e[i]);
    }
    visit(w, NULL);
    assert_int_equal(chg_seen_changed_count(w), 0);
}

/* Write e's Pos (x: its index): a mark. */
static void touch(chg_world *w, chg_entity e) {
    assert_int_equal(chg_pos_set(w, e, (chg_pos){(float)chg_entity_index(e), 1}), STRATA_OK);
}

/* True if the handles in got[0, n) are exactly want[0, m) (any order). */
static bool same_set(const chg_entity *got, uint32_t n, const chg_entity *want, uint32_t m) {
    if (n != m) {
        return false;
    }
    for (uint32_t i = 0; i < m; i++) {
        bool found = false;
        for (uint32_t j = 0; j < n && !found; j++) {
            found = chg_entity_eq(got[j], want[i]);
        }
        if (!found) {
            return false;
        }
    }
    return true;
}

/* --- Membership follows the rows ------------------------------------------------ */

/* A marked row that moves to another table and back keeps its mark; the
 * unmarked last row that fills its hole does not get one. */
static void test_dirty_mark_follows_adds_and_removes_both_ways(void **state) {
    chg_world *w = *state;
    chg_entity e[4];
    spawn(w, e, 4, false, false);
    touch(w, e[1]);
    assert_int_equal(chg_vel_add(w, e[1], (chg_vel){2, 2}), STRATA_OK); /* e[3] fills row 1 */
    assert_int_equal(chg_seen_changed_count(w), 1);
    assert_int_equal(chg_vel_remove(w, e[1]), STRATA_OK); /* back, to the last row */
    assert_int_equal(chg_seen_changed_count(w), 1);
    assert_int_equal(chg_tag_add(w, e[1]), STRATA_OK); /* a tag: the same columns */
    chg_entity got[4];
    assert_int_equal(visit(w, got), 1);
    assert_true(chg_entity_eq(got[0], e[1]));
    /* Moved while unmarked: no mark arrives with it. */
    assert_int_equal(chg_tag_remove(w, e[1]), STRATA_OK);
    assert_int_equal(chg_seen_changed_count(w), 0);
    assert_int_equal(visit(w, NULL), 0);
}

/* A marked last row moves into the hole of a row that leaves: still marked,
 * and the row it left is not. */
static void test_dirty_mark_follows_a_swap_remove_of_the_last_row(void **state) {
    chg_world *w = *state;
    chg_entity e[5];
    spawn(w, e, 5, false, false);
    touch(w, e[4]); /* the last row */
    touch(w, e[2]);
    assert_int_equal(chg_vel_add(w, e[0], (chg_vel){0, 0}), STRATA_OK); /* e[4] fills row 0 */
    assert_int_equal(chg_vel_add(w, e[2], (chg_vel){0, 0}), STRATA_OK); /* marked, moved; e[3] fills its row */
    assert_int_equal(chg_seen_changed_count(w), 2);
    chg_entity got[5];
    const chg_entity want[] = {e[4], e[2]};
    assert_true(same_set(got, visit(w, got), want, 2));
    /* The table the rows left holds no stale mark: a new row there is unmarked until written. */
    assert_int_equal(chg_vel_remove(w, e[0]), STRATA_OK);
    assert_int_equal(chg_seen_changed_count(w), 0);
}

/* Destroying a marked entity takes its mark; the row that fills its place keeps its own. */
static void test_dirty_destroy_of_a_marked_entity(void **state) {
    chg_world *w = *state;
    chg_entity e[6];
    spawn(w, e, 6, false, false);
    touch(w, e[1]);
    touch(w, e[3]);
    touch(w, e[5]);
    assert_int_equal(chg_entity_destroy(w, e[1]), STRATA_OK); /* e[5], marked, fills row 1 */
    assert_int_equal(chg_entity_destroy(w, e[4]), STRATA_OK); /* unmarked */
    assert_int_equal(chg_seen_changed_count(w), 2);
    chg_entity got[6];
    const chg_entity want[] = {e[3], e[5]};
    assert_true(same_set(got, visit(w, got), want, 2));
    assert_int_equal(chg_entity_destroy(w, e[5]), STRATA_OK);
    assert_int_equal(chg_seen_changed_count(w), 0);
}

/* A table destroyed at once at the step's end (no row moves) leaves no
 * bits behind: rows that arrive there later are not marked. */
static void test_dirty_table_destroyed_at_once_leaves_no_mark(void **state) {
    chg_world *w = *state;
    chg_entity doomed[8], later[4];
    spawn(w, doomed, 8, false, true);
    spawn(w, later, 4, false, false);
    touch(w, doomed[0]);
    touch(w, doomed[1]);
    touch(w, doomed[6]);
    assert_int_equal(chg_world_step(w, 1.0f), STRATA_OK); /* Cull destroys the tagged table */
    for (uint32_t i = 0; i < 8; i++) {
        assert_false(chg_entity_alive(w, doomed[i]));
    }
    assert_int_equal(chg_seen_changed_count(w), 0);
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(chg_tag_add(w, later[i]), STRATA_OK); /* rows 0..3 of the emptied table */
    }
    assert_int_equal(chg_seen_changed_count(w), 0);
    assert_int_equal(visit(w, NULL), 0);
}

/* A run of removes recorded while iterating, replayed as one move of the
 * whole table: each row's mark goes with it to the same entity. */
static void test_dirty_mark_follows_a_batched_replay(void **state) {
    chg_world *w = *state;
    chg_entity e[100], other[3];
    spawn(w, other, 3, false, false); /* the destination table already has rows */
    spawn(w, e, 100, true, false);
    for (uint32_t i = 0; i < 100; i += 7) {
        touch(w, e[i]);
    }
    touch(w, other[2]);
    uint32_t visited = 0;
    for (chg_movers_iter it = chg_movers_begin(w); chg_movers_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++, visited++) {
            assert_int_equal(chg_vel_remove(w, it.entities[i]), STRATA_OK); /* recorded */
        }
    }
    assert_int_equal(visited, 100);
    for (uint32_t i = 0; i < 100; i++) {
        assert_false(chg_vel_has(w, e[i]));
    }
    chg_entity want[16], got[120];
    uint32_t m = 0;
    for (uint32_t i = 0; i < 100; i += 7) {
        want[m++] = e[i];
    }
    want[m++] = other[2];
    assert_int_equal(chg_seen_changed_count(w), m);
    assert_true(same_set(got, visit(w, got), want, m));
}

/* --- The visit ------------------------------------------------------------------ */

/* Rows come table by table, in row order within a table, whatever the order written. */
static void test_dirty_visit_is_in_row_order(void **state) {
    chg_world *w = *state;
    chg_entity e[200];
    spawn(w, e, 200, false, false);
    for (uint32_t i = 200; i-- > 0;) {
        if (i % 3 != 1) {
            touch(w, e[i]);
        }
    }
    chg_entity got[200];
    uint32_t n = visit(w, got);
    assert_int_equal(n, 200 - 67); /* i % 3 == 1: 67 of them left out */
    for (uint32_t i = 1; i < n; i++) {
        assert_true(chg_entity_index(got[i - 1]) < chg_entity_index(got[i])); /* created in row order */
    }
}

/* An early end keeps what the visit did not yield, including rows it had
 * already looked up (a visit resolves 64 or more at a time). */
static void test_dirty_break_keeps_the_rows_not_yielded(void **state) {
    chg_world *w = *state;
    chg_entity e[300];
    spawn(w, e, 300, false, false);
    for (uint32_t i = 0; i < 300; i += 2) {
        touch(w, e[i]); /* 150 marked */
    }
    static uint8_t first[MAX];
    memset(first, 0, sizeof first);
    uint32_t n = 0;
    chg_seen_iter it = chg_seen_begin(w);
    while (n < 10 && chg_seen_next(&it)) {
        first[chg_entity_index(it.entities[0])] = 1;
        n++;
    }
    assert_int_equal(chg_seen_end(&it), STRATA_OK);
    assert_int_equal(n, 10);
    assert_int_equal(chg_seen_changed_count(w), 140);
    chg_entity got[300];
    uint32_t rest = visit(w, got);
    assert_int_equal(rest, 140);
    for (uint32_t i = 0; i < rest; i++) {
        uint32_t index = chg_entity_index(got[i]);
        assert_int_equal(first[index], 0);
        assert_int_equal(index % 2, 0);
    }
    /* A break in the middle of a later batch, then a full visit: nothing lost or repeated. */
    for (uint32_t i = 0; i < 300; i++) {
        touch(w, e[i]);
    }
    n = 0;
    for (it = chg_seen_begin(w); n < 100 && chg_seen_next(&it);) {
        n++;
    }
    assert_int_equal(chg_seen_end(&it), STRATA_OK);
    assert_int_equal(chg_seen_changed_count(w), 200);
    assert_int_equal(visit(w, NULL), 200);
}

/* A mark made while the visit is open: a row still waiting is visited once;
 * a row already visited, or one not in the set when the visit opened
 * (even at a later row, or in another table), waits for the next visit. */
static void test_dirty_mark_during_an_open_visit_waits_for_the_next(void **state) {
    chg_world *w = *state;
    chg_entity e[8], far;
    spawn(w, e, 8, false, false);
    spawn(w, &far, 1, true, false); /* another table */
    for (uint32_t i = 0; i < 4; i++) {
        touch(w, e[i]);
    }
    uint32_t n = 0;
    chg_entity first = CHG_ENTITY_NULL;
    for (chg_seen_iter it = chg_seen_begin(w); chg_seen_next(&it);) {
        if (n++ == 0) {
            first = it.entities[0];
            assert_true(chg_entity_eq(first, e[0]));
            touch(w, e[3]);                                     /* waiting: visited once, now */
            touch(w, e[0]);                                     /* visited: next time */
            touch(w, e[6]);                                     /* not in the set, a later row: next time */
            touch(w, far);                                      /* another table: next time */
            assert_int_equal(chg_seen_changed_count(w), 3 + 3); /* e[1..3] waiting, and the three */
        }
    }
    assert_int_equal(n, 4);
    assert_int_equal(chg_seen_changed_count(w), 3);
    chg_entity got[4];
    const chg_entity want[] = {e[0], e[6], far};
    assert_true(same_set(got, visit(w, got), want, 3));
}

/* Emptying the world empties the sets; new rows in the old tables start unmarked. */
static void test_dirty_world_clear_empties_the_sets(void **state) {
    chg_world *w = *state;
    chg_entity e[70];
    spawn(w, e, 70, false, false);
    for (uint32_t i = 0; i < 70; i++) {
        touch(w, e[i]);
    }
    chg_world_clear(w);
    assert_int_equal(chg_seen_changed_count(w), 0);
    spawn(w, e, 70, false, false);
    touch(w, e[69]);
    chg_entity got[70];
    assert_int_equal(visit(w, got), 1);
    assert_true(chg_entity_eq(got[0], e[69]));
}

/* --- Memory ------------------------------------------------------------------------ */

static size_t fail_size; /* a resize to this many bytes fails (0: none) */

/* cmocka's allocator (leaks reported), with the resize to fail_size failing. */
static void *test_alloc(size_t size, void *user) {
    (void)user;
    return test_malloc(size);
}

static void test_release(void *ptr, size_t size, void *user) {
    (void)size;
    (void)user;
    test_free(ptr);
}

static void *resize_failing_at(void *ptr, size_t old_size, size_t new_size, void *user) {
    (void)old_size;
    (void)user;
    return new_size == fail_size ? NULL : test_realloc(ptr, new_size);
}

/* The bitmap grows with the table's rows; when that fails, the create that
 * needed the room fails and the sets are as they were. */
static void test_dirty_bitmap_growth_failure_leaves_the_sets_as_they_were(void **state) {
    (void)state;
    const strata_world_desc_t desc = {
        .allocator = {.alloc = test_alloc, .realloc = resize_failing_at, .free = test_release}};
    chg_world *w = chg_world_create(&desc);
    assert_non_null(w);
    chg_entity e[65];
    spawn(w, e, 64, false, false); /* capacity 64: one bitmap word a plane */
    touch(w, e[5]);
    touch(w, e[63]);
    strata_world_stats_t before, after;
    chg_world_stats(w, &before);
    /* The next row grows the table to 128 rows: two words a plane, two
     * planes (members, marks during a visit) for the one set. */
    fail_size = 2 * 2 * sizeof(uint64_t);
    chg_pos p = {0, 0};
    assert_true(chg_entity_eq(chg_entity_create_bundle(w, &(chg_bundle){.pos = &p}), CHG_ENTITY_NULL));
    assert_int_equal(chg_entity_create_many(w, &(chg_bundle){.pos = &p}, 10, e), STRATA_ERR_NOMEM);
    chg_world_stats(w, &after);
    assert_int_equal(after.entities, before.entities);
    assert_int_equal(chg_seen_changed_count(w), 2);
    /* Marking never allocates: it works while growth fails. */
    touch(w, e[7]);
    assert_int_equal(chg_seen_changed_count(w), 3);
    fail_size = 0;
    e[64] = chg_entity_create_bundle(w, &(chg_bundle){.pos = &p});
    assert_false(chg_entity_eq(e[64], CHG_ENTITY_NULL));
    chg_pos_mut(w, e[64])->x = (float)chg_entity_index(e[64]);
    chg_entity got[8];
    const chg_entity want[] = {e[5], e[7], e[63], e[64]};
    assert_true(same_set(got, visit(w, got), want, 4));
    chg_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_dirty_mark_follows_adds_and_removes_both_ways, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dirty_mark_follows_a_swap_remove_of_the_last_row, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dirty_destroy_of_a_marked_entity, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dirty_table_destroyed_at_once_leaves_no_mark, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dirty_mark_follows_a_batched_replay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dirty_visit_is_in_row_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dirty_break_keeps_the_rows_not_yielded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dirty_mark_during_an_open_visit_waits_for_the_next, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dirty_world_clear_empties_the_sets, setup, teardown),
        cmocka_unit_test(test_dirty_bitmap_growth_failure_leaves_the_sets_as_they_were),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Tests of component observers (tests/schema/observers.yaml): on_set after
 * set, mut, adds and write terms; when it runs (now, or when changes
 * settle); its order; an on_set that writes; stale handles, out of memory
 * and disabled systems; and how it lines up with `changed`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_alloc.h"

#include "observers.h"

/* --- The hooks and systems, steered and observed by the test running ------- */

enum { MAX_CALLS = 256 };

/* One on_set call: which component, which entity, the value it saw. */
typedef struct call_t {
    char component; /* 'P' Position, 'H' Health */
    observers_entity e;
    float x;
    int32_t hp;
} call_t;

static struct {
    call_t calls[MAX_CALLS];
    uint32_t count;
    /* Poke: the entities it sets Health of, in order, and the values. */
    observers_entity poke[8];
    int32_t poke_hp[8];
    uint32_t poke_count;
    uint32_t calls_seen_in_poke; /* on_set calls made before Poke returned */
    /* Health's on_set: clamp hp to 100 (a write to its own value) and copy
     * it to Position.x (a write to another observed component). */
    bool clamp;
    /* Health's on_set adds Frozen (a structural change, deferred). */
    bool freeze;
    observers_result_t freeze_result; /* what that add returned */
    uint32_t watched;                 /* entities Watch visited */
    observers_entity watched_e[MAX_CALLS];
} obs;

static void record(char component, observers_entity e, float x, int32_t hp) {
    assert_true(obs.count < MAX_CALLS);
    obs.calls[obs.count++] = (call_t){component, e, x, hp};
}

void observers_position_on_set(observers_world *w, observers_entity e, observers_position *value) {
    (void)w;
    record('P', e, value->x, 0);
}

void observers_health_on_set(observers_world *w, observers_entity e, observers_health *value) {
    record('H', e, 0, value->hp);
    if (obs.clamp && value->hp > 100) {
        assert_int_equal(observers_health_set(w, e, (observers_health){.hp = 100}), STRATA_OK);
        assert_int_equal(value->hp, 100); /* set is immediate; only its on_set waits */
        if (observers_position_has(w, e)) {
            assert_int_equal(observers_position_set(w, e, (observers_position){.x = 100}), STRATA_OK);
        }
    }
    if (obs.freeze) {
        obs.freeze_result = observers_frozen_add(w, e);
    }
}

void observers_move_run(observers_move_ctx *ctx) {
    while (observers_move_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->position[i].x += ctx->velocity[i].x;
        }
    }
}

void observers_poke_run(observers_poke_ctx *ctx) {
    for (uint32_t i = 0; i < obs.poke_count; i++) {
        assert_int_equal(observers_health_set(ctx->world, obs.poke[i], (observers_health){.hp = obs.poke_hp[i]}),
                         STRATA_OK);
    }
    obs.calls_seen_in_poke = obs.count;
    while (observers_poke_next(ctx)) {}
}

void observers_watch_run(observers_watch_ctx *ctx) {
    while (observers_watch_next(ctx)) {
        assert_true(obs.watched < MAX_CALLS);
        obs.watched_e[obs.watched++] = ctx->entities[0];
    }
}

/* --- Fixtures --------------------------------------------------------------------- */

static int setup(void **state) {
    memset(&obs, 0, sizeof obs);
    observers_world *w = observers_world_create(NULL);
    assert_non_null(w);
    *state = w;
    return 0;
}

static int teardown(void **state) {
    observers_world_destroy(*state);
    return 0;
}

/* An entity with Health only (no on_set call left in the log). */
static observers_entity make_health(observers_world *w, int32_t hp) {
    observers_entity e = observers_entity_create_bundle(w, &(observers_bundle){.health = &(observers_health){hp}});
    assert_false(observers_entity_eq(e, OBSERVERS_ENTITY_NULL));
    obs.count = 0;
    return e;
}

/* An entity with Position and Velocity (no on_set call left in the log). */
static observers_entity make_mover(observers_world *w, float x, float vx) {
    observers_entity e = observers_entity_create_bundle(w,
                                                        &(observers_bundle){.position = &(observers_position){x, 0},
                                                                            .velocity = &(observers_velocity){vx, 0}});
    assert_false(observers_entity_eq(e, OBSERVERS_ENTITY_NULL));
    obs.count = 0;
    return e;
}

static void assert_call(uint32_t i, char component, observers_entity e) {
    assert_true(i < obs.count);
    assert_int_equal(obs.calls[i].component, component);
    assert_true(observers_entity_eq(obs.calls[i].e, e));
}

static void disable_all(observers_world *w) {
    observers_move_enable(w, false);
    observers_poke_enable(w, false);
    observers_watch_enable(w, false);
}

/* --- Outside a step ------------------------------------------------------------------ */

static void test_on_set_runs_before_set_returns_outside_a_step(void **state) {
    observers_world *w = *state;
    observers_entity e = make_health(w, 1);
    assert_int_equal(observers_health_set(w, e, (observers_health){.hp = 7}), STRATA_OK);
    assert_int_equal(obs.count, 1);
    assert_call(0, 'H', e);
    assert_int_equal(obs.calls[0].hp, 7);
    /* A component without on_set calls nothing. */
    assert_int_equal(observers_velocity_add(w, e, (observers_velocity){1, 1}), STRATA_OK);
    assert_int_equal(observers_velocity_set(w, e, (observers_velocity){2, 2}), STRATA_OK);
    assert_int_equal(obs.count, 1);
}

static void test_on_set_follows_adds_after_their_values_are_in_place(void **state) {
    observers_world *w = *state;
    /* A bundle with both: one call each, in component order, after on_add would have run. */
    observers_entity e = observers_entity_create_bundle(w,
                                                        &(observers_bundle){.health = &(observers_health){3},
                                                                            .position = &(observers_position){5, 0}});
    assert_int_equal(obs.count, 2);
    assert_call(0, 'P', e);
    assert_true(obs.calls[0].x == 5.0f);
    assert_call(1, 'H', e);
    assert_int_equal(obs.calls[1].hp, 3);
    /* An add of a component already there is an overwrite: a set too. */
    assert_int_equal(observers_health_add(w, e, (observers_health){.hp = 4}), STRATA_OK);
    assert_int_equal(obs.count, 3);
    assert_int_equal(obs.calls[2].hp, 4);
}

static void test_on_set_of_mut_waits_for_the_next_settle(void **state) {
    observers_world *w = *state;
    observers_entity a = make_health(w, 1), b = make_health(w, 1);
    observers_health_mut(w, a)->hp = 20; /* the write comes after mut returns */
    assert_int_equal(obs.count, 0);
    /* The next set settles: a's pending on_set runs first, seeing 20. */
    assert_int_equal(observers_health_set(w, b, (observers_health){.hp = 30}), STRATA_OK);
    assert_int_equal(obs.count, 2);
    assert_call(0, 'H', a);
    assert_int_equal(obs.calls[0].hp, 20);
    assert_call(1, 'H', b);
    /* A scope's end settles too. */
    observers_health_mut(w, a)->hp = 21;
    strata_defer_begin(observers_world_core(w));
    assert_int_equal(strata_defer_end(observers_world_core(w)), STRATA_OK);
    assert_int_equal(obs.count, 3);
    assert_int_equal(obs.calls[2].hp, 21);
}

/* --- Inside scopes and steps ---------------------------------------------------------- */

static void test_on_set_inside_a_system_runs_once_per_entity_when_it_returns(void **state) {
    observers_world *w = *state;
    observers_entity a = make_health(w, 1), b = make_health(w, 1);
    disable_all(w);
    observers_poke_enable(w, true);
    /* b first, then a, then b again: one call each, in row order (a's row comes first), last value. */
    obs.poke[0] = b, obs.poke_hp[0] = 5;
    obs.poke[1] = a, obs.poke_hp[1] = 6;
    obs.poke[2] = b, obs.poke_hp[2] = 7;
    obs.poke_count = 3;
    assert_int_equal(observers_world_step(w, 1.0f), STRATA_OK);
    assert_int_equal(obs.calls_seen_in_poke, 0); /* none while Poke ran */
    assert_int_equal(obs.count, 2);
    assert_call(0, 'H', a);
    assert_int_equal(obs.calls[0].hp, 6);
    assert_call(1, 'H', b);
    assert_int_equal(obs.calls[1].hp, 7);
}

static void test_on_set_of_write_terms_covers_every_row_yielded(void **state) {
    observers_world *w = *state;
    observers_entity m[3];
    for (int i = 0; i < 3; i++) {
        m[i] = make_mover(w, (float)i, 10);
    }
    observers_entity idle = observers_entity_create_bundle(w,
                                                           &(observers_bundle){.position = &(observers_position){0}});
    obs.count = 0;
    disable_all(w);
    observers_move_enable(w, true);
    assert_int_equal(observers_world_step(w, 1.0f), STRATA_OK);
    /* Every row Move yielded, in row order, with the value Move wrote; not `idle` (no Velocity). */
    assert_int_equal(obs.count, 3);
    for (int i = 0; i < 3; i++) {
        assert_call((uint32_t)i, 'P', m[i]);
        assert_true(obs.calls[i].x == (float)i + 10);
    }
    (void)idle;
    /* A free query's write term: its rows are set when the iteration ends. */
    obs.count = 0;
    observers_movers_iter it = observers_movers_begin(w);
    while (observers_movers_next(&it)) {
        it.position[0].x = 99;
        assert_int_equal(obs.count, 0);
    }
    assert_int_equal(obs.count, 3);
    assert_true(obs.calls[0].x == 99);
}

static void test_on_set_order_is_component_then_table_and_row(void **state) {
    observers_world *w = *state;
    observers_entity a = observers_entity_create_bundle(w, &(observers_bundle){.position = &(observers_position){0},
                                                                               .health = &(observers_health){1}});
    observers_entity b = observers_entity_create_bundle(w, &(observers_bundle){.position = &(observers_position){0},
                                                                               .health = &(observers_health){1}});
    obs.count = 0;
    strata_defer_begin(observers_world_core(w));
    assert_int_equal(observers_health_set(w, b, (observers_health){2}), STRATA_OK);
    assert_int_equal(observers_position_set(w, b, (observers_position){2, 0}), STRATA_OK);
    assert_int_equal(observers_health_set(w, a, (observers_health){3}), STRATA_OK);
    assert_int_equal(observers_position_set(w, a, (observers_position){3, 0}), STRATA_OK);
    assert_int_equal(obs.count, 0);
    assert_int_equal(strata_defer_end(observers_world_core(w)), STRATA_OK);
    /* Position (component 0) before Health (component 2); within each, row
     * order (a's row first), though b was written first. */
    assert_int_equal(obs.count, 4);
    assert_call(0, 'P', a);
    assert_call(1, 'P', b);
    assert_call(2, 'H', a);
    assert_call(3, 'H', b);
}

/* --- An on_set that writes ---------------------------------------------------------------- */

static void test_on_set_writes_of_its_own_call_no_on_set(void **state) {
    observers_world *w = *state;
    observers_entity e = observers_entity_create_bundle(w, &(observers_bundle){.position = &(observers_position){0},
                                                                               .health = &(observers_health){1}});
    assert_int_equal(observers_world_step(w, 1.0f), STRATA_OK); /* Watch's set held e from its creation */
    obs.count = 0;
    obs.watched = 0;
    obs.clamp = true;
    /* Health's on_set sets Health (its own) and Position: neither calls on_set again. */
    assert_int_equal(observers_health_set(w, e, (observers_health){500}), STRATA_OK);
    assert_int_equal(obs.count, 1);
    assert_call(0, 'H', e);
    assert_int_equal(obs.calls[0].hp, 500);
    assert_int_equal(observers_health_get(w, e)->hp, 100);
    assert_true(observers_position_get(w, e)->x == 100);
    /* The writes still count for `changed`: Watch visits e. */
    disable_all(w);
    observers_watch_enable(w, true);
    assert_int_equal(observers_world_step(w, 1.0f), STRATA_OK);
    assert_int_equal(obs.watched, 1);
    assert_true(observers_entity_eq(obs.watched_e[0], e));
    /* And the next write outside any hook is observed again, once. */
    assert_int_equal(observers_health_set(w, e, (observers_health){50}), STRATA_OK);
    assert_int_equal(obs.count, 2);
}

static void test_on_set_structural_changes_apply_after_it(void **state) {
    observers_world *w = *state;
    observers_entity e = make_health(w, 1);
    obs.freeze = true;
    assert_int_equal(observers_health_set(w, e, (observers_health){2}), STRATA_OK);
    assert_int_equal(obs.count, 1);
    assert_int_equal(obs.freeze_result, STRATA_OK);
    assert_true(observers_frozen_has(w, e)); /* the hook's add was settled before set returned */
}

/* --- Stale handles, destroyed or changed entities -------------------------------------------- */

static void test_on_set_skips_stale_destroyed_and_removed(void **state) {
    observers_world *w = *state;
    observers_entity a = make_health(w, 1), b = make_health(w, 1), c = make_health(w, 1);
    assert_int_equal(observers_entity_destroy(w, c), STRATA_OK);
    assert_int_equal(observers_health_set(w, c, (observers_health){9}), STRATA_ERR_STALE);
    assert_null(observers_health_mut(w, c));
    assert_int_equal(obs.count, 0);
    /* Written, then destroyed or stripped before the settle: no call. */
    strata_defer_begin(observers_world_core(w));
    assert_int_equal(observers_health_set(w, a, (observers_health){2}), STRATA_OK);
    assert_int_equal(observers_health_set(w, b, (observers_health){3}), STRATA_OK);
    assert_int_equal(observers_entity_destroy(w, a), STRATA_OK);
    assert_int_equal(observers_health_remove(w, b), STRATA_OK);
    assert_int_equal(strata_defer_end(observers_world_core(w)), STRATA_OK);
    assert_int_equal(obs.count, 0);
    /* The index a held, reused by a new entity, carries no old mark: one call, its creation's. */
    observers_entity d = observers_entity_create_bundle(w, &(observers_bundle){.health = &(observers_health){4}});
    assert_int_equal(observers_entity_index(d), observers_entity_index(a));
    assert_int_equal(obs.count, 1);
    assert_call(0, 'H', d);
}

static void test_on_set_of_a_disabled_system_never_runs(void **state) {
    (void)state;
    memset(&obs, 0, sizeof obs);
    const strata_world_desc_t desc = {.allocator = {.alloc = test_alloc, .realloc = test_resize, .free = test_release}};
    observers_world *w = observers_world_create(&desc); /* cmocka reports any block left */
    make_mover(w, 0, 1);
    observers_move_enable(w, false);
    observers_poke_enable(w, false);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(observers_world_step(w, 1.0f), STRATA_OK);
    }
    assert_int_equal(obs.count, 0); /* nothing wrote Position */
    observers_move_enable(w, true);
    assert_int_equal(observers_world_step(w, 1.0f), STRATA_OK);
    assert_int_equal(obs.count, 1);
    observers_world_destroy(w);
}

/* --- Memory ------------------------------------------------------------------------------------- */

static void test_on_set_recording_never_allocates(void **state) {
    (void)state;
    memset(&obs, 0, sizeof obs);
    const strata_world_desc_t desc = {.allocator = {.alloc = failing_alloc,
                                                    .realloc = failing_resize,
                                                    .free = test_release},
                                      .initial_capacity = 4};
    budget = 1 << 20;
    observers_world *w = observers_world_create(&desc);
    assert_non_null(w);
    observers_entity e[4];
    for (int i = 0; i < 4; i++) {
        e[i] = make_health(w, 1);
    }
    strata_world_stats_t before, after;
    observers_world_stats(w, &before);
    /* Marks are bits in the tables' bitmaps, which grow with their rows:
     * nothing to allocate, so nothing fails. */
    budget = 0;
    strata_defer_begin(observers_world_core(w));
    for (int i = 3; i >= 0; i--) {
        assert_int_equal(observers_health_set(w, e[i], (observers_health){i}), STRATA_OK);
    }
    assert_int_equal(strata_defer_end(observers_world_core(w)), STRATA_OK);
    assert_int_equal(obs.count, 4);
    assert_call(0, 'H', e[0]); /* row order, not the order written */
    /* The room for marks grows with the table's rows: when that fails, the
     * create fails and the world is as it was. */
    observers_entity fifth = observers_entity_create_bundle(w, &(observers_bundle){.health = &(observers_health){1}});
    assert_true(observers_entity_eq(fifth, OBSERVERS_ENTITY_NULL));
    observers_world_stats(w, &after);
    assert_int_equal(after.entities, before.entities);
    assert_int_equal(after.bytes, before.bytes);
    assert_int_equal(obs.count, 4);
    /* A hook's deferred add that cannot get room to be recorded: the hook
     * gets the error, nothing is applied, and the settle is clean. */
    obs.freeze = true;
    assert_int_equal(observers_health_set(w, e[0], (observers_health){7}), STRATA_OK);
    assert_int_equal(obs.count, 5);
    assert_int_equal(obs.freeze_result, STRATA_ERR_NOMEM);
    assert_false(observers_frozen_has(w, e[0]));
    observers_world_stats(w, &after);
    assert_int_equal(after.bytes, before.bytes);
    assert_int_equal(after.pending, 0);
    budget = 1 << 20;
    assert_int_equal(observers_health_set(w, e[0], (observers_health){8}), STRATA_OK);
    assert_int_equal(obs.freeze_result, STRATA_OK);
    assert_true(observers_frozen_has(w, e[0]));
    assert_int_equal(obs.count, 6); /* the hook's own add called no on_set */
    observers_world_destroy(w);
}

/* --- on_set and `changed` ---------------------------------------------------------------------------- */

static void test_on_set_sees_the_writes_changed_sees(void **state) {
    observers_world *w = *state;
    observers_entity a = make_mover(w, 0, 1), b = make_mover(w, 0, 1);
    assert_int_equal(observers_world_step(w, 1.0f), STRATA_OK); /* empties Watch's set */
    observers_move_enable(w, false);
    obs.count = 0;
    obs.watched = 0;
    assert_int_equal(observers_position_set(w, b, (observers_position){1, 0}), STRATA_OK);
    observers_position_mut(w, a)->x = 2;
    assert_int_equal(observers_position_set(w, b, (observers_position){3, 0}), STRATA_OK);
    assert_int_equal(observers_world_step(w, 1.0f), STRATA_OK);
    /* on_set: b (set), then a and b again as the mut settles with the second set. */
    assert_int_equal(obs.count, 3);
    assert_call(0, 'P', b);
    assert_call(1, 'P', a);
    assert_call(2, 'P', b);
    /* Watch: each entity once, in row order (a's row first). */
    assert_int_equal(obs.watched, 2);
    assert_true(observers_entity_eq(obs.watched_e[0], a));
    assert_true(observers_entity_eq(obs.watched_e[1], b));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_on_set_runs_before_set_returns_outside_a_step, setup, teardown),
        cmocka_unit_test_setup_teardown(test_on_set_follows_adds_after_their_values_are_in_place, setup, teardown),
        cmocka_unit_test_setup_teardown(test_on_set_of_mut_waits_for_the_next_settle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_on_set_inside_a_system_runs_once_per_entity_when_it_returns, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_on_set_of_write_terms_covers_every_row_yielded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_on_set_order_is_component_then_table_and_row, setup, teardown),
        cmocka_unit_test_setup_teardown(test_on_set_writes_of_its_own_call_no_on_set, setup, teardown),
        cmocka_unit_test_setup_teardown(test_on_set_structural_changes_apply_after_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_on_set_skips_stale_destroyed_and_removed, setup, teardown),
        cmocka_unit_test(test_on_set_of_a_disabled_system_never_runs),
        cmocka_unit_test(test_on_set_recording_never_allocates),
        cmocka_unit_test_setup_teardown(test_on_set_sees_the_writes_changed_sees, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

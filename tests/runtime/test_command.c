/* test_command.c: deferred commands (recorded while a scope is open,
 * applied in order when the outermost one closes), the visit-once rule of
 * iteration, steps (destroys wait for the step's end), and failed settles
 * (commands kept for the next one). */
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
typedef struct name {
    char text[16];
} name;

enum { POSITION, VELOCITY, HEALTH, FROZEN, NAME, MARKED, COMPONENT_COUNT };
enum { Q_MOVING, Q_ALIVE, Q_POSITIONED, QUERY_COUNT };

static const vec2 position_defaults = {1.0f, 2.0f};

static const strata_component_desc_t components[COMPONENT_COUNT] = {
    [POSITION] = COMPONENT("Position", vec2, &position_defaults),
    [VELOCITY] = COMPONENT("Velocity", vec2, NULL),
    [HEALTH] = COMPONENT("Health", health, NULL),
    [FROZEN] = TAG("Frozen"),
    [NAME] = COMPONENT("Name", name, NULL),
    [MARKED] = TAG("Marked"),
};

static const strata_query_desc_t queries[QUERY_COUNT] = {
    [Q_MOVING] = QUERY("Moving", BIT(POSITION) | BIT(VELOCITY), BIT(FROZEN)),
    [Q_ALIVE] = QUERY("Alive", BIT(HEALTH), 0),
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


/* One new entity with Position and Velocity (given values). */
static strata_entity_t spawn_mover(fixture_t *f, float x) {
    vec2 p = {x, 0.0f}, v = {1.0f, 1.0f};
    uint32_t ids[] = {POSITION, VELOCITY};
    const void *values[] = {&p, &v};
    strata_entity_t e;
    assert_int_equal(strata_entity_create_many(f->w, 1, 2, ids, values, &e), STRATA_OK);
    return e;
}

/* Deferred commands waiting. */
static uint32_t pending(fixture_t *f) {
    strata_world_stats_t s;
    strata_world_stats(f->w, &s);
    return s.pending;
}

/* --- Deferral ------------------------------------------------------------- */

static void test_command_scopes_nest(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn_mover(f, 0.0f);
    assert_false(strata_is_deferred(f->w));
    strata_defer_begin(f->w);
    strata_defer_begin(f->w);
    assert_true(strata_is_deferred(f->w));
    assert_int_equal(strata_add(f->w, e, HEALTH, NULL), STRATA_OK);
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_true(strata_is_deferred(f->w));
    assert_false(strata_has(f->w, e, HEALTH));
    assert_int_equal(pending(f), 1);
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_false(strata_is_deferred(f->w));
    assert_true(strata_has(f->w, e, HEALTH));
    assert_int_equal(pending(f), 0);
    world_close(f);
}

static void test_command_add_copies_value_and_waits_for_the_end(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn_mover(f, 0.0f);
    health h = {5};
    name n = {"before"};
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    while (strata_iter_next(&it)) {
        assert_int_equal(strata_add(f->w, it.entities[0], HEALTH, &h), STRATA_OK);
        assert_int_equal(strata_add(f->w, it.entities[0], NAME, &n), STRATA_OK);
        h.hp = 6; /* the value was copied when recorded */
        strcpy(n.text, "after");
        assert_false(strata_has(f->w, e, HEALTH));
        assert_null(strata_get(f->w, e, HEALTH));
        assert_int_equal(strata_query_count(f->w, Q_ALIVE), 0);
    }
    assert_true(strata_has(f->w, e, HEALTH));
    assert_int_equal(((const health *)strata_get(f->w, e, HEALTH))->hp, 5);
    assert_string_equal(((const name *)strata_get(f->w, e, NAME))->text, "before");
    world_close(f);
}

static void test_command_set_and_get_stay_immediate(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn_mover(f, 0.0f);
    vec2 p = {9.0f, 9.0f};
    strata_defer_begin(f->w);
    assert_int_equal(strata_set(f->w, e, POSITION, &p), STRATA_OK);
    assert_true(((const vec2 *)strata_get(f->w, e, POSITION))->x == 9.0f);
    ((vec2 *)strata_get_mut(f->w, e, VELOCITY))->y = 3.0f;
    assert_int_equal(pending(f), 0);
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_true(((const vec2 *)strata_get(f->w, e, VELOCITY))->y == 3.0f);
    world_close(f);
}

static void test_command_applies_in_recorded_order(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn_mover(f, 0.0f);
    vec2 p = {5.0f, 5.0f};
    health one = {1}, two = {2};
    strata_defer_begin(f->w);
    assert_int_equal(strata_remove(f->w, e, POSITION), STRATA_OK);
    assert_int_equal(strata_add(f->w, e, POSITION, &p), STRATA_OK);
    assert_int_equal(strata_add(f->w, e, HEALTH, &one), STRATA_OK);
    assert_int_equal(strata_add(f->w, e, HEALTH, &two), STRATA_OK);
    assert_int_equal(strata_add(f->w, e, FROZEN, NULL), STRATA_OK);
    /* The MISSING check of a deferred remove looks at the world as it is now. */
    assert_int_equal(strata_remove(f->w, e, FROZEN), STRATA_ERR_MISSING);
    assert_int_equal(pending(f), 5);
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    const vec2 *gp = strata_get(f->w, e, POSITION);
    assert_true(gp->x == 5.0f && gp->y == 5.0f);
    assert_int_equal(((const health *)strata_get(f->w, e, HEALTH))->hp, 2);
    assert_true(strata_has(f->w, e, FROZEN));
    world_close(f);
}

static void test_command_skips_dead_entities_and_absent_components(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a = spawn_mover(f, 0.0f), b = spawn_mover(f, 1.0f);
    strata_defer_begin(f->w);
    assert_int_equal(strata_entity_destroy(f->w, a), STRATA_OK);
    assert_int_equal(strata_add(f->w, a, HEALTH, NULL), STRATA_OK); /* a is alive until applied */
    assert_int_equal(strata_remove(f->w, a, VELOCITY), STRATA_OK);
    assert_int_equal(strata_remove(f->w, b, VELOCITY), STRATA_OK);
    assert_int_equal(strata_remove(f->w, b, VELOCITY), STRATA_OK); /* gone by then: skipped */
    uint32_t both[] = {VELOCITY, POSITION};
    assert_int_equal(strata_remove_many(f->w, b, 2, both), STRATA_OK);
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_false(strata_entity_alive(f->w, a));
    assert_true(strata_entity_alive(f->w, b));
    assert_false(strata_has(f->w, b, VELOCITY));
    assert_false(strata_has(f->w, b, POSITION));
    assert_int_equal(strata_query_count(f->w, Q_ALIVE), 0);
    assert_int_equal(pending(f), 0);
    world_close(f);
}

static void test_command_destroy_while_iterating_waits_for_the_end(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn_mover(f, 7.0f);
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    while (strata_iter_next(&it)) {
        assert_int_equal(strata_entity_destroy(f->w, e), STRATA_OK);
        assert_true(strata_entity_alive(f->w, e));
        assert_true(((const vec2 *)strata_get(f->w, e, POSITION))->x == 7.0f);
        assert_int_equal(strata_entity_destroy(f->w, e), STRATA_ERR_STALE);
    }
    assert_false(strata_entity_alive(f->w, e));
    assert_int_equal(strata_entity_destroy(f->w, e), STRATA_ERR_STALE);
    strata_world_stats_t s;
    strata_world_stats(f->w, &s);
    assert_int_equal(s.entities, 0);
    world_close(f);
}

static void test_command_create_while_iterating_is_immediate(void **state) {
    fixture_t *f = world_open(state);
    spawn_mover(f, 0.0f);
    strata_entity_t made = STRATA_ENTITY_NULL, many[4];
    health h = {3};
    uint32_t ids[] = {HEALTH, FROZEN, POSITION};
    const void *values[] = {&h, NULL, NULL};
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    while (strata_iter_next(&it)) {
        assert_int_equal(strata_entity_create(f->w, &made), STRATA_OK);
        assert_true(strata_entity_alive(f->w, made));
        assert_int_equal(strata_add(f->w, made, POSITION, NULL), STRATA_OK);
        assert_false(strata_has(f->w, made, POSITION));
        assert_int_equal(strata_entity_create_many(f->w, 4, 3, ids, values, many), STRATA_OK);
        h.hp = 4;
        for (int i = 0; i < 4; i++) {
            assert_true(strata_entity_alive(f->w, many[i]));
            assert_false(strata_has(f->w, many[i], HEALTH));
        }
        assert_int_equal(strata_query_count(f->w, Q_POSITIONED), 1);
    }
    assert_true(strata_has(f->w, made, POSITION));
    for (int i = 0; i < 4; i++) {
        assert_int_equal(((const health *)strata_get(f->w, many[i], HEALTH))->hp, 3);
        assert_true(strata_has(f->w, many[i], FROZEN));
        assert_true(((const vec2 *)strata_get(f->w, many[i], POSITION))->y == 2.0f);
    }
    assert_int_equal(strata_query_count(f->w, Q_POSITIONED), 6);
    world_close(f);
}

/* --- Every entity visited exactly once ------------------------------------ */

enum { RUN_N = 8 };

/* The entities of query q in iteration order into out (at most RUN_N); their count. */
static uint32_t iteration_order(fixture_t *f, uint32_t q, strata_entity_t *out) {
    uint32_t n = 0;
    strata_iter_t it = strata_iter(f->w, q);
    while (strata_iter_next(&it)) {
        for (uint32_t r = 0; r < it.count && n < RUN_N; r++) {
            out[n++] = it.entities[r];
        }
    }
    return n;
}

/* Changes of one component to many entities (recorded as runs, a whole
 * table in row order moved as one batch) end as the same changes applied
 * one at a time would: values, row order, pending counts. */
static void test_command_runs_apply_as_recorded(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[RUN_N], seen[RUN_N];
    for (uint32_t i = 0; i < RUN_N; i++) {
        e[i] = spawn_mover(f, (float)i);
    }
    strata_defer_begin(f->w);
    for (uint32_t i = 0; i < RUN_N; i++) {
        health h = {(int32_t)(10 * i)};
        assert_int_equal(strata_add(f->w, e[i], HEALTH, &h), STRATA_OK); /* row order: one batch */
    }
    for (uint32_t i = RUN_N; i-- > 0;) {
        assert_int_equal(strata_add(f->w, e[i], MARKED, NULL), STRATA_OK); /* reversed: one at a time */
    }
    assert_int_equal(pending(f), 2 * RUN_N);
    assert_int_equal(strata_query_count(f->w, Q_ALIVE), 0);
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_int_equal(pending(f), 0);
    assert_int_equal(strata_query_count(f->w, Q_ALIVE), RUN_N);
    /* Reversed adds: each takes the next row of the new table. */
    assert_int_equal(iteration_order(f, Q_ALIVE, seen), RUN_N);
    for (uint32_t i = 0; i < RUN_N; i++) {
        assert_true(seen[i] == e[RUN_N - 1 - i]);
        assert_int_equal(((const health *)strata_get(f->w, e[i], HEALTH))->hp, (int32_t)(10 * i));
        assert_true(((const vec2 *)strata_get(f->w, e[i], POSITION))->x == (float)i);
        assert_true(strata_has(f->w, e[i], MARKED));
    }
    /* Removes from inside an iteration, in row order: one batch back. */
    strata_iter_t it = strata_iter(f->w, Q_ALIVE);
    while (strata_iter_next(&it)) {
        for (uint32_t r = 0; r < it.count; r++) {
            assert_int_equal(strata_remove(f->w, it.entities[r], HEALTH), STRATA_OK);
        }
    }
    assert_int_equal(strata_query_count(f->w, Q_ALIVE), 0);
    assert_int_equal(iteration_order(f, Q_POSITIONED, seen), RUN_N);
    for (uint32_t i = 0; i < RUN_N; i++) {
        assert_true(seen[i] == e[RUN_N - 1 - i]);
        assert_false(strata_has(f->w, e[i], HEALTH));
        assert_true(strata_has(f->w, e[i], MARKED));
        assert_true(((const vec2 *)strata_get(f->w, e[i], POSITION))->x == (float)i);
    }
    world_close(f);
}

/* A system spawning one entity with one component per row (the deferred
 * spawn path: the entities wait in the empty table, an add run carries their
 * components, the settle moves them in one batch), then destroying every
 * one of them inside a step (freed at the step's end in one batch). The end
 * state is the one of doing each change alone: values, rows in spawn
 * order, indices reused last-freed first. */
static void test_command_spawns_and_step_destroys_apply_as_recorded(void **state) {
    fixture_t *f = world_open(state);
    for (uint32_t i = 0; i < RUN_N; i++) {
        spawn_mover(f, (float)i);
    }
    strata_entity_t made[RUN_N], seen[RUN_N];
    uint32_t n = 0, id = HEALTH;
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    while (strata_iter_next(&it)) {
        for (uint32_t r = 0; r < it.count; r++, n++) {
            health h = {(int32_t)(100 + n)};
            const void *value = &h;
            assert_int_equal(strata_entity_create_many(f->w, 1, 1, &id, &value, &made[n]), STRATA_OK);
            assert_true(strata_entity_alive(f->w, made[n]));
            assert_false(strata_has(f->w, made[n], HEALTH)); /* not before the settle */
        }
        assert_int_equal(pending(f), n);
    }
    /* One tag, and a spawn given no value: defaults (zeros here). */
    strata_entity_t tagged, zeroed;
    strata_defer_begin(f->w);
    uint32_t marked = MARKED;
    assert_int_equal(strata_entity_create_many(f->w, 1, 1, &marked, NULL, &tagged), STRATA_OK);
    assert_int_equal(strata_entity_create_many(f->w, 1, 1, &id, NULL, &zeroed), STRATA_OK);
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_true(strata_has(f->w, tagged, MARKED));
    assert_int_equal(((const health *)strata_get(f->w, zeroed, HEALTH))->hp, 0);
    assert_int_equal(strata_entity_destroy(f->w, zeroed), STRATA_OK);
    assert_int_equal(pending(f), 0);
    assert_int_equal(iteration_order(f, Q_ALIVE, seen), RUN_N);
    for (uint32_t i = 0; i < RUN_N; i++) {
        assert_true(seen[i] == made[i]);
        assert_int_equal(((const health *)strata_get(f->w, made[i], HEALTH))->hp, (int32_t)(100 + i));
    }
    /* Destroy each one visited inside a step: all wait for its end. */
    strata_step_begin(f->w);
    it = strata_iter(f->w, Q_ALIVE);
    while (strata_iter_next(&it)) {
        for (uint32_t r = 0; r < it.count; r++) {
            assert_int_equal(strata_entity_destroy(f->w, it.entities[r]), STRATA_OK);
        }
    }
    assert_int_equal(strata_query_count(f->w, Q_ALIVE), RUN_N);
    assert_int_equal(strata_step_end(f->w), STRATA_OK);
    assert_int_equal(strata_query_count(f->w, Q_ALIVE), 0);
    for (uint32_t i = 0; i < RUN_N; i++) {
        assert_false(strata_entity_alive(f->w, made[i]));
    }
    /* Freed in the order destroyed, so the last destroyed index comes back first. */
    for (uint32_t i = RUN_N; i-- > 0;) {
        strata_entity_t e;
        assert_int_equal(strata_entity_create(f->w, &e), STRATA_OK);
        assert_int_equal((uint32_t)e, (uint32_t)made[i]);
        assert_true(e != made[i]);
    }
    assert_int_equal(strata_query_count(f->w, Q_MOVING), RUN_N);
    world_close(f);
}

/* A deferred spawn whose recording fails leaves no entity behind. */
static void test_command_nomem_recording_a_spawn_creates_nothing(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t made;
    spawn_mover(f, 0.0f);
    assert_int_equal(strata_entity_create(f->w, &made), STRATA_OK); /* room in the empty table */
    assert_int_equal(strata_entity_destroy(f->w, made), STRATA_OK);
    strata_world_stats_t before, after;
    strata_world_stats(f->w, &before);
    uint32_t id = HEALTH;
    strata_defer_begin(f->w);
    f->heap.fail_at = f->heap.calls + 1; /* the command buffer's first allocation */
    assert_int_equal(strata_entity_create_many(f->w, 1, 1, &id, NULL, &made), STRATA_ERR_NOMEM);
    assert_int_equal(f->heap.failures, 1);
    f->heap.fail_at = 0;
    strata_world_stats(f->w, &after);
    assert_int_equal(after.entities, before.entities);
    assert_int_equal(pending(f), 0);
    assert_int_equal(strata_entity_create_many(f->w, 1, 1, &id, NULL, &made), STRATA_OK);
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_true(strata_has(f->w, made, HEALTH));
    world_close(f);
}

enum { VISIT_N = 1200 };

/* Run the visit-once scenario: VISIT_N movers over four tables; on every
 * other row, one of destroy / freeze / lose Velocity / gain Health / spawn
 * a new mover. Returns the handles in e and visit counts by index. */
static void visit_every_other_row(fixture_t *f, strata_entity_t *e, uint32_t *visits, uint32_t visits_size) {
    for (uint32_t i = 0; i < VISIT_N; i++) {
        e[i] = spawn_mover(f, (float)i);
        if (i % 4 == 1) {
            assert_int_equal(strata_add(f->w, e[i], HEALTH, NULL), STRATA_OK);
        } else if (i % 4 == 2) {
            assert_int_equal(strata_add(f->w, e[i], MARKED, NULL), STRATA_OK);
        } else if (i % 4 == 3) {
            assert_int_equal(strata_add(f->w, e[i], NAME, NULL), STRATA_OK);
        }
    }
    memset(visits, 0, sizeof(uint32_t) * visits_size);
    uint32_t row_number = 0;
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    while (strata_iter_next(&it)) {
        for (uint32_t r = 0; r < it.count; r++, row_number++) {
            strata_entity_t x = it.entities[r];
            assert_true((uint32_t)x < visits_size);
            visits[(uint32_t)x]++;
            if (r % 2 == 1) {
                continue;
            }
            strata_entity_t made;
            switch ((row_number / 2) % 5) {
            case 0: assert_int_equal(strata_entity_destroy(f->w, x), STRATA_OK); break;
            case 1: assert_int_equal(strata_add(f->w, x, FROZEN, NULL), STRATA_OK); break;
            case 2: assert_int_equal(strata_remove(f->w, x, VELOCITY), STRATA_OK); break;
            case 3: assert_int_equal(strata_add(f->w, x, HEALTH, NULL), STRATA_OK); break; /* still matches */
            default:
                assert_int_equal(strata_entity_create(f->w, &made), STRATA_OK);
                uint32_t ids[] = {POSITION, VELOCITY};
                assert_int_equal(strata_add_many(f->w, made, 2, ids, NULL), STRATA_OK);
                break;
            }
        }
    }
    assert_int_equal(row_number, VISIT_N);
}

static void test_command_iteration_visits_every_entity_exactly_once(void **state) {
    fixture_t *f = world_open(state);
    static strata_entity_t e[VISIT_N];
    static uint32_t visits[2 * VISIT_N];
    visit_every_other_row(f, e, visits, 2 * VISIT_N);
    for (uint32_t i = 0; i < VISIT_N; i++) {
        assert_int_equal(visits[(uint32_t)e[i]], 1);
    }
    for (uint32_t i = VISIT_N; i < 2 * VISIT_N; i++) {
        assert_int_equal(visits[i], 0); /* entities made while iterating were not visited */
    }
    /* Applied at the end: 1200 rows, 600 changed, 120 of each kind. */
    strata_world_stats_t s;
    strata_world_stats(f->w, &s);
    assert_int_equal(s.entities, VISIT_N - 120 + 120);
    assert_int_equal(strata_query_count(f->w, Q_MOVING), VISIT_N - 120 - 120 - 120 + 120);
    world_close(f);
}

static void test_command_iteration_in_a_step_visits_once_and_keeps_the_doomed(void **state) {
    fixture_t *f = world_open(state);
    static strata_entity_t e[VISIT_N];
    static uint32_t visits[2 * VISIT_N];
    strata_step_begin(f->w);
    visit_every_other_row(f, e, visits, 2 * VISIT_N);
    for (uint32_t i = 0; i < VISIT_N; i++) {
        assert_int_equal(visits[(uint32_t)e[i]], 1);
        assert_true(strata_entity_alive(f->w, e[i])); /* destroyed ones live until the step ends */
    }
    /* A second system in the same step still sees the doomed entities. */
    uint32_t seen = 0;
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    while (strata_iter_next(&it)) {
        seen += it.count;
    }
    assert_int_equal(seen, VISIT_N - 120 - 120 + 120);
    assert_int_equal(pending(f), 120);
    assert_int_equal(strata_step_end(f->w), STRATA_OK);
    assert_int_equal(pending(f), 0);
    assert_int_equal(strata_query_count(f->w, Q_MOVING), VISIT_N - 120 - 120 - 120 + 120);
    world_close(f);
}

/* --- Steps ---------------------------------------------------------------- */

static void test_command_step_destroy_waits_for_step_end(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn_mover(f, 3.0f), other = spawn_mover(f, 4.0f);
    strata_step_begin(f->w);
    assert_int_equal(strata_entity_destroy(f->w, e), STRATA_OK);
    assert_true(strata_entity_alive(f->w, e));
    assert_int_equal(strata_entity_destroy(f->w, e), STRATA_ERR_STALE);
    assert_true(((const vec2 *)strata_get(f->w, e, POSITION))->x == 3.0f);
    assert_int_equal(strata_query_count(f->w, Q_MOVING), 2);
    /* A scope closing inside the step does not apply it. */
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    while (strata_iter_next(&it)) {
        assert_int_equal(strata_entity_destroy(f->w, other), STRATA_OK);
    }
    assert_true(strata_entity_alive(f->w, e));
    assert_true(strata_entity_alive(f->w, other));
    assert_int_equal(pending(f), 2);
    strata_world_stats_t s;
    strata_world_stats(f->w, &s);
    assert_int_equal(s.entities, 2);
    assert_int_equal(strata_step_end(f->w), STRATA_OK);
    assert_false(strata_entity_alive(f->w, e));
    assert_false(strata_entity_alive(f->w, other));
    assert_int_equal(pending(f), 0);
    /* Outside a step, destroy is immediate again. */
    strata_entity_t g = spawn_mover(f, 0.0f);
    assert_int_equal(strata_entity_destroy(f->w, g), STRATA_OK);
    assert_false(strata_entity_alive(f->w, g));
    world_close(f);
}

static void test_command_step_end_inside_a_scope_waits_for_it(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn_mover(f, 0.0f);
    strata_step_begin(f->w);
    assert_int_equal(strata_entity_destroy(f->w, e), STRATA_OK);
    strata_defer_begin(f->w);
    assert_int_equal(strata_step_end(f->w), STRATA_OK);
    assert_true(strata_entity_alive(f->w, e));
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_false(strata_entity_alive(f->w, e));
    world_close(f);
}

/* --- Failures ------------------------------------------------------------- */

static void test_command_nomem_while_recording_records_nothing(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e = spawn_mover(f, 0.0f);
    strata_defer_begin(f->w);
    f->heap.fail_at = f->heap.calls + 1; /* the command buffer's first allocation */
    assert_int_equal(strata_entity_destroy(f->w, e), STRATA_ERR_NOMEM);
    assert_int_equal(pending(f), 0);
    assert_int_equal(strata_entity_destroy(f->w, e), STRATA_OK); /* not marked by the failure */
    assert_int_equal(pending(f), 1);
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_false(strata_entity_alive(f->w, e));
    world_close(f);
}

static void test_command_failed_settle_keeps_commands_in_order(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a = spawn_mover(f, 0.0f), b = spawn_mover(f, 1.0f), c = spawn_mover(f, 2.0f);
    health h = {8};
    strata_defer_begin(f->w);
    assert_int_equal(strata_add(f->w, a, MARKED, NULL), STRATA_OK); /* each add makes a table */
    assert_int_equal(strata_add(f->w, b, HEALTH, &h), STRATA_OK);
    assert_int_equal(strata_entity_destroy(f->w, c), STRATA_OK);
    assert_int_equal(strata_add(f->w, a, NAME, NULL), STRATA_OK);
    /* Fail the k-th allocation of each settle in turn, until one goes through. */
    for (long k = 1;; k++) {
        f->heap.fail_at = f->heap.calls + k;
        strata_result_t r = strata_defer_end(f->w);
        int a1 = strata_has(f->w, a, MARKED), b1 = strata_has(f->w, b, HEALTH);
        int c1 = !strata_entity_alive(f->w, c), a2 = strata_has(f->w, a, NAME);
        /* What was applied is always a prefix of what was recorded. */
        assert_true(a1 >= b1 && b1 >= c1 && c1 >= a2);
        assert_int_equal(pending(f), 4 - (a1 + b1 + c1 + a2));
        if (r == STRATA_OK) {
            break;
        }
        assert_int_equal(r, STRATA_ERR_NOMEM);
        assert_false(strata_is_deferred(f->w));
        strata_defer_begin(f->w);
    }
    f->heap.fail_at = 0;
    assert_int_equal(((const health *)strata_get(f->w, b, HEALTH))->hp, 8);
    assert_true(strata_has(f->w, a, NAME));
    assert_false(strata_entity_alive(f->w, c));
    assert_int_equal(pending(f), 0);
    world_close(f);
}

static void test_command_failed_settle_applies_nothing_out_of_order(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a = spawn_mover(f, 0.0f), b = spawn_mover(f, 1.0f);
    strata_defer_begin(f->w);
    assert_int_equal(strata_add(f->w, a, HEALTH, NULL), STRATA_OK); /* needs a new table */
    assert_int_equal(strata_entity_destroy(f->w, b), STRATA_OK);    /* needs nothing */
    f->heap.fail_at = f->heap.calls + 1;
    assert_int_equal(strata_defer_end(f->w), STRATA_ERR_NOMEM);
    assert_false(strata_is_deferred(f->w));
    assert_false(strata_has(f->w, a, HEALTH));
    assert_true(strata_entity_alive(f->w, b)); /* waits behind the failed command */
    assert_int_equal(pending(f), 2);
    /* The next settle retries them. */
    strata_defer_begin(f->w);
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_true(strata_has(f->w, a, HEALTH));
    assert_false(strata_entity_alive(f->w, b));
    world_close(f);
}

static void test_command_failed_deferred_create_many_resumes(void **state) {
    fixture_t *f = world_open(state);
    spawn_mover(f, 0.0f);
    strata_entity_t e[40];
    health h = {6};
    uint32_t ids[] = {HEALTH, NAME, POSITION};
    const void *values[] = {&h, NULL, NULL};
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    assert_true(strata_iter_next(&it));
    assert_int_equal(strata_entity_create_many(f->w, 40, 3, ids, values, e), STRATA_OK);
    assert_int_equal(pending(f), 1);
    /* Fail the k-th allocation of each settle in turn: the batch resumes
     * where it stopped, each entity placed once. */
    long k = 1;
    f->heap.fail_at = f->heap.calls + k;
    strata_result_t r = strata_iter_end(&it);
    bool partial = false;
    uint32_t done = 0;
    while (r != STRATA_OK) {
        assert_int_equal(r, STRATA_ERR_NOMEM);
        uint32_t now = strata_query_count(f->w, Q_ALIVE);
        assert_true(now >= done && now < 40);
        partial = partial || now > 0;
        done = now;
        /* A write between settles must survive the retry: placed entities
         * are not placed again. */
        health changed = {99};
        for (int i = 0; i < 40; i++) {
            if (strata_has(f->w, e[i], HEALTH)) {
                assert_int_equal(strata_set(f->w, e[i], HEALTH, &changed), STRATA_OK);
            }
        }
        assert_int_equal(pending(f), 1);
        f->heap.fail_at = f->heap.calls + ++k;
        strata_defer_begin(f->w);
        r = strata_defer_end(f->w);
    }
    f->heap.fail_at = 0;
    assert_true(partial); /* some settle stopped in the middle of the batch */
    assert_int_equal(strata_query_count(f->w, Q_ALIVE), 40);
    int changed = 0;
    for (int i = 0; i < 40; i++) {
        int hp = ((const health *)strata_get(f->w, e[i], HEALTH))->hp;
        assert_true(hp == 6 || hp == 99);
        changed += hp == 99;
        assert_true(((const vec2 *)strata_get(f->w, e[i], POSITION))->x == 1.0f);
    }
    assert_int_equal(changed, done);
    world_close(f);
}

static void test_command_failed_step_end_keeps_destroys_for_next_settle(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a = spawn_mover(f, 0.0f), b = spawn_mover(f, 1.0f);
    strata_step_begin(f->w);
    assert_int_equal(strata_entity_destroy(f->w, b), STRATA_OK);
    strata_defer_begin(f->w);
    assert_int_equal(strata_add(f->w, a, NAME, NULL), STRATA_OK); /* needs a new table */
    f->heap.fail_at = f->heap.calls + 1;
    assert_int_equal(strata_defer_end(f->w), STRATA_ERR_NOMEM);
    f->heap.fail_at = f->heap.calls + 1;
    assert_int_equal(strata_step_end(f->w), STRATA_ERR_NOMEM);
    /* The step is over, but the destroy waits behind the failed command. */
    assert_false(strata_has(f->w, a, NAME));
    assert_true(strata_entity_alive(f->w, b));
    assert_int_equal(strata_entity_destroy(f->w, b), STRATA_ERR_STALE);
    assert_int_equal(pending(f), 2);
    f->heap.fail_at = 0;
    strata_defer_begin(f->w);
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    assert_true(strata_has(f->w, a, NAME));
    assert_false(strata_entity_alive(f->w, b));
    assert_int_equal(pending(f), 0);
    world_close(f);
}

static void test_command_limit_drops_only_that_command(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t a = spawn_mover(f, 0.0f), b = spawn_mover(f, 1.0f);
    f->w->table_limit = f->w->table_count; /* no new table from now on */
    strata_defer_begin(f->w);
    assert_int_equal(strata_add(f->w, a, HEALTH, NULL), STRATA_OK);
    assert_int_equal(strata_entity_destroy(f->w, b), STRATA_OK);
    assert_int_equal(strata_defer_end(f->w), STRATA_ERR_LIMIT);
    assert_false(strata_has(f->w, a, HEALTH));
    assert_false(strata_entity_alive(f->w, b));
    assert_int_equal(pending(f), 0);
    world_close(f);
}

static void test_command_assert_unbalanced_scopes_and_steps(void **state) {
    fixture_t *f = world_open(state);
    expect_assert_failure(strata_defer_end(f->w));
    expect_assert_failure(strata_step_end(f->w));
    strata_step_begin(f->w);
    expect_assert_failure(strata_step_begin(f->w));
    assert_int_equal(strata_step_end(f->w), STRATA_OK);
    world_close(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_command_scopes_nest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_add_copies_value_and_waits_for_the_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_runs_apply_as_recorded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_spawns_and_step_destroys_apply_as_recorded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_nomem_recording_a_spawn_creates_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_set_and_get_stay_immediate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_applies_in_recorded_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_skips_dead_entities_and_absent_components, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_destroy_while_iterating_waits_for_the_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_create_while_iterating_is_immediate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_iteration_visits_every_entity_exactly_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_iteration_in_a_step_visits_once_and_keeps_the_doomed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_command_step_destroy_waits_for_step_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_step_end_inside_a_scope_waits_for_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_nomem_while_recording_records_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_failed_settle_keeps_commands_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_failed_settle_applies_nothing_out_of_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_failed_deferred_create_many_resumes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_failed_step_end_keeps_destroys_for_next_settle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_limit_drops_only_that_command, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_assert_unbalanced_scopes_and_steps, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

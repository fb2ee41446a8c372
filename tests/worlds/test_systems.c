/* Tests of systems as the seeds describe them (tests/schema/systems.yaml):
 * aspects with on_add / on_remove, component hooks, dirty sets, disabled
 * systems, and the callback form of queries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "systems.h"

/* --- What the game's functions saw --------------------------------------- */

enum { MAX_SEEN = 256 };

static struct {
    uint32_t mover_added, mover_removed; /* Mover's on_add / on_remove calls */
    float removed_distance;              /* the aspect on_remove was given */
    uint32_t render_added;
    uint32_t render_seen[MAX_SEEN]; /* Render visits by entity index */
    uint32_t healer_rows;
    uint32_t texture_added, texture_removed, glow_added, glow_removed;
    uint32_t last_texture_handle; /* the value on_remove was given */
    bool texture_adds_glow;       /* Texture's on_add adds Glow (a structural change in a hook) */
    bool once_destroys_world;     /* Once destroys its own world (an assert) */
    bool mover_destroys_world;    /* Mover does, inside its iterator */
    bool once_clears_world;       /* Once clears its own world (an assert) */
    bool texture_remove_spawns;   /* Texture's on_remove makes an entity with Glow */
} seen;

void systems_once_run(systems_once_ctx *ctx) {
    ctx->calls->once_runs++;
    if (seen.once_destroys_world) {
        expect_assert_failure(systems_world_destroy(ctx->world));
    }
    if (seen.once_clears_world) {
        expect_assert_failure(systems_world_clear(ctx->world));
    }
}

void systems_mover_run(systems_mover_ctx *ctx) {
    ctx->calls->mover_runs++;
    while (systems_mover_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->position[i].x += ctx->velocity[i].x * ctx->dt;
            ctx->aspect[i].distance += ctx->velocity[i].x * ctx->dt;
            ctx->aspect[i].steps++;
        }
        if (seen.mover_destroys_world) {
            expect_assert_failure(systems_world_destroy(ctx->world));
        }
    }
}

void systems_mover_on_add(systems_world *w, systems_entity e, systems_mover_aspect *aspect) {
    (void)w;
    (void)e;
    assert_int_equal(aspect->steps, 100); /* made at its defaults */
    assert_true(aspect->distance == 0.0f);
    seen.mover_added++;
}

void systems_mover_on_remove(systems_world *w, systems_entity e, systems_mover_aspect *aspect) {
    (void)w;
    (void)e;
    seen.removed_distance = aspect->distance;
    seen.mover_removed++;
}

void systems_render_run(systems_render_ctx *ctx) {
    ctx->calls->render_runs++;
    while (systems_render_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            uint32_t index = (uint32_t)ctx->entities[i].id;
            assert_true(index < MAX_SEEN);
            seen.render_seen[index]++;
            assert_int_equal(ctx->aspect[i].sprite, 7);
            ctx->calls->render_rows++;
        }
    }
}

void systems_render_on_add(systems_world *w, systems_entity e, systems_render_aspect *aspect) {
    (void)w;
    (void)e;
    assert_int_equal(aspect->sprite, 7);
    seen.render_added++;
}

void systems_healer_run(systems_healer_ctx *ctx) {
    while (systems_healer_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->health[i].value += 1; /* its own writes are not its changes */
            seen.healer_rows++;
        }
    }
}

void systems_texture_on_add(systems_world *w, systems_entity e, systems_texture *value) {
    assert_true(systems_texture_has(w, e));
    seen.last_texture_handle = value->handle;
    seen.texture_added++;
    if (seen.texture_adds_glow) {
        assert_int_equal(systems_glow_add(w, e), STRATA_OK);
        assert_false(systems_glow_has(w, e)); /* deferred until the hook's change is done */
    }
}

void systems_texture_on_remove(systems_world *w, systems_entity e, systems_texture *value) {
    (void)e;
    seen.last_texture_handle = value->handle;
    seen.texture_removed++;
    if (seen.texture_remove_spawns) {
        systems_entity debris = systems_entity_create(w);
        assert_true(systems_entity_alive(w, debris));
        assert_int_equal(systems_glow_add(w, debris), STRATA_OK); /* recorded */
    }
}

void systems_glow_on_add(systems_world *w, systems_entity e) {
    assert_true(systems_glow_has(w, e));
    seen.glow_added++;
}

void systems_glow_on_remove(systems_world *w, systems_entity e) {
    (void)w;
    (void)e;
    seen.glow_removed++;
}

/* --- Fixtures ------------------------------------------------------------ */

static int setup(void **state) {
    memset(&seen, 0, sizeof seen);
    systems_world *w = systems_world_create(NULL);
    assert_non_null(w);
    *state = w;
    return 0;
}

static int teardown(void **state) {
    systems_world_destroy(*state);
    return 0;
}

/* An entity with Position (x) and, if moving, Velocity (1, 0). */
static systems_entity spawn(systems_world *w, float x, bool moving) {
    systems_entity e = systems_entity_create_bundle(w, &(systems_bundle){.position = &(systems_position){x, 0},
                                                                         .velocity = moving ? &SYSTEMS_VELOCITY_DEFAULT
                                                                                            : NULL});
    assert_false(systems_entity_eq(e, SYSTEMS_ENTITY_NULL));
    return e;
}

/* The Mover aspect of e, found through Mover's iterator, or NULL. */
static systems_mover_aspect mover_aspect_of(systems_world *w, systems_entity e, bool *found) {
    systems_mover_aspect a = {0};
    *found = false;
    systems_mover_ctx ctx = systems_mover_begin(w, 0.0f);
    while (systems_mover_next(&ctx)) {
        for (uint32_t i = 0; i < ctx.count; i++) {
            if (systems_entity_eq(ctx.entities[i], e)) {
                a = ctx.aspect[i];
                *found = true;
            }
        }
    }
    return a;
}

/* --- Aspects -------------------------------------------------------------- */

static void test_aspect_made_at_defaults_and_kept_across_steps(void **state) {
    systems_world *w = *state;
    systems_entity e = spawn(w, 0, true);
    assert_int_equal(seen.mover_added, 1);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(systems_world_step(w, 0.5f), STRATA_OK);
    }
    bool found;
    systems_mover_aspect a = mover_aspect_of(w, e, &found);
    assert_true(found);
    assert_int_equal(a.steps, 103);
    assert_true(a.distance == 1.5f);
    assert_int_equal(seen.mover_added, 1); /* once, however long it matches */
}

static void test_aspect_dropped_once_when_entity_loses_a_required_component(void **state) {
    systems_world *w = *state;
    systems_entity e = spawn(w, 0, true);
    assert_int_equal(systems_world_step(w, 2.0f), STRATA_OK);
    assert_int_equal(systems_velocity_remove(w, e), STRATA_OK);
    assert_int_equal(seen.mover_removed, 1);
    assert_true(seen.removed_distance == 2.0f); /* on_remove sees the aspect before it goes */
    bool found;
    mover_aspect_of(w, e, &found);
    assert_false(found);
    /* Matching again makes a new aspect at its defaults. */
    assert_int_equal(systems_velocity_add(w, e, SYSTEMS_VELOCITY_DEFAULT), STRATA_OK);
    assert_int_equal(seen.mover_added, 2);
    systems_mover_aspect a = mover_aspect_of(w, e, &found);
    assert_true(found && a.steps == 100 && a.distance == 0.0f);
    assert_int_equal(seen.mover_removed, 1);
}

static void test_aspect_dropped_when_an_excluded_component_arrives(void **state) {
    systems_world *w = *state;
    systems_entity e = spawn(w, 0, true);
    assert_int_equal(systems_frozen_add(w, e), STRATA_OK);
    assert_int_equal(seen.mover_removed, 1);
    assert_int_equal(systems_frozen_remove(w, e), STRATA_OK);
    assert_int_equal(seen.mover_added, 2);
}

static void test_aspect_on_remove_runs_once_on_destroy(void **state) {
    systems_world *w = *state;
    systems_entity a = spawn(w, 0, true), b = spawn(w, 1, false);
    assert_int_equal(systems_entity_destroy(w, a), STRATA_OK);
    assert_int_equal(seen.mover_removed, 1);
    assert_int_equal(systems_entity_destroy(w, a), STRATA_ERR_STALE);
    assert_int_equal(seen.mover_removed, 1);
    assert_int_equal(systems_entity_destroy(w, b), STRATA_OK); /* never matched Mover */
    assert_int_equal(seen.mover_removed, 1);
}

static void test_aspect_survives_moves_between_matching_tables(void **state) {
    systems_world *w = *state;
    systems_entity e = spawn(w, 0, true);
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    /* Health moves it to another table that still matches Mover. */
    assert_int_equal(systems_health_add(w, e, (systems_health){5}), STRATA_OK);
    bool found;
    systems_mover_aspect a = mover_aspect_of(w, e, &found);
    assert_true(found && a.steps == 101 && a.distance == 1.0f);
    assert_int_equal(seen.mover_added, 1);
    assert_int_equal(seen.mover_removed, 0);
}

static void test_disabled_system_does_not_run_and_keeps_its_aspects(void **state) {
    systems_world *w = *state;
    systems_entity e = spawn(w, 0, true);
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    systems_mover_enable(w, false);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    }
    assert_int_equal(systems_calls_res(w)->mover_runs, 1);
    assert_int_equal(systems_calls_res(w)->once_runs, 4);
    bool found;
    systems_mover_aspect a = mover_aspect_of(w, e, &found);
    assert_true(found && a.steps == 101);
    assert_true(systems_position_get(w, e)->x == 1.0f);
    /* Tracking goes on while disabled: the aspect set is always the matching set. */
    spawn(w, 5, true);
    assert_int_equal(seen.mover_added, 2);
    systems_mover_enable(w, true);
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    assert_int_equal(systems_calls_res(w)->mover_runs, 2);
    a = mover_aspect_of(w, e, &found);
    assert_true(found && a.steps == 102);
}

/* --- Dirty sets ------------------------------------------------------------ */

static void test_changed_system_sees_exactly_the_written_entities_once(void **state) {
    systems_world *w = *state;
    enum { N = 12 };
    systems_entity e[N];
    for (uint32_t i = 0; i < N; i++) {
        e[i] = spawn(w, (float)i, false); /* no Velocity: Mover never writes them */
    }
    /* Added components count as written: the first run sees everyone. */
    assert_int_equal(systems_render_changed_count(w), N);
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    assert_int_equal(systems_calls_res(w)->render_rows, N);
    memset(seen.render_seen, 0, sizeof seen.render_seen);

    /* Some written twice, some once (each write path), the rest never. */
    systems_position_set(w, e[1], (systems_position){10, 0});
    systems_position_set(w, e[1], (systems_position){11, 0});
    systems_position_mut(w, e[2])->x = 20;
    systems_position_mut(w, e[2])->x = 21;
    systems_position_add(w, e[3], (systems_position){30, 0}); /* add over a present one writes it */
    systems_position_set(w, e[4], (systems_position){40, 0});
    systems_velocity_set(w, e[5], SYSTEMS_VELOCITY_DEFAULT); /* not tracked: e[5] has no Velocity */
    systems_health_add(w, e[6], SYSTEMS_HEALTH_DEFAULT);     /* another component */
    assert_int_equal(systems_render_changed_count(w), 4);
    uint32_t before = systems_calls_res(w)->render_rows;
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    assert_int_equal(systems_calls_res(w)->render_rows - before, 4);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t expect = (i >= 1 && i <= 4) ? 1 : 0;
        assert_int_equal(seen.render_seen[(uint32_t)e[i].id], expect);
    }
    /* Emptied by the run: the next sees nothing. */
    before = systems_calls_res(w)->render_rows;
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    assert_int_equal(systems_calls_res(w)->render_rows, before);
}

static void test_changed_write_terms_mark_the_rows_they_yield(void **state) {
    systems_world *w = *state;
    spawn(w, 0, true);
    spawn(w, 1, true);
    spawn(w, 2, false);
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK); /* everything new */
    uint32_t before = systems_calls_res(w)->render_rows;
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    /* Mover (earlier in the step) wrote Position of the two movers. */
    assert_int_equal(systems_calls_res(w)->render_rows - before, 2);
}

static void test_changed_skips_destroyed_and_no_longer_matching_entities(void **state) {
    systems_world *w = *state;
    systems_entity a = spawn(w, 0, false), b = spawn(w, 1, false), c = spawn(w, 2, false);
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    systems_position_set(w, a, (systems_position){5, 5});
    systems_position_set(w, b, (systems_position){5, 5});
    systems_position_set(w, c, (systems_position){5, 5});
    systems_entity_destroy(w, a);
    systems_position_remove(w, b);
    systems_entity d = spawn(w, 9, false); /* may reuse a's index: counts once, as itself */
    uint32_t before = systems_calls_res(w)->render_rows;
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    assert_int_equal(systems_calls_res(w)->render_rows - before, 2); /* c and d */
    (void)d;
}

static void test_changed_own_writes_are_not_changes(void **state) {
    systems_world *w = *state;
    systems_entity e[5];
    for (int i = 0; i < 5; i++) {
        e[i] = systems_entity_create(w);
        systems_health_add(w, e[i], SYSTEMS_HEALTH_DEFAULT);
    }
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    assert_int_equal(seen.healer_rows, 5);
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    assert_int_equal(seen.healer_rows, 5); /* Healer wrote them; nobody else did */
    systems_health_mut(w, e[2])->value = 0;
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    assert_int_equal(seen.healer_rows, 6);
    assert_int_equal(systems_health_get(w, e[2])->value, 1);
}

static void test_changed_free_query_has_its_own_set(void **state) {
    systems_world *w = *state;
    systems_entity e[5];
    for (int i = 0; i < 5; i++) {
        e[i] = systems_entity_create(w);
        systems_health_add(w, e[i], SYSTEMS_HEALTH_DEFAULT);
    }
    /* Healer's run empties its own set, not Damaged's. */
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    assert_int_equal(systems_damaged_changed_count(w), 5);
    uint32_t rows = 0;
    for (systems_damaged_iter it = systems_damaged_begin(w); systems_damaged_next(&it);) {
        rows += it.count;
    }
    /* Healer's writes during the step count for Damaged: all 5 once. */
    assert_int_equal(rows, 5);
    assert_int_equal(systems_damaged_changed_count(w), 0);
    systems_health_set(w, e[0], (systems_health){3});
    systems_health_set(w, e[0], (systems_health){4});
    rows = 0;
    for (systems_damaged_iter it = systems_damaged_begin(w); systems_damaged_next(&it);) {
        assert_int_equal(it.health[0].value, 4);
        rows += it.count;
    }
    assert_int_equal(rows, 1);
}

static void test_changed_break_keeps_what_was_not_visited(void **state) {
    systems_world *w = *state;
    for (int i = 0; i < 4; i++) {
        systems_entity e = systems_entity_create(w);
        systems_health_add(w, e, SYSTEMS_HEALTH_DEFAULT);
    }
    systems_damaged_iter it = systems_damaged_begin(w);
    assert_true(systems_damaged_next(&it));
    assert_int_equal(systems_damaged_end(&it), STRATA_OK);
    assert_int_equal(systems_damaged_changed_count(w), 3);
}

/* A write during a run counts for the next run only if it comes after the
 * entity's visit: before it, the entity is still waiting (even when the
 * iterator has already looked it up), and is visited once. */
static void test_changed_write_before_the_visit_counts_once(void **state) {
    systems_world *w = *state;
    enum { N = 10 };
    systems_entity e[N];
    for (int i = 0; i < N; i++) {
        e[i] = systems_entity_create(w);
        systems_health_add(w, e[i], SYSTEMS_HEALTH_DEFAULT);
    }
    for (systems_damaged_iter it = systems_damaged_begin(w); systems_damaged_next(&it);) {}
    assert_int_equal(systems_damaged_changed_count(w), 0);
    for (int i = 0; i < N; i++) {
        systems_health_set(w, e[i], (systems_health){i});
    }
    uint32_t rows = 0;
    systems_entity first = SYSTEMS_ENTITY_NULL;
    for (systems_damaged_iter it = systems_damaged_begin(w); systems_damaged_next(&it);) {
        if (rows++ == 0) {
            first = it.entities[0];
            /* the last one (not visited yet), then the one just visited */
            systems_health_set(w, e[N - 1 - (systems_entity_eq(first, e[N - 1]) ? 1 : 0)], (systems_health){50});
            systems_health_set(w, first, (systems_health){60});
        }
    }
    assert_int_equal(rows, N);
    assert_int_equal(systems_damaged_changed_count(w), 1);
    rows = 0;
    for (systems_damaged_iter it = systems_damaged_begin(w); systems_damaged_next(&it);) {
        assert_true(systems_entity_eq(it.entities[0], first));
        assert_int_equal(it.health[0].value, 60);
        rows++;
    }
    assert_int_equal(rows, 1);
}

/* --- Component hooks --------------------------------------------------- */

static void test_component_hooks_run_once_per_add_remove_and_destroy(void **state) {
    systems_world *w = *state;
    systems_entity e = systems_entity_create(w);
    assert_int_equal(systems_texture_add(w, e, (systems_texture){42}), STRATA_OK);
    assert_int_equal(seen.texture_added, 1);
    assert_int_equal(seen.last_texture_handle, 42);
    assert_int_equal(systems_texture_add(w, e, (systems_texture){43}), STRATA_OK); /* overwrite: no new add */
    assert_int_equal(seen.texture_added, 1);
    assert_int_equal(systems_texture_remove(w, e), STRATA_OK);
    assert_int_equal(seen.texture_removed, 1);
    assert_int_equal(seen.last_texture_handle, 43);
    assert_int_equal(systems_texture_remove(w, e), STRATA_ERR_MISSING);
    assert_int_equal(seen.texture_removed, 1);

    assert_int_equal(systems_entity_add_bundle(w, e, &(systems_bundle){.texture = &(systems_texture){7}, .glow = true}),
                     STRATA_OK);
    assert_int_equal(seen.texture_added, 2);
    assert_int_equal(seen.glow_added, 1);
    /* Unrelated moves run no hook. */
    systems_position_add(w, e, (systems_position){0, 0});
    systems_position_remove(w, e);
    assert_int_equal(seen.texture_added + seen.texture_removed + seen.glow_added + seen.glow_removed, 4);
    assert_int_equal(systems_entity_destroy(w, e), STRATA_OK);
    assert_int_equal(seen.texture_removed, 2);
    assert_int_equal(seen.last_texture_handle, 7);
    assert_int_equal(seen.glow_removed, 1);
}

static void test_component_hooks_wait_for_deferred_changes(void **state) {
    systems_world *w = *state;
    systems_entity e[4];
    for (int i = 0; i < 4; i++) {
        e[i] = spawn(w, (float)i, true);
    }
    for (systems_moving_iter it = systems_moving_begin(w); systems_moving_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++) {
            systems_texture_add(w, it.entities[i], (systems_texture){(uint32_t)i});
        }
        assert_int_equal(seen.texture_added, 0); /* recorded, not applied */
    }
    assert_int_equal(seen.texture_added, 4);
    /* Inside a step, a destroy's hooks run when the step ends. */
    strata_world_t *core = systems_world_core(w);
    strata_step_begin(core);
    assert_int_equal(systems_entity_destroy(w, e[0]), STRATA_OK);
    assert_int_equal(seen.texture_removed, 0);
    assert_int_equal(strata_step_end(core), STRATA_OK);
    assert_int_equal(seen.texture_removed, 1);
}

static void test_component_hook_structural_change_is_applied_after_it(void **state) {
    systems_world *w = *state;
    seen.texture_adds_glow = true;
    systems_entity e = systems_entity_create(w);
    assert_int_equal(systems_texture_add(w, e, (systems_texture){1}), STRATA_OK);
    assert_true(systems_glow_has(w, e));
    assert_int_equal(seen.glow_added, 1);
    /* From inside a flush: the hook's own command joins the running flush. */
    systems_entity f = systems_entity_create(w);
    strata_world_t *core = systems_world_core(w);
    strata_defer_begin(core);
    assert_int_equal(systems_texture_add(w, f, (systems_texture){2}), STRATA_OK);
    assert_false(systems_texture_has(w, f));
    assert_int_equal(strata_defer_end(core), STRATA_OK);
    assert_true(systems_texture_has(w, f) && systems_glow_has(w, f));
    assert_int_equal(seen.glow_added, 2);
}

static void test_component_hooks_run_when_the_world_is_destroyed(void **state) {
    (void)state;
    systems_world *w = systems_world_create(NULL);
    assert_non_null(w);
    for (uint32_t i = 0; i < 3; i++) {
        systems_entity e = systems_entity_create(w);
        systems_texture_add(w, e, (systems_texture){i});
    }
    systems_world_destroy(w);
    assert_int_equal(seen.texture_removed, 3); /* textures held outside the world are released */
}

/* --- Loading a save --------------------------------------------------------- */

static void test_load_runs_hooks_remakes_aspects_and_marks_changed(void **state) {
    systems_world *w = *state;
    systems_entity e[3];
    for (uint32_t i = 0; i < 3; i++) {
        e[i] = spawn(w, (float)i, true);
        systems_texture_add(w, e[i], (systems_texture){10 + i});
    }
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK); /* aspects move on: steps 101 */
    static unsigned char save[1 << 16];
    size_t size = 0;
    assert_int_equal(systems_world_save_mem(w, save, sizeof save, &size), STRATA_OK);
    assert_int_equal(systems_entity_destroy(w, e[0]), STRATA_OK);
    memset(&seen, 0, sizeof seen);

    strata_load_report_t report;
    assert_int_equal(systems_world_load_mem(w, save, size, &report), STRATA_OK);
    /* The two entities there were left, once each; the three loaded arrived. */
    assert_int_equal(seen.mover_removed, 2);
    assert_int_equal(seen.texture_removed, 2);
    assert_int_equal(seen.mover_added, 3);
    assert_int_equal(seen.texture_added, 3);
    /* Aspects are a system's transient state: remade at their defaults, not saved. */
    bool found;
    systems_mover_aspect a = mover_aspect_of(w, e[0], &found);
    assert_true(found && a.steps == 100);
    /* Everything loaded counts as written for `changed`. */
    assert_int_equal(systems_render_changed_count(w), 3);
    assert_true(systems_texture_get(w, e[2])->handle == 12);
}

/* A libc allocator whose calls are counted; the call numbered fail_at fails. */
static long alloc_calls, alloc_fail_at;

static void *failing_alloc(size_t size, void *user) {
    (void)user;
    return ++alloc_calls == alloc_fail_at ? NULL : malloc(size);
}

static void *failing_realloc(void *p, size_t old_size, size_t size, void *user) {
    (void)old_size;
    (void)user;
    return ++alloc_calls == alloc_fail_at ? NULL : realloc(p, size);
}

static void failing_free(void *p, size_t size, void *user) {
    (void)size;
    (void)user;
    free(p);
}

/* Regression: a load that failed after placing the save's entities in the
 * world it builds ran their on_remove hooks (never their on_add) when it
 * threw that world away. A failed load runs no hook. */
static void test_load_failed_late_runs_no_hook(void **state) {
    (void)state;
    strata_world_desc_t desc = {.allocator = {failing_alloc, failing_realloc, failing_free, NULL}};
    alloc_fail_at = 0;
    systems_world *w = systems_world_create(&desc);
    assert_non_null(w);
    /* Three archetypes: the load builds a table after placing the rows of another. */
    for (uint32_t i = 0; i < 3; i++) {
        systems_entity e = spawn(w, (float)i, i != 1);
        systems_texture_add(w, e, (systems_texture){10 + i});
        if (i == 2) {
            systems_health_add(w, e, SYSTEMS_HEALTH_DEFAULT);
        }
    }
    static unsigned char save[1 << 16];
    size_t size = 0;
    assert_int_equal(systems_world_save_mem(w, save, sizeof save, &size), STRATA_OK);
    strata_result_t r = STRATA_ERR_NOMEM;
    long failed = 0;
    for (long n = 1; r == STRATA_ERR_NOMEM; n++) {
        memset(&seen, 0, sizeof seen);
        alloc_fail_at = alloc_calls + n;
        r = systems_world_load_mem(w, save, size, NULL);
        if (r == STRATA_ERR_NOMEM) {
            failed++;
            assert_int_equal(seen.mover_removed + seen.mover_added + seen.texture_removed + seen.texture_added +
                                 seen.render_added,
                             0);
        }
    }
    assert_int_equal(r, STRATA_OK);
    assert_true(failed > 5); /* some failures came after the entities were placed */
    assert_int_equal(seen.texture_removed, 3);
    assert_int_equal(seen.texture_added, 3);
    alloc_fail_at = 0;
    systems_world_destroy(w);
}

/* --- The callback form: a call per non-empty batch ------------------------ */

static uint32_t each_rows, each_batches;

static void count_rows(uint32_t count, const systems_entity *entities, const systems_position *position,
                       const systems_velocity *velocity, void *user) {
    assert_int_equal(*(int *)user, 99);
    assert_non_null(entities);
    for (uint32_t i = 0; i < count; i++) {
        assert_int_not_equal(entities[i].id, 0);
        assert_true(velocity[i].x == 1.0f);
        assert_true(position[i].x >= 0.0f);
    }
    each_rows += count;
    each_batches++;
}

static void test_each_calls_back_once_per_non_empty_table(void **state) {
    systems_world *w = *state;
    for (int i = 0; i < 6; i++) {
        systems_entity e = spawn(w, (float)i, true);
        if (i % 2) {
            systems_health_add(w, e, SYSTEMS_HEALTH_DEFAULT); /* a second table */
        }
    }
    systems_entity still = spawn(w, 0, true);
    systems_frozen_add(w, still); /* excluded */
    int user = 99;
    each_rows = each_batches = 0;
    systems_moving_each(w, count_rows, &user);
    assert_int_equal(each_rows, 6);
    assert_int_equal(each_batches, 2);
}

/* --- Destroying a world from inside itself --------------------------------- */

/* A world destroyed by its own system went on to be used by the step: a
 * use after free. It is a caller's bug, so an assert. */
static void test_world_destroy_inside_its_own_step_is_an_assert(void **state) {
    systems_world *w = *state;
    spawn(w, 0, true);
    seen.once_destroys_world = true;
    seen.mover_destroys_world = true;
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    seen.once_destroys_world = false;
    seen.mover_destroys_world = false;
    /* The world is whole: the step ran to its end. */
    assert_int_equal(systems_calls_res(w)->once_runs, 1);
    assert_int_equal(systems_calls_res(w)->mover_runs, 1);
    systems_world_stats_t stats;
    systems_world_stats(w, &stats);
    assert_int_equal(stats.entities, 1);
}

static void test_world_destroy_inside_an_iterator_is_an_assert(void **state) {
    systems_world *w = *state;
    spawn(w, 0, true);
    systems_moving_iter it = systems_moving_begin(w);
    while (systems_moving_next(&it)) {
        expect_assert_failure(systems_world_destroy(w));
    }
    assert_false(strata_is_deferred(systems_world_core(w)));
}

/* --- Clearing the world and visiting every entity -------------------------- */

/* Clear runs the hooks destroy runs: component hooks, system on_remove
 * with the aspect, once each; keeps resources and which systems run. */
static void test_world_clear_runs_the_destroy_hooks_and_keeps_the_rest(void **state) {
    systems_world *w = *state;
    systems_entity e[6];
    for (int i = 0; i < 6; i++) {
        e[i] = spawn(w, (float)i, i % 2 == 0);
        assert_int_equal(systems_texture_add(w, e[i], (systems_texture){(uint32_t)i}), STRATA_OK);
    }
    assert_int_equal(systems_glow_add(w, e[1]), STRATA_OK);
    systems_entity bare = systems_entity_create(w);
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    systems_healer_enable(w, false);
    systems_position_set(w, e[0], (systems_position){9, 9}); /* Render's changed set holds e[0] */
    assert_int_equal(systems_render_changed_count(w), 1);
    memset(&seen, 0, sizeof seen);
    systems_world_stats_t before, after;
    systems_world_stats(w, &before);
    systems_world_clear(w);
    systems_world_stats(w, &after);
    assert_int_equal(seen.texture_removed, 6);
    assert_int_equal(seen.glow_removed, 1);
    assert_int_equal(seen.mover_removed, 3);
    assert_true(seen.removed_distance == 1.0f); /* the aspect was there for its hook */
    assert_int_equal(after.entities, 0);
    assert_int_equal(after.pending, 0);
    assert_int_equal(after.tables, before.tables);
    assert_int_equal(after.bytes, before.bytes);
    assert_int_equal(systems_render_changed_count(w), 0);
    assert_int_equal(systems_mover_count(w), 0);
    for (int i = 0; i < 6; i++) {
        assert_false(systems_entity_alive(w, e[i]));
    }
    assert_false(systems_entity_alive(w, bare));
    assert_int_equal(systems_calls_res(w)->mover_runs, 1); /* resources kept */
    assert_false(systems_healer_enabled(w));
    /* The world goes on: new entities, their hooks, a step. */
    systems_entity again = spawn(w, 0, true);
    assert_int_equal(systems_entity_index(again), systems_entity_index(e[0]));
    assert_int_equal(systems_entity_generation(again), systems_entity_generation(e[0]) + 1);
    assert_int_equal(seen.mover_added, 1);
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    assert_int_equal(systems_calls_res(w)->mover_runs, 2);
}

/* What a hook creates or records while the world is cleared goes too. */
static void test_world_clear_leaves_no_entity_a_hook_made(void **state) {
    systems_world *w = *state;
    for (int i = 0; i < 3; i++) {
        systems_entity e = systems_entity_create(w);
        assert_int_equal(systems_texture_add(w, e, (systems_texture){7}), STRATA_OK);
    }
    seen.texture_remove_spawns = true;
    systems_world_clear(w);
    seen.texture_remove_spawns = false;
    assert_int_equal(seen.texture_removed, 3);
    systems_world_stats_t stats;
    systems_world_stats(w, &stats);
    assert_int_equal(stats.entities, 0);
    assert_int_equal(stats.pending, 0);
    assert_int_equal(seen.glow_added, 0);
}

static void test_world_clear_inside_its_own_step_is_an_assert(void **state) {
    systems_world *w = *state;
    systems_entity e = spawn(w, 0, true);
    seen.once_clears_world = true;
    assert_int_equal(systems_world_step(w, 1.0f), STRATA_OK);
    seen.once_clears_world = false;
    assert_true(systems_entity_alive(w, e));
}

/* What visit_entity saw. */
static struct {
    systems_entity seen[16];
    uint32_t count;
    int *user;
} visited;

static void visit_entity(systems_world *w, systems_entity e, void *user) {
    assert_true(systems_entity_alive(w, e));
    assert_true(visited.count < 16);
    visited.user = user;
    visited.seen[visited.count++] = e;
    assert_int_equal(systems_entity_destroy(w, e), STRATA_OK); /* deferred: still alive below */
    assert_true(systems_entity_alive(w, e));
}

/* Every live entity, with components or none, once; a typed callback. */
static void test_entity_each_visits_entities_with_no_component_too(void **state) {
    systems_world *w = *state;
    systems_entity bare = systems_entity_create(w);
    systems_entity moving = spawn(w, 1, true);
    systems_entity tagged = systems_entity_create(w);
    assert_int_equal(systems_glow_add(w, tagged), STRATA_OK);
    systems_entity gone = systems_entity_create(w);
    assert_int_equal(systems_entity_destroy(w, gone), STRATA_OK);
    int user = 5;
    memset(&visited, 0, sizeof visited);
    assert_int_equal(systems_entity_each(w, visit_entity, &user), STRATA_OK);
    assert_int_equal(visited.count, 3);
    assert_ptr_equal(visited.user, &user);
    systems_entity expect[] = {bare, moving, tagged};
    for (int i = 0; i < 3; i++) {
        bool found = false;
        for (uint32_t k = 0; k < visited.count; k++) {
            found = found || systems_entity_eq(visited.seen[k], expect[i]);
        }
        assert_true(found);
        assert_false(systems_entity_alive(w, expect[i])); /* the destroys applied at the end */
    }
}

/* cmocka's assert checking, through the runtime's assert handler. */
static void assert_to_cmocka(const char *condition, const char *file, int line, void *user) {
    (void)user;
    mock_assert(0, condition, file, line);
}

int main(void) {
    systems_assert_handler_set(assert_to_cmocka, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_aspect_made_at_defaults_and_kept_across_steps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_aspect_dropped_once_when_entity_loses_a_required_component, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_aspect_dropped_when_an_excluded_component_arrives, setup, teardown),
        cmocka_unit_test_setup_teardown(test_aspect_on_remove_runs_once_on_destroy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_aspect_survives_moves_between_matching_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disabled_system_does_not_run_and_keeps_its_aspects, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changed_system_sees_exactly_the_written_entities_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changed_write_terms_mark_the_rows_they_yield, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changed_skips_destroyed_and_no_longer_matching_entities, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changed_own_writes_are_not_changes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changed_free_query_has_its_own_set, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changed_break_keeps_what_was_not_visited, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changed_write_before_the_visit_counts_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_hooks_run_once_per_add_remove_and_destroy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_hooks_wait_for_deferred_changes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_hook_structural_change_is_applied_after_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_hooks_run_when_the_world_is_destroyed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_runs_hooks_remakes_aspects_and_marks_changed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_failed_late_runs_no_hook, setup, teardown),
        cmocka_unit_test_setup_teardown(test_each_calls_back_once_per_non_empty_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_destroy_inside_its_own_step_is_an_assert, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_destroy_inside_an_iterator_is_an_assert, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_clear_runs_the_destroy_hooks_and_keeps_the_rest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_clear_leaves_no_entity_a_hook_made, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_clear_inside_its_own_step_is_an_assert, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_each_visits_entities_with_no_component_too, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

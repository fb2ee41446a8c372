/* Tests of a generated world (tests/schema/core.yaml): the typed API over the
 * runtime, stale handles, deferral inside iterators, and the step. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_alloc.h"

#include "core.h"

/* --- The systems of the core world, steered by the test running ------------ */

enum { MAX_SEEN = 4096 };

static struct {
    bool damage_destroys;         /* Damage destroys entities whose health drops to 0 */
    bool cleanup_unmarks;         /* Cleanup removes Marked from what it visits */
    uint32_t late_seen[MAX_SEEN]; /* how often Late saw each entity index */
    uint32_t late_alive;          /* of those, how many were alive when seen */
} sys;

static void log_call(core_log *log, uint8_t id) {
    if (log->count < 16) {
        log->calls[log->count] = id;
    }
    log->count++;
}

void core_record_run(core_record_ctx *ctx) {
    assert_true(ctx->clock->time > 0.0);
    log_call(ctx->log, CORE_SYSTEM_RECORD);
}

void core_damage_run(core_damage_ctx *ctx) {
    log_call(ctx->log, CORE_SYSTEM_DAMAGE);
    while (core_damage_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->health[i].value -= 50;
            if (sys.damage_destroys && ctx->health[i].value <= 0) {
                assert_int_equal(core_entity_destroy(ctx->world, ctx->entities[i]), STRATA_OK);
                /* Still alive for the rest of the step. */
                assert_true(core_entity_alive(ctx->world, ctx->entities[i]));
            }
        }
    }
}

void core_move_run(core_move_ctx *ctx) {
    log_call(ctx->log, CORE_SYSTEM_MOVE);
    while (core_move_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->position[i].x += ctx->velocity[i].x * ctx->dt;
            ctx->position[i].y += ctx->velocity[i].y * ctx->dt;
        }
    }
}

void core_late_run(core_late_ctx *ctx) {
    log_call(ctx->log, CORE_SYSTEM_LATE);
    while (core_late_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            uint32_t index = (uint32_t)ctx->entities[i].id;
            if (index < MAX_SEEN) {
                sys.late_seen[index]++;
            }
            sys.late_alive += core_entity_alive(ctx->world, ctx->entities[i]);
        }
    }
}

void core_cleanup_run(core_cleanup_ctx *ctx) {
    log_call(ctx->log, CORE_SYSTEM_CLEANUP);
    while (core_cleanup_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            if (sys.cleanup_unmarks) {
                assert_int_equal(core_marked_remove(ctx->world, ctx->entities[i]), STRATA_OK);
                /* Applied when the system ends, not now. */
                assert_true(core_marked_has(ctx->world, ctx->entities[i]));
            }
        }
    }
}

/* --- Fixtures ------------------------------------------------------------ */

/* cmocka's allocators, so a leak fails the test. cmocka checks for leaks
 * before teardown, so a world using them is made and destroyed inside one
 * test; fixture worlds use libc (the sanitizer build checks those). */
static const strata_world_desc_t checked = {
    .allocator = {.alloc = test_alloc, .realloc = test_resize, .free = test_release},
    .initial_capacity = 16,
};

static int setup(void **state) {
    memset(&sys, 0, sizeof sys);
    core_world *w = core_world_create(&(strata_world_desc_t){.initial_capacity = 16});
    assert_non_null(w);
    *state = w;
    return 0;
}

static int teardown(void **state) {
    core_world_destroy(*state);
    return 0;
}

static core_entity spawn(core_world *w, float x, float y) {
    core_position p = {x, y};
    core_velocity v = CORE_VELOCITY_DEFAULT;
    core_entity e = core_entity_create_bundle(w, &(core_bundle){.position = &p, .velocity = &v});
    assert_false(core_entity_eq(e, CORE_ENTITY_NULL));
    return e;
}

static uint32_t alive_count(const core_world *w) {
    strata_world_stats_t stats;
    core_world_stats(w, &stats);
    return stats.entities;
}

/* --- Entities and components --------------------------------------------- */

static void test_entity_create_destroy_reuses_index(void **state) {
    core_world *w = *state;
    core_entity a = core_entity_create(w);
    assert_true(core_entity_alive(w, a));
    assert_int_equal(core_entity_destroy(w, a), STRATA_OK);
    assert_false(core_entity_alive(w, a));
    core_entity b = core_entity_create(w);
    /* Same index, new generation: the old handle stays dead. */
    assert_int_equal((uint32_t)a.id, (uint32_t)b.id);
    assert_int_not_equal(a.id, b.id);
    assert_false(core_entity_alive(w, a));
    assert_true(core_entity_alive(w, b));
    assert_false(core_entity_alive(w, CORE_ENTITY_NULL));
}

static void test_entity_stale_handle_fails_every_operation(void **state) {
    core_world *w = *state;
    core_entity stale = spawn(w, 1, 2);
    assert_int_equal(core_entity_destroy(w, stale), STRATA_OK);
    core_entity live = spawn(w, 3, 4); /* takes the stale handle's index */
    assert_int_equal((uint32_t)live.id, (uint32_t)stale.id);

    core_entity handles[] = {stale, CORE_ENTITY_NULL, {((uint64_t)7 << 32) | 12345u}};
    for (size_t i = 0; i < sizeof handles / sizeof handles[0]; i++) {
        core_entity e = handles[i];
        assert_int_equal(core_entity_destroy(w, e), STRATA_ERR_STALE);
        assert_false(core_entity_alive(w, e));
        assert_int_equal(core_position_add(w, e, (core_position){9, 9}), STRATA_ERR_STALE);
        assert_null(core_position_get(w, e));
        assert_null(core_position_mut(w, e));
        assert_int_equal(core_position_set(w, e, (core_position){9, 9}), STRATA_ERR_STALE);
        assert_false(core_position_has(w, e));
        assert_int_equal(core_position_remove(w, e), STRATA_ERR_STALE);
        assert_int_equal(core_frozen_add(w, e), STRATA_ERR_STALE);
        assert_false(core_frozen_has(w, e));
        assert_int_equal(core_frozen_remove(w, e), STRATA_ERR_STALE);
        const core_bundle b = {.frozen = true, .position = &(core_position){9, 9}};
        assert_int_equal(core_entity_add_bundle(w, e, &b), STRATA_ERR_STALE);
        assert_int_equal(core_entity_remove_bundle(w, e, &b), STRATA_ERR_STALE);
    }
    /* The live entity at the same index was never touched. */
    const core_position *p = core_position_get(w, live);
    assert_non_null(p);
    assert_true(p->x == 3.0f && p->y == 4.0f);
    assert_false(core_frozen_has(w, live));
    assert_int_equal(alive_count(w), 1);
}

static void test_component_add_get_set_remove(void **state) {
    core_world *w = *state;
    core_entity e = core_entity_create(w);
    assert_null(core_health_get(w, e));
    assert_int_equal(core_health_set(w, e, CORE_HEALTH_DEFAULT), STRATA_ERR_MISSING);
    assert_int_equal(core_health_remove(w, e), STRATA_ERR_MISSING);

    assert_int_equal(core_health_add(w, e, CORE_HEALTH_DEFAULT), STRATA_OK);
    const core_health *h = core_health_get(w, e);
    assert_non_null(h);
    assert_int_equal(h->value, 100);
    assert_int_equal(h->kind, CORE_KIND_LARGE);

    assert_int_equal(core_health_set(w, e, (core_health){.value = 7, .kind = CORE_KIND_SMALL}), STRATA_OK);
    assert_int_equal(core_health_get(w, e)->value, 7);
    core_health_mut(w, e)->value += 1;
    assert_int_equal(core_health_get(w, e)->value, 8);
    /* Adding again overwrites, no second copy. */
    assert_int_equal(core_health_add(w, e, (core_health){.value = 3}), STRATA_OK);
    assert_int_equal(core_health_get(w, e)->value, 3);

    assert_int_equal(core_health_remove(w, e), STRATA_OK);
    assert_false(core_health_has(w, e));
    assert_true(core_entity_alive(w, e));
}

static void test_component_defaults_and_entity_fields(void **state) {
    core_world *w = *state;
    core_velocity v = CORE_VELOCITY_DEFAULT;
    assert_true(v.x == 1.0f && v.y == -1.0f);
    core_entity a = core_entity_create(w), b = core_entity_create(w);
    assert_int_equal(core_link_add(w, a, (core_link){.to = b}), STRATA_OK);
    assert_true(core_entity_eq(core_link_get(w, a)->to, b));
    /* A bundle entry holding the defaults. */
    core_entity c = core_entity_create_bundle(w, &(core_bundle){.velocity = &CORE_VELOCITY_DEFAULT});
    assert_true(core_velocity_get(w, c)->y == -1.0f);
}

static void test_bundle_moves_once(void **state) {
    core_world *w = *state;
    strata_world_stats_t before, after;
    core_world_stats(w, &before);
    core_entity e = core_entity_create(w);
    core_position p = {1, 2};
    core_health h = CORE_HEALTH_DEFAULT;
    assert_int_equal(core_entity_add_bundle(w, e, &(core_bundle){.position = &p, .health = &h, .marked = true}),
                     STRATA_OK);
    core_world_stats(w, &after);
    /* One new archetype, no intermediate ones. */
    assert_int_equal(after.tables, before.tables + 1);
    assert_true(core_position_has(w, e) && core_health_has(w, e) && core_marked_has(w, e));
    assert_int_equal(core_entity_remove_bundle(w, e, &(core_bundle){.position = &p, .marked = true}), STRATA_OK);
    assert_false(core_position_has(w, e) || core_marked_has(w, e));
    assert_true(core_health_has(w, e));
    assert_int_equal(core_entity_remove_bundle(w, e, &(core_bundle){.marked = true}), STRATA_ERR_MISSING);
}

static void test_world_user_pointer_is_the_games_and_survives_a_load(void **state) {
    (void)state;
    int renderer = 1, other = 2;
    core_world *w = core_world_create(&(strata_world_desc_t){.user = &renderer});
    assert_non_null(w);
    assert_ptr_equal(core_world_user(w), &renderer);
    spawn(w, 1, 2);
    static unsigned char save[4096];
    size_t size = 0;
    assert_int_equal(core_world_save_mem(w, save, sizeof save, &size), STRATA_OK);
    core_world_set_user(w, &other);
    assert_int_equal(core_world_load_mem(w, save, size, NULL), STRATA_OK);
    assert_ptr_equal(core_world_user(w), &other); /* the game's, not the save's */
    core_world_destroy(w);
    core_world *plain = core_world_create(NULL);
    assert_null(core_world_user(plain));
    core_world_destroy(plain);
}

static void test_resources_start_at_defaults(void **state) {
    core_world *w = *state;
    assert_true(core_clock_res(w)->time == 0.5);
    assert_int_equal(core_log_res(w)->count, 0);
    core_clock_res(w)->time = 2.0;
    assert_true(core_clock_res(w)->time == 2.0);
}

/* --- Queries and deferral ---------------------------------------------- */

/* 4 archetypes: (P,V), (P,V,Marked), (P,V,Health), (P,V,Link). */
static void populate(core_world *w, core_entity *out, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        out[i] = spawn(w, (float)i, 0);
        switch (i % 4) {
        case 1: core_marked_add(w, out[i]); break;
        case 2: core_health_add(w, out[i], CORE_HEALTH_DEFAULT); break;
        case 3: core_link_add(w, out[i], (core_link){out[0]}); break;
        default: break;
        }
    }
}

static void test_query_count_and_terms(void **state) {
    core_world *w = *state;
    core_entity e[40];
    populate(w, e, 40);
    assert_int_equal(core_moving_count(w), 40);
    core_frozen_add(w, e[0]);
    assert_int_equal(core_moving_count(w), 39);
    /* optional terms: NULL / false where the table lacks them */
    core_entity lone = core_entity_create(w);
    core_health_add(w, lone, CORE_HEALTH_DEFAULT);
    uint32_t with_position = 0, without_position = 0, frozen = 0;
    for (core_vital_iter it = core_vital_begin(w); core_vital_next(&it);) {
        assert_non_null(it.health);
        if (it.position) {
            with_position += it.count;
        } else {
            without_position += it.count;
        }
        frozen += it.frozen ? it.count : 0;
    }
    assert_int_equal(with_position, 10);
    assert_int_equal(without_position, 1);
    assert_int_equal(frozen, 0);
}

static void test_iter_destroy_while_iterating_visits_each_once(void **state) {
    core_world *w = *state;
    enum { N = 1000 };
    static core_entity e[N];
    static uint8_t seen[N + 1];
    memset(seen, 0, sizeof seen);
    populate(w, e, N);
    uint32_t visits = 0;
    for (core_moving_iter it = core_moving_begin(w); core_moving_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++) {
            uint32_t k = (uint32_t)it.position[i].x;
            seen[k]++;
            visits++;
            if (k % 2 == 0) {
                assert_int_equal(core_entity_destroy(w, it.entities[i]), STRATA_OK);
                /* Deferred: the second destroy is refused, the entity lives on. */
                assert_int_equal(core_entity_destroy(w, it.entities[i]), STRATA_ERR_STALE);
                assert_true(core_entity_alive(w, it.entities[i]));
            }
        }
    }
    assert_int_equal(visits, N);
    for (uint32_t k = 0; k < N; k++) {
        assert_int_equal(seen[k], 1);
        assert_int_equal(core_entity_alive(w, e[k]), k % 2 == 1);
    }
    assert_int_equal(core_moving_count(w), N / 2);
}

static void test_iter_add_remove_while_iterating_visits_each_once(void **state) {
    core_world *w = *state;
    enum { N = 1000 };
    static core_entity e[N];
    static uint8_t seen[N];
    memset(seen, 0, sizeof seen);
    populate(w, e, N);
    uint32_t visits = 0;
    for (core_moving_iter it = core_moving_begin(w); core_moving_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++) {
            uint32_t k = (uint32_t)it.position[i].x;
            seen[k]++;
            visits++;
            core_entity x = it.entities[i];
            switch (k % 3) {
            case 0: /* leaves the query */
                assert_int_equal(core_frozen_add(w, x), STRATA_OK);
                assert_false(core_frozen_has(w, x));
                break;
            case 1: /* moves to another table that still matches */
                assert_int_equal(core_health_add(w, x, (core_health){.value = (int32_t)k}), STRATA_OK);
                break;
            default: /* loses a required component */
                assert_int_equal(core_velocity_remove(w, x), STRATA_OK);
                assert_true(core_velocity_has(w, x));
                break;
            }
        }
    }
    assert_int_equal(visits, N);
    for (uint32_t k = 0; k < N; k++) {
        assert_int_equal(seen[k], 1);
        assert_int_equal(core_frozen_has(w, e[k]), k % 3 == 0);
        assert_int_equal(core_velocity_has(w, e[k]), k % 3 != 2);
        if (k % 3 == 1) {
            assert_int_equal(core_health_get(w, e[k])->value, (int32_t)k);
        }
        /* Values survive the moves. */
        assert_true(core_position_get(w, e[k])->x == (float)k);
    }
    assert_int_equal(core_moving_count(w), (N + 1) / 3);
}

static void test_iter_end_after_break_applies_changes(void **state) {
    core_world *w = *state;
    core_entity e[8];
    populate(w, e, 8);
    core_moving_iter it = core_moving_begin(w);
    assert_true(core_moving_next(&it));
    core_entity victim = it.entities[0];
    assert_int_equal(core_entity_destroy(w, victim), STRATA_OK);
    assert_true(core_entity_alive(w, victim));
    assert_int_equal(core_moving_end(&it), STRATA_OK);
    assert_false(core_entity_alive(w, victim));
    assert_int_equal(core_moving_end(&it), STRATA_OK); /* idempotent */
    assert_int_equal(alive_count(w), 7);
}

static void test_iter_nested_applies_at_outermost_end(void **state) {
    core_world *w = *state;
    core_entity e[8];
    populate(w, e, 8);
    uint32_t outer = 0;
    for (core_positioned_iter a = core_positioned_begin(w); core_positioned_next(&a);) {
        for (uint32_t i = 0; i < a.count; i++, outer++) {
            uint32_t inner = 0;
            for (core_moving_iter b = core_moving_begin(w); core_moving_next(&b);) {
                inner += b.count;
            }
            assert_int_equal(inner, 8); /* nothing applied between inner loops */
            core_entity_destroy(w, a.entities[i]);
        }
    }
    assert_int_equal(outer, 8);
    assert_int_equal(alive_count(w), 0);
}

/* --- The step ---------------------------------------------------------- */

static void test_step_runs_systems_in_schedule_order(void **state) {
    core_world *w = *state;
    core_entity e = spawn(w, 0, 0);
    core_marked_add(w, e);
    assert_int_equal(core_world_step(w, 1.0f), STRATA_OK);
    const core_log *log = core_log_res(w);
    const uint8_t expected[] = {CORE_SYSTEM_RECORD, CORE_SYSTEM_DAMAGE, CORE_SYSTEM_LATE, CORE_SYSTEM_MOVE,
                                CORE_SYSTEM_CLEANUP};
    assert_int_equal(log->count, sizeof expected);
    assert_memory_equal(log->calls, expected, sizeof expected);
    /* The schedule: phase first, then before/after, then declaration. */
    assert_true(CORE_SYSTEM_LATE < CORE_SYSTEM_MOVE);
    const core_position *p = core_position_get(w, e);
    assert_true(p->x == 1.0f && p->y == -1.0f);
}

static void test_step_destroy_stays_visible_until_step_ends(void **state) {
    core_world *w = *state;
    sys.damage_destroys = true;
    core_entity doomed = spawn(w, 0, 0), survivor = spawn(w, 0, 0);
    core_health_add(w, doomed, (core_health){.value = 10});
    assert_int_equal(core_world_step(w, 1.0f), STRATA_OK);
    /* Damage (earlier) destroyed it; Late (later) still saw it, alive. */
    assert_int_equal(sys.late_seen[(uint32_t)doomed.id], 1);
    assert_int_equal(sys.late_seen[(uint32_t)survivor.id], 1);
    assert_int_equal(sys.late_alive, 2);
    assert_false(core_entity_alive(w, doomed));
    assert_true(core_entity_alive(w, survivor));
    assert_int_equal(alive_count(w), 1);
}

static void test_step_structural_changes_apply_when_system_ends(void **state) {
    core_world *w = *state;
    sys.cleanup_unmarks = true;
    core_entity e = spawn(w, 0, 0);
    core_marked_add(w, e);
    assert_int_equal(core_world_step(w, 1.0f), STRATA_OK);
    assert_false(core_marked_has(w, e));
}

static void test_step_disabled_system_does_not_run(void **state) {
    core_world *w = *state;
    core_entity e = spawn(w, 0, 0);
    assert_true(core_move_enabled(w));
    core_move_enable(w, false);
    assert_false(core_move_enabled(w));
    assert_int_equal(core_world_step(w, 1.0f), STRATA_OK);
    assert_true(core_position_get(w, e)->x == 0.0f);
    for (uint32_t i = 0; i < core_log_res(w)->count; i++) {
        assert_int_not_equal(core_log_res(w)->calls[i], CORE_SYSTEM_MOVE);
    }
    core_move_enable(w, true);
    assert_int_equal(core_world_step(w, 1.0f), STRATA_OK);
    assert_true(core_position_get(w, e)->x == 1.0f);
}

/* --- Memory ------------------------------------------------------------ */

static void test_world_frees_everything_it_allocates(void **state) {
    (void)state;
    core_world *w = core_world_create(&checked);
    assert_non_null(w);
    enum { N = 300 };
    core_entity e[N];
    populate(w, e, N);
    sys.damage_destroys = true;
    for (int step = 0; step < 3; step++) {
        assert_int_equal(core_world_step(w, 0.5f), STRATA_OK);
    }
    for (uint32_t i = 0; i < N; i += 3) {
        core_entity_destroy(w, e[i]);
    }
    core_world_destroy(w); /* cmocka fails the test if a block is left */
}

static void test_world_create_out_of_memory_returns_null(void **state) {
    (void)state;
    const strata_world_desc_t desc = {
        .allocator = {.alloc = failing_alloc, .realloc = failing_resize, .free = test_release}};
    int made = 0;
    for (int n = 0; n < 64 && !made; n++) {
        budget = n;
        core_world *w = core_world_create(&desc);
        if (w) {
            made = 1;
            core_world_destroy(w);
        }
    }
    assert_true(made); /* and every failed attempt freed what it took */
}

static void test_bundle_out_of_memory_leaves_entity_as_it_was(void **state) {
    (void)state;
    const strata_world_desc_t desc = {
        .allocator = {.alloc = failing_alloc, .realloc = failing_resize, .free = test_release}};
    budget = 1 << 20;
    core_world *w = core_world_create(&desc);
    assert_non_null(w);
    core_entity e = spawn(w, 5, 6);
    budget = 0; /* the new archetype cannot be made */
    core_health h = CORE_HEALTH_DEFAULT;
    assert_int_equal(core_entity_add_bundle(w, e, &(core_bundle){.health = &h, .marked = true}), STRATA_ERR_NOMEM);
    assert_false(core_health_has(w, e) || core_marked_has(w, e));
    assert_true(core_position_get(w, e)->x == 5.0f);
    assert_int_equal(core_moving_count(w), 1);
    budget = 1 << 20;
    assert_int_equal(core_entity_add_bundle(w, e, &(core_bundle){.health = &h, .marked = true}), STRATA_OK);
    assert_true(core_health_has(w, e) && core_marked_has(w, e));
    core_world_destroy(w);
}

/* --- The assert handler ------------------------------------------------------ */

/* What the handler below was told, and where it jumps back to. */
static struct {
    const char *condition, *file;
    int line;
    void *user;
    jmp_buf back;
} failed;

static void record_assert(const char *condition, const char *file, int line, void *user) {
    failed.condition = condition;
    failed.file = file;
    failed.line = line;
    failed.user = user;
    longjmp(failed.back, 1);
}

/* A game routes the runtime's asserts (libstrata-debug has them) to its own handler. */
static void test_assert_handler_gets_condition_file_line_and_user(void **state) {
    (void)state;
    void *old_user = NULL;
    strata_assert_handler_t old = strata_assert_handler(&old_user);
    int user = 7;
    strata_assert_handler_set(record_assert, &user);
    void *got_user = NULL;
    assert_true(strata_assert_handler(&got_user) == record_assert);
    assert_ptr_equal(got_user, &user);
    memset(&failed, 0, sizeof failed);
    strata_world_stats_t stats;
    if (setjmp(failed.back) == 0) {
        core_world_stats(NULL, &stats);
        strata_assert_handler_set(old, old_user);
        fail_msg("a NULL world did not trip the assert");
    }
    strata_assert_handler_set(old, old_user);
    assert_string_equal(failed.condition, "w != NULL");
    assert_non_null(strstr(failed.file, "world.c"));
    assert_true(failed.line > 0);
    assert_ptr_equal(failed.user, &user);
}

/* With no handler set, a failed assert prints file:line and the condition,
 * then aborts (the child process shows it). */
static void test_assert_default_handler_prints_and_aborts(void **state) {
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        dup2(fds[1], 2);
        strata_assert_handler_set(NULL, NULL);
        strata_world_stats_t stats;
        core_world_stats(NULL, &stats);
        _exit(0);
    }
    close(fds[1]);
    char text[512] = "";
    size_t used = 0;
    ssize_t n;
    while (used < sizeof text - 1 && (n = read(fds[0], text + used, sizeof text - 1 - used)) > 0) {
        used += (size_t)n;
    }
    text[used] = '\0';
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    assert_non_null(strstr(text, "world.c:"));
    assert_non_null(strstr(text, "Strata assertion failed: w != NULL"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_entity_create_destroy_reuses_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entity_stale_handle_fails_every_operation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_add_get_set_remove, setup, teardown),
        cmocka_unit_test_setup_teardown(test_component_defaults_and_entity_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bundle_moves_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resources_start_at_defaults, setup, teardown),
        cmocka_unit_test(test_world_user_pointer_is_the_games_and_survives_a_load),
        cmocka_unit_test_setup_teardown(test_query_count_and_terms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_iter_destroy_while_iterating_visits_each_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_iter_add_remove_while_iterating_visits_each_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_iter_end_after_break_applies_changes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_iter_nested_applies_at_outermost_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step_runs_systems_in_schedule_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step_destroy_stays_visible_until_step_ends, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step_structural_changes_apply_when_system_ends, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step_disabled_system_does_not_run, setup, teardown),
        cmocka_unit_test(test_world_frees_everything_it_allocates),
        cmocka_unit_test(test_world_create_out_of_memory_returns_null),
        cmocka_unit_test(test_bundle_out_of_memory_leaves_entity_as_it_was),
        cmocka_unit_test(test_assert_handler_gets_condition_file_line_and_user),
        cmocka_unit_test(test_assert_default_handler_prints_and_aborts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

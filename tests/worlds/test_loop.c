/* Tests of the game loop (tests/schema/loop.yaml, docs/systems.md "The
 * loop"): fixed-rate phases and their accumulator, intervals and counts
 * at exact steps, run conditions that flip within a step, state machines
 * and the order of their transitions, and saves taken mid-accumulator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "loop.h"

/* --- What the systems did ---------------------------------------------------- */

enum { MAX_LOG = 4096 };

/* Each run, in order: its system id, the state Mode was in, and the dt it saw. */
static struct {
    uint32_t id[MAX_LOG];
    loop_mode mode[MAX_LOG];
    float dt[MAX_LOG];
    uint32_t n;
} seen;

/* What the test asks of the systems. */
static struct {
    bool flip_ai;           /* Input flips Settings.ai each step */
    int ask;                /* Asker asks Mode for this state (-1: nothing) */
    int ask_in_physics_run; /* Physics asks Mode for `ask` at this run of the step (0: never) */
    uint32_t physics_runs;  /* runs of Physics in the current step */
    bool destroy_one;       /* Physics destroys the first entity it moves, each run */
    uint32_t rows[8];       /* the entities Physics moved in each run of the step */
} plan;

static void logged(loop_world *w, uint32_t id, float dt) {
    if (seen.n < MAX_LOG) {
        seen.id[seen.n] = id;
        seen.mode[seen.n] = loop_mode_get(w);
        seen.dt[seen.n] = dt;
        seen.n++;
    }
}

/* How many times system id ran since the log was cleared. */
static uint32_t runs_of(uint32_t id) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < seen.n; i++) {
        n += seen.id[i] == id;
    }
    return n;
}

/* Where system id first ran in the log (UINT32_MAX: never). */
static uint32_t first_of(uint32_t id) {
    for (uint32_t i = 0; i < seen.n; i++) {
        if (seen.id[i] == id) {
            return i;
        }
    }
    return UINT32_MAX;
}

static void forget(void) {
    memset(&seen, 0, sizeof seen);
}

void loop_input_run(loop_input_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_INPUT, ctx->dt);
    plan.physics_runs = 0;
    if (plan.flip_ai) {
        ctx->settings->ai = !ctx->settings->ai;
    }
}

void loop_physics_run(loop_physics_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_PHYSICS, ctx->dt);
    ctx->tally->physics++;
    plan.physics_runs++;
    uint32_t rows = 0;
    while (loop_physics_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->position[i].x += ctx->velocity[i].x * ctx->dt;
        }
        if (plan.destroy_one && rows == 0 && ctx->count > 0) {
            (void)loop_entity_destroy(ctx->world, ctx->entities[0]);
        }
        rows += ctx->count;
    }
    if (plan.physics_runs <= 8) {
        plan.rows[plan.physics_runs - 1] = rows;
    }
    (void)loop_bump_emit(ctx, &(loop_bump){.run = plan.physics_runs});
    if (plan.ask_in_physics_run != 0 && (int)plan.physics_runs == plan.ask_in_physics_run) {
        (void)loop_mode_set(ctx->world, (loop_mode)plan.ask);
    }
}

void loop_tick_run(loop_tick_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_TICK, ctx->dt);
    (void)loop_bump_emit(ctx, &(loop_bump){.run = 100 + plan.physics_runs});
}

void loop_timer_run(loop_timer_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_TIMER, ctx->dt);
}

void loop_playing_run(loop_playing_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_PLAYING, ctx->dt);
}

void loop_spawn_run(loop_spawn_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_SPAWN, ctx->dt);
}

void loop_blink_run(loop_blink_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_BLINK, ctx->dt);
}

void loop_ai_run(loop_ai_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_AI, ctx->dt);
}

void loop_quiet_run(loop_quiet_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_QUIET, ctx->dt);
}

static uint32_t bumps_heard;
static uint32_t bump_runs_heard[64];

void loop_hear_run(loop_hear_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_HEAR, ctx->dt);
    for (uint32_t i = 0; i < ctx->bump_count && bumps_heard < 64; i++) {
        bump_runs_heard[bumps_heard++] = ctx->bump_events[i].run;
    }
}

void loop_asker_run(loop_asker_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_ASKER, ctx->dt);
    if (plan.ask >= 0 && plan.ask_in_physics_run == 0) {
        (void)loop_mode_set(ctx->world, (loop_mode)plan.ask);
    }
}

void loop_slow_run(loop_slow_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_SLOW, ctx->dt);
    ctx->tally->slow++;
}

void loop_draw_run(loop_draw_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_DRAW, ctx->dt);
    ctx->tally->steps++;
}

void loop_title_run(loop_title_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_TITLE, ctx->dt);
}

void loop_leave_title_run(loop_leave_title_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_LEAVE_TITLE, ctx->dt);
}

void loop_enter_run(loop_enter_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_ENTER, ctx->dt);
}

void loop_enter_any_run(loop_enter_any_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_ENTER_ANY, ctx->dt);
}

void loop_cleanup_run(loop_cleanup_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_CLEANUP, ctx->dt);
}

void loop_loud_run(loop_loud_ctx *ctx) {
    logged(ctx->world, LOOP_SYSTEM_LOUD, ctx->dt);
}

/* --- Fixtures ----------------------------------------------------------------- */

static int setup(void **state) {
    forget();
    memset(&plan, 0, sizeof plan);
    plan.ask = -1;
    bumps_heard = 0;
    loop_world *w = loop_world_create(NULL);
    assert_non_null(w);
    loop_entity e = loop_entity_create_bundle(w, &(loop_bundle){.position = &(loop_position){0, 0},
                                                                .velocity = &(loop_velocity){1, 0}});
    assert_false(loop_entity_eq(e, LOOP_ENTITY_NULL));
    *state = w;
    return 0;
}

static int teardown(void **state) {
    loop_world_destroy(*state);
    return 0;
}

#define NS_PER_S UINT64_C(1000000000)
/* A frame of a 60 Hz display as a clock measures it, rounded up to the nanosecond:
 * one run of a 60 Hz phase (and 20 ns more). 1/60 s rounded down is 20 ns short of one. */
#define FRAME_60 (NS_PER_S / 60 + 1)

/* Step w `n` times by `ns` nanoseconds each. */
static void steps_ns(loop_world *w, uint32_t n, uint64_t ns) {
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(loop_world_step_ns(w, ns), STRATA_OK);
    }
}

/* The world's binary save in a fresh buffer (caller frees). */
static unsigned char *save_of(const loop_world *w, size_t *size) {
    assert_int_equal(loop_world_save_mem(w, NULL, 0, size), STRATA_ERR_LIMIT);
    unsigned char *buf = malloc(*size);
    assert_non_null(buf);
    assert_int_equal(loop_world_save_mem(w, buf, *size, size), STRATA_OK);
    return buf;
}

/* The world's JSON dump, NUL-terminated (caller frees). */
static char *json_of(const loop_world *w) {
    size_t size = 0;
    assert_int_equal(loop_world_dump_json_mem(w, NULL, 0, &size), STRATA_ERR_LIMIT);
    char *text = malloc(size + 1);
    assert_non_null(text);
    assert_int_equal(loop_world_dump_json_mem(w, text, size, &size), STRATA_OK);
    text[size] = '\0';
    return text;
}

/* True if two worlds save to the same bytes. */
static bool same_saves(const loop_world *a, const loop_world *b) {
    size_t na = 0, nb = 0;
    unsigned char *sa = save_of(a, &na), *sb = save_of(b, &nb);
    bool same = na == nb && memcmp(sa, sb, na) == 0;
    free(sa);
    free(sb);
    return same;
}

/* --- States and transitions ---------------------------------------------------- */

static void test_loop_initial_state_is_entered_at_the_start_of_the_first_step(void **state) {
    loop_world *w = *state;
    assert_int_equal(loop_mode_get(w), LOOP_MODE_TITLE);
    const loop_mode_state *mode = loop_mode_state_res(w);
    assert_true(mode->pending);
    assert_false(mode->entered);
    steps_ns(w, 1, NS_PER_S / 60);
    assert_int_equal(first_of(LOOP_SYSTEM_TITLE), 0); /* before any phase's system */
    assert_int_equal(runs_of(LOOP_SYSTEM_TITLE), 1);
    assert_int_equal(runs_of(LOOP_SYSTEM_LEAVE_TITLE), 0); /* nothing was left */
    assert_int_equal(runs_of(LOOP_SYSTEM_LOUD), 0);        /* Music entered quiet: no system of its */
    assert_true(mode->entered);
    assert_false(mode->pending);
    steps_ns(w, 3, NS_PER_S / 60);
    assert_int_equal(runs_of(LOOP_SYSTEM_TITLE), 1);
}

static void test_loop_transition_runs_exit_then_enter_in_schedule_order(void **state) {
    loop_world *w = *state;
    steps_ns(w, 1, NS_PER_S / 60);
    forget();
    assert_int_equal(loop_mode_set(w, LOOP_MODE_PLAYING), STRATA_OK);
    assert_int_equal(loop_mode_get(w), LOOP_MODE_TITLE); /* applied at the next transition point */
    steps_ns(w, 1, NS_PER_S / 60);
    /* At the start of the step: on_exit of title (in title), then on_enter of playing (in
     * playing), EnterAny before Enter (after: [EnterAny]); then the phases. */
    assert_true(seen.n >= 3);
    assert_int_equal(seen.id[0], LOOP_SYSTEM_LEAVE_TITLE);
    assert_int_equal(seen.mode[0], LOOP_MODE_TITLE);
    assert_int_equal(seen.id[1], LOOP_SYSTEM_ENTER_ANY);
    assert_int_equal(seen.mode[1], LOOP_MODE_PLAYING);
    assert_int_equal(seen.id[2], LOOP_SYSTEM_ENTER);
    assert_int_equal(seen.id[3], LOOP_SYSTEM_INPUT);
    /* Leaving playing for paused: Cleanup (on_exit playing), then EnterAny (paused), not Enter. */
    forget();
    assert_int_equal(loop_mode_set(w, LOOP_MODE_PAUSED), STRATA_OK);
    steps_ns(w, 1, NS_PER_S / 60);
    assert_int_equal(seen.id[0], LOOP_SYSTEM_CLEANUP);
    assert_int_equal(seen.mode[0], LOOP_MODE_PLAYING);
    assert_int_equal(seen.id[1], LOOP_SYSTEM_ENTER_ANY);
    assert_int_equal(seen.mode[1], LOOP_MODE_PAUSED);
    assert_int_equal(runs_of(LOOP_SYSTEM_ENTER), 0);
}

static void test_loop_last_request_before_the_point_wins(void **state) {
    loop_world *w = *state;
    steps_ns(w, 1, NS_PER_S / 60);
    forget();
    assert_int_equal(loop_mode_set(w, LOOP_MODE_PAUSED), STRATA_OK);
    assert_int_equal(loop_mode_set(w, LOOP_MODE_OVER), STRATA_OK);
    steps_ns(w, 1, NS_PER_S / 60);
    assert_int_equal(loop_mode_get(w), LOOP_MODE_OVER);
    assert_int_equal(runs_of(LOOP_SYSTEM_ENTER_ANY), 0); /* paused was never entered */
    assert_int_equal(runs_of(LOOP_SYSTEM_LEAVE_TITLE), 1);
}

static void test_loop_asking_for_the_current_state_re_enters_it(void **state) {
    loop_world *w = *state;
    assert_int_equal(loop_mode_set(w, LOOP_MODE_PLAYING), STRATA_OK);
    steps_ns(w, 1, NS_PER_S / 60);
    forget();
    assert_int_equal(loop_mode_set(w, LOOP_MODE_PLAYING), STRATA_OK);
    steps_ns(w, 1, NS_PER_S / 60);
    assert_int_equal(seen.id[0], LOOP_SYSTEM_CLEANUP);
    assert_int_equal(seen.id[1], LOOP_SYSTEM_ENTER_ANY);
    assert_int_equal(seen.id[2], LOOP_SYSTEM_ENTER);
}

static void test_loop_a_request_in_a_system_applies_at_the_end_of_the_step(void **state) {
    loop_world *w = *state;
    steps_ns(w, 1, NS_PER_S / 60);
    forget();
    plan.ask = LOOP_MODE_PLAYING;
    steps_ns(w, 1, NS_PER_S / 60);
    /* Asker (update) asked: the systems after it still ran in title; the
     * transition's systems ran after every phase, then the step ended. */
    uint32_t asker = first_of(LOOP_SYSTEM_ASKER), draw = first_of(LOOP_SYSTEM_DRAW);
    assert_true(asker < draw);
    assert_int_equal(seen.mode[draw], LOOP_MODE_TITLE);
    assert_true(first_of(LOOP_SYSTEM_LEAVE_TITLE) > draw);
    assert_int_equal(seen.id[seen.n - 1], LOOP_SYSTEM_ENTER);
    assert_int_equal(loop_mode_get(w), LOOP_MODE_PLAYING);
    plan.ask = -1;
    forget();
    steps_ns(w, 1, NS_PER_S / 60);
    assert_int_equal(runs_of(LOOP_SYSTEM_PLAYING), 1);
    assert_int_equal(runs_of(LOOP_SYSTEM_ENTER), 0);
}

static void test_loop_a_request_in_a_fixed_run_applies_after_that_run(void **state) {
    loop_world *w = *state;
    steps_ns(w, 1, NS_PER_S / 60);
    forget();
    plan.ask = LOOP_MODE_PLAYING;
    plan.ask_in_physics_run = 1;
    steps_ns(w, 1, 3 * NS_PER_S / 60); /* three physics runs */
    assert_int_equal(runs_of(LOOP_SYSTEM_PHYSICS), 3);
    /* Run 1 in title, then the transition, then runs 2 and 3 in playing. */
    assert_int_equal(runs_of(LOOP_SYSTEM_PLAYING), 2);
    uint32_t left = first_of(LOOP_SYSTEM_LEAVE_TITLE);
    uint32_t second = UINT32_MAX;
    for (uint32_t i = 0, k = 0; i < seen.n; i++) {
        if (seen.id[i] == LOOP_SYSTEM_PHYSICS && ++k == 2) {
            second = i;
        }
    }
    assert_true(first_of(LOOP_SYSTEM_PHYSICS) < left && left < second);
    assert_float_equal(seen.dt[left], 1.0f / 60.0f, 1e-9); /* a fixed run's point: its dt */
}

static void test_loop_set_refuses_a_state_of_no_machine(void **state) {
    loop_world *w = *state;
    assert_int_equal(loop_mode_set(w, (loop_mode)4), STRATA_ERR_MISSING);
    assert_int_equal(strata_state_set(loop_world_core(w), 2, 0), STRATA_ERR_MISSING);
    assert_int_equal(strata_state_get(loop_world_core(w), 2), UINT32_MAX);
    assert_int_equal(loop_music_set(w, LOOP_MUSIC_LOUD), STRATA_OK);
    steps_ns(w, 1, NS_PER_S / 60);
    assert_int_equal(runs_of(LOOP_SYSTEM_LOUD), 1);
    assert_int_equal(loop_mode_get(w), LOOP_MODE_TITLE);
}

static void test_loop_a_transition_system_switched_off_does_not_run(void **state) {
    loop_world *w = *state;
    loop_title_enable(w, false);
    steps_ns(w, 1, NS_PER_S / 60);
    assert_int_equal(runs_of(LOOP_SYSTEM_TITLE), 0);
    assert_true(loop_mode_state_res(w)->entered); /* the state was entered all the same */
    /* Cleanup has run_if Settings.ai: off, it stays out of the transition. */
    loop_settings_res(w)->ai = false;
    assert_int_equal(loop_mode_set(w, LOOP_MODE_PLAYING), STRATA_OK);
    steps_ns(w, 1, NS_PER_S / 60);
    assert_int_equal(loop_mode_set(w, LOOP_MODE_OVER), STRATA_OK);
    steps_ns(w, 1, NS_PER_S / 60);
    assert_int_equal(runs_of(LOOP_SYSTEM_CLEANUP), 0);
}

/* --- Fixed phases ------------------------------------------------------------------ */

static void test_loop_fixed_phase_runs_at_its_rate_with_its_dt(void **state) {
    loop_world *w = *state;
    steps_ns(w, 1, 2 * FRAME_60); /* 1/30 s: two runs */
    assert_int_equal(runs_of(LOOP_SYSTEM_PHYSICS), 2);
    assert_int_equal(loop_physics_runs(w), 2);
    assert_float_equal(seen.dt[first_of(LOOP_SYSTEM_PHYSICS)], 1.0f / 60.0f, 0.0);
    assert_float_equal(seen.dt[first_of(LOOP_SYSTEM_INPUT)], 1.0f / 30.0f, 1e-9);
    forget();
    steps_ns(w, 1, NS_PER_S / 120); /* half a period: none, half left */
    assert_int_equal(runs_of(LOOP_SYSTEM_PHYSICS), 0);
    assert_int_equal(loop_physics_runs(w), 0);
    assert_float_equal(loop_physics_fraction(w), 0.5f, 1e-6);
    steps_ns(w, 1, NS_PER_S / 120 + 1); /* the other half, as a clock's next reading gives it */
    assert_int_equal(runs_of(LOOP_SYSTEM_PHYSICS), 1);
    assert_float_equal(loop_physics_fraction(w), 0.0f, 1e-6);
    /* An ordinary phase: one run a step, no fraction. */
    assert_int_equal(strata_phase_runs(loop_world_core(w), 2), 1);
    assert_true(strata_phase_fraction(loop_world_core(w), 2) == 0.0);
    assert_int_equal(strata_phase_runs(loop_world_core(w), 5), 0);
}

static void test_loop_fixed_phase_keeps_exact_time_over_steps_of_any_length(void **state) {
    loop_world *w = *state;
    /* 1/7 s a run: 7 runs in a second, whatever the steps. */
    steps_ns(w, 1000, NS_PER_S / 1000);
    assert_int_equal(loop_tally_res(w)->slow, 7);
    assert_int_equal(loop_tally_res(w)->physics, 60);
    assert_true(loop_slow_fraction(w) == 0.0f);
}

/* xorshift64: the test's own random numbers, seeded. */
static uint64_t rnd(uint64_t *s) {
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static void test_loop_accumulator_is_exact_under_random_frame_splits(void **state) {
    loop_world *w = *state;
    /* The same 10 s in 600 steps of 1/60 s (the times of a clock: rounded at each
     * frame, summing to the total) and cut at random points in a second world. */
    const uint64_t total = 10 * NS_PER_S;
    uint64_t at = 0;
    loop_blink_enable(w, false); /* Blink counts steps, which differ */
    for (uint32_t i = 1; i <= 600; i++) {
        uint64_t next = total * i / 600;
        steps_ns(w, 1, next - at);
        at = next;
    }
    for (uint64_t seed = 1; seed <= 5; seed++) {
        loop_world *other = loop_world_create(NULL);
        assert_non_null(other);
        loop_entity e = loop_entity_create_bundle(other, &(loop_bundle){.position = &(loop_position){0, 0},
                                                                        .velocity = &(loop_velocity){1, 0}});
        assert_false(loop_entity_eq(e, LOOP_ENTITY_NULL));
        loop_blink_enable(other, false);
        uint64_t left = total, s = seed * 0x9E3779B97F4A7C15u;
        uint32_t steps = 0;
        while (left > 0) {
            uint64_t cut = 1 + rnd(&s) % (NS_PER_S / 20); /* up to 1/20 s: within the cap */
            cut = cut > left ? left : cut;
            steps_ns(other, 1, cut);
            left -= cut;
            steps++;
        }
        assert_true(steps > 200);
        assert_int_equal(loop_tally_res(other)->physics, 600);
        assert_int_equal(loop_tally_res(other)->slow, 70);
        assert_true(loop_physics_fraction(other) == loop_physics_fraction(w));
        /* The fixed phases' state is the same; the steps' count (Tally.steps) differs. */
        loop_tally_res(other)->steps = loop_tally_res(w)->steps;
        assert_true(same_saves(w, other));
        loop_world_destroy(other);
    }
}

static void test_loop_cap_drops_whole_periods_and_keeps_the_fraction(void **state) {
    loop_world *w = *state;
    steps_ns(w, 1, NS_PER_S + NS_PER_S / 240); /* 60.25 periods: capped at 8 runs */
    assert_int_equal(loop_physics_runs(w), 8);
    assert_float_equal(loop_physics_fraction(w), 0.25f, 1e-6);
    assert_int_equal(loop_slow_runs(w), 2); /* slow: 7.0175 periods, cap 2 (a quarter of a second's) */
    steps_ns(w, 1, 0);
    assert_int_equal(loop_physics_runs(w), 0);
    /* A float step far past the cap, or a negative one or NaN, runs the cap or nothing. */
    assert_int_equal(loop_world_step(w, 1e30f), STRATA_OK);
    assert_int_equal(loop_physics_runs(w), 8);
    assert_int_equal(loop_world_step(w, -1.0f), STRATA_OK);
    assert_int_equal(loop_physics_runs(w), 0);
}

static void test_loop_fixed_phase_emits_each_run_and_a_later_receiver_hears_each_once(void **state) {
    loop_world *w = *state;
    steps_ns(w, 1, 6 * FRAME_60);
    /* Two emitters in the fixed phase, runs interleaved: every event once, in the order emitted. */
    const uint32_t order[8] = {1, 2, 3, 103, 4, 5, 6, 106};
    assert_int_equal(bumps_heard, 8);
    assert_memory_equal(bump_runs_heard, order, sizeof order);
    steps_ns(w, 1, NS_PER_S / 120); /* no run: nothing new */
    assert_int_equal(bumps_heard, 8);
    steps_ns(w, 1, NS_PER_S / 120 + 1);
    assert_int_equal(bumps_heard, 9);
}

/* A fixed run ends as a step does: the entities it destroyed are gone for
 * the next run, whether that run is in the same step or the next. */
static void test_loop_a_fixed_run_applies_its_destroys_at_its_end(void **state) {
    loop_world *w = *state;
    for (uint32_t i = 0; i < 5; i++) { /* six entities, the fixture's first */
        loop_bundle b = {.position = &(loop_position){0, 0}, .velocity = &(loop_velocity){1, 0}};
        assert_false(loop_entity_eq(loop_entity_create_bundle(w, &b), LOOP_ENTITY_NULL));
    }
    plan.destroy_one = true;
    steps_ns(w, 1, 3 * FRAME_60); /* three runs in one step */
    assert_int_equal(plan.rows[0], 6);
    assert_int_equal(plan.rows[1], 5);
    assert_int_equal(plan.rows[2], 4);
    steps_ns(w, 1, FRAME_60); /* one run in the next */
    assert_int_equal(plan.rows[0], 3);
    loop_world_stats_t st;
    loop_world_stats(w, &st);
    assert_int_equal(st.entities, 2);
}

/* --- Intervals, counts and conditions ---------------------------------------------- */

static void test_loop_every_runs_at_exact_steps_and_fixed_runs(void **state) {
    loop_world *w = *state;
    for (uint32_t step = 1; step <= 30; step++) {
        forget();
        steps_ns(w, 1, FRAME_60);
        assert_int_equal(runs_of(LOOP_SYSTEM_BLINK), step % 10 == 0);
        /* Tick: every third run of physics (one run a step here). */
        assert_int_equal(runs_of(LOOP_SYSTEM_TICK), step % 3 == 0);
        /* Timer: every 0.1 s of physics' time, six runs. */
        assert_int_equal(runs_of(LOOP_SYSTEM_TIMER), step % 6 == 0);
    }
    /* Two runs a step: Tick counts runs, not steps. */
    forget();
    steps_ns(w, 3, 2 * FRAME_60);
    assert_int_equal(runs_of(LOOP_SYSTEM_TICK), 2);
}

static void test_loop_interval_counts_only_while_its_state_holds(void **state) {
    loop_world *w = *state;
    assert_int_equal(loop_mode_set(w, LOOP_MODE_PLAYING), STRATA_OK);
    uint32_t ran_at[8], k = 0;
    for (uint32_t step = 1; step <= 30; step++) {
        if (step == 8) { /* paused from step 8 to 12: its time does not count */
            assert_int_equal(loop_mode_set(w, LOOP_MODE_PAUSED), STRATA_OK);
        }
        if (step == 13) {
            assert_int_equal(loop_mode_set(w, LOOP_MODE_PLAYING), STRATA_OK);
        }
        forget();
        steps_ns(w, 1, NS_PER_S / 10);
        if (runs_of(LOOP_SYSTEM_SPAWN) == 1 && k < 8) {
            ran_at[k++] = step;
        }
    }
    /* Every 0.5 s playing: steps 5 and (7 playing steps, 5 paused, then 3 more) 15, 20, 25, 30. */
    assert_int_equal(k, 5);
    assert_int_equal(ran_at[0], 5);
    assert_int_equal(ran_at[1], 15);
    assert_int_equal(ran_at[2], 20);
    assert_int_equal(ran_at[4], 30);
}

static void test_loop_interval_runs_once_a_step_and_drops_what_it_missed(void **state) {
    loop_world *w = *state;
    assert_int_equal(loop_mode_set(w, LOOP_MODE_PLAYING), STRATA_OK);
    steps_ns(w, 1, 2 * NS_PER_S + NS_PER_S / 5); /* 2.2 s: once, then 0.2 s toward the next */
    assert_int_equal(runs_of(LOOP_SYSTEM_SPAWN), 1);
    forget();
    steps_ns(w, 1, 3 * NS_PER_S / 10); /* 0.5 s since the last multiple */
    assert_int_equal(runs_of(LOOP_SYSTEM_SPAWN), 1);
    forget();
    steps_ns(w, 4, NS_PER_S / 10); /* the 1.5 s missed in the long step are not run now */
    assert_int_equal(runs_of(LOOP_SYSTEM_SPAWN), 0);
    steps_ns(w, 1, NS_PER_S / 10);
    assert_int_equal(runs_of(LOOP_SYSTEM_SPAWN), 1);
}

static void test_loop_condition_flipped_earlier_in_the_step_counts_in_that_step(void **state) {
    loop_world *w = *state;
    plan.flip_ai = true; /* Input (phase input) flips Settings.ai before Ai (update) runs */
    steps_ns(w, 1, NS_PER_S / 60);
    assert_false(loop_settings_res(w)->ai);
    assert_int_equal(runs_of(LOOP_SYSTEM_AI), 0);
    steps_ns(w, 1, NS_PER_S / 60);
    assert_true(loop_settings_res(w)->ai);
    assert_int_equal(runs_of(LOOP_SYSTEM_AI), 1);
    assert_true(loop_ai_enabled(w)); /* the switch is the game's, the gate the condition's */
}

static void test_loop_not_condition_and_two_machines(void **state) {
    loop_world *w = *state;
    steps_ns(w, 1, NS_PER_S / 60);
    assert_int_equal(runs_of(LOOP_SYSTEM_QUIET), 0); /* title: not playing or paused */
    assert_false(strata_system_gate_open(loop_world_core(w), LOOP_SYSTEM_QUIET));
    assert_int_equal(loop_mode_set(w, LOOP_MODE_PAUSED), STRATA_OK);
    forget();
    steps_ns(w, 1, NS_PER_S / 60);
    assert_int_equal(runs_of(LOOP_SYSTEM_QUIET), 1);
    assert_true(strata_system_gate_open(loop_world_core(w), LOOP_SYSTEM_QUIET));
    loop_settings_res(w)->muted = true;
    forget();
    steps_ns(w, 1, NS_PER_S / 60);
    assert_int_equal(runs_of(LOOP_SYSTEM_QUIET), 0);
    loop_settings_res(w)->muted = false;
    assert_int_equal(loop_music_set(w, LOOP_MUSIC_LOUD), STRATA_OK);
    forget();
    steps_ns(w, 1, NS_PER_S / 60);
    assert_int_equal(runs_of(LOOP_SYSTEM_QUIET), 0);
    assert_true(strata_system_gate_open(loop_world_core(w), LOOP_SYSTEM_DRAW)); /* no gate */
}

static void test_loop_system_run_ignores_the_gate(void **state) {
    loop_world *w = *state;
    strata_step_begin(loop_world_core(w));
    assert_int_equal(loop_system_run(w, LOOP_SYSTEM_SPAWN, 0.5f), STRATA_OK);
    assert_int_equal(strata_step_end(loop_world_core(w)), STRATA_OK);
    assert_int_equal(runs_of(LOOP_SYSTEM_SPAWN), 1);
}

/* --- Saves and the loop -------------------------------------------------------------- */

/* Step w and a world loaded from its save (taken now) alike, `steps` times by
 * 1/144 s, and check that they end the same. */
static void continues_the_same(loop_world *w, loop_world *loaded, uint32_t steps) {
    for (uint32_t i = 0; i < steps; i++) {
        forget();
        steps_ns(w, 1, NS_PER_S / 144);
        uint32_t n = seen.n;
        uint32_t ids[64];
        memcpy(ids, seen.id, sizeof ids);
        forget();
        steps_ns(loaded, 1, NS_PER_S / 144);
        assert_int_equal(seen.n, n);
        assert_memory_equal(seen.id, ids, sizeof(uint32_t) * (n < 64 ? n : 64));
    }
    assert_true(same_saves(w, loaded));
}

/* A world in the middle of everything: a fixed phase between runs, counters
 * part way, a transition asked for and not yet applied. */
static void mid_loop(loop_world *w) {
    assert_int_equal(loop_mode_set(w, LOOP_MODE_PLAYING), STRATA_OK);
    steps_ns(w, 7, NS_PER_S / 144);
    assert_int_equal(loop_mode_set(w, LOOP_MODE_PAUSED), STRATA_OK);
    assert_true(loop_physics_fraction(w) > 0.0f);
}

static void test_loop_binary_save_mid_accumulator_continues_the_same_sequence(void **state) {
    loop_world *w = *state;
    mid_loop(w);
    size_t size = 0;
    unsigned char *bytes = save_of(w, &size);
    loop_world *loaded = loop_world_create(NULL);
    assert_non_null(loaded);
    loop_load_report_t report;
    assert_int_equal(loop_world_load_mem(loaded, bytes, size, &report), STRATA_OK);
    assert_int_equal(report.change_count, 0);
    assert_true(loop_physics_fraction(loaded) == loop_physics_fraction(w));
    assert_true(loop_mode_state_res(loaded)->pending);
    assert_int_equal(loop_mode_state_res(loaded)->next, LOOP_MODE_PAUSED);
    continues_the_same(w, loaded, 40);
    assert_int_equal(loop_mode_get(loaded), LOOP_MODE_PAUSED);
    free(bytes);
    loop_world_destroy(loaded);
}

static void test_loop_json_save_mid_accumulator_continues_the_same_sequence(void **state) {
    loop_world *w = *state;
    mid_loop(w);
    char *text = json_of(w);
    assert_non_null(strstr(text, "\"Mode\": {\"current\": \"playing\", \"next\": \"paused\", \"pending\": true"));
    assert_non_null(strstr(text, "\"(loop)\": {\"phases\": {\"physics\": "));
    loop_world *loaded = loop_world_create(NULL);
    assert_non_null(loaded);
    loop_load_report_t report;
    assert_int_equal(loop_world_load_json_mem(loaded, text, strlen(text), &report), STRATA_OK);
    assert_int_equal(report.change_count, 0);
    continues_the_same(w, loaded, 40);
    free(text);
    loop_world_destroy(loaded);
}

/* text with the first `"key": {...}` member (and the comma before it) cut out. */
static void cut_member(char *text, const char *key) {
    char *at = strstr(text, key);
    assert_non_null(at);
    char *end = strchr(at, '{');
    for (int depth = 0; end != NULL; end++) {
        depth += *end == '{';
        depth -= *end == '}';
        if (depth == 0) {
            break;
        }
    }
    assert_non_null(end);
    while (at > text && *at != ',') {
        at--;
    }
    memmove(at, end + 1, strlen(end + 1) + 1);
}

static void test_loop_save_without_states_and_clock_loads_at_their_start(void **state) {
    loop_world *w = *state;
    mid_loop(w);
    char *text = json_of(w);
    /* A save of the game before it had the loop: no Mode, no clock. */
    cut_member(text, "\"Mode\": ");
    cut_member(text, "\"(loop)\": ");
    loop_world *loaded = loop_world_create(NULL);
    assert_non_null(loaded);
    loop_load_report_t report;
    assert_int_equal(loop_world_load_json_mem(loaded, text, strlen(text), &report), STRATA_OK);
    assert_int_equal(report.change_count, 2); /* both added: they take their defaults */
    assert_int_equal(report.changes[0].kind, STRATA_CHANGE_ADDED);
    assert_int_equal(loop_mode_get(loaded), LOOP_MODE_TITLE);
    assert_true(loop_physics_fraction(loaded) == 0.0f);
    forget();
    steps_ns(loaded, 1, NS_PER_S / 60);
    assert_int_equal(first_of(LOOP_SYSTEM_TITLE), 0); /* the initial state is entered again */
    free(text);
    loop_world_destroy(loaded);
}

static void test_loop_a_load_keeps_a_fraction_past_one_period_below_it(void **state) {
    loop_world *w = *state;
    mid_loop(w);
    /* A clock written by hand (or by a save of another rate) holding more than
     * a period loads as a fraction of one. */
    loop_world *loaded = loop_world_create(NULL);
    assert_non_null(loaded);
    char *text = json_of(w);
    char *at = strstr(text, "\"(loop)\": {\"phases\": {\"physics\": ");
    assert_non_null(at);
    at += strlen("\"(loop)\": {\"phases\": {");
    at += strlen("\"physics\": ");
    char *end = at + strspn(at, "0123456789");
    char edited[8192];
    assert_true(strlen(text) + 16 < sizeof edited);
    snprintf(edited, sizeof edited, "%.*s2500000000%s", (int)(at - text), text, end);
    loop_load_report_t report;
    assert_int_equal(loop_world_load_json_mem(loaded, edited, strlen(edited), &report), STRATA_OK);
    assert_float_equal(loop_physics_fraction(loaded), 0.5f, 1e-6);
    free(text);
    loop_world_destroy(loaded);
}

static void test_loop_clear_keeps_states_and_clock(void **state) {
    loop_world *w = *state;
    mid_loop(w);
    float fraction = loop_physics_fraction(w);
    loop_world_clear(w);
    assert_true(loop_physics_fraction(w) == fraction);
    assert_int_equal(loop_mode_get(w), LOOP_MODE_PLAYING);
    assert_true(loop_mode_state_res(w)->pending);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_loop_initial_state_is_entered_at_the_start_of_the_first_step, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_loop_transition_runs_exit_then_enter_in_schedule_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_last_request_before_the_point_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_asking_for_the_current_state_re_enters_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_a_request_in_a_system_applies_at_the_end_of_the_step, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_loop_a_request_in_a_fixed_run_applies_after_that_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_set_refuses_a_state_of_no_machine, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_a_transition_system_switched_off_does_not_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_fixed_phase_runs_at_its_rate_with_its_dt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_fixed_phase_keeps_exact_time_over_steps_of_any_length, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_loop_accumulator_is_exact_under_random_frame_splits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_cap_drops_whole_periods_and_keeps_the_fraction, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_fixed_phase_emits_each_run_and_a_later_receiver_hears_each_once,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_a_fixed_run_applies_its_destroys_at_its_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_every_runs_at_exact_steps_and_fixed_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_interval_counts_only_while_its_state_holds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_interval_runs_once_a_step_and_drops_what_it_missed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_condition_flipped_earlier_in_the_step_counts_in_that_step, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_loop_not_condition_and_two_machines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_system_run_ignores_the_gate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_binary_save_mid_accumulator_continues_the_same_sequence, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_loop_json_save_mid_accumulator_continues_the_same_sequence, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_loop_save_without_states_and_clock_loads_at_their_start, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_a_load_keeps_a_fraction_past_one_period_below_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loop_clear_keeps_states_and_clock, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

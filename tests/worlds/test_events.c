/* Tests of events between systems (tests/schema/events.yaml): who receives
 * an event and when, the order the generator gives, disabled receivers,
 * events from game code and from hooks, out of memory, and loads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_alloc.h"

#include "events.h"

/* --- The systems, steered and observed by the test running ---------------- */

enum { MAX_SEEN = 4096 };

typedef struct seen_t {
    int32_t values[MAX_SEEN];
    uint32_t count;
} seen_t;

static struct {
    uint32_t shout;       /* Pings Shout emits a step */
    int32_t next_value;   /* the value of Shout's next Ping */
    events_entity target; /* Shout hits it once a step (null: no Hit) */
    int32_t damage;
    seen_t early, listen; /* Ping values each receiver saw, in order */
    uint32_t early_runs, listen_runs;
    events_died died[MAX_SEEN]; /* what Tally received, in order */
    uint32_t died_count;
    uint32_t removed; /* Health's on_remove calls */
} sys;

static void seen_add(seen_t *s, const events_ping *pings, uint32_t count) {
    for (uint32_t i = 0; i < count && s->count < MAX_SEEN; i++) {
        s->values[s->count++] = pings[i].value;
    }
}

void events_early_run(events_early_ctx *ctx) {
    sys.early_runs++;
    seen_add(&sys.early, ctx->ping_events, ctx->ping_count);
}

void events_listen_run(events_listen_ctx *ctx) {
    sys.listen_runs++;
    seen_add(&sys.listen, ctx->ping_events, ctx->ping_count);
}

void events_shout_run(events_shout_ctx *ctx) {
    for (uint32_t i = 0; i < sys.shout; i++) {
        assert_int_equal(events_ping_emit(ctx, &(events_ping){.value = sys.next_value++}), STRATA_OK);
    }
    if (!events_entity_eq(sys.target, EVENTS_ENTITY_NULL)) {
        assert_int_equal(events_hit_emit(ctx, &(events_hit){.who = sys.target, .damage = sys.damage}), STRATA_OK);
    }
}

/* Applies the hits it receives; emits Died and destroys what drops to 0. */
void events_damage_run(events_damage_ctx *ctx) {
    for (uint32_t i = 0; i < ctx->hit_count; i++) {
        events_health *h = events_health_mut(ctx->world, ctx->hit_events[i].who);
        if (h != NULL && h->hp > 0) {
            h->hp -= ctx->hit_events[i].damage;
            if (h->hp <= 0) {
                assert_int_equal(events_died_emit(ctx, &(events_died){.who = ctx->hit_events[i].who}), STRATA_OK);
                assert_int_equal(events_entity_destroy(ctx->world, ctx->hit_events[i].who), STRATA_OK);
            }
        }
    }
    while (events_damage_next(ctx)) {}
}

void events_tally_run(events_tally_ctx *ctx) {
    for (uint32_t i = 0; i < ctx->died_count && sys.died_count < MAX_SEEN; i++) {
        sys.died[sys.died_count++] = ctx->died_events[i];
    }
}

void events_health_on_add(events_world *w, events_entity e, events_health *value) {
    (void)w;
    (void)e;
    (void)value;
}

/* A hook sends an event too: Died, marked as the hook's. */
void events_health_on_remove(events_world *w, events_entity e, events_health *value) {
    (void)value;
    sys.removed++;
    assert_int_equal(events_died_send(w, &(events_died){.who = e, .from_hook = true}), STRATA_OK);
}

/* --- Fixtures and allocators --------------------------------------------------- */

static int setup(void **state) {
    memset(&sys, 0, sizeof sys);
    events_world *w = events_world_create(NULL);
    assert_non_null(w);
    *state = w;
    return 0;
}

static int teardown(void **state) {
    events_world_destroy(*state);
    return 0;
}

static void step(events_world *w) {
    assert_int_equal(events_world_step(w, 1.0f), STRATA_OK);
}

static void assert_seen(const seen_t *s, int32_t first, uint32_t count) {
    assert_int_equal(s->count, count);
    for (uint32_t i = 0; i < count; i++) {
        assert_int_equal(s->values[i], first + (int32_t)i);
    }
}

/* --- The rules ------------------------------------------------------------------ */

static void test_generator_orders_receiver_after_its_emitter(void **state) {
    (void)state;
    /* Listen is declared before Shout; the schedule puts it after. */
    assert_true(EVENTS_SYSTEM_SHOUT < EVENTS_SYSTEM_LISTEN);
    assert_true(EVENTS_SYSTEM_EARLY < EVENTS_SYSTEM_SHOUT); /* receive_late: left before, in phase input */
}

static void test_receiver_after_emitter_sees_the_same_step_once(void **state) {
    events_world *w = *state;
    sys.shout = 3;
    step(w);
    assert_seen(&sys.listen, 0, 3);
    sys.shout = 0;
    step(w);
    step(w);
    assert_seen(&sys.listen, 0, 3); /* never twice */
    assert_int_equal(sys.listen_runs, 3);
}

static void test_receiver_before_emitter_sees_them_next_step_once(void **state) {
    events_world *w = *state;
    sys.shout = 2;
    step(w); /* pings 0, 1 */
    assert_int_equal(sys.early.count, 0);
    step(w); /* pings 2, 3 */
    assert_seen(&sys.early, 0, 2);
    sys.shout = 0;
    step(w);
    assert_seen(&sys.early, 0, 4);
    step(w);
    step(w);
    assert_seen(&sys.early, 0, 4); /* each once, none lost */
    assert_seen(&sys.listen, 0, 4);
}

static void test_events_are_gone_after_every_receiver_had_its_turn(void **state) {
    events_world *w = *state;
    sys.shout = 5;
    step(w);
    assert_int_equal(strata_event_held(events_world_core(w), EVENTS_EVENT_PING), 5);
    sys.shout = 0;
    step(w); /* Early saw them at the start of this step; they stay until the next begins */
    step(w);
    assert_int_equal(strata_event_held(events_world_core(w), EVENTS_EVENT_PING), 0);
}

static void test_disabled_receiver_does_not_keep_events_alive(void **state) {
    events_world *w = *state;
    events_early_enable(w, false);
    events_listen_enable(w, false);
    sys.shout = 4;
    for (int i = 0; i < 50; i++) {
        step(w);
        /* this step's and the step before's: no more, whoever is disabled */
        assert_true(strata_event_held(events_world_core(w), EVENTS_EVENT_PING) <= 8);
    }
    assert_int_equal(sys.listen.count + sys.early.count, 0);
    /* Enabled again, each sees what its window holds: no backlog. */
    events_listen_enable(w, true);
    events_early_enable(w, true);
    step(w); /* pings 200..203 */
    assert_seen(&sys.listen, 200, 4);
    assert_seen(&sys.early, 196, 4); /* the step before's: Early runs before Shout */
}

static void test_game_code_sends_between_steps(void **state) {
    events_world *w = *state;
    assert_int_equal(events_ping_send(w, &(events_ping){.value = 7}), STRATA_OK);
    assert_int_equal(events_ping_send(w, &(events_ping){.value = 8}), STRATA_OK);
    step(w);
    assert_seen(&sys.early, 7, 2); /* every receiver, in its next run */
    assert_seen(&sys.listen, 7, 2);
    step(w);
    assert_int_equal(sys.early.count + sys.listen.count, 4);
}

static void test_events_from_systems_and_hooks_reach_the_receiver_once(void **state) {
    events_world *w = *state;
    events_entity e = events_entity_create(w);
    assert_int_equal(events_health_add(w, e, (events_health){.hp = 3}), STRATA_OK);
    sys.target = e;
    sys.damage = 2;
    step(w); /* hp 1 */
    assert_int_equal(sys.died_count, 0);
    step(w); /* hp -1: Damage emits Died; the destroy at the step's end runs the hook */
    sys.target = EVENTS_ENTITY_NULL;
    assert_int_equal(sys.removed, 1);
    assert_false(events_entity_alive(w, e));
    assert_int_equal(sys.died_count, 1); /* Damage's, in the same step (Tally runs after) */
    assert_false(sys.died[0].from_hook);
    step(w);
    assert_int_equal(sys.died_count, 2); /* the hook's, sent at the step's end: the next step */
    assert_true(sys.died[1].from_hook);
    assert_true(events_entity_eq(sys.died[1].who, e));
    step(w);
    assert_int_equal(sys.died_count, 2);
}

static void test_a_context_outside_the_step_sees_the_window_of_its_position(void **state) {
    events_world *w = *state;
    sys.shout = 2;
    step(w);
    events_listen_ctx ctx = events_listen_begin(w, 0.0f);
    assert_int_equal(ctx.ping_count, 2);
    assert_int_equal(ctx.ping_events[1].value, 1);
    assert_int_equal(events_listen_end(&ctx), STRATA_OK);
    events_tally_ctx none = events_tally_begin(w, 0.0f);
    assert_int_equal(none.died_count, 0);
    assert_null(none.died_events);
    assert_int_equal(events_tally_end(&none), STRATA_OK);
}

static void test_a_load_drops_pending_events(void **state) {
    events_world *w = *state;
    static unsigned char buf[1 << 16];
    size_t size = 0;
    assert_int_equal(events_world_save_mem(w, buf, sizeof buf, &size), STRATA_OK);
    sys.shout = 3;
    step(w);
    assert_int_equal(strata_event_held(events_world_core(w), EVENTS_EVENT_PING), 3);
    strata_load_report_t report;
    assert_int_equal(events_world_load_mem(w, buf, size, &report), STRATA_OK);
    assert_int_equal(strata_event_held(events_world_core(w), EVENTS_EVENT_PING), 0);
    sys.shout = 0;
    step(w);
    assert_int_equal(sys.early.count, 0); /* the saved world had none; the held ones went */
}

/* --- Memory ---------------------------------------------------------------------- */

/* A fresh world whose allocations fail once `budget` runs out (plenty, to start). */
static events_world *failing_world(void) {
    memset(&sys, 0, sizeof sys);
    const strata_world_desc_t desc = {
        .allocator = {.alloc = failing_alloc, .realloc = failing_resize, .free = test_release}};
    budget = 1 << 20;
    events_world *w = events_world_create(&desc);
    assert_non_null(w);
    return w;
}

static void test_out_of_memory_while_emitting_drops_nothing(void **state) {
    (void)state;
    events_world *w = failing_world();
    int32_t sent = 0;
    budget = 0; /* the first emit needs the buffer: nothing can grow */
    assert_int_equal(events_ping_send(w, &(events_ping){.value = 0}), STRATA_ERR_NOMEM);
    budget = 1 << 20;
    while (sent < 64) { /* fill the first block exactly */
        assert_int_equal(events_ping_send(w, &(events_ping){.value = sent}), STRATA_OK);
        sent++;
    }
    size_t before = 0;
    strata_world_stats_t stats;
    events_world_stats(w, &stats);
    before = stats.bytes;
    budget = 0; /* the next one needs the buffer to grow */
    assert_int_equal(events_ping_send(w, &(events_ping){.value = 999}), STRATA_ERR_NOMEM);
    assert_int_equal(strata_event_held(events_world_core(w), EVENTS_EVENT_PING), 64);
    events_world_stats(w, &stats);
    assert_int_equal(stats.bytes, before);
    budget = 1 << 20;
    assert_int_equal(events_ping_send(w, &(events_ping){.value = sent}), STRATA_OK);
    sent++;
    step(w);
    assert_seen(&sys.listen, 0, (uint32_t)sent); /* every event sent, none twice, the failed one not at all */
    events_world_destroy(w);
}

static void test_buffers_grow_and_free_through_the_hooks(void **state) {
    (void)state;
    memset(&sys, 0, sizeof sys);
    const strata_world_desc_t desc = {.allocator = {.alloc = test_alloc, .realloc = test_resize, .free = test_release}};
    events_world *w = events_world_create(&desc);
    assert_non_null(w);
    sys.shout = 100;
    for (int i = 0; i < 20; i++) {
        step(w);
        sys.shout = (uint32_t)(i % 3 == 0 ? 200 : 1);
    }
    assert_int_equal(sys.listen.count, sys.next_value);
    events_world_destroy(w); /* cmocka fails the test if a block is left */
}

/* --- The buffer --------------------------------------------------------------------- */

static void test_buffer_holds_one_step_when_every_receiver_follows_its_emitters(void **state) {
    events_world *w = *state;
    strata_world_t *core = events_world_core(w);
    events_entity e = events_entity_create(w);
    assert_int_equal(events_health_add(w, e, (events_health){.hp = 1000}), STRATA_OK);
    sys.target = e; /* one Hit a step; Damage, its only receiver, runs after Shout */
    sys.damage = 0;
    sys.shout = 3; /* Pings: Early receives them before Shout, next step */
    for (int i = 1; i <= 4; i++) {
        step(w);
        assert_int_equal(strata_event_held(core, EVENTS_EVENT_HIT), 1);               /* this step's */
        assert_int_equal(strata_event_held(core, EVENTS_EVENT_PING), i == 1 ? 3 : 6); /* and the last step's */
    }
    assert_int_equal(events_health_get(w, e)->hp, 1000);
}

static void test_late_survivors_move_down_instead_of_growing_the_buffer(void **state) {
    (void)state;
    memset(&sys, 0, sizeof sys);
    const strata_world_desc_t desc = {.allocator = {.alloc = test_alloc, .realloc = test_resize, .free = test_release}};
    events_world *w = events_world_create(&desc);
    assert_non_null(w);
    strata_world_stats_t stats;
    size_t settled = 0;
    for (uint32_t i = 0; i < 60; i++) {
        sys.shout = 50 + i % 7; /* Early keeps each step's Pings one step more */
        step(w);
        events_world_stats(w, &stats);
        if (i == 20) {
            settled = stats.bytes;
        } else if (i > 20) {
            assert_int_equal(stats.bytes, settled); /* steady state: no growth */
        }
    }
    assert_int_equal(sys.early.count + 50 + 59 % 7, sys.next_value); /* Early: all but the last step's */
    assert_seen(&sys.early, 0, sys.early.count);
    assert_seen(&sys.listen, 0, (uint32_t)sys.next_value);
    events_world_destroy(w);
}

static void test_staging_queues_append_in_chunk_order(void **state) {
    events_world *w = *state;
    strata_world_t *core = events_world_core(w);
    /* Two workers' chunks, filled in any order, appended in chunk order. */
    strata_event_queue_t chunk[2] = {{0}, {0}};
    for (int32_t v = 100; v < 200; v++) {
        events_ping p = {.value = v};
        assert_int_equal(strata_event_push(core, &chunk[1], EVENTS_EVENT_PING, &p), STRATA_OK);
    }
    for (int32_t v = 0; v < 100; v++) {
        events_ping p = {.value = v};
        assert_int_equal(strata_event_push(core, &chunk[0], EVENTS_EVENT_PING, &p), STRATA_OK);
    }
    assert_int_equal(strata_event_held(core, EVENTS_EVENT_PING), 0); /* staged, not emitted */
    for (int k = 0; k < 2; k++) {
        assert_int_equal(strata_event_append(core, EVENTS_EVENT_PING, chunk[k].data, chunk[k].tail), STRATA_OK);
        strata_event_queue_free(core, EVENTS_EVENT_PING, &chunk[k]);
        assert_null(chunk[k].data);
    }
    step(w);
    assert_seen(&sys.listen, 0, 200);
    assert_seen(&sys.early, 0, 200);
}

static void test_append_out_of_memory_appends_none(void **state) {
    (void)state;
    events_world *w = failing_world();
    strata_world_t *core = events_world_core(w);
    events_ping batch[100];
    for (int32_t v = 0; v < 100; v++) {
        batch[v].value = v;
    }
    assert_int_equal(strata_event_append(core, EVENTS_EVENT_PING, batch, 10), STRATA_OK);
    strata_world_stats_t before, after;
    events_world_stats(w, &before);
    budget = 0; /* 10 more than the first block holds: it must grow */
    assert_int_equal(strata_event_append(core, EVENTS_EVENT_PING, batch + 10, 64), STRATA_ERR_NOMEM);
    events_world_stats(w, &after);
    assert_int_equal(strata_event_held(core, EVENTS_EVENT_PING), 10);
    assert_int_equal(after.bytes, before.bytes);
    /* A staging queue that cannot grow: the push fails, the queue is as it was. */
    strata_event_queue_t q = {0};
    assert_int_equal(strata_event_push(core, &q, EVENTS_EVENT_PING, &batch[0]), STRATA_ERR_NOMEM);
    assert_int_equal(q.tail, 0);
    budget = 1 << 20;
    assert_int_equal(strata_event_append(core, EVENTS_EVENT_PING, batch + 10, 90), STRATA_OK);
    step(w);
    assert_seen(&sys.listen, 0, 100);
    events_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generator_orders_receiver_after_its_emitter),
        cmocka_unit_test_setup_teardown(test_receiver_after_emitter_sees_the_same_step_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_receiver_before_emitter_sees_them_next_step_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_events_are_gone_after_every_receiver_had_its_turn, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disabled_receiver_does_not_keep_events_alive, setup, teardown),
        cmocka_unit_test_setup_teardown(test_game_code_sends_between_steps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_events_from_systems_and_hooks_reach_the_receiver_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_context_outside_the_step_sees_the_window_of_its_position, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_load_drops_pending_events, setup, teardown),
        cmocka_unit_test(test_out_of_memory_while_emitting_drops_nothing),
        cmocka_unit_test(test_buffers_grow_and_free_through_the_hooks),
        cmocka_unit_test_setup_teardown(test_buffer_holds_one_step_when_every_receiver_follows_its_emitters, setup,
                                        teardown),
        cmocka_unit_test(test_late_survivors_move_down_instead_of_growing_the_buffer),
        cmocka_unit_test_setup_teardown(test_staging_queues_append_in_chunk_order, setup, teardown),
        cmocka_unit_test(test_append_out_of_memory_appends_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

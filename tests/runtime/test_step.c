/* test_step.c: the step loop (step.c) over a schedule written by hand:
 * phases, batches and systems run in order, switches, the observer, the
 * events' clock, errors, a batch's merge (entities its views create, at one
 * and two threads) and out of memory, and the schedules a world refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "strata_internal.h"
#include "fixture.h"

/* --- A schema and its schedule ---------------------------------------------- */

enum { VALUE, COMPONENT_COUNT };
enum { Q_VALUE, QUERY_COUNT };

/* Systems, by id (their place in the schedule):
 *   phase "first":  batch 0: START alone;  batch 1: LEFT, RIGHT (a batch of two)
 *   phase "empty":  no batch
 *   phase "last":   batch 2: BUMP (split into chunks);  batch 3: FAIL alone;  batch 4: END alone */
enum { START, LEFT, RIGHT, BUMP, FAIL, END, SYSTEM_COUNT };

typedef struct value {
    int32_t v;
} value;

static const strata_component_desc_t components[COMPONENT_COUNT] = {
    [VALUE] = COMPONENT("Value", value, NULL),
};

static const strata_query_desc_t queries[QUERY_COUNT] = {
    [Q_VALUE] = QUERY("Value", BIT(VALUE), 0),
};

/* The resource block: a counter, then the switches. */
typedef struct resources {
    int32_t counter;
    bool enabled[SYSTEM_COUNT];
} resources;

/* What the systems did, in the order they did it (one thread at a time:
 * the batch's systems write `ran` only, each its own byte). */
static uint32_t order[64];
static uint32_t order_count;
static uint32_t clock_at[SYSTEM_COUNT]; /* the events' clock as each ran */
static bool ran[SYSTEM_COUNT];
static bool in_view[SYSTEM_COUNT];

static void log_system(strata_world_t *w, uint32_t id) {
    ran[id] = true;
    in_view[id] = strata_in_batch(w);
    clock_at[id] = w->event_position;
    if (!strata_in_batch(w)) {
        order[order_count++] = id;
    }
}

/* Alone: counts in the resource block. */
static strata_result_t start_call(strata_world_t *w, float dt) {
    (void)dt;
    log_system(w, START);
    ((resources *)strata_world_resources(w))->counter++;
    return STRATA_OK;
}

/* In a batch: each creates an entity whose value is its id (made when the batch ends). */
static strata_result_t spawn(strata_world_t *w, uint32_t id) {
    log_system(w, id);
    strata_entity_t e = STRATA_ENTITY_NULL;
    uint32_t c = VALUE;
    const value v = {(int32_t)id};
    const void *values[1] = {&v};
    return strata_entity_create_many(w, 1, 1, &c, values, &e);
}

static strata_result_t left_call(strata_world_t *w, float dt) {
    (void)dt;
    return spawn(w, LEFT);
}

static strata_result_t right_call(strata_world_t *w, float dt) {
    (void)dt;
    return spawn(w, RIGHT);
}

/* Split into chunks: adds dt to every Value, as generated `next` walks the
 * rows (the range inline, then the runtime's next). */
static strata_result_t bump_call(strata_world_t *w, float dt) {
    log_system(w, BUMP);
    strata_iter_t it = strata_iter(w, Q_VALUE);
    for (;;) {
        for (; it.at < it.stop; it.at++) {
            value *v = it.at->columns[VALUE];
            for (uint32_t i = 0; i < *it.at->count; i++) {
                v[i].v += (int32_t)dt;
            }
        }
        if (!strata_iter_next(&it)) {
            break;
        }
        value *v = (value *)it.columns[VALUE] + it.row;
        for (uint32_t i = 0; i < it.count; i++) {
            v[i].v += (int32_t)dt;
        }
    }
    return strata_iter_end(&it);
}

/* Alone: returns an error (the step goes on, and reports it). */
static strata_result_t fail_call(strata_world_t *w, float dt) {
    (void)dt;
    log_system(w, FAIL);
    return STRATA_ERR_LIMIT;
}

static strata_result_t end_call(strata_world_t *w, float dt) {
    (void)dt;
    log_system(w, END);
    return STRATA_OK;
}

static const strata_system_desc_t systems[SYSTEM_COUNT] = {
    [START] = {.name = "Start", .call = start_call, .query = STRATA_NO_QUERY, .writes = 1},
    [LEFT] = {.name = "Left", .call = left_call, .query = STRATA_NO_QUERY},
    [RIGHT] = {.name = "Right", .call = right_call, .query = STRATA_NO_QUERY, .flags = STRATA_SYSTEM_MAIN_THREAD},
    [BUMP] = {.name = "Bump", .call = bump_call, .query = Q_VALUE, .flags = STRATA_SYSTEM_PARALLEL},
    [FAIL] = {.name = "Fail", .call = fail_call, .query = STRATA_NO_QUERY},
    [END] = {.name = "End", .call = end_call, .query = STRATA_NO_QUERY},
};

static const uint32_t system_order[SYSTEM_COUNT] = {START, LEFT, RIGHT, BUMP, FAIL, END};

/* The batches' items, as strata_batch_run takes them. */
static const strata_batch_item_t items[SYSTEM_COUNT] = {
    {.system = START, .query = STRATA_NO_QUERY, .position = START, .writes = 1},
    {.system = LEFT, .query = STRATA_NO_QUERY, .position = LEFT},
    {.system = RIGHT, .query = STRATA_NO_QUERY, .position = RIGHT, .main_thread = true},
    {.system = BUMP, .query = Q_VALUE, .position = BUMP, .parallel = true},
    {.system = FAIL, .query = STRATA_NO_QUERY, .position = FAIL},
    {.system = END, .query = STRATA_NO_QUERY, .position = END},
};

static const strata_batch_desc_t batches[] = {
    {.first = 0, .count = 1, .items = items, .alone = START},
    {.first = 1, .count = 2, .items = items + 1, .alone = STRATA_NO_SYSTEM},
    {.first = 3, .count = 1, .items = items + 3, .alone = STRATA_NO_SYSTEM}, /* BUMP: split */
    {.first = 4, .count = 1, .items = items + 4, .alone = FAIL},
    {.first = 5, .count = 1, .items = items + 5, .alone = END},
};

static const strata_phase_desc_t phases[] = {
    {.name = "first", .first = 0, .count = 2},
    {.name = "empty", .first = 2, .count = 0},
    {.name = "last", .first = 2, .count = 3},
};

static const strata_schedule_t schedule_of_systems = {
    .system_count = SYSTEM_COUNT,
    .systems = systems,
    .phase_count = 3,
    .phases = phases,
    .batch_count = 5,
    .batches = batches,
    .order = system_order,
    .switches = offsetof(resources, enabled),
};

static const strata_event_desc_t events[1] = {{.name = "Ping", .size = 4, .align = 4}};

static const strata_schema_t schema = {
    .name = "step",
    .component_count = COMPONENT_COUNT,
    .components = components,
    .query_count = QUERY_COUNT,
    .queries = queries,
    .resources_size = sizeof(resources),
    .resources_align = _Alignof(resources),
    .event_count = 1,
    .events = events,
    .system_count = SYSTEM_COUNT,
    .schedule = &schedule_of_systems,
};

/* Forget what the systems did. */
static void log_clear(void) {
    order_count = 0;
    memset(ran, 0, sizeof ran);
    memset(in_view, 0, sizeof in_view);
    memset(clock_at, 0xff, sizeof clock_at);
}

/* A world of the schema with `threads` threads and chunks of `chunk` rows. */
static fixture_t *open_with(void **state, uint32_t threads, uint32_t chunk) {
    fixture_t *f = *state;
    strata_world_desc_t d = heap_desc(&f->heap, 0);
    d.threads = threads;
    d.chunk_rows = chunk;
    assert_int_equal(strata_world_create(&schema, &d, &f->w), STRATA_OK);
    log_clear();
    return f;
}

/* The Values of the world's entities, table by table in row order. */
static uint32_t values_of(strata_world_t *w, int32_t *out, uint32_t cap) {
    uint32_t n = 0;
    for (uint32_t t = 0; t < w->table_count; t++) {
        const sti_table_t *table = w->tables[t];
        for (uint32_t row = 0; strata_mask_test(&table->mask, VALUE) && row < table->count && n < cap; row++) {
            out[n++] = ((const value *)table->columns[VALUE])[row].v;
        }
    }
    return n;
}

/* --- Order, switches, observer --------------------------------------------- */

static void test_step_runs_phases_batches_and_systems_in_order(void **state) {
    fixture_t *f = open_with(state, 1, 0);
    assert_int_equal(strata_world_step(f->w, 1.0f), STRATA_ERR_LIMIT); /* Fail's, the rest ran */
    /* The alone systems on this thread in order; the batch's in views. */
    const uint32_t alone[] = {START, FAIL, END};
    assert_int_equal(order_count, 3);
    assert_memory_equal(order, alone, sizeof alone);
    for (uint32_t id = 0; id < SYSTEM_COUNT; id++) {
        assert_true(ran[id]);
        assert_int_equal(in_view[id], id == LEFT || id == RIGHT || id == BUMP);
    }
    assert_int_equal(((resources *)strata_world_resources(f->w))->counter, 1);
    assert_false(f->w->in_step);
    world_close(f);
}

static void test_step_switches_start_on_and_skip_what_is_off(void **state) {
    fixture_t *f = open_with(state, 1, 0);
    for (uint32_t id = 0; id < SYSTEM_COUNT; id++) {
        assert_true(strata_system_enabled(f->w, id));
    }
    assert_false(strata_system_enabled(f->w, SYSTEM_COUNT));
    strata_system_set_enabled(f->w, SYSTEM_COUNT, false); /* past the last: ignored */
    strata_system_set_enabled(f->w, START, false);
    strata_system_set_enabled(f->w, FAIL, false);
    strata_system_set_enabled(f->w, LEFT, false);
    assert_false(strata_system_enabled(f->w, START));
    assert_int_equal(strata_world_step(f->w, 1.0f), STRATA_OK);
    assert_false(ran[START] || ran[FAIL] || ran[LEFT]);
    assert_true(ran[RIGHT] && ran[BUMP] && ran[END]);
    int32_t v[4];
    assert_int_equal(values_of(f->w, v, 4), 1); /* Right's entity only */
    assert_int_equal(v[0], RIGHT + 1);          /* and Bump added dt */
    /* A batch with every system off runs nothing, not even an empty batch. */
    strata_system_set_enabled(f->w, RIGHT, false);
    log_clear();
    assert_int_equal(strata_world_step(f->w, 1.0f), STRATA_OK);
    assert_false(ran[LEFT] || ran[RIGHT]);
    world_close(f);
}

/* The observer's calls, as "+id" and "-id". */
static char seen[128];

static void seen_add(char sign, uint32_t system) {
    size_t at = strlen(seen);
    seen[at] = sign;
    seen[at + 1] = (char)('0' + system);
}

static void observe_begin(void *user, strata_world_t *w, uint32_t system) {
    (void)user;
    (void)w;
    seen_add('+', system);
}

static void observe_end(void *user, strata_world_t *w, uint32_t system) {
    (void)user;
    (void)w;
    seen_add('-', system);
}

static void test_step_tells_the_observer_each_system_and_a_batch_as_a_whole(void **state) {
    fixture_t *f = open_with(state, 1, 0);
    const strata_step_observer_t o = {observe_begin, observe_end, NULL};
    strata_world_set_step_observer(f->w, &o);
    memset(seen, 0, sizeof seen);
    strata_system_set_enabled(f->w, LEFT, false);
    (void)strata_world_step(f->w, 1.0f);
    assert_string_equal(seen, "+0-0+2-2+3-3+4-4+5-5"); /* Left is off: its batch is Right's alone */
    strata_system_set_enabled(f->w, LEFT, true);
    memset(seen, 0, sizeof seen);
    (void)strata_world_step(f->w, 1.0f);
    assert_string_equal(seen, "+0-0+1+2-1-2+3-3+4-4+5-5");
    world_close(f);
}

/* --- The events' clock, system_run, errors ----------------------------------- */

static void test_step_sets_the_events_clock_at_each_system(void **state) {
    fixture_t *f = open_with(state, 1, 0);
    uint64_t step = f->w->event_step;
    assert_int_equal(strata_world_step(f->w, 1.0f), STRATA_ERR_LIMIT);
    assert_int_equal(f->w->event_step, step + 1);
    /* An alone system runs at its position; a batch's views at theirs. */
    for (uint32_t id = 0; id < SYSTEM_COUNT; id++) {
        assert_int_equal(clock_at[id], id);
    }
    assert_int_equal(f->w->event_position, SYSTEM_COUNT - 1); /* between steps: after the last */
    world_close(f);
}

static void test_step_system_run_runs_one_system_on_or_off(void **state) {
    fixture_t *f = open_with(state, 1, 0);
    strata_system_set_enabled(f->w, START, false);
    strata_step_begin(f->w);
    assert_int_equal(strata_system_run(f->w, START, 1.0f), STRATA_OK);
    assert_int_equal(strata_system_run(f->w, FAIL, 1.0f), STRATA_ERR_LIMIT);
    assert_int_equal(strata_system_run(f->w, SYSTEM_COUNT, 1.0f), STRATA_OK); /* past the last: nothing */
    assert_int_equal(strata_system_run(f->w, RIGHT, 1.0f), STRATA_OK);        /* alone: not in a view */
    assert_int_equal(strata_step_end(f->w), STRATA_OK);
    const uint32_t ids[] = {START, FAIL, RIGHT};
    assert_int_equal(order_count, 3);
    assert_memory_equal(order, ids, sizeof ids);
    assert_false(in_view[RIGHT]);
    assert_int_equal(clock_at[FAIL], FAIL);
    world_close(f);
}

/* A world without a schedule steps nothing, and has no switch. */
static void test_step_without_a_schedule_runs_nothing(void **state) {
    fixture_t *f = *state;
    strata_schema_t bare = schema;
    bare.schedule = NULL;
    bare.event_count = 0;
    bare.events = NULL;
    strata_world_desc_t d = heap_desc(&f->heap, 0);
    assert_int_equal(strata_world_create(&bare, &d, &f->w), STRATA_OK);
    log_clear();
    assert_int_equal(strata_world_step(f->w, 1.0f), STRATA_OK);
    assert_false(strata_system_enabled(f->w, 0));
    strata_system_set_enabled(f->w, 0, true);
    strata_step_begin(f->w);
    assert_int_equal(strata_system_run(f->w, 0, 1.0f), STRATA_OK);
    assert_int_equal(strata_step_end(f->w), STRATA_OK);
    assert_int_equal(order_count, 0);
    world_close(f);
}

/* --- A batch's merge --------------------------------------------------------- */

/* The batch's views create their entities when it ends, in schedule order
 * (Left's, then Right's, whichever thread ran first); the split system's
 * chunks visit every row once. The same at one thread and two. */
static void batch_merges_in_schedule_order(void **state, uint32_t threads) {
    fixture_t *f = open_with(state, threads, 2);
    for (int step = 0; step < 3; step++) {
        assert_int_equal(strata_world_step(f->w, 10.0f), STRATA_ERR_LIMIT);
    }
    /* Step 1 makes L1, R1 (Bump: +10 each), step 2 L2, R2 (+10 all), step 3 L3, R3 (+10 all). */
    int32_t v[8];
    assert_int_equal(values_of(f->w, v, 8), 6);
    const int32_t expected[] = {LEFT + 30, RIGHT + 30, LEFT + 20, RIGHT + 20, LEFT + 10, RIGHT + 10};
    assert_memory_equal(v, expected, sizeof expected);
    world_close(f);
}

static void test_step_batch_merges_in_schedule_order_one_thread(void **state) {
    batch_merges_in_schedule_order(state, 1);
}

static void test_step_batch_merges_in_schedule_order_two_threads(void **state) {
    batch_merges_in_schedule_order(state, 2);
}

/* Out of memory for a batch's views: the batch does not run, the step
 * says NOMEM, the other systems run, and the next step runs it. */
static void test_step_batch_out_of_memory_skips_the_batch(void **state) {
    fixture_t *f = open_with(state, 1, 0);
    f->heap.fail_at = f->heap.calls + 1; /* the first allocation of the step: the batch's tasks */
    assert_int_equal(strata_world_step(f->w, 1.0f), STRATA_ERR_NOMEM);
    assert_true(f->heap.failures == 1);
    assert_true(ran[START] && ran[END]);
    assert_false(ran[LEFT] || ran[RIGHT]);
    int32_t v[4];
    assert_int_equal(values_of(f->w, v, 4), 0);
    log_clear();
    assert_int_equal(strata_world_step(f->w, 1.0f), STRATA_ERR_LIMIT);
    assert_true(ran[LEFT] && ran[RIGHT]);
    assert_int_equal(values_of(f->w, v, 4), 2);
    world_close(f);
}

/* A steady step allocates nothing: the second step's batches reuse the first's room. */
static void test_step_steady_steps_allocate_nothing(void **state) {
    fixture_t *f = open_with(state, 2, 2);
    uint32_t c = VALUE;
    strata_entity_t e[5];
    assert_int_equal(strata_entity_create_many(f->w, 5, 1, &c, NULL, e), STRATA_OK); /* Bump: 3 chunks */
    strata_system_set_enabled(f->w, LEFT, false);
    strata_system_set_enabled(f->w, RIGHT, false);
    (void)strata_world_step(f->w, 1.0f);
    long calls = f->heap.calls;
    for (int i = 0; i < 4; i++) {
        (void)strata_world_step(f->w, 1.0f);
    }
    assert_int_equal(f->heap.calls, calls);
    world_close(f);
}

/* --- Schedules a world refuses ------------------------------------------------- */

/* A world of schema with schedule s must trip the schema check. */
static void refused(void **state, const strata_schedule_t *s) {
    fixture_t *f = *state;
    strata_schema_t bad = schema;
    bad.schedule = s;
    strata_world_desc_t d = heap_desc(&f->heap, 0);
    strata_world_t *w = NULL;
    expect_assert_failure(strata_world_create(&bad, &d, &w));
    strata_world_destroy(w);
}

static void test_step_world_refuses_a_schedule_that_does_not_hold(void **state) {
    strata_schedule_t s = schedule_of_systems;
    const strata_batch_desc_t gap[] = {{0, 1, items, START},
                                       {2, 2, items + 2, STRATA_NO_SYSTEM},
                                       {4, 2, items + 4, STRATA_NO_SYSTEM}}; /* skips order[1] */
    s.batches = gap;
    s.batch_count = 3;
    const strata_phase_desc_t three[] = {{.name = "all", .first = 0, .count = 3}};
    s.phases = three;
    s.phase_count = 1;
    refused(state, &s);
    s = schedule_of_systems;
    const strata_phase_desc_t short_of[] = {{.name = "all", .first = 0, .count = 4}}; /* the last batch in no phase */
    s.phases = short_of;
    s.phase_count = 1;
    refused(state, &s);
    s = schedule_of_systems;
    s.switches = sizeof(resources) - 1; /* switches past the resource block */
    refused(state, &s);
    strata_system_desc_t split_without_query[SYSTEM_COUNT];
    memcpy(split_without_query, systems, sizeof systems);
    split_without_query[FAIL].flags = STRATA_SYSTEM_PARALLEL;
    s = schedule_of_systems;
    s.systems = split_without_query;
    refused(state, &s);
    const uint32_t past[SYSTEM_COUNT] = {START, LEFT, RIGHT, BUMP, FAIL, SYSTEM_COUNT};
    s = schedule_of_systems;
    s.order = past;
    refused(state, &s);
    const strata_batch_desc_t no_items[] = {{0, 1, items, START},
                                            {1, 2, NULL, STRATA_NO_SYSTEM},
                                            {3, 1, items + 3, STRATA_NO_SYSTEM},
                                            {4, 1, items + 4, FAIL},
                                            {5, 1, items + 5, END}};
    s = schedule_of_systems;
    s.batches = no_items;
    refused(state, &s);
    const strata_batch_desc_t split_alone[] = {{0, 1, items, START},
                                               {1, 2, items + 1, STRATA_NO_SYSTEM},
                                               {3, 1, items + 3, BUMP}, /* BUMP is split: never alone */
                                               {4, 1, items + 4, FAIL},
                                               {5, 1, items + 5, END}};
    s = schedule_of_systems;
    s.batches = split_alone;
    refused(state, &s);
}

/* The loop's tables: gates, tests, machines, transitions, fixed phases
 * that name what does not exist, or that reach past the resource block. */
static void test_step_world_refuses_loop_tables_that_do_not_hold(void **state) {
    strata_system_desc_t gated[SYSTEM_COUNT];
    memcpy(gated, systems, sizeof systems);
    gated[END].flags = STRATA_SYSTEM_GATED;
    gated[END].gate = 1; /* one gate only */
    const strata_gate_desc_t gates[1] = {{.first = 0, .count = 1}};
    const strata_gate_test_t on[1] = {{.kind = STRATA_TEST_CONDITION, .at = offsetof(resources, counter)}};
    strata_schedule_t s = schedule_of_systems;
    s.systems = gated;
    s.gates = gates;
    s.gate_count = 1;
    s.tests = on;
    s.test_count = 1;
    refused(state, &s);
    gated[END].gate = 0;
    const strata_gate_test_t past_block[1] = {{.kind = STRATA_TEST_CONDITION, .at = sizeof(resources)}};
    s.tests = past_block;
    refused(state, &s);
    const strata_gate_test_t no_machine[1] = {{.kind = STRATA_TEST_STATE, .at = sizeof(resources) - 4, .value = 1}};
    s.tests = no_machine;
    refused(state, &s);
    const strata_gate_desc_t counter_past[1] = {
        {.first = 0, .count = 0, .clock = STRATA_GATE_RUNS, .counter = sizeof(resources) - 4, .period = 2}};
    s.tests = on;
    s.gates = counter_past;
    refused(state, &s);
    const strata_gate_desc_t no_period[1] = {{.first = 0, .count = 0, .clock = STRATA_GATE_RUNS, .period = 0}};
    s.gates = no_period;
    refused(state, &s);
    const char *const names[2] = {"a", "b"};
    const strata_machine_desc_t machine_past[1] = {{"M", sizeof(resources) - 4, 2, names}};
    s = schedule_of_systems;
    s.machines = machine_past;
    s.machine_count = 1;
    refused(state, &s);
    const strata_transition_desc_t to_nowhere[1] = {{.system = END, .machine = 1, .states = 1, .enter = true}};
    s = schedule_of_systems;
    s.transitions = to_nowhere;
    s.transition_count = 1;
    refused(state, &s);
    const strata_phase_desc_t uncapped[] = {
        {.name = "first", .first = 0, .count = 2, .rate = 60, .max_runs = 0, .clock = 0},
        {.name = "empty", .first = 2, .count = 0},
        {.name = "last", .first = 2, .count = 3},
    };
    s = schedule_of_systems;
    s.phases = uncapped;
    s.fixed_count = 1;
    refused(state, &s);
    s.fixed_count = 0; /* a fixed phase the count leaves out */
    refused(state, &s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_step_runs_phases_batches_and_systems_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step_switches_start_on_and_skip_what_is_off, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step_tells_the_observer_each_system_and_a_batch_as_a_whole, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_step_sets_the_events_clock_at_each_system, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step_system_run_runs_one_system_on_or_off, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step_without_a_schedule_runs_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step_batch_merges_in_schedule_order_one_thread, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step_batch_merges_in_schedule_order_two_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step_batch_out_of_memory_skips_the_batch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step_steady_steps_allocate_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step_world_refuses_a_schedule_that_does_not_hold, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step_world_refuses_loop_tables_that_do_not_hold, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

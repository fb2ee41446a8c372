/* step.c: the step loop. A generated world is data (strata.h: the
 * schedule's phases, batches and systems, a trampoline each; the gates,
 * the state machines and what their transitions run); this walks it.
 *
 * One step: the transitions asked for since the last step; each phase in
 * order, an ordinary one once, a fixed one (`rate`) 0..max_runs times as
 * its accumulator says, with the transitions asked for during each run
 * applied after it; then the transitions the step asked for. A phase's
 * batches run in order: a batch of one system that is not split runs
 * alone in one deferral scope, any other through strata_batch_run
 * (prepared, dispatched and waited for on the pool, then merged here,
 * where creating entities is a call down). A system runs when its switch
 * is on and, if it has one, its gate is open (step_gate): the common
 * system has no gate and costs one flag test for it. */
#include "step.h"

#include <string.h>

/* Keep the first error of a step, run the rest. */
static void step_keep(strata_result_t *first, strata_result_t r) {
    if (*first == STRATA_OK) {
        *first = r;
    }
}

/* The systems' switches: a bool by id in the resource block. */
static bool *step_switches(const strata_world_t *w, const strata_schedule_t *s) {
    return (bool *)(void *)((unsigned char *)w->resources + s->switches);
}

/* Machine m's state in the resource block. */
static strata_machine_state_t *step_machine(const strata_world_t *w, const strata_schedule_t *s, uint32_t m) {
    return (strata_machine_state_t *)(void *)((unsigned char *)w->resources + s->machines[m].offset);
}

/* --- A batch: prepare, dispatch (pool.c), merge -------------------------- */

/* The creations view `task` recorded, made now, one entity at a time.
 * Returns the first error (an entity that could not be made is lost). */
static strata_result_t step_spawns(strata_world_t *w, uint32_t task) {
    strata_result_t first = STRATA_OK;
    sti_spawn_t sp;
    for (size_t at = 0; sti_pool_spawn_next(w, task, &at, &sp);) {
        for (uint32_t i = 0; i < sp.n; i++) {
            strata_entity_t e;
            step_keep(&first, strata_entity_create_many(w, 1, sp.k, sp.ids, sp.values, &e));
        }
    }
    return first;
}

/* Everything the dispatched batch's `tasks` views recorded, into the world
 * in schedule and chunk order: the marks (the rows as they were visited,
 * then the set / mut calls), then system by system its events (its
 * chunks' in chunk order, at its moment) and view by view its created
 * entities, commands and destroys; then the settle. Returns the first
 * error. */
static strata_result_t step_merge(strata_world_t *w, uint32_t tasks) {
    strata_result_t first = sti_pool_merge_marks(w);
    for (uint32_t i = 0; i < tasks;) {
        uint32_t end = i;
        step_keep(&first, sti_pool_merge_events(w, i, &end));
        for (; i < end; i++) {
            step_keep(&first, step_spawns(w, i));
            step_keep(&first, sti_pool_apply(w, i));
        }
    }
    step_keep(&first, sti_command_settle(w));
    return first;
}

/* A batch of items[0..count) on the pool: prepared, dispatched, merged. */
STI_HOT strata_result_t step_pool(strata_world_t *w, const strata_batch_item_t *items, uint32_t count,
                                  strata_system_fn_t run, float dt) {
    uint32_t tasks = 0;
    strata_result_t r = sti_pool_prepare(w, items, count, &tasks);
    if (r != STRATA_OK) {
        return r;
    }
    if (tasks == 0) { /* split systems without a row: nothing ran, nothing recorded */
        return w->cmd_count == 0 && !w->sets_pending ? STRATA_OK : sti_command_settle(w);
    }
    sti_pool_dispatch(w, run, dt);
    return step_merge(w, tasks);
}

strata_result_t strata_batch_run(strata_world_t *w, const strata_batch_item_t *items, uint32_t count,
                                 strata_system_fn_t run, float dt) {
    STRATA_ASSERT(w != NULL && run != NULL && (items != NULL || count == 0));
    STRATA_ASSERT(w->in_step && !sti_deferred(w) && w->slot == NULL);
    return step_pool(w, items, count, run, dt);
}

#if defined(__GNUC__) || defined(__clang__)
#define STEP_NOINLINE __attribute__((noinline))
#else
#define STEP_NOINLINE
#endif

/* step_ctx_t.elapsed of a step stepped by dt: its nanoseconds are worked out when asked for. */
#define STEP_NO_NS UINT64_MAX

/* dt seconds in nanoseconds, rounded: 0 for a negative dt or NaN, saturated past 2^63 ns. */
static uint64_t step_ns(float dt) {
    double ns = (double)dt * 1e9;
    if (!(ns > 0.0)) {
        return 0;
    }
    return ns >= 9.2e18 ? UINT64_C(9200000000000000000) : (uint64_t)(ns + 0.5);
}

/* --- Gates ----------------------------------------------------------------- */

/* True if every test of gate g passes now. */
STI_HOT bool step_tests_pass(const strata_world_t *w, const strata_schedule_t *s, const strata_gate_desc_t *g) {
    const unsigned char *res = w->resources;
    for (const strata_gate_test_t *t = s->tests + g->first, *end = t + g->count; t < end; t++) {
        uint64_t pass;
        if (t->kind == STRATA_TEST_STATE) {
            uint32_t current;
            memcpy(&current, res + t->at, sizeof current); /* strata_machine_state_t.current */
            pass = current < 64 ? t->value >> current : 0;
        } else {
            pass = (res[t->at] != 0) == (t->value != 0);
        }
        if ((pass & 1u) == 0) {
            return false;
        }
    }
    return true;
}

/* True if system d (which has a gate) runs in this run of its phase:
 * its tests pass, then its counter, advanced by the run (`elapsed`: the
 * run's time in the phase's units; 1 for a counter of runs), reaches its
 * period. The counter keeps what is past the period, less than a period. */
static STEP_NOINLINE bool step_gate(strata_world_t *w, const strata_schedule_t *s, const strata_system_desc_t *d,
                                    float dt, uint64_t elapsed) {
    const strata_gate_desc_t *g = &s->gates[d->gate];
    if (!step_tests_pass(w, s, g)) {
        return false;
    }
    if (g->clock == 0) {
        return true;
    }
    unsigned char *at = (unsigned char *)w->resources + g->counter;
    uint64_t counter;
    memcpy(&counter, at, sizeof counter);
    uint64_t add = g->clock == STRATA_GATE_RUNS ? 1 : elapsed == STEP_NO_NS ? step_ns(dt) : elapsed;
    counter = counter > UINT64_MAX - add ? UINT64_MAX : counter + add;
    bool fires = counter >= g->period;
    if (fires) {
        counter -= g->period;
        counter = counter >= g->period ? counter % g->period : counter;
    }
    memcpy(at, &counter, sizeof counter);
    return fires;
}

/* --- Running systems ----------------------------------------------------- */

/* What one run of a phase (or a transition point) hands its systems. */
typedef struct step_ctx_t {
    const strata_schedule_t *s;
    const bool *enabled;
    const strata_step_observer_t *o; /* the inspector's timing, or NULL */
    float dt;                        /* what the systems see */
    uint64_t elapsed;                /* what an interval counts for this run (STEP_NO_NS: the step's, from dt) */
    uint32_t moment;                 /* the events' clock for every system of the run; UINT32_MAX: each its id */
} step_ctx_t;

/* What a batch's view runs: the system's trampoline (in a view nothing is
 * applied, so its result says nothing). */
static void step_call(strata_world_t *view, uint32_t system, float dt) {
    (void)view->schema->schedule->systems[system].call(view, dt);
}

/* System `id` of s as a batch takes it, stamped at `moment`. */
static strata_batch_item_t step_item(const strata_schedule_t *s, uint32_t id, uint32_t moment) {
    const strata_system_desc_t *d = &s->systems[id];
    return (strata_batch_item_t){.system = id,
                                 .query = d->query,
                                 .position = moment,
                                 .parallel = (d->flags & STRATA_SYSTEM_PARALLEL) != 0,
                                 .main_thread = (d->flags & STRATA_SYSTEM_MAIN_THREAD) != 0,
                                 .writes = d->writes};
}

/* Run system `id` of s once, its emits stamped at `moment`: alone in one
 * deferral scope (its structural changes apply when it returns), or split
 * into chunks on the pool. Returns the first error. */
STI_HOT strata_result_t step_run(strata_world_t *w, const strata_schedule_t *s, uint32_t id, float dt,
                                 uint32_t moment) {
    const strata_system_desc_t *d = &s->systems[id];
    if (w->schema->event_count > 0) {
        strata_event_at(w, moment);
    }
    if (STI_UNLIKELY((d->flags & STRATA_SYSTEM_PARALLEL) != 0)) {
        strata_batch_item_t *items = sti_pool_items(w, 1); /* reserved with the pool: never NULL here */
        if (items == NULL) {
            return STRATA_ERR_NOMEM;
        }
        items[0] = step_item(s, id, moment);
        return step_pool(w, items, 1, step_call, dt);
    }
    sti_scope_open(w);
    strata_result_t first = d->call(w, dt);
    sti_scope_close(w);
    if (w->cmd_count != 0 || w->sets_pending) { /* in a step the destroys wait for its end */
        step_keep(&first, sti_command_settle(w));
    }
    return first;
}

/* Run system `id` of the run c, told to the observer. */
STI_HOT strata_result_t step_one(strata_world_t *w, const step_ctx_t *c, uint32_t id) {
    strata_step_observe(c->o, w, id, false);
    strata_result_t r = step_run(w, c->s, id, c->dt, c->moment == UINT32_MAX ? id : c->moment);
    strata_step_observe(c->o, w, id, true);
    return r;
}

/* True if system `id` runs in run c: its switch is on and its gate, if any, open. */
STI_HOT bool step_runs(strata_world_t *w, const step_ctx_t *c, uint32_t id) {
    const strata_system_desc_t *d = &c->s->systems[id];
    return c->enabled[id] && ((d->flags & STRATA_SYSTEM_GATED) == 0 || step_gate(w, c->s, d, c->dt, c->elapsed));
}

/* Run batch b through the pool: its systems that run, all begun and ended
 * together for the observer (each is given the batch's time). When all of
 * them run, the batch's own items go as they are. Returns the first error. */
STI_HOT strata_result_t step_shared(strata_world_t *w, const step_ctx_t *c, const strata_batch_desc_t *b) {
    const strata_schedule_t *s = c->s;
    const uint32_t *ids = s->order + b->first;
    uint32_t k = 0;
    while (k < b->count && step_runs(w, c, ids[k])) {
        k++;
    }
    const strata_batch_item_t *items = b->items;
    if (k < b->count) { /* some stay out: the others' items, in order, in the pool's buffer */
        strata_batch_item_t *some = sti_pool_items(w, b->count); /* reserved with the pool: never NULL here */
        if (some == NULL) {
            return STRATA_ERR_NOMEM;
        }
        memcpy(some, items, sizeof *some * k);
        for (uint32_t i = k + 1; i < b->count; i++) {
            if (step_runs(w, c, ids[i])) {
                some[k++] = items[i];
            }
        }
        items = some;
    }
    if (k == 0) {
        return STRATA_OK;
    }
    if (STI_UNLIKELY(c->o != NULL)) {
        for (uint32_t i = 0; i < k; i++) {
            strata_step_observe(c->o, w, items[i].system, false);
        }
    }
    strata_result_t r = step_pool(w, items, k, step_call, c->dt);
    if (STI_UNLIKELY(c->o != NULL)) {
        for (uint32_t i = 0; i < k; i++) {
            strata_step_observe(c->o, w, items[i].system, true);
        }
    }
    return r;
}

/* Run batches [b, end) once, as run c: a batch of one system that is not
 * split here, whose checks are its switch and, if it has one, its gate;
 * a batch for the pool (several systems, or one split) in step_shared.
 * Returns the first error. */
STI_HOT strata_result_t step_batches(strata_world_t *w, const step_ctx_t *c, const strata_batch_desc_t *b,
                                     const strata_batch_desc_t *end) {
    const strata_system_desc_t *systems = c->s->systems;
    const bool *enabled = c->enabled;
    strata_result_t first = STRATA_OK;
    for (; b < end; b++) {
        uint32_t id = b->alone;
        if (id != STRATA_NO_SYSTEM) {
            if (enabled[id] && ((systems[id].flags & STRATA_SYSTEM_GATED) == 0 ||
                                step_gate(w, c->s, &systems[id], c->dt, c->elapsed))) {
                step_keep(&first, step_one(w, c, id));
            }
        } else {
            step_keep(&first, step_shared(w, c, b));
        }
    }
    return first;
}

/* Run phase p's batches once, as run c. Returns the first error. */
STI_HOT strata_result_t step_phase(strata_world_t *w, const step_ctx_t *c, const strata_phase_desc_t *p) {
    return step_batches(w, c, c->s->batches + p->first, c->s->batches + p->first + p->count);
}

/* --- States ------------------------------------------------------------------ */

/* Run the systems of machine m's transitions that leave (`enter` false) or
 * enter `state`, in schedule order, each whose switch is on and whose
 * conditions hold. Returns the first error. */
static strata_result_t step_transition_systems(strata_world_t *w, const step_ctx_t *c, uint32_t m, uint32_t state,
                                               bool enter) {
    const strata_schedule_t *s = c->s;
    strata_result_t first = STRATA_OK;
    for (uint32_t i = 0; i < s->transition_count; i++) {
        const strata_transition_desc_t *t = &s->transitions[i];
        if (t->machine == m && t->enter == enter && state < 64 && (t->states >> state & 1u) != 0 &&
            step_runs(w, c, t->system)) {
            step_keep(&first, step_one(w, c, t->system));
        }
    }
    return first;
}

/* A transition point: each machine with a request, in declaration order,
 * leaves its state (its on_exit systems run while it is still in it), then
 * enters the new one (its on_enter systems run in it). A request made by
 * those systems waits for the next point. Returns the first error. */
static strata_result_t step_transitions(strata_world_t *w, const step_ctx_t *c) {
    const strata_schedule_t *s = c->s;
    strata_result_t first = STRATA_OK;
    for (uint32_t m = 0; m < s->machine_count; m++) {
        strata_machine_state_t *st = step_machine(w, s, m);
        if (!st->pending) {
            continue;
        }
        uint32_t from = st->current, to = st->next;
        bool entered = st->entered;
        st->pending = false;
        if (to >= s->machines[m].state_count) {
            continue; /* asked through the resource block with no such state: nothing to do */
        }
        if (entered) {
            step_keep(&first, step_transition_systems(w, c, m, from, false));
        }
        st = step_machine(w, s, m);
        st->current = to;
        st->entered = true;
        step_keep(&first, step_transition_systems(w, c, m, to, true));
    }
    return first;
}

/* True if a machine of s has a request waiting. */
static bool step_requested(const strata_world_t *w, const strata_schedule_t *s) {
    for (uint32_t m = 0; m < s->machine_count; m++) {
        if (step_machine(w, s, m)->pending) {
            return true;
        }
    }
    return false;
}

/* --- Fixed phases ------------------------------------------------------------ */

/* Phase p's clock in the resource block. */
static strata_phase_clock_t *step_clock(const strata_world_t *w, const strata_phase_desc_t *p) {
    return (strata_phase_clock_t *)(void *)((unsigned char *)w->resources + p->clock);
}

/* The end of a fixed run: the destroys its systems scheduled are applied
 * (as at a step's end), so the entities a run frees are reused by the
 * next run alike whether it is in the same step or the next one. */
static STEP_NOINLINE strata_result_t step_run_settle(strata_world_t *w) {
    w->in_step = false;
    strata_result_t r = sti_command_settle(w);
    w->in_step = true;
    return r;
}

/* Fixed phase p over a step of `ns` nanoseconds: its accumulator gains ns x
 * rate; each full period (STRATA_TICKS_PER_SECOND of them) is one run,
 * with dt = 1/rate, its destroys applied and a transition point after it,
 * up to max_runs; whole
 * periods left beyond the cap are dropped. Returns the first error. */
STI_HOT strata_result_t step_fixed(strata_world_t *w, const step_ctx_t *c, const strata_phase_desc_t *p) {
    uint64_t ns = c->elapsed == STEP_NO_NS ? step_ns(c->dt) : c->elapsed;
    strata_phase_clock_t *clock = step_clock(w, p);
    uint64_t ticks = clock->ticks, add;
    if (STI_UNLIKELY(ticks >= STRATA_TICKS_PER_SECOND)) {
        ticks %= STRATA_TICKS_PER_SECOND; /* a load keeps it below; a write through the block may not */
    }
    if (STI_UNLIKELY(__builtin_mul_overflow(ns, (uint64_t)p->rate, &add) || add > UINT64_MAX - ticks)) {
        add = UINT64_MAX - ticks; /* years of a step: past the cap whatever is dropped */
    }
    ticks += add;
    strata_result_t first = STRATA_OK;
    uint32_t runs = 0;
    if (ticks >= STRATA_TICKS_PER_SECOND) {
        step_ctx_t run = {c->s, c->enabled, c->o, p->dt, STRATA_TICKS_PER_SECOND, p->moment};
        for (; ticks >= STRATA_TICKS_PER_SECOND && runs < p->max_runs; runs++) {
            ticks -= STRATA_TICKS_PER_SECOND;
            clock = step_clock(w, p);
            clock->ticks = ticks; /* the fraction, as the run's systems may read it */
            clock->runs = runs + 1;
            step_keep(&first, step_phase(w, &run, p));
            if (w->doomed_count != 0) { /* a run ends as a step does: what it destroyed goes now */
                step_keep(&first, step_run_settle(w));
            }
            if (STI_UNLIKELY(c->s->machine_count > 0) && step_requested(w, c->s)) {
                step_keep(&first, step_transitions(w, &run));
            }
        }
        if (STI_UNLIKELY(ticks >= STRATA_TICKS_PER_SECOND)) {
            ticks %= STRATA_TICKS_PER_SECOND; /* the whole periods past the cap are dropped */
        }
    }
    clock = step_clock(w, p);
    clock->ticks = ticks;
    clock->runs = runs;
    return first;
}

/* --- The step ------------------------------------------------------------------ */

/* The phases of a step with state machines or fixed phases: the
 * transitions asked for before it, each phase (a fixed one 0..n times),
 * the transitions asked for during it. Returns the first error. */
static STEP_NOINLINE strata_result_t step_loop(strata_world_t *w, step_ctx_t *c) {
    const strata_schedule_t *s = c->s;
    strata_result_t first = STRATA_OK;
    if (s->machine_count > 0 && step_requested(w, s)) {
        c->moment = 0; /* before every system of the step */
        step_keep(&first, step_transitions(w, c));
        c->moment = UINT32_MAX;
    }
    for (const strata_phase_desc_t *p = s->phases, *end = p + s->phase_count; p < end; p++) {
        step_keep(&first, p->rate != 0 ? step_fixed(w, c, p) : step_phase(w, c, p));
    }
    if (s->machine_count > 0 && step_requested(w, s)) {
        c->moment = s->system_count - 1; /* after every system */
        step_keep(&first, step_transitions(w, c));
    }
    return first;
}

/* One step of `ns` nanoseconds (STEP_NO_NS: dt's, when asked for) whose systems see dt. */
STI_HOT strata_result_t step_world(strata_world_t *w, float dt, uint64_t ns) {
    STRATA_ASSERT(w != NULL && !w->in_step); /* steps do not nest */
    const strata_schema_t *schema = w->schema;
    const strata_schedule_t *s = schema->schedule;
    strata_result_t first = STRATA_OK;
    w->in_step = true; /* strata_step_begin */
    if (schema->event_count > 0) {
        strata_event_step(w);
    }
    if (s != NULL) {
        step_ctx_t c = {s, step_switches(w, s), w->observer, dt, ns, UINT32_MAX};
        if ((s->fixed_count | s->machine_count) == 0) { /* the phases' batches follow each other: one run */
            first = step_batches(w, &c, s->batches, s->batches + s->batch_count);
        } else {
            first = step_loop(w, &c);
        }
    }
    if (schema->event_count > 0) { /* the step's end, and the time until the next step */
        strata_event_at(w, schema->system_count > 0 ? schema->system_count - 1 : 0);
    }
    step_keep(&first, sti_step_close(w));
    sti_capacity_step_end(w); /* the tables that stayed empty, when the world frees them */
    return first;
}

strata_result_t strata_world_step(strata_world_t *w, float dt) {
    return step_world(w, dt, STEP_NO_NS);
}

strata_result_t strata_world_step_ns(strata_world_t *w, uint64_t ns) {
    return step_world(w, (float)((double)ns * 1e-9), ns);
}

strata_result_t strata_system_run(strata_world_t *w, uint32_t id, float dt) {
    STRATA_ASSERT(w != NULL);
    const strata_schedule_t *s = w->schema->schedule;
    if (s == NULL || id >= s->system_count) {
        return STRATA_OK;
    }
    return step_run(w, s, id, dt, id);
}

void strata_system_set_enabled(strata_world_t *w, uint32_t id, bool enabled) {
    STRATA_ASSERT(w != NULL);
    const strata_schedule_t *s = w->schema->schedule;
    if (s != NULL && id < s->system_count) {
        step_switches(w, s)[id] = enabled;
    }
}

bool strata_system_enabled(const strata_world_t *w, uint32_t id) {
    STRATA_ASSERT(w != NULL);
    const strata_schedule_t *s = w->schema->schedule;
    return s != NULL && id < s->system_count && step_switches(w, s)[id];
}

bool strata_system_gate_open(const strata_world_t *w, uint32_t id) {
    STRATA_ASSERT(w != NULL);
    const strata_schedule_t *s = w->schema->schedule;
    if (s == NULL || id >= s->system_count) {
        return false;
    }
    const strata_system_desc_t *d = &s->systems[id];
    return (d->flags & STRATA_SYSTEM_GATED) == 0 || step_tests_pass(w, s, &s->gates[d->gate]);
}

/* --- States and fixed phases, for the game ------------------------------------ */

uint32_t strata_state_get(const strata_world_t *w, uint32_t machine) {
    STRATA_ASSERT(w != NULL);
    const strata_schedule_t *s = w->schema->schedule;
    if (s == NULL || machine >= s->machine_count) {
        return UINT32_MAX;
    }
    return step_machine(w, s, machine)->current;
}

strata_result_t strata_state_set(strata_world_t *w, uint32_t machine, uint32_t state) {
    STRATA_ASSERT(w != NULL);
    const strata_schedule_t *s = w->schema->schedule;
    if (s == NULL || machine >= s->machine_count || state >= s->machines[machine].state_count) {
        return STRATA_ERR_MISSING;
    }
    strata_machine_state_t *st = step_machine(w, s, machine);
    st->next = state;
    st->pending = true;
    return STRATA_OK;
}

/* Phase `phase` of w's schedule when it is fixed, else NULL. */
static const strata_phase_desc_t *step_fixed_phase(const strata_world_t *w, uint32_t phase) {
    const strata_schedule_t *s = w->schema->schedule;
    return s != NULL && phase < s->phase_count && s->phases[phase].rate > 0 ? &s->phases[phase] : NULL;
}

double strata_phase_fraction(const strata_world_t *w, uint32_t phase) {
    STRATA_ASSERT(w != NULL);
    const strata_phase_desc_t *p = step_fixed_phase(w, phase);
    if (p == NULL) {
        return 0.0;
    }
    return (double)(step_clock(w, p)->ticks % STRATA_TICKS_PER_SECOND) / (double)STRATA_TICKS_PER_SECOND;
}

uint32_t strata_phase_runs(const strata_world_t *w, uint32_t phase) {
    STRATA_ASSERT(w != NULL);
    const strata_schedule_t *s = w->schema->schedule;
    if (s == NULL || phase >= s->phase_count) {
        return 0;
    }
    const strata_phase_desc_t *p = step_fixed_phase(w, phase);
    return p == NULL ? 1 : step_clock(w, p)->runs;
}

/* --- What the world and the saves ask ------------------------------------------- */

bool sti_schedule_valid(const strata_schema_t *schema) {
    const strata_schedule_t *s = schema->schedule;
    if (s == NULL) {
        return true;
    }
    uint64_t size = schema->resources_size;
    if (s->system_count == 0 || s->systems == NULL || s->order == NULL ||
        (s->batch_count > 0) != (s->batches != NULL) || (s->phase_count > 0 && s->phases == NULL) ||
        (s->gate_count > 0 && s->gates == NULL) || (s->test_count > 0 && s->tests == NULL) ||
        (s->machine_count > 0 && s->machines == NULL) || (s->transition_count > 0 && s->transitions == NULL) ||
        (uint64_t)s->switches + s->system_count > size ||
        (schema->event_count > 0 && schema->system_count != s->system_count)) {
        return false;
    }
    for (uint32_t i = 0; i < s->system_count; i++) {
        const strata_system_desc_t *d = &s->systems[i];
        bool has_query = d->query < schema->query_count;
        if (d->call == NULL || (!has_query && d->query != STRATA_NO_QUERY) ||
            ((d->flags & STRATA_SYSTEM_PARALLEL) != 0 && !has_query) ||
            ((d->flags & STRATA_SYSTEM_GATED) != 0 && d->gate >= s->gate_count)) {
            return false;
        }
    }
    for (uint32_t g = 0; g < s->gate_count; g++) {
        const strata_gate_desc_t *d = &s->gates[g];
        if ((uint64_t)d->first + d->count > s->test_count || d->clock > STRATA_GATE_TIME ||
            (d->clock != 0 && (d->period == 0 || (uint64_t)d->counter + sizeof(uint64_t) > size))) {
            return false;
        }
    }
    for (uint32_t i = 0; i < s->test_count; i++) {
        const strata_gate_test_t *t = &s->tests[i];
        if (t->kind == STRATA_TEST_STATE ? (uint64_t)t->at + sizeof(strata_machine_state_t) > size || t->at % 4 != 0
                                         : t->kind != STRATA_TEST_CONDITION || t->at >= size) {
            return false;
        }
    }
    for (uint32_t m = 0; m < s->machine_count; m++) {
        const strata_machine_desc_t *d = &s->machines[m];
        if (d->state_count == 0 || d->state_count > 64 || (uint64_t)d->offset + sizeof(strata_machine_state_t) > size ||
            d->offset % 4 != 0) {
            return false;
        }
    }
    for (uint32_t i = 0; i < s->transition_count; i++) {
        const strata_transition_desc_t *t = &s->transitions[i];
        if (t->system >= s->system_count || t->machine >= s->machine_count) {
            return false;
        }
    }
    uint64_t at = 0, fixed = 0; /* the phases' batches follow each other, then the batches' systems */
    for (uint32_t p = 0; p < s->phase_count; p++) {
        const strata_phase_desc_t *d = &s->phases[p];
        fixed += d->rate > 0;
        if (d->first != at || (d->rate > 0 && (d->max_runs == 0 || d->clock % 8 != 0 || d->moment >= s->system_count ||
                                               (uint64_t)d->clock + sizeof(strata_phase_clock_t) > size))) {
            return false;
        }
        at += d->count;
    }
    if (at != s->batch_count || fixed != s->fixed_count) {
        return false;
    }
    at = 0;
    for (uint32_t b = 0; b < s->batch_count; b++) {
        const strata_batch_desc_t *d = &s->batches[b];
        bool alone = d->count == 1 && d->items != NULL && d->items[0].system < s->system_count &&
                     (s->systems[d->items[0].system].flags & STRATA_SYSTEM_PARALLEL) == 0;
        if (d->first != at || d->count == 0 || d->items == NULL || at + d->count > s->system_count ||
            d->alone != (alone ? d->items[0].system : STRATA_NO_SYSTEM)) {
            return false;
        }
        for (uint32_t i = d->first; i < d->first + d->count; i++) {
            if (s->order[i] >= s->system_count || d->items[i - d->first].system != s->order[i]) {
                return false;
            }
        }
        at += d->count;
    }
    return at + s->transition_count >= s->system_count;
}

void sti_schedule_loaded(strata_world_t *w) {
    const strata_schedule_t *s = w->schema->schedule;
    for (uint32_t p = 0; s != NULL && p < s->phase_count; p++) {
        const strata_phase_desc_t *d = &s->phases[p];
        if (d->rate > 0) {
            strata_phase_clock_t *clock = step_clock(w, d);
            clock->ticks %= STRATA_TICKS_PER_SECOND; /* a fraction of a period, whatever the rate saved at */
            clock->runs = 0;
        }
    }
}

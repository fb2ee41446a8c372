/* step.c: the step loop. A generated world is data (strata.h: the
 * schedule's phases, batches and systems, a trampoline each); this walks
 * it. A batch of several systems (or one split into chunks) runs through
 * strata_batch_run: prepared, dispatched and waited for on the pool, then
 * merged here, where creating entities is a call down.
 *
 * Where the step will grow: a phase's batches run once a step today; a
 * fixed-rate phase runs them 0..n times (step_phase). A system's one check
 * is its switch (step_batch, step_items); a gated system (a run condition,
 * an interval, a state) will add one flag test there, the gate itself off
 * the common path. */
#include "entity.h"

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

/* True if system d runs alone (not through the pool) when its batch is its own. */
static bool step_alone(const strata_system_desc_t *d) {
    return (d->flags & STRATA_SYSTEM_PARALLEL) == 0;
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

strata_result_t strata_batch_run(strata_world_t *w, const strata_batch_item_t *items, uint32_t count,
                                 strata_system_fn_t run, float dt) {
    STRATA_ASSERT(w != NULL && run != NULL && (items != NULL || count == 0));
    STRATA_ASSERT(w->in_step && !sti_deferred(w) && w->slot == NULL);
    uint32_t tasks = 0;
    strata_result_t r = sti_pool_prepare(w, items, count, &tasks);
    if (r != STRATA_OK) {
        return r;
    }
    if (tasks == 0) { /* split systems without a row: nothing runs, nothing to merge */
        return sti_command_settle(w);
    }
    sti_pool_dispatch(w, run, dt);
    return step_merge(w, tasks);
}

/* --- Running systems ----------------------------------------------------- */

/* What a batch's view runs: the system's trampoline (in a view nothing is
 * applied, so its result says nothing). */
static void step_call(strata_world_t *view, uint32_t system, float dt) {
    (void)view->schema->schedule->systems[system].call(view, dt);
}

/* System `id` of s as a batch takes it. */
static strata_batch_item_t step_item(const strata_schedule_t *s, uint32_t id) {
    const strata_system_desc_t *d = &s->systems[id];
    return (strata_batch_item_t){.system = id,
                                 .query = d->query,
                                 .position = id,
                                 .parallel = (d->flags & STRATA_SYSTEM_PARALLEL) != 0,
                                 .main_thread = (d->flags & STRATA_SYSTEM_MAIN_THREAD) != 0,
                                 .writes = d->writes};
}

/* Run system `id` of s once at its moment: alone in one deferral scope (its
 * structural changes apply when it returns), or split into chunks on the
 * pool. Returns the first error. */
static strata_result_t step_run(strata_world_t *w, const strata_schedule_t *s, uint32_t id, float dt) {
    const strata_system_desc_t *d = &s->systems[id];
    if (w->schema->event_count > 0) {
        strata_event_at(w, id);
    }
    if (!step_alone(d)) {
        strata_batch_item_t *items = sti_pool_items(w, 1); /* reserved with the pool: never NULL here */
        if (items == NULL) {
            return STRATA_ERR_NOMEM;
        }
        items[0] = step_item(s, id);
        return strata_batch_run(w, items, 1, step_call, dt);
    }
    strata_defer_begin(w);
    strata_result_t first = d->call(w, dt);
    step_keep(&first, strata_defer_end(w));
    return first;
}

/* The enabled systems of batch b in the pool's items; their number. */
static uint32_t step_items(const strata_schedule_t *s, const strata_batch_desc_t *b, const bool *enabled,
                           strata_batch_item_t *items) {
    uint32_t k = 0;
    for (uint32_t i = b->first; i < b->first + b->count; i++) {
        uint32_t id = s->order[i];
        if (enabled[id]) {
            items[k++] = step_item(s, id);
        }
    }
    return k;
}

/* Run batch b of s: its one system alone, or its enabled systems through
 * strata_batch_run. The observer o (may be NULL) times a batch as a whole:
 * each of its systems is given the batch's time. Returns the first error. */
static strata_result_t step_batch(strata_world_t *w, const strata_schedule_t *s, const strata_batch_desc_t *b,
                                  const bool *enabled, const strata_step_observer_t *o, float dt) {
    uint32_t id = s->order[b->first];
    if (b->count == 1 && step_alone(&s->systems[id])) {
        if (!enabled[id]) {
            return STRATA_OK;
        }
        strata_step_observe(o, w, id, false);
        strata_result_t r = step_run(w, s, id, dt);
        strata_step_observe(o, w, id, true);
        return r;
    }
    strata_batch_item_t *items = sti_pool_items(w, b->count); /* reserved with the pool: never NULL here */
    if (items == NULL) {
        return STRATA_ERR_NOMEM;
    }
    uint32_t k = step_items(s, b, enabled, items);
    if (k == 0) {
        return STRATA_OK;
    }
    for (uint32_t i = 0; o != NULL && i < k; i++) {
        strata_step_observe(o, w, items[i].system, false);
    }
    strata_result_t r = strata_batch_run(w, items, k, step_call, dt);
    for (uint32_t i = 0; o != NULL && i < k; i++) {
        strata_step_observe(o, w, items[i].system, true);
    }
    return r;
}

/* Run phase p of s: its batches in order, once. Returns the first error. */
static strata_result_t step_phase(strata_world_t *w, const strata_schedule_t *s, const strata_phase_desc_t *p,
                                  const bool *enabled, const strata_step_observer_t *o, float dt) {
    strata_result_t first = STRATA_OK;
    for (uint32_t b = p->first; b < p->first + p->count; b++) {
        step_keep(&first, step_batch(w, s, &s->batches[b], enabled, o, dt));
    }
    return first;
}

strata_result_t strata_world_step(strata_world_t *w, float dt) {
    STRATA_ASSERT(w != NULL);
    const strata_schema_t *schema = w->schema;
    const strata_schedule_t *s = schema->schedule;
    strata_result_t first = STRATA_OK;
    strata_step_begin(w);
    if (schema->event_count > 0) {
        strata_event_step(w);
    }
    if (s != NULL) {
        const bool *enabled = step_switches(w, s);
        const strata_step_observer_t *o = w->observer; /* the inspector's timing, or NULL */
        for (uint32_t p = 0; p < s->phase_count; p++) {
            step_keep(&first, step_phase(w, s, &s->phases[p], enabled, o, dt));
        }
    }
    if (schema->event_count > 0) { /* the step's end, and the time until the next step */
        strata_event_at(w, schema->system_count > 0 ? schema->system_count - 1 : 0);
    }
    step_keep(&first, strata_step_end(w));
    return first;
}

strata_result_t strata_system_run(strata_world_t *w, uint32_t id, float dt) {
    STRATA_ASSERT(w != NULL);
    const strata_schedule_t *s = w->schema->schedule;
    if (s == NULL || id >= s->system_count) {
        return STRATA_OK;
    }
    return step_run(w, s, id, dt);
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

/* record.c: what the inspector records while a client is attached (record.h):
 * after each step, the events the step held (a ring of the last values of
 * each type) and a history sample (the step's and each system's time, the
 * world's counts). Nothing is recorded, and nothing held, without a client:
 * the poll calls sti_record_step only while it times the step. */
#include "record.h"

#include "event.h"
#include "strata_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The event rings, made at the first recorded step; false: out of memory. */
static bool record_events_init(sti_api_t *api) {
    const strata_schema_t *s = api->world->schema;
    if (api->events != NULL || s->event_count == 0) {
        return true;
    }
    api->events = calloc(s->event_count, sizeof *api->events);
    api->event_rings = api->events != NULL ? s->event_count : 0;
    for (uint32_t e = 0; api->events != NULL && e < s->event_count; e++) {
        sti_event_ring_t *ring = &api->events[e];
        ring->steps = malloc(STI_EVENT_RING * sizeof *ring->steps);
        ring->systems = malloc(STI_EVENT_RING * sizeof *ring->systems);
        ring->values = malloc((size_t)STI_EVENT_RING * s->events[e].size);
        if (ring->steps == NULL || ring->systems == NULL || ring->values == NULL) {
            sti_record_free(api);
            return false;
        }
    }
    return api->events != NULL;
}

void sti_record_system_begin(sti_api_t *api) {
    const strata_world_t *w = api->world;
    if (!record_events_init(api)) {
        return;
    }
    for (uint32_t e = 0; api->events != NULL && e < api->event_rings; e++) {
        api->events[e].live_at_begin = w->events[e].q.tail - w->events[e].head;
    }
}

void sti_record_system_end(sti_api_t *api, uint32_t system) {
    const strata_world_t *w = api->world;
    for (uint32_t e = 0; api->events != NULL && e < api->event_rings; e++) {
        sti_event_ring_t *ring = &api->events[e];
        /* No event is dropped while a step runs, and a buffer that moves
         * its events to its front keeps their count: the difference is
         * what the system appended (in a batch, the first system's end
         * takes the batch's). */
        uint32_t live = w->events[e].q.tail - w->events[e].head;
        uint32_t appended = live > ring->live_at_begin ? live - ring->live_at_begin : 0;
        ring->live_at_begin = live;
        if (appended == 0) {
            continue;
        }
        if (ring->run_count > 0 && ring->runs[ring->run_count - 1].system == system) {
            ring->runs[ring->run_count - 1].count += appended; /* a fixed phase's runs */
            continue;
        }
        if (ring->run_count == ring->run_cap) {
            uint32_t cap = ring->run_cap ? ring->run_cap * 2 : 16;
            sti_emit_run_t *grown = realloc(ring->runs, cap * sizeof *grown);
            if (grown == NULL) {
                continue; /* out of memory: these are the game's, as far as the page says */
            }
            ring->runs = grown;
            ring->run_cap = cap;
        }
        ring->runs[ring->run_count++] = (sti_emit_run_t){system, appended};
    }
}

/* The system that emitted the k-th event of the step (its runs in order;
 * past them, events the game sent after the step: UINT32_MAX). */
static uint32_t record_emitter(const sti_event_ring_t *ring, uint32_t k) {
    for (uint32_t r = 0; r < ring->run_count; r++) {
        if (k < ring->runs[r].count) {
            return ring->runs[r].system;
        }
        k -= ring->runs[r].count;
    }
    return UINT32_MAX;
}

/* Record the events of type e that the world's last step emitted (stamped
 * in [step * N, (step + 1) * N)): count them all, keep the last of them. */
static void record_events_of(sti_api_t *api, uint32_t e) {
    /* The events' own clock counts the world's steps: the step just taken is w->event_step. */
    const strata_world_t *w = api->world;
    const sti_event_buf_t *b = &w->events[e];
    sti_event_ring_t *ring = &api->events[e];
    uint64_t n = w->schema->system_count > 0 ? w->schema->system_count : 1;
    uint64_t from = w->event_step * n, to = from + n;
    uint32_t size = b->size, count = 0;
    /* The marks of the step, newest first: each a run of events from one system. */
    for (uint32_t m = b->mark_tail; m > b->mark_head; m--) {
        const sti_event_mark_t *mark = &b->marks[m - 1];
        if (mark->stamp < from) {
            break;
        }
        if (mark->stamp >= to) {
            continue;
        }
        uint32_t end = m < b->mark_tail ? b->marks[m].start : b->q.tail;
        count += end - mark->start;
        ring->total += end - mark->start;
    }
    ring->last_step = count;
    /* The last STI_EVENT_RING of them, oldest first, into the ring, each
     * with its emitter: the observer's runs, from the step's first event. */
    uint32_t keep = count < STI_EVENT_RING ? count : STI_EVENT_RING, skip = count - keep, seen = 0;
    for (uint32_t m = b->mark_head; m < b->mark_tail && keep > 0; m++) {
        const sti_event_mark_t *mark = &b->marks[m];
        if (mark->stamp < from || mark->stamp >= to) {
            continue;
        }
        uint32_t end = m + 1 < b->mark_tail ? b->marks[m + 1].start : b->q.tail;
        uint32_t first = mark->start +
                         (skip > seen ? (skip - seen < end - mark->start ? skip - seen : end - mark->start) : 0);
        seen += first - mark->start;
        for (uint32_t i = first; i < end; i++, seen++) {
            uint32_t at = (ring->head + ring->count) % STI_EVENT_RING;
            if (ring->count == STI_EVENT_RING) {
                ring->head = (ring->head + 1) % STI_EVENT_RING;
            } else {
                ring->count++;
            }
            ring->steps[at] = api->steps;
            ring->systems[at] = record_emitter(ring, seen);
            memcpy(ring->values + (size_t)at * size, b->q.data + (size_t)i * size, size);
        }
    }
    ring->run_count = 0; /* the next step's runs start afresh */
}

/* Room for one more sample: grow the ring while its oldest sample is
 * younger than the history's span (up to STI_HISTORY_MAX), else reuse the
 * oldest. False: out of memory (the sample is dropped). */
static bool record_history_room(sti_api_t *api, double now) {
    sti_history_t *h = &api->history;
    uint32_t systems = api->desc.system_count;
    if (h->count < h->cap) {
        return true;
    }
    if (h->cap > 0 && (h->cap >= STI_HISTORY_MAX || now - h->t[h->head] > STI_HISTORY_SECONDS)) {
        h->head = (h->head + 1) % h->cap; /* the oldest goes */
        h->count--;
        return true;
    }
    uint32_t cap = h->cap ? h->cap * 2 : 1024;
    sti_history_t g = {.cap = cap, .head = 0, .count = h->count, .last_runs = h->last_runs};
    g.step = malloc(cap * sizeof *g.step);
    g.t = malloc(cap * sizeof *g.t);
    g.step_ms = malloc(cap * sizeof *g.step_ms);
    g.system_ms = malloc((size_t)cap * (systems ? systems : 1) * sizeof *g.system_ms);
    g.entities = malloc(cap * sizeof *g.entities);
    g.tables = malloc(cap * sizeof *g.tables);
    g.bytes = malloc(cap * sizeof *g.bytes);
    if (g.last_runs == NULL) {
        g.last_runs = calloc(systems ? systems : 1, sizeof *g.last_runs);
    }
    if (!g.step || !g.t || !g.step_ms || !g.system_ms || !g.entities || !g.tables || !g.bytes || !g.last_runs) {
        free(g.step), free(g.t), free(g.step_ms), free(g.system_ms), free(g.entities), free(g.tables), free(g.bytes);
        if (g.last_runs != h->last_runs) {
            free(g.last_runs);
        }
        return false;
    }
    for (uint32_t i = 0; i < h->count; i++) { /* oldest first, to the front */
        uint32_t at = (h->head + i) % h->cap;
        g.step[i] = h->step[at];
        g.t[i] = h->t[at];
        g.step_ms[i] = h->step_ms[at];
        memcpy(g.system_ms + (size_t)i * systems, h->system_ms + (size_t)at * systems, systems * sizeof *g.system_ms);
        g.entities[i] = h->entities[at];
        g.tables[i] = h->tables[at];
        g.bytes[i] = h->bytes[at];
    }
    h->last_runs = NULL; /* kept by g */
    sti_history_t old = *h;
    *h = g;
    free(old.step), free(old.t), free(old.step_ms), free(old.system_ms), free(old.entities), free(old.tables),
        free(old.bytes);
    return true;
}

/* Mark each state machine whose state changed since the last sample (the
 * first sample only notes them); false: out of memory. */
static bool record_states(sti_api_t *api, double now) {
    const strata_schedule_t *s = api->world->schema->schedule;
    const unsigned char *base = strata_world_resources(api->world);
    if (s == NULL || base == NULL || s->machine_count == 0) {
        return true;
    }
    bool first = api->states == NULL;
    if (first && (api->states = malloc(s->machine_count * sizeof *api->states)) == NULL) {
        return false;
    }
    for (uint32_t m = 0; m < s->machine_count; m++) {
        const strata_machine_desc_t *d = &s->machines[m];
        strata_machine_state_t st;
        memcpy(&st, base + d->offset, sizeof st);
        if (!first && st.current != api->states[m] && st.current < d->state_count) {
            sti_mark_t *mark = &api->marks[api->mark_count++ % STI_MARKS];
            mark->t = now;
            snprintf(mark->text, sizeof mark->text, "%s: %s", d->name, d->states[st.current]);
        }
        api->states[m] = st.current;
    }
    return true;
}

void sti_record_step(sti_api_t *api, double now) {
    const strata_world_t *w = api->world;
    if (api->desc.system_count > 0 && api->observed == api->recorded_observed) {
        return; /* no system ran since the last sample: the game polled without stepping */
    }
    api->recorded_observed = api->observed;
    if (record_events_init(api)) {
        for (uint32_t e = 0; api->events != NULL && e < w->schema->event_count; e++) {
            record_events_of(api, e);
        }
    }
    if (!record_states(api, now) || !record_history_room(api, now)) {
        return;
    }
    sti_history_t *h = &api->history;
    uint32_t at = (h->head + h->count++) % h->cap, systems = api->desc.system_count;
    strata_world_stats_t st;
    strata_world_stats(w, &st);
    h->step[at] = api->steps;
    h->t[at] = now;
    h->step_ms[at] = (float)(api->last_step * 1e3);
    h->entities[at] = st.entities;
    h->tables[at] = st.tables;
    h->bytes[at] = st.bytes;
    for (uint32_t i = 0; i < systems; i++) { /* a system that did not run this step took no time */
        bool ran = api->systems[i].runs != h->last_runs[i];
        h->system_ms[(size_t)at * systems + i] = ran ? (float)(api->systems[i].last * 1e3) : 0.0f;
        h->last_runs[i] = api->systems[i].runs;
    }
}

void sti_record_free(sti_api_t *api) {
    for (uint32_t e = 0; api->events != NULL && e < api->event_rings; e++) {
        free(api->events[e].steps);
        free(api->events[e].systems);
        free(api->events[e].values);
        free(api->events[e].runs);
    }
    free(api->events);
    api->events = NULL;
    api->event_rings = 0;
    free(api->states);
    api->states = NULL;
    api->mark_count = 0;
    sti_history_t *h = &api->history;
    free(h->step), free(h->t), free(h->step_ms), free(h->system_ms), free(h->entities), free(h->tables), free(h->bytes),
        free(h->last_runs);
    *h = (sti_history_t){0};
    api->recorded_observed = api->observed; /* the next sample is of a step taken after this */
}

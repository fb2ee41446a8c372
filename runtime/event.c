/* event.c: the event buffers and the step's clock (see event.h). */
#include "event.h"

/* Positions of the clock in one step: the systems, at least one. */
static uint64_t event_positions(const strata_world_t *w) {
    return w->schema->system_count > 0 ? w->schema->system_count : 1;
}

/* The moment of an emission now. */
static uint64_t event_now(const strata_world_t *w) {
    return w->event_step * event_positions(w) + w->event_position;
}

/* The index of the first live event stamped `stamp` or later (tail if none). */
static uint32_t event_find(const sti_event_buf_t *b, uint64_t stamp) {
    uint32_t lo = b->mark_head, hi = b->mark_tail;
    while (lo < hi) { /* the first mark with a stamp >= `stamp` */
        uint32_t mid = lo + (hi - lo) / 2;
        if (b->marks[mid].stamp < stamp) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < b->mark_tail ? b->marks[lo].start : b->q.tail;
}

strata_result_t sti_events_init(strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    w->event_step = 0;
    w->event_position = (uint32_t)event_positions(w) - 1;
    if (s->event_count == 0) {
        return STRATA_OK;
    }
    size_t bytes = sizeof(sti_event_buf_t) * s->event_count;
    w->events = sti_mem_alloc(w, bytes);
    if (w->events == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memset(w->events, 0, bytes);
    for (uint32_t i = 0; i < s->event_count; i++) {
        STRATA_ASSERT(s->events[i].size > 0 && s->events[i].align <= 16);
        w->events[i].size = s->events[i].size;
        w->events[i].first_receiver = s->events[i].first_receiver < event_positions(w) ? s->events[i].first_receiver
                                                                                       : 0;
    }
    return STRATA_OK;
}

/* Free one buffer's arrays. */
static void event_buf_free(strata_world_t *w, sti_event_buf_t *b) {
    sti_mem_free(w, b->q.data, b->q.cap * b->size);
    sti_mem_free(w, b->marks, b->mark_cap * sizeof(sti_event_mark_t));
}

void sti_events_free(strata_world_t *w) {
    if (w->events == NULL) {
        return;
    }
    for (uint32_t i = 0; i < w->schema->event_count; i++) {
        event_buf_free(w, &w->events[i]);
    }
    sti_mem_free(w, w->events, sizeof(sti_event_buf_t) * w->schema->event_count);
    w->events = NULL;
}

strata_result_t sti_events_stage(strata_world_t *w, sti_event_buf_t **out) {
    uint32_t count = w->schema->event_count;
    *out = NULL;
    if (count == 0) {
        return STRATA_OK;
    }
    sti_event_buf_t *staged = sti_mem_alloc(w, sizeof(sti_event_buf_t) * count);
    if (staged == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memset(staged, 0, sizeof(sti_event_buf_t) * count);
    for (uint32_t i = 0; i < count; i++) {
        staged[i].size = w->events[i].size;
    }
    *out = staged;
    return STRATA_OK;
}

void sti_events_unstage(strata_world_t *w, sti_event_buf_t *staged) {
    if (staged == NULL) {
        return;
    }
    for (uint32_t i = 0; i < w->schema->event_count; i++) {
        event_buf_free(w, &staged[i]);
    }
    sti_mem_free(w, staged, sizeof(sti_event_buf_t) * w->schema->event_count);
}

/* Move the live events and marks to the front of their arrays. */
static void event_compact(sti_event_buf_t *b) {
    uint32_t live = b->q.tail - b->head, marks = b->mark_tail - b->mark_head;
    memmove(b->q.data, b->q.data + (size_t)b->head * b->size, (size_t)live * b->size);
    memmove(b->marks, b->marks + b->mark_head, sizeof(sti_event_mark_t) * marks);
    for (uint32_t i = 0; i < marks; i++) {
        b->marks[i].start -= b->head;
    }
    b->q.tail = live;
    b->head = 0;
    b->mark_head = 0;
    b->mark_tail = marks;
}

/* Room for `more` events and one mark: compact when the array is full and
 * at least as many are dead as live (each event moves at most once per
 * refill), else grow. NOMEM leaves only extra capacity. */
STI_COLD static strata_result_t event_room(strata_world_t *w, sti_event_buf_t *b, uint32_t more) {
    if (b->head > 0 && b->q.tail - b->head <= b->head &&
        ((size_t)b->q.tail + more > b->q.cap || b->mark_tail == b->mark_cap)) {
        event_compact(b);
    }
    strata_result_t r = sti_mem_grow(w, &b->q.data, b->size, &b->q.cap, (size_t)b->q.tail + more, 64);
    if (r == STRATA_OK) {
        r = sti_mem_grow(w, &b->marks, sizeof(sti_event_mark_t), &b->mark_cap, (size_t)b->mark_tail + 1, 8);
    }
    return r;
}

/* Make sure the last mark is the current moment's (room checked). */
static void event_mark(strata_world_t *w, sti_event_buf_t *b) {
    uint64_t now = event_now(w);
    if (b->mark_tail > b->mark_head) {
        sti_event_mark_t *last = &b->marks[b->mark_tail - 1];
        if (last->stamp == now) {
            return;
        }
        if (last->start == b->q.tail) { /* an empty run (opened, nothing emitted): it moves to now */
            last->stamp = now;
            return;
        }
    }
    b->marks[b->mark_tail++] = (sti_event_mark_t){now, b->q.tail};
}

/* Where this thread's emissions of `event` go: the world's buffer, or in a
 * batch's view its own staging buffer. */
static sti_event_buf_t *event_target(strata_world_t *w, uint32_t event) {
    return w->event_staged != NULL ? &w->event_staged[event] : &w->events[event];
}

/* Append n events to b at the current moment: room first, so a failure
 * leaves only extra capacity and nothing emitted is lost (a batch's view
 * remembers the failure for the batch to report). */
static strata_result_t event_append(strata_world_t *w, sti_event_buf_t *b, const void *values, uint32_t n) {
    if (STI_UNLIKELY((size_t)b->q.tail + n > b->q.cap || b->mark_tail == b->mark_cap)) {
        strata_result_t r = event_room(w, b, n);
        if (r != STRATA_OK) {
            w->event_lost = w->event_lost || (n > 0 && w->slot != NULL);
            return r;
        }
    }
    event_mark(w, b);
    if (n > 0) {
        memcpy(b->q.data + (size_t)b->q.tail * b->size, values, (size_t)n * b->size);
        b->q.tail += n;
    }
    return STRATA_OK;
}

strata_result_t sti_events_merge(strata_world_t *w, sti_event_buf_t *const *staged, uint32_t count) {
    STRATA_ASSERT(w->event_staged == NULL); /* the world merges, not a view */
    strata_result_t first = STRATA_OK;
    for (uint32_t e = 0; e < w->schema->event_count; e++) {
        sti_event_buf_t *b = &w->events[e];
        uint32_t n = 0;
        for (uint32_t i = 0; i < count; i++) {
            n += staged[i][e].q.tail;
        }
        strata_result_t r = n > 0 ? event_append(w, b, NULL, 0) : STRATA_OK; /* the mark, and room for it */
        if (r == STRATA_OK && (size_t)b->q.tail + n > b->q.cap) {
            (void)event_room(w, b, n); /* room for all at once; failing that, chunk by chunk below */
        }
        for (uint32_t i = 0; i < count; i++) {
            sti_event_buf_t *s = &staged[i][e];
            if (r == STRATA_OK && (size_t)b->q.tail + s->q.tail > b->q.cap) {
                r = event_room(w, b, s->q.tail); /* NOMEM: this chunk and the later ones are dropped */
            }
            if (r == STRATA_OK && s->q.tail > 0) {
                memcpy(b->q.data + (size_t)b->q.tail * b->size, s->q.data, (size_t)s->q.tail * b->size);
                b->q.tail += s->q.tail;
            }
            s->q.tail = s->head = s->mark_head = s->mark_tail = 0;
        }
        first = first == STRATA_OK ? r : first;
    }
    return first;
}

strata_result_t strata_event_send(strata_world_t *w, uint32_t event, const void *value) {
    STRATA_ASSERT(w != NULL && event < w->schema->event_count && value != NULL);
    return event_append(w, event_target(w, event), value, 1);
}

strata_result_t strata_event_append(strata_world_t *w, uint32_t event, const void *values, uint32_t n) {
    STRATA_ASSERT(w != NULL && event < w->schema->event_count && (values != NULL || n == 0));
    return event_append(w, event_target(w, event), values, n);
}

strata_result_t strata_event_push(strata_world_t *w, strata_event_queue_t *q, uint32_t event, const void *value) {
    STRATA_ASSERT(w != NULL && q != NULL && event < w->schema->event_count && value != NULL);
    sti_event_buf_t *b = event_target(w, event);
    if (q == &b->q || q == &w->event_full) {
        return event_append(w, b, value, 1);
    }
    strata_result_t r = sti_mem_grow(w, &q->data, b->size, &q->cap, (size_t)q->tail + 1, 64);
    if (r == STRATA_OK) {
        memcpy(q->data + (size_t)q->tail * b->size, value, b->size);
        q->tail++;
    }
    return r;
}

void strata_event_queue_free(strata_world_t *w, uint32_t event, strata_event_queue_t *q) {
    STRATA_ASSERT(w != NULL && q != NULL && event < w->schema->event_count);
    sti_mem_free(w, q->data, q->cap * w->events[event].size);
    *q = (strata_event_queue_t){0};
}

strata_event_queue_t *strata_event_open(strata_world_t *w, uint32_t event) {
    STRATA_ASSERT(w != NULL && event < w->schema->event_count);
    sti_event_buf_t *b = event_target(w, event);
    if (event_append(w, b, NULL, 0) != STRATA_OK) {
        w->event_full = (strata_event_queue_t){0}; /* no room: every emit calls send, which reports it */
        return &w->event_full;
    }
    return &b->q;
}

const void *strata_event_window(const strata_world_t *w, uint32_t event, uint32_t position, uint32_t *count) {
    STRATA_ASSERT(w != NULL && event < w->schema->event_count && count != NULL);
    const sti_event_buf_t *b = &w->events[event];
    *count = 0;
    if (b->head == b->q.tail) {
        return NULL; /* the fixed cost of an event nobody emitted */
    }
    uint64_t n = event_positions(w);
    uint64_t hi = w->event_step * n + position;
    uint64_t lo = hi >= n ? hi - n : 0;
    uint32_t first = event_find(b, lo), end = event_find(b, hi);
    if (first == end) {
        return NULL;
    }
    *count = end - first;
    return b->q.data + (size_t)first * b->size;
}

/* Drop the events stamped before `keep`; restart at the front when none is
 * left (the survivors of a late receiver stay put until event_room). */
static void event_drop(sti_event_buf_t *b, uint64_t keep) {
    b->head = event_find(b, keep);
    while (b->mark_head < b->mark_tail && b->marks[b->mark_head].stamp < keep) {
        b->mark_head++;
    }
    if (b->head == b->q.tail) {
        b->head = b->q.tail = b->mark_head = b->mark_tail = 0;
    }
}

void strata_event_step(strata_world_t *w) {
    STRATA_ASSERT(w != NULL);
    uint64_t n = event_positions(w);
    w->event_step++;
    w->event_position = 0;
    for (uint32_t i = 0; i < w->schema->event_count; i++) {
        sti_event_buf_t *b = &w->events[i];
        if (b->mark_tail != 0) { /* the earliest moment a window of this step reaches */
            event_drop(b, (w->event_step - 1) * n + b->first_receiver);
        }
    }
}

void strata_event_at(strata_world_t *w, uint32_t position) {
    STRATA_ASSERT(w != NULL && position < event_positions(w));
    w->event_position = position;
}

uint32_t strata_event_held(const strata_world_t *w, uint32_t event) {
    STRATA_ASSERT(w != NULL && event < w->schema->event_count);
    return w->events[event].q.tail - w->events[event].head;
}

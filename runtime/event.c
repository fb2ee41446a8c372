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
    }
    return STRATA_OK;
}

void sti_events_free(strata_world_t *w) {
    if (w->events == NULL) {
        return;
    }
    for (uint32_t i = 0; i < w->schema->event_count; i++) {
        sti_event_buf_t *b = &w->events[i];
        sti_mem_free(w, b->q.data, b->q.cap * b->size);
        sti_mem_free(w, b->marks, b->mark_cap * sizeof(sti_event_mark_t));
    }
    sti_mem_free(w, w->events, sizeof(sti_event_buf_t) * w->schema->event_count);
    w->events = NULL;
}

/* Make sure the last mark is the current moment's (room first): NOMEM
 * leaves only extra capacity. */
static strata_result_t event_mark(strata_world_t *w, sti_event_buf_t *b) {
    uint64_t now = event_now(w);
    if (b->mark_tail > b->mark_head) {
        sti_event_mark_t *last = &b->marks[b->mark_tail - 1];
        if (last->stamp == now) {
            return STRATA_OK;
        }
        if (last->start == b->q.tail) { /* an empty run (opened, nothing emitted): it moves to now */
            last->stamp = now;
            return STRATA_OK;
        }
    }
    strata_result_t r = sti_mem_grow(w, &b->marks, sizeof(sti_event_mark_t), &b->mark_cap, (size_t)b->mark_tail + 1, 8);
    if (r == STRATA_OK) {
        b->marks[b->mark_tail++] = (sti_event_mark_t){now, b->q.tail};
    }
    return r;
}

/* Reserve room for one more event and its mark, then write it: a failed
 * reserve leaves only extra capacity, so nothing emitted is lost. */
strata_result_t strata_event_send(strata_world_t *w, uint32_t event, const void *value) {
    STRATA_ASSERT(w != NULL && event < w->schema->event_count && value != NULL);
    sti_event_buf_t *b = &w->events[event];
    if (STI_UNLIKELY(b->q.tail == b->q.cap)) {
        strata_result_t r = sti_mem_grow(w, &b->q.data, b->size, &b->q.cap, (size_t)b->q.tail + 1, 64);
        if (r != STRATA_OK) {
            return r;
        }
    }
    strata_result_t r = event_mark(w, b);
    if (r != STRATA_OK) {
        return r;
    }
    sti_copy(b->q.data + (size_t)b->q.tail * b->size, value, b->size);
    b->q.tail++;
    return STRATA_OK;
}

strata_event_queue_t *strata_event_open(strata_world_t *w, uint32_t event) {
    STRATA_ASSERT(w != NULL && event < w->schema->event_count);
    sti_event_buf_t *b = &w->events[event];
    return event_mark(w, b) == STRATA_OK ? &b->q : NULL;
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

/* Drop the events stamped before `keep`; move the live ones down when they
 * are no more than the dead ones (each event moves at most once per drop). */
static void event_drop(sti_event_buf_t *b, uint64_t keep) {
    uint32_t head = event_find(b, keep);
    while (b->mark_head < b->mark_tail && b->marks[b->mark_head].stamp < keep) {
        b->mark_head++;
    }
    b->head = head;
    if (b->head == b->q.tail) {
        b->head = b->q.tail = b->mark_head = b->mark_tail = 0;
        return;
    }
    uint32_t live = b->q.tail - b->head;
    if (live <= b->head) {
        memmove(b->q.data, b->q.data + (size_t)b->head * b->size, (size_t)live * b->size);
        uint32_t marks = b->mark_tail - b->mark_head;
        memmove(b->marks, b->marks + b->mark_head, sizeof(sti_event_mark_t) * marks);
        for (uint32_t i = 0; i < marks; i++) {
            b->marks[i].start -= b->head;
        }
        b->q.tail = live;
        b->head = 0;
        b->mark_head = 0;
        b->mark_tail = marks;
    }
}

void strata_event_step(strata_world_t *w) {
    STRATA_ASSERT(w != NULL);
    uint64_t n = event_positions(w);
    w->event_step++;
    w->event_position = 0;
    uint64_t keep = (w->event_step - 1) * n; /* the earliest moment a window of this step reaches */
    for (uint32_t i = 0; i < w->schema->event_count; i++) {
        if (w->events[i].q.tail != w->events[i].head || w->events[i].mark_tail != 0) {
            event_drop(&w->events[i], keep);
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

/* event.h: the event buffers. One buffer per event type of the schema:
 * the events in emission order, stamped (in runs, by `marks`) with the
 * moment they were emitted, so a receiver's events are one contiguous slice.
 *
 * The clock: a step s (1, 2, ...) has one position per system of the
 * schedule (N of them, `strata_schema_t.system_count`, at least 1). The
 * moment of an emission is s * N + p, p the position of the running system;
 * between steps (and in strata_step_end's hooks) p is N - 1. The receiver
 * at position q of step s sees the moments [(s - 1) * N + q, s * N + q): the
 * windows of one receiver tile time, so it sees each event once and misses
 * none while it runs every step. A step drops what no window can reach any
 * more: whoever receives, enabled or not. The first receiver of an event
 * runs at position f (the generator's `first_receiver`), so no window of
 * step s reaches before (s - 1) * N + f: when every receiver runs after
 * every emitter (most events), the last step's events are all gone when a
 * step begins and the buffer restarts at its front, holding one step.
 * Otherwise the survivors stay where they are; they move to the front only
 * when the buffer is full (instead of growing it) and as many are dead. */
#ifndef STI_EVENT_H
#define STI_EVENT_H

#include "mem.h"

/* A run of events emitted at one moment: they start at `start`. */
typedef struct sti_event_mark_t {
    uint64_t stamp;
    uint32_t start;
} sti_event_mark_t;

/* One event type's buffer: live events are q.data[head..q.tail). Marks are
 * marks[mark_head..mark_tail), in stamp order. */
struct sti_event_buf_t {
    strata_event_queue_t q;  /* data, capacity, tail: generated emits append through it */
    uint32_t size;           /* bytes of one event */
    uint32_t first_receiver; /* the schema's: events older than that position of the last step are dropped */
    uint32_t head;
    sti_event_mark_t *marks;
    size_t mark_cap;
    uint32_t mark_head, mark_tail;
};

/* Allocate the buffers of the schema's events (none: nothing held). */
strata_result_t sti_events_init(strata_world_t *w);

/* Free them. */
void sti_events_free(strata_world_t *w);

/* Staging buffers for a batch's view (one per event type of the schema, in
 * *out; NULL when the schema has no events): while w->event_staged points
 * to them, a view's opens, emits and sends go there, on its own thread.
 * (The batch's first view needs none: its events come first, and no view
 * of its batch receives what it emits, so it writes the world's buffers.)
 * NOMEM: nothing held. */
strata_result_t sti_events_stage(strata_world_t *w, sti_event_buf_t **out);
/* Free staging buffers (NULL: nothing). */
void sti_events_unstage(strata_world_t *w, sti_event_buf_t *staged);
/* Append what staged[0..count) hold (the views of one system, in chunk
 * order) to the world's buffers under the current moment and empty them.
 * Room for all the chunks of an event type is made at once; failing that,
 * chunk by chunk: NOMEM when a chunk finds none, and it and the later
 * chunks of that type are dropped (a prefix in chunk order is kept). */
strata_result_t sti_events_merge(strata_world_t *w, sti_event_buf_t *const *staged, uint32_t count);

#endif /* STI_EVENT_H */

/* dirty.h: the changed sets. A query with `changed` terms has one: the
 * entities written (strata_set, strata_get_mut, strata_mark, an add, or a
 * system's write terms) since it last ran. A component with an on_set hook
 * has one too, fed by the same marks: the entities whose on_set is due
 * (observe.c runs them when changes settle). Membership is a flag bit in each
 * entity's record (loaded anyway by whoever marks or visits), so marking is
 * a bit test and an append, and an entity shows up once however often it
 * is written. A set holds room for every index, so marking never allocates.
 */
#ifndef STI_DIRTY_H
#define STI_DIRTY_H

#include "table.h"

/* Rows a `changed` visit resolves at a time (their flags cleared, their
 * places looked up), which generated code then yields without a call. */
#define STI_DIRTY_BATCH 64u

/* The set of entities written since a `changed` query last ran. While an
 * iteration is open, rows[0, batch) are the entries it resolved last; a
 * row not yet visited there counts as still in the set (a mark does not
 * append it again, an early end puts it back). */
struct sti_dirty_t {
    uint32_t query;        /* the query it belongs to (UINT32_MAX for an on_set set) */
    uint32_t component;    /* an on_set set's component (UINT32_MAX for a query's set) */
    bool busy;             /* an iteration over it is open */
    strata_entity_t *list; /* the entries in marking order; stale ones are skipped */
    uint32_t count;
    size_t capacity; /* at least record_capacity: a compaction always makes room */
    uint32_t cursor; /* while busy: the next entry to visit */
    uint32_t end;    /* while busy: the entries this iteration visits */
    uint32_t batch;  /* while busy: rows resolved */
    strata_iter_row_t rows[STI_DIRTY_BATCH];
};

/* Set up the sets, the query -> set map and the component -> sets map from
 * the schema (at creation, before any table); NOMEM: the caller destroys the world. */
strata_result_t sti_dirty_init(strata_world_t *w);
/* Empty every set (their entities are gone; the record flags are the caller's). */
void sti_dirty_empty(strata_world_t *w);
/* Free what sti_dirty_init and sti_dirty_reserve hold. */
void sti_dirty_free(strata_world_t *w);
/* Grow the sets with the records (to `capacity` indices); NOMEM changes nothing visible. */
strata_result_t sti_dirty_reserve(strata_world_t *w, size_t capacity);
/* Mark e (index valid) in the sets of `slots`. */
void sti_dirty_mark(strata_world_t *w, uint64_t slots, strata_entity_t e);
/* Mark rows [row, row + n) of t in the sets query q's writes feed. */
void sti_dirty_mark_rows(strata_world_t *w, uint32_t q, const sti_table_t *t, uint32_t row, uint32_t n);
/* Mark every row of t in the sets tracking it (its entities just arrived). */
void sti_dirty_mark_table(strata_world_t *w, const sti_table_t *t);

/* Mark e in the dirty sets tracking any of ids; nothing to do (one load and
 * a branch) when no query tracks changes. */
STI_HOT void sti_mark_ids(strata_world_t *w, strata_entity_t e, uint32_t k, const uint32_t *ids) {
    if (w->dirty_count == 0) {
        return;
    }
    uint64_t slots = 0;
    for (uint32_t i = 0; i < k; i++) {
        slots |= w->trackers[ids[i]];
    }
    if (slots != 0) {
        sti_dirty_mark(w, slots, e);
    }
}

/* The dirty set of query q, or NULL. */
static inline sti_dirty_t *sti_dirty_of(const strata_world_t *w, uint32_t q) {
    return w->dirty_count > 0 && w->query_dirty[q] != UINT32_MAX ? &w->dirty[w->query_dirty[q]] : NULL;
}

/* Open an iteration over d: it visits the entries there now. */
void sti_dirty_open(sti_dirty_t *d);
/* Resolve the next rows of it's query's changed set (at most one when its
 * writes feed other sets: each row is marked as it is yielded) and yield
 * the first; false when the set's entries are visited. */
bool sti_dirty_next(strata_iter_t *it);
/* Yield the next row the last sti_dirty_next resolved; false if none is left. */
bool sti_dirty_yield(strata_iter_t *it);
/* Close an iteration over a dirty set: keep what it did not visit and what was marked meanwhile. */
void sti_dirty_close(strata_iter_t *it);
/* How far ahead of the cursor the iteration asks for records. */
#define STI_DIRTY_PREFETCH 16u

/* The next entry of set k's open iteration still alive and flagged (its
 * flag cleared), in *e and its record; false when the visit is done. */
STI_HOT bool sti_dirty_take(strata_world_t *w, uint32_t k, strata_entity_t *e, sti_record_t **rec) {
    sti_dirty_t *d = &w->dirty[k];
    uint16_t bit = (uint16_t)STI_FLAG_DIRTY(k);
    while (d->cursor < d->end) {
        /* The entries are in marking order, scattered over the records. */
        if (d->cursor + STI_DIRTY_PREFETCH < d->end) {
            __builtin_prefetch(&w->records[(uint32_t)d->list[d->cursor + STI_DIRTY_PREFETCH]]);
        }
        *e = d->list[d->cursor++];
        *rec = sti_record_lookup(w, *e);
        if (*rec != NULL && ((*rec)->flags & bit) != 0) {
            (*rec)->flags &= (uint16_t)~bit; /* visited: a write from now on puts it in again */
            return true;
        }
    }
    return false;
}

/* Close set k's iteration (as sti_dirty_close). */
void sti_dirty_close_set(strata_world_t *w, uint32_t k);

#endif /* STI_DIRTY_H */

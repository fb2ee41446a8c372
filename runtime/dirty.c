/* dirty.c: the changed sets: setting them up, marking, visiting. */
#include "dirty.h"

/* The maps from the schema: which query owns which set, which sets track
 * each component, and which sets each query's writes feed. */
static void dirty_map(strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    memset(w->trackers, 0, sizeof(uint64_t) * s->component_count);
    uint32_t next = 0;
    for (uint32_t q = 0; q < s->query_count; q++) {
        w->query_dirty[q] = UINT32_MAX;
        if (!sti_mask_empty(&s->queries[q].changed)) {
            uint32_t k = next++;
            w->dirty[k].query = q;
            w->dirty[k].component = UINT32_MAX;
            w->query_dirty[q] = k;
            for (uint32_t c = 0; c < s->component_count; c++) {
                if (strata_mask_test(&s->queries[q].changed, c)) {
                    w->trackers[c] |= (uint64_t)1 << k;
                }
            }
        }
    }
    w->set_slots = 0;
    for (uint32_t c = 0; c < s->component_count; c++) {
        if (s->components[c].on_set != NULL) { /* the on_set sets, in component order */
            uint32_t k = next++;
            w->dirty[k].query = UINT32_MAX;
            w->dirty[k].component = c;
            w->trackers[c] |= (uint64_t)1 << k;
            w->set_slots |= (uint64_t)1 << k;
        }
    }
    for (uint32_t q = 0; q < s->query_count; q++) {
        uint64_t slots = 0;
        for (uint32_t c = 0; c < s->component_count; c++) {
            if (strata_mask_test(&s->queries[q].write, c)) {
                slots |= w->trackers[c];
            }
        }
        if (w->query_dirty[q] != UINT32_MAX) {
            slots &= ~((uint64_t)1 << w->query_dirty[q]); /* a system's own writes are not its changes */
        }
        w->query_marks[q] = slots;
    }
}

/* The sets (empty until records are reserved) and the maps. */
strata_result_t sti_dirty_init(strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    uint32_t sets = 0;
    for (uint32_t q = 0; q < s->query_count; q++) {
        sets += !sti_mask_empty(&s->queries[q].changed);
    }
    for (uint32_t c = 0; c < s->component_count; c++) {
        sets += s->components[c].on_set != NULL;
    }
    STRATA_ASSERT(sets <= STRATA_MAX_CHANGED);
    if (sets == 0) {
        return STRATA_OK;
    }
    w->dirty = sti_mem_alloc(w, sizeof(sti_dirty_t) * sets);
    if (w->dirty == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memset(w->dirty, 0, sizeof(sti_dirty_t) * sets);
    w->dirty_count = sets; /* so sti_dirty_free frees the array whatever fails next */
    w->query_dirty = sti_mem_alloc(w, sizeof(uint32_t) * s->query_count);
    w->query_marks = sti_mem_alloc(w, sizeof(uint64_t) * s->query_count);
    w->trackers = sti_mem_alloc(w, sizeof(uint64_t) * s->component_count);
    if (w->query_dirty == NULL || w->query_marks == NULL || w->trackers == NULL) {
        return STRATA_ERR_NOMEM; /* the caller destroys the world, these with it */
    }
    dirty_map(w);
    return STRATA_OK;
}

/* Every set empty, room kept. */
void sti_dirty_empty(strata_world_t *w) {
    for (uint32_t k = 0; k < w->dirty_count; k++) {
        w->dirty[k].count = 0;
    }
}

/* Each set's list, the sets and the maps. */
void sti_dirty_free(strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    if (w->dirty != NULL) {
        for (uint32_t k = 0; k < w->dirty_count; k++) {
            sti_mem_free(w, w->dirty[k].list, sizeof(strata_entity_t) * w->dirty[k].capacity);
        }
    }
    sti_mem_free(w, w->dirty, sizeof(sti_dirty_t) * w->dirty_count);
    sti_mem_free(w, w->query_dirty, sizeof(uint32_t) * s->query_count);
    sti_mem_free(w, w->query_marks, sizeof(uint64_t) * s->query_count);
    sti_mem_free(w, w->trackers, sizeof(uint64_t) * s->component_count);
}

/* Room in every set for `capacity` entity indices (records grow with them).
 * A set grown before another failed only holds more room. */
strata_result_t sti_dirty_reserve(strata_world_t *w, size_t capacity) {
    for (uint32_t k = 0; k < w->dirty_count; k++) {
        sti_dirty_t *d = &w->dirty[k];
        if (d->capacity < capacity) {
            strata_result_t r = sti_mem_resize(w, &d->list, sizeof(strata_entity_t), &d->capacity, capacity);
            if (r != STRATA_OK) {
                return r;
            }
        }
    }
    return STRATA_OK;
}

/* Drop the entries that need no visit: stale handles, entities no longer
 * flagged, and (while an iteration is open) those it visited; the open
 * iteration's cursor and end follow. */
static void dirty_compact(strata_world_t *w, sti_dirty_t *d, uint32_t k) {
    uint32_t from = d->busy ? d->cursor : 0;
    uint32_t kept = 0, end = 0;
    for (uint32_t i = from; i < d->count; i++) {
        const sti_record_t *rec = sti_record_lookup(w, d->list[i]);
        if (rec != NULL && (rec->flags & STI_FLAG_DIRTY(k)) != 0) {
            d->list[kept++] = d->list[i];
            end += d->busy && i < d->end;
        }
    }
    d->count = kept;
    d->cursor = 0;
    d->end = end;
}

/* True if e is a row d's open visit resolved and has not yielded yet. */
static bool dirty_waiting(const sti_dirty_t *d, strata_entity_t e) {
    for (uint32_t i = 0; i < d->batch; i++) {
        if (!d->rows[i].visited && *d->rows[i].entity == e) {
            return true;
        }
    }
    return false;
}

/* Add a live entity (its record given) to set k unless it is in already
 * (flagged, or waiting in the open visit's resolved rows). */
static inline void dirty_add(strata_world_t *w, uint32_t k, sti_record_t *rec, strata_entity_t e) {
    uint16_t bit = (uint16_t)STI_FLAG_DIRTY(k);
    if ((rec->flags & bit) != 0) {
        return;
    }
    sti_dirty_t *d = &w->dirty[k];
    if (d->batch != 0 && dirty_waiting(d, e)) {
        return;
    }
    if (d->count == d->capacity) {
        /* Stale entries of destroyed entities filled it: each live entity has
         * at most one entry, and there are no more than capacity of them. */
        dirty_compact(w, d, k);
    }
    rec->flags |= bit;
    d->list[d->count++] = e;
}

/* Mark a live e in each set of `slots`. */
void sti_dirty_mark(strata_world_t *w, uint64_t slots, strata_entity_t e) {
    sti_record_t *rec = &w->records[(uint32_t)e];
    w->sets_pending |= (slots & w->set_slots) != 0;
    while (slots != 0) {
        uint32_t k = (uint32_t)__builtin_ctzll(slots);
        slots &= slots - 1;
        dirty_add(w, k, rec, e);
    }
}

/* Add rows [row, row + n) of t to the sets of `slots`. */
static void dirty_add_rows(strata_world_t *w, uint64_t slots, const sti_table_t *t, uint32_t row, uint32_t n) {
    w->sets_pending |= n > 0 && (slots & w->set_slots) != 0;
    while (slots != 0) {
        uint32_t k = (uint32_t)__builtin_ctzll(slots);
        slots &= slots - 1;
        for (uint32_t i = 0; i < n; i++) {
            strata_entity_t e = t->entities[row + i];
            dirty_add(w, k, &w->records[(uint32_t)e], e);
        }
    }
}

/* Mark n rows of t in the sets fed by query q's writes. */
void sti_dirty_mark_rows(strata_world_t *w, uint32_t q, const sti_table_t *t, uint32_t row, uint32_t n) {
    dirty_add_rows(w, w->query_marks[q], t, row, n);
}

/* Every row of t in each set whose query t matches, and in the on_set sets of its components. */
void sti_dirty_mark_table(strata_world_t *w, const sti_table_t *t) {
    uint64_t slots = t->tracked_by;
    for (uint64_t left = w->set_slots; left != 0; left &= left - 1) { /* and the on_set sets of its components */
        uint32_t k = (uint32_t)__builtin_ctzll(left);
        if (strata_mask_test(&t->mask, w->dirty[k].component)) {
            slots |= (uint64_t)1 << k;
        }
    }
    dirty_add_rows(w, slots, t, 0, t->count);
}

/* The iteration visits [0, count). */
void sti_dirty_open(sti_dirty_t *d) {
    STRATA_ASSERT(!d->busy); /* one iteration of a changed set at a time */
    d->busy = true;
    d->cursor = 0;
    d->end = d->count;
    d->batch = 0;
}

/* Resolve the next entries of the set still alive, flagged and matching
 * (their flags cleared: a resolved row not yet yielded counts as in the
 * set, see dirty_add) and yield the first. Nothing moves while the
 * iteration is open (structural changes are deferred), so a resolved row
 * stays where it is. */
bool sti_dirty_next(strata_iter_t *it) {
    strata_world_t *w = it->world;
    uint32_t k = w->query_dirty[it->query];
    sti_dirty_t *d = &w->dirty[k];
    uint16_t bit = (uint16_t)STI_FLAG_DIRTY(k);
    uint64_t match = (uint64_t)1 << k;
    bool marks = w->query_marks[it->query] != 0;
    /* Locals: the stores below cannot then be taken to change them (no
     * table, record or entity is made or moved while the iteration is open). */
    const strata_entity_t *list = d->list;
    uint32_t cursor = d->cursor, end = d->end;
    sti_record_t *records = w->records;
    sti_table_t *const *tables = w->tables;
    strata_iter_row_t *out = d->rows, *full = d->rows + (marks ? 1 : STI_DIRTY_BATCH);
    while (out < full && cursor < end) {
        /* The entries are in marking order, scattered over the records. */
        if (cursor + STI_DIRTY_PREFETCH < end) {
            __builtin_prefetch(&records[(uint32_t)list[cursor + STI_DIRTY_PREFETCH]]);
        }
        strata_entity_t e = list[cursor++];
        /* The list holds only handles that were alive when marked, so the
         * index is in range; a destroyed one's record has another
         * generation, or no flags while it is free. */
        sti_record_t *rec = records + (uint32_t)e;
        uint16_t flags = rec->flags;
        if (rec->generation != (uint32_t)(e >> 32) || (flags & bit) == 0) {
            continue;
        }
        rec->flags = (uint16_t)(flags & ~bit);
        const sti_table_t *t = tables[rec->table];
        if ((t->tracked_by & match) == 0) {
            continue;
        }
        uint32_t row = rec->row;
        out->entity = t->entities + row;
        out->columns = t->columns;
        out->row = row;
        out->visited = false;
        out++;
        if (marks) {
            d->cursor = cursor; /* marking may compact the list */
            sti_dirty_mark_rows(w, it->query, t, row, 1);
        }
    }
    d->cursor = cursor;
    d->batch = (uint32_t)(out - d->rows);
    it->row_at = d->rows;
    it->row_stop = out;
    return sti_dirty_yield(it);
}

/* Yield the next resolved row, if any. */
bool sti_dirty_yield(strata_iter_t *it) {
    if (it->row_at >= it->row_stop) {
        return false;
    }
    strata_iter_row_t *r = it->row_at++;
    r->visited = true; /* from now on a write puts it in again */
    it->count = 1;
    it->row = r->row;
    it->entities = r->entity;
    it->columns = r->columns;
    return true;
}

/* Close an iteration: keep the entries it did not visit and those marked
 * since; resolved rows not yet yielded go back in (after those). */
void sti_dirty_close(strata_iter_t *it) {
    sti_dirty_close_set(it->world, it->world->query_dirty[it->query]);
}

/* Close set k's visit, keeping what it did not visit and what was marked
 * since; resolved rows not yet yielded go back in (after those). */
void sti_dirty_close_set(strata_world_t *w, uint32_t k) {
    sti_dirty_t *d = &w->dirty[k];
    uint16_t bit = (uint16_t)STI_FLAG_DIRTY(k);
    dirty_compact(w, d, k);
    for (uint32_t i = 0; i < d->batch; i++) {
        if (!d->rows[i].visited) { /* alive: destroys wait for the iteration's end */
            strata_entity_t e = *d->rows[i].entity;
            w->records[(uint32_t)e].flags |= bit;
            d->list[d->count++] = e; /* room: each live entity is in the list once at most */
        }
    }
    d->batch = 0;
    d->busy = false;
}

/* Entries waiting in query q's changed set. */
uint32_t strata_query_changed_count(const strata_world_t *w, uint32_t q) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(q < w->schema->query_count);
    const sti_dirty_t *d = sti_dirty_of(w, q);
    return d != NULL ? d->count : 0;
}

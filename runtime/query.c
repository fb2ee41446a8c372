/* query.c: the query cache (each query's matching tables) and iterators. */
#include "strata_internal.h"

/* True if a table of `mask` has every component of q's `all` and none of its `none`. */
static bool query_matches(const strata_world_t *w, const strata_query_desc_t *q, const strata_mask_t *mask) {
    for (uint32_t i = 0; i < w->mask_words; i++) {
        if ((q->all.bits[i] & ~mask->bits[i]) != 0 || (q->none.bits[i] & mask->bits[i]) != 0) {
            return false;
        }
    }
    return true;
}

/* Room in each matching query's table list for one more table; NOMEM only adds capacity. */
strata_result_t sti_query_reserve(strata_world_t *w, const strata_mask_t *mask) {
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        sti_query_cache_t *cache = &w->queries[q];
        if (cache->count < cache->capacity || !query_matches(w, &w->schema->queries[q], mask)) {
            continue;
        }
        uint32_t cap = cache->capacity ? cache->capacity * 2 : 8;
        sti_table_t **tables = sti_mem_realloc(w, cache->tables, sizeof(sti_table_t *) * cache->capacity,
                                                     sizeof(sti_table_t *) * cap);
        if (tables == NULL) {
            return STRATA_ERR_NOMEM; /* the lists grown so far only gained capacity */
        }
        cache->tables = tables;
        cache->capacity = cap;
    }
    return STRATA_OK;
}

/* Append a new table to the lists of the queries it matches. */
void sti_query_register(strata_world_t *w, sti_table_t *t) {
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        if (query_matches(w, &w->schema->queries[q], &t->mask)) {
            sti_query_cache_t *cache = &w->queries[q];
            cache->tables[cache->count++] = t;
        }
    }
}

/* The dirty set of query q, or NULL. */
static sti_dirty_t *query_dirty(const strata_world_t *w, uint32_t q) {
    return w->dirty_count > 0 && w->query_dirty[q] != UINT32_MAX ? &w->dirty[w->query_dirty[q]] : NULL;
}

/* An iterator over query q's tables (or its changed set); opens a deferral scope. */
strata_iter_t strata_iter(strata_world_t *w, uint32_t q) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(q < w->schema->query_count);
    strata_defer_begin(w);
    strata_iter_t it = {.world = w, .query = q, .open = true};
    sti_dirty_t *d = query_dirty(w, q);
    if (d != NULL) {
        STRATA_ASSERT(!d->busy); /* one iteration of a changed set at a time */
        d->busy = true;
        d->cursor = 0;
        d->end = d->count;
    }
    return it;
}

/* Close the iteration: the changed set keeps what is left, the deferral scope ends. */
static strata_result_t query_close(strata_iter_t *it) {
    bool open = it->open;
    if (open && query_dirty(it->world, it->query) != NULL) {
        sti_dirty_close(it); /* reads the cursor: before it is reset */
    }
    it->open = false;
    it->cursor = UINT32_MAX;
    it->count = 0;
    it->row = 0;
    it->entities = NULL;
    it->columns = NULL;
    return open ? strata_defer_end(it->world) : STRATA_OK;
}

/* The next batch, or false after closing the iterator (once). Rows of a
 * batch are marked in the dirty sets the query's write terms feed. */
bool strata_iter_next(strata_iter_t *it) {
    STRATA_ASSERT(it != NULL && it->world != NULL);
    strata_world_t *w = it->world;
    if (!it->open) {
        return false;
    }
    if (query_dirty(w, it->query) != NULL) {
        if (sti_dirty_next(it)) {
            return true;
        }
        (void)query_close(it); /* nowhere to return a flush error: see strata_iter_end */
        return false;
    }
    const sti_query_cache_t *cache = &w->queries[it->query];
    while (it->cursor < cache->count) {
        const sti_table_t *t = cache->tables[it->cursor++];
        if (t->count > 0) {
            it->count = t->count;
            it->entities = t->entities;
            it->columns = t->columns;
            if (w->dirty_count > 0 && w->query_marks[it->query] != 0) {
                sti_dirty_mark_rows(w, it->query, t, 0, t->count);
            }
            return true;
        }
    }
    /* The result has nowhere to go; a failed flush keeps its commands
     * (stats.pending) and the next flush retries them. */
    (void)query_close(it);
    return false;
}

/* Close the iterator early; a no-op once closed. */
strata_result_t strata_iter_end(strata_iter_t *it) {
    STRATA_ASSERT(it != NULL && it->world != NULL);
    return query_close(it);
}

/* Entities matching query q: the sum of its tables' counts. */
uint32_t strata_query_count(const strata_world_t *w, uint32_t q) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(q < w->schema->query_count);
    const sti_query_cache_t *cache = &w->queries[q];
    uint32_t n = 0;
    for (uint32_t i = 0; i < cache->count; i++) {
        n += cache->tables[i]->count;
    }
    return n;
}

/* Entries waiting in query q's changed set. */
uint32_t strata_query_changed_count(const strata_world_t *w, uint32_t q) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(q < w->schema->query_count);
    const sti_dirty_t *d = query_dirty(w, q);
    return d != NULL ? d->count : 0;
}

/* The column id of q's aspect, or UINT32_MAX. */
uint32_t strata_query_aspect_id(const strata_world_t *w, uint32_t q) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(q < w->schema->query_count);
    for (uint32_t k = 0; k < w->monitor_count; k++) {
        if (w->monitor_query[k] == q) {
            return w->monitor_aspect[k];
        }
    }
    return UINT32_MAX;
}

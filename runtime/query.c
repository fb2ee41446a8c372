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
strata_result_t strata_query_reserve(strata_world_t *w, const strata_mask_t *mask) {
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        strata_query_cache_t *cache = &w->queries[q];
        if (cache->count < cache->capacity || !query_matches(w, &w->schema->queries[q], mask)) {
            continue;
        }
        uint32_t cap = cache->capacity ? cache->capacity * 2 : 8;
        strata_table_t **tables = strata_mem_realloc(w, cache->tables, sizeof(strata_table_t *) * cache->capacity,
                                                     sizeof(strata_table_t *) * cap);
        if (tables == NULL) {
            return STRATA_ERR_NOMEM; /* the lists grown so far only gained capacity */
        }
        cache->tables = tables;
        cache->capacity = cap;
    }
    return STRATA_OK;
}

/* Append a new table to the lists of the queries it matches. */
void strata_query_register(strata_world_t *w, strata_table_t *t) {
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        if (query_matches(w, &w->schema->queries[q], &t->mask)) {
            strata_query_cache_t *cache = &w->queries[q];
            cache->tables[cache->count++] = t;
        }
    }
}

/* An iterator over query q's tables; opens a deferral scope. */
strata_iter_t strata_iter(strata_world_t *w, uint32_t q) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(q < w->schema->query_count);
    strata_defer_begin(w);
    return (strata_iter_t){.world = w, .query = q, .open = true};
}

/* The next non-empty table, or false after closing the iterator's scope (once). */
bool strata_iter_next(strata_iter_t *it) {
    STRATA_ASSERT(it != NULL && it->world != NULL);
    const strata_query_cache_t *cache = &it->world->queries[it->query];
    while (it->cursor < cache->count) {
        const strata_table_t *t = cache->tables[it->cursor++];
        if (t->count > 0) {
            it->count = t->count;
            it->entities = t->entities;
            it->columns = t->columns;
            return true;
        }
    }
    /* Tables the flush below creates must not extend a finished iteration. */
    it->cursor = UINT32_MAX;
    it->count = 0;
    it->entities = NULL;
    it->columns = NULL;
    if (it->open) {
        /* The result has nowhere to go; a failed flush keeps its commands
         * (stats.pending) and the next flush retries them. */
        it->open = false;
        (void)strata_defer_end(it->world);
    }
    return false;
}

/* Close the iterator's scope early; a no-op once closed. */
strata_result_t strata_iter_end(strata_iter_t *it) {
    STRATA_ASSERT(it != NULL && it->world != NULL);
    if (!it->open) {
        return STRATA_OK;
    }
    it->open = false;
    it->cursor = UINT32_MAX;
    it->count = 0;
    it->entities = NULL;
    it->columns = NULL;
    return strata_defer_end(it->world);
}

/* Entities matching query q: the sum of its tables' counts. */
uint32_t strata_query_count(const strata_world_t *w, uint32_t q) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(q < w->schema->query_count);
    const strata_query_cache_t *cache = &w->queries[q];
    uint32_t n = 0;
    for (uint32_t i = 0; i < cache->count; i++) {
        n += cache->tables[i]->count;
    }
    return n;
}

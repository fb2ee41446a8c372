/* query.c: the query cache (each query's matching tables) and what it counts. */
#include "query.h"

/* Room in each matching query's table list for one more table; NOMEM only adds capacity. */
strata_result_t sti_query_reserve(strata_world_t *w, const strata_mask_t *mask) {
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        sti_query_cache_t *cache = &w->queries[q];
        if ((cache->count < cache->capacity && cache->count < cache->entry_capacity) ||
            !sti_query_matches(w, q, mask)) {
            continue;
        }
        size_t need = (size_t)cache->count + 1;
        strata_result_t r = sti_mem_grow(w, &cache->tables, sizeof(sti_table_t *), &cache->capacity, need, 8);
        if (r == STRATA_OK) {
            r = sti_mem_grow(w, &cache->entries, sizeof(strata_iter_table_t), &cache->entry_capacity, need, 8);
        }
        if (r != STRATA_OK) {
            return r; /* the lists grown so far only gained capacity */
        }
    }
    return STRATA_OK;
}

/* Append a new table to the lists of the queries it matches. */
void sti_query_register(strata_world_t *w, sti_table_t *t) {
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        if (sti_query_matches(w, q, &t->mask)) {
            sti_query_cache_t *cache = &w->queries[q];
            cache->entries[cache->count] = (strata_iter_table_t){&t->count, &t->entities, t->columns};
            cache->tables[cache->count++] = t;
        }
    }
}

/* Each list, then the array of them. */
void sti_query_free(strata_world_t *w) {
    if (w->queries == NULL) {
        return;
    }
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        sti_mem_free(w, w->queries[q].tables, sizeof(sti_table_t *) * w->queries[q].capacity);
        sti_mem_free(w, w->queries[q].entries, sizeof(strata_iter_table_t) * w->queries[q].entry_capacity);
    }
    sti_mem_free(w, w->queries, sizeof(sti_query_cache_t) * w->schema->query_count);
}

/* Entities matching query q: the sum of its tables' counts (of their rows
 * that meet its sparse terms, if it has any). */
uint32_t strata_query_count(const strata_world_t *w, uint32_t q) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(q < w->schema->query_count);
    const sti_query_cache_t *cache = &w->queries[q];
    const sti_sparse_terms_t *terms = sti_sparse_terms(w, q);
    uint32_t n = 0;
    for (uint32_t i = 0; i < cache->count; i++) {
        n += terms != NULL ? sti_sparse_count(w, cache->tables[i], terms) : cache->tables[i]->count;
    }
    return n;
}

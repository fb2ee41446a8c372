/* query.c: the query cache (each query's matching tables, those with rows
 * first) and what it counts. */
#include "query.h"

/* Room in each matching query's table list for one more table; NOMEM only adds capacity. */
strata_result_t sti_query_reserve(strata_world_t *w, const strata_mask_t *mask) {
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        sti_query_cache_t *cache = &w->queries[q];
        if ((cache->count < cache->capacity && cache->count < cache->entry_capacity &&
             cache->count < cache->listing_capacity) ||
            !sti_query_matches(w, q, mask)) {
            continue;
        }
        size_t need = (size_t)cache->count + 1;
        strata_result_t r = sti_mem_grow(w, &cache->tables, sizeof(sti_table_t *), &cache->capacity, need, 8);
        if (r == STRATA_OK) {
            r = sti_mem_grow(w, &cache->entries, sizeof(strata_iter_table_t), &cache->entry_capacity, need, 8);
        }
        if (r == STRATA_OK) {
            r = sti_mem_grow(w, &cache->listing, sizeof(uint32_t), &cache->listing_capacity, need, 8);
        }
        if (r != STRATA_OK) {
            return r; /* the lists grown so far only gained capacity */
        }
    }
    return STRATA_OK;
}

/* Put table t, whose listing k is this query's, at position `at` of the list. */
static void query_place(sti_query_cache_t *cache, sti_table_t *t, uint32_t k, uint32_t at) {
    cache->tables[at] = t;
    cache->entries[at] = (strata_iter_table_t){&t->count, &t->entities, t->columns};
    cache->listing[at] = k;
    t->listings[k].at = at;
}

/* Swap the tables at positions a and b of the list. */
static void query_swap(sti_query_cache_t *cache, uint32_t a, uint32_t b) {
    if (a == b) {
        return;
    }
    sti_table_t *ta = cache->tables[a], *tb = cache->tables[b];
    uint32_t ka = cache->listing[a], kb = cache->listing[b];
    query_place(cache, ta, ka, b);
    query_place(cache, tb, kb, a);
}

/* Append a new table to the lists of the queries it matches, in its second part (it has no row yet). */
void sti_query_register(strata_world_t *w, sti_table_t *t) {
    uint32_t k = 0;
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        if (sti_query_matches(w, q, &t->mask)) {
            sti_query_cache_t *cache = &w->queries[q];
            t->listings[k].query = q;
            query_place(cache, t, k++, cache->count++);
        }
    }
}

/* Each list's last table (one without rows, as t) takes t's place. */
void sti_query_unregister(strata_world_t *w, sti_table_t *t) {
    for (uint32_t k = 0; k < t->listing_count; k++) {
        sti_query_cache_t *cache = &w->queries[t->listings[k].query];
        uint32_t last = cache->count - 1;
        query_swap(cache, t->listings[k].at, last);
        cache->count = last;
    }
}

/* In each list, t and the first table of the second part trade places; the first part grows by one. */
void sti_query_filled(strata_world_t *w, const sti_table_t *t) {
    for (uint32_t k = 0; k < t->listing_count; k++) {
        sti_query_cache_t *cache = &w->queries[t->listings[k].query];
        query_swap(cache, t->listings[k].at, cache->live++);
    }
}

/* In each list, t and the last table of the first part trade places; the second part grows by one. */
void sti_query_emptied(strata_world_t *w, const sti_table_t *t) {
    for (uint32_t k = 0; k < t->listing_count; k++) {
        sti_query_cache_t *cache = &w->queries[t->listings[k].query];
        query_swap(cache, t->listings[k].at, --cache->live);
    }
}

void sti_query_restore(strata_world_t *w, uint32_t q, const uint32_t *ids, uint32_t live) {
    sti_query_cache_t *cache = &w->queries[q];
    for (uint32_t at = 0; at < cache->count; at++) {
        sti_table_t *t = w->tables[ids[at]];
        uint32_t k = 0;
        while (t->listings[k].query != q) {
            k++;
        }
        query_place(cache, t, k, at);
    }
    cache->live = live;
}

/* Each list, then the array of them. */
void sti_query_free(strata_world_t *w) {
    if (w->queries == NULL) {
        return;
    }
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        sti_query_cache_t *cache = &w->queries[q];
        sti_mem_free(w, cache->tables, sizeof(sti_table_t *) * cache->capacity);
        sti_mem_free(w, cache->entries, sizeof(strata_iter_table_t) * cache->entry_capacity);
        sti_mem_free(w, cache->listing, sizeof(uint32_t) * cache->listing_capacity);
    }
    sti_mem_free(w, w->queries, sizeof(sti_query_cache_t) * w->schema->query_count);
}

/* Entities matching query q: the sum of its tables' counts (those with
 * rows; of their rows that meet its sparse terms, if it has any). */
uint32_t strata_query_count(const strata_world_t *w, uint32_t q) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(q < w->schema->query_count);
    const sti_query_cache_t *cache = &w->queries[q];
    const sti_sparse_terms_t *terms = sti_sparse_terms(w, q);
    uint32_t n = 0;
    for (uint32_t i = 0; i < cache->live; i++) {
        n += terms != NULL ? sti_sparse_count(w, cache->tables[i], terms) : cache->tables[i]->count;
    }
    return n;
}

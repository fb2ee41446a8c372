/* iter.c: iterators over a query's tables or its changed set. An open
 * iterator is a deferral scope: structural changes made while iterating
 * are recorded and settled when the iteration ends. */
#include "pool.h"

/* True if query q's iterators visit a changed set or mark rows in one, or
 * test rows for sparse terms: their visits go through the runtime, not the
 * range. */
static inline bool iter_tracked(const strata_world_t *w, uint32_t q) {
    return (w->dirty_count > 0 && (w->query_dirty[q] != UINT32_MAX || w->query_marks[q] != 0)) ||
           sti_sparse_terms(w, q) != NULL;
}

/* An iterator over query q's tables (or its changed set), written in place; opens a deferral scope. */
void strata_iter_init(strata_iter_t *it, strata_world_t *w, uint32_t q) {
    STRATA_ASSERT(w != NULL && it != NULL);
    STRATA_ASSERT(q < w->schema->query_count);
    sti_scope_open(w);
    sti_query_cache_t *cache = &w->queries[q];
    if (w->slot == NULL) {
        cache->written = w->snap_clock; /* its rows may be written (a view's batch did this at its start) */
    }
    strata_iter_t fresh = {.world = w, .at = cache->entries, .stop = cache->entries, .query = q, .open = true};
    sti_dirty_t *d = sti_dirty_of(w, q);
    if (d != NULL) {
        sti_dirty_open(d);
    }
    /* No marks to make: next may walk the tables with rows itself (none
     * yet: entries is NULL). */
    if (!iter_tracked(w, q) && cache->live != 0) {
        fresh.stop += cache->live;
    }
    *it = fresh;
}

/* An iterator over query q's tables (or its changed set); opens a deferral scope. */
strata_iter_t strata_iter(strata_world_t *w, uint32_t q) {
    strata_iter_t it;
    strata_iter_init(&it, w, q);
    return it;
}

/* Close the iteration: the changed set keeps what is left, the deferral scope ends. */
static strata_result_t iter_close(strata_iter_t *it) {
    bool open = it->open;
    if (open && sti_dirty_of(it->world, it->query) != NULL) {
        sti_dirty_close(it); /* reads the cursor: before it is reset */
    }
    it->open = false;
    it->at = it->stop; /* a generated next walks nothing more */
    it->row_bits = 0;  /* nor any changed row, nor a sparse visit's */
    it->word_at = it->word_stop;
    it->cursor = UINT32_MAX;
    it->count = 0;
    it->row = 0;
    it->entities = NULL;
    it->columns = NULL;
    if (!open) {
        return STRATA_OK;
    }
    strata_world_t *w = it->world;
    STRATA_ASSERT(sti_deferred(w) && (w->slot == NULL || w->defer_depth > 1)); /* a view never settles (pool.c) */
    sti_scope_close(w);
    /* Inside another scope (a system's iterator inside its step scope) there is nothing to settle yet. */
    if (sti_deferred(w)) {
        return STRATA_OK;
    }
    strata_result_t r = sti_command_settle(w);
    if (STI_UNLIKELY(w->free_requested)) {
        sti_capacity_scope_end(w); /* a free requested while the iterator was open */
    }
    return r;
}

/* The next row of a visit with sparse terms: from the word it holds, else
 * from the next word of its tables with a row that meets them (marked, for
 * a query whose writes feed changed sets). False at the end. */
static bool iter_next_sparse(strata_iter_t *it, const sti_sparse_terms_t *terms) {
    strata_world_t *w = it->world;
    if (sti_dirty_yield(it)) {
        return true;
    }
    const sti_query_cache_t *cache = &w->queries[it->query];
    for (; it->cursor < cache->live; it->cursor++, it->word = 0) {
        const sti_table_t *t = cache->tables[it->cursor], *bits = t;
        uint32_t first = 0; /* in a chunk's view, its rows are those of a table from `first` on */
        sti_pool_rows_of(w, t, &bits, &first);
        uint32_t words = sti_sparse_may_match(bits, terms) ? (t->count + 63) / 64 : 0;
        while (it->word < words) {
            uint32_t word = it->word++;
            uint64_t f = sti_sparse_word(w, bits, terms, first, word, t->count);
            if (f != 0) {
                it->row_entities = t->entities;
                it->columns = t->columns;
                it->row_base = word * 64;
                it->row_bits = f;
                it->word_at = it->word_stop = NULL;
                if (w->dirty_count > 0 && w->query_marks[it->query] != 0) {
                    sti_dirty_mark_word(w, it->query, bits, first + word * 64, f);
                }
                return sti_dirty_yield(it);
            }
        }
    }
    return false;
}

/* strata_iter_next in a world with dirty sets or sparse terms: the changed
 * set, the rows that meet the sparse terms, or tables whose rows are
 * marked as they are visited. */
STI_COLD static bool iter_next_tracked(strata_iter_t *it) {
    strata_world_t *w = it->world;
    if (sti_dirty_of(w, it->query) != NULL) {
        if (sti_dirty_yield(it) || sti_dirty_next(it)) {
            return true;
        }
        (void)iter_close(it); /* nowhere to return a settle error: see strata_iter_end */
        return false;
    }
    const sti_sparse_terms_t *terms = sti_sparse_terms(w, it->query);
    if (terms != NULL) {
        if (iter_next_sparse(it, terms)) {
            return true;
        }
        (void)iter_close(it);
        return false;
    }
    const sti_query_cache_t *cache = &w->queries[it->query];
    while (it->cursor < cache->live) {
        const sti_table_t *t = cache->tables[it->cursor++];
        if (t->count > 0) {
            it->count = t->count;
            it->entities = t->entities;
            it->columns = t->columns;
            sti_dirty_mark_rows(w, it->query, t, 0, t->count); /* tracked: the query's writes feed a set */
            return true;
        }
    }
    /* The result has nowhere to go; a failed settle keeps its commands
     * (stats.pending) and the next settle retries them. */
    (void)iter_close(it);
    return false;
}

/* The next batch, or false after closing the iterator (once). Rows of a
 * batch are marked in the dirty sets the query's write terms feed. An
 * iterator that marks nothing walks its range [at, stop), as generated
 * code does inline: a table visit is a few loads and stores. */
bool strata_iter_next(strata_iter_t *it) {
    STRATA_ASSERT(it != NULL && it->world != NULL);
    if (!it->open) {
        return false;
    }
    for (const strata_iter_table_t *at = it->at; at < it->stop; at++) {
        uint32_t rows = *at->count;
        if (rows != 0) {
            it->at = at + 1;
            it->count = rows;
            it->entities = *at->entities;
            it->columns = at->columns;
            return true;
        }
    }
    if (STI_UNLIKELY(iter_tracked(it->world, it->query))) {
        return iter_next_tracked(it);
    }
    (void)iter_close(it); /* as above */
    return false;
}

/* Close the iterator early; a no-op once closed. */
strata_result_t strata_iter_end(strata_iter_t *it) {
    STRATA_ASSERT(it != NULL && it->world != NULL);
    return iter_close(it);
}

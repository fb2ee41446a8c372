/* iter.c: iterators over a query's tables or its changed set. An open
 * iterator is a deferral scope: structural changes made while iterating
 * are recorded and settled when the iteration ends. */
#include "command.h"

/* An iterator over query q's tables (or its changed set); opens a deferral scope. */
strata_iter_t strata_iter(strata_world_t *w, uint32_t q) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(q < w->schema->query_count);
    strata_defer_begin(w);
    strata_iter_t it = {.world = w, .query = q, .open = true};
    sti_dirty_t *d = sti_dirty_of(w, q);
    if (d != NULL) {
        sti_dirty_open(d);
    }
    return it;
}

/* Close the iteration: the changed set keeps what is left, the deferral scope ends. */
static strata_result_t iter_close(strata_iter_t *it) {
    bool open = it->open;
    if (open && sti_dirty_of(it->world, it->query) != NULL) {
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

/* strata_iter_next in a world with dirty sets: the changed set, or tables
 * whose rows are marked as they are visited. */
STI_COLD static bool iter_next_tracked(strata_iter_t *it) {
    strata_world_t *w = it->world;
    if (sti_dirty_of(w, it->query) != NULL) {
        if (sti_dirty_next(it)) {
            return true;
        }
        (void)iter_close(it); /* nowhere to return a settle error: see strata_iter_end */
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
    /* The result has nowhere to go; a failed settle keeps its commands
     * (stats.pending) and the next settle retries them. */
    (void)iter_close(it);
    return false;
}

/* The next batch, or false after closing the iterator (once). Rows of a
 * batch are marked in the dirty sets the query's write terms feed. A world
 * without dirty sets takes the short walk here: a table visit is a few
 * loads and stores. */
bool strata_iter_next(strata_iter_t *it) {
    STRATA_ASSERT(it != NULL && it->world != NULL);
    strata_world_t *w = it->world;
    if (!it->open) {
        return false;
    }
    if (STI_UNLIKELY(w->dirty_count > 0)) {
        return iter_next_tracked(it);
    }
    const sti_query_cache_t *cache = &w->queries[it->query];
    sti_table_t *const *tables = cache->tables;
    for (uint32_t i = it->cursor, n = cache->count; i < n; i++) {
        const sti_table_t *t = tables[i];
        if (t->count > 0) {
            it->cursor = i + 1;
            it->count = t->count;
            it->entities = t->entities;
            it->columns = t->columns;
            return true;
        }
    }
    (void)iter_close(it); /* as above */
    return false;
}

/* Close the iterator early; a no-op once closed. */
strata_result_t strata_iter_end(strata_iter_t *it) {
    STRATA_ASSERT(it != NULL && it->world != NULL);
    return iter_close(it);
}

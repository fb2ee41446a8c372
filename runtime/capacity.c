/* capacity.c: reserving rows and records ahead, freeing the tables that
 * stay empty. */
#include "capacity.h"

/* --- Freeing tables ---------------------------------------------------------- */

/* Free the idle tables from the head of the list: all of them, or those
 * idle for the policy's number of steps. Each leaves every lookup; the
 * tables kept past the new count take the freed ids; the changed sets'
 * lists follow (when a table on one is freed or renumbered); then the
 * table array is compacted. Returns how many went. */
static uint32_t capacity_sweep(strata_world_t *w, bool all) {
    uint32_t freed = 0;
    bool listed = false; /* a table on a changed set's list is freed or renumbered */
    while (w->idle_head != NULL && (all || w->table_clock - w->idle_head->idle_since >= w->free_after)) {
        sti_table_t *t = w->idle_head;
        listed = listed || t->listed != 0;
        sti_table_unlink(w, t); /* (the next one becomes the head) */
        freed++;
    }
    if (freed == 0) {
        return 0;
    }
    uint32_t left = sti_table_renumber(w);
    for (uint32_t i = left; !listed && i < w->table_count; i++) {
        listed = w->tables[i]->listed != 0;
    }
    if (listed) {
        sti_dirty_renumber(w);
    }
    sti_table_compact(w, left);
    return freed;
}

/* True when nothing may hold a table: no scope, no step, no settle under way. */
static bool capacity_quiet(const strata_world_t *w) {
    return !sti_deferred(w) && !w->in_step && !w->settling;
}

uint32_t strata_world_free_empty_tables(strata_world_t *w) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(w->slot == NULL); /* a batch's view is a copy: the request would be lost */
    if (!capacity_quiet(w)) {
        w->free_requested = true;
        return 0;
    }
    w->free_requested = false;
    return capacity_sweep(w, true);
}

void sti_capacity_step_end(strata_world_t *w) {
    w->table_clock++;
    if (sti_deferred(w) || w->settling) {
        return; /* a scope is still open: a request waits for it, the policy for the next step */
    }
    if (w->free_requested) {
        w->free_requested = false;
        (void)capacity_sweep(w, true);
    } else if (w->free_after != 0) {
        (void)capacity_sweep(w, false);
    }
}

void sti_capacity_scope_end(strata_world_t *w) {
    if (capacity_quiet(w) && w->free_requested) {
        w->free_requested = false;
        (void)capacity_sweep(w, true);
    }
}

/* --- Reserving --------------------------------------------------------------- */

strata_result_t strata_reserve(strata_world_t *w, uint32_t k, const uint32_t *ids, uint32_t n) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(k == 0 || ids != NULL);
    /* An open iterator holds a range of the queries' lists and a table's
     * columns: neither may move under it. */
    STRATA_ASSERT(capacity_quiet(w) && w->slot == NULL);
    if (!capacity_quiet(w) || n == 0) {
        return STRATA_OK;
    }
    /* The sparse components: room in their sets (values, and slots for the
     * indices n more entities may take), not a column of the table. */
    strata_mask_t mask = {{0}};
    uint32_t indices = w->record_count + (n < UINT32_MAX - w->record_count ? n : UINT32_MAX - w->record_count);
    strata_result_t r = STRATA_OK;
    for (uint32_t i = 0; i < k && r == STRATA_OK; i++) {
        STRATA_ASSERT(ids[i] < w->component_count);
        if (sti_is_sparse(w, ids[i])) {
            r = sti_sparse_reserve(w, w->sparse_plane[ids[i]], indices, n);
        } else {
            strata_mask_set(&mask, ids[i]);
        }
    }
    if (r != STRATA_OK) {
        return r; /* the sets grown so far only hold more room */
    }
    uint32_t before = w->table_count;
    sti_table_t *t = NULL;
    r = sti_table_ensure(w, &mask, &t);
    if (r == STRATA_OK) {
        r = sti_table_reserve(w, t, n);
        if (r != STRATA_OK && w->table_count != before) {
            /* Made by this call, the last table, no row, no edge: it goes again. */
            sti_table_unlink(w, t);
            sti_table_free(w, t);
            w->table_count--;
        }
    }
    if (r == STRATA_OK) {
        sti_table_touch(t);
    }
    return r;
}

strata_result_t strata_entity_reserve(strata_world_t *w, uint32_t n) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(w->slot == NULL); /* the records are the world's: a view records its creates instead */
    uint32_t fresh = n > w->free_count ? n - w->free_count : 0;
    if ((uint64_t)w->record_count + fresh > w->entity_limit) {
        return STRATA_ERR_LIMIT;
    }
    size_t cap = sti_index_capacity_for(w, fresh);
    if (cap == 0) {
        return STRATA_ERR_NOMEM;
    }
    if (cap != w->record_capacity) {
        strata_result_t r = sti_index_resize(w, cap);
        if (r != STRATA_OK) {
            return r;
        }
    }
    sti_mem_touch(w->records + w->record_count, sizeof(sti_record_t) * (w->record_capacity - w->record_count));
    return STRATA_OK;
}

/* component.c: the component entry points: add and remove (now, or
 * recorded while deferred), has, get, set, mark. */
#include "pool.h"

/* After an add now off the hot path: settle what its hooks recorded, then
 * mark what was written. OK, or the move's error. */
static inline strata_result_t component_added(strata_world_t *w, strata_entity_t e, uint32_t k, const uint32_t *ids,
                                              strata_result_t r) {
    if (STI_UNLIKELY(r == STI_OK_HOOKED)) {
        (void)sti_command_settle(w); /* a failure keeps the hooks' commands for the next settle */
        r = STRATA_OK;
    }
    if (r == STRATA_OK) {
        sti_mark_ids(w, e, k, ids);
        sti_settle_sets(w);
    }
    return r;
}

/* After a remove now off the hot path: settle what its hooks recorded. OK, or the move's error. */
static inline strata_result_t component_removed(strata_world_t *w, strata_result_t r) {
    if (STI_UNLIKELY(r == STI_OK_HOOKED)) {
        (void)sti_command_settle(w);
        r = STRATA_OK;
    }
    return r;
}

/* The record of a live e after checking the call (asserts), or NULL if e is stale. */
STI_HOT sti_record_t *component_record(const strata_world_t *w, strata_entity_t e, uint32_t c) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(c < w->component_count);
    (void)c; /* with asserts off */
    return sti_record_lookup(w, e);
}

/* Trip STRATA_ASSERT on a bad id list: out of range, or repeated. */
static void component_check_ids(const strata_world_t *w, uint32_t k, const uint32_t *ids) {
    (void)w; /* with asserts off */
    STRATA_ASSERT(ids != NULL || k == 0);
    strata_mask_t seen = {{0}};
    for (uint32_t i = 0; i < k; i++) {
        STRATA_ASSERT(ids[i] < w->component_count);
        STRATA_ASSERT(!strata_mask_test(&seen, ids[i]));
        strata_mask_set(&seen, ids[i]);
    }
}

/* Record an add or a remove of one component (kept out of the hot paths,
 * which then never take the address of their arguments). */
STI_COLD static strata_result_t component_defer_one(strata_world_t *w, sti_cmd_kind_t kind, strata_entity_t e,
                                                    uint32_t c, const void *value) {
    return sti_command_push(w, kind, &e, 1, &c, &value);
}

/* strata_add off its leaf path: record while deferred, or any other case now. */
__attribute__((noinline)) static strata_result_t component_add(strata_world_t *w, sti_record_t *rec, strata_entity_t e,
                                                               uint32_t c, const void *value) {
    if (sti_deferred(w)) {
        return component_defer_one(w, STI_CMD_ADD, e, c, value);
    }
    if (sti_is_sparse(w, c)) {
        if (!sti_move_sparse_add_fast(w, rec, e, c, value)) {
            return component_added(w, e, 1, &c, sti_move_sparse_add(w, rec, c, value));
        }
        sti_mark_ids(w, e, 1, &c);
        sti_settle_sets(w);
        return STRATA_OK;
    }
    if (STI_UNLIKELY(!sti_move_add_fast(w, rec, c, value))) {
        return component_added(w, e, 1, &c, sti_move_add_slow(w, rec, c, value));
    }
    sti_mark_ids(w, e, 1, &c);
    sti_settle_sets(w);
    return STRATA_OK;
}

/* Add (or overwrite) one component now (the leaf path, else component_add),
 * or record it while deferred. */
strata_result_t strata_add(strata_world_t *w, strata_entity_t e, uint32_t c, const void *value) {
    sti_record_t *rec = component_record(w, e, c);
    if (rec == NULL) {
        return STRATA_ERR_STALE;
    }
    if (sti_deferred(w)) {
        /* A system adding to each entity it visits: one more entry of the run. */
        return sti_command_run_join(w, STI_CMD_ADD_RUN, e, c, value) ? STRATA_OK : component_add(w, rec, e, c, value);
    }
    if (STI_UNLIKELY(!sti_move_add_is_plain(w, rec, c))) {
        return component_add(w, rec, e, c, value);
    }
    return sti_move_add_plain(w, rec, c, value);
}

/* Add (or overwrite) k components with one move, or record them while deferred. */
strata_result_t strata_add_many(strata_world_t *w, strata_entity_t e, uint32_t k, const uint32_t *ids,
                                const void *const *values) {
    STRATA_ASSERT(w != NULL);
    component_check_ids(w, k, ids);
    sti_record_t *rec = sti_record_lookup(w, e);
    if (rec == NULL) {
        return STRATA_ERR_STALE;
    }
    if (k == 0) {
        return STRATA_OK;
    }
    if (sti_deferred(w)) {
        return sti_command_push(w, STI_CMD_ADD, &e, k, ids, values);
    }
    return component_added(w, e, k, ids, sti_move_add(w, rec, k, ids, values));
}

/* strata_remove off its leaf path: record while deferred (MISSING checked
 * now), or any other case now. */
__attribute__((noinline)) static strata_result_t component_remove(strata_world_t *w, sti_record_t *rec,
                                                                  strata_entity_t e, uint32_t c) {
    if (sti_deferred(w)) {
        if (!sti_has(w, w->tables[rec->table], rec->row, c)) {
            return STRATA_ERR_MISSING;
        }
        return component_defer_one(w, STI_CMD_REMOVE, e, c, NULL);
    }
    if (sti_is_sparse(w, c)) {
        strata_result_t r = sti_move_sparse_remove_fast(w, rec, e, c);
        return r != STI_OK_HOOKED ? r : component_removed(w, sti_move_sparse_remove(w, rec, c));
    }
    if (STI_UNLIKELY(!sti_move_remove_fast(w, rec, c))) {
        return component_removed(w, sti_move_remove_slow(w, rec, c));
    }
    return STRATA_OK;
}

/* Remove one component now (the leaf path, else component_remove), or record it while deferred. */
strata_result_t strata_remove(strata_world_t *w, strata_entity_t e, uint32_t c) {
    sti_record_t *rec = component_record(w, e, c);
    if (rec == NULL) {
        return STRATA_ERR_STALE;
    }
    if (sti_deferred(w)) {
        /* A run holds only components present when recorded (MISSING is checked now). */
        bool present = sti_has(w, w->tables[rec->table], rec->row, c);
        return present && sti_command_run_join(w, STI_CMD_REMOVE_RUN, e, c, NULL) ? STRATA_OK
                                                                                  : component_remove(w, rec, e, c);
    }
    if (STI_UNLIKELY(!sti_move_remove_is_plain(w, rec, c))) {
        return component_remove(w, rec, e, c);
    }
    return sti_move_remove_plain(w, rec, c);
}

/* Remove the ids the entity has with one move; MISSING if it has none. */
strata_result_t strata_remove_many(strata_world_t *w, strata_entity_t e, uint32_t k, const uint32_t *ids) {
    STRATA_ASSERT(w != NULL);
    component_check_ids(w, k, ids);
    sti_record_t *rec = sti_record_lookup(w, e);
    if (rec == NULL) {
        return STRATA_ERR_STALE;
    }
    if (sti_deferred(w)) {
        const sti_table_t *t = w->tables[rec->table];
        bool any = false;
        for (uint32_t i = 0; i < k && !any; i++) {
            any = sti_has(w, t, rec->row, ids[i]);
        }
        if (!any) {
            return STRATA_ERR_MISSING;
        }
        return sti_command_push(w, STI_CMD_REMOVE, &e, k, ids, NULL);
    }
    if (k == 0) {
        return STRATA_ERR_MISSING;
    }
    return component_removed(w, sti_move_remove(w, rec, k, ids));
}

/* A sparse component's add when nothing watches it: its bit, and its value
 * when its set has room, no row moved; component_add does the rest. */
strata_result_t strata_sparse_add(strata_world_t *w, strata_entity_t e, uint32_t c, const void *value) {
    sti_record_t *rec = component_record(w, e, c);
    STRATA_ASSERT(sti_is_sparse(w, c));
    if (rec == NULL) {
        return STRATA_ERR_STALE;
    }
    uint32_t k = w->sparse_plane[c];
    if (STI_UNLIKELY((w->sparse_now >> k & 1u) == 0)) {
        return component_add(w, rec, e, c, value);
    }
    if (STI_UNLIKELY(!sti_sparse_room(w, k, (uint32_t)e))) {
        return component_add(w, rec, e, c, value);
    }
    sti_sparse_put(w, k, w->tables[rec->table], rec->row, e, value);
    return STRATA_OK;
}

/* Where e's value of sparse component c goes, its bit set and its slot
 * taken, when nothing watches c and its set has room; NULL otherwise. The
 * caller writes the value: no load waits behind the bit's store, whose
 * address comes last (record, table, plane), as a load of the caller's
 * value in here would. */
void *strata_sparse_place(strata_world_t *w, strata_entity_t e, uint32_t c) {
    sti_record_t *rec = component_record(w, e, c);
    STRATA_ASSERT(sti_is_sparse(w, c) && w->components[c].size != 0);
    uint32_t k = w->sparse_plane[c], index = (uint32_t)e;
    sti_sparse_t *s = &w->sparse_sets[k];
    if (STI_UNLIKELY(rec == NULL || (w->sparse_now >> k & 1u) == 0 || s->count >= s->capacity ||
                     index >= s->slot_capacity)) {
        return NULL;
    }
    sti_table_t *t = w->tables[rec->table];
    if (STI_UNLIKELY((t->sparse_any >> k & 1u) == 0)) {
        t->sparse_any |= (uint64_t)1 << k;
    }
    sti_sparse_plane(w, t, k)[rec->row / 64] |= (uint64_t)1 << (rec->row & 63);
    uint32_t slot = s->slot[index];
    if (slot == STI_NO_SLOT) {
        slot = s->count++;
        s->slot[index] = slot;
        s->owner[slot] = e;
    }
    return s->values.data + (size_t)slot * s->values.size;
}

/* A sparse tag's add: a bit when nothing watches it (a leaf), else component_add. */
strata_result_t strata_sparse_tag_add(strata_world_t *w, strata_entity_t e, uint32_t c) {
    sti_record_t *rec = component_record(w, e, c);
    STRATA_ASSERT(sti_is_sparse(w, c) && w->components[c].size == 0);
    if (rec == NULL) {
        return STRATA_ERR_STALE;
    }
    uint32_t k = w->sparse_plane[c];
    if (STI_UNLIKELY((w->sparse_now >> k & 1u) == 0)) {
        return component_add(w, rec, e, c, NULL);
    }
    sti_sparse_put(w, k, w->tables[rec->table], rec->row, e, NULL);
    return STRATA_OK;
}

/* A sparse component's remove when nothing watches it: its bit and value,
 * no row moved; component_remove does the rest. */
strata_result_t strata_sparse_remove(strata_world_t *w, strata_entity_t e, uint32_t c) {
    sti_record_t *rec = component_record(w, e, c);
    STRATA_ASSERT(sti_is_sparse(w, c));
    if (rec == NULL) {
        return STRATA_ERR_STALE;
    }
    uint32_t k = w->sparse_plane[c];
    if (STI_UNLIKELY(sti_deferred(w) || (w->sparse_observed >> k & 1u) != 0)) {
        return component_remove(w, rec, e, c);
    }
    sti_table_t *t = w->tables[rec->table];
    if (!sti_sparse_test(w, t, rec->row, k)) {
        return STRATA_ERR_MISSING;
    }
    sti_sparse_take(w, k, t, rec->row, e);
    return STRATA_OK;
}

/* True if e is alive and has c (tags included). */
bool strata_has(const strata_world_t *w, strata_entity_t e, uint32_t c) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(c < w->component_count);
    const sti_record_t *rec = sti_record_lookup(w, e);
    return rec != NULL && sti_has(w, w->tables[rec->table], rec->row, c);
}

/* Mark e's c written: now, or in a batch's view recorded for its end (pool.c). */
static inline void component_mark(strata_world_t *w, strata_entity_t e, uint32_t c) {
    if (STI_UNLIKELY(w->slot != NULL)) {
        sti_pool_mark(w, e, c);
        return;
    }
    sti_mark_ids(w, e, 1, &c);
}

/* The address of e's value of c, or NULL (stale, absent or a tag). */
static void *component_address(const strata_world_t *w, strata_entity_t e, uint32_t c) {
    const sti_record_t *rec = sti_record_lookup(w, e);
    return rec != NULL ? sti_cell(w, w->tables[rec->table], c, rec->row) : NULL;
}

/* e's value of c, or NULL (stale, absent, tag). */
const void *strata_get(const strata_world_t *w, strata_entity_t e, uint32_t c) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(c < w->component_count);
    return component_address(w, e, c);
}

/* e's value of c for an iterator's term, unmarked, or NULL (stale, absent, tag). */
void *strata_term_value(const strata_world_t *w, strata_entity_t e, uint32_t c) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(c < w->component_count);
    return component_address(w, e, c);
}

/* e's value of c to write in place (marked changed), or NULL (stale, absent, tag). */
void *strata_get_mut(strata_world_t *w, strata_entity_t e, uint32_t c) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(c < w->component_count);
    const sti_record_t *rec = sti_record_lookup(w, e);
    void *at = rec != NULL ? sti_cell(w, w->tables[rec->table], c, rec->row) : NULL;
    if (at != NULL) {
        sti_table_wrote(w, w->tables[rec->table]); /* (a sparse value is in its set, which every snapshot copies) */
        component_mark(w, e, c);
    }
    return at;
}

/* Mark e's c written for the dirty sets that track it. */
void strata_mark(strata_world_t *w, strata_entity_t e, uint32_t c) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(c < w->component_count);
    if (sti_record_lookup(w, e) != NULL) {
        component_mark(w, e, c);
        sti_settle_sets(w);
    }
}

/* Copy value over e's c now (never deferred): STALE, MISSING or OK. */
strata_result_t strata_set(strata_world_t *w, strata_entity_t e, uint32_t c, const void *value) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(c < w->component_count);
    STRATA_ASSERT(value != NULL || w->components[c].size == 0);
    const sti_record_t *rec = sti_record_lookup(w, e);
    if (rec == NULL) {
        return STRATA_ERR_STALE;
    }
    sti_table_t *t = w->tables[rec->table];
    if (!sti_has(w, t, rec->row, c)) {
        return STRATA_ERR_MISSING;
    }
    sti_table_wrote(w, t); /* (a sparse value is in its set, which every snapshot copies) */
    void *at = sti_cell(w, t, c, rec->row);
    if (at != NULL && at != value) { /* set(e, c, get(e, c)) is a no-op, not an overlapping copy */
        sti_copy(at, value, w->components[c].size);
    }
    component_mark(w, e, c);
    sti_settle_sets(w);
    return STRATA_OK;
}

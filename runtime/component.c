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
        if (!strata_mask_test(&w->tables[rec->table]->mask, c)) {
            return STRATA_ERR_MISSING;
        }
        return component_defer_one(w, STI_CMD_REMOVE, e, c, NULL);
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
        bool present = strata_mask_test(&w->tables[rec->table]->mask, c);
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
        const strata_mask_t *mask = &w->tables[rec->table]->mask;
        bool any = false;
        for (uint32_t i = 0; i < k && !any; i++) {
            any = strata_mask_test(mask, ids[i]);
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

/* True if e is alive and has c (tags included). */
bool strata_has(const strata_world_t *w, strata_entity_t e, uint32_t c) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(c < w->component_count);
    const sti_record_t *rec = sti_record_lookup(w, e);
    return rec != NULL && strata_mask_test(&w->tables[rec->table]->mask, c);
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
    return rec != NULL ? sti_table_cell(w, w->tables[rec->table], c, rec->row) : NULL;
}

/* e's value of c, or NULL (stale, absent, tag). */
const void *strata_get(const strata_world_t *w, strata_entity_t e, uint32_t c) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(c < w->component_count);
    return component_address(w, e, c);
}

/* e's value of c to write in place (marked changed), or NULL (stale, absent, tag). */
void *strata_get_mut(strata_world_t *w, strata_entity_t e, uint32_t c) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(c < w->component_count);
    const sti_record_t *rec = sti_record_lookup(w, e);
    void *at = rec != NULL ? sti_table_cell(w, w->tables[rec->table], c, rec->row) : NULL;
    if (at != NULL) {
        sti_table_wrote(w, w->tables[rec->table]);
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
    if (!strata_mask_test(&t->mask, c)) {
        return STRATA_ERR_MISSING;
    }
    sti_table_wrote(w, t);
    void *at = sti_table_cell(w, t, c, rec->row);
    if (at != NULL && at != value) { /* set(e, c, get(e, c)) is a no-op, not an overlapping copy */
        sti_copy(at, value, w->components[c].size);
    }
    component_mark(w, e, c);
    sti_settle_sets(w);
    return STRATA_OK;
}

/* entity.c: the entity entry points: create one or in bulk (never
 * deferred), destroy (now, at the step's end, or recorded). */
#include "entity.h"

/* Room for `fresh` more indices. */
strata_result_t sti_records_reserve(strata_world_t *w, uint32_t fresh) {
    size_t cap = sti_index_capacity_for(w, fresh);
    if (cap == w->record_capacity) {
        return STRATA_OK;
    }
    return cap != 0 ? sti_index_resize(w, cap) : STRATA_ERR_NOMEM;
}

/* A new index for one entity at the end of t (row and record reserved). */
STI_HOT strata_entity_t entity_place_one(strata_world_t *w, sti_table_t *t) {
    uint32_t row = t->count++;
    if (STI_UNLIKELY(row == 0)) {
        sti_table_filled(w, t);
    }
    return t->entities[row] = sti_index_take(w, (uint16_t)t->id, row);
}

/* New rows [row, row + n) of t are in place (with the sparse components
 * of `planes`): their hooks, then what the hooks recorded. */
static void entity_created(strata_world_t *w, const sti_table_t *t, uint32_t row, uint32_t n, uint64_t planes) {
    if (t->hooked || (planes & w->sparse_hooked) != 0) {
        sti_observe_created(w, t, row, n);
        (void)sti_command_settle(w); /* a failure keeps the hooks' commands for the next settle */
    }
    sti_settle_sets(w); /* on_set of the values they came with */
}

/* A new entity in the empty table, at once even while deferred. */
strata_result_t strata_entity_create(strata_world_t *w, strata_entity_t *out) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(out != NULL);
    *out = STRATA_ENTITY_NULL;
    if (STI_UNLIKELY(w->slot != NULL)) {
        return sti_pool_spawn(w, 1, 0, NULL, NULL, out); /* inside a batch: made at its end */
    }
    sti_table_t *empty = w->tables[0];
    if (w->free_count == 0) {
        if (w->record_count >= w->entity_limit) {
            return STRATA_ERR_LIMIT;
        }
        if (w->record_count == w->record_capacity) {
            strata_result_t r = sti_records_reserve(w, 1);
            if (r != STRATA_OK) {
                return r;
            }
        }
    }
    strata_result_t r = sti_table_room(w, empty);
    if (r != STRATA_OK) {
        return r;
    }
    *out = entity_place_one(w, empty);
    return STRATA_OK;
}

/* One new entity with components, outside deferral: the common spawn. The
 * table is found by the last-table cache when the same set was placed
 * before (no mask copy, no hash), and room is checked inline; anything else
 * takes the bulk path. Returns false to ask for it (nothing changed). */
static bool entity_create_one(strata_world_t *w, const strata_mask_t *mask, uint32_t k, const uint32_t *ids,
                              const void *const *values, strata_entity_t *out) {
    sti_table_t *t = w->last_found;
    /* Another set, or one with aspect columns: the bulk path normalizes. */
    if (t == NULL || t->count == t->capacity || !sti_index_room_for_one(w) ||
        !sti_mask_equal(&t->mask, mask, w->mask_words)) {
        return false;
    }
    /* Room for the links its hooks file; out of it, the bulk path meets the error again. */
    if (STI_UNLIKELY(t->hooked) && w->hooks.add_room != NULL &&
        w->hooks.add_room(w, 1, NULL, k, ids, values) != STRATA_OK) {
        return false;
    }
    uint32_t row = t->count;
    *out = entity_place_one(w, t);
    sti_table_write(w, t, row, k, ids, values);
    sti_mark_ids(w, *out, k, ids);
    entity_created(w, t, row, 1, 0);
    return true;
}

/* True if a deferred spawn of one entity with one component can take the
 * short path below: a world without hooks (runs record it), room for the
 * entity in the empty table and for its index. */
STI_HOT bool entity_deferred_one_fits(const strata_world_t *w) {
    const sti_table_t *empty = w->tables[0];
    return !w->has_hooks && empty->count < empty->capacity && sti_index_room_for_one(w);
}

/* One new entity with one component while deferred (a system spawning an
 * entity per row it visits; entity_deferred_one_fits): placed in the empty
 * table at once, its component recorded as an entry of an add run, so the
 * settle moves a whole spawning loop's entities in one batch (command.c).
 * OK, or NOMEM with nothing changed. */
STI_HOT strata_result_t entity_create_deferred_one(strata_world_t *w, uint32_t c, const void *value,
                                                   strata_entity_t *out) {
    size_t bytes = sti_command_run_bytes(w, STI_CMD_ADD_RUN, c);
    if (w->cmd_size + bytes > w->cmd_capacity) {
        strata_result_t r = sti_command_reserve(w, bytes);
        if (r != STRATA_OK) {
            return r;
        }
    }
    *out = entity_place_one(w, w->tables[0]);
    if (!sti_command_run_join(w, STI_CMD_ADD_RUN, *out, c, value)) {
        (void)sti_command_run(w, STI_CMD_ADD_RUN, *out, c, value); /* room reserved: cannot fail */
    }
    return STRATA_OK;
}

/* n new entities placed in their final table in one go (all or nothing). */
__attribute__((noinline)) static strata_result_t entity_create_many(strata_world_t *w, uint32_t n, uint32_t k,
                                                                    const uint32_t *ids, const void *const *values,
                                                                    strata_entity_t *out) {
    strata_mask_t mask = {{0}};
    for (uint32_t i = 0; i < k; i++) {
        STRATA_ASSERT(ids[i] < w->component_count);
        STRATA_ASSERT(!strata_mask_test(&mask, ids[i])); /* no duplicates */
        strata_mask_set(&mask, ids[i]);
    }
    if (n == 0) {
        return STRATA_OK;
    }
    uint64_t planes = 0; /* the sparse components among ids: not in the table's mask */
    for (uint32_t i = 0; w->sparse_count > 0 && i < k; i++) {
        if (sti_is_sparse(w, ids[i])) {
            planes |= (uint64_t)1 << w->sparse_plane[ids[i]];
            strata_mask_clear(&mask, ids[i]);
        }
    }
    if (STI_UNLIKELY(w->slot != NULL)) {
        return sti_pool_spawn(w, n, k, ids, values, out); /* inside a batch: made at its end */
    }
    uint32_t kept_ids[STRATA_MAX_COMPONENTS];
    const void *kept_values[STRATA_MAX_COMPONENTS];
    if (k > 0 && !sti_deferred(w) && w->hooks.links_keep != NULL) {
        /* A link to a dead target is left out (made now, they close no cycle). */
        uint32_t kept = w->hooks.links_keep(w, STRATA_ENTITY_NULL, k, ids, values, kept_ids, kept_values);
        if (kept < k) { /* (links are never sparse) */
            mask = (strata_mask_t){{0}};
            for (uint32_t i = 0; i < kept; i++) {
                if (!sti_is_sparse(w, kept_ids[i])) {
                    strata_mask_set(&mask, kept_ids[i]);
                }
            }
        }
        k = kept;
        ids = kept_ids;
        values = kept_values;
    }
    if (n == 1 && k > 0 && planes == 0 && !sti_deferred(w) && entity_create_one(w, &mask, k, ids, values, out)) {
        return STRATA_OK;
    }
    uint32_t fresh = n > w->free_count ? n - w->free_count : 0;
    if ((uint64_t)w->record_count + fresh > w->entity_limit) {
        return STRATA_ERR_LIMIT;
    }
    /* While deferred the entities wait in the empty table and an ADD
     * command carries their components. */
    bool deferred = sti_deferred(w) && k > 0;
    sti_table_t *t = w->tables[0];
    strata_result_t r = STRATA_OK;
    if (k > 0 && !deferred) {
        r = sti_table_ensure(w, &mask, &t);
    }
    if (r == STRATA_OK && t->hooked && !deferred && w->hooks.add_room != NULL) {
        r = w->hooks.add_room(w, n, NULL, k, ids, values); /* the links its hooks file (deferred: its add's) */
    }
    if (r == STRATA_OK) {
        r = sti_records_reserve(w, fresh);
    }
    if (r == STRATA_OK) {
        r = sti_table_reserve(w, t, n);
    }
    for (uint64_t left = deferred ? 0 : planes; left != 0 && r == STRATA_OK; left &= left - 1) {
        r = sti_sparse_reserve(w, (uint32_t)__builtin_ctzll(left), w->record_count + fresh, n);
    }
    size_t bytes = deferred ? sti_command_bytes(w, STI_CMD_ADD, n, k, ids) : 0;
    if (r == STRATA_OK && deferred) {
        r = sti_command_reserve(w, bytes);
    }
    if (r != STRATA_OK) {
        return r;
    }
    uint32_t row = t->count;
    sti_index_take_many(w, (uint16_t)t->id, row, n, t->entities + row, out);
    t->count += n;
    if (row == 0 && n > 0) {
        sti_table_filled(w, t);
    }
    if (deferred) {
        sti_command_write(w, bytes, STI_CMD_ADD, n, out, k, ids, values);
        return STRATA_OK;
    }
    sti_table_fill(w, t, row, n, k, ids, values);
    for (uint32_t i = 0; planes != 0 && i < k; i++) {
        if (sti_is_sparse(w, ids[i])) {
            for (uint32_t j = 0; j < n; j++) {
                sti_sparse_put(w, w->sparse_plane[ids[i]], t, row + j, out[j], values != NULL ? values[i] : NULL);
            }
        }
    }
    for (uint32_t i = 0; w->dirty_count > 0 && i < n; i++) {
        sti_mark_ids(w, out[i], k, ids);
    }
    entity_created(w, t, row, n, planes);
    return STRATA_OK;
}

/* The deferred spawn of one entity with one component inline, the rest out of line. */
strata_result_t strata_entity_create_many(strata_world_t *w, uint32_t n, uint32_t k, const uint32_t *ids,
                                          const void *const *values, strata_entity_t *out) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(out != NULL || n == 0);
    STRATA_ASSERT(ids != NULL || k == 0);
    if (n == 1 && k == 1 && sti_deferred(w) && entity_deferred_one_fits(w)) {
        STRATA_ASSERT(ids[0] < w->component_count);
        return entity_create_deferred_one(w, ids[0], values != NULL ? values[0] : NULL, out);
    }
    return entity_create_many(w, n, k, ids, values, out);
}

/* Destroy now, or schedule it (step) or record it (deferred); STALE if dead or scheduled. */
strata_result_t strata_entity_destroy(strata_world_t *w, strata_entity_t e) {
    STRATA_ASSERT(w != NULL);
    sti_record_t *rec = sti_record_lookup(w, e);
    if (rec == NULL || (rec->flags & STI_FLAG_DOOMED) != 0) {
        return STRATA_ERR_STALE;
    }
    if (w->in_step) {
        return sti_command_doom(w, rec, e);
    }
    if (sti_deferred(w)) {
        strata_result_t r = sti_command_push(w, STI_CMD_DESTROY, &e, 0, NULL, NULL);
        if (r == STRATA_OK) {
            rec->flags |= STI_FLAG_DOOMED | STI_FLAG_RECORDED;
        }
        return r;
    }
    if (w->hooks.destroy_room != NULL) {
        strata_result_t r = w->hooks.destroy_room(w, e);
        if (r != STRATA_OK) {
            return r;
        }
    }
    sti_move_destroy(w, rec);
    (void)sti_command_settle(w); /* what its hooks recorded; a failure keeps it for the next settle */
    return STRATA_OK;
}

/* fn for each entity alive now, inside a deferral scope; the empty table
 * first, and only the rows it has now (entities made meanwhile go there). */
strata_result_t strata_entity_each(strata_world_t *w, strata_entity_fn_t fn, void *user) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(fn != NULL);
    strata_defer_begin(w);
    for (uint32_t t = 0; t < w->table_count; t++) {
        uint32_t n = w->tables[t]->count;
        for (uint32_t row = 0; row < n; row++) {
            fn(w, w->tables[t]->entities[row], user);
        }
    }
    return strata_defer_end(w);
}

/* True if e names a live entity (a scheduled one included). */
bool strata_entity_alive(const strata_world_t *w, strata_entity_t e) {
    STRATA_ASSERT(w != NULL);
    return sti_record_lookup(w, e) != NULL;
}

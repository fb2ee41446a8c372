/* component.c: adding, removing, reading and writing components. */
#include "strata_internal.h"

/* Write the values of ids (tags skipped) at row `row` of t. */
static void component_write(strata_world_t *w, sti_table_t *t, uint32_t row, uint32_t k, const uint32_t *ids,
                            const void *const *values) {
    for (uint32_t i = 0; i < k; i++) {
        unsigned char *col = t->columns[ids[i]];
        if (col != NULL) {
            sti_value_write(w, col + (size_t)row * w->components[ids[i]].size, ids[i],
                               values != NULL ? values[i] : NULL);
        }
    }
}

/* Make room for one more row in t (the hot path only compares). */
static inline strata_result_t component_room(strata_world_t *w, sti_table_t *t) {
    return t->count < t->capacity ? STRATA_OK : sti_table_reserve(w, t, 1);
}

/* Zeros for the value of a small component that has no defaults. */
static const unsigned char component_zeros[STI_SMALL_SIZE];

/* Add one component, every case: overwrite if present, find or make the
 * edge, grow the target, large columns. */
STI_COLD static strata_result_t component_add_slow(strata_world_t *w, sti_record_t *rec, uint32_t c,
                                                      const void *value) {
    sti_table_t *src = w->tables[rec->table];
    if (strata_mask_test(&src->mask, c)) {
        unsigned char *col = src->columns[c];
        if (col != NULL) {
            sti_value_write(w, col + (size_t)rec->row * w->components[c].size, c, value);
        }
        return STRATA_OK;
    }
    const sti_edge_t *edge = &src->edges[c];
    if (edge->table == NULL) {
        strata_result_t r = sti_table_edge(w, src, c, true, NULL);
        if (r != STRATA_OK) {
            return r;
        }
    }
    sti_table_t *dst = edge->table;
    uint32_t hole = edge->hole;
    strata_result_t r = component_room(w, dst);
    if (r != STRATA_OK) {
        return r;
    }
    if (edge->general) {
        sti_move_general(w, rec, src, dst, 1, &c, &value);
        return STRATA_OK;
    }
    /* The value first, in the row the entity is about to take. */
    if (hole != STI_NO_HOLE) {
        const sti_column_t *col = &dst->dense[hole];
        sti_value_write(w, col->data + (size_t)dst->count * col->size, c, value);
    }
    sti_table_move_add(w, rec, src, dst, hole);
    return STRATA_OK;
}

/* Add one component: the hot path (a cached edge to a table with room and
 * small columns) inline, everything else in component_add_slow. */
STI_HOT strata_result_t component_add_one(strata_world_t *w, sti_record_t *rec, uint32_t c,
                                             const void *value) {
    sti_table_t *src = w->tables[rec->table];
    const sti_edge_t *edge = &src->edges[c];
    sti_table_t *dst = edge->table;
    /* A NULL edge also covers "already present": add edges of present
     * components are never filled. */
    if (STI_UNLIKELY(dst == NULL || dst->count == dst->capacity || dst->max_size > STI_SMALL_SIZE ||
                        edge->general)) {
        return component_add_slow(w, rec, c, value);
    }
    uint32_t hole = edge->hole;
    /* The value first, in the row the entity is about to take: nothing
     * stays live across the column move at the end. */
    if (hole != STI_NO_HOLE) {
        const sti_column_t *col = &dst->dense[hole];
        if (value == NULL) {
            value = w->components[c].defaults != NULL ? w->components[c].defaults : component_zeros;
        }
        sti_copy_small(col->data + (size_t)dst->count * col->size, value, col->size);
    }
    sti_table_move_add(w, rec, src, dst, hole);
    return STRATA_OK;
}

/* Remove one component, every case. */
STI_COLD static strata_result_t component_remove_slow(strata_world_t *w, sti_record_t *rec, uint32_t c) {
    sti_table_t *src = w->tables[rec->table];
    if (!strata_mask_test(&src->mask, c)) {
        return STRATA_ERR_MISSING;
    }
    const sti_edge_t *edge = &src->edges[w->component_count + c];
    if (edge->table == NULL) {
        strata_result_t r = sti_table_edge(w, src, c, false, NULL);
        if (r != STRATA_OK) {
            return r;
        }
    }
    sti_table_t *dst = edge->table;
    strata_result_t r = component_room(w, dst);
    if (r != STRATA_OK) {
        return r;
    }
    if (edge->general) {
        sti_move_general(w, rec, src, dst, 0, NULL, NULL);
        return STRATA_OK;
    }
    sti_table_move_remove(w, rec, src, dst, edge->hole);
    return STRATA_OK;
}

/* Remove one component: the hot path inline, the rest in component_remove_slow. */
STI_HOT strata_result_t component_remove_one(strata_world_t *w, sti_record_t *rec, uint32_t c) {
    sti_table_t *src = w->tables[rec->table];
    const sti_edge_t *edge = &src->edges[w->component_count + c];
    sti_table_t *dst = edge->table;
    /* A NULL edge also covers "absent": remove edges of absent components are never filled. */
    if (STI_UNLIKELY(dst == NULL || dst->count == dst->capacity || src->max_size > STI_SMALL_SIZE ||
                        edge->general)) {
        return component_remove_slow(w, rec, c);
    }
    sti_table_move_remove(w, rec, src, dst, edge->hole);
    return STRATA_OK;
}

/* Add or overwrite k components of a live entity with one move; on error nothing changed. */
strata_result_t sti_component_add_now(strata_world_t *w, sti_record_t *rec, uint32_t k, const uint32_t *ids,
                                         const void *const *values) {
    if (k == 1) {
        return component_add_one(w, rec, ids[0], values != NULL ? values[0] : NULL);
    }
    /* Several at once: one lookup by mask, not a walk through the
     * intermediate archetypes (which would create them). */
    sti_table_t *src = w->tables[rec->table];
    sti_table_t *dst = src;
    strata_mask_t mask = src->mask;
    for (uint32_t i = 0; i < k; i++) {
        strata_mask_set(&mask, ids[i]);
    }
    if (memcmp(&mask, &src->mask, sizeof mask) != 0) {
        strata_result_t r = sti_table_ensure(w, &mask, &dst);
        if (r == STRATA_OK) {
            r = component_room(w, dst);
        }
        if (r != STRATA_OK) {
            return r;
        }
        if (sti_move_is_general(w, src, dst)) {
            sti_move_general(w, rec, src, dst, k, ids, values);
            return STRATA_OK;
        }
        sti_table_move(w, rec, src, dst);
    }
    component_write(w, dst, rec->row, k, ids, values);
    return STRATA_OK;
}

/* Remove the components among ids that a live entity has, with one move; MISSING if none. */
strata_result_t sti_component_remove_now(strata_world_t *w, sti_record_t *rec, uint32_t k,
                                            const uint32_t *ids) {
    if (k == 1) {
        return component_remove_one(w, rec, ids[0]);
    }
    sti_table_t *src = w->tables[rec->table];
    sti_table_t *dst = NULL;
    strata_mask_t mask = src->mask;
    for (uint32_t i = 0; i < k; i++) {
        strata_mask_clear(&mask, ids[i]);
    }
    if (memcmp(&mask, &src->mask, sizeof mask) == 0) {
        return STRATA_ERR_MISSING;
    }
    strata_result_t r = sti_table_ensure(w, &mask, &dst);
    if (r == STRATA_OK) {
        r = component_room(w, dst);
    }
    if (r == STRATA_OK && sti_move_is_general(w, src, dst)) {
        sti_move_general(w, rec, src, dst, 0, NULL, NULL);
    } else if (r == STRATA_OK) {
        sti_table_move(w, rec, src, dst);
    }
    return r;
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

/* Add (or overwrite) one component now, or record it while deferred. */
strata_result_t strata_add(strata_world_t *w, strata_entity_t e, uint32_t c, const void *value) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(c < w->component_count);
    sti_record_t *rec = sti_record_lookup(w, e);
    if (rec == NULL) {
        return STRATA_ERR_STALE;
    }
    if (w->defer_depth > 0) {
        return component_defer_one(w, STI_CMD_ADD, e, c, value);
    }
    strata_result_t r = component_add_one(w, rec, c, value);
    if (r == STRATA_OK) {
        sti_mark_ids(w, e, 1, &c);
    }
    return r;
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
    if (w->defer_depth > 0) {
        return sti_command_push(w, STI_CMD_ADD, &e, k, ids, values);
    }
    strata_result_t r = sti_component_add_now(w, rec, k, ids, values);
    if (r == STRATA_OK) {
        sti_mark_ids(w, e, k, ids);
    }
    return r;
}

/* Remove one component now, or record it while deferred (MISSING checked now). */
strata_result_t strata_remove(strata_world_t *w, strata_entity_t e, uint32_t c) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(c < w->component_count);
    sti_record_t *rec = sti_record_lookup(w, e);
    if (rec == NULL) {
        return STRATA_ERR_STALE;
    }
    if (w->defer_depth > 0) {
        if (!strata_mask_test(&w->tables[rec->table]->mask, c)) {
            return STRATA_ERR_MISSING;
        }
        return component_defer_one(w, STI_CMD_REMOVE, e, c, NULL);
    }
    return component_remove_one(w, rec, c);
}

/* Remove the ids the entity has with one move; MISSING if it has none. */
strata_result_t strata_remove_many(strata_world_t *w, strata_entity_t e, uint32_t k, const uint32_t *ids) {
    STRATA_ASSERT(w != NULL);
    component_check_ids(w, k, ids);
    sti_record_t *rec = sti_record_lookup(w, e);
    if (rec == NULL) {
        return STRATA_ERR_STALE;
    }
    if (w->defer_depth > 0) {
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
    return sti_component_remove_now(w, rec, k, ids);
}

/* True if e is alive and has c (tags included). */
bool strata_has(const strata_world_t *w, strata_entity_t e, uint32_t c) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(c < w->component_count);
    const sti_record_t *rec = sti_record_lookup(w, e);
    return rec != NULL && strata_mask_test(&w->tables[rec->table]->mask, c);
}

/* The address of e's value of c, or NULL (stale, absent or a tag). */
static void *component_address(const strata_world_t *w, strata_entity_t e, uint32_t c) {
    const sti_record_t *rec = sti_record_lookup(w, e);
    if (rec == NULL) {
        return NULL;
    }
    unsigned char *col = w->tables[rec->table]->columns[c];
    return col != NULL ? col + (size_t)rec->row * w->components[c].size : NULL;
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
    void *at = component_address(w, e, c);
    if (at != NULL) {
        sti_mark_ids(w, e, 1, &c);
    }
    return at;
}

/* Mark e's c written for the dirty sets that track it. */
void strata_mark(strata_world_t *w, strata_entity_t e, uint32_t c) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(c < w->component_count);
    if (sti_record_lookup(w, e) != NULL) {
        sti_mark_ids(w, e, 1, &c);
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
    const sti_table_t *t = w->tables[rec->table];
    if (!strata_mask_test(&t->mask, c)) {
        return STRATA_ERR_MISSING;
    }
    unsigned char *col = t->columns[c];
    if (col != NULL) {
        unsigned char *at = col + (size_t)rec->row * w->components[c].size;
        if (at != value) { /* set(e, c, get(e, c)) is a no-op, not an overlapping copy */
            sti_copy(at, value, w->components[c].size);
        }
    }
    sti_mark_ids(w, e, 1, &c);
    return STRATA_OK;
}

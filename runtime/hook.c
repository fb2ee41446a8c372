/* hook.c: what runs when an entity's archetype changes: component hooks,
 * query hooks with their aspects (per-entity state of a query, stored as
 * extra columns of the tables that match it), and the dirty sets of
 * queries with `changed` terms.
 *
 * Aspect k lives in column id component_count + k; a table has that column
 * exactly when it matches the query, so the aspect moves with the entity
 * like a component, is made when the entity starts to match, and dropped
 * when it stops. Moves that change what an entity matches or that gain or
 * lose a hooked component take sti_move_general; the others keep the
 * plain paths and cost nothing extra. */
#include "strata_internal.h"

#include <stdint.h>

/* True if a table of `mask` matches query q. */
static bool hook_matches(const strata_world_t *w, uint32_t q, const strata_mask_t *mask) {
    const strata_query_desc_t *d = &w->schema->queries[q];
    for (uint32_t i = 0; i < STRATA_MAX_COMPONENTS / 64; i++) {
        if ((d->all.bits[i] & ~mask->bits[i]) != 0 || (d->none.bits[i] & mask->bits[i]) != 0) {
            return false;
        }
    }
    return true;
}

/* True if any bit of a is set in b as well. */
static bool hook_mask_meets(const strata_mask_t *a, const strata_mask_t *b) {
    for (uint32_t i = 0; i < STRATA_MAX_COMPONENTS / 64; i++) {
        if ((a->bits[i] & b->bits[i]) != 0) {
            return true;
        }
    }
    return false;
}

/* True if the mask has no bit set. */
static bool hook_mask_empty(const strata_mask_t *m) {
    for (uint32_t i = 0; i < STRATA_MAX_COMPONENTS / 64; i++) {
        if (m->bits[i] != 0) {
            return false;
        }
    }
    return true;
}

/* The aspect columns' descs after the components' (owned by the world). */
static strata_result_t hook_init_aspects(strata_world_t *w, uint32_t aspects) {
    const strata_schema_t *s = w->schema;
    size_t bytes = sizeof(strata_component_desc_t) * (s->component_count + aspects);
    strata_component_desc_t *descs = sti_mem_alloc(w, bytes);
    if (descs == NULL) {
        return STRATA_ERR_NOMEM;
    }
    if (s->component_count > 0) {
        memcpy(descs, s->components, sizeof(strata_component_desc_t) * s->component_count);
    }
    for (uint32_t k = 0; k < w->monitor_count; k++) {
        uint32_t id = w->monitor_aspect[k];
        if (id != UINT32_MAX) {
            const strata_query_desc_t *q = &s->queries[w->monitor_query[k]];
            descs[id] = (strata_component_desc_t){q->name, q->aspect_size, q->aspect_align, q->aspect_defaults,
                                                  NULL, NULL};
        }
    }
    w->column_descs = descs;
    w->components = descs;
    return STRATA_OK;
}

/* The dirty sets (empty until records are reserved), the query -> set map
 * and the component -> sets map. */
static strata_result_t hook_init_dirty(strata_world_t *w, uint32_t sets) {
    const strata_schema_t *s = w->schema;
    w->dirty = sti_mem_alloc(w, sizeof(sti_dirty_t) * sets);
    if (w->dirty == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memset(w->dirty, 0, sizeof(sti_dirty_t) * sets);
    w->dirty_count = sets; /* so sti_hooks_free frees the array whatever fails next */
    w->query_dirty = sti_mem_alloc(w, sizeof(uint32_t) * s->query_count);
    w->query_marks = sti_mem_alloc(w, sizeof(uint64_t) * s->query_count);
    w->trackers = sti_mem_alloc(w, sizeof(uint64_t) * s->component_count);
    if (w->query_dirty == NULL || w->query_marks == NULL || w->trackers == NULL) {
        return STRATA_ERR_NOMEM; /* the caller destroys the world, these with it */
    }
    memset(w->trackers, 0, sizeof(uint64_t) * s->component_count);
    uint32_t next = 0;
    for (uint32_t q = 0; q < s->query_count; q++) {
        w->query_dirty[q] = UINT32_MAX;
        if (!hook_mask_empty(&s->queries[q].changed)) {
            uint32_t k = next++;
            w->dirty[k].query = q;
            w->query_dirty[q] = k;
            for (uint32_t c = 0; c < s->component_count; c++) {
                if (strata_mask_test(&s->queries[q].changed, c)) {
                    w->trackers[c] |= (uint64_t)1 << k;
                }
            }
        }
    }
    for (uint32_t q = 0; q < s->query_count; q++) {
        uint64_t slots = 0;
        for (uint32_t c = 0; c < s->component_count; c++) {
            if (strata_mask_test(&s->queries[q].write, c)) {
                slots |= w->trackers[c];
            }
        }
        if (w->query_dirty[q] != UINT32_MAX) {
            slots &= ~((uint64_t)1 << w->query_dirty[q]); /* a system's own writes are not its changes */
        }
        w->query_marks[q] = slots;
    }
    return STRATA_OK;
}

/* Monitors, aspects and dirty sets from the schema. */
strata_result_t sti_hooks_init(strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    uint32_t aspects = 0, sets = 0;
    for (uint32_t c = 0; c < s->component_count; c++) {
        if (s->components[c].on_add != NULL || s->components[c].on_remove != NULL) {
            strata_mask_set(&w->hooked, c);
        }
    }
    for (uint32_t q = 0; q < s->query_count; q++) {
        const strata_query_desc_t *d = &s->queries[q];
        sets += !hook_mask_empty(&d->changed);
        if (d->aspect_size == 0 && d->on_add == NULL && d->on_remove == NULL) {
            continue;
        }
        STRATA_ASSERT(w->monitor_count < STRATA_MAX_MONITORS);
        uint32_t k = w->monitor_count++;
        w->monitor_query[k] = q;
        w->monitor_aspect[k] = d->aspect_size > 0 ? s->component_count + aspects++ : UINT32_MAX;
    }
    w->has_hooks = w->monitor_count > 0 || !hook_mask_empty(&w->hooked);
    STRATA_ASSERT(s->component_count + aspects <= STRATA_MAX_COMPONENTS);
    STRATA_ASSERT(sets <= STRATA_MAX_CHANGED);
    w->column_id_count = s->component_count + aspects;
    w->mask_words = (w->column_id_count + 63) / 64;
    strata_result_t r = STRATA_OK;
    if (aspects > 0) {
        r = hook_init_aspects(w, aspects);
    }
    if (r == STRATA_OK && sets > 0) {
        r = hook_init_dirty(w, sets);
    }
    return r;
}

/* Free the aspect descs and the dirty sets. */
void sti_hooks_free(strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    sti_mem_free(w, w->column_descs, sizeof(strata_component_desc_t) * w->column_id_count);
    if (w->dirty != NULL) {
        for (uint32_t k = 0; k < w->dirty_count; k++) {
            sti_mem_free(w, w->dirty[k].list, sizeof(strata_entity_t) * w->dirty[k].capacity);
        }
    }
    sti_mem_free(w, w->dirty, sizeof(sti_dirty_t) * w->dirty_count);
    sti_mem_free(w, w->query_dirty, sizeof(uint32_t) * s->query_count);
    sti_mem_free(w, w->query_marks, sizeof(uint64_t) * s->query_count);
    sti_mem_free(w, w->trackers, sizeof(uint64_t) * s->component_count);
}

/* Aspect bits follow from the component bits: set those of the monitored queries matched. */
void sti_mask_normalize(const strata_world_t *w, strata_mask_t *mask) {
    if (w->column_id_count == w->component_count) {
        return;
    }
    for (uint32_t id = w->component_count; id < w->column_id_count; id++) {
        strata_mask_clear(mask, id);
    }
    for (uint32_t k = 0; k < w->monitor_count; k++) {
        if (w->monitor_aspect[k] != UINT32_MAX && hook_matches(w, w->monitor_query[k], mask)) {
            strata_mask_set(mask, w->monitor_aspect[k]);
        }
    }
}

/* What a new table matches among monitors and dirty sets. */
void sti_table_classify(const strata_world_t *w, sti_table_t *t) {
    for (uint32_t k = 0; k < w->monitor_count; k++) {
        if (hook_matches(w, w->monitor_query[k], &t->mask)) {
            t->monitors |= (uint64_t)1 << k;
        }
    }
    for (uint32_t k = 0; k < w->dirty_count; k++) {
        if (hook_matches(w, w->dirty[k].query, &t->mask)) {
            t->tracked_by |= (uint64_t)1 << k;
        }
    }
    t->hooked = t->monitors != 0 || hook_mask_meets(&t->mask, &w->hooked);
}

/* True if the components gained or lost between src and dst include a hooked one,
 * or the monitors matched differ. */
bool sti_move_is_general(const strata_world_t *w, const sti_table_t *src, const sti_table_t *dst) {
    if (src->monitors != dst->monitors) {
        return true;
    }
    for (uint32_t i = 0; i < STRATA_MAX_COMPONENTS / 64; i++) {
        if (((src->mask.bits[i] ^ dst->mask.bits[i]) & w->hooked.bits[i]) != 0) {
            return true;
        }
    }
    return false;
}

/* The address of column id's element at row of t, or NULL (absent or a tag). */
static void *hook_cell(const strata_world_t *w, const sti_table_t *t, uint32_t id, uint32_t row) {
    unsigned char *col = t->columns[id];
    return col != NULL ? col + (size_t)row * w->components[id].size : NULL;
}

/* on_remove of the monitors in `gone` and of the hooked components in `lost`,
 * for the entity at row of t (still in place). */
static void hook_leave(strata_world_t *w, const sti_table_t *t, uint32_t row, uint64_t gone,
                       const strata_mask_t *lost) {
    strata_entity_t e = t->entities[row];
    for (uint32_t k = 0; k < w->monitor_count; k++) {
        const strata_query_desc_t *q = &w->schema->queries[w->monitor_query[k]];
        if ((gone >> k & 1u) && q->on_remove != NULL) {
            void *aspect = w->monitor_aspect[k] != UINT32_MAX ? hook_cell(w, t, w->monitor_aspect[k], row) : NULL;
            q->on_remove(w, e, aspect);
        }
    }
    for (uint32_t c = 0; c < w->component_count; c++) {
        if (strata_mask_test(lost, c) && w->components[c].on_remove != NULL) {
            w->components[c].on_remove(w, e, hook_cell(w, t, c, row));
        }
    }
}

/* New aspects of the monitors in `fresh` at their defaults, then on_add of the
 * hooked components in `gained` and of those monitors, for the entity at row of t. */
static void hook_enter(strata_world_t *w, const sti_table_t *t, uint32_t row, uint64_t fresh,
                       const strata_mask_t *gained) {
    strata_entity_t e = t->entities[row];
    for (uint32_t k = 0; k < w->monitor_count; k++) {
        if ((fresh >> k & 1u) && w->monitor_aspect[k] != UINT32_MAX) {
            uint32_t id = w->monitor_aspect[k];
            sti_value_write(w, hook_cell(w, t, id, row), id, NULL);
        }
    }
    for (uint32_t c = 0; c < w->component_count; c++) {
        if (strata_mask_test(gained, c) && w->components[c].on_add != NULL) {
            w->components[c].on_add(w, e, hook_cell(w, t, c, row));
        }
    }
    for (uint32_t k = 0; k < w->monitor_count; k++) {
        const strata_query_desc_t *q = &w->schema->queries[w->monitor_query[k]];
        if ((fresh >> k & 1u) && q->on_add != NULL) {
            void *aspect = w->monitor_aspect[k] != UINT32_MAX ? hook_cell(w, t, w->monitor_aspect[k], row) : NULL;
            q->on_add(w, e, aspect);
        }
    }
}

/* The hooked components of a that b lacks. */
static strata_mask_t hook_lost(const strata_world_t *w, const strata_mask_t *a, const strata_mask_t *b) {
    strata_mask_t m;
    for (uint32_t i = 0; i < STRATA_MAX_COMPONENTS / 64; i++) {
        m.bits[i] = a->bits[i] & ~b->bits[i] & w->hooked.bits[i];
    }
    return m;
}

/* Write the values of ids (tags skipped) at row of t. */
static void hook_write_values(strata_world_t *w, sti_table_t *t, uint32_t row, uint32_t k, const uint32_t *ids,
                              const void *const *values) {
    for (uint32_t i = 0; i < k; i++) {
        void *cell = hook_cell(w, t, ids[i], row);
        if (cell != NULL) {
            sti_value_write(w, cell, ids[i], values != NULL ? values[i] : NULL);
        }
    }
}

/* The move with its hooks; hooks' structural changes are deferred to the end. */
void sti_move_general(strata_world_t *w, sti_record_t *rec, sti_table_t *src, sti_table_t *dst,
                         uint32_t k, const uint32_t *ids, const void *const *values) {
    uint64_t gone = src->monitors & ~dst->monitors, fresh = dst->monitors & ~src->monitors;
    strata_mask_t lost = hook_lost(w, &src->mask, &dst->mask);
    strata_mask_t gained = hook_lost(w, &dst->mask, &src->mask);
    uint32_t index = (uint32_t)(rec - w->records);
    w->defer_depth++;
    hook_leave(w, src, rec->row, gone, &lost);
    /* A hook may create entities (never deferred), which can move the records. */
    rec = &w->records[index];
    uint32_t row = sti_table_move(w, rec, src, dst);
    hook_write_values(w, dst, row, k, ids, values);
    hook_enter(w, dst, row, fresh, &gained);
    w->defer_depth--;
    (void)sti_command_settle(w); /* a failure keeps the hooks' commands for the next flush */
}

/* Every on_remove of an entity about to be destroyed. */
void sti_hooks_destroy(strata_world_t *w, sti_record_t *rec) {
    sti_table_t *t = w->tables[rec->table];
    strata_mask_t none = {{0}};
    strata_mask_t lost = hook_lost(w, &t->mask, &none);
    w->defer_depth++;
    hook_leave(w, t, rec->row, t->monitors, &lost);
    w->defer_depth--;
}

/* on_remove of every entity of every hooked table, once. */
void sti_hooks_destroy_all(strata_world_t *w) {
    if (w->hooks_gone) {
        return;
    }
    w->hooks_gone = true;
    w->defer_depth++;
    for (uint32_t i = 0; i < w->table_count; i++) {
        sti_table_t *t = w->tables[i];
        for (uint32_t row = 0; t->hooked && row < t->count; row++) {
            /* The record again each time: a hook that creates entities can move the records. */
            sti_hooks_destroy(w, &w->records[(uint32_t)t->entities[row]]);
        }
    }
    w->defer_depth--;
}

/* Aspects and on_add hooks of new rows of t. */
void sti_hooks_created(strata_world_t *w, sti_table_t *t, uint32_t row, uint32_t n) {
    strata_mask_t none = {{0}};
    strata_mask_t gained = hook_lost(w, &t->mask, &none);
    w->defer_depth++;
    for (uint32_t i = 0; i < n; i++) {
        hook_enter(w, t, row + i, t->monitors, &gained);
    }
    w->defer_depth--;
    (void)sti_command_settle(w);
}

/* --- Dirty sets ---------------------------------------------------------- */

/* Room in every set for `capacity` entity indices (records grow with them).
 * A set grown before another failed only holds more room. */
strata_result_t sti_dirty_reserve(strata_world_t *w, uint32_t capacity) {
    for (uint32_t k = 0; k < w->dirty_count; k++) {
        sti_dirty_t *d = &w->dirty[k];
        if (d->capacity >= capacity) {
            continue;
        }
        strata_entity_t *list = sti_mem_realloc(w, d->list, sizeof(strata_entity_t) * d->capacity,
                                                   sizeof(strata_entity_t) * capacity);
        if (list == NULL) {
            return STRATA_ERR_NOMEM;
        }
        d->list = list;
        d->capacity = capacity;
    }
    return STRATA_OK;
}

/* Drop the entries that need no visit: stale handles, entities no longer
 * flagged, and (while an iteration is open) those it visited; the open
 * iteration's cursor and end follow. */
static void dirty_compact(strata_world_t *w, sti_dirty_t *d, uint32_t k) {
    uint32_t from = d->busy ? d->cursor : 0;
    uint32_t kept = 0, end = 0;
    for (uint32_t i = from; i < d->count; i++) {
        const sti_record_t *rec = sti_record_lookup(w, d->list[i]);
        if (rec != NULL && (rec->flags & STI_FLAG_DIRTY(k)) != 0) {
            d->list[kept++] = d->list[i];
            end += d->busy && i < d->end;
        }
    }
    d->count = kept;
    d->cursor = 0;
    d->end = end;
}

/* Add a live entity (its record given) to set k unless it is in already. */
static inline void dirty_add(strata_world_t *w, uint32_t k, sti_record_t *rec, strata_entity_t e) {
    uint16_t bit = (uint16_t)STI_FLAG_DIRTY(k);
    if ((rec->flags & bit) != 0) {
        return;
    }
    sti_dirty_t *d = &w->dirty[k];
    if (d->count == d->capacity) {
        /* Stale entries of destroyed entities filled it: each live entity has
         * at most one entry, and there are no more than capacity of them. */
        dirty_compact(w, d, k);
    }
    rec->flags |= bit;
    d->list[d->count++] = e;
}

/* Mark a live e in each set of `slots`. */
void sti_dirty_mark(strata_world_t *w, uint64_t slots, strata_entity_t e) {
    sti_record_t *rec = &w->records[(uint32_t)e];
    while (slots != 0) {
        uint32_t k = (uint32_t)__builtin_ctzll(slots);
        slots &= slots - 1;
        dirty_add(w, k, rec, e);
    }
}

/* Mark n rows of t in the sets fed by query q's writes. */
void sti_dirty_mark_rows(strata_world_t *w, uint32_t q, const sti_table_t *t, uint32_t row, uint32_t n) {
    uint64_t slots = w->query_marks[q];
    while (slots != 0) {
        uint32_t k = (uint32_t)__builtin_ctzll(slots);
        slots &= slots - 1;
        for (uint32_t i = 0; i < n; i++) {
            strata_entity_t e = t->entities[row + i];
            dirty_add(w, k, &w->records[(uint32_t)e], e);
        }
    }
}

/* How far ahead of the cursor the iteration asks for records. */
#define DIRTY_PREFETCH 16u

/* The next entry of the set still alive, flagged and matching: one row. */
bool sti_dirty_next(strata_iter_t *it) {
    strata_world_t *w = it->world;
    uint32_t k = w->query_dirty[it->query];
    sti_dirty_t *d = &w->dirty[k];
    uint16_t bit = (uint16_t)STI_FLAG_DIRTY(k);
    uint64_t match = (uint64_t)1 << k;
    while (d->cursor < d->end) {
        /* The entries are in marking order, scattered over the records. */
        if (d->cursor + DIRTY_PREFETCH < d->end) {
            __builtin_prefetch(&w->records[(uint32_t)d->list[d->cursor + DIRTY_PREFETCH]]);
        }
        strata_entity_t e = d->list[d->cursor++];
        sti_record_t *rec = sti_record_lookup(w, e);
        if (rec == NULL || (rec->flags & bit) == 0) {
            continue;
        }
        rec->flags &= (uint16_t)~bit; /* visited: a write from now on puts it in again */
        const sti_table_t *t = w->tables[rec->table];
        if ((t->tracked_by & match) == 0) {
            continue;
        }
        it->count = 1;
        it->row = rec->row;
        it->entities = t->entities + rec->row;
        it->columns = t->columns;
        if (w->query_marks[it->query] != 0) {
            sti_dirty_mark_rows(w, it->query, t, rec->row, 1);
        }
        return true;
    }
    return false;
}

/* Close an iteration: keep the entries it did not visit and those marked since. */
void sti_dirty_close(strata_iter_t *it) {
    strata_world_t *w = it->world;
    uint32_t k = w->query_dirty[it->query];
    dirty_compact(w, &w->dirty[k], k);
    w->dirty[k].busy = false;
}

/* on_add of every entity, and every entity marked in the sets of its table. */
void sti_hooks_loaded(strata_world_t *w) {
    w->defer_depth++;
    for (uint32_t i = 0; i < w->table_count; i++) {
        sti_table_t *t = w->tables[i];
        for (uint64_t sets = t->tracked_by; sets != 0; sets &= sets - 1) {
            uint32_t k = (uint32_t)__builtin_ctzll(sets);
            for (uint32_t row = 0; row < t->count; row++) {
                dirty_add(w, k, &w->records[(uint32_t)t->entities[row]], t->entities[row]);
            }
        }
        if (t->hooked && t->count > 0) {
            strata_mask_t none = {{0}};
            strata_mask_t gained = hook_lost(w, &t->mask, &none);
            /* Hooks may add rows to the empty table only (creations): t's rows stay put. */
            for (uint32_t row = 0, n = t->count; row < n; row++) {
                hook_enter(w, t, row, t->monitors, &gained);
            }
        }
    }
    w->defer_depth--;
    (void)sti_command_settle(w);
}

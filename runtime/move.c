/* move.c: structural changes applied now: the column work of row moves,
 * the out-of-line adds and removes, the move with hooks, destroys. */
#include "move.h"

const unsigned char sti_zeros[STI_SMALL_SIZE] = {0};

/* One size class of a plan: `n` pairs from *pp, each element `size` bytes
 * (a constant in each use below, so the copies are a load and a store). */
#define MOVE_CLASS(pp, n, size_expr, copy)                                                                             \
    for (const sti_plan_pair_t *e_ = (pp) + (n); (pp) < e_; (pp)++) {                                                  \
        unsigned char *s_ = (pp)->src->data;                                                                           \
        size_t z_ = (size_expr);                                                                                       \
        copy((pp)->dst->data + to * z_, s_ + row * z_, z_);                                                            \
        if (fill) {                                                                                                    \
            copy(s_ + row * z_, s_ + last * z_, z_);                                                                   \
        }                                                                                                              \
    }

/* A copy of a constant number of bytes (inlined to loads and stores). */
#define MOVE_FIXED(d, s, z) memcpy((d), (s), (z))

/* The swap-remove of a plan's dropped column (row `last` fills row `row`). */
static void move_drop(const sti_column_t *c, size_t row, size_t last) {
    sti_copy(c->data + row * c->size, c->data + last * c->size, c->size);
}

/* Pair q of a plan whose pairs share size class `z`: row `row` to row
 * `to` of its destination, then row `last` into row `row`. */
STI_HOT void move_pair(const sti_plan_pair_t *q, size_t row, size_t last, size_t to, size_t z) {
    unsigned char *s = q->src->data;
    memcpy(q->dst->data + to * z, s + row * z, z);
    if (row != last) {
        memcpy(s + row * z, s + last * z, z);
    }
}

/* The n pairs of such a plan (its total; a constant up to
 * STI_PLAN_UNROLL, so no loop), one after the other (so few registers are
 * live), then the dropped column. */
STI_HOT void move_uniform_n(const sti_plan_t *p, size_t row, size_t last, size_t to, size_t z, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        move_pair(&p->pairs[i], row, last, to, z);
    }
    if (p->dropped != NULL && row != last) {
        move_drop(p->dropped, row, last);
    }
}

/* One copy function a size class and pair count (a loop for any count),
 * each a leaf with a few registers, returning STRATA_OK so the fast paths
 * end in a tail call to it. */
#define MOVE_COPIERS(z)                                                                                                \
    static strata_result_t move_copy_##z(const sti_plan_t *p, size_t row, size_t last, size_t to) {                    \
        move_uniform_n(p, row, last, to, z, p->total);                                                                 \
        return STRATA_OK;                                                                                              \
    }                                                                                                                  \
    static strata_result_t move_copy_##z##_1(const sti_plan_t *p, size_t row, size_t last, size_t to) {                \
        move_uniform_n(p, row, last, to, z, 1);                                                                        \
        return STRATA_OK;                                                                                              \
    }                                                                                                                  \
    static strata_result_t move_copy_##z##_2(const sti_plan_t *p, size_t row, size_t last, size_t to) {                \
        move_uniform_n(p, row, last, to, z, 2);                                                                        \
        return STRATA_OK;                                                                                              \
    }
MOVE_COPIERS(4)
MOVE_COPIERS(8)
MOVE_COPIERS(12)
MOVE_COPIERS(16)

/* Pairs of mixed sizes: one loop a class. */
static strata_result_t move_copy_mixed(const sti_plan_t *p, size_t row, size_t last, size_t to) {
    bool fill = row != last;
    const sti_plan_pair_t *q = p->pairs;
    MOVE_CLASS(q, p->count[STI_PLAN_4], 4, MOVE_FIXED);
    MOVE_CLASS(q, p->count[STI_PLAN_8], 8, MOVE_FIXED);
    MOVE_CLASS(q, p->count[STI_PLAN_12], 12, MOVE_FIXED);
    MOVE_CLASS(q, p->count[STI_PLAN_16], 16, MOVE_FIXED);
    MOVE_CLASS(q, p->count[STI_PLAN_ANY], q->src->size, sti_copy);
    if (p->dropped != NULL && fill) {
        move_drop(p->dropped, row, last);
    }
    return STRATA_OK;
}

#define MOVE_CLASS_COPIERS(k, z)                                                                                       \
    [STI_PLAN_COPIER(k, 0)] = move_copy_##z, [STI_PLAN_COPIER(k, 1)] = move_copy_##z##_1,                              \
                        [STI_PLAN_COPIER(k, 2)] = move_copy_##z##_2
strata_result_t (*const sti_plan_copiers[STI_PLAN_COPIERS])(const sti_plan_t *, size_t, size_t, size_t) = {
    MOVE_CLASS_COPIERS(STI_PLAN_4, 4),
    MOVE_CLASS_COPIERS(STI_PLAN_8, 8),
    MOVE_CLASS_COPIERS(STI_PLAN_12, 12),
    MOVE_CLASS_COPIERS(STI_PLAN_16, 16),
    [STI_PLAN_COPIER(STI_PLAN_ANY, 0)] = move_copy_mixed,
};

/* Every row of src into dst, empty, with the same columns (a tag's edge)
 * and no changed-set bits in either: the two trade their storage (handles,
 * columns, bitmaps, capacity), so no row is copied; only the records
 * change table. */
static void move_all_trade(strata_world_t *w, sti_table_t *src, sti_table_t *dst) {
    strata_entity_t *entities = src->entities;
    size_t entities_size = src->entities_size;
    src->entities = dst->entities, src->entities_size = dst->entities_size;
    dst->entities = entities, dst->entities_size = entities_size;
    for (uint32_t i = 0; i < src->column_count; i++) {
        sti_column_t a = src->dense[i], *b = &dst->dense[i];
        src->dense[i].data = b->data, src->dense[i].raw = b->raw, src->dense[i].raw_size = b->raw_size;
        b->data = a.data, b->raw = a.raw, b->raw_size = a.raw_size;
        src->columns[a.id] = src->dense[i].data;
        dst->columns[a.id] = b->data;
    }
    uint64_t *marks = src->marks;
    uint32_t mark_words = src->mark_words, capacity = src->capacity;
    src->marks = dst->marks, src->mark_words = dst->mark_words, src->capacity = dst->capacity;
    dst->marks = marks, dst->mark_words = mark_words, dst->capacity = capacity;
    dst->sparse_any = src->sparse_any;
    src->sparse_any = 0;
    uint32_t n = src->count;
    for (uint32_t i = 0; i < n; i++) {
        w->records[(uint32_t)dst->entities[i]].table = (uint16_t)dst->id;
    }
    src->count = 0;
    src->moved++;
    dst->count = n;
    if (n > 0) {
        sti_table_turned(w, src, dst, 0); /* their places in the queries' lists, and their room */
    }
}

uint32_t sti_move_all_rows(strata_world_t *w, sti_table_t *src, sti_table_t *dst, const sti_plan_t *plan) {
    uint32_t n = src->count, to = dst->count;
    if (to == 0 && plan->dropped == NULL && plan->total == dst->column_count && (src->listed | dst->listed) == 0) {
        move_all_trade(w, src, dst);
        return 0;
    }
    for (uint32_t i = 0; i < plan->total; i++) {
        const sti_plan_pair_t *q = &plan->pairs[i];
        memcpy(q->dst->data + (size_t)to * q->src->size, q->src->data, (size_t)n * q->src->size);
    }
    memcpy(dst->entities + to, src->entities, sizeof(strata_entity_t) * n);
    if (src->listed != 0) {
        sti_dirty_move_all(w, src, n, dst, to);
    }
    if (src->sparse_any != 0) {
        sti_sparse_move_all(w, src, n, dst, to);
    }
    for (uint32_t i = 0; i < n; i++) {
        sti_record_t *rec = &w->records[(uint32_t)src->entities[i]];
        rec->table = (uint16_t)dst->id;
        rec->row = to + i;
    }
    src->count = 0;
    src->moved++;
    dst->count = to + n;
    if (n > 0) {
        sti_table_turned(w, src, dst, to);
    }
    return to;
}

uint32_t sti_move_row_any(strata_world_t *w, sti_record_t *rec, sti_table_t *src, sti_table_t *dst) {
    uint32_t row = rec->row;
    uint32_t to = dst->count;
    for (uint32_t i = 0; i < dst->column_count; i++) {
        const sti_column_t *col = &dst->dense[i];
        const unsigned char *from = src->columns[col->id];
        if (from != NULL) {
            sti_copy(col->data + (size_t)to * col->size, from + (size_t)row * col->size, col->size);
        }
    }
    uint32_t last = src->count - 1;
    if (src->listed != 0) {
        sti_dirty_carry(w, src, row, last, dst, to);
    }
    if (src->sparse_any != 0) {
        sti_sparse_carry(w, src, row, last, dst, to);
    }
    if (row != last) {
        for (uint32_t i = 0; i < src->column_count; i++) {
            const sti_column_t *col = &src->dense[i];
            sti_copy(col->data + (size_t)row * col->size, col->data + (size_t)last * col->size, col->size);
        }
    }
    return sti_row_finish(w, rec, src, dst);
}

/* The move with its hooks: on_remove for what the entity stops matching or
 * loses, the move, the values of ids (k; tags and NULL values as for
 * adds), new aspects at their defaults, on_add for what it starts matching
 * or gains. The hooks' structural changes wait for the caller's settle.
 * First the room the relations' hooks file the added links into: NOMEM
 * with nothing changed. */
static strata_result_t move_hooked(strata_world_t *w, sti_record_t *rec, sti_table_t *src, sti_table_t *dst, uint32_t k,
                                   const uint32_t *ids, const void *const *values) {
    if (k > 0 && w->hooks.add_room != NULL) {
        strata_result_t r = w->hooks.add_room(w, 1, &src->entities[rec->row], k, ids, values);
        if (r != STRATA_OK) {
            return r;
        }
    }
    if (k > 0 && w->hooks.relink != NULL) {
        w->hooks.relink(w, src, src, rec->row, k, ids, false); /* links it had, overwritten below */
    }
    uint32_t index = (uint32_t)(rec - w->records);
    sti_observe_leave(w, src, rec->row, dst);
    /* A hook may create entities (never deferred), which can move the records. */
    rec = &w->records[index];
    uint32_t row = sti_move_row_any(w, rec, src, dst);
    sti_table_write(w, dst, row, k, ids, values);
    if (k > 0 && w->hooks.relink != NULL) {
        w->hooks.relink(w, src, dst, row, k, ids, true);
    }
    sti_observe_enter(w, src, dst, row);
    return STI_OK_HOOKED;
}

/* An add along a hooked edge on which no monitor starts or stops matching
 * (src and dst match the same monitored queries): the only hook on the way
 * is c's own on_add, called directly instead of through the observers
 * (which would find nothing else to run). The room for the link it may
 * file first: NOMEM with nothing changed. */
static strata_result_t move_add_hooked_one(strata_world_t *w, sti_record_t *rec, sti_table_t *src, sti_table_t *dst,
                                           uint32_t c, const void *value) {
    if (w->hooks.add_room != NULL) {
        strata_result_t r = w->hooks.add_room(w, 1, &src->entities[rec->row], 1, &c, &value);
        if (r != STRATA_OK) {
            return r;
        }
    }
    uint32_t row = sti_move_row_any(w, rec, src, dst);
    sti_table_write(w, dst, row, 1, &c, &value);
    strata_component_hook_t hook = w->components[c].on_add;
    if (hook != NULL) {
        sti_scope_open(w);
        hook(w, dst->entities[row], sti_table_cell(w, dst, c, row));
        sti_scope_close(w);
    }
    return STI_OK_HOOKED;
}

/* A remove along a hooked edge on which no monitor starts or stops
 * matching: c's own on_remove, directly, then the move. */
static strata_result_t move_remove_hooked_one(strata_world_t *w, sti_record_t *rec, sti_table_t *src, sti_table_t *dst,
                                              uint32_t c) {
    strata_component_hook_t hook = w->components[c].on_remove;
    if (hook != NULL) {
        uint32_t index = (uint32_t)(rec - w->records);
        sti_scope_open(w);
        hook(w, src->entities[rec->row], sti_table_cell(w, src, c, rec->row));
        sti_scope_close(w);
        rec = &w->records[index]; /* a hook may create entities, which can move the records */
    }
    sti_move_row_any(w, rec, src, dst);
    return STI_OK_HOOKED;
}

/* Write ids' values (t has every one) into row `row` of t: the links of
 * exclusive relations among them are filed again, their room made first
 * (NOMEM: nothing changed). */
static strata_result_t move_overwrite(strata_world_t *w, sti_table_t *t, uint32_t row, uint32_t k, const uint32_t *ids,
                                      const void *const *values) {
    sti_table_wrote(w, t);
    if (w->hooks.relink == NULL) {
        sti_table_write(w, t, row, k, ids, values);
        return STRATA_OK;
    }
    strata_result_t r = w->hooks.add_room(w, 1, &t->entities[row], k, ids, values);
    if (r != STRATA_OK) {
        return r;
    }
    w->hooks.relink(w, t, t, row, k, ids, false);
    sti_table_write(w, t, row, k, ids, values);
    w->hooks.relink(w, t, t, row, k, ids, true);
    return STRATA_OK;
}

/* Move to dst (room reserved): with hooks, or a plain move and the values. */
static strata_result_t move_to(strata_world_t *w, sti_record_t *rec, sti_table_t *src, sti_table_t *dst, uint32_t k,
                               const uint32_t *ids, const void *const *values) {
    /* An add may overwrite a link src holds (a relation's table is hooked):
     * the hooked path files it again. */
    if (sti_move_is_hooked(w, src, dst) || (k > 0 && src->hooked && w->hooks.relink != NULL)) {
        return move_hooked(w, rec, src, dst, k, ids, values);
    }
    uint32_t row = sti_move_row_any(w, rec, src, dst);
    sti_table_write(w, dst, row, k, ids, values);
    return STRATA_OK;
}

/* The edge of src by c (add or remove), made first if not cached, and room
 * in its table; *out NULL with OK when there is nothing to do. */
static strata_result_t move_edge(strata_world_t *w, sti_table_t *src, uint32_t c, bool add, const sti_edge_t **out) {
    const sti_edge_t *edge = &src->edges[add ? c : w->component_count + c];
    if (edge->table == NULL) {
        strata_result_t r = sti_table_edge(w, src, c, add, NULL);
        if (r != STRATA_OK) {
            return r;
        }
    }
    *out = edge;
    return sti_table_room(w, edge->table);
}

STI_COLD strata_result_t sti_move_add_slow(strata_world_t *w, sti_record_t *rec, uint32_t c, const void *value) {
    if (sti_is_sparse(w, c)) {
        return sti_move_sparse_add(w, rec, c, value);
    }
    sti_table_t *src = w->tables[rec->table];
    uint32_t kept_id;
    const void *kept_value;
    if (w->hooks.links_keep != NULL &&
        w->hooks.links_keep(w, src->entities[rec->row], 1, &c, &value, &kept_id, &kept_value) == 0) {
        return STRATA_OK; /* a link that cannot be filed: the entity stays as it is */
    }
    if (strata_mask_test(&src->mask, c)) {
        return move_overwrite(w, src, rec->row, 1, &c, &value);
    }
    const sti_edge_t *edge = NULL;
    strata_result_t r = move_edge(w, src, c, true, &edge);
    if (r != STRATA_OK) {
        return r;
    }
    sti_table_t *dst = edge->table;
    uint32_t hole = edge->hole;
    if (edge->hooked) {
        return src->monitors == dst->monitors ? move_add_hooked_one(w, rec, src, dst, c, value)
                                              : move_hooked(w, rec, src, dst, 1, &c, &value);
    }
    /* The value first, in the row the entity is about to take. */
    if (hole != STI_NO_HOLE) {
        const sti_column_t *col = &dst->dense[hole];
        sti_value_write(w, col->data + (size_t)dst->count * col->size, c, value);
    }
    sti_row_move_edge(w, rec, src, dst, edge->plan);
    return STRATA_OK;
}

STI_COLD strata_result_t sti_move_remove_slow(strata_world_t *w, sti_record_t *rec, uint32_t c) {
    if (sti_is_sparse(w, c)) {
        return sti_move_sparse_remove(w, rec, c);
    }
    sti_table_t *src = w->tables[rec->table];
    if (!strata_mask_test(&src->mask, c)) {
        return STRATA_ERR_MISSING;
    }
    const sti_edge_t *edge = NULL;
    strata_result_t r = move_edge(w, src, c, false, &edge);
    if (r != STRATA_OK) {
        return r;
    }
    if (edge->hooked) {
        return src->monitors == edge->table->monitors ? move_remove_hooked_one(w, rec, src, edge->table, c)
                                                      : move_hooked(w, rec, src, edge->table, 0, NULL, NULL);
    }
    sti_row_move_edge(w, rec, src, edge->table, edge->plan);
    return STRATA_OK;
}

/* Several components added (add) or removed at once: one lookup by mask,
 * not a walk through the intermediate archetypes (which would create them). */
static strata_result_t move_by_mask(strata_world_t *w, sti_record_t *rec, uint32_t k, const uint32_t *ids,
                                    const void *const *values, bool add) {
    sti_table_t *src = w->tables[rec->table];
    uint32_t kept_ids[STRATA_MAX_COMPONENTS];
    const void *kept_values[STRATA_MAX_COMPONENTS];
    if (add && w->hooks.links_keep != NULL) { /* the links that cannot be filed are left out */
        k = w->hooks.links_keep(w, src->entities[rec->row], k, ids, values, kept_ids, kept_values);
        ids = kept_ids;
        values = kept_values;
        if (k == 0) {
            return STRATA_OK;
        }
    }
    strata_mask_t mask = src->mask;
    for (uint32_t i = 0; i < k; i++) {
        if (add) {
            strata_mask_set(&mask, ids[i]);
        } else {
            strata_mask_clear(&mask, ids[i]);
        }
    }
    if (memcmp(&mask, &src->mask, sizeof mask) == 0) {
        if (!add) {
            return STRATA_ERR_MISSING;
        }
        return move_overwrite(w, src, rec->row, k, ids, values); /* every one present */
    }
    sti_table_t *dst = NULL;
    strata_result_t r = sti_table_ensure(w, &mask, &dst);
    if (r == STRATA_OK) {
        r = sti_table_room(w, dst);
    }
    return r == STRATA_OK ? move_to(w, rec, src, dst, add ? k : 0, ids, values) : r;
}

/* The sparse planes of the ks components sparse_ids. */
static uint64_t move_planes(const strata_world_t *w, uint32_t ks, const uint32_t *sparse_ids) {
    uint64_t planes = 0;
    for (uint32_t i = 0; i < ks; i++) {
        planes |= (uint64_t)1 << w->sparse_plane[sparse_ids[i]];
    }
    return planes;
}

/* A change that moves the entity to dst (src itself if its table stays)
 * and adds (or removes) the sparse components sparse_ids, with hooks: the
 * entity's monitors and components are compared before and after the
 * whole change, so it never passes through a state between. The room the
 * relations' hooks file added links into first (NOMEM: nothing changed);
 * the sparse sets' room is the caller's. STI_OK_HOOKED. */
static strata_result_t move_observed(strata_world_t *w, sti_record_t *rec, sti_table_t *dst, uint32_t kt,
                                     const uint32_t *table_ids, const void *const *table_values, uint32_t ks,
                                     const uint32_t *sparse_ids, const void *const *sparse_values, bool add) {
    uint32_t index = (uint32_t)(rec - w->records);
    sti_table_t *src = w->tables[rec->table];
    uint32_t row = rec->row;
    uint64_t held = sti_sparse_held(w, src, row), planes = move_planes(w, ks, sparse_ids);
    uint64_t held_to = add ? held | planes : held & ~planes;
    if (add && kt > 0 && w->hooks.add_room != NULL) {
        strata_result_t r = w->hooks.add_room(w, 1, &src->entities[row], kt, table_ids, table_values);
        if (r != STRATA_OK) {
            return r;
        }
    }
    if (add && kt > 0 && w->hooks.relink != NULL) {
        w->hooks.relink(w, src, src, row, kt, table_ids, false); /* links it had, overwritten below */
    }
    sti_observe_leave_to(w, src, row, held, dst, held_to);
    rec = &w->records[index]; /* a hook may create entities, which can move the records */
    if (dst != src) {
        row = sti_move_row_any(w, rec, src, dst);
    }
    if (add) {
        sti_table_wrote(w, dst); /* in place when the table stays */
        sti_table_write(w, dst, row, kt, table_ids, table_values);
    }
    strata_entity_t e = dst->entities[row];
    for (uint32_t i = 0; i < ks; i++) {
        uint32_t k = w->sparse_plane[sparse_ids[i]];
        if (add) {
            sti_sparse_put(w, k, dst, row, e, sparse_values != NULL ? sparse_values[i] : NULL);
        } else if ((held >> k & 1u) != 0) {
            sti_sparse_take(w, k, dst, row, e);
        }
    }
    if (add && kt > 0 && w->hooks.relink != NULL) {
        w->hooks.relink(w, src, dst, row, kt, table_ids, true);
    }
    sti_observe_enter_from(w, src, held, dst, row, held_to);
    return STI_OK_HOOKED;
}

strata_result_t sti_move_sparse_add(strata_world_t *w, sti_record_t *rec, uint32_t c, const void *value) {
    uint32_t k = w->sparse_plane[c], index = (uint32_t)(rec - w->records);
    if (!sti_sparse_room(w, k, index)) {
        strata_result_t r = sti_sparse_reserve(w, k, index + 1, 1);
        if (r != STRATA_OK) {
            return r;
        }
    }
    sti_table_t *t = w->tables[rec->table];
    if ((w->sparse_observed >> k & 1u) == 0 || sti_sparse_test(w, t, rec->row, k)) {
        sti_sparse_put(w, k, t, rec->row, t->entities[rec->row], value); /* an overwrite runs no hook */
        return STRATA_OK;
    }
    return move_observed(w, rec, t, 0, NULL, NULL, 1, &c, &value, true);
}

strata_result_t sti_move_sparse_remove(strata_world_t *w, sti_record_t *rec, uint32_t c) {
    uint32_t k = w->sparse_plane[c];
    sti_table_t *t = w->tables[rec->table];
    if (!sti_sparse_test(w, t, rec->row, k)) {
        return STRATA_ERR_MISSING;
    }
    if ((w->sparse_observed >> k & 1u) == 0) {
        sti_sparse_take(w, k, t, rec->row, t->entities[rec->row]);
        return STRATA_OK;
    }
    return move_observed(w, rec, t, 0, NULL, NULL, 1, &c, NULL, false);
}

/* Several components added or removed where some are sparse, as one
 * change: the table ones with one move (to the table of the mask), the
 * sparse ones' bits and values, the hooks of the whole (move_observed)
 * when any runs. An add makes all the room it needs first, so it changes
 * all or nothing; a remove of none of them is MISSING. */
static strata_result_t move_mixed(strata_world_t *w, sti_record_t *rec, uint32_t k, const uint32_t *ids,
                                  const void *const *values, bool add) {
    uint32_t table_ids[STRATA_MAX_COMPONENTS], sparse_ids[STRATA_MAX_COMPONENTS], kt = 0, ks = 0;
    const void *table_values[STRATA_MAX_COMPONENTS], *sparse_values[STRATA_MAX_COMPONENTS];
    for (uint32_t i = 0; i < k; i++) {
        bool sparse = sti_is_sparse(w, ids[i]);
        (sparse ? sparse_ids : table_ids)[sparse ? ks : kt] = ids[i];
        (sparse ? sparse_values : table_values)[sparse ? ks++ : kt++] = values != NULL ? values[i] : NULL;
    }
    if (ks == 0) {
        return move_by_mask(w, rec, k, ids, values, add);
    }
    sti_table_t *src = w->tables[rec->table];
    uint32_t kept_ids[STRATA_MAX_COMPONENTS];
    const void *kept_values[STRATA_MAX_COMPONENTS];
    if (add && kt > 0 && w->hooks.links_keep != NULL) { /* the links that cannot be filed are left out */
        kt = w->hooks.links_keep(w, src->entities[rec->row], kt, table_ids, table_values, kept_ids, kept_values);
        memcpy(table_ids, kept_ids, sizeof(uint32_t) * kt);
        memcpy(table_values, kept_values, sizeof(const void *) * kt);
    }
    strata_mask_t mask = src->mask;
    for (uint32_t i = 0; i < kt; i++) {
        if (add) {
            strata_mask_set(&mask, table_ids[i]);
        } else {
            strata_mask_clear(&mask, table_ids[i]);
        }
    }
    sti_table_t *dst = src;
    if (!sti_mask_equal(&mask, &src->mask, w->mask_words)) {
        strata_result_t r = sti_table_ensure(w, &mask, &dst);
        r = r == STRATA_OK ? sti_table_room(w, dst) : r;
        if (r != STRATA_OK) {
            return r;
        }
    }
    uint64_t held = sti_sparse_held(w, src, rec->row), planes = move_planes(w, ks, sparse_ids);
    if (!add && dst == src && (held & planes) == 0) {
        return STRATA_ERR_MISSING;
    }
    for (uint32_t i = 0; add && i < ks; i++) {
        strata_result_t r = sti_sparse_reserve(w, w->sparse_plane[sparse_ids[i]], (uint32_t)(rec - w->records) + 1, 1);
        if (r != STRATA_OK) {
            return r;
        }
    }
    bool observed = ((add ? planes & ~held : planes & held) & w->sparse_observed) != 0 ||
                    (dst != src && sti_move_is_hooked(w, src, dst)) ||
                    (add && kt > 0 && src->hooked && w->hooks.relink != NULL);
    if (observed) {
        return move_observed(w, rec, dst, kt, table_ids, table_values, ks, sparse_ids, sparse_values, add);
    }
    uint32_t row = rec->row;
    if (dst != src) {
        row = sti_move_row_any(w, rec, src, dst);
    }
    if (add) {
        sti_table_wrote(w, dst); /* in place when the table stays */
        sti_table_write(w, dst, row, kt, table_ids, table_values);
    }
    for (uint32_t i = 0; i < ks; i++) {
        uint32_t p = w->sparse_plane[sparse_ids[i]];
        if (add) {
            sti_sparse_put(w, p, dst, row, dst->entities[row], sparse_values[i]);
        } else if ((held >> p & 1u) != 0) {
            sti_sparse_take(w, p, dst, row, dst->entities[row]);
        }
    }
    return STRATA_OK;
}

strata_result_t sti_move_add(strata_world_t *w, sti_record_t *rec, uint32_t k, const uint32_t *ids,
                             const void *const *values) {
    if (k == 1) {
        const void *value = values != NULL ? values[0] : NULL;
        return sti_move_add_fast(w, rec, ids[0], value) ? STRATA_OK : sti_move_add_slow(w, rec, ids[0], value);
    }
    return w->sparse_count != 0 ? move_mixed(w, rec, k, ids, values, true) : move_by_mask(w, rec, k, ids, values, true);
}

strata_result_t sti_move_remove(strata_world_t *w, sti_record_t *rec, uint32_t k, const uint32_t *ids) {
    if (k == 1) {
        return sti_move_remove_fast(w, rec, ids[0]) ? STRATA_OK : sti_move_remove_slow(w, rec, ids[0]);
    }
    return w->sparse_count != 0 ? move_mixed(w, rec, k, ids, NULL, false) : move_by_mask(w, rec, k, ids, NULL, false);
}

/* The on_remove hooks of the entity at `row` of t as it goes: with no
 * monitored query matching t, only its hooked components' own, called
 * directly in id order (as sti_observe_leave would, in a scope); else
 * sti_observe_leave. */
static void move_leave(strata_world_t *w, const sti_table_t *t, uint32_t row) {
    if (t->monitors != 0 || (t->sparse_any & w->sparse_hooked) != 0) {
        sti_observe_leave(w, t, row, NULL);
        return;
    }
    sti_scope_open(w);
    for (uint32_t i = 0; i < w->mask_words; i++) {
        for (uint64_t bits = t->mask.bits[i] & w->hooked.bits[i]; bits != 0; bits &= bits - 1) {
            uint32_t c = i * 64 + (uint32_t)__builtin_ctzll(bits);
            strata_component_hook_t hook = w->components[c].on_remove;
            if (hook != NULL) {
                hook(w, t->entities[row], sti_table_cell(w, t, c, row));
            }
        }
    }
    sti_scope_close(w);
}

/* Hooks first (they cannot move it: their structural changes are deferred),
 * then its sparse values, then the row, then the index. */
void sti_move_destroy(strata_world_t *w, sti_record_t *rec) {
    if (w->hooks.destroyed != NULL) {
        /* Its relations' policies; what they change waits for the caller's settle. */
        uint32_t index = (uint32_t)(rec - w->records);
        sti_scope_open(w);
        w->hooks.destroyed(w, w->tables[rec->table]->entities[rec->row]);
        sti_scope_close(w);
        rec = &w->records[index];
    }
    const sti_table_t *t = w->tables[rec->table];
    if (STI_UNLIKELY((t->hooked | (t->sparse_any != 0)) != 0)) {
        if (sti_observe_row_hooked(w, t, rec->row)) {
            /* A hook that creates an entity can move the records array. */
            uint32_t index = (uint32_t)(rec - w->records);
            move_leave(w, t, rec->row);
            rec = &w->records[index];
        }
        sti_table_t *home = w->tables[rec->table];
        if (home->sparse_any != 0) { /* its values go, and the last row's bits fill its place */
            sti_sparse_leave(w, home, rec->row);
            sti_sparse_carry(w, home, rec->row, home->count - 1, NULL, 0);
        }
    }
    sti_row_remove(w, w->tables[rec->table], rec->row);
    sti_index_release(w, rec);
}

/* move.h: every structural change applied now: an entity's row moving
 * between tables (adds and removes), and a destroy. Deferral is decided
 * above (entity.c, component.c, command.c); the functions here apply.
 *
 * A move along a cached edge to a table with room is the hot path, inline
 * below, its column work done by the edge's copy plan (table.h); anything
 * else (a new edge, growth, a large added column, hooks or aspects on the
 * way) takes the out-of-line path. A move with hooks
 * runs them inside a deferral scope and returns STI_OK_HOOKED, and the
 * caller settles what they recorded (command.c).
 */
#ifndef STI_MOVE_H
#define STI_MOVE_H

#include "archetype.h"
#include "observe.h"

/* Returned by the moves, never by the public API: done, and hooks ran, so
 * commands they recorded may wait; the caller settles, then treats it as
 * STRATA_OK. */
#define STI_OK_HOOKED ((strata_result_t)1)

/* Zeros for the value of a small component that has no defaults. */
extern const unsigned char sti_zeros[STI_SMALL_SIZE];

/* --- Rows ------------------------------------------------------------------ */

/* Remove row `row` of t by moving the last row into it (and fixing the
 * moved entity's record). Its sparse bits are the caller's (a destroy's:
 * sti_move_destroy). */
STI_HOT void sti_row_remove(strata_world_t *w, sti_table_t *t, uint32_t row) {
    t->moved++;
    uint32_t last = --t->count;
    if (STI_UNLIKELY(last == 0)) {
        sti_table_emptied(w, t);
    }
    if (STI_UNLIKELY(t->listed != 0)) {
        sti_dirty_move_row(w, t, row, last, NULL, 0); /* its changed-set bits go, the last row's fill in */
    }
    if (row == last) {
        return;
    }
    bool small = t->max_size <= STI_SMALL_SIZE;
    for (uint32_t i = 0; i < t->column_count; i++) {
        const sti_column_t *col = &t->dense[i];
        sti_copy_move(col->data + (size_t)row * col->size, col->data + (size_t)last * col->size, col->size, small);
    }
    strata_entity_t moved = t->entities[last];
    t->entities[row] = moved;
    w->records[(uint32_t)moved].row = row;
}

/* The bookkeeping of a move (columns and changed-set bits aside): the
 * handle goes to the end of dst, the last handle of src fills its place,
 * both records follow. Returns the new row; src emptied, or dst filled
 * (the new row is 0), is the caller's (sti_row_turned). */
STI_HOT uint32_t sti_row_book(strata_world_t *w, sti_record_t *rec, sti_table_t *src, sti_table_t *dst) {
    uint32_t row = rec->row;
    uint32_t last = src->count - 1;
    uint32_t to = dst->count;
    strata_entity_t *from = src->entities;
    dst->entities[to] = from[row];
    src->moved++;
    if (row != last) {
        strata_entity_t moved = from[last];
        from[row] = moved;
        w->records[(uint32_t)moved].row = row;
    }
    src->count = last;
    dst->count = to + 1;
    rec->table = (uint16_t)dst->id;
    rec->row = to;
    return to;
}

/* True if the move that left src and made row `to` of dst emptied one or filled the other. */
STI_HOT bool sti_row_turns(const sti_table_t *src, uint32_t to) {
    return STI_UNLIKELY((uint64_t)src->count * to == 0); /* either is 0: one branch */
}

/* sti_row_book, then the tables it emptied or filled move in their queries' lists. */
STI_HOT uint32_t sti_row_finish(strata_world_t *w, sti_record_t *rec, sti_table_t *src, sti_table_t *dst) {
    uint32_t to = sti_row_book(w, rec, src, dst);
    if (sti_row_turns(src, to)) {
        sti_table_turned(w, src, dst, to);
    }
    return to;
}

/* The column work of a move along an edge with plan p, after the
 * bookkeeping (so the source's old last row is `last` and the new row in
 * the destination `to`): row `row` of each planned column goes to row `to`
 * of its destination column, then row `last` fills row `row` (the dropped
 * column too). Columns the plan leaves out (the added component's) are the
 * caller's. One function a plan's p->copier (a size class and, up to
 * STI_PLAN_UNROLL, a pair count; or mixed sizes), each a small leaf out of
 * line, so the callers stay small. */
extern strata_result_t (*const sti_plan_copiers[STI_PLAN_COPIERS])(const sti_plan_t *p, size_t row, size_t last,
                                                                   size_t to);
/* Move an entity's row from src to the end of dst (room reserved) along
 * an edge, copying the columns its plan lists, and return the new row. */
STI_HOT uint32_t sti_row_move_edge(strata_world_t *w, sti_record_t *rec, sti_table_t *src, sti_table_t *dst,
                                   const sti_plan_t *plan) {
    uint32_t row = rec->row;
    if (STI_UNLIKELY(src->listed != 0)) {
        sti_dirty_carry(w, src, row, src->count - 1, dst, dst->count); /* its changed-set bits go with it */
    }
    if (STI_UNLIKELY(src->sparse_any != 0)) {
        sti_sparse_carry(w, src, row, src->count - 1, dst, dst->count); /* and its sparse components */
    }
    uint32_t to = sti_row_finish(w, rec, src, dst);
    if (src->column_count > 0) {
        sti_plan_copiers[plan->copier](plan, row, src->count, to);
    }
    return to;
}

/* Move an entity's row from src to any dst (room reserved), copying the
 * columns both have (the changed-set bits too), running no hook: columns
 * only dst has, and the hooks of what the move adds or removes, are the
 * caller's. Returns the new row. */
uint32_t sti_move_row_any(strata_world_t *w, sti_record_t *rec, sti_table_t *src, sti_table_t *dst);

/* Move every row of src (room for them reserved in dst) along an edge
 * whose plan is `plan`: one copy a column, the entities in their order at
 * the end of dst, src left empty; the same end state as moving its rows one
 * at a time from the first. Into an empty table with the same columns (a
 * tag's edge), without changed-set bits, the two trade their storage
 * instead: nothing is copied. The added column, if any, is the caller's
 * (rows [first, first + moved) of it). Returns the first new row. */
uint32_t sti_move_all_rows(strata_world_t *w, sti_table_t *src, sti_table_t *dst, const sti_plan_t *plan);

/* --- Structural changes ---------------------------------------------------- */

/* --- The leaf paths ---------------------------------------------------------
 *
 * strata_add and strata_remove in the common case: a cached edge marked
 * plain (no hook, no aspect, a world without changed sets or sparse
 * components, so no bits to carry; a small value), a destination with room. The check reads, the move writes, and the move
 * ends in a tail call to the plan's copier, so the entry points call
 * nothing else on this path and save no registers. */

/* True if adding c to the entity of rec takes the leaf path. */
STI_HOT bool sti_move_add_is_plain(const strata_world_t *w, const sti_record_t *rec, uint32_t c) {
    const sti_table_t *src = w->tables[rec->table];
    const sti_edge_t *edge = &src->edges[c];
    const sti_table_t *dst = edge->table;
    /* A NULL edge also covers "already present": add edges of present
     * components are never filled. An empty dst has no room (table.h),
     * and src keeps a row: the move empties and fills no table. */
    return dst != NULL && edge->plain && dst->count < dst->room && src->count > 1;
}

/* Add c (sti_move_add_is_plain): the value (NULL: defaults), then the row. STRATA_OK. */
STI_HOT strata_result_t sti_move_add_plain(strata_world_t *w, sti_record_t *rec, uint32_t c, const void *value) {
    sti_table_t *src = w->tables[rec->table];
    const sti_edge_t *edge = &src->edges[c];
    sti_table_t *dst = edge->table;
    if (edge->hole != STI_NO_HOLE) {
        const sti_column_t *col = &dst->dense[edge->hole];
        if (value == NULL) {
            value = w->components[c].defaults != NULL ? w->components[c].defaults : sti_zeros;
        }
        sti_copy_small(col->data + (size_t)dst->count * col->size, value, col->size);
    }
    uint32_t row = rec->row;
    uint32_t to = sti_row_book(w, rec, src, dst);
    return sti_plan_copiers[edge->plan->copier](edge->plan, row, src->count, to);
}

/* True if removing c from the entity of rec takes the leaf path. */
STI_HOT bool sti_move_remove_is_plain(const strata_world_t *w, const sti_record_t *rec, uint32_t c) {
    const sti_table_t *src = w->tables[rec->table];
    const sti_edge_t *edge = &src->edges[w->component_count + c];
    const sti_table_t *dst = edge->table;
    /* A NULL edge also covers "absent": remove edges of absent components
     * are never filled. An empty dst has no room (table.h), and src keeps
     * a row: the move empties and fills no table. */
    return dst != NULL && edge->plain && dst->count < dst->room && src->count > 1;
}

/* Remove c (sti_move_remove_is_plain). STRATA_OK. */
STI_HOT strata_result_t sti_move_remove_plain(strata_world_t *w, sti_record_t *rec, uint32_t c) {
    sti_table_t *src = w->tables[rec->table];
    const sti_edge_t *edge = &src->edges[w->component_count + c];
    uint32_t row = rec->row;
    uint32_t to = sti_row_book(w, rec, src, edge->table);
    return sti_plan_copiers[edge->plan->copier](edge->plan, row, src->count, to);
}

/* --- Every case ------------------------------------------------------------ */

/* Add one component to a live entity, every case (overwrite if present,
 * new edge, growth, large columns, hooks): OK, STI_OK_HOOKED, NOMEM or
 * LIMIT (the world then as it was). A link of an exclusive relation that
 * cannot be filed (world->hooks.links_keep) is not added: OK, nothing changed. */
STI_COLD strata_result_t sti_move_add_slow(strata_world_t *w, sti_record_t *rec, uint32_t c, const void *value);
/* Remove one component from a live entity, every case: OK, STI_OK_HOOKED,
 * MISSING, NOMEM or LIMIT. */
STI_COLD strata_result_t sti_move_remove_slow(strata_world_t *w, sti_record_t *rec, uint32_t c);

/* Add (or overwrite) one component of a live entity on the hot path (a
 * cached edge to a table with room, a small added column): true if done,
 * false (nothing changed) for sti_move_add_slow to do it. */
STI_HOT bool sti_move_add_fast(strata_world_t *w, sti_record_t *rec, uint32_t c, const void *value) {
    sti_table_t *src = w->tables[rec->table];
    const sti_edge_t *edge = &src->edges[c];
    sti_table_t *dst = edge->table;
    /* A NULL edge also covers "already present": add edges of present
     * components are never filled. */
    if (STI_UNLIKELY(dst == NULL || dst->count == dst->capacity || edge->hooked)) {
        return false;
    }
    uint32_t hole = edge->hole;
    /* The value first, in the row the entity is about to take: nothing
     * stays live across the column move at the end. */
    if (hole != STI_NO_HOLE) {
        const sti_column_t *col = &dst->dense[hole];
        if (STI_UNLIKELY(col->size > STI_SMALL_SIZE)) {
            return false;
        }
        if (value == NULL) {
            value = w->components[c].defaults != NULL ? w->components[c].defaults : sti_zeros;
        }
        sti_copy_small(col->data + (size_t)dst->count * col->size, value, col->size);
    }
    sti_row_move_edge(w, rec, src, dst, edge->plan);
    return true;
}

/* Remove one component of a live entity on the hot path: true if done,
 * false (nothing changed) for sti_move_remove_slow to do it. */
STI_HOT bool sti_move_remove_fast(strata_world_t *w, sti_record_t *rec, uint32_t c) {
    sti_table_t *src = w->tables[rec->table];
    const sti_edge_t *edge = &src->edges[w->component_count + c];
    sti_table_t *dst = edge->table;
    /* A NULL edge also covers "absent": remove edges of absent components are never filled. */
    if (STI_UNLIKELY(dst == NULL || dst->count == dst->capacity || edge->hooked)) {
        return false;
    }
    sti_row_move_edge(w, rec, src, dst, edge->plan);
    return true;
}

/* Add (or overwrite) sparse component c of a live entity: its bit and
 * value, no row moved; its hooks and the monitors it starts matching run.
 * OK, STI_OK_HOOKED or NOMEM (nothing changed). */
strata_result_t sti_move_sparse_add(strata_world_t *w, sti_record_t *rec, uint32_t c, const void *value);
/* Remove sparse component c of a live entity: the monitors it stops
 * matching and c's on_remove first. OK, STI_OK_HOOKED or MISSING. */
strata_result_t sti_move_sparse_remove(strata_world_t *w, sti_record_t *rec, uint32_t c);

/* sti_move_sparse_add on the hot path: no hook or monitor watches c, and
 * its set has room. True if done, false (nothing changed) for
 * sti_move_sparse_add to do it. */
STI_HOT bool sti_move_sparse_add_fast(strata_world_t *w, sti_record_t *rec, strata_entity_t e, uint32_t c,
                                      const void *value) {
    uint32_t k = w->sparse_plane[c];
    if (STI_UNLIKELY((w->sparse_observed >> k & 1u) != 0 || !sti_sparse_room(w, k, (uint32_t)e))) {
        return false;
    }
    sti_sparse_put(w, k, w->tables[rec->table], rec->row, e, value);
    return true;
}

/* sti_move_sparse_remove on the hot path: no hook or monitor watches c.
 * STRATA_OK or STRATA_ERR_MISSING; STI_OK_HOOKED (nothing done) to ask
 * for sti_move_sparse_remove. */
STI_HOT strata_result_t sti_move_sparse_remove_fast(strata_world_t *w, sti_record_t *rec, strata_entity_t e,
                                                    uint32_t c) {
    uint32_t k = w->sparse_plane[c];
    if (STI_UNLIKELY((w->sparse_observed >> k & 1u) != 0)) {
        return STI_OK_HOOKED;
    }
    sti_table_t *t = w->tables[rec->table];
    if (!sti_sparse_test(w, t, rec->row, k)) {
        return STRATA_ERR_MISSING;
    }
    sti_sparse_take(w, k, t, rec->row, e);
    return STRATA_OK;
}

/* Add or overwrite k components (ids distinct) of a live entity with one
 * move, its sparse ones with it as one change (hooks compare before and
 * after the whole): OK, STI_OK_HOOKED, NOMEM or LIMIT (the world then as it
 * was, but for an empty new table). The links of exclusive relations that
 * cannot be filed are left out (the entity keeps the link it has, or gets
 * none). */
strata_result_t sti_move_add(strata_world_t *w, sti_record_t *rec, uint32_t k, const uint32_t *ids,
                             const void *const *values);
/* Remove the components a live entity has among ids with one move: OK,
 * STI_OK_HOOKED, MISSING if it has none, NOMEM or LIMIT. */
strata_result_t sti_move_remove(strata_world_t *w, sti_record_t *rec, uint32_t k, const uint32_t *ids);
/* Destroy a live entity now: its on_remove hooks (their changes deferred:
 * the caller settles), swap-remove its row, free its index. */
void sti_move_destroy(strata_world_t *w, sti_record_t *rec);

#endif /* STI_MOVE_H */

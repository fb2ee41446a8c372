/* dirty.h: the changed sets. A query with `changed` terms has one: the
 * entities written (strata_set, strata_get_mut, strata_mark, an add, or a
 * system's write terms) since it last ran. A component with an on_set hook
 * has one too, fed by the same marks: the entities whose on_set is due
 * (observe.c runs them when changes settle).
 *
 * Membership is a bit a row in a bitmap a table a set (table.h: marks),
 * carried with the row wherever it moves (moves, swap-removes, sorts), so
 * marking is a bit test and a store, and an entity shows up once however
 * often it is written. Each set keeps the list of the tables that may have
 * bits (linked through the tables), so a visit walks those tables' bitmaps
 * in row order and never looks at the entities' records. The bitmaps grow
 * with the tables' rows and the list needs no room, so marking never
 * allocates.
 *
 * While a set's visit is open nothing moves; marks made meanwhile go to a
 * second plane, merged into the set when the visit closes: what is marked
 * during a visit is visited next time, not by the open visit.
 */
#ifndef STI_DIRTY_H
#define STI_DIRTY_H

#include "sparse.h"

/* The end of a set's list of tables. */
#define STI_DIRTY_END 0xffffu

/* The set of entities written since a `changed` query last ran (or whose
 * on_set is due). While a visit is open, its iterator walks the bitmap of
 * table batch_from (its words from word_at on, which generated code takes
 * and clears itself); the rows of the word it took and has not yielded
 * (row_bits) count as still in the set (a mark does not add them again,
 * an early end puts them back). */
struct sti_dirty_t {
    uint32_t query;      /* the query it belongs to (UINT32_MAX for an on_set set) */
    uint32_t component;  /* an on_set set's component (UINT32_MAX for a query's set) */
    bool busy;           /* a visit is open */
    uint16_t head;       /* the first table id of its list (STI_DIRTY_END: none), in the order they joined */
    uint16_t tail;       /* the last */
    uint16_t at;         /* while busy: the table being walked (STI_DIRTY_END: done) */
    uint16_t stop;       /* while busy: the last table this visit walks (the tail when it opened) */
    uint16_t batch_from; /* while busy: the table the iterator walks */
    uint32_t word;       /* while busy: the next word of at's bitmap */

    /* While busy: the iterator yielding rows (NULL: none resolved yet). */
    const strata_iter_t *iter;
};

/* Set up the sets, the query -> set map and the component -> sets map from
 * the schema (at creation, before any table); NOMEM: the caller destroys the world. */
strata_result_t sti_dirty_init(strata_world_t *w);
/* Empty every set (their entities are gone: every table's count is 0). */
void sti_dirty_empty(strata_world_t *w);
/* Free what sti_dirty_init holds. */
void sti_dirty_free(strata_world_t *w);
/* Mark e (index valid) in the sets of `slots`. */
void sti_dirty_mark(strata_world_t *w, uint64_t slots, strata_entity_t e);
/* Mark rows [row, row + n) of t in the sets query q's writes feed. */
void sti_dirty_mark_rows(strata_world_t *w, uint32_t q, const sti_table_t *t, uint32_t row, uint32_t n);
/* Mark the rows of bits (bit i: row `row` + i of t) in the sets query q's writes feed. */
void sti_dirty_mark_word(strata_world_t *w, uint32_t q, const sti_table_t *t, uint32_t row, uint64_t bits);
/* Mark rows [row, row + n) of t that meet query q's sparse terms (all of
 * them, for a query without one) in the sets q's writes feed. */
void sti_dirty_mark_matching(strata_world_t *w, uint32_t q, const sti_table_t *t, uint32_t row, uint32_t n);
/* Mark every row of t in the sets tracking it (its entities just arrived). */
void sti_dirty_mark_table(strata_world_t *w, const sti_table_t *t);

/* Mark e in the dirty sets tracking any of ids; nothing to do (one load and
 * a branch) when no query tracks changes. */
STI_HOT void sti_mark_ids(strata_world_t *w, strata_entity_t e, uint32_t k, const uint32_t *ids) {
    if (w->dirty_count == 0) {
        return;
    }
    uint64_t slots = 0;
    for (uint32_t i = 0; i < k; i++) {
        slots |= w->trackers[ids[i]];
    }
    if (slots != 0) {
        sti_dirty_mark(w, slots, e);
    }
}

/* The dirty set of query q, or NULL. */
static inline sti_dirty_t *sti_dirty_of(const strata_world_t *w, uint32_t q) {
    return w->dirty_count > 0 && w->query_dirty[q] != UINT32_MAX ? &w->dirty[w->query_dirty[q]] : NULL;
}

/* Open an iteration over d: it visits the entries there now. */
void sti_dirty_open(sti_dirty_t *d);
/* Hand it the next table's rows of its query's changed set (one row at a
 * time when its writes feed other sets: each row is marked as it is
 * yielded) and yield the first; false when the set's entries are visited. */
bool sti_dirty_next(strata_iter_t *it);
/* Yield the next row of the table sti_dirty_next handed it; false if none is left. */
bool sti_dirty_yield(strata_iter_t *it);
/* Close an iteration over a dirty set: keep what it did not visit and what was marked meanwhile. */
void sti_dirty_close(strata_iter_t *it);
/* The next row of set k's open visit (its bit cleared): its table and
 * row; false when the visit is done. One row at a time: a caller may run
 * hooks between calls (which may grow tables: nothing is kept across). */
bool sti_dirty_take(strata_world_t *w, uint32_t k, sti_table_t **t, uint32_t *row);

/* Close set k's visit (as sti_dirty_close). */
void sti_dirty_close_set(strata_world_t *w, uint32_t k);
/* Empty set k (its open visit closed). */
void sti_dirty_clear_set(strata_world_t *w, uint32_t k);

/* True if e (live) is in set k. */
bool sti_dirty_has(const strata_world_t *w, uint32_t k, strata_entity_t e);
/* The live entities in any of the sets of `sets`, each once. */
uint32_t sti_dirty_count(const strata_world_t *w, uint64_t sets);

/* Put row `row` of t (no visit open) in set k, t joining its list. */
void sti_dirty_put(strata_world_t *w, uint32_t k, sti_table_t *t, uint32_t row);

/* Tables are being freed and renumbered (archetype.h: each one's id is
 * its new one, STI_NO_TABLE if it goes, while world->tables still holds the
 * old order): every set's list drops those that go and names the others by
 * their new ids. No visit is open. */
void sti_dirty_renumber(strata_world_t *w);

/* --- Rows that move ----------------------------------------------------------
 * Each path that moves rows carries their bits (none while a visit is open:
 * nothing moves then). Only tables on some set's list have bits, so callers
 * test t->listed first. */

/* Row `row` of src goes to row `to` of dst (dst NULL: it is removed), and
 * src's row `last` fills its place (its bits cleared; last may be row). */
void sti_dirty_move_row(strata_world_t *w, sti_table_t *src, uint32_t row, uint32_t last, sti_table_t *dst,
                        uint32_t to);

/* sti_dirty_move_row (src listed), inline for the common case: src on one
 * set's list and, if the row is in it, dst on that list too. */
STI_HOT void sti_dirty_carry(strata_world_t *w, sti_table_t *src, uint32_t row, uint32_t last, sti_table_t *dst,
                             uint32_t to) {
    uint64_t listed = src->listed;
    uint32_t k = (uint32_t)__builtin_ctzll(listed);
    if (STI_UNLIKELY((listed & (listed - 1)) != 0)) {
        sti_dirty_move_row(w, src, row, last, dst, to);
    } else if (sti_bits_move(src->marks + k * (size_t)src->mark_words, row, last) != 0 && dst != NULL) {
        if (STI_UNLIKELY((dst->listed >> k & 1u) == 0)) {
            sti_dirty_put(w, k, dst, to);
        } else {
            dst->marks[k * (size_t)dst->mark_words + to / 64] |= (uint64_t)1 << (to & 63);
        }
    }
}
/* Rows [0, n) of src go to rows [to, to + n) of dst; src keeps no bits. */
void sti_dirty_move_all(strata_world_t *w, sti_table_t *src, uint32_t n, sti_table_t *dst, uint32_t to);
/* Row order[i] of t becomes row i (its n rows reordered); scratch holds
 * mark_words words. */
void sti_dirty_permute(strata_world_t *w, sti_table_t *t, const uint32_t *order, uint32_t n, uint64_t *scratch);
/* Every row of t gone: no bits left. */
void sti_dirty_drop_rows(strata_world_t *w, sti_table_t *t);

#endif /* STI_DIRTY_H */

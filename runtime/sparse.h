/* sparse.h: the components stored sparse (`storage: sparse` in the schema).
 * Adding or removing one moves no row. Which entities hold one is a bit a
 * row in a plane of their tables' bitmaps (table.h: marks, after the
 * changed sets' planes), carried with the row wherever it moves, as the
 * changed sets' bits are; a component with fields also keeps its values in
 * a sparse set: a dense array of values and their owners, and by entity
 * index the slot of each value. A table's mask never holds a sparse
 * component, so the archetype graph, the copy plans and the query cache do
 * not see them.
 *
 * A query's sparse terms are tested row by row: a visit ANDs the planes a
 * query requires (and the complements of those it excludes) a 64-row word
 * at a time, and yields the runs of rows whose bits are set (iter.c). A
 * table with no bit in a required plane is skipped whole.
 */
#ifndef STI_SPARSE_H
#define STI_SPARSE_H

#include "table.h"

/* sti_sparse_t.slot of an entity index without a value. */
#define STI_NO_SLOT UINT32_MAX

/* The values of one sparse component with fields, by slot, dense: a removal
 * moves the last value into the hole. Nothing for a tag (size 0). */
struct sti_sparse_t {
    uint32_t *slot;         /* by entity index: the slot of its value, or STI_NO_SLOT */
    size_t slot_capacity;   /* indices slot covers */
    strata_entity_t *owner; /* by slot: the entity whose value it is */
    size_t owner_capacity;  /* owners there is room for */
    sti_column_t values;    /* by slot (values.data); values.size is 0 for a tag */
    uint32_t count;         /* values held */
    uint32_t capacity;      /* values (and owners) there is room for */
};

/* The sparse terms of one query, as planes. */
struct sti_sparse_terms_t {
    uint64_t all;      /* planes a matching entity holds (read, write, with) */
    uint64_t none;     /* planes it must not hold (without) */
    uint64_t optional; /* planes it may hold (optional): none of the test, but a visit goes row by row */
};

/* Set up the planes and the sets from the schema's storage flags, and each
 * query's sparse terms (at creation, after the changed sets, before any
 * table); NOMEM: the caller destroys the world. */
strata_result_t sti_sparse_init(strata_world_t *w);
/* Free the sets (the planes belong to the tables). */
void sti_sparse_free(strata_world_t *w);
/* Every set empty, every plane clear (the world is cleared). */
void sti_sparse_empty(strata_world_t *w);

/* True if component c is stored sparse. */
STI_HOT bool sti_is_sparse(const strata_world_t *w, uint32_t c) {
    return strata_mask_test(&w->sparse, c);
}

/* Plane k of t's bitmaps (t has rows, so it has its bitmaps). */
STI_HOT uint64_t *sti_sparse_plane(const strata_world_t *w, const sti_table_t *t, uint32_t k) {
    return t->marks + (size_t)(w->sparse_first + k) * t->mark_words;
}

/* True if the entity at `row` of t holds plane k's component. */
STI_HOT bool sti_sparse_test(const strata_world_t *w, const sti_table_t *t, uint32_t row, uint32_t k) {
    return (t->sparse_any >> k & 1u) != 0 && (sti_sparse_plane(w, t, k)[row / 64] >> (row & 63) & 1u) != 0;
}

/* True if the entity at `row` of t has component c, whatever its storage. */
STI_HOT bool sti_has(const strata_world_t *w, const sti_table_t *t, uint32_t row, uint32_t c) {
    return sti_is_sparse(w, c) ? sti_sparse_test(w, t, row, w->sparse_plane[c]) : strata_mask_test(&t->mask, c);
}

/* The planes the entity at `row` of t holds (bit k: plane k). */
uint64_t sti_sparse_held(const strata_world_t *w, const sti_table_t *t, uint32_t row);

/* The component ids of the planes in `planes`, as a mask. */
strata_mask_t sti_sparse_mask(const strata_world_t *w, uint64_t planes);

/* True if plane k's set has room for one more value of the entity of
 * index `index` (always, for a tag): an add that finds it cannot fail. */
STI_HOT bool sti_sparse_room(const strata_world_t *w, uint32_t k, uint32_t index) {
    const sti_sparse_t *s = &w->sparse_sets[k];
    return s->values.size == 0 || (s->count < s->capacity && index < s->slot_capacity);
}

/* Room in plane k's set for n more values, and slots for every index below
 * `indices` (a tag needs none). NOMEM leaves the set as it was, with at
 * most more room. */
strata_result_t sti_sparse_reserve(strata_world_t *w, uint32_t k, uint32_t indices, uint32_t n);

/* The address of e's value in plane k's set, or NULL (a tag, or e holds none). */
STI_HOT void *sti_sparse_value(const strata_world_t *w, uint32_t k, strata_entity_t e) {
    const sti_sparse_t *s = &w->sparse_sets[k];
    uint32_t index = (uint32_t)e;
    if (s->values.size == 0 || index >= s->slot_capacity || s->slot[index] == STI_NO_SLOT) {
        return NULL;
    }
    return s->values.data + (size_t)s->slot[index] * s->values.size;
}

/* The address of the value of c of the entity at `row` of t, whatever its
 * storage; NULL if it has none or c is a tag. */
STI_HOT void *sti_cell(const strata_world_t *w, const sti_table_t *t, uint32_t c, uint32_t row) {
    return sti_is_sparse(w, c) ? sti_sparse_value(w, w->sparse_plane[c], t->entities[row])
                               : sti_table_cell(w, t, c, row);
}

/* e's value in set s (room made): a new slot unless it has one, then
 * `value` (NULL: the defaults) written there; returns its address. */
STI_HOT void *sti_sparse_put_value(const strata_world_t *w, sti_sparse_t *s, strata_entity_t e, const void *value) {
    uint32_t index = (uint32_t)e, slot = s->slot[index], size = s->values.size;
    if (slot == STI_NO_SLOT) {
        slot = s->count++;
        s->slot[index] = slot;
        s->owner[slot] = e;
    }
    unsigned char *at = s->values.data + (size_t)slot * size;
    if (STI_UNLIKELY(value == NULL || size > STI_SMALL_SIZE)) {
        sti_value_write(w, at, s->values.id, value);
    } else {
        sti_copy_small(at, value, size);
    }
    return at;
}

/* e's value leaves set s (it has one): the last value fills its slot. */
void sti_sparse_take_value(sti_sparse_t *s, strata_entity_t e);

/* e, at `row` of t, gets plane k's component (room made, sti_sparse_room):
 * its bit, and its value (`value`, else the defaults) in the set; if e has
 * it already, only the value is written. Returns the value's address
 * (NULL for a tag). */
STI_HOT void *sti_sparse_put(strata_world_t *w, uint32_t k, sti_table_t *t, uint32_t row, strata_entity_t e,
                             const void *value) {
    /* sparse_any stored only the first time (no chain through it), and
     * read before the bit's store: a load after that store waits on it. */
    if (STI_UNLIKELY((t->sparse_any >> k & 1u) == 0)) {
        t->sparse_any |= (uint64_t)1 << k;
    }
    sti_sparse_plane(w, t, k)[row / 64] |= (uint64_t)1 << (row & 63);
    sti_sparse_t *s = &w->sparse_sets[k];
    return s->values.size != 0 ? sti_sparse_put_value(w, s, e, value) : NULL;
}

/* e, at `row` of t, loses plane k's component (it holds it): its bit, and
 * its value (the set's last value fills the slot). */
STI_HOT void sti_sparse_take(strata_world_t *w, uint32_t k, sti_table_t *t, uint32_t row, strata_entity_t e) {
    sti_sparse_plane(w, t, k)[row / 64] &= ~((uint64_t)1 << (row & 63));
    sti_sparse_t *s = &w->sparse_sets[k];
    if (s->values.size != 0) {
        sti_sparse_take_value(s, e);
    }
}

/* The entity at `row` of t is destroyed: every value it holds leaves its
 * set and its bits go (its row is the caller's to remove). */
void sti_sparse_leave(strata_world_t *w, sti_table_t *t, uint32_t row);

/* Every row of t is destroyed at once: their values leave the sets and
 * t's planes are cleared (t's count is the caller's to zero). */
void sti_sparse_drop_rows(strata_world_t *w, sti_table_t *t);

/* --- Rows that move ----------------------------------------------------------
 * Each path that moves rows carries their bits, as it does the changed
 * sets' (only tables with t->sparse_any have bits, so callers test it). */

/* Row `row` of src goes to row `to` of dst (dst NULL: it is removed, and
 * its bits were cleared), and src's row `last` fills its place. */
void sti_sparse_carry(strata_world_t *w, sti_table_t *src, uint32_t row, uint32_t last, sti_table_t *dst, uint32_t to);
/* Rows [0, n) of src go to rows [to, to + n) of dst; src keeps no bits. */
void sti_sparse_move_all(strata_world_t *w, sti_table_t *src, uint32_t n, sti_table_t *dst, uint32_t to);
/* Row order[i] of t becomes row i (its n rows reordered); scratch holds
 * mark_words words. */
void sti_sparse_permute(strata_world_t *w, sti_table_t *t, const uint32_t *order, uint32_t n, uint64_t *scratch);

/* --- Queries --------------------------------------------------------------- */

/* Query q's sparse terms, or NULL when it has none. */
STI_HOT const sti_sparse_terms_t *sti_sparse_terms(const strata_world_t *w, uint32_t q) {
    const sti_sparse_terms_t *terms = w->query_sparse != NULL ? &w->query_sparse[q] : NULL;
    return terms != NULL && (terms->all | terms->none | terms->optional) != 0 ? terms : NULL;
}

/* True if some row of t may meet `terms`: t has bits in every required plane. */
STI_HOT bool sti_sparse_may_match(const sti_table_t *t, const sti_sparse_terms_t *terms) {
    return (terms->all & ~t->sparse_any) == 0;
}

/* Word `word` of the rows of t from row `first` on that meet `terms`: bit
 * i for row first + 64 * word + i, rows past `count` left out. `first`
 * (a chunk's first row) need not be a multiple of 64. */
uint64_t sti_sparse_word(const strata_world_t *w, const sti_table_t *t, const sti_sparse_terms_t *terms, uint32_t first,
                         uint32_t word, uint32_t count);

/* True if the entity at `row` of t meets query q's sparse terms (any
 * entity does, for a query with none). */
bool sti_sparse_matches(const strata_world_t *w, uint32_t q, const sti_table_t *t, uint32_t row);

/* The rows of t that meet `terms`. */
uint32_t sti_sparse_count(const strata_world_t *w, const sti_table_t *t, const sti_sparse_terms_t *terms);

#endif /* STI_SPARSE_H */

/* dirty.c: the changed sets: setting them up, marking, visiting. */
#include "dirty.h"

/* The maps from the schema: which query owns which set, which sets track
 * each component, and which sets each query's writes feed. */
static void dirty_map(strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    memset(w->trackers, 0, sizeof(uint64_t) * s->component_count);
    uint32_t next = 0;
    for (uint32_t q = 0; q < s->query_count; q++) {
        w->query_dirty[q] = UINT32_MAX;
        if (!sti_mask_empty(&s->queries[q].changed)) {
            uint32_t k = next++;
            w->dirty[k].query = q;
            w->dirty[k].component = UINT32_MAX;
            w->query_dirty[q] = k;
            for (uint32_t c = 0; c < s->component_count; c++) {
                if (strata_mask_test(&s->queries[q].changed, c)) {
                    w->trackers[c] |= (uint64_t)1 << k;
                }
            }
        }
    }
    w->set_slots = 0;
    for (uint32_t c = 0; c < s->component_count; c++) {
        if (s->components[c].on_set != NULL) { /* the on_set sets, in component order */
            uint32_t k = next++;
            w->dirty[k].query = UINT32_MAX;
            w->dirty[k].component = c;
            w->trackers[c] |= (uint64_t)1 << k;
            w->set_slots |= (uint64_t)1 << k;
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
}

/* The sets (empty) and the maps. */
strata_result_t sti_dirty_init(strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    uint32_t sets = 0;
    for (uint32_t q = 0; q < s->query_count; q++) {
        sets += !sti_mask_empty(&s->queries[q].changed);
    }
    for (uint32_t c = 0; c < s->component_count; c++) {
        sets += s->components[c].on_set != NULL;
    }
    STRATA_ASSERT(sets <= STRATA_MAX_CHANGED);
    if (sets == 0) {
        return STRATA_OK;
    }
    w->dirty = sti_mem_alloc(w, sizeof(sti_dirty_t) * sets);
    if (w->dirty == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memset(w->dirty, 0, sizeof(sti_dirty_t) * sets);
    for (uint32_t k = 0; k < sets; k++) {
        w->dirty[k].head = w->dirty[k].tail = STI_DIRTY_END;
    }
    w->dirty_count = sets; /* so sti_dirty_free frees the array whatever fails next */
    w->query_dirty = sti_mem_alloc(w, sizeof(uint32_t) * s->query_count);
    w->query_marks = sti_mem_alloc(w, sizeof(uint64_t) * s->query_count);
    w->trackers = sti_mem_alloc(w, sizeof(uint64_t) * s->component_count);
    if (w->query_dirty == NULL || w->query_marks == NULL || w->trackers == NULL) {
        return STRATA_ERR_NOMEM; /* the caller destroys the world, these with it */
    }
    dirty_map(w);
    return STRATA_OK;
}

/* Set k's plane (0: its members; 1: marks made while its visit is open) of t's bitmaps. */
static inline uint64_t *dirty_plane(const strata_world_t *w, const sti_table_t *t, uint32_t k, uint32_t plane) {
    return t->marks + ((size_t)plane * w->dirty_count + k) * t->mark_words;
}

/* Words of a plane that hold t's rows. */
static inline uint32_t dirty_words(const sti_table_t *t) {
    return (t->count + 63) / 64;
}

/* Put t at the end of set k's list (it is not on it). */
static void dirty_list(strata_world_t *w, uint32_t k, sti_table_t *t) {
    sti_dirty_t *d = &w->dirty[k];
    t->listed |= (uint64_t)1 << k;
    t->mark_next[k] = STI_DIRTY_END;
    if (d->tail == STI_DIRTY_END) {
        d->head = (uint16_t)t->id;
    } else {
        w->tables[d->tail]->mark_next[k] = (uint16_t)t->id;
    }
    d->tail = (uint16_t)t->id;
}

/* Every table off set k's list and its bits in both planes cleared. */
void sti_dirty_clear_set(strata_world_t *w, uint32_t k) {
    sti_dirty_t *d = &w->dirty[k];
    for (uint32_t id = d->head; id != STI_DIRTY_END;) {
        sti_table_t *t = w->tables[id];
        memset(dirty_plane(w, t, k, 0), 0, sizeof(uint64_t) * dirty_words(t));
        memset(dirty_plane(w, t, k, 1), 0, sizeof(uint64_t) * dirty_words(t));
        t->listed &= ~((uint64_t)1 << k);
        t->later &= ~((uint64_t)1 << k);
        id = t->mark_next[k];
    }
    d->head = d->tail = STI_DIRTY_END;
}

/* Walk each list by the old ids, link it again by the new ones. A table
 * that goes has no row, so no bit: it just leaves. */
void sti_dirty_renumber(strata_world_t *w) {
    for (uint32_t k = 0; k < w->dirty_count; k++) {
        sti_dirty_t *d = &w->dirty[k];
        STRATA_ASSERT(!d->busy);
        sti_table_t *prev = NULL;
        for (uint32_t id = d->head; id != STI_DIRTY_END;) {
            sti_table_t *t = w->tables[id];
            id = t->mark_next[k]; /* read before prev's link is rewritten below */
            if (t->id == STI_NO_TABLE) {
                continue;
            }
            if (prev == NULL) {
                d->head = (uint16_t)t->id;
            } else {
                prev->mark_next[k] = (uint16_t)t->id;
            }
            prev = t;
        }
        if (prev == NULL) {
            d->head = d->tail = STI_DIRTY_END;
        } else {
            prev->mark_next[k] = STI_DIRTY_END;
            d->tail = (uint16_t)prev->id;
        }
    }
}

/* Every set empty: the tables have no rows, so only the lists go (and any
 * bits of rows past the counts). */
void sti_dirty_empty(strata_world_t *w) {
    for (uint32_t i = 0; i < w->table_count; i++) {
        sti_table_t *t = w->tables[i];
        if (t->listed != 0) {
            memset(t->marks, 0, sizeof(uint64_t) * 2 * w->dirty_count * t->mark_words);
        }
        t->listed = t->later = 0;
    }
    for (uint32_t k = 0; k < w->dirty_count; k++) {
        w->dirty[k].head = w->dirty[k].tail = STI_DIRTY_END;
    }
}

/* The sets and the maps (the bitmaps belong to the tables). */
void sti_dirty_free(strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    sti_mem_free(w, w->dirty, sizeof(sti_dirty_t) * w->dirty_count);
    sti_mem_free(w, w->query_dirty, sizeof(uint32_t) * s->query_count);
    sti_mem_free(w, w->query_marks, sizeof(uint64_t) * s->query_count);
    sti_mem_free(w, w->trackers, sizeof(uint64_t) * s->component_count);
}

/* True if row `row` of t is a row d's open visit took from the bitmap and
 * has not yielded yet (in its iterator's row_bits). */
static bool dirty_waiting(const sti_dirty_t *d, const sti_table_t *t, uint32_t row) {
    if (d->iter == NULL || t->id != d->batch_from || row - d->iter->row_base >= 64) {
        return false;
    }
    return (d->iter->row_bits >> (row - d->iter->row_base) & 1u) != 0;
}

/* A mark while set k's visit is open: into the second plane (merged when
 * the visit closes), unless the row is in the set (or waiting to be yielded). */
static STI_COLD void dirty_add_later(strata_world_t *w, uint32_t k, sti_table_t *t, uint32_t row) {
    uint64_t bit = (uint64_t)1 << (row & 63);
    uint64_t *later = dirty_plane(w, t, k, 1) + row / 64;
    if ((*later & bit) != 0 || dirty_waiting(&w->dirty[k], t, row)) {
        return;
    }
    *later |= bit;
    t->later |= (uint64_t)1 << k;
    if ((t->listed >> k & 1u) == 0) {
        dirty_list(w, k, t);
    }
}

/* Add row `row` of t to set k unless it is in already. */
static inline void dirty_add(strata_world_t *w, uint32_t k, sti_table_t *t, uint32_t row) {
    uint64_t bit = (uint64_t)1 << (row & 63);
    uint64_t *word = dirty_plane(w, t, k, 0) + row / 64;
    if ((*word & bit) != 0) {
        return;
    }
    if (STI_UNLIKELY(w->dirty[k].busy)) {
        dirty_add_later(w, k, t, row);
        return;
    }
    *word |= bit;
    if ((t->listed >> k & 1u) == 0) {
        dirty_list(w, k, t);
    }
}

void sti_dirty_put(strata_world_t *w, uint32_t k, sti_table_t *t, uint32_t row) {
    dirty_add(w, k, t, row);
}

/* Mark a live e in each set of `slots`: its record gives its table and row. */
void sti_dirty_mark(strata_world_t *w, uint64_t slots, strata_entity_t e) {
    const sti_record_t *rec = &w->records[(uint32_t)e];
    sti_table_t *t = w->tables[rec->table];
    w->sets_pending |= (slots & w->set_slots) != 0;
    while (slots != 0) {
        uint32_t k = (uint32_t)__builtin_ctzll(slots);
        slots &= slots - 1;
        dirty_add(w, k, t, rec->row);
    }
}

/* Set bits [row, row + n) of words (a whole word at a time between the ends). */
static void dirty_set_range(uint64_t *words, uint32_t row, uint32_t n) {
    uint32_t end = row + n;
    while (row < end) {
        uint32_t at = row & 63, take = end - row < 64 - at ? end - row : 64 - at;
        words[row / 64] |= (take == 64 ? ~(uint64_t)0 : (((uint64_t)1 << take) - 1)) << at;
        row += take;
    }
}

/* Add rows [row, row + n) of t to the sets of `slots`. */
static void dirty_add_rows(strata_world_t *w, uint64_t slots, const sti_table_t *table, uint32_t row, uint32_t n) {
    if (n == 0) {
        return;
    }
    sti_table_t *t = w->tables[table->id]; /* the sets' bookkeeping in it changes */
    w->sets_pending |= (slots & w->set_slots) != 0;
    while (slots != 0) {
        uint32_t k = (uint32_t)__builtin_ctzll(slots);
        slots &= slots - 1;
        if (n == 1 || w->dirty[k].busy) {
            for (uint32_t i = 0; i < n; i++) {
                dirty_add(w, k, t, row + i);
            }
            continue;
        }
        dirty_set_range(dirty_plane(w, t, k, 0), row, n);
        if ((t->listed >> k & 1u) == 0) {
            dirty_list(w, k, t);
        }
    }
}

/* Mark n rows of t in the sets fed by query q's writes. */
void sti_dirty_mark_rows(strata_world_t *w, uint32_t q, const sti_table_t *t, uint32_t row, uint32_t n) {
    dirty_add_rows(w, w->query_marks[q], t, row, n);
}

void sti_dirty_mark_word(strata_world_t *w, uint32_t q, const sti_table_t *t, uint32_t row, uint64_t bits) {
    while (bits != 0) { /* a run of rows at a time */
        uint32_t first = (uint32_t)__builtin_ctzll(bits);
        uint64_t gap = ~(bits >> first);
        uint32_t n = gap == 0 ? 64 : (uint32_t)__builtin_ctzll(gap);
        dirty_add_rows(w, w->query_marks[q], t, row + first, n);
        bits = first + n >= 64 ? 0 : bits & ~(((uint64_t)1 << (first + n)) - 1);
    }
}

void sti_dirty_mark_matching(strata_world_t *w, uint32_t q, const sti_table_t *t, uint32_t row, uint32_t n) {
    const sti_sparse_terms_t *terms = sti_sparse_terms(w, q);
    if (terms == NULL) {
        sti_dirty_mark_rows(w, q, t, row, n);
        return;
    }
    for (uint32_t i = 0, words = sti_sparse_may_match(t, terms) ? (n + 63) / 64 : 0; i < words; i++) {
        sti_dirty_mark_word(w, q, t, row + i * 64, sti_sparse_word(w, t, terms, row, i, n));
    }
}

/* The rows of t set k takes when they arrive: the rows that meet its
 * query's sparse terms, or hold its on_set component; word `word` of them. */
static uint64_t dirty_arrived(const strata_world_t *w, uint32_t k, const sti_table_t *t, uint32_t word) {
    const sti_dirty_t *d = &w->dirty[k];
    if (d->query != UINT32_MAX) { /* (a query with sparse terms: the others take every row) */
        return sti_sparse_word(w, t, sti_sparse_terms(w, d->query), 0, word, t->count);
    }
    uint32_t plane = w->sparse_plane[d->component];
    return (t->sparse_any >> plane & 1u) != 0 ? sti_sparse_plane(w, t, plane)[word] : 0;
}

/* Every row of t in each set whose query t matches (the rows that meet its
 * sparse terms), and in the on_set sets of its components (a sparse one:
 * the rows that hold it). */
void sti_dirty_mark_table(strata_world_t *w, const sti_table_t *t) {
    uint64_t slots = t->tracked_by, rows = 0; /* rows: the sets that take some of t's rows only */
    for (uint64_t left = w->set_slots; left != 0; left &= left - 1) { /* and the on_set sets of its components */
        uint32_t k = (uint32_t)__builtin_ctzll(left), c = w->dirty[k].component;
        slots |= (uint64_t)strata_mask_test(&t->mask, c) << k;
        rows |= (uint64_t)sti_is_sparse(w, c) << k;
    }
    for (uint64_t left = t->tracked_by; left != 0; left &= left - 1) {
        uint32_t k = (uint32_t)__builtin_ctzll(left);
        rows |= (uint64_t)(sti_sparse_terms(w, w->dirty[k].query) != NULL) << k;
    }
    dirty_add_rows(w, slots & ~rows, t, 0, t->count);
    for (; rows != 0; rows &= rows - 1) {
        uint32_t k = (uint32_t)__builtin_ctzll(rows);
        for (uint32_t word = 0, words = (t->count + 63) / 64; word < words; word++) {
            for (uint64_t x = dirty_arrived(w, k, t, word); x != 0; x &= x - 1) {
                dirty_add(w, k, w->tables[t->id], word * 64 + (uint32_t)__builtin_ctzll(x));
            }
        }
        w->sets_pending |= ((w->set_slots >> k) & 1u) != 0;
    }
}

/* --- Rows that move ------------------------------------------------------------ */

/* Put t on the list of each set of `sets` it is not on yet. */
static STI_COLD void dirty_list_sets(strata_world_t *w, sti_table_t *t, uint64_t sets) {
    for (; sets != 0; sets &= sets - 1) {
        dirty_list(w, (uint32_t)__builtin_ctzll(sets), t);
    }
}

/* Every set src is listed in; the sets dst joins are listed at the end. */
void sti_dirty_move_row(strata_world_t *w, sti_table_t *src, uint32_t row, uint32_t last, sti_table_t *dst,
                        uint32_t to) {
    uint64_t arrived = 0;
    for (uint64_t listed = src->listed; listed != 0; listed &= listed - 1) {
        uint32_t k = (uint32_t)__builtin_ctzll(listed);
        arrived |= sti_bits_move(src->marks + k * (size_t)src->mark_words, row, last) << k;
    }
    if (arrived == 0 || dst == NULL) {
        return;
    }
    for (uint64_t left = arrived; left != 0; left &= left - 1) {
        uint32_t k = (uint32_t)__builtin_ctzll(left);
        dst->marks[k * (size_t)dst->mark_words + to / 64] |= (uint64_t)1 << (to & 63);
    }
    if ((arrived & ~dst->listed) != 0) {
        dirty_list_sets(w, dst, arrived & ~dst->listed);
    }
}

void sti_dirty_move_all(strata_world_t *w, sti_table_t *src, uint32_t n, sti_table_t *dst, uint32_t to) {
    for (uint64_t left = src->listed; left != 0; left &= left - 1) {
        uint32_t k = (uint32_t)__builtin_ctzll(left);
        uint64_t *bits = dirty_plane(w, src, k, 0), *into = dirty_plane(w, dst, k, 0);
        bool any = false;
        for (uint32_t i = 0; i < n; i++) {
            if ((bits[i / 64] >> (i & 63) & 1u) != 0) {
                into[(to + i) / 64] |= (uint64_t)1 << ((to + i) & 63);
                any = true;
            }
        }
        memset(bits, 0, sizeof(uint64_t) * ((n + 63) / 64));
        if (any && (dst->listed >> k & 1u) == 0) {
            dirty_list(w, k, dst);
        }
    }
}

void sti_dirty_permute(strata_world_t *w, sti_table_t *t, const uint32_t *order, uint32_t n, uint64_t *scratch) {
    size_t words = ((size_t)n + 63) / 64;
    for (uint64_t left = t->listed; left != 0; left &= left - 1) {
        uint64_t *bits = dirty_plane(w, t, (uint32_t)__builtin_ctzll(left), 0);
        memcpy(scratch, bits, sizeof(uint64_t) * words);
        memset(bits, 0, sizeof(uint64_t) * words);
        for (uint32_t i = 0; i < n; i++) {
            bits[i / 64] |= (scratch[order[i] / 64] >> (order[i] & 63) & 1u) << (i & 63);
        }
    }
}

void sti_dirty_drop_rows(strata_world_t *w, sti_table_t *t) {
    if (t->listed != 0) {
        memset(t->marks, 0, sizeof(uint64_t) * 2 * w->dirty_count * t->mark_words);
        t->later = 0; /* (no visit is open: nothing moves or goes then) */
    }
}

/* --- Visits ---------------------------------------------------------------------- */

/* The visit walks the tables on the list when it opened, each bitmap in row order. */
void sti_dirty_open(sti_dirty_t *d) {
    STRATA_ASSERT(!d->busy); /* one visit of a changed set at a time */
    d->busy = true;
    d->at = d->batch_from = d->head;
    d->stop = d->tail;
    d->word = 0;
    d->iter = NULL;
}

/* The table after t on set k's list as the open visit walks it (STI_DIRTY_END past its last). */
static inline uint16_t dirty_after(const sti_dirty_t *d, const sti_table_t *t, uint32_t k) {
    return t->id == d->stop ? (uint16_t)STI_DIRTY_END : t->mark_next[k];
}

/* Hand the iterator the set's next word with a bit in a table that
 * matches the query, the word cleared in the bitmap (its rows not yet
 * yielded count as in the set, see dirty_add_later), and, unless `one`,
 * the rest of that table's words to walk itself; with `one` (the query's
 * writes feed other sets), a single row, marked in those sets as it is
 * taken, and no words. Rows of tables that no longer match leave the set.
 * Nothing moves while the visit is open, so the rows stay where they are.
 * Leaves the table in it (row_entities, columns) and d->batch_from; false
 * when the visit is done. */
STI_HOT bool dirty_resolve(strata_world_t *w, strata_iter_t *it, sti_dirty_t *d, uint32_t k, bool one) {
    uint32_t at = d->at, word = d->word;
    const sti_sparse_terms_t *terms = sti_sparse_terms(w, it->query);
    while (at != STI_DIRTY_END) {
        sti_table_t *t = w->tables[at];
        uint64_t *bits = dirty_plane(w, t, k, 0);
        uint32_t words = dirty_words(t);
        if ((t->tracked_by >> k & 1u) == 0) {
            memset(bits, 0, sizeof(uint64_t) * words);
            word = words;
        }
        for (; word < words; word++) {
            uint64_t x = bits[word];
            if (x != 0 && terms != NULL) { /* rows that fail the sparse terms leave the set, as unmatched tables do */
                x = bits[word] = x & sti_sparse_word(w, t, terms, 0, word, t->count);
            }
            if (x == 0) {
                continue;
            }
            d->batch_from = (uint16_t)at;
            it->row_entities = t->entities;
            it->columns = t->columns;
            it->row_base = word * 64;
            it->words = bits;
            if (one) {
                it->row_bits = x & (~x + 1); /* the lowest row; the rest of the word waits */
                bits[word] = x & (x - 1);
                it->word_at = it->word_stop = NULL;
                sti_dirty_mark_rows(w, it->query, t, word * 64 + (uint32_t)__builtin_ctzll(x), 1);
            } else if (terms != NULL) { /* a word at a time: the runtime tests each */
                it->row_bits = x;
                bits[word++] = 0;
                it->word_at = it->word_stop = NULL;
            } else {
                it->row_bits = x;
                bits[word++] = 0;
                it->word_at = bits + word;
                it->word_stop = bits + words;
                word = words; /* the iterator walks the rest */
            }
            if (word >= words) {
                at = dirty_after(d, t, k);
                word = 0;
            }
            d->at = (uint16_t)at;
            d->word = word;
            return true;
        }
        at = dirty_after(d, t, k);
        word = 0;
    }
    d->batch_from = STI_DIRTY_END; /* none: the visit is done */
    d->at = (uint16_t)at;
    d->word = word;
    return false;
}

/* Take the set's next rows (one at a time when the query's writes feed
 * other sets, so each row is marked as it is yielded) and yield the first. */
bool sti_dirty_next(strata_iter_t *it) {
    strata_world_t *w = it->world;
    uint32_t k = w->query_dirty[it->query];
    sti_dirty_t *d = &w->dirty[k];
    d->iter = it;
    bool found = w->query_marks[it->query] != 0 ? dirty_resolve(w, it, d, k, true) : dirty_resolve(w, it, d, k, false);
    return found && sti_dirty_yield(it);
}

/* Yield the next row the iterator holds, taking the table's next words
 * as the generated `next` does: from then on a mark puts it in again. */
bool sti_dirty_yield(strata_iter_t *it) {
    uint32_t row;
    if (!strata_iter_changed_row(it, &row)) {
        return false;
    }
    it->count = 1;
    it->row = row;
    it->entities = it->row_entities + row;
    return true;
}

bool sti_dirty_take(strata_world_t *w, uint32_t k, sti_table_t **out, uint32_t *row) {
    sti_dirty_t *d = &w->dirty[k];
    while (d->at != STI_DIRTY_END) {
        sti_table_t *t = w->tables[d->at];
        uint64_t *bits = dirty_plane(w, t, k, 0);
        for (uint32_t words = dirty_words(t); d->word < words; d->word++) {
            uint64_t x = bits[d->word];
            if (x != 0) {
                bits[d->word] = x & (x - 1);
                *out = t;
                *row = d->word * 64 + (uint32_t)__builtin_ctzll(x);
                return true;
            }
        }
        d->at = dirty_after(d, t, k);
        d->batch_from = d->at;
        d->word = 0;
    }
    return false;
}

/* Close an iteration: keep what it did not visit and what was marked
 * meanwhile; resolved rows not yet yielded go back in. */
void sti_dirty_close(strata_iter_t *it) {
    sti_dirty_close_set(it->world, it->world->query_dirty[it->query]);
}

/* The tables the visit walked past (before the one its last rows came
 * from) leave the list unless marked meanwhile; the marks made meanwhile
 * join the set; then the resolved rows not yet yielded go back in. */
void sti_dirty_close_set(strata_world_t *w, uint32_t k) {
    sti_dirty_t *d = &w->dirty[k];
    uint64_t bit = (uint64_t)1 << k;
    bool passed = true; /* walking the tables the visit finished with */
    uint16_t prev = STI_DIRTY_END;
    for (uint16_t id = d->head; id != STI_DIRTY_END;) {
        sti_table_t *t = w->tables[id];
        uint16_t next = t->mark_next[k];
        passed = passed && id != d->batch_from;
        if ((t->later & bit) != 0) {
            uint64_t *now = dirty_plane(w, t, k, 0), *later = dirty_plane(w, t, k, 1);
            for (uint32_t i = 0, n = dirty_words(t); i < n; i++) {
                now[i] |= later[i];
                later[i] = 0;
            }
            t->later &= ~bit;
        } else if (passed) {
            t->listed &= ~bit; /* its bits are all visited */
            id = next;
            continue;
        }
        if (prev == STI_DIRTY_END) {
            d->head = id;
        } else {
            w->tables[prev]->mark_next[k] = id;
        }
        prev = id;
        id = next;
    }
    if (prev == STI_DIRTY_END) {
        d->head = STI_DIRTY_END;
    } else {
        w->tables[prev]->mark_next[k] = STI_DIRTY_END;
    }
    d->tail = prev;
    d->busy = false;
    if (d->iter != NULL && d->batch_from != STI_DIRTY_END) { /* nothing moved: the rows are where they were */
        sti_table_t *t = w->tables[d->batch_from];
        for (uint64_t x = d->iter->row_bits; x != 0; x &= x - 1) {
            dirty_add(w, k, t, d->iter->row_base + (uint32_t)__builtin_ctzll(x));
        }
    }
    d->iter = NULL;
}

/* --- Membership ------------------------------------------------------------------ */

/* True if row `row` of t has a bit in set k (either plane). */
static bool dirty_bit(const strata_world_t *w, uint32_t k, const sti_table_t *t, uint32_t row) {
    if ((t->listed >> k & 1u) == 0) {
        return false;
    }
    uint64_t word = dirty_plane(w, t, k, 0)[row / 64] | dirty_plane(w, t, k, 1)[row / 64];
    return (word >> (row & 63) & 1u) != 0;
}

bool sti_dirty_has(const strata_world_t *w, uint32_t k, strata_entity_t e) {
    const sti_record_t *rec = sti_record_lookup(w, e);
    if (rec == NULL) {
        return false;
    }
    const sti_table_t *t = w->tables[rec->table];
    return dirty_bit(w, k, t, rec->row) || (w->dirty[k].busy && dirty_waiting(&w->dirty[k], t, rec->row));
}

/* The rows with a bit in any of the sets, then the rows an open visit
 * resolved and has not yielded (their bits are clear), each once. */
uint32_t sti_dirty_count(const strata_world_t *w, uint64_t sets) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->table_count; i++) {
        const sti_table_t *t = w->tables[i];
        uint64_t listed = t->listed & sets;
        for (uint32_t j = 0, words = listed != 0 ? dirty_words(t) : 0; j < words; j++) {
            uint64_t any = 0;
            for (uint64_t left = listed; left != 0; left &= left - 1) {
                uint32_t k = (uint32_t)__builtin_ctzll(left);
                any |= dirty_plane(w, t, k, 0)[j] | dirty_plane(w, t, k, 1)[j];
            }
            n += (uint32_t)__builtin_popcountll(any);
        }
    }
    for (uint64_t left = sets; left != 0; left &= left - 1) {
        uint32_t k = (uint32_t)__builtin_ctzll(left);
        const sti_dirty_t *d = &w->dirty[k];
        if (!d->busy || d->iter == NULL || d->batch_from == STI_DIRTY_END) {
            continue;
        }
        const sti_table_t *t = w->tables[d->batch_from];
        for (uint64_t x = d->iter->row_bits; x != 0; x &= x - 1) {
            uint32_t row = d->iter->row_base + (uint32_t)__builtin_ctzll(x);
            bool counted = false;
            for (uint64_t other = sets; other != 0 && !counted; other &= other - 1) {
                uint32_t j = (uint32_t)__builtin_ctzll(other); /* a bit, or waiting in an earlier set */
                counted = dirty_bit(w, j, t, row) || (j < k && w->dirty[j].busy && dirty_waiting(&w->dirty[j], t, row));
            }
            n += !counted;
        }
    }
    return n;
}

/* Entries waiting in query q's changed set. */
uint32_t strata_query_changed_count(const strata_world_t *w, uint32_t q) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(q < w->schema->query_count);
    return w->dirty_count > 0 && w->query_dirty[q] != UINT32_MAX ? sti_dirty_count(w, (uint64_t)1 << w->query_dirty[q])
                                                                 : 0;
}

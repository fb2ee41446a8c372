/* sparse.c: the sparse components' planes and sets: setting them up,
 * adding and taking values, carrying bits with moving rows, and the
 * queries' row tests. */
#include "sparse.h"

/* The planes of the components of mask `m`. */
static uint64_t sparse_planes_of(const strata_world_t *w, const strata_mask_t *m) {
    uint64_t planes = 0;
    for (uint32_t c = 0; c < w->component_count; c++) {
        if (sti_is_sparse(w, c) && strata_mask_test(m, c)) {
            planes |= (uint64_t)1 << w->sparse_plane[c];
        }
    }
    return planes;
}

strata_result_t sti_sparse_init(strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    w->sparse_first = 2 * w->dirty_count;
    for (uint32_t c = 0; c < s->component_count; c++) {
        if (s->components[c].storage == STRATA_STORAGE_SPARSE) {
            STRATA_ASSERT(w->sparse_count < STRATA_MAX_SPARSE);
            strata_mask_set(&w->sparse, c);
            w->sparse_plane[c] = (uint8_t)w->sparse_count++;
        }
    }
    w->mark_planes = w->sparse_first + w->sparse_count;
    if (w->sparse_count == 0) {
        return STRATA_OK;
    }
    size_t sets = sizeof(sti_sparse_t) * w->sparse_count;
    w->sparse_sets = sti_mem_alloc(w, sets);
    if (w->sparse_sets == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memset(w->sparse_sets, 0, sets);
    for (uint32_t c = 0; c < s->component_count; c++) {
        if (sti_is_sparse(w, c)) {
            uint32_t k = w->sparse_plane[c];
            w->sparse_sets[k].values = (sti_column_t){NULL, s->components[c].size, c, NULL, 0};
            if (s->components[c].on_add != NULL || s->components[c].on_remove != NULL) {
                w->sparse_hooked |= (uint64_t)1 << k;
            }
        }
    }
    if (s->query_count > 0) {
        w->query_sparse = sti_mem_alloc(w, sizeof(sti_sparse_terms_t) * s->query_count);
        if (w->query_sparse == NULL) {
            return STRATA_ERR_NOMEM; /* the caller destroys the world, the sets with it */
        }
    }
    for (uint32_t q = 0; q < s->query_count; q++) {
        w->query_sparse[q].all = sparse_planes_of(w, &s->queries[q].all);
        w->query_sparse[q].none = sparse_planes_of(w, &s->queries[q].none);
        w->query_sparse[q].optional = sparse_planes_of(w, &s->queries[q].optional);
    }
    /* A monitor starts or stops matching when a plane it names changes. */
    w->sparse_observed = w->sparse_hooked;
    for (uint32_t k = 0; k < w->monitor_count; k++) {
        const sti_sparse_terms_t *terms = &w->query_sparse[w->monitor_query[k]];
        w->sparse_observed |= terms->all | terms->none;
        w->monitor_sparse |= (uint64_t)((terms->all | terms->none) != 0) << k;
    }
    /* What an add or remove has to do beyond its bit and value: nothing for these. */
    w->sparse_plain = ~w->sparse_observed;
    for (uint32_t c = 0; c < s->component_count; c++) {
        if (sti_is_sparse(w, c) && w->dirty_count > 0 && w->trackers[c] != 0) {
            w->sparse_plain &= ~((uint64_t)1 << w->sparse_plane[c]);
        }
    }
    w->sparse_now = w->defer_depth == 0 ? w->sparse_plain : 0;
    return STRATA_OK;
}

void sti_sparse_free(strata_world_t *w) {
    for (uint32_t k = 0; w->sparse_sets != NULL && k < w->sparse_count; k++) {
        sti_sparse_t *s = &w->sparse_sets[k];
        sti_mem_free(w, s->slot, sizeof(uint32_t) * s->slot_capacity);
        sti_mem_free(w, s->owner, sizeof(strata_entity_t) * s->owner_capacity);
        sti_mem_free(w, s->values.raw, s->values.raw_size);
    }
    sti_mem_free(w, w->sparse_sets, sizeof(sti_sparse_t) * w->sparse_count);
    sti_mem_free(w, w->query_sparse, sizeof(sti_sparse_terms_t) * w->schema->query_count);
}

/* Every slot of set s free again (its values gone). */
static void sparse_set_empty(sti_sparse_t *s) {
    for (uint32_t i = 0; i < s->count; i++) {
        s->slot[(uint32_t)s->owner[i]] = STI_NO_SLOT;
    }
    s->count = 0;
}

void sti_sparse_empty(strata_world_t *w) {
    for (uint32_t k = 0; k < w->sparse_count; k++) {
        sparse_set_empty(&w->sparse_sets[k]);
    }
    for (uint32_t i = 0; i < w->table_count; i++) {
        sti_table_t *t = w->tables[i];
        if (t->sparse_any != 0) {
            memset(sti_sparse_plane(w, t, 0), 0, sizeof(uint64_t) * w->sparse_count * t->mark_words);
            t->sparse_any = 0;
        }
    }
}

uint64_t sti_sparse_held(const strata_world_t *w, const sti_table_t *t, uint32_t row) {
    uint64_t held = 0;
    for (uint64_t left = t->sparse_any; left != 0; left &= left - 1) {
        uint32_t k = (uint32_t)__builtin_ctzll(left);
        held |= (sti_sparse_plane(w, t, k)[row / 64] >> (row & 63) & 1u) << k;
    }
    return held;
}

strata_mask_t sti_sparse_mask(const strata_world_t *w, uint64_t planes) {
    strata_mask_t m = {{0}};
    for (; planes != 0; planes &= planes - 1) {
        strata_mask_set(&m, w->sparse_sets[__builtin_ctzll(planes)].values.id);
    }
    return m;
}

strata_result_t sti_sparse_reserve(strata_world_t *w, uint32_t k, uint32_t indices, uint32_t n) {
    sti_sparse_t *s = &w->sparse_sets[k];
    if (s->values.size == 0) {
        return STRATA_OK;
    }
    if (indices > s->slot_capacity) {
        size_t old = s->slot_capacity;
        strata_result_t r = sti_mem_grow(w, &s->slot, sizeof(uint32_t), &s->slot_capacity, indices, 64);
        if (r != STRATA_OK) {
            return r;
        }
        memset(s->slot + old, 0xff, sizeof(uint32_t) * (s->slot_capacity - old)); /* STI_NO_SLOT */
    }
    if (n > UINT32_MAX - s->count) {
        return STRATA_ERR_NOMEM;
    }
    if (s->count + n <= s->capacity) {
        return STRATA_OK;
    }
    size_t cap = sti_grow_capacity(s->capacity, (size_t)s->count + n, 16, UINT32_MAX);
    size_t bytes = sti_column_bytes(w, &s->values, cap);
    if (cap == 0 || bytes == 0) {
        return STRATA_ERR_NOMEM;
    }
    /* Each array grows on its own; one grown before the other failed is only room. */
    strata_result_t r = STRATA_OK;
    if (s->owner_capacity < cap) {
        r = sti_mem_resize(w, &s->owner, sizeof(strata_entity_t), &s->owner_capacity, cap);
    }
    if (r == STRATA_OK && s->values.raw_size < bytes) {
        r = sti_column_grow(w, &s->values, bytes, s->count);
    }
    if (r == STRATA_OK) {
        s->capacity = (uint32_t)cap;
    }
    return r;
}

void sti_sparse_take_value(sti_sparse_t *s, strata_entity_t e) {
    uint32_t index = (uint32_t)e;
    uint32_t slot = s->slot[index], last = --s->count;
    s->slot[index] = STI_NO_SLOT;
    if (slot != last) {
        strata_entity_t moved = s->owner[last];
        size_t size = s->values.size;
        s->owner[slot] = moved;
        s->slot[(uint32_t)moved] = slot;
        sti_copy(s->values.data + (size_t)slot * size, s->values.data + (size_t)last * size, size);
    }
}

void sti_sparse_leave(strata_world_t *w, sti_table_t *t, uint32_t row) {
    for (uint64_t held = sti_sparse_held(w, t, row); held != 0; held &= held - 1) {
        sti_sparse_take(w, (uint32_t)__builtin_ctzll(held), t, row, t->entities[row]);
    }
}

void sti_sparse_drop_rows(strata_world_t *w, sti_table_t *t) {
    for (uint64_t left = t->sparse_any; left != 0; left &= left - 1) {
        uint32_t k = (uint32_t)__builtin_ctzll(left);
        uint64_t *plane = sti_sparse_plane(w, t, k);
        for (uint32_t i = 0, words = (t->count + 63) / 64; w->sparse_sets[k].values.size > 0 && i < words; i++) {
            for (uint64_t x = plane[i]; x != 0; x &= x - 1) {
                uint32_t row = i * 64 + (uint32_t)__builtin_ctzll(x);
                sti_sparse_take(w, k, t, row, t->entities[row]);
            }
        }
        memset(plane, 0, sizeof(uint64_t) * t->mark_words);
    }
    t->sparse_any = 0;
}

/* --- Rows that move ------------------------------------------------------------ */

void sti_sparse_carry(strata_world_t *w, sti_table_t *src, uint32_t row, uint32_t last, sti_table_t *dst, uint32_t to) {
    for (uint64_t left = src->sparse_any; left != 0; left &= left - 1) {
        uint32_t k = (uint32_t)__builtin_ctzll(left);
        if (sti_bits_move(sti_sparse_plane(w, src, k), row, last) != 0 && dst != NULL) {
            sti_sparse_plane(w, dst, k)[to / 64] |= (uint64_t)1 << (to & 63);
            dst->sparse_any |= (uint64_t)1 << k;
        }
    }
}

void sti_sparse_move_all(strata_world_t *w, sti_table_t *src, uint32_t n, sti_table_t *dst, uint32_t to) {
    for (uint64_t left = src->sparse_any; left != 0; left &= left - 1) {
        uint32_t k = (uint32_t)__builtin_ctzll(left);
        uint64_t *bits = sti_sparse_plane(w, src, k), *into = sti_sparse_plane(w, dst, k);
        for (uint32_t i = 0, words = (n + 63) / 64; i < words; i++) {
            for (uint64_t x = bits[i]; x != 0; x &= x - 1) {
                uint32_t at = to + i * 64 + (uint32_t)__builtin_ctzll(x);
                into[at / 64] |= (uint64_t)1 << (at & 63);
                dst->sparse_any |= (uint64_t)1 << k;
            }
        }
        memset(bits, 0, sizeof(uint64_t) * ((n + 63) / 64));
    }
    src->sparse_any = 0;
}

void sti_sparse_permute(strata_world_t *w, sti_table_t *t, const uint32_t *order, uint32_t n, uint64_t *scratch) {
    size_t words = ((size_t)n + 63) / 64;
    for (uint64_t left = t->sparse_any; left != 0; left &= left - 1) {
        uint64_t *bits = sti_sparse_plane(w, t, (uint32_t)__builtin_ctzll(left));
        memcpy(scratch, bits, sizeof(uint64_t) * words);
        memset(bits, 0, sizeof(uint64_t) * words);
        for (uint32_t i = 0; i < n; i++) {
            bits[i / 64] |= (scratch[order[i] / 64] >> (order[i] & 63) & 1u) << (i & 63);
        }
    }
}

/* --- Queries ---------------------------------------------------------------- */

/* Bits [first + 64 * word, + 64) of plane k of t: one word when `first` is
 * a multiple of 64, else two words' halves. Words past the bitmap read 0. */
static uint64_t sparse_plane_word(const strata_world_t *w, const sti_table_t *t, uint32_t k, uint32_t first,
                                  uint32_t word) {
    if ((t->sparse_any >> k & 1u) == 0) {
        return 0;
    }
    const uint64_t *plane = sti_sparse_plane(w, t, k);
    uint32_t at = first / 64 + word, shift = first & 63;
    uint64_t low = at < t->mark_words ? plane[at] : 0;
    if (shift == 0) {
        return low;
    }
    uint64_t high = at + 1 < t->mark_words ? plane[at + 1] : 0;
    return low >> shift | high << (64 - shift);
}

uint64_t sti_sparse_word(const strata_world_t *w, const sti_table_t *t, const sti_sparse_terms_t *terms, uint32_t first,
                         uint32_t word, uint32_t count) {
    uint64_t bits = ~(uint64_t)0;
    for (uint64_t left = terms->all; left != 0 && bits != 0; left &= left - 1) {
        bits &= sparse_plane_word(w, t, (uint32_t)__builtin_ctzll(left), first, word);
    }
    for (uint64_t left = terms->none; left != 0 && bits != 0; left &= left - 1) {
        bits &= ~sparse_plane_word(w, t, (uint32_t)__builtin_ctzll(left), first, word);
    }
    uint32_t rows = count - word * 64; /* the word's rows that exist */
    return rows >= 64 ? bits : bits & (((uint64_t)1 << rows) - 1);
}

bool sti_sparse_matches(const strata_world_t *w, uint32_t q, const sti_table_t *t, uint32_t row) {
    const sti_sparse_terms_t *terms = sti_sparse_terms(w, q);
    if (terms == NULL) {
        return true;
    }
    uint64_t held = sti_sparse_held(w, t, row);
    return (terms->all & ~held) == 0 && (terms->none & held) == 0;
}

uint32_t sti_sparse_count(const strata_world_t *w, const sti_table_t *t, const sti_sparse_terms_t *terms) {
    uint32_t n = 0;
    for (uint32_t i = 0, words = sti_sparse_may_match(t, terms) ? (t->count + 63) / 64 : 0; i < words; i++) {
        n += (uint32_t)__builtin_popcountll(sti_sparse_word(w, t, terms, 0, i, t->count));
    }
    return n;
}

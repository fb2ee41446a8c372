/* table.c: archetype tables and their column storage, the table hash by
 * mask, and the archetype graph's edges. */
#include "strata_internal.h"

#include <stdint.h>

/* x rounded up to a multiple of a (a power of two). */
static size_t table_align_up(size_t x, size_t a) {
    return (x + a - 1) & ~(a - 1);
}

/* A well-mixed hash of the mask's first `words` words. */
static uint64_t table_hash_mask(const strata_mask_t *m, uint32_t words) {
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (uint32_t i = 0; i < words; i++) {
        h ^= m->bits[i];
        h *= 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    h *= 0xc4ceb9fe1a85ec53u;
    return h ^ (h >> 29);
}

/* True if a and b agree on their first `words` words. */
static bool table_mask_equal(const strata_mask_t *a, const strata_mask_t *b, uint32_t words) {
    for (uint32_t i = 0; i < words; i++) {
        if (a->bits[i] != b->bits[i]) {
            return false;
        }
    }
    return true;
}

/* The slot of `mask` in a hash of `cap` slots: its table's, or the empty
 * slot where it would go. */
static uint32_t table_hash_slot(const strata_world_t *w, const uint16_t *hash, uint32_t cap,
                                const strata_mask_t *mask) {
    uint32_t i = (uint32_t)table_hash_mask(mask, w->mask_words) & (cap - 1);
    while (hash[i] != STI_NO_TABLE && !table_mask_equal(&w->tables[hash[i]]->mask, mask, w->mask_words)) {
        i = (i + 1) & (cap - 1);
    }
    return i;
}

/* Make the hash hold one more table at load <= 1/2 (rehashing into a new
 * array, so a failure changes nothing). */
static strata_result_t table_hash_reserve(strata_world_t *w) {
    if (((size_t)w->table_count + 1) * 2 <= w->hash_capacity) {
        return STRATA_OK;
    }
    uint32_t cap = w->hash_capacity ? w->hash_capacity * 2 : 32;
    uint16_t *hash = sti_mem_alloc(w, sizeof(uint16_t) * cap);
    if (hash == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memset(hash, 0xff, sizeof(uint16_t) * cap);
    for (uint32_t t = 0; t < w->table_count; t++) {
        hash[table_hash_slot(w, hash, cap, &w->tables[t]->mask)] = (uint16_t)t;
    }
    sti_mem_free(w, w->table_hash, sizeof(uint16_t) * w->hash_capacity);
    w->table_hash = hash;
    w->hash_capacity = cap;
    return STRATA_OK;
}

/* Make the tables array hold one more table. */
static strata_result_t table_array_reserve(strata_world_t *w) {
    if (w->table_count < w->table_capacity) {
        return STRATA_OK;
    }
    uint32_t cap = w->table_capacity ? w->table_capacity * 2 : 16;
    sti_table_t **tables = sti_mem_realloc(w, w->tables, sizeof(sti_table_t *) * w->table_capacity,
                                                 sizeof(sti_table_t *) * cap);
    if (tables == NULL) {
        return STRATA_ERR_NOMEM;
    }
    w->tables = tables;
    w->table_capacity = cap;
    return STRATA_OK;
}

/* Create the table of `mask` (not present yet). Every allocation comes
 * before the first change, and those that succeed before one fails only
 * add capacity, so a failure leaves the world as it was. */
static strata_result_t table_create(strata_world_t *w, const strata_mask_t *mask, sti_table_t **out) {
    if (w->table_count >= w->table_limit) {
        return STRATA_ERR_LIMIT;
    }
    strata_result_t r = table_array_reserve(w);
    if (r == STRATA_OK) {
        r = table_hash_reserve(w);
    }
    if (r == STRATA_OK) {
        r = sti_query_reserve(w, mask);
    }
    if (r != STRATA_OK) {
        return r;
    }
    uint32_t cc = w->component_count;
    uint32_t ids = w->column_id_count; /* components, then aspects */
    uint32_t ncols = 0;
    for (uint32_t c = 0; c < ids; c++) {
        ncols += strata_mask_test(mask, c) && w->components[c].size > 0;
    }
    /* One allocation: the struct and its edges, the dense list, the columns by id. */
    size_t at_dense =
        table_align_up(sizeof(sti_table_t) + sizeof(sti_edge_t) * 2 * cc, _Alignof(sti_column_t));
    size_t at_columns = table_align_up(at_dense + sizeof(sti_column_t) * ncols, _Alignof(void *));
    size_t size = at_columns + sizeof(void *) * ids;
    unsigned char *mem = sti_mem_alloc(w, size);
    if (mem == NULL) {
        return STRATA_ERR_NOMEM;
    }
    sti_table_t *t = (sti_table_t *)(void *)mem;
    memset(t, 0, sizeof *t);
    t->mask = *mask;
    t->id = w->table_count;
    t->column_count = ncols;
    t->alloc_size = size;
    t->columns = (void **)(void *)(mem + at_columns);
    t->dense = (sti_column_t *)(void *)(mem + at_dense);
    for (uint32_t c = 0, i = 0; c < ids; c++) {
        t->columns[c] = NULL;
        if (strata_mask_test(mask, c) && w->components[c].size > 0) {
            t->dense[i++] = (sti_column_t){NULL, w->components[c].size, c, NULL, 0};
            if (w->components[c].size > t->max_size) {
                t->max_size = w->components[c].size;
            }
        }
    }
    for (uint32_t c = 0; c < 2 * cc; c++) {
        t->edges[c] = (sti_edge_t){NULL, STI_NO_HOLE, false};
    }
    sti_table_classify(w, t);
    w->tables[w->table_count++] = t;
    w->table_hash[table_hash_slot(w, w->table_hash, w->hash_capacity, mask)] = (uint16_t)t->id;
    sti_query_register(w, t);
    *out = t;
    return STRATA_OK;
}

/* The table of mask (its aspect bits made to follow its components): the
 * last one found, else the hash, else a new one. */
strata_result_t sti_table_ensure(strata_world_t *w, const strata_mask_t *components, sti_table_t **out) {
    strata_mask_t canonical = *components;
    sti_mask_normalize(w, &canonical);
    const strata_mask_t *mask = &canonical;
    sti_table_t *t = w->last_found;
    if (t != NULL && table_mask_equal(&t->mask, mask, w->mask_words)) {
        *out = t;
        return STRATA_OK;
    }
    if (w->hash_capacity > 0) {
        uint16_t id = w->table_hash[table_hash_slot(w, w->table_hash, w->hash_capacity, mask)];
        if (id != STI_NO_TABLE) {
            *out = w->last_found = w->tables[id];
            return STRATA_OK;
        }
    }
    strata_result_t r = table_create(w, mask, &t);
    if (r == STRATA_OK) {
        *out = w->last_found = t;
    }
    return r;
}

/* The index of c's column in t's dense list, or STI_NO_HOLE for a tag. */
static uint32_t table_dense_index(const sti_table_t *t, uint32_t c) {
    for (uint32_t i = 0; i < t->column_count; i++) {
        if (t->dense[i].id == c) {
            return i;
        }
    }
    return STI_NO_HOLE;
}

/* Find or create src's neighbour by c and cache the edge both ways. */
strata_result_t sti_table_edge(strata_world_t *w, sti_table_t *src, uint32_t c, bool add, sti_edge_t *out) {
    strata_mask_t mask = src->mask;
    if (add) {
        strata_mask_set(&mask, c);
    } else {
        strata_mask_clear(&mask, c);
    }
    sti_table_t *dst = NULL;
    strata_result_t r = sti_table_ensure(w, &mask, &dst);
    if (r != STRATA_OK) {
        return r;
    }
    /* The hole is an index in the larger table of the two, so one value serves both directions. */
    uint32_t hole = table_dense_index(add ? dst : src, c);
    uint32_t cc = w->component_count;
    /* Hooks or aspects on the way make both directions general. */
    bool general = sti_move_is_general(w, src, dst);
    if (add) {
        src->edges[c] = (sti_edge_t){dst, hole, general};
        dst->edges[cc + c] = (sti_edge_t){src, hole, general};
    } else {
        src->edges[cc + c] = (sti_edge_t){dst, hole, general};
        dst->edges[c] = (sti_edge_t){src, hole, general};
    }
    if (out != NULL) {
        *out = (sti_edge_t){dst, hole, general};
    }
    return STRATA_OK;
}

/* Bytes to allocate for `cap` elements of a column (with room to align the
 * start beyond the 8 bytes the allocator guarantees); 0 on overflow. */
static size_t table_column_bytes(const strata_world_t *w, const sti_column_t *col, size_t cap) {
    size_t align = w->components[col->id].align;
    size_t slack = align > 8 ? align - 1 : 0;
    if (cap > (SIZE_MAX / 2 - slack) / col->size) {
        return 0;
    }
    return cap * col->size + slack;
}

/* Grow one column's allocation to `bytes` (keeping its `count` elements at
 * an aligned start). On failure the column is as it was. */
static strata_result_t table_column_grow(strata_world_t *w, sti_table_t *t, sti_column_t *col, size_t bytes) {
    size_t offset = col->raw != NULL ? (size_t)(col->data - (unsigned char *)col->raw) : 0;
    unsigned char *raw = sti_mem_realloc(w, col->raw, col->raw_size, bytes);
    if (raw == NULL) {
        return STRATA_ERR_NOMEM;
    }
    size_t align = w->components[col->id].align;
    size_t aligned = align > 8 ? (((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1)) - (uintptr_t)raw : 0;
    if (aligned != offset && t->count > 0) {
        /* realloc kept the bytes but not the alignment: slide them into place. */
        memmove(raw + aligned, raw + offset, (size_t)col->size * t->count);
    }
    col->raw = raw;
    col->raw_size = bytes;
    col->data = raw + aligned;
    t->columns[col->id] = col->data;
    return STRATA_OK;
}

/* Room for `extra` more rows in every column; NOMEM leaves the table usable as it was. */
strata_result_t sti_table_reserve(strata_world_t *w, sti_table_t *t, uint32_t extra) {
    if (extra <= t->capacity - t->count) {
        return STRATA_OK;
    }
    if (extra > UINT32_MAX - t->count) {
        return STRATA_ERR_NOMEM;
    }
    uint64_t need = (uint64_t)t->count + extra;
    uint64_t cap = t->capacity ? (uint64_t)t->capacity * 2 : 8;
    if (cap < need) {
        cap = need;
    }
    if (cap > UINT32_MAX) {
        cap = UINT32_MAX;
    }
    if (cap > SIZE_MAX / 2 / sizeof(strata_entity_t)) {
        return STRATA_ERR_NOMEM;
    }
    /* Each allocation grows on its own; one that grew before another failed
     * only holds more room than the table uses, and the next try keeps it. */
    size_t bytes = sizeof(strata_entity_t) * (size_t)cap;
    if (t->entities_size < bytes) {
        strata_entity_t *entities = sti_mem_realloc(w, t->entities, t->entities_size, bytes);
        if (entities == NULL) {
            return STRATA_ERR_NOMEM;
        }
        t->entities = entities;
        t->entities_size = bytes;
    }
    for (uint32_t i = 0; i < t->column_count; i++) {
        sti_column_t *col = &t->dense[i];
        bytes = table_column_bytes(w, col, (size_t)cap);
        if (bytes == 0) {
            return STRATA_ERR_NOMEM;
        }
        if (col->raw_size < bytes) {
            strata_result_t r = table_column_grow(w, t, col, bytes);
            if (r != STRATA_OK) {
                return r;
            }
        }
    }
    t->capacity = (uint32_t)cap;
    return STRATA_OK;
}

/* Free a table's columns and the table. */
void sti_table_free(strata_world_t *w, sti_table_t *t) {
    sti_mem_free(w, t->entities, t->entities_size);
    for (uint32_t i = 0; i < t->column_count; i++) {
        sti_mem_free(w, t->dense[i].raw, t->dense[i].raw_size);
    }
    sti_mem_free(w, t, t->alloc_size);
}

/* The column work of a move between tables that differ by one component
 * (its column, if any, at `hole` in the larger one); `add` and `small`
 * are constants in each caller below, so each gets its own tight loop. */
STI_HOT void table_columns_move(const sti_table_t *src, const sti_table_t *dst, uint32_t hole,
                                   uint32_t row, bool add, bool small) {
    const sti_column_t *s = src->dense;
    const sti_column_t *end = s + src->column_count;
    const sti_column_t *d = dst->dense;
    /* The column only the larger table has; the walk steps over it. */
    const sti_column_t *skip = hole == STI_NO_HOLE ? NULL : (add ? d : s) + hole;
    size_t from = row;
    size_t last = src->count;
    size_t to = dst->count - 1;
    for (const sti_column_t *c = s; c < end; c++) {
        if (add && d == skip) {
            d++;
        }
        if (add || c != skip) {
            sti_copy_move(d->data + to * c->size, c->data + from * c->size, c->size, small);
            d++;
        }
    }
    if (from != last) {
        for (const sti_column_t *c = s; c < end; c++) {
            sti_copy_move(c->data + from * c->size, c->data + last * c->size, c->size, small);
        }
    }
}

/* Column work of an add-edge move, small columns (see strata_internal.h). */
void sti_columns_add_small(const sti_table_t *src, const sti_table_t *dst, uint32_t hole, uint32_t row) {
    table_columns_move(src, dst, hole, row, true, true);
}

/* Column work of an add-edge move, with a column above STI_SMALL_SIZE. */
void sti_columns_add_large(const sti_table_t *src, const sti_table_t *dst, uint32_t hole, uint32_t row) {
    table_columns_move(src, dst, hole, row, true, false);
}

/* Column work of a remove-edge move, small columns. */
void sti_columns_remove_small(const sti_table_t *src, const sti_table_t *dst, uint32_t hole, uint32_t row) {
    table_columns_move(src, dst, hole, row, false, true);
}

/* Column work of a remove-edge move, with a column above STI_SMALL_SIZE. */
void sti_columns_remove_large(const sti_table_t *src, const sti_table_t *dst, uint32_t hole, uint32_t row) {
    table_columns_move(src, dst, hole, row, false, false);
}

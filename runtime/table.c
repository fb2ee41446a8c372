/* table.c: one archetype's storage: allocating a table, growing its
 * columns, filling new rows. */
#include "table.h"

/* x rounded up to a multiple of a (a power of two). */
static size_t table_align_up(size_t x, size_t a) {
    return (x + a - 1) & ~(a - 1);
}

/* One allocation: the struct and its edges, the dense list, the columns by
 * id, the listings. */
sti_table_t *sti_table_alloc(strata_world_t *w, const strata_mask_t *mask, uint32_t id) {
    uint32_t cc = w->component_count;
    uint32_t ids = w->column_id_count; /* components, then aspects */
    uint32_t ncols = 0;
    for (uint32_t c = 0; c < ids; c++) {
        ncols += strata_mask_test(mask, c) && w->components[c].size > 0;
    }
    uint32_t nlist = 0;
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        nlist += sti_query_matches(w, q, mask);
    }
    size_t at_dense = table_align_up(sizeof(sti_table_t) + sizeof(sti_edge_t) * 2 * cc, _Alignof(sti_column_t));
    size_t at_columns = table_align_up(at_dense + sizeof(sti_column_t) * ncols, _Alignof(void *));
    size_t at_listings = table_align_up(at_columns + sizeof(void *) * ids, _Alignof(sti_listing_t));
    size_t size = at_listings + sizeof(sti_listing_t) * nlist;
    unsigned char *mem = sti_mem_alloc(w, size);
    if (mem == NULL) {
        return NULL;
    }
    sti_table_t *t = (sti_table_t *)(void *)mem;
    memset(t, 0, sizeof *t);
    t->mask = *mask;
    t->id = id;
    t->column_count = ncols;
    t->alloc_size = size;
    t->columns = (void **)(void *)(mem + at_columns);
    t->dense = (sti_column_t *)(void *)(mem + at_dense);
    t->listings = (sti_listing_t *)(void *)(mem + at_listings);
    t->listing_count = nlist;
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
        t->edges[c] = (sti_edge_t){NULL, NULL, STI_NO_HOLE, false, false};
    }
    return t;
}

/* The size class of an element size. */
static uint32_t table_plan_class(uint32_t size) {
    switch (size) {
    case 4: return STI_PLAN_4;
    case 8: return STI_PLAN_8;
    case 12: return STI_PLAN_12;
    case 16: return STI_PLAN_16;
    default: return STI_PLAN_ANY;
    }
}

sti_plan_t *sti_plan_make(strata_world_t *w, const sti_table_t *src, const sti_table_t *dst) {
    uint32_t n = src->column_count < dst->column_count ? src->column_count : dst->column_count;
    size_t size = sizeof(sti_plan_t) + sizeof(sti_plan_pair_t) * n;
    sti_plan_t *p = sti_mem_alloc(w, size);
    if (p == NULL) {
        return NULL;
    }
    memset(p, 0, sizeof *p);
    p->alloc_size = size;
    /* Both dense lists ascend by id: one merge finds the pairs, which a
     * stable pass per class then lays out class by class. */
    for (uint32_t i = 0; i < src->column_count; i++) {
        if (!strata_mask_test(&dst->mask, src->dense[i].id)) {
            p->dropped = &src->dense[i];
        } else {
            p->count[table_plan_class(src->dense[i].size)]++;
        }
    }
    uint32_t uniform = STI_PLAN_ANY; /* the class of every pair if they share one */
    for (uint32_t k = 0; k < STI_PLAN_ANY; k++) {
        if (p->count[k] > 0 && p->count[k] == n) {
            uniform = k;
        }
    }
    uint32_t at = 0;
    for (uint32_t k = 0; k < STI_PLAN_CLASSES; k++) {
        for (uint32_t i = 0, j = 0; i < src->column_count; i++) {
            const sti_column_t *s = &src->dense[i];
            if (s == p->dropped) {
                continue;
            }
            while (dst->dense[j].id != s->id) {
                j++;
            }
            if (table_plan_class(s->size) == k) {
                p->pairs[at++] = (sti_plan_pair_t){s, &dst->dense[j]};
            }
        }
    }
    p->total = at;
    p->copier = STI_PLAN_COPIER(uniform, at);
    return p;
}

/* Free a table's columns, its edges' plans and the table. */
void sti_table_free(strata_world_t *w, sti_table_t *t) {
    for (uint32_t c = 0; c < 2 * w->component_count; c++) {
        if (t->edges[c].plan != NULL) {
            sti_mem_free(w, t->edges[c].plan, t->edges[c].plan->alloc_size);
        }
    }
    sti_mem_free(w, t->entities, t->entities_size);
    sti_mem_free(w, t->marks, sizeof(uint64_t) * w->mark_planes * t->mark_words);
    for (uint32_t i = 0; i < t->column_count; i++) {
        sti_mem_free(w, t->dense[i].raw, t->dense[i].raw_size);
    }
    sti_mem_free(w, t, t->alloc_size);
}

/* Room to align the start beyond the 8 bytes the allocator guarantees. */
size_t sti_column_bytes(const strata_world_t *w, const sti_column_t *col, size_t cap) {
    size_t align = w->components[col->id].align;
    size_t slack = align > 8 ? align - 1 : 0;
    if (cap > (SIZE_MAX / 2 - slack) / col->size) {
        return 0;
    }
    return cap * col->size + slack;
}

/* realloc, then slide the elements into place if the alignment moved. */
strata_result_t sti_column_grow(strata_world_t *w, sti_column_t *col, size_t bytes, uint32_t count) {
    size_t offset = col->raw != NULL ? (size_t)(col->data - (unsigned char *)col->raw) : 0;
    unsigned char *raw = sti_mem_realloc(w, col->raw, col->raw_size, bytes);
    if (raw == NULL) {
        return STRATA_ERR_NOMEM;
    }
    size_t align = w->components[col->id].align;
    size_t aligned = align > 8 ? (((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1)) - (uintptr_t)raw : 0;
    if (aligned != offset && count > 0) {
        /* realloc kept the bytes but not the alignment: slide them into place. */
        memmove(raw + aligned, raw + offset, (size_t)col->size * count);
    }
    col->raw = raw;
    col->raw_size = bytes;
    col->data = raw + aligned;
    return STRATA_OK;
}

/* The changed sets' bitmaps to hold `cap` rows, each plane moved to its
 * new place (the highest first: they only move up) and its new words zeroed. */
static strata_result_t table_marks_grow(strata_world_t *w, sti_table_t *t, size_t cap) {
    size_t words = (cap + 63) / 64, old = t->mark_words, planes = w->mark_planes;
    if (planes == 0 || words <= old) {
        return STRATA_OK;
    }
    uint64_t *marks = sti_mem_realloc(w, t->marks, sizeof(uint64_t) * planes * old, sizeof(uint64_t) * planes * words);
    if (marks == NULL) {
        return STRATA_ERR_NOMEM;
    }
    for (size_t p = planes; p-- > 0;) {
        memmove(marks + p * words, marks + p * old, sizeof(uint64_t) * old);
        memset(marks + p * words + old, 0, sizeof(uint64_t) * (words - old));
    }
    t->marks = marks;
    t->mark_words = (uint32_t)words;
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
    size_t cap = sti_grow_capacity(t->capacity, (size_t)t->count + extra, 8, UINT32_MAX);
    if (cap > SIZE_MAX / 2 / sizeof(strata_entity_t)) {
        return STRATA_ERR_NOMEM;
    }
    /* Each allocation grows on its own; one that grew before another failed
     * only holds more room than the table uses, and the next try keeps it. */
    size_t bytes = sizeof(strata_entity_t) * cap;
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
        bytes = sti_column_bytes(w, col, cap);
        if (bytes == 0) {
            return STRATA_ERR_NOMEM;
        }
        if (col->raw_size < bytes) {
            strata_result_t r = sti_column_grow(w, col, bytes, t->count);
            if (r != STRATA_OK) {
                return r;
            }
            t->columns[col->id] = col->data;
        }
    }
    strata_result_t r = table_marks_grow(w, t, cap);
    if (r != STRATA_OK) {
        return r;
    }
    t->capacity = (uint32_t)cap;
    t->room = t->count > 0 ? t->capacity : 0;
    return STRATA_OK;
}

void sti_table_touch(const sti_table_t *t) {
    size_t unused = (size_t)t->capacity - t->count;
    if (unused == 0) {
        return; /* (and no array may exist yet) */
    }
    sti_mem_touch((unsigned char *)(t->entities + t->count), sizeof(strata_entity_t) * unused);
    for (uint32_t i = 0; i < t->column_count; i++) {
        const sti_column_t *col = &t->dense[i];
        sti_mem_touch(col->data + (size_t)t->count * col->size, (size_t)col->size * unused);
    }
}

/* Copy `size` bytes at `value` into n consecutive elements at dst, doubling
 * the copied run so large fills are a few big memcpys, not n small ones. */
static void table_fill_run(unsigned char *dst, const void *value, size_t size, size_t n) {
    /* Runs stop growing at about 16 KiB so the source stays in cache. */
    size_t cap = 16384 / size > 0 ? 16384 / size : 1;
    memcpy(dst, value, size);
    size_t done = 1;
    while (done < n) {
        size_t m = done < cap ? done : cap;
        if (m > n - done) {
            m = n - done;
        }
        memcpy(dst + done * size, dst, m * size);
        done += m;
    }
}

/* Each column of ids: one value write for one row, else a run of copies (or zeros). */
void sti_table_fill(const strata_world_t *w, const sti_table_t *t, uint32_t row, uint32_t n, uint32_t k,
                    const uint32_t *ids, const void *const *values) {
    if (n == 1) {
        sti_table_write(w, t, row, k, ids, values);
        return;
    }
    for (uint32_t i = 0; i < k; i++) {
        uint32_t c = ids[i];
        unsigned char *col = t->columns[c];
        if (col == NULL) {
            continue;
        }
        size_t size = w->components[c].size;
        const void *value = values != NULL ? values[i] : NULL;
        if (value == NULL) {
            value = w->components[c].defaults;
        }
        if (value != NULL) {
            table_fill_run(col + row * size, value, size, n);
        } else {
            memset(col + row * size, 0, size * n);
        }
    }
}

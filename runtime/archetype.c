/* archetype.c: the table set (hash by mask), creating and classifying
 * tables, and the archetype graph's edges. */
#include "archetype.h"

/* A well-mixed hash of the mask's first `words` words. */
static uint64_t archetype_hash_mask(const strata_mask_t *m, uint32_t words) {
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (uint32_t i = 0; i < words; i++) {
        h ^= m->bits[i];
        h *= 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    h *= 0xc4ceb9fe1a85ec53u;
    return h ^ (h >> 29);
}

/* The slot of `mask` in a hash of `cap` slots: its table's, or the empty
 * slot where it would go. */
static uint32_t archetype_slot(const strata_world_t *w, const uint16_t *hash, uint32_t cap, const strata_mask_t *mask) {
    uint32_t i = (uint32_t)archetype_hash_mask(mask, w->mask_words) & (cap - 1);
    while (hash[i] != STI_NO_TABLE && !sti_mask_equal(&w->tables[hash[i]]->mask, mask, w->mask_words)) {
        i = (i + 1) & (cap - 1);
    }
    return i;
}

/* The slot that holds table id `id` (in the hash: its mask is m). */
static uint32_t archetype_slot_of(const strata_world_t *w, const strata_mask_t *m, uint32_t id) {
    uint32_t cap = w->hash_capacity;
    uint32_t i = (uint32_t)archetype_hash_mask(m, w->mask_words) & (cap - 1);
    while (w->table_hash[i] != id) {
        i = (i + 1) & (cap - 1);
    }
    return i;
}

/* Take table id `id` (mask m) out of the hash, moving the entries after it
 * in its run back so that every probe still finds its table (linear
 * probing's deletion). */
static void archetype_hash_delete(strata_world_t *w, const strata_mask_t *m, uint32_t id) {
    uint32_t cap = w->hash_capacity;
    uint16_t *hash = w->table_hash;
    uint32_t hole = archetype_slot_of(w, m, id);
    hash[hole] = STI_NO_TABLE;
    for (uint32_t j = (hole + 1) & (cap - 1); hash[j] != STI_NO_TABLE; j = (j + 1) & (cap - 1)) {
        uint32_t home = (uint32_t)archetype_hash_mask(&w->tables[hash[j]]->mask, w->mask_words) & (cap - 1);
        /* The entry at j stays if its home lies cyclically in (hole, j]. */
        bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!stays) {
            hash[hole] = hash[j];
            hash[j] = STI_NO_TABLE;
            hole = j;
        }
    }
}

/* Make the hash hold one more table at load <= 1/2 (rehashing into a new
 * array, so a failure changes nothing). */
static strata_result_t archetype_hash_reserve(strata_world_t *w) {
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
        hash[archetype_slot(w, hash, cap, &w->tables[t]->mask)] = (uint16_t)t;
    }
    sti_mem_free(w, w->table_hash, sizeof(uint16_t) * w->hash_capacity);
    w->table_hash = hash;
    w->hash_capacity = cap;
    return STRATA_OK;
}

/* Aspect bits follow from the component bits: set those of the monitored queries matched. */
static void archetype_normalize(const strata_world_t *w, strata_mask_t *mask) {
    for (uint32_t id = w->component_count; id < w->column_id_count; id++) {
        strata_mask_clear(mask, id);
    }
    for (uint32_t k = 0; k < w->monitor_count; k++) {
        if (w->monitor_aspect[k] != UINT32_MAX && sti_query_matches(w, w->monitor_query[k], mask)) {
            strata_mask_set(mask, w->monitor_aspect[k]);
        }
    }
}

/* What a new table matches among monitors and dirty sets, and whether it has hooks. */
static void archetype_classify(const strata_world_t *w, sti_table_t *t) {
    for (uint32_t k = 0; k < w->monitor_count; k++) {
        if (sti_query_matches(w, w->monitor_query[k], &t->mask)) {
            t->monitors |= (uint64_t)1 << k;
        }
    }
    for (uint32_t q = 0; w->dirty_count > 0 && q < w->schema->query_count; q++) {
        if (w->query_dirty[q] != UINT32_MAX && sti_query_matches(w, q, &t->mask)) {
            t->tracked_by |= (uint64_t)1 << w->query_dirty[q];
        }
    }
    t->hooked = t->monitors != 0 || sti_mask_meets(&t->mask, &w->hooked);
}

/* --- The idle list: the tables without rows, oldest first ------------------ */

/* t (not the empty table) lost its last row, or was made: at the list's end. */
static void archetype_idle_add(strata_world_t *w, sti_table_t *t) {
    t->idle_since = w->table_clock;
    t->idle_next = NULL;
    t->idle_prev = w->idle_tail;
    if (w->idle_tail != NULL) {
        w->idle_tail->idle_next = t;
    } else {
        w->idle_head = t;
    }
    w->idle_tail = t;
}

void sti_table_idle_append(strata_world_t *w, sti_table_t *t) {
    archetype_idle_add(w, t);
}

/* t leaves the list (it has rows again, or is freed). */
static void archetype_idle_remove(strata_world_t *w, sti_table_t *t) {
    if (t->idle_prev != NULL) {
        t->idle_prev->idle_next = t->idle_next;
    } else {
        w->idle_head = t->idle_next;
    }
    if (t->idle_next != NULL) {
        t->idle_next->idle_prev = t->idle_prev;
    } else {
        w->idle_tail = t->idle_prev;
    }
    t->idle_prev = t->idle_next = NULL;
}

void sti_table_filled(strata_world_t *w, sti_table_t *t) {
    t->room = t->capacity;
    sti_query_filled(w, t);
    if (t->id != 0) {
        archetype_idle_remove(w, t);
    }
}

void sti_table_emptied(strata_world_t *w, sti_table_t *t) {
    t->room = 0;
    sti_query_emptied(w, t);
    if (t->id != 0) {
        archetype_idle_add(w, t);
    }
}

void sti_table_turned(strata_world_t *w, sti_table_t *src, sti_table_t *dst, uint32_t to) {
    if (src->count == 0) {
        sti_table_emptied(w, src);
    }
    if (to == 0) {
        sti_table_filled(w, dst);
    }
}

/* Create the table of `mask` (not present yet). Every allocation comes
 * before the first change, and those that succeed before one fails only
 * add capacity, so a failure leaves the world as it was. */
static strata_result_t archetype_create(strata_world_t *w, const strata_mask_t *mask, sti_table_t **out) {
    if (w->table_count >= w->table_limit) {
        return STRATA_ERR_LIMIT;
    }
    strata_result_t r = sti_mem_grow(w, &w->tables, sizeof(sti_table_t *), &w->table_capacity,
                                     (size_t)w->table_count + 1, 16);
    if (r == STRATA_OK) {
        r = archetype_hash_reserve(w);
    }
    if (r == STRATA_OK) {
        r = sti_query_reserve(w, mask);
    }
    if (r != STRATA_OK) {
        return r;
    }
    sti_table_t *t = sti_table_alloc(w, mask, w->table_count);
    if (t == NULL) {
        return STRATA_ERR_NOMEM;
    }
    archetype_classify(w, t);
    w->tables[w->table_count++] = t;
    w->table_hash[archetype_slot(w, w->table_hash, w->hash_capacity, mask)] = (uint16_t)t->id;
    sti_query_register(w, t);
    if (t->id != 0) {
        archetype_idle_add(w, t); /* idle until its first row */
    }
    *out = t;
    return STRATA_OK;
}

/* The table of mask (its aspect bits made to follow its components): the
 * last one found, else the hash, else a new one. */
sti_table_t *sti_table_find(const strata_world_t *w, const strata_mask_t *mask) {
    if (w->hash_capacity == 0) {
        return NULL;
    }
    uint16_t id = w->table_hash[archetype_slot(w, w->table_hash, w->hash_capacity, mask)];
    return id == STI_NO_TABLE ? NULL : w->tables[id];
}

strata_result_t sti_table_ensure(strata_world_t *w, const strata_mask_t *components, sti_table_t **out) {
    strata_mask_t canonical = *components;
    if (w->column_id_count != w->component_count) {
        archetype_normalize(w, &canonical);
    }
    const strata_mask_t *mask = &canonical;
    sti_table_t *t = w->last_found;
    if (t != NULL && sti_mask_equal(&t->mask, mask, w->mask_words)) {
        *out = t;
        return STRATA_OK;
    }
    t = sti_table_find(w, mask);
    if (t != NULL) {
        *out = w->last_found = t;
        return STRATA_OK;
    }
    strata_result_t r = archetype_create(w, mask, &t);
    if (r == STRATA_OK) {
        *out = w->last_found = t;
    }
    return r;
}

/* True if the components gained or lost between src and dst include a hooked one,
 * or the monitors matched differ. */
bool sti_move_is_hooked(const strata_world_t *w, const sti_table_t *src, const sti_table_t *dst) {
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

/* The index of c's column in t's dense list, or STI_NO_HOLE for a tag. */
static uint32_t archetype_dense_index(const sti_table_t *t, uint32_t c) {
    for (uint32_t i = 0; i < t->column_count; i++) {
        if (t->dense[i].id == c) {
            return i;
        }
    }
    return STI_NO_HOLE;
}

/* Free a plan (NULL: nothing). */
static void archetype_plan_free(strata_world_t *w, sti_plan_t *p) {
    if (p != NULL) {
        sti_mem_free(w, p, p->alloc_size);
    }
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
    uint32_t hole = archetype_dense_index(add ? dst : src, c);
    uint32_t cc = w->component_count;
    /* Hooks or aspects on the way make both directions hooked. */
    bool hooked = sti_move_is_hooked(w, src, dst);
    /* A hooked move copies by id (aspects may differ too): no plan. */
    sti_plan_t *there = NULL, *back = NULL;
    if (!hooked) {
        there = sti_plan_make(w, src, dst);
        back = there != NULL ? sti_plan_make(w, dst, src) : NULL;
        if (back == NULL) {
            archetype_plan_free(w, there);
            return STRATA_ERR_NOMEM;
        }
    }
    sti_edge_t *forward = &src->edges[add ? c : cc + c];
    sti_edge_t *reverse = &dst->edges[add ? cc + c : c];
    archetype_plan_free(w, forward->plan);
    archetype_plan_free(w, reverse->plan);
    /* The leaf path: in a world without changed sets or sparse components
     * (no marks, no bits to carry), an add that writes a small value; any
     * unhooked remove. */
    sti_table_t *larger = add ? dst : src;
    bool small = hole == STI_NO_HOLE || larger->dense[hole].size <= STI_SMALL_SIZE;
    bool bitless = w->mark_planes == 0;
    bool add_plain = !hooked && small && bitless;
    *forward = (sti_edge_t){dst, there, hole, hooked, add ? add_plain : !hooked && bitless};
    *reverse = (sti_edge_t){src, back, hole, hooked, add ? !hooked && bitless : add_plain};
    if (out != NULL) {
        *out = *forward;
    }
    return STRATA_OK;
}

/* --- Freeing tables -------------------------------------------------------- */

/* Forget the edge slot of `n` that leads back to t along component c (`add`: n has c, t lacks it). */
static void archetype_edge_forget(strata_world_t *w, sti_table_t *n, uint32_t c, bool add, const sti_table_t *t) {
    sti_edge_t *back = &n->edges[add ? w->component_count + c : c];
    if (back->table == t) {
        archetype_plan_free(w, back->plan);
        *back = (sti_edge_t){NULL, NULL, STI_NO_HOLE, false, false};
    }
}

void sti_table_unlink(strata_world_t *w, sti_table_t *t) {
    STRATA_ASSERT(t->count == 0 && t->id != 0 && t->id != STI_NO_TABLE);
    archetype_hash_delete(w, &t->mask, t->id);
    sti_query_unregister(w, t);
    uint32_t cc = w->component_count;
    for (uint32_t c = 0; c < cc; c++) {
        if (t->edges[c].table != NULL) {
            archetype_edge_forget(w, t->edges[c].table, c, true, t);
        }
        if (t->edges[cc + c].table != NULL) {
            archetype_edge_forget(w, t->edges[cc + c].table, c, false, t);
        }
    }
    archetype_idle_remove(w, t);
    if (w->last_found == t) {
        w->last_found = NULL;
    }
    t->id = STI_NO_TABLE;
}

uint32_t sti_table_renumber(strata_world_t *w) {
    uint32_t n = w->table_count, freed = 0;
    for (uint32_t i = 0; i < n; i++) {
        freed += w->tables[i]->id == STI_NO_TABLE;
    }
    uint32_t left = n - freed, hole = 0;
    for (uint32_t i = left; i < n; i++) {
        sti_table_t *t = w->tables[i];
        if (t->id == STI_NO_TABLE) {
            continue;
        }
        while (w->tables[hole]->id != STI_NO_TABLE) {
            hole++; /* a hole below `left` for each table kept above it */
        }
        w->table_hash[archetype_slot_of(w, &t->mask, i)] = (uint16_t)hole;
        for (uint32_t row = 0; row < t->count; row++) {
            w->records[(uint32_t)t->entities[row]].table = (uint16_t)hole;
        }
        t->id = hole++;
    }
    return left;
}

void sti_table_compact(strata_world_t *w, uint32_t left) {
    uint32_t n = w->table_count;
    for (uint32_t i = 0; i < n; i++) {
        if (w->tables[i]->id == STI_NO_TABLE) {
            sti_table_free(w, w->tables[i]);
            w->tables[i] = NULL;
        }
    }
    for (uint32_t i = left; i < n; i++) {
        if (w->tables[i] != NULL) {
            w->tables[w->tables[i]->id] = w->tables[i];
        }
    }
    w->table_count = left;
    w->table_epoch++;
}

void sti_table_order(strata_world_t *w) {
    memset(w->table_hash, 0xff, sizeof(uint16_t) * w->hash_capacity);
    for (uint32_t i = 0; i < w->table_count; i++) {
        w->tables[i]->id = i;
        w->table_hash[archetype_slot(w, w->table_hash, w->hash_capacity, &w->tables[i]->mask)] = (uint16_t)i;
    }
    w->last_found = NULL;
    w->table_epoch++;
}

/* Every table, then the arrays that index them. */
void sti_archetype_free(strata_world_t *w) {
    for (uint32_t i = 0; i < w->table_count; i++) {
        sti_table_free(w, w->tables[i]);
    }
    sti_mem_free(w, w->tables, sizeof(sti_table_t *) * w->table_capacity);
    sti_mem_free(w, w->table_hash, sizeof(uint16_t) * w->hash_capacity);
}

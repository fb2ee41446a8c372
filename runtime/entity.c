/* entity.c: entity ids (index + generation, LIFO reuse of freed indices),
 * creation one by one and in bulk, destruction. */
#include "strata_internal.h"

#include <stdint.h>

/* Copy `size` bytes at `value` into n consecutive elements at dst, doubling
 * the copied run so large fills are a few big memcpys, not n small ones. */
static void entity_fill(unsigned char *dst, const void *value, size_t size, size_t n) {
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

/* Room for `fresh` more records, growing geometrically; NOMEM changes nothing. */
strata_result_t sti_records_reserve(strata_world_t *w, uint32_t fresh) {
    uint64_t need = (uint64_t)w->record_count + fresh;
    if (need <= w->record_capacity) {
        return STRATA_OK;
    }
    uint64_t cap = (uint64_t)w->record_capacity * 2;
    if (cap < need) {
        cap = need;
    }
    if (cap > (uint64_t)w->entity_limit && need <= w->entity_limit) {
        cap = w->entity_limit; /* no point holding records no index can use */
    }
    if (cap > SIZE_MAX / sizeof(sti_record_t) || cap > UINT32_MAX) {
        return STRATA_ERR_NOMEM;
    }
    /* Dirty sets hold an entry per index: they grow first, so marking never allocates. */
    strata_result_t r = sti_dirty_reserve(w, (uint32_t)cap);
    if (r != STRATA_OK) {
        return r;
    }
    sti_record_t *records = sti_mem_realloc(w, w->records, sizeof(sti_record_t) * w->record_capacity,
                                                  sizeof(sti_record_t) * (size_t)cap);
    if (records == NULL) {
        return STRATA_ERR_NOMEM;
    }
    w->records = records;
    w->record_capacity = (uint32_t)cap;
    return STRATA_OK;
}

/* A new index for one entity at the end of t (row and record reserved):
 * the most recently freed one, else a fresh one. */
STI_HOT strata_entity_t entity_place_one(strata_world_t *w, sti_table_t *t) {
    uint32_t row = t->count++;
    uint32_t index = w->free_head;
    sti_record_t *rec;
    if (index != STI_NO_INDEX) {
        rec = &w->records[index];
        w->free_head = rec->row;
        w->free_count--;
    } else {
        index = w->record_count++;
        rec = &w->records[index];
        rec->generation = 1;
    }
    rec->row = row;
    rec->table = (uint16_t)t->id;
    rec->flags = 0;
    w->alive++;
    return t->entities[row] = sti_entity_make(index, rec->generation);
}

/* New indices for n entities at the end of t (rows and records reserved):
 * freed indices first, most recently freed first, then fresh ones. */
static void entity_place(strata_world_t *w, sti_table_t *t, uint32_t n, strata_entity_t *out) {
    uint32_t row = t->count;
    uint16_t tid = (uint16_t)t->id;
    sti_record_t *records = w->records;
    strata_entity_t *handles = t->entities + row;
    /* Locals, not fields: the stores below could alias the fields, the
     * locals stay in registers. */
    uint32_t head = w->free_head;
    uint32_t i = 0;
    for (; i < n && head != STI_NO_INDEX; i++) {
        sti_record_t *rec = &records[head];
        uint32_t next = rec->row;
        *rec = (sti_record_t){row + i, rec->generation, tid, 0};
        handles[i] = out[i] = sti_entity_make(head, rec->generation);
        head = next;
    }
    w->free_head = head;
    w->free_count -= i;
    uint32_t base = w->record_count - i; /* so base + j is the fresh index of the j-th entity */
    for (uint32_t j = i; j < n; j++) {
        records[base + j] = (sti_record_t){row + j, 1, tid, 0};
        handles[j] = out[j] = sti_entity_make(base + j, 1);
    }
    w->record_count += n - i;
    t->count += n;
    w->alive += n;
}

/* A new entity in the empty table, at once even while deferred. */
strata_result_t strata_entity_create(strata_world_t *w, strata_entity_t *out) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(out != NULL);
    *out = STRATA_ENTITY_NULL;
    sti_table_t *empty = w->tables[0];
    if (w->free_count == 0) {
        if (w->record_count >= w->entity_limit) {
            return STRATA_ERR_LIMIT;
        }
        if (w->record_count == w->record_capacity) {
            strata_result_t r = sti_records_reserve(w, 1);
            if (r != STRATA_OK) {
                return r;
            }
        }
    }
    if (empty->count == empty->capacity) {
        strata_result_t r = sti_table_reserve(w, empty, 1);
        if (r != STRATA_OK) {
            return r;
        }
    }
    *out = entity_place_one(w, empty);
    return STRATA_OK;
}

/* Fill the new rows [row, row + n) of t, whose columns are those of ids
 * (k entries; tags have none), from values (NULL: defaults, else zeros). */
static void entity_fill_columns(strata_world_t *w, sti_table_t *t, uint32_t row, uint32_t n, uint32_t k,
                                const uint32_t *ids, const void *const *values) {
    for (uint32_t i = 0; i < k; i++) {
        uint32_t c = ids[i];
        unsigned char *col = t->columns[c];
        if (col == NULL) {
            continue;
        }
        size_t size = w->components[c].size;
        const void *value = values != NULL ? values[i] : NULL;
        if (n == 1) {
            sti_value_write(w, col + row * size, c, value);
            continue;
        }
        if (value == NULL) {
            value = w->components[c].defaults;
        }
        if (value != NULL) {
            entity_fill(col + row * size, value, size, n);
        } else {
            memset(col + row * size, 0, size * n);
        }
    }
}

/* One new entity with components, outside deferral: the common spawn. The
 * table is found by the last-table cache when the same set was placed
 * before (no mask copy, no hash), and room is checked inline; anything else
 * takes the general path. Returns false to ask for it (nothing changed). */
static bool entity_create_one(strata_world_t *w, const strata_mask_t *mask, uint32_t k, const uint32_t *ids,
                              const void *const *values, strata_entity_t *out) {
    sti_table_t *t = w->last_found;
    if (t == NULL || t->count == t->capacity || (w->free_count == 0 && w->record_count == w->record_capacity) ||
        (w->free_count == 0 && w->record_count >= w->entity_limit)) {
        return false;
    }
    for (uint32_t i = 0; i < w->mask_words; i++) {
        if (t->mask.bits[i] != mask->bits[i]) {
            return false; /* another set, or one with aspect columns: the general path normalizes */
        }
    }
    uint32_t row = t->count;
    *out = entity_place_one(w, t);
    for (uint32_t i = 0; i < k; i++) {
        unsigned char *col = t->columns[ids[i]];
        if (col != NULL) {
            sti_value_write(w, col + (size_t)row * w->components[ids[i]].size, ids[i],
                               values != NULL ? values[i] : NULL);
        }
    }
    sti_mark_ids(w, *out, k, ids);
    if (t->hooked) {
        sti_hooks_created(w, t, row, 1);
    }
    return true;
}

/* n new entities placed in their final table in one go (all or nothing). */
strata_result_t strata_entity_create_many(strata_world_t *w, uint32_t n, uint32_t k, const uint32_t *ids,
                                          const void *const *values, strata_entity_t *out) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(out != NULL || n == 0);
    STRATA_ASSERT(ids != NULL || k == 0);
    strata_mask_t mask = {{0}};
    for (uint32_t i = 0; i < k; i++) {
        STRATA_ASSERT(ids[i] < w->component_count);
        STRATA_ASSERT(!strata_mask_test(&mask, ids[i])); /* no duplicates */
        strata_mask_set(&mask, ids[i]);
    }
    if (n == 0) {
        return STRATA_OK;
    }
    if (n == 1 && k > 0 && w->defer_depth == 0 && entity_create_one(w, &mask, k, ids, values, out)) {
        return STRATA_OK;
    }
    uint32_t fresh = n > w->free_count ? n - w->free_count : 0;
    if ((uint64_t)w->record_count + fresh > w->entity_limit) {
        return STRATA_ERR_LIMIT;
    }
    /* While deferred the entities wait in the empty table and an ADD
     * command carries their components. */
    bool deferred = w->defer_depth > 0 && k > 0;
    sti_table_t *t = w->tables[0];
    strata_result_t r = STRATA_OK;
    if (k > 0 && !deferred) {
        r = sti_table_ensure(w, &mask, &t);
    }
    if (r == STRATA_OK) {
        r = sti_records_reserve(w, fresh);
    }
    if (r == STRATA_OK) {
        r = sti_table_reserve(w, t, n);
    }
    size_t bytes = deferred ? sti_command_bytes(w, STI_CMD_ADD, n, k, ids) : 0;
    if (r == STRATA_OK && deferred) {
        r = sti_command_reserve(w, bytes);
    }
    if (r != STRATA_OK) {
        return r;
    }
    uint32_t row = t->count;
    entity_place(w, t, n, out);
    if (deferred) {
        sti_command_write(w, bytes, STI_CMD_ADD, n, out, k, ids, values);
        return STRATA_OK;
    }
    entity_fill_columns(w, t, row, n, k, ids, values);
    for (uint32_t i = 0; w->dirty_count > 0 && i < n; i++) {
        sti_mark_ids(w, out[i], k, ids);
    }
    if (t->hooked) {
        sti_hooks_created(w, t, row, n);
    }
    return STRATA_OK;
}

/* Swap-remove a live entity's row and free its index (generation bumped, never 0). */
void sti_entity_destroy_now(strata_world_t *w, sti_record_t *rec) {
    if (w->tables[rec->table]->hooked) {
        /* Hooks cannot move it (their structural changes are deferred), but
         * one that creates an entity can move the records array. */
        uint32_t index = (uint32_t)(rec - w->records);
        sti_hooks_destroy(w, rec);
        rec = &w->records[index];
    }
    sti_table_remove_row(w, w->tables[rec->table], rec->row);
    uint32_t generation = rec->generation + 1;
    rec->generation = generation != 0 ? generation : 1;
    rec->table = STI_NO_TABLE;
    rec->flags = 0;
    rec->row = w->free_head;
    w->free_head = (uint32_t)(rec - w->records);
    w->free_count++;
    w->alive--;
}

/* Schedule e's destroy for the end of the step (room in the list first). */
static strata_result_t entity_doom(strata_world_t *w, sti_record_t *rec, strata_entity_t e) {
    if (w->doomed_count == w->doomed_capacity) {
        uint32_t cap = w->doomed_capacity ? w->doomed_capacity * 2 : 64;
        strata_entity_t *doomed = sti_mem_realloc(w, w->doomed, sizeof(strata_entity_t) * w->doomed_capacity,
                                                     sizeof(strata_entity_t) * cap);
        if (doomed == NULL) {
            return STRATA_ERR_NOMEM;
        }
        w->doomed = doomed;
        w->doomed_capacity = cap;
    }
    w->doomed[w->doomed_count++] = e;
    rec->flags |= STI_FLAG_DOOMED;
    return STRATA_OK;
}

/* Destroy now, or schedule it (step) or record it (deferred); STALE if dead or scheduled. */
strata_result_t strata_entity_destroy(strata_world_t *w, strata_entity_t e) {
    STRATA_ASSERT(w != NULL);
    sti_record_t *rec = sti_record_lookup(w, e);
    if (rec == NULL || (rec->flags & STI_FLAG_DOOMED) != 0) {
        return STRATA_ERR_STALE;
    }
    if (w->in_step) {
        return entity_doom(w, rec, e);
    }
    if (w->defer_depth > 0) {
        strata_result_t r = sti_command_push(w, STI_CMD_DESTROY, &e, 0, NULL, NULL);
        if (r == STRATA_OK) {
            rec->flags |= STI_FLAG_DOOMED;
        }
        return r;
    }
    sti_entity_destroy_now(w, rec);
    (void)sti_command_settle(w); /* what its hooks recorded; a failure keeps it for the next flush */
    return STRATA_OK;
}

/* True if e names a live entity (a scheduled one included). */
bool strata_entity_alive(const strata_world_t *w, strata_entity_t e) {
    STRATA_ASSERT(w != NULL);
    return sti_record_lookup(w, e) != NULL;
}

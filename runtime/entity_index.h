/* entity_index.h: entity handles and the records behind them. A handle is
 * index (low 32 bits) + generation (high 32 bits); a record {row,
 * generation, table, flags} sits at its index in one flat array. Freed
 * indices are reused last-freed first, with the generation bumped (never
 * 0), so every stale handle is told by sti_record_lookup: the one check.
 */
#ifndef STI_ENTITY_INDEX_H
#define STI_ENTITY_INDEX_H

#include "mem.h"

/* record.table of a free index. */
#define STI_NO_TABLE 0xffffu
/* The end of the free list. */
#define STI_NO_INDEX 0xffffffffu
/* record.flags: a destroy is scheduled (step end or deferred command). */
#define STI_FLAG_DOOMED 1u

/* One entity index. 12 bytes, so an entity costs 20 bytes beyond its
 * component bytes (this record and its handle in the table). */
struct sti_record_t {
    uint32_t row;        /* row in its table; while free, the next free index */
    uint32_t generation; /* of the live handle; while free, of the next one (never 0) */
    uint16_t table;      /* table id; STI_NO_TABLE while free */
    uint16_t flags;      /* STI_FLAG_* */
};

/* The handle of index `index` at generation `generation`. */
static inline strata_entity_t sti_entity_make(uint32_t index, uint32_t generation) {
    return ((strata_entity_t)generation << 32) | index;
}

/* The record of a live entity, or NULL for a stale handle. */
STI_HOT sti_record_t *sti_record_lookup(const strata_world_t *w, strata_entity_t e) {
    uint32_t index = (uint32_t)e;
    if (index >= w->record_count) {
        return NULL;
    }
    sti_record_t *rec = &w->records[index];
    /* A free record holds the generation of a handle not issued yet; the
     * table check also rejects such a forged handle. */
    if (rec->generation != (uint32_t)(e >> 32) || rec->table == STI_NO_TABLE) {
        return NULL;
    }
    return rec;
}

/* True if one more entity has an index ready (reused or reserved, and under the limit). */
STI_HOT bool sti_index_room_for_one(const strata_world_t *w) {
    return w->free_count > 0 || (w->record_count < w->record_capacity && w->record_count < w->entity_limit);
}

/* The record capacity that holds `fresh` more new indices (record_capacity
 * if it does already); 0 if no array can. */
size_t sti_index_capacity_for(const strata_world_t *w, uint32_t fresh);
/* Resize the records to `cap` (from sti_index_capacity_for); NOMEM changes nothing. */
strata_result_t sti_index_resize(strata_world_t *w, size_t cap);

/* Hand out one index (room checked) for an entity at `row` of table `tid`:
 * the most recently freed one, else a fresh one. Returns its handle. */
STI_HOT strata_entity_t sti_index_take(strata_world_t *w, uint16_t tid, uint32_t row) {
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
    rec->table = tid;
    rec->flags = 0;
    w->alive++;
    return sti_entity_make(index, rec->generation);
}

/* Hand out n indices (room reserved) for entities at rows [row, row + n)
 * of table `tid`, freed ones first; their handles go to handles[] and out[]. */
void sti_index_take_many(strata_world_t *w, uint16_t tid, uint32_t row, uint32_t n, strata_entity_t *handles,
                         strata_entity_t *out);

/* Free a live entity's index (its row already gone): generation bumped, on the free list. */
STI_HOT void sti_index_release(strata_world_t *w, sti_record_t *rec) {
    uint32_t generation = rec->generation + 1;
    rec->generation = generation != 0 ? generation : 1;
    rec->table = STI_NO_TABLE;
    rec->flags = 0;
    rec->row = w->free_head;
    w->free_head = (uint32_t)(rec - w->records);
    w->free_count++;
    w->alive--;
}

/* Free every index (rows already gone): live ones with the generation
 * bumped; the free list rebuilt lowest index first. */
void sti_index_release_all(strata_world_t *w);

#endif /* STI_ENTITY_INDEX_H */

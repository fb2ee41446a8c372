/* entity_index.c: growing the records and handing out indices in bulk. */
#include "entity_index.h"

/* Doubling, but never past what the entity limit lets indices use. */
size_t sti_index_capacity_for(const strata_world_t *w, uint32_t fresh) {
    uint64_t need = (uint64_t)w->record_count + fresh;
    if (need <= w->record_capacity) {
        return w->record_capacity;
    }
    uint64_t cap = (uint64_t)w->record_capacity * 2;
    if (cap < need) {
        cap = need;
    }
    if (cap > (uint64_t)w->entity_limit && need <= w->entity_limit) {
        cap = w->entity_limit; /* no point holding records no index can use */
    }
    if (cap > SIZE_MAX / sizeof(sti_record_t) || cap > UINT32_MAX) {
        return 0;
    }
    return (size_t)cap;
}

/* The records array to `cap` entries. */
strata_result_t sti_index_resize(strata_world_t *w, size_t cap) {
    return sti_mem_resize(w, &w->records, sizeof(sti_record_t), &w->record_capacity, cap);
}

/* Highest first, so the list ends up in ascending order. */
void sti_index_release_all(strata_world_t *w) {
    uint32_t head = STI_NO_INDEX;
    for (uint32_t i = w->record_count; i-- > 0;) {
        sti_record_t *rec = &w->records[i];
        if (rec->table != STI_NO_TABLE) {
            uint32_t generation = rec->generation + 1;
            rec->generation = generation != 0 ? generation : 1;
            rec->table = STI_NO_TABLE;
        }
        rec->flags = 0;
        rec->row = head;
        head = i;
    }
    w->free_head = head;
    w->free_count = w->record_count;
    w->alive = 0;
}

/* Freed indices first (locals, not fields: the stores below could alias
 * the fields, the locals stay in registers), then fresh ones. */
void sti_index_take_many(strata_world_t *w, uint16_t tid, uint32_t row, uint32_t n, strata_entity_t *handles,
                         strata_entity_t *out) {
    sti_record_t *records = w->records;
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
    w->alive += n;
}

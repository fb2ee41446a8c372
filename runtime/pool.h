/* pool.h: threads. The worker pool (POSIX threads, made with the world,
 * asleep between batches) and the running of a batch: each system of a
 * batch, or each chunk of a split system, runs against its own view of the
 * world (a slot: a copy of the world's struct whose deferral scope is
 * always open and whose command buffer, destroys and created entities are
 * its own), so workers never write the world's shared state. When every
 * slot is done the caller applies them in order (slot_apply), which is the
 * schedule's order and, within a split system, the chunks' order.
 */
#ifndef STI_POOL_H
#define STI_POOL_H

#include "command.h"

/* Start the workers for desc.threads (the caller's thread counts as one).
 * STRATA_ERR_NOMEM when memory or a thread could not be had (none is left). */
strata_result_t sti_pool_create(strata_world_t *w, uint32_t threads, uint32_t chunk_rows);
/* Stop and join the workers; free the pool and every slot. */
void sti_pool_free(strata_world_t *w);
/* In a view: record the creation of n entities with components ids[0..k)
 * (values as strata_entity_create_many), made when the batch ends; out gets
 * null handles. NOMEM records nothing. */
strata_result_t sti_pool_spawn(strata_world_t *w, uint32_t n, uint32_t k, const uint32_t *ids,
                               const void *const *values, strata_entity_t *out);

/* In a view of a chunk of a split system, whose query lists one table
 * holding the chunk's rows: when t is that table, the table the rows are
 * in into *from and the first of them into *first (else both untouched). */
void sti_pool_rows_of(const strata_world_t *w, const sti_table_t *t, const sti_table_t **from, uint32_t *first);

/* In a view: record a write of e's c (set, mut, mark) for the changed
 * sets and on_set sets tracking c, marked when the batch ends in schedule
 * and chunk order. Out of memory loses the mark and makes the batch
 * return NOMEM. */
void sti_pool_mark(strata_world_t *w, strata_entity_t e, uint32_t c);

#endif /* STI_POOL_H */

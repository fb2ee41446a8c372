/* pool.h: threads. The worker pool (POSIX threads, made with the world,
 * asleep between batches) and the views a batch runs against: each system
 * of a batch, or each chunk of a split system, runs against its own view
 * of the world (a slot: a copy of the world's struct whose deferral scope
 * is always open and whose command buffer, destroys and created entities
 * are its own), so workers never write the world's shared state.
 *
 * A batch (strata_batch_run, step.c) is prepared (its tasks and their
 * views), dispatched (run on the threads; back when every task is done),
 * then merged: what each view recorded goes into the world in schedule
 * and chunk order, its marks first, then system by system its events and,
 * view by view, its created entities (step.c makes them: creating is a
 * layer above), its commands and its destroys.
 */
#ifndef STI_POOL_H
#define STI_POOL_H

#include "command.h"

/* Start the workers for desc.threads (the caller's thread counts as one)
 * and reserve the items of the schedule's largest batch. STRATA_ERR_NOMEM
 * when memory or a thread could not be had (none is left). */
strata_result_t sti_pool_create(strata_world_t *w, uint32_t threads, uint32_t chunk_rows);
/* Stop and join the workers; free the pool and every slot. */
void sti_pool_free(strata_world_t *w);

/* --- Recording in a view ------------------------------------------------ */

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

/* --- Running a batch ---------------------------------------------------- */

/* Room for `count` items, the pool's own (kept for the step's batches;
 * sti_pool_create reserves the largest), or NULL when out of memory. */
strata_batch_item_t *sti_pool_items(strata_world_t *w, uint32_t count);

/* Prepare a batch of items[0..count) (which must stay put until it is
 * merged): its tasks (a system, or a chunk of a split system's rows), a
 * slot for each and each slot's view, every view a copy of the world as
 * the batch found it. *tasks gets their number. STRATA_ERR_NOMEM: nothing
 * is prepared, the world is as it was (only capacity grew). */
strata_result_t sti_pool_prepare(strata_world_t *w, const strata_batch_item_t *items, uint32_t count, uint32_t *tasks);

/* Run every task of the prepared batch, run(view, system, dt) each: the
 * main_thread ones on the caller's thread, the others on whichever thread
 * takes them first. Returns when all are done. Debug builds then assert
 * that no resource the batch's items do not write has changed. */
void sti_pool_dispatch(strata_world_t *w, strata_system_fn_t run, float dt);

/* --- Merging a dispatched batch, in task order --------------------------- */

/* Mark, view by view, what the systems wrote (the rows their write terms
 * visited, then their set / mut / mark calls) in the changed and on_set
 * sets. Returns STRATA_OK, or STRATA_ERR_NOMEM when a view lost a mark or
 * an event for want of memory. */
strata_result_t sti_pool_merge_marks(strata_world_t *w);

/* The events of task `from`'s system: its tasks are from .. *end (its
 * chunks, in order); their emits are appended under the system's moment
 * on the events' clock, which stays set for what is applied next. Returns
 * STRATA_OK or STRATA_ERR_NOMEM (sti_events_merge). */
strata_result_t sti_pool_merge_events(strata_world_t *w, uint32_t from, uint32_t *end);

/* One creation a view recorded (sti_pool_spawn): n entities with
 * components ids[0..k), values[i] the value of ids[i]. */
typedef struct sti_spawn_t {
    uint32_t n;
    uint32_t k;
    const uint32_t *ids;
    const void *values[STRATA_MAX_COMPONENTS];
} sti_spawn_t;

/* The creation task `task` recorded at byte *at of its record (0: the
 * first) in *out, *at moved on to the next; false after the last. Valid
 * until the next batch is prepared. */
bool sti_pool_spawn_next(const strata_world_t *w, uint32_t task, size_t *at, sti_spawn_t *out);

/* After task `task`'s creations: its commands after the world's (settled
 * with them), then its destroys, scheduled for the step's end. Returns
 * STRATA_OK or STRATA_ERR_NOMEM (what could not be recorded is lost). */
strata_result_t sti_pool_apply(strata_world_t *w, uint32_t task);

#endif /* STI_POOL_H */

/* capacity.h: room made ahead and given back. Reserving: a table's rows
 * and the entity records grown, and their pages faulted in, before the
 * adds and creates that need them (strata_reserve, strata_entity_reserve).
 * Freeing the tables that stay without rows (strata_world_free_empty_tables,
 * and the world's policy, desc.free_empty_tables_after, at a step's end):
 * each is taken out of the hash, the queries' lists and its neighbours'
 * edges, the tables after it are renumbered into the gaps, and the changed
 * sets' lists follow; never while a scope is open, so no iterator, visit
 * or saved range holds a table that goes.
 *
 * The idle list (archetype.c) keeps the tables without rows in the order
 * they emptied, so the policy looks at its head only: a step's end that
 * frees nothing costs one comparison.
 */
#ifndef STI_CAPACITY_H
#define STI_CAPACITY_H

#include "dirty.h"
#include "archetype.h"

/* A step ended (command.c, strata_step_end): the clock of the idle list
 * ticks; with no scope open, the tables the policy or a waiting request
 * frees go. */
void sti_capacity_step_end(strata_world_t *w);
/* The outermost scope closed outside a step (command.c, strata_defer_end)
 * while a request to free the empty tables waits: it is done now. */
void sti_capacity_scope_end(strata_world_t *w);

#endif /* STI_CAPACITY_H */

/* step.h: the step loop (the public entry points are in strata.h); what
 * the world and the save layer ask of the schedule. */
#ifndef STI_STEP_H
#define STI_STEP_H

#include "entity.h"

/* True if the schema's schedule is one the generator could have emitted:
 * every system with a trampoline and a query of the schema (a split one
 * needs one), phases covering the batches and batches the order in turn,
 * gates, tests, machines and transitions naming what exists, ids within
 * range, and everything the step keeps in the resource block inside it. */
bool sti_schedule_valid(const strata_schema_t *schema);

/* After a load: each fixed phase's accumulator is a fraction of a period
 * (whatever the rate it was saved at), its runs of the last step none. */
void sti_schedule_loaded(strata_world_t *w);

#endif /* STI_STEP_H */

/* world.h: the world as a whole; what the save layer shares. */
#ifndef STI_WORLD_H
#define STI_WORLD_H

#include "bulk.h"
#include "entity.h"
#include "step.h"

/* Every entity of w has just arrived (a load; aspects at their defaults):
 * mark each changed, run its on_add hooks, then settle what they recorded. */
void sti_hooks_loaded(strata_world_t *w);

#endif /* STI_WORLD_H */

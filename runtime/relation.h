/* relation.h: relations between entities. The links of a relation live in
 * its component (exclusive: the target and the link's data, in the
 * archetype; otherwise a tag on each source); this module keeps the index
 * the component cannot: by target, the entities linking to it (and, for a
 * non-exclusive relation, by source, its targets). It also applies the
 * policies when an entity is destroyed: move.c calls world->on_destroy,
 * inside a deferral scope, so what a policy does (remove a link, destroy a
 * source) is recorded as any other structural change and settled after.
 */
#ifndef STI_RELATION_H
#define STI_RELATION_H

#include "command.h"

/* Set up the index for the schema's relations (nothing without any);
 * STRATA_ERR_NOMEM leaves what was allocated for strata_world_destroy. */
strata_result_t sti_relation_init(strata_world_t *w);
/* Free the index. */
void sti_relation_free(strata_world_t *w);
/* Forget every link of the index (the world is being emptied). */
void sti_relation_clear(strata_world_t *w);

#endif /* STI_RELATION_H */

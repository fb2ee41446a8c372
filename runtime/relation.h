/* relation.h: relations, the top of their three modules (cascade.h, then
 * link.h, then this). Here: the policies a destroy applies to the sources
 * of the entity destroyed and to the entity fields naming it. move.c calls
 * them through world->hooks inside the destroy's deferral scope, so what a
 * policy does (remove a link, destroy a source) is recorded as any other
 * structural change and settled after; and setting up the three modules
 * for a world.
 */
#ifndef STI_RELATION_H
#define STI_RELATION_H

#include "link.h"

/* Set up the relations of a world (the index, the cascade state, the
 * hooks; nothing without relations or field policies); STRATA_ERR_NOMEM
 * leaves what was allocated for strata_world_destroy. */
strata_result_t sti_relation_init(strata_world_t *w);
/* Free what sti_relation_init made. */
void sti_relation_free(strata_world_t *w);
/* Forget every link and saved cascade pass (the world is being emptied). */
void sti_relation_clear(strata_world_t *w);

#endif /* STI_RELATION_H */

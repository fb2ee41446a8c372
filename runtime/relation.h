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

/* --- Loads (runtime/save/) ------------------------------------------------ */

/* The non-exclusive relation whose links component c's tag stands for, or -1. */
int32_t sti_relation_of_tag(const strata_world_t *w, uint32_t c);
/* File the link e -> t of non-exclusive relation r in a world being loaded
 * (its tags are placed by the load, its hooks do not run): STRATA_OK,
 * STRATA_ERR_CORRUPT if e links to t already, STRATA_ERR_NOMEM. */
strata_result_t sti_relation_load_link(strata_world_t *w, uint32_t r, strata_entity_t e, strata_entity_t t);
/* Reserve, in a world being loaded, the index its exclusive links will be
 * filed into when its hooks run (after the load can no longer fail):
 * STRATA_ERR_NOMEM, with nothing filed, if it cannot. */
strata_result_t sti_relation_reserve(strata_world_t *w);

/* What sti_relation_loaded finds wrong with a loaded world's links. */
typedef enum sti_link_fault_t {
    STI_LINK_OK,
    STI_LINK_NO_TARGET, /* a link points at an entity the world does not hold */
    STI_LINK_NO_SOURCE, /* links from an entity the world does not hold, or without the tag */
} sti_link_fault_t;

/* Check the links of every non-exclusive relation of a loaded world: the
 * first fault, with its relation, source and target. (A tag without links
 * is no fault: a save made while the tag's removal waited holds one.) */
sti_link_fault_t sti_relation_loaded(const strata_world_t *w, uint32_t *r, strata_entity_t *source,
                                     strata_entity_t *target);

#endif /* STI_RELATION_H */

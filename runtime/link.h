/* link.h: the links of relations. An exclusive relation's link lives in
 * its component (the target, a depth, the data), a non-exclusive one's
 * source has a tag; this module keeps the index the component cannot: by
 * target, the entities linking to it (and, for a non-exclusive relation,
 * by source, its targets). It holds the relation entry points of strata.h
 * (set, add, remove, the reads), the component hook that keeps the index
 * true on every path that adds or removes the component, the up-calls the
 * adds make first (world->hooks: room, links left out, re-links), and the
 * filing of loaded links. What a destroy does to the links is relation.c's.
 */
#ifndef STI_LINK_H
#define STI_LINK_H

#include "cascade.h"

/* The handles one entity's list holds: its sources, or its targets. */
typedef struct sti_link_list_t {
    strata_entity_t *items;
    uint32_t count;
    uint32_t capacity;
} sti_link_list_t;

/* The index of one relation, by entity index. A dead target's list is
 * emptied when it dies, so a list is always its live entity's: callers
 * check that the handle is alive before reading the list at its index. */
typedef struct sti_link_index_t {
    sti_link_list_t *sources; /* by target: the entities linking to it */
    size_t sources_cap;
    sti_link_list_t *targets; /* non-exclusive, by source: its targets */
    size_t targets_cap;
    uint32_t *slot; /* exclusive, by source: its place in its target's sources */
    size_t slot_cap;
} sti_link_index_t;

/* The relations of a world (w->relations; NULL without relations or field policies). */
struct sti_relations_t {
    /* The link strata_relation_set is adding now, checked and with room:
     * the add need not check it again. Null otherwise. */
    strata_entity_t checked_source, checked_target;
    /* The entity being destroyed (relation.c sets it): the policies have
     * dealt with its sources, so the removal of its own links walks
     * nothing below it. */
    strata_entity_t dying;
    strata_mask_t exclusive; /* the components of the exclusive relations: an add of one needs room */
    uint8_t relation_of[STRATA_MAX_COMPONENTS]; /* by such a component, its relation */
    uint32_t count;
    sti_link_index_t rel[]; /* by relation id */
};

/* The index of relation r. */
STI_HOT sti_link_index_t *sti_link_index(const strata_world_t *w, uint32_t r) {
    STRATA_ASSERT(w->relations != NULL && r < w->relations->count);
    return &w->relations->rel[r];
}

/* The list at e's index of a by-index array, or NULL when not covered. */
STI_HOT sti_link_list_t *sti_link_list_at(sti_link_list_t *lists, size_t cap, strata_entity_t e) {
    uint32_t i = strata_entity_index(e);
    return i < cap ? &lists[i] : NULL;
}

/* The position of e in list, or UINT32_MAX. */
uint32_t sti_link_list_find(const sti_link_list_t *list, strata_entity_t e);
/* Remove the handle at i by moving the last one there. */
STI_HOT void sti_link_list_take(sti_link_list_t *list, uint32_t i) {
    list->items[i] = list->items[--list->count];
}
/* Free a list's handles (it is empty after). */
void sti_link_list_free(strata_world_t *w, sti_link_list_t *list);
/* The handles at e's index of a by-index array (*count of them), if e is
 * alive; NULL with *count 0 otherwise. */
const strata_entity_t *sti_link_read(const strata_world_t *w, sti_link_list_t *lists, size_t cap, strata_entity_t e,
                                     uint32_t *count);

/* The entity after e in a pre-order walk of root's tree in exclusive
 * relation r that skips e's sources (`down` false) or enters them (`down`
 * true); NULL at the end. */
strata_entity_t sti_link_tree_next(const strata_world_t *w, uint32_t r, strata_entity_t root, strata_entity_t e,
                                   bool down);
/* Give e (its link: `link`, or NULL to look it up) of exclusive relation r
 * the depth `depth`, and each entity below it its parent's plus one. */
void sti_link_redepth(strata_world_t *w, uint32_t r, strata_entity_t e, void *link, uint32_t depth);
/* Take the link e -> mine->items[i] of non-exclusive index x out of e's
 * targets and (if the target is alive) the target's sources. */
void sti_link_unfile_shared(strata_world_t *w, sti_link_index_t *x, strata_entity_t e, sti_link_list_t *mine,
                            uint32_t i);
/* Remove e's tag c now (an absent tag is no error), or record its removal
 * while deferred (not checked then: the tag's add may itself wait). */
strata_result_t sti_link_tag_remove(strata_world_t *w, strata_entity_t e, uint32_t c);

/* Set up the index for the schema's relations (nothing without relations
 * or field policies) and the adds' up-calls (world->hooks); NOMEM leaves
 * what was allocated for sti_link_free. */
strata_result_t sti_link_init(strata_world_t *w);
/* Free the index. */
void sti_link_free(strata_world_t *w);
/* Forget every link of the index (the world is being emptied). */
void sti_link_clear(strata_world_t *w);

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

#endif /* STI_LINK_H */

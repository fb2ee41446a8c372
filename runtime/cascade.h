/* cascade.h: cascade passes, parents before children (strata_iter_cascade,
 * strata_iter_cascade_next, in strata.h), and the pass each query saves for
 * the next one over a hierarchy that has not changed. The lowest of the
 * relations' modules: it also holds the layout of an exclusive relation's
 * link value, which the passes read and the index (link.c) writes.
 * docs/relations.md ("Cascade") says what a game sees.
 */
#ifndef STI_CASCADE_H
#define STI_CASCADE_H

#include "command.h"

/* --- An exclusive relation's link value: the target, the depth, the data --- */

/* The target in a link value (its first member). */
STI_HOT strata_entity_t sti_link_target(const void *link) {
    strata_entity_t t;
    memcpy(&t, link, sizeof t);
    return t;
}

/* Write the target of a link value. */
STI_HOT void sti_link_set_target(void *link, strata_entity_t t) {
    memcpy(link, &t, sizeof t);
}

/* The depth in a link value (the uint32_t after the target): links up to
 * the root, kept by the runtime. */
STI_HOT uint32_t sti_link_depth(const void *link) {
    uint32_t depth;
    memcpy(&depth, (const unsigned char *)link + sizeof(strata_entity_t), sizeof depth);
    return depth;
}

/* Write the depth of a link value. */
STI_HOT void sti_link_set_depth(void *link, uint32_t depth) {
    memcpy((unsigned char *)link + sizeof(strata_entity_t), &depth, sizeof depth);
}

/* --- The passes -------------------------------------------------------------- */

/* A world's cascade state (w->cascades; NULL without relations). */
struct sti_cascades_t {
    /* By relation: bumped whenever one of its links changes its target or
     * depth in place (link.c, through sti_cascade_links_changed): a pass
     * saved before then no longer holds. */
    uint32_t links[STRATA_MAX_RELATIONS];
    struct cascade_list_t *lists; /* by query id: its batches and saved pass (cascade.c) */
};

/* Exclusive relation r's links changed in place (a target, a depth): no
 * saved pass of it holds any more. */
STI_HOT void sti_cascade_links_changed(strata_world_t *w, uint32_t r) {
    w->cascades->links[r]++;
}

/* Set up the cascade state of a world with relations (nothing without);
 * STRATA_ERR_NOMEM leaves what was allocated for sti_cascade_free. */
strata_result_t sti_cascade_init(strata_world_t *w);
/* Free the cascade state. */
void sti_cascade_free(strata_world_t *w);
/* Forget every saved pass: the world's tables were emptied without a row
 * moving, which the passes' stamps cannot see. */
void sti_cascade_forget(strata_world_t *w);

#endif /* STI_CASCADE_H */

/* archetype.h: the set of tables and the graph between them. A table is
 * found by mask through the last one found, then a small open-addressing
 * hash; a new one is created there, classified (monitors, dirty sets,
 * hooks) and registered with the queries it matches. Edges cache each
 * table's neighbour with one component more or less.
 *
 * A table's mask is canonical: its aspect bits (column ids from
 * component_count) are exactly those of the monitored queries it matches,
 * so an aspect column moves with the entity like a component.
 */
#ifndef STI_ARCHETYPE_H
#define STI_ARCHETYPE_H

#include "query.h"

/* The table of `mask` (aspect bits made canonical), created if needed
 * (STRATA_ERR_NOMEM / STRATA_ERR_LIMIT and *out untouched on failure; the
 * world is then as it was). */
strata_result_t sti_table_ensure(strata_world_t *w, const strata_mask_t *mask, sti_table_t **out);
/* Find or create the neighbour of `src` with `c` added (add) or removed,
 * cache the edge both ways and return it in *out (unless NULL). */
strata_result_t sti_table_edge(strata_world_t *w, sti_table_t *src, uint32_t c, bool add, sti_edge_t *out);
/* True if moving between src and dst must run hooks or change aspects. */
bool sti_move_is_hooked(const strata_world_t *w, const sti_table_t *src, const sti_table_t *dst);
/* Free every table, the table array and the hash. */
void sti_archetype_free(strata_world_t *w);

#endif /* STI_ARCHETYPE_H */

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
/* The table of canonical `mask` by the hash alone (not last_found), or
 * NULL if the set has none. */
sti_table_t *sti_table_find(const strata_world_t *w, const strata_mask_t *mask);
/* Find or create the neighbour of `src` with `c` added (add) or removed,
 * cache the edge both ways and return it in *out (unless NULL). */
strata_result_t sti_table_edge(strata_world_t *w, sti_table_t *src, uint32_t c, bool add, sti_edge_t *out);
/* True if moving between src and dst must run hooks or change aspects. */
bool sti_move_is_hooked(const strata_world_t *w, const sti_table_t *src, const sti_table_t *dst);
/* t's first row arrived (its count rose from 0): it joins the first part
 * of its queries' lists and leaves the idle list. O(queries matching t). */
STI_COLD void sti_table_filled(strata_world_t *w, sti_table_t *t);
/* t's last row left (its count fell to 0): the second part of its
 * queries' lists, and the end of the idle list (the empty table aside). */
STI_COLD void sti_table_emptied(strata_world_t *w, sti_table_t *t);
/* After rows moved from src to dst, the first of them at row `to`: src if
 * it has none left, dst if `to` is 0 (its first rows), as above. */
STI_COLD void sti_table_turned(strata_world_t *w, sti_table_t *src, sti_table_t *dst, uint32_t to);

/* --- Freeing tables (capacity.c): unlink each, renumber, compact. No
 * scope may be open (no iterator holds a range, no visit a table). */

/* Take t (no row, not the empty table) out of every lookup: the hash,
 * the queries' lists, its neighbours' edges, the idle list, last_found.
 * Its id becomes STI_NO_TABLE; it stays in world->tables until compacted. */
void sti_table_unlink(strata_world_t *w, sti_table_t *t);
/* Give each table past the unlinked ones' count the id of an unlinked one
 * below it (t->id; the hash and its rows' records follow; world->tables
 * keeps the old order for those who still read old ids). Returns the
 * number of tables kept. */
uint32_t sti_table_renumber(strata_world_t *w);
/* Free the unlinked tables and put the kept ones at their new ids
 * (`left` of them, from sti_table_renumber); table ids kept from before
 * may now name other tables (world->table_epoch is bumped). */
void sti_table_compact(strata_world_t *w, uint32_t left);

/* Put t (not on it) at the end of the idle list, idle since now (snapshot.c
 * rebuilds the list with it, from an empty one). */
void sti_table_idle_append(strata_world_t *w, sti_table_t *t);

/* world->tables holds the tables in a new order: each takes its place's
 * id, the hash follows, table ids kept from before are stale
 * (table_epoch bumped). The records are the caller's (snapshot.c). */
void sti_table_order(strata_world_t *w);

/* Free every table, the table array and the hash. */
void sti_archetype_free(strata_world_t *w);

#endif /* STI_ARCHETYPE_H */

/* observe.h: what runs when an entity's archetype changes: component hooks
 * (on_add / on_remove), and query hooks with their aspects (per-entity
 * state of a query, stored as extra columns of the tables that match it);
 * and what runs when a value was written: on_set, when changes settle.
 *
 * Aspect k lives in column id component_count + k; a table has that column
 * exactly when it matches the query, so the aspect moves with the entity
 * like a component, is made when the entity starts to match, and dropped
 * when it stops. Hooks run inside a deferral scope: their structural
 * changes wait, and whoever called the functions below settles after.
 */
#ifndef STI_OBSERVE_H
#define STI_OBSERVE_H

#include "dirty.h"
#include "sparse.h"

/* Set up hooks, monitors and aspect columns from the schema (at creation,
 * before any table); NOMEM: the caller destroys the world. */
strata_result_t sti_observe_init(strata_world_t *w);
/* Free what sti_observe_init holds. */
void sti_observe_free(strata_world_t *w);
/* The entity at `row` of t (still in place) is about to move to dst (NULL:
 * be destroyed): on_remove of the monitors it stops matching, then of the
 * hooked components it loses. */
void sti_observe_leave(strata_world_t *w, const sti_table_t *t, uint32_t row, const sti_table_t *dst);
/* The entity at `row` of t has just come from src (NULL: was created): new
 * aspects at their defaults, on_add of the hooked components it gains, then
 * of the monitors it starts matching. */
void sti_observe_enter(strata_world_t *w, const sti_table_t *src, const sti_table_t *t, uint32_t row);
/* The monitors (bit k: monitor k) the entity at `row` of t matches: those
 * t matches whose sparse terms the row meets. */
uint64_t sti_observe_matched(const strata_world_t *w, const sti_table_t *t, uint32_t row);
/* The monitors it would match holding the sparse planes `held`. */
uint64_t sti_observe_matched_held(const strata_world_t *w, const sti_table_t *t, uint64_t held);
/* The entity at `row` of t, holding the sparse planes `held`, is about to
 * become one of table dst holding `held_to` (dst NULL: be destroyed):
 * on_remove of the monitors it stops matching, then of the hooked
 * components it loses (table and sparse), their values still there.
 * sti_observe_leave is this with the sparse planes unchanged. */
void sti_observe_leave_to(strata_world_t *w, const sti_table_t *t, uint32_t row, uint64_t held, const sti_table_t *dst,
                          uint64_t held_to);
/* The entity at `row` of t, holding `held`, was one of table src holding
 * `held_from` (src NULL: was created): new aspects at their defaults, on_add
 * of the hooked components it gains, then of the monitors it starts
 * matching. sti_observe_enter is this with the sparse planes unchanged. */
void sti_observe_enter_from(strata_world_t *w, const sti_table_t *src, uint64_t held_from, const sti_table_t *t,
                            uint32_t row, uint64_t held);
/* True if the entity at `row` of t runs hooks when it comes or goes with
 * all it holds (created, loaded, destroyed): t is hooked, or the row holds
 * a sparse component with hooks. */
STI_HOT bool sti_observe_row_hooked(const strata_world_t *w, const sti_table_t *t, uint32_t row) {
    return t->hooked ||
           ((t->sparse_any & w->sparse_hooked) != 0 && (sti_sparse_held(w, t, row) & w->sparse_hooked) != 0);
}
/* New rows [row, row + n) of t are in place: sti_observe_enter for each. */
void sti_observe_created(strata_world_t *w, const sti_table_t *t, uint32_t row, uint32_t n);
/* Every entity of w has just arrived (a load; aspects at their defaults):
 * mark each changed and run its on_add hooks, as if each had been created. */
void sti_observe_loaded(strata_world_t *w);
/* Every entity of w is about to go (world destroyed, or replaced by a load):
 * run their on_remove hooks once; what the hooks record is left to the caller. */
void sti_hooks_destroy_all(strata_world_t *w);
/* Every entity's on_remove hooks (components and queries), as if all were
 * destroyed, inside one scope; what the hooks record waits for the caller. */
void sti_observe_leave_all(strata_world_t *w);

/* Run the on_set hooks due: component by component (id order), each
 * entity marked since the last run once, in the order first marked,
 * skipping entities destroyed or without the component since. Inside one
 * scope: what the hooks record waits for the caller, which settles it and
 * then calls sti_observe_sets_mute. */
void sti_observe_sets(strata_world_t *w);
/* Forget the on_set marks made since sti_observe_sets began (by its hooks
 * and by what they recorded): an on_set hook's writes do not call on_set. */
void sti_observe_sets_mute(strata_world_t *w);

#endif /* STI_OBSERVE_H */

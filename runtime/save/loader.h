/* loader.h: what every load shares (private): binary and JSON alike.
 *
 * Every load builds its result in a fresh world (the "loader") and swaps it
 * with the target only when everything succeeded, so an error of any kind
 * leaves the target exactly as it was. The loader places entities at the
 * index and generation they had when saved, so handles (and entity fields
 * holding them) mean the same entities after a load.
 */
#ifndef STRATA_SAVE_LOADER_H
#define STRATA_SAVE_LOADER_H

#include "strata_internal.h"

#include <stdarg.h>

/* --- Load reports -------------------------------------------------------- */

/* A change found while mapping a save onto the schema, counted later. */
typedef struct sti_pending_change_t {
    uint8_t kind; /* strata_change_kind_t */
    char name[119];
    int64_t component; /* the save's component it concerns (the format's own numbering), or -1 */
    uint64_t count;    /* entities (or resources) concerned, set by the format module */
} sti_pending_change_t;

/* State of one load: the fresh world it builds and what it found. */
typedef struct sti_loader_t {
    strata_world_t *target;
    strata_world_t *fresh;        /* the world being built; swapped in on success */
    strata_load_report_t *report; /* the caller's, or a local one */
    strata_load_report_t local;
    uint32_t record_count;         /* indices the save handed out */
    uint32_t free_tail;            /* the last index of the free list being built */
    sti_pending_change_t *changes; /* found while mapping; counted at the end */
    uint32_t change_count;
    size_t change_capacity;
    bool by_value;    /* a migration: lossy type changes are LOST changes, not errors */
    bool accept_loss; /* with by_value: load even when a LOST change counts entities */
    bool refused;     /* finish refused a loss: the report keeps its changes */
} sti_loader_t;

/* Set up a load into `target`: a fresh world with the same schema, allocator
 * and limits, and its resources at their defaults (the scheduler's state is
 * copied from the target). STRATA_ERR_NOMEM leaves nothing allocated. */
strata_result_t sti_loader_begin(sti_loader_t *l, strata_world_t *target, strata_load_report_t *report);

/* Record an error in the report (printf style); returns r. */
strata_result_t sti_loader_fail(sti_loader_t *l, strata_result_t r, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Note a change to report on success (NOMEM if the list cannot grow); its
 * count starts at 0, or 1 for a resource (component -1). */
strata_result_t sti_loader_change(sti_loader_t *l, strata_change_kind_t kind, int64_t component, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Make the fresh world hold `count` entity indices, none placed yet. */
strata_result_t sti_loader_records(sti_loader_t *l, uint32_t count);

/* The table of `mask` (its table components: the sparse ones are
 * sti_loader_sparse's) with room for n more rows, whose columns hold the
 * components' defaults; *row gets the first of them. The caller then
 * places n entities there (sti_loader_place) and overwrites values. */
strata_result_t sti_loader_rows(sti_loader_t *l, const strata_mask_t *mask, uint32_t n, sti_table_t **out,
                                uint32_t *row);

/* Put entity `e` in row `row` of t (a row from sti_loader_rows). False if
 * its index is out of range, its generation 0, or the index already used. */
bool sti_loader_place(sti_loader_t *l, sti_table_t *t, uint32_t row, strata_entity_t e);

/* Give the n entities placed in rows [row, row + n) of t sparse component
 * c at its defaults (a component's storage is the loading schema's: a save
 * holds none). *values gets the first of their values, which are
 * contiguous in row order (NULL for a tag), for the caller to overwrite. */
strata_result_t sti_loader_sparse(sti_loader_t *l, uint32_t c, sti_table_t *t, uint32_t row, uint32_t n,
                                  unsigned char **values);

/* Append index `index` to the free list (saves list it head first), its
 * next handle to have `generation`. False as for sti_loader_place. */
bool sti_loader_free(sti_loader_t *l, uint32_t index, uint32_t generation);

/* Finish: every index must be placed or free (or, if `fill_free`, the
 * missing ones are appended to the free list in ascending order, with
 * generation 1). Then the changes go to the report (LOST ones first, those
 * that lost nothing left out), the fresh world's contents are swapped into
 * the target, and the old contents freed. A migration that would lose
 * values without accept_loss stops before the swap: STRATA_ERR_SCHEMA,
 * with the changes in the report. */
strata_result_t sti_loader_finish(sti_loader_t *l, bool fill_free);

/* Give up: free the fresh world and everything the load held. */
void sti_loader_abort(sti_loader_t *l);

/* A loader for w, allocated and begun (sti_loader_begin); on failure
 * (STRATA_ERR_NOMEM) the report says so and *out is NULL. Free it with the
 * world's allocator once finished or aborted. */
strata_result_t sti_loader_open(strata_world_t *w, strata_load_report_t *report, sti_loader_t **out);

/* The body of one load: fills l's fresh world from ctx and, when all went
 * well, returns sti_loader_finish's result; else the error it met. */
typedef strata_result_t (*sti_load_body_fn)(sti_loader_t *l, void *ctx);

/* A whole load into w: a loader opened, `body` run (unless w has no
 * reflection to load with: STRATA_ERR_SCHEMA), aborted on any error. */
strata_result_t sti_load_run(strata_world_t *w, strata_load_report_t *report, sti_load_body_fn body, void *ctx);

#endif /* STRATA_SAVE_LOADER_H */

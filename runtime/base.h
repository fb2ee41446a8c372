/* base.h: the bottom layer of the runtime. Compiler attributes, the mask
 * operations and the one query-match predicate, the world's state (each
 * field names the module that owns it) and the deferral counter.
 *
 * The runtime is layered: a module includes only its own header and those
 * of lower layers (runtime/LAYERS lists the order; runtime/README.md says
 * which file owns which rule). Internal names start with sti_ / STI_;
 * strata_ / STRATA_ names are the public API of strata.h.
 */
#ifndef STI_BASE_H
#define STI_BASE_H

#include "strata.h"

#include <stdint.h>
#include <string.h>

/* The hot paths rely on these small functions being inlined (with their
 * `small` argument a constant); the cold ones stay out of the way. */
#if defined(__GNUC__) || defined(__clang__)
#define STI_HOT static inline __attribute__((always_inline))
#define STI_COLD __attribute__((noinline, cold))
#define STI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define STI_HOT static inline
#define STI_COLD
#define STI_UNLIKELY(x) (x)
#endif

/* Types of the layers above, which the world holds by pointer. */
typedef struct sti_record_t sti_record_t;             /* entity_index.h */
typedef struct sti_table_t sti_table_t;               /* table.h */
typedef struct sti_query_cache_t sti_query_cache_t;   /* query.h */
typedef struct sti_sparse_t sti_sparse_t;             /* sparse.h */
typedef struct sti_sparse_terms_t sti_sparse_terms_t; /* sparse.h */
typedef struct sti_dirty_t sti_dirty_t;               /* dirty.h */
typedef struct sti_event_buf_t sti_event_buf_t;       /* event.h */
typedef struct sti_relations_t sti_relations_t;       /* link.h */
typedef struct sti_cascades_t sti_cascades_t;         /* cascade.h */
typedef struct sti_pool_t sti_pool_t;                 /* pool.h */
typedef struct sti_slot_t sti_slot_t;                 /* pool.h */

/* The up-calls of the layers below into the relations' modules above
 * them, set by those modules when the world is made: the one way a lower
 * layer calls a higher one (tools/check-layers.py finds no other function
 * pointer in the world, and no member set by a module that is not above
 * every module calling it). A member is NULL when the schema gives it
 * nothing to do, so that a caller tests one pointer. */
typedef struct sti_hooks_t {
    /* relation.c (NULL without relations or field policies): e is being
     * destroyed, still alive, inside a deferral scope (from move.c): the
     * policies of the relations and entity fields naming it, which record
     * what they change for the caller's settle. */
    void (*destroyed)(strata_world_t *w, strata_entity_t e);
    /* relation.c (NULL as destroyed): room for all that e's destroy makes
     * the policies record, made by every caller of a destroy before it
     * (entity.c, command.c); STRATA_ERR_NOMEM: the destroy waits, nothing
     * changed. */
    strata_result_t (*destroy_room)(strata_world_t *w, strata_entity_t e);
    /* link.c (NULL without exclusive relations): room in the index for the
     * links an add of ids (k; `values`, NULL: defaults) to n entities
     * (`entities`, or NULL: n about to be made) files, so that its hooks
     * cannot run out of it; the callers of every add and create that runs
     * hooks make it first (move.c, command.c, entity.c; NOMEM: nothing
     * changed). */
    strata_result_t (*add_room)(strata_world_t *w, uint32_t n, const strata_entity_t *entities, uint32_t k,
                                const uint32_t *ids, const void *const *values);
    /* link.c (NULL without exclusive relations): an add overwrites those of
     * ids (k) that table `had` has (the entity's table before the add); for
     * the exclusive relations among them, take the old link held in row
     * `row` of t out of the index (`added` false, before the write) or file
     * the new one (true, after it). From move.c. */
    void (*relink)(strata_world_t *w, const sti_table_t *had, const sti_table_t *t, uint32_t row, uint32_t k,
                   const uint32_t *ids, bool added);
    /* link.c (NULL without exclusive relations): the ids (k) of an add of
     * `values` to e (STRATA_ENTITY_NULL: entities about to be made) into
     * kept_ids / kept_values without the links that cannot be filed (a
     * dead target, a cycle); returns how many. Every add calls it before
     * it moves anything (move.c, entity.c), so a dropped link leaves e as
     * it was. */
    uint32_t (*links_keep)(strata_world_t *w, strata_entity_t e, uint32_t k, const uint32_t *ids,
                           const void *const *values, uint32_t *kept_ids, const void **kept_values);
} sti_hooks_t;

/* The state of a world. Each group of fields is kept by the module named
 * above it (world.c sets the starting values, the save layer rebuilds them
 * on a load); the layers above read them. */
struct strata_world_t {
    /* world.c */
    const strata_schema_t *schema;
    void *user;                             /* the game's pointer (desc.user) */
    const strata_step_observer_t *observer; /* told around each system of the step (the inspector), or NULL */
    uint32_t component_count;
    void *resources; /* aligned inside resources_block */
    void *resources_block;
    size_t resources_block_size;

    /* mem.c */
    strata_allocator_t allocator;
    size_t bytes; /* held through the allocator, for stats */

    /* event.c: the event buffers (by event id) and the clock that stamps emissions. */
    sti_event_buf_t *events;
    uint64_t event_step;             /* steps begun */
    uint32_t event_position;         /* the running system's position; system_count - 1 between steps */
    strata_event_queue_t event_full; /* the queue of a run that could not open: no room, so emits take the send path */
    sti_event_buf_t *event_staged;   /* in a batch's view: its own buffers, where its emits go (NULL in the world) */
    bool event_lost;                 /* in a batch's view: an emit failed for want of memory (the batch reports it) */

    /* observe.c: hooks, monitors, aspects (set once at creation). */
    /* By column id: the schema's components, then one per aspect (its size,
     * alignment and defaults). schema->components when there is no aspect. */
    const strata_component_desc_t *components;
    uint32_t column_id_count;              /* component_count + aspects */
    uint32_t mask_words;                   /* mask words column ids can use: all that matching and hashing compare */
    strata_component_desc_t *column_descs; /* owned copy behind `components` when there are aspects */
    strata_mask_t hooked;                  /* components with an on_add or on_remove hook */
    uint32_t monitor_count;                /* queries with an aspect or hooks */
    uint32_t monitor_query[STRATA_MAX_MONITORS];  /* their query ids */
    uint32_t monitor_aspect[STRATA_MAX_MONITORS]; /* their aspect column ids, or UINT32_MAX */
    bool has_hooks;                               /* a component or query hook, or an aspect, exists */
    bool hooks_gone;                              /* the entities' on_remove hooks have run: destroy runs none */

    /* dirty.c */
    sti_dirty_t *dirty;
    uint32_t dirty_count;
    uint32_t *query_dirty; /* by query id: its dirty set, or UINT32_MAX */
    uint64_t *query_marks; /* by query id: the sets its write terms feed (its own excluded) */
    uint64_t *trackers;    /* by component id: the sets tracking it */
    uint64_t set_slots;    /* the sets of components with on_set (after the queries' sets) */
    bool sets_pending;     /* a set of set_slots was marked since its on_set hooks last ran */

    /* sparse.c: the components stored sparse (set at creation). Plane k of
     * a table's bitmaps (after the changed sets' planes) is the k-th sparse
     * component by id: a bit a row that holds it. */
    strata_mask_t sparse;                        /* component ids stored sparse */
    uint32_t sparse_count;                       /* their planes */
    uint32_t sparse_first;                       /* the first of them among a table's planes */
    uint32_t mark_planes;                        /* planes a table's bitmaps hold: the changed sets' and these */
    uint8_t sparse_plane[STRATA_MAX_COMPONENTS]; /* by component id: its plane, if sparse */
    uint64_t sparse_hooked;                      /* planes of components with on_add or on_remove */
    uint64_t sparse_observed;                    /* planes whose add or remove runs a hook or changes a monitor */
    uint64_t sparse_plain;                       /* planes neither observed nor tracked by a changed or on_set set */
    uint64_t sparse_now;                         /* sparse_plain, or 0 while a scope is open: the leaf adds' test */
    uint64_t monitor_sparse;                     /* monitors (bit k: monitor k) whose query has sparse terms */
    sti_sparse_t *sparse_sets;                   /* by plane: the values of a component with fields */
    sti_sparse_terms_t *query_sparse;            /* by query id: the planes it requires and excludes */

    /* entity_index.c */
    sti_record_t *records;
    uint32_t record_count; /* indices ever handed out */
    size_t record_capacity;
    uint32_t free_head; /* LIFO free list threaded through record.row */
    uint32_t free_count;
    uint32_t alive;
    uint32_t entity_limit; /* STRATA_MAX_ENTITIES; tests lower it */

    /* archetype.c: tables[0] is the empty table. */
    sti_table_t **tables;
    uint32_t table_count;
    size_t table_capacity;
    uint32_t table_limit;    /* STRATA_MAX_TABLES; tests lower it */
    uint16_t *table_hash;    /* table ids by mask hash, STI_NO_TABLE when empty */
    uint32_t hash_capacity;  /* a power of two, at least twice table_count */
    sti_table_t *last_found; /* the last table found by mask: spawning the same bundle again skips the hash */
    sti_table_t *idle_head;  /* the tables without a row (the empty table aside), in the order they emptied */
    sti_table_t *idle_tail;
    uint32_t table_clock; /* steps ended (capacity.c counts them): when each idle table emptied */
    uint32_t table_epoch; /* bumped when tables are freed: a table id kept from before may name another table */

    /* capacity.c */
    uint32_t free_after; /* desc.free_empty_tables_after: steps a table stays idle before a step's end frees it */
    bool free_requested; /* strata_world_free_empty_tables was called inside a scope: done when the scopes end */

    /* query.c: by query id. */
    sti_query_cache_t *queries;

    /* command.c (defer_depth: the scope helpers below) */
    uint32_t defer_depth;
    bool in_step;
    bool settling;       /* applying commands: hooks' commands join the running settle */
    unsigned char *cmds; /* the command buffer */
    size_t cmd_size;
    size_t cmd_capacity;
    uint32_t cmd_count;
    size_t cmd_last;        /* offset of the last command (while cmd_count > 0): runs grow there */
    unsigned char *scratch; /* a copy of the command being applied (hooks may move the buffer) */
    size_t scratch_capacity;
    strata_entity_t *doomed; /* destroys scheduled for the end of the step */
    uint32_t doomed_count;
    size_t doomed_capacity;

    /* link.c, cascade.c, relation.c: the index of links (NULL without
     * relations or field policies), the cascade passes (NULL without
     * relations), and their up-calls. */
    sti_relations_t *relations;
    sti_cascades_t *cascades;
    sti_hooks_t hooks;
    /* snapshot.c: the clock that stamps writes in place (a table's and a
     * query's `written`), advanced by each take and restore. */
    uint32_t snap_clock;
    /* bulk.c: the entities a query's bulk change gathers, kept for the next. */
    strata_entity_t *bulk;
    size_t bulk_capacity;

    /* pool.c: the worker threads; in a system's view of the world during a
     * batch (a copy of this struct), the slot that records what it does. */
    sti_pool_t *pool;
    sti_slot_t *slot; /* NULL in the world itself */
};

/* --- Masks --------------------------------------------------------------- */

/* True if a and b agree on their first `words` words. */
static inline bool sti_mask_equal(const strata_mask_t *a, const strata_mask_t *b, uint32_t words) {
    for (uint32_t i = 0; i < words; i++) {
        if (a->bits[i] != b->bits[i]) {
            return false;
        }
    }
    return true;
}

/* True if any bit of a is set in b as well. */
static inline bool sti_mask_meets(const strata_mask_t *a, const strata_mask_t *b) {
    for (uint32_t i = 0; i < STRATA_MAX_COMPONENTS / 64; i++) {
        if ((a->bits[i] & b->bits[i]) != 0) {
            return true;
        }
    }
    return false;
}

/* True if the mask has no bit set. */
static inline bool sti_mask_empty(const strata_mask_t *m) {
    for (uint32_t i = 0; i < STRATA_MAX_COMPONENTS / 64; i++) {
        if (m->bits[i] != 0) {
            return false;
        }
    }
    return true;
}

/* The bits of a that b lacks, among those of `among`. */
static inline strata_mask_t sti_mask_minus(const strata_mask_t *a, const strata_mask_t *b, const strata_mask_t *among) {
    strata_mask_t m;
    for (uint32_t i = 0; i < STRATA_MAX_COMPONENTS / 64; i++) {
        m.bits[i] = a->bits[i] & ~b->bits[i] & among->bits[i];
    }
    return m;
}

/* In a bitmap of rows (a bit a row): row `last` fills row `row` (last's
 * bit cleared; last may be row), as a swap-remove moves the rows; returns
 * row's bit as it was (1 or 0). The changed sets and the sparse
 * components' planes move their bits with it. */
STI_HOT uint64_t sti_bits_move(uint64_t *bits, uint32_t row, uint32_t last) {
    uint64_t *at = bits + row / 64, *end = bits + last / 64;
    uint64_t r = (uint64_t)1 << (row & 63), l = (uint64_t)1 << (last & 63);
    uint64_t in = *at & r;
    if ((*end & l) != 0) { /* the last row is in: it moves into row (or row was last and goes) */
        *end &= ~l;
        *at |= row != last ? r : 0;
    } else if (in != 0) {
        *at &= ~r;
    }
    return in != 0;
}

/* True if a table of `mask` matches query q: every table component of its
 * `all`, none of its `none` (its sparse terms are the rows' to meet,
 * sparse.h). The one match rule: the query cache, monitors, dirty sets and
 * aspect columns all ask it. */
static inline bool sti_query_matches(const strata_world_t *w, uint32_t q, const strata_mask_t *mask) {
    const strata_query_desc_t *d = &w->schema->queries[q];
    for (uint32_t i = 0; i < w->mask_words; i++) {
        if ((d->all.bits[i] & ~w->sparse.bits[i] & ~mask->bits[i]) != 0 || (d->none.bits[i] & mask->bits[i]) != 0) {
            return false;
        }
    }
    return true;
}

/* --- Deferral ------------------------------------------------------------ */

/* True while structural changes are recorded instead of applied: the one
 * test every entry point makes (command.c applies what waits). */
STI_HOT bool sti_deferred(const strata_world_t *w) {
    return w->defer_depth > 0;
}

/* Open a deferral scope (scopes nest); hooks run inside one. */
static inline void sti_scope_open(strata_world_t *w) {
    w->defer_depth++;
    w->sparse_now = 0;
}

/* Close a scope without applying anything: the caller settles (command.c). */
static inline void sti_scope_close(strata_world_t *w) {
    w->defer_depth--;
    w->sparse_now = w->defer_depth == 0 ? w->sparse_plain : 0;
}

#endif /* STI_BASE_H */

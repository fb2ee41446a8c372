/* table.h: one archetype: the rows of one component set. An entity-id
 * column and one column per non-tag component (aspects included), each an
 * array grown with realloc; the table caches its neighbours in the
 * archetype graph (archetype.c fills the edges).
 *
 * The allocator hooks must return memory aligned at least as malloc's is for
 * 8-byte types; component columns are aligned by the table itself, whatever
 * their alignment.
 */
#ifndef STI_TABLE_H
#define STI_TABLE_H

#include "entity_index.h"

/* edge.hole of an edge whose component is a tag (both tables have the same columns). */
#define STI_NO_HOLE 0xffffu

/* One non-tag column of a table, in the table's dense list. */
typedef struct sti_column_t {
    unsigned char *data; /* same pointer as table->columns[id]; both move when the column grows */
    uint32_t size;       /* element bytes */
    uint32_t id;         /* component id */
    void *raw;           /* the allocation; data sits inside it when the alignment exceeds 8 */
    size_t raw_size;     /* its bytes: may exceed the table's capacity after a failed growth */
} sti_column_t;

/* The size classes of a copy plan, each copied with its own constant-size
 * loop; STI_PLAN_ANY is every other size (its own size, memcpy above
 * STI_SMALL_SIZE). */
enum { STI_PLAN_4, STI_PLAN_8, STI_PLAN_12, STI_PLAN_16, STI_PLAN_ANY, STI_PLAN_CLASSES };

/* Pairs a copier of one size class copies in straight-line code. */
#define STI_PLAN_UNROLL 2u
/* The copier of a plan whose `total` pairs all have size class k (< STI_PLAN_ANY):
 * one for each count up to STI_PLAN_UNROLL, then one with a loop; mixed
 * sizes (k == STI_PLAN_ANY) have one of their own. */
#define STI_PLAN_COPIER(k, total)                                                                                      \
    ((k) * (STI_PLAN_UNROLL + 1u) + ((k) < STI_PLAN_ANY && (total) <= STI_PLAN_UNROLL ? (total) : 0u))
#define STI_PLAN_COPIERS (STI_PLAN_ANY * (STI_PLAN_UNROLL + 1u) + 1u)

/* One column a move copies: its column in the source table and in the
 * destination table. */
typedef struct sti_plan_pair_t {
    const sti_column_t *src, *dst;
} sti_plan_pair_t;

/* The column work of a move along one edge, worked out once when the edge
 * is made: the columns both tables have, as (source, destination) pairs
 * grouped by size class (count[k] pairs of class k, in class order), and
 * the column only the source has (a remove edge's component), which only
 * the swap-remove in the source copies. Column structs never move (the
 * table's allocation holds them), so the plan stays valid as columns grow. */
typedef struct sti_plan_t {
    uint32_t count[STI_PLAN_CLASSES];
    uint32_t total;              /* pairs */
    uint32_t copier;             /* its copier in move.c's sti_plan_copiers: STI_PLAN_COPIER(class, total) */
    const sti_column_t *dropped; /* or NULL */
    size_t alloc_size;
    sti_plan_pair_t pairs[];
} sti_plan_t;

/* A table's place in the list of one query that matches it (query.c
 * keeps `at` true as tables move within the list). */
typedef struct sti_listing_t {
    uint32_t query; /* query id */
    uint32_t at;    /* position in the query's list */
} sti_listing_t;

/* One edge of the archetype graph, between a table and the one with a
 * component more. */
typedef struct sti_edge_t {
    struct sti_table_t *table; /* the neighbour; NULL until first used */
    sti_plan_t *plan;          /* the column work of a move this way (NULL if hooked); owned by this slot */
    uint32_t hole;             /* index of the component's column in the larger table's dense list, or STI_NO_HOLE */
    bool hooked;               /* the move runs hooks or changes aspects (move.c takes its hooked path) */
    bool plain; /* not hooked, no changed set or sparse component in the world, an added value small: the leaf path */
} sti_edge_t;

/* One archetype. The struct with its edges, the dense list, the columns
 * array and the listings are one allocation; the entity column and each
 * component column are one more each, grown with realloc (so large ones are
 * remapped, not copied). */
struct sti_table_t {
    strata_mask_t mask;
    uint32_t id;           /* index in world->tables; what records store */
    uint32_t count;        /* rows in use */
    uint32_t moved;        /* bumped when a row leaves or rows reorder (appends only raise count) */
    uint32_t written;      /* world->snap_clock when a row was last written in place (snapshot.c reads it) */
    uint32_t capacity;     /* rows every column holds */
    uint32_t room;         /* capacity while it has rows, 0 without: the leaf paths' one test of room keeps
                            * them off an empty table too (its first row moves it in its queries' lists) */
    uint32_t column_count; /* entries of dense */
    uint32_t max_size;     /* of its columns' elements: above STI_SMALL_SIZE, moves call memcpy */
    strata_entity_t *entities;
    size_t entities_size; /* bytes allocated for entities: may exceed the capacity after a failed growth */
    void **columns;       /* by component id; NULL if absent or a tag (what iterators expose) */
    sti_column_t *dense;  /* the non-tag columns by ascending id, so moves never scan all ids */
    size_t alloc_size;    /* bytes of this struct's own allocation */
    uint64_t monitors;    /* bit k: matches monitored query k (so has its aspect column) */
    uint64_t tracked_by;  /* bit k: matches the query of dirty set k */
    /* The changed sets' bitmaps (dirty.h): a bit a row, mark_words words a
     * plane; plane k holds set k's members, plane dirty_count + k the marks
     * made while set k's visit is open; then (sparse.h) a plane a sparse
     * component, its rows that hold it. Rows past count have no bits. */
    uint64_t *marks;
    uint32_t mark_words;                    /* words a plane (64 rows a word) */
    uint64_t listed;                        /* bit k: on set k's list of tables (may have bits there) */
    uint64_t sparse_any;                    /* bit k: sparse plane k may have bits (sparse.h) */
    uint64_t later;                         /* bit k: has bits in set k's second plane */
    uint16_t mark_next[STRATA_MAX_CHANGED]; /* by set: the next table id on its list */
    bool hooked;                            /* monitors != 0 or a component with a hook: destroy runs hooks */
    /* The queries it matches, by ascending id, and its place in each one's
     * list (query.c): listing_count of them, fixed at creation. */
    sti_listing_t *listings;
    uint32_t listing_count;
    /* archetype.c: while it has no row (the empty table aside), its place
     * on the world's list of idle tables, in the order they emptied, and
     * the steps ended when it joined (world->table_clock). */
    uint32_t idle_since;
    struct sti_table_t *idle_prev, *idle_next;
    /* By component id c: [c] leads to the table with c added, [component_count + c]
     * to the one with c removed. Inline, so the hot path saves a load. */
    sti_edge_t edges[];
};

/* A new empty table of `mask` with id `id`, no rows, no edges, not yet
 * classified or registered (archetype.c does that; its listings are
 * sized for the queries it matches); NULL on NOMEM. */
sti_table_t *sti_table_alloc(strata_world_t *w, const strata_mask_t *mask, uint32_t id);
/* The copy plan of a move from src to dst (tables that differ by one
 * component and no aspect), or NULL on NOMEM. */
sti_plan_t *sti_plan_make(strata_world_t *w, const sti_table_t *src, const sti_table_t *dst);
/* Free a table and its rows. */
void sti_table_free(strata_world_t *w, sti_table_t *t);
/* Bytes to allocate for `cap` elements of a column (room to align its
 * start included); 0 on overflow. */
size_t sti_column_bytes(const strata_world_t *w, const sti_column_t *col, size_t cap);
/* Grow a column's allocation to `bytes` (sti_column_bytes), keeping its
 * first `count` elements at an aligned start; NOMEM leaves it as it was.
 * Tables grow theirs with it, and so do the sparse sets their values. */
strata_result_t sti_column_grow(strata_world_t *w, sti_column_t *col, size_t bytes, uint32_t count);
/* Make room for `extra` more rows, growing geometrically. STRATA_ERR_NOMEM
 * leaves the table as it was. */
strata_result_t sti_table_reserve(strata_world_t *w, sti_table_t *t, uint32_t extra);
/* Fault in the pages of t's room past its rows (each array's unused
 * part written once a page), so the rows that fill it later meet no page
 * fault. */
void sti_table_touch(const sti_table_t *t);

/* A row of t is written in place (set, mut, a hook, a policy): stamped
 * with the snapshot clock, so the next snapshot copies t. Views of a batch
 * stamp the same value from several threads, hence the atomic store. */
STI_HOT void sti_table_wrote(const strata_world_t *w, sti_table_t *t) {
    __atomic_store_n(&t->written, w->snap_clock, __ATOMIC_RELAXED);
}

/* Room for one more row (the hot path only compares). */
STI_HOT strata_result_t sti_table_room(strata_world_t *w, sti_table_t *t) {
    return t->count < t->capacity ? STRATA_OK : sti_table_reserve(w, t, 1);
}

/* The address of column id's element at `row` of t, or NULL (absent or a tag). */
static inline void *sti_table_cell(const strata_world_t *w, const sti_table_t *t, uint32_t id, uint32_t row) {
    unsigned char *col = t->columns[id];
    return col != NULL ? col + (size_t)row * w->components[id].size : NULL;
}

/* Write component c's value at dst: `value`, else its defaults, else zeros. */
static inline void sti_value_write(const strata_world_t *w, void *dst, uint32_t c, const void *value) {
    const strata_component_desc_t *desc = &w->components[c];
    if (value == NULL) {
        value = desc->defaults;
    }
    if (value != NULL) {
        sti_copy(dst, value, desc->size);
    } else {
        memset(dst, 0, desc->size);
    }
}

/* Write the values of ids (k; tags skipped; values NULL or an entry NULL:
 * defaults) at `row` of t. */
static inline void sti_table_write(const strata_world_t *w, const sti_table_t *t, uint32_t row, uint32_t k,
                                   const uint32_t *ids, const void *const *values) {
    for (uint32_t i = 0; i < k; i++) {
        void *cell = sti_table_cell(w, t, ids[i], row);
        if (cell != NULL) {
            sti_value_write(w, cell, ids[i], values != NULL ? values[i] : NULL);
        }
    }
}

/* sti_table_write for the n new rows [row, row + n): large fills are a few big copies. */
void sti_table_fill(const strata_world_t *w, const sti_table_t *t, uint32_t row, uint32_t n, uint32_t k,
                    const uint32_t *ids, const void *const *values);

#endif /* STI_TABLE_H */

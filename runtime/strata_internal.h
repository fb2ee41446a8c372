/* strata_internal.h: the runtime's private types and the small lookups its
 * modules share. Nothing here is part of the public contract (strata.h).
 *
 * Layout in one paragraph: an entity is a record {row, generation, table,
 * flags} in a flat array indexed by the handle's low 32 bits. A table holds
 * the rows of one component set: an entity-id column and one column per
 * non-tag component, each an array. Tables cache their neighbours in the
 * archetype graph (add/remove edges per component id) and are found by mask
 * through a small open-addressing hash when an edge is not yet known. Each
 * query keeps the list of tables it matches.
 *
 * The allocator hooks must return memory aligned at least as malloc's is for
 * 8-byte types; component columns and the resource block are aligned by the
 * runtime itself, whatever their alignment.
 */
#ifndef STRATA_INTERNAL_H
#define STRATA_INTERNAL_H

#include "strata.h"

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

/* record.table of a free index. */
#define STI_NO_TABLE 0xffffu
/* The end of the free list. */
#define STI_NO_INDEX 0xffffffffu
/* record.flags: a destroy is scheduled (step end or deferred command). */
#define STI_FLAG_DOOMED 1u
/* record.flags: the entity is in dirty set k (bits 1..15, so at most 15 sets). */
#define STI_FLAG_DIRTY(k) (2u << (k))
/* edge.hole of an edge whose component is a tag (both tables have the same columns). */
#define STI_NO_HOLE 0xffffu

/* One entity index. 12 bytes, so an entity costs 20 bytes beyond its
 * component bytes (this record and its handle in the table). */
typedef struct sti_record_t {
    uint32_t row;        /* row in its table; while free, the next free index */
    uint32_t generation; /* of the live handle; while free, of the next one (never 0) */
    uint16_t table;      /* table id; STI_NO_TABLE while free */
    uint16_t flags;      /* STI_FLAG_* */
} sti_record_t;

/* One non-tag column of a table, in the table's dense list. */
typedef struct sti_column_t {
    unsigned char *data; /* same pointer as table->columns[id]; both move when the column grows */
    uint32_t size;       /* element bytes */
    uint32_t id;         /* component id */
    void *raw;           /* the allocation; data sits inside it when the alignment exceeds 8 */
    size_t raw_size;     /* its bytes: may exceed the table's capacity after a failed growth */
} sti_column_t;

/* One edge of the archetype graph, between a table and the one with a
 * component more. */
typedef struct sti_edge_t {
    struct sti_table_t *table; /* the neighbour; NULL until first used */
    uint32_t hole; /* index of the component's column in the larger table's dense list, or STI_NO_HOLE */
    bool general;  /* the move runs hooks or changes aspects: take sti_move_general */
} sti_edge_t;

/* One archetype. The struct with its edges, the dense list and the columns
 * array are one allocation; the entity column and each component column are
 * one more each, grown with realloc (so large ones are remapped, not copied). */
typedef struct sti_table_t {
    strata_mask_t mask;
    uint32_t id;             /* index in world->tables; what records store */
    uint32_t count;          /* rows in use */
    uint32_t capacity;       /* rows every column holds */
    uint32_t column_count;   /* entries of dense */
    uint32_t max_size;       /* of its columns' elements: above STI_SMALL_SIZE, moves call memcpy */
    strata_entity_t *entities;
    size_t entities_size;    /* bytes allocated for entities: may exceed the capacity after a failed growth */
    void **columns;          /* by component id; NULL if absent or a tag (what iterators expose) */
    sti_column_t *dense;  /* the non-tag columns by ascending id, so moves never scan all ids */
    size_t alloc_size;       /* bytes of this struct's own allocation */
    uint64_t monitors;       /* bit k: matches monitored query k (so has its aspect column) */
    uint64_t tracked_by;     /* bit k: matches the query of dirty set k */
    bool hooked;             /* monitors != 0 or a component with a hook: destroy runs hooks */
    /* By component id c: [c] leads to the table with c added, [component_count + c]
     * to the one with c removed. Inline, so the hot path saves a load. */
    sti_edge_t edges[];
} sti_table_t;

/* The tables one query matches, in creation order. */
typedef struct sti_query_cache_t {
    sti_table_t **tables;
    uint32_t count;
    uint32_t capacity;
} sti_query_cache_t;

/* Kinds of deferred command. */
typedef enum sti_cmd_kind_t {
    STI_CMD_ADD = 1,     /* add components (values follow) to n entities */
    STI_CMD_REMOVE = 2,  /* remove components from one entity */
    STI_CMD_DESTROY = 3, /* destroy one entity */
} sti_cmd_kind_t;

/* A deferred command's header in the command buffer. Then come the n
 * entity handles, the k component ids and (ADD) each non-tag value's bytes
 * in id order; the record is padded to a multiple of 8 bytes. */
typedef struct sti_cmd_t {
    size_t size;   /* bytes of the record, header included */
    uint32_t kind; /* sti_cmd_kind_t */
    uint32_t n;    /* entities */
    uint32_t done; /* entities already applied, so a flush that failed resumes after them */
    uint32_t k;    /* component ids */
} sti_cmd_t;

/* The set of entities written since a `changed` query last ran. Membership
 * is a flag bit in each entity's record (loaded anyway by whoever marks or
 * visits), so marking is a bit test and an append, and an entity shows up
 * once however often it is written. */
typedef struct sti_dirty_t {
    uint32_t query;        /* the query it belongs to */
    bool busy;             /* an iteration over it is open */
    strata_entity_t *list; /* the entries in marking order; stale ones are skipped */
    uint32_t count;
    uint32_t capacity;     /* at least record_capacity: a compaction always makes room */
    uint32_t cursor;       /* while busy: the next entry to visit */
    uint32_t end;          /* while busy: the entries this iteration visits */
} sti_dirty_t;

struct strata_world_t {
    const strata_schema_t *schema;
    /* By column id: the schema's components, then one per aspect (its size,
     * alignment and defaults). schema->components when there is no aspect. */
    const strata_component_desc_t *components;
    strata_allocator_t allocator;
    void *user;                /* the game's pointer (desc.user) */
    size_t bytes;              /* held through the allocator, for stats */
    uint32_t component_count;
    uint32_t column_id_count;  /* component_count + aspects */
    uint32_t mask_words;       /* mask words column ids can use: all that hashing compares */

    /* Hooks and aspects. */
    strata_component_desc_t *column_descs; /* owned copy behind `components` when there are aspects */
    strata_mask_t hooked;      /* components with an on_add or on_remove hook */
    uint32_t monitor_count;    /* queries with an aspect or hooks */
    uint32_t monitor_query[STRATA_MAX_MONITORS];  /* their query ids */
    uint32_t monitor_aspect[STRATA_MAX_MONITORS]; /* their aspect column ids, or UINT32_MAX */
    bool has_hooks;            /* a component or query hook, or an aspect, exists */
    bool flushing;             /* applying commands: hooks' commands join the running flush */
    bool hooks_gone;           /* the entities' on_remove hooks have run: destroy runs none */
    unsigned char *scratch;    /* a copy of the command being applied (hooks may move the buffer) */
    size_t scratch_capacity;

    /* Dirty sets. */
    sti_dirty_t *dirty;
    uint32_t dirty_count;
    uint32_t *query_dirty;     /* by query id: its dirty set, or UINT32_MAX */
    uint64_t *query_marks;     /* by query id: the sets its write terms feed (its own excluded) */
    uint64_t *trackers;        /* by component id: the sets tracking it */

    /* Entities. */
    sti_record_t *records;
    uint32_t record_count;     /* indices ever handed out */
    uint32_t record_capacity;
    uint32_t free_head;        /* LIFO free list threaded through record.row */
    uint32_t free_count;
    uint32_t alive;
    uint32_t entity_limit;     /* STRATA_MAX_ENTITIES; tests lower it */

    /* Tables; tables[0] is the empty table. */
    sti_table_t **tables;
    uint32_t table_count;
    uint32_t table_capacity;
    uint32_t table_limit;      /* STRATA_MAX_TABLES; tests lower it */
    uint16_t *table_hash;      /* table ids by mask hash, STI_NO_TABLE when empty */
    uint32_t hash_capacity;    /* a power of two, at least twice table_count */
    sti_table_t *last_found; /* the last table found by mask: spawning the same bundle again skips the hash */

    /* Queries, by id. */
    sti_query_cache_t *queries;

    /* Deferral. */
    uint32_t defer_depth;
    bool in_step;
    unsigned char *cmds;       /* the command buffer */
    size_t cmd_size;
    size_t cmd_capacity;
    uint32_t cmd_count;
    strata_entity_t *doomed;   /* destroys scheduled for the end of the step */
    uint32_t doomed_count;
    uint32_t doomed_capacity;

    /* Resources. */
    void *resources;           /* aligned inside resources_block */
    void *resources_block;
    size_t resources_block_size;
};

/* --- Memory (world.c) ---------------------------------------------------- */

/* Allocate through the world's hooks and count the bytes; NULL on failure. */
void *sti_mem_alloc(strata_world_t *w, size_t size);
/* Grow `p` (old_size bytes; NULL allowed) to size; NULL on failure (p kept). */
void *sti_mem_realloc(strata_world_t *w, void *p, size_t old_size, size_t size);
/* Free `p` of `size` bytes; NULL is a no-op. */
void sti_mem_free(strata_world_t *w, void *p, size_t size);

/* --- Entities (entity.c) ------------------------------------------------- */

/* Make room for `fresh` new indices. STRATA_ERR_NOMEM leaves the world as it was. */
strata_result_t sti_records_reserve(strata_world_t *w, uint32_t fresh);
/* Destroy a live entity now: swap-remove its row, free its index. */
void sti_entity_destroy_now(strata_world_t *w, sti_record_t *rec);

/* --- Components (component.c) -------------------------------------------- */

/* Add (or overwrite) components of a live entity now, with one move. On
 * error the world is as it was (but for an empty new table). */
strata_result_t sti_component_add_now(strata_world_t *w, sti_record_t *rec, uint32_t k, const uint32_t *ids,
                                         const void *const *values);
/* Remove the components a live entity has among ids now, with one move;
 * STRATA_ERR_MISSING if it has none. */
strata_result_t sti_component_remove_now(strata_world_t *w, sti_record_t *rec, uint32_t k, const uint32_t *ids);

/* --- Tables (table.c) ---------------------------------------------------- */

/* The table of `mask`, created if needed (STRATA_ERR_NOMEM / STRATA_ERR_LIMIT
 * and *out untouched on failure; the world is then as it was). */
strata_result_t sti_table_ensure(strata_world_t *w, const strata_mask_t *mask, sti_table_t **out);
/* Find or create the neighbour of `src` with `c` added (add) or removed,
 * cache the edge both ways and return it in *out (unless NULL). */
strata_result_t sti_table_edge(strata_world_t *w, sti_table_t *src, uint32_t c, bool add, sti_edge_t *out);
/* Make room for `extra` more rows, growing geometrically. STRATA_ERR_NOMEM
 * leaves the table as it was. */
strata_result_t sti_table_reserve(strata_world_t *w, sti_table_t *t, uint32_t extra);
/* Free a table and its rows. */
void sti_table_free(strata_world_t *w, sti_table_t *t);
/* The column work of a move along an add edge, after the bookkeeping (so
 * src->count is the old last row and dst->count - 1 the new row): row
 * `row` of src's columns goes to the new row of dst's (skipping
 * dst->dense[hole], which the caller fills), then src's last row fills row
 * `row`. Every column at most STI_SMALL_SIZE bytes. Out of line, so the
 * callers stay small. */
void sti_columns_add_small(const sti_table_t *src, const sti_table_t *dst, uint32_t hole, uint32_t row);
/* sti_columns_add_small for tables with a larger column (memcpy calls). */
void sti_columns_add_large(const sti_table_t *src, const sti_table_t *dst, uint32_t hole, uint32_t row);
/* The same along a remove edge: src->dense[hole], absent from dst, is dropped. */
void sti_columns_remove_small(const sti_table_t *src, const sti_table_t *dst, uint32_t hole, uint32_t row);
/* sti_columns_remove_small for tables with a larger column (memcpy calls). */
void sti_columns_remove_large(const sti_table_t *src, const sti_table_t *dst, uint32_t hole, uint32_t row);

/* --- Queries (query.c) --------------------------------------------------- */

/* Make room in every query that a table of `mask` would join. */
strata_result_t sti_query_reserve(strata_world_t *w, const strata_mask_t *mask);
/* Append a new table to the queries it matches (room reserved before). */
void sti_query_register(strata_world_t *w, sti_table_t *t);

/* --- Hooks, aspects and dirty sets (hook.c) ----------------------------- */

/* Set up aspects, monitors and dirty sets from the schema (at creation, before any table). */
strata_result_t sti_hooks_init(strata_world_t *w);
/* Free what sti_hooks_init and the dirty sets hold. */
void sti_hooks_free(strata_world_t *w);
/* Make a table mask canonical: its aspect bits are those of the monitored queries it matches. */
void sti_mask_normalize(const strata_world_t *w, strata_mask_t *mask);
/* Fill a new table's monitors / tracked_by / hooked. */
void sti_table_classify(const strata_world_t *w, sti_table_t *t);
/* True if moving between src and dst must run hooks or change aspects. */
bool sti_move_is_general(const strata_world_t *w, const sti_table_t *src, const sti_table_t *dst);
/* Move a live entity from src to dst (room reserved) running hooks: on_remove
 * for what it stops matching or loses, the move, the values of ids (k; tags
 * and NULL values as for adds), new aspects at their defaults, on_add for
 * what it starts matching or gains. Then settles deferred commands. */
void sti_move_general(strata_world_t *w, sti_record_t *rec, sti_table_t *src, sti_table_t *dst,
                         uint32_t k, const uint32_t *ids, const void *const *values);
/* Run the on_remove hooks of a live entity about to be destroyed. */
void sti_hooks_destroy(strata_world_t *w, sti_record_t *rec);
/* Every entity of w is about to go (world destroyed, or replaced by a load):
 * run their on_remove hooks once. */
void sti_hooks_destroy_all(strata_world_t *w);
/* Every entity of w has just arrived (a load; aspects at their defaults): run
 * their on_add hooks and mark them changed, as if each had been created. */
void sti_hooks_loaded(strata_world_t *w);
/* New rows [row, row + n) of t are in place: make their aspects, run on_add hooks. */
void sti_hooks_created(strata_world_t *w, sti_table_t *t, uint32_t row, uint32_t n);
/* Grow the dirty sets with the records (to `capacity` indices); NOMEM changes nothing visible. */
strata_result_t sti_dirty_reserve(strata_world_t *w, uint32_t capacity);
/* Mark e (index valid) in the sets of `slots`. */
void sti_dirty_mark(strata_world_t *w, uint64_t slots, strata_entity_t e);
/* Mark rows [row, row + n) of t in the sets query q's writes feed. */
void sti_dirty_mark_rows(strata_world_t *w, uint32_t q, const sti_table_t *t, uint32_t row, uint32_t n);
/* The next changed row of it's query (marked in the sets its writes feed),
 * or false when the set's entries are visited. */
bool sti_dirty_next(strata_iter_t *it);
/* Close an iteration over a dirty set: keep what it did not visit and what was marked meanwhile. */
void sti_dirty_close(strata_iter_t *it);

/* --- Commands (command.c) ------------------------------------------------ */

/* Bytes a command needs in the buffer; 0 if that does not fit in size_t. */
size_t sti_command_bytes(const strata_world_t *w, sti_cmd_kind_t kind, uint32_t n, uint32_t k,
                            const uint32_t *ids);
/* Make room for `bytes` more bytes of commands. */
strata_result_t sti_command_reserve(strata_world_t *w, size_t bytes);
/* Append a command of `bytes` (sti_command_bytes) whose room was reserved;
 * values are copied (NULL: defaults). */
void sti_command_write(strata_world_t *w, size_t bytes, sti_cmd_kind_t kind, uint32_t n,
                          const strata_entity_t *entities, uint32_t k, const uint32_t *ids,
                          const void *const *values);
/* Reserve and append in one go. STRATA_ERR_NOMEM records nothing. */
strata_result_t sti_command_push(strata_world_t *w, sti_cmd_kind_t kind, const strata_entity_t *e, uint32_t k,
                                    const uint32_t *ids, const void *const *values);
/* Apply what waits if no scope is open and no flush is running. */
strata_result_t sti_command_settle(strata_world_t *w);

/* --- Small lookups on the hot paths -------------------------------------- */

/* The record of a live entity, or NULL for a stale handle. */
STI_HOT sti_record_t *sti_record_lookup(const strata_world_t *w, strata_entity_t e) {
    uint32_t index = (uint32_t)e;
    if (index >= w->record_count) {
        return NULL;
    }
    sti_record_t *rec = &w->records[index];
    /* A free record holds the generation of a handle not issued yet; the
     * table check also rejects such a forged handle. */
    if (rec->generation != (uint32_t)(e >> 32) || rec->table == STI_NO_TABLE) {
        return NULL;
    }
    return rec;
}

/* The handle of index `index` at generation `generation`. */
static inline strata_entity_t sti_entity_make(uint32_t index, uint32_t generation) {
    return ((strata_entity_t)generation << 32) | index;
}

/* The largest column element the hot paths copy inline; a table with a
 * larger one moves rows through memcpy calls instead. */
#define STI_SMALL_SIZE 32u

/* Copy one element of size <= STI_SMALL_SIZE without calling memcpy (a
 * call would make every move save registers). The usual sizes get one
 * fixed-size copy; the others two overlapping ones. The size is the same
 * for a whole column, so the branches predict. */
STI_HOT void sti_copy_small(void *restrict dst, const void *restrict src, size_t size) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (size == 8) {
        memcpy(d, s, 8);
    } else if (size == 4) {
        memcpy(d, s, 4);
    } else if (size == 16) {
        memcpy(d, s, 16);
    } else if (size > 16) {
        memcpy(d, s, 16);
        memcpy(d + size - 16, s + size - 16, 16);
    } else if (size > 8) {
        memcpy(d, s, 8);
        memcpy(d + size - 8, s + size - 8, 8);
    } else if (size > 4) {
        memcpy(d, s, 4);
        memcpy(d + size - 4, s + size - 4, 4);
    } else if (size >= 2) {
        memcpy(d, s, 2);
        memcpy(d + size - 2, s + size - 2, 2);
    } else if (size == 1) {
        *d = *s;
    }
}

/* Copy one element of any size. */
static inline void sti_copy(void *restrict dst, const void *restrict src, size_t size) {
    if (size <= STI_SMALL_SIZE) {
        sti_copy_small(dst, src, size);
    } else {
        memcpy(dst, src, size);
    }
}

/* Copy one element in a move: inline when the table pair has only small
 * columns (`small` is a constant wherever the moves are inlined). */
STI_HOT void sti_copy_move(void *restrict dst, const void *restrict src, size_t size, bool small) {
    if (small) {
        sti_copy_small(dst, src, size);
    } else {
        memcpy(dst, src, size);
    }
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

/* Mark e in the dirty sets tracking any of ids; nothing to do (one load and
 * a branch) when no query tracks changes. */
STI_HOT void sti_mark_ids(strata_world_t *w, strata_entity_t e, uint32_t k, const uint32_t *ids) {
    if (w->dirty_count == 0) {
        return;
    }
    uint64_t slots = 0;
    for (uint32_t i = 0; i < k; i++) {
        slots |= w->trackers[ids[i]];
    }
    if (slots != 0) {
        sti_dirty_mark(w, slots, e);
    }
}

/* Remove row `row` of t by moving the last row into it (and fixing the
 * moved entity's record). */
STI_HOT void sti_table_remove_row(strata_world_t *w, sti_table_t *t, uint32_t row) {
    uint32_t last = --t->count;
    if (row == last) {
        return;
    }
    bool small = t->max_size <= STI_SMALL_SIZE;
    for (uint32_t i = 0; i < t->column_count; i++) {
        const sti_column_t *col = &t->dense[i];
        sti_copy_move(col->data + (size_t)row * col->size, col->data + (size_t)last * col->size, col->size, small);
    }
    strata_entity_t moved = t->entities[last];
    t->entities[row] = moved;
    w->records[(uint32_t)moved].row = row;
}

/* The bookkeeping of a move (columns aside): the handle goes to the end of
 * dst, the last handle of src fills its place, both records follow.
 * Returns the new row. */
STI_HOT uint32_t sti_table_move_finish(strata_world_t *w, sti_record_t *rec, sti_table_t *src,
                                             sti_table_t *dst) {
    uint32_t row = rec->row;
    uint32_t last = src->count - 1;
    uint32_t to = dst->count;
    strata_entity_t *from = src->entities;
    dst->entities[to] = from[row];
    if (row != last) {
        strata_entity_t moved = from[last];
        from[row] = moved;
        w->records[(uint32_t)moved].row = row;
    }
    src->count = last;
    dst->count = to + 1;
    rec->table = (uint16_t)dst->id;
    rec->row = to;
    return to;
}

/* Move an entity's row from src to the end of dst (room reserved) along an
 * add edge: dst has src's columns plus, unless hole is STI_NO_HOLE,
 * dst->dense[hole], left for the caller to fill. Returns the new row. */
STI_HOT uint32_t sti_table_move_add(strata_world_t *w, sti_record_t *rec, sti_table_t *src,
                                          sti_table_t *dst, uint32_t hole) {
    uint32_t row = rec->row;
    uint32_t to = sti_table_move_finish(w, rec, src, dst);
    if (src->column_count > 0) {
        if (dst->max_size <= STI_SMALL_SIZE) {
            sti_columns_add_small(src, dst, hole, row);
        } else {
            sti_columns_add_large(src, dst, hole, row);
        }
    }
    return to;
}

/* Move an entity's row along a remove edge: src has dst's columns plus,
 * unless hole is STI_NO_HOLE, src->dense[hole], which is dropped. */
STI_HOT uint32_t sti_table_move_remove(strata_world_t *w, sti_record_t *rec, sti_table_t *src,
                                             sti_table_t *dst, uint32_t hole) {
    uint32_t row = rec->row;
    uint32_t to = sti_table_move_finish(w, rec, src, dst);
    if (src->column_count > 0) {
        if (src->max_size <= STI_SMALL_SIZE) {
            sti_columns_remove_small(src, dst, hole, row);
        } else {
            sti_columns_remove_large(src, dst, hole, row);
        }
    }
    return to;
}

/* Move an entity's row from src to any dst (room reserved), copying the
 * columns both have; columns only dst has are left for the caller to fill.
 * Returns the new row. */
static inline uint32_t sti_table_move(strata_world_t *w, sti_record_t *rec, sti_table_t *src,
                                         sti_table_t *dst) {
    uint32_t row = rec->row;
    uint32_t to = dst->count;
    for (uint32_t i = 0; i < dst->column_count; i++) {
        const sti_column_t *col = &dst->dense[i];
        const unsigned char *from = src->columns[col->id];
        if (from != NULL) {
            sti_copy(col->data + (size_t)to * col->size, from + (size_t)row * col->size, col->size);
        }
    }
    uint32_t last = src->count - 1;
    if (row != last) {
        for (uint32_t i = 0; i < src->column_count; i++) {
            const sti_column_t *col = &src->dense[i];
            sti_copy(col->data + (size_t)row * col->size, col->data + (size_t)last * col->size, col->size);
        }
    }
    return sti_table_move_finish(w, rec, src, dst);
}

#endif /* STRATA_INTERNAL_H */

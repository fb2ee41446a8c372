/* strata.h: the Strata runtime, the C layer under every generated world.
 *
 * Games do not call this header directly: they include the header generated
 * for their world (e.g. `rect.h`), which wraps these functions in typed ones.
 * The runtime owns entity ids, archetype tables, the archetype graph, the
 * query cache and the deferred command buffer. It knows components only by
 * index, size and alignment; the generated code knows their types.
 */
#ifndef STRATA_H
#define STRATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_VERSION_MAJOR 0
#define STRATA_VERSION_MINOR 4
#define STRATA_VERSION_PATCH 0
/* One integer to compare in generated headers: major*10000 + minor*100 + patch. */
#define STRATA_VERSION 400
#define STRATA_VERSION_STRING "0.4.0"

/* Limits, enforced by the generator and checked by the runtime. */
#define STRATA_MAX_COMPONENTS 256       /* component types plus aspects per world */
#define STRATA_MAX_QUERIES 1024         /* queries and systems per world */
#define STRATA_MAX_ENTITIES 0x7fffffffu /* entities alive at once */
#define STRATA_MAX_TABLES 65535u        /* archetypes per world */
#define STRATA_MAX_MONITORS 64          /* queries with an aspect or hooks, per world */
#define STRATA_MAX_CHANGED 15           /* queries with `changed` terms plus components with on_set, per world */
#define STRATA_MAX_RELATIONS 64         /* relations per world */
#define STRATA_MAX_SPARSE 64            /* components stored sparse (storage: sparse), per world */
#define STRATA_MAX_STATES 64            /* states of one state machine */

/* Caller bugs (NULL world, out-of-range component index, a load inside a
 * system) trip STRATA_ASSERT. Which asserts a library has is fixed when it
 * is compiled: the release library (-DNDEBUG, pkg-config strata) has none,
 * the debug library (pkg-config strata-debug) checks every one and sends a
 * failure to the assert handler. Defining STRATA_ASSERT or NDEBUG in a game
 * changes only the asserts compiled into the game (the generated inline
 * functions), never those of an installed library. */

/* Called by a failed assert with its condition's text, file and line, and
 * the `user` given with it. It must not return (abort, exit, longjmp): if
 * it does, the runtime aborts, as it cannot go on past a broken rule. */
typedef void (*strata_assert_handler_t)(const char *condition, const char *file, int line, void *user);

/* Route failed asserts to fn, process-wide (NULL: the default handler,
 * which prints "file:line: Strata assertion failed: condition" on stderr
 * and aborts). Set it once, before any thread uses a world. */
void strata_assert_handler_set(strata_assert_handler_t fn, void *user);

/* The handler set (NULL: the default), and its user pointer in *user. */
strata_assert_handler_t strata_assert_handler(void **user);

/* What a failed STRATA_ASSERT calls: the handler, then abort(). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((__noreturn__))
#endif
void strata_assert_fail(const char *condition, const char *file, int line);

#include <assert.h> /* static_assert, which generated headers use */
#ifndef STRATA_ASSERT
#ifdef NDEBUG
#define STRATA_ASSERT(c) ((void)0)
#else
#define STRATA_ASSERT(c) ((c) ? (void)0 : strata_assert_fail(#c, __FILE__, __LINE__))
#endif
#endif

/* An entity handle: index in the low 32 bits, generation (never 0) in the
 * high 32 bits. The value 0 is never a live entity. */
typedef uint64_t strata_entity_t;
#define STRATA_ENTITY_NULL ((strata_entity_t)0)

/* What an operation that a correct program can see fail returns. */
typedef enum strata_result_t {
    STRATA_OK = 0,
    STRATA_ERR_STALE = -1,   /* the entity is not alive (destroyed, never made, or already scheduled for destruction) */
    STRATA_ERR_MISSING = -2, /* the entity lacks the component */
    STRATA_ERR_NOMEM = -3,   /* an allocation failed; the world is as it was */
    STRATA_ERR_LIMIT = -4,   /* a limit above was reached; the world is as it was */
    STRATA_ERR_CORRUPT = -5, /* a save file is truncated, corrupt or foreign */
    STRATA_ERR_IO = -6,      /* reading or writing a file failed */
    STRATA_ERR_SCHEMA = -7,  /* a save does not fit this schema: another world, a newer version, a lossy type change */
    STRATA_ERR_CYCLE = -8,   /* the link would close a cycle in an exclusive relation (a link to itself included) */
} strata_result_t;

/* A constant English name for a result ("ok", "stale entity", ...). */
const char *strata_result_str(strata_result_t r);

/* Memory hooks: set all three or none (then libc is used). `realloc` gets
 * the old size so pool allocators need not store it. */
typedef struct strata_allocator_t {
    void *(*alloc)(size_t size, void *user);
    void *(*realloc)(void *ptr, size_t old_size, size_t new_size, void *user);
    void (*free)(void *ptr, size_t size, void *user);
    void *user;
} strata_allocator_t;

/* A set of component indices. */
typedef struct strata_mask_t {
    uint64_t bits[STRATA_MAX_COMPONENTS / 64];
} strata_mask_t;

typedef struct strata_world_t strata_world_t;

/* A component hook: called with the entity and its value (NULL for a tag)
 * once per add (after the value is in place) and once per remove or destroy
 * (before the value goes); or, for on_set, once per entity whose value was
 * written (set, get_mut, an add, a write term) when the changes settle.
 * Structural changes it makes are deferred. */
typedef void (*strata_component_hook_t)(strata_world_t *w, strata_entity_t e, void *value);

/* Where a component's values live (strata_component_desc_t.storage). */
typedef enum strata_storage_t {
    STRATA_STORAGE_TABLE = 0,  /* a column of each archetype table that has it: adding or removing it moves the row */
    STRATA_STORAGE_SPARSE = 1, /* a sparse set beside the tables: adding or removing it moves no row */
} strata_storage_t;

/* One component type, as the generator describes it (static data). */
typedef struct strata_component_desc_t {
    const char *name;                  /* the schema's name, e.g. "Position" */
    uint32_t size;                     /* sizeof the C struct; 0 for a tag (no column) */
    uint32_t align;                    /* _Alignof the C struct; 0 for a tag */
    const void *defaults;              /* `size` bytes of the default value; NULL means zeros */
    strata_component_hook_t on_add;    /* NULL: none */
    strata_component_hook_t on_remove; /* NULL: none */
    strata_component_hook_t on_set;    /* NULL: none; not for a tag */
    uint8_t storage;                   /* strata_storage_t; not sparse for a relation's component */
} strata_component_desc_t;

/* A query hook: called when an entity starts to match the query (after its
 * aspect is made at its defaults) and when it stops matching or is
 * destroyed (before its aspect is dropped). `aspect` is NULL for a query
 * without one. Structural changes it makes are deferred. */
typedef void (*strata_query_hook_t)(strata_world_t *w, strata_entity_t e, void *aspect);

/* One query or system query (static data). An entity matches when it has
 * every component of `all` and none of `none`; `all` must not be empty. Its
 * table decides for the table components (the query's tables are those
 * with all of them and none excluded); the entity's sparse sets decide for
 * the sparse ones (a visit tests each row of those tables, see strata_iter). */
typedef struct strata_query_desc_t {
    const char *name;
    strata_mask_t all;      /* read, write and with terms */
    strata_mask_t none;     /* without terms */
    strata_mask_t write;    /* write terms: rows its iterators yield are marked changed */
    strata_mask_t changed;  /* non-empty: iterators visit only the entities whose
                            * components in this mask were written since the
                            * query's set was last emptied (by its iteration) */
    strata_mask_t optional; /* optional terms: a sparse one makes each batch one row */
    uint32_t aspect_size;   /* per-entity state while it matches; 0 for none */
    uint32_t aspect_align;
    const void *aspect_defaults;   /* NULL means zeros */
    strata_query_hook_t on_add;    /* NULL: none */
    strata_query_hook_t on_remove; /* NULL: none */
} strata_query_desc_t;

/* Everything the runtime needs to know about a world's schema (static data
 * emitted by the generator). */
/* One event type: its name and the size and alignment (<= 16) of one event. */
typedef struct strata_event_desc_t {
    const char *name;
    uint32_t size;
    uint32_t align;
    uint32_t first_receiver; /* the schedule position of its first receiver (0: keep all of the last step) */
    const struct strata_type_desc_t *type; /* its fields, for tools (the inspector); NULL: none described */
} strata_event_desc_t;

/* What happens when the target of a link (or of an entity field) is destroyed. */
typedef enum strata_policy_t {
    STRATA_POLICY_KEEP = 0, /* nothing: the handle goes stale */
    STRATA_POLICY_CLEAR,    /* the handle becomes STRATA_ENTITY_NULL (the link or field stays) */
    STRATA_POLICY_REMOVE,   /* the link (for a field: its component) is removed from the source */
    STRATA_POLICY_DESTROY,  /* the source is destroyed too */
} strata_policy_t;

/* One relation (static data). Its links live in component `component`:
 * exclusive, a struct whose first member is the target's handle, then a
 * uint32_t the runtime keeps (the depth), then the link's data; otherwise a
 * tag that every source with a link has, the links themselves in the
 * runtime's index. */
typedef struct strata_relation_desc_t {
    const char *name;
    uint32_t component; /* the component of its links */
    bool exclusive;     /* one target per source; no cycles */
    uint8_t policy;     /* strata_policy_t, applied when a target is destroyed */
} strata_relation_desc_t;

/* An `entity` field of a component with a policy other than KEEP (static data). */
typedef struct strata_field_policy_t {
    uint32_t component;
    uint32_t offset; /* of the strata_entity_t in the component's struct */
    uint8_t policy;  /* strata_policy_t */
} strata_field_policy_t;

/* The schedule's tables, defined with the step below. */
struct strata_schedule_t;

typedef struct strata_schema_t {
    const char *name;                          /* the schema's `world:` */
    uint32_t version;                          /* the schema's `version:` */
    uint32_t component_count;                  /* <= STRATA_MAX_COMPONENTS */
    const strata_component_desc_t *components; /* indexed by component id */
    uint32_t query_count;                      /* <= STRATA_MAX_QUERIES */
    const strata_query_desc_t *queries;        /* indexed by query id */
    uint32_t resources_size;                   /* bytes of the resource block */
    uint32_t resources_align;                  /* its alignment (<= 16) */
    const void *resources_defaults;            /* its initial bytes; NULL means zeros */
    /* Reflection, for saves and JSON (NULL: the world cannot be saved). */
    const char *save_name;                            /* the name saves record and loads match; NULL: `name` */
    const struct strata_type_desc_t *component_types; /* by component id: name, former name, fields */
    const struct strata_type_desc_t *resource_type;   /* the resource block: one struct field a resource */
    /* Events (not saved): their types, and the positions of a step's clock. */
    uint32_t event_count;              /* event types */
    const strata_event_desc_t *events; /* indexed by event id */
    uint32_t system_count;             /* systems of the schedule (0 counts as 1) */
    /* Relations (docs/relations.md) and the entity fields with a policy. */
    uint32_t relation_count;                 /* <= STRATA_MAX_RELATIONS */
    const strata_relation_desc_t *relations; /* indexed by relation id */
    uint32_t field_policy_count;             /* entity fields whose target's destroy does something */
    const strata_field_policy_t *field_policies;
    /* The step: what strata_world_step runs (NULL: no system). */
    const struct strata_schedule_t *schedule;
} strata_schema_t;

/* Options for strata_world_create; zero means default for every field. */
/* The reflection data of the schema (fields, types), defined with saves below. */
struct strata_type_desc_t;
struct strata_field_desc_t;

typedef struct strata_world_desc_t {
    strata_allocator_t allocator; /* all hooks or none; none = malloc/realloc/free */
    uint32_t initial_capacity;    /* entity records to reserve (default 1024) */
    void *user;                   /* the game's own pointer (a renderer, a level...): strata_world_user */
    uint32_t threads;             /* threads that run steps, the caller's included: 0 or 1 = no other
                                   * thread (the default); STRATA_THREADS_PER_CORE = one per core */
    uint32_t chunk_rows;          /* rows a chunk of a split system holds at most (default
                                   * STRATA_CHUNK_ROWS); whatever the thread count, the same chunks */
    /* Steps a table (archetype) may stay without a row: the end of the step
     * that makes it this many frees it, as strata_world_free_empty_tables
     * would; 0 (the default): never. */
    uint32_t free_empty_tables_after;
} strata_world_desc_t;

/* desc.threads: as many threads as the machine has cores. */
#define STRATA_THREADS_PER_CORE UINT32_MAX

/* What a world holds, for tools and tests. */
typedef struct strata_world_stats_t {
    uint32_t entities; /* alive */
    uint32_t tables;   /* archetypes held (made and not freed), including the empty one */
    uint32_t pending;  /* deferred commands not yet applied */
    size_t bytes;      /* memory held through the allocator */
} strata_world_stats_t;

/* Create a world for `schema` (which must outlive it). `desc` may be NULL.
 * Returns STRATA_OK and the world in *out, or STRATA_ERR_NOMEM (*out NULL;
 * also when a worker thread could not be started). */
strata_result_t strata_world_create(const strata_schema_t *schema, const strata_world_desc_t *desc,
                                    strata_world_t **out);

/* Free the world and everything in it. NULL is a no-op. Not inside the
 * world's step, an iterator, a deferral scope or a hook (an assert). */
void strata_world_destroy(strata_world_t *w);

/* Destroy every entity at once: their on_remove hooks (components and
 * query hooks) run as a destroy runs them, and what the hooks record or
 * create is dropped with the rest, so the world ends with no entity. Every
 * old handle goes stale; indices are then reused lowest first. Kept: the
 * tables and every array's capacity, the resources, the game's pointer.
 * The changed sets end empty and recorded commands are dropped. Not inside
 * a step, an iterator, a deferral scope or a hook (an assert). */
void strata_world_clear(strata_world_t *w);

/* The schema the world was made with. */
const strata_schema_t *strata_world_schema(const strata_world_t *w);

/* The game's pointer given in the desc or by strata_world_set_user (NULL if
 * none). Systems and hooks reach it through their world; a load keeps it. */
void *strata_world_user(const strata_world_t *w);

/* Replace the game's pointer. */
void strata_world_set_user(strata_world_t *w, void *user);

/* The resource block (schema->resources_size bytes, aligned), or NULL if empty. */
void *strata_world_resources(strata_world_t *w);

/* Fill *out with the world's counts. */
void strata_world_stats(const strata_world_t *w, strata_world_stats_t *out);

/* Free every table (archetype) that has no row, the empty one aside: its
 * columns, its edges in the archetype graph, its place in each query's
 * list. An add or create that needs one again makes it again. The tables
 * kept are renumbered (the last ones take the freed ones' ids; the records
 * of their rows are rewritten). Allocates nothing, so cannot fail. Inside
 * a step, an iterator or a deferral scope nothing is freed yet: it is done
 * when the step ends or the outermost scope closes, whichever comes first
 * with no scope open. Returns the number of tables freed now. Not from a
 * system run on a worker thread (an assert). */
uint32_t strata_world_free_empty_tables(strata_world_t *w);

/* Make room for n more rows in the table of the components `ids` (count k,
 * no duplicates; made now if it does not exist), and fault its pages in,
 * so that the adds and creates that fill it later grow nothing and meet no
 * page fault; for a component stored sparse, room for n more values in its
 * set instead (it has no column). n = 0 does nothing. Returns STRATA_OK, STRATA_ERR_NOMEM or
 * STRATA_ERR_LIMIT (a new table over the limit); on error the world is as
 * it was but for spare capacity (a table made by the call is freed again).
 * Not inside a step, an iterator, a deferral scope or a hook (an assert;
 * with asserts off it then reserves nothing): a table does not grow while
 * something may hold its columns. */
strata_result_t strata_reserve(strata_world_t *w, uint32_t k, const uint32_t *ids, uint32_t n);

/* Make room for n more entities (records beyond the indices free now) and
 * fault their pages in. Returns STRATA_OK, STRATA_ERR_NOMEM (nothing
 * changed) or STRATA_ERR_LIMIT (past the entity limit). Allowed anywhere a
 * create is, but not from a system run on a worker thread (an assert). */
strata_result_t strata_entity_reserve(strata_world_t *w, uint32_t n);

/* A watcher of the generated step (the inspector): told as each system
 * begins and ends, with the system's index in the schedule. */
typedef struct strata_step_observer_t {
    void (*system_begin)(void *user, strata_world_t *w, uint32_t system);
    void (*system_end)(void *user, strata_world_t *w, uint32_t system);
    void *user;
} strata_step_observer_t;

/* Attach o (which must outlive the attachment) to w's step; NULL detaches.
 * A load keeps it. */
void strata_world_set_step_observer(strata_world_t *w, const strata_step_observer_t *o);

/* The observer attached, or NULL: strata_world_step reads it once a step. */
const strata_step_observer_t *strata_world_step_observer(const strata_world_t *w);

/* Called by strata_world_step before (`ended` false) and after each system
 * it runs (a batch's systems: all begin, the batch, all end): tells o, if
 * any. With no observer it is one branch. */
static inline void strata_step_observe(const strata_step_observer_t *o, strata_world_t *w, uint32_t system,
                                       bool ended) {
    if (o != NULL) {
        (ended ? o->system_end : o->system_begin)(o->user, w, system);
    }
}

/* --- Entities ------------------------------------------------------------ */

/* Create an entity with no components. Indices of destroyed entities are
 * reused with a bumped generation. Returns STRATA_OK or STRATA_ERR_NOMEM /
 * STRATA_ERR_LIMIT (world unchanged). Never deferred: the handle is usable at
 * once, though an entity made while iterating has no components until the
 * deferred adds are applied. */
strata_result_t strata_entity_create(strata_world_t *w, strata_entity_t *out);

/* Create `n` entities that have the components in `ids` (count `k`, no
 * duplicates) with one archetype placement each; `values[i]` points at the
 * value of component ids[i] (NULL: its defaults; ignored for tags). Handles
 * go to out[0..n). All or nothing: on error no entity is created. While
 * iterating, the entities are created at once and their components added
 * when the deferral scope ends. */
strata_result_t strata_entity_create_many(strata_world_t *w, uint32_t n, uint32_t k, const uint32_t *ids,
                                          const void *const *values, strata_entity_t *out);

/* Destroy an entity. Returns STRATA_OK, or STRATA_ERR_STALE if it is not
 * alive (so destroying twice fails the second time). Inside a step the
 * entity stays alive until the step ends; inside an iterator, until the
 * outermost iterator ends. */
strata_result_t strata_entity_destroy(strata_world_t *w, strata_entity_t e);

/* The parts of a handle: its index (what a destroyed entity's successor
 * reuses) and its generation (bumped at each reuse, never 0 for a handle
 * that was issued). */
static inline uint32_t strata_entity_index(strata_entity_t e) {
    return (uint32_t)e;
}
static inline uint32_t strata_entity_generation(strata_entity_t e) {
    return (uint32_t)(e >> 32);
}

/* Called by strata_entity_each with each entity. */
typedef void (*strata_entity_fn_t)(strata_world_t *w, strata_entity_t e, void *user);

/* Call fn(w, e, user) once for every entity alive when the call begins,
 * those with no component included, table by table (the entities with no
 * component first). Structural changes fn makes are recorded and applied
 * when the visit ends, as in an iterator; entities it creates are not
 * visited. Returns as strata_defer_end. */
strata_result_t strata_entity_each(strata_world_t *w, strata_entity_fn_t fn, void *user);

/* True if `e` is a live entity of this world (including one whose
 * destruction is scheduled for the end of the current step). */
bool strata_entity_alive(const strata_world_t *w, strata_entity_t e);

/* --- Components ---------------------------------------------------------- */

/* Add component `c` to `e` with `value` (NULL: defaults). If `e` already has
 * it, the value is overwritten. Returns STRATA_OK, STRATA_ERR_STALE,
 * STRATA_ERR_NOMEM or STRATA_ERR_LIMIT (world unchanged on error). Deferred
 * while an iterator or system is open: the value is copied now. */
strata_result_t strata_add(strata_world_t *w, strata_entity_t e, uint32_t c, const void *value);

/* Add `k` components with one archetype move; values as in
 * strata_entity_create_many. Components already present are overwritten. */
strata_result_t strata_add_many(strata_world_t *w, strata_entity_t e, uint32_t k, const uint32_t *ids,
                                const void *const *values);

/* strata_add and strata_remove for a component stored sparse (generated
 * code calls these for one; strata_sparse_tag_add for a tag): the same
 * results, on a path that skips the archetype's. */
strata_result_t strata_sparse_add(strata_world_t *w, strata_entity_t e, uint32_t c, const void *value);
strata_result_t strata_sparse_tag_add(strata_world_t *w, strata_entity_t e, uint32_t c);
strata_result_t strata_sparse_remove(strata_world_t *w, strata_entity_t e, uint32_t c);
/* A sparse component with fields added with no hook, monitor or changed
 * set to see it (generated code's first try): e gets the component now and
 * the call returns where its value goes, for the caller to write before
 * anything else runs (if e has it already, where its value is); NULL,
 * changing nothing, if e is stale or the add is not that simple (deferred,
 * watched, or the set needs room): then call strata_sparse_add. */
void *strata_sparse_place(strata_world_t *w, strata_entity_t e, uint32_t c);

/* Remove component `c`. Returns STRATA_OK, STRATA_ERR_STALE,
 * STRATA_ERR_MISSING, STRATA_ERR_NOMEM. Deferred while iterating (then the
 * MISSING check is made now and again when applied). */
strata_result_t strata_remove(strata_world_t *w, strata_entity_t e, uint32_t c);

/* Remove `k` components with one archetype move; ids `e` lacks are skipped.
 * Returns STRATA_ERR_MISSING only if it has none of them. */
strata_result_t strata_remove_many(strata_world_t *w, strata_entity_t e, uint32_t k, const uint32_t *ids);

/* Add component `c` to the n entities of `entities` (overwriting it where
 * present): `values` is an array of n values of c's size, the i-th for
 * entities[i] (NULL: c's defaults for all; ignored for a tag). Every handle
 * must be alive, else STRATA_ERR_STALE and nothing changes. All or
 * nothing: the room for all of it (edges, tables, rows, the sparse set) is
 * made first, so STRATA_ERR_NOMEM and STRATA_ERR_LIMIT change nothing
 * (tables made on the way stay, empty). A run of the handles that is a
 * whole table in row order (what an iteration of a query gives) moves as
 * one: a copy a column, or, into an empty table with the same columns, a
 * trade of storage; the rest move one at a time. Hooks run for each
 * entity in array order, what they change applied when the call returns
 * (a hook that creates entities may take the room made: if growing then
 * fails, STRATA_ERR_NOMEM with the entities before changed). An entity
 * listed twice takes its last value. Deferred (values copied) while a
 * scope is open. Not for a relation's component (strata_relation_set). */
strata_result_t strata_bulk_add(strata_world_t *w, uint32_t c, uint32_t n, const strata_entity_t *entities,
                                const void *values);

/* Remove `c` from the n entities of `entities`, as strata_bulk_add adds
 * it; those that lack it are skipped. STRATA_OK, STRATA_ERR_STALE (nothing
 * changed), STRATA_ERR_MISSING (none had it), STRATA_ERR_NOMEM. */
strata_result_t strata_bulk_remove(strata_world_t *w, uint32_t c, uint32_t n, const strata_entity_t *entities);

/* strata_bulk_add of `c` (value: one for all, NULL: its defaults) to every
 * entity query q matches when the call is made, in the query's order;
 * STRATA_OK (also when none matches), STRATA_ERR_NOMEM or STRATA_ERR_LIMIT. */
strata_result_t strata_query_add(strata_world_t *w, uint32_t q, uint32_t c, const void *value);

/* strata_bulk_remove of `c` from every entity query q matches; STRATA_OK
 * (also when none has it) or STRATA_ERR_NOMEM. */
strata_result_t strata_query_remove(strata_world_t *w, uint32_t q, uint32_t c);

/* True if `e` is alive and has `c`. */
bool strata_has(const strata_world_t *w, strata_entity_t e, uint32_t c);

/* Pointer to e's value of `c`, valid until the next structural change; NULL
 * if `e` is stale, lacks `c`, or `c` is a tag. Does not mark anything. */
const void *strata_get(const strata_world_t *w, strata_entity_t e, uint32_t c);

/* Like strata_get, writable; marks c changed (see strata_mark). c's on_set
 * sees the write when changes next settle (the pointer comes first). */
void *strata_get_mut(strata_world_t *w, strata_entity_t e, uint32_t c);

/* e's value of c as an iterator's term reaches it (generated `next`
 * functions, for a term on a sparse component): as strata_get, writable,
 * marking nothing (a visit marks what its write terms feed itself). */
void *strata_term_value(const strata_world_t *w, strata_entity_t e, uint32_t c);

/* Copy `value` over e's `c` and mark it changed. Returns STRATA_OK,
 * STRATA_ERR_STALE or STRATA_ERR_MISSING. Never deferred; c's on_set runs
 * before it returns, or inside a scope when the scope settles. */
strata_result_t strata_set(strata_world_t *w, strata_entity_t e, uint32_t c, const void *value);

/* --- Deferral and steps -------------------------------------------------- */

/* Open a deferral scope: until the matching strata_defer_end, structural
 * changes (add, remove, destroy, components of created entities) are
 * recorded and not applied. Scopes nest; iterators open one each. */
void strata_defer_begin(strata_world_t *w);

/* Close a deferral scope; the outermost one applies the recorded commands in
 * the order they were made. Returns STRATA_OK or the first error met while
 * applying (STRATA_ERR_NOMEM): commands that failed stay recorded and are
 * retried by the next flush. */
strata_result_t strata_defer_end(strata_world_t *w);

/* True while a deferral scope is open. */
bool strata_is_deferred(const strata_world_t *w);

/* Open a step: destroys made until strata_step_end are applied then, after
 * every system has run. Steps do not nest. */
void strata_step_begin(strata_world_t *w);

/* Close a step: apply scheduled destroys. Returns as strata_defer_end. */
strata_result_t strata_step_end(strata_world_t *w);

/* --- Events ---------------------------------------------------------------- */

/* Emit an event of type `event` (a copy of *value) at the current moment of
 * the step's clock. Returns STRATA_OK, or STRATA_ERR_NOMEM when the buffer
 * could not grow (the event is not emitted; none emitted before is lost). */
strata_result_t strata_event_send(strata_world_t *w, uint32_t event, const void *value);

/* Where a system's emits of one event type go: generated code appends an
 * event without a call while tail < cap, else calls strata_event_push.
 * A run's queue (strata_event_open) is valid during the system's run only
 * (the moment its mark stands for); in a batch's view it is the view's
 * own staging buffer, appended in chunk order when the system's chunks are
 * done. A staging queue is one the caller owns, zero-initialised, for tools
 * that split work themselves: appended with strata_event_append. */
/* What generated emits put on their growth path: out of line, so the fast
 * path keeps the event in registers (its address never escapes). */
#if defined(__GNUC__) || defined(__clang__)
#define STRATA_EVENT_SLOW static __attribute__((__noinline__, __cold__, __unused__))
#else
#define STRATA_EVENT_SLOW static inline
#endif

/* What a generated world's .c puts on the one function of a system that
 * both its public begin and its step trampoline call: compiled once, not
 * inlined into each (a call a run, against a copy of the context saved). */
#if defined(__GNUC__) || defined(__clang__)
#define STRATA_NOINLINE __attribute__((__noinline__))
#else
#define STRATA_NOINLINE
#endif

typedef struct strata_event_queue_t {
    unsigned char *data; /* the events, `size` bytes apart (the schema's struct) */
    size_t cap;          /* events data has room for */
    uint32_t tail;       /* where the next event goes */
} strata_event_queue_t;

/* Open the current moment's run of `event` for a system about to emit it:
 * its queue, never NULL (when out of memory, a queue with no room, so
 * every emit takes strata_event_push, which retries and reports it). */
strata_event_queue_t *strata_event_open(strata_world_t *w, uint32_t event);

/* Emit *value into q when it has no room: for a run's queue, as
 * strata_event_send; for a staging queue, grow it (through the world's
 * allocator hooks, so one thread at a time) and append. Returns STRATA_OK
 * or STRATA_ERR_NOMEM (nothing emitted; none emitted before is lost). */
strata_result_t strata_event_push(strata_world_t *w, strata_event_queue_t *q, uint32_t event, const void *value);

/* Append n events of type `event` (values[0..n), e.g. a staging queue's
 * data and tail) at the current moment, in order, after those already
 * emitted: one chunk of a split system, called in chunk order so receivers
 * see the same sequence at any thread count. All or nothing: STRATA_OK, or
 * STRATA_ERR_NOMEM with none of them appended. */
strata_result_t strata_event_append(strata_world_t *w, uint32_t event, const void *values, uint32_t n);

/* Free a staging queue's array (zeroing it). */
void strata_event_queue_free(strata_world_t *w, uint32_t event, strata_event_queue_t *q);

/* The events of type `event` the system at schedule position `position`
 * receives in the current step: a plain array of *count events (NULL when
 * none), valid until that event type is emitted again or the next step. */
const void *strata_event_window(const strata_world_t *w, uint32_t event, uint32_t position, uint32_t *count);

/* The step's clock: a step begins (events no receiver can see any more are
 * dropped), and the system at `position` runs (system_count - 1: after the
 * last system, and between steps). Generated step functions call these. */
void strata_event_step(strata_world_t *w);
void strata_event_at(strata_world_t *w, uint32_t position);

/* Events of type `event` held (all moments), for tools and tests. */
uint32_t strata_event_held(const strata_world_t *w, uint32_t event);

/* --- Queries ------------------------------------------------------------- */

/* One table of a query, as an iterator reaches it: the table's own row
 * count, handle column and array of columns by component id (so a visit
 * reads them as they are at that moment). The query keeps one a matching
 * table, in a dense array; an iterator walks a range of it. */
typedef struct strata_iter_table_t {
    const uint32_t *count;
    strata_entity_t *const *entities;
    void *const *columns; /* by component id; NULL if absent or a tag */
} strata_iter_table_t;

/* An iterator over the rows matching one query, a batch at a time: a whole
 * non-empty table, or (for a query with `changed` terms) one changed row,
 * or (with sparse terms) a run of rows that meet them. Fields are read by
 * generated code; treat them as read-only. Generated `next` functions walk
 * [at, stop) themselves, a table a visit, and call strata_iter_next when
 * the range is used up; a query whose visits mark `changed` sets, or that
 * visits one, or that has sparse terms, starts with an empty range, so
 * every visit goes through strata_iter_next. A `changed` iterator likewise
 * walks the set's bitmap of one table the runtime handed it: it yields the
 * rows of row_bits (bit i: row row_base + i of row_entities and `columns`),
 * then takes the next word of [word_at, word_stop) with a bit (clearing it
 * in the bitmap `words`), then asks for more. Rows still in row_bits count
 * as in the set (the runtime reads them while the visit is open, so an
 * open iterator is not copied). A visit with sparse terms is handed one
 * word of rows at a time in row_bits (word_at and word_stop empty). */
typedef struct strata_iter_t {
    strata_world_t *world;
    const strata_iter_table_t *at;       /* the next table of the range */
    const strata_iter_table_t *stop;     /* the range's end */
    uint64_t row_bits;                   /* changed rows of one bitmap word not yet yielded */
    uint64_t *word_at;                   /* the next word of the table's bitmap of the set */
    const strata_entity_t *row_entities; /* the table's handles (its columns: `columns`) */
    uint32_t query;                      /* query id */
    uint32_t cursor;                     /* next position in the query's table list or changed set */
    uint32_t count;                      /* rows in this batch */
    const strata_entity_t *entities;     /* their handles */
    void *const *columns;                /* the table's columns by component id (NULL if absent or a tag) */
    uint32_t row;                        /* the batch starts at this row of `columns` (0 unless `changed`) */
    bool open;                           /* holds a deferral scope */
    /* A cascade batch: each row's parent's row in up_columns (the parents'
     * table), NULL in a batch of roots. */
    const uint32_t *up_row;
    void *const *up_columns;
    /* The rest of a `changed` visit's table (after the fields every visit reads). */
    uint64_t *words;     /* the table's bitmap of the set (row_base: 64 x a word's place) */
    uint64_t *word_stop; /* the end of its words */
    uint32_t row_base;   /* row_bits' bit 0 is this row */
    uint32_t word;       /* a visit with sparse terms: the next word of its table the runtime tests */
} strata_iter_t;

/* The next row of a `changed` visit's table into *row: from the word the
 * iterator holds, or else from the next word of its table with a bit
 * (taken: cleared in the set's bitmap). False when the table's words are
 * used up (strata_iter_next then hands over the next table). Generated
 * `next` functions and the runtime both walk the bitmap with it. */
static inline bool strata_iter_changed_row(strata_iter_t *it, uint32_t *row) {
    uint64_t bits = it->row_bits;
    for (uint64_t *at = it->word_at; bits == 0 && at < it->word_stop; at++) {
        if ((bits = *at) != 0) {
            *at = 0;
            it->row_base = (uint32_t)(at - it->words) * 64;
            it->word_at = at + 1;
        }
    }
    if (bits == 0) {
        return false;
    }
    *row = it->row_base + (uint32_t)__builtin_ctzll(bits);
    it->row_bits = bits & (bits - 1);
    return true;
}

/* The next run of rows of a visit with sparse terms into *row and *count:
 * the lowest row of row_bits (the rows of one 64-row word of its table that
 * meet the terms, which the runtime handed over) and those right after it,
 * up to the word's end. False when the word is used up (strata_iter_next
 * then tests the next words). A `next` whose terms read no sparse value
 * yields runs with it; one that reads one yields a row at a time with
 * strata_iter_changed_row, as a `changed` visit does. */
static inline bool strata_iter_sparse_run(strata_iter_t *it, uint32_t *row, uint32_t *count) {
    uint64_t bits = it->row_bits;
    if (bits == 0) {
        return false;
    }
    uint32_t first = (uint32_t)__builtin_ctzll(bits);
    uint64_t gap = ~(bits >> first); /* its lowest bit: where the run ends */
    uint32_t n = gap == 0 ? 64 : (uint32_t)__builtin_ctzll(gap);
    *row = it->row_base + first;
    *count = n;
    it->row_bits = first + n >= 64 ? 0 : bits & ~(((uint64_t)1 << (first + n)) - 1);
    return true;
}

/* Start iterating query `q`; opens a deferral scope. A query with `changed`
 * terms visits each entity written since its set was last emptied, once,
 * and empties the set as it goes (writes made during the iteration to rows
 * already visited count for the next one). A query with sparse terms
 * visits the rows of its tables that meet them, one row a batch through
 * strata_iter_next (generated `next` functions take the rest of each word
 * themselves: see strata_iter_sparse_run). */
strata_iter_t strata_iter(strata_world_t *w, uint32_t q);

/* strata_iter into *it, in place (what a generated system's context uses:
 * no copy of the iterator). */
void strata_iter_init(strata_iter_t *it, strata_world_t *w, uint32_t q);

/* Advance to the next batch. Returns false at the end, after closing the
 * deferral scope (applying commands if outermost). */
bool strata_iter_next(strata_iter_t *it);

/* Stop early: close the deferral scope; for a `changed` query the entries
 * not visited stay in its set. Safe to call after the end. Returns as
 * strata_defer_end. */
strata_result_t strata_iter_end(strata_iter_t *it);

/* Mark e's component c as written, for the queries that track it under
 * `changed` (set, get_mut, add and write iterators mark by themselves).
 * No-op for a stale entity or a component no query tracks. */
void strata_mark(strata_world_t *w, strata_entity_t e, uint32_t c);

/* Entries waiting in query q's changed set (0 for a query without one). */
uint32_t strata_query_changed_count(const strata_world_t *w, uint32_t q);

/* The column id of query q's aspect (component_count + the number of
 * queries with an aspect before q), or UINT32_MAX if q has none. */
uint32_t strata_query_aspect_id(const strata_world_t *w, uint32_t q);

/* Number of entities matching query `q` (sums its tables' counts). */
uint32_t strata_query_count(const strata_world_t *w, uint32_t q);

/* --- Relations (docs/relations.md) ---------------------------------------- */

/* Link e to target in exclusive relation r, replacing e's link if it has
 * one. `link` is the whole component value (its data; NULL: defaults); its
 * target member is overwritten. Returns STRATA_OK, STRATA_ERR_STALE (e or
 * target not alive), STRATA_ERR_CYCLE (target is e or one of e's sources,
 * directly or not) or STRATA_ERR_NOMEM (nothing changed). A first link is
 * an add, deferred while iterating; replacing a target is deferred the same
 * way. A deferred link whose target is gone or would close a cycle when it
 * is applied is dropped (the source keeps no link). */
strata_result_t strata_relation_set(strata_world_t *w, uint32_t r, strata_entity_t e, strata_entity_t target,
                                    const void *link);

/* Add a link e -> target in non-exclusive relation r (no-op if present).
 * Returns STRATA_OK, STRATA_ERR_STALE or STRATA_ERR_NOMEM (nothing changed).
 * The link is there at once; the relation's tag on e follows the rules of
 * an add (deferred while iterating). */
strata_result_t strata_relation_add(strata_world_t *w, uint32_t r, strata_entity_t e, strata_entity_t target);

/* Remove e's link to target in r (exclusive: e's link, whatever its target;
 * `target` may be STRATA_ENTITY_NULL). Returns STRATA_OK, STRATA_ERR_STALE,
 * STRATA_ERR_MISSING (no such link) or STRATA_ERR_NOMEM. */
strata_result_t strata_relation_remove(strata_world_t *w, uint32_t r, strata_entity_t e, strata_entity_t target);

/* e's target in exclusive relation r; STRATA_ENTITY_NULL if e is stale or has no link. */
strata_entity_t strata_relation_target(const strata_world_t *w, uint32_t r, strata_entity_t e);

/* True if e links to target in r. */
bool strata_relation_has(const strata_world_t *w, uint32_t r, strata_entity_t e, strata_entity_t target);

/* The entities linking to target in r (its children, for ChildOf), *count
 * of them, in no set order; NULL and 0 if target is stale or has none.
 * Valid until the next change of r's links. */
const strata_entity_t *strata_relation_sources(const strata_world_t *w, uint32_t r, strata_entity_t target,
                                               uint32_t *count);

/* e's targets in non-exclusive relation r, as strata_relation_sources. */
const strata_entity_t *strata_relation_targets(const strata_world_t *w, uint32_t r, strata_entity_t e, uint32_t *count);

/* Links from e up to its root in exclusive relation r (0: e has no
 * target); -1 if e is stale. */
int32_t strata_relation_depth(const strata_world_t *w, uint32_t r, strata_entity_t root);

/* Destroy root and every entity below it in exclusive relation r, whatever
 * the relation's policy. Returns STRATA_OK, STRATA_ERR_STALE or
 * STRATA_ERR_NOMEM (then some destroys may wait for the next settle).
 * Follows the rules of destroy (at the step's end inside a step). */
strata_result_t strata_relation_destroy_tree(strata_world_t *w, uint32_t r, strata_entity_t root);

/* Start iterating query q in the cascade order of exclusive relation r:
 * every target before its sources (parents before children), depth by
 * depth, each depth table by table. A batch is a run of rows of one table
 * (`row` is where it starts in `columns`) at one depth, whose parents all
 * sit in one table: `up_row[i]` is row i's parent's row in `up_columns`
 * (NULL at depth 0). Opens a deferral scope. Opened
 * outside any scope, it first sorts the rows of q's tables by depth (a
 * reordering, not a change: handles stay valid), so a pass over a settled
 * hierarchy has a few long batches. A pass over tables no row of which
 * has moved or been added, and no link of r changed, since the last pass
 * replays what that pass found (its batches and parents' rows). Out of
 * memory for its list of batches (the first pass of a query, or one with
 * more batches than any before), the pass walks q's tables once per depth
 * instead, parents still first. One cascade pass of a query at a time. */
strata_iter_t strata_iter_cascade(strata_world_t *w, uint32_t q, uint32_t r);

/* The next batch of a cascade iterator; false at the end (scope closed). */
bool strata_iter_cascade_next(strata_iter_t *it);

/* The hook of r's component (generated code installs it): keeps the index
 * of sources in step with e's link as it is added (`added`) or removed. */
void strata_relation_hook(strata_world_t *w, uint32_t r, strata_entity_t e, void *link, bool added);
/* --- Threads (docs/threads.md) ------------------------------------------ */

/* Rows of a table a chunk of a split (`parallel`) system holds at most,
 * unless desc.chunk_rows says otherwise: tables up to this size are one
 * chunk, larger ones are cut every this many rows. Fixed for the world, so
 * the chunks are the same at any thread count. */
#define STRATA_CHUNK_ROWS 16384u

/* One system of a batch, as the generated step describes it. */
typedef struct strata_batch_item_t {
    uint32_t system;   /* the id the generated run function takes */
    uint32_t query;    /* its query id; UINT32_MAX when it has no terms */
    uint32_t position; /* its place in the schedule (the events' clock) */
    bool parallel;     /* split its rows into chunks (needs a query) */
    bool main_thread;  /* run it on the thread that called the step */
    uint64_t writes;   /* bit i: it writes resource i (debug builds check the others are left alone) */
} strata_batch_item_t;

/* Runs system `system` once against `w` (begin, the game's run, end). In
 * a batch `w` is the system's own view of the world: structural changes
 * are recorded there and applied when the batch ends. */
typedef void (*strata_system_fn_t)(strata_world_t *w, uint32_t system, float dt);

/* Run the systems of one batch (items in schedule order, touching disjoint
 * data) on the world's threads, a split system's chunks included; then
 * apply what each recorded (created entities, structural changes,
 * destroys, changed marks) in schedule and chunk order, so the world is the
 * same at any thread count. Inside a step only. Returns STRATA_OK or the
 * first error met applying (STRATA_ERR_NOMEM: the batch did not run when
 * its views could not be made). */
strata_result_t strata_batch_run(strata_world_t *w, const strata_batch_item_t *items, uint32_t count,
                                 strata_system_fn_t run, float dt);

/* Threads that run w's steps, the caller's included (1: no other thread). */
uint32_t strata_world_threads(const strata_world_t *w);

/* True inside a system of a batch (a view of the world), where creating
 * an entity gives no handle and other limits hold (docs/threads.md). */
bool strata_in_batch(const strata_world_t *w);

/* --- The step (docs/systems.md) ------------------------------------------- */

/* The generator describes a world's schedule as tables (static data, in
 * the schema): its phases in order, each a run of batches, each batch a
 * run of systems; the gates that hold systems back (states, conditions,
 * intervals); the state machines and the systems their transitions run.
 * strata_world_step walks them. A system's id is its position in the
 * schedule (the events' clock): the phases' systems, then the systems
 * that run on transitions. */

/* A system's trampoline: begin its context on w, call the game's run
 * function, end the context. Returns the end's result (in a batch's view,
 * where structural changes are only recorded, it is not used). */
typedef strata_result_t (*strata_system_call_t)(strata_world_t *w, float dt);

/* strata_system_desc_t.query of a system without terms (it runs once a step). */
#define STRATA_NO_QUERY UINT32_MAX

/* strata_system_desc_t.flags */
#define STRATA_SYSTEM_PARALLEL 1u    /* its rows are split into chunks run on the world's threads */
#define STRATA_SYSTEM_MAIN_THREAD 2u /* it runs on the thread that called the step */
#define STRATA_SYSTEM_GATED 4u       /* a gate (schedule->gates[gate]) decides whether it runs */

/* One system (static data), by id. */
typedef struct strata_system_desc_t {
    const char *name;          /* the schema's name, e.g. "Move" */
    strata_system_call_t call; /* begin, the game's run, end */
    uint32_t query;            /* its query id; STRATA_NO_QUERY without terms */
    uint32_t flags;            /* STRATA_SYSTEM_* */
    uint64_t writes;           /* bit i: it writes resource i (the first 64: a batch's debug check) */
    uint32_t gate;             /* with STRATA_SYSTEM_GATED: its gate's index */
} strata_system_desc_t;

/* strata_batch_desc_t.alone of a batch that goes to the pool. */
#define STRATA_NO_SYSTEM UINT32_MAX

/* One batch: systems of one phase that touch disjoint data, in schedule
 * order: the ids order[first .. first + count) of the schedule, and the
 * items strata_batch_run takes for them all (when every one is on and
 * its gate open, the step hands these over as they are). A batch of one
 * system that is not parallel runs it alone, without the pool. */
typedef struct strata_batch_desc_t {
    uint32_t first;
    uint32_t count;
    const strata_batch_item_t *items; /* count items, in the same order */
    uint32_t alone;                   /* its one system, if it runs alone; else STRATA_NO_SYSTEM */
} strata_batch_desc_t;

/* One phase: batches[first .. first + count) of the schedule (none when it
 * has no system). A phase with a `rate` is fixed: it keeps an accumulator
 * of time and runs its batches 0..max_runs times a step, once per 1/rate s
 * of game time, each run with dt = 1/rate. */
typedef struct strata_phase_desc_t {
    const char *name;
    uint32_t first;
    uint32_t count;
    uint32_t rate;     /* runs a second of game time; 0: once a step */
    uint32_t max_runs; /* fixed: the most runs a step (what is left beyond them is dropped) */
    uint32_t clock;    /* fixed: where its strata_phase_clock_t is in the resource block */
    float dt;          /* fixed: what its systems see, 1/rate s */
    uint32_t moment;   /* fixed: its systems' place on the events' clock, every run's (its first system's) */
} strata_phase_desc_t;

/* The accumulator of a fixed phase (in the resource block; `ticks` is
 * saved). It counts time in units of 1/(rate x 10^9) s, so one run is
 * exactly STRATA_TICKS_PER_SECOND units and every step adds its
 * nanoseconds x rate: the runs after any steps depend on the sum of their
 * nanoseconds only. ticks / STRATA_TICKS_PER_SECOND is the fraction of a
 * period not yet run, whatever the rate (a save of another rate keeps it). */
typedef struct strata_phase_clock_t {
    uint64_t ticks; /* time not yet run, < STRATA_TICKS_PER_SECOND between steps */
    uint32_t runs;  /* runs in the last step (not saved) */
    uint32_t spare; /* zero */
} strata_phase_clock_t;

/* Nanoseconds a second: a step's time counts in them. */
#define STRATA_TICKS_PER_SECOND UINT64_C(1000000000)

/* strata_gate_test_t.kind */
#define STRATA_TEST_STATE 1u     /* a state machine is in one of some states */
#define STRATA_TEST_CONDITION 2u /* a bool of the resource block has a value */

/* One test of a gate (static data). */
typedef struct strata_gate_test_t {
    uint32_t kind;  /* STRATA_TEST_* */
    uint32_t at;    /* where in the resource block: STATE, the machine's strata_machine_state_t; CONDITION, the bool */
    uint64_t value; /* STATE: bit i when state i passes; CONDITION: 1 to pass when true, 0 when false */
} strata_gate_test_t;

/* strata_gate_desc_t.clock */
#define STRATA_GATE_RUNS 1u /* `every`: counts the runs of its phase (steps, or fixed runs) */
#define STRATA_GATE_TIME 2u /* `interval`: counts its phase's time (ns, or ns x rate in a fixed phase) */

/* What holds a system back (static data): all its tests must pass, then,
 * with a clock, its counter must reach `period`. The counter counts only
 * while the tests pass; it fires at most once a run of the phase, keeping
 * what is past the period (less than a period: missed ones are dropped). */
typedef struct strata_gate_desc_t {
    uint32_t first; /* tests[first .. first + count) of the schedule */
    uint32_t count;
    uint32_t clock;   /* 0: none; STRATA_GATE_RUNS or STRATA_GATE_TIME */
    uint32_t counter; /* with a clock: where its uint64_t counter is in the resource block */
    uint64_t period;  /* with a clock: runs, or time in its phase's units */
} strata_gate_desc_t;

/* The state of one state machine, in the resource block (a generated
 * world gives it its typed struct, the same layout). */
typedef struct strata_machine_state_t {
    uint32_t current; /* the state it is in; before the first entry, the initial state */
    uint32_t next;    /* the state asked for, while `pending` */
    bool pending;     /* a transition waits for the next transition point */
    bool entered;     /* `current` was entered: its on_exit systems run when it is left */
} strata_machine_state_t;

/* One state machine (static data). */
typedef struct strata_machine_desc_t {
    const char *name;
    uint32_t offset;           /* its strata_machine_state_t in the resource block */
    uint32_t state_count;      /* <= STRATA_MAX_STATES */
    const char *const *states; /* their names, by value */
} strata_machine_desc_t;

/* One system a transition runs (static data): `system` runs when machine
 * `machine` leaves (`enter` false) or enters one of `states`. */
typedef struct strata_transition_desc_t {
    uint32_t system;
    uint32_t machine;
    uint64_t states; /* bit i: state i */
    bool enter;
} strata_transition_desc_t;

/* A world's schedule (static data): what strata_world_step runs. */
typedef struct strata_schedule_t {
    uint32_t system_count;               /* >= 1 */
    const strata_system_desc_t *systems; /* by id */
    uint32_t phase_count;
    const strata_phase_desc_t *phases; /* in step order; their batches follow each other */
    uint32_t batch_count;
    const strata_batch_desc_t *batches; /* in step order */
    const uint32_t *order;              /* the batches' system ids, batch after batch (each id once) */
    uint32_t switches;                  /* where the systems' switches are in the resource block:
                                         * a bool by id, true when it runs (kept by loads and clears) */
    uint32_t gate_count;
    const strata_gate_desc_t *gates;
    uint32_t test_count;
    const strata_gate_test_t *tests;
    uint32_t machine_count;
    const strata_machine_desc_t *machines; /* in declaration order */
    uint32_t transition_count;
    const strata_transition_desc_t *transitions; /* in schedule order */
    uint32_t fixed_count;                        /* phases with a rate (0: the step walks the batches in one run) */
} strata_schedule_t;

/* Run w's schedule once, with the step's time dt in seconds (what systems
 * of ordinary phases see as their dt), counted as nanoseconds (rounded;
 * negative or NaN: 0) by fixed phases and intervals. In order: the
 * transitions requested since the last step; each phase (a fixed one 0..n
 * times, each run ending as a step ends for its destroys, which are applied,
 * then a transition point); the transitions the step requested. Every enabled system whose gate is open runs, phase by phase,
 * batch by batch (a batch of several systems through strata_batch_run),
 * inside one step (strata_step_begin / end) and on the events' clock; the
 * observer, if any, is told as each system begins and ends. Returns
 * STRATA_OK or the first error met (the other systems still run). Not
 * inside a step. */
strata_result_t strata_world_step(strata_world_t *w, float dt);

/* strata_world_step with the step's time in nanoseconds, exactly (systems
 * of ordinary phases see it as dt in seconds): a game that measures frames
 * with a monotonic clock's integer readings gets the same fixed runs
 * whatever its frame times, for the same total. */
strata_result_t strata_world_step_ns(strata_world_t *w, uint64_t ns);

/* Run system `id` once as strata_world_step runs it (a parallel one split
 * into chunks on the world's threads), enabled or not and whatever its
 * gate; an id past the last runs nothing. Between strata_step_begin and
 * strata_step_end. Returns as strata_world_step. */
strata_result_t strata_system_run(strata_world_t *w, uint32_t id, float dt);

/* Switch system `id` on or off (systems start on); ids past the last are ignored. */
void strata_system_set_enabled(strata_world_t *w, uint32_t id, bool enabled);

/* True if system `id` is on; false for ids past the last. */
bool strata_system_enabled(const strata_world_t *w, uint32_t id);

/* True if system `id`'s gate would let it run now, its counter aside: its
 * states and conditions hold (true for a system without a gate). */
bool strata_system_gate_open(const strata_world_t *w, uint32_t id);

/* The state machine `machine` is in (its initial state before the first
 * step); UINT32_MAX for a machine past the last. */
uint32_t strata_state_get(const strata_world_t *w, uint32_t machine);

/* Ask machine `machine` to go to state `state` at the next transition
 * point (the start of a step, the end of a fixed run, the end of a step):
 * its on_exit systems run, then the new state's on_enter ones. The last
 * request before that point wins; asking for the state it is in re-enters
 * it. Returns STRATA_OK, or STRATA_ERR_MISSING for a machine or state past
 * the last (nothing asked). */
strata_result_t strata_state_set(strata_world_t *w, uint32_t machine, uint32_t state);

/* The fraction of a period fixed phase `phase` has accumulated and not yet
 * run, in [0, 1): how far to interpolate between its last two runs when
 * drawing. 0 for an ordinary phase or one past the last. */
double strata_phase_fraction(const strata_world_t *w, uint32_t phase);

/* The runs fixed phase `phase` made in the last step (1 for an ordinary
 * phase; 0 for one past the last). */
uint32_t strata_phase_runs(const strata_world_t *w, uint32_t phase);

/* --- Reflection ---------------------------------------------------------- */

/* The kind of one field element. */
typedef enum strata_kind_t {
    STRATA_KIND_BOOL = 1,
    STRATA_KIND_I8,
    STRATA_KIND_I16,
    STRATA_KIND_I32,
    STRATA_KIND_I64,
    STRATA_KIND_U8,
    STRATA_KIND_U16,
    STRATA_KIND_U32,
    STRATA_KIND_U64,
    STRATA_KIND_F32,
    STRATA_KIND_F64,
    STRATA_KIND_ENTITY, /* a world's entity handle (uint64_t) */
    STRATA_KIND_ENUM,   /* a C enum; `type` names its members, by value */
    STRATA_KIND_STRUCT, /* `type` lists its fields */
    STRATA_KIND_STRING, /* char[size], NUL-terminated */
} strata_kind_t;

/* One field of a struct, component or the resource block (static data). */
typedef struct strata_field_desc_t {
    const char *name;                      /* the schema's field name */
    const char *const *renamed_from;       /* its former names (`renamed_from:`), NULL-terminated, or NULL */
    const struct strata_type_desc_t *type; /* STRUCT and ENUM: the type; else NULL */
    uint32_t offset;                       /* offsetof in the enclosing C struct */
    uint32_t size;                         /* bytes of one element; N for char[N] */
    uint32_t count;                        /* elements: N for T[N], else 1 */
    uint8_t kind;                          /* strata_kind_t of an element */
    bool array;                            /* declared T[N] (a list in JSON) */
} strata_field_desc_t;

/* A struct or enum type, a component or the resource block (static data). */
typedef struct strata_type_desc_t {
    const char *name;                  /* the schema's name */
    const char *const *renamed_from;   /* components: the former names, NULL-terminated, or NULL */
    uint32_t size;                     /* sizeof the C type; 0 for a tag */
    uint32_t count;                    /* fields (struct) or members (enum) */
    const strata_field_desc_t *fields; /* struct: its fields in declaration order */
    const char *const *members;        /* enum: member names, indexed by value */
} strata_type_desc_t;

/* --- Saves (docs/saves.md) ----------------------------------------------- */

/* The most changes a load report lists; `change_count` counts them all. */
#define STRATA_REPORT_MAX 32

/* What a load changed on the way from the save's schema to the world's. */
typedef enum strata_change_kind_t {
    STRATA_CHANGE_DROPPED = 1, /* in the save, not in the schema: its values are lost */
    STRATA_CHANGE_ADDED,       /* in the schema, not in the save: takes its defaults */
    STRATA_CHANGE_RENAMED,     /* found under its former name (`renamed_from`) */
    STRATA_CHANGE_CONVERTED,   /* a field whose type changed, converted without loss */
    STRATA_CHANGE_LOST,        /* migrations only: values the schema still has a place for but that could not all
                                * be carried (the reason follows the name in parentheses) */
} strata_change_kind_t;

/* One change: `name` is "Component", "Component.field.sub" or, for
 * resources, "resource.Name" / "resource.Name.field". */
typedef struct strata_change_t {
    uint8_t kind;   /* strata_change_kind_t */
    char name[119]; /* truncated if longer */
    uint64_t count; /* entities (or resources) whose values it concerned */
} strata_change_t;

/* What a load tells its caller. On success: the save's schema and the
 * changes made to fit this schema. On failure: what is wrong and where
 * (`offset` in a binary save, `line` and `column` in JSON). */
typedef struct strata_load_report_t {
    char schema[64];         /* the save's schema name */
    uint32_t schema_version; /* and version */
    uint32_t entities;       /* entities loaded */
    uint32_t change_count;   /* changes, including those past `changes` */
    strata_change_t changes[STRATA_REPORT_MAX];
    char error[256];       /* "" on success */
    uint64_t offset;       /* binary: byte offset of the error */
    uint32_t line, column; /* JSON: 1-based position of the error (0 when not known) */
} strata_load_report_t;

/* Save the world to `path`: written to "path.tmp" in the same directory,
 * flushed to disk, then renamed over `path`, so a crash keeps the previous
 * save. Returns STRATA_OK, STRATA_ERR_IO (errno tells why; `path` is
 * untouched) or STRATA_ERR_NOMEM. Pending deferred changes are not saved. */
strata_result_t strata_world_save(const strata_world_t *w, const char *path);

/* Save into buf[0..cap); *size gets the save's size. Returns STRATA_OK, or
 * STRATA_ERR_LIMIT if cap is too small (call with cap 0 to learn the size). */
strata_result_t strata_world_save_mem(const strata_world_t *w, void *buf, size_t cap, size_t *size);

/* Replace the world's entities, components and resources with the save at
 * `path`. All or nothing: on any error (STRATA_ERR_IO, STRATA_ERR_CORRUPT,
 * STRATA_ERR_SCHEMA, STRATA_ERR_NOMEM) the world is exactly as it was and
 * report->error says why. `report` may be NULL. Not while deferred. */
strata_result_t strata_world_load(strata_world_t *w, const char *path, strata_load_report_t *report);

/* strata_world_load from size bytes at data. */
strata_result_t strata_world_load_mem(strata_world_t *w, const void *data, size_t size, strata_load_report_t *report);

/* strata_world_migrate's flags. */
#define STRATA_MIGRATE_ACCEPT_LOSS                                                                                     \
    1u /* carry what can be carried: lost values take the nearest value the new
                                       * type holds (numbers, strings, arrays cut short) or the default */

/* Replace to's entities, components, resources and links with from's,
 * mapped onto to's schema (a newer version of from's, or the same) by the
 * rules of loads (docs/saves.md), except that a type change converts value
 * by value: a narrowing (i32 to i16, f64 to f32, char[16] to char[8], a
 * shorter array, f32 to i32) carries every value it keeps exactly.
 * Values it cannot carry are STRATA_CHANGE_LOST changes, each with the
 * entities (1 for a resource) whose values it loses: a narrowing that
 * changes them, a type change with no conversion, an enum member gone, a
 * component turned into a tag, a relation dropped while links exist. The
 * systems' switches carry over by system name (a new system starts on);
 * to keeps its game pointer and step observer. Returns STRATA_OK;
 * STRATA_ERR_SCHEMA when values would be lost and flags lack
 * STRATA_MIGRATE_ACCEPT_LOSS (then report lists every change, the lost
 * ones first, and to is unchanged), or from is of another save name or a
 * newer version; STRATA_ERR_NOMEM (to unchanged). from never changes.
 * report may be NULL. Not inside a step, iterator or scope of either. */
strata_result_t strata_world_migrate(strata_world_t *to, const strata_world_t *from, unsigned flags,
                                     strata_load_report_t *report);

/* --- Snapshots and rollback (docs/rollback.md) --------------------------- */

/* A copy of a world's whole state, reused from frame to frame: entity
 * records and generations, the free list, every table's rows and columns,
 * the queries' lists, resources, the relations' links and their index,
 * changed sets, event buffers, commands waiting. Its memory comes from the
 * world's allocator hooks; it belongs to the world it was made for. */
typedef struct strata_snapshot_t strata_snapshot_t;

/* A new snapshot of w, holding nothing yet; NULL when out of memory. */
strata_snapshot_t *strata_snapshot_create(strata_world_t *w);

/* Free a snapshot (NULL: nothing); before its world is destroyed. */
void strata_snapshot_destroy(strata_snapshot_t *s);

/* Copy w's state into s, between steps (no iterator, scope or step open).
 * Only the tables whose rows changed since s was last taken are copied;
 * once s has grown to the world's size nothing is allocated. Returns
 * STRATA_OK, or STRATA_ERR_NOMEM with s holding what it held before. */
strata_result_t strata_snapshot_take(strata_world_t *w, strata_snapshot_t *s);

/* Make w exactly what it was when s was taken (a save made after is
 * byte-identical to one made then), between steps. STRATA_ERR_MISSING if
 * s holds nothing; STRATA_ERR_NOMEM: w as it was (room may have grown). */
strata_result_t strata_snapshot_restore(strata_world_t *w, const strata_snapshot_t *s);

/* Bytes s holds (its copies and their spare room). */
size_t strata_snapshot_bytes(const strata_snapshot_t *s);

/* A ring of `count` snapshots, by frame number: frame f lives in slot f % count. */
typedef struct strata_snapshot_ring_t strata_snapshot_ring_t;

/* A ring of count (> 0) empty snapshots of w; NULL when out of memory. */
strata_snapshot_ring_t *strata_snapshot_ring_create(strata_world_t *w, uint32_t count);

/* Free a ring and its snapshots (NULL: nothing). */
void strata_snapshot_ring_destroy(strata_snapshot_ring_t *ring);

/* Take frame f's snapshot into its slot (which forgets the frame it held).
 * STRATA_ERR_NOMEM: the slot still holds its older frame, intact. */
strata_result_t strata_snapshot_ring_take(strata_world_t *w, strata_snapshot_ring_t *ring, uint64_t frame);

/* Restore frame f: STRATA_ERR_MISSING when the ring does not hold it, else
 * as strata_snapshot_restore. */
strata_result_t strata_snapshot_ring_restore(strata_world_t *w, const strata_snapshot_ring_t *ring, uint64_t frame);

/* True if the ring holds frame f. */
bool strata_snapshot_ring_holds(const strata_snapshot_ring_t *ring, uint64_t frame);

/* A 64-bit hash (xxHash's XXH3) of what a binary save of w holds: the same
 * at any thread count and after a save and a load, for comparing two
 * peers' worlds. Returns STRATA_OK or STRATA_ERR_NOMEM. */
strata_result_t strata_checksum(const strata_world_t *w, uint64_t *out);

/* --- JSON (writing: libstrata; loading: libstrata_json, with -lyajl) -- */

/* Flags of the JSON writers. */
#define STRATA_JSON_PRETTY 1u /* indent by 4 spaces, one member a line */

/* Write e as {"id": ..., "components": {"Position": {"x": 1, "y": 2}, ...}}
 * to f. Returns STRATA_OK, STRATA_ERR_STALE, or STRATA_ERR_IO. */
strata_result_t strata_entity_write_json(const strata_world_t *w, strata_entity_t e, FILE *f, unsigned flags);

/* Write e's JSON into buf[0..cap), NUL-terminated when cap > 0 (snprintf
 * style). Returns its length without the NUL (>= cap: truncated), or 0 if
 * e is stale. */
size_t strata_entity_json(const strata_world_t *w, strata_entity_t e, char *buf, size_t cap, unsigned flags);

/* Write the whole world as JSON to f, one entity a line. Returns STRATA_OK
 * or STRATA_ERR_IO. */
strata_result_t strata_world_write_json(const strata_world_t *w, FILE *f);

/* The same into buf[0..cap); *size gets the length. STRATA_ERR_LIMIT if cap
 * is too small (nothing is NUL-terminated). */
strata_result_t strata_world_write_json_mem(const strata_world_t *w, char *buf, size_t cap, size_t *size);

/* strata_world_write_json to `path` through "path.tmp" and a rename, as
 * strata_world_save. */
strata_result_t strata_world_save_json(const strata_world_t *w, const char *path);

/* Load a world dumped as JSON, as strata_world_load does a binary save
 * (same mapping by name, same all-or-nothing rule). Errors carry line and
 * column. In libstrata_json (link -lstrata_json -lyajl). */
strata_result_t strata_world_load_json(strata_world_t *w, const char *path, strata_load_report_t *report);

/* strata_world_load_json from `size` bytes of text. */
strata_result_t strata_world_load_json_mem(strata_world_t *w, const char *text, size_t size,
                                           strata_load_report_t *report);

/* --- Masks --------------------------------------------------------------- */

static inline void strata_mask_set(strata_mask_t *m, uint32_t c) {
    m->bits[c >> 6] |= (uint64_t)1 << (c & 63);
}
static inline void strata_mask_clear(strata_mask_t *m, uint32_t c) {
    m->bits[c >> 6] &= ~((uint64_t)1 << (c & 63));
}
static inline bool strata_mask_test(const strata_mask_t *m, uint32_t c) {
    return (m->bits[c >> 6] >> (c & 63)) & 1u;
}

#ifdef __cplusplus
}
#endif

#endif /* STRATA_H */

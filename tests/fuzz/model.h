/* model.h: the reference model of the fuzz world (tests/schema/fuzz.yaml),
 * deliberately simple: a flat array of live entities, each a component mask
 * and the bytes of each value, and a queue of deferred commands applied in
 * order. It knows nothing of tables, rows or archetypes; it encodes the
 * rules docs/guide.md and docs/systems.md state (deferral, steps, hooks,
 * aspects, dirty sets) and nothing else, so that the differential test
 * (tests/fuzz/diff.c) can hold the runtime to them.
 *
 * Handles are not predicted: the model adopts the handle the runtime gives a
 * new entity, after checking it was never issued before. */
#ifndef FUZZ_MODEL_H
#define FUZZ_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Components, in schema order. */
enum {
    M_POS,
    M_VEL,
    M_HP,
    M_TINY,
    M_BIG,
    M_NAME,
    M_LINK,
    M_ARMOR,
    M_FROZEN,
    M_MARK,
    M_AIM,   /* an entity field whose target's destroy clears it */
    M_CHILD, /* the relations' components: ChildOf (exclusive, destroy) */
    M_TGTS,  /* Targets (many targets, remove): a tag, the links in m_entity.tgts */
    M_DOCK,  /* Docked (exclusive, data, remove) */
    M_NC
};
/* The components that are not relations (the generic operations' choice). */
#define M_NPLAIN M_CHILD
/* The components stored sparse (tests/schema/fuzz.yaml: `storage: sparse`).
 * What the model predicts does not depend on where a component lives, but
 * two things do: adding or removing only these never moves the entity's
 * row, and needs no archetype (so it works at the archetype limit). */
#define M_SPARSE ((uint16_t)(1u << M_TINY | 1u << M_FROZEN | 1u << M_MARK | 1u << M_AIM))
/* Bytes of each component's value (0: a tag). */
extern const uint32_t m_size[M_NC];
/* Each component's default value. */
extern const unsigned char m_default[M_NC][48];
#define M_MAX_SIZE 48
#define M_BIT(c) ((uint16_t)(1u << (c)))

/* The `changed` sets: the free queries Hurt and Touched, the system Heal. */
enum { M_SET_HURT, M_SET_TOUCHED, M_SET_HEAL, M_NSETS };
/* Systems, in schedule order. */
enum { M_SYS_TICK, M_SYS_GROW, M_SYS_MOVE, M_SYS_HUNT, M_SYS_HEAL, M_SYS_THAW, M_NSYS };
/* Free queries. */
enum { M_Q_MOVERS, M_Q_NAMED, M_Q_HEAVY, M_Q_HURT, M_Q_TOUCHED, M_Q_TREE, M_NQ };

/* Results, as strata_result_t spells them. */
enum { M_OK = 0, M_STALE = -1, M_MISSING = -2, M_CYCLE = -8 };

#define M_MAX_ENTITIES 131072 /* live at once: the large-world mode keeps below (a model's capacity) */
#define M_MAX_BATCH 16        /* entities of one deferred create */
#define M_MAX_INDEX 262144    /* entity indices the model tracks generations of */
#define M_DEAD_RING 64        /* recently destroyed handles, for stale-handle use */
#define M_MAX_TARGETS 12      /* Targets links of one source (the engine adds no more) */

/* An exclusive relation's link, as its component holds it: the target, the
 * depth the runtime keeps, then the data (Docked's slot). */
#define M_LINK_TARGET 0
#define M_LINK_DEPTH 8
#define M_LINK_SLOT 12

typedef struct m_entity {
    uint64_t h;
    uint16_t mask;  /* M_BIT(c) per component */
    uint8_t dirty;  /* bit per `changed` set */
    bool doomed;    /* destroy recorded (deferred) or scheduled (step) */
    bool recorded;  /* ... recorded: it applies before anything recorded after it */
    uint32_t steps; /* Move's aspect, while it matches Move */
    bool dying;     /* its destroy is being applied: its sources lists are gone */
    uint8_t ntgts;  /* its Targets links (the tag may lag behind, deferred) */
    uint64_t tgts[M_MAX_TARGETS];
    unsigned char val[M_NC][M_MAX_SIZE];
} m_entity;

enum { M_CMD_ADD = 1, M_CMD_REMOVE, M_CMD_DESTROY };

/* A deferred command, as recorded: values copied then. */
typedef struct m_cmd {
    uint8_t kind;
    uint16_t mask;
    uint32_t n, done; /* entities, and those already applied */
    uint64_t h[M_MAX_BATCH];
    unsigned char val[M_NC][M_MAX_SIZE];
} m_cmd;

typedef struct model {
    m_entity *ents; /* live, in no order */
    uint32_t n;
    uint32_t capacity; /* of ents */
    m_cmd *queue;      /* a ring: head .. head + count */
    uint32_t queue_head, queue_count, queue_capacity;
    uint64_t *doomed; /* destroys scheduled for the step's end */
    uint32_t doomed_count, doomed_capacity;
    uint32_t doomed_done; /* of them, applied by the flush under way */
    uint32_t depth;       /* open deferral scopes */
    bool in_step;
    uint32_t *generation; /* by index: the last generation issued */
    int32_t *slot;        /* by index: its entity in ents, or -1 */
    uint32_t top;         /* indices below it have been seen: slot and generation hold for them (0 above) */
    bool linkless;        /* the game makes no link and no entity field: a destroy has no sources to find */
    uint64_t dead[M_DEAD_RING];
    uint32_t dead_count;
    /* What the hooks saw. */
    uint32_t move_added, move_removed, armor_added, armor_removed, mark_added, mark_removed;
    bool enabled[M_NSYS];
    uint32_t steps; /* the Stats resource */
} model;

/* A fresh model (an empty world) for up to `capacity` live entities
 * (at most M_MAX_ENTITIES); m_free releases it. */
void m_init(model *m, uint32_t capacity);
void m_free(model *m);

/* The live entity of handle h, or NULL. */
m_entity *m_find(const model *m, uint64_t h);
/* True if h names a live entity (one whose destroy is pending included). */
bool m_alive(const model *m, uint64_t h);
/* True if the entity matches free query q / system s / `changed` set k's query. */
bool m_query_matches(const m_entity *e, int q);
bool m_system_matches(const m_entity *e, int s);
bool m_set_matches(const m_entity *e, int k);
/* Pending work, as strata_world_stats_t.pending counts it. */
uint32_t m_pending(const model *m);

/* Take a handle the runtime just issued: false if it was issued before or
 * names a live entity. */
bool m_adopt(model *m, uint64_t h);
/* n new entities (handles hs, adopted) with `mask` and values vals[c]
 * (NULL: defaults), created as the runtime does: placed at once, their
 * components deferred (one command) while a scope is open. */
void m_create(model *m, const uint64_t *hs, uint32_t n, uint16_t mask, const void *const vals[M_NC]);
/* The operations, with the result the runtime must return. vals as above. */
int m_destroy(model *m, uint64_t h);
int m_add(model *m, uint64_t h, uint16_t mask, const void *const vals[M_NC]);
int m_remove(model *m, uint64_t h, uint16_t mask); /* remove_many: MISSING if it has none */
int m_set(model *m, uint64_t h, int c, const void *val);
/* Relations. An exclusive one's link (c: M_CHILD or M_DOCK; slot for
 * Docked): set, remove; Targets' add and remove; a subtree's destroy. */
int m_link_set(model *m, int c, uint64_t h, uint64_t target, uint8_t slot);
int m_link_remove(model *m, int c, uint64_t h);
int m_targets_add(model *m, uint64_t h, uint64_t target);
int m_targets_remove(model *m, uint64_t h, uint64_t target);
int m_destroy_tree(model *m, uint64_t root);
/* An exclusive link's target and depth (0 without a link). */
uint64_t m_link_target(const m_entity *e, int c);
uint32_t m_link_depth(const m_entity *e, int c);
/* True if s is among target t's sources in relation c (t alive). */
bool m_is_source(const model *m, const m_entity *s, int c, uint64_t t);
/* True if e links to t in Targets. */
bool m_targets_has(const m_entity *e, uint64_t t);
/* get_mut: NULL (false) or the value to write in place (marked changed). */
unsigned char *m_mut(model *m, uint64_t h, int c);
/* Mark e's component c written, for the sets tracking it. */
void m_mark(model *m, m_entity *e, int c);

/* What a save holds: the entities with their values, the entity index
 * (the generations issued), the resources; not pending work, not hooks'
 * counts, not which systems are enabled. */
typedef struct m_save {
    m_entity *ents;
    uint32_t n;
    uint32_t *generation; /* [0, top) */
    uint32_t top;
    uint64_t dead[M_DEAD_RING];
    uint32_t dead_count;
    uint32_t steps;
} m_save;

/* A restore of a snapshot of the world: dst becomes what src (a copy made
 * with m_copy when the snapshot was taken) holds, all of it (entities,
 * marks, aspects, pending work, generations, enabled systems, the Stats
 * resource), but for the hooks' counts: a restore runs no hook. dst must
 * be m_init'ed (or zero, for the first copy into a spare model). */
void m_copy(model *dst, const model *src, bool keep_hook_counts);

/* Record what a save of the world holds (into s, which m_save_free releases). */
void m_save_take(const model *m, m_save *s);
void m_save_free(m_save *s);
/* A successful load of s: the entities there leave (their on_remove hooks
 * run; what those record is dropped with the old contents, as is any
 * pending work), the saved ones arrive (aspects at their defaults, on_add
 * hooks, counted as written for every `changed` set they match). */
void m_load(model *m, const m_save *s);
/* The world is destroyed: its entities' on_remove hooks run. The model is
 * then that of a new world, before m_load fills it. */
void m_world_destroyed(model *m);

/* Deferral scopes and steps, as the runtime's. A flush is never run
 * inline: m_flush_unit applies one unit of it (one entity of the front
 * command, or one scheduled destroy) and returns false when nothing is
 * left, so that the engine can stop where the runtime stopped when an
 * allocation failed. */
void m_defer_begin(model *m);
void m_defer_end(model *m);
bool m_flush_due(const model *m);
bool m_flush_unit(model *m);
/* A flush begins: one that stopped among the scheduled destroys left the
 * rest scheduled, after the commands those it applied recorded. */
void m_flush_begin(model *m);

#endif /* FUZZ_MODEL_H */

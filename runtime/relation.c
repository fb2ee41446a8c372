/* relation.c: the index of links by target (and by source for a
 * non-exclusive relation), the relation entry points, and the policies a
 * destroy applies. docs/relations.md describes the model. */
#include "relation.h"

#include <stdlib.h>

/* The handles one entity's list holds: its sources, or its targets. */
typedef struct relation_list_t {
    strata_entity_t *items;
    uint32_t count;
    uint32_t capacity;
} relation_list_t;

/* The index of one relation, by entity index. A dead target's list is
 * emptied when it dies, so a list is always its live entity's: callers
 * check that the handle is alive before reading the list at its index. */
typedef struct relation_index_t {
    relation_list_t *sources; /* by target: the entities linking to it */
    size_t sources_cap;
    relation_list_t *targets; /* non-exclusive, by source: its targets */
    size_t targets_cap;
    uint32_t *slot; /* exclusive, by source: its place in its target's sources */
    size_t slot_cap;
    /* Exclusive: bumped whenever a link's target or depth changes in place
     * (a cascade pass saved before then no longer holds). */
    uint32_t links;
} relation_index_t;

/* One batch of a cascade pass: rows [row, row + count) of a table, all at one depth. */
typedef struct cascade_run_t {
    uint32_t table;
    uint32_t row;
    uint32_t count;
    uint32_t depth;
    uint32_t order; /* its place before sorting, so that the sort is stable */
} cascade_run_t;

/* Rows a cascade batch holds at most: its parents' rows fit a buffer that
 * stays in the cache while the system reads it. */
#define CASCADE_CHUNK 4096u

/* No table: the parents' table of a batch of roots. */
#define CASCADE_NO_TABLE UINT32_MAX

/* One batch of a saved cascade pass: rows [row, row + count) of `table`,
 * their parents' rows at parents[up, up + count) of up_table
 * (CASCADE_NO_TABLE in a batch of roots). */
typedef struct cascade_batch_t {
    uint32_t table, row, count;
    uint32_t up_table, up;
} cascade_batch_t;

/* A table a saved pass read, as it was then: its `moved`, and its count
 * (UINT32_MAX for a table only parents were read from: appends move no row). */
typedef struct cascade_stamp_t {
    uint32_t table, moved, count;
} cascade_stamp_t;

/* A query's batches for its cascade pass, in visiting order. When there
 * is no memory for them, the pass walks the tables once per depth instead
 * (`walk`: the depth it is at, the table and row it goes on from, the
 * least depth above it seen so far). A run is handed out in batches of at
 * most CASCADE_CHUNK rows (one without memory for any buffer of parents).
 *
 * A pass that finds its tables as the last pass left them (`built`, and
 * the stamps hold: no row of them has moved or left, none was appended,
 * no link of the relation has changed (`links`), the query has no new
 * table, and the runs were sorted if this pass may sort) takes the runs as
 * they are, and saves itself as it goes: its batches, each child's
 * parent's row (in visiting order) and the parents' tables. The pass after
 * it replays that, reading only those arrays, while the stamps hold. A
 * pass after a change writes its parents' rows into `up`, as small as the
 * cache, and saves nothing: a hierarchy changed every frame costs no more
 * than without the saved pass. */
typedef struct cascade_list_t {
    cascade_run_t *runs;
    uint32_t count;
    size_t capacity;
    bool walk;
    uint32_t walk_relation, walk_depth, walk_table, walk_row, walk_next;
    cascade_run_t current; /* the run being handed out */
    uint32_t done;         /* its rows handed out already */
    uint32_t *up;          /* CASCADE_CHUNK rows: the current batch's parents' rows, without `parents` */
    uint32_t up_one;       /* the same for a batch of one row, without memory for `up` */
    uint32_t relation;
    /* The saved pass. */
    cascade_batch_t *batches;
    uint32_t batch_count;
    size_t batch_capacity;
    uint32_t *parents; /* each child's parent's row, in visiting order */
    uint32_t parent_count;
    size_t parent_capacity;
    cascade_stamp_t *stamps; /* the query's tables first, then the parents' other tables */
    uint32_t stamp_count;
    size_t stamp_capacity;
    uint32_t links;  /* the relation's `links` when it was built */
    uint32_t tables; /* the query's table count then */
    bool built;      /* the runs and the stamps of the query's tables are whole */
    bool filling;    /* this pass writes the parents' rows into `parents` */
    bool saving;     /* ... and saves its batches (no allocation has failed) */
    bool saved;      /* the last pass was saved, whole */
    bool sorted;     /* it could sort the tables */
    bool replay;     /* this pass replays the saved one */
} cascade_list_t;

struct sti_relations_t {
    cascade_list_t *cascades; /* by query id (query_count of them) */
    /* The link strata_relation_set is adding now, checked and with room:
     * its hook need not check it again. Null otherwise. */
    strata_entity_t checked_source, checked_target;
    /* The entity being destroyed: the policies have dealt with its sources,
     * so the removal of its own links walks nothing below it. */
    strata_entity_t dying;
    strata_mask_t exclusive; /* the components of the exclusive relations: an add of one needs room */
    uint8_t relation_of[STRATA_MAX_COMPONENTS]; /* by such a component, its relation */
    uint32_t count;
    relation_index_t rel[]; /* by relation id */
};

/* --- Lists ------------------------------------------------------------------- */

/* Room for `extra` more handles in list. */
static strata_result_t list_room(strata_world_t *w, relation_list_t *list, uint32_t extra) {
    if (list->count + (size_t)extra <= list->capacity) {
        return STRATA_OK;
    }
    size_t cap = list->capacity;
    strata_result_t r = sti_mem_grow(w, &list->items, sizeof(strata_entity_t), &cap, (size_t)list->count + extra, 4);
    if (r == STRATA_OK && cap > UINT32_MAX) {
        return STRATA_ERR_LIMIT;
    }
    list->capacity = (uint32_t)cap;
    return r;
}

/* Free a list's handles. */
static void list_free(strata_world_t *w, relation_list_t *list) {
    sti_mem_free(w, list->items, sizeof(strata_entity_t) * list->capacity);
    *list = (relation_list_t){0};
}

/* The position of e in list, or UINT32_MAX. */
static uint32_t list_find(const relation_list_t *list, strata_entity_t e) {
    for (uint32_t i = 0; i < list->count; i++) {
        if (list->items[i] == e) {
            return i;
        }
    }
    return UINT32_MAX;
}

/* Remove the handle at i by moving the last one there. */
static void list_take(relation_list_t *list, uint32_t i) {
    list->items[i] = list->items[--list->count];
}

/* --- The index ---------------------------------------------------------------- */

static relation_index_t *relation_at(const strata_world_t *w, uint32_t r) {
    STRATA_ASSERT(w->relations != NULL && r < w->relations->count);
    return &w->relations->rel[r];
}

/* Grow a by-index array (zeroing the new entries) to cover index i. */
static strata_result_t relation_cover_one(strata_world_t *w, void *array, size_t elem, size_t *cap, uint32_t i) {
    size_t old = *cap;
    if (i < old) {
        return STRATA_OK;
    }
    size_t need = (size_t)i + 1 > w->record_capacity ? (size_t)i + 1 : w->record_capacity;
    strata_result_t r = sti_mem_grow(w, array, elem, cap, need, 64);
    if (r == STRATA_OK) {
        memset(*(unsigned char **)array + old * elem, 0, (*cap - old) * elem);
    }
    return r;
}

/* The arrays of relation r cover entity indices a and b. */
static strata_result_t relation_cover(strata_world_t *w, relation_index_t *x, bool exclusive, uint32_t a, uint32_t b) {
    uint32_t i = a > b ? a : b;
    strata_result_t r = relation_cover_one(w, &x->sources, sizeof(relation_list_t), &x->sources_cap, i);
    if (r == STRATA_OK && exclusive) {
        r = relation_cover_one(w, &x->slot, sizeof(uint32_t), &x->slot_cap, i);
    }
    if (r == STRATA_OK && !exclusive) {
        r = relation_cover_one(w, &x->targets, sizeof(relation_list_t), &x->targets_cap, i);
    }
    return r;
}

/* True if exclusive relation x's arrays cover entity indices e and t and
 * t's sources have room for n more (the growth below would do nothing). */
static bool exclusive_has_room(const relation_index_t *x, uint32_t e, uint32_t t, uint32_t n) {
    return e < x->slot_cap && e < x->sources_cap && t < x->sources_cap &&
           x->sources[t].count + (size_t)n <= x->sources[t].capacity;
}

/* The list at entity index i of a by-index array, or NULL when not covered. */
static relation_list_t *relation_list(relation_list_t *lists, size_t cap, strata_entity_t e) {
    uint32_t i = strata_entity_index(e);
    return i < cap ? &lists[i] : NULL;
}

/* --- Exclusive links ---------------------------------------------------------- */

/* The target in a link value (its first member). */
static strata_entity_t link_target(const void *link) {
    strata_entity_t t;
    memcpy(&t, link, sizeof t);
    return t;
}

static void link_set_target(void *link, strata_entity_t t) {
    memcpy(link, &t, sizeof t);
}

/* The depth in a link value (the uint32_t after the target). */
static uint32_t link_depth(const void *link) {
    uint32_t depth;
    memcpy(&depth, (const unsigned char *)link + sizeof(strata_entity_t), sizeof depth);
    return depth;
}

static void link_set_depth(void *link, uint32_t depth) {
    memcpy((unsigned char *)link + sizeof(strata_entity_t), &depth, sizeof depth);
}

/* e's link, writable without marking it changed (the depth is the runtime's), or NULL. */
static void *link_cell(strata_world_t *w, const strata_relation_desc_t *d, strata_entity_t e) {
    return (void *)(uintptr_t)strata_get(w, e, d->component);
}

/* e's target in exclusive relation d, or NULL (stale e, no link). */
static strata_entity_t exclusive_target(const strata_world_t *w, const strata_relation_desc_t *d, strata_entity_t e) {
    const void *link = strata_get(w, e, d->component);
    return link != NULL ? link_target(link) : STRATA_ENTITY_NULL;
}

/* e's depth: its link's, 0 without one. */
static uint32_t exclusive_depth(const strata_world_t *w, const strata_relation_desc_t *d, strata_entity_t e) {
    const void *link = strata_get(w, e, d->component);
    return link != NULL ? link_depth(link) : 0;
}

static strata_entity_t tree_next(const strata_world_t *w, uint32_t r, strata_entity_t root, strata_entity_t e,
                                 bool down);

/* Give e (its link: `link`, or NULL to look it up) the depth `depth`, and
 * each entity below it its parent's plus one (a pre-order walk: parents
 * first; nothing to walk below a leaf). */
static void exclusive_redepth(strata_world_t *w, uint32_t r, strata_entity_t e, void *link, uint32_t depth) {
    const strata_relation_desc_t *d = &w->schema->relations[r];
    relation_index_t *x = relation_at(w, r);
    x->links++; /* every change of a link's target or depth comes here */
    link = link != NULL ? link : link_cell(w, d, e);
    if (link != NULL) {
        link_set_depth(link, depth);
    }
    if (strata_entity_index(e) >= x->sources_cap || x->sources[strata_entity_index(e)].count == 0) {
        return;
    }
    for (strata_entity_t s = tree_next(w, r, e, e, true); s != STRATA_ENTITY_NULL; s = tree_next(w, r, e, s, true)) {
        link_set_depth(link_cell(w, d, s), exclusive_depth(w, d, exclusive_target(w, d, s)) + 1);
    }
}

/* True if walking up from `from` meets e (linking e to `from` would close a cycle). */
static bool exclusive_reaches(const strata_world_t *w, const strata_relation_desc_t *d, strata_entity_t from,
                              strata_entity_t e) {
    /* A chain is at most as long as there are entities; the bound keeps a
     * corrupt chain from looping. */
    for (uint32_t steps = 0; from != STRATA_ENTITY_NULL && steps <= w->alive; steps++) {
        if (from == e) {
            return true;
        }
        from = exclusive_target(w, d, from);
    }
    return false;
}

/* File source e (its link: `link`, or NULL) under target t (room reserved)
 * and set the depths below. */
static void exclusive_link(strata_world_t *w, uint32_t r, strata_entity_t e, void *link, strata_entity_t t) {
    relation_index_t *x = relation_at(w, r);
    relation_list_t *list = &x->sources[strata_entity_index(t)];
    x->slot[strata_entity_index(e)] = list->count;
    list->items[list->count++] = e;
    exclusive_redepth(w, r, e, link, exclusive_depth(w, &w->schema->relations[r], t) + 1);
}

/* Take source e out of live target t's sources. */
static void exclusive_unlink(relation_index_t *x, strata_entity_t e, strata_entity_t t) {
    relation_list_t *list = relation_list(x->sources, x->sources_cap, t);
    uint32_t i = strata_entity_index(e) < x->slot_cap ? x->slot[strata_entity_index(e)] : UINT32_MAX;
    if (list == NULL || i >= list->count || list->items[i] != e) {
        return; /* not filed under t */
    }
    list_take(list, i);
    if (i < list->count) {
        x->slot[strata_entity_index(list->items[i])] = i;
    }
}

/* The largest entity index among n entities (`entities`, or NULL: the n
 * the next create makes), or UINT32_MAX if they cannot be made. */
static uint32_t relation_top_index(const strata_world_t *w, uint32_t n, const strata_entity_t *entities) {
    if (entities == NULL) {
        uint64_t fresh = n > w->free_count ? n - w->free_count : 0;
        uint64_t end = (uint64_t)w->record_count + fresh; /* free indices lie below record_count */
        return end > 0 && end < UINT32_MAX ? (uint32_t)(end - 1) : UINT32_MAX;
    }
    uint32_t top = 0;
    for (uint32_t i = 0; i < n; i++) {
        top = strata_entity_index(entities[i]) > top ? strata_entity_index(entities[i]) : top;
    }
    return top;
}

/* Room for n more sources of exclusive relation r under the target of
 * `value` (NULL: the component's defaults), if it is alive, in arrays that
 * cover the n entities (relation_top_index). */
static strata_result_t relation_link_room(strata_world_t *w, uint32_t r, uint32_t n, const strata_entity_t *entities,
                                          const void *value) {
    const strata_relation_desc_t *d = &w->schema->relations[r];
    value = value != NULL ? value : w->components[d->component].defaults;
    strata_entity_t t = value != NULL ? link_target(value) : STRATA_ENTITY_NULL;
    if (t == STRATA_ENTITY_NULL || sti_record_lookup(w, t) == NULL) {
        return STRATA_OK;
    }
    relation_index_t *x = relation_at(w, r);
    uint32_t top = relation_top_index(w, n, entities), ti = strata_entity_index(t);
    if (top == UINT32_MAX || exclusive_has_room(x, top, ti, n)) {
        return STRATA_OK; /* (past the entity limit, the create fails with LIMIT before any hook runs) */
    }
    strata_result_t res = relation_cover(w, x, true, top, ti);
    return res == STRATA_OK ? list_room(w, &x->sources[ti], n) : res;
}

/* world->on_add_room: for each exclusive relation among ids whose link
 * (one value for all n entities) names a live target, index arrays that
 * cover the n entities and the target, and room for n more sources in the
 * target's list; then the hooks file every link of the add without
 * allocating. (Its target may die before a recorded add applies: the link
 * is dropped then, needing no room.) */
static strata_result_t relation_add_room(strata_world_t *w, uint32_t n, const strata_entity_t *entities, uint32_t k,
                                         const uint32_t *ids, const void *const *values) {
    const struct sti_relations_t *rels = w->relations;
    for (uint32_t i = 0; i < k; i++) {
        if (!strata_mask_test(&rels->exclusive, ids[i]) || n == 0) {
            continue;
        }
        strata_result_t res = relation_link_room(w, rels->relation_of[ids[i]], n, entities,
                                                 values != NULL ? values[i] : NULL);
        if (res != STRATA_OK) {
            return res;
        }
    }
    return STRATA_OK;
}

/* True if a link of exclusive relation r from e (STRATA_ENTITY_NULL: an
 * entity about to be made, which no link can reach) to the target in
 * `value` (NULL: the component's defaults) can be filed: a null target (a
 * link naming nothing, as the clear policy leaves), or a live one that
 * closes no cycle. */
static bool relation_link_fits(const strata_world_t *w, uint32_t r, strata_entity_t e, const void *value) {
    const strata_relation_desc_t *d = &w->schema->relations[r];
    value = value != NULL ? value : w->components[d->component].defaults;
    strata_entity_t t = value != NULL ? link_target(value) : STRATA_ENTITY_NULL;
    if (t == STRATA_ENTITY_NULL) {
        return true;
    }
    if (sti_record_lookup(w, t) == NULL) {
        return false;
    }
    /* A link strata_relation_set checked a moment ago needs no second walk up. */
    bool checked = w->relations->checked_source == e && w->relations->checked_target == t;
    return e == STRATA_ENTITY_NULL || checked || !exclusive_reaches(w, d, t, e);
}

/* world->on_links_keep: the ids (k) of an add of `values` (NULL:
 * defaults) to e (a live entity, or STRATA_ENTITY_NULL: entities about to
 * be made) into kept_ids / kept_values, in order, without those of
 * exclusive relations whose link cannot be filed (relation_link_fits), so
 * that the add leaves e as if it had not named them. Returns how many. */
static uint32_t relation_links_keep(strata_world_t *w, strata_entity_t e, uint32_t k, const uint32_t *ids,
                                    const void *const *values, uint32_t *kept_ids, const void **kept_values) {
    const struct sti_relations_t *rels = w->relations;
    uint32_t n = 0;
    for (uint32_t i = 0; i < k; i++) {
        const void *value = values != NULL ? values[i] : NULL;
        if (strata_mask_test(&rels->exclusive, ids[i]) && !relation_link_fits(w, rels->relation_of[ids[i]], e, value)) {
            continue;
        }
        kept_ids[n] = ids[i];
        kept_values[n] = value;
        n++;
    }
    return n;
}

/* world->on_relink: the links of exclusive relations among ids that `had`
 * has and row `row` of t holds, out of the index (before an overwrite) or
 * filed again (after it). */
static void relation_relink(strata_world_t *w, const sti_table_t *had, const sti_table_t *t, uint32_t row, uint32_t k,
                            const uint32_t *ids, bool added) {
    const struct sti_relations_t *rels = w->relations;
    for (uint32_t i = 0; i < k; i++) {
        if (!strata_mask_test(&rels->exclusive, ids[i]) || !strata_mask_test(&had->mask, ids[i])) {
            continue;
        }
        strata_relation_hook(w, rels->relation_of[ids[i]], t->entities[row], sti_table_cell(w, t, ids[i], row), added);
    }
}

/* The component hook of an exclusive relation: file e under its new
 * target, or take it out. Every add leaves out a link that cannot be filed
 * (relation_links_keep) before it moves anything; one that comes another
 * way (a load's) and cannot be filed is kept with a null target. The room
 * to file it was made before the add began (relation_add_room), so the
 * growth below finds it there. */
void strata_relation_hook(strata_world_t *w, uint32_t r, strata_entity_t e, void *link, bool added) {
    STRATA_ASSERT(w != NULL && link != NULL);
    const strata_relation_desc_t *d = &w->schema->relations[r];
    relation_index_t *x = relation_at(w, r);
    strata_entity_t t = link_target(link);
    if (t == STRATA_ENTITY_NULL) {
        return;
    }
    if (!added) {
        if (sti_record_lookup(w, t) != NULL) {
            exclusive_unlink(x, e, t);
        }
        if (e != w->relations->dying) {
            exclusive_redepth(w, r, e, link, 0); /* what was below e is now below a root */
        }
        return;
    }
    link_set_target(link, STRATA_ENTITY_NULL); /* so the walk up from t does not pass through e */
    /* A link strata_relation_set checked for cycles a moment ago (applied
     * now, not recorded) needs no second walk up. */
    bool checked = w->relations->checked_source == e && w->relations->checked_target == t;
    uint32_t ei = strata_entity_index(e), ti = strata_entity_index(t);
    bool fits = sti_record_lookup(w, t) != NULL && (checked || !exclusive_reaches(w, d, t, e)) &&
                (exclusive_has_room(x, ei, ti, 1) ||
                 (relation_cover(w, x, true, ei, ti) == STRATA_OK && list_room(w, &x->sources[ti], 1) == STRATA_OK));
    if (fits) {
        link_set_target(link, t);
        exclusive_link(w, r, e, link, t);
    } else {
        exclusive_redepth(w, r, e, link, 0);
    }
}

/* Record the add of c to e with value: applied, it links e, or re-links
 * it (an add over a link re-files it), or, when the link cannot be filed
 * by then (its target died, or it would close a cycle), leaves e as it
 * finds it (relation_links_keep). */
static strata_result_t exclusive_record_set(strata_world_t *w, strata_entity_t e, uint32_t c, const void *value) {
    return sti_command_push(w, STI_CMD_ADD, &e, 1, &c, &value);
}

/* Link e to t now: e has the component (replace in place) or not (add). */
static strata_result_t exclusive_set_now(strata_world_t *w, uint32_t r, strata_entity_t e, const void *value) {
    const strata_relation_desc_t *d = &w->schema->relations[r];
    relation_index_t *x = relation_at(w, r);
    const void *old = strata_get(w, e, d->component);
    if (old == NULL) {
        w->relations->checked_source = e; /* the hook files it, without checking it again */
        w->relations->checked_target = link_target(value);
        strata_result_t res = strata_add(w, e, d->component, value);
        w->relations->checked_source = STRATA_ENTITY_NULL;
        w->relations->checked_target = STRATA_ENTITY_NULL;
        return res;
    }
    strata_entity_t was = link_target(old);
    if (was != STRATA_ENTITY_NULL && sti_record_lookup(w, was) != NULL) {
        exclusive_unlink(x, e, was);
    }
    (void)strata_set(w, e, d->component, value); /* e is alive and has it */
    exclusive_link(w, r, e, NULL, link_target(value));
    return STRATA_OK;
}

strata_result_t strata_relation_set(strata_world_t *w, uint32_t r, strata_entity_t e, strata_entity_t target,
                                    const void *link) {
    STRATA_ASSERT(w != NULL);
    relation_index_t *x = relation_at(w, r);
    const strata_relation_desc_t *d = &w->schema->relations[r];
    STRATA_ASSERT(d->exclusive);
    if (sti_record_lookup(w, e) == NULL || sti_record_lookup(w, target) == NULL) {
        return STRATA_ERR_STALE;
    }
    if (exclusive_reaches(w, d, target, e)) {
        return STRATA_ERR_CYCLE;
    }
    uint32_t size = w->components[d->component].size;
    unsigned char small[256];
    unsigned char *value = size <= sizeof small ? small : sti_mem_alloc(w, size);
    if (value == NULL) {
        return STRATA_ERR_NOMEM;
    }
    sti_value_write(w, value, d->component, link);
    link_set_target(value, target);
    strata_result_t res = relation_cover(w, x, true, strata_entity_index(e), strata_entity_index(target));
    if (res == STRATA_OK) {
        res = list_room(w, &x->sources[strata_entity_index(target)], 1);
    }
    if (res == STRATA_OK) {
        res = sti_deferred(w) ? exclusive_record_set(w, e, d->component, value) : exclusive_set_now(w, r, e, value);
    }
    if (value != small) {
        sti_mem_free(w, value, size);
    }
    return res;
}

/* --- Non-exclusive links ------------------------------------------------------- */

/* Record or apply the removal of e's tag c: a recorded one is not checked
 * now (the tag's add may itself wait in the buffer). */
static strata_result_t tag_remove(strata_world_t *w, strata_entity_t e, uint32_t c) {
    if (!sti_deferred(w)) {
        strata_result_t r = strata_remove(w, e, c);
        return r == STRATA_ERR_MISSING ? STRATA_OK : r;
    }
    return sti_command_push(w, STI_CMD_REMOVE, &e, 1, &c, NULL);
}

strata_result_t strata_relation_add(strata_world_t *w, uint32_t r, strata_entity_t e, strata_entity_t target) {
    STRATA_ASSERT(w != NULL);
    relation_index_t *x = relation_at(w, r);
    const strata_relation_desc_t *d = &w->schema->relations[r];
    STRATA_ASSERT(!d->exclusive);
    if (sti_record_lookup(w, e) == NULL || sti_record_lookup(w, target) == NULL) {
        return STRATA_ERR_STALE;
    }
    if (strata_relation_has(w, r, e, target)) {
        return STRATA_OK;
    }
    if (sti_deferred(w) && (sti_record_lookup(w, target)->flags & STI_FLAG_RECORDED) != 0) {
        return STRATA_OK; /* target's destroy, recorded before, applies first: the link would be dropped */
    }
    uint32_t ei = strata_entity_index(e), ti = strata_entity_index(target);
    /* The lists are reached only once the arrays cover both (they may be NULL before). */
    strata_result_t res = relation_cover(w, x, false, ei, ti);
    if (res == STRATA_OK) {
        res = list_room(w, &x->targets[ei], 1);
    }
    if (res == STRATA_OK) {
        res = list_room(w, &x->sources[ti], 1);
    }
    /* While deferred the tag's add is recorded even if e has the tag now:
     * a removal of it may be waiting. */
    if (res == STRATA_OK && (sti_deferred(w) || !strata_has(w, e, d->component))) {
        res = strata_add(w, e, d->component, NULL);
    }
    if (res != STRATA_OK) {
        return res;
    }
    relation_list_t *mine = &x->targets[ei], *theirs = &x->sources[ti];
    mine->items[mine->count++] = target;
    theirs->items[theirs->count++] = e;
    return STRATA_OK;
}

/* Take the link e -> t out of both lists (t's only if t is alive). */
static void shared_unlink(strata_world_t *w, relation_index_t *x, strata_entity_t e, relation_list_t *mine,
                          uint32_t i) {
    strata_entity_t t = mine->items[i];
    list_take(mine, i);
    relation_list_t *theirs = relation_list(x->sources, x->sources_cap, t);
    if (theirs != NULL && sti_record_lookup(w, t) != NULL) {
        uint32_t j = list_find(theirs, e);
        if (j != UINT32_MAX) {
            list_take(theirs, j);
        }
    }
}

strata_result_t strata_relation_remove(strata_world_t *w, uint32_t r, strata_entity_t e, strata_entity_t target) {
    STRATA_ASSERT(w != NULL);
    relation_index_t *x = relation_at(w, r);
    const strata_relation_desc_t *d = &w->schema->relations[r];
    if (sti_record_lookup(w, e) == NULL) {
        return STRATA_ERR_STALE;
    }
    if (d->exclusive) {
        if (sti_deferred(w)) {
            return sti_command_push(w, STI_CMD_REMOVE, &e, 1, &d->component, NULL);
        }
        strata_entity_t was = exclusive_target(w, d, e);
        if (!strata_has(w, e, d->component) || (target != STRATA_ENTITY_NULL && target != was)) {
            return STRATA_ERR_MISSING;
        }
        return strata_remove(w, e, d->component); /* the hook takes it out of the index */
    }
    relation_list_t *mine = relation_list(x->targets, x->targets_cap, e);
    uint32_t i = mine != NULL ? list_find(mine, target) : UINT32_MAX;
    if (i == UINT32_MAX) {
        return STRATA_ERR_MISSING;
    }
    if (mine->count == 1) {
        strata_result_t res = tag_remove(w, e, d->component);
        if (res != STRATA_OK) {
            return res;
        }
    }
    shared_unlink(w, x, e, mine, i);
    return STRATA_OK;
}

/* --- Reading ----------------------------------------------------------------------- */

strata_entity_t strata_relation_target(const strata_world_t *w, uint32_t r, strata_entity_t e) {
    STRATA_ASSERT(w != NULL);
    (void)relation_at(w, r);
    const strata_relation_desc_t *d = &w->schema->relations[r];
    STRATA_ASSERT(d->exclusive);
    return exclusive_target(w, d, e);
}

bool strata_relation_has(const strata_world_t *w, uint32_t r, strata_entity_t e, strata_entity_t target) {
    STRATA_ASSERT(w != NULL);
    const relation_index_t *x = relation_at(w, r);
    const strata_relation_desc_t *d = &w->schema->relations[r];
    if (target == STRATA_ENTITY_NULL || sti_record_lookup(w, e) == NULL) {
        return false;
    }
    if (d->exclusive) {
        return exclusive_target(w, d, e) == target;
    }
    const relation_list_t *mine = relation_list(x->targets, x->targets_cap, e);
    return mine != NULL && list_find(mine, target) != UINT32_MAX;
}

/* The list at e's index of a by-index array, if e is alive. */
static const strata_entity_t *relation_read(const strata_world_t *w, relation_list_t *lists, size_t cap,
                                            strata_entity_t e, uint32_t *count) {
    STRATA_ASSERT(count != NULL);
    const relation_list_t *list = sti_record_lookup(w, e) != NULL ? relation_list(lists, cap, e) : NULL;
    *count = list != NULL ? list->count : 0;
    return *count > 0 ? list->items : NULL;
}

const strata_entity_t *strata_relation_sources(const strata_world_t *w, uint32_t r, strata_entity_t target,
                                               uint32_t *count) {
    STRATA_ASSERT(w != NULL);
    const relation_index_t *x = relation_at(w, r);
    return relation_read(w, x->sources, x->sources_cap, target, count);
}

const strata_entity_t *strata_relation_targets(const strata_world_t *w, uint32_t r, strata_entity_t e,
                                               uint32_t *count) {
    STRATA_ASSERT(w != NULL);
    const relation_index_t *x = relation_at(w, r);
    STRATA_ASSERT(!w->schema->relations[r].exclusive);
    return relation_read(w, x->targets, x->targets_cap, e, count);
}

int32_t strata_relation_depth(const strata_world_t *w, uint32_t r, strata_entity_t e) {
    STRATA_ASSERT(w != NULL);
    (void)relation_at(w, r);
    const strata_relation_desc_t *d = &w->schema->relations[r];
    STRATA_ASSERT(d->exclusive);
    if (sti_record_lookup(w, e) == NULL) {
        return -1;
    }
    return (int32_t)exclusive_depth(w, d, e);
}

/* --- Destroying ------------------------------------------------------------------- */

/* The entity after e in a pre-order walk of root's tree that skips e's
 * sources (`down` false) or enters them (`down` true); NULL at the end. */
static strata_entity_t tree_next(const strata_world_t *w, uint32_t r, strata_entity_t root, strata_entity_t e,
                                 bool down) {
    const relation_index_t *x = relation_at(w, r);
    const strata_relation_desc_t *d = &w->schema->relations[r];
    uint32_t n = 0;
    const strata_entity_t *below = relation_read(w, x->sources, x->sources_cap, e, &n);
    if (down && n > 0) {
        return below[0];
    }
    while (e != root) {
        strata_entity_t up = exclusive_target(w, d, e);
        const strata_entity_t *siblings = relation_read(w, x->sources, x->sources_cap, up, &n);
        uint32_t i = x->slot[strata_entity_index(e)] + 1;
        if (i < n) {
            return siblings[i];
        }
        e = up;
    }
    return STRATA_ENTITY_NULL;
}

strata_result_t strata_relation_destroy_tree(strata_world_t *w, uint32_t r, strata_entity_t root) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(w->schema->relations[r].exclusive);
    if (sti_record_lookup(w, root) == NULL) {
        return STRATA_ERR_STALE;
    }
    /* Inside one scope nothing applies, so the index stays as it is while
     * the walk reads it; the destroys apply when the scope ends. */
    strata_defer_begin(w);
    strata_result_t first = STRATA_OK;
    for (strata_entity_t e = root; e != STRATA_ENTITY_NULL;) {
        strata_result_t res = strata_entity_destroy(w, e);
        if (res == STRATA_ERR_NOMEM && first == STRATA_OK) {
            first = res;
        }
        e = tree_next(w, r, root, e, true);
    }
    strata_result_t end = strata_defer_end(w);
    return first != STRATA_OK ? first : end;
}

/* Remove c from s for a policy (recorded or applied as any removal), the
 * move's edge made first: what memory the removal needs is taken while the
 * destroy that causes it is applied, so applying the removal later does
 * not fail for want of it. */
static void policy_remove(strata_world_t *w, strata_entity_t s, uint32_t c) {
    const sti_record_t *rec = sti_record_lookup(w, s);
    if (rec != NULL && strata_mask_test(&w->tables[rec->table]->mask, c)) {
        (void)sti_table_edge(w, w->tables[rec->table], c, false, NULL);
    }
    (void)tag_remove(w, s, c);
}

/* What target e's destroy does to the sources of relation r. */
static void relation_target_dies(strata_world_t *w, uint32_t r, strata_entity_t e) {
    const strata_relation_desc_t *d = &w->schema->relations[r];
    relation_index_t *x = relation_at(w, r);
    relation_list_t *list = relation_list(x->sources, x->sources_cap, e);
    for (uint32_t i = 0; list != NULL && i < list->count; i++) {
        strata_entity_t s = list->items[i];
        if (!d->exclusive && d->policy != STRATA_POLICY_KEEP) {
            /* The link goes from s's targets now; its tag with the last one. */
            relation_list_t *theirs = relation_list(x->targets, x->targets_cap, s);
            uint32_t j = theirs != NULL ? list_find(theirs, e) : UINT32_MAX;
            if (j != UINT32_MAX) {
                list_take(theirs, j);
                if (theirs->count == 0 && d->policy == STRATA_POLICY_REMOVE) {
                    policy_remove(w, s, d->component);
                }
            }
        }
        if (d->exclusive && d->policy != STRATA_POLICY_DESTROY) {
            exclusive_redepth(w, r, s, NULL, 0); /* s is a root now */
        }
        if (d->policy == STRATA_POLICY_DESTROY) {
            (void)strata_entity_destroy(w, s); /* recorded: this runs inside a scope */
        } else if (d->exclusive && d->policy == STRATA_POLICY_CLEAR) {
            void *link = strata_get_mut(w, s, d->component);
            if (link != NULL) {
                link_set_target(link, STRATA_ENTITY_NULL);
            }
        } else if (d->exclusive && d->policy == STRATA_POLICY_REMOVE) {
            policy_remove(w, s, d->component);
        }
    }
    if (list != NULL) {
        list_free(w, list);
    }
}

/* Source e's links of non-exclusive relation r go from its targets' lists. */
static void relation_source_dies(strata_world_t *w, uint32_t r, strata_entity_t e) {
    relation_index_t *x = relation_at(w, r);
    relation_list_t *mine = relation_list(x->targets, x->targets_cap, e);
    while (mine != NULL && mine->count > 0) {
        shared_unlink(w, x, e, mine, mine->count - 1);
    }
    if (mine != NULL) {
        list_free(w, mine);
    }
}

/* The bytes a policy records for one source or field holder: its destroy,
 * or the removal of component c (alone, or as a run's entry). */
static size_t policy_bytes(const strata_world_t *w, bool destroy, uint32_t c) {
    if (destroy) {
        return sti_command_bytes(w, STI_CMD_DESTROY, 1, 0, NULL);
    }
    size_t one = sti_command_bytes(w, STI_CMD_REMOVE, 1, 1, &c), run = sti_command_run_bytes(w, STI_CMD_REMOVE_RUN, c);
    return one > run ? one : run;
}

/* What a policy owes: the bytes it records and the destroys it makes. */
typedef struct policy_room_t {
    size_t bytes;
    uint32_t destroys;
} policy_room_t;

/* The entity fields naming e, by their policies (a scan of the tables that
 * have each such component); with `room`, only count what they would record. */
static void relation_fields(strata_world_t *w, strata_entity_t e, policy_room_t *room) {
    const strata_schema_t *s = w->schema;
    for (uint32_t k = 0; k < s->field_policy_count; k++) {
        const strata_field_policy_t *p = &s->field_policies[k];
        for (uint32_t ti = 0; ti < w->table_count; ti++) {
            const sti_table_t *t = w->tables[ti];
            for (uint32_t row = 0; strata_mask_test(&t->mask, p->component) && row < t->count; row++) {
                unsigned char *cell = (unsigned char *)sti_table_cell(w, t, p->component, row) + p->offset;
                if (link_target(cell) != e) {
                    continue;
                }
                strata_entity_t holder = t->entities[row];
                bool destroy = p->policy == STRATA_POLICY_DESTROY && holder != e;
                if (room != NULL) {
                    if (destroy || p->policy == STRATA_POLICY_REMOVE) {
                        room->bytes += policy_bytes(w, destroy, p->component);
                        room->destroys += destroy;
                    }
                } else if (p->policy == STRATA_POLICY_CLEAR) {
                    link_set_target(cell, STRATA_ENTITY_NULL);
                    strata_mark(w, holder, p->component);
                } else if (p->policy == STRATA_POLICY_REMOVE) {
                    policy_remove(w, holder, p->component);
                } else if (destroy) {
                    (void)strata_entity_destroy(w, holder);
                }
            }
        }
    }
}

/* world->on_destroy_room: room for all that e's destroy makes the policies
 * record (a command for each source or field holder they remove a link from
 * or destroy; in a step, a scheduled destroy each), so that recording it,
 * from inside the destroy, cannot run out of memory. */
static strata_result_t relation_destroy_room(strata_world_t *w, strata_entity_t e) {
    const strata_schema_t *s = w->schema;
    policy_room_t room = {0, 0};
    for (uint32_t r = 0; r < s->relation_count; r++) {
        const strata_relation_desc_t *d = &s->relations[r];
        const relation_index_t *x = relation_at(w, r);
        const relation_list_t *list = relation_list(x->sources, x->sources_cap, e);
        uint32_t n = list != NULL ? list->count : 0;
        if (d->policy == STRATA_POLICY_DESTROY || d->policy == STRATA_POLICY_REMOVE) {
            room.bytes += n * policy_bytes(w, d->policy == STRATA_POLICY_DESTROY, d->component);
            room.destroys += d->policy == STRATA_POLICY_DESTROY ? n : 0;
        }
    }
    relation_fields(w, e, &room);
    strata_result_t res = room.bytes > 0 ? sti_command_reserve(w, room.bytes) : STRATA_OK;
    if (res == STRATA_OK && w->in_step && room.destroys > 0) {
        res = sti_mem_grow(w, &w->doomed, sizeof(strata_entity_t), &w->doomed_capacity,
                           (size_t)w->doomed_count + room.destroys, 64);
    }
    return res;
}

/* world->on_destroy: e is being destroyed (still alive, inside a scope). */
static void relation_destroyed(strata_world_t *w, strata_entity_t e) {
    const strata_schema_t *s = w->schema;
    if (w->relations != NULL) {
        w->relations->dying = e;
    }
    for (uint32_t r = 0; r < s->relation_count; r++) {
        relation_target_dies(w, r, e);
        if (!s->relations[r].exclusive) {
            relation_source_dies(w, r, e);
        }
    }
    relation_fields(w, e, NULL);
}

/* --- Cascade passes ------------------------------------------------------------------ */

/* The depth in the link column `links` (component size `size`) at row i. */
static uint32_t column_depth(const unsigned char *links, size_t size, uint32_t i) {
    return link_depth(links + (size_t)i * size);
}

/* Reorder t's rows by depth, stably (a counting sort): every column, the
 * handles and the records' rows. Out of memory it leaves t as it was. */
static void table_sort(strata_world_t *w, sti_table_t *t, const unsigned char *links, size_t size) {
    uint32_t n = t->count, top = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t depth = column_depth(links, size, i);
        top = depth > top ? depth : top;
    }
    size_t widest = sizeof(strata_entity_t);
    for (uint32_t k = 0; k < t->column_count; k++) {
        widest = t->dense[k].size > widest ? t->dense[k].size : widest;
    }
    size_t counts_size = sizeof(uint32_t) * ((size_t)top + 2), order_size = sizeof(uint32_t) * n;
    size_t scratch_size = widest * n;
    uint32_t *counts = sti_mem_alloc(w, counts_size);
    uint32_t *order = sti_mem_alloc(w, order_size);
    unsigned char *scratch = sti_mem_alloc(w, scratch_size);
    if (counts != NULL && order != NULL && scratch != NULL) {
        memset(counts, 0, counts_size);
        for (uint32_t i = 0; i < n; i++) {
            counts[column_depth(links, size, i) + 1]++;
        }
        for (uint32_t d = 0; d <= top; d++) {
            counts[d + 1] += counts[d];
        }
        for (uint32_t i = 0; i < n; i++) {
            order[counts[column_depth(links, size, i)]++] = i; /* order[new row] = old row */
        }
        for (uint32_t k = 0; k <= t->column_count; k++) {
            unsigned char *data = k < t->column_count ? t->dense[k].data : (unsigned char *)t->entities;
            size_t elem = k < t->column_count ? t->dense[k].size : sizeof(strata_entity_t);
            for (uint32_t i = 0; i < n; i++) {
                memcpy(scratch + i * elem, data + (size_t)order[i] * elem, elem);
            }
            memcpy(data, scratch, elem * n);
        }
        if (t->listed != 0) { /* the changed sets' bits go with the rows */
            sti_dirty_permute(w, t, order, n, (uint64_t *)(void *)scratch);
        }
        for (uint32_t i = 0; i < n; i++) {
            w->records[strata_entity_index(t->entities[i])].row = i;
        }
        t->moved++;
    }
    sti_mem_free(w, counts, counts_size);
    sti_mem_free(w, order, order_size);
    sti_mem_free(w, scratch, scratch_size);
}

/* The first row from `row` on (below `count`) whose depth is not `depth`,
 * or count. Four depths a step, one branch for them: a settled table is
 * one long run a depth. */
static uint32_t run_end(const unsigned char *links, size_t size, uint32_t row, uint32_t count, uint32_t depth) {
    const unsigned char *p = links + (size_t)row * size + sizeof(strata_entity_t);
    for (; row + 4 <= count; row += 4, p += 4 * size) {
        uint32_t d0, d1, d2, d3;
        memcpy(&d0, p, sizeof d0);
        memcpy(&d1, p + size, sizeof d1);
        memcpy(&d2, p + 2 * size, sizeof d2);
        memcpy(&d3, p + 3 * size, sizeof d3);
        if (((d0 ^ depth) | (d1 ^ depth) | (d2 ^ depth) | (d3 ^ depth)) != 0) {
            break;
        }
    }
    while (row < count && column_depth(links, size, row) == depth) {
        row++;
    }
    return row;
}

/* Append t's runs of equal depth to list (links: t's column of the
 * relation, NULL if t lacks it: one run at depth 0). With `check`, stop at
 * a depth lower than the one before and take t's runs back: 0 (t is not
 * in order). 1 when done, -1 out of memory. */
static int table_runs(strata_world_t *w, const sti_table_t *t, const unsigned char *links, size_t size,
                      cascade_list_t *list, bool check) {
    uint32_t first = list->count;
    for (uint32_t start = 0; start < t->count;) {
        uint32_t depth = links != NULL ? column_depth(links, size, start) : 0;
        uint32_t end = links != NULL ? run_end(links, size, start + 1, t->count, depth) : t->count;
        if (check && end < t->count && column_depth(links, size, end) < depth) {
            list->count = first;
            return 0;
        }
        if (sti_mem_grow(w, &list->runs, sizeof(cascade_run_t), &list->capacity, (size_t)list->count + 1, 16) !=
            STRATA_OK) {
            return -1;
        }
        list->runs[list->count] = (cascade_run_t){.table = t->id,
                                                  .row = start,
                                                  .count = end - start,
                                                  .depth = depth,
                                                  .order = list->count};
        list->count++;
        start = end;
    }
    return 1;
}

/* qsort's order of runs: by depth, then as they came (stable). */
static int run_compare(const void *a, const void *b) {
    const cascade_run_t *x = a, *y = b;
    if (x->depth != y->depth) {
        return x->depth < y->depth ? -1 : 1;
    }
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Note the `moved` of table t, where parents were read from, in the saved
 * pass's stamps (its count does not matter: an append moves no row), once;
 * out of memory the pass is not saved. */
static void cascade_stamp(strata_world_t *w, cascade_list_t *list, const sti_table_t *t) {
    for (uint32_t i = 0; i < list->stamp_count; i++) {
        if (list->stamps[i].table == t->id) {
            return;
        }
    }
    if (sti_mem_grow(w, &list->stamps, sizeof(cascade_stamp_t), &list->stamp_capacity, (size_t)list->stamp_count + 1,
                     8) != STRATA_OK) {
        list->saving = false;
        return;
    }
    list->stamps[list->stamp_count++] = (cascade_stamp_t){.table = t->id, .moved = t->moved, .count = UINT32_MAX};
}

/* Room to save the pass whose runs are in list (its parents' rows, its
 * batches, its tables), or false. */
static bool cascade_save_room(strata_world_t *w, cascade_list_t *list, uint32_t tables) {
    size_t rows = 0, batches = 0;
    for (uint32_t i = 0; i < list->count; i++) {
        rows += list->runs[i].depth > 0 ? list->runs[i].count : 0;
        batches += (list->runs[i].count + CASCADE_CHUNK - 1) / CASCADE_CHUNK;
    }
    return sti_mem_grow(w, &list->parents, sizeof(uint32_t), &list->parent_capacity, rows, 1024) == STRATA_OK &&
           sti_mem_grow(w, &list->batches, sizeof(cascade_batch_t), &list->batch_capacity, batches, 16) == STRATA_OK &&
           sti_mem_grow(w, &list->stamps, sizeof(cascade_stamp_t), &list->stamp_capacity, (size_t)tables + 1, 8) ==
               STRATA_OK;
}

/* Query q's batches in cascade order of relation r, each table's rows
 * sorted by depth first when `sort`, and the stamps of its tables: NOMEM
 * leaves the list empty (a walk), or not built for the next pass. */
static void cascade_build(strata_world_t *w, uint32_t q, uint32_t r, bool sort) {
    const strata_relation_desc_t *d = &w->schema->relations[r];
    size_t size = w->components[d->component].size;
    cascade_list_t *list = &w->relations->cascades[q];
    const sti_query_cache_t *cache = &w->queries[q];
    list->count = 0;
    list->walk = false;
    list->current.count = 0;
    list->done = 0;
    list->relation = r;
    list->saved = false;
    list->built = false;
    list->batch_count = 0;
    list->parent_count = 0;
    list->stamp_count = 0;
    for (uint32_t i = 0; i < cache->count; i++) {
        sti_table_t *t = cache->tables[i];
        const unsigned char *links = t->columns[d->component];
        /* One scan of a table in order (a settled hierarchy's) finds its runs. */
        int res = table_runs(w, t, links, size, list, sort);
        if (res == 0) {
            table_sort(w, t, links, size); /* out of memory it stays as it was: its runs as they fall */
            res = table_runs(w, t, links, size, list, false);
        }
        if (res < 0) {
            list->count = 0;
            list->walk = true;
            list->walk_relation = r;
            list->walk_depth = 0;
            list->walk_table = 0;
            list->walk_row = 0;
            list->walk_next = UINT32_MAX;
            break;
        }
    }
    if (list->count > 1) { /* (no runs: no array, and qsort takes none) */
        qsort(list->runs, list->count, sizeof(cascade_run_t), run_compare);
    }
    /* The tables as this pass leaves them, for the next to compare. */
    list->built = !list->walk && sti_mem_grow(w, &list->stamps, sizeof(cascade_stamp_t), &list->stamp_capacity,
                                              cache->count, 8) == STRATA_OK;
    for (uint32_t i = 0; list->built && i < cache->count; i++) {
        list->stamps[list->stamp_count++] = (cascade_stamp_t){.table = cache->tables[i]->id,
                                                              .moved = cache->tables[i]->moved,
                                                              .count = cache->tables[i]->count};
    }
    list->links = relation_at(w, r)->links;
    list->tables = cache->count;
    list->sorted = sort;
    list->filling = false;
    list->saving = false;
    if (list->up == NULL) {
        list->up = sti_mem_alloc(w, sizeof(uint32_t) * CASCADE_CHUNK); /* NULL: batches of one row */
    }
}

/* A pass over the runs the last pass built (cascade_list_t), saved as it
 * goes: its parents' rows straight into the saved array; without room for
 * it, into `up` as a pass after a change does. */
static void cascade_refill(strata_world_t *w, cascade_list_t *list) {
    list->current.count = 0;
    list->done = 0;
    list->batch_count = 0;
    list->parent_count = 0;
    list->stamp_count = list->tables; /* the parents' other tables are noted again as they come */
    list->filling = cascade_save_room(w, list, list->tables);
    list->saving = list->filling;
}

/* True if query q's runs of relation r, and its saved pass if any, hold (cascade_list_t). */
static bool cascade_holds(const strata_world_t *w, const cascade_list_t *list, uint32_t q, uint32_t r, bool sort) {
    if (!list->built || list->relation != r || list->links != relation_at(w, r)->links ||
        list->tables != w->queries[q].count || (sort && !list->sorted)) {
        return false;
    }
    for (uint32_t i = 0; i < list->stamp_count; i++) {
        const cascade_stamp_t *s = &list->stamps[i];
        const sti_table_t *t = s->table < w->table_count ? w->tables[s->table] : NULL;
        if (t == NULL || t->moved != s->moved || (s->count != UINT32_MAX && t->count != s->count)) {
            return false;
        }
    }
    return true;
}

strata_iter_t strata_iter_cascade(strata_world_t *w, uint32_t q, uint32_t r) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(q < w->schema->query_count);
    STRATA_ASSERT(w->schema->relations[r].exclusive);
    (void)relation_at(w, r);
    /* Rows may move only when no scope is open: nothing is iterating them. */
    bool sort = !sti_deferred(w);
    strata_iter_t it = strata_iter(w, q);
    cascade_list_t *list = &w->relations->cascades[q];
    bool holds = cascade_holds(w, list, q, r, sort);
    list->replay = holds && list->saved;
    if (!holds) {
        cascade_build(w, q, r, sort);
    } else if (!list->saved) {
        cascade_refill(w, list);
    }
    it.cursor = 0;
    it.up_row = NULL;
    it.up_columns = NULL;
    return it;
}

/* The next batch of a walk (a cascade pass without its list): the next run
 * of rows at the walk's depth, a depth a walk over the query's tables. */
static bool cascade_walk(strata_world_t *w, cascade_list_t *list, uint32_t q, cascade_run_t *out) {
    const sti_query_cache_t *cache = &w->queries[q];
    uint32_t c = w->schema->relations[list->walk_relation].component;
    size_t size = w->components[c].size;
    for (;;) {
        for (; list->walk_table < cache->count; list->walk_table++, list->walk_row = 0) {
            const sti_table_t *t = cache->tables[list->walk_table];
            const unsigned char *links = t->columns[c];
            while (list->walk_row < t->count) {
                uint32_t start = list->walk_row, depth = links != NULL ? column_depth(links, size, start) : 0;
                uint32_t end = start + 1;
                while (end < t->count && (links != NULL ? column_depth(links, size, end) : 0) == depth) {
                    end++;
                }
                list->walk_row = end;
                if (depth == list->walk_depth) {
                    *out = (cascade_run_t){.table = t->id, .row = start, .count = end - start, .depth = depth};
                    return true;
                }
                if (depth > list->walk_depth && depth < list->walk_next) {
                    list->walk_next = depth;
                }
            }
        }
        if (list->walk_next == UINT32_MAX) {
            return false;
        }
        list->walk_depth = list->walk_next;
        list->walk_next = UINT32_MAX;
        list->walk_table = 0;
        list->walk_row = 0;
    }
}

/* The parents of rows [row, row + n) of a table (its link column `links`;
 * n > 0, depth > 0, so each has a live target): their rows into up while
 * they sit in the table of the first one, whose id goes to *table.
 * Returns how many. */
static uint32_t cascade_parents(const strata_world_t *w, uint32_t *up, const unsigned char *links, size_t size,
                                uint32_t row, uint32_t n, uint32_t *table) {
    const sti_record_t *first = sti_record_lookup(w, link_target(links + (size_t)row * size));
    STRATA_ASSERT(first != NULL); /* a link at depth > 0 names a live target */
    if (first == NULL) {
        *table = CASCADE_NO_TABLE;
        return 1;
    }
    const sti_record_t *records = w->records;
    uint32_t i = 0, in = first->table; /* (a local: the stores to up cannot change it) */
    *table = in;
    const unsigned char *link = links + (size_t)row * size;
    /* Four rows a step, one branch for their tables: the loads of the
     * records (scattered) are independent, so their misses overlap. */
    for (; i + 4 <= n; i += 4, link += 4 * size) {
        const sti_record_t *a = &records[strata_entity_index(link_target(link))];
        const sti_record_t *b = &records[strata_entity_index(link_target(link + size))];
        const sti_record_t *c = &records[strata_entity_index(link_target(link + 2 * size))];
        const sti_record_t *d = &records[strata_entity_index(link_target(link + 3 * size))];
        if (((a->table ^ in) | (b->table ^ in) | (c->table ^ in) | (d->table ^ in)) != 0) {
            break;
        }
        up[i] = a->row;
        up[i + 1] = b->row;
        up[i + 2] = c->row;
        up[i + 3] = d->row;
    }
    for (; i < n; i++, link += size) {
        const sti_record_t *rec = &records[strata_entity_index(link_target(link))];
        if (rec->table != in) {
            break; /* a dead target's record has no table: it ends the batch too */
        }
        up[i] = rec->row;
    }
    return i;
}

/* Hand out rows [row, row + n) of t as the iterator's batch. */
static bool cascade_hand(strata_iter_t *it, const sti_table_t *t, uint32_t row, uint32_t n) {
    strata_world_t *w = it->world;
    it->count = n;
    it->row = row;
    it->entities = t->entities + row;
    it->columns = t->columns;
    if (w->dirty_count > 0 && w->query_marks[it->query] != 0) {
        sti_dirty_mark_rows(w, it->query, t, row, n);
    }
    return true;
}

#ifndef NDEBUG
/* True if rows [row, row + n) of t have the depth of their run: the runs a
 * pass takes from the last one (cascade_refill) must still be true. */
static bool cascade_run_true(const strata_world_t *w, const cascade_list_t *list, const sti_table_t *t, uint32_t row,
                             uint32_t n, uint32_t depth) {
    const strata_relation_desc_t *d = &w->schema->relations[list->relation];
    const unsigned char *links = t->columns[d->component];
    size_t size = w->components[d->component].size;
    for (uint32_t i = row; i < row + n; i++) {
        if (i >= t->count || (links != NULL ? column_depth(links, size, i) : 0) != depth) {
            return false;
        }
    }
    return true;
}

/* True if each row of a replayed batch has the parent the records say
 * (roots: depth 0): a change that moved rows without bumping a table's
 * `moved` or the relation's `links` fails it. */
static bool cascade_batch_true(const strata_world_t *w, const cascade_list_t *list, const cascade_batch_t *b) {
    const strata_relation_desc_t *d = &w->schema->relations[list->relation];
    const sti_table_t *t = w->tables[b->table];
    const unsigned char *links = t->columns[d->component];
    size_t size = w->components[d->component].size;
    if (b->row + b->count > t->count) {
        return false;
    }
    for (uint32_t i = 0; i < b->count; i++) {
        const unsigned char *link = links != NULL ? links + (size_t)(b->row + i) * size : NULL;
        if (b->up_table == CASCADE_NO_TABLE) {
            if (link != NULL && link_depth(link) != 0) {
                return false;
            }
            continue;
        }
        const sti_record_t *rec = link != NULL ? sti_record_lookup(w, link_target(link)) : NULL;
        if (rec == NULL || rec->table != b->up_table || rec->row != list->parents[b->up + i]) {
            return false;
        }
    }
    return true;
}
#endif

/* The next batch of a replayed pass (cascade_list_t). */
static bool cascade_replay_next(strata_iter_t *it, const cascade_list_t *list) {
    strata_world_t *w = it->world;
    if (it->cursor == list->batch_count) {
        (void)strata_iter_end(it);
        return false;
    }
    const cascade_batch_t *b = &list->batches[it->cursor++];
#ifndef NDEBUG
    STRATA_ASSERT(cascade_batch_true(w, list, b));
#endif
    bool roots = b->up_table == CASCADE_NO_TABLE;
    it->up_row = roots ? NULL : list->parents + b->up;
    it->up_columns = roots ? NULL : w->tables[b->up_table]->columns;
    return cascade_hand(it, w->tables[b->table], b->row, b->count);
}

/* Save a batch handed out by a filling pass (its parents' rows are in
 * place already); out of memory the pass is not saved. */
static void cascade_save(strata_world_t *w, cascade_list_t *list, uint32_t table, uint32_t row, uint32_t n,
                         uint32_t up_table) {
    if (up_table != CASCADE_NO_TABLE &&
        (list->batch_count == 0 || list->batches[list->batch_count - 1].up_table != up_table)) {
        cascade_stamp(w, list, w->tables[up_table]);
    }
    if (sti_mem_grow(w, &list->batches, sizeof(cascade_batch_t), &list->batch_capacity, (size_t)list->batch_count + 1,
                     16) != STRATA_OK) {
        list->saving = false;
    }
    if (list->saving) {
        list->batches[list->batch_count++] = (cascade_batch_t){.table = table,
                                                               .row = row,
                                                               .count = n,
                                                               .up_table = up_table,
                                                               .up = up_table != CASCADE_NO_TABLE ? list->parent_count
                                                                                                  : 0};
    }
}

bool strata_iter_cascade_next(strata_iter_t *it) {
    STRATA_ASSERT(it != NULL && it->world != NULL);
    strata_world_t *w = it->world;
    if (!it->open) {
        return false;
    }
    cascade_list_t *list = &w->relations->cascades[it->query];
    if (list->replay) {
        return cascade_replay_next(it, list);
    }
    if (list->done == list->current.count) {
        list->done = 0;
        list->current.count = 0;
        if (it->cursor < list->count) {
            list->current = list->runs[it->cursor++];
        } else if (!list->walk || !cascade_walk(w, list, it->query, &list->current)) {
            list->saved = list->saving; /* the whole pass went by */
            (void)strata_iter_end(it);  /* as strata_iter_next: a failed settle keeps its commands */
            return false;
        }
    }
    const cascade_run_t *run = &list->current;
    const sti_table_t *t = w->tables[run->table];
    uint32_t row = run->row + list->done, n = run->count - list->done;
    uint32_t most = list->filling || list->up != NULL ? CASCADE_CHUNK : 1, up_table = CASCADE_NO_TABLE;
    n = n < most ? n : most;
#ifndef NDEBUG
    STRATA_ASSERT(cascade_run_true(w, list, t, row, n, run->depth));
#endif
    it->up_row = NULL;
    it->up_columns = NULL;
    if (run->depth > 0) {
        const strata_relation_desc_t *d = &w->schema->relations[list->relation];
        uint32_t *up = list->filling ? list->parents + list->parent_count : list->up != NULL ? list->up : &list->up_one;
        n = cascade_parents(w, up, t->columns[d->component], w->components[d->component].size, row, n, &up_table);
        if (up_table != CASCADE_NO_TABLE) {
            it->up_row = up;
            it->up_columns = w->tables[up_table]->columns;
        }
    }
    if (list->saving) {
        cascade_save(w, list, t->id, row, n, up_table);
    }
    list->parent_count += list->filling && up_table != CASCADE_NO_TABLE ? n : 0;
    list->done += n;
    return cascade_hand(it, t, row, n);
}

/* --- Loads -------------------------------------------------------------------------- */

int32_t sti_relation_of_tag(const strata_world_t *w, uint32_t c) {
    for (uint32_t r = 0; r < w->schema->relation_count; r++) {
        const strata_relation_desc_t *d = &w->schema->relations[r];
        if (d->component == c && !d->exclusive) {
            return (int32_t)r;
        }
    }
    return -1;
}

strata_result_t sti_relation_load_link(strata_world_t *w, uint32_t r, strata_entity_t e, strata_entity_t t) {
    relation_index_t *x = relation_at(w, r);
    STRATA_ASSERT(!w->schema->relations[r].exclusive);
    strata_result_t res = relation_cover(w, x, false, strata_entity_index(e), strata_entity_index(t));
    if (res != STRATA_OK) {
        return res;
    }
    relation_list_t *mine = &x->targets[strata_entity_index(e)];
    relation_list_t *theirs = &x->sources[strata_entity_index(t)];
    /* A repeat is looked for in the shorter list: a source with thousands
     * of targets each linked from few sources loads in linear time. */
    bool repeat = mine->count <= theirs->count ? list_find(mine, t) != UINT32_MAX : list_find(theirs, e) != UINT32_MAX;
    if (repeat) {
        return STRATA_ERR_CORRUPT;
    }
    res = list_room(w, mine, 1);
    if (res == STRATA_OK) {
        res = list_room(w, theirs, 1);
    }
    if (res == STRATA_OK) {
        mine->items[mine->count++] = t;
        theirs->items[theirs->count++] = e;
    }
    return res;
}

strata_result_t sti_relation_reserve(strata_world_t *w) {
    for (uint32_t r = 0; w->relations != NULL && r < w->relations->count && w->record_count > 0; r++) {
        const strata_relation_desc_t *d = &w->schema->relations[r];
        relation_index_t *x = &w->relations->rel[r];
        if (!d->exclusive) {
            continue;
        }
        strata_result_t res = relation_cover(w, x, true, w->record_count - 1, 0);
        /* Each target's sources counted in its list (empty until the hooks run), then room made. */
        for (uint32_t t = 0; res == STRATA_OK && t < w->table_count; t++) {
            const sti_table_t *table = w->tables[t];
            for (uint32_t row = 0; strata_mask_test(&table->mask, d->component) && row < table->count; row++) {
                strata_entity_t target = link_target(sti_table_cell(w, table, d->component, row));
                if (target != STRATA_ENTITY_NULL && strata_entity_index(target) < x->sources_cap) {
                    x->sources[strata_entity_index(target)].count++;
                }
            }
        }
        for (size_t i = 0; i < x->sources_cap; i++) {
            relation_list_t *list = &x->sources[i];
            uint32_t n = list->count;
            list->count = 0;
            if (res == STRATA_OK && n > 0) {
                res = list_room(w, list, n);
            }
        }
        if (res != STRATA_OK) {
            return res;
        }
    }
    return STRATA_OK;
}

sti_link_fault_t sti_relation_loaded(const strata_world_t *w, uint32_t *r, strata_entity_t *source,
                                     strata_entity_t *target) {
    for (uint32_t k = 0; w->relations != NULL && k < w->relations->count; k++) {
        const strata_relation_desc_t *d = &w->schema->relations[k];
        const relation_index_t *x = &w->relations->rel[k];
        *r = k;
        for (size_t i = 0; !d->exclusive && i < x->targets_cap; i++) {
            const relation_list_t *mine = &x->targets[i];
            if (mine->count == 0) {
                continue;
            }
            const sti_record_t *rec = i < w->record_count ? &w->records[i] : NULL;
            *source = sti_entity_make((uint32_t)i, rec != NULL ? rec->generation : 0);
            *target = mine->items[0];
            if (rec == NULL || rec->table == STI_NO_TABLE ||
                !strata_mask_test(&w->tables[rec->table]->mask, d->component)) {
                return STI_LINK_NO_SOURCE;
            }
            for (uint32_t j = 0; j < mine->count; j++) {
                *target = mine->items[j];
                if (sti_record_lookup(w, *target) == NULL) {
                    return STI_LINK_NO_TARGET;
                }
            }
        }
    }
    return STI_LINK_OK;
}

/* --- The world's part ---------------------------------------------------------------- */

strata_result_t sti_relation_init(strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    if (s->relation_count == 0 && s->field_policy_count == 0) {
        return STRATA_OK;
    }
    w->on_destroy = relation_destroyed;
    w->on_destroy_room = relation_destroy_room;
    size_t size = sizeof(struct sti_relations_t) + sizeof(relation_index_t) * s->relation_count;
    w->relations = sti_mem_alloc(w, size);
    if (w->relations == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memset(w->relations, 0, size);
    w->relations->count = s->relation_count;
    for (uint32_t r = 0; r < s->relation_count; r++) {
        if (s->relations[r].exclusive) {
            strata_mask_set(&w->relations->exclusive, s->relations[r].component);
            w->relations->relation_of[s->relations[r].component] = (uint8_t)r;
            w->on_add_room = relation_add_room;
            w->on_relink = relation_relink;
            w->on_links_keep = relation_links_keep;
        }
    }
    if (s->query_count > 0) {
        w->relations->cascades = sti_mem_alloc(w, sizeof(cascade_list_t) * s->query_count);
        if (w->relations->cascades == NULL) {
            return STRATA_ERR_NOMEM;
        }
        memset(w->relations->cascades, 0, sizeof(cascade_list_t) * s->query_count);
    }
    return STRATA_OK;
}

/* Every list of every relation, emptied (`release`: freed). */
static void relation_empty(strata_world_t *w, bool release) {
    for (uint32_t r = 0; w->relations != NULL && r < w->relations->count; r++) {
        relation_index_t *x = &w->relations->rel[r];
        for (size_t i = 0; i < x->sources_cap; i++) {
            release ? list_free(w, &x->sources[i]) : (void)(x->sources[i].count = 0);
        }
        for (size_t i = 0; i < x->targets_cap; i++) {
            release ? list_free(w, &x->targets[i]) : (void)(x->targets[i].count = 0);
        }
    }
}

void sti_relation_clear(strata_world_t *w) {
    relation_empty(w, false);
    /* The tables are emptied without moving a row: no saved pass holds. */
    for (uint32_t q = 0; w->relations != NULL && w->relations->cascades != NULL && q < w->schema->query_count; q++) {
        w->relations->cascades[q].built = false;
        w->relations->cascades[q].saved = false;
    }
}

void sti_relation_free(strata_world_t *w) {
    if (w->relations == NULL) {
        return;
    }
    relation_empty(w, true);
    for (uint32_t r = 0; r < w->relations->count; r++) {
        relation_index_t *x = &w->relations->rel[r];
        sti_mem_free(w, x->sources, sizeof(relation_list_t) * x->sources_cap);
        sti_mem_free(w, x->targets, sizeof(relation_list_t) * x->targets_cap);
        sti_mem_free(w, x->slot, sizeof(uint32_t) * x->slot_cap);
    }
    for (uint32_t q = 0; w->relations->cascades != NULL && q < w->schema->query_count; q++) {
        cascade_list_t *list = &w->relations->cascades[q];
        sti_mem_free(w, list->runs, sizeof(cascade_run_t) * list->capacity);
        sti_mem_free(w, list->up, sizeof(uint32_t) * CASCADE_CHUNK);
        sti_mem_free(w, list->batches, sizeof(cascade_batch_t) * list->batch_capacity);
        sti_mem_free(w, list->parents, sizeof(uint32_t) * list->parent_capacity);
        sti_mem_free(w, list->stamps, sizeof(cascade_stamp_t) * list->stamp_capacity);
    }
    sti_mem_free(w, w->relations->cascades, sizeof(cascade_list_t) * w->schema->query_count);
    sti_mem_free(w, w->relations, sizeof(struct sti_relations_t) + sizeof(relation_index_t) * w->relations->count);
    w->relations = NULL;
}

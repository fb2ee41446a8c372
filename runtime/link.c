/* link.c: the index of links by target (and by source for a non-exclusive
 * relation), the relation entry points, the component hook and the adds'
 * up-calls that keep the index true, and loaded links. docs/relations.md
 * describes the model. */
#include "link.h"

/* --- Lists ------------------------------------------------------------------- */

/* Room for `extra` more handles in list. */
static strata_result_t link_list_room(strata_world_t *w, sti_link_list_t *list, uint32_t extra) {
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
void sti_link_list_free(strata_world_t *w, sti_link_list_t *list) {
    sti_mem_free(w, list->items, sizeof(strata_entity_t) * list->capacity);
    *list = (sti_link_list_t){0};
}

/* The position of e in list, or UINT32_MAX. */
uint32_t sti_link_list_find(const sti_link_list_t *list, strata_entity_t e) {
    for (uint32_t i = 0; i < list->count; i++) {
        if (list->items[i] == e) {
            return i;
        }
    }
    return UINT32_MAX;
}

/* --- The index ---------------------------------------------------------------- */

/* Grow a by-index array (zeroing the new entries) to cover index i. */
static strata_result_t link_cover_one(strata_world_t *w, void *array, size_t elem, size_t *cap, uint32_t i) {
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
static strata_result_t link_cover(strata_world_t *w, sti_link_index_t *x, bool exclusive, uint32_t a, uint32_t b) {
    uint32_t i = a > b ? a : b;
    strata_result_t r = link_cover_one(w, &x->sources, sizeof(sti_link_list_t), &x->sources_cap, i);
    if (r == STRATA_OK && exclusive) {
        r = link_cover_one(w, &x->slot, sizeof(uint32_t), &x->slot_cap, i);
    }
    if (r == STRATA_OK && !exclusive) {
        r = link_cover_one(w, &x->targets, sizeof(sti_link_list_t), &x->targets_cap, i);
    }
    return r;
}

/* True if exclusive relation x's arrays cover entity indices e and t and
 * t's sources have room for n more (the growth below would do nothing). */
static bool link_has_room(const sti_link_index_t *x, uint32_t e, uint32_t t, uint32_t n) {
    return e < x->slot_cap && e < x->sources_cap && t < x->sources_cap &&
           x->sources[t].count + (size_t)n <= x->sources[t].capacity;
}

/* --- Exclusive links ---------------------------------------------------------- */

/* e's link, writable without marking it changed (the depth is the runtime's), or NULL. */
static void *link_cell(const strata_world_t *w, const strata_relation_desc_t *d, strata_entity_t e) {
    const sti_record_t *rec = sti_record_lookup(w, e); /* (strata_get, inline: every walk up reads it) */
    return rec != NULL ? sti_table_cell(w, w->tables[rec->table], d->component, rec->row) : NULL;
}

/* e's target in exclusive relation d, or NULL (stale e, no link). */
static strata_entity_t link_target_of(const strata_world_t *w, const strata_relation_desc_t *d, strata_entity_t e) {
    const void *link = link_cell(w, d, e);
    return link != NULL ? sti_link_target(link) : STRATA_ENTITY_NULL;
}

/* e's depth: its link's, 0 without one. */
static uint32_t link_depth_of(const strata_world_t *w, const strata_relation_desc_t *d, strata_entity_t e) {
    const void *link = link_cell(w, d, e);
    return link != NULL ? sti_link_depth(link) : 0;
}

/* A pre-order walk: parents first; nothing to walk below a leaf. */
void sti_link_redepth(strata_world_t *w, uint32_t r, strata_entity_t e, void *link, uint32_t depth) {
    const strata_relation_desc_t *d = &w->schema->relations[r];
    sti_link_index_t *x = sti_link_index(w, r);
    sti_cascade_links_changed(w, r); /* every change of a link's target or depth comes here */
    link = link != NULL ? link : link_cell(w, d, e);
    if (link != NULL) {
        sti_link_set_depth(link, depth);
    }
    if (strata_entity_index(e) >= x->sources_cap || x->sources[strata_entity_index(e)].count == 0) {
        return;
    }
    for (strata_entity_t s = sti_link_tree_next(w, r, e, e, true); s != STRATA_ENTITY_NULL;
         s = sti_link_tree_next(w, r, e, s, true)) {
        sti_link_set_depth(link_cell(w, d, s), link_depth_of(w, d, link_target_of(w, d, s)) + 1);
    }
}

/* True if walking up from `from` meets e (linking e to `from` would close a cycle). */
static bool link_reaches(const strata_world_t *w, const strata_relation_desc_t *d, strata_entity_t from,
                         strata_entity_t e) {
    /* A chain is at most as long as there are entities; the bound keeps a
     * corrupt chain from looping. */
    for (uint32_t steps = 0; from != STRATA_ENTITY_NULL && steps <= w->alive; steps++) {
        if (from == e) {
            return true;
        }
        from = link_target_of(w, d, from);
    }
    return false;
}

/* File source e (its link: `link`, or NULL) under target t (room reserved)
 * and set the depths below. */
static void link_file(strata_world_t *w, uint32_t r, strata_entity_t e, void *link, strata_entity_t t) {
    sti_link_index_t *x = sti_link_index(w, r);
    sti_link_list_t *list = &x->sources[strata_entity_index(t)];
    x->slot[strata_entity_index(e)] = list->count;
    list->items[list->count++] = e;
    sti_link_redepth(w, r, e, link, link_depth_of(w, &w->schema->relations[r], t) + 1);
}

/* Take source e out of live target t's sources. */
static void link_unfile(sti_link_index_t *x, strata_entity_t e, strata_entity_t t) {
    sti_link_list_t *list = sti_link_list_at(x->sources, x->sources_cap, t);
    uint32_t i = strata_entity_index(e) < x->slot_cap ? x->slot[strata_entity_index(e)] : UINT32_MAX;
    if (list == NULL || i >= list->count || list->items[i] != e) {
        return; /* not filed under t */
    }
    sti_link_list_take(list, i);
    if (i < list->count) {
        x->slot[strata_entity_index(list->items[i])] = i;
    }
}

/* The largest entity index among n entities (`entities`, or NULL: the n
 * the next create makes), or UINT32_MAX if they cannot be made. */
static uint32_t link_top_index(const strata_world_t *w, uint32_t n, const strata_entity_t *entities) {
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
 * cover the n entities (link_top_index). */
static strata_result_t link_room(strata_world_t *w, uint32_t r, uint32_t n, const strata_entity_t *entities,
                                 const void *value) {
    const strata_relation_desc_t *d = &w->schema->relations[r];
    value = value != NULL ? value : w->components[d->component].defaults;
    strata_entity_t t = value != NULL ? sti_link_target(value) : STRATA_ENTITY_NULL;
    if (t == STRATA_ENTITY_NULL || sti_record_lookup(w, t) == NULL) {
        return STRATA_OK;
    }
    sti_link_index_t *x = sti_link_index(w, r);
    uint32_t top = link_top_index(w, n, entities), ti = strata_entity_index(t);
    if (top == UINT32_MAX || link_has_room(x, top, ti, n)) {
        return STRATA_OK; /* (past the entity limit, the create fails with LIMIT before any hook runs) */
    }
    strata_result_t res = link_cover(w, x, true, top, ti);
    return res == STRATA_OK ? link_list_room(w, &x->sources[ti], n) : res;
}

/* world->hooks.add_room: for each exclusive relation among ids whose link
 * (one value for all n entities) names a live target, index arrays that
 * cover the n entities and the target, and room for n more sources in the
 * target's list; then the hooks file every link of the add without
 * allocating. (Its target may die before a recorded add applies: the link
 * is dropped then, needing no room.) */
static strata_result_t link_add_room(strata_world_t *w, uint32_t n, const strata_entity_t *entities, uint32_t k,
                                     const uint32_t *ids, const void *const *values) {
    const struct sti_relations_t *rels = w->relations;
    if (n == 1 && entities != NULL && entities[0] == rels->checked_source) {
        return STRATA_OK; /* strata_relation_set's add: its room is made */
    }
    for (uint32_t i = 0; i < k; i++) {
        if (!strata_mask_test(&rels->exclusive, ids[i]) || n == 0) {
            continue;
        }
        strata_result_t res = link_room(w, rels->relation_of[ids[i]], n, entities, values != NULL ? values[i] : NULL);
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
static bool link_fits(const strata_world_t *w, uint32_t r, strata_entity_t e, const void *value) {
    const strata_relation_desc_t *d = &w->schema->relations[r];
    value = value != NULL ? value : w->components[d->component].defaults;
    strata_entity_t t = value != NULL ? sti_link_target(value) : STRATA_ENTITY_NULL;
    if (t == STRATA_ENTITY_NULL) {
        return true;
    }
    if (sti_record_lookup(w, t) == NULL) {
        return false;
    }
    /* A link strata_relation_set checked a moment ago needs no second walk up. */
    bool checked = w->relations->checked_source == e && w->relations->checked_target == t;
    return e == STRATA_ENTITY_NULL || checked || !link_reaches(w, d, t, e);
}

/* world->hooks.links_keep: the ids (k) of an add of `values` (NULL:
 * defaults) to e (a live entity, or STRATA_ENTITY_NULL: entities about to
 * be made) into kept_ids / kept_values, in order, without those of
 * exclusive relations whose link cannot be filed (link_fits), so
 * that the add leaves e as if it had not named them. Returns how many. */
static uint32_t link_keep(strata_world_t *w, strata_entity_t e, uint32_t k, const uint32_t *ids,
                          const void *const *values, uint32_t *kept_ids, const void **kept_values) {
    const struct sti_relations_t *rels = w->relations;
    uint32_t n = 0;
    bool checked = e == rels->checked_source && e != STRATA_ENTITY_NULL; /* strata_relation_set's add: it fits */
    for (uint32_t i = 0; i < k; i++) {
        const void *value = values != NULL ? values[i] : NULL;
        if (!checked && strata_mask_test(&rels->exclusive, ids[i]) &&
            !link_fits(w, rels->relation_of[ids[i]], e, value)) {
            continue;
        }
        kept_ids[n] = ids[i];
        kept_values[n] = value;
        n++;
    }
    return n;
}

/* world->hooks.relink: the links of exclusive relations among ids that `had`
 * has and row `row` of t holds, out of the index (before an overwrite) or
 * filed again (after it). */
static void link_relink(strata_world_t *w, const sti_table_t *had, const sti_table_t *t, uint32_t row, uint32_t k,
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
 * (link_keep) before it moves anything; one that comes another
 * way (a load's) and cannot be filed is kept with a null target. The room
 * to file it was made before the add began (link_add_room), so the
 * growth below finds it there. */
void strata_relation_hook(strata_world_t *w, uint32_t r, strata_entity_t e, void *link, bool added) {
    STRATA_ASSERT(w != NULL && link != NULL);
    const strata_relation_desc_t *d = &w->schema->relations[r];
    sti_link_index_t *x = sti_link_index(w, r);
    strata_entity_t t = sti_link_target(link);
    if (t == STRATA_ENTITY_NULL) {
        return;
    }
    if (!added) {
        if (sti_record_lookup(w, t) != NULL) {
            link_unfile(x, e, t);
        }
        if (e != w->relations->dying) {
            sti_link_redepth(w, r, e, link, 0); /* what was below e is now below a root */
        }
        return;
    }
    sti_link_set_target(link, STRATA_ENTITY_NULL); /* so the walk up from t does not pass through e */
    /* A link strata_relation_set checked for cycles a moment ago (applied
     * now, not recorded) needs no second walk up. */
    bool checked = w->relations->checked_source == e && w->relations->checked_target == t;
    uint32_t ei = strata_entity_index(e), ti = strata_entity_index(t);
    bool fits = sti_record_lookup(w, t) != NULL && (checked || !link_reaches(w, d, t, e)) &&
                (link_has_room(x, ei, ti, 1) ||
                 (link_cover(w, x, true, ei, ti) == STRATA_OK && link_list_room(w, &x->sources[ti], 1) == STRATA_OK));
    if (fits) {
        sti_link_set_target(link, t);
        link_file(w, r, e, link, t);
    } else {
        sti_link_redepth(w, r, e, link, 0);
    }
}

/* Record the add of c to e with value: applied, it links e, or re-links
 * it (an add over a link re-files it), or, when the link cannot be filed
 * by then (its target died, or it would close a cycle), leaves e as it
 * finds it (link_keep). */
static strata_result_t link_record_set(strata_world_t *w, strata_entity_t e, uint32_t c, const void *value) {
    return sti_command_push(w, STI_CMD_ADD, &e, 1, &c, &value);
}

/* The neighbour of e's table (rec) with relation r's component c added
 * (`add`) or removed, if the move there can skip the hooked move's
 * machinery: the edge is cached, its table has room, and no monitored
 * query starts or stops matching, so the only hook on the way is the
 * component's own, strata_relation_hook (the generated hooks call it and
 * nothing else), which records nothing. NULL otherwise. */
static sti_table_t *link_direct_edge(const strata_world_t *w, const sti_record_t *rec, uint32_t c, bool add) {
    const sti_table_t *src = w->tables[rec->table];
    sti_table_t *dst = src->edges[add ? c : w->component_count + c].table;
    return dst != NULL && dst->count < dst->capacity && dst->monitors == src->monitors ? dst : NULL;
}

/* Link e (record rec, without the component; the link checked, its room
 * made) to target now, moving to dst (link_direct_edge): the move, the
 * value (`link`'s data, NULL: defaults) written in place, and the hook's
 * filing. */
static strata_result_t link_add_direct(strata_world_t *w, uint32_t r, sti_record_t *rec, strata_entity_t e,
                                       sti_table_t *dst, strata_entity_t target, const void *link) {
    uint32_t c = w->schema->relations[r].component;
    uint32_t row = sti_move_row_any(w, rec, w->tables[rec->table], dst);
    void *cell = sti_table_cell(w, dst, c, row);
    sti_value_write(w, cell, c, link);
    sti_link_set_target(cell, target);
    link_file(w, r, e, cell, target);
    sti_mark_ids(w, e, 1, &c);
    sti_settle_sets(w);
    return STRATA_OK;
}

/* Link e (record rec) to the target in value now: replace its link in
 * place, or add one. */
static strata_result_t link_set_now(strata_world_t *w, uint32_t r, sti_record_t *rec, strata_entity_t e,
                                    const void *value) {
    const strata_relation_desc_t *d = &w->schema->relations[r];
    sti_link_index_t *x = sti_link_index(w, r);
    const void *old = sti_table_cell(w, w->tables[rec->table], d->component, rec->row);
    if (old == NULL) {
        w->relations->checked_source = e; /* the add files it, without checking it again */
        w->relations->checked_target = sti_link_target(value);
        strata_result_t res = strata_add(w, e, d->component, value);
        w->relations->checked_source = STRATA_ENTITY_NULL;
        w->relations->checked_target = STRATA_ENTITY_NULL;
        return res;
    }
    strata_entity_t was = sti_link_target(old);
    if (was != STRATA_ENTITY_NULL && sti_record_lookup(w, was) != NULL) {
        link_unfile(x, e, was);
    }
    (void)strata_set(w, e, d->component, value); /* e is alive and has it */
    link_file(w, r, e, NULL, sti_link_target(value));
    return STRATA_OK;
}

/* strata_relation_set's link as a whole value (`link`'s data, NULL:
 * defaults, and target), recorded or set now. */
static strata_result_t link_set_value(strata_world_t *w, uint32_t r, sti_record_t *rec, strata_entity_t e,
                                      strata_entity_t target, const void *link) {
    const strata_relation_desc_t *d = &w->schema->relations[r];
    uint32_t size = w->components[d->component].size;
    unsigned char small[256];
    unsigned char *value = size <= sizeof small ? small : sti_mem_alloc(w, size);
    if (value == NULL) {
        return STRATA_ERR_NOMEM;
    }
    sti_value_write(w, value, d->component, link);
    sti_link_set_target(value, target);
    strata_result_t res = sti_deferred(w) ? link_record_set(w, e, d->component, value)
                                          : link_set_now(w, r, rec, e, value);
    if (value != small) {
        sti_mem_free(w, value, size);
    }
    return res;
}

strata_result_t strata_relation_set(strata_world_t *w, uint32_t r, strata_entity_t e, strata_entity_t target,
                                    const void *link) {
    STRATA_ASSERT(w != NULL);
    sti_link_index_t *x = sti_link_index(w, r);
    const strata_relation_desc_t *d = &w->schema->relations[r];
    STRATA_ASSERT(d->exclusive);
    sti_record_t *rec = sti_record_lookup(w, e);
    if (rec == NULL || sti_record_lookup(w, target) == NULL) {
        return STRATA_ERR_STALE;
    }
    if (link_reaches(w, d, target, e)) {
        return STRATA_ERR_CYCLE;
    }
    uint32_t ei = strata_entity_index(e), ti = strata_entity_index(target);
    strata_result_t res = link_has_room(x, ei, ti, 1) ? STRATA_OK : link_cover(w, x, true, ei, ti);
    res = res == STRATA_OK && x->sources[ti].count == x->sources[ti].capacity ? link_list_room(w, &x->sources[ti], 1)
                                                                              : res;
    sti_table_t *dst = res == STRATA_OK && !sti_deferred(w) ? link_direct_edge(w, rec, d->component, true) : NULL;
    if (dst != NULL) {
        return link_add_direct(w, r, rec, e, dst, target, link);
    }
    return res == STRATA_OK ? link_set_value(w, r, rec, e, target, link) : res;
}

/* --- Non-exclusive links ------------------------------------------------------- */

strata_result_t sti_link_tag_remove(strata_world_t *w, strata_entity_t e, uint32_t c) {
    if (!sti_deferred(w)) {
        strata_result_t r = strata_remove(w, e, c);
        return r == STRATA_ERR_MISSING ? STRATA_OK : r;
    }
    return sti_command_push(w, STI_CMD_REMOVE, &e, 1, &c, NULL);
}

strata_result_t strata_relation_add(strata_world_t *w, uint32_t r, strata_entity_t e, strata_entity_t target) {
    STRATA_ASSERT(w != NULL);
    sti_link_index_t *x = sti_link_index(w, r);
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
    strata_result_t res = link_cover(w, x, false, ei, ti);
    if (res == STRATA_OK) {
        res = link_list_room(w, &x->targets[ei], 1);
    }
    if (res == STRATA_OK) {
        res = link_list_room(w, &x->sources[ti], 1);
    }
    /* While deferred the tag's add is recorded even if e has the tag now:
     * a removal of it may be waiting. */
    if (res == STRATA_OK && (sti_deferred(w) || !strata_has(w, e, d->component))) {
        res = strata_add(w, e, d->component, NULL);
    }
    if (res != STRATA_OK) {
        return res;
    }
    sti_link_list_t *mine = &x->targets[ei], *theirs = &x->sources[ti];
    mine->items[mine->count++] = target;
    theirs->items[theirs->count++] = e;
    return STRATA_OK;
}

void sti_link_unfile_shared(strata_world_t *w, sti_link_index_t *x, strata_entity_t e, sti_link_list_t *mine,
                            uint32_t i) {
    strata_entity_t t = mine->items[i];
    sti_link_list_take(mine, i);
    sti_link_list_t *theirs = sti_link_list_at(x->sources, x->sources_cap, t);
    if (theirs != NULL && sti_record_lookup(w, t) != NULL) {
        uint32_t j = sti_link_list_find(theirs, e);
        if (j != UINT32_MAX) {
            sti_link_list_take(theirs, j);
        }
    }
}

/* Remove e's (record rec) link of exclusive relation r now (if it names
 * target, or any with a null target): the hook's unfiling and the move directly when
 * link_direct_edge allows, else a plain strata_remove (whose hook does
 * it). STALE, MISSING, or the remove's result. */
static strata_result_t link_remove_now(strata_world_t *w, uint32_t r, sti_record_t *rec, strata_entity_t e,
                                       strata_entity_t target) {
    uint32_t c = w->schema->relations[r].component;
    void *link = sti_table_cell(w, w->tables[rec->table], c, rec->row);
    if (link == NULL || (target != STRATA_ENTITY_NULL && target != sti_link_target(link))) {
        return STRATA_ERR_MISSING;
    }
    sti_table_t *dst = link_direct_edge(w, rec, c, false);
    if (dst == NULL) {
        return strata_remove(w, e, c); /* the hook takes it out of the index */
    }
    strata_relation_hook(w, r, e, link, false);
    sti_move_row_any(w, rec, w->tables[rec->table], dst);
    return STRATA_OK;
}

strata_result_t strata_relation_remove(strata_world_t *w, uint32_t r, strata_entity_t e, strata_entity_t target) {
    STRATA_ASSERT(w != NULL);
    sti_link_index_t *x = sti_link_index(w, r);
    const strata_relation_desc_t *d = &w->schema->relations[r];
    sti_record_t *rec = sti_record_lookup(w, e);
    if (rec == NULL) {
        return STRATA_ERR_STALE;
    }
    if (d->exclusive) {
        if (sti_deferred(w)) {
            return sti_command_push(w, STI_CMD_REMOVE, &e, 1, &d->component, NULL);
        }
        return link_remove_now(w, r, rec, e, target);
    }
    sti_link_list_t *mine = sti_link_list_at(x->targets, x->targets_cap, e);
    uint32_t i = mine != NULL ? sti_link_list_find(mine, target) : UINT32_MAX;
    if (i == UINT32_MAX) {
        return STRATA_ERR_MISSING;
    }
    if (mine->count == 1) {
        strata_result_t res = sti_link_tag_remove(w, e, d->component);
        if (res != STRATA_OK) {
            return res;
        }
    }
    sti_link_unfile_shared(w, x, e, mine, i);
    return STRATA_OK;
}

/* --- Reading ----------------------------------------------------------------------- */

strata_entity_t strata_relation_target(const strata_world_t *w, uint32_t r, strata_entity_t e) {
    STRATA_ASSERT(w != NULL);
    (void)sti_link_index(w, r);
    const strata_relation_desc_t *d = &w->schema->relations[r];
    STRATA_ASSERT(d->exclusive);
    return link_target_of(w, d, e);
}

bool strata_relation_has(const strata_world_t *w, uint32_t r, strata_entity_t e, strata_entity_t target) {
    STRATA_ASSERT(w != NULL);
    const sti_link_index_t *x = sti_link_index(w, r);
    const strata_relation_desc_t *d = &w->schema->relations[r];
    if (target == STRATA_ENTITY_NULL || sti_record_lookup(w, e) == NULL) {
        return false;
    }
    if (d->exclusive) {
        return link_target_of(w, d, e) == target;
    }
    const sti_link_list_t *mine = sti_link_list_at(x->targets, x->targets_cap, e);
    return mine != NULL && sti_link_list_find(mine, target) != UINT32_MAX;
}

const strata_entity_t *sti_link_read(const strata_world_t *w, sti_link_list_t *lists, size_t cap, strata_entity_t e,
                                     uint32_t *count) {
    STRATA_ASSERT(count != NULL);
    const sti_link_list_t *list = sti_record_lookup(w, e) != NULL ? sti_link_list_at(lists, cap, e) : NULL;
    *count = list != NULL ? list->count : 0;
    return *count > 0 ? list->items : NULL;
}

const strata_entity_t *strata_relation_sources(const strata_world_t *w, uint32_t r, strata_entity_t target,
                                               uint32_t *count) {
    STRATA_ASSERT(w != NULL);
    const sti_link_index_t *x = sti_link_index(w, r);
    return sti_link_read(w, x->sources, x->sources_cap, target, count);
}

const strata_entity_t *strata_relation_targets(const strata_world_t *w, uint32_t r, strata_entity_t e,
                                               uint32_t *count) {
    STRATA_ASSERT(w != NULL);
    const sti_link_index_t *x = sti_link_index(w, r);
    STRATA_ASSERT(!w->schema->relations[r].exclusive);
    return sti_link_read(w, x->targets, x->targets_cap, e, count);
}

int32_t strata_relation_depth(const strata_world_t *w, uint32_t r, strata_entity_t e) {
    STRATA_ASSERT(w != NULL);
    (void)sti_link_index(w, r);
    const strata_relation_desc_t *d = &w->schema->relations[r];
    STRATA_ASSERT(d->exclusive);
    if (sti_record_lookup(w, e) == NULL) {
        return -1;
    }
    return (int32_t)link_depth_of(w, d, e);
}

strata_entity_t sti_link_tree_next(const strata_world_t *w, uint32_t r, strata_entity_t root, strata_entity_t e,
                                   bool down) {
    const sti_link_index_t *x = sti_link_index(w, r);
    const strata_relation_desc_t *d = &w->schema->relations[r];
    uint32_t n = 0;
    const strata_entity_t *below = sti_link_read(w, x->sources, x->sources_cap, e, &n);
    if (down && n > 0) {
        return below[0];
    }
    while (e != root) {
        strata_entity_t up = link_target_of(w, d, e);
        const strata_entity_t *siblings = sti_link_read(w, x->sources, x->sources_cap, up, &n);
        uint32_t i = x->slot[strata_entity_index(e)] + 1;
        if (i < n) {
            return siblings[i];
        }
        e = up;
    }
    return STRATA_ENTITY_NULL;
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
    sti_link_index_t *x = sti_link_index(w, r);
    STRATA_ASSERT(!w->schema->relations[r].exclusive);
    strata_result_t res = link_cover(w, x, false, strata_entity_index(e), strata_entity_index(t));
    if (res != STRATA_OK) {
        return res;
    }
    sti_link_list_t *mine = &x->targets[strata_entity_index(e)];
    sti_link_list_t *theirs = &x->sources[strata_entity_index(t)];
    /* A repeat is looked for in the shorter list: a source with thousands
     * of targets each linked from few sources loads in linear time. */
    bool repeat = mine->count <= theirs->count ? sti_link_list_find(mine, t) != UINT32_MAX
                                               : sti_link_list_find(theirs, e) != UINT32_MAX;
    if (repeat) {
        return STRATA_ERR_CORRUPT;
    }
    res = link_list_room(w, mine, 1);
    if (res == STRATA_OK) {
        res = link_list_room(w, theirs, 1);
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
        sti_link_index_t *x = &w->relations->rel[r];
        if (!d->exclusive) {
            continue;
        }
        strata_result_t res = link_cover(w, x, true, w->record_count - 1, 0);
        /* Each target's sources counted in its list (empty until the hooks run), then room made. */
        for (uint32_t t = 0; res == STRATA_OK && t < w->table_count; t++) {
            const sti_table_t *table = w->tables[t];
            for (uint32_t row = 0; strata_mask_test(&table->mask, d->component) && row < table->count; row++) {
                strata_entity_t target = sti_link_target(sti_table_cell(w, table, d->component, row));
                if (target != STRATA_ENTITY_NULL && strata_entity_index(target) < x->sources_cap) {
                    x->sources[strata_entity_index(target)].count++;
                }
            }
        }
        for (size_t i = 0; i < x->sources_cap; i++) {
            sti_link_list_t *list = &x->sources[i];
            uint32_t n = list->count;
            list->count = 0;
            if (res == STRATA_OK && n > 0) {
                res = link_list_room(w, list, n);
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
        const sti_link_index_t *x = &w->relations->rel[k];
        *r = k;
        for (size_t i = 0; !d->exclusive && i < x->targets_cap; i++) {
            const sti_link_list_t *mine = &x->targets[i];
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

strata_result_t sti_link_init(strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    if (s->relation_count == 0 && s->field_policy_count == 0) {
        return STRATA_OK;
    }
    size_t size = sizeof(struct sti_relations_t) + sizeof(sti_link_index_t) * s->relation_count;
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
            w->hooks.add_room = link_add_room;
            w->hooks.relink = link_relink;
            w->hooks.links_keep = link_keep;
        }
    }
    return STRATA_OK;
}

/* Every list of every relation, emptied (`release`: freed). */
static void link_empty(strata_world_t *w, bool release) {
    for (uint32_t r = 0; w->relations != NULL && r < w->relations->count; r++) {
        sti_link_index_t *x = &w->relations->rel[r];
        for (size_t i = 0; i < x->sources_cap; i++) {
            release ? sti_link_list_free(w, &x->sources[i]) : (void)(x->sources[i].count = 0);
        }
        for (size_t i = 0; i < x->targets_cap; i++) {
            release ? sti_link_list_free(w, &x->targets[i]) : (void)(x->targets[i].count = 0);
        }
    }
}

void sti_link_clear(strata_world_t *w) {
    link_empty(w, false);
}

void sti_link_free(strata_world_t *w) {
    if (w->relations == NULL) {
        return;
    }
    link_empty(w, true);
    for (uint32_t r = 0; r < w->relations->count; r++) {
        sti_link_index_t *x = &w->relations->rel[r];
        sti_mem_free(w, x->sources, sizeof(sti_link_list_t) * x->sources_cap);
        sti_mem_free(w, x->targets, sizeof(sti_link_list_t) * x->targets_cap);
        sti_mem_free(w, x->slot, sizeof(uint32_t) * x->slot_cap);
    }
    sti_mem_free(w, w->relations, sizeof(struct sti_relations_t) + sizeof(sti_link_index_t) * w->relations->count);
    w->relations = NULL;
}

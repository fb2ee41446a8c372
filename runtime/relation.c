/* relation.c: what a destroy owes the relations and the entity fields with
 * a policy (the policies, applied inside the destroy's scope through
 * world->hooks), destroying a tree, and setting up the relations' modules
 * (cascade.c, link.c, this) for a world. docs/relations.md describes the
 * policies. */
#include "relation.h"

/* --- Destroying ------------------------------------------------------------------- */

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
        e = sti_link_tree_next(w, r, root, e, true);
    }
    strata_result_t end = strata_defer_end(w);
    return first != STRATA_OK ? first : end;
}

/* Remove c from s for a policy (recorded or applied as any removal), the
 * move's edge made first: what memory the removal needs is taken while the
 * destroy that causes it is applied, so applying the removal later does
 * not fail for want of it. */
static void relation_policy_remove(strata_world_t *w, strata_entity_t s, uint32_t c) {
    const sti_record_t *rec = sti_record_lookup(w, s);
    if (rec != NULL && strata_mask_test(&w->tables[rec->table]->mask, c)) {
        (void)sti_table_edge(w, w->tables[rec->table], c, false, NULL);
    }
    (void)sti_link_tag_remove(w, s, c);
}

/* What target e's destroy does to its source s in relation r, by r's policy. */
static void relation_source_loses(strata_world_t *w, uint32_t r, strata_entity_t s, strata_entity_t e) {
    const strata_relation_desc_t *d = &w->schema->relations[r];
    sti_link_index_t *x = sti_link_index(w, r);
    if (!d->exclusive && d->policy != STRATA_POLICY_KEEP) {
        /* The link goes from s's targets now; its tag with the last one. */
        sti_link_list_t *theirs = sti_link_list_at(x->targets, x->targets_cap, s);
        uint32_t j = theirs != NULL ? sti_link_list_find(theirs, e) : UINT32_MAX;
        if (j != UINT32_MAX) {
            sti_link_list_take(theirs, j);
            if (theirs->count == 0 && d->policy == STRATA_POLICY_REMOVE) {
                relation_policy_remove(w, s, d->component);
            }
        }
    }
    if (d->exclusive && d->policy != STRATA_POLICY_DESTROY) {
        sti_link_redepth(w, r, s, NULL, 0); /* s is a root now */
    }
    if (d->policy == STRATA_POLICY_DESTROY) {
        (void)strata_entity_destroy(w, s); /* recorded: this runs inside a scope */
    } else if (d->exclusive && d->policy == STRATA_POLICY_CLEAR) {
        void *link = strata_get_mut(w, s, d->component);
        if (link != NULL) {
            sti_link_set_target(link, STRATA_ENTITY_NULL);
        }
    } else if (d->exclusive && d->policy == STRATA_POLICY_REMOVE) {
        relation_policy_remove(w, s, d->component);
    }
}

/* What target e's destroy does to the sources of relation r. */
static void relation_target_dies(strata_world_t *w, uint32_t r, strata_entity_t e) {
    sti_link_index_t *x = sti_link_index(w, r);
    sti_link_list_t *list = sti_link_list_at(x->sources, x->sources_cap, e);
    for (uint32_t i = 0; list != NULL && i < list->count; i++) {
        relation_source_loses(w, r, list->items[i], e);
    }
    if (list != NULL) {
        sti_link_list_free(w, list);
    }
}

/* Source e's links of non-exclusive relation r go from its targets' lists. */
static void relation_source_dies(strata_world_t *w, uint32_t r, strata_entity_t e) {
    sti_link_index_t *x = sti_link_index(w, r);
    sti_link_list_t *mine = sti_link_list_at(x->targets, x->targets_cap, e);
    while (mine != NULL && mine->count > 0) {
        sti_link_unfile_shared(w, x, e, mine, mine->count - 1);
    }
    if (mine != NULL) {
        sti_link_list_free(w, mine);
    }
}

/* The bytes a policy records for one source or field holder: its destroy,
 * or the removal of component c (alone, or as a run's entry). */
static size_t relation_policy_bytes(const strata_world_t *w, bool destroy, uint32_t c) {
    if (destroy) {
        return STI_CMD_DESTROY_BYTES;
    }
    size_t one = sti_command_bytes(w, STI_CMD_REMOVE, 1, 1, &c), run = sti_command_run_bytes(w, STI_CMD_REMOVE_RUN, c);
    return one > run ? one : run;
}

/* What a policy owes: the bytes it records and the destroys it makes. */
typedef struct relation_room_t {
    size_t bytes;
    uint32_t destroys;
} relation_room_t;

/* What policy p does to the field `cell` of `holder` naming e (being
 * destroyed); with `room`, only count what it would record. */
static void relation_field_dies(strata_world_t *w, const strata_field_policy_t *p, strata_entity_t holder,
                                strata_entity_t e, unsigned char *cell, relation_room_t *room) {
    bool destroy = p->policy == STRATA_POLICY_DESTROY && holder != e;
    if (room != NULL) {
        if (destroy || p->policy == STRATA_POLICY_REMOVE) {
            room->bytes += relation_policy_bytes(w, destroy, p->component);
            room->destroys += destroy;
        }
    } else if (p->policy == STRATA_POLICY_CLEAR) {
        sti_link_set_target(cell, STRATA_ENTITY_NULL);
        strata_mark(w, holder, p->component);
    } else if (p->policy == STRATA_POLICY_REMOVE) {
        relation_policy_remove(w, holder, p->component);
    } else if (destroy) {
        (void)strata_entity_destroy(w, holder);
    }
}

/* The entity fields naming e, by their policies (a scan of the tables that
 * have each such component, or of its sparse set's values); with `room`,
 * only count what they would record. */
static void relation_fields(strata_world_t *w, strata_entity_t e, relation_room_t *room) {
    const strata_schema_t *s = w->schema;
    for (uint32_t k = 0; k < s->field_policy_count; k++) {
        const strata_field_policy_t *p = &s->field_policies[k];
        if (sti_is_sparse(w, p->component)) { /* its values stay put: what the policies change is recorded */
            const sti_sparse_t *set = &w->sparse_sets[w->sparse_plane[p->component]];
            for (uint32_t i = 0; i < set->count; i++) {
                unsigned char *cell = set->values.data + (size_t)i * set->values.size + p->offset;
                if (sti_link_target(cell) == e) {
                    relation_field_dies(w, p, set->owner[i], e, cell, room);
                }
            }
            continue;
        }
        for (uint32_t ti = 0; ti < w->table_count; ti++) {
            sti_table_t *t = w->tables[ti];
            for (uint32_t row = 0; strata_mask_test(&t->mask, p->component) && row < t->count; row++) {
                unsigned char *cell = (unsigned char *)sti_table_cell(w, t, p->component, row) + p->offset;
                if (sti_link_target(cell) == e) {
                    if (room == NULL) {
                        sti_table_wrote(w, t);
                    }
                    relation_field_dies(w, p, t->entities[row], e, cell, room);
                }
            }
        }
    }
}

/* world->hooks.destroy_room: room for all that e's destroy makes the policies
 * record (a command for each source or field holder they remove a link from
 * or destroy; in a step, a scheduled destroy each), so that recording it,
 * from inside the destroy, cannot run out of memory. */
static strata_result_t relation_destroy_room(strata_world_t *w, strata_entity_t e) {
    const strata_schema_t *s = w->schema;
    relation_room_t room = {0, 0};
    for (uint32_t r = 0; r < s->relation_count; r++) {
        const strata_relation_desc_t *d = &s->relations[r];
        const sti_link_index_t *x = sti_link_index(w, r);
        const sti_link_list_t *list = sti_link_list_at(x->sources, x->sources_cap, e);
        uint32_t n = list != NULL ? list->count : 0;
        if (d->policy == STRATA_POLICY_DESTROY || d->policy == STRATA_POLICY_REMOVE) {
            room.bytes += n * relation_policy_bytes(w, d->policy == STRATA_POLICY_DESTROY, d->component);
            room.destroys += d->policy == STRATA_POLICY_DESTROY ? n : 0;
        }
    }
    if (s->field_policy_count > 0) {
        relation_fields(w, e, &room);
    }
    strata_result_t res = room.bytes > 0 ? sti_command_reserve(w, room.bytes) : STRATA_OK;
    if (res == STRATA_OK && w->in_step && room.destroys > 0) {
        res = sti_mem_grow(w, &w->doomed, sizeof(strata_entity_t), &w->doomed_capacity,
                           (size_t)w->doomed_count + room.destroys, 64);
    }
    return res;
}

/* world->hooks.destroyed: e is being destroyed (still alive, inside a scope). */
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
    if (s->field_policy_count > 0) {
        relation_fields(w, e, NULL);
    }
}

/* --- The world's part ---------------------------------------------------------------- */

strata_result_t sti_relation_init(strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    if (s->relation_count == 0 && s->field_policy_count == 0) {
        return STRATA_OK;
    }
    w->hooks.destroyed = relation_destroyed;
    w->hooks.destroy_room = relation_destroy_room;
    strata_result_t r = sti_link_init(w);
    return r == STRATA_OK ? sti_cascade_init(w) : r;
}

void sti_relation_clear(strata_world_t *w) {
    sti_link_clear(w);
    sti_cascade_forget(w); /* the tables are emptied without moving a row: no saved pass holds */
}

void sti_relation_free(strata_world_t *w) {
    sti_cascade_free(w);
    sti_link_free(w);
}

/* observe.c: component hooks, query hooks (monitors) and aspects; on_set. */
#include "observe.h"

/* The aspect columns' descs after the components' (owned by the world). */
static strata_result_t observe_init_aspects(strata_world_t *w, uint32_t aspects) {
    const strata_schema_t *s = w->schema;
    size_t bytes = sizeof(strata_component_desc_t) * (s->component_count + aspects);
    strata_component_desc_t *descs = sti_mem_alloc(w, bytes);
    if (descs == NULL) {
        return STRATA_ERR_NOMEM;
    }
    if (s->component_count > 0) {
        memcpy(descs, s->components, sizeof(strata_component_desc_t) * s->component_count);
    }
    for (uint32_t k = 0; k < w->monitor_count; k++) {
        uint32_t id = w->monitor_aspect[k];
        if (id != UINT32_MAX) {
            const strata_query_desc_t *q = &s->queries[w->monitor_query[k]];
            descs[id] = (strata_component_desc_t){.name = q->name,
                                                  .size = q->aspect_size,
                                                  .align = q->aspect_align,
                                                  .defaults = q->aspect_defaults};
        }
    }
    w->column_descs = descs;
    w->components = descs;
    return STRATA_OK;
}

/* Hooked components, monitors (queries with an aspect or hooks) and the aspects' column ids. */
strata_result_t sti_observe_init(strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    uint32_t aspects = 0;
    for (uint32_t c = 0; c < s->component_count; c++) {
        if (s->components[c].on_add != NULL || s->components[c].on_remove != NULL) {
            strata_mask_set(&w->hooked, c);
        }
        STRATA_ASSERT(s->components[c].on_set == NULL || s->components[c].size > 0); /* a tag has no value to set */
    }
    for (uint32_t q = 0; q < s->query_count; q++) {
        const strata_query_desc_t *d = &s->queries[q];
        if (d->aspect_size == 0 && d->on_add == NULL && d->on_remove == NULL) {
            continue;
        }
        STRATA_ASSERT(w->monitor_count < STRATA_MAX_MONITORS);
        uint32_t k = w->monitor_count++;
        w->monitor_query[k] = q;
        w->monitor_aspect[k] = d->aspect_size > 0 ? s->component_count + aspects++ : UINT32_MAX;
    }
    w->has_hooks = w->monitor_count > 0 || !sti_mask_empty(&w->hooked);
    STRATA_ASSERT(s->component_count + aspects <= STRATA_MAX_COMPONENTS);
    w->column_id_count = s->component_count + aspects;
    w->mask_words = (w->column_id_count + 63) / 64;
    return aspects > 0 ? observe_init_aspects(w, aspects) : STRATA_OK;
}

/* The aspect descs. */
void sti_observe_free(strata_world_t *w) {
    sti_mem_free(w, w->column_descs, sizeof(strata_component_desc_t) * w->column_id_count);
}

/* Monitor k's aspect at `row` of t, or NULL if it has none. */
static void *observe_aspect(const strata_world_t *w, const sti_table_t *t, uint32_t k, uint32_t row) {
    return w->monitor_aspect[k] != UINT32_MAX ? sti_table_cell(w, t, w->monitor_aspect[k], row) : NULL;
}

/* The hooks of the monitors in `which` (on_add if add, else on_remove) for the entity at `row` of t. */
static void observe_monitors(strata_world_t *w, const sti_table_t *t, uint32_t row, uint64_t which, bool add) {
    for (uint32_t k = 0; k < w->monitor_count; k++) {
        const strata_query_desc_t *q = &w->schema->queries[w->monitor_query[k]];
        strata_query_hook_t hook = add ? q->on_add : q->on_remove;
        if ((which >> k & 1u) && hook != NULL) {
            hook(w, t->entities[row], observe_aspect(w, t, k, row));
        }
    }
}

/* The hooks of the hooked components in `which` (on_add if add, else on_remove) for the entity at `row` of t. */
static void observe_components(strata_world_t *w, const sti_table_t *t, uint32_t row, const strata_mask_t *which,
                               bool add) {
    for (uint32_t c = 0; c < w->component_count; c++) {
        strata_component_hook_t hook = add ? w->components[c].on_add : w->components[c].on_remove;
        if (strata_mask_test(which, c) && hook != NULL) {
            hook(w, t->entities[row], sti_table_cell(w, t, c, row));
        }
    }
}

/* on_remove of the monitors the entity stops matching, then of the hooked components it loses. */
void sti_observe_leave(strata_world_t *w, const sti_table_t *t, uint32_t row, const sti_table_t *dst) {
    static const strata_mask_t none = {{0}};
    uint64_t gone = t->monitors & ~(dst != NULL ? dst->monitors : 0);
    strata_mask_t lost = sti_mask_minus(&t->mask, dst != NULL ? &dst->mask : &none, &w->hooked);
    sti_scope_open(w);
    observe_monitors(w, t, row, gone, false);
    observe_components(w, t, row, &lost, false);
    sti_scope_close(w);
}

/* New aspects of the monitors it starts matching at their defaults, then
 * on_add of the hooked components it gains and of those monitors. */
void sti_observe_enter(strata_world_t *w, const sti_table_t *src, const sti_table_t *t, uint32_t row) {
    static const strata_mask_t none = {{0}};
    uint64_t fresh = t->monitors & ~(src != NULL ? src->monitors : 0);
    strata_mask_t gained = sti_mask_minus(&t->mask, src != NULL ? &src->mask : &none, &w->hooked);
    for (uint32_t k = 0; k < w->monitor_count; k++) {
        uint32_t id = w->monitor_aspect[k];
        if ((fresh >> k & 1u) && id != UINT32_MAX) {
            sti_value_write(w, sti_table_cell(w, t, id, row), id, NULL);
        }
    }
    sti_scope_open(w);
    observe_components(w, t, row, &gained, true);
    observe_monitors(w, t, row, fresh, true);
    sti_scope_close(w);
}

/* Each new row in turn. */
void sti_observe_created(strata_world_t *w, const sti_table_t *t, uint32_t row, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        sti_observe_enter(w, NULL, t, row + i);
    }
}

/* Marks first, then hooks, table by table. */
void sti_observe_loaded(strata_world_t *w) {
    for (uint32_t i = 0; i < w->table_count; i++) {
        sti_table_t *t = w->tables[i];
        sti_dirty_mark_table(w, t);
        /* Hooks may add rows to the empty table only (creations): t's rows stay put. */
        for (uint32_t row = 0, n = t->count; t->hooked && row < n; row++) {
            sti_observe_enter(w, NULL, t, row);
        }
    }
}

/* on_remove of every entity of every hooked table, once. */
void sti_hooks_destroy_all(strata_world_t *w) {
    if (w->hooks_gone) {
        return;
    }
    w->hooks_gone = true;
    sti_observe_leave_all(w);
}

/* Every row of every hooked table leaves (tables cannot change meanwhile:
 * the hooks' structural changes are recorded, their new entities go to the
 * empty table, which has no hooks). */
void sti_observe_leave_all(strata_world_t *w) {
    sti_scope_open(w); /* nothing the hooks record applies until the caller settles */
    for (uint32_t i = 0; i < w->table_count; i++) {
        sti_table_t *t = w->tables[i];
        for (uint32_t row = 0; t->hooked && row < t->count; row++) {
            sti_observe_leave(w, t, row, NULL);
        }
    }
    sti_scope_close(w);
}

/* Every on_set set visits what it holds now, in one scope: marks the
 * hooks make land after each visit's end and are muted later. */
void sti_observe_sets(strata_world_t *w) {
    w->sets_pending = false;
    for (uint64_t left = w->set_slots; left != 0; left &= left - 1) {
        sti_dirty_open(&w->dirty[__builtin_ctzll(left)]);
    }
    sti_scope_open(w);
    for (uint64_t left = w->set_slots; left != 0; left &= left - 1) {
        uint32_t k = (uint32_t)__builtin_ctzll(left), c = w->dirty[k].component;
        strata_component_hook_t hook = w->components[c].on_set;
        sti_table_t *t;
        uint32_t row;
        while (sti_dirty_take(w, k, &t, &row)) {
            if (strata_mask_test(&t->mask, c)) { /* removed since the write: nothing to observe */
                sti_table_wrote(w, t);
                hook(w, t->entities[row], sti_table_cell(w, t, c, row));
            }
        }
    }
    sti_scope_close(w);
    for (uint64_t left = w->set_slots; left != 0; left &= left - 1) {
        sti_dirty_close_set(w, (uint32_t)__builtin_ctzll(left));
    }
}

/* Clear what is left in the on_set sets: only marks made since the visits. */
void sti_observe_sets_mute(strata_world_t *w) {
    for (uint64_t left = w->set_slots; left != 0; left &= left - 1) {
        sti_dirty_clear_set(w, (uint32_t)__builtin_ctzll(left));
    }
    w->sets_pending = false;
}

/* The column id of q's aspect, or UINT32_MAX. */
uint32_t strata_query_aspect_id(const strata_world_t *w, uint32_t q) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(q < w->schema->query_count);
    for (uint32_t k = 0; k < w->monitor_count; k++) {
        if (w->monitor_query[k] == q) {
            return w->monitor_aspect[k];
        }
    }
    return UINT32_MAX;
}

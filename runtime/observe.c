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
            hook(w, t->entities[row], sti_cell(w, t, c, row));
        }
    }
}

uint64_t sti_observe_matched_held(const strata_world_t *w, const sti_table_t *t, uint64_t held) {
    uint64_t matched = t->monitors & ~w->monitor_sparse;
    for (uint64_t left = t->monitors & w->monitor_sparse; left != 0; left &= left - 1) {
        uint32_t k = (uint32_t)__builtin_ctzll(left);
        const sti_sparse_terms_t *terms = &w->query_sparse[w->monitor_query[k]];
        if ((terms->all & ~held) == 0 && (terms->none & held) == 0) {
            matched |= (uint64_t)1 << k;
        }
    }
    return matched;
}

uint64_t sti_observe_matched(const strata_world_t *w, const sti_table_t *t, uint32_t row) {
    return (t->monitors & w->monitor_sparse) != 0 ? sti_observe_matched_held(w, t, sti_sparse_held(w, t, row))
                                                  : t->monitors;
}

/* The components of an entity in table t that holds the sparse planes `held`. */
static strata_mask_t observe_components_of(const strata_world_t *w, const sti_table_t *t, uint64_t held) {
    strata_mask_t m = t->mask;
    if (held != 0) {
        strata_mask_t sparse = sti_sparse_mask(w, held);
        for (uint32_t i = 0; i < w->mask_words; i++) {
            m.bits[i] |= sparse.bits[i];
        }
    }
    return m;
}

/* The planes the entity at `row` of t holds (none in a table without bits). */
static uint64_t observe_held(const strata_world_t *w, const sti_table_t *t, uint32_t row) {
    return t->sparse_any != 0 ? sti_sparse_held(w, t, row) : 0;
}

void sti_observe_leave_to(strata_world_t *w, const sti_table_t *t, uint32_t row, uint64_t held, const sti_table_t *dst,
                          uint64_t held_to) {
    static const strata_mask_t none = {{0}};
    uint64_t gone = sti_observe_matched_held(w, t, held) &
                    ~(dst != NULL ? sti_observe_matched_held(w, dst, held_to) : 0);
    strata_mask_t had = observe_components_of(w, t, held);
    strata_mask_t to = dst != NULL ? observe_components_of(w, dst, held_to) : none;
    strata_mask_t lost = sti_mask_minus(&had, &to, &w->hooked);
    sti_scope_open(w);
    observe_monitors(w, t, row, gone, false);
    observe_components(w, t, row, &lost, false);
    sti_scope_close(w);
}

/* A move's leave: its sparse components go with it (a destroy's: all go). */
void sti_observe_leave(strata_world_t *w, const sti_table_t *t, uint32_t row, const sti_table_t *dst) {
    uint64_t held = observe_held(w, t, row);
    sti_observe_leave_to(w, t, row, held, dst, dst != NULL ? held : 0);
}

/* Write the aspects of the monitors in `fresh` at their defaults in row `row` of t. */
static void observe_aspects(strata_world_t *w, const sti_table_t *t, uint32_t row, uint64_t fresh) {
    for (uint32_t k = 0; k < w->monitor_count; k++) {
        uint32_t id = w->monitor_aspect[k];
        if ((fresh >> k & 1u) && id != UINT32_MAX) {
            sti_value_write(w, sti_table_cell(w, t, id, row), id, NULL);
        }
    }
}

void sti_observe_enter_from(strata_world_t *w, const sti_table_t *src, uint64_t held_from, const sti_table_t *t,
                            uint32_t row, uint64_t held) {
    static const strata_mask_t none = {{0}};
    uint64_t fresh = sti_observe_matched_held(w, t, held) &
                     ~(src != NULL ? sti_observe_matched_held(w, src, held_from) : 0);
    strata_mask_t has = observe_components_of(w, t, held);
    strata_mask_t from = src != NULL ? observe_components_of(w, src, held_from) : none;
    strata_mask_t gained = sti_mask_minus(&has, &from, &w->hooked);
    observe_aspects(w, t, row, fresh);
    sti_scope_open(w);
    observe_components(w, t, row, &gained, true);
    observe_monitors(w, t, row, fresh, true);
    sti_scope_close(w);
}

/* A move's enter: its sparse components came with it (a creation's: all are new). */
void sti_observe_enter(strata_world_t *w, const sti_table_t *src, const sti_table_t *t, uint32_t row) {
    uint64_t held = observe_held(w, t, row);
    sti_observe_enter_from(w, src, src != NULL ? held : 0, t, row, held);
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
        for (uint32_t row = 0, n = t->count; row < n; row++) {
            if (sti_observe_row_hooked(w, t, row)) {
                sti_observe_enter(w, NULL, t, row);
            }
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
        for (uint32_t row = 0; row < t->count; row++) {
            if (sti_observe_row_hooked(w, t, row)) {
                sti_observe_leave(w, t, row, NULL);
            }
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
            if (sti_has(w, t, row, c)) { /* removed since the write: nothing to observe */
                sti_table_wrote(w, t);
                hook(w, t->entities[row], sti_cell(w, t, c, row));
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

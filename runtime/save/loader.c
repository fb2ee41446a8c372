/* loader.c: what every load shares: building the loaded world beside the
 * target and swapping it in only on success, and the load report. */
#include "loader.h"

#include "format.h"

#include <stdio.h>
#include <string.h>

/* --- Reports --------------------------------------------------------------- */

strata_result_t sti_loader_fail(sti_loader_t *l, strata_result_t r, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(l->report->error, sizeof l->report->error, fmt, args);
    va_end(args);
    return r;
}

strata_result_t sti_loader_change(sti_loader_t *l, strata_change_kind_t kind, int64_t component, const char *fmt, ...) {
    if (sti_mem_grow(l->fresh, &l->changes, sizeof *l->changes, &l->change_capacity, (size_t)l->change_count + 1, 16) !=
        STRATA_OK) {
        return sti_loader_fail(l, STRATA_ERR_NOMEM, "out of memory");
    }
    sti_pending_change_t *c = &l->changes[l->change_count++];
    c->kind = (uint8_t)kind;
    c->component = component;
    c->count = component == -1 ? 1 : 0;
    va_list args;
    va_start(args, fmt);
    vsnprintf(c->name, sizeof c->name, fmt, args);
    va_end(args);
    return STRATA_OK;
}

/* --- Building the loaded world ---------------------------------------------- */

strata_result_t sti_loader_begin(sti_loader_t *l, strata_world_t *target, strata_load_report_t *report) {
    STRATA_ASSERT(target != NULL);
    /* Loading replaces the tables an open iterator or a step is walking. */
    STRATA_ASSERT(target->defer_depth == 0 && !target->in_step);
    memset(l, 0, sizeof *l);
    l->target = target;
    l->report = report != NULL ? report : &l->local;
    memset(l->report, 0, sizeof *l->report);
    /* The game's pointer stays with the world: it belongs to the game, not the save. */
    strata_world_desc_t desc = {.allocator = target->allocator, .initial_capacity = 1, .user = target->user};
    strata_result_t r = strata_world_create(target->schema, &desc, &l->fresh);
    if (r != STRATA_OK) {
        return sti_loader_fail(l, r, "out of memory");
    }
    strata_world_t *w = l->fresh;
    w->entity_limit = target->entity_limit;
    w->table_limit = target->table_limit;
    w->free_after = target->free_after;
    w->observer = target->observer; /* like the game's pointer: the tool watching stays */
    /* The block holds the scheduler's state too (which systems are enabled):
     * keep the target's, then reset each resource to its defaults. */
    const strata_schema_t *s = target->schema;
    if (s->resources_size > 0) {
        memcpy(w->resources, target->resources, s->resources_size);
        const strata_type_desc_t *rt = s->resource_type;
        for (uint32_t i = 0; rt != NULL && i < rt->count; i++) {
            const strata_field_desc_t *f = &rt->fields[i];
            unsigned char *dst = (unsigned char *)w->resources + f->offset;
            if (s->resources_defaults != NULL) {
                memcpy(dst, (const unsigned char *)s->resources_defaults + f->offset, f->size);
            } else {
                memset(dst, 0, f->size);
            }
        }
    }
    return STRATA_OK;
}

strata_result_t sti_loader_records(sti_loader_t *l, uint32_t count) {
    strata_world_t *w = l->fresh;
    if (count > w->entity_limit) {
        return sti_loader_fail(l, STRATA_ERR_LIMIT, "the save holds %u entity indices; the limit is %u", count,
                               w->entity_limit);
    }
    strata_result_t r = sti_records_reserve(w, count);
    if (r != STRATA_OK) {
        return sti_loader_fail(l, r, "out of memory");
    }
    /* Generation 0 marks an index not seen yet: no handle has it. */
    for (uint32_t i = 0; i < count; i++) {
        w->records[i] = (sti_record_t){STI_NO_INDEX, 0, STI_NO_TABLE, 0};
    }
    w->record_count = count;
    l->record_count = count;
    l->free_tail = STI_NO_INDEX;
    return STRATA_OK;
}

/* Copy `size` bytes at value into n consecutive elements at dst, doubling
 * the copied run (a few large memcpys instead of n small ones). */
static void loader_fill(unsigned char *dst, const void *value, size_t size, size_t n) {
    if (n == 0) {
        return;
    }
    memcpy(dst, value, size);
    size_t done = 1;
    while (done < n) {
        size_t m = done < n - done ? done : n - done;
        memcpy(dst + done * size, dst, m * size);
        done += m;
    }
}

strata_result_t sti_loader_rows(sti_loader_t *l, const strata_mask_t *mask, uint32_t n, sti_table_t **out,
                                uint32_t *row) {
    strata_world_t *w = l->fresh;
    sti_table_t *t = NULL;
    strata_mask_t table_mask = *mask;
    for (uint32_t i = 0; i < STRATA_MAX_COMPONENTS / 64; i++) {
        table_mask.bits[i] &= ~w->sparse.bits[i];
    }
    strata_result_t r = sti_table_ensure(w, &table_mask, &t);
    if (r == STRATA_OK) {
        r = sti_table_reserve(w, t, n);
    }
    if (r != STRATA_OK) {
        return sti_loader_fail(l, r, r == STRATA_ERR_LIMIT ? "too many archetypes" : "out of memory");
    }
    uint32_t first = t->count;
    *out = t;
    *row = first;
    if (n == 0) {
        return STRATA_OK; /* a new table may have no columns allocated yet: nothing to fill */
    }
    for (uint32_t i = 0; i < t->column_count; i++) {
        const sti_column_t *col = &t->dense[i];
        unsigned char *dst = col->data + (size_t)first * col->size;
        const void *defaults = w->components[col->id].defaults;
        if (defaults != NULL) {
            loader_fill(dst, defaults, col->size, n);
        } else {
            memset(dst, 0, (size_t)col->size * n);
        }
    }
    /* Rows nobody has placed yet hold the null entity. */
    memset(t->entities + first, 0, sizeof(strata_entity_t) * n);
    t->count += n;
    if (first == 0) {
        sti_table_filled(w, t);
    }
    return STRATA_OK;
}

bool sti_loader_place(sti_loader_t *l, sti_table_t *t, uint32_t row, strata_entity_t e) {
    uint32_t index = (uint32_t)e;
    uint32_t generation = (uint32_t)(e >> 32);
    if (index >= l->record_count || generation == 0) {
        return false;
    }
    sti_record_t *rec = &l->fresh->records[index];
    if (rec->generation != 0) {
        return false;
    }
    *rec = (sti_record_t){row, generation, (uint16_t)t->id, 0};
    t->entities[row] = e;
    l->fresh->alive++;
    return true;
}

strata_result_t sti_loader_sparse(sti_loader_t *l, uint32_t c, sti_table_t *t, uint32_t row, uint32_t n,
                                  unsigned char **values) {
    strata_world_t *w = l->fresh;
    uint32_t k = w->sparse_plane[c];
    if (sti_sparse_reserve(w, k, l->record_count, n) != STRATA_OK) {
        return sti_loader_fail(l, STRATA_ERR_NOMEM, "out of memory");
    }
    const sti_sparse_t *s = &w->sparse_sets[k];
    uint32_t first = s->count; /* each entity is placed once: its value takes the next slot */
    for (uint32_t i = 0; i < n; i++) {
        sti_sparse_put(w, k, t, row + i, t->entities[row + i], NULL);
    }
    /* (no value array yet when the set is empty and the run has no rows) */
    *values = s->values.size > 0 && s->values.data != NULL ? s->values.data + (size_t)first * s->values.size : NULL;
    return STRATA_OK;
}

bool sti_loader_free(sti_loader_t *l, uint32_t index, uint32_t generation) {
    strata_world_t *w = l->fresh;
    if (index >= l->record_count || generation == 0 || w->records[index].generation != 0) {
        return false;
    }
    w->records[index] = (sti_record_t){STI_NO_INDEX, generation, STI_NO_TABLE, 0};
    if (l->free_tail == STI_NO_INDEX) {
        w->free_head = index;
    } else {
        w->records[l->free_tail].row = index;
    }
    l->free_tail = index;
    w->free_count++;
    return true;
}

/* Swap everything two worlds of one schema and allocator hold. Nothing
 * points at a world struct from inside (tables, caches and the resource
 * block are separate allocations), so the structs can change places. */
static void loader_swap(strata_world_t *a, strata_world_t *b) {
    strata_world_t t = *a;
    *a = *b;
    *b = t;
    b->pool = a->pool; /* the threads stay with the world they were made for */
    a->pool = t.pool;
    /* Snapshots of the world before see new tables (table ids kept from before are stale). */
    a->snap_clock = t.snap_clock + 1;
    a->table_epoch = t.table_epoch + 1;
}

/* Every link names an entity of the save (or none, for an exclusive
 * relation's cleared link): a save is refused, not repaired, when it
 * points elsewhere. Then the index the hooks will file the exclusive links
 * in is reserved, so that no link is lost to a lack of memory after the
 * load can no longer fail. */
static strata_result_t loader_check_links(sti_loader_t *l) {
    strata_world_t *w = l->fresh;
    for (uint32_t r = 0; r < w->schema->relation_count; r++) {
        const strata_relation_desc_t *d = &w->schema->relations[r];
        for (uint32_t t = 0; d->exclusive && t < w->table_count; t++) {
            const sti_table_t *table = w->tables[t];
            for (uint32_t row = 0; strata_mask_test(&table->mask, d->component) && row < table->count; row++) {
                strata_entity_t target;
                memcpy(&target, sti_table_cell(w, table, d->component, row), sizeof target);
                if (target != STRATA_ENTITY_NULL && sti_record_lookup(w, target) == NULL) {
                    return sti_loader_fail(l, STRATA_ERR_CORRUPT,
                                           "a %s link of entity %llu points at entity %llu, which the save does "
                                           "not hold",
                                           d->name, (unsigned long long)table->entities[row],
                                           (unsigned long long)target);
                }
            }
        }
    }
    uint32_t r = 0;
    strata_entity_t source = STRATA_ENTITY_NULL, target = STRATA_ENTITY_NULL;
    sti_link_fault_t fault = sti_relation_loaded(w, &r, &source, &target);
    const char *name = w->schema->relation_count > 0 ? w->schema->relations[r].name : "";
    unsigned long long s = source, t = target;
    switch (fault) {
    case STI_LINK_NO_TARGET:
        return sti_loader_fail(l, STRATA_ERR_CORRUPT,
                               "a %s link of entity %llu points at entity %llu, which the save does not hold", name, s,
                               t);
    case STI_LINK_NO_SOURCE:
        return sti_loader_fail(l, STRATA_ERR_CORRUPT, "%s links from entity %llu (to %llu), which is not a %s source",
                               name, s, t, name);
    default: break;
    }
    return sti_relation_reserve(l->fresh) == STRATA_OK ? STRATA_OK
                                                       : sti_loader_fail(l, STRATA_ERR_NOMEM, "out of memory");
}

/* Copy the changes into the report, the LOST ones first (a LOST change
 * that concerned no entity is no change); returns how many LOST ones count
 * entities. */
static uint64_t loader_report_changes(sti_loader_t *l) {
    strata_load_report_t *report = l->report;
    uint64_t lost = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < l->change_count; i++) {
            const sti_pending_change_t *c = &l->changes[i];
            bool is_lost = c->kind == STRATA_CHANGE_LOST;
            if (is_lost != (pass == 0) || (is_lost && c->count == 0)) {
                continue;
            }
            lost += is_lost;
            if (report->change_count < STRATA_REPORT_MAX) {
                strata_change_t *out = &report->changes[report->change_count];
                out->kind = c->kind;
                memcpy(out->name, c->name, sizeof out->name);
                out->count = c->count;
            }
            report->change_count++;
        }
    }
    return lost;
}

strata_result_t sti_loader_finish(sti_loader_t *l, bool fill_free) {
    strata_world_t *w = l->fresh;
    for (uint32_t i = 0; i < l->record_count; i++) {
        if (w->records[i].generation != 0) {
            continue;
        }
        if (!fill_free) {
            return sti_loader_fail(l, STRATA_ERR_CORRUPT, "entity index %u is neither alive nor free", i);
        }
        sti_loader_free(l, i, 1);
    }
    /* Every table row must have been placed. */
    for (uint32_t t = 0; t < w->table_count; t++) {
        for (uint32_t row = 0; row < w->tables[t]->count; row++) {
            if (w->tables[t]->entities[row] == STRATA_ENTITY_NULL) {
                return sti_loader_fail(l, STRATA_ERR_CORRUPT, "a table row holds no entity");
            }
        }
    }
    strata_result_t links = loader_check_links(l);
    if (links != STRATA_OK) {
        return links;
    }
    strata_load_report_t *report = l->report;
    report->entities = w->alive;
    uint64_t lost = loader_report_changes(l);
    if (lost > 0 && !l->accept_loss) {
        l->refused = true;
        const strata_change_t *first = &report->changes[0];
        return sti_loader_fail(l, STRATA_ERR_SCHEMA, "would lose values: %s in %llu %s%s", first->name,
                               (unsigned long long)first->count, first->count == 1 ? "entity" : "entities",
                               lost > 1 ? ", and more" : "");
    }
    sti_mem_free(w, l->changes, sizeof(sti_pending_change_t) * l->change_capacity);
    l->changes = NULL;
    l->change_capacity = 0;
    sti_schedule_loaded(w); /* the fixed phases' accumulators: a fraction of a period each */
    /* The old entities leave the target (their on_remove hooks run there),
     * the loaded ones arrive (on_add, and changed for every `changed` query). */
    sti_relation_clear(l->target); /* the old links go with the old entities, in one step */
    sti_hooks_destroy_all(l->target);
    loader_swap(l->target, w);
    strata_world_destroy(w); /* the old contents: their hooks have run */
    l->fresh = NULL;
    sti_hooks_loaded(l->target);
    return STRATA_OK;
}

void sti_loader_abort(sti_loader_t *l) {
    if (l->fresh != NULL) {
        sti_mem_free(l->fresh, l->changes, sizeof(sti_pending_change_t) * l->change_capacity);
        /* Its entities never arrived (no on_add ran): no on_remove either. */
        l->fresh->hooks_gone = true;
        strata_world_destroy(l->fresh);
    }
    l->fresh = NULL;
    l->changes = NULL;
    /* A failed load reports its error only (a refused loss: and its changes). */
    strata_load_report_t *report = l->report;
    report->entities = 0;
    if (!l->refused) {
        report->change_count = 0;
    }
}

strata_result_t sti_loader_open(strata_world_t *w, strata_load_report_t *report, sti_loader_t **out) {
    *out = NULL;
    sti_loader_t *l = w->allocator.alloc(sizeof *l, w->allocator.user);
    if (l == NULL) {
        if (report != NULL) {
            memset(report, 0, sizeof *report);
            snprintf(report->error, sizeof report->error, "out of memory");
        }
        return STRATA_ERR_NOMEM;
    }
    strata_result_t r = sti_loader_begin(l, w, report);
    if (r != STRATA_OK) {
        w->allocator.free(l, sizeof *l, w->allocator.user);
        return r;
    }
    *out = l;
    return STRATA_OK;
}

strata_result_t sti_load_run(strata_world_t *w, strata_load_report_t *report, sti_load_body_fn body, void *ctx) {
    sti_loader_t *l = NULL;
    strata_result_t r = sti_loader_open(w, report, &l);
    if (r != STRATA_OK) {
        return r;
    }
    if (!sti_save_reflected(w)) {
        r = sti_loader_fail(l, STRATA_ERR_SCHEMA, "this world has no reflection data to load with");
    } else {
        r = body(l, ctx);
    }
    if (r != STRATA_OK) {
        sti_loader_abort(l);
    }
    w->allocator.free(l, sizeof *l, w->allocator.user);
    return r;
}

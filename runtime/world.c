/* world.c: world creation and destruction, resources, stats and result names. */
#include "world.h"
#include "event.h"
#include "relation.h"

/* The desc with every zero field replaced by its default (one place for all defaults). */
static strata_world_desc_t world_desc_defaults(const strata_world_desc_t *desc) {
    strata_world_desc_t d = {0};
    if (desc != NULL) {
        d = *desc;
    }
    const strata_allocator_t *a = &d.allocator;
    bool any = a->alloc != NULL || a->realloc != NULL || a->free != NULL;
    bool all = a->alloc != NULL && a->realloc != NULL && a->free != NULL;
    STRATA_ASSERT(!any || all); /* all three hooks or none */
    (void)all;
    if (!any) {
        d.allocator = sti_mem_libc();
    }
    if (d.initial_capacity == 0) {
        d.initial_capacity = 1024;
    }
    return d;
}

/* True if x is a power of two (0 is not). */
static bool world_pow2(uint32_t x) {
    return x != 0 && (x & (x - 1)) == 0;
}

/* True if mask m names no component at or above count. */
static bool world_mask_within(const strata_mask_t *m, uint32_t count) {
    for (uint32_t c = count; c < STRATA_MAX_COMPONENTS; c++) {
        if (strata_mask_test(m, c)) {
            return false;
        }
    }
    return true;
}

/* True if the schema is one the generator could have emitted: limits
 * kept, alignments powers of two, queries with a non-empty `all`, masks
 * naming only its components, a schedule that holds together. */
static bool world_schema_valid(const strata_schema_t *s) {
    if (s->component_count > STRATA_MAX_COMPONENTS || (s->component_count > 0 && s->components == NULL)) {
        return false;
    }
    uint32_t sparse = 0;
    for (uint32_t c = 0; c < s->component_count; c++) {
        const strata_component_desc_t *d = &s->components[c];
        if (d->size > 0 && (!world_pow2(d->align) || d->size % d->align != 0)) {
            return false;
        }
        sparse += d->storage == STRATA_STORAGE_SPARSE;
        if (d->storage > STRATA_STORAGE_SPARSE || sparse > STRATA_MAX_SPARSE) {
            return false;
        }
    }
    if (s->relation_count > STRATA_MAX_RELATIONS || (s->relation_count > 0 && s->relations == NULL)) {
        return false;
    }
    for (uint32_t r = 0; r < s->relation_count; r++) {
        const strata_relation_desc_t *d = &s->relations[r];
        /* An exclusive relation's component starts with the target's handle;
         * its links' index and cascades read it from the tables. */
        if (d->component >= s->component_count ||
            (d->exclusive && s->components[d->component].size < sizeof(strata_entity_t) + sizeof(uint32_t)) ||
            s->components[d->component].storage != STRATA_STORAGE_TABLE) {
            return false;
        }
    }
    if (s->query_count > STRATA_MAX_QUERIES || (s->query_count > 0 && s->queries == NULL)) {
        return false;
    }
    for (uint32_t q = 0; q < s->query_count; q++) {
        const strata_query_desc_t *d = &s->queries[q];
        bool empty = true;
        for (uint32_t i = 0; i < STRATA_MAX_COMPONENTS / 64; i++) {
            empty = empty && d->all.bits[i] == 0;
        }
        /* A query with no `all` would match the empty table. */
        if (empty || !world_mask_within(&d->all, s->component_count) ||
            !world_mask_within(&d->none, s->component_count) || !world_mask_within(&d->write, s->component_count) ||
            !world_mask_within(&d->changed, s->component_count) ||
            !world_mask_within(&d->optional, s->component_count)) {
            return false;
        }
        if (d->aspect_size > 0 && !(world_pow2(d->aspect_align) && d->aspect_size % d->aspect_align == 0)) {
            return false;
        }
    }
    return (s->resources_size == 0 || (world_pow2(s->resources_align) && s->resources_align <= 16)) &&
           sti_schedule_valid(s);
}

/* Allocate everything a new world holds; on failure the caller destroys
 * the partial world. */
static strata_result_t world_alloc_parts(strata_world_t *w, uint32_t initial_capacity) {
    strata_result_t r = sti_observe_init(w);
    if (r == STRATA_OK) {
        r = sti_events_init(w);
    }
    if (r == STRATA_OK) {
        r = sti_dirty_init(w);
    }
    if (r == STRATA_OK) {
        r = sti_sparse_init(w);
    }
    if (r == STRATA_OK) {
        r = sti_records_reserve(w, initial_capacity);
    }
    if (r == STRATA_OK) {
        r = sti_relation_init(w);
    }
    if (r != STRATA_OK) {
        return r;
    }
    if (w->schema->query_count > 0) {
        size_t size = sizeof(sti_query_cache_t) * w->schema->query_count;
        w->queries = sti_mem_alloc(w, size);
        if (w->queries == NULL) {
            return STRATA_ERR_NOMEM;
        }
        memset(w->queries, 0, size);
    }
    const strata_schema_t *s = w->schema;
    if (s->resources_size > 0) {
        w->resources_block_size = (size_t)s->resources_size + s->resources_align - 1;
        w->resources_block = sti_mem_alloc(w, w->resources_block_size);
        if (w->resources_block == NULL) {
            return STRATA_ERR_NOMEM;
        }
        uintptr_t p = ((uintptr_t)w->resources_block + s->resources_align - 1) & ~(uintptr_t)(s->resources_align - 1);
        w->resources = (void *)p;
        if (s->resources_defaults != NULL) {
            memcpy(w->resources, s->resources_defaults, s->resources_size);
        } else {
            memset(w->resources, 0, s->resources_size);
        }
    }
    if (s->schedule != NULL) { /* systems start on */
        memset((unsigned char *)w->resources + s->schedule->switches, true, s->schedule->system_count);
    }
    strata_mask_t empty = {{0}};
    sti_table_t *t = NULL;
    return sti_table_ensure(w, &empty, &t);
}

/* A new world for schema (asserted valid), or NOMEM with *out NULL and nothing held. */
strata_result_t strata_world_create(const strata_schema_t *schema, const strata_world_desc_t *desc,
                                    strata_world_t **out) {
    STRATA_ASSERT(schema != NULL);
    STRATA_ASSERT(out != NULL);
    *out = NULL;
    /* Checked even when asserts are off: a few loops, once per world. */
    bool valid = world_schema_valid(schema);
    STRATA_ASSERT(valid);
    (void)valid;
    strata_world_desc_t d = world_desc_defaults(desc);
    strata_world_t *w = d.allocator.alloc(sizeof *w, d.allocator.user);
    if (w == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memset(w, 0, sizeof *w);
    w->schema = schema;
    w->components = schema->components;
    w->allocator = d.allocator;
    w->user = d.user;
    w->bytes = sizeof *w;
    w->component_count = schema->component_count;
    w->column_id_count = schema->component_count;
    w->mask_words = (schema->component_count + 63) / 64;
    w->free_head = STI_NO_INDEX;
    w->entity_limit = STRATA_MAX_ENTITIES;
    w->table_limit = STRATA_MAX_TABLES;
    w->free_after = d.free_empty_tables_after;
    strata_result_t r = world_alloc_parts(w, d.initial_capacity);
    if (r == STRATA_OK) {
        r = sti_pool_create(w, d.threads, d.chunk_rows);
    }
    if (r != STRATA_OK) {
        strata_world_destroy(w);
        return r;
    }
    *out = w;
    return STRATA_OK;
}

/* Free every allocation of the world, then the world; NULL is a no-op. */
void strata_world_destroy(strata_world_t *w) {
    if (w == NULL) {
        return;
    }
    /* Not from inside its own step, system, iterator or hook: they would go
     * on with a freed world. */
    STRATA_ASSERT(w->defer_depth == 0 && !w->in_step);
    /* Entities die with the world: their on_remove hooks run (resources
     * held outside the world are freed there). What the hooks record is
     * dropped with the rest. */
    sti_relation_clear(w); /* the hooks below find no index to walk: all of it goes */
    sti_hooks_destroy_all(w);
    sti_pool_free(w);
    sti_archetype_free(w);
    sti_query_free(w);
    sti_mem_free(w, w->records, sizeof(sti_record_t) * w->record_capacity);
    sti_command_free(w);
    sti_bulk_free(w);
    sti_mem_free(w, w->resources_block, w->resources_block_size);
    sti_observe_free(w);
    sti_sparse_free(w);
    sti_dirty_free(w);
    sti_events_free(w);
    sti_relation_free(w);
    strata_allocator_t a = w->allocator;
    a.free(w, sizeof *w, a.user);
}

/* Destroy every entity, as destroying each would (their on_remove hooks
 * run), keeping tables, columns and records: the world's capacity. */
void strata_world_clear(strata_world_t *w) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(w->defer_depth == 0 && !w->in_step);
    sti_relation_clear(w); /* the hooks below find no index to walk: all of it goes */
    if (w->has_hooks) {
        sti_observe_leave_all(w);
    }
    /* What the hooks recorded, and anything left from a flush that failed,
     * concerns entities that are gone. */
    sti_command_drop(w);
    sti_index_release_all(w); /* clears the records' doomed flags too */
    sti_sparse_empty(w);
    for (uint32_t t = 0; t < w->table_count; t++) {
        if (w->tables[t]->count > 0) {
            w->tables[t]->count = 0;
            w->tables[t]->moved++;
            sti_table_emptied(w, w->tables[t]);
        }
    }
    sti_dirty_empty(w);
}

/* The schema the world was made with. */
const strata_schema_t *strata_world_schema(const strata_world_t *w) {
    STRATA_ASSERT(w != NULL);
    return w->schema;
}

/* The game's pointer. */
void *strata_world_user(const strata_world_t *w) {
    STRATA_ASSERT(w != NULL);
    return w->user;
}

/* Replace the game's pointer. */
void strata_world_set_user(strata_world_t *w, void *user) {
    STRATA_ASSERT(w != NULL);
    w->user = user;
}

/* Attach or detach the step's observer. */
void strata_world_set_step_observer(strata_world_t *w, const strata_step_observer_t *o) {
    STRATA_ASSERT(w != NULL);
    w->observer = o;
}

/* The step's observer, or NULL. */
const strata_step_observer_t *strata_world_step_observer(const strata_world_t *w) {
    STRATA_ASSERT(w != NULL);
    return w->observer;
}

/* The aligned resource block, or NULL if the schema has none. */
void *strata_world_resources(strata_world_t *w) {
    STRATA_ASSERT(w != NULL);
    return w->resources;
}

/* Counts for tools and tests; pending = recorded commands + scheduled destroys. */
void strata_world_stats(const strata_world_t *w, strata_world_stats_t *out) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(out != NULL);
    out->entities = w->alive;
    out->tables = w->table_count;
    out->pending = w->cmd_count + w->doomed_count;
    out->bytes = w->bytes;
}

/* A constant English name for r. */
const char *strata_result_str(strata_result_t r) {
    switch (r) {
    case STRATA_OK: return "ok";
    case STRATA_ERR_STALE: return "stale entity";
    case STRATA_ERR_MISSING: return "missing component";
    case STRATA_ERR_NOMEM: return "out of memory";
    case STRATA_ERR_LIMIT: return "limit reached";
    case STRATA_ERR_CORRUPT: return "corrupt or foreign save";
    case STRATA_ERR_IO: return "i/o error";
    case STRATA_ERR_SCHEMA: return "save does not fit the schema";
    case STRATA_ERR_CYCLE: return "link would close a cycle";
    }
    return "unknown result";
}

/* The load's entities arrive as if created. */
void sti_hooks_loaded(strata_world_t *w) {
    sti_observe_loaded(w);
    (void)sti_command_settle(w); /* a failure keeps the hooks' commands for the next settle */
}

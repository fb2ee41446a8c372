/* bulk.c: one component added to or removed from many entities in one
 * call: an array of handles, or every entity a query matches. The call is
 * checked whole (every handle alive), its room made whole (edges, tables,
 * rows, the sparse set), then applied: a run of handles that is a whole
 * table in row order moves as one (move.c: sti_move_all_rows), the rest
 * one at a time along the cached edge. While deferred, it is recorded. */
#include "bulk.h"

#ifndef NDEBUG
/* True if c is the component of a relation (its links have functions of their own). */
static bool bulk_is_link(const strata_world_t *w, uint32_t c) {
    for (uint32_t r = 0; r < w->schema->relation_count; r++) {
        if (w->schema->relations[r].component == c) {
            return true;
        }
    }
    return false;
}
#endif

/* Value i of values, `stride` bytes apart (0: one value for all; NULL: the defaults). */
static const void *bulk_value(const void *values, size_t stride, uint32_t i) {
    return values != NULL ? (const unsigned char *)values + (size_t)i * stride : NULL;
}

/* A run of the handles that is a whole table in row order, as the check
 * found it: the passes after it read it here instead of comparing the
 * handles again. */
typedef struct bulk_run_t {
    uint32_t first; /* its first handle's place in the call's array */
    uint32_t table; /* the table's id, its count (at least two) and its moved, then */
    uint32_t count;
    uint32_t moved;
} bulk_run_t;

/* The whole-table runs of one call, in array order. */
typedef struct bulk_runs_t {
    bulk_run_t *at;
    size_t capacity;
    uint32_t count;
} bulk_runs_t;

/* The table of which entities[0..n) begins with every row, in row order
 * (at least two), or NULL. Its handles are live ones, as a table holds
 * only live entities. entities[0] is a live handle. */
static sti_table_t *bulk_whole_table(const strata_world_t *w, uint32_t n, const strata_entity_t *entities) {
    const sti_record_t *rec = &w->records[(uint32_t)entities[0]];
    sti_table_t *t = w->tables[rec->table];
    if (rec->row != 0 || t->count < 2 || t->count > n ||
        memcmp(entities, t->entities, sizeof(strata_entity_t) * t->count) != 0) {
        return NULL;
    }
    return t;
}

/* Check every handle alive, a whole table's at once, and note those runs
 * in `runs` (the caller frees them): STALE, NOMEM, or OK. */
static strata_result_t bulk_scan(strata_world_t *w, uint32_t n, const strata_entity_t *entities, bulk_runs_t *runs) {
    for (uint32_t i = 0; i < n;) {
        if (sti_record_lookup(w, entities[i]) == NULL) {
            return STRATA_ERR_STALE;
        }
        const sti_table_t *t = bulk_whole_table(w, n - i, entities + i);
        if (t == NULL) {
            i++;
            continue;
        }
        if (sti_mem_grow(w, &runs->at, sizeof *runs->at, &runs->capacity, (size_t)runs->count + 1, 8) != STRATA_OK) {
            return STRATA_ERR_NOMEM;
        }
        runs->at[runs->count++] = (bulk_run_t){i, t->id, t->count, t->moved};
        i += t->count;
    }
    return STRATA_OK;
}

/* The handles a pass takes at once from entities[i] on: a noted run's
 * count (the cursor *next moved past it), else one. Valid while no row
 * has moved since the scan. */
static uint32_t bulk_step(const bulk_runs_t *runs, uint32_t *next, uint32_t i) {
    if (*next < runs->count && runs->at[*next].first == i) {
        return runs->at[(*next)++].count;
    }
    return 1;
}

/* The table of the run noted at entities[i] if it is still whole: the
 * same table, neither a row left nor one came (a row's leaving bumps
 * moved, a coming raises count), else NULL. */
static sti_table_t *bulk_still_whole(const strata_world_t *w, const bulk_runs_t *runs, uint32_t *next,
                                     const strata_entity_t *entities, uint32_t i) {
    if (*next >= runs->count || runs->at[*next].first != i) {
        return NULL;
    }
    const bulk_run_t *run = &runs->at[(*next)++];
    sti_table_t *t = w->tables[w->records[(uint32_t)entities[i]].table];
    return t->id == run->table && t->count == run->count && t->moved == run->moved ? t : NULL;
}

/* Room for adding (or removing) table component c to (from) the n live
 * entities: the edges of their tables, and rows in the tables they go to.
 * NOMEM / LIMIT: nothing changed (tables made on the way stay, empty). */
static strata_result_t bulk_table_room(strata_world_t *w, uint32_t c, bool add, uint32_t n,
                                       const strata_entity_t *entities, const bulk_runs_t *runs) {
    uint32_t slot = add ? c : w->component_count + c, next = 0;
    for (uint32_t i = 0; i < n;) {
        sti_table_t *src = w->tables[w->records[(uint32_t)entities[i]].table];
        if (add != strata_mask_test(&src->mask, c) && src->edges[slot].table == NULL) {
            strata_result_t r = sti_table_edge(w, src, c, add, NULL);
            if (r != STRATA_OK) {
                return r;
            }
        }
        i += bulk_step(runs, &next, i);
    }
    /* How many rows each table receives (a count by table id), then room for them. */
    size_t bytes = sizeof(uint32_t) * w->table_count;
    uint32_t *receives = sti_mem_alloc(w, bytes);
    if (receives == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memset(receives, 0, bytes);
    next = 0;
    for (uint32_t i = 0; i < n;) {
        const sti_table_t *src = w->tables[w->records[(uint32_t)entities[i]].table];
        uint32_t m = bulk_step(runs, &next, i);
        if (add != strata_mask_test(&src->mask, c)) {
            receives[src->edges[slot].table->id] += m;
        }
        i += m;
    }
    strata_result_t r = STRATA_OK;
    for (uint32_t t = 0; t < w->table_count && r == STRATA_OK; t++) {
        r = receives[t] > 0 ? sti_table_reserve(w, w->tables[t], receives[t]) : STRATA_OK;
    }
    sti_mem_free(w, receives, bytes);
    return r;
}

/* Move a whole table src along its edge by c (unhooked, room made): one
 * copy a column (or a trade of storage), then the added values. */
static void bulk_move_table(strata_world_t *w, sti_table_t *src, uint32_t c, bool add, const void *values,
                            size_t stride, uint32_t first) {
    const sti_edge_t *edge = &src->edges[add ? c : w->component_count + c];
    sti_table_t *dst = edge->table;
    uint32_t n = src->count, to = sti_move_all_rows(w, src, dst, edge->plan);
    if (!add || edge->hole == STI_NO_HOLE) {
        return;
    }
    const sti_column_t *col = &dst->dense[edge->hole];
    if (values == NULL || stride == 0) {
        sti_table_fill(w, dst, to, n, 1, &c, &values); /* one value for all, or the defaults */
    } else {
        memcpy(col->data + (size_t)to * col->size, (const unsigned char *)values + (size_t)first * stride,
               (size_t)n * col->size);
    }
}

/* Apply an add (or a remove) of c to the n live entities now, their room
 * made: OK, STI_OK_HOOKED (a hook ran: the caller settles), or NOMEM when a
 * hook's creations took the room made and growing failed (the entities
 * before the failing one changed). */
static strata_result_t bulk_apply(strata_world_t *w, uint32_t c, bool add, uint32_t n, const strata_entity_t *entities,
                                  const void *values, size_t stride, const bulk_runs_t *runs) {
    strata_result_t result = STRATA_OK;
    bool sparse = sti_is_sparse(w, c);
    uint32_t next = 0;
    for (uint32_t i = 0; i < n;) {
        sti_table_t *whole = sparse ? NULL : bulk_still_whole(w, runs, &next, entities, i);
        if (whole != NULL && add != strata_mask_test(&whole->mask, c) &&
            !whole->edges[add ? c : w->component_count + c].hooked) {
            uint32_t m = whole->count;
            bulk_move_table(w, whole, c, add, values, stride, i);
            for (uint32_t j = 0; add && w->dirty_count > 0 && j < m; j++) {
                sti_mark_ids(w, entities[i + j], 1, &c);
            }
            i += m;
            continue;
        }
        sti_record_t *rec = &w->records[(uint32_t)entities[i]];
        strata_result_t r;
        if (add) {
            const void *value = bulk_value(values, stride, i);
            r = sti_move_add_fast(w, rec, c, value) ? STRATA_OK : sti_move_add_slow(w, rec, c, value);
            if (r == STRATA_OK || r == STI_OK_HOOKED) {
                sti_mark_ids(w, entities[i], 1, &c);
            }
        } else {
            r = sti_move_remove_fast(w, rec, c) ? STRATA_OK : sti_move_remove_slow(w, rec, c);
        }
        if (r == STRATA_ERR_NOMEM) {
            return r;
        }
        result = r == STI_OK_HOOKED ? r : result;
        i++;
    }
    return result;
}

/* Record an add (or a remove) of c for the n live entities (a remove only
 * for those that have c now): entries of a run, or with hooks a command
 * each; the room for all of them first (NOMEM: nothing recorded). */
static strata_result_t bulk_record(strata_world_t *w, uint32_t c, bool add, uint32_t n, const strata_entity_t *entities,
                                   const void *values, size_t stride) {
    sti_cmd_kind_t kind = add ? STI_CMD_ADD : STI_CMD_REMOVE;
    size_t each = w->has_hooks ? sti_command_bytes(w, kind, 1, 1, &c) : 0;
    size_t bytes = w->has_hooks ? each * n
                                : sti_command_run_bytes(w, add ? STI_CMD_ADD_RUN : STI_CMD_REMOVE_RUN, c) +
                                      sti_command_run_stride(w, add ? STI_CMD_ADD_RUN : STI_CMD_REMOVE_RUN, c) * n;
    if (each == 0 && w->has_hooks) {
        return STRATA_ERR_NOMEM;
    }
    strata_result_t r = sti_command_reserve(w, bytes);
    if (r != STRATA_OK) {
        return r;
    }
    for (uint32_t i = 0; i < n; i++) {
        const sti_record_t *rec = &w->records[(uint32_t)entities[i]];
        if (!add && !sti_has(w, w->tables[rec->table], rec->row, c)) {
            continue; /* a removal is recorded for what it can remove now */
        }
        const void *value = add ? bulk_value(values, stride, i) : NULL;
        if (w->has_hooks) {
            sti_command_write(w, each, kind, 1, &entities[i], 1, &c, &value);
        } else if (!sti_command_run_join(w, add ? STI_CMD_ADD_RUN : STI_CMD_REMOVE_RUN, entities[i], c, value)) {
            (void)sti_command_run(w, add ? STI_CMD_ADD_RUN : STI_CMD_REMOVE_RUN, entities[i], c, value); /* room made */
        }
    }
    return STRATA_OK;
}

/* An add (or remove) of c for n live entities: recorded while deferred,
 * else room made whole and applied. MISSING: a remove none of them needed. */
static strata_result_t bulk_change(strata_world_t *w, uint32_t c, bool add, uint32_t n, const strata_entity_t *entities,
                                   const void *values, size_t stride, const bulk_runs_t *runs) {
    bool any = add;
    for (uint32_t i = 0; !any && i < n; i++) {
        const sti_record_t *rec = &w->records[(uint32_t)entities[i]];
        any = sti_has(w, w->tables[rec->table], rec->row, c);
    }
    if (!any) {
        return STRATA_ERR_MISSING;
    }
    if (sti_deferred(w)) {
        return bulk_record(w, c, add, n, entities, values, stride);
    }
    strata_result_t r = STRATA_OK;
    if (sti_is_sparse(w, c)) {
        uint32_t indices = 0;
        for (uint32_t i = 0; add && i < n; i++) {
            indices = (uint32_t)entities[i] + 1 > indices ? (uint32_t)entities[i] + 1 : indices;
        }
        r = add ? sti_sparse_reserve(w, w->sparse_plane[c], indices, n) : STRATA_OK;
    } else {
        r = bulk_table_room(w, c, add, n, entities, runs);
    }
    if (r != STRATA_OK) {
        return r;
    }
    r = bulk_apply(w, c, add, n, entities, values, stride, runs);
    if (r == STI_OK_HOOKED) {
        (void)sti_command_settle(w); /* what the hooks recorded; a failure keeps it for the next settle */
        r = STRATA_OK;
    }
    sti_settle_sets(w);
    return r;
}

/* Every handle checked before anything changes. */
static strata_result_t bulk_entry(strata_world_t *w, uint32_t c, bool add, uint32_t n, const strata_entity_t *entities,
                                  const void *values) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(c < w->component_count);
    STRATA_ASSERT(entities != NULL || n == 0);
    STRATA_ASSERT(!bulk_is_link(w, c)); /* a relation's links: strata_relation_set, _add, _remove */
    bulk_runs_t runs = {0};
    strata_result_t r = bulk_scan(w, n, entities, &runs);
    if (r == STRATA_OK) {
        r = n == 0 ? (add ? STRATA_OK : STRATA_ERR_MISSING)
                   : bulk_change(w, c, add, n, entities, values, w->components[c].size, &runs);
    }
    sti_mem_free(w, runs.at, sizeof *runs.at * runs.capacity);
    return r;
}

strata_result_t strata_bulk_add(strata_world_t *w, uint32_t c, uint32_t n, const strata_entity_t *entities,
                                const void *values) {
    return bulk_entry(w, c, true, n, entities, values);
}

strata_result_t strata_bulk_remove(strata_world_t *w, uint32_t c, uint32_t n, const strata_entity_t *entities) {
    return bulk_entry(w, c, false, n, entities, NULL);
}

/* --- Every entity a query matches ---------------------------------------------- */

/* The entities query q matches now, in its tables' order and row order,
 * into out[0..), which has room for strata_query_count of them; their number. */
static uint32_t bulk_gather(const strata_world_t *w, uint32_t q, strata_entity_t *out) {
    const sti_query_cache_t *cache = &w->queries[q];
    const sti_sparse_terms_t *terms = sti_sparse_terms(w, q);
    uint32_t at = 0;
    for (uint32_t i = 0; i < cache->live; i++) { /* the tables with rows */
        const sti_table_t *t = cache->tables[i];
        if (terms == NULL) {
            memcpy(out + at, t->entities, sizeof(strata_entity_t) * t->count);
            at += t->count;
            continue;
        }
        for (uint32_t word = 0, words = sti_sparse_may_match(t, terms) ? (t->count + 63) / 64 : 0; word < words;
             word++) {
            for (uint64_t x = sti_sparse_word(w, t, terms, 0, word, t->count); x != 0; x &= x - 1) {
                out[at++] = t->entities[word * 64 + (uint32_t)__builtin_ctzll(x)];
            }
        }
    }
    return at;
}

/* An add (value: one for all, NULL: the defaults) or a remove of c for
 * every entity q matches now, gathered into a list first (the world's,
 * kept for the next call; a batch's view, which must not write the
 * world's, gathers into one of its own). */
static strata_result_t bulk_query(strata_world_t *w, uint32_t q, uint32_t c, bool add, const void *value) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(q < w->schema->query_count);
    STRATA_ASSERT(c < w->component_count);
    STRATA_ASSERT(!bulk_is_link(w, c)); /* a relation's links: strata_relation_set, _add, _remove */
    uint32_t n = strata_query_count(w, q);
    strata_entity_t *list = w->bulk;
    size_t capacity = w->bulk_capacity;
    bool own = w->slot != NULL;
    if (own) {
        list = NULL, capacity = 0;
    }
    strata_result_t r = sti_mem_grow(w, &list, sizeof(strata_entity_t), &capacity, n, 64);
    if (r == STRATA_OK && !own) {
        w->bulk = list, w->bulk_capacity = capacity;
    }
    bulk_runs_t runs = {0};
    if (r == STRATA_OK && n > 0) {
        n = bulk_gather(w, q, list);
        r = bulk_scan(w, n, list, &runs); /* all alive: the runs */
    }
    if (r == STRATA_OK && n > 0) {
        r = bulk_change(w, c, add, n, list, value, 0, &runs);
    }
    sti_mem_free(w, runs.at, sizeof *runs.at * runs.capacity);
    if (own) {
        sti_mem_free(w, list, sizeof(strata_entity_t) * capacity);
    }
    return r == STRATA_ERR_MISSING ? STRATA_OK : r;
}

strata_result_t strata_query_add(strata_world_t *w, uint32_t q, uint32_t c, const void *value) {
    return bulk_query(w, q, c, true, value);
}

strata_result_t strata_query_remove(strata_world_t *w, uint32_t q, uint32_t c) {
    return bulk_query(w, q, c, false, NULL);
}

void sti_bulk_free(strata_world_t *w) {
    sti_mem_free(w, w->bulk, sizeof(strata_entity_t) * w->bulk_capacity);
}

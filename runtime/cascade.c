/* cascade.c: cascade passes: a query's rows in batches by depth, parents
 * before children, each batch with its parents' rows; the tables sorted by
 * depth in place; the pass saved and replayed while the hierarchy holds.
 * docs/relations.md ("Cascade", "The saved pass") describes them. */
#include "cascade.h"

#include <stdlib.h>


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
 * no link of the relation has changed (`links`), no table of the query has
 * gained its first row, none was freed, and the runs were sorted if this
 * pass may sort) takes the runs as
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
    uint32_t tables; /* the query's tables with rows then (the first part of its list: those it stamps) */
    uint32_t epoch;  /* the world's table_epoch then: a table freed since, and the ids may name others */
    bool built;      /* the runs and the stamps of the query's tables are whole */
    bool filling;    /* this pass writes the parents' rows into `parents` */
    bool saving;     /* ... and saves its batches (no allocation has failed) */
    bool saved;      /* the last pass was saved, whole */
    bool sorted;     /* it could sort the tables */
    bool replay;     /* this pass replays the saved one */
} cascade_list_t;

/* --- Runs of equal depth -------------------------------------------------------- */

/* The depth in the link column `links` (component size `size`) at row i. */
static uint32_t cascade_depth_at(const unsigned char *links, size_t size, uint32_t i) {
    return sti_link_depth(links + (size_t)i * size);
}

/* The stable order of n rows by depth (counting sort; `counts`: top + 2
 * zeroed entries): order[new row] = old row. */
static void cascade_order(const unsigned char *links, size_t size, uint32_t n, uint32_t top, uint32_t *counts,
                          uint32_t *order) {
    for (uint32_t i = 0; i < n; i++) {
        counts[cascade_depth_at(links, size, i) + 1]++;
    }
    for (uint32_t d = 0; d <= top; d++) {
        counts[d + 1] += counts[d];
    }
    for (uint32_t i = 0; i < n; i++) {
        order[counts[cascade_depth_at(links, size, i)]++] = i;
    }
}

/* Put t's rows in `order` (order[new row] = old row): every column, the
 * handles, the changed sets' and sparse components' bits and the records'
 * rows, through scratch (a row of the widest column for each row). */
static void cascade_permute(strata_world_t *w, sti_table_t *t, const uint32_t *order, unsigned char *scratch) {
    uint32_t n = t->count;
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
    if (t->sparse_any != 0) { /* and the sparse components' */
        sti_sparse_permute(w, t, order, n, (uint64_t *)(void *)scratch);
    }
    for (uint32_t i = 0; i < n; i++) {
        w->records[strata_entity_index(t->entities[i])].row = i;
    }
    t->moved++;
}

/* Reorder t's rows by depth, stably. Out of memory it leaves t as it was. */
static void cascade_sort(strata_world_t *w, sti_table_t *t, const unsigned char *links, size_t size) {
    uint32_t n = t->count, top = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t depth = cascade_depth_at(links, size, i);
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
        cascade_order(links, size, n, top, counts, order);
        cascade_permute(w, t, order, scratch);
    }
    sti_mem_free(w, counts, counts_size);
    sti_mem_free(w, order, order_size);
    sti_mem_free(w, scratch, scratch_size);
}

/* The first row from `row` on (below `count`) whose depth is not `depth`,
 * or count. Four depths a step, one branch for them: a settled table is
 * one long run a depth. */
static uint32_t cascade_run_end(const unsigned char *links, size_t size, uint32_t row, uint32_t count, uint32_t depth) {
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
    while (row < count && cascade_depth_at(links, size, row) == depth) {
        row++;
    }
    return row;
}

/* Append t's runs of equal depth to list (links: t's column of the
 * relation, NULL if t lacks it: one run at depth 0). With `check`, stop at
 * a depth lower than the one before and take t's runs back: 0 (t is not
 * in order). 1 when done, -1 out of memory. */
static int cascade_table_runs(strata_world_t *w, const sti_table_t *t, const unsigned char *links, size_t size,
                              cascade_list_t *list, bool check) {
    uint32_t first = list->count;
    for (uint32_t start = 0; start < t->count;) {
        uint32_t depth = links != NULL ? cascade_depth_at(links, size, start) : 0;
        uint32_t end = links != NULL ? cascade_run_end(links, size, start + 1, t->count, depth) : t->count;
        if (check && end < t->count && cascade_depth_at(links, size, end) < depth) {
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
static int cascade_run_compare(const void *a, const void *b) {
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

/* Append table t's runs to the list being built (sorting t first when
 * `sort` and it is out of order); out of memory, empty the list and make
 * it a walk: true (stop). */
static bool cascade_table_order(strata_world_t *w, cascade_list_t *list, sti_table_t *t, bool sort) {
    uint32_t c = w->schema->relations[list->relation].component;
    size_t size = w->components[c].size;
    const unsigned char *links = t->columns[c];
    /* One scan of a table in order (a settled hierarchy's) finds its runs. */
    int res = cascade_table_runs(w, t, links, size, list, sort);
    if (res == 0) {
        cascade_sort(w, t, links, size); /* out of memory it stays as it was: its runs as they fall */
        res = cascade_table_runs(w, t, links, size, list, false);
    }
    if (res < 0) {
        list->count = 0;
        list->walk = true;
        list->walk_relation = list->relation;
        list->walk_next = UINT32_MAX;
    }
    return res < 0;
}

/* Query q's batches in cascade order of relation r, each table's rows
 * sorted by depth first when `sort`, and the stamps of its tables: NOMEM
 * leaves the list empty (a walk), or not built for the next pass. */
static void cascade_build(strata_world_t *w, uint32_t q, uint32_t r, bool sort) {
    cascade_list_t *list = &w->cascades->lists[q];
    const sti_query_cache_t *cache = &w->queries[q];
    *list = (cascade_list_t){
        /* What the list owns stays; every count and flag starts again. */
        .runs = list->runs,
        .capacity = list->capacity,
        .up = list->up,
        .relation = r,
        .batches = list->batches,
        .batch_capacity = list->batch_capacity,
        .parents = list->parents,
        .parent_capacity = list->parent_capacity,
        .stamps = list->stamps,
        .stamp_capacity = list->stamp_capacity,
        .links = w->cascades->links[r],
        .tables = cache->live,
        .epoch = w->table_epoch,
        .sorted = sort,
    };
    for (uint32_t i = 0; i < list->tables && !cascade_table_order(w, list, cache->tables[i], sort); i++) {}
    if (list->count > 1) { /* (no runs: no array, and qsort takes none) */
        qsort(list->runs, list->count, sizeof(cascade_run_t), cascade_run_compare);
    }
    /* The tables as this pass leaves them, for the next to compare. */
    list->built = !list->walk && sti_mem_grow(w, &list->stamps, sizeof(cascade_stamp_t), &list->stamp_capacity,
                                              list->tables, 8) == STRATA_OK;
    for (uint32_t i = 0; list->built && i < list->tables; i++) {
        list->stamps[list->stamp_count++] = (cascade_stamp_t){.table = cache->tables[i]->id,
                                                              .moved = cache->tables[i]->moved,
                                                              .count = cache->tables[i]->count};
    }
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
    if (!list->built || list->relation != r || list->links != w->cascades->links[r] ||
        list->tables != w->queries[q].live || list->epoch != w->table_epoch || (sort && !list->sorted)) {
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
    STRATA_ASSERT(r < w->schema->relation_count && w->schema->relations[r].exclusive);
    STRATA_ASSERT(w->cascades != NULL);
    STRATA_ASSERT(sti_sparse_terms(w, q) == NULL); /* a cascade's batches are whole runs of a table's rows */
    /* Rows may move only when no scope is open: nothing is iterating them. */
    bool sort = !sti_deferred(w);
    strata_iter_t it = strata_iter(w, q);
    cascade_list_t *list = &w->cascades->lists[q];
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
        for (; list->walk_table < cache->live; list->walk_table++, list->walk_row = 0) {
            const sti_table_t *t = cache->tables[list->walk_table];
            const unsigned char *links = t->columns[c];
            while (list->walk_row < t->count) {
                uint32_t start = list->walk_row, depth = links != NULL ? cascade_depth_at(links, size, start) : 0;
                uint32_t end = start + 1;
                while (end < t->count && (links != NULL ? cascade_depth_at(links, size, end) : 0) == depth) {
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
    const sti_record_t *first = sti_record_lookup(w, sti_link_target(links + (size_t)row * size));
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
        const sti_record_t *a = &records[strata_entity_index(sti_link_target(link))];
        const sti_record_t *b = &records[strata_entity_index(sti_link_target(link + size))];
        const sti_record_t *c = &records[strata_entity_index(sti_link_target(link + 2 * size))];
        const sti_record_t *d = &records[strata_entity_index(sti_link_target(link + 3 * size))];
        if (((a->table ^ in) | (b->table ^ in) | (c->table ^ in) | (d->table ^ in)) != 0) {
            break;
        }
        up[i] = a->row;
        up[i + 1] = b->row;
        up[i + 2] = c->row;
        up[i + 3] = d->row;
    }
    for (; i < n; i++, link += size) {
        const sti_record_t *rec = &records[strata_entity_index(sti_link_target(link))];
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
        if (i >= t->count || (links != NULL ? cascade_depth_at(links, size, i) : 0) != depth) {
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
            if (link != NULL && sti_link_depth(link) != 0) {
                return false;
            }
            continue;
        }
        const sti_record_t *rec = link != NULL ? sti_record_lookup(w, sti_link_target(link)) : NULL;
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

/* The run the next batch comes from, started when the last one is
 * handed out (from the list, or the walk); false when the pass is over. */
static bool cascade_next_run(strata_iter_t *it, cascade_list_t *list) {
    if (list->done < list->current.count) {
        return true;
    }
    list->done = 0;
    list->current.count = 0;
    if (it->cursor < list->count) {
        list->current = list->runs[it->cursor++];
        return true;
    }
    return list->walk && cascade_walk(it->world, list, it->query, &list->current);
}

/* Point the iterator at the parents of batch [row, row + *n) of t (at
 * `depth`), cutting *n where they leave the first one's table; returns
 * the parents' table, CASCADE_NO_TABLE for roots. */
static uint32_t cascade_batch_parents(strata_iter_t *it, cascade_list_t *list, const sti_table_t *t, uint32_t row,
                                      uint32_t *n, uint32_t depth) {
    const strata_world_t *w = it->world;
    uint32_t up_table = CASCADE_NO_TABLE;
    it->up_row = NULL;
    it->up_columns = NULL;
    if (depth > 0) {
        uint32_t c = w->schema->relations[list->relation].component;
        uint32_t *up = list->filling ? list->parents + list->parent_count : list->up != NULL ? list->up : &list->up_one;
        *n = cascade_parents(w, up, t->columns[c], w->components[c].size, row, *n, &up_table);
        if (up_table != CASCADE_NO_TABLE) {
            it->up_row = up;
            it->up_columns = w->tables[up_table]->columns;
        }
    }
    return up_table;
}

bool strata_iter_cascade_next(strata_iter_t *it) {
    STRATA_ASSERT(it != NULL && it->world != NULL);
    strata_world_t *w = it->world;
    if (!it->open) {
        return false;
    }
    cascade_list_t *list = &w->cascades->lists[it->query];
    if (list->replay) {
        return cascade_replay_next(it, list);
    }
    if (!cascade_next_run(it, list)) {
        list->saved = list->saving; /* the whole pass went by */
        (void)strata_iter_end(it);  /* as strata_iter_next: a failed settle keeps its commands */
        return false;
    }
    const cascade_run_t *run = &list->current;
    const sti_table_t *t = w->tables[run->table];
    uint32_t row = run->row + list->done, n = run->count - list->done;
    uint32_t most = list->filling || list->up != NULL ? CASCADE_CHUNK : 1;
    n = n < most ? n : most;
#ifndef NDEBUG
    STRATA_ASSERT(cascade_run_true(w, list, t, row, n, run->depth));
#endif
    uint32_t up_table = cascade_batch_parents(it, list, t, row, &n, run->depth);
    if (list->saving) {
        cascade_save(w, list, t->id, row, n, up_table);
    }
    list->parent_count += list->filling && up_table != CASCADE_NO_TABLE ? n : 0;
    list->done += n;
    return cascade_hand(it, t, row, n);
}


/* --- The world's part ---------------------------------------------------------- */

strata_result_t sti_cascade_init(strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    if (s->relation_count == 0) {
        return STRATA_OK;
    }
    w->cascades = sti_mem_alloc(w, sizeof(struct sti_cascades_t));
    if (w->cascades == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memset(w->cascades, 0, sizeof(struct sti_cascades_t));
    if (s->query_count > 0) {
        w->cascades->lists = sti_mem_alloc(w, sizeof(cascade_list_t) * s->query_count);
        if (w->cascades->lists == NULL) {
            return STRATA_ERR_NOMEM;
        }
        memset(w->cascades->lists, 0, sizeof(cascade_list_t) * s->query_count);
    }
    return STRATA_OK;
}

void sti_cascade_forget(strata_world_t *w) {
    for (uint32_t q = 0; w->cascades != NULL && w->cascades->lists != NULL && q < w->schema->query_count; q++) {
        w->cascades->lists[q].built = false;
        w->cascades->lists[q].saved = false;
    }
}

void sti_cascade_free(strata_world_t *w) {
    if (w->cascades == NULL) {
        return;
    }
    for (uint32_t q = 0; w->cascades->lists != NULL && q < w->schema->query_count; q++) {
        cascade_list_t *list = &w->cascades->lists[q];
        sti_mem_free(w, list->runs, sizeof(cascade_run_t) * list->capacity);
        sti_mem_free(w, list->up, sizeof(uint32_t) * CASCADE_CHUNK);
        sti_mem_free(w, list->batches, sizeof(cascade_batch_t) * list->batch_capacity);
        sti_mem_free(w, list->parents, sizeof(uint32_t) * list->parent_capacity);
        sti_mem_free(w, list->stamps, sizeof(cascade_stamp_t) * list->stamp_capacity);
    }
    sti_mem_free(w, w->cascades->lists, sizeof(cascade_list_t) * w->schema->query_count);
    sti_mem_free(w, w->cascades, sizeof(struct sti_cascades_t));
    w->cascades = NULL;
}

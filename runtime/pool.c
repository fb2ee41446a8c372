/* pool.c: the worker pool and the running of a batch (pool.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* sysconf */
#endif
#include "pool.h"

#include "event.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

/* What one slot runs: a system, or one chunk of a split one. */
typedef struct pool_task_t {
    uint32_t item;           /* index in the batch's items */
    const sti_table_t *from; /* a chunk's table (NULL: the whole system) */
    uint32_t row, count;     /* a chunk's rows */
} pool_task_t;

/* A write of a tracked component made in a view: marked when the batch ends. */
typedef struct pool_mark_t {
    strata_entity_t e;
    uint32_t c;
} pool_mark_t;

/* One view of the world and what the system run against it recorded. Its
 * buffers (in `view`: commands, scratch, destroys; spawns) are kept from
 * batch to batch, so a steady game does not allocate. */
struct sti_slot_t {
    strata_world_t view;
    pool_task_t task;
    sti_query_cache_t *queries; /* a chunk's copy of the query lists, its own query's replaced */
    sti_table_t *table;         /* a chunk's table: the rows it visits (count, entities, columns) */
    sti_table_t *const *list;   /* the one-table list of its query */
    void **columns;             /* by column id: the chunk's first row of each column */
    strata_iter_table_t entry;  /* the one table visit of its query (what a generated next walks) */
    unsigned char *spawns;      /* recorded creations: spawn records, 8-byte aligned */
    size_t spawn_size;
    size_t spawn_capacity;
    sti_event_buf_t *events; /* its staging buffers: the view's emits (NULL without events) */
    pool_mark_t *marks;      /* set / mut / mark of tracked components, in call order */
    uint32_t mark_count;
    size_t mark_capacity;
    bool tracking;         /* the world has changed sets or on_set hooks: marks are recorded */
    strata_result_t error; /* NOMEM when a mark could not be recorded */
};

struct sti_pool_t {
    pthread_t *threads; /* the workers (threads - 1) */
    uint32_t workers;
    pthread_mutex_t lock;
    pthread_cond_t wake; /* a job is posted, or quit */
    pthread_cond_t idle; /* the last worker finished a job */
    uint64_t job;        /* jobs posted; a worker runs each once */
    uint32_t busy;       /* workers not yet done with the current job */
    bool quit;
    uint32_t chunk_rows; /* desc.chunk_rows */
    /* The current job: slots[order[i]] for i in [0, shared), taken by whoever comes first. */
    sti_slot_t **slots;
    const uint32_t *order;
    atomic_uint next;
    uint32_t shared;
    strata_system_fn_t run;
    float dt;
    /* The prepared batch (sti_pool_prepare): its items, and its tasks a
     * slot each, slot_list[0, task_count), the caller's own (main_thread)
     * from `mine` on. */
    const strata_batch_item_t *items;
    uint32_t item_count;
    uint32_t task_count;
    uint32_t mine;
    /* Kept from batch to batch (allocated by the caller's thread). */
    sti_slot_t **slot_list;
    uint32_t slot_count;
    size_t slot_capacity;
    uint32_t *order_list;
    size_t order_capacity;
    pool_task_t *tasks;
    size_t task_capacity;
    sti_event_buf_t **staged; /* one system's slots' staging buffers, for sti_events_merge */
    size_t staged_capacity;
    strata_batch_item_t *item_buf; /* sti_pool_items: a step's batch, its enabled systems */
    size_t item_capacity;
};

/* The threads a desc asks for, the caller's included. */
static uint32_t pool_threads_wanted(uint32_t threads) {
    if (threads == STRATA_THREADS_PER_CORE) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        return cores > 1 ? (uint32_t)(cores < 256 ? cores : 256) : 1;
    }
    return threads == 0 ? 1 : threads;
}

/* Run the slot's system (or chunk) against its view. */
static void pool_run_slot(sti_pool_t *p, sti_slot_t *s) {
    const strata_batch_item_t *item = &p->items[s->task.item];
    p->run(&s->view, item->system, p->dt);
}

/* Take and run slots of the current job until none is left. */
static void pool_drain(sti_pool_t *p) {
    for (;;) {
        unsigned i = atomic_fetch_add_explicit(&p->next, 1u, memory_order_relaxed);
        if (i >= p->shared) {
            return;
        }
        pool_run_slot(p, p->slots[p->order[i]]);
    }
}

/* A worker: sleep until a job is posted, help with it, report, again. */
static void *pool_worker(void *arg) {
    sti_pool_t *p = arg;
    uint64_t seen = 0;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        while (!p->quit && p->job == seen) {
            pthread_cond_wait(&p->wake, &p->lock);
        }
        if (p->quit) {
            pthread_mutex_unlock(&p->lock);
            return NULL;
        }
        seen = p->job;
        pthread_mutex_unlock(&p->lock);
        pool_drain(p);
        pthread_mutex_lock(&p->lock);
        if (--p->busy == 0) {
            pthread_cond_signal(&p->idle);
        }
        pthread_mutex_unlock(&p->lock);
    }
}

/* Stop the first `started` workers and wait for them. */
static void pool_stop(sti_pool_t *p, uint32_t started) {
    pthread_mutex_lock(&p->lock);
    p->quit = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (uint32_t i = 0; i < started; i++) {
        pthread_join(p->threads[i], NULL);
    }
}

strata_result_t sti_pool_create(strata_world_t *w, uint32_t threads, uint32_t chunk_rows) {
    sti_pool_t *p = sti_mem_alloc(w, sizeof *p);
    if (p == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memset(p, 0, sizeof *p);
    atomic_init(&p->next, 0u);
    w->pool = p;
    p->chunk_rows = chunk_rows != 0 ? chunk_rows : STRATA_CHUNK_ROWS;
    /* The step's largest batch: its items are made without allocating (reserve, then commit). */
    const strata_schedule_t *s = w->schema->schedule;
    uint32_t largest = 1;
    for (uint32_t b = 0; s != NULL && b < s->batch_count; b++) {
        largest = s->batches[b].count > largest ? s->batches[b].count : largest;
    }
    if (sti_pool_items(w, largest) == NULL) {
        return STRATA_ERR_NOMEM;
    }
    p->workers = pool_threads_wanted(threads) - 1;
    if (p->workers == 0) {
        return STRATA_OK;
    }
    p->threads = sti_mem_alloc(w, sizeof(pthread_t) * p->workers);
    if (p->threads == NULL) {
        p->workers = 0;
        return STRATA_ERR_NOMEM;
    }
    if (pthread_mutex_init(&p->lock, NULL) != 0 || pthread_cond_init(&p->wake, NULL) != 0 ||
        pthread_cond_init(&p->idle, NULL) != 0) {
        /* Never seen with default attributes; the pool goes on without threads. */
        sti_mem_free(w, p->threads, sizeof(pthread_t) * p->workers);
        p->threads = NULL;
        p->workers = 0;
        return STRATA_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < p->workers; i++) {
        if (pthread_create(&p->threads[i], NULL, pool_worker, p) != 0) {
            pool_stop(p, i);
            p->quit = false;
            pthread_cond_destroy(&p->wake);
            pthread_cond_destroy(&p->idle);
            pthread_mutex_destroy(&p->lock);
            sti_mem_free(w, p->threads, sizeof(pthread_t) * p->workers);
            p->threads = NULL;
            p->workers = 0;
            return STRATA_ERR_NOMEM;
        }
    }
    return STRATA_OK;
}

/* Free a slot's buffers and the slot. */
static void pool_slot_free(strata_world_t *w, sti_slot_t *s) {
    sti_mem_free(w, s->view.cmds, s->view.cmd_capacity);
    sti_mem_free(w, s->view.scratch, s->view.scratch_capacity);
    sti_mem_free(w, s->view.doomed, sizeof(strata_entity_t) * s->view.doomed_capacity);
    sti_mem_free(w, s->spawns, s->spawn_capacity);
    sti_events_unstage(w, s->events);
    sti_mem_free(w, s->marks, sizeof(pool_mark_t) * s->mark_capacity);
    sti_mem_free(w, s->queries, sizeof(sti_query_cache_t) * w->schema->query_count);
    sti_mem_free(w, s->table, sizeof(sti_table_t));
    sti_mem_free(w, s->columns, sizeof(void *) * w->column_id_count);
    sti_mem_free(w, s, sizeof *s);
}

void sti_pool_free(strata_world_t *w) {
    sti_pool_t *p = w->pool;
    if (p == NULL) {
        return;
    }
    if (p->threads != NULL) {
        pool_stop(p, p->workers);
        pthread_cond_destroy(&p->wake);
        pthread_cond_destroy(&p->idle);
        pthread_mutex_destroy(&p->lock);
        sti_mem_free(w, p->threads, sizeof(pthread_t) * p->workers);
    }
    for (uint32_t i = 0; i < p->slot_count; i++) {
        pool_slot_free(w, p->slot_list[i]);
    }
    sti_mem_free(w, p->slot_list, sizeof(sti_slot_t *) * p->slot_capacity);
    sti_mem_free(w, p->order_list, sizeof(uint32_t) * p->order_capacity);
    sti_mem_free(w, p->tasks, sizeof(pool_task_t) * p->task_capacity);
    sti_mem_free(w, p->staged, sizeof(sti_event_buf_t *) * p->staged_capacity);
    sti_mem_free(w, p->item_buf, sizeof(strata_batch_item_t) * p->item_capacity);
    sti_mem_free(w, p, sizeof *p);
    w->pool = NULL;
}

uint32_t strata_world_threads(const strata_world_t *w) {
    STRATA_ASSERT(w != NULL);
    return w->pool != NULL ? w->pool->workers + 1 : 1;
}

bool strata_in_batch(const strata_world_t *w) {
    STRATA_ASSERT(w != NULL);
    return w->slot != NULL;
}

/* --- Spawns: entities created inside a batch -------------------------- */

/* A recorded creation: n entities with the components ids[0..k), then each
 * non-tag value's bytes in id order; padded to 8 bytes. */
typedef struct pool_spawn_t {
    size_t size; /* bytes of the record */
    uint32_t n;
    uint32_t k;
} pool_spawn_t;

strata_result_t sti_pool_spawn(strata_world_t *w, uint32_t n, uint32_t k, const uint32_t *ids,
                               const void *const *values, strata_entity_t *out) {
    sti_slot_t *s = w->slot;
    size_t bytes = sizeof(pool_spawn_t) + sizeof(uint32_t) * (size_t)k;
    for (uint32_t i = 0; i < k; i++) {
        bytes += w->components[ids[i]].size;
    }
    bytes = (bytes + 7) & ~(size_t)7;
    strata_result_t r = sti_mem_grow(w, &s->spawns, 1, &s->spawn_capacity, s->spawn_size + bytes, 256);
    if (r != STRATA_OK) {
        return r;
    }
    unsigned char *at = s->spawns + s->spawn_size;
    *(pool_spawn_t *)(void *)at = (pool_spawn_t){.size = bytes, .n = n, .k = k};
    uint32_t *to_ids = (uint32_t *)(void *)(at + sizeof(pool_spawn_t));
    unsigned char *to = (unsigned char *)(to_ids + k);
    for (uint32_t i = 0; i < k; i++) {
        to_ids[i] = ids[i];
        if (w->components[ids[i]].size > 0) {
            sti_value_write(w, to, ids[i], values != NULL ? values[i] : NULL);
            to += w->components[ids[i]].size;
        }
    }
    s->spawn_size += bytes;
    for (uint32_t i = 0; i < n; i++) {
        out[i] = STRATA_ENTITY_NULL;
    }
    return STRATA_OK;
}

bool sti_pool_spawn_next(const strata_world_t *w, uint32_t task, size_t *at, sti_spawn_t *out) {
    const sti_slot_t *s = w->pool->slot_list[task];
    if (*at >= s->spawn_size) {
        return false;
    }
    const pool_spawn_t *sp = (const pool_spawn_t *)(const void *)(s->spawns + *at);
    const uint32_t *ids = (const uint32_t *)(const void *)(s->spawns + *at + sizeof(pool_spawn_t));
    const unsigned char *v = (const unsigned char *)(ids + sp->k);
    out->n = sp->n;
    out->k = sp->k;
    out->ids = ids;
    for (uint32_t i = 0; i < sp->k; i++) {
        out->values[i] = v;
        v += w->components[ids[i]].size;
    }
    *at += sp->size;
    return true;
}

/* --- Running a batch --------------------------------------------------- */

/* The slot for task i, made on first use (chunk parts too if it is a chunk). */
static sti_slot_t *pool_slot(strata_world_t *w, uint32_t i, bool chunk) {
    sti_pool_t *p = w->pool;
    if (i == p->slot_count) {
        if (sti_mem_grow(w, &p->slot_list, sizeof(sti_slot_t *), &p->slot_capacity, (size_t)i + 1, 8) != STRATA_OK) {
            return NULL;
        }
        sti_slot_t *s = sti_mem_alloc(w, sizeof *s);
        if (s == NULL) {
            return NULL;
        }
        memset(s, 0, sizeof *s);
        p->slot_list[p->slot_count++] = s;
    }
    sti_slot_t *s = p->slot_list[i];
    if (w->schema->event_count > 0 && s->events == NULL && sti_events_stage(w, &s->events) != STRATA_OK) {
        return NULL;
    }
    if (chunk && s->table == NULL) {
        size_t qbytes = sizeof(sti_query_cache_t) * w->schema->query_count;
        s->queries = sti_mem_alloc(w, qbytes);
        s->columns = s->queries != NULL ? sti_mem_alloc(w, sizeof(void *) * w->column_id_count) : NULL;
        s->table = s->columns != NULL ? sti_mem_alloc(w, sizeof(sti_table_t)) : NULL;
        if (s->table == NULL) {
            return NULL; /* what was allocated stays with the slot and is freed with it */
        }
        memset(s->table, 0, sizeof(sti_table_t));
        s->table->columns = s->columns;
        s->list = (sti_table_t *const *)&s->table;
    }
    return s;
}

/* Set up slot s's view for its task: a copy of the world with its own
 * buffers, its deferral scope open, no changed set to feed (the caller
 * marks the rows afterwards), its emits staged unless it is the batch's
 * `first`, and for a chunk a query list of one table that holds the
 * chunk's rows. */
static void pool_view(strata_world_t *w, sti_slot_t *s, const strata_batch_item_t *item, bool first) {
    strata_world_t *v = &s->view;
    unsigned char *cmds = v->cmds, *scratch = v->scratch;
    size_t cmd_capacity = v->cmd_capacity, scratch_capacity = v->scratch_capacity;
    strata_entity_t *doomed = v->doomed;
    size_t doomed_capacity = v->doomed_capacity;
    *v = *w;
    v->cmds = cmds;
    v->cmd_capacity = cmd_capacity;
    v->cmd_size = 0;
    v->cmd_count = 0;
    v->cmd_last = 0;
    v->scratch = scratch;
    v->scratch_capacity = scratch_capacity;
    v->doomed = doomed;
    v->doomed_capacity = doomed_capacity;
    v->doomed_count = 0;
    v->bytes = 0; /* what the view allocates, added to the world's count afterwards */
    v->defer_depth = 1;
    v->sparse_now = 0;
    v->settling = false;
    v->dirty_count = 0;
    v->event_position = item->position;
    /* The first view's events come first, and no view of the batch receives
     * what it emits: it writes the world's buffers, the others stage theirs
     * (emptied by the last merge) for the merge to append after. */
    v->event_staged = first ? NULL : s->events;
    v->event_lost = false;
    v->slot = s;
    s->spawn_size = 0;
    s->mark_count = 0;
    s->tracking = w->dirty_count > 0;
    s->error = STRATA_OK;
    const pool_task_t *t = &s->task;
    if (t->from == NULL) {
        return;
    }
    memcpy(s->queries, w->queries, sizeof(sti_query_cache_t) * w->schema->query_count);
    s->entry = (strata_iter_table_t){&s->table->count, &s->table->entities, s->columns};
    s->queries[item->query] = (sti_query_cache_t){.tables = (sti_table_t **)(void *)s->list,
                                                  .entries = &s->entry,
                                                  .count = 1,
                                                  .live = 1,
                                                  .capacity = 1,
                                                  .entry_capacity = 1};
    v->queries = s->queries;
    s->table->count = t->count;
    s->table->entities = t->from->entities + t->row;
    for (uint32_t c = 0; c < w->column_id_count; c++) {
        unsigned char *col = t->from->columns[c];
        s->columns[c] = col != NULL ? col + (size_t)w->components[c].size * t->row : NULL;
    }
}

/* The tasks of a batch: one a system, one a chunk of a split system's
 * rows (each non-empty table, cut every chunk_rows rows), in order. */
static strata_result_t pool_tasks(strata_world_t *w, const strata_batch_item_t *items, uint32_t count, uint32_t *out) {
    sti_pool_t *p = w->pool;
    const uint32_t chunk = p->chunk_rows;
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++) {
        const strata_batch_item_t *item = &items[i];
        uint32_t need = 1;
        if (item->query != STRATA_NO_QUERY) {
            w->queries[item->query].written = w->snap_clock; /* its views may write its rows (snapshot.c) */
        }
        if (item->parallel) {
            const sti_query_cache_t *q = &w->queries[item->query];
            need = 0;
            for (uint32_t k = 0; k < q->live; k++) {
                need += (q->tables[k]->count + chunk - 1) / chunk;
            }
        }
        if (sti_mem_grow(w, &p->tasks, sizeof(pool_task_t), &p->task_capacity, (size_t)n + need, 16) != STRATA_OK) {
            return STRATA_ERR_NOMEM;
        }
        if (!item->parallel) {
            p->tasks[n++] = (pool_task_t){.item = i};
            continue;
        }
        const sti_query_cache_t *q = &w->queries[item->query];
        for (uint32_t k = 0; k < q->live; k++) {
            const sti_table_t *t = q->tables[k];
            for (uint32_t row = 0; row < t->count; row += chunk) {
                uint32_t rows = t->count - row < chunk ? t->count - row : chunk;
                p->tasks[n++] = (pool_task_t){.item = i, .from = t, .row = row, .count = rows};
            }
        }
    }
    *out = n;
    return STRATA_OK;
}

/* Mark what a slot's system wrote in the changed sets and on_set sets
 * (what the single-threaded calls would have marked): first the rows its
 * write terms visited (a chunk's rows, or every row of its query's
 * tables), then its set / mut / mark calls in the order it made them. */
static void pool_mark(strata_world_t *w, const sti_slot_t *s, const strata_batch_item_t *item) {
    if (w->dirty_count == 0) {
        return;
    }
    if (item->query != STRATA_NO_QUERY && w->query_marks[item->query] != 0) {
        const sti_query_cache_t *q = &w->queries[item->query];
        for (uint32_t k = 0; s->task.from == NULL && k < q->live; k++) {
            if (q->tables[k]->count > 0) {
                sti_dirty_mark_matching(w, item->query, q->tables[k], 0, q->tables[k]->count);
            }
        }
        if (s->task.from != NULL) {
            sti_dirty_mark_matching(w, item->query, s->task.from, s->task.row, s->task.count);
        }
    }
    for (uint32_t i = 0; i < s->mark_count; i++) {
        if (sti_record_lookup(w, s->marks[i].e) != NULL) {
            sti_mark_ids(w, s->marks[i].e, 1, &s->marks[i].c);
        }
    }
}

void sti_pool_rows_of(const strata_world_t *w, const sti_table_t *t, const sti_table_t **from, uint32_t *first) {
    const sti_slot_t *s = w->slot;
    if (s != NULL && s->task.from != NULL && t == s->table) {
        *from = s->task.from;
        *first = s->task.row;
    }
}

void sti_pool_mark(strata_world_t *w, strata_entity_t e, uint32_t c) {
    sti_slot_t *s = w->slot;
    if (!s->tracking || w->trackers[c] == 0) {
        return;
    }
    if (sti_mem_grow(w, &s->marks, sizeof(pool_mark_t), &s->mark_capacity, (size_t)s->mark_count + 1, 64) !=
        STRATA_OK) {
        s->error = STRATA_ERR_NOMEM;
        return;
    }
    s->marks[s->mark_count++] = (pool_mark_t){e, c};
}

/* Post the prepared batch to the workers when it has two tasks or more
 * that any thread may take; false (nothing posted) otherwise. */
static bool pool_wake(sti_pool_t *p) {
    if (p->workers == 0 || p->shared < 2) {
        return false;
    }
    pthread_mutex_lock(&p->lock);
    p->job++;
    p->busy = p->workers;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    return true;
}

/* Wait until every worker is done with the posted batch. */
static void pool_wait(sti_pool_t *p) {
    pthread_mutex_lock(&p->lock);
    while (p->busy > 0) {
        pthread_cond_wait(&p->idle, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
}

#ifndef NDEBUG
/* Debug builds: a copy of the resource block before a batch (NULL when
 * there is nothing to check or no room), to find a system that wrote a
 * resource it only reads. */
static unsigned char *pool_resources_before(strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    if (s->resource_type == NULL || s->resources_size == 0) {
        return NULL;
    }
    unsigned char *copy = sti_mem_alloc(w, s->resources_size);
    if (copy != NULL) {
        memcpy(copy, w->resources, s->resources_size);
    }
    return copy;
}

/* Assert that each of the first 64 resources no item of the batch writes is as it was. */
static void pool_resources_check(strata_world_t *w, unsigned char *before, const strata_batch_item_t *items,
                                 uint32_t count) {
    if (before == NULL) {
        return;
    }
    uint64_t written = 0;
    for (uint32_t i = 0; i < count; i++) {
        written |= items[i].writes;
    }
    const strata_type_desc_t *t = w->schema->resource_type;
    bool untouched = true;
    for (uint32_t i = 0; i < t->count && i < 64; i++) {
        const strata_field_desc_t *f = &t->fields[i];
        untouched = untouched &&
                    ((written >> i & 1u) != 0 || memcmp(before + f->offset, (unsigned char *)w->resources + f->offset,
                                                        (size_t)f->size * f->count) == 0);
    }
    sti_mem_free(w, before, w->schema->resources_size);
    STRATA_ASSERT(untouched); /* a system of the batch wrote a resource it only reads */
    (void)untouched;
}
#endif

strata_batch_item_t *sti_pool_items(strata_world_t *w, uint32_t count) {
    sti_pool_t *p = w->pool;
    if (sti_mem_grow(w, &p->item_buf, sizeof(strata_batch_item_t), &p->item_capacity, count, 8) != STRATA_OK) {
        return NULL;
    }
    return p->item_buf;
}

strata_result_t sti_pool_prepare(strata_world_t *w, const strata_batch_item_t *items, uint32_t count, uint32_t *tasks) {
    sti_pool_t *p = w->pool;
    uint32_t n = 0;
    *tasks = 0;
    if (pool_tasks(w, items, count, &n) != STRATA_OK) {
        return STRATA_ERR_NOMEM;
    }
    if (n == 0) {
        return STRATA_OK; /* split systems without a row: nothing to prepare */
    }
    if (sti_mem_grow(w, &p->order_list, sizeof(uint32_t), &p->order_capacity, (size_t)n + 1, 16) != STRATA_OK ||
        sti_mem_grow(w, &p->staged, sizeof(sti_event_buf_t *), &p->staged_capacity, (size_t)n + 1, 16) != STRATA_OK) {
        return STRATA_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (pool_slot(w, i, p->tasks[i].from != NULL) == NULL) {
            return STRATA_ERR_NOMEM;
        }
    }
    /* Views are made before any system runs: each is a copy of the world as the batch found it. */
    uint32_t shared = 0, mine = n;
    for (uint32_t i = 0; i < n; i++) {
        sti_slot_t *s = p->slot_list[i];
        s->task = p->tasks[i];
        pool_view(w, s, &items[s->task.item], i == 0);
        if (items[s->task.item].main_thread) {
            p->order_list[--mine] = i;
        } else {
            p->order_list[shared++] = i;
        }
    }
    p->slots = p->slot_list;
    p->order = p->order_list;
    p->shared = shared;
    p->mine = mine;
    p->items = items;
    p->item_count = count;
    p->task_count = n;
    *tasks = n;
    return STRATA_OK;
}

void sti_pool_dispatch(strata_world_t *w, strata_system_fn_t run, float dt) {
    sti_pool_t *p = w->pool;
    p->run = run;
    p->dt = dt;
    atomic_store_explicit(&p->next, 0u, memory_order_relaxed);
#ifndef NDEBUG
    unsigned char *before = pool_resources_before(w);
#endif
    bool woken = pool_wake(p);
    for (uint32_t i = p->mine; i < p->task_count; i++) {
        pool_run_slot(p, p->slot_list[p->order_list[i]]);
    }
    pool_drain(p);
    if (woken) {
        pool_wait(p);
    }
#ifndef NDEBUG
    pool_resources_check(w, before, p->items, p->item_count);
#endif
}

/* --- Merging: what the views recorded, into the world (step.c) ---------- */

strata_result_t sti_pool_merge_marks(strata_world_t *w) {
    sti_pool_t *p = w->pool;
    strata_result_t first = STRATA_OK;
    for (uint32_t i = 0; i < p->task_count; i++) {
        sti_slot_t *s = p->slot_list[i];
        pool_mark(w, s, &p->items[s->task.item]);
        first = first == STRATA_OK ? s->error : first;
        first = first == STRATA_OK && s->view.event_lost ? STRATA_ERR_NOMEM : first;
    }
    return first;
}

strata_result_t sti_pool_merge_events(strata_world_t *w, uint32_t from, uint32_t *end) {
    sti_pool_t *p = w->pool;
    uint32_t item = p->slot_list[from]->task.item, i = from;
    for (; i < p->task_count && p->slot_list[i]->task.item == item; i++) {
        p->staged[i - from] = p->slot_list[i]->events;
    }
    *end = i;
    if (w->schema->event_count == 0) {
        return STRATA_OK;
    }
    strata_event_at(w, p->items[item].position); /* hooks run by the merge and the settle are stamped with it */
    return sti_events_merge(w, p->staged, i - from);
}

/* The view's commands after the world's. When the world's buffer is empty
 * (it is, unless an earlier slot of the batch recorded), the two buffers
 * trade places: no copy and no allocation, so nothing the system recorded
 * can be lost. Otherwise they are copied; out of room, what waits in the
 * world is applied first (it comes first anyway) and the buffers trade
 * places then. Only if that apply itself runs out of memory are the view's
 * commands dropped, and the step returns NOMEM. */
static strata_result_t pool_apply_commands(strata_world_t *w, strata_world_t *v) {
    strata_result_t r = STRATA_OK;
    if (w->cmd_size > 0 && sti_command_reserve(w, v->cmd_size) == STRATA_OK) {
        memcpy(w->cmds + w->cmd_size, v->cmds, v->cmd_size);
        w->cmd_last = w->cmd_size + v->cmd_last;
        w->cmd_size += v->cmd_size;
        w->cmd_count += v->cmd_count;
        return STRATA_OK;
    }
    if (w->cmd_size > 0) {
        r = sti_command_settle(w);
        r = r != STRATA_OK ? r : STRATA_ERR_NOMEM; /* the reserve's failure, reported either way */
    }
    if (w->cmd_size > 0) {
        return r;
    }
    unsigned char *cmds = w->cmds;
    size_t capacity = w->cmd_capacity;
    w->cmds = v->cmds;
    w->cmd_capacity = v->cmd_capacity;
    w->cmd_size = v->cmd_size;
    w->cmd_count = v->cmd_count;
    w->cmd_last = v->cmd_last;
    v->cmds = cmds;
    v->cmd_capacity = capacity;
    v->cmd_size = 0;
    return r;
}

strata_result_t sti_pool_apply(strata_world_t *w, uint32_t task) {
    strata_world_t *v = &w->pool->slot_list[task]->view;
    w->bytes += v->bytes;
    strata_result_t first = STRATA_OK;
    if (v->cmd_size > 0) {
        first = pool_apply_commands(w, v);
    }
    for (uint32_t i = 0; i < v->doomed_count; i++) {
        /* Scheduled for the step's end, as a destroy inside a step is. Gone
         * or scheduled already (destroyed twice, or by an earlier view):
         * nothing to do. */
        sti_record_t *rec = sti_record_lookup(w, v->doomed[i]);
        if (rec != NULL && (rec->flags & STI_FLAG_DOOMED) == 0) {
            strata_result_t r = sti_command_doom(w, rec, v->doomed[i]);
            first = first == STRATA_OK ? r : first;
        }
    }
    return first;
}

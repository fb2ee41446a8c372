/* snapshot.c: snapshots of a whole world and their restore (rollback).
 *
 * A snapshot is a walk over the world's storages (snapshot_storages below):
 * the entity records, the tables (rows, columns, the bitmaps of the changed
 * sets and of the sparse components), the sparse components' sets of
 * values, the queries' lists, the changed sets, the event buffers, the
 * resources (the game loop's clocks and states among them), the relations'
 * index and the commands waiting. Each storage has the same
 * four steps: make room in the snapshot for what it takes, take it, make
 * room in the world for what it restores, restore it. Every room step comes
 * before any copy, so out of memory leaves the snapshot (on a take) or the
 * world (on a restore) as it was, and a snapshot reused frame after frame
 * allocates nothing once it has grown to the world's size.
 *
 * A take copies only the tables whose rows changed since the same snapshot
 * was last taken: a table keeps its count, the rows that left or moved
 * (`moved`), and the world's snapshot clock when a row was last written in
 * place (`written`; a query's `written` stands for its tables when an
 * iterator over it that can write opens). Restores bump both, so a table a
 * restore rewrote is never taken as unchanged.
 */
#include "event.h"
#include "relation.h"
#include "sparse.h"
#include "world.h"

/* One table's copy: what it held at the take, and the counters that say
 * whether the copy is still the table's. */
typedef struct snap_table_t {
    strata_mask_t mask;
    uint32_t count;
    uint32_t moved;    /* the table's `moved` at the take */
    uint32_t marks_at; /* its bitmaps' first word in the snapshot's marks */
    uint32_t idle_since;
    uint64_t listed, later;
    uint64_t sparse_any; /* the sparse planes that may have bits */
    uint16_t mark_next[STRATA_MAX_CHANGED];
    unsigned char *data; /* entities, then each dense column: count rows each */
    size_t cap;
} snap_table_t;

/* One sparse component's set of values, copied whole each take (a value
 * is written in place without a table's stamp): its values and their
 * owners, by slot. */
typedef struct snap_sparse_t {
    unsigned char *values;
    size_t values_cap; /* bytes */
    strata_entity_t *owners;
    size_t owners_cap;
    uint32_t count;
} snap_sparse_t;

/* One event buffer's copy: its live events and their marks. */
typedef struct snap_events_t {
    unsigned char *data;
    size_t cap; /* events */
    uint32_t count;
    sti_event_mark_t *marks; /* starts relative to the first live event */
    size_t mark_cap;
    uint32_t mark_count;
} snap_events_t;

struct strata_snapshot_t {
    strata_world_t *world;
    bool held;                                 /* taken at least once */
    uint32_t clock;                            /* the world's snap_clock at the take */
    uint32_t epoch;                            /* the world's table_epoch at the take */
    uint32_t links_seen[STRATA_MAX_RELATIONS]; /* the cascades' counts of links changed in place, at the take */
    strata_mask_t relinked; /* during a take: the relations' components whose links changed in place since */
    bool records_current;   /* during a take: no row came or went since, so the records are the copy's */

    /* entity records */
    sti_record_t *records;
    size_t records_cap;
    uint32_t record_count, free_head, free_count, alive;

    /* tables */
    snap_table_t *tables;
    size_t tables_cap;
    uint32_t table_count, table_clock;
    uint32_t *idle; /* the idle list, as table ids */
    size_t idle_cap;
    uint32_t idle_count;
    uint64_t *marks; /* every table's bitmaps, ceil(count / 64) words a plane */
    size_t marks_cap;

    /* sparse components' sets, by plane */
    snap_sparse_t *sparse;

    /* queries: the ids of each one's tables, one query after another */
    uint32_t *lists;
    size_t lists_cap;
    uint32_t *live; /* by query */

    /* changed sets */
    sti_dirty_t *dirty;
    bool sets_pending;

    /* events */
    snap_events_t *events;
    uint64_t event_step;
    uint32_t event_position;

    /* resources (the world's whole block) */
    unsigned char *resources;

    /* links: per relation its by-index lists (index, count, handles) and slots, as words */
    uint64_t *links;
    size_t links_cap, links_size;

    /* commands waiting, and destroys scheduled */
    unsigned char *cmds;
    size_t cmds_cap, cmd_size, cmd_last;
    uint32_t cmd_count;
    strata_entity_t *doomed;
    size_t doomed_cap;
    uint32_t doomed_count;
};

/* A storage's four steps (see the top of the file). */
typedef struct snap_storage_t {
    strata_result_t (*room)(strata_world_t *w, strata_snapshot_t *s);
    void (*take)(strata_world_t *w, strata_snapshot_t *s);
    strata_result_t (*make_room)(strata_world_t *w, const strata_snapshot_t *s);
    void (*restore)(strata_world_t *w, const strata_snapshot_t *s);
} snap_storage_t;

/* memcpy, with nothing to do (and maybe no array yet) when n is 0. */
static inline void snap_copy(void *restrict dst, const void *restrict src, size_t n) {
    if (n > 0) {
        memcpy(dst, src, n);
    }
}

/* True if the world is between steps, with no scope, iterator or settle open. */
static inline bool snapshot_quiet(const strata_world_t *w) {
    return w->defer_depth == 0 && !w->in_step && !w->settling && w->slot == NULL;
}

/* --- Records -------------------------------------------------------------- */

/* True if no table gained, lost or moved a row since s was taken (nor was
 * made or freed): every record, and the free list, is as s holds it. (A
 * destroy waiting in the commands flags its record: not then.) */
static bool snap_records_current(const strata_world_t *w, const strata_snapshot_t *s) {
    if (!s->held || s->epoch != w->table_epoch || s->table_count != w->table_count || w->cmd_count > 0 ||
        s->cmd_count > 0 || s->record_count != w->record_count || s->free_head != w->free_head ||
        s->free_count != w->free_count || s->alive != w->alive) {
        return false;
    }
    for (uint32_t i = 0; i < w->table_count; i++) {
        if (s->tables[i].count != w->tables[i]->count || s->tables[i].moved != w->tables[i]->moved) {
            return false;
        }
    }
    return true;
}

static strata_result_t snap_records_room(strata_world_t *w, strata_snapshot_t *s) {
    return sti_mem_grow(w, &s->records, sizeof(sti_record_t), &s->records_cap, w->record_count, 64);
}

static void snap_records_take(strata_world_t *w, strata_snapshot_t *s) {
    if (s->records_current) {
        return;
    }
    snap_copy(s->records, w->records, sizeof(sti_record_t) * w->record_count);
    s->record_count = w->record_count;
    s->free_head = w->free_head;
    s->free_count = w->free_count;
    s->alive = w->alive;
}

static strata_result_t snap_records_make_room(strata_world_t *w, const strata_snapshot_t *s) {
    if (s->record_count <= w->record_capacity) {
        return STRATA_OK;
    }
    size_t cap = sti_index_capacity_for(w, s->record_count - w->record_count);
    return cap != 0 ? sti_index_resize(w, cap) : STRATA_ERR_NOMEM;
}

static void snap_records_restore(strata_world_t *w, const strata_snapshot_t *s) {
    snap_copy(w->records, s->records, sizeof(sti_record_t) * s->record_count);
    w->record_count = s->record_count;
    w->free_head = s->free_head;
    w->free_count = s->free_count;
    w->alive = s->alive;
}

/* --- Tables ----------------------------------------------------------------- */

/* Bytes of a table's rows: handles, then each dense column. */
static size_t snap_rows_bytes(const sti_table_t *t, uint32_t count) {
    size_t bytes = sizeof(strata_entity_t) * count;
    for (uint32_t i = 0; i < t->column_count; i++) {
        bytes += (size_t)t->dense[i].size * count;
    }
    return bytes;
}

/* Words of the bitmaps (the changed sets' planes, the sparse components')
 * a table of `count` rows has in the snapshot. */
static size_t snap_mark_words(const strata_world_t *w, uint32_t count) {
    return (size_t)w->mark_planes * ((count + 63) / 64);
}

/* True if some query listing t can write its rows in place and had an
 * iterator open since the clock `since`. */
static bool snap_query_wrote(const strata_world_t *w, const sti_table_t *t, uint32_t since) {
    for (uint32_t k = 0; k < t->listing_count; k++) {
        uint32_t q = t->listings[k].query;
        const strata_query_desc_t *d = &w->schema->queries[q];
        if (w->queries[q].written > since && (!sti_mask_empty(&d->write) || d->aspect_size > 0)) {
            return true;
        }
    }
    return false;
}

/* True if s's copy of table i is still what the table holds. */
static bool snap_table_current(const strata_world_t *w, const strata_snapshot_t *s, uint32_t i) {
    if (!s->held || s->epoch != w->table_epoch || i >= s->table_count) {
        return false;
    }
    const sti_table_t *t = w->tables[i];
    const snap_table_t *c = &s->tables[i];
    return c->count == t->count && c->moved == t->moved && t->written <= s->clock &&
           !sti_mask_meets(&t->mask, &s->relinked) && !snap_query_wrote(w, t, s->clock);
}

static strata_result_t snap_tables_room(strata_world_t *w, strata_snapshot_t *s) {
    size_t old = s->tables_cap;
    strata_result_t r = sti_mem_grow(w, &s->tables, sizeof(snap_table_t), &s->tables_cap, w->table_count, 16);
    if (r != STRATA_OK) {
        return r;
    }
    memset(s->tables + old, 0, sizeof(snap_table_t) * (s->tables_cap - old));
    size_t marks = 0, lists = 0;
    for (uint32_t i = 0; i < w->table_count; i++) {
        const sti_table_t *t = w->tables[i];
        marks += snap_mark_words(w, t->count);
        lists += t->listing_count;
        size_t bytes = snap_rows_bytes(t, t->count);
        if (bytes > s->tables[i].cap && !snap_table_current(w, s, i)) {
            r = sti_mem_grow(w, &s->tables[i].data, 1, &s->tables[i].cap, bytes, 64);
            if (r != STRATA_OK) {
                return r;
            }
        }
    }
    r = sti_mem_grow(w, &s->marks, sizeof(uint64_t), &s->marks_cap, marks, 8);
    if (r == STRATA_OK) {
        r = sti_mem_grow(w, &s->lists, sizeof(uint32_t), &s->lists_cap, lists, 16);
    }
    if (r == STRATA_OK) {
        r = sti_mem_grow(w, &s->idle, sizeof(uint32_t), &s->idle_cap, w->table_count, 16);
    }
    return r;
}

/* Copy n rows of t between its arrays and `data` (to the snapshot when `out`). */
static void snap_rows_copy(sti_table_t *t, unsigned char *data, uint32_t n, bool out) {
    if (n == 0) {
        return; /* (and a table never filled has no arrays) */
    }
    size_t bytes = sizeof(strata_entity_t) * n;
    if (out) {
        snap_copy(data, t->entities, bytes);
    } else {
        snap_copy(t->entities, data, bytes);
    }
    data += bytes;
    for (uint32_t i = 0; i < t->column_count; i++) {
        bytes = (size_t)t->dense[i].size * n;
        if (out) {
            snap_copy(data, t->dense[i].data, bytes);
        } else {
            snap_copy(t->dense[i].data, data, bytes);
        }
        data += bytes;
    }
}

/* Copy t's bitmaps (count rows) between the table and the snapshot's
 * words from `offset` of `base` (NULL while the snapshot holds none). */
static void snap_marks_copy(const strata_world_t *w, sti_table_t *t, uint64_t *base, size_t offset, uint32_t count,
                            bool out) {
    size_t words = (count + 63) / 64, planes = w->mark_planes;
    if (!out && planes > 0 && t->mark_words > 0) {
        memset(t->marks, 0, sizeof(uint64_t) * planes * t->mark_words);
    }
    if (planes == 0 || words == 0) {
        return;
    }
    uint64_t *at = base + offset;
    for (size_t p = 0; p < planes; p++) {
        if (out) {
            snap_copy(at + p * words, t->marks + p * t->mark_words, sizeof(uint64_t) * words);
        } else {
            snap_copy(t->marks + p * t->mark_words, at + p * words, sizeof(uint64_t) * words);
        }
    }
}

static void snap_tables_take(strata_world_t *w, strata_snapshot_t *s) {
    size_t marks = 0;
    for (uint32_t i = 0; i < w->table_count; i++) {
        sti_table_t *t = w->tables[i];
        snap_table_t *c = &s->tables[i];
        if (!snap_table_current(w, s, i)) {
            snap_rows_copy(t, c->data, t->count, true);
        }
        c->mask = t->mask;
        c->count = t->count;
        c->moved = t->moved;
        c->idle_since = t->idle_since;
        c->listed = t->listed;
        c->later = t->later;
        c->sparse_any = t->sparse_any;
        snap_copy(c->mark_next, t->mark_next, sizeof c->mark_next);
        c->marks_at = (uint32_t)marks;
        snap_marks_copy(w, t, s->marks, marks, t->count, true);
        marks += snap_mark_words(w, t->count);
    }
    s->table_count = w->table_count;
    s->table_clock = w->table_clock;
    s->idle_count = 0;
    for (const sti_table_t *t = w->idle_head; t != NULL; t = t->idle_next) {
        s->idle[s->idle_count++] = t->id;
    }
    uint32_t at = 0;
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        const sti_query_cache_t *cache = &w->queries[q];
        for (uint32_t k = 0; k < cache->count; k++) {
            s->lists[at++] = cache->tables[k]->id;
        }
        s->live[q] = cache->live;
    }
}

/* True if the world's tables are the snapshot's, id for id. */
static bool snap_same_tables(const strata_world_t *w, const strata_snapshot_t *s) {
    if (w->table_count != s->table_count) {
        return false;
    }
    if (s->epoch == w->table_epoch) {
        return true; /* tables are only appended while no table is freed */
    }
    for (uint32_t i = 0; i < w->table_count; i++) {
        if (!sti_mask_equal(&w->tables[i]->mask, &s->tables[i].mask, w->mask_words)) {
            return false;
        }
    }
    return true;
}

/* Every table of the snapshot exists (a missing one is made: a new table
 * without rows is room, not a change) with room for its rows. */
static strata_result_t snap_tables_make_room(strata_world_t *w, const strata_snapshot_t *s) {
    size_t order = sizeof(sti_table_t *) * s->table_count;
    if (!snap_same_tables(w, s) && order > w->scratch_capacity &&
        sti_mem_resize(w, &w->scratch, 1, &w->scratch_capacity, order) != STRATA_OK) {
        return STRATA_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < s->table_count; i++) {
        sti_table_t *t = NULL;
        strata_result_t r = sti_table_ensure(w, &s->tables[i].mask, &t);
        /* A table on a changed set's list has its bitmaps, rows or not. */
        uint32_t need = s->tables[i].count > 0 || (s->tables[i].listed == 0 && s->tables[i].sparse_any == 0)
                            ? s->tables[i].count
                            : 1;
        if (r == STRATA_OK && need > t->capacity) {
            r = sti_table_reserve(w, t, need - t->count); /* (need > capacity >= count) */
        }
        if (r != STRATA_OK) {
            return r;
        }
    }
    return STRATA_OK;
}

/* Make the world's tables the snapshot's, id for id: the tables it does not
 * hold lose their rows and are freed, the rest take the snapshot's ids.
 * Nothing is allocated (every table exists: snap_tables_make_room). */
static void snap_tables_rebuild(strata_world_t *w, const strata_snapshot_t *s) {
    /* The snapshot's tables by the hash, in the order they take, in the
     * world's scratch (idle between settles; its room made before); the
     * others are told by their idle_since, which the restore sets after. */
    sti_table_t **order = (sti_table_t **)(void *)w->scratch;
    for (uint32_t i = 1; i < w->table_count; i++) {
        w->tables[i]->idle_since = 0;
    }
    for (uint32_t i = 0; i < s->table_count; i++) {
        strata_result_t r = sti_table_ensure(w, &s->tables[i].mask, &order[i]);
        STRATA_ASSERT(r == STRATA_OK); /* every one exists: snap_tables_make_room */
        (void)r;
        order[i]->idle_since = UINT32_MAX;
    }
    for (uint32_t i = 1; i < w->table_count; i++) {
        sti_table_t *t = w->tables[i];
        if (t->idle_since == UINT32_MAX) {
            continue;
        }
        if (t->count > 0) {
            t->count = 0;
            t->moved++;
            sti_table_emptied(w, t);
        }
        sti_table_unlink(w, t);
    }
    sti_table_compact(w, sti_table_renumber(w));
    /* Every table is one of the snapshot's now: each takes its id. */
    memcpy(w->tables, order, sizeof(sti_table_t *) * s->table_count);
    sti_table_order(w);
}

static void snap_tables_restore(strata_world_t *w, const strata_snapshot_t *s) {
    if (!snap_same_tables(w, s)) {
        snap_tables_rebuild(w, s);
    }
    for (uint32_t i = 0; i < s->table_count; i++) {
        sti_table_t *t = w->tables[i];
        const snap_table_t *c = &s->tables[i];
        t->count = c->count;
        t->moved++; /* never back to a value a snapshot holds */
        t->written = w->snap_clock;
        t->room = t->count > 0 ? t->capacity : 0;
        snap_rows_copy(t, c->data, c->count, false);
        snap_marks_copy(w, t, s->marks, c->marks_at, c->count, false);
        t->listed = c->listed;
        t->later = c->later;
        t->sparse_any = c->sparse_any;
        snap_copy(t->mark_next, c->mark_next, sizeof c->mark_next);
        t->idle_prev = t->idle_next = NULL;
    }
    w->idle_head = w->idle_tail = NULL;
    for (uint32_t k = 0; k < s->idle_count; k++) {
        sti_table_idle_append(w, w->tables[s->idle[k]]);
    }
    for (uint32_t i = 0; i < s->table_count; i++) {
        w->tables[i]->idle_since = s->tables[i].idle_since;
    }
    w->table_clock = s->table_clock;
    w->last_found = NULL;
    uint32_t at = 0;
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        sti_query_restore(w, q, w->queries[q].count > 0 ? s->lists + at : NULL, s->live[q]);
        at += w->queries[q].count;
    }
    sti_cascade_forget(w); /* rows came back without moving */
}

/* --- Changed sets, events, resources ---------------------------------------- */

static strata_result_t snap_none_room(strata_world_t *w, strata_snapshot_t *s) {
    (void)w;
    (void)s;
    return STRATA_OK;
}

static strata_result_t snap_none_make_room(strata_world_t *w, const strata_snapshot_t *s) {
    (void)w;
    (void)s;
    return STRATA_OK;
}

static void snap_dirty_take(strata_world_t *w, strata_snapshot_t *s) {
    if (w->dirty_count > 0) {
        snap_copy(s->dirty, w->dirty, sizeof(sti_dirty_t) * w->dirty_count);
    }
    s->sets_pending = w->sets_pending;
}

static void snap_dirty_restore(strata_world_t *w, const strata_snapshot_t *s) {
    if (w->dirty_count > 0) {
        snap_copy(w->dirty, s->dirty, sizeof(sti_dirty_t) * w->dirty_count);
    }
    w->sets_pending = s->sets_pending;
}

static strata_result_t snap_events_room(strata_world_t *w, strata_snapshot_t *s) {
    for (uint32_t i = 0; i < w->schema->event_count; i++) {
        const sti_event_buf_t *b = &w->events[i];
        snap_events_t *e = &s->events[i];
        strata_result_t r = sti_mem_grow(w, &e->data, b->size, &e->cap, b->q.tail - b->head, 16);
        if (r == STRATA_OK) {
            r = sti_mem_grow(w, &e->marks, sizeof(sti_event_mark_t), &e->mark_cap, b->mark_tail - b->mark_head, 8);
        }
        if (r != STRATA_OK) {
            return r;
        }
    }
    return STRATA_OK;
}

static void snap_events_take(strata_world_t *w, strata_snapshot_t *s) {
    for (uint32_t i = 0; i < w->schema->event_count; i++) {
        const sti_event_buf_t *b = &w->events[i];
        snap_events_t *e = &s->events[i];
        e->count = b->q.tail - b->head;
        e->mark_count = b->mark_tail - b->mark_head;
        if (e->count > 0) {
            snap_copy(e->data, b->q.data + (size_t)b->head * b->size, (size_t)e->count * b->size);
        }
        for (uint32_t k = 0; k < e->mark_count; k++) {
            e->marks[k] = b->marks[b->mark_head + k];
            e->marks[k].start -= b->head;
        }
    }
    s->event_step = w->event_step;
    s->event_position = w->event_position;
}

static strata_result_t snap_events_make_room(strata_world_t *w, const strata_snapshot_t *s) {
    for (uint32_t i = 0; i < w->schema->event_count; i++) {
        sti_event_buf_t *b = &w->events[i];
        strata_result_t r = sti_mem_grow(w, &b->q.data, b->size, &b->q.cap, s->events[i].count, 64);
        if (r == STRATA_OK) {
            r = sti_mem_grow(w, &b->marks, sizeof(sti_event_mark_t), &b->mark_cap, s->events[i].mark_count, 8);
        }
        if (r != STRATA_OK) {
            return r;
        }
    }
    return STRATA_OK;
}

/* The events come back at the front of each buffer (where an emptied buffer restarts). */
static void snap_events_restore(strata_world_t *w, const strata_snapshot_t *s) {
    for (uint32_t i = 0; i < w->schema->event_count; i++) {
        sti_event_buf_t *b = &w->events[i];
        const snap_events_t *e = &s->events[i];
        if (e->count > 0) {
            snap_copy(b->q.data, e->data, (size_t)e->count * b->size);
        }
        if (e->mark_count > 0) {
            snap_copy(b->marks, e->marks, sizeof(sti_event_mark_t) * e->mark_count);
        }
        b->head = 0;
        b->q.tail = e->count;
        b->mark_head = 0;
        b->mark_tail = e->mark_count;
    }
    w->event_step = s->event_step;
    w->event_position = s->event_position;
}

/* --- Sparse sets --------------------------------------------------------------- */

static strata_result_t snap_sparse_room(strata_world_t *w, strata_snapshot_t *s) {
    for (uint32_t k = 0; k < w->sparse_count; k++) {
        const sti_sparse_t *set = &w->sparse_sets[k];
        snap_sparse_t *c = &s->sparse[k];
        strata_result_t r = sti_mem_grow(w, &c->values, 1, &c->values_cap, (size_t)set->count * set->values.size, 64);
        if (r == STRATA_OK && set->values.size > 0) {
            r = sti_mem_grow(w, &c->owners, sizeof(strata_entity_t), &c->owners_cap, set->count, 16);
        }
        if (r != STRATA_OK) {
            return r;
        }
    }
    return STRATA_OK;
}

static void snap_sparse_take(strata_world_t *w, strata_snapshot_t *s) {
    for (uint32_t k = 0; k < w->sparse_count; k++) {
        const sti_sparse_t *set = &w->sparse_sets[k];
        snap_sparse_t *c = &s->sparse[k];
        c->count = set->values.size > 0 ? set->count : 0; /* a tag has no set: its bits are the tables' */
        snap_copy(c->values, set->values.data, (size_t)c->count * set->values.size);
        snap_copy(c->owners, set->owner, sizeof(strata_entity_t) * c->count);
    }
}

/* Room for each set's values, and slots for every index the snapshot's records hand out. */
static strata_result_t snap_sparse_make_room(strata_world_t *w, const strata_snapshot_t *s) {
    for (uint32_t k = 0; k < w->sparse_count; k++) {
        const sti_sparse_t *set = &w->sparse_sets[k];
        uint32_t want = s->sparse[k].count;
        strata_result_t r = set->values.size > 0
                                ? sti_sparse_reserve(w, k, s->record_count, want > set->count ? want - set->count : 0)
                                : STRATA_OK;
        if (r != STRATA_OK) {
            return r;
        }
    }
    return STRATA_OK;
}

/* The values and owners back; the slots rebuilt from the owners. */
static void snap_sparse_restore(strata_world_t *w, const strata_snapshot_t *s) {
    for (uint32_t k = 0; k < w->sparse_count; k++) {
        sti_sparse_t *set = &w->sparse_sets[k];
        const snap_sparse_t *c = &s->sparse[k];
        if (set->values.size == 0) {
            continue;
        }
        snap_copy(set->values.data, c->values, (size_t)c->count * set->values.size);
        snap_copy(set->owner, c->owners, sizeof(strata_entity_t) * c->count);
        set->count = c->count;
        if (set->slot_capacity > 0) {
            memset(set->slot, 0xff, sizeof(uint32_t) * set->slot_capacity); /* STI_NO_SLOT */
        }
        for (uint32_t i = 0; i < c->count; i++) {
            set->slot[(uint32_t)c->owners[i]] = i;
        }
    }
}

static void snap_resources_take(strata_world_t *w, strata_snapshot_t *s) {
    if (w->resources_block_size > 0) {
        snap_copy(s->resources, w->resources_block, w->resources_block_size);
    }
}

static void snap_resources_restore(strata_world_t *w, const strata_snapshot_t *s) {
    if (w->resources_block_size > 0) {
        snap_copy(w->resources_block, s->resources, w->resources_block_size);
    }
}

/* --- Links ------------------------------------------------------------------ */

/* Words the lists[0..cap) take: per list with handles, its index, count and handles; then an end mark. */
static size_t snap_lists_words(const sti_link_list_t *lists, size_t cap) {
    size_t words = 1;
    for (size_t i = 0; lists != NULL && i < cap; i++) {
        words += lists[i].count > 0 ? 2 + (size_t)lists[i].count : 0;
    }
    return words;
}

/* The number of slots kept: those of indices handed out. */
static size_t snap_slots(const strata_world_t *w, const sti_link_index_t *x) {
    return x->slot_cap < w->record_count ? x->slot_cap : w->record_count;
}

static strata_result_t snap_links_room(strata_world_t *w, strata_snapshot_t *s) {
    size_t words = 0;
    for (uint32_t r = 0; w->relations != NULL && r < w->relations->count; r++) {
        const sti_link_index_t *x = &w->relations->rel[r];
        words += snap_lists_words(x->sources, x->sources_cap) + snap_lists_words(x->targets, x->targets_cap);
        words += 1 + snap_slots(w, x);
    }
    s->links_size = words;
    return sti_mem_grow(w, &s->links, sizeof(uint64_t), &s->links_cap, words, 64);
}

/* Append lists[0..cap) at *at (snap_lists_words words). */
static uint64_t *snap_lists_put(uint64_t *at, const sti_link_list_t *lists, size_t cap) {
    for (size_t i = 0; lists != NULL && i < cap; i++) {
        if (lists[i].count > 0) {
            *at++ = i;
            *at++ = lists[i].count;
            snap_copy(at, lists[i].items, sizeof(uint64_t) * lists[i].count);
            at += lists[i].count;
        }
    }
    *at++ = UINT64_MAX;
    return at;
}

static void snap_links_take(strata_world_t *w, strata_snapshot_t *s) {
    uint64_t *at = s->links;
    for (uint32_t r = 0; w->relations != NULL && r < w->relations->count; r++) {
        const sti_link_index_t *x = &w->relations->rel[r];
        at = snap_lists_put(at, x->sources, x->sources_cap);
        at = snap_lists_put(at, x->targets, x->targets_cap);
        size_t n = snap_slots(w, x);
        *at++ = n;
        for (size_t i = 0; i < n; i++) {
            *at++ = x->slot[i];
        }
    }
}

/* Room in the by-index lists for the snapshot's lists at `at`; the words after them. */
static const uint64_t *snap_lists_room(strata_world_t *w, sti_link_list_t **lists, size_t *cap, const uint64_t *at,
                                       strata_result_t *res) {
    for (; *at != UINT64_MAX && *res == STRATA_OK; at += 2 + at[1]) {
        size_t i = (size_t)at[0], old = *cap;
        *res = sti_mem_grow(w, lists, sizeof(sti_link_list_t), cap, i + 1, 64);
        if (*res != STRATA_OK) {
            break;
        }
        memset(*lists + old, 0, sizeof(sti_link_list_t) * (*cap - old));
        sti_link_list_t *list = &(*lists)[i];
        size_t items = list->capacity;
        *res = sti_mem_grow(w, &list->items, sizeof(strata_entity_t), &items, (size_t)at[1], 4);
        list->capacity = (uint32_t)items;
    }
    while (*at != UINT64_MAX) {
        at += 2 + at[1];
    }
    return at + 1;
}

static strata_result_t snap_links_make_room(strata_world_t *w, const strata_snapshot_t *s) {
    const uint64_t *at = s->links;
    strata_result_t res = STRATA_OK;
    for (uint32_t r = 0; w->relations != NULL && r < w->relations->count && res == STRATA_OK; r++) {
        sti_link_index_t *x = &w->relations->rel[r];
        at = snap_lists_room(w, &x->sources, &x->sources_cap, at, &res);
        at = snap_lists_room(w, &x->targets, &x->targets_cap, at, &res);
        size_t n = (size_t)*at++;
        if (res == STRATA_OK && n > 0) {
            res = sti_mem_grow(w, &x->slot, sizeof(uint32_t), &x->slot_cap, n, 64);
        }
        at += n;
    }
    return res;
}

/* Empty lists[0..cap), then fill those the snapshot holds at `at`; the words after them. */
static const uint64_t *snap_lists_get(sti_link_list_t *lists, size_t cap, const uint64_t *at) {
    for (size_t i = 0; lists != NULL && i < cap; i++) {
        lists[i].count = 0;
    }
    for (; *at != UINT64_MAX; at += 2 + at[1]) {
        sti_link_list_t *list = &lists[at[0]];
        list->count = (uint32_t)at[1];
        snap_copy(list->items, at + 2, sizeof(uint64_t) * list->count);
    }
    return at + 1;
}

static void snap_links_restore(strata_world_t *w, const strata_snapshot_t *s) {
    const uint64_t *at = s->links;
    for (uint32_t r = 0; w->relations != NULL && r < w->relations->count; r++) {
        sti_link_index_t *x = &w->relations->rel[r];
        at = snap_lists_get(x->sources, x->sources_cap, at);
        at = snap_lists_get(x->targets, x->targets_cap, at);
        size_t n = (size_t)*at++;
        for (size_t i = 0; i < n; i++) {
            x->slot[i] = (uint32_t)*at++;
        }
    }
    if (w->relations != NULL) {
        w->relations->checked_source = w->relations->checked_target = STRATA_ENTITY_NULL;
        w->relations->dying = STRATA_ENTITY_NULL;
    }
}

/* --- Commands waiting ------------------------------------------------------- */

static strata_result_t snap_commands_room(strata_world_t *w, strata_snapshot_t *s) {
    strata_result_t r = sti_mem_grow(w, &s->cmds, 1, &s->cmds_cap, w->cmd_size, 64);
    return r == STRATA_OK ? sti_mem_grow(w, &s->doomed, sizeof(strata_entity_t), &s->doomed_cap, w->doomed_count, 8)
                          : r;
}

static void snap_commands_take(strata_world_t *w, strata_snapshot_t *s) {
    if (w->cmd_size > 0) {
        snap_copy(s->cmds, w->cmds, w->cmd_size);
    }
    if (w->doomed_count > 0) {
        snap_copy(s->doomed, w->doomed, sizeof(strata_entity_t) * w->doomed_count);
    }
    s->cmd_size = w->cmd_size;
    s->cmd_last = w->cmd_last;
    s->cmd_count = w->cmd_count;
    s->doomed_count = w->doomed_count;
}

static strata_result_t snap_commands_make_room(strata_world_t *w, const strata_snapshot_t *s) {
    strata_result_t r = sti_mem_grow(w, &w->cmds, 1, &w->cmd_capacity, s->cmd_size, 512);
    return r == STRATA_OK
               ? sti_mem_grow(w, &w->doomed, sizeof(strata_entity_t), &w->doomed_capacity, s->doomed_count, 16)
               : r;
}

static void snap_commands_restore(strata_world_t *w, const strata_snapshot_t *s) {
    if (s->cmd_size > 0) {
        snap_copy(w->cmds, s->cmds, s->cmd_size);
    }
    if (s->doomed_count > 0) {
        snap_copy(w->doomed, s->doomed, sizeof(strata_entity_t) * s->doomed_count);
    }
    w->cmd_size = s->cmd_size;
    w->cmd_last = s->cmd_last;
    w->cmd_count = s->cmd_count;
    w->doomed_count = s->doomed_count;
}

/* The storages, in the order they are taken and restored (the tables
 * before the records: a rebuild of the table set rewrites the records of
 * the rows it finds). */
static const snap_storage_t snapshot_storages[] = {
    {snap_tables_room, snap_tables_take, snap_tables_make_room, snap_tables_restore},
    {snap_records_room, snap_records_take, snap_records_make_room, snap_records_restore},
    {snap_sparse_room, snap_sparse_take, snap_sparse_make_room, snap_sparse_restore},
    {snap_none_room, snap_dirty_take, snap_none_make_room, snap_dirty_restore},
    {snap_events_room, snap_events_take, snap_events_make_room, snap_events_restore},
    {snap_none_room, snap_resources_take, snap_none_make_room, snap_resources_restore},
    {snap_links_room, snap_links_take, snap_links_make_room, snap_links_restore},
    {snap_commands_room, snap_commands_take, snap_commands_make_room, snap_commands_restore},
};

#define SNAPSHOT_STORAGES (sizeof snapshot_storages / sizeof snapshot_storages[0])

/* --- The entry points ------------------------------------------------------- */

/* Bytes of the snapshot's fixed parts, by the world's schema. */
static size_t snapshot_fixed_bytes(const strata_world_t *w) {
    return sizeof(uint32_t) * w->schema->query_count + sizeof(sti_dirty_t) * w->dirty_count +
           sizeof(snap_events_t) * w->schema->event_count + sizeof(snap_sparse_t) * w->sparse_count +
           w->resources_block_size;
}

strata_snapshot_t *strata_snapshot_create(strata_world_t *w) {
    STRATA_ASSERT(w != NULL);
    strata_snapshot_t *s = sti_mem_alloc(w, sizeof *s);
    if (s == NULL) {
        return NULL;
    }
    memset(s, 0, sizeof *s);
    s->world = w;
    unsigned char *fixed = sti_mem_alloc(w, snapshot_fixed_bytes(w) + 1);
    if (fixed == NULL) {
        sti_mem_free(w, s, sizeof *s);
        return NULL;
    }
    memset(fixed, 0, snapshot_fixed_bytes(w) + 1);
    /* One block, the most aligned part first. */
    s->events = (snap_events_t *)(void *)fixed;
    s->sparse = (snap_sparse_t *)(void *)(fixed + sizeof(snap_events_t) * w->schema->event_count);
    s->dirty = (sti_dirty_t *)(void *)((unsigned char *)s->sparse + sizeof(snap_sparse_t) * w->sparse_count);
    s->live = (uint32_t *)(void *)((unsigned char *)s->dirty + sizeof(sti_dirty_t) * w->dirty_count);
    s->resources = (unsigned char *)(s->live + w->schema->query_count);
    return s;
}

void strata_snapshot_destroy(strata_snapshot_t *s) {
    if (s == NULL) {
        return;
    }
    strata_world_t *w = s->world;
    for (size_t i = 0; i < s->tables_cap; i++) {
        sti_mem_free(w, s->tables[i].data, s->tables[i].cap);
    }
    sti_mem_free(w, s->tables, sizeof(snap_table_t) * s->tables_cap);
    for (uint32_t i = 0; i < w->schema->event_count; i++) {
        sti_mem_free(w, s->events[i].data, s->events[i].cap * w->events[i].size);
        sti_mem_free(w, s->events[i].marks, sizeof(sti_event_mark_t) * s->events[i].mark_cap);
    }
    for (uint32_t k = 0; k < w->sparse_count; k++) {
        sti_mem_free(w, s->sparse[k].values, s->sparse[k].values_cap);
        sti_mem_free(w, s->sparse[k].owners, sizeof(strata_entity_t) * s->sparse[k].owners_cap);
    }
    sti_mem_free(w, s->records, sizeof(sti_record_t) * s->records_cap);
    sti_mem_free(w, s->idle, sizeof(uint32_t) * s->idle_cap);
    sti_mem_free(w, s->marks, sizeof(uint64_t) * s->marks_cap);
    sti_mem_free(w, s->lists, sizeof(uint32_t) * s->lists_cap);
    sti_mem_free(w, s->links, sizeof(uint64_t) * s->links_cap);
    sti_mem_free(w, s->cmds, s->cmds_cap);
    sti_mem_free(w, s->doomed, sizeof(strata_entity_t) * s->doomed_cap);
    sti_mem_free(w, s->events, snapshot_fixed_bytes(w) + 1);
    sti_mem_free(w, s, sizeof *s);
}

strata_result_t strata_snapshot_take(strata_world_t *w, strata_snapshot_t *s) {
    STRATA_ASSERT(w != NULL && s != NULL && s->world == w);
    STRATA_ASSERT(snapshot_quiet(w));
    s->records_current = snap_records_current(w, s);
    /* Links change in place (a target, a depth) without a write stamp: their count does. */
    memset(&s->relinked, 0, sizeof s->relinked);
    for (uint32_t r = 0; w->cascades != NULL && r < w->schema->relation_count; r++) {
        if (w->cascades->links[r] != s->links_seen[r]) {
            strata_mask_set(&s->relinked, w->schema->relations[r].component);
        }
    }
    for (size_t i = 0; i < SNAPSHOT_STORAGES; i++) {
        strata_result_t r = snapshot_storages[i].room(w, s);
        if (r != STRATA_OK) {
            return r; /* s only grew: what it held, it holds */
        }
    }
    for (size_t i = 0; i < SNAPSHOT_STORAGES; i++) {
        snapshot_storages[i].take(w, s);
    }
    s->held = true;
    for (uint32_t r = 0; w->cascades != NULL && r < w->schema->relation_count; r++) {
        s->links_seen[r] = w->cascades->links[r];
    }
    s->clock = w->snap_clock++;
    s->epoch = w->table_epoch;
    return STRATA_OK;
}

strata_result_t strata_snapshot_restore(strata_world_t *w, const strata_snapshot_t *s) {
    STRATA_ASSERT(w != NULL && s != NULL && s->world == w);
    STRATA_ASSERT(snapshot_quiet(w));
    if (!s->held) {
        return STRATA_ERR_MISSING;
    }
    for (size_t i = 0; i < SNAPSHOT_STORAGES; i++) {
        strata_result_t r = snapshot_storages[i].make_room(w, s);
        if (r != STRATA_OK) {
            return r; /* only room was made */
        }
    }
    for (size_t i = 0; i < SNAPSHOT_STORAGES; i++) {
        snapshot_storages[i].restore(w, s);
    }
    w->snap_clock++;
    return STRATA_OK;
}

size_t strata_snapshot_bytes(const strata_snapshot_t *s) {
    STRATA_ASSERT(s != NULL);
    const strata_world_t *w = s->world;
    size_t bytes = sizeof *s + snapshot_fixed_bytes(w) + sizeof(sti_record_t) * s->records_cap +
                   sizeof(snap_table_t) * s->tables_cap + sizeof(uint32_t) * (s->idle_cap + s->lists_cap) +
                   sizeof(uint64_t) * (s->marks_cap + s->links_cap) + s->cmds_cap +
                   sizeof(strata_entity_t) * s->doomed_cap;
    for (size_t i = 0; i < s->tables_cap; i++) {
        bytes += s->tables[i].cap;
    }
    for (uint32_t i = 0; i < w->schema->event_count; i++) {
        bytes += s->events[i].cap * w->events[i].size + sizeof(sti_event_mark_t) * s->events[i].mark_cap;
    }
    for (uint32_t k = 0; k < w->sparse_count; k++) {
        bytes += s->sparse[k].values_cap + sizeof(strata_entity_t) * s->sparse[k].owners_cap;
    }
    return bytes;
}

/* --- A ring of snapshots ------------------------------------------------------ */

struct strata_snapshot_ring_t {
    strata_world_t *world;
    uint32_t count;
    uint64_t *frames; /* by slot: the frame it holds, or UINT64_MAX */
    strata_snapshot_t **slots;
};

strata_snapshot_ring_t *strata_snapshot_ring_create(strata_world_t *w, uint32_t count) {
    STRATA_ASSERT(w != NULL && count > 0);
    strata_snapshot_ring_t *ring = sti_mem_alloc(w, sizeof *ring);
    if (ring == NULL) {
        return NULL;
    }
    *ring = (strata_snapshot_ring_t){.world = w, .count = count};
    ring->frames = sti_mem_alloc(w, sizeof(uint64_t) * count);
    ring->slots = sti_mem_alloc(w, sizeof(strata_snapshot_t *) * count);
    if (ring->slots != NULL) {
        memset(ring->slots, 0, sizeof(strata_snapshot_t *) * count);
    }
    bool ok = ring->frames != NULL && ring->slots != NULL;
    for (uint32_t i = 0; ok && i < count; i++) {
        ring->frames[i] = UINT64_MAX;
        ring->slots[i] = strata_snapshot_create(w);
        ok = ring->slots[i] != NULL;
    }
    if (!ok) {
        strata_snapshot_ring_destroy(ring);
        return NULL;
    }
    return ring;
}

void strata_snapshot_ring_destroy(strata_snapshot_ring_t *ring) {
    if (ring == NULL) {
        return;
    }
    strata_world_t *w = ring->world;
    for (uint32_t i = 0; ring->slots != NULL && i < ring->count; i++) {
        strata_snapshot_destroy(ring->slots[i]);
    }
    sti_mem_free(w, ring->slots, sizeof(strata_snapshot_t *) * ring->count);
    sti_mem_free(w, ring->frames, sizeof(uint64_t) * ring->count);
    sti_mem_free(w, ring, sizeof *ring);
}

strata_result_t strata_snapshot_ring_take(strata_world_t *w, strata_snapshot_ring_t *ring, uint64_t frame) {
    STRATA_ASSERT(ring != NULL && ring->world == w && frame != UINT64_MAX);
    uint32_t i = (uint32_t)(frame % ring->count);
    strata_result_t r = strata_snapshot_take(w, ring->slots[i]);
    if (r == STRATA_OK) {
        ring->frames[i] = frame;
    }
    return r;
}

strata_result_t strata_snapshot_ring_restore(strata_world_t *w, const strata_snapshot_ring_t *ring, uint64_t frame) {
    STRATA_ASSERT(ring != NULL && ring->world == w);
    uint32_t i = (uint32_t)(frame % ring->count);
    if (ring->frames[i] != frame) {
        return STRATA_ERR_MISSING;
    }
    return strata_snapshot_restore(w, ring->slots[i]);
}

bool strata_snapshot_ring_holds(const strata_snapshot_ring_t *ring, uint64_t frame) {
    STRATA_ASSERT(ring != NULL);
    return frame != UINT64_MAX && ring->frames[frame % ring->count] == frame;
}

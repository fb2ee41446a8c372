/* plain.h: what a C programmer writes without an ECS, for the baselines of
 * the structural cases: generational handles with a free list, and a
 * sparse set (one per optional component) over entity indices.
 *
 * As lean as a hand-written pool gets while still doing each operation's
 * real work: every handle is checked against its generation, freed indices
 * are reused, arrays grow geometrically, removal swaps with the last row.
 */
#ifndef STRATA_BENCH_PLAIN_H
#define STRATA_BENCH_PLAIN_H

#include "bench.h"

#include <stdint.h>
#include <stdlib.h>

/* No index: the end of the free list, an absent sparse-set entry. */
#define PLAIN_NONE UINT32_MAX

/* A handle: index in the low 32 bits, generation in the high ones. */
typedef uint64_t plain_handle;

static inline uint32_t plain_index(plain_handle h) {
    return (uint32_t)h;
}

/* Entity indices: a generation each, and while alive the row the owner
 * keeps the entity in (while free: the next free index). */
typedef struct plain_ids {
    uint32_t *generation;
    uint32_t *slot;
    uint32_t used; /* indices ever handed out */
    uint32_t capacity;
    uint32_t free_head;
} plain_ids;

/* `realloc` that exits on failure. */
static inline void *plain_grow(void *p, size_t bytes) {
    p = realloc(p, bytes);
    if (p == NULL) {
        bench_die("realloc");
    }
    return p;
}

static inline plain_ids plain_ids_make(uint32_t capacity) {
    return (plain_ids){bench_alloc(sizeof(uint32_t) * capacity), bench_alloc(sizeof(uint32_t) * capacity), 0, capacity,
                       PLAIN_NONE};
}

static inline void plain_ids_free(plain_ids *ids) {
    free(ids->generation);
    free(ids->slot);
}

/* A live handle whose entity sits at `row`: a freed index first, else a fresh one. */
static inline plain_handle plain_ids_take(plain_ids *ids, uint32_t row) {
    uint32_t index = ids->free_head;
    if (index != PLAIN_NONE) {
        ids->free_head = ids->slot[index];
    } else {
        if (ids->used == ids->capacity) {
            ids->capacity *= 2;
            ids->generation = plain_grow(ids->generation, sizeof(uint32_t) * ids->capacity);
            ids->slot = plain_grow(ids->slot, sizeof(uint32_t) * ids->capacity);
        }
        index = ids->used++;
        ids->generation[index] = 1;
    }
    ids->slot[index] = row;
    return (plain_handle)ids->generation[index] << 32 | index;
}

/* True if h names a live entity. */
static inline bool plain_ids_alive(const plain_ids *ids, plain_handle h) {
    uint32_t index = plain_index(h);
    return index < ids->used && ids->generation[index] == (uint32_t)(h >> 32);
}

/* Free h's index (alive): the generation moves on, so h goes stale. */
static inline void plain_ids_release(plain_ids *ids, plain_handle h) {
    uint32_t index = plain_index(h);
    ids->generation[index]++;
    ids->slot[index] = ids->free_head;
    ids->free_head = index;
}

/* One optional component over entity indices: row_of[index] is its row in
 * the dense arrays, PLAIN_NONE when absent. value is NULL for a tag. */
typedef struct plain_set {
    uint32_t *row_of;
    plain_handle *owner;
    int32_t *value;
    uint32_t count;
} plain_set;

/* A set for indices below `indices`, holding at most `capacity` entities. */
static inline plain_set plain_set_make(uint32_t indices, uint32_t capacity, bool tag) {
    plain_set s = {bench_alloc(sizeof(uint32_t) * indices), bench_alloc(sizeof(plain_handle) * capacity),
                   tag ? NULL : bench_alloc(sizeof(int32_t) * capacity), 0};
    for (uint32_t i = 0; i < indices; i++) {
        s.row_of[i] = PLAIN_NONE;
    }
    return s;
}

static inline void plain_set_free(plain_set *s) {
    free(s->row_of);
    free(s->owner);
    free(s->value);
}

/* Give live entity h the component (overwrite if present). */
static inline void plain_set_add(plain_set *s, plain_handle h, int32_t value) {
    uint32_t index = plain_index(h);
    uint32_t row = s->row_of[index];
    if (row == PLAIN_NONE) {
        row = s->count++;
        s->row_of[index] = row;
        s->owner[row] = h;
    }
    if (s->value != NULL) {
        s->value[row] = value;
    }
}

/* Take the component from live entity h; false if it had none. */
static inline bool plain_set_remove(plain_set *s, plain_handle h) {
    uint32_t index = plain_index(h);
    uint32_t row = s->row_of[index];
    if (row == PLAIN_NONE) {
        return false;
    }
    uint32_t last = --s->count;
    plain_handle moved = s->owner[last];
    s->owner[row] = moved;
    if (s->value != NULL) {
        s->value[row] = s->value[last];
    }
    s->row_of[plain_index(moved)] = row;
    s->row_of[index] = PLAIN_NONE;
    return true;
}

/* Give each live entity of handles[0..n) the component of s, with the value
 * i for handles[i] (a structural row's loop). */
static inline void plain_set_add_each(const plain_ids *ids, plain_set *s, uint32_t n, const uint64_t *handles) {
    for (uint32_t i = 0; i < n; i++) {
        if (plain_ids_alive(ids, handles[i])) {
            plain_set_add(s, handles[i], (int32_t)i);
        }
    }
}

/* Take the component of s from each live entity of handles[0..n). */
static inline void plain_set_remove_each(const plain_ids *ids, plain_set *s, uint32_t n, const uint64_t *handles) {
    for (uint32_t i = 0; i < n; i++) {
        if (plain_ids_alive(ids, handles[i])) {
            plain_set_remove(s, handles[i]);
        }
    }
}

#endif /* STRATA_BENCH_PLAIN_H */

/* mem.h: memory. Every allocation goes through the world's allocator hooks
 * and is counted; every array grows through one helper; element copies.
 *
 * Out of memory leaves the world as it was. The rule that keeps it so:
 * reserve, then commit. An operation first reserves all the room it needs
 * (sti_mem_grow and its kin only ever add capacity, and leave an array as it
 * was when they fail), and only then changes anything, with steps that
 * cannot fail. A failure half way through reserving leaves some arrays
 * larger than needed, or a new table with no rows (archetype.c), which is
 * not a change to any entity, value or save: room, like a reserve.
 */
#ifndef STI_MEM_H
#define STI_MEM_H

#include "base.h"

/* The allocator behind the hooks when the world desc gives none (libc). */
strata_allocator_t sti_mem_libc(void);
/* Allocate through the world's hooks and count the bytes; NULL on failure. */
void *sti_mem_alloc(strata_world_t *w, size_t size);
/* Grow `p` (old_size bytes; NULL allowed) to size; NULL on failure (p kept). */
void *sti_mem_realloc(strata_world_t *w, void *p, size_t old_size, size_t size);
/* Free `p` of `size` bytes; NULL is a no-op. */
void sti_mem_free(strata_world_t *w, void *p, size_t size);
/* Write a zero byte in each page of the n bytes at p (room not in use: what
 * it held does not matter), so that the kernel maps them now rather than
 * at their first use. */
void sti_mem_touch(void *p, size_t n);

/* The growth policy: the capacity for `need` elements from `cap`, doubled
 * (`first` when cap is 0) and at least need, at most `max`; 0 if need > max. */
static inline size_t sti_grow_capacity(size_t cap, size_t need, size_t first, size_t max) {
    if (need > max) {
        return 0;
    }
    size_t grown = cap == 0 ? first : cap <= max / 2 ? cap * 2 : max;
    return grown < need ? need : grown > max ? max : grown;
}

/* Resize the array *(T **)array of *cap elements of `elem` bytes to
 * new_cap elements; NOMEM leaves the array and *cap as they were. */
strata_result_t sti_mem_resize(strata_world_t *w, void *array, size_t elem, size_t *cap, size_t new_cap);

/* The one growth helper: make the array *(T **)array of *cap elements of
 * `elem` bytes hold at least `need`, growing by sti_grow_capacity; NOMEM
 * leaves the array and *cap as they were. */
static inline strata_result_t sti_mem_grow(strata_world_t *w, void *array, size_t elem, size_t *cap, size_t need,
                                           size_t first) {
    if (need <= *cap) {
        return STRATA_OK;
    }
    size_t new_cap = sti_grow_capacity(*cap, need, first, SIZE_MAX / 2 / elem);
    return new_cap == 0 ? STRATA_ERR_NOMEM : sti_mem_resize(w, array, elem, cap, new_cap);
}

/* --- Element copies ------------------------------------------------------ */

/* The largest column element the hot paths copy inline; a table with a
 * larger one moves rows through memcpy calls instead. */
#define STI_SMALL_SIZE 32u

/* Copy one element of size <= STI_SMALL_SIZE without calling memcpy (a
 * call would make every move save registers). The usual sizes get one
 * fixed-size copy; the others two overlapping ones. The size is the same
 * for a whole column, so the branches predict. */
STI_HOT void sti_copy_small(void *restrict dst, const void *restrict src, size_t size) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (size == 8) {
        memcpy(d, s, 8);
    } else if (size == 4) {
        memcpy(d, s, 4);
    } else if (size == 16) {
        memcpy(d, s, 16);
    } else if (size > 16) {
        memcpy(d, s, 16);
        memcpy(d + size - 16, s + size - 16, 16);
    } else if (size > 8) {
        memcpy(d, s, 8);
        memcpy(d + size - 8, s + size - 8, 8);
    } else if (size > 4) {
        memcpy(d, s, 4);
        memcpy(d + size - 4, s + size - 4, 4);
    } else if (size >= 2) {
        memcpy(d, s, 2);
        memcpy(d + size - 2, s + size - 2, 2);
    } else if (size == 1) {
        *d = *s;
    }
}

/* Copy one element of any size. */
static inline void sti_copy(void *restrict dst, const void *restrict src, size_t size) {
    if (size <= STI_SMALL_SIZE) {
        sti_copy_small(dst, src, size);
    } else {
        memcpy(dst, src, size);
    }
}

/* Copy one element in a move: inline when the table pair has only small
 * columns (`small` is a constant wherever the moves are inlined). */
STI_HOT void sti_copy_move(void *restrict dst, const void *restrict src, size_t size, bool small) {
    if (small) {
        sti_copy_small(dst, src, size);
    } else {
        memcpy(dst, src, size);
    }
}

#endif /* STI_MEM_H */

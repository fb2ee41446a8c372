/* mem.c: the allocator hooks, the byte count and the growth helper. */
#include "mem.h"

#include <stdlib.h>

/* malloc behind the alloc hook when the desc gives none. */
static void *mem_libc_alloc(size_t size, void *user) {
    (void)user;
    return malloc(size);
}

/* realloc behind the realloc hook when the desc gives none. */
static void *mem_libc_realloc(void *p, size_t old_size, size_t size, void *user) {
    (void)old_size;
    (void)user;
    return realloc(p, size);
}

/* free behind the free hook when the desc gives none. */
static void mem_libc_free(void *p, size_t size, void *user) {
    (void)size;
    (void)user;
    free(p);
}

/* The libc allocator as hooks. */
strata_allocator_t sti_mem_libc(void) {
    return (strata_allocator_t){mem_libc_alloc, mem_libc_realloc, mem_libc_free, NULL};
}

/* Allocate through the hooks, counting the bytes; NULL on failure. */
void *sti_mem_alloc(strata_world_t *w, size_t size) {
    void *p = w->allocator.alloc(size, w->allocator.user);
    if (p != NULL) {
        w->bytes += size;
    }
    return p;
}

/* Resize through the hooks (alloc if p is NULL); NULL on failure, p kept. */
void *sti_mem_realloc(strata_world_t *w, void *p, size_t old_size, size_t size) {
    if (p == NULL) {
        return sti_mem_alloc(w, size);
    }
    void *q = w->allocator.realloc(p, old_size, size, w->allocator.user);
    if (q != NULL) {
        w->bytes = w->bytes - old_size + size;
    }
    return q;
}

/* Free through the hooks, uncounting the bytes; NULL is a no-op. */
void sti_mem_free(strata_world_t *w, void *p, size_t size) {
    if (p != NULL) {
        w->allocator.free(p, size, w->allocator.user);
        w->bytes -= size;
    }
}

/* Resize an array held by pointer; the pointer goes through memcpy so any
 * T * can be passed as a void *. */
strata_result_t sti_mem_resize(strata_world_t *w, void *array, size_t elem, size_t *cap, size_t new_cap) {
    if (new_cap > SIZE_MAX / elem) {
        return STRATA_ERR_NOMEM;
    }
    void *old;
    memcpy(&old, array, sizeof old);
    void *grown = sti_mem_realloc(w, old, elem * *cap, elem * new_cap);
    if (grown == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memcpy(array, &grown, sizeof grown);
    *cap = new_cap;
    return STRATA_OK;
}

void sti_mem_touch(void *p, size_t n) {
    volatile unsigned char *v = p;
    for (size_t at = 0; at < n; at += 4096) {
        v[at] = 0;
    }
    if (n > 0) {
        v[n - 1] = 0; /* the last page, when the steps passed over its start */
    }
}

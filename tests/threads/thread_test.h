/* thread_test.h: what the thread tests share. Allocator hooks safe to call
 * from any thread: they count the bytes held, and fail once
 * `allocations_left` allocations have been made, or on a thread whose
 * `failing_here` is set (a test sets it where it wants the failure: inside
 * one chunk, say). And a hash for deterministic pseudo-random choices. */
#ifndef THREAD_TEST_H
#define THREAD_TEST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* A 32-bit mix (every input bit moves every output bit). */
static uint32_t mix(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    return x ^ (x >> 16);
}

static atomic_long allocations_left = 1L << 40;
static atomic_long bytes_held;
static _Thread_local bool failing_here;

/* True if this allocation fails. */
static bool alloc_fails(void) {
    return failing_here || atomic_fetch_sub(&allocations_left, 1) <= 0;
}

static void *fail_alloc(size_t size, void *user) {
    (void)user;
    void *p = alloc_fails() ? NULL : malloc(size);
    if (p != NULL) {
        atomic_fetch_add(&bytes_held, (long)size);
    }
    return p;
}

static void *fail_realloc(void *ptr, size_t old_size, size_t new_size, void *user) {
    (void)user;
    void *p = alloc_fails() ? NULL : realloc(ptr, new_size);
    if (p != NULL) {
        atomic_fetch_add(&bytes_held, (long)new_size - (long)old_size);
    }
    return p;
}

static void fail_free(void *ptr, size_t size, void *user) {
    (void)user;
    if (ptr != NULL) {
        atomic_fetch_sub(&bytes_held, (long)size);
    }
    free(ptr);
}

#endif /* THREAD_TEST_H */

/* test_alloc.h: allocator hooks over cmocka's test_malloc, test_realloc and
 * test_free, so a world built with them has every block it leaks reported; and
 * hooks that fail after a budget of allocations. */
#ifndef TEST_ALLOC_H
#define TEST_ALLOC_H

#include <stddef.h>

static void *test_alloc(size_t size, void *user) {
    (void)user;
    return test_malloc(size);
}

static void *test_resize(void *ptr, size_t old_size, size_t new_size, void *user) {
    (void)old_size;
    (void)user;
    return test_realloc(ptr, new_size);
}

static void test_release(void *ptr, size_t size, void *user) {
    (void)size;
    (void)user;
    test_free(ptr);
}

/* Hooks that fail once `budget` allocations have succeeded (free: test_release). */
static int budget; /* allocations left before the failing one */

static void *failing_alloc(size_t size, void *user) {
    (void)user;
    return budget-- > 0 ? test_malloc(size) : NULL;
}

static void *failing_resize(void *ptr, size_t old_size, size_t new_size, void *user) {
    (void)old_size;
    (void)user;
    return budget-- > 0 ? test_realloc(ptr, new_size) : NULL;
}

/* Hooks that count the allocations and reallocations they make (free:
 * test_release); inline, so a test that does not count pays nothing. */
static long allocations;

static inline void *counting_alloc(size_t size, void *user) {
    allocations++;
    return test_alloc(size, user);
}

static inline void *counting_resize(void *ptr, size_t old_size, size_t new_size, void *user) {
    allocations++;
    return test_resize(ptr, old_size, new_size, user);
}

#endif /* TEST_ALLOC_H */

/* assert.c: where a failed STRATA_ASSERT goes: the handler a game sets, or
 * the default one (the condition, file and line on stderr, then abort). The
 * one piece of process-wide state in the runtime: an assert may fire before
 * there is a world (a NULL world is the commonest caller bug). */
#include <stdio.h>
#include <stdlib.h>

#include "strata.h"

static strata_assert_handler_t assert_handler; /* NULL: the default */
static void *assert_user;

/* Route failed asserts to fn (NULL: back to the default). */
void strata_assert_handler_set(strata_assert_handler_t fn, void *user) {
    assert_handler = fn;
    assert_user = user;
}

/* The handler in place (NULL for the default) and its pointer. */
strata_assert_handler_t strata_assert_handler(void **user) {
    if (user != NULL) {
        *user = assert_user;
    }
    return assert_handler;
}

/* Call the handler; abort if it returns, since the caller cannot go on. */
void strata_assert_fail(const char *condition, const char *file, int line) {
    if (assert_handler != NULL) {
        assert_handler(condition, file, line, assert_user);
    } else {
        fprintf(stderr, "%s:%d: Strata assertion failed: %s\n", file, line, condition);
        fflush(stderr);
    }
    abort();
}

/* Linked into every test program: run only the tests whose names match
 * CMOCKA_TEST_FILTER, skip those matching CMOCKA_SKIP_FILTER ('*' and '?'
 * wildcards), e.g.
 *     CMOCKA_TEST_FILTER='test_query_*' build/gcc/tests/test_query
 * The cmocka this build uses reads no such variable itself, so this sets its
 * filters before main runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

__attribute__((constructor)) static void strata_test_filter(void) {
    const char *run = getenv("CMOCKA_TEST_FILTER");
    const char *skip = getenv("CMOCKA_SKIP_FILTER");
    if (run != NULL && run[0] != '\0') {
        cmocka_set_test_filter(run);
    }
    if (skip != NULL && skip[0] != '\0') {
        cmocka_set_skip_filter(skip);
    }
}

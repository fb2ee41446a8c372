/* load_report.h: finding a change in a load report, for the tests of
 * schema evolution and migrations (include after <cmocka.h>). */
#ifndef STRATA_TEST_LOAD_REPORT_H
#define STRATA_TEST_LOAD_REPORT_H

#include <string.h>

#include "strata.h"

/* The change of `kind` named `name` in the report, or fail. */
static const strata_change_t *change(const strata_load_report_t *report, strata_change_kind_t kind, const char *name) {
    for (uint32_t i = 0; i < report->change_count && i < STRATA_REPORT_MAX; i++) {
        if (report->changes[i].kind == kind && strcmp(report->changes[i].name, name) == 0) {
            return &report->changes[i];
        }
    }
    fail_msg("no change %d '%s' in the report", (int)kind, name);
    return NULL;
}

#endif /* STRATA_TEST_LOAD_REPORT_H */

/* migrate.c: one world's contents into a world of another version of its
 * schema (strata_world_migrate): saved into memory through the binary
 * format, without a checksum, and loaded at once with the evolution rules
 * value by value (binary.h); then the systems' switches by name. */
#include "binary.h"

#include <stdio.h>
#include <string.h>

/* Give to's systems the switches of from's systems of the same names. */
static void migrate_switches(strata_world_t *to, const strata_world_t *from) {
    const strata_schedule_t *a = from->schema->schedule, *b = to->schema->schedule;
    for (uint32_t i = 0; a != NULL && b != NULL && i < a->system_count; i++) {
        for (uint32_t j = 0; j < b->system_count; j++) {
            if (strcmp(a->systems[i].name, b->systems[j].name) == 0) {
                strata_system_set_enabled(to, j, strata_system_enabled(from, i));
                break;
            }
        }
    }
}

strata_result_t strata_world_migrate(strata_world_t *to, const strata_world_t *from, unsigned flags,
                                     strata_load_report_t *report) {
    STRATA_ASSERT(to != NULL && from != NULL && to != from);
    STRATA_ASSERT(from->defer_depth == 0 && !from->in_step);
    strata_load_report_t local;
    report = report != NULL ? report : &local;
    memset(report, 0, sizeof *report);
    size_t size = 0;
    strata_result_t r = sti_save_mem_trusted(from, NULL, 0, &size);
    unsigned char *bytes = r == STRATA_OK ? to->allocator.alloc(size, to->allocator.user) : NULL;
    if (bytes == NULL) {
        r = r == STRATA_OK ? STRATA_ERR_NOMEM : r;
        snprintf(report->error, sizeof report->error, "%s",
                 r == STRATA_ERR_NOMEM ? "out of memory" : strata_result_str(r));
        return r;
    }
    r = sti_save_mem_trusted(from, bytes, size, &size);
    if (r == STRATA_OK) {
        sti_load_opts_t opts = {.trusted = true,
                                .by_value = true,
                                .accept_loss = (flags & STRATA_MIGRATE_ACCEPT_LOSS) != 0,
                                .source = from->schema};
        r = sti_load_mem_opts(to, bytes, size, &opts, report);
    } else {
        snprintf(report->error, sizeof report->error, "%s",
                 r == STRATA_ERR_NOMEM ? "out of memory" : strata_result_str(r));
    }
    to->allocator.free(bytes, size, to->allocator.user);
    if (r == STRATA_OK) {
        migrate_switches(to, from);
    }
    return r;
}

/* live_host.c: a live host built against an installed Strata with
 * `pkg-config strata-live` (docs/live.md): it loads the module given (the
 * tiny game of this folder built as one), steps its world four times and
 * says what it loaded. test_outside.py builds both. */
#include <stdio.h>

#include "strata_live.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: live_host MODULE.so\n");
        return 2;
    }
    strata_live_t *live = NULL;
    if (strata_live_open(&(strata_live_desc_t){.module = argv[1]}, &live) != STRATA_OK) {
        return 1;
    }
    strata_world_t *w = strata_live_world(live);
    for (int i = 0; i < 4; i++) {
        if (strata_world_step(w, 0.25f) != STRATA_OK) {
            return 1;
        }
    }
    printf("live: world '%s', %u systems, 4 steps\n", strata_live_current(live)->world,
           (unsigned)strata_world_schema(w)->schedule->system_count);
    strata_live_close(live);
    return 0;
}

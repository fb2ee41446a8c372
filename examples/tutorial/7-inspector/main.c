/* Step 7: the inspector serves a page about the running pond.
 *
 *     7-inspector --serve    keeps serving http://127.0.0.1:27750/ (Ctrl-C stops it)
 *     7-inspector            asks the inspector itself, checks the answers and stops */
#include "strata_inspect.h" /* first: pond.h then declares pond_inspect_start */

#include <string.h>

#include "scene.h"
#include "visit.h"

#include "../check.h"

int main(int argc, char **argv) {
    bool serve = argc > 1 && strcmp(argv[1], "--serve") == 0;
    pond_world *w = scene_create(NULL);
    if (w == NULL) {
        return 1;
    }

    /* Port 27750 for a person; any free port for the self-check. */
    strata_inspect_t *inspector = NULL;
    if (pond_inspect_start(w, &(strata_inspect_desc_t){.any_port = !serve}, &inspector) != STRATA_OK) {
        fprintf(stderr, "the inspector cannot start (is the port in use?)\n");
        return 1;
    }
    if (serve) {
        printf("open http://127.0.0.1:%u/\n", (unsigned)strata_inspect_port(inspector));
    }

    static const char *const paths[] = {"/api/world", "/api/systems", NULL};
    visit_t *visitor = serve ? NULL : visit_start(strata_inspect_port(inspector), paths);
    while (serve || (visitor != NULL && !visit_done(visitor))) {
        if (strata_inspect_poll(inspector)) { /* answers the page; false while paused from it */
            pond_world_step(w, 1.0f / 60);
        }
        if (serve) {
            visit_frame_wait();
        }
    }

    CHECK(visitor != NULL);
    if (visitor != NULL) {
        const char *world = visit_answer(visitor, 0), *systems = visit_answer(visitor, 1);
        printf("/api/world: %.*s\n", (int)strcspn(world, "\r\n"), world); /* the status line */
        printf("/api/systems: %.*s\n", (int)strcspn(systems, "\r\n"), systems);
        CHECK(strncmp(world, "HTTP/1.1 200", 12) == 0 && strncmp(systems, "HTTP/1.1 200", 12) == 0);
        CHECK(strstr(world, "\"world\":\"pond\"") != NULL);
        CHECK(strstr(systems, "\"Catch\"") != NULL);
        visit_end(visitor);
    }
    strata_inspect_stop(inspector);
    pond_world_destroy(w);
    return check_failed();
}

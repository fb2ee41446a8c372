/* inspect-game: the inspector's test world (tests/inspect/inspect.yaml)
 * running at 30 steps a second with the inspector on and writes allowed,
 * for the browser test's checks of the changed sets and the aspects. As it
 * starts, its world migrates into a new one, as a live reload's does; the
 * inspector serves the new one and lists the reload.
 *
 *     inspect-game COUNT PORT     (PORT 0: any free port; the URL is printed)
 *
 * It stops (the inspector stopped, exit 0) on SIGTERM, SIGINT or SIGHUP
 * and when its parent dies, as the swarm's `ninja inspect` does.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "strata_inspect.h"

#include "insp.h"
#include "insp_game.h"

static volatile sig_atomic_t stopped;

static void stop(int signal) {
    stopped = signal;
}

int main(int argc, char **argv) {
    struct sigaction on_stop = {.sa_handler = stop};
    sigemptyset(&on_stop.sa_mask);
    int signals[] = {SIGTERM, SIGINT, SIGHUP};
    for (int i = 0; i < 3; i++) {
        sigaction(signals[i], &on_stop, NULL);
    }
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* the parent's death is a SIGTERM */
    stopped = getppid() != parent ? SIGTERM : 0;
    long count = argc == 3 ? strtol(argv[1], NULL, 10) : -1, port = argc == 3 ? strtol(argv[2], NULL, 10) : -1;
    if (count < 1 || count > 1000000 || port < 0 || port > 65535) {
        fprintf(stderr, "usage: inspect-game COUNT PORT\n");
        return 2;
    }
    insp_world *w = insp_world_create(NULL);
    strata_inspect_t *in = NULL;
    for (long i = 0; w != NULL && i < count; i++) {
        insp_entity e;
        if (!insp_game_spawn(w, (uint32_t)i, &e)) {
            fprintf(stderr, "inspect-game: out of memory\n");
            return 1;
        }
    }
    strata_inspect_desc_t desc = {.port = (uint16_t)port, .any_port = port == 0, .writes = true};
    if (w == NULL || insp_inspect_start(w, &desc, &in) != STRATA_OK) {
        fprintf(stderr, "inspect-game: cannot start the world or its inspector\n");
        return 1;
    }
    insp_world *next = insp_world_create(NULL);
    strata_load_report_t report;
    insp_inspect_schedule(&desc);
    if (next == NULL || strata_world_migrate(insp_world_core(next), insp_world_core(w), 0, &report) != STRATA_OK ||
        strata_inspect_retarget(in, insp_world_core(next), &desc) != STRATA_OK) {
        fprintf(stderr, "inspect-game: cannot move the world into a new one\n");
        return 1;
    }
    insp_world_destroy(w);
    w = next;
    strata_inspect_reload_t reload = {1, "reloaded", 0.0,
                                      "the world migrated into a new one, as a live reload's does\n"};
    strata_inspect_add_reload(in, &reload);
    printf("inspect-game: inspector at http://127.0.0.1:%u/ (writes need X-Strata-Token: %s)\n",
           (unsigned)strata_inspect_port(in), strata_inspect_token(in));
    fflush(stdout);
    strata_result_t r = STRATA_OK;
    while (r == STRATA_OK && !stopped) {
        if (strata_inspect_poll(in)) {
            r = insp_world_step(w, 1.0f / 30.0f);
        }
        nanosleep(&(struct timespec){0, 1000000000L / 30}, NULL);
    }
    strata_inspect_stop(in);
    insp_world_destroy(w);
    return r == STRATA_OK ? 0 : 1;
}

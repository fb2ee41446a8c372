/* main.c: the swarm on the live loop, without a window — `ninja
 * swarm-live`. A million boids (--count) step 30 times a second; edit
 * schema/swarm.yaml or examples/swarm/systems.c while it runs (a flock's
 * rule, a speed limit's default) and save: the module is rebuilt and the
 * flock carries on in the new one. Each second it prints the steps taken
 * and the step's time; the session prints each reload. --seconds N stops
 * after N seconds (0: never; Ctrl-C stops it too). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void log_line(const char *line, void *user) {
    (void)user;
    printf("%s\n", line);
    fflush(stdout);
}

int main(int argc, char **argv) {
    unsigned long count = 1000000, threads = 1, seconds = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--count") == 0) {
            count = strtoul(argv[i + 1], NULL, 0);
        } else if (strcmp(argv[i], "--threads") == 0) {
            threads = strtoul(argv[i + 1], NULL, 0);
        } else if (strcmp(argv[i], "--seconds") == 0) {
            seconds = strtoul(argv[i + 1], NULL, 0);
        } else {
            break;
        }
    }
    if (argc % 2 == 0 || count == 0 || count > 50000000 || threads > 256) {
        fprintf(stderr, "usage: swarm_live [--count N] [--threads N (0: one per core)] [--seconds N]\n");
        return 2;
    }
    printf("swarm-live: building the swarm's module in build/live/swarm; edit schema/swarm.yaml or "
           "examples/swarm/systems.c and save\n");
    fflush(stdout);
    swarm_host_desc desc = {"build/live/swarm",
                            "schema/swarm.yaml",
                            "examples/swarm",
                            (uint32_t)count,
                            threads == 0 ? STRATA_THREADS_PER_CORE : (uint32_t)threads,
                            log_line,
                            NULL};
    strata_live_t *live = swarm_host_open(&desc);
    if (live == NULL) {
        return 1;
    }
    double start = now_s(), next_report = start + 1.0, stepping = 0.0;
    unsigned long steps = 0;
    while (seconds == 0 || now_s() - start < (double)seconds) {
        double t0 = now_s();
        strata_live_poll(live); /* between two steps: a rebuilt module takes over here */
        if (strata_world_step(strata_live_world(live), 1.0f / 30.0f) != STRATA_OK) {
            fprintf(stderr, "swarm-live: the step failed\n");
            break;
        }
        double t1 = now_s();
        stepping += t1 - t0;
        steps++;
        if (t1 >= next_report) {
            printf("swarm-live: %lu boids, step %u, %.1f ms a step\n", count,
                   (unsigned)swarm_host_table(live)->steps(strata_live_world(live)), 1e3 * stepping / (double)steps);
            fflush(stdout);
            next_report = t1 + 1.0;
            stepping = 0.0;
            steps = 0;
        }
        double left = t0 + 1.0 / 30.0 - now_s();
        if (left > 0) {
            nanosleep(&(struct timespec){0, (long)(left * 1e9)}, NULL);
        }
    }
    strata_live_close(live);
    return 0;
}

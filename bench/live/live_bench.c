/* live_bench.c: live reload's speed (docs/live.md), after `ninja bench`'s
 * suite. On copies of the games' sources under build/bench-live/, as a
 * programmer edits them while the game runs:
 *
 *   - Rectangle Eater: a constant of systems.c, and a field added to (then
 *     taken out of) Position in the schema: from the save to the first step
 *     on the new module (target: under a second);
 *   - the swarm at 1,000,000 boids, the same two kinds of edit (target:
 *     under two seconds);
 *   - the migration alone, the swarm's world into a new world of its
 *     module, in MB of world state (its save's size) a second (target:
 *     500 MB/s);
 *   - a poll with nothing changed (target: a microsecond).
 *
 * Each is the median of a few runs; the machine's load average is printed
 * at the start and the end, since builds share the cores with everything
 * else. Times are printed, never asserted: `ok` or `MISS` against the
 * target. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rectangle_eater/live/host.h"
#include "swarm/live/host.h"
#include "text_file.h"

#define OUTCOME_SECONDS 600.0

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static FILE *log_file;

static void log_line(const char *line, void *user) {
    (void)user;
    fprintf(log_file, "%s\n", line);
}

static void load_average(const char *when) {
    char text[128] = "?";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL && fgets(text, sizeof text, f) != NULL) {
        text[strcspn(text, "\n")] = '\0';
    }
    if (f != NULL) {
        fclose(f);
    }
    printf("load average %s: %s\n", when, text);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static void row(const char *name, double value, const char *unit, double target, bool below) {
    bool ok = below ? value <= target : value >= target;
    printf("%-58s %8.1f %-5s %s %s %.0f\n", name, value, unit, ok ? "ok  " : "MISS", below ? "<=" : ">=", target);
    fflush(stdout);
}

/* --- Files ----------------------------------------------------------------------------- */

/* Replace the first `from` in the file with `to`, saved as an editor saves (a rename). */
static bool swap_text(const char *path, const char *from, const char *to) {
    char *text = text_file_read(path);
    char *at = text != NULL ? strstr(text, from) : NULL;
    if (at == NULL) {
        fprintf(stderr, "live-bench: %s: no '%s'\n", path, from);
        free(text);
        return false;
    }
    size_t size = strlen(text) + strlen(to) + 1;
    char *edited = malloc(size);
    bool ok = edited != NULL;
    if (ok) {
        snprintf(edited, size, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
        ok = text_file_save(path, edited);
    }
    free(edited);
    free(text);
    return ok;
}

/* --- Timing one edit --------------------------------------------------------------------- */

/* Edit (from -> to in path), then wait for the reload and take the first
 * step on the new module: the milliseconds from the save to that step, or
 * a negative number when the reload failed. */
static double edit_to_step(strata_live_t *l, const char *path, const char *from, const char *to) {
    if (!swap_text(path, from, to)) {
        return -1.0;
    }
    double written = now_ms();
    strata_live_event_t event = STRATA_LIVE_NONE;
    while (event == STRATA_LIVE_NONE && now_ms() - written < OUTCOME_SECONDS * 1e3) {
        if (strata_live_wait(l, 1.0)) {
            event = strata_live_poll(l);
        }
    }
    double first = now_ms();
    if (event != STRATA_LIVE_RELOADED || strata_world_step(strata_live_world(l), 1.0f / 60) != STRATA_OK) {
        fprintf(stderr, "live-bench: the reload after editing %s did not succeed (see the log)\n", path);
        return -1.0;
    }
    return first - written;
}

/* Time `runs` edits of a system's constant and `runs` schema edits (a
 * field in and out again, alternately), one row each. */
static bool time_edits(strata_live_t *l, const char *game, const char *systems, const char *constant,
                       const char *schema, const char *component, const char *field, int runs, double target) {
    double code[8], data[8];
    char changed[64], with_field[256], name[96];
    snprintf(changed, sizeof changed, "%s + 0.0f", constant);
    snprintf(with_field, sizeof with_field, "%s, %s }", component, field);
    char without[256];
    snprintf(without, sizeof without, "%s }", component);
    for (int i = 0; i < runs; i++) {
        code[i] = edit_to_step(l, systems, i % 2 ? changed : constant, i % 2 ? constant : changed);
        data[i] = edit_to_step(l, schema, i % 2 ? with_field : without, i % 2 ? without : with_field);
        if (code[i] < 0 || data[i] < 0) {
            return false;
        }
    }
    snprintf(name, sizeof name, "%s: a system's constant, save to step", game);
    row(name, median(code, runs), "ms", target, true);
    snprintf(name, sizeof name, "%s: a schema field, save to step", game);
    row(name, median(data, runs), "ms", target, true);
    return true;
}

/* Copy the files to dir (a fresh folder). */
static bool copy_sources(const char *dir, const char *files) {
    char command[1400];
    snprintf(command, sizeof command, "rm -rf '%s' && mkdir -p '%s' && cp %s '%s/'", dir, dir, files, dir);
    return system(command) == 0;
}

/* --- The cases -------------------------------------------------------------------------------- */

static bool rect_cases(int runs) {
    const char *src = "build/bench-live/rect/src";
    if (!copy_sources(src, "examples/rectangle_eater/*.c examples/rectangle_eater/*.h schema/rectangle_eater.yaml")) {
        return false;
    }
    rect_host_desc desc = {"build/bench-live/rect/module",
                           "build/bench-live/rect/src/rectangle_eater.yaml",
                           src,
                           1,
                           1,
                           false,
                           log_line,
                           NULL};
    strata_live_t *l = rect_host_open(&desc);
    if (l == NULL) {
        return false;
    }
    rect_host_table(l)->autopilot(strata_live_world(l), true);
    for (int i = 0; i < 60; i++) {
        strata_world_step(strata_live_world(l), 1.0f / 60);
    }
    bool ok = time_edits(l, "Rectangle Eater", "build/bench-live/rect/src/systems.c", "1.0f", desc.schema,
                         "Position:   { x: f32, y: f32", "z: f32 = 0", runs, 1000.0);

    /* The poll with nothing changed. */
    enum { POLLS = 10000000 };
    double t0 = now_ms();
    int events = 0;
    for (int i = 0; i < POLLS; i++) {
        events += strata_live_poll(l) != STRATA_LIVE_NONE;
    }
    double ns = (now_ms() - t0) * 1e6 / POLLS;
    row("a poll with nothing changed", ns, "ns", 1000.0, true);
    ok = ok && events == 0;
    strata_live_close(l);
    return ok;
}

static bool swarm_cases(int runs, uint32_t boids) {
    const char *src = "build/bench-live/swarm/src";
    if (!copy_sources(src, "examples/swarm/systems.c examples/swarm/flock.h schema/swarm.yaml")) {
        return false;
    }
    swarm_host_desc desc =
        {"build/bench-live/swarm/module", "build/bench-live/swarm/src/swarm.yaml", src, boids, 1, log_line, NULL};
    strata_live_t *l = swarm_host_open(&desc);
    if (l == NULL) {
        return false;
    }
    for (int i = 0; i < 3; i++) {
        strata_world_step(strata_live_world(l), 1.0f / 30);
    }
    char game[64];
    snprintf(game, sizeof game, "swarm, %u boids", (unsigned)boids);
    bool ok = time_edits(l, game, "build/bench-live/swarm/src/systems.c", "200.0f", desc.schema,
                         "Tint:     { r: u8, g: u8, b: u8, a: u8 = 255", "glow: f32 = 0", runs, 2000.0);

    /* The migration alone: the flock into a new world of the same module. */
    strata_world_t *from = strata_live_world(l);
    size_t bytes = 0;
    strata_world_save_mem(from, NULL, 0, &bytes);
    double ms[5];
    for (int i = 0; i < 5 && ok; i++) {
        strata_world_t *to = strata_live_current(l)->create(NULL);
        strata_load_report_t report;
        double t0 = now_ms();
        ok = to != NULL && strata_world_migrate(to, from, 0, &report) == STRATA_OK;
        ms[i] = now_ms() - t0;
        strata_world_destroy(to);
    }
    if (ok) {
        char name[96];
        snprintf(name, sizeof name, "migration of %u boids (%.0f MB)", (unsigned)boids, (double)bytes / 1e6);
        double t = median(ms, 5);
        row(name, (double)bytes / 1e6 / (t / 1e3), "MB/s", 500.0, false);
    }
    strata_live_close(l);
    return ok;
}

int main(int argc, char **argv) {
    int runs = 3;
    unsigned long boids = 1000000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--runs") == 0) {
            runs = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--boids") == 0) {
            boids = strtoul(argv[i + 1], NULL, 0);
        }
    }
    runs = runs < 1 ? 1 : runs > 8 ? 8 : runs;
    log_file = fopen("build/bench-live.log", "w");
    if (log_file == NULL) {
        fprintf(stderr, "live-bench: cannot write build/bench-live.log\n");
        return 1;
    }
    printf("\nlive reload (docs/live.md): medians of %d runs; the sessions' lines in build/bench-live.log\n", runs);
    load_average("at the start");
    bool ok = rect_cases(runs) && swarm_cases(runs, (uint32_t)boids);
    load_average("at the end");
    fclose(log_file);
    if (!ok) {
        fprintf(stderr, "live-bench: a case failed; see build/bench-live.log\n");
    }
    return ok ? 0 : 1;
}

/* save_bench: save and load throughput at 1,000,000 entities, binary and
 * JSON, in MB/s and entities/s (medians of several runs), and the JSON
 * load's peak memory as a ratio to its text, against its targets. The world is
 * bench/save.yaml: entities spawned from an assemblage (plain columns that
 * copy as they are, and columns with a bool and an enum that need
 * encoding), one in ten also holding a reference to another. */
#define _POSIX_C_SOURCE 200809L
#include "savebench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ENTITIES 1000000u
#define RUNS 5
#define JSON_RUNS 3
#define JSON_LOAD_RUNS 5
/* The JSON load's targets: its speed, and the memory it holds at its peak
 * (the text and every byte the load allocates) as a ratio to the text. */
#define JSON_LOAD_MIN_MBS 100.0
#define JSON_LOAD_MAX_PEAK 2.0

/* The allocator of the world JSON loads into: every byte counted, and the
 * most held at once since `peak` was last reset. */
static size_t held, peak;

static void *counted_alloc(size_t size, void *user) {
    (void)user;
    held += size;
    peak = held > peak ? held : peak;
    return malloc(size);
}

static void *counted_realloc(void *p, size_t old_size, size_t size, void *user) {
    (void)user;
    held += size - old_size;
    peak = held > peak ? held : peak;
    return realloc(p, size);
}

static void counted_free(void *p, size_t size, void *user) {
    (void)user;
    held -= p != NULL ? size : 0;
    free(p);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *samples, int n) {
    qsort(samples, (size_t)n, sizeof *samples, by_value);
    return samples[n / 2];
}

static void die(const char *what, strata_result_t r, const strata_load_report_t *report) {
    fprintf(stderr, "save-bench: %s failed: %s%s%s\n", what, strata_result_str(r), report ? ": " : "",
            report ? report->error : "");
    exit(1);
}

static void row(const char *name, size_t bytes, double seconds) {
    printf("%-28s %10.1f %9.1f %12.0f %10.2f\n", name, (double)bytes / 1e6, (double)bytes / 1e6 / seconds,
           ENTITIES / seconds, seconds * 1e3);
}

static savebench_world *make_world(void) {
    savebench_world *w = savebench_world_create(&(strata_world_desc_t){.initial_capacity = ENTITIES});
    savebench_entity *all = malloc(sizeof *all * ENTITIES);
    if (w == NULL || all == NULL) {
        die("world create", STRATA_ERR_NOMEM, NULL);
    }
    strata_result_t r = savebench_spawn_rect_many(w, ENTITIES, all);
    if (r != STRATA_OK) {
        die("spawn", r, NULL);
    }
    for (uint32_t i = 0; i < ENTITIES; i++) {
        savebench_position_set(w, all[i], (savebench_position){(float)i * 0.5f, (float)(i % 1000) - 500.25f});
        savebench_velocity_set(w, all[i], (savebench_velocity){1.0f / (float)(i + 1), -2.0f});
        if (i % 10 == 0) {
            savebench_target_add(w, all[i], (savebench_target){all[(i * 7919u) % ENTITIES]});
        }
    }
    savebench_score_res(w)->value = 123456789;
    free(all);
    return w;
}

int main(void) {
    savebench_world *w = make_world();
    printf("save and load of %u entities (Position, Velocity, Health, Appearance, Collision; 10%% with Target)\n",
           ENTITIES);
    printf("%-28s %10s %9s %12s %10s\n", "case", "MB", "MB/s", "entities/s", "ms");
    double t[RUNS];

    /* Binary, in memory. */
    size_t size = 0;
    savebench_world_save_mem(w, NULL, 0, &size);
    unsigned char *buf = malloc(size);
    for (int i = 0; i < RUNS; i++) {
        double start = now_s();
        strata_result_t r = savebench_world_save_mem(w, buf, size, &size);
        t[i] = now_s() - start;
        if (r != STRATA_OK) {
            die("save", r, NULL);
        }
    }
    row("binary save (memory)", size, median(t, RUNS));
    savebench_world *loaded = savebench_world_create(NULL);
    strata_load_report_t report;
    for (int i = 0; i < RUNS; i++) {
        double start = now_s();
        strata_result_t r = savebench_world_load_mem(loaded, buf, size, &report);
        t[i] = now_s() - start;
        if (r != STRATA_OK) {
            die("load", r, &report);
        }
    }
    row("binary load (memory)", size, median(t, RUNS));

    /* Binary, through a file (write, fsync, rename; read). */
    char path[] = "/tmp/strata-save-bench-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        die("mkstemp", STRATA_ERR_IO, NULL);
    }
    close(fd);
    for (int i = 0; i < RUNS; i++) {
        double start = now_s();
        strata_result_t r = savebench_world_save(w, path);
        t[i] = now_s() - start;
        if (r != STRATA_OK) {
            die("save to a file", r, NULL);
        }
    }
    row("binary save (file, fsync)", size, median(t, RUNS));
    for (int i = 0; i < RUNS; i++) {
        double start = now_s();
        strata_result_t r = savebench_world_load(loaded, path, &report);
        t[i] = now_s() - start;
        if (r != STRATA_OK) {
            die("load from a file", r, &report);
        }
    }
    row("binary load (file)", size, median(t, RUNS));
    remove(path);
    free(buf);

    /* JSON, in memory. */
    size_t json_size = 0;
    savebench_world_dump_json_mem(w, NULL, 0, &json_size);
    char *json = malloc(json_size);
    for (int i = 0; i < JSON_RUNS; i++) {
        double start = now_s();
        strata_result_t r = savebench_world_dump_json_mem(w, json, json_size, &json_size);
        t[i] = now_s() - start;
        if (r != STRATA_OK) {
            die("JSON dump", r, NULL);
        }
    }
    row("JSON dump (memory)", json_size, median(t, JSON_RUNS));
    /* Into a world whose allocator counts: the load's peak beyond what the
     * world held before (its old contents stay until the load succeeds). */
    strata_world_desc_t counted = {.allocator = {counted_alloc, counted_realloc, counted_free, NULL}};
    savebench_world *json_loaded = savebench_world_create(&counted);
    size_t most = 0;
    for (int i = 0; i < JSON_LOAD_RUNS; i++) {
        size_t before = held;
        peak = held;
        double start = now_s();
        strata_result_t r = savebench_world_load_json_mem(json_loaded, json, json_size, &report);
        t[i] = now_s() - start;
        if (r != STRATA_OK) {
            die("JSON load", r, &report);
        }
        most = peak - before > most ? peak - before : most;
    }
    double load_s = median(t, JSON_LOAD_RUNS);
    row("JSON load (memory, yajl)", json_size, load_s);
    double mbs = (double)json_size / 1e6 / load_s, ratio = (double)(json_size + most) / (double)json_size;
    printf("JSON load targets: %-4s %.1f MB/s >= %.0f; %-4s peak %.2fx the text <= %.1fx (the text and %.1f MB "
           "allocated)\n",
           mbs >= JSON_LOAD_MIN_MBS ? "ok" : "MISS", mbs, JSON_LOAD_MIN_MBS,
           ratio <= JSON_LOAD_MAX_PEAK ? "ok" : "MISS", ratio, JSON_LOAD_MAX_PEAK, (double)most / 1e6);
    free(json);

    strata_world_stats_t stats;
    savebench_world_stats(loaded, &stats);
    if (stats.entities != ENTITIES) {
        die("the loaded world's count", STRATA_ERR_CORRUPT, NULL);
    }
    savebench_world_stats(json_loaded, &stats);
    if (stats.entities != ENTITIES) {
        die("the JSON-loaded world's count", STRATA_ERR_CORRUPT, NULL);
    }
    savebench_world_destroy(json_loaded);
    savebench_world_destroy(loaded);
    savebench_world_destroy(w);
    return 0;
}

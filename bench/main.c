/* main.c: the benchmark driver. Runs the cases (all, or those named on the
 * command line), prints one table row per measurement as it is made, and
 * writes every sample as JSON for bench/report.py (the chart and the
 * side-by-side with bitECS).
 *
 *     strata-bench [--runs N] [--smoke] [--json FILE] [--list] [CASE...]
 *
 * --smoke runs every case once, one pass a run, at a hundredth of its sizes
 * (a whole number of 64s, at least 64): what `ninja test` runs under
 * ASan+UBSan to check the cases and the JSON, not to time anything.
 */
#define _POSIX_C_SOURCE 199309L
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The cases, in the order they run; the name is the one --list prints. */
static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"packed_5", bench_packed5},
    {"simple_iter", bench_simple_iter},
    {"frag_iter", bench_frag_iter},
    {"empty_tables", bench_empty_tables},
    {"entity_cycle", bench_entity_cycle},
    {"add_remove", bench_add_remove},
    {"move", bench_move},
    {"changed", bench_changed},
    {"events", bench_events},
    {"two_systems", bench_two_systems},
    {"seven_systems", bench_seven_systems},
    {"relations", bench_relations},
    {"threads", bench_threads},
    {"snapshot", bench_snapshot},
    {"sparse", bench_sparse},
    {"loop", bench_loop},
};
#define CASE_COUNT (sizeof cases / sizeof cases[0])

/* How long one run of a pair lasts, about: long enough for the clock, short
 * enough that the whole bench stays well under its five minutes. */
#define RUN_NS 20e6

#define MAX_ROWS 96

/* One row of the table, with every sample kept for the JSON. The labels are
 * copies: a case may build one in a buffer of its own (bench/threads.c). */
typedef struct bench_row {
    char name[32], op[96], unit[16];
    uint32_t size;
    int runs;
    bool has_plain;
    double strata[BENCH_MAX_RUNS], plain[BENCH_MAX_RUNS];
    bench_target target;
} bench_row;

/* Median, min and max of some samples. */
typedef struct summary {
    double median, min, max;
} summary;

static bench_row rows[MAX_ROWS];
static int row_count;
static int runs = 9;
static bool smoke; /* --smoke */
static volatile uint32_t laundry;

double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double bench_lap(double *slot, double t0, uint32_t n) {
    double t1 = bench_now();
    *slot = (t1 - t0) / n;
    return t1;
}

int bench_runs(void) {
    return runs;
}

uint32_t bench_count(uint32_t n) {
    if (smoke && n > 64) {
        n = n / 100 / 64 * 64;
        n = n < 64 ? 64 : n;
    }
    laundry = n;
    return laundry;
}

_Noreturn void bench_die(const char *what) {
    fprintf(stderr, "bench: %s failed\n", what);
    exit(1);
}

void bench_check(bool ok, const char *what) {
    if (!ok) {
        bench_die(what);
    }
}

void *bench_alloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        bench_die("malloc");
    }
    return p;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static summary summarize(const double *samples, int n) {
    double sorted[BENCH_MAX_RUNS];
    memcpy(sorted, samples, sizeof *sorted * (size_t)n);
    qsort(sorted, (size_t)n, sizeof *sorted, by_value);
    double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    return (summary){median, sorted[0], sorted[n - 1]};
}

/* The per-run ratios Strata / baseline of a row. */
static summary row_ratio(const bench_row *r) {
    double ratio[BENCH_MAX_RUNS];
    for (int i = 0; i < r->runs; i++) {
        ratio[i] = r->strata[i] / r->plain[i];
    }
    return summarize(ratio, r->runs);
}

/* "ok" or "MISS" against the row's target, with the target itself. */
static void target_text(const bench_row *r, char *out, size_t size) {
    summary s = summarize(r->strata, r->runs);
    switch (r->target.kind) {
    case BENCH_NO_TARGET: snprintf(out, size, "%s", ""); break;
    case BENCH_TARGET_MAX:
        if (r->target.ratio > 0 && r->has_plain) {
            summary q = row_ratio(r);
            snprintf(out, size, "%-4s <= %g; %-4s <= %.2fx", s.median <= r->target.limit ? "ok" : "MISS",
                     r->target.limit, q.median <= r->target.ratio ? "ok" : "MISS", r->target.ratio);
        } else {
            snprintf(out, size, "%-4s <= %g", s.median <= r->target.limit ? "ok" : "MISS", r->target.limit);
        }
        break;
    case BENCH_TARGET_RATIO: {
        summary q = row_ratio(r);
        snprintf(out, size, "%-4s <= %.2fx", q.median <= r->target.limit ? "ok" : "MISS", r->target.limit);
        break;
    }
    }
}

static void print_header(void) {
    printf("Strata bench: %d runs a row; ns per entity-op unless the unit says otherwise.\n", runs);
    if (smoke) {
        printf("--smoke: a hundredth of each size, one pass a run; the figures mean nothing.\n");
    }
    printf("ratio = Strata / plain C of the same run (median of the runs); target = the table in "
           "docs/performance.md.\n\n");
    printf("%-13s %-38s %9s %9s %9s %9s %-9s %9s %6s  %s\n", "case", "row", "entities", "median", "min", "max", "unit",
           "plain C", "ratio", "target");
}

static void print_row(const bench_row *r) {
    summary s = summarize(r->strata, r->runs);
    char plain[16] = "", ratio[16] = "", target[48];
    if (r->has_plain) {
        snprintf(plain, sizeof plain, "%.3f", summarize(r->plain, r->runs).median);
        snprintf(ratio, sizeof ratio, "%.2f", row_ratio(r).median);
    }
    target_text(r, target, sizeof target);
    printf("%-13s %-38s %9u %9.3f %9.3f %9.3f %-9s %9s %6s  %s\n", r->name, r->op, (unsigned)r->size, s.median, s.min,
           s.max, r->unit, plain, ratio, target);
    fflush(stdout);
}

/* Copy a label into a row's field; a label that does not fit is a bug of its case. */
static void label_copy(char *field, size_t size, const char *label) {
    bench_check(strlen(label) < size, "bench_record (a label too long for the row)");
    memcpy(field, label, strlen(label) + 1);
}

void bench_record(const char *name, const char *op, uint32_t size, const char *unit, const double *strata,
                  const double *plain, int n, bench_target target) {
    bench_check(row_count < MAX_ROWS && n >= 1 && n <= BENCH_MAX_RUNS, "bench_record (too many rows or runs)");
    bench_row *r = &rows[row_count++];
    *r = (bench_row){.size = size, .runs = n, .has_plain = plain != NULL, .target = target};
    label_copy(r->name, sizeof r->name, name);
    label_copy(r->op, sizeof r->op, op);
    label_copy(r->unit, sizeof r->unit, unit);
    memcpy(r->strata, strata, sizeof *strata * (size_t)n);
    if (plain != NULL) {
        memcpy(r->plain, plain, sizeof *plain * (size_t)n);
    }
    print_row(r);
}

/* Nanoseconds for `passes` calls of fn(state). */
static double time_passes(bench_pass_fn fn, void *state, long passes) {
    double t0 = bench_now();
    for (long k = 0; k < passes; k++) {
        fn(state);
    }
    return bench_now() - t0;
}

void bench_time_pair(const bench_pair *p, double *strata, double *plain) {
    /* Two untimed passes each (first touches, branch history), then the
     * slower of the two sets the passes a run needs. */
    double one = 0;
    for (int warm = 0; warm < 2; warm++) {
        double ts = time_passes(p->strata, p->strata_state, 1);
        double tp = p->plain ? time_passes(p->plain, p->plain_state, 1) : 0;
        one = ts > tp ? ts : tp;
    }
    long passes = (long)(RUN_NS / (one > 1 ? one : 1)) + 1;
    passes = smoke || passes < 1 ? 1 : passes > (1L << 22) ? (1L << 22) : passes;
    for (int r = 0; r < runs; r++) {
        /* Alternate which goes first, so neither always inherits the
         * other's cache state. */
        double ts, tp = 0;
        if (r % 2 == 0 && p->plain) {
            tp = time_passes(p->plain, p->plain_state, passes);
            ts = time_passes(p->strata, p->strata_state, passes);
        } else {
            ts = time_passes(p->strata, p->strata_state, passes);
            tp = p->plain ? time_passes(p->plain, p->plain_state, passes) : 0;
        }
        strata[r] = ts / (double)passes / p->ops;
        if (p->plain) {
            plain[r] = tp / (double)passes / p->ops;
        }
    }
}

void bench_run_pair(const bench_pair *p) {
    double strata[BENCH_MAX_RUNS], plain[BENCH_MAX_RUNS];
    bench_time_pair(p, strata, plain);
    bench_record(p->name, p->op, p->size, "ns/op", strata, p->plain ? plain : NULL, runs, p->target);
}

/* The CPU's model name, for the JSON; "unknown" off Linux. */
static void cpu_model(char *out, size_t size) {
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL) {
        return;
    }
    char line[256];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
            snprintf(out, size, "%s", colon + 2);
            out[strcspn(out, "\n")] = '\0';
            break;
        }
    }
    fclose(f);
}

static void json_samples(FILE *f, const char *key, const double *v, int n) {
    summary s = summarize(v, n);
    fprintf(f, "\"%s\": {\"median\": %.6g, \"min\": %.6g, \"max\": %.6g, \"samples\": [", key, s.median, s.min, s.max);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s%.6g", i ? ", " : "", v[i]);
    }
    fprintf(f, "]}");
}

/* s as a JSON string: quoted, with '"', '\\' and control characters escaped. */
static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(f, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
}

/* Every row with its samples. */
static bool write_json(const char *path) {
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return false;
    }
    char cpu[128];
    cpu_model(cpu, sizeof cpu);
    fprintf(f, "{\n  \"tool\": \"strata-bench\",\n  \"runs\": %d,\n  \"smoke\": %s,\n  \"compiler\": ", runs,
            smoke ? "true" : "false");
    json_string(f, __VERSION__);
    fprintf(f, ",\n  \"cpu\": ");
    json_string(f, cpu);
    fprintf(f, ",\n");
    fprintf(f, "  \"rows\": [\n");
    for (int i = 0; i < row_count; i++) {
        const bench_row *r = &rows[i];
        fprintf(f, "    {\"case\": ");
        json_string(f, r->name);
        fprintf(f, ", \"op\": ");
        json_string(f, r->op);
        fprintf(f, ", \"size\": %u, \"unit\": ", (unsigned)r->size);
        json_string(f, r->unit);
        fprintf(f, ", ");
        json_samples(f, "strata", r->strata, r->runs);
        if (r->has_plain) {
            fprintf(f, ", ");
            json_samples(f, "plain", r->plain, r->runs);
            summary q = row_ratio(r);
            fprintf(f, ", \"ratio\": {\"median\": %.4g, \"min\": %.4g, \"max\": %.4g}", q.median, q.min, q.max);
        }
        if (r->target.kind != BENCH_NO_TARGET) {
            fprintf(f, ", \"target\": {\"kind\": \"%s\", \"limit\": %g",
                    r->target.kind == BENCH_TARGET_MAX ? "max" : "ratio", r->target.limit);
            if (r->target.ratio > 0) {
                fprintf(f, ", \"ratio\": %g", r->target.ratio);
            }
            fprintf(f, "}");
        }
        fprintf(f, "}%s\n", i + 1 < row_count ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return fclose(f) == 0;
}

static int usage(void) {
    fprintf(stderr, "usage: strata-bench [--runs N] [--smoke] [--json FILE] [--list] [CASE...]\n");
    return 2;
}

int main(int argc, char **argv) {
    const char *json = NULL;
    bool selected[CASE_COUNT] = {false};
    bool any = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = atoi(argv[++i]);
            if (runs < 1 || runs > BENCH_MAX_RUNS) {
                return usage();
            }
        } else if (strcmp(argv[i], "--smoke") == 0) {
            smoke = true;
            runs = 1;
        } else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
            json = argv[++i];
        } else if (strcmp(argv[i], "--list") == 0) {
            for (size_t c = 0; c < CASE_COUNT; c++) {
                printf("%s\n", cases[c].name);
            }
            return 0;
        } else {
            size_t c = 0;
            while (c < CASE_COUNT && strcmp(argv[i], cases[c].name) != 0) {
                c++;
            }
            if (c == CASE_COUNT) {
                fprintf(stderr, "strata-bench: no case '%s' (--list names them)\n", argv[i]);
                return usage();
            }
            selected[c] = any = true;
        }
    }
    print_header();
    for (size_t c = 0; c < CASE_COUNT; c++) {
        if (!any || selected[c]) {
            cases[c].run();
        }
    }
    if (json != NULL && !write_json(json)) {
        fprintf(stderr, "strata-bench: cannot write %s\n", json);
        return 1;
    }
    return 0;
}

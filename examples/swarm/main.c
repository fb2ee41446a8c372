/* swarm: a million boids on a generated Strata world — `ninja swarm`.
 * Creates the flock in bulk, runs it headless, times every system on its
 * own (ms a step, ns an entity) and the whole step, and writes a picture of
 * the final state to build/swarm.png. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef SWARM_INSPECT
#include "stop.h"
#include "strata_inspect.h" /* before the world's header: it adds swarm_inspect_start */
#endif
#include "canvas.h"
#include "flock.h"

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Time spent in each system, summed over the timed steps. */
static double spent[SWARM_SYSTEM_COUNT];

static void keep(strata_result_t *first, strata_result_t r) {
    if (*first == STRATA_OK) {
        *first = r;
    }
}

/* swarm_world_step, one system at a time in schedule order (each split
 * into chunks on the world's threads when it is `parallel`), timing each. */
static strata_result_t timed_step(swarm_world *w, float dt) {
    strata_world_t *core = swarm_world_core(w);
    strata_result_t first = STRATA_OK;
    strata_step_begin(core);
    for (uint32_t id = 0; id < SWARM_SYSTEM_COUNT; id++) {
        if (swarm_system_is_enabled(core, id)) {
            double t0 = now_ns();
            keep(&first, swarm_system_run(w, id, dt));
            spent[id] += now_ns() - t0;
        }
    }
    keep(&first, strata_step_end(core));
    return first;
}

static const char *system_name(int id) {
    switch (id) {
    case SWARM_SYSTEM_BIN: return "Bin";
    case SWARM_SYSTEM_STEER: return "Steer";
    case SWARM_SYSTEM_INTEGRATE: return "Integrate";
    case SWARM_SYSTEM_WRAP: return "Wrap";
    case SWARM_SYSTEM_COLOUR: return "Colour";
    case SWARM_SYSTEM_TICK: return "Tick";
    default: return "Splat";
    }
}

/* The entities a system visits a step (0: it has no terms). */
static uint32_t visited(swarm_world *w, int id) {
    switch (id) {
    case SWARM_SYSTEM_BIN: return swarm_bin_count(w);
    case SWARM_SYSTEM_STEER: return swarm_steer_count(w);
    case SWARM_SYSTEM_INTEGRATE: return swarm_integrate_count(w);
    case SWARM_SYSTEM_WRAP: return swarm_wrap_count(w);
    case SWARM_SYSTEM_COLOUR: return swarm_colour_count(w);
    case SWARM_SYSTEM_SPLAT: return swarm_splat_count(w);
    default: return 0;
    }
}

#ifdef SWARM_INSPECT
/* Run the flock at 30 steps a second with the inspector on, printing its
 * URL, until `steps` steps have run (0: until stopped by a signal or the
 * parent's death). swarm_world_step times each system for the inspector
 * by itself. */
static int inspect_run(swarm_world *w, unsigned port, unsigned long steps) {
    example_stop_on_signals();
    strata_inspect_t *inspector = NULL;
    strata_inspect_desc_t desc = {.port = (uint16_t)port, .any_port = port == 0, .writes = true};
    strata_result_t r = swarm_inspect_start(w, &desc, &inspector);
    if (r != STRATA_OK) {
        fprintf(stderr, "swarm: the inspector cannot listen on port %u: %s\n", port, strata_result_str(r));
        return 1;
    }
    printf("swarm: inspector at http://127.0.0.1:%u/ (writes on, X-Strata-Token: %s; Ctrl-C stops)\n",
           (unsigned)strata_inspect_port(inspector), strata_inspect_token(inspector));
    fflush(stdout);
    for (unsigned long s = 0; (steps == 0 || s < steps) && r == STRATA_OK && !example_stop_asked();) {
        double t0 = now_ns();
        if (strata_inspect_poll(inspector)) {
            r = swarm_world_step(w, 1.0f / 30.0f);
            s++;
        }
        double left = 1e9 / 30.0 - (now_ns() - t0);
        if (left > 0) {
            nanosleep(&(struct timespec){0, (long)left}, NULL);
        }
    }
    strata_inspect_stop(inspector);
    return r == STRATA_OK ? 0 : 1;
}
#endif

/* Tone-map the summed light into the canvas: dark blue where empty,
 * saturating smoothly where thousands of boids overlap. */
static void develop(canvas *c) {
    for (int i = 0; i < FLOCK_IMAGE * FLOCK_IMAGE; i++) {
        uint8_t *px = c->rgba + 4 * i;
        for (int ch = 0; ch < 3; ch++) {
            float v = 1.0f - expf(-flock_light[i][ch] / 900.0f);
            px[ch] = (uint8_t)(v * 255.0f + (ch == 2 ? 18.0f : 8.0f) * (1.0f - v));
        }
        px[3] = 255;
    }
}

int main(int argc, char **argv) {
    unsigned long count = 1000000, steps = 180, threads = 1;
    const char *out = "build/swarm.png";
#ifdef SWARM_INSPECT
    long inspect_port = -1;
#endif
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--count") == 0) {
            count = strtoul(argv[i + 1], NULL, 0);
        } else if (strcmp(argv[i], "--steps") == 0) {
            steps = strtoul(argv[i + 1], NULL, 0);
        } else if (strcmp(argv[i], "--threads") == 0) {
            threads = strtoul(argv[i + 1], NULL, 0); /* 0: one per core */
        } else if (strcmp(argv[i], "--out") == 0) {
            out = argv[i + 1];
#ifdef SWARM_INSPECT
        } else if (strcmp(argv[i], "--inspect") == 0) {
            inspect_port = strtol(argv[i + 1], NULL, 0); /* 0: any free port */
#endif
        } else {
            break;
        }
    }
    if (argc % 2 == 0 || count == 0 || count > 50000000 || steps < 2 || threads > 256) {
        fprintf(stderr, "usage: swarm [--count N] [--steps N] [--threads N (0: one per core)] [--out FILE.png]\n");
        return 2;
    }
    const float dt = 1.0f / 30.0f;
    const uint32_t n = (uint32_t)count, fast = n / 10;

    swarm_world *w = swarm_world_create(
        &(strata_world_desc_t){.initial_capacity = n,
                               .threads = threads == 0 ? STRATA_THREADS_PER_CORE : (uint32_t)threads});
    swarm_entity *handles = malloc(sizeof *handles * (n - fast > fast ? n - fast : fast));
    canvas picture = {0};
    if (!w || !handles || !canvas_init(&picture, FLOCK_IMAGE, FLOCK_IMAGE)) {
        fprintf(stderr, "swarm: out of memory\n");
        return 1;
    }

    /* The flock from its two assemblages, in bulk: one placement each. */
    double t0 = now_ns();
    strata_result_t r = swarm_spawn_boid_many(w, n - fast, handles);
    if (r == STRATA_OK) {
        r = swarm_spawn_fast_boid_many(w, fast, handles);
    }
    double created = now_ns() - t0;
    free(handles);
    if (r != STRATA_OK) {
        fprintf(stderr, "swarm: creating %lu boids: %s\n", count, strata_result_str(r));
        return 1;
    }
    flock_scatter(w);             /* at random, flying in random directions */
    swarm_splat_enable(w, false); /* the picture is taken once, at the end */
#ifdef SWARM_INSPECT
    if (inspect_port >= 0 && inspect_port < 65536) {
        int code = inspect_run(w, (unsigned)inspect_port, 0);
        swarm_world_destroy(w);
        canvas_free(&picture);
        return code;
    }
#endif

    /* Most steps system by system, timed; the last ones as swarm_world_step. */
    unsigned long whole = steps / 5 ? steps / 5 : 1, timed = steps - whole;
    for (unsigned long s = 0; s < timed && r == STRATA_OK; s++) {
        r = timed_step(w, dt);
    }
    t0 = now_ns();
    for (unsigned long s = 0; s < whole && r == STRATA_OK; s++) {
        r = swarm_world_step(w, dt);
    }
    double stepping = (now_ns() - t0) / (double)whole;
    if (r != STRATA_OK) {
        fprintf(stderr, "swarm: step: %s\n", strata_result_str(r));
        return 1;
    }
    t0 = now_ns();
    swarm_splat_ctx splat = swarm_splat_begin(w, dt);
    swarm_splat_run(&splat);
    swarm_splat_end(&splat);
    spent[SWARM_SYSTEM_SPLAT] = (now_ns() - t0) * (double)timed; /* once, shown per step like the rest */

    strata_world_stats_t stats;
    swarm_world_stats(w, &stats);
    printf("swarm: %u boids (%u fast), %u archetypes, %.1f MB; spawned in bulk at %.1f ns a boid\n",
           (unsigned)stats.entities, (unsigned)fast, (unsigned)stats.tables, (double)stats.bytes / 1e6,
           created / (double)n);
    printf("%lu steps of 1/30 s on %u thread(s): %lu timed system by system, %lu by swarm_world_step\n\n", steps,
           (unsigned)strata_world_threads(swarm_world_core(w)), timed, whole);
    printf("  %-10s %10s %12s\n", "system", "ms/step", "ns/entity");
    double sum = 0.0;
    for (int id = 0; id < SWARM_SYSTEM_COUNT; id++) {
        double ms = spent[id] / (double)timed / 1e6;
        uint32_t m = visited(w, id);
        sum += id == SWARM_SYSTEM_SPLAT ? 0.0 : ms;
        if (m) {
            printf("  %-10s %10.3f %12.2f%s\n", system_name(id), ms, ms * 1e6 / (double)m,
                   id == SWARM_SYSTEM_SPLAT ? "   (disabled; run once for the picture)" : "");
        } else {
            printf("  %-10s %10.3f %12s\n", system_name(id), ms, "-");
        }
    }
    printf("  %-10s %10.3f %12.2f\n", "sum", sum, sum * 1e6 / (double)n);
    printf("  %-10s %10.3f %12.2f\n\n", "world_step", stepping / 1e6, stepping / (double)n);

    develop(&picture);
    char caption[96];
    snprintf(caption, sizeof caption, "%u BOIDS  STEP %u  %.1f MS/STEP", (unsigned)stats.entities,
             (unsigned)swarm_clock_res(w)->steps, stepping / 1e6);
    canvas_fill(&picture, 0, FLOCK_IMAGE - 20, FLOCK_IMAGE, FLOCK_IMAGE, (canvas_color){0, 0, 0, 170});
    canvas_text(&picture, 8, FLOCK_IMAGE - 14, 1, (canvas_color){230, 230, 240, 255}, caption);
    int status = canvas_write_png(&picture, out, 1) ? 0 : 1;
    if (status == 0) {
        printf("wrote %s\n", out);
    }
    canvas_free(&picture);
    swarm_world_destroy(w);
    return status;
}

/* demo.c: Rectangle Eater without a window — `ninja demo`. The autopilot
 * plays a seeded game until it loses (or a time limit), fed frames of
 * 1/60 s, or of 1/30 or 1/144 s, or of random lengths (--frames-of): the
 * rules run in the fixed phase, 60 times a second of game time, so every
 * pattern ends in the same state (tests/examples/test_demo_frames.py
 * compares the hashes). The last frame goes to a PNG, and a few along the
 * way. As a player's F5 would, it saves the game at one moment; at the end
 * it loads that save (F9) and plays on from it with the same frames, which
 * must end in the very same state. Built with -DRECTANGLE_EATER_INSPECT
 * (rectangle_eater-inspect), `--inspect PORT` plays on at 60 steps a second
 * with the live inspector instead (PORT 0: any free one; the URL is
 * printed), until a signal or the parent's death. */
#ifdef RECTANGLE_EATER_INSPECT
#define _POSIX_C_SOURCE 200809L
#include "stop.h"
#include "strata_inspect.h" /* before the world's header: it adds rect_inspect_start */
#else
#define _POSIX_C_SOURCE 199309L
#endif
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "game.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void usage(void) {
    fprintf(stderr, "usage: rectangle_eater [--seed N] [--frames N] [--frames-of 60|30|144|mix] [--every N]\n"
                    "                       [--out FILE.png] [--prefix PATH] [--save-at N] [--save FILE]\n"
                    "  plays a game with the autopilot until it is over or --frames sixtieths of a second\n"
                    "  have passed (default 7200), in frames of 1/60 s, 1/30 s, 1/144 s or random lengths\n"
                    "  of 1 to 50 ms (--frames-of, default 60); writes the last frame to --out (default\n"
                    "  build/rectangle_eater.png) and one every --every sixtieths (default 600; 0: none)\n"
                    "  to PREFIX_NNNN.png (default build/rectangle_eater); saves the game at the first\n"
                    "  frame ending at or past --save-at sixtieths (default 600; 0: never) to --save\n"
                    "  (default build/rectangle_eater.save), then loads it and replays to check the same end\n");
}

#define NS_PER_S 1000000000ull

/* The ends of the frames, in nanoseconds of game time, up to `total`: at
 * k / rate s (as a monotonic clock's integer readings), or random lengths
 * of 1 to 50 ms (a fixed xorshift sequence) for rate 0. *count gets how
 * many. NULL when out of memory. */
static uint64_t *frame_ends(uint32_t rate, uint64_t total, size_t *count) {
    size_t cap = (size_t)(total / 1000000u) + 2, n = 0;
    uint64_t *ends = malloc(cap * sizeof *ends), at = 0, x = 0x2545F4914F6CDD1Dull;
    while (ends && at < total && n < cap) {
        if (rate > 0) {
            at = (uint64_t)(n + 1) * NS_PER_S / rate;
        } else {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            at += 1000000u + x % 49000001u;
        }
        ends[n++] = at < total ? at : total;
    }
    *count = n;
    return ends;
}

#ifdef RECTANGLE_EATER_INSPECT
/* The autopilot plays at 60 steps a second with the inspector on `port`
 * (after a game over the world steps on, still), until SIGTERM, SIGINT,
 * SIGHUP or the parent's death; 0 when it stopped cleanly. */
static int inspect_run(rect_world *w, long port) {
    example_stop_on_signals();
    strata_inspect_t *in = NULL;
    strata_inspect_desc_t desc = {.port = (uint16_t)port, .any_port = port == 0, .writes = true};
    if (rect_inspect_start(w, &desc, &in) != STRATA_OK) {
        fprintf(stderr, "rectangle_eater: the inspector cannot listen on port %ld\n", port);
        return 1;
    }
    printf("rectangle_eater: inspector at http://127.0.0.1:%u/ (writes on, X-Strata-Token: %s)\n",
           (unsigned)strata_inspect_port(in), strata_inspect_token(in));
    fflush(stdout);
    strata_result_t r = STRATA_OK;
    while (r == STRATA_OK && !example_stop_asked()) {
        if (strata_inspect_poll(in)) {
            r = rect_world_step(w, RECT_DT);
        }
        nanosleep(&(struct timespec){0, 1000000000L / 60}, NULL);
    }
    strata_inspect_stop(in);
    return r == STRATA_OK ? 0 : 1;
}
#endif

int main(int argc, char **argv) {
    unsigned long long seed = 1;
    unsigned long frames = 7200, every = 600;
    const char *out = "build/rectangle_eater.png";
    const char *prefix = "build/rectangle_eater";
    const char *save_path = "build/rectangle_eater.save";
    const char *pattern = "60";
    unsigned long save_at = 600;
    long inspect_port = -1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (val && strcmp(arg, "--seed") == 0) {
            seed = strtoull(val, NULL, 0);
        } else if (val && strcmp(arg, "--frames") == 0) {
            frames = strtoul(val, NULL, 0);
        } else if (val && strcmp(arg, "--frames-of") == 0) {
            pattern = val;
        } else if (val && strcmp(arg, "--every") == 0) {
            every = strtoul(val, NULL, 0);
        } else if (val && strcmp(arg, "--out") == 0) {
            out = val;
        } else if (val && strcmp(arg, "--prefix") == 0) {
            prefix = val;
        } else if (val && strcmp(arg, "--save-at") == 0) {
            save_at = strtoul(val, NULL, 0);
        } else if (val && strcmp(arg, "--save") == 0) {
            save_path = val;
        } else if (val && strcmp(arg, "--inspect") == 0) {
            inspect_port = strtol(val, NULL, 0);
        } else {
            usage();
            return 2;
        }
        i++;
    }
    uint32_t rate = strcmp(pattern, "60") == 0    ? 60
                    : strcmp(pattern, "30") == 0  ? 30
                    : strcmp(pattern, "144") == 0 ? 144
                                                  : 0;
    if (rate == 0 && strcmp(pattern, "mix") != 0) {
        usage();
        return 2;
    }

    canvas screen;
    size_t steps = 0;
    uint64_t *ends = frame_ends(rate, (uint64_t)frames * NS_PER_S / 60u, &steps);
    rect_world *w = ends ? rect_game_create(seed) : NULL;
    if (!w || !canvas_init(&screen, RECT_WIDTH, RECT_HEIGHT)) {
        fprintf(stderr, "rectangle_eater: out of memory\n");
        return 1;
    }
    rect_screen shown = {.target = &screen};
    snprintf(shown.footer, sizeof shown.footer, "AUTOPILOT  SEED %llu", seed);
    rect_render_to(w, &shown);
    rect_autopilot_enable(w, true);
#ifdef RECTANGLE_EATER_INSPECT
    if (inspect_port >= 0 && inspect_port < 65536) {
        rect_render_to(w, NULL);
        int code = inspect_run(w, inspect_port);
        rect_world_destroy(w);
        canvas_free(&screen);
        free(ends);
        return code;
    }
#else
    (void)inspect_port;
#endif

    const rect_game *game = rect_game_res(w);
    double stepping = 0.0;
    size_t step = 0, saved = 0;
    uint64_t save_ns = (uint64_t)save_at * NS_PER_S / 60u, every_ns = (uint64_t)every * NS_PER_S / 60u;
    int status = 0;
    while (step < steps && !game->over) {
        uint64_t from = step ? ends[step - 1] : 0, to = ends[step];
        double t0 = now_ms();
        strata_result_t r = rect_world_step_ns(w, to - from);
        stepping += now_ms() - t0;
        step++;
        if (r != STRATA_OK) {
            fprintf(stderr, "rectangle_eater: step %zu: %s\n", step, strata_result_str(r));
            status = 1;
            break;
        }
        if (save_at && saved == 0 && to >= save_ns && !game->over) {
            saved = step;
            if (rect_world_save(w, save_path) != STRATA_OK) {
                fprintf(stderr, "rectangle_eater: cannot save %s\n", save_path);
                status = 1;
            }
        }
        if (every_ns && to / every_ns != from / every_ns && !game->over) {
            char path[512];
            snprintf(path, sizeof path, "%s_%04llu.png", prefix, (unsigned long long)(to / every_ns * every));
            if (!canvas_write_png(&screen, path, 2)) {
                status = 1;
            }
        }
    }
    if (!canvas_write_png(&screen, out, 2)) {
        status = 1;
    }

    strata_world_stats_t stats;
    rect_world_stats(w, &stats);
    uint64_t end_hash = rect_state_hash(w);
    int score = (int)game->score;
    printf("rectangle eater, seed %llu, frames of %s%s: %s after %u runs of the rules (%.1f s of play) in %zu frames\n",
           seed, rate ? "1/" : "", rate ? pattern : "1 to 50 ms", game->over ? "game over" : "still playing",
           (unsigned)game->frame, (double)game->frame / 60.0, step);
    printf("  score %d, %u rectangles spawned, %u entities now\n", score, (unsigned)game->spawned,
           (unsigned)stats.entities);
    printf("  %.4f ms per frame (every system, rendering included), state hash %016llx\n",
           step ? stepping / (double)step : 0.0, (unsigned long long)end_hash);
    printf("  wrote %s\n", out);

    /* F9: back to the saved frame, and play on from there with the same frames (not drawn). */
    if (saved) {
        rect_render_to(w, NULL);
        strata_load_report_t report;
        if (rect_world_load(w, save_path, &report) != STRATA_OK) {
            fprintf(stderr, "rectangle_eater: cannot load %s: %s\n", save_path, report.error);
            status = 1;
        } else {
            size_t replayed = saved;
            while (replayed < step && rect_world_step_ns(w, ends[replayed] - ends[replayed - 1]) == STRATA_OK) {
                replayed++;
            }
            bool same = rect_state_hash(w) == end_hash;
            printf("  saved at frame %zu to %s, loaded it and played on: %s\n", saved, save_path,
                   same ? "the same final state" : "A DIFFERENT FINAL STATE");
            status |= same ? 0 : 1;
        }
    }
    rect_world_destroy(w);
    canvas_free(&screen);
    free(ends);
    return status;
}

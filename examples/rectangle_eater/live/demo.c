/* demo.c: Rectangle Eater on the live loop, without a window — `ninja
 * live-demo`. It copies the game's schema (as rect.yaml) and sources into
 * a folder of its own, starts the game with the autopilot on, and then,
 * as a programmer would while it runs, edits the copies one attempt at a
 * time, each edit found by pattern:
 *
 *   1. a field with a default added to Position, which every entity holds;
 *   2. that field renamed, with renamed_from;
 *   3. a constant changed in a system's C code;
 *   4. an error put in the schema;
 *   5. a change that would lose values (the field narrowed to i8).
 *
 * It prints one line per attempt: accepted or refused, the time from the
 * write to the first step on the new module, the entities and the state
 * hash before and after. Every accepted reload compares each carried value
 * of the old world with the new one, field by field (the session's
 * `verify`); a refused one must leave the world's bytes as they were. It
 * exits 1 if an attempt ends otherwise than listed above. The session's own
 * lines go to DIR/live.log. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host.h"
#include "text_file.h"

#define FRAME (1.0f / 60.0f)
#define OUTCOME_SECONDS 300.0 /* an attempt with no outcome by then is a failure */

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static FILE *log_file;
static char last_error[512]; /* the first `error:` line of the last attempt */

static void log_line(const char *line, void *user) {
    (void)user;
    fprintf(log_file, "%s\n", line);
    fflush(log_file);
    if (last_error[0] == '\0' && strstr(line, ": error: ") != NULL) {
        const char *file = strrchr(line, '/'); /* the file's name, not its folder */
        snprintf(last_error, sizeof last_error, "%s",
                 file != NULL && file < strstr(line, ": error: ") ? file + 1 : line);
    }
}

/* --- Files, edited by pattern ----------------------------------------------------- */

static bool copy_file(const char *from, const char *to) {
    char *text = text_file_read(from);
    bool ok = text != NULL && text_file_save(to, text);
    free(text);
    return ok;
}

/* text (freed) with the first match of `pattern` (POSIX extended) at or
 * after the first `anchor` (NULL: anywhere) edited: its group `group`
 * becomes `with`, formatted with the group's old text (%s), which goes to
 * `was` too. NULL, and a line on stderr, when nothing matches. */
static char *substitute(char *text, const char *anchor, const char *pattern, int group, const char *with, char *was,
                        size_t was_size) {
    const char *from = text != NULL && anchor != NULL ? strstr(text, anchor) : text;
    regex_t re;
    regmatch_t m[4];
    bool found = from != NULL && regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE) == 0;
    if (found) {
        found = regexec(&re, from, 4, m, 0) == 0 && m[group].rm_so >= 0;
        regfree(&re);
    }
    if (!found) {
        fprintf(stderr, "live-demo: nothing matches %s%s%s\n", pattern, anchor ? " after " : "", anchor ? anchor : "");
        free(text);
        return NULL;
    }
    size_t at = (size_t)(from - text) + (size_t)m[group].rm_so, end = (size_t)(from - text) + (size_t)m[group].rm_eo;
    snprintf(was, was_size, "%.*s", (int)(end - at), text + at);
    char replacement[256];
    snprintf(replacement, sizeof replacement, with, was);
    size_t size = strlen(text) + strlen(replacement) + 1;
    char *edited = malloc(size);
    if (edited != NULL) {
        snprintf(edited, size, "%.*s%s%s", (int)at, text, replacement, text + end);
    }
    free(text);
    return edited;
}

/* One save of the file at path with the edit of substitute() made. */
static bool edit(const char *path, const char *anchor, const char *pattern, int group, const char *with, char *was,
                 size_t was_size) {
    char *text = substitute(text_file_read(path), anchor, pattern, group, with, was, was_size);
    bool ok = text != NULL && text_file_save(path, text);
    free(text);
    return ok;
}

/* --- The attempts ---------------------------------------------------------------------- */

typedef struct demo_t {
    strata_live_t *live;
    canvas screen;
    rect_screen shown;
    char schema[1100], systems[1100];
    int failures;
} demo_t;

static void attach(demo_t *d) {
    strata_world_t *w = strata_live_world(d->live);
    rect_host_table(d->live)->render_to(w, &d->shown);
    rect_host_table(d->live)->autopilot(w, true);
}

static uint64_t hash_of(demo_t *d) {
    return rect_host_table(d->live)->hash(strata_live_world(d->live));
}

static uint32_t entities_of(demo_t *d) {
    strata_world_stats_t stats;
    strata_world_stats(strata_live_world(d->live), &stats);
    return stats.entities;
}

static unsigned char *snapshot(demo_t *d, size_t *size) {
    strata_world_t *w = strata_live_world(d->live);
    if (strata_world_save_mem(w, NULL, 0, size) != STRATA_ERR_LIMIT) {
        return NULL;
    }
    unsigned char *bytes = malloc(*size);
    if (bytes != NULL && strata_world_save_mem(w, bytes, *size, size) != STRATA_OK) {
        free(bytes);
        bytes = NULL;
    }
    return bytes;
}

static bool step(demo_t *d) {
    return strata_world_step(strata_live_world(d->live), FRAME) == STRATA_OK;
}

/* Play at 60 steps a second until the attempt started at `written` (ms)
 * has an outcome; print its line; false if it is not the one expected. */
static bool attempt(demo_t *d, int number, const char *what, double written, strata_live_event_t expected) {
    last_error[0] = '\0';
    uint64_t before = hash_of(d);
    uint32_t entities = entities_of(d);
    size_t size = 0, size_after = 0;
    unsigned char *bytes = NULL;
    strata_live_event_t event = STRATA_LIVE_NONE;
    double next_frame = now_ms();
    while (event == STRATA_LIVE_NONE && now_ms() - written < OUTCOME_SECONDS * 1e3) {
        before = hash_of(d);
        entities = entities_of(d);
        free(bytes);
        bytes = snapshot(d, &size);
        event = strata_live_poll(d->live);
        if (event == STRATA_LIVE_NONE) {
            step(d);
            next_frame += FRAME * 1e3;
            /* The rest of the frame, or less: the watcher's outcome wakes it. */
            double wait = next_frame - now_ms();
            if (wait > 0) {
                strata_live_wait(d->live, wait / 1e3);
            }
        }
    }
    bool ok = event == expected;
    if (event == STRATA_LIVE_RELOADED) {
        attach(d);
        double first_step = now_ms();
        uint64_t after = hash_of(d);
        ok = ok && entities_of(d) == entities;
        step(d);
        printf("reload %d accepted: %s (%.0f ms from write to first step; %u entities, hash %016llx -> %016llx)\n",
               number, what, first_step - written, (unsigned)entities, (unsigned long long)before,
               (unsigned long long)after);
    } else {
        unsigned char *now = snapshot(d, &size_after);
        bool same = now != NULL && bytes != NULL && size == size_after && memcmp(now, bytes, size) == 0 &&
                    hash_of(d) == before;
        ok = ok && same;
        free(now);
        printf("reload %d refused: %s (old module kept; %u entities, %s)\n", number, last_error[0] ? last_error : what,
               (unsigned)entities, same ? "hash unchanged" : "THE WORLD CHANGED");
    }
    if (!ok) {
        printf("  expected %s; see %s\n", expected == STRATA_LIVE_RELOADED ? "an accepted reload" : "a refusal",
               "the session's log");
    }
    fflush(stdout);
    free(bytes);
    return ok;
}

/* Copy the game's schema and sources into dir/src: the files the demo edits. */
static bool prepare(const char *dir, demo_t *d) {
    static const char *const files[] = {"autopilot.c", "game.c", "game.h", "render.c", "screen.h", "systems.c"};
    char command[1200];
    snprintf(command, sizeof command,
             "rm -rf '%s/src' && mkdir -p '%s/src' && cp examples/rectangle_eater/*.c "
             "examples/rectangle_eater/*.h '%s/src/' && rm -f '%s/src/demo.c' "
             "'%s/src/play.c'",
             dir, dir, dir, dir, dir);
    if (system(command) != 0) {
        return false;
    }
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1100];
        snprintf(path, sizeof path, "%s/src/%s", dir, files[i]);
        if (access(path, R_OK) != 0) {
            return false;
        }
    }
    snprintf(d->schema, sizeof d->schema, "%s/src/rect.yaml", dir);
    snprintf(d->systems, sizeof d->systems, "%s/src/systems.c", dir);
    return copy_file("schema/rectangle_eater.yaml", d->schema);
}

int main(int argc, char **argv) {
    const char *dir = "build/live-demo";
    unsigned long long seed = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--dir") == 0) {
            dir = argv[i + 1];
        } else if (strcmp(argv[i], "--seed") == 0) {
            seed = strtoull(argv[i + 1], NULL, 0);
        } else {
            fprintf(stderr, "usage: rectangle_eater_live_demo [--dir DIR] [--seed N]\n");
            return 2;
        }
    }
    demo_t d = {0};
    if (!prepare(dir, &d)) {
        fprintf(stderr, "live-demo: cannot copy the game into %s/src: %s\n", dir, strerror(errno));
        return 1;
    }
    char path[1100], module_dir[1100], game_dir[1100];
    snprintf(path, sizeof path, "%s/live.log", dir);
    snprintf(module_dir, sizeof module_dir, "%s/module", dir);
    snprintf(game_dir, sizeof game_dir, "%s/src", dir);
    log_file = fopen(path, "w");
    if (log_file == NULL || !canvas_init(&d.screen, 320, 240)) {
        fprintf(stderr, "live-demo: cannot write %s\n", path);
        return 1;
    }
    d.shown.target = &d.screen;
    snprintf(d.shown.footer, sizeof d.shown.footer, "LIVE DEMO");
    printf("live-demo: building Rectangle Eater's module in %s (the session's lines go to %s)\n", module_dir, path);
    fflush(stdout);
    rect_host_desc desc = {module_dir, d.schema, game_dir, seed, 1, true, log_line, NULL};
    d.live = rect_host_open(&desc);
    if (d.live == NULL) {
        fprintf(stderr, "live-demo: the module does not build or load; see %s\n", path);
        return 1;
    }
    attach(&d);
    for (int i = 0; i < 120; i++) {
        step(&d);
    }

    bool ok = true;
    char was[64], what[160];
    /* 1: a field with a default, in Position (every entity has one). */
    ok = edit(d.schema, NULL, "^ *Position: *\\{.*[^ ]() *\\}", 1, ", z: f32 = 1.5", was, sizeof was) && ok;
    ok = attempt(&d, 1, "Position + z (f32 = 1.5)", now_ms(), STRATA_LIVE_RELOADED) && ok;
    /* 2: renamed, its values carried. */
    ok = edit(d.schema, NULL, "(z: f32 = 1\\.5)", 1, "depth: { type: f32, default: 1.5, renamed_from: z }", was,
              sizeof was) &&
         ok;
    ok = attempt(&d, 2, "Position.z -> depth (renamed_from: z)", now_ms(), STRATA_LIVE_RELOADED) && ok;
    /* 3: a constant in a system: the first float literal after systems.c's first run function. */
    ok = edit(d.systems, "_run(", "[^0-9.a-zA-Z_]([0-9]+\\.[0-9]+f)", 1, "%s + 1.0f", was, sizeof was) && ok;
    snprintf(what, sizeof what, "systems.c: %s -> %s + 1.0f", was, was);
    ok = attempt(&d, 3, what, now_ms(), STRATA_LIVE_RELOADED) && ok;
    /* 4: an error in the schema (a type that does not exist). */
    ok = edit(d.schema, NULL, "^ *Position: *\\{.*[^ ]() *\\}", 1, ", w: f33", was, sizeof was) && ok;
    ok = attempt(&d, 4, "an unknown type in Position", now_ms(), STRATA_LIVE_FAILED) && ok;
    /* 5: the error taken out and depth narrowed to i8, in one save: 1.5 is no i8. */
    char *text = substitute(text_file_read(d.schema), NULL, "(, w: f33)", 1, "", was, sizeof was);
    text = substitute(text, NULL, "(depth: \\{ type: f32, default: 1\\.5)", 1, "depth: { type: i8, default: 1", was,
                      sizeof was);
    ok = text != NULL && text_file_save(d.schema, text) && ok;
    free(text);
    ok = attempt(&d, 5, "Position.depth f32 -> i8", now_ms(), STRATA_LIVE_REFUSED) && ok;

    rect_live_status status;
    rect_host_table(d.live)->status(strata_live_world(d.live), &status);
    printf("live-demo: %s; the game played on to frame %u, score %d\n",
           ok ? "every attempt ended as it should" : "AN ATTEMPT DID NOT END AS IT SHOULD", (unsigned)status.frame,
           (int)status.score);
    strata_live_close(d.live);
    canvas_free(&d.screen);
    fclose(log_file);
    return ok ? 0 : 1;
}

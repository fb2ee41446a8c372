/* live.c: a live session (strata_live.h) on the game's thread: the module
 * running, the world, and each attempt the watcher hands over (watch.h)
 * applied between two steps. A new module gets a world of its own, into
 * which the running world migrates (strata_world_migrate); only when that
 * succeeded does the old world go, then the old module. Whatever fails
 * before that changes neither. A refusal's lines name the schema's file,
 * line and column from the new module's table of locations. */
#define _POSIX_C_SOURCE 200809L
#include "strata_live.h"

#include "watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct strata_live_t {
    strata_live_desc_t desc;
    sti_watch_desc_t watch_desc;
    char **watch; /* desc.watch, copied */
    double start; /* sti_live_now at open: the reloads' `when` counts from it */
    sti_watch_t *watch_thread;
    sti_live_module_t current;
    sti_live_module_t refused;    /* a module whose migration would lose values, kept for accept or restart */
    sti_live_result_t refused_at; /* its attempt's timings */
    strata_world_t *world;
    uint32_t attempts;
    strata_live_reload_t last;
    sti_text_t last_text;
};

/* --- Saying things ------------------------------------------------------------ */

/* Each line of text to the log (or stderr). */
static void live_say(const strata_live_t *l, const char *text) {
    for (const char *p = text; p != NULL && *p != '\0';) {
        const char *end = strchr(p, '\n');
        size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        if (l->desc.log != NULL) {
            l->desc.log(line, l->desc.user);
        } else {
            fprintf(stderr, "%s\n", line);
        }
        p = end != NULL ? end + 1 : NULL;
    }
}

/* The location of `name` (as a report spells it, a reason in parentheses
 * after it perhaps) in m's schema: the element itself, else the deepest
 * one on its path (a field of a type: the type's field), else the world. */
static const strata_live_location_t *live_locate(const strata_live_module_t *m, const char *name) {
    char path[128];
    const char *reason = strstr(name, " (");
    snprintf(path, sizeof path, "%.*s", (int)(reason != NULL ? reason - name : (long)strlen(name)), name);
    uint8_t place = strncmp(path, "resource.", 9) == 0 ? STRATA_LIVE_RESOURCE : STRATA_LIVE_COMPONENT;
    const strata_live_location_t *best = NULL;
    char key[160];
    size_t at = 0; /* the path's part looked up so far */
    snprintf(key, sizeof key, "%s", path);
    for (;;) {
        /* The longest prefix of key (ending at a '.') that is listed. */
        const strata_live_location_t *found = NULL;
        size_t len = strlen(key);
        for (size_t cut = len; cut > 0 && found == NULL; cut--) {
            if (cut != len && key[cut] != '.') {
                continue;
            }
            for (uint32_t i = 0; i < m->location_count && found == NULL; i++) {
                const strata_live_location_t *x = &m->locations[i];
                if (x->place == place && strlen(x->name) == cut && strncmp(x->name, key, cut) == 0) {
                    found = x;
                    at = cut;
                }
            }
        }
        if (found == NULL) {
            break;
        }
        best = found;
        if (found->type == NULL || key[at] != '.') {
            break;
        }
        /* A field of a struct type: the path goes on among the type's fields. */
        char rest[160];
        snprintf(rest, sizeof rest, "%s%s", found->type, key + at);
        snprintf(key, sizeof key, "%s", rest);
        place = STRATA_LIVE_TYPE;
    }
    for (uint32_t i = 0; best == NULL && i < m->location_count; i++) {
        best = m->locations[i].place == STRATA_LIVE_WORLD ? &m->locations[i] : NULL;
    }
    return best;
}

/* The lines of a refusal: one `schema:line:col: error: reload would lose ...` a LOST change. */
static void live_refusal(const strata_live_module_t *m, const strata_load_report_t *report, sti_text_t *out) {
    for (uint32_t i = 0; i < report->change_count && i < STRATA_REPORT_MAX; i++) {
        const strata_change_t *c = &report->changes[i];
        if (c->kind != STRATA_CHANGE_LOST) {
            continue;
        }
        const strata_live_location_t *at = live_locate(m, c->name);
        sti_text_add(out, "%s:%u:%u: error: reload would lose %s", m->schema, at != NULL ? at->line : 1,
                     at != NULL ? at->column : 1, c->name);
        if (strncmp(c->name, "resource.", 9) == 0) {
            sti_text_add(out, "\n");
        } else {
            sti_text_add(out, " in %llu %s\n", (unsigned long long)c->count, c->count == 1 ? "entity" : "entities");
        }
    }
    if (report->change_count > STRATA_REPORT_MAX) {
        sti_text_add(out, "%s: note: %u changes in all, %u listed\n", m->schema, report->change_count,
                     STRATA_REPORT_MAX);
    }
}

/* What a migration changed, on one line: "added Position.z, dropped Gone (3 entities)". */
static void live_changes(const strata_load_report_t *report, sti_text_t *out) {
    static const char *const verbs[] = {"", "dropped", "added", "renamed", "converted", "lost"};
    if (report->change_count == 0) {
        sti_text_add(out, "no schema change");
    }
    for (uint32_t i = 0; i < report->change_count && i < STRATA_REPORT_MAX; i++) {
        const strata_change_t *c = &report->changes[i];
        sti_text_add(out, "%s%s %s", i > 0 ? ", " : "", c->kind <= STRATA_CHANGE_LOST ? verbs[c->kind] : "changed",
                     c->name);
        if (c->kind == STRATA_CHANGE_DROPPED || c->kind == STRATA_CHANGE_LOST) {
            sti_text_add(out, " (%llu)", (unsigned long long)c->count);
        }
    }
    if (report->change_count > STRATA_REPORT_MAX) {
        sti_text_add(out, ", and %u more", report->change_count - STRATA_REPORT_MAX);
    }
}

/* --- Attempts ------------------------------------------------------------------- */

/* Begin the record of an attempt from the watcher's outcome r. */
static void live_attempt(strata_live_t *l, const sti_live_result_t *r) {
    sti_text_free(&l->last_text);
    memset(&l->last, 0, sizeof l->last);
    l->last.number = ++l->attempts;
    l->last.when = r->first_change > 0.0 ? r->first_change - l->start : sti_live_now() - l->start;
    l->last.build_ms = r->build_ms;
    l->last.load_ms = r->load_ms;
    l->last.changes = r->changes;
    if (r->text.n > 0) {
        sti_text_put(&l->last_text, r->text.p, r->text.n);
    }
}

/* Close the record: its event and total time; say its lines. */
static strata_live_event_t live_done(strata_live_t *l, strata_live_event_t event, double first_change) {
    l->last.event = (uint8_t)event;
    l->last.total_ms = first_change > 0.0 ? (sti_live_now() - first_change) * 1e3 : l->last.migrate_ms;
    l->last.text = l->last_text.p != NULL ? l->last_text.p : "";
    live_say(l, l->last.text);
    return event;
}

/* The world's desc for a new world: the session's, with the game's pointer the running world has. */
static strata_world_desc_t live_world_desc(const strata_live_t *l) {
    strata_world_desc_t desc = l->desc.world;
    if (l->world != NULL) {
        desc.user = strata_world_user(l->world);
    }
    return desc;
}

/* Replace the running world with w (made by module m) and the running
 * module with m. A tool watching the old world's steps (its step
 * observer) is not carried: it may hold what the old module described. */
static void live_swap(strata_live_t *l, strata_world_t *w, sti_live_module_t *m) {
    strata_world_destroy(l->world); /* its hooks run: the old module is still there */
    l->world = w;
    if (m->handle != l->current.handle) {
        sti_live_unload(&l->current);
        l->current = *m;
    }
    memset(m, 0, sizeof *m);
}

/* Migrate the running world into a world of module m. m is the session's
 * afterwards (running, refused, or unloaded). */
static strata_live_event_t live_migrate(strata_live_t *l, sti_live_module_t *m, unsigned flags, double first_change) {
    double t0 = sti_live_now();
    strata_world_desc_t desc = live_world_desc(l);
    strata_world_t *w = m->module->create(&desc);
    sti_text_t *text = &l->last_text;
    if (w == NULL) {
        sti_text_add(text, "live: reload %u failed: out of memory for the new module's world; the old module runs on\n",
                     l->last.number);
        sti_live_unload(m);
        return live_done(l, STRATA_LIVE_FAILED, first_change);
    }
    strata_result_t r = strata_world_migrate(w, l->world, flags, &l->last.report);
    l->last.migrate_ms = (sti_live_now() - t0) * 1e3;
    const strata_load_report_t *report = &l->last.report;
    l->last.entities = report->entities;
    bool lost = report->change_count > 0 && report->changes[0].kind == STRATA_CHANGE_LOST;
    if (r == STRATA_ERR_SCHEMA && lost) {
        strata_world_stats_t stats;
        strata_world_stats(l->world, &stats);
        l->last.entities = stats.entities;
        strata_world_destroy(w);
        live_refusal(m->module, report, text);
        sti_text_add(text, "live: reload %u refused: the old module runs on (accept the loss, or restart the world)\n",
                     l->last.number);
        sti_live_unload(&l->refused);
        l->refused = *m;
        memset(m, 0, sizeof *m);
        return live_done(l, STRATA_LIVE_REFUSED, first_change);
    }
    char why[256] = "";
    if (r == STRATA_OK && l->desc.verify && !strata_live_verify(w, l->world, report, why, sizeof why)) {
        r = STRATA_ERR_CORRUPT;
    }
    if (r != STRATA_OK) {
        strata_world_destroy(w);
        sti_text_add(text, "live: reload %u failed: %s%s; the old module runs on\n", l->last.number,
                     why[0] ? "the migration did not carry every value: " : "", why[0] ? why : report->error);
        sti_live_unload(m);
        return live_done(l, STRATA_LIVE_FAILED, first_change);
    }
    live_swap(l, w, m);
    sti_text_add(text, "live: reload %u: ", l->last.number);
    live_changes(report, text);
    if (flags & STRATA_MIGRATE_ACCEPT_LOSS) {
        sti_text_add(text, " (the loss accepted)");
    }
    sti_text_add(text, "; %u entities carried in %.1f ms", report->entities, l->last.migrate_ms);
    if (first_change > 0.0) {
        sti_text_add(text, " (%.0f ms from the change: build %.0f, load %.1f)", (sti_live_now() - first_change) * 1e3,
                     l->last.build_ms, l->last.load_ms);
    }
    sti_text_add(text, "\n");
    return live_done(l, STRATA_LIVE_RELOADED, first_change);
}

/* Apply what the watcher handed over. */
static strata_live_event_t live_apply(strata_live_t *l, sti_live_result_t *r) {
    live_attempt(l, r);
    sti_text_free(&r->text);
    if (!r->loaded) {
        sti_text_add(&l->last_text, "live: reload %u failed: the old module runs on\n", l->last.number);
        return live_done(l, STRATA_LIVE_FAILED, r->first_change);
    }
    /* A newer build replaces a refused one. */
    sti_live_unload(&l->refused);
    l->refused_at = *r;
    memset(&l->refused_at.module, 0, sizeof l->refused_at.module);
    return live_migrate(l, &r->module, 0, r->first_change);
}

/* --- The API ----------------------------------------------------------------------- */

static void live_free(strata_live_t *l) {
    sti_watch_stop(l->watch_thread);
    strata_world_destroy(l->world);
    sti_live_unload(&l->refused);
    sti_live_unload(&l->current);
    for (size_t i = 0; l->watch != NULL && l->watch[i] != NULL; i++) {
        free(l->watch[i]);
    }
    free(l->watch);
    free((char *)l->desc.module);
    free((char *)l->desc.build);
    sti_text_free(&l->last_text);
    free(l);
}

/* Copy what desc points at that the session keeps. */
static bool live_copy_desc(strata_live_t *l, const strata_live_desc_t *desc) {
    l->desc = *desc;
    l->desc.module = strdup(desc->module);
    l->desc.build = desc->build != NULL ? strdup(desc->build) : NULL;
    size_t n = 0;
    while (desc->watch != NULL && desc->watch[n] != NULL) {
        n++;
    }
    l->watch = calloc(n + 1, sizeof *l->watch);
    bool ok = l->desc.module != NULL && (desc->build == NULL || l->desc.build != NULL) && l->watch != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        ok = (l->watch[i] = strdup(desc->watch[i])) != NULL;
    }
    l->desc.watch = desc->watch != NULL && l->watch != NULL ? (const char *const *)l->watch : NULL;
    l->desc.quiet = desc->quiet > 0.0 ? desc->quiet : 0.05;
    l->watch_desc = (sti_watch_desc_t){l->desc.module, l->desc.build,      l->desc.watch,
                                       l->desc.quiet,  desc->game_version, desc->game_size};
    return ok;
}

/* A fresh world of module m: the game's start, or an empty one. */
static strata_world_t *live_fresh(const strata_live_t *l, const strata_live_module_t *m) {
    strata_world_desc_t desc = l->desc.world;
    return l->desc.start != NULL ? l->desc.start(m, &desc, l->desc.user) : m->create(&desc);
}

strata_result_t strata_live_open(const strata_live_desc_t *desc, strata_live_t **out) {
    STRATA_ASSERT(desc != NULL && desc->module != NULL && out != NULL);
    *out = NULL;
    strata_live_t *l = calloc(1, sizeof *l);
    if (l == NULL) {
        return STRATA_ERR_NOMEM;
    }
    l->start = sti_live_now();
    if (!live_copy_desc(l, desc)) {
        live_free(l);
        return STRATA_ERR_NOMEM;
    }
    sti_live_result_t r = {0};
    sti_live_build_load(&l->watch_desc, &r, NULL, NULL);
    strata_result_t result = r.loaded ? STRATA_OK : STRATA_ERR_IO;
    if (r.loaded) {
        l->current = r.module;
        l->world = live_fresh(l, r.module.module);
        result = l->world != NULL ? STRATA_OK : STRATA_ERR_NOMEM;
    }
    if (result == STRATA_OK) {
        result = sti_watch_start(&l->watch_desc, &l->watch_thread, &r.text);
    }
    if (result != STRATA_OK) {
        sti_text_add(&r.text, "live: cannot start %s: %s\n", desc->module,
                     result == STRATA_ERR_NOMEM ? "out of memory" : "see above");
    }
    live_say(l, r.text.p);
    sti_text_free(&r.text);
    if (result != STRATA_OK) {
        live_free(l);
        return result;
    }
    *out = l;
    return STRATA_OK;
}

void strata_live_close(strata_live_t *l) {
    if (l != NULL) {
        live_free(l);
    }
}

strata_live_event_t strata_live_poll(strata_live_t *l) {
    if (!sti_watch_ready(l->watch_thread)) {
        return STRATA_LIVE_NONE;
    }
    sti_live_result_t r;
    if (!sti_watch_take(l->watch_thread, &r)) {
        return STRATA_LIVE_NONE;
    }
    return live_apply(l, &r);
}

bool strata_live_wait(strata_live_t *l, double seconds) {
    return sti_watch_wait(l->watch_thread, seconds);
}

void strata_live_rebuild(strata_live_t *l) {
    sti_watch_request(l->watch_thread);
}

strata_live_event_t strata_live_accept(strata_live_t *l) {
    if (l->refused.handle == NULL) {
        return STRATA_LIVE_NONE;
    }
    sti_live_module_t m = l->refused;
    memset(&l->refused, 0, sizeof l->refused);
    live_attempt(l, &l->refused_at);
    return live_migrate(l, &m, STRATA_MIGRATE_ACCEPT_LOSS, 0.0);
}

strata_live_event_t strata_live_restart(strata_live_t *l) {
    sti_live_module_t m = l->refused.handle != NULL ? l->refused : l->current;
    live_attempt(l, &l->refused_at);
    double t0 = sti_live_now();
    strata_world_t *w = live_fresh(l, m.module);
    l->last.migrate_ms = (sti_live_now() - t0) * 1e3;
    if (w == NULL) {
        sti_text_add(&l->last_text, "live: restart %u failed: out of memory; the old world runs on\n", l->last.number);
        return live_done(l, STRATA_LIVE_FAILED, 0.0);
    }
    memset(&l->refused, 0, sizeof l->refused);
    live_swap(l, w, &m);
    strata_world_stats_t stats;
    strata_world_stats(w, &stats);
    l->last.entities = stats.entities;
    sti_text_add(&l->last_text, "live: restart %u: a fresh world of %s (%u entities)\n", l->last.number,
                 l->current.module->world, stats.entities);
    return live_done(l, STRATA_LIVE_RESTARTED, 0.0);
}

strata_world_t *strata_live_world(const strata_live_t *l) {
    return l->world;
}

const strata_live_module_t *strata_live_current(const strata_live_t *l) {
    return l->current.module;
}

const void *strata_live_game(const strata_live_t *l) {
    const strata_live_game_t *game = l->current.module->game;
    return game != NULL ? game->table : NULL;
}

bool strata_live_refused(const strata_live_t *l) {
    return l->refused.handle != NULL;
}

const strata_live_reload_t *strata_live_last(const strata_live_t *l) {
    return l->attempts > 0 ? &l->last : NULL;
}

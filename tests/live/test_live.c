/* test_live.c: libstrata_live driven as a host drives it. Each test copies
 * the module's sources (tests/live/: arena.yaml, its systems and game
 * table) into a folder of its own under the folder given as argv[1],
 * opens a session that rebuilds them with tests/live/build-module.sh, and
 * edits the copies one change at a time, as a programmer would, waiting
 * for each outcome: what an accepted reload carries (every value, checked
 * by strata_live_verify and here), that a build error, a lossy change, a
 * module that does not load, a burst of saves and a deleted file change
 * nothing, and an allocation failure at each step of a reload. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "arena_game.h"
#include "strata_live.h"
#include "text_file.h"

/* Generous: a build waits for the generator and the compiler, on a loaded machine. */
#define OUTCOME_SECONDS 600.0

static const char *scratch; /* argv[1] */

/* --- Files ------------------------------------------------------------------------- */

static char *read_file(const char *path) {
    char *text = text_file_read(path);
    assert_non_null(text);
    return text;
}

static void write_file(const char *path, const char *text) {
    assert_true(text_file_save(path, text));
}

/* text (malloc'd, freed) with its first `old` replaced by `new` (it must be there). */
static char *replaced(char *text, const char *old, const char *new) {
    char *at = strstr(text, old);
    if (at == NULL) {
        fail_msg("no '%s' to edit", old);
    }
    size_t head = (size_t)(at - text), n = strlen(text) - head - strlen(old);
    char *edited = malloc(head + strlen(new) + n + 1);
    memcpy(edited, text, head);
    strcpy(edited + head, new);
    strcpy(edited + head + strlen(new), at + strlen(old));
    free(text);
    return edited;
}

/* Replace the first `old` in the file at `path` with `new`, and, when
 * old2 is not NULL, its first old2 with new2: one save. */
static void edit2(const char *path, const char *old, const char *new, const char *old2, const char *new2) {
    char *text = replaced(read_file(path), old, new);
    text = old2 != NULL ? replaced(text, old2, new2) : text;
    write_file(path, text);
    free(text);
}

static void edit(const char *path, const char *old, const char *new) {
    edit2(path, old, new, NULL, NULL);
}

/* --- A session over a copy of the sources --------------------------------------------- */

typedef struct session_t {
    char src[1024];     /* the copied sources */
    char schema[1100];  /* src/arena.yaml */
    char systems[1100]; /* src/arena_systems.c */
    char game[1100];    /* src/arena_game.c */
    char module[1100];  /* the module the build writes */
    char build[2400];
    strata_live_t *live;
} session_t;

static char said[1 << 16]; /* every line the session said, since the last forget() */

static void log_line(const char *line, void *user) {
    (void)user;
    printf("  | %s\n", line);
    size_t n = strlen(said);
    snprintf(said + n, sizeof said - n, "%s\n", line);
}

static void forget(void) {
    said[0] = '\0';
}

static void assert_said(const char *text) {
    if (strstr(said, text) == NULL) {
        fail_msg("the session did not say '%s'; it said:\n%s", text, said);
    }
}

static strata_world_t *start(const strata_live_module_t *m, const strata_world_desc_t *desc, void *user) {
    (void)user;
    const arena_game_t *game = m->game->table;
    return game->start(desc, 40);
}

/* Copy tests/live's sources to scratch/name and fill s's paths and build command. */
static void session_files(session_t *s, const char *name) {
    snprintf(s->src, sizeof s->src, "%s/%s", scratch, name);
    char command[4000];
    snprintf(command, sizeof command,
             "rm -rf '%s' && mkdir -p '%s' && cp tests/live/arena.yaml tests/live/arena_*.c "
             "tests/live/arena_*.h '%s'",
             s->src, s->src, s->src);
    assert_int_equal(system(command), 0);
    snprintf(s->schema, sizeof s->schema, "%s/arena.yaml", s->src);
    snprintf(s->systems, sizeof s->systems, "%s/arena_systems.c", s->src);
    snprintf(s->game, sizeof s->game, "%s/arena_game.c", s->src);
    snprintf(s->module, sizeof s->module, "%s/arena.so", s->src);
    snprintf(s->build, sizeof s->build, "sh tests/live/build-module.sh '%s' '%s'", s->src, s->module);
}

static strata_live_desc_t session_desc(session_t *s) {
    static const char *watch[4];
    watch[0] = s->schema;
    watch[1] = s->systems;
    watch[2] = s->game;
    watch[3] = NULL;
    return (strata_live_desc_t){.module = s->module,
                                .build = s->build,
                                .watch = watch,
                                .start = start,
                                .log = log_line,
                                .game_version = ARENA_GAME_VERSION,
                                .game_size = sizeof(arena_game_t),
                                .verify = true};
}

/* A session over a fresh copy. `bursts`: it edits two files as one change,
 * or saves many times in a row, and a slow machine must not build between
 * those saves (a quiet of 0.3 s, where the default waits 0.05 s; each of
 * this test's saves is a rename, so a build never sees half a file). */
static void session_open(session_t *s, const char *name, uint32_t threads, bool bursts) {
    session_files(s, name);
    strata_live_desc_t desc = session_desc(s);
    desc.world.threads = threads;
    desc.quiet = bursts ? 0.3 : 0.0;
    forget();
    assert_int_equal(strata_live_open(&desc, &s->live), STRATA_OK);
}

/* The outcome of the next attempt. */
static strata_live_event_t outcome(session_t *s) {
    forget();
    assert_true(strata_live_wait(s->live, OUTCOME_SECONDS));
    return strata_live_poll(s->live);
}

static void step(session_t *s, int n) {
    for (int i = 0; i < n; i++) {
        assert_int_equal(strata_world_step(strata_live_world(s->live), 1.0f / 60), STRATA_OK);
    }
}

/* --- The world, through reflection ------------------------------------------------------- */

static uint32_t component(strata_world_t *w, const char *name) {
    const strata_schema_t *s = strata_world_schema(w);
    for (uint32_t c = 0; c < s->component_count; c++) {
        if (strcmp(s->component_types[c].name, name) == 0) {
            return c;
        }
    }
    fail_msg("no component %s", name);
    return 0;
}

/* Field `field` of e's `comp` (NULL when e lacks it). */
static const void *field(strata_world_t *w, strata_entity_t e, const char *comp, const char *field) {
    uint32_t c = component(w, comp);
    const strata_type_desc_t *t = &strata_world_schema(w)->component_types[c];
    const unsigned char *value = strata_get(w, e, c);
    for (uint32_t i = 0; i < t->count; i++) {
        if (strcmp(t->fields[i].name, field) == 0) {
            return value != NULL ? value + t->fields[i].offset : NULL;
        }
    }
    fail_msg("no field %s.%s", comp, field);
    return NULL;
}

static float f32_of(strata_world_t *w, strata_entity_t e, const char *comp, const char *name) {
    float x;
    memcpy(&x, field(w, e, comp, name), sizeof x);
    return x;
}

/* Every live entity's handle, in index order (the test's worlds have fewer than 64). */
typedef struct handles_t {
    strata_entity_t e[64];
    uint32_t n;
} handles_t;

static void collect(strata_world_t *w, strata_entity_t e, void *user) {
    (void)w;
    handles_t *h = user;
    assert_true(h->n < 64);
    h->e[h->n++] = e;
}

static handles_t handles(strata_world_t *w) {
    handles_t h = {.n = 0};
    assert_int_equal(strata_entity_each(w, collect, &h), STRATA_OK);
    return h;
}

/* The first of h's entities that has component `comp`. */
static strata_entity_t first_with(strata_world_t *w, const handles_t *h, const char *comp) {
    for (uint32_t i = 0; i < h->n; i++) {
        if (strata_has(w, h->e[i], component(w, comp))) {
            return h->e[i];
        }
    }
    fail_msg("no entity has %s", comp);
    return STRATA_ENTITY_NULL;
}

static unsigned char *snapshot(strata_world_t *w, size_t *size) {
    assert_int_equal(strata_world_save_mem(w, NULL, 0, size), STRATA_ERR_LIMIT);
    unsigned char *bytes = malloc(*size);
    assert_int_equal(strata_world_save_mem(w, bytes, *size, size), STRATA_OK);
    return bytes;
}

/* The world and module are those of before: the same save bytes, the same module. */
static void assert_unchanged(session_t *s, strata_world_t *w, const strata_live_module_t *m,
                             const unsigned char *before, size_t size) {
    assert_ptr_equal(strata_live_world(s->live), w);
    assert_ptr_equal(strata_live_current(s->live), m);
    size_t now_size = 0;
    unsigned char *now = snapshot(w, &now_size);
    assert_int_equal(now_size, size);
    assert_memory_equal(now, before, size);
    free(now);
}

/* The line and column where `text` begins in the file at path, as "path:line:column". */
static void location_of(const char *path, const char *text, char *out, size_t size) {
    char *file = read_file(path);
    char *at = strstr(file, text);
    assert_non_null(at);
    int line = 1, column = 1;
    for (char *p = file; p < at; p++) {
        line += *p == '\n';
        column = *p == '\n' ? 1 : column + 1;
    }
    snprintf(out, size, "%s:%d:%d", path, line, column);
    free(file);
}

/* --- The tests ------------------------------------------------------------------------------- */

static void test_live_scripted_edits_carry_every_value(void **state) {
    (void)state;
    session_t s;
    session_open(&s, "edits", 1, true);
    step(&s, 3);
    strata_world_t *w = strata_live_world(s.live);
    handles_t before = handles(w);
    assert_int_equal(before.n, 40);
    float x7 = f32_of(w, before.e[7], "Position", "x");
    int32_t hp[64];
    float glow[64]; /* a sparse component's values (NAN: none) */
    uint32_t glowing = 0;
    for (uint32_t i = 0; i < before.n; i++) {
        const void *v = field(w, before.e[i], "Health", "value");
        hp[i] = v != NULL ? *(const int32_t *)v : INT32_MIN;
        const void *g = field(w, before.e[i], "Glow", "heat");
        glow[i] = g != NULL ? *(const float *)g : NAN;
        glowing += g != NULL;
    }
    assert_int_equal(glowing, 7);

    /* 1: a field added, with a default. */
    edit(s.schema, "Position: { x: f32, y: f32 }", "Position: { x: f32, y: f32, z: f32 = 2.5 }");
    assert_int_equal(outcome(&s), STRATA_LIVE_RELOADED);
    assert_said("added Position.z");
    w = strata_live_world(s.live);
    assert_int_equal(handles(w).n, 40);
    for (uint32_t i = 0; i < before.n; i++) {
        assert_true(f32_of(w, before.e[i], "Position", "z") == 2.5f);
    }
    assert_true(f32_of(w, before.e[7], "Position", "x") == x7);
    for (uint32_t i = 0; i < before.n; i++) { /* the sparse component's values, and who holds none */
        const void *g = field(w, before.e[i], "Glow", "heat");
        assert_int_equal(g != NULL, !isnan(glow[i]));
        assert_true(g == NULL || *(const float *)g == glow[i]);
    }
    assert_false(strata_system_enabled(w, 1)); /* Tick stays off */
    step(&s, 1);

    /* 2: a field renamed, in the schema and in the game's code: the values follow it. */
    edit(s.game, ".value = (int32_t)", ".hp = (int32_t)");
    edit(s.schema, "Health:   { value: i32 = 10 }",
         "Health:   { hp: { type: i32, default: 10, renamed_from: value } }");
    assert_int_equal(outcome(&s), STRATA_LIVE_RELOADED);
    assert_said("renamed Health.hp (was value)");
    w = strata_live_world(s.live);
    for (uint32_t i = 0; i < before.n; i++) {
        const void *v = field(w, before.e[i], "Health", "hp");
        assert_int_equal(v != NULL ? *(const int32_t *)v : INT32_MIN, hp[i]);
    }

    /* 3: a constant of a system: the world as it was, the new code runs. */
    edit(s.systems, "#define ARENA_SPEED 1.0f", "#define ARENA_SPEED 2.0f");
    assert_int_equal(outcome(&s), STRATA_LIVE_RELOADED);
    assert_said("no schema change");
    w = strata_live_world(s.live);
    strata_entity_t mover = first_with(w, &before, "Velocity");
    float x0 = f32_of(w, mover, "Position", "x"), vx = f32_of(w, mover, "Velocity", "x");
    step(&s, 1);
    assert_true(f32_of(w, mover, "Position", "x") == x0 + 2.0f * vx);

    /* 4: an error in the schema: the build's diagnostic, nothing changes. */
    size_t size = 0;
    unsigned char *bytes = snapshot(w, &size);
    const strata_live_module_t *m = strata_live_current(s.live);
    edit(s.schema, "Marked:   {}", "Marked:   { since: f33 }");
    assert_int_equal(outcome(&s), STRATA_LIVE_FAILED);
    char at[1300];
    location_of(s.schema, "f33", at, sizeof at);
    assert_said(at);
    assert_said("error: ");
    assert_said("the old module runs on");
    assert_unchanged(&s, w, m, bytes, size);
    free(bytes);

    /* 5: a narrowing that changes values: refused, the line names the field where it is declared. */
    bytes = snapshot(w, &size);
    edit2(s.schema, "Marked:   { since: f33 }", "Marked:   {}", "hp: { type: i32,", "hp: { type: i8,");
    assert_int_equal(outcome(&s), STRATA_LIVE_REFUSED);
    location_of(s.schema, "hp:", at, sizeof at);
    strcat(at, ": error: reload would lose Health.hp (i32 to i8) in 6 entities");
    assert_said(at);
    assert_true(strata_live_refused(s.live));
    assert_unchanged(&s, w, m, bytes, size);
    free(bytes);
    assert_int_equal(strata_live_last(s.live)->event, STRATA_LIVE_REFUSED);

    /* ...and accepted: the values that fit kept, the others the nearest i8. */
    forget();
    assert_int_equal(strata_live_accept(s.live), STRATA_LIVE_RELOADED);
    assert_said("(the loss accepted)");
    assert_false(strata_live_refused(s.live));
    w = strata_live_world(s.live);
    for (uint32_t i = 0; i < before.n; i++) {
        const void *v = field(w, before.e[i], "Health", "hp");
        int32_t expect = hp[i] == INT32_MIN ? INT32_MIN : hp[i] > 127 ? 127 : hp[i];
        assert_int_equal(v != NULL ? *(const int8_t *)v : INT32_MIN, expect);
    }

    /* A fresh world from the game's start. */
    step(&s, 2);
    assert_int_equal(strata_live_restart(s.live), STRATA_LIVE_RESTARTED);
    assert_int_equal(handles(strata_live_world(s.live)).n, 40);
    strata_live_close(s.live);
}

static void test_live_failed_loads_change_nothing(void **state) {
    (void)state;
    session_t s;
    session_open(&s, "loads", 1, false);
    strata_world_t *w = strata_live_world(s.live);
    const strata_live_module_t *m = strata_live_current(s.live);
    size_t size = 0;
    unsigned char *bytes = snapshot(w, &size);

    /* A system's run function missing: the module links, but does not load. */
    edit(s.systems, "void arena_tick_run(", "void arena_tock_run(");
    assert_int_equal(outcome(&s), STRATA_LIVE_FAILED);
    assert_said("cannot load the module");
    assert_said("arena_tick_run");
    assert_unchanged(&s, w, m, bytes, size);

    /* A module compiled against another runtime (the file is not watched: the edit starts the build). */
    char old[1100];
    snprintf(old, sizeof old, "%s/old-runtime", s.src);
    write_file(old, "");
    edit(s.systems, "void arena_tock_run(", "void arena_tick_run(");
    assert_int_equal(outcome(&s), STRATA_LIVE_FAILED);
    assert_said("compiled against strata.h 0.0.1; the host's runtime is " STRATA_VERSION_STRING);
    assert_unchanged(&s, w, m, bytes, size);

    /* Back to a good module: it reloads. */
    assert_int_equal(unlink(old), 0);
    strata_live_rebuild(s.live);
    assert_int_equal(outcome(&s), STRATA_LIVE_RELOADED);
    free(bytes);
    strata_live_close(s.live);
}

static void test_live_burst_of_saves_and_deleted_file(void **state) {
    (void)state;
    session_t s;
    session_open(&s, "burst", 1, true);
    /* 50 saves in a row: one build, after the last. */
    char *text = read_file(s.schema);
    for (int i = 0; i < 50; i++) {
        char *again = malloc(strlen(text) + 32);
        sprintf(again, "%s# save %d\n", text, i);
        write_file(s.schema, again);
        free(again);
    }
    assert_int_equal(outcome(&s), STRATA_LIVE_RELOADED);
    assert_int_equal(strata_live_last(s.live)->changes, 50);
    assert_int_equal(strata_live_last(s.live)->number, 1);

    /* The schema deleted: no build while it is gone; the old module runs on. */
    strata_world_t *w = strata_live_world(s.live);
    const strata_live_module_t *m = strata_live_current(s.live);
    size_t size = 0;
    unsigned char *bytes = snapshot(w, &size);
    assert_int_equal(unlink(s.schema), 0);
    assert_int_equal(outcome(&s), STRATA_LIVE_FAILED);
    assert_said("arena.yaml was deleted: no build until it is back");
    assert_unchanged(&s, w, m, bytes, size);
    write_file(s.schema, text);
    assert_int_equal(outcome(&s), STRATA_LIVE_RELOADED);
    free(bytes);
    free(text);
    strata_live_close(s.live);
}

/* Allocator hooks that fail once `armed` and `budget` allocations have succeeded. */
static bool armed;
static int budget;

static void *hook_alloc(size_t size, void *user) {
    (void)user;
    return armed && budget-- <= 0 ? NULL : malloc(size);
}

static void *hook_realloc(void *p, size_t old_size, size_t size, void *user) {
    (void)old_size;
    (void)user;
    return armed && budget-- <= 0 ? NULL : realloc(p, size);
}

static void hook_free(void *p, size_t size, void *user) {
    (void)size;
    (void)user;
    free(p);
}

static void test_live_nomem_at_each_step_of_a_reload(void **state) {
    (void)state;
    /* The module built once; then reloaded as it is (no build), failing one allocation further each time. */
    session_t s;
    session_files(&s, "nomem");
    char command[2600];
    snprintf(command, sizeof command, "%s >/dev/null", s.build);
    assert_int_equal(system(command), 0);
    strata_live_desc_t desc = session_desc(&s);
    desc.build = NULL;
    desc.watch = NULL;
    desc.world.allocator = (strata_allocator_t){hook_alloc, hook_realloc, hook_free, NULL};
    assert_int_equal(strata_live_open(&desc, &s.live), STRATA_OK);
    step(&s, 2);
    int failures = 0;
    strata_live_event_t event = STRATA_LIVE_FAILED;
    for (int k = 0; event == STRATA_LIVE_FAILED; k++) {
        strata_world_t *w = strata_live_world(s.live);
        const strata_live_module_t *m = strata_live_current(s.live);
        size_t size = 0;
        unsigned char *bytes = snapshot(w, &size);
        strata_live_rebuild(s.live);
        forget();
        assert_true(strata_live_wait(s.live, OUTCOME_SECONDS));
        armed = true;
        budget = k;
        event = strata_live_poll(s.live);
        armed = false;
        if (event == STRATA_LIVE_FAILED) {
            failures++;
            assert_said("out of memory");
            assert_unchanged(&s, w, m, bytes, size);
        }
        free(bytes);
    }
    assert_int_equal(event, STRATA_LIVE_RELOADED);
    assert_true(failures > 10);
    step(&s, 1);
    strata_live_close(s.live);
}

static void test_live_reload_between_threaded_steps(void **state) {
    (void)state;
    session_t s;
    session_open(&s, "threads", 3, false);
    step(&s, 4);
    strata_world_t *w = strata_live_world(s.live);
    handles_t h = handles(w);
    edit(s.systems, "#define ARENA_SPEED 1.0f", "#define ARENA_SPEED 3.0f");
    assert_int_equal(outcome(&s), STRATA_LIVE_RELOADED);
    w = strata_live_world(s.live);
    assert_int_equal(strata_world_threads(w), 3);
    strata_entity_t mover = first_with(w, &h, "Velocity");
    float x = f32_of(w, mover, "Position", "x"), vx = f32_of(w, mover, "Velocity", "x");
    step(&s, 1);
    assert_true(f32_of(w, mover, "Position", "x") == x + 3.0f * vx);
    strata_live_close(s.live);
}

static void test_live_reload_carries_states_and_accumulators(void **state) {
    (void)state;
    session_t s;
    session_open(&s, "loop", 1, false);
    strata_world_t *w = strata_live_world(s.live);
    /* Mode goes to busy; steps of 7 ms leave the fixed phase (20 ms) a
     * fraction of a period, and Drift's count (every third run) midway. */
    assert_int_equal(strata_state_set(w, 0, 1), STRATA_OK);
    for (int i = 0; i < 11; i++) {
        assert_int_equal(strata_world_step(w, 0.007f), STRATA_OK);
    }
    double fraction = strata_phase_fraction(w, 1);
    assert_true(fraction > 0.0);
    assert_int_equal(strata_state_get(w, 0), 1);
    size_t size = 0;
    unsigned char *before = snapshot(w, &size);

    edit(s.systems, "#define ARENA_SPEED 1.0f", "#define ARENA_SPEED 2.0f");
    assert_int_equal(outcome(&s), STRATA_LIVE_RELOADED);
    w = strata_live_world(s.live);
    assert_int_equal(strata_state_get(w, 0), 1);
    assert_true(strata_system_gate_open(w, 3)); /* Busy runs in busy */
    assert_true(strata_phase_fraction(w, 1) == fraction);
    /* The same schema: the whole save, the loop's clock and counters among it, is the same. */
    size_t now_size = 0;
    unsigned char *now = snapshot(w, &now_size);
    assert_int_equal(now_size, size);
    assert_memory_equal(now, before, size);
    free(now);
    free(before);
    step(&s, 1);
    strata_live_close(s.live);
}

static void test_live_verify_finds_a_difference(void **state) {
    (void)state;
    session_t s;
    session_open(&s, "verify", 1, false);
    const strata_live_module_t *m = strata_live_current(s.live);
    strata_world_t *from = strata_live_world(s.live), *to = m->create(NULL);
    strata_load_report_t report;
    assert_int_equal(strata_world_migrate(to, from, 0, &report), STRATA_OK);
    char why[256];
    assert_true(strata_live_verify(to, from, &report, why, sizeof why));
    strata_entity_t e = handles(to).e[3];
    float *y = (float *)((unsigned char *)strata_get_mut(to, e, component(to, "Position")) + sizeof(float));
    *y += 1.0f;
    assert_false(strata_live_verify(to, from, &report, why, sizeof why));
    char expect[64];
    snprintf(expect, sizeof expect, "entity %uv%u: Position.y", strata_entity_index(e), strata_entity_generation(e));
    assert_non_null(strstr(why, expect));
    strata_world_destroy(to);
    strata_live_close(s.live);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_live SCRATCH_FOLDER (run from the top of the repository)\n");
        return 2;
    }
    scratch = argv[1];
    mkdir(scratch, 0755);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_live_scripted_edits_carry_every_value),
        cmocka_unit_test(test_live_failed_loads_change_nothing),
        cmocka_unit_test(test_live_burst_of_saves_and_deleted_file),
        cmocka_unit_test(test_live_nomem_at_each_step_of_a_reload),
        cmocka_unit_test(test_live_reload_between_threaded_steps),
        cmocka_unit_test(test_live_reload_carries_states_and_accumulators),
        cmocka_unit_test(test_live_verify_finds_a_difference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* diff.c: the differential test. A stream of operations runs on a generated
 * world (tests/schema/fuzz.yaml) and on the reference model (model.c); after
 * every operation the two must agree: the alive set, every component value,
 * query results as sets, the system counts, the `changed` sets, the hooks'
 * and aspects' counts, the pending work.
 *
 * One file, three programs:
 *  - the cmocka test (default): a fixed-seed PRNG makes the stream;
 *    `test_fuzz_diff [--ops N] [--seed S]` runs a longer one (ninja fuzz-long),
 *    `--shard K/N` the K-th of N parts (each test variant of `ninja test`
 *    its own: seeds of its own, every Nth allocation of the sweep),
 *    `test_fuzz_diff --write-seeds DIR` writes the loader targets' corpus;
 *  - with -DFUZZ_LIBFUZZER=1, a libFuzzer target reading the stream from the
 *    fuzz input (ninja fuzz); =2 and =3, the binary and JSON loaders' targets
 *    (loading fuzz input into a populated world);
 *  - in both, a failing allocator: the Nth allocation fails, and every
 *    operation that then fails must leave the world equal to the model.
 *
 * Operations: create (empty, with a bundle, in bulk), spawn from an
 * assemblage, destroy, add, remove, set, mut (one component or a bundle),
 * each on live, destroyed, null and forged handles; steps; systems run
 * alone; enable / disable; deferral scopes; iterating a query while
 * changing what it visits; passes over `changed` sets; binary and JSON
 * saves, loaded into the same world, into a fresh one, or cut short;
 * freeing the empty tables (then the world holds exactly the tables its
 * entities need) and reserving room. The runtime's table set (query lists,
 * edges, ids, the idle list and the free policy) is checked beside the
 * model after every operation.
 *
 * The large world (test_fuzz_diff_large_world_matches_model, `--large`):
 * tens of thousands of entities made, moved and destroyed in bulk over
 * thousands of tables that are emptied and freed, with no links or entity
 * fields (op_large).
 *
 * The systems below log what they visit and what each call returned; the
 * model replays that log in the same order (so it never has to predict
 * table or row order) after checking that the visited set is exactly the
 * one it predicts. */
#define _POSIX_C_SOURCE 200809L /* fork, waitpid, setenv: the out-of-memory sweep */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_LIBFUZZER
#include <setjmp.h>
#include <cmocka.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "fz.h"
#include "model.h"
#include "shard.h"
#include "strata_internal.h" /* sti_dirty_has, to compare `changed` sets without consuming them */

_Static_assert((int)FZ_POS == M_POS && (int)FZ_VEL == M_VEL && (int)FZ_HP == M_HP && (int)FZ_TINY == M_TINY &&
                   (int)FZ_BIG == M_BIG && (int)FZ_NAME == M_NAME && (int)FZ_LINK == M_LINK &&
                   (int)FZ_ARMOR == M_ARMOR && (int)FZ_FROZEN == M_FROZEN && (int)FZ_MARK == M_MARK &&
                   (int)FZ_AIM == M_AIM && (int)FZ_CHILD_OF == M_CHILD && (int)FZ_TARGETS == M_TGTS &&
                   (int)FZ_DOCKED == M_DOCK && (int)FZ_COMPONENT_COUNT == M_NC,
               "the model numbers components as the schema does");
_Static_assert(sizeof(fz_pos) == 8 && sizeof(fz_vel) == 8 && sizeof(fz_hp) == 4 && sizeof(fz_tiny) == 1 &&
                   sizeof(fz_big) == 48 && sizeof(fz_name) == 13 && sizeof(fz_link) == 16 && sizeof(fz_armor) == 4 &&
                   sizeof(fz_aim) == 16,
               "no padding: values compare byte for byte");
_Static_assert((int)FZ_SYSTEM_TICK == M_SYS_TICK && (int)FZ_SYSTEM_GROW == M_SYS_GROW &&
                   (int)FZ_SYSTEM_MOVE == M_SYS_MOVE && (int)FZ_SYSTEM_HUNT == M_SYS_HUNT &&
                   (int)FZ_SYSTEM_HEAL == M_SYS_HEAL && (int)FZ_SYSTEM_THAW == M_SYS_THAW,
               "the model's schedule is the generated one");
_Static_assert(offsetof(fz_child_of, depth_) == M_LINK_DEPTH && offsetof(fz_docked, depth_) == M_LINK_DEPTH &&
                   offsetof(fz_docked, slot) == M_LINK_SLOT,
               "the model's links are laid out as the components");

/* --- Failing -------------------------------------------------------------- */

/* The allocation made to fail in this run (0: none), for the report. */
static long failing_allocation;

#ifndef FUZZ_LIBFUZZER
/* The out-of-memory sweep (test_fuzz_nomem_every_allocation): one run of
 * the workload, in which allocations next, next + every, ... each fork a
 * child that fails it and carries on, while the parent goes on as if it
 * had not failed. */
static struct {
    long next, every; /* every 0: no sweep */
    long children;    /* forked so far */
    long failed_at;   /* the first allocation whose child failed (0: none) */
    int status;       /* that child's wait status */
    bool child;       /* this process is a child: a failure ends it */
} sweep;
#endif

/* Report a difference and stop: a cmocka failure, or an abort libFuzzer records. */
static void fuzz_fail(const char *fmt, ...) {
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (failing_allocation > 0) {
        size_t len = strlen(text);
        snprintf(text + len, sizeof text - len, " (allocation %ld failing)", failing_allocation);
    }
#ifdef FUZZ_LIBFUZZER
    fprintf(stderr, "fuzz: %s\n", text);
    abort();
#else
    if (sweep.child) { /* the parent reports it, by the exit status */
        fprintf(stderr, "%s\n", text);
        fflush(NULL);
        _exit(1);
    }
    fail_msg("%s", text);
#endif
}

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fuzz_fail(__VA_ARGS__);                                                                                    \
        }                                                                                                              \
    } while (0)

/* --- The operation stream: fuzz input or a PRNG ---------------------------- */

typedef struct source_t {
    const uint8_t *data; /* NULL: the PRNG */
    size_t size, pos;
    uint64_t state;
} source_t;

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* True while the stream has bytes left (a PRNG never runs out). */
static bool source_more(const source_t *s) {
    return s->data == NULL || s->pos < s->size;
}

/* A number below bound (at most 2^16): one or two bytes of input; zeros past its end. */
static uint32_t take(source_t *s, uint32_t bound) {
    uint32_t x;
    if (s->data == NULL) {
        x = (uint32_t)(splitmix(&s->state) >> 32);
    } else {
        x = s->pos < s->size ? s->data[s->pos++] : 0;
        if (bound > 256) {
            x = x << 8 | (s->pos < s->size ? s->data[s->pos++] : 0);
        }
    }
    return bound > 0 ? x % bound : 0;
}

/* --- A counting allocator that fails its Nth call ------------------------- */

#ifdef FUZZ_LIBFUZZER
#define HEAP_MALLOC malloc
#define HEAP_REALLOC realloc
#define HEAP_FREE free
#else
#define HEAP_MALLOC test_malloc
#define HEAP_REALLOC test_realloc
#define HEAP_FREE test_free
#endif

typedef struct heap_t {
    long calls, fail_at, failures;
    size_t bytes;
} heap_t;

#ifndef FUZZ_LIBFUZZER
/* A sweep's allocation: fork; the child fails it (true), the parent waits
 * for the child's verdict and carries on with the allocation made (false). */
static bool sweep_fork(heap_t *h) {
    sweep.next += sweep.every;
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        fail_msg("fork at allocation %ld failed", h->calls);
    }
    if (pid == 0) {
        sweep.child = true;
        sweep.every = 0;
        /* A cmocka check failing in the child (a test_free guard) ends it
         * rather than running the remaining tests in it. */
        setenv("CMOCKA_TEST_ABORT", "1", 1);
        h->fail_at = h->calls;
        failing_allocation = h->calls;
        h->failures++;
        return true;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {}
    sweep.children++;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        sweep.failed_at = h->calls;
        sweep.status = status;
        sweep.every = 0; /* one failure is reported: the rest of the run is the reference run's */
    }
    return false;
}
#endif

/* True if this call is the one to fail. */
static bool heap_fails(heap_t *h) {
    ++h->calls;
#ifndef FUZZ_LIBFUZZER
    if (sweep.every > 0 && h->calls == sweep.next) {
        return sweep_fork(h);
    }
#endif
    if (h->calls != h->fail_at) {
        return false;
    }
    h->failures++;
    return true;
}

static void *heap_alloc(size_t size, void *user) {
    heap_t *h = user;
    if (heap_fails(h)) {
        return NULL;
    }
    h->bytes += size;
    return HEAP_MALLOC(size);
}

static void *heap_realloc(void *p, size_t old_size, size_t size, void *user) {
    heap_t *h = user;
    if (heap_fails(h)) {
        return NULL;
    }
    h->bytes = h->bytes - old_size + size;
    return HEAP_REALLOC(p, size);
}

static void heap_free(void *p, size_t size, void *user) {
    heap_t *h = user;
    h->bytes -= size;
    HEAP_FREE(p);
}

/* --- The harness: the world, the model, what the game's code logged -------- */

enum { EV_VISIT, EV_RESULT, EV_CREATED, EV_HANDLE };

typedef struct event_t {
    int kind;
    int64_t value; /* a result, or a handle */
} event_t;

/* Children a system makes stop at this many entities (and the operations'
 * creates near it); the large-world mode's cap is its own (H.cap). */
#define ENTITY_CAP 160

static struct harness_t {
    fz_world *w;
    model m;
    heap_t heap;
    bool alloc_mode;            /* allocations may fail: flushes are matched, not predicted */
    uint32_t set_slot[M_NSETS]; /* the runtime's dirty set of each model set */
    event_t *log;
    uint32_t log_count, log_capacity, log_read;
    int running;      /* the system whose body ran and awaits the model, or -1 */
    bool stepping;    /* inside fz_world_step (else a system run on its own) */
    int last_in_step; /* the last system the step ran */
    uint32_t move_added, move_removed, armor_added, armor_removed, mark_added, mark_removed;
    long ops;
    uint64_t population; /* entities alive, summed over the operations */
    uint64_t visits;     /* rows the systems and iterations visited */
    uint64_t links;      /* ChildOf links alive, summed over the operations */
    uint32_t deepest;    /* the deepest ChildOf link seen */
    uint64_t cycles;     /* links refused as cycles */
    /* The world's shape: small (ENTITY_CAP, every operation) or large
     * (tens of thousands of entities, bulk operations, thousands of tables
     * made and freed, no links or entity fields: see op_large). */
    bool large;
    uint32_t cap;          /* entities at most (creates stop short of it) */
    uint32_t aim;          /* the large mode's population: creates above it turn to destroys */
    uint32_t free_after;   /* the world desc's free_empty_tables_after */
    long check_every;      /* operations between whole comparisons (1: after each) */
    bool free_waiting;     /* a free of the empty tables waits for the scope to close */
    uint64_t tables_freed; /* by free calls and the policy (tables_seen) */
    uint64_t tables_made;
    uint32_t tables_most;
    const void **seen_tables; /* the tables alive after the last operation, sorted (large mode) */
    uint32_t seen_count, seen_capacity;
} H;

static void log_event(int kind, int64_t value) {
    if (H.log_count == H.log_capacity) {
        H.log_capacity = H.log_capacity ? H.log_capacity * 2 : 256;
        H.log = realloc(H.log, sizeof(event_t) * H.log_capacity);
        CHECK(H.log != NULL, "out of memory for the log");
    }
    H.log[H.log_count++] = (event_t){kind, value};
}

/* The next logged event, which must be of `kind`. */
static int64_t log_next(int kind) {
    CHECK(H.log_read < H.log_count, "op %ld: the game's code logged less than the model expects", H.ops);
    event_t ev = H.log[H.log_read++];
    CHECK(ev.kind == kind, "op %ld: logged event %d where the model expects %d", H.ops, ev.kind, kind);
    return ev.value;
}

/* The next logged result, which must be the model's. */
static void log_expect(int predicted, const char *what) {
    int64_t got = log_next(EV_RESULT);
    CHECK(got == predicted, "op %ld: %s returned %lld, the model says %d", H.ops, what, (long long)got, predicted);
}

/* Evaluate a call until it stops failing for lack of memory (only the Nth
 * allocation fails, so the second try gets through; the model checks that
 * the failed one changed nothing). */
#define LOG_RETRY(call)                                                                                                \
    do {                                                                                                               \
        strata_result_t r_;                                                                                            \
        while ((r_ = (call)) == STRATA_ERR_NOMEM) {}                                                                   \
        log_event(EV_RESULT, r_);                                                                                      \
    } while (0)

/* A child entity (Pos, Link to parent); retried like LOG_RETRY. */
static fz_entity make_child(fz_world *w, fz_entity parent, int32_t x) {
    fz_entity c;
    do {
        c = fz_entity_create_bundle(w, &(fz_bundle){.pos = &(fz_pos){x, 0}, .link = &(fz_link){.to = parent}});
    } while (fz_entity_eq(c, FZ_ENTITY_NULL));
    return c;
}

static uint32_t world_entities(const fz_world *w) {
    strata_world_stats_t s;
    fz_world_stats(w, &s);
    return s.entities;
}

/* i32 arithmetic that wraps instead of overflowing. */
static int32_t wrap_add(int32_t a, int32_t b) {
    return (int32_t)(uint32_t)((uint32_t)a + (uint32_t)b);
}

static void sync_system(int sys);

/* --- The game's code: systems and hooks ------------------------------------ */

void fz_tick_run(fz_tick_ctx *ctx) {
    sync_system(M_SYS_TICK);
    ctx->stats->steps++;
    if (ctx->stats->steps % 7 == 3) {
        /* Inside a step it waits for the step's end; run alone (no scope) it frees now. */
        (void)fz_world_free_empty_tables(ctx->world);
        H.free_waiting = true;
    }
}

/* Grow's decisions for one row, whose Hp is now v (mirrored by grow_model). */
static void grow_row(fz_world *w, fz_entity e, int32_t v) {
    if (v % 3 == 0) {
        fz_tiny *t = fz_tiny_mut(w, e);
        log_event(EV_RESULT, t != NULL);
        if (t != NULL) {
            t->b ^= 1;
        }
    }
    if (v % 5 == 0) {
        LOG_RETRY(fz_tiny_add(w, e, (fz_tiny){(uint8_t)v}));
    }
    if (v % 7 == 0) {
        LOG_RETRY(fz_vel_remove(w, e));
    }
    if (v % 17 == 0) {
        LOG_RETRY(fz_armor_add(w, e, (fz_armor){(uint16_t)v, 0}));
    }
    if (v % 19 == 0) {
        LOG_RETRY(fz_armor_remove(w, e));
    }
    if (v % 13 == 0 && !H.large && world_entities(w) < H.cap) {
        fz_entity c = make_child(w, e, v);
        log_event(EV_CREATED, (int64_t)c.id);
        LOG_RETRY(fz_child_of_set(w, c, e)); /* deferred: the child is a root until the system ends */
    }
    if (v % 11 == 0) {
        LOG_RETRY(fz_entity_destroy(w, e));
    }
}

void fz_grow_run(fz_grow_ctx *ctx) {
    sync_system(M_SYS_GROW);
    while (fz_grow_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            log_event(EV_VISIT, (int64_t)ctx->entities[i].id);
            ctx->hp[i].value = wrap_add(ctx->hp[i].value, 1);
            grow_row(ctx->world, ctx->entities[i], ctx->hp[i].value);
        }
    }
}

void fz_move_run(fz_move_ctx *ctx) {
    sync_system(M_SYS_MOVE);
    while (fz_move_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            fz_entity e = ctx->entities[i];
            log_event(EV_VISIT, (int64_t)e.id);
            ctx->pos[i].x = wrap_add(ctx->pos[i].x, ctx->vel[i].dx);
            ctx->pos[i].y = wrap_add(ctx->pos[i].y, ctx->vel[i].dy);
            ctx->aspect[i].steps++;
            if (ctx->pos[i].x > 40 || ctx->pos[i].x < -40) {
                LOG_RETRY(fz_frozen_add(ctx->world, e));
            }
        }
    }
}

void fz_move_on_add(fz_world *w, fz_entity e, fz_move_aspect *aspect) {
    (void)w;
    (void)e;
    CHECK(aspect->steps == 0, "Move's aspect was not made at its defaults");
    H.move_added++;
}

void fz_move_on_remove(fz_world *w, fz_entity e, fz_move_aspect *aspect) {
    (void)w;
    (void)e;
    (void)aspect;
    H.move_removed++;
}

void fz_hunt_run(fz_hunt_ctx *ctx) {
    sync_system(M_SYS_HUNT);
    fz_world *w = ctx->world;
    while (fz_hunt_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            fz_entity e = ctx->entities[i];
            log_event(EV_VISIT, (int64_t)e.id);
            uint32_t hits = ++ctx->link[i].hits;
            fz_entity t = ctx->link[i].to;
            bool alive = fz_entity_alive(w, t);
            log_event(EV_RESULT, alive);
            if (alive) {
                fz_hp *hp = fz_hp_mut(w, t);
                log_event(EV_RESULT, hp != NULL);
                if (hp != NULL) {
                    hp->value = wrap_add(hp->value, -1);
                }
                uint32_t n = 0;
                (void)fz_targets_targets(w, e, &n);
                if (hits % 4 == 1 && n < M_MAX_TARGETS && !H.large) {
                    LOG_RETRY(fz_targets_add(w, e, t));
                }
                if (hits % 3 == 0) {
                    LOG_RETRY(fz_entity_destroy(w, t));
                }
            } else {
                LOG_RETRY(fz_link_remove(w, e));
            }
        }
    }
}

void fz_heal_run(fz_heal_ctx *ctx) {
    sync_system(M_SYS_HEAL);
    while (fz_heal_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            log_event(EV_VISIT, (int64_t)ctx->entities[i].id);
            if (ctx->hp[i].value < 5) {
                ctx->hp[i].value += 2;
            }
        }
    }
}

void fz_thaw_run(fz_thaw_ctx *ctx) {
    sync_system(M_SYS_THAW);
    while (fz_thaw_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            fz_entity e = ctx->entities[i];
            log_event(EV_VISIT, (int64_t)e.id);
            fz_pos p = ctx->pos[i];
            if (p.x > 40 || p.x < -40) {
                log_event(EV_RESULT, fz_pos_set(ctx->world, e, (fz_pos){0, p.y}));
                LOG_RETRY(fz_frozen_remove(ctx->world, e));
            }
        }
    }
}

void fz_armor_on_add(fz_world *w, fz_entity e, fz_armor *value) {
    (void)value;
    H.armor_added++;
    strata_result_t r;
    while ((r = fz_mark_add(w, e)) == STRATA_ERR_NOMEM) {}
    CHECK(r == STRATA_OK, "a hook's add failed");
}

void fz_armor_on_remove(fz_world *w, fz_entity e, fz_armor *value) {
    (void)value;
    H.armor_removed++;
    if (fz_mark_has(w, e)) {
        strata_result_t r;
        while ((r = fz_mark_remove(w, e)) == STRATA_ERR_NOMEM) {}
        CHECK(r == STRATA_OK, "a hook's remove failed");
    }
}

void fz_mark_on_add(fz_world *w, fz_entity e) {
    (void)w;
    (void)e;
    H.mark_added++;
}

void fz_mark_on_remove(fz_world *w, fz_entity e) {
    (void)w;
    (void)e;
    H.mark_removed++;
}

/* --- Typed calls by component id ------------------------------------------ */

/* A value of any component, so that typed pointers need no cast of bytes. */
typedef union value_t {
    fz_pos pos;
    fz_vel vel;
    fz_hp hp;
    fz_tiny tiny;
    fz_big big;
    fz_name name;
    fz_link link;
    fz_armor armor;
    fz_aim aim;
    unsigned char bytes[M_MAX_SIZE];
} value_t;

#define VALUE_COMPONENTS(X)                                                                                            \
    X(M_POS, pos)                                                                                                      \
    X(M_VEL, vel)                                                                                                      \
    X(M_HP, hp) X(M_TINY, tiny) X(M_BIG, big) X(M_NAME, name) X(M_LINK, link) X(M_ARMOR, armor) X(M_AIM, aim)
#define TAG_COMPONENTS(X) X(M_FROZEN, frozen) X(M_MARK, mark)

static strata_result_t real_add(fz_world *w, fz_entity e, int c, const value_t *v) {
    switch (c) {
#define ADD(C, n)                                                                                                      \
    case C: return fz_##n##_add(w, e, v->n);
        VALUE_COMPONENTS(ADD)
#undef ADD
#define ADD(C, n)                                                                                                      \
    case C: return fz_##n##_add(w, e);
        TAG_COMPONENTS(ADD)
#undef ADD
    }
    return STRATA_ERR_MISSING;
}

static strata_result_t real_remove(fz_world *w, fz_entity e, int c) {
    switch (c) {
#define REMOVE(C, n)                                                                                                   \
    case C: return fz_##n##_remove(w, e);
        VALUE_COMPONENTS(REMOVE) TAG_COMPONENTS(REMOVE)
#undef REMOVE
    }
    return STRATA_ERR_MISSING;
}

static bool real_has(const fz_world *w, fz_entity e, int c) {
    switch (c) {
#define HAS(C, n)                                                                                                      \
    case C: return fz_##n##_has(w, e);
        VALUE_COMPONENTS(HAS) TAG_COMPONENTS(HAS)
#undef HAS
    }
    return false;
}

static const void *real_get(const fz_world *w, fz_entity e, int c) {
    switch (c) {
#define GET(C, n)                                                                                                      \
    case C: return fz_##n##_get(w, e);
        VALUE_COMPONENTS(GET)
#undef GET
    }
    return NULL;
}

static void *real_mut(fz_world *w, fz_entity e, int c) {
    switch (c) {
#define MUT(C, n)                                                                                                      \
    case C: return fz_##n##_mut(w, e);
        VALUE_COMPONENTS(MUT)
#undef MUT
    }
    return NULL;
}

static strata_result_t real_set(fz_world *w, fz_entity e, int c, const value_t *v) {
    switch (c) {
#define SET(C, n)                                                                                                      \
    case C: return fz_##n##_set(w, e, v->n);
        VALUE_COMPONENTS(SET)
#undef SET
    }
    return STRATA_ERR_MISSING;
}

/* The bundle of the components in mask, values from vals. */
static fz_bundle make_bundle(uint16_t mask, const value_t *vals) {
    fz_bundle b = {0};
#define PUT(C, n) b.n = (mask & M_BIT(C)) ? &vals[C].n : NULL;
    VALUE_COMPONENTS(PUT)
#undef PUT
#define PUT(C, n) b.n = (mask & M_BIT(C)) != 0;
    TAG_COMPONENTS(PUT)
#undef PUT
    return b;
}

/* The model's view of vals. */
static void model_vals(const value_t *vals, const void *out[M_NC]) {
    for (int c = 0; c < M_NC; c++) {
        out[c] = vals[c].bytes;
    }
}

/* --- Comparing the world with the model ------------------------------------ */

#define DIFFER(...)                                                                                                    \
    do {                                                                                                               \
        snprintf(why, why_size, __VA_ARGS__);                                                                          \
        return false;                                                                                                  \
    } while (0)

static const char *component_names[M_NC] = {"Pos",   "Vel",    "Hp",   "Tiny", "Big",     "Name",    "Link",
                                            "Armor", "Frozen", "Mark", "Aim",  "ChildOf", "Targets", "Docked"};

/* The model entity of a row an iterator yielded, checked against the query
 * and not seen before in this pass (seen: by model slot). */
static m_entity *row_entity(fz_entity e, uint8_t *seen, int q, bool system) {
    m_entity *me = m_find(&H.m, e.id);
    if (me == NULL || seen[me - H.m.ents]++ || !(system ? m_system_matches(me, q) : m_query_matches(me, q))) {
        return NULL;
    }
    return me;
}

/* Rows of one free query as a set, with their values; false and why on a difference. */
static bool compare_queries(char *why, size_t why_size) {
    model *m = &H.m;
    fz_world *w = H.w;
    uint8_t *seen = calloc(m->n + 1, 1);
    CHECK(seen != NULL, "out of memory");
    bool ok = true;
    uint32_t n = 0;
    for (fz_movers_iter it = fz_movers_begin(w); ok && fz_movers_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++, n++) {
            m_entity *me = row_entity(it.entities[i], seen, M_Q_MOVERS, false);
            bool tiny = me != NULL && (me->mask & M_BIT(M_TINY));
            if (me == NULL || memcmp(&it.pos[i], me->val[M_POS], 8) || memcmp(&it.vel[i], me->val[M_VEL], 8) ||
                (it.tiny != NULL) != tiny || (tiny && it.tiny[i].b != me->val[M_TINY][0]) ||
                it.mark != ((me->mask & M_BIT(M_MARK)) != 0)) {
                snprintf(why, why_size, "Movers yielded %#llx wrongly", (unsigned long long)it.entities[i].id);
                ok = false;
                fz_movers_end(&it);
                break;
            }
        }
    }
    memset(seen, 0, m->n + 1);
    for (fz_named_iter it = fz_named_begin(w); ok && fz_named_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++, n++) {
            m_entity *me = row_entity(it.entities[i], seen, M_Q_NAMED, false);
            bool link = me != NULL && (me->mask & M_BIT(M_LINK));
            if (me == NULL || memcmp(&it.name[i], me->val[M_NAME], 13) || (it.link != NULL) != link ||
                (link && memcmp(&it.link[i], me->val[M_LINK], 16))) {
                snprintf(why, why_size, "Named yielded %#llx wrongly", (unsigned long long)it.entities[i].id);
                ok = false;
                fz_named_end(&it);
                break;
            }
        }
    }
    memset(seen, 0, m->n + 1);
    for (fz_heavy_iter it = fz_heavy_begin(w); ok && fz_heavy_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++, n++) {
            if (row_entity(it.entities[i], seen, M_Q_HEAVY, false) == NULL) {
                snprintf(why, why_size, "Heavy yielded %#llx wrongly", (unsigned long long)it.entities[i].id);
                ok = false;
                fz_heavy_end(&it);
                break;
            }
        }
    }
    /* Move's aspects, through its context (its writes feed no `changed` set). */
    memset(seen, 0, m->n + 1);
    fz_move_ctx ctx = fz_move_begin(w, 0.0f);
    while (ok && fz_move_next(&ctx)) {
        for (uint32_t i = 0; i < ctx.count; i++) {
            m_entity *me = row_entity(ctx.entities[i], seen, M_SYS_MOVE, true);
            if (me == NULL || ctx.aspect[i].steps != me->steps) {
                snprintf(why, why_size, "Move's aspect of %#llx is %u, the model's %u",
                         (unsigned long long)ctx.entities[i].id, ctx.aspect[i].steps, me ? me->steps : 0);
                ok = false;
                break;
            }
        }
    }
    fz_move_end(&ctx);
    free(seen);
    (void)n;
    (void)m;
    return ok;
}

/* e's links as the world shows them, against the model's: ChildOf's and
 * Docked's target, depth (and slot), Targets' tag and its targets. */
static bool links_match(const m_entity *me, char *why, size_t why_size) {
    fz_world *w = H.w;
    fz_entity e = {me->h};
    const fz_child_of *child = fz_child_of_get(w, e);
    bool has = (me->mask & M_BIT(M_CHILD)) != 0;
    if (fz_child_of_has(w, e) != has || (child != NULL) != has ||
        (has && (child->target.id != m_link_target(me, M_CHILD) || child->depth_ != m_link_depth(me, M_CHILD))) ||
        fz_child_of_target(w, e).id != m_link_target(me, M_CHILD) ||
        fz_child_of_depth(w, e) != (int32_t)m_link_depth(me, M_CHILD)) {
        DIFFER("%#llx: ChildOf %s (target %#llx depth %d), the model's %s (target %#llx depth %u)",
               (unsigned long long)me->h, child ? "linked" : "none", (unsigned long long)(child ? child->target.id : 0),
               fz_child_of_depth(w, e), has ? "linked" : "none", (unsigned long long)m_link_target(me, M_CHILD),
               m_link_depth(me, M_CHILD));
    }
    const fz_docked *dock = fz_docked_get(w, e);
    has = (me->mask & M_BIT(M_DOCK)) != 0;
    if (fz_docked_has(w, e) != has || (dock != NULL) != has ||
        (has && (dock->target.id != m_link_target(me, M_DOCK) || dock->depth_ != m_link_depth(me, M_DOCK) ||
                 dock->slot != me->val[M_DOCK][M_LINK_SLOT])) ||
        fz_docked_depth(w, e) != (int32_t)m_link_depth(me, M_DOCK)) {
        DIFFER("%#llx: Docked differs from the model's", (unsigned long long)me->h);
    }
    has = (me->mask & M_BIT(M_TGTS)) != 0;
    if (strata_has(fz_world_core(w), me->h, FZ_TARGETS) != has) {
        DIFFER("%#llx %s the Targets tag", (unsigned long long)me->h, has ? "lacks" : "has");
    }
    uint32_t n = 0;
    const fz_entity *ts = fz_targets_targets(w, e, &n);
    if (n != me->ntgts) {
        DIFFER("%#llx has %u Targets links, the model %u", (unsigned long long)me->h, n, me->ntgts);
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!m_targets_has(me, ts[i].id) || !fz_targets_has(w, e, ts[i])) {
            DIFFER("%#llx links to %#llx in Targets, not in the model", (unsigned long long)me->h,
                   (unsigned long long)ts[i].id);
        }
    }
    return true;
}

/* Every live entity's sources in each relation: as many as the model's,
 * each one a source in the model, none twice. */
static bool sources_match(char *why, size_t why_size) {
    model *m = &H.m;
    fz_world *w = H.w;
    static uint32_t count[3][M_MAX_ENTITIES];
    static uint64_t stamp[M_MAX_ENTITIES];
    static uint64_t clock;
    static const int rels[3] = {M_CHILD, M_DOCK, M_TGTS};
    for (int k = 0; k < 3; k++) {
        memset(count[k], 0, sizeof(uint32_t) * m->n);
    }
    for (uint32_t i = 0; i < m->n; i++) {
        const m_entity *s = &m->ents[i];
        for (int k = 0; k < 2; k++) {
            uint64_t t = m_link_target(s, rels[k]);
            if (t != 0 && m_is_source(m, s, rels[k], t)) {
                count[k][m->slot[(uint32_t)t]]++;
            }
        }
        for (uint32_t j = 0; j < s->ntgts; j++) {
            const m_entity *te = m_find(m, s->tgts[j]);
            if (te != NULL) {
                count[2][te - m->ents]++;
            }
        }
    }
    for (uint32_t i = 0; i < m->n; i++) {
        fz_entity t = {m->ents[i].h};
        for (int k = 0; k < 3; k++) {
            uint32_t n = 0;
            const fz_entity *list = k == 0   ? fz_child_of_sources(w, t, &n)
                                    : k == 1 ? fz_docked_sources(w, t, &n)
                                             : fz_targets_sources(w, t, &n);
            if (n != count[k][i]) {
                DIFFER("%#llx has %u sources in %s, the model %u", (unsigned long long)t.id, n,
                       component_names[rels[k]], count[k][i]);
            }
            clock++;
            for (uint32_t j = 0; j < n; j++) {
                const m_entity *s = m_find(m, list[j].id);
                bool ok = s != NULL && stamp[s - m->ents] != clock &&
                          (k < 2 ? m_is_source(m, s, rels[k], t.id) : m_targets_has(s, t.id));
                if (!ok) {
                    DIFFER("%#llx is among %#llx's sources in %s, wrongly", (unsigned long long)list[j].id,
                           (unsigned long long)t.id, component_names[rels[k]]);
                }
                stamp[s - m->ents] = clock;
            }
        }
    }
    return true;
}

/* The table set as the runtime keeps it (which the model knows nothing
 * of): each query lists every table it matches once, those with rows
 * first, each table's listings pointing at its places; ids are indices;
 * edges are mirrored; the idle list holds the tables without rows (the
 * empty one aside), oldest first, none idle longer than the policy allows
 * once a step has ended. */
static bool tables_match(char *why, size_t why_size) {
    const strata_world_t *w = fz_world_core(H.w);
    uint32_t cc = w->component_count, idle = 0;
    for (uint32_t i = 0; i < w->table_count; i++) {
        const sti_table_t *t = w->tables[i];
        if (t->id != i) {
            DIFFER("table %u holds id %u", i, t->id);
        }
        idle += i != 0 && t->count == 0;
        for (uint32_t c = 0; c < 2 * cc; c++) {
            const sti_table_t *n = t->edges[c].table;
            if (n != NULL &&
                (n->id >= w->table_count || w->tables[n->id] != n || n->edges[c < cc ? cc + c : c - cc].table != t)) {
                DIFFER("table %u: edge %u leads to a table that is gone or does not lead back", i, c);
            }
        }
        for (uint32_t k = 0; k < t->listing_count; k++) {
            const sti_query_cache_t *q = &w->queries[t->listings[k].query];
            if (t->listings[k].at >= q->count || q->tables[t->listings[k].at] != t) {
                DIFFER("table %u: its place in query %u's list is wrong", i, t->listings[k].query);
            }
        }
    }
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        const sti_query_cache_t *c = &w->queries[q];
        uint32_t matching = 0;
        for (uint32_t i = 0; i < w->table_count; i++) {
            matching += sti_query_matches(w, q, &w->tables[i]->mask);
        }
        if (c->count != matching || c->live > c->count) {
            DIFFER("query %u lists %u tables (%u with rows), %u match", q, c->count, c->live, matching);
        }
        for (uint32_t i = 0; i < c->count; i++) {
            const sti_table_t *t = c->tables[i];
            if ((i < c->live) != (t->count > 0) || c->entries[i].count != &t->count ||
                t->listings[c->listing[i]].query != q || t->listings[c->listing[i]].at != i) {
                DIFFER("query %u: entry %u (table %u, %u rows) is out of place", q, i, t->id, t->count);
            }
        }
    }
    uint32_t listed = 0;
    for (const sti_table_t *t = w->idle_head; t != NULL; t = t->idle_next, listed++) {
        if (t->count != 0 || t->id == 0 || (t->idle_next != NULL && t->idle_next->idle_since < t->idle_since)) {
            DIFFER("the idle list holds table %u (%u rows) out of order", t->id, t->count);
        }
        if (H.free_after != 0 && H.m.depth == 0 && w->table_clock - t->idle_since >= H.free_after &&
            w->table_clock != 0 && !H.stepping) {
            DIFFER("table %u idle for %u steps, the policy frees at %u", t->id, w->table_clock - t->idle_since,
                   H.free_after);
        }
    }
    if (listed != idle) {
        DIFFER("the idle list holds %u tables, %u have no rows", listed, idle);
    }
    return true;
}

/* The tables a world holds once its empty ones are freed: the empty
 * archetype and one for each component set a live entity has. */
static uint32_t tables_predicted(void) {
    static uint8_t met[1u << M_NC];
    memset(met, 0, sizeof met);
    uint32_t n = 1;
    for (uint32_t i = 0; i < H.m.n; i++) {
        uint16_t mask = H.m.ents[i].mask & (uint16_t)~M_SPARSE; /* sparse components make no table */
        n += mask != 0 && !met[mask];
        met[mask] = 1;
    }
    return n;
}

/* True if the world shows exactly what the model holds; else why not. */
static bool world_matches(char *why, size_t why_size) {
    model *m = &H.m;
    fz_world *w = H.w;
    strata_world_t *core = fz_world_core(w);
    strata_world_stats_t s;
    fz_world_stats(w, &s);
    if (s.entities != m->n) {
        DIFFER("%u entities alive, the model has %u", s.entities, m->n);
    }
    if (s.pending != m_pending(m)) {
        DIFFER("%u changes pending, the model has %u", s.pending, m_pending(m));
    }
    uint32_t counts[M_NQ] = {0}, system_counts[M_NSYS] = {0}, set_sizes[M_NSETS] = {0};
    for (uint32_t i = 0; i < m->n; i++) {
        const m_entity *me = &m->ents[i];
        fz_entity e = {me->h};
        if (!fz_entity_alive(w, e)) {
            DIFFER("%#llx is dead, the model has it alive", (unsigned long long)me->h);
        }
        if (!links_match(me, why, why_size)) {
            return false;
        }
        if (H.m.linkless &&
            ((me->mask & (M_BIT(M_CHILD) | M_BIT(M_DOCK) | M_BIT(M_TGTS) | M_BIT(M_AIM))) || me->ntgts > 0)) {
            DIFFER("%#llx holds a link or an entity field in a world the model keeps without",
                   (unsigned long long)me->h);
        }
        for (int c = 0; c < M_NPLAIN; c++) {
            bool has = (me->mask & M_BIT(c)) != 0;
            if (real_has(w, e, c) != has) {
                DIFFER("%#llx %s %s", (unsigned long long)me->h, has ? "lacks" : "has", component_names[c]);
            }
            const void *v = real_get(w, e, c);
            if (m_size[c] > 0 && ((v != NULL) != has || (has && memcmp(v, me->val[c], m_size[c]) != 0))) {
                DIFFER("%#llx: %s differs from the model's", (unsigned long long)me->h, component_names[c]);
            }
        }
        for (int q = 0; q < M_NQ; q++) {
            counts[q] += m_query_matches(me, q);
        }
        for (int k = 0; k < M_NSYS; k++) {
            system_counts[k] += m_system_matches(me, k);
        }
        for (int k = 0; k < M_NSETS; k++) {
            bool in = (me->dirty >> k) & 1u, real = sti_dirty_has(core, H.set_slot[k], me->h);
            set_sizes[k] += in;
            if (in != real) {
                DIFFER("%#llx is %s changed set %d, the model says otherwise", (unsigned long long)me->h,
                       real ? "in" : "not in", k);
            }
        }
    }
    if (!sources_match(why, why_size)) {
        return false;
    }
    for (uint32_t i = 0; i < M_DEAD_RING && i < m->dead_count; i++) {
        fz_entity e = {m->dead[i]};
        uint32_t n = 1;
        if (fz_entity_alive(w, e) || fz_hp_get(w, e) != NULL || fz_frozen_has(w, e) || fz_pos_mut(w, e) != NULL ||
            fz_child_of_depth(w, e) != -1 || fz_child_of_sources(w, e, &n) != NULL || n != 0 ||
            fz_targets_targets(w, e, &n) != NULL || fz_docked_sources(w, e, &n) != NULL ||
            fz_targets_sources(w, e, &n) != NULL || !fz_entity_eq(fz_docked_target(w, e), FZ_ENTITY_NULL)) {
            DIFFER("destroyed %#llx still answers", (unsigned long long)e.id);
        }
    }
    if (fz_entity_alive(w, FZ_ENTITY_NULL)) {
        DIFFER("the null entity is alive");
    }
    if (!tables_match(why, why_size)) {
        return false;
    }
    const uint32_t got[M_NQ] = {fz_movers_count(w), fz_named_count(w),   fz_heavy_count(w),
                                fz_hurt_count(w),   fz_touched_count(w), fz_tree_count(w)};
    for (int q = 0; q < M_NQ; q++) {
        if (got[q] != counts[q]) {
            DIFFER("free query %d counts %u, the model %u", q, got[q], counts[q]);
        }
    }
    const uint32_t sys_got[M_NSYS] =
        {0, fz_grow_count(w), fz_move_count(w), fz_hunt_count(w), fz_heal_count(w), fz_thaw_count(w)};
    for (int k = 1; k < M_NSYS; k++) {
        if (sys_got[k] != system_counts[k]) {
            DIFFER("system %d counts %u, the model %u", k, sys_got[k], system_counts[k]);
        }
    }
    const uint32_t changed[M_NSETS] = {fz_hurt_changed_count(w), fz_touched_changed_count(w), fz_heal_changed_count(w)};
    for (int k = 0; k < M_NSETS; k++) {
        if (changed[k] != set_sizes[k]) {
            DIFFER("changed set %d holds %u, the model %u", k, changed[k], set_sizes[k]);
        }
    }
    const uint32_t hooks[6] = {H.move_added,    H.move_removed, H.armor_added,
                               H.armor_removed, H.mark_added,   H.mark_removed};
    const uint32_t model_hooks[6] = {m->move_added,    m->move_removed, m->armor_added,
                                     m->armor_removed, m->mark_added,   m->mark_removed};
    for (int i = 0; i < 6; i++) {
        if (hooks[i] != model_hooks[i]) {
            DIFFER("hook counter %d is %u, the model's %u", i, hooks[i], model_hooks[i]);
        }
    }
    if (fz_stats_res(w)->steps != m->steps) {
        DIFFER("Stats.steps is %u, the model's %u", fz_stats_res(w)->steps, m->steps);
    }
    const bool enabled[M_NSYS] = {fz_tick_enabled(w), fz_grow_enabled(w), fz_move_enabled(w),
                                  fz_hunt_enabled(w), fz_heal_enabled(w), fz_thaw_enabled(w)};
    for (int k = 0; k < M_NSYS; k++) {
        if (enabled[k] != m->enabled[k]) {
            DIFFER("system %d enabled %d, the model %d", k, enabled[k], m->enabled[k]);
        }
    }
    /* Iterating opens a scope: with nothing open and work pending (a flush
     * that failed), closing it would apply that work. */
    if (!(m->depth == 0 && m_pending(m) > 0)) {
        return compare_queries(why, why_size);
    }
    return true;
}

/* The world must equal the model now. */
static void check_world(const char *where) {
    char why[256];
    CHECK(world_matches(why, sizeof why), "op %ld (%s): %s", H.ops, where, why);
}

/* The model applies what a flush applies. No allocation has failed: all
 * of it. One has: the runtime may have stopped there, keeping the rest,
 * so the model applies units until the world matches it (and it must,
 * at some point: a flush applies whole commands, in order). */
static void flush_model(const char *where) {
    model *m = &H.m;
    m_flush_begin(m);
    if (!m_flush_due(m)) {
        return;
    }
    if (H.heap.failures == 0) { /* (none yet: the flush applied everything) */
        while (m_flush_unit(m)) {}
        return;
    }
    char why[256];
    while (!world_matches(why, sizeof why)) {
        if (getenv("FUZZ_TRACE") != NULL) {
            fprintf(stderr, "  flush: %s (model pending %u)\n", why, m_pending(m));
        }
        CHECK(m_flush_unit(m), "op %ld (%s): after a flush the world is no prefix of the model's: %s", H.ops, where,
              why);
    }
}

/* --- The model's side of the systems --------------------------------------- */

/* Which model entities a system or query will visit; false for the others. */
typedef struct visits_t {
    uint8_t will[M_MAX_ENTITIES];
    uint8_t done[M_MAX_ENTITIES];
    uint32_t expected, seen;
    uint32_t will_top, done_top; /* what a prediction clears: the entries set since the last */
} visits_t;

static visits_t visits;

/* Predict: the entities matching (system s, query q or `changed` set k). */
static void visits_predict(int kind, int which) {
    model *m = &H.m;
    memset(visits.will, 0, visits.will_top);
    memset(visits.done, 0, visits.done_top);
    visits.will_top = m->n;
    visits.done_top = 0;
    visits.expected = visits.seen = 0;
    for (uint32_t i = 0; i < m->n; i++) {
        const m_entity *me = &m->ents[i];
        bool yes = kind == 0   ? m_system_matches(me, which)
                   : kind == 1 ? m_query_matches(me, which)
                               : ((me->dirty >> which) & 1u) && m_set_matches(me, which);
        visits.will[i] = yes;
        visits.expected += yes;
    }
}

/* The next logged visit: one the model predicted, not seen before. */
static m_entity *visit_next(void) {
    uint64_t h = (uint64_t)log_next(EV_VISIT);
    m_entity *me = m_find(&H.m, h);
    CHECK(me != NULL, "op %ld: visited %#llx, which the model has dead", H.ops, (unsigned long long)h);
    uint32_t i = (uint32_t)(me - H.m.ents);
    CHECK(visits.will[i], "op %ld: visited %#llx, which does not match", H.ops, (unsigned long long)h);
    CHECK(!visits.done[i]++, "op %ld: visited %#llx twice", H.ops, (unsigned long long)h);
    visits.done_top = i + 1 > visits.done_top ? i + 1 : visits.done_top;
    visits.seen++;
    H.visits++;
    return me;
}

/* A created entity the game's code logged: fresh, then the model's. */
static uint64_t adopt_logged(void) {
    uint64_t h = (uint64_t)log_next(EV_CREATED);
    CHECK(m_adopt(&H.m, h), "op %ld: new handle %#llx was issued before", H.ops, (unsigned long long)h);
    return h;
}

static int32_t model_i32(const m_entity *me, int c, int field) {
    int32_t v;
    memcpy(&v, me->val[c] + 4 * field, 4);
    return v;
}

static void model_set_i32(m_entity *me, int c, int field, int32_t v) {
    memcpy(me->val[c] + 4 * field, &v, 4);
}

/* Grow on one visited entity: grow_row, on the model. */
static void grow_model(m_entity *me) {
    model *m = &H.m;
    uint64_t h = me->h;
    int32_t v = wrap_add(model_i32(me, M_HP, 0), 1);
    model_set_i32(me, M_HP, 0, v);
    if (v % 3 == 0) {
        unsigned char *t = m_mut(m, h, M_TINY);
        log_expect(t != NULL, "Grow's Tiny mut");
        if (t != NULL) {
            t[0] ^= 1;
        }
    }
    value_t vals[M_NC];
    const void *mv[M_NC];
    model_vals(vals, mv);
    if (v % 5 == 0) {
        vals[M_TINY].tiny.b = (uint8_t)v;
        log_expect(m_add(m, h, M_BIT(M_TINY), mv), "Grow's Tiny add");
    }
    if (v % 7 == 0) {
        log_expect(m_remove(m, h, M_BIT(M_VEL)), "Grow's Vel remove");
    }
    if (v % 17 == 0) {
        vals[M_ARMOR].armor = (fz_armor){(uint16_t)v, 0};
        log_expect(m_add(m, h, M_BIT(M_ARMOR), mv), "Grow's Armor add");
    }
    if (v % 19 == 0) {
        log_expect(m_remove(m, h, M_BIT(M_ARMOR)), "Grow's Armor remove");
    }
    if (v % 13 == 0 && !H.large && m->n < H.cap) {
        uint64_t child = adopt_logged();
        vals[M_POS].pos = (fz_pos){v, 0};
        vals[M_LINK].link = (fz_link){.to = {h}};
        m_create(m, &child, 1, M_BIT(M_POS) | M_BIT(M_LINK), mv);
        log_expect(m_link_set(m, M_CHILD, child, h, 0), "Grow's ChildOf set");
    }
    if (v % 11 == 0) {
        log_expect(m_destroy(m, h), "Grow's destroy");
    }
}

/* A system's body, on the model, from its log. */
static void system_model(int sys) {
    model *m = &H.m;
    if (sys == M_SYS_TICK) {
        m->steps++;
        return;
    }
    if (sys == M_SYS_HEAL) {
        visits_predict(2, M_SET_HEAL);
        /* A full pass empties the set; its own writes do not refill it. */
        for (uint32_t i = 0; i < m->n; i++) {
            m->ents[i].dirty &= (uint8_t) ~(1u << M_SET_HEAL);
        }
    } else {
        visits_predict(0, sys);
    }
    if (sys == M_SYS_GROW) {
        /* "rows yielded by an iterator that has the component under `write`" */
        for (uint32_t i = 0; i < m->n; i++) {
            if (visits.will[i]) {
                m_mark(m, &m->ents[i], M_HP);
            }
        }
    }
    while (H.log_read < H.log_count) {
        m_entity *me = visit_next();
        uint64_t h = me->h;
        switch (sys) {
        case M_SYS_GROW: grow_model(me); break;
        case M_SYS_MOVE: {
            int32_t x = wrap_add(model_i32(me, M_POS, 0), model_i32(me, M_VEL, 0));
            model_set_i32(me, M_POS, 0, x);
            model_set_i32(me, M_POS, 1, wrap_add(model_i32(me, M_POS, 1), model_i32(me, M_VEL, 1)));
            me->steps++;
            if (x > 40 || x < -40) {
                log_expect(m_add(m, h, M_BIT(M_FROZEN), NULL), "Move's Frozen add");
            }
            break;
        }
        case M_SYS_HUNT: {
            fz_link link;
            memcpy(&link, me->val[M_LINK], sizeof link);
            link.hits++;
            memcpy(me->val[M_LINK], &link, sizeof link);
            bool alive = m_alive(m, link.to.id);
            log_expect(alive, "Hunt's alive");
            if (alive) {
                unsigned char *hp = m_mut(m, link.to.id, M_HP);
                log_expect(hp != NULL, "Hunt's Hp mut");
                if (hp != NULL) {
                    int32_t v;
                    memcpy(&v, hp, 4);
                    v = wrap_add(v, -1);
                    memcpy(hp, &v, 4);
                }
                if (link.hits % 4 == 1 && me->ntgts < M_MAX_TARGETS && !H.large) {
                    log_expect(m_targets_add(m, h, link.to.id), "Hunt's Targets add");
                }
                if (link.hits % 3 == 0) {
                    log_expect(m_destroy(m, link.to.id), "Hunt's destroy");
                }
            } else {
                log_expect(m_remove(m, h, M_BIT(M_LINK)), "Hunt's Link remove");
            }
            break;
        }
        case M_SYS_HEAL: {
            me->dirty |= 1u << M_SET_HURT; /* its write term feeds Hurt's set */
            int32_t v = model_i32(me, M_HP, 0);
            if (v < 5) {
                model_set_i32(me, M_HP, 0, v + 2);
            }
            break;
        }
        case M_SYS_THAW: {
            int32_t x = model_i32(me, M_POS, 0);
            if (x > 40 || x < -40) {
                value_t p = {.pos = {0, model_i32(me, M_POS, 1)}};
                log_expect(m_set(m, h, M_POS, p.bytes), "Thaw's Pos set");
                log_expect(m_remove(m, h, M_BIT(M_FROZEN)), "Thaw's Frozen remove");
            }
            break;
        }
        }
    }
    CHECK(visits.seen == visits.expected, "op %ld: system %d visited %u entities, the model expects %u", H.ops, sys,
          visits.seen, visits.expected);
}

/* Scopes a system holds while it runs: the step's own (in a step) and its iterator's (if it has terms). */
static uint32_t system_scopes(int sys) {
    return (H.stepping ? 1u : 0u) + (sys != M_SYS_TICK ? 1u : 0u);
}

/* The model catches up with the system that ran last: its body, then
 * (if `flush`) what closing it applies. */
static void finish_system(bool flush) {
    if (H.running < 0) {
        return;
    }
    int sys = H.running;
    H.running = -1;
    system_model(sys);
    CHECK(H.log_read == H.log_count, "op %ld: system %d logged more than the model expects", H.ops, sys);
    H.log_count = H.log_read = 0;
    H.m.depth -= system_scopes(sys);
    if (flush) {
        flush_model("a system's end");
    }
}

/* Called first thing by every system body: the model catches up with the
 * previous system, checks the schedule, and (allocations failing) that
 * the world is what it says. */
static void sync_system(int sys) {
    finish_system(true);
    if (H.stepping) {
        int next = H.last_in_step + 1;
        while (next < M_NSYS && !H.m.enabled[next]) {
            next++;
        }
        CHECK(sys == next, "op %ld: the step ran system %d where the model expects %d", H.ops, sys, next);
        H.last_in_step = sys;
    }
    if (H.heap.failures > 0) {
        check_world("a system's start");
    }
    H.m.depth += system_scopes(sys);
    H.running = sys;
    H.log_count = H.log_read = 0;
}

/* --- Operations ------------------------------------------------------------ */

/* A handle to operate on: mostly live, else destroyed, null or forged. */
static fz_entity pick(source_t *src) {
    model *m = &H.m;
    uint32_t r = take(src, 16);
    if (r < 12 && m->n > 0) {
        return (fz_entity){m->ents[take(src, m->n)].h};
    }
    if (r < 14 && m->dead_count > 0) {
        uint32_t n = m->dead_count < M_DEAD_RING ? m->dead_count : M_DEAD_RING;
        return (fz_entity){m->dead[take(src, n)]};
    }
    if (r == 14) {
        return FZ_ENTITY_NULL;
    }
    return (fz_entity){(uint64_t)take(src, 4) << 32 | take(src, 64)};
}

/* A component with a value that is not a relation's link. */
static int pick_value_component(source_t *src) {
    int c = (int)take(src, M_FROZEN + 1);
    return c == M_FROZEN ? M_AIM : c;
}

/* A set of plain components from the stream; the large world holds no
 * entity field (Aim) either, so that no destroy has sources to find. */
static uint16_t pick_mask(source_t *src) {
    uint16_t mask = (uint16_t)take(src, 1u << M_NPLAIN);
    return H.large ? mask & (uint16_t)~M_BIT(M_AIM) : mask;
}

/* One plain component from the stream (as pick_mask). */
static int pick_component(source_t *src) {
    int c = (int)take(src, M_NPLAIN);
    return H.large && c == M_AIM ? M_TINY : c;
}

/* Values for every component, in ranges that keep the systems busy. */
static void pick_values(source_t *src, value_t *vals) {
    memset(vals, 0, sizeof(value_t) * M_NC);
    vals[M_POS].pos = (fz_pos){(int32_t)take(src, 91) - 45, (int32_t)take(src, 21) - 10};
    vals[M_VEL].vel = (fz_vel){(int32_t)take(src, 7) - 3, (int32_t)take(src, 7) - 3};
    vals[M_HP].hp.value = (int32_t)take(src, 101) - 20;
    vals[M_TINY].tiny.b = (uint8_t)take(src, 256);
    for (int i = 0; i < 5; i++) {
        vals[M_BIG].big.data[i] = (uint64_t)take(src, 65536) * 0x9e3779b97f4a7c15u;
    }
    vals[M_BIG].big.tag = take(src, 65536);
    /* Text: up to 12 bytes, any but NUL, then zeros (what char[13] holds: docs/schema.md). */
    uint32_t len = take(src, 13);
    for (uint32_t i = 0; i < len; i++) {
        vals[M_NAME].name.text[i] = (char)(1 + take(src, 255));
    }
    vals[M_LINK].link = (fz_link){pick(src), take(src, 8), take(src, 256)};
    vals[M_ARMOR].armor = (fz_armor){(uint16_t)take(src, 65536), (uint16_t)take(src, 65536)};
    vals[M_AIM].aim = (fz_aim){pick(src), take(src, 256), take(src, 65536)};
}

/* Run `call` (one runtime call returning a result); a NOMEM result must
 * have left the world equal to the model, and the call is made again.
 * Then the result must be `predicted`, the model's, evaluated after. */
#define EXPECT_OP(call, predicted, what)                                                                               \
    do {                                                                                                               \
        strata_result_t r_;                                                                                            \
        while ((r_ = (call)) == STRATA_ERR_NOMEM) {                                                                    \
            CHECK(H.alloc_mode, "op %ld: out of memory with no allocation failing", H.ops);                            \
            check_world("a failed call");                                                                              \
        }                                                                                                              \
        expect(r_, (predicted), (what));                                                                               \
    } while (0)

/* The result must be the model's. */
static void expect(strata_result_t got, int predicted, const char *what) {
    H.cycles += got == STRATA_ERR_CYCLE;
    CHECK((int)got == predicted, "op %ld: %s returned %d (%s), the model says %d", H.ops, what, (int)got,
          strata_result_str(got), predicted);
}

/* Close a deferral scope in both; a flush that failed is retried until done. */
static void close_scope(strata_result_t r, const char *where) {
    flush_model(where);
    while (r == STRATA_ERR_NOMEM) {
        CHECK(H.alloc_mode, "op %ld: %s: out of memory with no allocation failing", H.ops, where);
        strata_defer_begin(fz_world_core(H.w));
        r = strata_defer_end(fz_world_core(H.w));
        flush_model(where);
    }
    CHECK(r == STRATA_OK, "op %ld: %s returned %s", H.ops, where, strata_result_str(r));
}

/* Create one or more entities (their handles adopted by the model). */
static void op_create(source_t *src, int how) {
    model *m = &H.m;
    fz_world *w = H.w;
    value_t vals[M_NC];
    pick_values(src, vals);
    uint16_t mask = pick_mask(src);
    const void *mv[M_NC];
    model_vals(vals, mv);
    if (how == 0) {
        fz_entity e;
        while (fz_entity_eq(e = fz_entity_create(w), FZ_ENTITY_NULL)) {
            CHECK(H.alloc_mode, "op %ld: create failed", H.ops);
            check_world("a failed create");
        }
        CHECK(m_adopt(m, e.id), "op %ld: create issued %#llx again", H.ops, (unsigned long long)e.id);
        m_create(m, &e.id, 1, 0, NULL);
    } else if (how == 1) {
        fz_bundle b = make_bundle(mask, vals);
        fz_entity e;
        while (fz_entity_eq(e = fz_entity_create_bundle(w, &b), FZ_ENTITY_NULL)) {
            CHECK(H.alloc_mode, "op %ld: create_bundle failed", H.ops);
            check_world("a failed create_bundle");
        }
        CHECK(m_adopt(m, e.id), "op %ld: create_bundle issued %#llx again", H.ops, (unsigned long long)e.id);
        m_create(m, &e.id, 1, mask, mv);
    } else {
        uint32_t n = 1 + take(src, 8);
        fz_bundle b = make_bundle(mask, vals);
        fz_entity out[8];
        EXPECT_OP(fz_entity_create_many(w, &b, n, out), M_OK, "create_many");
        uint64_t hs[8];
        for (uint32_t i = 0; i < n; i++) {
            CHECK(m_adopt(m, out[i].id), "op %ld: create_many issued %#llx again", H.ops,
                  (unsigned long long)out[i].id);
            hs[i] = out[i].id;
        }
        m_create(m, hs, n, mask, mv);
    }
    flush_model("a create");
}

/* What op_iterate does to entity h (0 to 10); the large world makes no
 * link (8, 9, 10 add Frozen instead). */
static uint32_t iterate_kind(uint64_t h, uint32_t salt) {
    uint32_t kind = (uint32_t)(h * 0x9e3779b97f4a7c15u >> 40 ^ salt) % 11;
    return H.large && kind >= 8 ? 1 : kind;
}

/* Iterate Movers outside a step, changing what it visits (applied at the
 * end), stopping after `limit` rows. */
static void op_iterate(source_t *src) {
    model *m = &H.m;
    fz_world *w = H.w;
    uint32_t limit = take(src, 24), salt = take(src, 256);
    visits_predict(1, M_Q_MOVERS);
    H.log_count = H.log_read = 0;
    uint32_t seen = 0;
    bool stop = false;
    fz_movers_iter it = fz_movers_begin(w);
    m_defer_begin(m);
    while (!stop && fz_movers_next(&it)) {
        for (uint32_t i = 0; i < it.count; i++) {
            if (seen == limit) {
                stop = true;
                break;
            }
            seen++;
            fz_entity e = it.entities[i];
            log_event(EV_VISIT, (int64_t)e.id);
            fz_entity other = it.entities[(i + 1) % it.count];
            switch (iterate_kind(e.id, salt)) {
            case 8:
                log_event(EV_HANDLE, (int64_t)other.id);
                LOG_RETRY(fz_child_of_set(w, e, other));
                break;
            case 9: {
                uint32_t n = 0;
                (void)fz_targets_targets(w, e, &n);
                log_event(EV_HANDLE, (int64_t)other.id);
                if (n < M_MAX_TARGETS) {
                    LOG_RETRY(fz_targets_add(w, e, other));
                }
                break;
            }
            case 10: LOG_RETRY(fz_child_of_destroy_tree(w, e)); break;
            case 0: LOG_RETRY(fz_entity_destroy(w, e)); break;
            case 1: LOG_RETRY(fz_frozen_add(w, e)); break;
            case 2: LOG_RETRY(fz_vel_remove(w, e)); break;
            case 3: LOG_RETRY(fz_hp_add(w, e, (fz_hp){(int32_t)salt})); break;
            case 4:
                if (world_entities(w) < H.cap) {
                    fz_entity c;
                    do {
                        c = fz_entity_create_bundle(w, &(fz_bundle){.pos = &(fz_pos){1, 2},
                                                                    .vel = &FZ_VEL_DEFAULT,
                                                                    .tiny = &(fz_tiny){(uint8_t)salt}});
                    } while (fz_entity_eq(c, FZ_ENTITY_NULL));
                    log_event(EV_CREATED, (int64_t)c.id);
                }
                break;
            case 5: log_event(EV_RESULT, fz_pos_set(w, e, (fz_pos){wrap_add(it.pos[i].x, 1), it.pos[i].y})); break;
            case 6: LOG_RETRY(fz_armor_add(w, e, (fz_armor){(uint16_t)salt, 0})); break;
            default:
                LOG_RETRY(fz_entity_remove_bundle(w, e, &(fz_bundle){.vel = &FZ_VEL_DEFAULT, .mark = true}));
                break;
            }
        }
    }
    strata_result_t r = fz_movers_end(&it);
    /* The model: the same calls on the same entities, in the logged order. */
    while (H.log_read < H.log_count) {
        m_entity *me = visit_next();
        uint64_t h = me->h;
        value_t vals[M_NC];
        const void *mv[M_NC];
        memset(vals, 0, sizeof vals);
        model_vals(vals, mv);
        switch (iterate_kind(h, salt)) {
        case 8: {
            uint64_t t = (uint64_t)log_next(EV_HANDLE);
            log_expect(m_link_set(m, M_CHILD, h, t, 0), "ChildOf set while iterating");
            break;
        }
        case 9: {
            uint64_t t = (uint64_t)log_next(EV_HANDLE);
            if (me->ntgts < M_MAX_TARGETS) {
                log_expect(m_targets_add(m, h, t), "Targets add while iterating");
            }
            break;
        }
        case 10: log_expect(m_destroy_tree(m, h), "destroy_tree while iterating"); break;
        case 0: log_expect(m_destroy(m, h), "destroy while iterating"); break;
        case 1: log_expect(m_add(m, h, M_BIT(M_FROZEN), NULL), "Frozen add while iterating"); break;
        case 2: log_expect(m_remove(m, h, M_BIT(M_VEL)), "Vel remove while iterating"); break;
        case 3:
            vals[M_HP].hp.value = (int32_t)salt;
            log_expect(m_add(m, h, M_BIT(M_HP), mv), "Hp add while iterating");
            break;
        case 4:
            if (m->n < H.cap) {
                uint64_t c = adopt_logged();
                vals[M_POS].pos = (fz_pos){1, 2};
                vals[M_TINY].tiny.b = (uint8_t)salt;
                mv[M_VEL] = NULL;
                m_create(m, &c, 1, M_BIT(M_POS) | M_BIT(M_VEL) | M_BIT(M_TINY), mv);
            }
            break;
        case 5:
            vals[M_POS].pos = (fz_pos){wrap_add(model_i32(me, M_POS, 0), 1), model_i32(me, M_POS, 1)};
            log_expect(m_set(m, h, M_POS, vals[M_POS].bytes), "Pos set while iterating");
            break;
        case 6:
            vals[M_ARMOR].armor = (fz_armor){(uint16_t)salt, 0};
            log_expect(m_add(m, h, M_BIT(M_ARMOR), mv), "Armor add while iterating");
            break;
        default: log_expect(m_remove(m, h, M_BIT(M_VEL) | M_BIT(M_MARK)), "remove_bundle while iterating"); break;
        }
    }
    uint32_t want = visits.expected < limit ? visits.expected : limit;
    CHECK(visits.seen == want, "op %ld: Movers visited %u rows, the model expects %u", H.ops, visits.seen, want);
    H.log_count = H.log_read = 0;
    m_defer_end(m);
    close_scope(r, "the end of an iteration");
}

/* A full pass over a free query's `changed` set (Hurt or Touched). */
static void op_changed(source_t *src) {
    model *m = &H.m;
    fz_world *w = H.w;
    int k = take(src, 2) ? M_SET_TOUCHED : M_SET_HURT;
    visits_predict(2, k);
    for (uint32_t i = 0; i < m->n; i++) {
        m->ents[i].dirty &= (uint8_t) ~(1u << k);
    }
    H.log_count = H.log_read = 0;
    if (k == M_SET_HURT) {
        for (fz_hurt_iter it = fz_hurt_begin(w); fz_hurt_next(&it);) {
            CHECK(it.count == 1, "a changed iterator yields one row at a time");
            log_event(EV_VISIT, (int64_t)it.entities[0].id);
            if (it.hp[0].value % 4 == 0) {
                LOG_RETRY(fz_big_add(w, it.entities[0], (fz_big){.tag = (uint32_t)it.hp[0].value}));
            }
        }
    } else {
        for (fz_touched_iter it = fz_touched_begin(w); fz_touched_next(&it);) {
            CHECK(it.count == 1, "a changed iterator yields one row at a time");
            log_event(EV_VISIT, (int64_t)it.entities[0].id);
            uint8_t b = it.tiny[0].b;
            if (b & 1) {
                log_event(EV_RESULT, fz_tiny_set(w, it.entities[0], (fz_tiny){(uint8_t)(b + 1)}));
            }
        }
    }
    m_defer_begin(m);
    while (H.log_read < H.log_count) {
        m_entity *me = visit_next();
        value_t vals[M_NC];
        const void *mv[M_NC];
        memset(vals, 0, sizeof vals);
        model_vals(vals, mv);
        if (k == M_SET_HURT) {
            int32_t v = model_i32(me, M_HP, 0);
            if (v % 4 == 0) {
                vals[M_BIG].big.tag = (uint32_t)v;
                log_expect(m_add(m, me->h, M_BIT(M_BIG), mv), "Big add in Hurt");
            }
        } else if (me->val[M_TINY][0] & 1) {
            vals[M_TINY].tiny.b = (uint8_t)(me->val[M_TINY][0] + 1);
            /* Written after its visit: it counts for the next pass. */
            log_expect(m_set(m, me->h, M_TINY, vals[M_TINY].bytes), "Tiny set in Touched");
        }
    }
    CHECK(visits.seen == visits.expected, "op %ld: changed set %d visited %u, the model expects %u", H.ops, k,
          visits.seen, visits.expected);
    H.log_count = H.log_read = 0;
    m_defer_end(m);
    /* next() returning false closed the iterator: a failed flush is seen here. */
    close_scope(STRATA_OK, "the end of a changed pass");
}

/* One step, the model following system by system. */
static void op_step(void) {
    model *m = &H.m;
    m->in_step = true;
    H.stepping = true;
    H.last_in_step = -1;
    strata_result_t r = fz_world_step(H.w, 0.25f);
    /* The step has ended: the last system's flush and the step's are one
     * for the model (the same queue, then the scheduled destroys). */
    finish_system(false);
    int next = H.last_in_step + 1;
    while (next < M_NSYS && !m->enabled[next]) {
        next++;
    }
    CHECK(next == M_NSYS, "op %ld: the step skipped system %d", H.ops, next);
    H.stepping = false;
    m->in_step = false;
    close_scope(r, "a step");
}

/* One system run on its own, outside a step: its destroys are deferred to its end. */
static void op_system(source_t *src) {
    fz_world *w = H.w;
    strata_result_t r = STRATA_OK;
    switch (take(src, M_NSYS)) {
    case M_SYS_TICK: {
        fz_tick_ctx c = fz_tick_begin(w, 0.5f);
        fz_tick_run(&c);
        r = fz_tick_end(&c);
        break;
    }
    case M_SYS_GROW: {
        fz_grow_ctx c = fz_grow_begin(w, 0.5f);
        fz_grow_run(&c);
        r = fz_grow_end(&c);
        break;
    }
    case M_SYS_MOVE: {
        fz_move_ctx c = fz_move_begin(w, 0.5f);
        fz_move_run(&c);
        r = fz_move_end(&c);
        break;
    }
    case M_SYS_HUNT: {
        fz_hunt_ctx c = fz_hunt_begin(w, 0.5f);
        fz_hunt_run(&c);
        r = fz_hunt_end(&c);
        break;
    }
    case M_SYS_HEAL: {
        fz_heal_ctx c = fz_heal_begin(w, 0.5f);
        fz_heal_run(&c);
        r = fz_heal_end(&c);
        break;
    }
    default: {
        fz_thaw_ctx c = fz_thaw_begin(w, 0.5f);
        fz_thaw_run(&c);
        r = fz_thaw_end(&c);
        break;
    }
    }
    finish_system(true);
    close_scope(r, "a system run alone");
}

static void op_enable(source_t *src) {
    fz_world *w = H.w;
    int s = (int)take(src, M_NSYS);
    bool on = take(src, 3) != 0;
    switch (s) {
    case M_SYS_TICK: fz_tick_enable(w, on); break;
    case M_SYS_GROW: fz_grow_enable(w, on); break;
    case M_SYS_MOVE: fz_move_enable(w, on); break;
    case M_SYS_HUNT: fz_hunt_enable(w, on); break;
    case M_SYS_HEAL: fz_heal_enable(w, on); break;
    default: fz_thaw_enable(w, on); break;
    }
    H.m.enabled[s] = on;
}

/* Spawn from an assemblage, one or several. */
static void op_spawn(source_t *src) {
    model *m = &H.m;
    fz_world *w = H.w;
    bool knight = take(src, 2) != 0;
    uint32_t n = take(src, 3) == 0 ? 1 + take(src, 6) : 0; /* 0: one by fz_spawn_<name> */
    value_t vals[M_NC];
    const void *mv[M_NC];
    memset(vals, 0, sizeof vals);
    model_vals(vals, mv);
    mv[M_POS] = mv[M_VEL] = NULL; /* the schema's defaults */
    vals[M_HP].hp.value = 12;
    vals[M_NAME].name = (fz_name){"knight"};
    vals[M_ARMOR].armor = (fz_armor){9, 0};
    uint16_t mask = M_BIT(M_POS) | M_BIT(M_VEL) | M_BIT(M_HP);
    if (knight) {
        mask |= M_BIT(M_NAME) | M_BIT(M_ARMOR) | M_BIT(M_MARK);
    }
    fz_entity out[6];
    uint64_t hs[6];
    if (n == 0) {
        while (fz_entity_eq(out[0] = knight ? fz_spawn_knight(w) : fz_spawn_walker(w), FZ_ENTITY_NULL)) {
            CHECK(H.alloc_mode, "op %ld: spawn failed", H.ops);
            check_world("a failed spawn");
        }
    } else {
        EXPECT_OP(knight ? fz_spawn_knight_many(w, n, out) : fz_spawn_walker_many(w, n, out), M_OK, "spawn_many");
    }
    for (uint32_t i = 0; i < (n > 0 ? n : 1); i++) {
        CHECK(m_adopt(m, out[i].id), "op %ld: spawn issued %#llx again", H.ops, (unsigned long long)out[i].id);
        hs[i] = out[i].id;
    }
    m_create(m, hs, n > 0 ? n : 1, mask, mv);
}

/* The last save, in both forms, and what the model says it holds. */
static struct saved_t {
    bool valid;
    unsigned char *bin;
    size_t bin_size, bin_capacity;
    char *json;
    size_t json_size, json_capacity;
    m_save model;
} saved;

/* A snapshot taken with each save (the same snapshot each time, so each
 * take copies only the tables changed since the last), and a copy of the
 * model as it was then. */
static struct snapped_t {
    strata_snapshot_t *snap;
    bool valid;
    model m;
    uint64_t takes, rollbacks; /* summed over the runs */
} snapped;

/* Drop the snapshot (its world is going). */
static void snapshot_forget(void) {
    strata_snapshot_destroy(snapped.snap);
    snapped.snap = NULL;
    snapped.valid = false;
}

/* Take the snapshot; the model is copied when it succeeds (out of memory
 * leaves the snapshot and its copy of the model as they were). */
static void op_snapshot(void) {
    strata_world_t *core = fz_world_core(H.w);
    while (snapped.snap == NULL && (snapped.snap = strata_snapshot_create(core)) == NULL) {
        CHECK(H.alloc_mode, "op %ld: snapshot_create failed", H.ops);
    }
    strata_result_t r = strata_snapshot_take(core, snapped.snap);
    CHECK(r == STRATA_OK || (r == STRATA_ERR_NOMEM && H.alloc_mode), "op %ld: snapshot_take returned %s", H.ops,
          strata_result_str(r));
    if (r == STRATA_OK) {
        m_copy(&snapped.m, &H.m, false);
        snapped.valid = true;
        snapped.takes++;
    }
}

/* Roll back to the snapshot: the world and the model as they were (the
 * hooks' counts go on: a restore runs no hook). */
static void op_rollback(void) {
    strata_result_t r;
    while ((r = strata_snapshot_restore(fz_world_core(H.w), snapped.snap)) == STRATA_ERR_NOMEM) {
        CHECK(H.alloc_mode, "op %ld: snapshot_restore ran out of memory", H.ops);
        check_world("a failed restore");
    }
    CHECK(r == STRATA_OK, "op %ld: snapshot_restore returned %s", H.ops, strata_result_str(r));
    m_copy(&H.m, &snapped.m, true);
    snapped.rollbacks++;
}

static void save_world(void);

/* Save the world (binary and JSON, in memory); the model notes what it
 * holds. A snapshot is taken beside it. */
static void op_save(void) {
    op_snapshot();
    save_world();
}

/* The save of op_save, without the snapshot (for a world the snapshot was
 * not made for). */
static void save_world(void) {
    fz_world *w = H.w;
    strata_result_t r;
    while ((r = fz_world_save_mem(w, saved.bin, saved.bin_capacity, &saved.bin_size)) != STRATA_OK) {
        CHECK(r == STRATA_ERR_LIMIT || (r == STRATA_ERR_NOMEM && H.alloc_mode), "op %ld: save_mem returned %s", H.ops,
              strata_result_str(r));
        if (r == STRATA_ERR_LIMIT) {
            saved.bin_capacity = saved.bin_size;
            saved.bin = realloc(saved.bin, saved.bin_capacity);
            CHECK(saved.bin != NULL, "out of memory");
        }
    }
    while ((r = fz_world_dump_json_mem(w, saved.json, saved.json_capacity, &saved.json_size)) != STRATA_OK) {
        CHECK(r == STRATA_ERR_LIMIT || (r == STRATA_ERR_NOMEM && H.alloc_mode), "op %ld: dump_json_mem returned %s",
              H.ops, strata_result_str(r));
        if (r == STRATA_ERR_LIMIT) {
            saved.json_capacity = saved.json_size + 1;
            saved.json = realloc(saved.json, saved.json_capacity);
            CHECK(saved.json != NULL, "out of memory");
        }
    }
    m_save_take(&H.m, &saved.model);
    saved.valid = true;
}

/* The model's side of a load into the world: the saved entities arrive in
 * the order the world runs their hooks (table by table, row by row), so
 * that what the hooks record queues in the same order. */
static void model_load(void) {
    strata_world_t *core = fz_world_core(H.w);
    m_save s = saved.model;
    s.ents = malloc(sizeof(m_entity) * (s.n > 0 ? s.n : 1));
    uint32_t *at = calloc(M_MAX_INDEX, sizeof(uint32_t)); /* by index: 1 + the saved entity's place, or 0 */
    CHECK(s.ents != NULL && at != NULL, "out of memory");
    for (uint32_t i = 0; i < saved.model.n; i++) {
        at[(uint32_t)saved.model.ents[i].h] = i + 1;
    }
    uint32_t n = 0;
    for (uint32_t t = 0; t < core->table_count; t++) {
        for (uint32_t row = 0; row < core->tables[t]->count; row++) {
            uint64_t h = core->tables[t]->entities[row];
            uint32_t index = (uint32_t)h;
            bool held = index < M_MAX_INDEX && at[index] != 0 && saved.model.ents[at[index] - 1].h == h;
            CHECK(held && n < s.n, "op %ld: the load made %#llx, which the save does not hold", H.ops,
                  (unsigned long long)h);
            s.ents[n++] = saved.model.ents[at[index] - 1];
        }
    }
    CHECK(n == s.n, "op %ld: the load made %u entities, the save holds %u", H.ops, n, s.n);
    m_load(&H.m, &s);
    free(at);
    free(s.ents);
}

/* Load `size` bytes of the last save (binary or JSON) into w. */
static strata_result_t load_into(fz_world *w, bool json, size_t size, strata_load_report_t *report) {
    return json ? fz_world_load_json_mem(w, saved.json, size, report) : fz_world_load_mem(w, saved.bin, size, report);
}

/* Load the last save: into this world, into a fresh one that replaces it,
 * or cut short (which must fail and change nothing). */
static void op_load(source_t *src) {
    model *m = &H.m;
    bool json = take(src, 2) != 0;
    /* A rollback too in the small world; the large one's stream stays as it was. */
    uint32_t how = take(src, H.large ? 3 : 4);
    if (how == 3 && snapped.valid) {
        op_rollback();
        return;
    }
    strata_load_report_t report;
    strata_result_t r;
    if (how == 0) {
        /* Cut anywhere before the end of what it holds (a JSON dump may lose its trailing newline and stay whole). */
        size_t whole = json ? saved.json_size : saved.bin_size;
        while (json && whole > 0 && (saved.json[whole - 1] == '\n' || saved.json[whole - 1] == ' ')) {
            whole--;
        }
        size_t cut = whole > 1 ? (size_t)take(src, 65536) % (whole - 1) : 0;
        while ((r = load_into(H.w, json, cut, &report)) == STRATA_ERR_NOMEM) {
            CHECK(H.alloc_mode, "op %ld: load ran out of memory", H.ops);
        }
        CHECK(r == STRATA_ERR_CORRUPT && report.error[0] != '\0',
              "op %ld: a %s save cut to %zu of %zu bytes loaded with %s (%s)", H.ops, json ? "JSON" : "binary", cut,
              whole, strata_result_str(r), report.error);
        return; /* the comparison shows the world untouched */
    }
    if (how == 1) {
        EXPECT_OP(load_into(H.w, json, json ? saved.json_size : saved.bin_size, &report), M_OK, "load");
        model_load();
        return;
    }
    /* A fresh world loads the save, then takes the place of this one. */
    strata_world_desc_t desc = {.allocator = {heap_alloc, heap_realloc, heap_free, &H.heap},
                                .initial_capacity = 16,
                                .free_empty_tables_after = H.free_after};
    fz_world *fresh;
    while ((fresh = fz_world_create(&desc)) == NULL) {
        CHECK(H.alloc_mode, "op %ld: world creation failed", H.ops);
    }
    while ((r = load_into(fresh, json, json ? saved.json_size : saved.bin_size, &report)) == STRATA_ERR_NOMEM) {
        CHECK(H.alloc_mode, "op %ld: load ran out of memory", H.ops);
        check_world("a failed load into a fresh world");
    }
    CHECK(r == STRATA_OK, "op %ld: load into a fresh world: %s (%s)", H.ops, strata_result_str(r), report.error);
    CHECK(report.entities == saved.model.n, "op %ld: the load reports %u entities, the save holds %u", H.ops,
          report.entities, saved.model.n);
    snapshot_forget();
    fz_world_destroy(H.w);
    H.w = fresh;
    m_world_destroyed(m);
    model_load();
}

/* --- Relations ---------------------------------------------------------------- */

/* A target for e's link: mostly any handle (pick), else e itself, an
 * entity below e in ChildOf (a link to it would close a cycle), or one that
 * has a parent (so that trees grow deep). */
static fz_entity pick_target(source_t *src, fz_entity e) {
    model *m = &H.m;
    uint32_t r = take(src, 8);
    if (r == 0) {
        return e;
    }
    if ((r == 2 || r == 3) && m->n > 0) {
        uint32_t start = take(src, m->n);
        for (uint32_t k = 0; k < m->n; k++) {
            const m_entity *x = &m->ents[(start + k) % m->n];
            if (m_link_target(x, M_CHILD) != 0 && x->h != e.id) {
                return (fz_entity){x->h};
            }
        }
    }
    if (r == 1 && m->n > 0) {
        uint32_t start = take(src, m->n);
        for (uint32_t k = 0; k < m->n; k++) {
            const m_entity *x = &m->ents[(start + k) % m->n];
            if (x->h != e.id && (x->mask & M_BIT(M_CHILD)) && m_link_target(x, M_CHILD) != 0) {
                uint64_t up = x->h;
                for (uint32_t steps = 0; up != 0 && steps <= m->n; steps++) {
                    if (up == e.id) {
                        return (fz_entity){x->h};
                    }
                    const m_entity *u = m_find(m, up);
                    up = u != NULL ? m_link_target(u, M_CHILD) : 0;
                }
            }
        }
    }
    return pick(src);
}

/* An entity some entity links to (in any relation), or any handle. */
static fz_entity pick_target_with_sources(source_t *src) {
    model *m = &H.m;
    if (m->n > 0) {
        uint32_t start = take(src, m->n);
        for (uint32_t k = 0; k < m->n; k++) {
            const m_entity *s = &m->ents[(start + k) % m->n];
            uint64_t t = m_link_target(s, M_CHILD)  ? m_link_target(s, M_CHILD)
                         : m_link_target(s, M_DOCK) ? m_link_target(s, M_DOCK)
                         : s->ntgts > 0             ? s->tgts[0]
                                                    : 0;
            if (m_alive(m, t)) {
                return (fz_entity){t};
            }
        }
    }
    return pick(src);
}

/* Set, add or remove a link, or destroy a subtree. */
static void op_link(source_t *src, uint32_t how) {
    model *m = &H.m;
    fz_world *w = H.w;
    fz_entity e = pick(src);
    fz_entity t = pick_target(src, e);
    switch (how) {
    case 0: EXPECT_OP(fz_child_of_set(w, e, t), m_link_set(m, M_CHILD, e.id, t.id, 0), "ChildOf set"); break;
    case 1: {
        /* Docked's data; its target and depth fields are ignored (given as junk). */
        fz_docked link = {.target = pick(src), .depth_ = take(src, 65536), .slot = (uint8_t)take(src, 256)};
        EXPECT_OP(fz_docked_set(w, e, t, &link), m_link_set(m, M_DOCK, e.id, t.id, link.slot), "Docked set");
        break;
    }
    case 2:
        if (take(src, 2)) {
            EXPECT_OP(fz_child_of_remove(w, e), m_link_remove(m, M_CHILD, e.id), "ChildOf remove");
        } else {
            EXPECT_OP(fz_docked_remove(w, e), m_link_remove(m, M_DOCK, e.id), "Docked remove");
        }
        break;
    case 3: {
        const m_entity *me = m_find(m, e.id);
        if (me == NULL || me->ntgts < M_MAX_TARGETS) {
            EXPECT_OP(fz_targets_add(w, e, t), m_targets_add(m, e.id, t.id), "Targets add");
        }
        break;
    }
    case 4: {
        const m_entity *me = m_find(m, e.id);
        if (me != NULL && me->ntgts > 0 && take(src, 4) != 0) {
            t = (fz_entity){me->tgts[take(src, me->ntgts)]};
        }
        EXPECT_OP(fz_targets_remove(w, e, t), m_targets_remove(m, e.id, t.id), "Targets remove");
        break;
    }
    case 5: {
        strata_result_t r = fz_child_of_destroy_tree(w, e);
        if (r != STRATA_ERR_NOMEM) {
            expect(r, m_destroy_tree(m, e.id), "destroy_tree");
            break;
        }
        /* Its settle stopped for want of memory: the destroys before the
         * failing command applied, the rest wait for the next settle (as
         * strata.h says). The model records them all and applies as many. */
        CHECK(H.alloc_mode, "op %ld: destroy_tree out of memory with no allocation failing", H.ops);
        CHECK(m_destroy_tree(m, e.id) == M_OK, "op %ld: destroy_tree: NOMEM for a stale root", H.ops);
        flush_model("a destroy_tree that ran out of memory");
        strata_defer_begin(fz_world_core(w));
        m_defer_begin(m);
        r = strata_defer_end(fz_world_core(w));
        m_defer_end(m);
        close_scope(r, "the settle after a destroy_tree");
        break;
    }
    default: {
        fz_entity target = pick_target_with_sources(src);
        EXPECT_OP(fz_entity_destroy(w, target), m_destroy(m, target.id), "destroy of a target");
        break;
    }
    }
}

/* The relations' reads on any handle (live ones are compared after every operation). */
static void op_link_reads(source_t *src) {
    model *m = &H.m;
    fz_world *w = H.w;
    fz_entity e = pick(src), t = pick(src);
    const m_entity *me = m_find(m, e.id);
    CHECK(fz_child_of_target(w, e).id == (me ? m_link_target(me, M_CHILD) : 0), "op %ld: ChildOf target differs",
          H.ops);
    CHECK(fz_docked_depth(w, e) == (me ? (int32_t)m_link_depth(me, M_DOCK) : -1), "op %ld: Docked depth differs",
          H.ops);
    CHECK(fz_targets_has(w, e, t) == (me != NULL && t.id != 0 && m_targets_has(me, t.id)),
          "op %ld: Targets has differs", H.ops);
    uint32_t n = 7;
    (void)fz_child_of_sources(w, e, &n);
    CHECK(me != NULL || n == 0, "op %ld: a dead entity has sources", H.ops);
}

/* A cascade pass over Tree (at the top level it sorts rows by depth, inside
 * a scope it takes them as they are): each entity with Pos once, batches in
 * order of depth, every parent with Pos before its children. */
static void op_cascade(source_t *src) {
    model *m = &H.m;
    fz_world *w = H.w;
    bool scoped = take(src, 3) == 0;
    if (scoped) {
        strata_defer_begin(fz_world_core(w));
        m_defer_begin(m);
    }
    visits_predict(1, M_Q_TREE);
    uint32_t last_depth = 0;
    for (fz_tree_iter it = fz_tree_begin(w); fz_tree_next(&it);) {
        CHECK(it.count > 0, "op %ld: an empty cascade batch", H.ops);
        uint32_t depth = it.child_of != NULL ? it.child_of[0].depth_ : 0;
        CHECK(depth >= last_depth, "op %ld: a cascade batch at depth %u after one at %u", H.ops, depth, last_depth);
        last_depth = depth;
        for (uint32_t i = 0; i < it.count; i++) {
            H.log_count = H.log_read = 0;
            log_event(EV_VISIT, (int64_t)it.entities[i].id);
            m_entity *me = visit_next();
            CHECK(memcmp(&it.pos[i], me->val[M_POS], 8) == 0, "op %ld: Tree shows another Pos", H.ops);
            CHECK((it.child_of != NULL) == ((me->mask & M_BIT(M_CHILD)) != 0), "op %ld: Tree's ChildOf column", H.ops);
            CHECK(it.child_of == NULL || it.child_of[i].depth_ == depth, "op %ld: a cascade batch mixes depths", H.ops);
            if (depth > 0) { /* the batch gives each row its parent's row (a replayed pass too) */
                fz_entity t = it.child_of[i].target;
                const sti_record_t *rec = sti_record_lookup(fz_world_core(w), t.id);
                CHECK(rec != NULL && it.up.row != NULL && it.up.row[i] == rec->row &&
                          (it.up.pos == NULL || &it.up.pos[rec->row] == fz_pos_get(w, t)) &&
                          (it.up.child_of == NULL || &it.up.child_of[rec->row] == fz_child_of_get(w, t)),
                      "op %ld: a cascade batch gives %#llx another row as its parent's", H.ops,
                      (unsigned long long)me->h);
            }
            uint64_t up = m_link_target(me, M_CHILD);
            const m_entity *parent = m_find(m, up);
            if (parent != NULL && m_is_source(m, me, M_CHILD, up) && m_query_matches(parent, M_Q_TREE)) {
                CHECK(visits.done[parent - m->ents], "op %ld: %#llx visited before its parent %#llx", H.ops,
                      (unsigned long long)me->h, (unsigned long long)up);
            }
        }
    }
    H.log_count = H.log_read = 0;
    CHECK(visits.seen == visits.expected, "op %ld: Tree visited %u, the model expects %u", H.ops, visits.seen,
          visits.expected);
    if (scoped) {
        strata_result_t r = strata_defer_end(fz_world_core(w));
        m_defer_end(m);
        close_scope(r, "the end of a scoped cascade");
    }
}

/* A new entity whose bundle holds a link (ChildOf or Docked) to any handle:
 * the link's hook files it, or drops it (target dead) leaving the component. */
static void op_create_linked(source_t *src) {
    model *m = &H.m;
    fz_world *w = H.w;
    value_t vals[M_NC];
    pick_values(src, vals);
    uint16_t mask = (uint16_t)take(src, 1u << M_NPLAIN);
    int c = take(src, 2) ? M_CHILD : M_DOCK;
    fz_entity t = pick(src);
    fz_child_of child = {.target = t};
    fz_docked dock = {.target = t, .slot = (uint8_t)take(src, 256)};
    fz_bundle b = make_bundle(mask, vals);
    unsigned char link[M_MAX_SIZE];
    memcpy(link, m_default[c], M_MAX_SIZE);
    if (c == M_CHILD) {
        b.child_of = &child;
        memcpy(link, &child, sizeof child);
    } else {
        b.docked = &dock;
        memcpy(link, &dock, sizeof dock);
    }
    const void *mv[M_NC];
    model_vals(vals, mv);
    mv[c] = link;
    fz_entity e;
    while (fz_entity_eq(e = fz_entity_create_bundle(w, &b), FZ_ENTITY_NULL)) {
        CHECK(H.alloc_mode, "op %ld: create_bundle failed", H.ops);
        check_world("a failed create_bundle");
    }
    CHECK(m_adopt(m, e.id), "op %ld: create_bundle issued %#llx again", H.ops, (unsigned long long)e.id);
    m_create(m, &e.id, 1, (uint16_t)(mask | M_BIT(c)), mv);
}

/* --- Tables: freed and reserved --------------------------------------------- */

/* Free the empty tables, now or (inside a scope, sometimes) when it closes;
 * then the world holds the tables the model's entities need, no more. */
static void op_free_tables(source_t *src) {
    model *m = &H.m;
    fz_world *w = H.w;
    bool scoped = m->depth == 0 && take(src, 3) == 0;
    if (scoped) {
        strata_defer_begin(fz_world_core(w));
        m_defer_begin(m);
    }
    uint32_t before = fz_world_core(w)->table_count;
    uint32_t freed = fz_world_free_empty_tables(w);
    uint32_t after = fz_world_core(w)->table_count;
    CHECK(freed == before - after, "op %ld: free_empty_tables says %u went, the count went from %u to %u", H.ops, freed,
          before, after);
    CHECK(m->depth == 0 || freed == 0, "op %ld: tables freed inside a scope", H.ops);
    H.free_waiting = true;
    if (scoped) {
        strata_result_t r = strata_defer_end(fz_world_core(w));
        m_defer_end(m);
        close_scope(r, "the scope of a free");
    }
}

/* After a free that ran (no scope left open): exactly the tables the live entities need. */
static void check_freed(void) {
    if (!H.free_waiting || H.m.depth > 0 || H.stepping) {
        return;
    }
    H.free_waiting = false;
    uint32_t tables = fz_world_core(H.w)->table_count, want = tables_predicted();
    /* (A flush that failed for want of memory and was retried after the
     * free may have made tables since, and left them empty.) */
    CHECK(H.heap.failures > 0 ? tables >= want : tables == want,
          "op %ld: after a free the world holds %u tables, its entities need %u", H.ops, tables, want);
}

/* Room ahead: a bundle's archetype or an assemblage's (and its records).
 * Nothing to see in the world but for a table made without rows. */
static void op_reserve(source_t *src) {
    fz_world *w = H.w;
    uint32_t n = 1 + take(src, H.large ? 4096 : 64);
    switch (take(src, 3)) {
    case 0: {
        value_t vals[M_NC];
        pick_values(src, vals);
        fz_bundle b = make_bundle(pick_mask(src), vals);
        EXPECT_OP(fz_reserve_bundle(w, &b, n), M_OK, "reserve_bundle");
        break;
    }
    case 1: EXPECT_OP(fz_reserve_knight(w, n), M_OK, "reserve_knight"); break;
    default: EXPECT_OP(fz_reserve_entities(w, n), M_OK, "reserve_entities"); break;
    }
}

/* One operation from the stream. */
/* Where each live entity is (its table and row, through the runtime's
 * records) before an operation: an add or remove of only sparse
 * components moves no row of any entity (none is made or destroyed: the
 * hooks of the fuzz world's sparse components only count, or record). */
static struct {
    uint16_t table[M_MAX_INDEX];
    uint32_t row[M_MAX_INDEX];
    uint32_t tables;
    uint32_t pending; /* work a settle during the operation may apply (it may move rows) */
} rows;

static void rows_before(void) {
    const strata_world_t *core = fz_world_core(H.w);
    for (uint32_t i = 0; i < H.m.n; i++) {
        const sti_record_t *rec = sti_record_lookup(core, H.m.ents[i].h);
        uint32_t index = (uint32_t)H.m.ents[i].h;
        rows.table[index] = rec != NULL ? rec->table : STI_NO_TABLE;
        rows.row[index] = rec != NULL ? rec->row : 0;
    }
    rows.tables = core->table_count;
    rows.pending = m_pending(&H.m);
}

/* After an add or remove of mask applied now to e: if mask is all sparse,
 * no entity's row moved and no archetype was made. */
static void rows_after(fz_entity e, uint16_t mask) {
    const strata_world_t *core = fz_world_core(H.w);
    if ((mask & (uint16_t)~M_SPARSE) != 0 || sti_deferred(core) || rows.pending > 0 || m_pending(&H.m) > 0) {
        return;
    }
    CHECK(core->table_count == rows.tables, "op %ld: a change of sparse components made an archetype", H.ops);
    for (uint32_t i = 0; i < H.m.n; i++) {
        const sti_record_t *rec = sti_record_lookup(core, H.m.ents[i].h);
        uint32_t index = (uint32_t)H.m.ents[i].h;
        CHECK(rec != NULL && rec->table == rows.table[index] && rec->row == rows.row[index],
              "op %ld: a change of sparse components of %#llx moved the row of %#llx", H.ops, (unsigned long long)e.id,
              (unsigned long long)H.m.ents[i].h);
    }
}

/* --- Bulk changes: an array of handles, or every entity a query matches -- */

#define MAX_BULK 64

static strata_result_t real_add_many(fz_world *w, const fz_entity *es, uint32_t n, int c, const value_t *v) {
    switch (c) {
#define ADD(C, x)                                                                                                      \
    case C: {                                                                                                          \
        fz_##x vs[MAX_BULK];                                                                                           \
        for (uint32_t i = 0; v != NULL && i < n; i++) {                                                                \
            vs[i] = v[i].x;                                                                                            \
        }                                                                                                              \
        return fz_##x##_add_many(w, es, n, v != NULL ? vs : NULL);                                                     \
    }
        VALUE_COMPONENTS(ADD)
#undef ADD
#define ADD(C, x)                                                                                                      \
    case C: return fz_##x##_add_many(w, es, n);
        TAG_COMPONENTS(ADD)
#undef ADD
    }
    return STRATA_ERR_MISSING;
}

static strata_result_t real_remove_many(fz_world *w, const fz_entity *es, uint32_t n, int c) {
    switch (c) {
#define REMOVE(C, x)                                                                                                   \
    case C: return fz_##x##_remove_many(w, es, n);
        VALUE_COMPONENTS(REMOVE) TAG_COMPONENTS(REMOVE)
#undef REMOVE
    }
    return STRATA_ERR_MISSING;
}

static strata_result_t real_add_matching(fz_world *w, fz_query_id q, int c, const value_t *v) {
    switch (c) {
#define ADD(C, x)                                                                                                      \
    case C: return fz_##x##_add_matching(w, q, v->x);
        VALUE_COMPONENTS(ADD)
#undef ADD
#define ADD(C, x)                                                                                                      \
    case C: return fz_##x##_add_matching(w, q);
        TAG_COMPONENTS(ADD)
#undef ADD
    }
    return STRATA_ERR_MISSING;
}

static strata_result_t real_remove_matching(fz_world *w, fz_query_id q, int c) {
    switch (c) {
#define REMOVE(C, x)                                                                                                   \
    case C: return fz_##x##_remove_matching(w, q);
        VALUE_COMPONENTS(REMOVE) TAG_COMPONENTS(REMOVE)
#undef REMOVE
    }
    return STRATA_ERR_MISSING;
}

/* The model of a bulk add (v[i] for hs[i]; v NULL: the defaults) or remove
 * of c over hs[0..n): STALE if any handle is, changing nothing; a remove
 * that none of them needs MISSING; else each in turn, as one add or remove. */
static int model_bulk(model *m, bool add, int c, uint32_t n, const uint64_t *hs, const value_t *v) {
    bool any = add;
    for (uint32_t i = 0; i < n; i++) {
        const m_entity *me = m_find(m, hs[i]);
        if (me == NULL) {
            return M_STALE;
        }
        any = any || (me->mask & M_BIT(c)) != 0;
    }
    if (!any) {
        return M_MISSING;
    }
    for (uint32_t i = 0; i < n; i++) {
        const void *vals[M_NC] = {0};
        vals[c] = v != NULL && m_size[c] > 0 ? v[i].bytes : NULL;
        if (add) {
            (void)m_add(m, hs[i], M_BIT(c), vals);
        } else {
            (void)m_remove(m, hs[i], M_BIT(c)); /* MISSING for those without it: skipped */
        }
    }
    return M_OK;
}

/* model_bulk over a query's entities: OK when none needed the change. */
static int model_bulk_matching(bool add, int c, uint32_t n, const uint64_t *hs, const value_t *v) {
    int r = model_bulk(&H.m, add, c, n, hs, v);
    return r == M_MISSING ? M_OK : r;
}

/* Handles for a bulk change: at times a whole table of a live entity in row
 * order (the runtime moves such a run at once), then a few picks, mostly
 * live ones (a stale one fails the call), repeats allowed. */
static uint32_t pick_bulk(source_t *src, fz_entity *es) {
    model *m = &H.m;
    uint32_t n = 0;
    if (take(src, 3) == 0 && m->n > 0) {
        const strata_world_t *core = fz_world_core(H.w);
        const sti_record_t *rec = sti_record_lookup(core, m->ents[take(src, m->n)].h);
        const sti_table_t *t = rec != NULL ? core->tables[rec->table] : NULL;
        for (uint32_t r = 0; t != NULL && r < t->count && n < MAX_BULK - 8; r++) {
            es[n++] = (fz_entity){t->entities[r]};
        }
    }
    bool live = take(src, 4) != 0;
    for (uint32_t k = take(src, 8); k > 0; k--) {
        es[n++] = live && m->n > 0 ? (fz_entity){m->ents[take(src, m->n)].h} : pick(src);
    }
    return n;
}

/* add_many / remove_many of one component over picked handles. */
static void op_bulk(source_t *src) {
    static value_t vals[M_NC], v[MAX_BULK];
    fz_entity es[MAX_BULK];
    uint64_t hs[MAX_BULK];
    uint32_t n = pick_bulk(src, es);
    int c = pick_component(src); /* (no entity field in the large world) */
    bool add = take(src, 2) != 0, defaults = take(src, 4) == 0;
    for (uint32_t i = 0; i < n; i++) {
        hs[i] = es[i].id;
        pick_values(src, vals);
        v[i] = vals[c];
    }
    if (add) {
        EXPECT_OP(real_add_many(H.w, es, n, c, defaults ? NULL : v),
                  model_bulk(&H.m, true, c, n, hs, defaults ? NULL : v), "add_many");
    } else {
        EXPECT_OP(real_remove_many(H.w, es, n, c), model_bulk(&H.m, false, c, n, hs, NULL), "remove_many");
    }
    rows_after(n > 0 ? es[0] : FZ_ENTITY_NULL, M_BIT(c));
}

/* add_matching / remove_matching of one component over a query's entities
 * (its terms; a `changed` filter is not one). */
static void op_bulk_query(source_t *src) {
    static uint64_t hs[M_MAX_ENTITIES];
    static value_t vals[M_NC], v[M_MAX_ENTITIES];
    model *m = &H.m;
    int q = (int)take(src, M_NQ), c = pick_component(src);
    bool add = take(src, 2) != 0;
    pick_values(src, vals);
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->n; i++) {
        if (m_query_matches(&m->ents[i], q)) {
            v[n] = vals[c];
            hs[n++] = m->ents[i].h;
        }
    }
    /* The model's change is made after the call's (a failed call must leave the world as the model is). */
    if (add) {
        EXPECT_OP(real_add_matching(H.w, (fz_query_id)q, c, &vals[c]), model_bulk_matching(true, c, n, hs, v),
                  "add_matching");
    } else {
        EXPECT_OP(real_remove_matching(H.w, (fz_query_id)q, c), model_bulk_matching(false, c, n, hs, NULL),
                  "remove_matching");
    }
    rows_after(FZ_ENTITY_NULL, M_BIT(c));
}

static void op_one(source_t *src) {
    model *m = &H.m;
    fz_world *w = H.w;
    uint32_t op = take(src, 43);
    static int trace = -1; /* FUZZ_TRACE=1 in the environment: each operation's number and kind */
    if (trace < 0) {
        trace = getenv("FUZZ_TRACE") != NULL;
    }
    bool crowded = m->n + 8 >= H.cap;
    if (crowded && (op <= 4 || op == 28 || op == 29 || op == 38)) {
        op = 14; /* destroy instead */
    }
    if (H.large && ((op >= 30 && op <= 36) || op == 38)) {
        op = 37; /* no link in the large world: read them instead */
    }
    if (m->depth > 0 && (op == 16 || op == 17 || op == 24 || op == 26 || op == 27)) {
        op = 19; /* no step, reserve, save or load inside a scope: close it instead */
    }
    if (op == 27 && !saved.valid) {
        op = 26; /* nothing to load yet: save */
    }
    if ((op == 26 || op == 27) && m_pending(m) > 0) {
        op = 40; /* work left by a failed flush (a policy's destroy, say): settle it first */
    }
    if (trace) {
        fprintf(stderr, "op %ld: %u (depth %u, pending %u)\n", H.ops, op, m->depth, m_pending(m));
    }
    value_t vals[M_NC];
    const void *mv[M_NC];
    rows_before();
    switch (op) {
    case 0:
    case 1:
    case 2: op_create(src, 1); break;
    case 3: op_create(src, 0); break;
    case 4: op_create(src, 2); break;
    case 5:
    case 6: {
        fz_entity e = pick(src);
        int c = pick_component(src);
        pick_values(src, vals);
        model_vals(vals, mv);
        EXPECT_OP(real_add(w, e, c, &vals[c]), m_add(m, e.id, M_BIT(c), mv), "add");
        rows_after(e, M_BIT(c));
        break;
    }
    case 7: {
        fz_entity e = pick(src);
        uint16_t mask = pick_mask(src);
        pick_values(src, vals);
        model_vals(vals, mv);
        fz_bundle b = make_bundle(mask, vals);
        EXPECT_OP(fz_entity_add_bundle(w, e, &b), m_add(m, e.id, mask, mv), "add_bundle");
        rows_after(e, mask);
        break;
    }
    case 8:
    case 9: {
        fz_entity e = pick(src);
        int c = (int)take(src, M_NPLAIN);
        EXPECT_OP(real_remove(w, e, c), m_remove(m, e.id, M_BIT(c)), "remove");
        rows_after(e, M_BIT(c));
        break;
    }
    case 10: {
        fz_entity e = pick(src);
        uint16_t mask = (uint16_t)take(src, 1u << M_NPLAIN);
        pick_values(src, vals);
        fz_bundle b = make_bundle(mask, vals);
        EXPECT_OP(fz_entity_remove_bundle(w, e, &b), m_remove(m, e.id, mask), "remove_bundle");
        rows_after(e, mask);
        break;
    }
    case 11:
    case 12: {
        fz_entity e = pick(src);
        int c = pick_value_component(src); /* value components only */
        pick_values(src, vals);
        expect(real_set(w, e, c, &vals[c]), m_set(m, e.id, c, vals[c].bytes), "set");
        break;
    }
    case 13: {
        fz_entity e = pick(src);
        int c = pick_value_component(src);
        pick_values(src, vals);
        unsigned char *want = m_mut(m, e.id, c);
        unsigned char *got = real_mut(w, e, c);
        CHECK((got != NULL) == (want != NULL), "op %ld: mut of %s gave %p, the model %p", H.ops, component_names[c],
              (void *)got, (void *)want);
        if (got != NULL) {
            CHECK(memcmp(got, want, m_size[c]) == 0, "op %ld: mut of %s shows another value", H.ops,
                  component_names[c]);
            memcpy(got, vals[c].bytes, m_size[c]);
            memcpy(want, vals[c].bytes, m_size[c]);
        }
        break;
    }
    case 14:
    case 15: {
        fz_entity e = pick(src);
        EXPECT_OP(fz_entity_destroy(w, e), m_destroy(m, e.id), "destroy");
        break;
    }
    case 16:
    case 17: op_step(); break;
    case 18: op_enable(src); break;
    case 19:
        if (m->depth < 3 && (m->depth == 0 || take(src, 2))) {
            strata_defer_begin(fz_world_core(w));
            m_defer_begin(m);
        } else {
            strata_result_t r = strata_defer_end(fz_world_core(w));
            m_defer_end(m);
            close_scope(r, "defer_end");
        }
        break;
    case 20:
    case 21: op_iterate(src); break;
    case 22: op_changed(src); break;
    case 23: op_system(src); break;
    case 24: op_reserve(src); break;
    case 25: op_bulk(src); break;
    case 41: op_free_tables(src); break;
    case 42: op_bulk_query(src); break;
    case 26: op_save(); break;
    case 27: op_load(src); break;
    case 28:
    case 29: op_spawn(src); break;
    case 30:
    case 31:
    case 32:
    case 33:
    case 34:
    case 35:
    case 36: op_link(src, op - 30); break;
    case 37: op_link_reads(src); break;
    case 38: op_create_linked(src); break;
    case 39: op_cascade(src); break;
    case 40: {
        strata_defer_begin(fz_world_core(w));
        close_scope(strata_defer_end(fz_world_core(w)), "a settle");
        break;
    }
    default: {
        /* Reads of any handle: the comparison covers live ones; these, any. */
        fz_entity e = pick(src);
        int c = (int)take(src, M_NPLAIN);
        const m_entity *me = m_find(m, e.id);
        CHECK(fz_entity_alive(w, e) == (me != NULL), "op %ld: alive(%#llx) differs", H.ops, (unsigned long long)e.id);
        CHECK(real_has(w, e, c) == (me != NULL && (me->mask & M_BIT(c))), "op %ld: has differs", H.ops);
        break;
    }
    }
    flush_model("an operation's end");
}

/* --- The large world ------------------------------------------------------------
 *
 * Tens of thousands of entities (H.population), made, changed and
 * destroyed in bulk, so that thousands of tables are made, emptied and
 * freed (by free calls and by the world's policy, H.free_after). No link
 * and no entity field (m.linkless: the model then finds no sources when it
 * destroys, which keeps it linear); the small world covers those. */

/* The handles of the live entities with exactly `mask` (a table's rows), or
 * of up to `most` picked at random (duplicates possible); malloc'd. */
static uint64_t *large_pick(source_t *src, bool table, uint16_t mask, uint32_t most, uint32_t *n) {
    model *m = &H.m;
    uint64_t *hs = malloc(sizeof(uint64_t) * (m->n + 1));
    CHECK(hs != NULL, "out of memory");
    *n = 0;
    for (uint32_t i = 0; table && i < m->n; i++) {
        if (m->ents[i].mask == mask) {
            hs[(*n)++] = m->ents[i].h;
        }
    }
    for (uint32_t i = 0; !table && i < most && i < m->n; i++) {
        hs[(*n)++] = m->ents[take(src, m->n)].h;
    }
    return hs;
}

/* n entities of one component set at once (its archetype reserved first, sometimes), or spawned. */
static void large_create(source_t *src) {
    model *m = &H.m;
    fz_world *w = H.w;
    uint32_t n = 1 + take(src, 4096);
    n = m->n + n > H.cap ? H.cap - m->n : n;
    if (n == 0) {
        return;
    }
    value_t vals[M_NC];
    const void *mv[M_NC];
    pick_values(src, vals);
    model_vals(vals, mv);
    uint16_t mask = pick_mask(src);
    fz_bundle b = make_bundle(mask, vals);
    fz_entity *out = malloc(sizeof(fz_entity) * n);
    uint64_t *hs = malloc(sizeof(uint64_t) * n);
    CHECK(out != NULL && hs != NULL, "out of memory");
    uint32_t how = take(src, 4);
    if (how == 0) {
        EXPECT_OP(fz_reserve_bundle(w, &b, n), M_OK, "reserve_bundle");
    }
    if (how == 3) { /* Walkers (Pos, Vel, Hp), from the assemblage, reserved first */
        EXPECT_OP(fz_reserve_walker(w, n), M_OK, "reserve_walker");
        EXPECT_OP(fz_spawn_walker_many(w, n, out), M_OK, "spawn_walker_many");
        memset(vals, 0, sizeof vals);
        model_vals(vals, mv);
        mv[M_POS] = mv[M_VEL] = NULL;
        vals[M_HP].hp.value = 12;
        mask = M_BIT(M_POS) | M_BIT(M_VEL) | M_BIT(M_HP);
    } else {
        EXPECT_OP(fz_entity_create_many(w, &b, n, out), M_OK, "create_many");
    }
    for (uint32_t i = 0; i < n; i++) {
        CHECK(m_adopt(m, out[i].id), "op %ld: create_many issued %#llx again", H.ops, (unsigned long long)out[i].id);
        hs[i] = out[i].id;
    }
    m_create(m, hs, n, mask, mv);
    free(out);
    free(hs);
}

/* Destroy every entity of one table, or many picked at random. */
static void large_destroy(source_t *src) {
    model *m = &H.m;
    if (m->n == 0) {
        return;
    }
    uint16_t mask = m->ents[take(src, m->n)].mask;
    uint32_t n = 0;
    /* Whole tables while the world is above half its aim; a few entities otherwise. */
    bool table = take(src, 3) != 0 && m->n > H.aim / 2;
    uint64_t *hs = large_pick(src, table, mask, 1 + take(src, table ? 1 : 256), &n);
    for (uint32_t i = 0; i < n; i++) {
        EXPECT_OP(fz_entity_destroy(H.w, (fz_entity){hs[i]}), m_destroy(m, hs[i]), "destroy");
    }
    free(hs);
}

/* Add a component to every entity of one table, or remove one from them:
 * the table empties, one after another or (inside a scope) in one batch. */
static void large_migrate(source_t *src) {
    model *m = &H.m;
    fz_world *w = H.w;
    if (m->n == 0) {
        return;
    }
    uint16_t mask = m->ents[take(src, m->n)].mask;
    int c = pick_component(src);
    bool add = (mask & M_BIT(c)) == 0, scoped = take(src, 2) != 0;
    value_t vals[M_NC];
    const void *mv[M_NC];
    pick_values(src, vals);
    model_vals(vals, mv);
    uint32_t n = 0;
    uint64_t *hs = large_pick(src, true, mask, 0, &n);
    if (scoped) {
        strata_defer_begin(fz_world_core(w));
        m_defer_begin(m);
    }
    for (uint32_t i = 0; i < n; i++) {
        fz_entity e = {hs[i]};
        if (add) {
            EXPECT_OP(real_add(w, e, c, &vals[c]), m_add(m, e.id, M_BIT(c), mv), "a migration's add");
        } else {
            EXPECT_OP(real_remove(w, e, c), m_remove(m, e.id, M_BIT(c)), "a migration's remove");
        }
    }
    if (scoped) {
        strata_result_t r = strata_defer_end(fz_world_core(w));
        m_defer_end(m);
        close_scope(r, "the end of a migration");
    }
    free(hs);
}

/* One operation of the large world: mostly bulk work; creates turn to
 * destroys above the population aimed at. No scope is left open. */
static void op_large(source_t *src) {
    model *m = &H.m;
    if (m->depth > 0) { /* left by op_one: close it first */
        strata_result_t r = strata_defer_end(fz_world_core(H.w));
        m_defer_end(m);
        close_scope(r, "defer_end");
        return;
    }
    uint32_t op = take(src, 100);
    bool full = m->n >= H.aim;
    if (getenv("FUZZ_TRACE") != NULL) {
        fprintf(stderr, "op %ld: large %u (%u entities, %u tables)\n", H.ops, op, m->n,
                fz_world_core(H.w)->table_count);
    }
    if (op < 36 && !full) {
        large_create(src);
    } else if (op < 42) {
        large_destroy(src);
    } else if (op < 58) {
        large_migrate(src);
    } else if (op < 63) {
        op_free_tables(src);
    } else if (op < 67) {
        op_reserve(src);
    } else if (op < 75) {
        op_step();
    } else if (op < 78) {
        op_changed(src);
    } else if (op < 81) {
        op_iterate(src);
    } else if (op < 82 && take(src, 4) == 0 && m_pending(m) == 0) {
        if (saved.valid && take(src, 2)) {
            op_load(src);
        } else {
            op_save();
        }
    } else {
        op_one(src);
        return;
    }
    flush_model("an operation's end");
}

/* Note the tables made and freed since the last operation (the set of
 * table addresses before and after; a table freed and another made at
 * its address in one operation count as neither). */
static int table_order(const void *a, const void *b) {
    uintptr_t x = (uintptr_t) * (const void *const *)a, y = (uintptr_t) * (const void *const *)b;
    return x < y ? -1 : x > y;
}

static void tables_seen(void) {
    const strata_world_t *w = fz_world_core(H.w);
    const void **now = malloc(sizeof(void *) * (w->table_count + 1));
    CHECK(now != NULL, "out of memory");
    for (uint32_t i = 0; i < w->table_count; i++) {
        now[i] = w->tables[i];
    }
    qsort(now, w->table_count, sizeof(void *), table_order);
    uint32_t i = 0, j = 0;
    while (i < H.seen_count || j < w->table_count) {
        int d = i == H.seen_count ? 1 : j == w->table_count ? -1 : table_order(&H.seen_tables[i], &now[j]);
        H.tables_freed += d < 0;
        H.tables_made += d > 0;
        i += d <= 0;
        j += d >= 0;
    }
    free(H.seen_tables);
    H.seen_tables = now;
    H.seen_count = w->table_count;
    H.tables_most = w->table_count > H.tables_most ? w->table_count : H.tables_most;
}

/* --- Runs ------------------------------------------------------------------ */

/* Find the runtime's dirty set of each model set, by query name. */
static void find_sets(void) {
    strata_world_t *core = fz_world_core(H.w);
    const strata_schema_t *s = strata_world_schema(core);
    const char *names[M_NSETS] = {"Hurt", "Touched", "Heal"};
    for (int k = 0; k < M_NSETS; k++) {
        uint32_t q = 0;
        while (q < s->query_count && strcmp(s->queries[q].name, names[k]) != 0) {
            q++;
        }
        CHECK(q < s->query_count && core->query_dirty[q] != UINT32_MAX, "no changed set for %s", names[k]);
        H.set_slot[k] = core->query_dirty[q];
    }
}

/* The shape of the runs that follow: small (ENTITY_CAP entities, every
 * operation, the world compared with the model after each) or large
 * (about `aim` entities, bulk operations, compared every few operations
 * and checked lightly after each); the world desc's policy. */
static void shape(bool large, uint32_t aim, uint32_t free_after) {
    H.large = large;
    H.aim = aim;
    H.cap = large ? (aim + aim / 5 < M_MAX_ENTITIES ? aim + aim / 5 : M_MAX_ENTITIES) : ENTITY_CAP;
    H.free_after = free_after;
    H.check_every = !large ? 1 : aim >= 20000 ? 50 : 10;
}

/* The checks that cost little: counts, pending work, the table set. */
static void check_light(const char *where) {
    char why[256];
    strata_world_stats_t st;
    fz_world_stats(H.w, &st);
    CHECK(st.entities == H.m.n && st.pending == m_pending(&H.m),
          "op %ld (%s): %u entities and %u pending, the model %u and %u", H.ops, where, st.entities, st.pending, H.m.n,
          m_pending(&H.m));
    CHECK(tables_match(why, sizeof why), "op %ld (%s): %s", H.ops, where, why);
}

/* A new world and model, the world's allocator failing its fail_at-th call (0: never). */
static void run_begin(long fail_at) {
    if (H.cap == 0) {
        shape(false, 0, 0);
    }
    memset(&H.heap, 0, sizeof H.heap);
    H.heap.fail_at = fail_at;
    failing_allocation = fail_at;
#ifdef FUZZ_LIBFUZZER
    H.alloc_mode = fail_at > 0;
#else
    H.alloc_mode = fail_at > 0 || sweep.every > 0; /* a sweep's reference run: its children fail allocations */
#endif
    H.running = -1;
    H.stepping = false;
    H.move_added = H.move_removed = H.armor_added = H.armor_removed = H.mark_added = H.mark_removed = 0;
    H.log_count = H.log_read = 0;
    m_init(&H.m, H.large ? M_MAX_ENTITIES : 2048); /* (the small world stays below ENTITY_CAP and a little) */
    H.m.linkless = H.large;
    H.free_waiting = false;
    H.tables_made = H.tables_freed = 0;
    H.tables_most = 0;
    free(H.seen_tables);
    H.seen_tables = NULL;
    H.seen_count = 0;
    strata_world_desc_t desc = {.allocator = {heap_alloc, heap_realloc, heap_free, &H.heap},
                                .initial_capacity = 16,
                                .free_empty_tables_after = H.free_after};
    while ((H.w = fz_world_create(&desc)) == NULL) {
        CHECK(H.alloc_mode && H.heap.bytes == 0, "world creation failed, or leaked");
    }
    const strata_schema_t *s = strata_world_schema(fz_world_core(H.w));
    for (int c = 0; c < M_NC; c++) {
        CHECK((s->components[c].storage == STRATA_STORAGE_SPARSE) == ((M_SPARSE >> c) & 1u),
              "the model's storage of %s is not the schema's", component_names[c]);
    }
    find_sets();
}

/* Up to `ops` operations from src, the world compared with the model after
 * each; then every scope closed. */
static void run_ops(source_t *src, long ops) {
    long stop = ops;
    for (H.ops = 0; H.ops < stop && source_more(src); H.ops++) {
        if (H.large) {
            op_large(src);
            tables_seen();
        } else {
            op_one(src);
        }
        check_freed();
        /* Until its allocation fails, a sweep's run is the reference run;
         * from then on, a few dozen operations show the world intact. */
        if (!H.alloc_mode || H.heap.failures > 0) {
            if (H.ops % H.check_every == 0) {
                check_world("after the operation");
            } else {
                check_light("after the operation");
            }
            if (H.alloc_mode && stop == ops) {
                stop = H.ops + 32 < ops ? H.ops + 32 : ops;
            }
        }
        H.population += H.m.n;
        for (uint32_t i = 0; !H.large && i < H.m.n; i++) {
            uint32_t d = m_link_depth(&H.m.ents[i], M_CHILD);
            H.links += m_link_target(&H.m.ents[i], M_CHILD) != 0;
            H.deepest = d > H.deepest ? d : H.deepest;
        }
    }
    while (H.m.depth > 0) {
        strata_result_t r = strata_defer_end(fz_world_core(H.w));
        m_defer_end(&H.m);
        close_scope(r, "the last defer_end");
    }
    check_freed();
}

/* Destroy the world (every byte must come back) and the model. */
static void run_end(void) {
    snapshot_forget();
    fz_world_destroy(H.w);
    CHECK(H.heap.bytes == 0, "%zu bytes not freed", H.heap.bytes);
    H.w = NULL;
    m_free(&H.m);
    m_save_free(&saved.model);
    m_free(&snapped.m);
    free(saved.bin);
    free(saved.json);
    memset(&saved, 0, sizeof saved);
    free(H.log);
    H.log = NULL;
    H.log_capacity = 0;
    free(H.seen_tables);
    H.seen_tables = NULL;
    H.seen_count = 0;
}

/* Run up to `ops` operations from src on a new world whose allocator fails
 * its fail_at-th call (0: never); returns how many allocations failed. */
#if defined(FUZZ_LIBFUZZER) && FUZZ_LIBFUZZER != 1
__attribute__((unused))
#endif
static long
run(source_t *src, long ops, long fail_at) {
    run_begin(fail_at);
    run_ops(src, ops);
    check_world("the end");
    run_end();
    return H.heap.failures;
}

#if !defined(FUZZ_LIBFUZZER) || FUZZ_LIBFUZZER != 1
/* The world the loader targets load into: a fixed script of operations. */
static void loader_world(uint64_t seed, long ops) {
    run_begin(0);
    source_t src = {NULL, 0, 0, seed};
    run_ops(&src, ops);
}
#endif

#if defined(FUZZ_LIBFUZZER) && FUZZ_LIBFUZZER == 1

/* The fuzz input is the stream; its first byte, when odd, makes one
 * allocation fail (the next two bytes say which). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    source_t src = {data, size, 0, 0};
    long fail_at = take(&src, 2) ? 1 + take(&src, 65536) % 4096 : 0;
    run(&src, (long)size, fail_at);
    return 0;
}

#endif

#if !defined(FUZZ_LIBFUZZER) || FUZZ_LIBFUZZER != 1

/* The loader targets' check of one input (a binary save, or JSON): it is
 * loaded into a populated world. A load that fails must leave that world
 * equal to the model, its hooks not run; one that succeeds must give a
 * world whose save and dump load again into the same bytes. */
static bool load_ready; /* the loader targets' world and model exist */

static void load_input(bool json, const uint8_t *data, size_t size) {
    if (!load_ready) {
        loader_world(11, 300);
        load_ready = true;
    }
    /* A binary save's file size and checksum are made to fit, so that
     * mutations reach the structure behind them (the unit tests cover
     * those two checks: test_save_every_corrupt_byte_is_rejected). */
    unsigned char *copy = NULL;
    if (!json && size >= 40) {
        copy = malloc(size);
        CHECK(copy != NULL, "out of memory");
        memcpy(copy, data, size);
        uint64_t file_size = size;
        for (int i = 0; i < 8; i++) {
            copy[16 + i] = (unsigned char)(file_size >> (8 * i));
        }
        uint32_t crc = 0xffffffffu;
        for (size_t i = 28; i < size; i++) {
            crc ^= copy[i];
            for (int b = 0; b < 8; b++) {
                crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
            }
        }
        crc ^= 0xffffffffu;
        for (int i = 0; i < 4; i++) {
            copy[24 + i] = (unsigned char)(crc >> (8 * i));
        }
        data = copy;
    }
    strata_load_report_t report;
    strata_result_t r = json ? fz_world_load_json_mem(H.w, (const char *)data, size, &report)
                             : fz_world_load_mem(H.w, data, size, &report);
    free(copy);
    if (r != STRATA_OK) {
        CHECK(report.error[0] != '\0', "a failed load (%s) says nothing", strata_result_str(r));
        check_world("a failed load");
        return;
    }
    /* Loaded: its save and dump, loaded into a fresh world, give the same bytes again. */
    H.alloc_mode = false;
    op_save();
    strata_world_desc_t desc = {.allocator = {heap_alloc, heap_realloc, heap_free, &H.heap}, .initial_capacity = 16};
    for (int form = 0; form < 2; form++) {
        fz_world *again = fz_world_create(&desc);
        CHECK(again != NULL, "world creation failed");
        r = load_into(again, form == 1, form == 1 ? saved.json_size : saved.bin_size, &report);
        CHECK(r == STRATA_OK, "a world loaded from fuzz input does not load again: %s", report.error);
        fz_world *keep = H.w;
        H.w = again;
        struct saved_t first = saved;
        memset(&saved, 0, sizeof saved);
        save_world(); /* the snapshot belongs to the first world */
        CHECK(saved.bin_size == first.bin_size && memcmp(saved.bin, first.bin, first.bin_size) == 0,
              "a loaded world saves other bytes when loaded again");
        CHECK(saved.json_size == first.json_size && memcmp(saved.json, first.json, first.json_size) == 0,
              "a loaded world dumps other JSON when loaded again");
        m_save_free(&saved.model);
        free(saved.bin);
        free(saved.json);
        saved = first;
        H.w = keep;
        fz_world_destroy(again);
    }
    /* The model no longer knows this world: start again from the script next time. */
    run_end();
    load_ready = false;
}

/* Make the loader targets' world go away (so nothing leaks). */
__attribute__((unused)) static void load_input_done(void) {
    if (load_ready) {
        run_end();
        load_ready = false;
    }
}

#endif

#if defined(FUZZ_LIBFUZZER) && FUZZ_LIBFUZZER != 1

/* The loader targets (FUZZ_LIBFUZZER 2: binary saves, 3: JSON). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    load_input(FUZZ_LIBFUZZER == 3, data, size);
    return 0;
}

#elif !defined(FUZZ_LIBFUZZER)

static long option_ops = 20000;
static uint64_t option_seed = 0;
static bool option_large = false; /* --large: the large-world run alone, with --ops, --seed, --aim */
static uint32_t option_aim = 100000;
static long shard = 0, shards = 1; /* --shard K/N: this run is part K of N */

#define FUZZ_SEEDS 12      /* the stream: seeds 1-12, cut among the shards */
#define FUZZ_LARGE_SEEDS 4 /* the large world's: seeds 9-12 */

/* 20,000 operations from each seed of this shard's run of the stream (1-3
 * for shard 0 of 4, 4-6 for shard 1 and so on; 1-4, 5-8, 9-12 of 3), or of
 * --seed (--ops: one long run); a seed's world takes (seed - 1) % 3 as its
 * free_empty_tables_after (0: never; the old stream's order kept). */
static void test_fuzz_diff_matches_model(void **state) {
    (void)state;
    long n = 0;
    long first = shard_seeds(FUZZ_SEEDS, shard, shards, &n);
    n = option_seed != 0 ? 1 : n;
    for (long i = 0; i < n; i++) {
        uint64_t seed = option_seed != 0 ? option_seed : (uint64_t)(first + i);
        source_t src = {NULL, 0, 0, seed};
        shape(false, 0, (uint32_t)((seed - 1) % 3));
        H.population = H.visits = H.links = H.cycles = 0;
        H.deepest = 0;
        snapped.takes = snapped.rollbacks = 0;
        /* Before the run, so that a failure names what reproduces it. */
        print_message("seed %llu: %ld operations (test_fuzz_diff --seed %llu --ops %ld runs them alone)\n",
                      (unsigned long long)seed, option_ops, (unsigned long long)seed, option_ops);
        run(&src, option_ops, 0);
        print_message("seed %llu: model and world agree (%.1f entities alive and %.1f ChildOf "
                      "links on average, depth up to %u, %llu cycles refused, %llu rows visited, %llu snapshots "
                      "taken, %llu rolled back to)\n",
                      (unsigned long long)seed, (double)H.population / (double)option_ops,
                      (double)H.links / (double)option_ops, H.deepest, (unsigned long long)H.cycles,
                      (unsigned long long)H.visits, (unsigned long long)snapped.takes,
                      (unsigned long long)snapped.rollbacks);
        assert_true(option_ops < 1000 || snapped.rollbacks > 0);
    }
}

static void large_world(uint64_t seed, uint32_t aim, long ops);

/* The large world: about option_aim entities (5,000 in the short run of
 * `ninja test`, 100,000 in `ninja fuzz-long`), made, changed and destroyed
 * in bulk over thousands of tables that are emptied and freed (free calls,
 * the Tick system's, and the policy: 3 steps), compared with the model
 * every few operations and checked lightly after each. */
static void test_fuzz_diff_large_world_matches_model(void **state) {
    (void)state;
    uint32_t aim = option_large ? option_aim : 5000;
    long ops = option_large ? option_ops : 500;
    /* Each shard its own: seeds 9 + K, 9 + K + N, ... of the large seeds. */
    for (long k = shard; k < (option_large ? 1 : FUZZ_LARGE_SEEDS); k += shards) {
        uint64_t seed = option_large && option_seed != 0 ? option_seed : 9 + (uint64_t)k;
        large_world(seed, aim, ops);
    }
}

/* One large-world run from seed: aim entities, ops operations. */
static void large_world(uint64_t seed, uint32_t aim, long ops) {
    shape(true, aim, 3);
    source_t src = {NULL, 0, 0, seed};
    H.population = H.visits = 0;
    snapped.takes = snapped.rollbacks = 0;
    run_begin(0);
    run_ops(&src, ops);
    check_world("the end");
    uint64_t made = H.tables_made, freed = H.tables_freed, most = H.tables_most;
    run_end();
    print_message("large world, seed %llu: %ld operations, model and world agree (%.0f entities alive on average, "
                  "%llu rows visited; %llu tables made, %llu freed, %llu at most at once; %llu snapshots, %llu "
                  "rolled back to)\n",
                  (unsigned long long)seed, ops, (double)H.population / (double)ops, (unsigned long long)H.visits,
                  (unsigned long long)made, (unsigned long long)freed, (unsigned long long)most,
                  (unsigned long long)snapped.takes, (unsigned long long)snapped.rollbacks);
    /* Thousands in a long run: every table made is a candidate (the
     * sparse components of the world make none). How many depends on the
     * tables picked, by their addresses: on the sizes of what the runtime
     * allocates (161 to 207 for seeds 9-12 at 500 operations). */
    assert_true(freed > (uint64_t)ops / 4);
    shape(false, 0, 0);
}

/* A scripted workload run with its Nth allocation failing, for every N
 * until none fails (a shard K of N: every Nth from K + 1): each failed
 * call leaves the world equal to the model, each failed flush leaves a
 * prefix of it, nothing leaks.
 *
 * The workload runs once, as the reference run; at each allocation to be
 * failed it forks (sweep_fork). The child fails that allocation, and from
 * there does what a run from scratch with that allocation failing would:
 * the world compared with the model after each of the next 32 operations,
 * the end's full check, the world destroyed with every byte back; it exits
 * 0, or 1 with the difference (naming the allocation) on stderr. The
 * parent asserts each child's status and goes on unfailed, so the states
 * checked are those of the runs from scratch, in one pass instead of one
 * replay of the prefix per allocation. */
static void test_fuzz_nomem_every_allocation(void **state) {
    (void)state;
    shape(false, 0, 2);
    sweep.next = 1 + shard;
    sweep.every = shards;
    sweep.children = sweep.failed_at = 0;
    source_t src = {NULL, 0, 0, 77};
    run(&src, 400, 0);
    if (sweep.child) {
        fflush(NULL);
        _exit(0);
    }
    long n = sweep.next; /* the first past the workload's last allocation */
    sweep.every = 0;
    if (sweep.failed_at != 0) {
        if (WIFSIGNALED(sweep.status)) {
            fail_msg("allocation %ld failing: the run stopped on signal %d", sweep.failed_at, WTERMSIG(sweep.status));
        }
        fail_msg("allocation %ld failing: the run exited with status %d (its message above)", sweep.failed_at,
                 WIFEXITED(sweep.status) ? WEXITSTATUS(sweep.status) : -1);
    }
    print_message("allocations %ld, %ld, %ld, ... made to fail in turn, up to the %ld-th, past the workload's last "
                  "(%ld runs)\n",
                  1 + shard, 1 + shard + shards, 1 + shard + 2 * shards, n, sweep.children);
    assert_int_equal(sweep.children, (n - 1 - shard) / shards);
    assert_true(n > 100);
}

/* --- Limits, at the generated API (the runtime's limits lowered) ---------- */

/* Create one entity with fz_entity_create; the model adopts it. */
static fz_entity limit_create(void) {
    fz_entity e = fz_entity_create(H.w);
    assert_false(fz_entity_eq(e, FZ_ENTITY_NULL));
    assert_true(m_adopt(&H.m, e.id));
    m_create(&H.m, &e.id, 1, 0, NULL);
    return e;
}

/* At the entity limit every way of creating fails cleanly (NULL or
 * STRATA_ERR_LIMIT, the world as it was); a freed index is used again. */
static void test_limit_entities_stop_every_create_cleanly(void **state) {
    (void)state;
    run_begin(0);
    fz_world_core(H.w)->entity_limit = 10;
    fz_entity e[10];
    for (int i = 0; i < 10; i++) {
        e[i] = limit_create();
    }
    fz_entity out[2];
    assert_true(fz_entity_eq(fz_entity_create(H.w), FZ_ENTITY_NULL));
    assert_true(fz_entity_eq(fz_spawn_knight(H.w), FZ_ENTITY_NULL));
    assert_true(fz_entity_eq(fz_entity_create_bundle(H.w, &(fz_bundle){.hp = &FZ_HP_DEFAULT}), FZ_ENTITY_NULL));
    assert_int_equal(fz_entity_create_many(H.w, &(fz_bundle){.frozen = true}, 2, out), STRATA_ERR_LIMIT);
    assert_int_equal(fz_spawn_walker_many(H.w, 2, out), STRATA_ERR_LIMIT);
    check_world("at the entity limit");
    assert_int_equal(fz_entity_destroy(H.w, e[3]), STRATA_OK);
    assert_int_equal(m_destroy(&H.m, e[3].id), M_OK);
    limit_create(); /* the freed index */
    assert_int_equal(fz_spawn_walker_many(H.w, 1, out), STRATA_ERR_LIMIT);
    check_world("at the entity limit again");
    run_end();
}

/* At the archetype limit, a change that needs a new archetype fails with
 * STRATA_ERR_LIMIT and changes nothing; moves between existing ones go on. */
static void test_limit_archetypes_stop_new_combinations_cleanly(void **state) {
    (void)state;
    run_begin(0);
    fz_entity e = limit_create();
    value_t vals[M_NC];
    const void *mv[M_NC];
    memset(vals, 0, sizeof vals);
    model_vals(vals, mv);
    assert_int_equal(fz_pos_add(H.w, e, vals[M_POS].pos), STRATA_OK);
    assert_int_equal(m_add(&H.m, e.id, M_BIT(M_POS), mv), M_OK);
    strata_world_t *core = fz_world_core(H.w);
    core->table_limit = core->table_count; /* {} and {Pos}: no new one */
    assert_int_equal(fz_vel_add(H.w, e, vals[M_VEL].vel), STRATA_ERR_LIMIT);
    assert_int_equal(fz_entity_add_bundle(H.w, e, &(fz_bundle){.hp = &vals[M_HP].hp, .mark = true}), STRATA_ERR_LIMIT);
    assert_int_equal(fz_entity_create_many(H.w, &(fz_bundle){.big = &vals[M_BIG].big}, 3, (fz_entity[3]){{0}}),
                     STRATA_ERR_LIMIT);
    /* Sparse components need no archetype: they come and go at the limit. */
    fz_entity made[3];
    assert_int_equal(fz_entity_create_many(H.w, &(fz_bundle){.tiny = &vals[M_TINY].tiny, .frozen = true}, 3, made),
                     STRATA_OK);
    for (int i = 0; i < 3; i++) {
        assert_true(m_adopt(&H.m, made[i].id));
    }
    m_create(&H.m, (const uint64_t[3]){made[0].id, made[1].id, made[2].id}, 3, M_BIT(M_TINY) | M_BIT(M_FROZEN), mv);
    assert_int_equal(fz_entity_add_bundle(H.w, e, &(fz_bundle){.aim = &vals[M_AIM].aim, .mark = true}), STRATA_OK);
    assert_int_equal(m_add(&H.m, e.id, M_BIT(M_AIM) | M_BIT(M_MARK), mv), M_OK);
    assert_int_equal(fz_frozen_add(H.w, e), STRATA_OK);
    assert_int_equal(m_add(&H.m, e.id, M_BIT(M_FROZEN), mv), M_OK);
    assert_true(fz_entity_eq(fz_spawn_knight(H.w), FZ_ENTITY_NULL));
    check_world("at the archetype limit");
    assert_int_equal(fz_pos_remove(H.w, e), STRATA_OK); /* back to {}: exists */
    assert_int_equal(m_remove(&H.m, e.id, M_BIT(M_POS)), M_OK);
    assert_int_equal(fz_pos_add(H.w, e, vals[M_POS].pos), STRATA_OK);
    assert_int_equal(m_add(&H.m, e.id, M_BIT(M_POS), mv), M_OK);
    check_world("moving between existing archetypes");
    run_end();
}

/* A save with more entity indices than the target world's limit does not
 * load (STRATA_ERR_LIMIT) and leaves the target as it was. */
static void test_limit_load_past_the_entity_limit_changes_nothing(void **state) {
    (void)state;
    loader_world(5, 200);
    op_save();
    uint32_t saved_n = H.m.n;
    struct saved_t keep = saved;
    memset(&saved, 0, sizeof saved);
    run_end();
    saved = keep;
    run_begin(0);
    for (int i = 0; i < 3; i++) {
        limit_create();
    }
    fz_world_core(H.w)->entity_limit = saved_n > 4 ? saved_n - 1 : 3;
    strata_load_report_t report;
    assert_int_equal(fz_world_load_mem(H.w, saved.bin, saved.bin_size, &report), STRATA_ERR_LIMIT);
    assert_true(report.error[0] != '\0');
    assert_int_equal(fz_world_load_json_mem(H.w, saved.json, saved.json_size, &report), STRATA_ERR_LIMIT);
    check_world("after loads past the entity limit");
    run_end();
}

/* An input a fuzzer found, kept in tests/fuzz/regress/, through its target's check. */
static void regress(const char *name, bool json) {
    char path[256];
    snprintf(path, sizeof path, "tests/fuzz/regress/%s", name);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fail_msg("cannot open %s (run from the top of the tree)", path);
    }
    static uint8_t data[1 << 20];
    size_t size = fread(data, 1, sizeof data, f);
    fclose(f);
    load_input(json, data, size);
    load_input_done();
}

/* Regression: a binary save whose table has no rows made the loader
 * offset and memset a table's null columns (undefined behaviour, caught by
 * UBSan in the san variant). */
static void test_load_bin_table_with_no_rows(void **state) {
    (void)state;
    regress("load_bin-table-with-no-rows", false);
}

/* Regression: a binary save's run of no rows of a sparse component, before
 * the set held any value, made the loader offset the set's null value
 * array (undefined behaviour, caught by clang's UBSan in `ninja fuzz`). */
static void test_load_bin_sparse_run_of_no_rows(void **state) {
    (void)state;
    regress("load_bin-sparse-run-of-no-rows", false);
}

/* Write the loader targets' seed corpus: saves of a few scripted worlds,
 * DIR/load_bin/seedN and DIR/load_json/seedN. */
static int write_seeds(const char *dir) {
    for (int i = 0; i < 4; i++) {
        loader_world(100 + (uint64_t)i, 40 + 80 * i);
        op_save();
        for (int form = 0; form < 2; form++) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s/seed%d", dir, form ? "load_json" : "load_bin", i);
            FILE *f = fopen(path, "wb");
            if (f == NULL) {
                perror(path);
                return 1;
            }
            fwrite(form ? (const void *)saved.json : saved.bin, 1, form ? saved.json_size : saved.bin_size, f);
            fclose(f);
        }
        run_end();
    }
    return 0;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : "0";
        if (strcmp(argv[i], "--large") == 0) {
            option_large = true;
            continue;
        }
        if (strcmp(argv[i], "--ops") == 0) {
            option_ops = atol(value);
        } else if (strcmp(argv[i], "--seed") == 0) {
            option_seed = strtoull(value, NULL, 10);
        } else if (strcmp(argv[i], "--write-seeds") == 0) {
            return write_seeds(value);
        } else if (strcmp(argv[i], "--aim") == 0) {
            option_aim = (uint32_t)strtoul(value, NULL, 10);
        } else if (strcmp(argv[i], "--shard") == 0) {
            if (sscanf(value, "%ld/%ld", &shard, &shards) != 2 || shards < 1 || shard < 0 || shard >= shards) {
                fprintf(stderr, "test_fuzz_diff: --shard K/N with 0 <= K < N, not '%s'\n", value);
                return 2;
            }
        }
        i++; /* the option's value */
    }
    if (option_aim == 0 || option_aim > M_MAX_ENTITIES * 5 / 6) {
        fprintf(stderr, "test_fuzz_diff: --aim takes 1 to %d\n", M_MAX_ENTITIES * 5 / 6);
        return 2;
    }
    if (option_large) {
        const struct CMUnitTest large[] = {cmocka_unit_test(test_fuzz_diff_large_world_matches_model)};
        return cmocka_run_group_tests(large, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        /* First, while the process is small: its forks copy the page
         * tables of all the memory the process holds (under ASan, its
         * quarantine of what the other tests freed). */
        cmocka_unit_test(test_fuzz_nomem_every_allocation),
        cmocka_unit_test(test_fuzz_diff_matches_model),
        cmocka_unit_test(test_fuzz_diff_large_world_matches_model),
        cmocka_unit_test(test_load_bin_table_with_no_rows),
        cmocka_unit_test(test_load_bin_sparse_run_of_no_rows),
        cmocka_unit_test(test_limit_entities_stop_every_create_cleanly),
        cmocka_unit_test(test_limit_archetypes_stop_new_combinations_cleanly),
        cmocka_unit_test(test_limit_load_past_the_entity_limit_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif

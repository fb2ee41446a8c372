/* test_world.c: world creation, allocator hooks, stats, resources, result
 * names, caller-bug asserts, and the rule that out of memory leaves the
 * world as it was (every allocation of a scripted workload made to fail). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "strata_internal.h"
#include "fixture.h"

/* --- A schema ------------------------------------------------------------- */

typedef struct vec2 {
    float x, y;
} vec2;
typedef struct health {
    int32_t hp;
} health;
typedef struct name {
    char text[24];
} name;
typedef struct big {
    double m[6];
} big; /* above STI_SMALL_SIZE */

enum { POSITION, VELOCITY, HEALTH, FROZEN, NAME, BIG, COMPONENT_COUNT };
enum { Q_MOVING, Q_ALIVE, Q_FROZEN, Q_NAMED, QUERY_COUNT };

static const vec2 position_defaults = {1.0f, 2.0f};
static const health health_defaults = {100};

static const strata_component_desc_t components[COMPONENT_COUNT] = {
    [POSITION] = COMPONENT("Position", vec2, &position_defaults),
    [VELOCITY] = COMPONENT("Velocity", vec2, NULL),
    [HEALTH] = COMPONENT("Health", health, &health_defaults),
    [FROZEN] = TAG("Frozen"),
    [NAME] = COMPONENT("Name", name, NULL),
    [BIG] = COMPONENT("Big", big, NULL),
};

static const strata_query_desc_t queries[QUERY_COUNT] = {
    [Q_MOVING] = QUERY("Moving", BIT(POSITION) | BIT(VELOCITY), BIT(FROZEN)),
    [Q_ALIVE] = QUERY("Alive", BIT(HEALTH), 0),
    [Q_FROZEN] = QUERY("Frozen", BIT(FROZEN), 0),
    [Q_NAMED] = QUERY("Named", BIT(NAME), 0),
};

/* A resource block that wants 16-byte alignment. */
typedef struct resources {
    int32_t score;
    _Alignas(16) float gravity[4];
} resources;

static const resources resources_defaults = {7, {0.0f, -9.8f, 0.0f, 0.0f}};

static const strata_schema_t schema = {
    .name = "test",
    .version = 3,
    .component_count = COMPONENT_COUNT,
    .components = components,
    .query_count = QUERY_COUNT,
    .queries = queries,
    .resources_size = sizeof(resources),
    .resources_align = _Alignof(resources),
    .resources_defaults = &resources_defaults,
};


/* --- Basics --------------------------------------------------------------- */

static void test_world_create_has_only_the_empty_table(void **state) {
    fixture_t *f = world_open(state);
    strata_world_stats_t s;
    strata_world_stats(f->w, &s);
    assert_int_equal(s.entities, 0);
    assert_int_equal(s.tables, 1);
    assert_int_equal(s.pending, 0);
    assert_true(s.bytes > 0);
    assert_ptr_equal(strata_world_schema(f->w), &schema);
    assert_false(strata_is_deferred(f->w));
    world_close(f);
}

static void test_world_stats_bytes_match_the_allocator(void **state) {
    fixture_t *f = world_open(state);
    strata_world_stats_t s;
    strata_world_stats(f->w, &s);
    assert_int_equal(s.bytes, f->heap.bytes);
    strata_entity_t e[100];
    uint32_t ids[] = {POSITION, VELOCITY, BIG};
    assert_int_equal(strata_entity_create_many(f->w, 100, 3, ids, NULL, e), STRATA_OK);
    for (int i = 0; i < 100; i += 2) {
        assert_int_equal(strata_add(f->w, e[i], HEALTH, NULL), STRATA_OK);
    }
    strata_world_stats(f->w, &s);
    assert_int_equal(s.bytes, f->heap.bytes);
    assert_int_equal(s.entities, 100);
    assert_int_equal(s.tables, 3);
    world_close(f);
}

static void test_world_resources_start_from_defaults_aligned(void **state) {
    fixture_t *f = world_open(state);
    resources *r = strata_world_resources(f->w);
    assert_non_null(r);
    assert_int_equal((uintptr_t)r % _Alignof(resources), 0);
    assert_int_equal(r->score, 7);
    assert_true(r->gravity[1] == -9.8f);
    r->score = 8;
    assert_int_equal(((resources *)strata_world_resources(f->w))->score, 8);
    world_close(f);
}

static void test_world_resources_null_when_schema_has_none(void **state) {
    (void)state;
    strata_schema_t bare = {.name = "bare", .component_count = COMPONENT_COUNT, .components = components};
    strata_world_t *w = NULL;
    heap_t h = {0};
    strata_world_desc_t d = heap_desc(&h, 0);
    assert_int_equal(strata_world_create(&bare, &d, &w), STRATA_OK);
    assert_null(strata_world_resources(w));
    strata_world_destroy(w);
    assert_int_equal(h.bytes, 0);
}

static void test_world_resources_zero_without_defaults(void **state) {
    (void)state;
    strata_schema_t s = schema;
    s.resources_defaults = NULL;
    strata_world_t *w = NULL;
    heap_t h = {0};
    strata_world_desc_t d = heap_desc(&h, 0);
    assert_int_equal(strata_world_create(&s, &d, &w), STRATA_OK);
    const resources *r = strata_world_resources(w);
    assert_int_equal(r->score, 0);
    assert_true(r->gravity[1] == 0.0f);
    strata_world_destroy(w);
    assert_int_equal(h.bytes, 0);
}

static void test_world_default_allocator_without_desc(void **state) {
    (void)state;
    strata_world_t *w = NULL;
    assert_int_equal(strata_world_create(&schema, NULL, &w), STRATA_OK);
    strata_entity_t e;
    assert_int_equal(strata_entity_create(w, &e), STRATA_OK);
    assert_int_equal(strata_add(w, e, POSITION, NULL), STRATA_OK);
    strata_world_stats_t s;
    strata_world_stats(w, &s);
    assert_true(s.bytes > 0);
    strata_world_destroy(w);
    strata_world_destroy(NULL); /* a no-op */
}

static void test_world_initial_capacity_reserves_records(void **state) {
    (void)state;
    heap_t h = {0};
    strata_world_desc_t d = heap_desc(&h, 5000);
    strata_world_t *w = NULL;
    assert_int_equal(strata_world_create(&schema, &d, &w), STRATA_OK);
    assert_true(w->record_capacity >= 5000);
    long calls = h.calls;
    strata_entity_t e;
    for (int i = 0; i < 5000; i++) {
        assert_int_equal(strata_entity_create(w, &e), STRATA_OK);
    }
    /* Only the empty table's rows grew; the records were there already. */
    assert_true(h.calls - calls < 20);
    strata_world_destroy(w);
}

static void test_world_result_str_names_every_result(void **state) {
    (void)state;
    assert_string_equal(strata_result_str(STRATA_OK), "ok");
    assert_string_equal(strata_result_str(STRATA_ERR_STALE), "stale entity");
    assert_string_equal(strata_result_str(STRATA_ERR_MISSING), "missing component");
    assert_string_equal(strata_result_str(STRATA_ERR_NOMEM), "out of memory");
    assert_string_equal(strata_result_str(STRATA_ERR_LIMIT), "limit reached");
    assert_string_equal(strata_result_str(STRATA_ERR_CORRUPT), "corrupt or foreign save");
    assert_string_equal(strata_result_str(STRATA_ERR_IO), "i/o error");
    assert_string_equal(strata_result_str((strata_result_t)42), "unknown result");
}

static void test_world_create_nomem_leaves_nothing(void **state) {
    (void)state;
    for (long n = 1;; n++) {
        heap_t h = {.fail_at = n};
        strata_world_desc_t d = heap_desc(&h, 0);
        strata_world_t *w = (strata_world_t *)&h; /* must be reset to NULL */
        strata_result_t r = strata_world_create(&schema, &d, &w);
        if (h.failures == 0) {
            assert_int_equal(r, STRATA_OK);
            strata_world_destroy(w);
            assert_true(n > 3);
            break;
        }
        assert_int_equal(r, STRATA_ERR_NOMEM);
        assert_null(w);
        assert_int_equal(h.bytes, 0);
    }
}

/* --- Clearing the world ----------------------------------------------------- */

/* 30 entities over four tables (the empty one included); 5 destroyed. */
static void clear_populate(strata_world_t *w, strata_entity_t e[30]) {
    vec2 p = {3, 4};
    health h = {9};
    for (int i = 0; i < 30; i++) {
        assert_int_equal(strata_entity_create(w, &e[i]), STRATA_OK);
        if (i % 3 >= 1) {
            assert_int_equal(strata_add(w, e[i], POSITION, &p), STRATA_OK);
            assert_int_equal(strata_add(w, e[i], VELOCITY, &p), STRATA_OK);
        }
        if (i % 3 == 2) {
            assert_int_equal(strata_add(w, e[i], HEALTH, &h), STRATA_OK);
        }
    }
    for (int i = 0; i < 30; i += 6) {
        assert_int_equal(strata_entity_destroy(w, e[i]), STRATA_OK);
    }
}

/* Every entity goes, every handle goes stale; tables, capacity and
 * resources stay, so filling the world again allocates nothing. */
static void test_world_clear_destroys_every_entity_and_keeps_the_room(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[30];
    clear_populate(f->w, e);
    ((resources *)strata_world_resources(f->w))->score = 42;
    strata_world_stats_t before, after;
    strata_world_stats(f->w, &before);
    assert_int_equal(before.entities, 25);
    strata_world_clear(f->w);
    strata_world_stats(f->w, &after);
    assert_int_equal(after.entities, 0);
    assert_int_equal(after.pending, 0);
    assert_int_equal(after.tables, before.tables);
    assert_int_equal(after.bytes, before.bytes);
    for (int i = 0; i < 30; i++) {
        assert_false(strata_entity_alive(f->w, e[i]));
        assert_int_equal(strata_entity_destroy(f->w, e[i]), STRATA_ERR_STALE);
    }
    assert_int_equal(strata_query_count(f->w, Q_MOVING), 0);
    assert_int_equal(strata_query_count(f->w, Q_ALIVE), 0);
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    assert_false(strata_iter_next(&it));
    assert_int_equal(((resources *)strata_world_resources(f->w))->score, 42);
    /* Indices come back lowest first, each with a new generation. */
    strata_entity_t again[30];
    clear_populate(f->w, again);
    assert_int_equal(strata_entity_index(again[0]), strata_entity_index(e[0]));
    assert_int_equal(strata_entity_generation(again[0]), strata_entity_generation(e[0]) + 1);
    strata_world_stats(f->w, &after);
    assert_int_equal(after.entities, 25);
    assert_int_equal(after.tables, before.tables);
    assert_int_equal(after.bytes, before.bytes); /* the same work again: no allocation */
    assert_int_equal(strata_query_count(f->w, Q_MOVING), 20);
    world_close(f);
}

static void test_world_clear_of_an_empty_world_changes_nothing(void **state) {
    fixture_t *f = world_open(state);
    strata_world_stats_t before, after;
    strata_world_stats(f->w, &before);
    strata_world_clear(f->w);
    strata_world_clear(f->w);
    strata_world_stats(f->w, &after);
    assert_int_equal(after.entities, 0);
    assert_int_equal(after.tables, before.tables);
    assert_int_equal(after.pending, 0);
    assert_int_equal(after.bytes, before.bytes);
    world_close(f);
}

/* Like a load, a clear or a destroy of the world is not made from inside
 * its step, a deferral scope or an iterator: the caller would go on with
 * a world changed (or freed) under it. */
static void test_world_clear_or_destroy_inside_a_step_or_iterator_is_an_assert(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e[30];
    clear_populate(f->w, e);
    strata_step_begin(f->w);
    expect_assert_failure(strata_world_clear(f->w));
    expect_assert_failure(strata_world_destroy(f->w));
    assert_int_equal(strata_step_end(f->w), STRATA_OK);
    strata_defer_begin(f->w);
    expect_assert_failure(strata_world_clear(f->w));
    expect_assert_failure(strata_world_destroy(f->w));
    assert_int_equal(strata_defer_end(f->w), STRATA_OK);
    strata_iter_t it = strata_iter(f->w, Q_MOVING);
    assert_true(strata_iter_next(&it));
    expect_assert_failure(strata_world_clear(f->w));
    expect_assert_failure(strata_world_destroy(f->w));
    assert_int_equal(strata_iter_end(&it), STRATA_OK);
    assert_true(strata_entity_alive(f->w, e[1]));
    expect_assert_failure(strata_world_clear(NULL));
    world_close(f);
}

/* --- Caller bugs trip STRATA_ASSERT -------------------------------------- */

static void test_world_assert_null_world(void **state) {
    (void)state;
    strata_world_stats_t s;
    strata_entity_t e;
    expect_assert_failure(strata_world_stats(NULL, &s));
    expect_assert_failure(strata_entity_create(NULL, &e));
    expect_assert_failure(strata_add(NULL, 1, POSITION, NULL));
    expect_assert_failure(strata_defer_begin(NULL));
}

static void test_world_assert_component_out_of_range(void **state) {
    fixture_t *f = world_open(state);
    strata_entity_t e;
    assert_int_equal(strata_entity_create(f->w, &e), STRATA_OK);
    expect_assert_failure(strata_add(f->w, e, COMPONENT_COUNT, NULL));
    expect_assert_failure(strata_get(f->w, e, 200));
    expect_assert_failure(strata_has(f->w, e, COMPONENT_COUNT));
    uint32_t ids[] = {POSITION, COMPONENT_COUNT};
    expect_assert_failure(strata_add_many(f->w, e, 2, ids, NULL));
    uint32_t dup[] = {POSITION, POSITION};
    expect_assert_failure(strata_add_many(f->w, e, 2, dup, NULL));
    /* Nothing happened. */
    assert_false(strata_has(f->w, e, POSITION));
    world_close(f);
}

static void test_world_assert_null_out_pointer(void **state) {
    fixture_t *f = world_open(state);
    uint32_t ids[] = {POSITION};
    expect_assert_failure(strata_entity_create(f->w, NULL));
    expect_assert_failure(strata_entity_create_many(f->w, 3, 1, ids, NULL, NULL));
    expect_assert_failure(strata_world_stats(f->w, NULL));
    expect_assert_failure(strata_world_create(&schema, NULL, NULL));
    world_close(f);
}

static void test_world_assert_partial_allocator(void **state) {
    (void)state;
    strata_world_t *w = NULL;
    strata_world_desc_t d = {.allocator = {.alloc = heap_alloc}};
    expect_assert_failure(strata_world_create(&schema, &d, &w));
}

static void test_world_assert_query_with_empty_all(void **state) {
    (void)state;
    strata_query_desc_t q = QUERY("Empty", 0, BIT(FROZEN));
    strata_schema_t s = schema;
    s.query_count = 1;
    s.queries = &q;
    strata_world_t *w = NULL;
    expect_assert_failure(strata_world_create(&s, NULL, &w));
}

/* --- Out of memory leaves the world as it was ----------------------------- */

#define MAX_HANDLES 160

/* Everything observable about a world: the handles made so far, which are
 * alive, what they have and hold, query counts, stats. */
typedef struct digest_t {
    uint32_t handle_count;
    strata_entity_t handles[MAX_HANDLES];
    bool alive[MAX_HANDLES];
    bool has[MAX_HANDLES][COMPONENT_COUNT];
    unsigned char values[MAX_HANDLES][COMPONENT_COUNT][sizeof(big)];
    uint32_t query_counts[QUERY_COUNT];
    uint32_t entities;
    uint32_t pending;
} digest_t;

/* The workload's state: its world, allocator and handles. */
typedef struct run_t {
    heap_t heap;
    strata_world_t *w;
    strata_entity_t handles[MAX_HANDLES];
    uint32_t handle_count;
    digest_t before;
    digest_t after;
} run_t;

/* Take everything observable into d (no allocation). */
static void digest_take(const run_t *run, digest_t *d) {
    memset(d, 0, sizeof *d);
    d->handle_count = run->handle_count;
    memcpy(d->handles, run->handles, sizeof run->handles);
    for (uint32_t i = 0; i < run->handle_count; i++) {
        strata_entity_t e = run->handles[i];
        d->alive[i] = strata_entity_alive(run->w, e);
        for (uint32_t c = 0; c < COMPONENT_COUNT; c++) {
            d->has[i][c] = strata_has(run->w, e, c);
            const void *v = strata_get(run->w, e, c);
            if (v != NULL) {
                memcpy(d->values[i][c], v, components[c].size);
            }
        }
    }
    for (uint32_t q = 0; q < QUERY_COUNT; q++) {
        d->query_counts[q] = strata_query_count(run->w, q);
    }
    strata_world_stats_t s;
    strata_world_stats(run->w, &s);
    d->entities = s.entities;
    d->pending = s.pending;
}

/* Keep a new handle. */
static void run_keep(run_t *run, strata_entity_t e) {
    assert_true(run->handle_count < MAX_HANDLES);
    run->handles[run->handle_count++] = e;
}

/* Evaluate `call` (one runtime call) until it stops failing with NOMEM; each
 * failure must have left every observable thing as it was. The result is
 * checked against `expected`. */
#define RUN(run, expected, call)                                                                                       \
    do {                                                                                                               \
        digest_take((run), &(run)->before);                                                                            \
        strata_result_t r_;                                                                                            \
        while ((r_ = (call)) == STRATA_ERR_NOMEM) {                                                                    \
            digest_take((run), &(run)->after);                                                                         \
            assert_memory_equal(&(run)->before, &(run)->after, sizeof(digest_t));                                      \
        }                                                                                                              \
        assert_int_equal(r_, (expected));                                                                              \
    } while (0)

/* Close the outermost scope; a settle that fails keeps its commands, so
 * retry until they are all applied (then `pending` destroys still wait
 * for the end of the step). */
static void run_settle(run_t *run, strata_result_t r, uint32_t pending) {
    while (r == STRATA_ERR_NOMEM) {
        strata_world_stats_t s;
        strata_world_stats(run->w, &s);
        assert_true(s.pending > 0);
        strata_defer_begin(run->w);
        r = strata_defer_end(run->w);
    }
    assert_int_equal(r, STRATA_OK);
    strata_world_stats_t s;
    strata_world_stats(run->w, &s);
    assert_int_equal(s.pending, pending);
}

/* Create one entity (retrying on NOMEM) and keep its handle. */
static strata_entity_t run_create(run_t *run) {
    strata_entity_t e = 1;
    RUN(run, STRATA_OK, strata_entity_create(run->w, &e));
    run_keep(run, e);
    return e;
}

/* The scripted workload: a bit of everything that allocates. */
static void run_workload(run_t *run) {
    strata_world_t *w = run->w;
    const vec2 p = {3.0f, 4.0f};
    const vec2 v = {0.5f, -0.5f};
    const health hp = {42};
    const name nm = {"rect"};
    const big bg = {{1, 2, 3, 4, 5, 6}};

    /* Bulk creation into a new table, then one by one. */
    strata_entity_t bulk[24];
    uint32_t pv[] = {VELOCITY, POSITION};
    const void *pv_values[] = {&v, &p};
    RUN(run, STRATA_OK, strata_entity_create_many(w, 24, 2, pv, pv_values, bulk));
    for (int i = 0; i < 24; i++) {
        run_keep(run, bulk[i]);
    }
    strata_entity_t solo[12];
    for (int i = 0; i < 12; i++) {
        solo[i] = run_create(run);
        RUN(run, STRATA_OK, strata_add(w, solo[i], POSITION, i % 2 ? &p : NULL));
        if (i % 3 == 0) {
            RUN(run, STRATA_OK, strata_add(w, solo[i], FROZEN, NULL));
        }
    }

    /* Several at once, big and odd-sized columns, overwrites. */
    uint32_t hn[] = {HEALTH, NAME, BIG};
    const void *hn_values[] = {&hp, &nm, &bg};
    for (int i = 0; i < 24; i += 3) {
        RUN(run, STRATA_OK, strata_add_many(w, bulk[i], 3, hn, hn_values));
    }
    RUN(run, STRATA_OK, strata_add(w, bulk[0], POSITION, &v));
    RUN(run, STRATA_OK, strata_remove(w, bulk[3], VELOCITY));
    uint32_t rm[] = {BIG, FROZEN, NAME};
    RUN(run, STRATA_OK, strata_remove_many(w, bulk[6], 3, rm));
    RUN(run, STRATA_OK, strata_entity_destroy(w, bulk[9]));
    RUN(run, STRATA_OK, strata_entity_destroy(w, solo[1]));

    /* Iterating: destroy, add, remove, create; applied at the scope's end. */
    strata_defer_begin(w);
    strata_iter_t it = strata_iter(w, Q_MOVING);
    while (strata_iter_next(&it)) {
        for (uint32_t i = 0; i < it.count; i++) {
            strata_entity_t e = it.entities[i];
            switch (i % 4) {
            case 0: RUN(run, STRATA_OK, strata_entity_destroy(w, e)); break;
            case 1: RUN(run, STRATA_OK, strata_add(w, e, FROZEN, NULL)); break;
            case 2: RUN(run, STRATA_OK, strata_remove(w, e, VELOCITY)); break;
            default: RUN(run, STRATA_OK, strata_add(w, e, HEALTH, &hp)); break;
            }
        }
        strata_entity_t made = run_create(run);
        RUN(run, STRATA_OK, strata_add(w, made, NAME, &nm));
    }
    strata_entity_t deferred[5];
    uint32_t pvh[] = {POSITION, VELOCITY, HEALTH};
    RUN(run, STRATA_OK, strata_entity_create_many(w, 5, 3, pvh, NULL, deferred));
    for (int i = 0; i < 5; i++) {
        run_keep(run, deferred[i]);
    }
    run_settle(run, strata_defer_end(w), 0);

    /* A step: destroys wait for its end. */
    strata_step_begin(w);
    RUN(run, STRATA_OK, strata_entity_destroy(w, solo[2]));
    RUN(run, STRATA_OK, strata_entity_destroy(w, deferred[0]));
    strata_defer_begin(w);
    it = strata_iter(w, Q_ALIVE);
    while (strata_iter_next(&it)) {
        for (uint32_t i = 0; i < it.count; i += 2) {
            RUN(run, STRATA_OK, strata_add(w, it.entities[i], BIG, &bg));
        }
    }
    run_settle(run, strata_defer_end(w), 2);
    assert_true(strata_entity_alive(w, solo[2]));
    run_settle(run, strata_step_end(w), 0);
    assert_false(strata_entity_alive(w, solo[2]));

    /* More bulk into an existing table, reusing freed indices. */
    strata_entity_t more[20];
    RUN(run, STRATA_OK, strata_entity_create_many(w, 20, 2, pv, NULL, more));
    for (int i = 0; i < 20; i++) {
        run_keep(run, more[i]);
    }
}

/* One run of the workload with the n-th allocation failing (0: none);
 * returns how many allocations failed and leaves its final digest. */
static long run_once(long n, digest_t *out) {
    run_t *run = test_calloc(1, sizeof *run);
    run->heap.fail_at = n;
    strata_world_desc_t d = heap_desc(&run->heap, 16);
    strata_result_t r;
    while ((r = strata_world_create(&schema, &d, &run->w)) == STRATA_ERR_NOMEM) {
        assert_null(run->w);
        assert_int_equal(run->heap.bytes, 0);
    }
    assert_int_equal(r, STRATA_OK);
    run_workload(run);
    digest_take(run, out);
    strata_world_destroy(run->w);
    assert_int_equal(run->heap.bytes, 0);
    long failures = run->heap.failures;
    test_free(run);
    return failures;
}

static void test_world_nomem_leaves_world_unchanged(void **state) {
    (void)state;
    digest_t *reference = test_malloc(sizeof *reference);
    digest_t *got = test_malloc(sizeof *got);
    assert_int_equal(run_once(0, reference), 0);
    assert_true(reference->handle_count > 60);
    long n = 1;
    for (; run_once(n, got) > 0; n++) {
        /* Retried after each failure, the run ends exactly as the reference. */
        assert_memory_equal(reference, got, sizeof *got);
    }
    assert_true(n > 50); /* the workload did allocate that often */
    test_free(got);
    test_free(reference);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_world_create_has_only_the_empty_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_stats_bytes_match_the_allocator, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_resources_start_from_defaults_aligned, setup, teardown),
        cmocka_unit_test(test_world_resources_null_when_schema_has_none),
        cmocka_unit_test(test_world_resources_zero_without_defaults),
        cmocka_unit_test(test_world_default_allocator_without_desc),
        cmocka_unit_test(test_world_initial_capacity_reserves_records),
        cmocka_unit_test(test_world_result_str_names_every_result),
        cmocka_unit_test(test_world_create_nomem_leaves_nothing),
        cmocka_unit_test(test_world_assert_null_world),
        cmocka_unit_test_setup_teardown(test_world_assert_component_out_of_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_assert_null_out_pointer, setup, teardown),
        cmocka_unit_test(test_world_assert_partial_allocator),
        cmocka_unit_test(test_world_assert_query_with_empty_all),
        cmocka_unit_test(test_world_nomem_leaves_world_unchanged),
        cmocka_unit_test_setup_teardown(test_world_clear_destroys_every_entity_and_keeps_the_room, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_clear_of_an_empty_world_changes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_clear_or_destroy_inside_a_step_or_iterator_is_an_assert, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Tests of a generated world with sparse components (tests/schema/fire.yaml):
 * the typed API is the same as for table components; iterators and
 * systems visit the rows that meet their sparse terms (runs of rows, or a
 * row at a time with the value looked up); hooks, aspects, changed sets,
 * on_set, an entity field's policy, bundles and assemblages see them; the
 * world clears and saves (binary and JSON) with them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "test_alloc.h"

#include "fire.h"

/* --- The world's systems and hooks, and what they saw ------------------------ */

static struct {
    uint32_t burning_added, burning_removed, burn_added, burn_removed, sets, moves, wakes;
    float last_set;
    uint32_t aspect_at_add;
} seen;

void fire_burning_on_add(fire_world *w, fire_entity e, fire_burning *value) {
    assert_true(fire_burning_has(w, e));
    assert_ptr_equal(value, fire_burning_get(w, e));
    seen.burning_added++;
}

void fire_burning_on_remove(fire_world *w, fire_entity e, fire_burning *value) {
    assert_ptr_equal(value, fire_burning_get(w, e));
    seen.burning_removed++;
}

void fire_burning_on_set(fire_world *w, fire_entity e, fire_burning *value) {
    (void)w;
    (void)e;
    seen.sets++;
    seen.last_set = value->heat;
}

void fire_burn_on_add(fire_world *w, fire_entity e, fire_burn_aspect *aspect) {
    (void)w;
    (void)e;
    seen.aspect_at_add = aspect->ticks;
    seen.burn_added++;
}

void fire_burn_on_remove(fire_world *w, fire_entity e, fire_burn_aspect *aspect) {
    (void)w;
    (void)e;
    (void)aspect;
    seen.burn_removed++;
}

void fire_move_run(fire_move_ctx *ctx) {
    while (fire_move_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            assert_false(fire_stunned_has(ctx->world, ctx->entities[i]));
            ctx->position[i].x += ctx->velocity[i].x;
            ctx->tally->moved++;
        }
    }
}

void fire_burn_run(fire_burn_ctx *ctx) {
    while (fire_burn_next(ctx)) {
        assert_int_equal(ctx->count, 1); /* a term reads a sparse value: a row a batch */
        assert_ptr_equal(ctx->burning, fire_burning_get(ctx->world, ctx->entities[0]));
        ctx->health[0].value -= (int32_t)ctx->burning[0].heat;
        ctx->burning[0].heat += 1;
        ctx->aspect[0].ticks--;
        if (ctx->aspect[0].ticks == 0) {
            assert_int_equal(fire_burning_remove(ctx->world, ctx->entities[0]), STRATA_OK); /* recorded */
        }
        ctx->tally->burned++;
    }
}

void fire_wake_run(fire_wake_ctx *ctx) {
    while (fire_wake_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            assert_int_equal(fire_stunned_remove(ctx->world, ctx->entities[i]), STRATA_OK);
            assert_true(fire_stunned_has(ctx->world, ctx->entities[i])); /* until Wake ends */
            seen.wakes++;
        }
    }
}

static int reset(void **state) {
    (void)state;
    memset(&seen, 0, sizeof seen);
    return 0;
}

/* A world whose every allocation goes through cmocka (leaks fail the test). */
static fire_world *open_world(void) {
    fire_world *w = fire_world_create(
        &(fire_world_desc_t){.allocator = {.alloc = test_alloc, .realloc = test_resize, .free = test_release}});
    assert_non_null(w);
    fire_system_set_enabled(fire_world_core(w), FIRE_SYSTEM_WAKE, false);
    return w;
}

/* n walkers (Position, Velocity) in out. */
static void walkers(fire_world *w, uint32_t n, fire_entity *out) {
    assert_int_equal(fire_spawn_walker_many(w, n, out), STRATA_OK);
}

/* --- The typed API ------------------------------------------------------------ */

static void test_sparse_typed_api_is_the_tables(void **state) {
    (void)state;
    fire_world *w = open_world();
    fire_entity e[2];
    walkers(w, 2, e);
    strata_world_stats_t before, after;
    fire_world_stats(w, &before);
    assert_int_equal(fire_burning_add(w, e[0], (fire_burning){7}), STRATA_OK);
    assert_int_equal(fire_stunned_add(w, e[0]), STRATA_OK);
    assert_int_equal(fire_selected_add(w, e[1]), STRATA_OK);
    fire_world_stats(w, &after);
    assert_int_equal(after.tables, before.tables); /* no archetype made */
    assert_true(fire_burning_has(w, e[0]));
    assert_false(fire_burning_has(w, e[1]));
    assert_true(fire_stunned_has(w, e[0]));
    assert_true(fire_selected_has(w, e[1]));
    assert_float_equal(fire_burning_get(w, e[0])->heat, 7.0f, 0);
    assert_null(fire_burning_get(w, e[1]));
    assert_int_equal(fire_burning_set(w, e[0], (fire_burning){9}), STRATA_OK);
    assert_float_equal(seen.last_set, 9.0f, 0);
    fire_burning_mut(w, e[0])->heat = 11;
    assert_float_equal(fire_burning_get(w, e[0])->heat, 11.0f, 0);
    assert_int_equal(fire_burning_set(w, e[1], (fire_burning){1}), STRATA_ERR_MISSING);
    assert_int_equal(fire_burning_remove(w, e[0]), STRATA_OK);
    assert_int_equal(fire_burning_remove(w, e[0]), STRATA_ERR_MISSING);
    assert_int_equal(seen.burning_added, 1);
    assert_int_equal(seen.burning_removed, 1);
    assert_int_equal(fire_entity_destroy(w, e[1]), STRATA_OK);
    assert_int_equal(fire_selected_add(w, e[1]), STRATA_ERR_STALE);
    assert_int_equal(fire_selected_remove(w, e[1]), STRATA_ERR_STALE);
    assert_false(fire_selected_has(w, e[1]));
    fire_world_destroy(w);
}

static void test_sparse_bundles_and_assemblages_carry_sparse_components(void **state) {
    (void)state;
    fire_world *w = open_world();
    fire_entity torch = fire_spawn_torch(w);
    assert_true(fire_selected_has(w, torch));
    assert_float_equal(fire_burning_get(w, torch)->heat, 4.0f, 0);
    assert_float_equal(fire_velocity_get(w, torch)->x, 1.0f, 0);
    assert_int_equal(seen.burning_added, 1);
    fire_entity many[3];
    assert_int_equal(fire_spawn_torch_many(w, 3, many), STRATA_OK);
    assert_int_equal(seen.burning_added, 4);
    fire_entity e = fire_entity_create_bundle(w, &(fire_bundle){.stunned = true, .health = &(fire_health){3}});
    assert_true(fire_stunned_has(w, e));
    assert_int_equal(fire_entity_add_bundle(w, e, &(fire_bundle){.burning = &(fire_burning){2}, .frozen = true}),
                     STRATA_OK);
    assert_true(fire_frozen_has(w, e));
    assert_float_equal(fire_burning_get(w, e)->heat, 2.0f, 0);
    assert_int_equal(fire_entity_remove_bundle(w, e, &(fire_bundle){.stunned = true, .frozen = true}), STRATA_OK);
    assert_false(fire_stunned_has(w, e));
    assert_false(fire_frozen_has(w, e));
    assert_true(fire_burning_has(w, e));
    fire_world_destroy(w);
    assert_int_equal(seen.burning_removed, seen.burning_added);
}

/* --- Iterators and systems ------------------------------------------------------ */

static void test_sparse_iterators_visit_what_meets_their_terms(void **state) {
    (void)state;
    fire_world *w = open_world();
    enum { N = 300 };
    fire_entity e[N];
    walkers(w, N, e);
    uint32_t stunned = 0, burning = 0;
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(fire_position_set(w, e[i], (fire_position){(float)i, 0}), STRATA_OK);
        if (i % 3 == 0 || (i > 100 && i < 200)) {
            assert_int_equal(fire_stunned_add(w, e[i]), STRATA_OK);
            stunned++;
        }
        if (i % 7 == 0) {
            assert_int_equal(fire_burning_add(w, e[i], (fire_burning){(float)i}), STRATA_OK);
            burning++;
        }
    }
    assert_int_equal(fire_dazed_count(w), stunned);
    assert_int_equal(fire_free_count(w), N - stunned);
    assert_int_equal(fire_burners_count(w), burning);
    uint32_t rows = 0, batches = 0;
    for (fire_dazed_iter it = fire_dazed_begin(w); fire_dazed_next(&it);) {
        batches++;
        for (uint32_t i = 0; i < it.count; i++) {
            uint32_t at = (uint32_t)it.position[i].x;
            assert_true(at % 3 == 0 || (at > 100 && at < 200));
            assert_true(fire_entity_eq(it.entities[i], e[at]));
            rows++;
        }
    }
    assert_int_equal(rows, stunned);
    assert_true(batches < stunned); /* runs of rows, not one a batch */
    rows = 0;
    for (fire_burners_iter it = fire_burners_begin(w); fire_burners_next(&it);) {
        assert_int_equal(it.count, 1);
        assert_float_equal(it.burning->heat, it.position->x, 0);
        rows++;
    }
    assert_int_equal(rows, burning);
    uint32_t with_burning = 0, with_stun = 0;
    for (fire_glimpse_iter it = fire_glimpse_begin(w); fire_glimpse_next(&it);) {
        assert_int_equal(it.count, 1);
        uint32_t at = (uint32_t)it.position->x;
        assert_int_equal(it.burning != NULL, at % 7 == 0);
        assert_int_equal(it.stunned, at % 3 == 0 || (at > 100 && at < 200));
        with_burning += it.burning != NULL;
        with_stun += it.stunned;
    }
    assert_int_equal(with_burning, burning);
    assert_int_equal(with_stun, stunned);
    /* A query of sparse terms alone: entities with no table component too. */
    fire_entity bare = fire_entity_create(w);
    assert_int_equal(fire_selected_add(w, bare), STRATA_OK);
    assert_int_equal(fire_selected_add(w, e[5]), STRATA_OK);
    assert_int_equal(fire_picked_count(w), 2);
    fire_world_destroy(w);
}

static void test_sparse_systems_step_with_aspects_and_deferred_removes(void **state) {
    (void)state;
    fire_world *w = open_world();
    fire_entity e[4];
    walkers(w, 4, e);
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(fire_health_add(w, e[i], (fire_health){100}), STRATA_OK);
    }
    assert_int_equal(fire_stunned_add(w, e[1]), STRATA_OK);
    assert_int_equal(fire_burning_add(w, e[2], (fire_burning){2}), STRATA_OK);
    assert_int_equal(seen.burn_added, 1); /* Burn's aspect is made when its sparse term is met */
    assert_int_equal(seen.aspect_at_add, 3);
    for (int step = 0; step < 3; step++) {
        assert_int_equal(fire_world_step(w, 1.0f), STRATA_OK);
    }
    assert_int_equal(fire_tally_res(w)->moved, 9); /* e[1] is stunned: three movers, three steps */
    assert_float_equal(fire_position_get(w, e[1])->x, 0.0f, 0);
    assert_float_equal(fire_position_get(w, e[0])->x, 3.0f, 0);
    assert_int_equal(fire_tally_res(w)->burned, 3);
    assert_int_equal(fire_health_get(w, e[2])->value, 100 - 2 - 3 - 4);
    assert_false(fire_burning_has(w, e[2])); /* its ticks ran out: removed at the system's end */
    assert_int_equal(seen.burn_removed, 1);
    assert_int_equal(seen.burning_removed, 1);
    /* Wake removes Stunned from what it visits, while it visits. */
    fire_burn_enable(w, false);
    assert_int_equal(fire_stunned_add(w, e[3]), STRATA_OK);
    fire_wake_enable(w, true);
    assert_int_equal(fire_world_step(w, 1.0f), STRATA_OK);
    assert_int_equal(seen.wakes, 2);
    assert_int_equal(fire_dazed_count(w), 0);
    assert_int_equal(fire_tally_res(w)->moved, 9 + 2); /* Move ran before Wake: two movers */
    fire_world_destroy(w);
}

static void test_sparse_changed_follows_sparse_writes(void **state) {
    (void)state;
    fire_world *w = open_world();
    fire_entity e[3];
    walkers(w, 3, e);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(fire_burning_add(w, e[i], (fire_burning){1}), STRATA_OK);
    }
    assert_int_equal(fire_warmed_changed_count(w), 3);
    uint32_t n = 0;
    for (fire_warmed_iter it = fire_warmed_begin(w); fire_warmed_next(&it);) {
        assert_float_equal(it.burning->heat, 1.0f, 0);
        n++;
    }
    assert_int_equal(n, 3);
    assert_int_equal(fire_warmed_changed_count(w), 0);
    fire_burning_mut(w, e[1])->heat = 5;
    assert_int_equal(fire_warmed_changed_count(w), 1);
    n = 0;
    for (fire_warmed_iter it = fire_warmed_begin(w); fire_warmed_next(&it);) {
        assert_true(fire_entity_eq(it.entities[0], e[1]));
        assert_float_equal(it.burning->heat, 5.0f, 0);
        n++;
    }
    assert_int_equal(n, 1);
    fire_world_destroy(w);
}

static void test_sparse_entity_field_policy_reaches_sparse_values(void **state) {
    (void)state;
    fire_world *w = open_world();
    fire_entity e[3];
    walkers(w, 3, e);
    assert_int_equal(fire_aim_add(w, e[0], (fire_aim){e[2]}), STRATA_OK);
    assert_int_equal(fire_aim_add(w, e[1], (fire_aim){e[0]}), STRATA_OK);
    assert_int_equal(fire_entity_destroy(w, e[2]), STRATA_OK);
    assert_true(fire_entity_eq(fire_aim_get(w, e[0])->at, FIRE_ENTITY_NULL)); /* cleared */
    assert_true(fire_entity_eq(fire_aim_get(w, e[1])->at, e[0]));
    fire_world_destroy(w);
}

/* --- Many entities at once ----------------------------------------------------- */

static void test_sparse_add_many_and_matching(void **state) {
    (void)state;
    fire_world *w = open_world();
    enum { N = 200 };
    fire_entity e[N];
    walkers(w, N, e);
    fire_burning heats[N];
    for (uint32_t i = 0; i < N; i++) {
        heats[i].heat = (float)i;
    }
    assert_int_equal(fire_burning_add_many(w, e, N, heats), STRATA_OK);
    assert_int_equal(seen.burning_added, N);
    assert_int_equal(fire_stunned_add_many(w, e, N / 2), STRATA_OK);
    assert_int_equal(fire_frozen_add_many(w, e + N / 2, N / 2), STRATA_OK); /* a table tag: a whole table moves */
    for (uint32_t i = 0; i < N; i++) {
        assert_float_equal(fire_burning_get(w, e[i])->heat, (float)i, 0);
        assert_int_equal(fire_stunned_has(w, e[i]), i < N / 2);
        assert_int_equal(fire_frozen_has(w, e[i]), i >= N / 2);
    }
    /* What a query matches: the stunned walkers. */
    assert_int_equal(fire_health_add_matching(w, FIRE_QUERY_DAZED, (fire_health){55}), STRATA_OK);
    assert_int_equal(fire_selected_add_matching(w, FIRE_QUERY_DAZED), STRATA_OK);
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(fire_health_has(w, e[i]), i < N / 2);
        assert_int_equal(fire_selected_has(w, e[i]), i < N / 2);
    }
    assert_int_equal(fire_health_get(w, e[3])->value, 55);
    assert_int_equal(fire_burning_remove_matching(w, FIRE_QUERY_DAZED), STRATA_OK);
    assert_int_equal(seen.burning_removed, N / 2);
    assert_int_equal(fire_stunned_remove_many(w, e, N), STRATA_OK);
    assert_int_equal(fire_stunned_remove_many(w, e, N), STRATA_ERR_MISSING);
    assert_int_equal(fire_dazed_count(w), 0);
    /* A stale handle among them: nothing changes. */
    assert_int_equal(fire_entity_destroy(w, e[7]), STRATA_OK);
    assert_int_equal(fire_stunned_add_many(w, e, N), STRATA_ERR_STALE);
    assert_int_equal(fire_frozen_remove_many(w, e + 1, N - 1), STRATA_ERR_STALE);
    assert_int_equal(fire_dazed_count(w), 0);
    assert_true(fire_frozen_has(w, e[N - 1]));
    fire_world_destroy(w);
}

/* --- The world as a whole ----------------------------------------------------- */

static void test_sparse_clear_empties_the_sets(void **state) {
    (void)state;
    fire_world *w = open_world();
    fire_entity e[40];
    walkers(w, 40, e);
    for (uint32_t i = 0; i < 40; i += 2) {
        assert_int_equal(fire_burning_add(w, e[i], (fire_burning){1}), STRATA_OK);
        assert_int_equal(fire_stunned_add(w, e[i]), STRATA_OK);
    }
    fire_world_clear(w);
    assert_int_equal(seen.burning_removed, 20);
    assert_int_equal(fire_dazed_count(w), 0);
    assert_int_equal(fire_burners_count(w), 0);
    walkers(w, 40, e); /* the same indices again: nothing of the old entities */
    for (uint32_t i = 0; i < 40; i++) {
        assert_false(fire_burning_has(w, e[i]));
        assert_false(fire_stunned_has(w, e[i]));
    }
    assert_int_equal(fire_dazed_count(w), 0);
    fire_world_destroy(w);
}

/* A world of walkers with sparse components every few rows, and a few
 * entities with nothing but sparse components. */
static fire_world *varied(void) {
    fire_world *w = open_world();
    fire_entity e[60];
    walkers(w, 60, e);
    for (uint32_t i = 0; i < 60; i++) {
        if (i % 4 == 0) {
            assert_int_equal(fire_burning_add(w, e[i], (fire_burning){(float)i / 2}), STRATA_OK);
        }
        if (i % 3 == 0) {
            assert_int_equal(fire_stunned_add(w, e[i]), STRATA_OK);
        }
        if (i % 5 == 0) {
            assert_int_equal(fire_aim_add(w, e[i], (fire_aim){e[59 - i]}), STRATA_OK);
        }
    }
    for (uint32_t i = 0; i < 60; i += 9) {
        assert_int_equal(fire_entity_destroy(w, e[i]), STRATA_OK);
    }
    fire_entity bare = fire_entity_create(w);
    assert_int_equal(fire_selected_add(w, bare), STRATA_OK);
    return w;
}

/* The length of the line of text at `at` (n bytes in all), without its
 * newline and a comma before it. */
static size_t line_length(const char *text, size_t at, size_t n) {
    size_t end = at;
    while (end < n && text[end] != '\n') {
        end++;
    }
    return end - at - (end > at && text[end - 1] == ',');
}

/* True if texts a and b (n bytes each) hold the same lines in any order
 * (the last entity has no comma): a binary load puts a table's rows that
 * hold the same sparse components next to each other. */
static bool same_lines(const char *a, const char *b, size_t n) {
    size_t lines = 0;
    for (size_t i = 0; i < n; i++) {
        lines += a[i] == '\n';
    }
    for (size_t i = 0; i < n;) {
        size_t len = line_length(a, i, n), end = i;
        while (end < n && a[end] != '\n') {
            end++;
        }
        bool found = false;
        for (size_t j = 0; j < n && !found;) {
            size_t stop = j;
            while (stop < n && b[stop] != '\n') {
                stop++;
            }
            found = line_length(b, j, n) == len && memcmp(a + i, b + j, len) == 0;
            j = stop + 1;
        }
        if (!found) {
            return false;
        }
        i = end + 1;
    }
    return lines > 0;
}

/* The world's JSON dump, in a buffer the caller frees. */
static char *dump(const fire_world *w, size_t *size) {
    assert_int_equal(fire_world_dump_json_mem(w, NULL, 0, size), STRATA_ERR_LIMIT);
    char *text = test_malloc(*size + 1);
    assert_int_equal(fire_world_dump_json_mem(w, text, *size + 1, size), STRATA_OK);
    return text;
}

static void test_sparse_saves_round_trip_binary_and_json(void **state) {
    (void)state;
    fire_world *w = varied();
    size_t size = 0, again = 0, json_size = 0, json_again = 0;
    assert_int_equal(fire_world_save_mem(w, NULL, 0, &size), STRATA_ERR_LIMIT);
    unsigned char *bytes = test_malloc(size);
    assert_int_equal(fire_world_save_mem(w, bytes, size, &size), STRATA_OK);
    char *text = dump(w, &json_size);
    assert_non_null(strstr(text, "\"Stunned\": {}"));
    assert_non_null(strstr(text, "\"Burning\": {\"heat\": 14}"));
    fire_world *loaded = open_world();
    fire_load_report_t report;
    assert_int_equal(fire_world_load_mem(loaded, bytes, size, &report), STRATA_OK);
    assert_int_equal(report.change_count, 0);
    assert_int_equal(fire_dazed_count(loaded), fire_dazed_count(w));
    assert_int_equal(fire_burners_count(loaded), fire_burners_count(w));
    assert_int_equal(fire_picked_count(loaded), 1);
    /* Loaded entities count as written for the changed sets they match: those holding Burning. */
    assert_int_equal(fire_warmed_changed_count(loaded), fire_burners_count(w));
    char *loaded_text = dump(loaded, &json_again);
    assert_int_equal(json_again, json_size);
    assert_true(same_lines(loaded_text, text, json_size)); /* the same entities, components and values */
    unsigned char *second = test_malloc(size);
    assert_int_equal(fire_world_save_mem(loaded, second, size, &again), STRATA_OK);
    assert_int_equal(again, size);
    assert_memory_equal(second, bytes, size); /* and a save of the load is the same bytes */
    fire_world *from_json = open_world();
    assert_int_equal(fire_world_load_json_mem(from_json, text, json_size, &report), STRATA_OK);
    test_free(loaded_text);
    loaded_text = dump(from_json, &json_again);
    assert_int_equal(json_again, json_size);
    assert_memory_equal(loaded_text, text, json_size);
    test_free(loaded_text);
    test_free(second);
    test_free(text);
    test_free(bytes);
    fire_world_destroy(from_json);
    fire_world_destroy(loaded);
    fire_world_destroy(w);
}

/* A table whose rows once held a sparse component and now has none: the save
 * groups no rows (it used to sort a null array of none, which UBSan reports). */
static void test_sparse_save_with_an_emptied_table(void **state) {
    (void)state;
    fire_world *w = open_world();
    fire_entity e[2];
    walkers(w, 2, e);
    assert_int_equal(fire_stunned_add(w, e[0]), STRATA_OK);
    assert_int_equal(fire_entity_destroy(w, e[0]), STRATA_OK);
    assert_int_equal(fire_entity_destroy(w, e[1]), STRATA_OK);
    size_t size = 0, again = 0;
    assert_int_equal(fire_world_save_mem(w, NULL, 0, &size), STRATA_ERR_LIMIT);
    unsigned char *bytes = test_malloc(size);
    assert_int_equal(fire_world_save_mem(w, bytes, size, &again), STRATA_OK);
    assert_int_equal(again, size);
    fire_world *loaded = open_world();
    fire_load_report_t report;
    assert_int_equal(fire_world_load_mem(loaded, bytes, size, &report), STRATA_OK);
    assert_false(fire_entity_alive(loaded, e[0]));
    assert_false(fire_entity_alive(loaded, e[1]));
    test_free(bytes);
    fire_world_destroy(loaded);
    fire_world_destroy(w);
}

/* A binary save keeps each table's row order when rows alternate in the
 * sparse components they hold: the loaded world iterates, and dumps, as the
 * saved one did (grouping the rows by their sparse set reordered them). */
static void test_sparse_binary_load_keeps_row_order(void **state) {
    (void)state;
    fire_world *w = open_world();
    fire_entity e[6];
    walkers(w, 6, e);
    for (int i = 0; i < 6; i += 2) {
        assert_int_equal(fire_stunned_add(w, e[i]), STRATA_OK);
    }
    assert_int_equal(fire_burning_add(w, e[3], (fire_burning){5}), STRATA_OK);
    size_t size = 0, json_size = 0, json_again = 0;
    assert_int_equal(fire_world_save_mem(w, NULL, 0, &size), STRATA_ERR_LIMIT);
    unsigned char *bytes = test_malloc(size);
    assert_int_equal(fire_world_save_mem(w, bytes, size, &size), STRATA_OK);
    fire_world *loaded = open_world();
    fire_load_report_t report;
    assert_int_equal(fire_world_load_mem(loaded, bytes, size, &report), STRATA_OK);
    char *text = dump(w, &json_size);
    char *again = dump(loaded, &json_again);
    assert_int_equal(json_again, json_size);
    assert_memory_equal(again, text, json_size); /* the same entities in the same order */
    test_free(again);
    test_free(text);
    test_free(bytes);
    fire_world_destroy(loaded);
    fire_world_destroy(w);
}

static void test_sparse_load_out_of_memory_leaves_the_world(void **state) {
    (void)state;
    fire_world *w = varied();
    size_t size = 0;
    assert_int_equal(fire_world_save_mem(w, NULL, 0, &size), STRATA_ERR_LIMIT);
    unsigned char *bytes = test_malloc(size);
    assert_int_equal(fire_world_save_mem(w, bytes, size, &size), STRATA_OK);
    budget = INT_MAX;
    fire_world *target = fire_world_create(
        &(fire_world_desc_t){.allocator = {.alloc = failing_alloc, .realloc = failing_resize, .free = test_release},
                             .initial_capacity = 4});
    assert_non_null(target);
    fire_entity kept = fire_entity_create(target);
    assert_int_equal(fire_stunned_add(target, kept), STRATA_OK);
    for (int n = 0;; n++) {
        budget = n;
        strata_result_t r = fire_world_load_mem(target, bytes, size, NULL);
        budget = INT_MAX;
        if (r == STRATA_OK) {
            break;
        }
        assert_int_equal(r, STRATA_ERR_NOMEM);
        assert_true(fire_stunned_has(target, kept)); /* as it was */
        assert_int_equal(fire_picked_count(target), 0);
        assert_int_equal(fire_dazed_count(target), 0);
    }
    assert_int_equal(fire_dazed_count(target), fire_dazed_count(w));
    assert_int_equal(fire_burners_count(target), fire_burners_count(w));
    fire_world_destroy(target);
    test_free(bytes);
    fire_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_sparse_typed_api_is_the_tables, reset),
        cmocka_unit_test_setup(test_sparse_bundles_and_assemblages_carry_sparse_components, reset),
        cmocka_unit_test_setup(test_sparse_iterators_visit_what_meets_their_terms, reset),
        cmocka_unit_test_setup(test_sparse_systems_step_with_aspects_and_deferred_removes, reset),
        cmocka_unit_test_setup(test_sparse_changed_follows_sparse_writes, reset),
        cmocka_unit_test_setup(test_sparse_entity_field_policy_reaches_sparse_values, reset),
        cmocka_unit_test_setup(test_sparse_add_many_and_matching, reset),
        cmocka_unit_test_setup(test_sparse_clear_empties_the_sets, reset),
        cmocka_unit_test_setup(test_sparse_saves_round_trip_binary_and_json, reset),
        cmocka_unit_test_setup(test_sparse_save_with_an_emptied_table, reset),
        cmocka_unit_test_setup(test_sparse_binary_load_keeps_row_order, reset),
        cmocka_unit_test_setup(test_sparse_load_out_of_memory_leaves_the_world, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

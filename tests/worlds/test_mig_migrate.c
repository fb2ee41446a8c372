/* strata_world_migrate, as a live reload uses it: a world of
 * tests/schema/mig.yaml carried into mig2.yaml (every value kept, also
 * through narrowings that every value survives) and into mig3.yaml (values
 * lost, one cause a component: refused and nothing changes, or accepted
 * and the nearest values or defaults kept); the systems' switches carried
 * by name; an allocation failure at every step leaving both worlds as
 * they were. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load_report.h"
#include "mig.h"
#include "mig2.h"
#include "mig3.h"

/* The systems: no test steps a world. */
void mig_move_run(mig_move_ctx *ctx) {
    (void)ctx;
}
void mig_tick_run(mig_tick_ctx *ctx) {
    (void)ctx;
}
void mig_idle_run(mig_idle_ctx *ctx) {
    (void)ctx;
}
void mig2_tick_run(mig2_tick_ctx *ctx) {
    (void)ctx;
}
void mig2_move_run(mig2_move_ctx *ctx) {
    (void)ctx;
}
void mig2_fly_run(mig2_fly_ctx *ctx) {
    (void)ctx;
}
void mig3_move_run(mig3_move_ctx *ctx) {
    (void)ctx;
}
void mig3_tick_run(mig3_tick_ctx *ctx) {
    (void)ctx;
}
void mig3_idle_run(mig3_idle_ctx *ctx) {
    (void)ctx;
}

/* Allocator hooks over cmocka's, failing once `armed` and `budget` allocations have succeeded. */
static bool armed;
static int budget;

static void *hook_alloc(size_t size, void *user) {
    (void)user;
    return armed && budget-- <= 0 ? NULL : test_malloc(size);
}

static void *hook_realloc(void *p, size_t old_size, size_t size, void *user) {
    (void)old_size;
    (void)user;
    return armed && budget-- <= 0 ? NULL : test_realloc(p, size);
}

static void hook_free(void *p, size_t size, void *user) {
    (void)size;
    (void)user;
    test_free(p);
}

static const mig_world_desc_t hooked = {.allocator = {hook_alloc, hook_realloc, hook_free, NULL}};

/* The version 1 world, by role. */
typedef struct scene {
    mig_entity root, kid, pal, loner, angry, marked, gone;
} scene;

/* Values that every narrowing of mig2.yaml keeps; `lossy` adds those mig3.yaml cannot. */
static mig_world *make_v1(scene *e, bool lossy) {
    mig_world *w = mig_world_create(&hooked);
    assert_non_null(w);
    e->root = mig_entity_create(w);
    mig_position_add(w, e->root, (mig_position){lossy ? 1.5f : 3.0f, -2.25f});
    mig_health_add(w, e->root, (mig_health){lossy ? 300 : -32768});
    mig_label label = {{0}};
    strcpy(label.text, lossy ? "a longer text" : "root");
    mig_label_add(w, e->root, label);
    mig_weights_add(w, e->root, (mig_weights){{0.5f, -1.0f, lossy ? 2.0f : 0.0f, 0.0f}});
    mig_speed_add(w, e->root, (mig_speed){lossy ? 0.1 : 0.375});
    e->kid = mig_entity_create(w);
    mig_position_add(w, e->kid, (mig_position){-7.0f, 8.5f});
    mig_health_add(w, e->kid, (mig_health){12});
    mig_child_of_set(w, e->kid, e->root, &(mig_child_of){.slot = 9});
    mig_aim_add(w, e->kid, (mig_aim){e->root});
    mig_gone_add(w, e->kid, (mig_gone){4});
    e->pal = mig_entity_create(w);
    mig_tint_add(w, e->pal, (mig_tint){{1, 2, 3}, MIG_MOOD_SLEEPY});
    mig_frozen_add(w, e->pal);
    mig_likes_add(w, e->pal, e->root);
    mig_likes_add(w, e->pal, e->kid);
    e->loner = mig_entity_create(w);
    e->angry = mig_entity_create(w);
    mig_tint_add(w, e->angry, (mig_tint){{4, 5, 6}, lossy ? MIG_MOOD_ANGRY : MIG_MOOD_CALM});
    e->marked = mig_entity_create(w);
    if (lossy) {
        mig_marker_add(w, e->marked, (mig_marker){3.5f});
    }
    e->gone = mig_entity_create(w);
    mig_entity_destroy(w, e->gone);
    mig_clock_res(w)->ticks = lossy ? 1000 : 200;
    mig_clock_res(w)->scale = 0.25;
    mig_move_enable(w, false);
    mig_idle_enable(w, false);
    return w;
}

/* A world's binary save, malloc'd: what "unchanged" compares. */
static unsigned char *bytes_of(const strata_world_t *w, size_t *size) {
    armed = false;
    assert_int_equal(strata_world_save_mem(w, NULL, 0, size), STRATA_ERR_LIMIT);
    unsigned char *bytes = malloc(*size);
    assert_int_equal(strata_world_save_mem(w, bytes, *size, size), STRATA_OK);
    return bytes;
}

static void assert_unchanged(const strata_world_t *w, const unsigned char *before, size_t size) {
    size_t now_size = 0;
    unsigned char *now = bytes_of(w, &now_size);
    assert_int_equal(now_size, size);
    assert_memory_equal(now, before, size);
    free(now);
}

static uint32_t lost_count(const strata_load_report_t *report) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < report->change_count && i < STRATA_REPORT_MAX; i++) {
        n += report->changes[i].kind == STRATA_CHANGE_LOST;
    }
    return n;
}

static mig2_entity as2(mig_entity e) {
    return (mig2_entity){e.id};
}

static mig3_entity as3(mig_entity e) {
    return (mig3_entity){e.id};
}

static void test_migrate_carries_every_value(void **state) {
    (void)state;
    scene e;
    mig_world *v1 = make_v1(&e, false);
    size_t size = 0;
    unsigned char *before = bytes_of(mig_world_core(v1), &size);
    mig2_world *w = mig2_world_create(&hooked);
    mig2_entity stray = mig2_entity_create(w); /* replaced by the migration */
    strata_load_report_t report;
    if (strata_world_migrate(mig2_world_core(w), mig_world_core(v1), 0, &report) != STRATA_OK) {
        fail_msg("%s", report.error);
    }
    assert_unchanged(mig_world_core(v1), before, size); /* the source never changes */
    assert_int_equal(report.entities, 6);
    assert_int_equal(lost_count(&report), 0);
    assert_false(mig2_entity_alive(w, stray) && stray.id != e.root.id);

    /* Handles mean the same entities; every value is where it was. */
    const mig2_position *p = mig2_position_get(w, as2(e.root));
    assert_true(p->x == 3.0f && p->y == -2.25f && p->z == 0.5f);
    assert_int_equal(mig2_health_get(w, as2(e.root))->hp, -32768);
    assert_string_equal(mig2_label_get(w, as2(e.root))->text, "root");
    const mig2_weights *ws = mig2_weights_get(w, as2(e.root));
    assert_true(ws->w[0] == 0.5f && ws->w[1] == -1.0f && ws->w[2] == 0.0f);
    assert_true(mig2_speed_get(w, as2(e.root))->value == 0.375f);
    assert_true(mig2_position_get(w, as2(e.kid))->x == -7.0f);
    assert_int_equal(mig2_health_get(w, as2(e.kid))->hp, 12);
    assert_true(mig2_entity_eq(mig2_aim_get(w, as2(e.kid))->who, as2(e.root)));
    assert_false(mig2_fresh_has(w, as2(e.kid)));
    const mig2_tint *t = mig2_tint_get(w, as2(e.pal));
    assert_true(t->color.r == 1 && t->color.g == 2 && t->color.b == 3 && t->color.a == 255);
    assert_int_equal(t->mood, MIG2_MOOD_SLEEPY);
    assert_true(mig2_frozen_has(w, as2(e.pal)));
    assert_true(mig2_entity_alive(w, as2(e.loner)));
    assert_false(mig2_entity_alive(w, as2(e.gone)));
    /* Links, both kinds. */
    assert_true(mig2_entity_eq(mig2_child_of_target(w, as2(e.kid)), as2(e.root)));
    assert_int_equal(mig2_child_of_get(w, as2(e.kid))->slot, 9);
    uint32_t n = 0;
    mig2_likes_targets(w, as2(e.pal), &n);
    assert_int_equal(n, 2);
    assert_true(mig2_likes_has(w, as2(e.pal), as2(e.root)) && mig2_likes_has(w, as2(e.pal), as2(e.kid)));
    /* Resources, and the systems' switches by name (Fly is new: on). */
    assert_int_equal(mig2_clock_res(w)->ticks, 200);
    assert_true(mig2_clock_res(w)->scale == 0.25f);
    assert_false(mig2_move_enabled(w));
    assert_true(mig2_tick_enabled(w));
    assert_true(mig2_fly_enabled(w));
    /* What the report says. */
    change(&report, STRATA_CHANGE_ADDED, "Position.z");
    assert_int_equal(change(&report, STRATA_CHANGE_RENAMED, "Health.hp (was value)")->count, 2);
    assert_int_equal(change(&report, STRATA_CHANGE_DROPPED, "Gone")->count, 1);
    change(&report, STRATA_CHANGE_ADDED, "Fresh");
    /* New entities continue the ids. */
    mig2_entity next = mig2_entity_create(w);
    assert_int_equal(mig2_entity_index(next), 6);
    free(before);
    mig2_world_destroy(w);
    mig_world_destroy(v1);
}

static void test_migrate_same_schema_is_the_same_world(void **state) {
    (void)state;
    scene e;
    mig_world *v1 = make_v1(&e, true);
    mig_world *copy = mig_world_create(&hooked);
    strata_load_report_t report;
    assert_int_equal(strata_world_migrate(mig_world_core(copy), mig_world_core(v1), 0, &report), STRATA_OK);
    assert_int_equal(report.change_count, 0);
    size_t a = 0, b = 0;
    unsigned char *x = bytes_of(mig_world_core(v1), &a), *y = bytes_of(mig_world_core(copy), &b);
    assert_int_equal(a, b);
    assert_memory_equal(x, y, a);
    assert_false(mig_move_enabled(copy));
    assert_true(mig_tick_enabled(copy));
    free(x);
    free(y);
    mig_world_destroy(copy);
    mig_world_destroy(v1);
}

/* The LOST changes migrating the lossy version 1 world into mig3 reports, with their entities. */
static void check_losses(const strata_load_report_t *report) {
    assert_int_equal(lost_count(report), 9);
    for (uint32_t i = 0; i < 9; i++) {
        assert_int_equal(report->changes[i].kind, STRATA_CHANGE_LOST); /* listed first */
    }
    assert_int_equal(change(report, STRATA_CHANGE_LOST, "Position.x (f32 to i16)")->count, 1);
    assert_int_equal(change(report, STRATA_CHANGE_LOST, "Health.value (i32 to i8)")->count, 1);
    assert_int_equal(change(report, STRATA_CHANGE_LOST, "Tint.mood (an enum member gone)")->count, 1);
    assert_int_equal(change(report, STRATA_CHANGE_LOST, "Label.text (char[16] to char[4])")->count, 1);
    assert_int_equal(change(report, STRATA_CHANGE_LOST, "Weights.w (f32[4] to f32[2])")->count, 1);
    assert_int_equal(change(report, STRATA_CHANGE_LOST, "Speed.value (f64 to entity)")->count, 1);
    assert_int_equal(change(report, STRATA_CHANGE_LOST, "Marker (now a tag)")->count, 1);
    assert_int_equal(change(report, STRATA_CHANGE_LOST, "Likes (relation dropped, with its links)")->count, 1);
    assert_int_equal(change(report, STRATA_CHANGE_LOST, "resource.Clock.ticks (u32 to u8)")->count, 1);
}

static void test_migrate_refuses_loss_and_changes_nothing(void **state) {
    (void)state;
    scene e;
    mig_world *v1 = make_v1(&e, true);
    mig3_world *w = mig3_world_create(&hooked);
    mig3_entity mine = mig3_entity_create(w);
    mig3_position_add(w, mine, (mig3_position){4, 5.0f});
    size_t before_size = 0, source_size = 0;
    unsigned char *before = bytes_of(mig3_world_core(w), &before_size);
    unsigned char *source = bytes_of(mig_world_core(v1), &source_size);
    strata_load_report_t report;
    assert_int_equal(strata_world_migrate(mig3_world_core(w), mig_world_core(v1), 0, &report), STRATA_ERR_SCHEMA);
    assert_non_null(strstr(report.error, "would lose values"));
    check_losses(&report);
    assert_unchanged(mig3_world_core(w), before, before_size);
    assert_unchanged(mig_world_core(v1), source, source_size);
    assert_true(mig3_position_get(w, mine)->x == 4);
    free(before);
    free(source);
    mig3_world_destroy(w);
    mig_world_destroy(v1);
}

static void test_migrate_accepts_loss_when_asked(void **state) {
    (void)state;
    scene e;
    mig_world *v1 = make_v1(&e, true);
    mig3_world *w = mig3_world_create(&hooked);
    strata_load_report_t report;
    if (strata_world_migrate(mig3_world_core(w), mig_world_core(v1), STRATA_MIGRATE_ACCEPT_LOSS, &report) !=
        STRATA_OK) {
        fail_msg("%s", report.error);
    }
    check_losses(&report);
    /* Numbers take the nearest value the new type holds; the rest their defaults. */
    assert_int_equal(mig3_position_get(w, as3(e.root))->x, 2); /* 1.5 rounds away from zero */
    assert_int_equal(mig3_position_get(w, as3(e.kid))->x, -7);
    assert_int_equal(mig3_health_get(w, as3(e.root))->value, 127);
    assert_int_equal(mig3_health_get(w, as3(e.kid))->value, 12);
    assert_int_equal(mig3_tint_get(w, as3(e.angry))->mood, MIG3_MOOD_CALM);
    assert_int_equal(mig3_tint_get(w, as3(e.pal))->mood, MIG3_MOOD_SLEEPY);
    assert_memory_equal(mig3_label_get(w, as3(e.root))->text, "a lo", 4);
    const mig3_weights *ws = mig3_weights_get(w, as3(e.root));
    assert_true(ws->w[0] == 0.5f && ws->w[1] == -1.0f);
    assert_true(mig3_entity_eq(mig3_speed_get(w, as3(e.root))->value, MIG3_ENTITY_NULL));
    assert_true(mig3_marker_has(w, as3(e.marked)));
    assert_true(mig3_entity_eq(mig3_child_of_target(w, as3(e.kid)), as3(e.root)));
    assert_int_equal(mig3_clock_res(w)->ticks, 255);
    mig3_world_destroy(w);
    mig_world_destroy(v1);
}

/* Every allocation of the migration fails in turn: each failure leaves both worlds as they were. */
static void test_migrate_nomem_at_every_step_changes_nothing(void **state) {
    (void)state;
    for (int lossy = 0; lossy < 2; lossy++) {
        scene e;
        mig_world *v1 = make_v1(&e, lossy != 0);
        mig3_world *w = mig3_world_create(&hooked);
        mig3_entity_create(w);
        size_t before_size = 0, source_size = 0;
        unsigned char *before = bytes_of(mig3_world_core(w), &before_size);
        unsigned char *source = bytes_of(mig_world_core(v1), &source_size);
        int failures = 0;
        strata_result_t r = STRATA_ERR_NOMEM;
        for (int k = 0; r == STRATA_ERR_NOMEM; k++) {
            armed = true;
            budget = k;
            strata_load_report_t report;
            r = strata_world_migrate(mig3_world_core(w), mig_world_core(v1), STRATA_MIGRATE_ACCEPT_LOSS, &report);
            armed = false;
            if (r == STRATA_ERR_NOMEM) {
                failures++;
                assert_non_null(strstr(report.error, "out of memory"));
                assert_unchanged(mig3_world_core(w), before, before_size);
                assert_unchanged(mig_world_core(v1), source, source_size);
            }
        }
        assert_int_equal(r, STRATA_OK);
        assert_true(failures > 10);
        assert_true(mig3_entity_alive(w, as3(e.pal)));
        free(before);
        free(source);
        mig3_world_destroy(w);
        mig_world_destroy(v1);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_migrate_carries_every_value),
        cmocka_unit_test(test_migrate_same_schema_is_the_same_world),
        cmocka_unit_test(test_migrate_refuses_loss_and_changes_nothing),
        cmocka_unit_test(test_migrate_accepts_loss_when_asked),
        cmocka_unit_test(test_migrate_nomem_at_every_step_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Saves across schema versions: a save of tests/schema/save.yaml (version
 * 1) loads into save2.yaml (version 2: added, removed, renamed and widened
 * components and fields), binary and JSON alike, entity references intact;
 * a lossy change (save3.yaml), a newer save and another world's save are
 * errors that leave the world untouched. The evolution rules are one
 * mapping for both formats: a table of cases, each run through a binary
 * save and a JSON dump with the same checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load_report.h"
#include "save.h"
#include "save2.h"
#include "save3.h"
#include "save4.h"
#include "save5.h"

/* The entities of the version 1 world, by role. */
typedef struct v1_entities {
    save_entity mover, hero, follower, relic, painted, everything;
} v1_entities;

static save_world *make_v1(v1_entities *e) {
    save_world *w = save_world_create(NULL);
    assert_non_null(w);
    e->mover = save_spawn_mover(w);
    save_position_set(w, e->mover, (save_position){0.1f, -3.5f});
    e->hero = save_spawn_hero(w);
    save_health_set(w, e->hero, (save_health){-2000000000, -300});
    e->follower = save_entity_create(w);
    save_target_add(w, e->follower, (save_target){e->hero, 9.5f});
    save_old_add(w, e->follower, (save_old){200});
    e->relic = save_entity_create(w);
    save_legacy_add(w, e->relic);
    save_old_add(w, e->relic, (save_old){5});
    e->painted = save_spawn_rock(w);
    save_appearance_set(w, e->painted, (save_appearance){{1, 2, 3, 4}, 2.5f, SAVE_SHAPE_CIRCLE});
    save_everything v = SAVE_EVERYTHING_DEFAULT;
    v.who = e->follower;
    v.path[2] = (save_vec2){8, 9};
    v.shape = SAVE_SHAPE_TRIANGLE;
    memcpy(v.label, "abc", 4);
    e->everything = save_entity_create_bundle(w, &(save_bundle){.everything = &v, .frozen = true});
    save_entity gone = save_entity_create(w);
    save_entity_destroy(w, gone);
    save_score_res(w)->value = -5;
    save_score_res(w)->best = 65535;
    memcpy(save_config_res(w)->label, "one", 4);
    save_obsolete_res(w)->x = 1;
    return w;
}

static unsigned char *v1_save(const save_world *w, size_t *size) {
    assert_int_equal(save_world_save_mem(w, NULL, 0, size), STRATA_ERR_LIMIT);
    unsigned char *bytes = malloc(*size);
    assert_int_equal(save_world_save_mem(w, bytes, *size, size), STRATA_OK);
    return bytes;
}

static char *v1_json(const save_world *w) {
    size_t size = 0;
    save_world_dump_json_mem(w, NULL, 0, &size);
    char *text = malloc(size + 1);
    assert_int_equal(save_world_dump_json_mem(w, text, size, &size), STRATA_OK);
    text[size] = '\0';
    return text;
}

/* The version 2 handle of a version 1 entity: the same id. */
static save2_entity as2(save_entity e) {
    return (save2_entity){e.id};
}

/* What version 2 must see after loading the version 1 world, either way. */
static void check_v2(save2_world *w, const v1_entities *e, bool from_json) {
    strata_world_stats_t stats;
    save2_world_stats(w, &stats);
    assert_int_equal(stats.entities, 6);
    /* f32 -> f64: the float itself from binary; from JSON, the shortest
     * decimal that named it ("0.1"), read as a double. */
    assert_true(save2_position_get(w, as2(e->mover))->x == (from_json ? 0.1 : (double)0.1f));
    assert_true(save2_position_get(w, as2(e->mover))->y == -3.5);
    /* Health became Vitality; max became cap; i32 -> i64, i16 -> i32; regen added. */
    const save2_vitality *v = save2_vitality_get(w, as2(e->hero));
    assert_non_null(v);
    assert_true(v->value == -2000000000);
    assert_int_equal(v->cap, -300);
    assert_true(v->regen == 0.25f);
    assert_string_equal(save2_name_get(w, as2(e->hero))->text, "hero");
    /* Entity references still point at the same entities. */
    save2_entity who = save2_target_get(w, as2(e->follower))->who;
    assert_true(save2_entity_eq(who, as2(e->hero)));
    assert_true(save2_vitality_has(w, who));
    /* Old and Legacy are gone; the entities that had them are not. */
    assert_true(save2_entity_alive(w, as2(e->relic)));
    save2_entity relic = as2(e->relic);
    assert_false(save2_position_has(w, relic) || save2_frozen_has(w, relic) || save2_armor_has(w, relic));
    /* Enum members map by name although their numbers changed; glow added. */
    const save2_appearance *a = save2_appearance_get(w, as2(e->painted));
    assert_int_equal(a->shape, SAVE2_SHAPE_CIRCLE);
    assert_int_equal(a->color.g, 2);
    assert_true(a->size == 2.5f);
    assert_true(a->glow == 0.5f);
    assert_true(save2_frozen_has(w, as2(e->painted)));
    /* A longer array: the new element and the new struct field take defaults. */
    const save2_everything *x = save2_everything_get(w, as2(e->everything));
    assert_true(save2_entity_eq(x->who, as2(e->follower)));
    assert_true(x->path[2].x == 8.0f && x->path[2].y == 9.0f && x->path[2].z == 7.0f);
    assert_true(x->path[3].x == 0.0f && x->path[3].z == 7.0f);
    assert_int_equal(x->shape, SAVE2_SHAPE_TRIANGLE);
    assert_string_equal(x->label, "abc");
    assert_int_equal(x->codes[2], 3);
    /* Resources: widened, kept, added with defaults. */
    assert_true(save2_score_res(w)->value == -5);
    assert_int_equal(save2_score_res(w)->best, 65535);
    assert_string_equal(save2_config_res(w)->label, "one");
    assert_int_equal(save2_config_res(w)->mode, 2);
    assert_int_equal(save2_level_res(w)->number, 1);
    /* Ids continue where version 1 left off. */
    save2_entity next = save2_entity_create(w);
    assert_int_equal((uint32_t)next.id, 6);
    assert_int_equal((uint32_t)(next.id >> 32), 2);
}

static void test_save_evolve_binary_v1_loads_into_v2(void **state) {
    (void)state;
    v1_entities e;
    save_world *v1 = make_v1(&e);
    size_t size = 0;
    unsigned char *bytes = v1_save(v1, &size);
    save_world_destroy(v1);
    save2_world *w = save2_world_create(NULL);
    strata_load_report_t report;
    if (save2_world_load_mem(w, bytes, size, &report) != STRATA_OK) {
        fail_msg("%s", report.error);
    }
    free(bytes);
    assert_string_equal(report.schema, "save");
    assert_int_equal(report.schema_version, 1);
    check_v2(w, &e, false);
    /* The report: what was dropped (with the entities that had it), renamed, converted, added. */
    assert_int_equal(change(&report, STRATA_CHANGE_DROPPED, "Old")->count, 2);
    assert_int_equal(change(&report, STRATA_CHANGE_DROPPED, "Legacy")->count, 1);
    assert_int_equal(change(&report, STRATA_CHANGE_DROPPED, "Target.since")->count, 1);
    assert_int_equal(change(&report, STRATA_CHANGE_DROPPED, "resource.Obsolete")->count, 1);
    assert_int_equal(change(&report, STRATA_CHANGE_RENAMED, "Vitality (was Health)")->count, 1);
    change(&report, STRATA_CHANGE_RENAMED, "Vitality.cap (was max)");
    assert_int_equal(change(&report, STRATA_CHANGE_CONVERTED, "Position.x")->count, 3);
    change(&report, STRATA_CHANGE_CONVERTED, "Vitality.value");
    change(&report, STRATA_CHANGE_CONVERTED, "Name.text");
    change(&report, STRATA_CHANGE_CONVERTED, "Everything.path");
    change(&report, STRATA_CHANGE_CONVERTED, "resource.Score.value");
    assert_int_equal(change(&report, STRATA_CHANGE_ADDED, "Armor")->count, 0);
    change(&report, STRATA_CHANGE_ADDED, "Vitality.regen");
    change(&report, STRATA_CHANGE_ADDED, "Appearance.glow");
    change(&report, STRATA_CHANGE_ADDED, "Everything.path.z");
    change(&report, STRATA_CHANGE_ADDED, "resource.Level");
    change(&report, STRATA_CHANGE_ADDED, "resource.Config.mode");
    /* And version 2 saves itself as a version 2 save of 'save'. */
    size_t size2 = 0;
    assert_int_equal(save2_world_save_mem(w, NULL, 0, &size2), STRATA_ERR_LIMIT);
    save2_world_destroy(w);
}

static void test_save_evolve_json_v1_loads_into_v2(void **state) {
    (void)state;
    v1_entities e;
    save_world *v1 = make_v1(&e);
    char *json = v1_json(v1);
    save_world_destroy(v1);
    save2_world *w = save2_world_create(NULL);
    strata_load_report_t report;
    if (save2_world_load_json_mem(w, json, strlen(json), &report) != STRATA_OK) {
        fail_msg("%s", report.error);
    }
    free(json);
    check_v2(w, &e, true);
    assert_int_equal(change(&report, STRATA_CHANGE_DROPPED, "Old")->count, 2);
    assert_int_equal(change(&report, STRATA_CHANGE_DROPPED, "Target.since")->count, 1);
    assert_int_equal(change(&report, STRATA_CHANGE_RENAMED, "Vitality (was Health)")->count, 1);
    assert_int_equal(change(&report, STRATA_CHANGE_ADDED, "Appearance.glow")->count, 1);
    change(&report, STRATA_CHANGE_DROPPED, "resource.Obsolete");
    change(&report, STRATA_CHANGE_ADDED, "resource.Level");
    save2_world_destroy(w);
}

/* Load `bytes` into a world that must stay exactly as it was. */
static void check_untouched_v2(save2_world *w, const void *bytes, size_t size, strata_result_t expected,
                               const char *what) {
    size_t before_size = 0;
    save2_world_save_mem(w, NULL, 0, &before_size);
    unsigned char *before = malloc(before_size);
    assert_int_equal(save2_world_save_mem(w, before, before_size, &before_size), STRATA_OK);
    strata_load_report_t report;
    strata_result_t r = save2_world_load_mem(w, bytes, size, &report);
    if (r != expected || strstr(report.error, what) == NULL) {
        fail_msg("got %s: %s", strata_result_str(r), report.error);
    }
    unsigned char *after = malloc(before_size);
    size_t after_size = 0;
    assert_int_equal(save2_world_save_mem(w, after, before_size, &after_size), STRATA_OK);
    assert_int_equal(after_size, before_size);
    assert_memory_equal(after, before, before_size);
    free(before);
    free(after);
}

static void test_save_evolve_lossy_change_is_an_error(void **state) {
    (void)state;
    v1_entities e;
    save_world *v1 = make_v1(&e);
    size_t size = 0;
    unsigned char *bytes = v1_save(v1, &size);
    save3_world *w = save3_world_create(NULL);
    save3_entity kept = save3_entity_create(w);
    save3_health_add(w, kept, (save3_health){1, 2});
    strata_load_report_t report;
    assert_int_equal(save3_world_load_mem(w, bytes, size, &report), STRATA_ERR_SCHEMA);
    assert_non_null(strstr(report.error, "Health.value"));
    assert_non_null(strstr(report.error, "cannot convert i32 to i16"));
    assert_int_equal(save3_health_get(w, kept)->value, 1);
    strata_world_stats_t stats;
    save3_world_stats(w, &stats);
    assert_int_equal(stats.entities, 1);
    free(bytes);
    save3_world_destroy(w);
    save_world_destroy(v1);
}

static void test_save_evolve_newer_save_is_an_error(void **state) {
    (void)state;
    save2_world *v2 = save2_world_create(NULL);
    save2_spawn_guard(v2);
    size_t size = 0;
    save2_world_save_mem(v2, NULL, 0, &size);
    unsigned char *bytes = malloc(size);
    assert_int_equal(save2_world_save_mem(v2, bytes, size, &size), STRATA_OK);
    save_world *v1 = save_world_create(NULL);
    save_entity kept = save_spawn_mover(v1);
    strata_load_report_t report;
    assert_int_equal(save_world_load_mem(v1, bytes, size, &report), STRATA_ERR_SCHEMA);
    assert_non_null(strstr(report.error, "version 2"));
    assert_true(save_position_has(v1, kept));
    /* The same through JSON. */
    size_t json_size = 0;
    save2_world_dump_json_mem(v2, NULL, 0, &json_size);
    char *json = malloc(json_size);
    assert_int_equal(save2_world_dump_json_mem(v2, json, json_size, &json_size), STRATA_OK);
    assert_int_equal(save_world_load_json_mem(v1, json, json_size, &report), STRATA_ERR_SCHEMA);
    assert_int_equal(report.line, 4); /* "version": 2 */
    assert_true(save_position_has(v1, kept));
    free(json);
    free(bytes);
    save_world_destroy(v1);
    save2_world_destroy(v2);
}

static void test_save_evolve_failed_load_leaves_v2_untouched(void **state) {
    (void)state;
    v1_entities e;
    save_world *v1 = make_v1(&e);
    size_t size = 0;
    unsigned char *bytes = v1_save(v1, &size);
    save2_world *w = save2_world_create(NULL);
    save2_entity a = save2_entity_create(w);
    save2_armor_add(w, a, (save2_armor){9});
    save2_level_res(w)->number = 4;
    check_untouched_v2(w, bytes, size / 2, STRATA_ERR_CORRUPT, "truncated");
    bytes[size - 1] ^= 1;
    check_untouched_v2(w, bytes, size, STRATA_ERR_CORRUPT, "checksum");
    assert_int_equal(save2_level_res(w)->number, 4);
    free(bytes);
    save2_world_destroy(w);
    save_world_destroy(v1);
}

/* --- The evolution rules, one table for both formats ----------------------- */

typedef enum save_format { FORMAT_BINARY, FORMAT_JSON } save_format;

/* The older world a case saves, and its entities. */
typedef struct old_world {
    strata_world_t *w;
    v1_entities v1;                                /* when made by make_v1 */
    save4_entity both, only_health, only_vitality; /* when made by make_v4 */
    save2_entity v2_hero;                          /* when made by old_v2 */
} old_world;

static void old_v1(old_world *o) {
    o->w = save_world_core(make_v1(&o->v1));
}

/* Version 1 of 'save' with both a former and a current name of version 2:
 * Health and Vitality, and in Vitality both max and cap. */
static void old_v4(old_world *o) {
    save4_world *w = save4_world_create(NULL);
    assert_non_null(w);
    o->both = save4_entity_create(w);
    save4_health_add(w, o->both, (save4_health){11, 12});
    save4_vitality_add(w, o->both, (save4_vitality){21, 22, 23});
    o->only_health = save4_entity_create(w);
    save4_health_add(w, o->only_health, (save4_health){41, 42});
    o->only_vitality = save4_entity_create(w);
    save4_vitality_add(w, o->only_vitality, (save4_vitality){31, 32, 33});
    o->w = save4_world_core(w);
}

/* Version 2 of 'save': Health is Vitality there, its max is cap. */
static void old_v2(old_world *o) {
    save2_world *w = save2_world_create(NULL);
    assert_non_null(w);
    save2_entity_create(w);
    o->v2_hero = save2_entity_create(w);
    save2_vitality_add(w, o->v2_hero, (save2_vitality){-5000000000, 77, 0.5f});
    o->w = save2_world_core(w);
}

/* The world saved in format f (malloc'd bytes in *size). */
static void *save_as(strata_world_t *w, save_format f, size_t *size) {
    strata_result_t r = f == FORMAT_BINARY ? strata_world_save_mem(w, NULL, 0, size)
                                           : strata_world_write_json_mem(w, NULL, 0, size);
    assert_int_equal(r, STRATA_ERR_LIMIT);
    void *data = malloc(*size);
    r = f == FORMAT_BINARY ? strata_world_save_mem(w, data, *size, size)
                           : strata_world_write_json_mem(w, data, *size, size);
    assert_int_equal(r, STRATA_OK);
    return data;
}

static strata_result_t load_as(strata_world_t *w, const void *data, size_t size, save_format f,
                               strata_load_report_t *report) {
    return f == FORMAT_BINARY ? strata_world_load_mem(w, data, size, report)
                              : strata_world_load_json_mem(w, data, size, report);
}

/* The change of `kind` named `name`, or NULL. */
static const strata_change_t *find_change(const strata_load_report_t *report, strata_change_kind_t kind,
                                          const char *name) {
    for (uint32_t i = 0; i < report->change_count && i < STRATA_REPORT_MAX; i++) {
        if (report->changes[i].kind == kind && strcmp(report->changes[i].name, name) == 0) {
            return &report->changes[i];
        }
    }
    return NULL;
}

static void expect_change(const strata_load_report_t *report, strata_change_kind_t kind, const char *name,
                          uint64_t count) {
    assert_int_equal(change(report, kind, name)->count, count);
}

static save2_world *as_v2(strata_world_t *w) {
    return (save2_world *)(void *)w;
}

/* An added component and added fields: their defaults. */
static void check_added(strata_world_t *core, const old_world *o, const strata_load_report_t *report) {
    save2_world *w = as_v2(core);
    const v1_entities *e = &o->v1;
    save_entity all[] = {e->mover, e->hero, e->follower, e->relic, e->painted, e->everything};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        assert_false(save2_armor_has(w, as2(all[i])));
    }
    assert_true(save2_vitality_get(w, as2(e->hero))->regen == 0.25f);
    assert_true(save2_appearance_get(w, as2(e->painted))->glow == 0.5f);
    assert_true(save2_everything_get(w, as2(e->everything))->path[3].z == 7.0f);
    assert_int_equal(save2_level_res(w)->number, 1);
    assert_int_equal(save2_config_res(w)->mode, 2);
    expect_change(report, STRATA_CHANGE_ADDED, "Vitality.regen", 1);
    expect_change(report, STRATA_CHANGE_ADDED, "Appearance.glow", 1);
    expect_change(report, STRATA_CHANGE_ADDED, "resource.Level", 1);
    expect_change(report, STRATA_CHANGE_ADDED, "resource.Config.mode", 1);
}

/* Removed components, fields and resources: reported with how many had them. */
static void check_removed(strata_world_t *core, const old_world *o, const strata_load_report_t *report) {
    save2_world *w = as_v2(core);
    assert_true(save2_entity_alive(w, as2(o->v1.relic)));
    assert_true(save2_target_has(w, as2(o->v1.follower)));
    expect_change(report, STRATA_CHANGE_DROPPED, "Old", 2);
    expect_change(report, STRATA_CHANGE_DROPPED, "Legacy", 1);
    expect_change(report, STRATA_CHANGE_DROPPED, "Target.since", 1);
    expect_change(report, STRATA_CHANGE_DROPPED, "resource.Obsolete", 1);
}

/* Lossless widening: the values, converted. */
static void check_widened(strata_world_t *core, const old_world *o, const strata_load_report_t *report) {
    (void)report;
    save2_world *w = as_v2(core);
    const save2_vitality *v = save2_vitality_get(w, as2(o->v1.hero));
    assert_true(v->value == -2000000000);                                           /* i32 -> i64 */
    assert_int_equal(v->cap, -300);                                                 /* i16 -> i32 */
    assert_true(save2_position_get(w, as2(o->v1.mover))->y == -3.5);                /* f32 -> f64 */
    assert_true(save2_score_res(w)->value == -5);                                   /* i32 -> i64 */
    assert_int_equal(save2_score_res(w)->best, 65535);                              /* u16 -> u32 */
    assert_string_equal(save2_name_get(w, as2(o->v1.hero))->text, "hero");          /* char[16] -> char[32] */
    assert_true(save2_everything_get(w, as2(o->v1.everything))->path[2].y == 9.0f); /* Vec2[3] -> [4] */
}

/* A lossy change (i32 -> i16, and the saved value does not fit): an error naming the field. */
static void check_lossy(strata_world_t *core, const old_world *o, const strata_load_report_t *report) {
    (void)core;
    (void)o;
    assert_non_null(strstr(report->error, "Health.value"));
}

/* renamed_from: a component and a field under their new names, values kept. */
static void check_renamed(strata_world_t *core, const old_world *o, const strata_load_report_t *report) {
    save2_world *w = as_v2(core);
    const save2_vitality *v = save2_vitality_get(w, as2(o->v1.hero));
    assert_non_null(v);
    assert_true(v->value == -2000000000);
    assert_int_equal(v->cap, -300);
    expect_change(report, STRATA_CHANGE_RENAMED, "Vitality (was Health)", 1);
    expect_change(report, STRATA_CHANGE_RENAMED, "Vitality.cap (was max)", 1);
}

/* A save holding the current name beside the former one: the current name
 * wins, for every entity, and the former one is dropped (not renamed). */
static void check_current_name_wins(strata_world_t *core, const old_world *o, const strata_load_report_t *report) {
    save2_world *w = as_v2(core);
    const save2_vitality *both = save2_vitality_get(w, (save2_entity){o->both.id});
    assert_non_null(both);
    assert_true(both->value == 21);
    assert_int_equal(both->cap, 22);
    const save2_vitality *only = save2_vitality_get(w, (save2_entity){o->only_vitality.id});
    assert_true(only->value == 31);
    assert_int_equal(only->cap, 32);
    /* Health does not become Vitality, not even where the entity has no Vitality. */
    assert_true(save2_entity_alive(w, (save2_entity){o->only_health.id}));
    assert_false(save2_vitality_has(w, (save2_entity){o->only_health.id}));
    expect_change(report, STRATA_CHANGE_DROPPED, "Health", 2);
    expect_change(report, STRATA_CHANGE_DROPPED, "Vitality.max", 2);
    assert_null(find_change(report, STRATA_CHANGE_RENAMED, "Vitality (was Health)"));
    assert_null(find_change(report, STRATA_CHANGE_RENAMED, "Vitality.cap (was max)"));
}

/* Renamed twice (save5.yaml): a version 1 save's Health loads as Stamina. */
static void check_renamed_twice_from_v1(strata_world_t *core, const old_world *o, const strata_load_report_t *report) {
    save5_world *w = (save5_world *)(void *)core;
    const save5_stamina *s = save5_stamina_get(w, (save5_entity){o->v1.hero.id});
    assert_non_null(s);
    assert_true(s->value == -2000000000);
    assert_int_equal(s->limit, -300);
    expect_change(report, STRATA_CHANGE_RENAMED, "Stamina (was Health)", 1);
    expect_change(report, STRATA_CHANGE_RENAMED, "Stamina.limit (was max)", 1);
}

/* ... and a version 2 save's Vitality too. */
static void check_renamed_twice_from_v2(strata_world_t *core, const old_world *o, const strata_load_report_t *report) {
    save5_world *w = (save5_world *)(void *)core;
    const save5_stamina *s = save5_stamina_get(w, (save5_entity){o->v2_hero.id});
    assert_non_null(s);
    assert_true(s->value == -5000000000);
    assert_int_equal(s->limit, 77);
    expect_change(report, STRATA_CHANGE_RENAMED, "Stamina (was Vitality)", 1);
    expect_change(report, STRATA_CHANGE_RENAMED, "Stamina.limit (was cap)", 1);
    expect_change(report, STRATA_CHANGE_DROPPED, "Stamina.regen", 1);
}

/* A save with two former names: the one listed first wins, the other is dropped. */
static void check_first_former_name_wins(strata_world_t *core, const old_world *o, const strata_load_report_t *report) {
    save5_world *w = (save5_world *)(void *)core;
    const save5_stamina *both = save5_stamina_get(w, (save5_entity){o->both.id});
    assert_non_null(both);
    assert_true(both->value == 21);
    assert_int_equal(both->limit, 22); /* cap, listed before max */
    assert_false(save5_stamina_has(w, (save5_entity){o->only_health.id}));
    assert_int_equal(save5_stamina_get(w, (save5_entity){o->only_vitality.id})->limit, 32);
    expect_change(report, STRATA_CHANGE_RENAMED, "Stamina (was Vitality)", 2);
    expect_change(report, STRATA_CHANGE_DROPPED, "Health", 2);
    expect_change(report, STRATA_CHANGE_DROPPED, "Stamina.max", 2);
    assert_null(find_change(report, STRATA_CHANGE_RENAMED, "Stamina (was Health)"));
}

typedef struct evolve_case {
    const char *name;
    void (*make_old)(old_world *o);
    int target; /* the schema loaded into: 2 (save2), 3 (save3) or 5 (save5) */
    bool loads; /* else the load fails and leaves the target untouched */
    void (*check)(strata_world_t *w, const old_world *o, const strata_load_report_t *report);
} evolve_case;

static const evolve_case evolve_cases[] = {
    {"added component and fields take their defaults", old_v1, 2, true, check_added},
    {"removed ones are reported", old_v1, 2, true, check_removed},
    {"lossless widening converts", old_v1, 2, true, check_widened},
    {"a lossy change is an error", old_v1, 3, false, check_lossy},
    {"renamed_from keeps the values", old_v1, 2, true, check_renamed},
    {"a current name wins over renamed_from", old_v4, 2, true, check_current_name_wins},
    {"renamed twice: a version 1 save loads", old_v1, 5, true, check_renamed_twice_from_v1},
    {"renamed twice: a version 2 save loads", old_v2, 5, true, check_renamed_twice_from_v2},
    {"renamed twice: the first former name listed wins", old_v4, 5, true, check_first_former_name_wins},
};

static strata_world_t *target_create(int version) {
    strata_world_t *w = version == 2   ? save2_world_core(save2_world_create(NULL))
                        : version == 3 ? save3_world_core(save3_world_create(NULL))
                                       : save5_world_core(save5_world_create(NULL));
    assert_non_null(w);
    return w;
}

static void run_case(const evolve_case *c, save_format f) {
    old_world o;
    memset(&o, 0, sizeof o);
    c->make_old(&o);
    size_t size = 0;
    void *data = save_as(o.w, f, &size);
    strata_world_t *w = target_create(c->target);
    if (c->target == 3) {
        save3_world *w3 = (save3_world *)(void *)w;
        save3_health_add(w3, save3_entity_create(w3), (save3_health){1, 2});
    }
    size_t before_size = 0;
    void *before = save_as(w, FORMAT_BINARY, &before_size);
    strata_load_report_t report;
    strata_result_t r = load_as(w, data, size, f, &report);
    if ((r == STRATA_OK) != c->loads) {
        fail_msg("%s (%s): %s: %s", c->name, f == FORMAT_BINARY ? "binary" : "JSON", strata_result_str(r),
                 report.error);
    }
    c->check(w, &o, &report);
    if (!c->loads) {
        size_t after_size = 0;
        void *after = save_as(w, FORMAT_BINARY, &after_size);
        assert_int_equal(after_size, before_size);
        assert_memory_equal(after, before, before_size);
        free(after);
    }
    free(before);
    free(data);
    strata_world_destroy(w);
    strata_world_destroy(o.w);
}

static void test_save_evolve_cases_binary(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof evolve_cases / sizeof evolve_cases[0]; i++) {
        run_case(&evolve_cases[i], FORMAT_BINARY);
    }
}

static void test_save_evolve_cases_json(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof evolve_cases / sizeof evolve_cases[0]; i++) {
        run_case(&evolve_cases[i], FORMAT_JSON);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_save_evolve_binary_v1_loads_into_v2),
        cmocka_unit_test(test_save_evolve_json_v1_loads_into_v2),
        cmocka_unit_test(test_save_evolve_lossy_change_is_an_error),
        cmocka_unit_test(test_save_evolve_newer_save_is_an_error),
        cmocka_unit_test(test_save_evolve_failed_load_leaves_v2_untouched),
        cmocka_unit_test(test_save_evolve_cases_binary),
        cmocka_unit_test(test_save_evolve_cases_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

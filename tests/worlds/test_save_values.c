/* The extremes of every field type through both save formats, on
 * tests/schema/save.yaml's Everything component (one field of each type):
 * a table of values (minimum, maximum, smallest denormal, -0.0, the
 * longest string: N bytes filling a char[N] with no NUL...), each saved
 * and loaded in binary and in JSON, which must give back the same bits
 * and, dumped again, the same bytes: a save Strata writes always loads. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "save.h"
#include "save_text.h"

/* --- The table -------------------------------------------------------------- */

/* Where one field of save_everything lives. */
typedef struct field_t {
    const char *name;
    size_t offset, size;
} field_t;

#define FIELD(f)                                                                                                       \
    { #f, offsetof(save_everything, f), sizeof(((save_everything *)0)->f) }

/* Every field of Everything: one of each field type of the schema language. */
static const field_t fields[] = {
    FIELD(flag),   FIELD(small), FIELD(medium), FIELD(large),  FIELD(huge),  FIELD(ubyte),
    FIELD(ushort), FIELD(uint),  FIELD(ulong),  FIELD(single), FIELD(dbl),   FIELD(who),
    FIELD(shape),  FIELD(tint),  FIELD(label),  FIELD(path),   FIELD(codes),
};
#define FIELD_COUNT (sizeof fields / sizeof fields[0])

/* One value to put in one field. `self` fills an entity field with the
 * entity itself (a handle only makes sense in its world). */
typedef struct case_t {
    const char *field;
    save_everything value; /* only the named field is read */
    bool self;
} case_t;

static const case_t cases[] = {
    {"flag", {.flag = false}, false},
    {"flag", {.flag = true}, false},
    {"small", {.small = INT8_MIN}, false},
    {"small", {.small = INT8_MAX}, false},
    {"small", {.small = -1}, false},
    {"medium", {.medium = INT16_MIN}, false},
    {"medium", {.medium = INT16_MAX}, false},
    {"large", {.large = INT32_MIN}, false},
    {"large", {.large = INT32_MAX}, false},
    {"huge", {.huge = INT64_MIN}, false},
    {"huge", {.huge = INT64_MAX}, false},
    {"huge", {.huge = -1}, false},
    {"ubyte", {.ubyte = 0}, false},
    {"ubyte", {.ubyte = UINT8_MAX}, false},
    {"ushort", {.ushort = UINT16_MAX}, false},
    {"uint", {.uint = UINT32_MAX}, false},
    {"ulong", {.ulong = UINT64_MAX}, false},
    {"ulong", {.ulong = (uint64_t)INT64_MAX + 1}, false},
    {"ulong", {.ulong = 0}, false},
    {"single", {.single = FLT_MAX}, false},
    {"single", {.single = -FLT_MAX}, false},
    {"single", {.single = FLT_MIN}, false},
    {"single", {.single = -FLT_MIN}, false},
    {"single", {.single = FLT_TRUE_MIN}, false},
    {"single", {.single = -FLT_TRUE_MIN}, false},
    {"single", {.single = -0.0f}, false},
    {"single", {.single = 0.0f}, false},
    {"single", {.single = 0.1f}, false},
    {"single", {.single = 16777217.0f}, false},
    {"single", {.single = 1e10f}, false},
    {"single", {.single = INFINITY}, false},
    {"single", {.single = -INFINITY}, false},
    {"dbl", {.dbl = DBL_MAX}, false},
    {"dbl", {.dbl = -DBL_MAX}, false},
    {"dbl", {.dbl = DBL_MIN}, false},
    {"dbl", {.dbl = DBL_TRUE_MIN}, false},
    {"dbl", {.dbl = -DBL_TRUE_MIN}, false},
    {"dbl", {.dbl = -0.0}, false},
    {"dbl", {.dbl = 0.1}, false},
    {"dbl", {.dbl = 9007199254740993.0}, false},
    {"dbl", {.dbl = 1e17}, false},
    {"dbl", {.dbl = -INFINITY}, false},
    {"who", {.who = {0}}, false},
    {"who", {.who = {0}}, true},
    {"shape", {.shape = SAVE_SHAPE_SQUARE}, false},
    {"shape", {.shape = SAVE_SHAPE_TRIANGLE}, false},
    {"tint", {.tint = {0, 0, 0, 0}}, false},
    {"tint", {.tint = {255, 255, 255, 255}}, false},
    {"label", {.label = ""}, false},
    {"label", {.label = "1234567"}, false},                                /* 7 bytes and the NUL */
    {"label", {.label = {'1', '2', '3', '4', '5', '6', '7', '8'}}, false}, /* the longest: 8 bytes, no NUL */
    {"label", {.label = {'\x80', '\xff', '\xef', '\x9e', '\x80', 'a', '"', '\x01'}}, false}, /* 8 odd bytes */
    {"label", {.label = "\x01\x7f\x80\xff\"\\\n"}, false},
    {"path", {.path = {{-0.0f, FLT_MAX}, {-FLT_MAX, FLT_TRUE_MIN}, {FLT_MIN, -0.0f}}}, false},
    {"codes", {.codes = {0, UINT16_MAX, 0, UINT16_MAX}}, false},
};
#define CASE_COUNT (sizeof cases / sizeof cases[0])

static const field_t *field_named(const char *name) {
    for (size_t i = 0; i < FIELD_COUNT; i++) {
        if (strcmp(fields[i].name, name) == 0) {
            return &fields[i];
        }
    }
    fail_msg("no field %s", name);
    return NULL;
}

/* --- Helpers -------------------------------------------------------------- */

/* A world whose entity (index 1, generation 3: a reused index) holds
 * Everything at its defaults with one field set as case c says. */
static save_world *world_of(const case_t *c, save_entity *out) {
    save_world *w = save_world_create(NULL);
    assert_non_null(w);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(save_entity_destroy(w, save_entity_create(w)), STRATA_OK);
    }
    save_entity e = save_entity_create(w);
    save_everything v = SAVE_EVERYTHING_DEFAULT;
    const field_t *f = field_named(c->field);
    memcpy((unsigned char *)&v + f->offset, (const unsigned char *)&c->value + f->offset, f->size);
    if (c->self) {
        v.who = e;
    }
    assert_int_equal(save_everything_add(w, e, v), STRATA_OK);
    *out = e;
    return w;
}

/* Every field of e's Everything in `got` has the bits it has in `want`. */
static void assert_same_fields(const save_everything *want, const save_everything *got, const case_t *c) {
    for (size_t i = 0; i < FIELD_COUNT; i++) {
        const field_t *f = &fields[i];
        if (memcmp((const unsigned char *)want + f->offset, (const unsigned char *)got + f->offset, f->size) != 0) {
            fail_msg("case %s (#%zu): field %s changed", c->field, (size_t)(c - cases), f->name);
        }
    }
}

/* --- Round trips ---------------------------------------------------------- */

static void test_save_values_every_extreme_survives_a_binary_round_trip(void **state) {
    (void)state;
    for (size_t i = 0; i < CASE_COUNT; i++) {
        save_entity e;
        save_world *w = world_of(&cases[i], &e);
        size_t size = 0;
        unsigned char *bytes = save_bytes(w, &size);
        save_world *loaded = save_world_create(NULL);
        strata_load_report_t report;
        if (save_world_load_mem(loaded, bytes, size, &report) != STRATA_OK) {
            fail_msg("case %s (#%zu): %s", cases[i].field, i, report.error);
        }
        assert_non_null(save_everything_get(loaded, e));
        assert_same_fields(save_everything_get(w, e), save_everything_get(loaded, e), &cases[i]);
        size_t again_size = 0;
        unsigned char *again = save_bytes(loaded, &again_size);
        assert_int_equal(again_size, size);
        assert_memory_equal(again, bytes, size);
        free(again);
        free(bytes);
        save_world_destroy(loaded);
        save_world_destroy(w);
    }
}

static void test_save_values_every_extreme_survives_a_json_round_trip(void **state) {
    (void)state;
    for (size_t i = 0; i < CASE_COUNT; i++) {
        save_entity e;
        save_world *w = world_of(&cases[i], &e);
        char *text = json_text(w);
        save_world *loaded = save_world_create(NULL);
        strata_load_report_t report;
        if (save_world_load_json_mem(loaded, text, strlen(text), &report) != STRATA_OK) {
            fail_msg("case %s (#%zu): %s\n%s", cases[i].field, i, report.error, text);
        }
        assert_non_null(save_everything_get(loaded, e));
        assert_same_fields(save_everything_get(w, e), save_everything_get(loaded, e), &cases[i]);
        char *again = json_text(loaded);
        assert_string_equal(again, text);
        free(again);
        free(text);
        save_world_destroy(loaded);
        save_world_destroy(w);
    }
}

/* The regressions: -0.0 came back as 0 (the dump said `-0`, read as an
 * integer) and ±FLT_MAX was refused by the loader as out of range. */
static void test_save_values_json_keeps_negative_zero_and_flt_max(void **state) {
    (void)state;
    save_world *w = save_world_create(NULL);
    save_entity e = save_entity_create(w);
    assert_int_equal(save_position_add(w, e, (save_position){-0.0f, FLT_MAX}), STRATA_OK);
    assert_int_equal(save_velocity_add(w, e, (save_velocity){-FLT_MAX, -0.0f}), STRATA_OK);
    char *text = json_text(w);
    save_world *loaded = save_world_create(NULL);
    strata_load_report_t report;
    assert_int_equal(save_world_load_json_mem(loaded, text, strlen(text), &report), STRATA_OK);
    const save_position *p = save_position_get(loaded, e);
    const save_velocity *v = save_velocity_get(loaded, e);
    assert_true(p->x == 0.0f && signbit(p->x));
    assert_true(p->y == FLT_MAX);
    assert_true(v->x == -FLT_MAX);
    assert_true(v->y == 0.0f && signbit(v->y));
    free(text);
    save_world_destroy(loaded);
    save_world_destroy(w);
}

/* A number that rounds past FLT_MAX is still refused for an f32. */
static void test_save_values_json_refuses_an_f32_beyond_range(void **state) {
    (void)state;
    save_world *w = save_world_create(NULL);
    save_entity e = save_entity_create(w);
    assert_int_equal(save_position_add(w, e, (save_position){1.0f, 2.0f}), STRATA_OK);
    char *text = json_text(w);
    char *at = strstr(text, "\"y\": 2");
    assert_non_null(at);
    char edited[4096];
    snprintf(edited, sizeof edited, "%.*s\"y\": 3.4028236e38%s", (int)(at - text), text, at + strlen("\"y\": 2"));
    save_world *loaded = save_world_create(NULL);
    strata_load_report_t report;
    assert_int_equal(save_world_load_json_mem(loaded, edited, strlen(edited), &report), STRATA_ERR_CORRUPT);
    assert_non_null(strstr(report.error, "out of range for f32"));
    assert_non_null(strstr(report.error, "Position.y"));
    assert_false(save_position_has(loaded, e));
    free(text);
    save_world_destroy(loaded);
    save_world_destroy(w);
}

/* --- Strings that fill their array ----------------------------------------- */

/* A world whose Everything.label holds 8 bytes and no NUL. */
static save_world *full_label_world(save_entity *e) {
    save_world *w = save_world_create(NULL);
    *e = save_entity_create(w);
    save_everything v = SAVE_EVERYTHING_DEFAULT;
    memcpy(v.label, "12345678", 8);
    assert_int_equal(save_everything_add(w, *e, v), STRATA_OK);
    return w;
}

/* A game may fill a char[N] with N bytes and no NUL, as C lets it: a JSON
 * save of it loads back with the same N bytes (it once saved and then
 * refused to load: "8 bytes and the NUL do not fit"). */
static void test_save_values_json_full_char_array_loads_back(void **state) {
    (void)state;
    save_entity e;
    save_world *w = full_label_world(&e);
    char *text = json_text(w);
    assert_non_null(strstr(text, "\"label\": \"12345678\""));
    save_world *loaded = save_world_create(NULL);
    strata_load_report_t report;
    if (save_world_load_json_mem(loaded, text, strlen(text), &report) != STRATA_OK) {
        fail_msg("%s", report.error);
    }
    assert_memory_equal(save_everything_get(loaded, e)->label, "12345678", 8);
    /* One byte more does not fit, and the load says where. */
    char *at = strstr(text, "12345678");
    char edited[8192];
    snprintf(edited, sizeof edited, "%.*s123456789%s", (int)(at - text), text, at + 8);
    save_world *other = save_world_create(NULL);
    save_entity before = save_entity_create(other);
    assert_int_equal(save_world_load_json_mem(other, edited, strlen(edited), &report), STRATA_ERR_CORRUPT);
    assert_non_null(strstr(report.error, "Everything.label"));
    assert_non_null(strstr(report.error, "9 bytes do not fit in char[8]"));
    assert_true(save_entity_alive(other, before)); /* untouched */
    free(text);
    save_world_destroy(other);
    save_world_destroy(loaded);
    save_world_destroy(w);
}

/* The same in a binary save. */
static void test_save_values_binary_full_char_array_loads_back(void **state) {
    (void)state;
    save_entity e;
    save_world *w = full_label_world(&e);
    size_t size = 0;
    unsigned char *bytes = save_bytes(w, &size);
    save_world *loaded = save_world_create(NULL);
    strata_load_report_t report;
    if (save_world_load_mem(loaded, bytes, size, &report) != STRATA_OK) {
        fail_msg("%s", report.error);
    }
    assert_memory_equal(save_everything_get(loaded, e)->label, "12345678", 8);
    size_t again_size = 0;
    unsigned char *again = save_bytes(loaded, &again_size);
    assert_int_equal(again_size, size);
    assert_memory_equal(again, bytes, size);
    free(again);
    free(bytes);
    save_world_destroy(loaded);
    save_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_save_values_every_extreme_survives_a_binary_round_trip),
        cmocka_unit_test(test_save_values_every_extreme_survives_a_json_round_trip),
        cmocka_unit_test(test_save_values_json_keeps_negative_zero_and_flt_max),
        cmocka_unit_test(test_save_values_json_refuses_an_f32_beyond_range),
        cmocka_unit_test(test_save_values_json_full_char_array_loads_back),
        cmocka_unit_test(test_save_values_binary_full_char_array_loads_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

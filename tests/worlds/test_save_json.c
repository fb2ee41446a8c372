/* Tests of the streamed JSON load on tests/schema/save.yaml: what a reader
 * of one token at a time must check itself (repeated keys, nesting, the
 * root's members in any order, numbers at their limits read exactly), and
 * that every truncation of a dump is an error that leaves the world as it
 * was. Round trips and error positions are in test_save.c. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "save.h"
#include "save_text.h"

/* A world with two entities, a free index and a resource set. */
static save_world *small_world(void) {
    save_world *w = save_world_create(NULL);
    assert_non_null(w);
    save_entity a = save_entity_create(w), b = save_entity_create(w), c = save_entity_create(w);
    assert_int_equal(save_position_add(w, a, (save_position){1.5f, -2.0f}), STRATA_OK);
    assert_int_equal(save_target_add(w, c, (save_target){a, 0.25f}), STRATA_OK);
    assert_int_equal(save_name_add(w, c, (save_name){"c\\\"\xc3\xa9"}), STRATA_OK);
    save_entity_destroy(w, b);
    save_score_res(w)->value = -3;
    return w;
}

/* Loading `text` into w fails with `expected`, an error containing `what`
 * (and at line:column when line > 0), and leaves w as it was. */
static void fails(save_world *w, const char *text, strata_result_t expected, uint32_t line, uint32_t column,
                  const char *what) {
    size_t size = 0;
    unsigned char *before = save_bytes(w, &size);
    strata_load_report_t report;
    strata_result_t r = save_world_load_json_mem(w, text, strlen(text), &report);
    if (r != expected || strstr(report.error, what) == NULL ||
        (line > 0 && (report.line != line || report.column != column))) {
        fail_msg("%s: got %s at %u:%u: %s", text, strata_result_str(r), report.line, report.column, report.error);
    }
    size_t after_size = 0;
    unsigned char *after = save_bytes(w, &after_size);
    assert_int_equal(after_size, size);
    assert_memory_equal(after, before, size);
    free(after);
    free(before);
}

#define HEAD "{\"strata\": 1, \"schema\": \"save\", \"version\": 1, "

static void test_save_json_repeated_keys_are_errors(void **state) {
    (void)state;
    save_world *w = small_world();
    fails(w, HEAD "\"version\": 1, \"entities\": []}", STRATA_ERR_CORRUPT, 1, 47, "\"version\" is repeated");
    fails(w, HEAD "\"entities\": [{\"id\": 4294967296, \"id\": 4294967297}]}", STRATA_ERR_CORRUPT, 1, 79,
          "entities[0]: the key \"id\" is repeated");
    fails(w, HEAD "\"entities\": [{\"id\": 4294967296, \"components\": {\"Frozen\": {}, \"Frozen\": {}}}]}",
          STRATA_ERR_CORRUPT, 0, 0, "\"Frozen\" is repeated");
    fails(w, HEAD "\"entities\": [{\"id\": 4294967296, \"components\": {\"Position\": {\"x\": 1, \"x\": 2}}}]}",
          STRATA_ERR_CORRUPT, 0, 0, "Position: the key \"x\" is repeated");
    /* Keys no schema element takes: a dropped field, a dropped component, a skipped value's object. */
    fails(w, HEAD "\"entities\": [{\"id\": 4294967296, \"components\": {\"Position\": {\"z\": 1, \"z\": 2}}}]}",
          STRATA_ERR_CORRUPT, 0, 0, "\"z\" is repeated");
    fails(w, HEAD "\"entities\": [{\"id\": 4294967296, \"components\": {\"Gone\": {}, \"Gone\": {}}}]}",
          STRATA_ERR_CORRUPT, 0, 0, "\"Gone\" is repeated");
    fails(w, HEAD "\"notes\": {\"a\": [{\"k\": 1, \"k\": 2}]}, \"entities\": []}", STRATA_ERR_CORRUPT, 0, 0,
          "\"k\" is repeated");
    /* The same key in two objects is no repeat. */
    const char *fine = HEAD "\"entities\": [{\"id\": 4294967296, \"components\": {\"Gone\": {\"k\": 1}}},"
                            " {\"id\": 4294967297, \"components\": {\"Gone\": {\"k\": 1}}}]}";
    strata_load_report_t report;
    save_world *loaded = save_world_create(NULL);
    assert_int_equal(save_world_load_json_mem(loaded, fine, strlen(fine), &report), STRATA_OK);
    assert_int_equal(report.entities, 2);
    save_world_destroy(loaded);
    save_world_destroy(w);
}

/* `depth` nested lists as the value of an unknown root member. */
static char *nested(int depth) {
    size_t size = strlen(HEAD) + 64 + 2 * (size_t)depth;
    char *text = malloc(size);
    assert_non_null(text);
    int n = snprintf(text, size, HEAD "\"deep\": ");
    for (int i = 0; i < depth; i++) {
        text[n++] = '[';
    }
    for (int i = 0; i < depth; i++) {
        text[n++] = ']';
    }
    snprintf(text + n, size - (size_t)n, ", \"entities\": []}");
    return text;
}

static void test_save_json_nesting_is_limited(void **state) {
    (void)state;
    save_world *w = small_world();
    char *deep = nested(100000);
    fails(w, deep, STRATA_ERR_CORRUPT, 0, 0, "nested more than 512 deep");
    free(deep);
    char *fine = nested(500);
    strata_load_report_t report;
    save_world *loaded = save_world_create(NULL);
    if (save_world_load_json_mem(loaded, fine, strlen(fine), &report) != STRATA_OK) {
        fail_msg("%s", report.error);
    }
    free(fine);
    save_world_destroy(loaded);
    save_world_destroy(w);
}

/* Load text into a new world; its dump (caller frees). */
static char *loaded_dump(const char *text) {
    save_world *w = save_world_create(NULL);
    strata_load_report_t report;
    if (save_world_load_json_mem(w, text, strlen(text), &report) != STRATA_OK) {
        fail_msg("%s: %s", text, report.error);
    }
    char *dump = json_text(w);
    save_world_destroy(w);
    return dump;
}

static void test_save_json_root_members_in_any_order(void **state) {
    (void)state;
    save_world *w = small_world();
    char *dump = json_text(w);
    /* The writer's order, then the entities first and the header last, and the
     * free list after the entities (the head pass must read the whole text). */
    const char *texts[] = {
        "{\"resources\": {\"Score\": {\"value\": -3}}, \"entities\": ["
        "{\"components\": {\"Position\": {\"y\": -2, \"x\": 1.5}}, \"id\": 4294967296},"
        "{\"id\": 4294967298, \"components\": {\"Name\": {\"text\": \"c\\\\\\\"\\u00e9\"}, \"Target\": {\"since\": "
        "0.25, "
        "\"who\": 4294967296}}}], \"free\": [[1, 2]], \"indices\": 3, \"version\": 1, \"schema\": \"save\"}",
        "{\"version\": 1, \"entities\": ["
        "{\"id\": 4294967296, \"components\": {\"Position\": {\"x\": 1.5, \"y\": -2}}},"
        "{\"id\": \"4294967298\", \"components\": {\"Target\": {\"who\": \"4294967296\", \"since\": 0.25}, \"Name\": "
        "{\"text\": \"c\\\\\\\"\xc3\xa9\"}}}], \"schema\": \"save\", \"free\": [[1, 2]], \"resources\": {\"Score\": "
        "{\"value\": -3}}}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char *again = loaded_dump(texts[i]);
        assert_string_equal(again, dump);
        free(again);
    }
    free(dump);
    save_world_destroy(w);
}

static void test_save_json_index_count_is_checked_once_the_entities_are_read(void **state) {
    (void)state;
    save_world *w = small_world();
    /* "indices" before the entities: the head pass stops there, so the count
     * of entities is known only at the end. */
    fails(w, HEAD "\"indices\": 3, \"free\": [], \"entities\": [{\"id\": 4294967296}]}", STRATA_ERR_CORRUPT, 1, 58,
          "3 entity indices, but 1 entities and 0 free");
    fails(w, HEAD "\"indices\": 2, \"entities\": [{\"id\": 4294967296}], \"free\": [[0, 1]]}", STRATA_ERR_CORRUPT, 0, 0,
          "free[0]: an invalid or repeated [index, generation]");
    fails(w, HEAD "\"indices\": 1, \"entities\": [], \"free\": 3}", STRATA_ERR_CORRUPT, 0, 0,
          "expected a list of [index, generation] pairs");
    save_world_destroy(w);
}

/* One entity whose Everything has `fields` (JSON members). */
static const char *everything(char *buf, size_t size, const char *fields) {
    snprintf(buf, size, HEAD "\"entities\": [{\"id\": 4294967296, \"components\": {\"Everything\": {%s}}}]}", fields);
    return buf;
}

static void test_save_json_integers_at_their_limits(void **state) {
    (void)state;
    char text[512];
    save_world *w = save_world_create(NULL);
    strata_load_report_t report;
    everything(text, sizeof text,
               "\"huge\": -9223372036854775808, \"ulong\": 18446744073709551615, \"small\": -128, \"ubyte\": -0");
    if (save_world_load_json_mem(w, text, strlen(text), &report) != STRATA_OK) {
        fail_msg("%s", report.error);
    }
    const save_everything *v = save_everything_get(w, (save_entity){(uint64_t)1 << 32});
    assert_non_null(v);
    assert_true(v->huge == INT64_MIN);
    assert_true(v->ulong == UINT64_MAX);
    assert_int_equal(v->small, -128);
    assert_int_equal(v->ubyte, 0);
    everything(text, sizeof text, "\"huge\": 9223372036854775807, \"ulong\": \"18446744073709551615\"");
    assert_int_equal(save_world_load_json_mem(w, text, strlen(text), &report), STRATA_OK);
    v = save_everything_get(w, (save_entity){(uint64_t)1 << 32});
    assert_true(v->huge == INT64_MAX);
    assert_true(v->ulong == UINT64_MAX);
    const struct {
        const char *fields, *what;
    } bad[] = {
        {"\"huge\": 9223372036854775808", "9223372036854775808 is out of range for i64"},
        {"\"huge\": -9223372036854775809", "-9223372036854775809 is out of range for i64"},
        {"\"ulong\": 18446744073709551616", "18446744073709551616 is out of range for u64"},
        {"\"ulong\": 123456789012345678901234567890", "is out of range for u64"},
        {"\"ulong\": \"18446744073709551616\"", "expected an unsigned integer"},
        {"\"small\": -129", "-129 is out of range for i8"},
        {"\"ubyte\": -1", "-1 is out of range for u8"},
        {"\"large\": 1.0", "expected an integer"},
        {"\"large\": 1e3", "expected an integer"},
        {"\"single\": 1e39", "out of range for f32"},
        {"\"label\": \"a\\u0000b\"", "\\u0000 is not allowed"},
        {"\"codes\": [1, 2, 3, 4, 5]", "more than 4 values; the field holds 4"},
        {"\"flag\": 1", "expected true or false"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fails(w, everything(text, sizeof text, bad[i].fields), STRATA_ERR_CORRUPT, 0, 0, bad[i].what);
    }
    save_world_destroy(w);
}

static void test_save_json_doubles_are_the_nearest_to_their_text(void **state) {
    (void)state;
    /* Short decimals (read directly) and long ones, extremes, denormals and
     * halfway cases (read by strtod). */
    const char *numbers[] = {
        "0.1",
        "-0.0",
        "0",
        "1e22",
        "1e23",
        "1e-22",
        "1e-23",
        "123456789012345",
        "1234567890123456",
        "9007199254740993",
        "0.30000000000000004",
        "5e-324",
        "2.4703282292062327e-324",
        "2.2250738585072011e-308",
        "2.2250738585072014e-308",
        "1.7976931348623157e308",
        "1.00000000000000011102230246251565404236316680908203125",
        "-499999.5",
        "3.4028234663852886e38",
        "0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
    };
    char text[512], fields[256];
    save_world *w = save_world_create(NULL);
    strata_load_report_t report;
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        double expected = strtod(numbers[i], NULL);
        bool single = fabs(expected) <= FLT_MAX; /* beyond, an f32 refuses it */
        snprintf(fields, sizeof fields, "\"dbl\": %s, \"single\": %s", numbers[i], single ? numbers[i] : "0");
        everything(text, sizeof text, fields);
        if (save_world_load_json_mem(w, text, strlen(text), &report) != STRATA_OK) {
            fail_msg("%s: %s", numbers[i], report.error);
        }
        const save_everything *v = save_everything_get(w, (save_entity){(uint64_t)1 << 32});
        if (memcmp(&v->dbl, &expected, sizeof expected) != 0 || (single && v->single != (float)expected)) {
            fail_msg("%s read as %a, not %a", numbers[i], v->dbl, expected);
        }
    }
    save_world_destroy(w);
}

static void test_save_json_every_truncation_is_an_error(void **state) {
    (void)state;
    save_world *source = small_world();
    char *text = json_text(source);
    save_world *w = small_world();
    size_t size = 0;
    unsigned char *before = save_bytes(w, &size);
    size_t len = strlen(text);
    /* Every prefix short of the closing brace. */
    for (size_t n = 0; n + 2 < len; n++) {
        strata_load_report_t report;
        strata_result_t r = save_world_load_json_mem(w, text, n, &report);
        if (r == STRATA_OK || report.offset > n || report.line == 0 || report.column == 0) {
            fail_msg("%zu bytes: %s at %u:%u", n, strata_result_str(r), report.line, report.column);
        }
        size_t after_size = 0;
        unsigned char *after = save_bytes(w, &after_size);
        assert_int_equal(after_size, size);
        assert_memory_equal(after, before, size);
        free(after);
    }
    free(before);
    free(text);
    save_world_destroy(w);
    save_world_destroy(source);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_save_json_repeated_keys_are_errors),
        cmocka_unit_test(test_save_json_nesting_is_limited),
        cmocka_unit_test(test_save_json_root_members_in_any_order),
        cmocka_unit_test(test_save_json_index_count_is_checked_once_the_entities_are_read),
        cmocka_unit_test(test_save_json_integers_at_their_limits),
        cmocka_unit_test(test_save_json_doubles_are_the_nearest_to_their_text),
        cmocka_unit_test(test_save_json_every_truncation_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Tests of saves, JSON and assemblages on tests/schema/save.yaml: round
 * trips of every field type, entity references, atomic files, and loads of
 * truncated, corrupt and foreign data that must leave the world untouched.
 * Loading saves of this world into its version 2 is test_save_evolve.c. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
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

#include "save.h"
#include "save_crc.h"
#include "save_text.h"

/* --- Helpers -------------------------------------------------------------- */

/* A world with a bit of everything: every field type, entity references,
 * tags, destroyed entities (a free list), several archetypes, resources. */
static save_world *make_world(save_entity out[8]) {
    save_world *w = save_world_create(NULL);
    assert_non_null(w);
    save_entity e[8];
    for (int i = 0; i < 8; i++) {
        e[i] = save_entity_create(w);
    }
    save_position_add(w, e[0], (save_position){1.5f, -2.25f});
    save_velocity_add(w, e[0], SAVE_VELOCITY_DEFAULT);
    save_health_add(w, e[1], (save_health){-7, 3000});
    save_name_add(w, e[1], (save_name){"hero \"q\"\n"});
    save_target_add(w, e[1], (save_target){e[0], 0.5f});
    save_target_add(w, e[2], (save_target){e[1], 2.0f});
    save_frozen_add(w, e[2]);
    save_old_add(w, e[3], (save_old){42});
    save_legacy_add(w, e[3]);
    save_appearance_add(w, e[4], (save_appearance){{1, 2, 3, 4}, 0.1f, SAVE_SHAPE_TRIANGLE});
    save_everything v = SAVE_EVERYTHING_DEFAULT;
    v.flag = true;
    v.small = -128;
    v.medium = -30000;
    v.large = -2000000000;
    v.huge = INT64_MIN;
    v.ubyte = 255;
    v.ushort = 65535;
    v.uint = 4000000000u;
    v.ulong = UINT64_MAX;
    v.single = 0.1f;
    v.dbl = -1e300;
    v.who = e[4];
    v.shape = SAVE_SHAPE_TRIANGLE;
    v.tint = (save_color){9, 8, 7, 6};
    memcpy(v.label, "1234567", 8);
    v.path[1] = (save_vec2){3.0f, 4.0f};
    v.codes[3] = 999;
    save_everything_add(w, e[5], v);
    save_position_add(w, e[5], (save_position){5, 6});
    /* Freed indices: their generations and the free list's order must survive. */
    assert_int_equal(save_entity_destroy(w, e[6]), STRATA_OK);
    assert_int_equal(save_entity_destroy(w, e[7]), STRATA_OK);
    save_entity again = save_entity_create(w); /* index 7, generation 2 */
    assert_int_equal(save_entity_destroy(w, again), STRATA_OK);
    save_score_res(w)->value = -12;
    save_score_res(w)->best = 77;
    save_config_res(w)->seed = 0xfedcba9876543210u;
    memcpy(save_config_res(w)->label, "seven", 6);
    save_obsolete_res(w)->x = 0.25f;
    if (out != NULL) {
        memcpy(out, e, sizeof e);
    }
    return w;
}


/* True if the world's save and JSON are exactly `bytes` and `json`. */
static void assert_world_is(const save_world *w, const unsigned char *bytes, size_t size, const char *json) {
    size_t now_size = 0;
    unsigned char *now = save_bytes(w, &now_size);
    assert_int_equal(now_size, size);
    assert_memory_equal(now, bytes, size);
    free(now);
    char *text = json_text(w);
    assert_string_equal(text, json);
    free(text);
}

/* Recompute the checksum of a save (it covers every byte from offset 28). */
static void reseal(unsigned char *save, size_t size) {
    uint32_t crc = crc32_of(save + 28, size - 28);
    for (int i = 0; i < 4; i++) {
        save[24 + i] = (unsigned char)(crc >> (8 * i));
    }
}

static int setup(void **state) {
    *state = make_world(NULL);
    return 0;
}

static int teardown(void **state) {
    save_world_destroy(*state);
    return 0;
}

/* --- Binary saves ---------------------------------------------------------- */

static void test_save_round_trip_is_byte_identical(void **state) {
    save_world *w = *state;
    size_t size = 0;
    unsigned char *first = save_bytes(w, &size);
    char *json = json_text(w);
    save_world *loaded = save_world_create(NULL);
    strata_load_report_t report;
    assert_int_equal(save_world_load_mem(loaded, first, size, &report), STRATA_OK);
    assert_string_equal(report.error, "");
    assert_string_equal(report.schema, "save");
    assert_int_equal(report.schema_version, 1);
    assert_int_equal(report.entities, 6);
    assert_int_equal(report.change_count, 0);
    assert_world_is(loaded, first, size, json);
    free(first);
    free(json);
    save_world_destroy(loaded);
}

static void test_save_values_of_every_field_type_survive(void **state) {
    (void)state;
    save_entity e[8];
    save_world *w = make_world(e);
    size_t size = 0;
    unsigned char *bytes = save_bytes(w, &size);
    save_world_destroy(w);
    save_world *loaded = save_world_create(NULL);
    assert_int_equal(save_world_load_mem(loaded, bytes, size, NULL), STRATA_OK);
    free(bytes);
    const save_everything *v = save_everything_get(loaded, e[5]);
    assert_non_null(v);
    assert_true(v->flag);
    assert_int_equal(v->small, -128);
    assert_int_equal(v->medium, -30000);
    assert_int_equal(v->large, -2000000000);
    assert_true(v->huge == INT64_MIN);
    assert_int_equal(v->ubyte, 255);
    assert_int_equal(v->ushort, 65535);
    assert_int_equal(v->uint, 4000000000u);
    assert_true(v->ulong == UINT64_MAX);
    assert_true(v->single == 0.1f);
    assert_true(v->dbl == -1e300);
    assert_true(save_entity_eq(v->who, e[4]));
    assert_int_equal(v->shape, SAVE_SHAPE_TRIANGLE);
    assert_int_equal(v->tint.a, 6);
    assert_string_equal(v->label, "1234567");
    assert_true(v->path[1].y == 4.0f);
    assert_int_equal(v->codes[0], 1);
    assert_int_equal(v->codes[3], 999);
    assert_string_equal(save_name_get(loaded, e[1])->text, "hero \"q\"\n");
    assert_int_equal(save_health_get(loaded, e[1])->max, 3000);
    assert_true(save_frozen_has(loaded, e[2]));
    assert_false(save_position_has(loaded, e[2]));
    assert_int_equal(save_score_res(loaded)->value, -12);
    assert_true(save_config_res(loaded)->seed == 0xfedcba9876543210u);
    assert_string_equal(save_config_res(loaded)->label, "seven");
    save_world_destroy(loaded);
}

static void test_save_entity_references_survive(void **state) {
    (void)state;
    save_entity e[8];
    save_world *w = make_world(e);
    size_t size = 0;
    unsigned char *bytes = save_bytes(w, &size);
    save_world *loaded = save_world_create(NULL);
    /* Entities already in the target do not shift the loaded ids. */
    save_entity_create(loaded);
    save_entity_create(loaded);
    assert_int_equal(save_world_load_mem(loaded, bytes, size, NULL), STRATA_OK);
    free(bytes);
    save_entity who = save_target_get(loaded, e[2])->who;
    assert_true(save_entity_eq(who, e[1]));
    assert_true(save_entity_eq(save_target_get(loaded, who)->who, e[0]));
    assert_true(save_position_get(loaded, e[0])->x == 1.5f);
    /* Destroyed handles stay stale, and new entities get the ids the
     * original world would have given them (free list order and generations). */
    assert_false(save_entity_alive(loaded, e[6]));
    assert_false(save_entity_alive(loaded, e[7]));
    for (int i = 0; i < 3; i++) {
        save_entity a = save_entity_create(w);
        save_entity b = save_entity_create(loaded);
        assert_true(save_entity_eq(a, b));
    }
    save_world_destroy(w);
    save_world_destroy(loaded);
}

static void test_save_load_replaces_the_world(void **state) {
    save_world *w = *state;
    size_t size = 0;
    unsigned char *bytes = save_bytes(w, &size);
    save_world *other = save_world_create(NULL);
    save_entity stray = save_spawn_rock(other);
    save_score_res(other)->value = 99;
    assert_int_equal(save_world_load_mem(other, bytes, size, NULL), STRATA_OK);
    strata_world_stats_t stats;
    save_world_stats(other, &stats);
    assert_int_equal(stats.entities, 6);
    assert_int_equal(save_score_res(other)->value, -12);
    /* The stray's index is used by a loaded entity of another generation, or free. */
    assert_false(save_frozen_has(other, stray) && save_appearance_has(other, stray));
    free(bytes);
    save_world_destroy(other);
}

static void test_save_mem_reports_the_size_needed(void **state) {
    save_world *w = *state;
    size_t size = 0;
    assert_int_equal(save_world_save_mem(w, NULL, 0, &size), STRATA_ERR_LIMIT);
    assert_true(size > 40);
    unsigned char *buf = malloc(size);
    size_t got = 0;
    assert_int_equal(save_world_save_mem(w, buf, size - 1, &got), STRATA_ERR_LIMIT);
    assert_int_equal(got, size);
    assert_int_equal(save_world_save_mem(w, buf, size, &got), STRATA_OK);
    assert_memory_equal(buf, "\x89STRATA\n", 8);
    free(buf);
}

static void test_save_file_round_trip_leaves_no_temporary(void **state) {
    save_world *w = *state;
    char dir[] = "/tmp/strata-save-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], tmp[140];
    snprintf(path, sizeof path, "%s/game.sav", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    assert_int_equal(save_world_save(w, path), STRATA_OK);
    assert_int_equal(access(tmp, F_OK), -1);
    save_world *loaded = save_world_create(NULL);
    strata_load_report_t report;
    assert_int_equal(save_world_load(loaded, path, &report), STRATA_OK);
    size_t size = 0;
    unsigned char *bytes = save_bytes(w, &size);
    char *json = json_text(w);
    assert_world_is(loaded, bytes, size, json);
    free(bytes);
    free(json);
    /* Saving again replaces the file. */
    save_entity_create(loaded);
    assert_int_equal(save_world_save(loaded, path), STRATA_OK);
    assert_int_equal(save_world_load(w, path, NULL), STRATA_OK);
    strata_world_stats_t stats;
    save_world_stats(w, &stats);
    assert_int_equal(stats.entities, 7);
    save_world_destroy(loaded);
    remove(path);
    rmdir(dir);
}

static void test_save_failed_save_keeps_the_old_file(void **state) {
    save_world *w = *state;
    char dir[] = "/tmp/strata-save-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], tmp[140], inner[160];
    /* A non-empty directory where the save should go: the rename fails. */
    snprintf(path, sizeof path, "%s/slot", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    snprintf(inner, sizeof inner, "%s/keep", path);
    assert_int_equal(mkdir(path, 0700), 0);
    FILE *f = fopen(inner, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(save_world_save(w, path), STRATA_ERR_IO);
    assert_int_equal(access(tmp, F_OK), -1);
    assert_int_equal(access(inner, F_OK), 0);
    /* A directory that does not exist. */
    snprintf(path, sizeof path, "%s/missing/game.sav", dir);
    assert_int_equal(save_world_save(w, path), STRATA_ERR_IO);
    strata_load_report_t report;
    assert_int_equal(save_world_load(w, path, &report), STRATA_ERR_IO);
    assert_non_null(strstr(report.error, "missing/game.sav"));
    remove(inner);
    snprintf(path, sizeof path, "%s/slot", dir);
    rmdir(path);
    rmdir(dir);
}

/* --- Bad data leaves the world untouched ------------------------------------ */

static void test_save_every_truncation_is_rejected(void **state) {
    save_world *w = *state;
    size_t size = 0;
    unsigned char *bytes = save_bytes(w, &size);
    char *json = json_text(w);
    for (size_t n = 0; n < size; n++) {
        strata_load_report_t report;
        strata_result_t r = save_world_load_mem(w, bytes, n, &report);
        if (r != STRATA_ERR_CORRUPT) {
            fail_msg("a save cut to %zu of %zu bytes gave %s", n, size, strata_result_str(r));
        }
        assert_true(strstr(report.error, "truncated") != NULL);
        assert_int_equal(report.entities, 0);
    }
    assert_world_is(w, bytes, size, json);
    free(bytes);
    free(json);
}

static void test_save_every_corrupt_byte_is_rejected(void **state) {
    save_world *w = *state;
    size_t size = 0;
    unsigned char *bytes = save_bytes(w, &size);
    char *json = json_text(w);
    unsigned char *bad = malloc(size);
    for (size_t i = 0; i < size; i++) {
        memcpy(bad, bytes, size);
        bad[i] ^= 0x5a;
        strata_load_report_t report;
        strata_result_t r = save_world_load_mem(w, bad, size, &report);
        if (r != STRATA_ERR_CORRUPT) {
            fail_msg("a save with byte %zu changed gave %s", i, strata_result_str(r));
        }
        assert_true(report.error[0] != '\0');
    }
    assert_world_is(w, bytes, size, json);
    free(bad);
    free(bytes);
    free(json);
}

static void test_save_structural_damage_is_reported_with_its_offset(void **state) {
    save_world *w = *state;
    size_t size = 0;
    unsigned char *bytes = save_bytes(w, &size);
    char *json = json_text(w);
    /* A valid checksum over a broken body: the parser itself must object.
     * The last 8 bytes hold a resource (Obsolete.x and Config...); damage
     * the entity index instead: find "the free list" by changing the count. */
    unsigned char *bad = malloc(size + 8);
    memcpy(bad, bytes, size);
    /* Appending bytes (and fixing the size) gives trailing data. */
    memset(bad + size, 0, 8);
    for (int i = 0; i < 8; i++) {
        bad[16 + i] = (unsigned char)((uint64_t)(size + 8) >> (8 * i));
    }
    reseal(bad, size + 8);
    strata_load_report_t report;
    assert_int_equal(save_world_load_mem(w, bad, size + 8, &report), STRATA_ERR_CORRUPT);
    assert_non_null(strstr(report.error, "data after the end"));
    assert_int_equal(report.offset, size);
    char expected[64];
    snprintf(expected, sizeof expected, "offset %zu: ", size);
    assert_true(strncmp(report.error, expected, strlen(expected)) == 0);
    assert_world_is(w, bytes, size, json);
    free(bad);
    free(bytes);
    free(json);
}

static void test_save_foreign_files_are_rejected(void **state) {
    save_world *w = *state;
    size_t size = 0;
    unsigned char *bytes = save_bytes(w, &size);
    char *json = json_text(w);
    static const char png[50] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    const char *foreign[] = {"", "hello, world\n", "{\"strata\": 1}", png};
    size_t lengths[] = {0, 13, 13, 50};
    for (size_t i = 0; i < 4; i++) {
        strata_load_report_t report;
        assert_int_equal(save_world_load_mem(w, foreign[i], lengths[i], &report), STRATA_ERR_CORRUPT);
        assert_true(report.error[0] != '\0');
        if (lengths[i] >= 8) {
            assert_non_null(strstr(report.error, "not a Strata save"));
        }
    }
    /* A save of another world (its name changed, the checksum fixed). */
    unsigned char *other = malloc(size);
    memcpy(other, bytes, size);
    assert_memory_equal(other + 42, "save", 4);
    memcpy(other + 42, "evas", 4);
    reseal(other, size);
    strata_load_report_t report;
    assert_int_equal(save_world_load_mem(w, other, size, &report), STRATA_ERR_SCHEMA);
    assert_non_null(strstr(report.error, "'evas'"));
    /* A format from the future. */
    memcpy(other, bytes, size);
    other[8] = 3;
    assert_int_equal(save_world_load_mem(w, other, size, &report), STRATA_ERR_CORRUPT);
    assert_non_null(strstr(report.error, "format 3"));
    assert_world_is(w, bytes, size, json);
    free(other);
    free(bytes);
    free(json);
}

/* An allocator that fails after `budget` allocations. */
static long budget;

static void *limited_alloc(size_t size, void *user) {
    (void)user;
    return budget-- > 0 ? malloc(size) : NULL;
}

static void *limited_realloc(void *p, size_t old_size, size_t size, void *user) {
    (void)old_size;
    (void)user;
    return budget-- > 0 ? realloc(p, size) : NULL;
}

static void limited_free(void *p, size_t size, void *user) {
    (void)size;
    (void)user;
    free(p);
}

static void test_save_load_out_of_memory_leaves_the_world(void **state) {
    save_world *source = *state;
    size_t size = 0;
    unsigned char *bytes = save_bytes(source, &size);
    budget = 1L << 30;
    save_world *w = save_world_create(&(
        strata_world_desc_t){.allocator = {limited_alloc, limited_realloc, limited_free, NULL}, .initial_capacity = 4});
    assert_non_null(w);
    save_spawn_hero(w);
    size_t before_size = 0;
    unsigned char *before = save_bytes(w, &before_size);
    char *before_json = json_text(w);
    bool loaded = false;
    for (long n = 0; n < 1000 && !loaded; n++) {
        budget = n;
        strata_load_report_t report;
        strata_result_t r = save_world_load_mem(w, bytes, size, &report);
        budget = 1L << 30;
        if (r == STRATA_OK) {
            loaded = true;
            break;
        }
        assert_int_equal(r, STRATA_ERR_NOMEM);
        assert_world_is(w, before, before_size, before_json);
    }
    assert_true(loaded);
    char *json = json_text(source);
    assert_world_is(w, bytes, size, json);
    free(json);
    free(before);
    free(before_json);
    free(bytes);
    save_world_destroy(w);
}

/* --- JSON ------------------------------------------------------------------ */

static void test_save_entity_json_is_one_line(void **state) {
    (void)state;
    save_entity e[8];
    save_world *w = make_world(e);
    char buf[512];
    size_t n = save_entity_json(w, e[0], buf, sizeof buf);
    assert_string_equal(buf, "{\"id\": 4294967296, \"components\": {\"Position\": {\"x\": 1.5, \"y\": -2.25}, "
                             "\"Velocity\": {\"x\": 1, \"y\": -1}}}");
    assert_int_equal(n, strlen(buf));
    n = save_entity_json(w, e[2], buf, sizeof buf);
    assert_string_equal(buf, "{\"id\": 4294967298, \"components\": {\"Target\": {\"who\": 4294967297, "
                             "\"since\": 2}, \"Frozen\": {}}}");
    /* snprintf style: the length needed, the text cut. */
    char small[10];
    assert_int_equal(save_entity_json(w, e[2], small, sizeof small), n);
    assert_string_equal(small, "{\"id\": 42");
    assert_int_equal(save_entity_json(w, e[6], buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    n = save_entity_json(w, e[1], buf, sizeof buf);
    assert_non_null(strstr(buf, "\"Name\": {\"text\": \"hero \\\"q\\\"\\n\"}"));
    save_world_destroy(w);
}

static void test_save_entity_print_is_indented(void **state) {
    save_world *w = *state;
    save_entity e = save_spawn_rock(w);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(save_entity_print(w, e, f), STRATA_OK);
    fclose(f);
    char expected[600];
    snprintf(expected, sizeof expected,
             "{\n"
             "    \"id\": %llu,\n"
             "    \"components\": {\n"
             "        \"Position\": {\n"
             "            \"x\": 0,\n"
             "            \"y\": 0\n"
             "        },\n"
             "        \"Velocity\": {\n"
             "            \"x\": 0,\n"
             "            \"y\": 0\n"
             "        },\n"
             "        \"Appearance\": {\n"
             "            \"color\": {\n"
             "                \"r\": 0,\n"
             "                \"g\": 255,\n"
             "                \"b\": 0,\n"
             "                \"a\": 255\n"
             "            },\n"
             "            \"size\": 5,\n"
             "            \"shape\": \"square\"\n"
             "        },\n"
             "        \"Frozen\": {}\n"
             "    }\n"
             "}\n",
             (unsigned long long)e.id);
    assert_string_equal(text, expected);
    free(text);
    save_entity_destroy(w, e);
    assert_int_equal(save_entity_print(w, e, stdout), STRATA_ERR_STALE);
}

static void test_save_json_round_trip_is_byte_identical(void **state) {
    save_world *w = *state;
    char *json = json_text(w);
    size_t size = 0;
    unsigned char *bytes = save_bytes(w, &size);
    save_world *loaded = save_world_create(NULL);
    strata_load_report_t report;
    if (save_world_load_json_mem(loaded, json, strlen(json), &report) != STRATA_OK) {
        fail_msg("%s", report.error);
    }
    assert_int_equal(report.entities, 6);
    assert_int_equal(report.change_count, 0);
    /* The JSON and the binary save of the loaded world are those of the original. */
    assert_world_is(loaded, bytes, size, json);
    free(bytes);
    free(json);
    save_world_destroy(loaded);
}

/* Regression: a char[N] holding bytes that are not UTF-8 was dumped with
 * each such byte as a Latin-1 character, which loads back as two bytes of
 * UTF-8: the value changed, or no longer fit and the dump did not load. */
static void test_save_json_keeps_bytes_that_are_not_utf8(void **state) {
    (void)state;
    save_world *w = save_world_create(NULL);
    /* Lone high bytes, and a private-use character (U+F7A9) the encoding uses for them. */
    const char text[16] = "\xe9t\xe9\xff\xef\x9e\xa9!\xc3\xa9\x80\x7f";
    save_name name;
    memcpy(name.text, text, sizeof text);
    save_entity e = save_entity_create(w);
    assert_int_equal(save_name_add(w, e, name), STRATA_OK);
    char *json = json_text(w);
    save_world *loaded = save_world_create(NULL);
    strata_load_report_t report;
    if (save_world_load_json_mem(loaded, json, strlen(json), &report) != STRATA_OK) {
        fail_msg("%s", report.error);
    }
    assert_non_null(save_name_get(loaded, e));
    assert_memory_equal(save_name_get(loaded, e)->text, text, sizeof text);
    free(json);
    save_world_destroy(loaded);
    save_world_destroy(w);
}

/* The largest allocation the bounded allocator was asked for; above
 * BOUNDED_MAX it fails instead. */
#define BOUNDED_MAX ((size_t)1 << 24)
static size_t bounded_largest;

static void *bounded_alloc(size_t size, void *user) {
    (void)user;
    bounded_largest = size > bounded_largest ? size : bounded_largest;
    return size > BOUNDED_MAX ? NULL : malloc(size);
}

static void *bounded_realloc(void *p, size_t old_size, size_t size, void *user) {
    (void)old_size;
    (void)user;
    bounded_largest = size > bounded_largest ? size : bounded_largest;
    return size > BOUNDED_MAX ? NULL : realloc(p, size);
}

static void bounded_free(void *p, size_t size, void *user) {
    (void)size;
    (void)user;
    free(p);
}

/* Regression: a JSON dump of a few bytes could name billions of entity
 * indices (in "indices", an id or the free list), and the loader reserved
 * a record for each, gigabytes, before finding that nothing fills them. */
static void test_save_json_huge_index_count_is_rejected_without_allocating(void **state) {
    (void)state;
    strata_world_desc_t desc = {.allocator = {bounded_alloc, bounded_realloc, bounded_free, NULL}};
    save_world *w = save_world_create(&desc);
    assert_non_null(w);
    const char *texts[] = {
        "{\"strata\": 1, \"schema\": \"save\", \"version\": 1, \"indices\": 4000000000, \"free\": [], "
        "\"entities\": []}",
        "{\"strata\": 1, \"schema\": \"save\", \"version\": 1, \"indices\": 400000000, \"entities\": []}",
        "{\"strata\": 1, \"schema\": \"save\", \"version\": 1, "
        "\"entities\": [{\"id\": 8294967295, \"components\": {}}]}",
        "{\"strata\": 1, \"schema\": \"save\", \"version\": 1, \"free\": [[3000000000, 1]], \"entities\": []}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        bounded_largest = 0;
        strata_load_report_t report;
        assert_int_equal(save_world_load_json_mem(w, texts[i], strlen(texts[i]), &report), STRATA_ERR_CORRUPT);
        assert_true(bounded_largest < ((size_t)1 << 20));
        assert_true(strstr(report.error, "indices") != NULL);
    }
    save_world_destroy(w);
}

static void test_save_json_file_round_trip(void **state) {
    save_world *w = *state;
    char dir[] = "/tmp/strata-json-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/world.json", dir);
    assert_int_equal(save_world_save_json(w, path), STRATA_OK);
    save_world *loaded = save_world_create(NULL);
    strata_load_report_t report;
    assert_int_equal(save_world_load_json(loaded, path, &report), STRATA_OK);
    char *a = json_text(w), *b = json_text(loaded);
    assert_string_equal(a, b);
    free(a);
    free(b);
    save_world_destroy(loaded);
    remove(path);
    rmdir(dir);
}

/* Load `text` as JSON into w: the error must name `where` and contain `what`, and w stay as it was. */
static void check_json_error(save_world *w, const char *text, strata_result_t expected, uint32_t line, uint32_t column,
                             const char *what) {
    size_t size = 0;
    unsigned char *bytes = save_bytes(w, &size);
    char *json = json_text(w);
    strata_load_report_t report;
    strata_result_t r = save_world_load_json_mem(w, text, strlen(text), &report);
    if (r != expected || report.line != line || report.column != column || strstr(report.error, what) == NULL) {
        fail_msg("got %s at %u:%u: %s", strata_result_str(r), report.line, report.column, report.error);
    }
    assert_world_is(w, bytes, size, json);
    free(bytes);
    free(json);
}

static void test_save_json_errors_carry_line_and_column(void **state) {
    save_world *w = *state;
    check_json_error(w, "{\n\"strata\": 1,\n\"schema\" \"save\"}", STRATA_ERR_CORRUPT, 3, 15, "separated by a colon");
    check_json_error(w, "[1, 2]", STRATA_ERR_CORRUPT, 1, 1, "expected an object");
    check_json_error(w, "{\"strata\": 1, \"schema\": \"other\", \"version\": 1, \"entities\": []}", STRATA_ERR_SCHEMA,
                     1, 25, "'other'");
    check_json_error(w,
                     "{\"strata\": 1, \"schema\": \"save\", \"version\": 1, \"entities\": [\n"
                     "  {\"id\": 4294967296, \"components\": {\"Position\": {\"x\": \"far\"}}}\n]}",
                     STRATA_ERR_CORRUPT, 2, 55, "Position.x: expected a number");
    check_json_error(w,
                     "{\"strata\": 1, \"schema\": \"save\", \"version\": 1, \"entities\": [\n"
                     "  {\"id\": 4294967296, \"components\": {\"Old\": {\"value\": 256}}}\n]}",
                     STRATA_ERR_CORRUPT, 2, 54, "out of range for u8");
    check_json_error(w,
                     "{\"strata\": 1, \"schema\": \"save\", \"version\": 1, \"entities\": [\n"
                     "  {\"id\": 4294967296, \"components\": {}},\n  {\"id\": 4294967296, \"components\": {}}\n]}",
                     STRATA_ERR_CORRUPT, 3, 3, "used twice");
    check_json_error(w,
                     "{\"strata\": 1, \"schema\": \"save\", \"version\": 1, \"entities\": [\n"
                     "  {\"id\": 4294967296, \"components\": {\"Appearance\": {\"shape\": \"hexagon\"}}}\n]}",
                     STRATA_ERR_CORRUPT, 2, 61, "no member 'hexagon'");
}

static void test_save_json_by_hand_fills_in_the_rest(void **state) {
    (void)state;
    /* No index state and fields left out: the ids as given, the indices
     * between them free (generation 1, ascending), defaults for the rest. */
    const char *text = "{\"schema\": \"save\", \"version\": 1, \"entities\": [\n"
                       "  {\"id\": 4294967298, \"components\": {\"Velocity\": {\"y\": 4}, \"Frozen\": {}}},\n"
                       "  {\"id\": 8589934592, \"components\": {\"Target\": {\"who\": 4294967298}}}\n]}";
    save_world *w = save_world_create(NULL);
    strata_load_report_t report;
    if (save_world_load_json_mem(w, text, strlen(text), &report) != STRATA_OK) {
        fail_msg("%s", report.error);
    }
    save_entity a = {((uint64_t)1 << 32) | 2}, b = {(uint64_t)2 << 32};
    assert_true(save_velocity_get(w, a)->x == 1.0f);
    assert_true(save_velocity_get(w, a)->y == 4.0f);
    assert_true(save_frozen_has(w, a));
    assert_true(save_entity_eq(save_target_get(w, b)->who, a));
    /* Fields left out are reported as taking their defaults. */
    assert_int_equal(report.change_count, 2);
    assert_string_equal(report.changes[0].name, "Velocity.x");
    assert_int_equal(report.changes[0].kind, STRATA_CHANGE_ADDED);
    assert_string_equal(report.changes[1].name, "Target.since");
    save_entity c = save_entity_create(w);
    assert_int_equal(c.id, ((uint64_t)1 << 32) | 1);
    save_world_destroy(w);
}

/* --- Assemblages ---------------------------------------------------------- */

static void test_save_spawn_places_the_entity_in_its_archetype_at_once(void **state) {
    (void)state;
    save_world *w = save_world_create(NULL);
    save_entity rock = save_spawn_rock(w);
    assert_true(save_frozen_has(w, rock));
    assert_true(save_velocity_get(w, rock)->x == 0.0f);
    assert_int_equal(save_appearance_get(w, rock)->color.g, 255);
    assert_int_equal(save_appearance_get(w, rock)->color.a, 255);
    assert_true(save_appearance_get(w, rock)->size == 5.0f);
    assert_false(save_health_has(w, rock));
    strata_world_stats_t stats;
    save_world_stats(w, &stats);
    assert_int_equal(stats.tables, 2); /* the empty table and the rock's: no table on the way */
    save_entity hero = save_spawn_hero(w);
    assert_true(save_velocity_get(w, hero)->x == 1.0f); /* Mover's: the defaults */
    assert_int_equal(save_health_get(w, hero)->value, 100);
    assert_int_equal(save_health_get(w, hero)->max, 300);
    assert_string_equal(save_name_get(w, hero)->text, "hero");
    save_world_stats(w, &stats);
    assert_int_equal(stats.tables, 3);
    save_world_destroy(w);
}

static void test_save_spawn_many_makes_n_entities(void **state) {
    (void)state;
    save_world *w = save_world_create(NULL);
    save_entity out[1000];
    assert_int_equal(save_spawn_mover_many(w, 1000, out), STRATA_OK);
    strata_world_stats_t stats;
    save_world_stats(w, &stats);
    assert_int_equal(stats.entities, 1000);
    assert_int_equal(stats.tables, 2);
    for (int i = 0; i < 1000; i++) {
        assert_true(save_velocity_get(w, out[i])->y == -1.0f);
        assert_true(save_position_has(w, out[i]));
    }
    save_world_destroy(w);
}

/* --- Out of memory ------------------------------------------------------------ */

static long budget; /* allocations left before they fail */

static void *budget_alloc(size_t size, void *user) {
    (void)user;
    return budget-- > 0 ? malloc(size) : NULL;
}

static void *budget_realloc(void *ptr, size_t old_size, size_t size, void *user) {
    (void)user;
    (void)old_size;
    return budget-- > 0 ? realloc(ptr, size) : NULL;
}

static void budget_free(void *ptr, size_t size, void *user) {
    (void)user;
    (void)size;
    free(ptr);
}

/* What "leaves the world as it was" covers (docs/robustness.md): a spawn
 * that fails for lack of memory changes no entity, component, value or
 * pending command, so the save and the dump are byte for byte the same;
 * the tables and capacity it made may stay (stats.tables and stats.bytes
 * only grow, like a reserve), and the retry uses them. */
static void test_save_spawn_out_of_memory_keeps_only_tables_and_capacity(void **state) {
    (void)state;
    const strata_world_desc_t desc = {.allocator = {budget_alloc, budget_realloc, budget_free, NULL},
                                      .initial_capacity = 2};
    budget = LONG_MAX;
    save_world *w = save_world_create(&desc);
    assert_non_null(w);
    save_spawn_mover(w);
    save_spawn_rock(w);
    bool kept_a_table = false;
    for (int what = 0; what < 2; what++) { /* one hero, then a hundred */
        for (long n = 0;; n++) {
            budget = LONG_MAX;
            size_t size = 0;
            unsigned char *bytes = save_bytes(w, &size);
            char *json = json_text(w);
            strata_world_stats_t before, after;
            save_world_stats(w, &before);
            budget = n;
            save_entity many[100];
            bool made = what == 0 ? !save_entity_eq(save_spawn_hero(w), SAVE_ENTITY_NULL)
                                  : save_spawn_hero_many(w, 100, many) == STRATA_OK;
            budget = LONG_MAX;
            save_world_stats(w, &after);
            if (made) {
                assert_int_equal(after.entities, before.entities + (what == 0 ? 1 : 100));
                free(bytes);
                free(json);
                break;
            }
            assert_world_is(w, bytes, size, json);
            assert_int_equal(after.entities, before.entities);
            assert_int_equal(after.pending, before.pending);
            assert_true(after.tables >= before.tables);
            assert_true(after.bytes >= before.bytes);
            kept_a_table = kept_a_table || after.tables > before.tables;
            free(bytes);
            free(json);
        }
    }
    assert_true(kept_a_table); /* the case the rule is written for did arise */
    strata_world_stats_t stats;
    save_world_stats(w, &stats);
    assert_int_equal(stats.tables, 4); /* the empty table, the mover's, the rock's, the hero's: none twice */
    save_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_save_round_trip_is_byte_identical, setup, teardown),
        cmocka_unit_test(test_save_values_of_every_field_type_survive),
        cmocka_unit_test(test_save_entity_references_survive),
        cmocka_unit_test_setup_teardown(test_save_load_replaces_the_world, setup, teardown),
        cmocka_unit_test_setup_teardown(test_save_mem_reports_the_size_needed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_save_file_round_trip_leaves_no_temporary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_save_failed_save_keeps_the_old_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_save_every_truncation_is_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_save_every_corrupt_byte_is_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_save_structural_damage_is_reported_with_its_offset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_save_foreign_files_are_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_save_load_out_of_memory_leaves_the_world, setup, teardown),
        cmocka_unit_test(test_save_entity_json_is_one_line),
        cmocka_unit_test_setup_teardown(test_save_entity_print_is_indented, setup, teardown),
        cmocka_unit_test_setup_teardown(test_save_json_round_trip_is_byte_identical, setup, teardown),
        cmocka_unit_test(test_save_json_keeps_bytes_that_are_not_utf8),
        cmocka_unit_test(test_save_json_huge_index_count_is_rejected_without_allocating),
        cmocka_unit_test_setup_teardown(test_save_json_file_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_save_json_errors_carry_line_and_column, setup, teardown),
        cmocka_unit_test(test_save_json_by_hand_fills_in_the_rest),
        cmocka_unit_test(test_save_spawn_places_the_entity_in_its_archetype_at_once),
        cmocka_unit_test(test_save_spawn_many_makes_n_entities),
        cmocka_unit_test(test_save_spawn_out_of_memory_keeps_only_tables_and_capacity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

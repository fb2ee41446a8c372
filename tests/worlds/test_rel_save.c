/* Tests of the links of non-exclusive relations in saves (tests/schema/rel.yaml,
 * and rel2.yaml, its version 2): binary and JSON round trips with thousands
 * of targets and with none, links to entities a save does not hold, corrupt
 * counts, saves of format 1, and a relation renamed or dropped.
 * `test_rel_save --shard K/N` runs the K-th of N parts of the out-of-memory
 * sweep (each test variant of `ninja test` its own). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_alloc.h"

#include "rel.h"
#include "save_crc.h"
#include "rel2.h"

/* The rel world's system and hook: these tests run no step and remove no Guard. */
void rel_spread_run(rel_spread_ctx *ctx) {
    while (rel_spread_next(ctx)) {}
}

void rel_guard_on_remove(rel_world *w, rel_entity e) {
    (void)w;
    (void)e;
}

enum { MANY = 3000 };

/* The world every test saves: hub links to MANY others (Targets), pair to
 * two (Targets) and follows hub (Follows), lone has no link, kid is a
 * ChildOf of hub. */
typedef struct scene {
    rel_entity hub, pair, lone, kid, gone;
    rel_entity many[MANY];
} scene;

static rel_entity make(rel_world *w) {
    rel_entity e = rel_entity_create(w);
    assert_false(rel_entity_eq(e, REL_ENTITY_NULL));
    return e;
}

static void build(rel_world *w, scene *s) {
    s->hub = make(w);
    s->pair = make(w);
    s->lone = make(w);
    s->kid = make(w);
    s->gone = make(w);
    for (int i = 0; i < MANY; i++) {
        s->many[i] = make(w);
        assert_int_equal(rel_targets_add(w, s->hub, s->many[i]), STRATA_OK);
    }
    assert_int_equal(rel_targets_add(w, s->pair, s->many[7]), STRATA_OK);
    assert_int_equal(rel_targets_add(w, s->pair, s->hub), STRATA_OK);
    assert_int_equal(rel_targets_add(w, s->lone, s->pair), STRATA_OK);
    assert_int_equal(rel_targets_remove(w, s->lone, s->pair), STRATA_OK); /* zero targets: no tag */
    assert_int_equal(rel_follows_add(w, s->pair, s->hub), STRATA_OK);
    assert_int_equal(rel_child_of_set(w, s->kid, s->hub), STRATA_OK);
    /* A destroyed entity: its index is free in the save. */
    assert_int_equal(rel_targets_add(w, s->gone, s->hub), STRATA_OK);
    assert_int_equal(rel_entity_destroy(w, s->gone), STRATA_OK);
}

/* A binary save of w (malloc'd, *size bytes). */
static unsigned char *save_of(const rel_world *w, size_t *size);
/* A JSON dump of w (malloc'd, NUL-terminated, *size bytes). */
static char *json_of(const rel_world *w, size_t *size);

/* Each test's world of `build`, its binary save and its JSON dump. */
typedef struct saved {
    rel_world *w;
    scene *s;
    unsigned char *buf;
    size_t size;
    char *text;
    size_t jsize;
} saved;

static int setup(void **state) {
    saved *f = calloc(1, sizeof *f);
    f->w = rel_world_create(NULL);
    f->s = malloc(sizeof *f->s);
    build(f->w, f->s);
    f->buf = save_of(f->w, &f->size);
    f->text = json_of(f->w, &f->jsize);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    saved *f = *state;
    free(f->text);
    free(f->buf);
    free(f->s);
    rel_world_destroy(f->w);
    free(f);
    return 0;
}

/* A binary save of w (malloc'd, *size bytes). */
static unsigned char *save_of(const rel_world *w, size_t *size) {
    assert_int_equal(rel_world_save_mem(w, NULL, 0, size), STRATA_ERR_LIMIT);
    unsigned char *buf = malloc(*size);
    assert_int_equal(rel_world_save_mem(w, buf, *size, size), STRATA_OK);
    return buf;
}

static char *json_of(const rel_world *w, size_t *size) {
    assert_int_equal(rel_world_dump_json_mem(w, NULL, 0, size), STRATA_ERR_LIMIT);
    char *text = malloc(*size + 1);
    assert_int_equal(rel_world_dump_json_mem(w, text, *size + 1, size), STRATA_OK);
    text[*size] = '\0';
    return text;
}

/* Load f's save into v: pass 0 the binary one, pass 1 the JSON dump. */
static rel_result_t load_either(rel_world *v, const saved *f, int pass, rel_load_report_t *report) {
    return pass == 0 ? rel_world_load_mem(v, f->buf, f->size, report)
                     : rel_world_load_json_mem(v, f->text, f->jsize, report);
}

/* True if the two lists hold the same handles in the same order. */
static bool same_list(const rel_entity *a, uint32_t na, const rel_entity *b, uint32_t nb) {
    return na == nb && (na == 0 || memcmp(a, b, sizeof *a * na) == 0);
}

/* v holds the links of s as w does. */
static void check_links(const rel_world *w, const rel_world *v, const scene *s) {
    rel_entity who[] = {s->hub, s->pair, s->lone, s->kid, s->many[0], s->many[7], s->many[MANY - 1]};
    for (size_t i = 0; i < sizeof who / sizeof who[0]; i++) {
        uint32_t na = 0, nb = 0;
        const rel_entity *a = rel_targets_targets(w, who[i], &na);
        const rel_entity *b = rel_targets_targets(v, who[i], &nb);
        assert_true(same_list(a, na, b, nb));
        a = rel_follows_targets(w, who[i], &na);
        b = rel_follows_targets(v, who[i], &nb);
        assert_true(same_list(a, na, b, nb));
        rel_targets_sources(w, who[i], &na);
        rel_targets_sources(v, who[i], &nb);
        assert_int_equal(na, nb);
    }
    uint32_t n = 0;
    assert_int_equal(rel_targets_targets(v, s->hub, &n)[MANY - 1].id, s->many[MANY - 1].id);
    assert_int_equal(n, MANY);
    assert_null(rel_targets_targets(v, s->lone, &n));
    assert_int_equal(n, 0);
    assert_int_equal(rel_targeting_count(v), 2); /* hub and pair have the tag; lone does not */
    assert_true(rel_targets_has(v, s->pair, s->hub));
    const rel_entity *up = rel_targets_sources(v, s->hub, &n);
    assert_int_equal(n, 1);
    assert_true(rel_entity_eq(up[0], s->pair));
    assert_true(rel_entity_eq(rel_child_of_target(v, s->kid), s->hub));
}

static void test_rel_save_many_to_many_links_survive_binary_and_json(void **state) {
    saved *f = *state;
    rel_world *w = f->w;
    const scene *s = f->s;
    const unsigned char *buf = f->buf;
    size_t size = f->size;
    const char *text = f->text;
    /* JSON shows the links as the component's value. */
    char expect[160];
    snprintf(expect, sizeof expect, "\"Targets\": {\"targets\": [%llu, %llu]}", (unsigned long long)s->many[7].id,
             (unsigned long long)s->hub.id);
    assert_non_null(strstr(text, expect));
    snprintf(expect, sizeof expect, "\"Follows\": {\"targets\": [%llu]}", (unsigned long long)s->hub.id);
    assert_non_null(strstr(text, expect));
    for (int pass = 0; pass < 2; pass++) {
        /* cmocka's allocator: a leak of the loaded index is reported. */
        rel_world *v = rel_world_create(
            &(rel_world_desc_t){.allocator = {test_alloc, test_resize, test_release, NULL}});
        rel_load_report_t report;
        rel_result_t r = load_either(v, f, pass, &report);
        assert_int_equal(r, STRATA_OK);
        assert_int_equal(report.change_count, 0);
        check_links(w, v, s);
        /* Saving the loaded world gives the same bytes. */
        size_t again_size = 0;
        unsigned char *again = save_of(v, &again_size);
        assert_int_equal(again_size, size);
        assert_memory_equal(again, buf, size);
        free(again);
        char *again_text = json_of(v, &again_size);
        assert_string_equal(again_text, text);
        free(again_text);
        /* The loaded index works: the policies and the API use it. */
        assert_int_equal(rel_targets_remove(v, s->pair, s->many[7]), STRATA_OK);
        assert_int_equal(rel_entity_destroy(v, s->hub), STRATA_OK);
        assert_false(rel_entity_alive(v, s->pair)); /* Follows: destroy */
        assert_false(rel_entity_alive(v, s->kid));  /* ChildOf: destroy */
        uint32_t n = 0;
        assert_null(rel_targets_sources(v, s->many[0], &n));
        rel_world_destroy(v);
    }
}

/* --- Binary saves edited by hand -------------------------------------------------- */

static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static void put64(unsigned char *p, uint64_t v) {
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Fix the size and checksum of an edited save. */
static void reseal(unsigned char *save, size_t size) {
    put64(save + 16, size);
    put32(save + 24, crc32_of(save + 28, size - 28));
}

/* The offset of relation `name`'s source count in a save's link section:
 * the name's last appearance (the layout lists it first). */
static size_t links_of(const unsigned char *save, size_t size, const char *name) {
    size_t len = strlen(name), found = 0;
    for (size_t i = 0; i + 2 + len <= size; i++) {
        if (save[i] == len && save[i + 1] == 0 && memcmp(save + i + 2, name, len) == 0) {
            found = i + 2 + len;
        }
    }
    assert_true(found > 0);
    return found;
}

/* w's JSON dump is still `before`. */
static void unchanged(const rel_world *w, const char *before) {
    size_t n = 0;
    char *after = json_of(w, &n);
    assert_string_equal(after, before);
    free(after);
}

/* The load of an edited save fails with `code`, its error naming each of
 * `words`, and w is as it was (its JSON dump `before`). */
static void refused(rel_world *w, const unsigned char *save, size_t size, rel_result_t code, const char *before,
                    const char *const *words, size_t n) {
    rel_load_report_t report;
    assert_int_equal(rel_world_load_mem(w, save, size, &report), code);
    for (size_t i = 0; i < n; i++) {
        if (strstr(report.error, words[i]) == NULL) {
            fail_msg("'%s' is not in \"%s\"", words[i], report.error);
        }
    }
    unchanged(w, before);
}

static void test_rel_save_link_to_a_missing_entity_is_refused(void **state) {
    saved *f = *state;
    rel_world *w = f->w;
    const scene *s = f->s;
    const unsigned char *buf = f->buf;
    size_t size = f->size;
    const char *before = f->text;
    char pair[32], gone[32], huge[32];
    snprintf(pair, sizeof pair, "%llu", (unsigned long long)s->pair.id);
    snprintf(gone, sizeof gone, "%llu", (unsigned long long)s->gone.id);
    snprintf(huge, sizeof huge, "%llu", (unsigned long long)((1ull << 32) | 4000000u));
    /* Binary: pair's second Targets link pointed at the destroyed entity. */
    unsigned char *bad = malloc(size);
    memcpy(bad, buf, size);
    size_t at = links_of(bad, size, "Targets") + 4; /* hub's entry, then pair's */
    at += 12 + 8 * (size_t)get32(bad + at + 8);
    assert_int_equal(get32(bad + at + 8), 2);
    put64(bad + at + 12 + 8, s->gone.id);
    reseal(bad, size);
    const char *words[] = {"Targets", pair, gone};
    refused(w, bad, size, STRATA_ERR_CORRUPT, before, words, 3);
    /* Its source is an entity the save does not hold. */
    memcpy(bad, buf, size);
    put64(bad + at, s->gone.id);
    reseal(bad, size);
    const char *source_words[] = {"Targets", gone};
    refused(w, bad, size, STRATA_ERR_CORRUPT, before, source_words, 2);
    free(bad);
    /* JSON: a target past every index, and one whose index is free. */
    const char *targets[] = {huge, gone};
    for (int k = 0; k < 2; k++) {
        char text[512];
        snprintf(text, sizeof text,
                 "{\"schema\": \"rel\", \"version\": 1, \"indices\": 2, \"free\": [[1, 2]],\n"
                 "\"entities\": [\n{\"id\": 4294967296, \"components\": {\"Targets\": {\"targets\": [%s]}}}\n]}\n",
                 k == 0 ? huge : "4294967297");
        rel_load_report_t report;
        assert_int_equal(rel_world_load_json_mem(w, text, strlen(text), &report), STRATA_ERR_CORRUPT);
        assert_non_null(strstr(report.error, "Targets"));
        assert_non_null(strstr(report.error, k == 0 ? targets[0] : "4294967297"));
        assert_non_null(strstr(report.error, k == 0 ? "which the save does not hold" : "4294967296"));
        unchanged(w, before);
    }
}

static void test_rel_save_corrupt_link_counts_are_refused(void **state) {
    saved *f = *state;
    rel_world *w = f->w;
    const unsigned char *buf = f->buf;
    size_t size = f->size;
    const char *before = f->text;
    const scene *s = f->s;
    unsigned char *bad = malloc(size);
    size_t sources = links_of(buf, size, "Targets");
    size_t hub = sources + 4;
    struct {
        size_t at;
        uint32_t value;
        const char *word;
    } edits[] = {
        {sources - 2 - 7 - 4, UINT32_MAX, "link section"}, /* the relation count */
        {sources, UINT32_MAX, "link sources"},             /* Targets' source count */
        {hub + 8, UINT32_MAX, "link targets"},             /* hub's target count */
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        memcpy(bad, buf, size);
        put32(bad + edits[i].at, edits[i].value);
        reseal(bad, size);
        const char *words[] = {edits[i].word};
        refused(w, bad, size, STRATA_ERR_CORRUPT, before, words, 1);
    }
    /* hub's entry cut out: it loads with the tag and no link, as a save
     * made while a removal of the tag waited holds it. */
    size_t entry = 12 + 8 * (size_t)MANY;
    memcpy(bad, buf, hub);
    memcpy(bad + hub, buf + hub + entry, size - hub - entry);
    put32(bad + sources, get32(buf + sources) - 1);
    reseal(bad, size - entry);
    rel_world *v = rel_world_create(NULL);
    assert_int_equal(rel_world_load_mem(v, bad, size - entry, NULL), STRATA_OK);
    uint32_t n = 0;
    assert_null(rel_targets_targets(v, s->hub, &n));
    assert_int_equal(rel_targeting_count(v), 2);
    assert_true(rel_targets_has(v, s->pair, s->hub));
    assert_int_equal(rel_targets_add(v, s->hub, s->pair), STRATA_OK); /* it links again */
    assert_int_equal(rel_targets_remove(v, s->hub, s->pair), STRATA_OK);
    assert_int_equal(rel_targeting_count(v), 1); /* the tag goes with its last link */
    rel_world_destroy(v);
    /* A link listed twice. */
    memcpy(bad, buf, size);
    memcpy(bad + hub + 12 + 8, bad + hub + 12, 8);
    reseal(bad, size);
    const char *twice[] = {"Targets", "twice"};
    refused(w, bad, size, STRATA_ERR_CORRUPT, before, twice, 2);
    free(bad);
}

/* A save of format 1 (before links were saved): the link section cut out. */
static unsigned char *format_1(const unsigned char *save, size_t size, size_t *out) {
    size_t start = links_of(save, size, "Targets") - 2 - 7 - 4; /* the relation count */
    uint32_t relations = get32(save + start);
    size_t end = start + 4;
    for (uint32_t r = 0; r < relations; r++) {
        end += 2 + (size_t)(save[end] | save[end + 1] << 8);
        uint32_t sources = get32(save + end);
        end += 4;
        for (uint32_t k = 0; k < sources; k++) {
            end += 12 + 8 * (size_t)get32(save + end + 8);
        }
    }
    unsigned char *old = malloc(size);
    memcpy(old, save, start);
    memcpy(old + start, save + end, size - end);
    *out = size - (end - start);
    put32(old + 8, 1);
    reseal(old, *out);
    return old;
}

static void test_rel_save_format_1_saves_load_without_their_tags(void **state) {
    saved *f = *state;
    const scene *s = f->s;
    size_t old_size = 0;
    unsigned char *old = format_1(f->buf, f->size, &old_size);
    rel_world *v = rel_world_create(&(rel_world_desc_t){.allocator = {test_alloc, test_resize, test_release, NULL}});
    rel_load_report_t report;
    assert_int_equal(rel_world_load_mem(v, old, old_size, &report), STRATA_OK);
    /* Exclusive links were in the component then too; the others' tags go, reported. */
    assert_true(rel_entity_eq(rel_child_of_target(v, s->kid), s->hub));
    assert_int_equal(rel_targeting_count(v), 0);
    assert_int_equal(report.change_count, 2);
    assert_int_equal(report.changes[0].kind, STRATA_CHANGE_DROPPED);
    assert_string_equal(report.changes[0].name, "Targets");
    assert_int_equal(report.changes[0].count, 2);
    assert_string_equal(report.changes[1].name, "Follows");
    /* A JSON dump of that time wrote a tag as {}: no links, no tag. */
    const char *text = "{\"schema\": \"rel\", \"version\": 1, \"indices\": 2, \"free\": [],\n"
                       "\"entities\": [\n{\"id\": 4294967296, \"components\": {\"Targets\": {}}},\n"
                       "{\"id\": 4294967297, \"components\": {\"Local\": {\"x\": 1, \"y\": 2}}}\n]}\n";
    assert_int_equal(rel_world_load_json_mem(v, text, strlen(text), &report), STRATA_OK);
    assert_int_equal(rel_targeting_count(v), 0);
    assert_int_equal(report.entities, 2);
    rel_world_destroy(v);
    free(old);
}

static void test_rel_save_renamed_and_dropped_relations(void **state) {
    saved *f = *state;
    rel_world *w = f->w;
    const scene *s = f->s;
    const unsigned char *buf = f->buf;
    size_t size = f->size, jsize = f->jsize;
    const char *text = f->text;
    for (int pass = 0; pass < 2; pass++) {
        rel2_world *v = rel2_world_create(
            &(rel2_world_desc_t){.allocator = {test_alloc, test_resize, test_release, NULL}});
        rel2_load_report_t report;
        rel2_result_t r = pass == 0 ? rel2_world_load_mem(v, buf, size, &report)
                                    : rel2_world_load_json_mem(v, text, jsize, &report);
        assert_int_equal(r, STRATA_OK);
        /* Aims (was Targets) has every link; Follows is gone, reported. */
        rel2_entity hub = {s->hub.id}, pair = {s->pair.id}, kid = {s->kid.id};
        uint32_t na = 0, nb = 0;
        const rel_entity *a = rel_targets_targets(w, s->hub, &na);
        const rel2_entity *b = rel2_aims_targets(v, hub, &nb);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, sizeof *a * na);
        assert_true(rel2_aims_has(v, pair, hub));
        assert_true(rel2_entity_eq(rel2_child_of_target(v, kid), hub));
        bool renamed = false, dropped = false;
        for (uint32_t i = 0; i < report.change_count && i < STRATA_REPORT_MAX; i++) {
            renamed = renamed || (report.changes[i].kind == STRATA_CHANGE_RENAMED &&
                                  strcmp(report.changes[i].name, "Aims (was Targets)") == 0);
            dropped = dropped || (report.changes[i].kind == STRATA_CHANGE_DROPPED &&
                                  strcmp(report.changes[i].name, "Follows") == 0);
        }
        assert_true(renamed);
        assert_true(dropped);
        /* The renamed relation's index works. */
        assert_int_equal(rel2_entity_destroy(v, rel2_aims_targets(v, hub, &nb)[0]), STRATA_OK);
        assert_int_equal(rel2_aims_targets(v, hub, &nb) != NULL ? nb : 0, MANY - 1);
        rel2_world_destroy(v);
    }
}

static int shard = 0, shards = 1; /* --shard K/N */

/* Every load whose allocation number `start` fails (a shard: every Nth from K)
 * leaves the target as it was; the first with enough succeeds. */
static void test_rel_save_load_out_of_memory_leaves_the_world(void **state) {
    saved *f = *state;
    rel_world *w = f->w;
    const scene *s = f->s;
    for (int pass = 0; pass < 2; pass++) {
        /* The target: one entity with a link, made before the allocator fails. */
        budget = 1 << 20;
        rel_world *v = rel_world_create(
            &(rel_world_desc_t){.allocator = {failing_alloc, failing_resize, test_release, NULL}});
        rel_entity a = rel_entity_create(v), b = rel_entity_create(v);
        assert_int_equal(rel_targets_add(v, a, b), STRATA_OK);
        rel_result_t r = STRATA_ERR_NOMEM;
        for (int start = shard; r == STRATA_ERR_NOMEM; start += shards) {
            budget = start;
            r = load_either(v, f, pass, NULL);
            budget = 1 << 20;
            if (r == STRATA_ERR_NOMEM) {
                uint32_t n = 0;
                assert_true(rel_entity_eq(rel_targets_targets(v, a, &n)[0], b));
                assert_int_equal(n, 1);
                assert_int_equal(rel_targeting_count(v), 1);
            }
        }
        assert_int_equal(r, STRATA_OK);
        check_links(w, v, s);
        rel_world_destroy(v);
    }
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--shard") == 0) {
        if (sscanf(argv[2], "%d/%d", &shard, &shards) != 2 || shards < 1 || shard < 0 || shard >= shards) {
            fprintf(stderr, "test_rel_save: --shard K/N with 0 <= K < N, not '%s'\n", argv[2]);
            return 2;
        }
        printf("test_rel_save: part %d of %d of the out-of-memory sweep\n", shard, shards);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rel_save_many_to_many_links_survive_binary_and_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_save_link_to_a_missing_entity_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_save_corrupt_link_counts_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_save_format_1_saves_load_without_their_tags, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_save_renamed_and_dropped_relations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rel_save_load_out_of_memory_leaves_the_world, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* verify.c: strata_live_verify, a second opinion on a migration. It walks
 * both worlds through the public API and the schemas' reflection, on its
 * own (none of the save layer's code): every entity of the old world alive
 * in the new one with the same handle, each component mapped by name or
 * `renamed_from`, each field's value equal after conversion, the links of
 * relations, the resources. What the report says was dropped or lost is
 * not compared; added fields are the loader's to fill. */
#include "strata_live.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct verify_t {
    strata_world_t *to, *from;
    const strata_schema_t *ts, *fs;
    const strata_load_report_t *report;
    int32_t to_of[STRATA_MAX_COMPONENTS];   /* from's component c -> to's, or -1 */
    int32_t from_of[STRATA_MAX_COMPONENTS]; /* to's component j -> from's, or -1 */
    char *why;
    size_t why_size;
    bool ok;
} verify_t;

static void verify_fail(verify_t *v, strata_entity_t e, const char *fmt, const char *a, const char *b) {
    if (!v->ok) {
        return;
    }
    v->ok = false;
    char what[200];
    snprintf(what, sizeof what, fmt, a, b != NULL ? b : "");
    if (e != STRATA_ENTITY_NULL) {
        snprintf(v->why, v->why_size, "entity %" PRIu32 "v%" PRIu32 ": %s", strata_entity_index(e),
                 strata_entity_generation(e), what);
    } else {
        snprintf(v->why, v->why_size, "%s", what);
    }
}

/* True if the report has a change of `kind` on `path` (its name before " (" or whole). */
static bool verify_reported(const verify_t *v, uint8_t kind, const char *path) {
    size_t n = strlen(path);
    for (uint32_t i = 0; i < v->report->change_count && i < STRATA_REPORT_MAX; i++) {
        const strata_change_t *c = &v->report->changes[i];
        if (c->kind == kind && strncmp(c->name, path, n) == 0 && (c->name[n] == '\0' || c->name[n] == ' ')) {
            return true;
        }
    }
    return false;
}

/* The report lists only STRATA_REPORT_MAX changes: past that, silence proves nothing. */
static bool verify_report_complete(const verify_t *v) {
    return v->report->change_count <= STRATA_REPORT_MAX;
}

/* The one of `count` saved elements (their names `stride` bytes apart)
 * that an element named `name`, formerly `formers` (NULL-terminated, or
 * NULL), takes its value from, as a load decides: its own name first,
 * then its first former name found; -1 when none. */
static int64_t verify_source(const char *const *names, size_t stride, uint32_t count, const char *name,
                             const char *const *formers) {
    for (int64_t k = -1; k < 0 || (formers != NULL && formers[k] != NULL); k++) {
        const char *wanted = k < 0 ? name : formers[k];
        for (uint32_t i = 0; i < count; i++) {
            if (strcmp(*(const char *const *)(const void *)((const char *)names + i * stride), wanted) == 0) {
                return i;
            }
        }
    }
    return -1;
}

/* --- Values ------------------------------------------------------------------ */

/* A number read whatever its kind: an integer as sign and magnitude, or a float. */
typedef struct number_t {
    bool is_float;
    bool negative;
    uint64_t magnitude;
    double f;
} number_t;

static int64_t verify_cint(const unsigned char *p, uint32_t size) {
    switch (size) {
    case 1: {
        int8_t x;
        memcpy(&x, p, 1);
        return x;
    }
    case 2: {
        int16_t x;
        memcpy(&x, p, 2);
        return x;
    }
    case 8: {
        int64_t x;
        memcpy(&x, p, 8);
        return x;
    }
    default: {
        int32_t x;
        memcpy(&x, p, 4);
        return x;
    }
    }
}

static uint64_t verify_cuint(const unsigned char *p, uint32_t size) {
    uint8_t a;
    uint16_t b;
    uint32_t c;
    uint64_t d;
    switch (size) {
    case 1: memcpy(&a, p, 1); return a;
    case 2: memcpy(&b, p, 2); return b;
    case 4: memcpy(&c, p, 4); return c;
    default: memcpy(&d, p, 8); return d;
    }
}

static bool verify_is_number(uint8_t kind) {
    return kind >= STRATA_KIND_BOOL && kind <= STRATA_KIND_F64;
}

static number_t verify_number(uint8_t kind, uint32_t size, const unsigned char *p) {
    number_t n = {0};
    if (kind == STRATA_KIND_F32) {
        float f;
        memcpy(&f, p, 4);
        n.is_float = true;
        n.f = f;
    } else if (kind == STRATA_KIND_F64) {
        n.is_float = true;
        memcpy(&n.f, p, 8);
    } else if (kind == STRATA_KIND_BOOL) {
        n.magnitude = p[0] != 0;
    } else if (kind >= STRATA_KIND_I8 && kind <= STRATA_KIND_I64) {
        int64_t x = verify_cint(p, size);
        n.negative = x < 0;
        n.magnitude = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
    } else {
        n.magnitude = verify_cuint(p, size);
    }
    return n;
}

/* Exactly the same number (NaN equals NaN: a conversion keeps it a NaN). */
static bool verify_number_equal(number_t a, number_t b) {
    if (a.is_float && b.is_float) {
        return a.f == b.f || (a.f != a.f && b.f != b.f);
    }
    if (!a.is_float && !b.is_float) {
        return a.negative == b.negative && a.magnitude == b.magnitude;
    }
    number_t f = a.is_float ? a : b, i = a.is_float ? b : a;
    double x = f.f < 0 ? -f.f : f.f;
    if (f.f != f.f || x >= 18446744073709551616.0 || (f.f < 0) != i.negative) {
        return i.magnitude == 0 && x == 0.0;
    }
    return (double)(uint64_t)x == x && (uint64_t)x == i.magnitude;
}

static void verify_value(verify_t *v, strata_entity_t e, const strata_field_desc_t *f, const unsigned char *a,
                         const strata_field_desc_t *g, const unsigned char *b, const char *path);

/* Each field of to's type `tt` whose value came from one of from's `ft`. */
static void verify_fields(verify_t *v, strata_entity_t e, const strata_type_desc_t *ft, const unsigned char *a,
                          const strata_type_desc_t *tt, const unsigned char *b, const char *path) {
    for (uint32_t j = 0; tt != NULL && ft != NULL && ft->count > 0 && j < tt->count && v->ok; j++) {
        const strata_field_desc_t *g = &tt->fields[j];
        int64_t i = verify_source(&ft->fields[0].name, sizeof ft->fields[0], ft->count, g->name, g->renamed_from);
        if (i < 0) {
            continue; /* added: the loader's default */
        }
        char sub[256];
        snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", g->name);
        const strata_field_desc_t *f = &ft->fields[i];
        if (!verify_reported(v, STRATA_CHANGE_LOST, sub)) {
            verify_value(v, e, f, a + f->offset, g, b + g->offset, sub);
        }
    }
}

static void verify_value(verify_t *v, strata_entity_t e, const strata_field_desc_t *f, const unsigned char *a,
                         const strata_field_desc_t *g, const unsigned char *b, const char *path) {
    uint32_t count = f->count < g->count ? f->count : g->count;
    for (uint32_t k = 0; k < count && v->ok; k++) {
        const unsigned char *x = a + (size_t)k * f->size, *y = b + (size_t)k * g->size;
        if (f->kind == STRATA_KIND_STRUCT && g->kind == STRATA_KIND_STRUCT) {
            verify_fields(v, e, f->type, x, g->type, y, path);
        } else if (f->kind == STRATA_KIND_STRING && g->kind == STRATA_KIND_STRING) {
            size_t n = 0;
            while (n < f->size && x[n] != 0) {
                n++;
            }
            bool same = n <= g->size && memcmp(x, y, n) == 0 && (n == g->size || y[n] == 0);
            if (!same) {
                verify_fail(v, e, "%s: the text changed", path, NULL);
            }
        } else if (f->kind == STRATA_KIND_ENUM && g->kind == STRATA_KIND_ENUM) {
            int64_t p = verify_cint(x, f->size), q = verify_cint(y, g->size);
            bool valid = p >= 0 && (uint64_t)p < f->type->count && q >= 0 && (uint64_t)q < g->type->count;
            if (!valid || strcmp(f->type->members[p], g->type->members[q]) != 0) {
                verify_fail(v, e, "%s: was %s", path, valid ? f->type->members[p] : "out of range");
            }
        } else if (f->kind == STRATA_KIND_ENTITY && g->kind == STRATA_KIND_ENTITY) {
            if (memcmp(x, y, 8) != 0) {
                verify_fail(v, e, "%s: the entity changed", path, NULL);
            }
        } else if (verify_is_number(f->kind) && verify_is_number(g->kind)) {
            if (!verify_number_equal(verify_number(f->kind, f->size, x), verify_number(g->kind, g->size, y))) {
                verify_fail(v, e, "%s: the value changed", path, NULL);
            }
        } else {
            verify_fail(v, e, "%s: its type changed and the report does not say it was lost", path, NULL);
        }
    }
}

/* --- Entities, links, resources -------------------------------------------------- */

/* The relation whose links component c of schema s holds, or -1. */
static int32_t verify_relation(const strata_schema_t *s, uint32_t c) {
    for (uint32_t r = 0; r < s->relation_count; r++) {
        if (s->relations[r].component == c) {
            return (int32_t)r;
        }
    }
    return -1;
}

static void verify_links(verify_t *v, strata_entity_t e, uint32_t c, uint32_t j, const char *name) {
    int32_t r = verify_relation(v->fs, c), q = verify_relation(v->ts, j);
    if (r < 0 || q < 0 || v->fs->relations[r].exclusive || v->ts->relations[q].exclusive) {
        return; /* an exclusive relation's target is a field of its component */
    }
    uint32_t n = 0, m = 0;
    const strata_entity_t *a = strata_relation_targets(v->from, (uint32_t)r, e, &n);
    const strata_entity_t *b = strata_relation_targets(v->to, (uint32_t)q, e, &m);
    for (uint32_t i = 0; i < n && n == m; i++) {
        bool found = false;
        for (uint32_t k = 0; k < m && !found; k++) {
            found = a[i] == b[k];
        }
        m = found ? m : m + 1;
    }
    if (n != m) {
        verify_fail(v, e, "the links of %s changed", name, NULL);
    }
}

static void verify_entity(strata_world_t *from, strata_entity_t e, void *user) {
    verify_t *v = user;
    (void)from;
    if (!v->ok) {
        return;
    }
    if (!strata_entity_alive(v->to, e)) {
        verify_fail(v, e, "gone", NULL, NULL);
        return;
    }
    for (uint32_t c = 0; c < v->fs->component_count && v->ok; c++) {
        const strata_type_desc_t *ft = &v->fs->component_types[c];
        bool had = strata_has(v->from, e, c);
        int32_t j = v->to_of[c];
        if (j < 0) {
            if (had && verify_report_complete(v) && !verify_reported(v, STRATA_CHANGE_DROPPED, ft->name) &&
                !verify_reported(v, STRATA_CHANGE_LOST, ft->name)) {
                verify_fail(v, e, "%s went without a word in the report", ft->name, NULL);
            }
            continue;
        }
        bool has = strata_has(v->to, e, (uint32_t)j);
        if (had != has) {
            verify_fail(v, e, had ? "lost %s" : "gained %s", ft->name, NULL);
            continue;
        }
        if (!had || verify_reported(v, STRATA_CHANGE_LOST, ft->name)) {
            continue;
        }
        const strata_type_desc_t *tt = &v->ts->component_types[j];
        if (ft->size > 0 && tt->size > 0) {
            verify_fields(v, e, ft, strata_get(v->from, e, c), tt, strata_get(v->to, e, (uint32_t)j), tt->name);
        }
        verify_links(v, e, c, (uint32_t)j, ft->name);
    }
    for (uint32_t j = 0; j < v->ts->component_count && v->ok; j++) {
        if (v->from_of[j] < 0 && strata_has(v->to, e, j)) {
            verify_fail(v, e, "gained %s", v->ts->component_types[j].name, NULL);
        }
    }
}

static void verify_resources(verify_t *v) {
    const strata_type_desc_t *ft = v->fs->resource_type, *tt = v->ts->resource_type;
    for (uint32_t j = 0; ft != NULL && tt != NULL && ft->count > 0 && j < tt->count && v->ok; j++) {
        const strata_field_desc_t *g = &tt->fields[j];
        int64_t i = verify_source(&ft->fields[0].name, sizeof ft->fields[0], ft->count, g->name, g->renamed_from);
        char path[128];
        snprintf(path, sizeof path, "resource.%s", g->name);
        if (i >= 0 && !verify_reported(v, STRATA_CHANGE_LOST, path)) {
            const unsigned char *a = strata_world_resources(v->from), *b = strata_world_resources(v->to);
            verify_fields(v, STRATA_ENTITY_NULL, ft->fields[i].type, a + ft->fields[i].offset, g->type, b + g->offset,
                          path);
        }
    }
}

bool strata_live_verify(strata_world_t *to, strata_world_t *from, const strata_load_report_t *report, char *why,
                        size_t why_size) {
    verify_t v = {to, from, strata_world_schema(to), strata_world_schema(from), report, {0}, {0}, why, why_size, true};
    if (why_size > 0) {
        why[0] = '\0';
    }
    if (v.fs->component_types == NULL || v.ts->component_types == NULL) {
        verify_fail(&v, STRATA_ENTITY_NULL, "a world without reflection data%s", "", NULL);
        return false;
    }
    for (uint32_t j = 0; j < v.ts->component_count; j++) {
        v.from_of[j] = -1;
    }
    for (uint32_t c = 0; c < v.fs->component_count; c++) {
        v.to_of[c] = -1;
    }
    for (uint32_t j = 0; j < v.ts->component_count; j++) {
        const strata_type_desc_t *t = &v.ts->component_types[j];
        int64_t c = verify_source(&v.fs->component_types[0].name, sizeof v.fs->component_types[0],
                                  v.fs->component_count, t->name, t->renamed_from);
        if (c >= 0) {
            v.from_of[j] = (int32_t)c;
            v.to_of[c] = (int32_t)j;
        }
    }
    strata_world_stats_t a, b;
    strata_world_stats(from, &a);
    strata_world_stats(to, &b);
    if (a.entities != b.entities) {
        char counts[64];
        snprintf(counts, sizeof counts, "%u entities became %u", a.entities, b.entities);
        verify_fail(&v, STRATA_ENTITY_NULL, "%s", counts, NULL);
    }
    if (v.ok) {
        strata_entity_each(from, verify_entity, &v);
    }
    if (v.ok) {
        verify_resources(&v);
    }
    return v.ok;
}

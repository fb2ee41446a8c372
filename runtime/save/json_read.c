/* json_read.c: loading worlds dumped as JSON (docs/saves.md), with jansson. In
 * its own archive, libstrata_json, so only games that load JSON link
 * jansson.
 *
 * jansson parses and checks the syntax; this file maps the document onto
 * the schema with the evolution rules of a binary load (evolve.h): the
 * components by the names the dump's entities have, the fields of each
 * object by its keys; values must fit their field.
 * jansson keeps no positions of values, so an error about a value finds
 * its line and column again by walking the text along the value's path.
 */
#include "evolve.h"
#include "file.h"
#include "format.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_PATH 48

/* One step of the path to a value: an object key or an array index. */
typedef struct json_step_t {
    const char *key; /* NULL: an index */
    size_t index;
} json_step_t;

typedef struct json_load_t {
    sti_loader_t *l;
    const char *text;
    size_t size;
    json_step_t path[JSON_MAX_PATH];
    uint32_t depth;
    strata_result_t r;
    json_t *components; /* the dump's component names -> the schema's component ids */
} json_load_t;

/* --- Where a value is -------------------------------------------------------- */

static const char *scan_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) {
        p++;
    }
    return p;
}

/* Past the string starting at p (a quote). */
static const char *scan_string(const char *p, const char *end) {
    for (p++; p < end && *p != '"'; p++) {
        if (*p == '\\') {
            p++;
        }
    }
    return p < end ? p + 1 : end;
}

/* Past the value starting at p (the text is valid JSON: jansson said so). */
static const char *scan_value(const char *p, const char *end) {
    if (p >= end) {
        return end;
    }
    if (*p == '"') {
        return scan_string(p, end);
    }
    if (*p == '{' || *p == '[') {
        int depth = 0;
        while (p < end) {
            if (*p == '"') {
                p = scan_string(p, end);
                continue;
            }
            depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
            p++;
            if (depth == 0) {
                return p;
            }
        }
        return end;
    }
    while (p < end && !strchr(",]} \t\r\n", *p)) {
        p++;
    }
    return p;
}

/* The start of the value at the current path (as far as it can be followed). */
static const char *json_locate(const json_load_t *jl) {
    const char *end = jl->text + jl->size;
    const char *p = scan_ws(jl->text, end);
    for (uint32_t i = 0; i < jl->depth; i++) {
        const json_step_t *step = &jl->path[i];
        const char *container = p;
        if (p >= end || *p != (step->key != NULL ? '{' : '[')) {
            return p;
        }
        p = scan_ws(p + 1, end);
        bool found = false;
        for (size_t n = 0; p < end && *p != '}' && *p != ']'; n++) {
            if (step->key != NULL) {
                const char *key = p + 1;
                const char *after = scan_string(p, end);
                size_t len = (size_t)(after - 1 - key);
                p = scan_ws(after, end);
                p = scan_ws(p + 1, end); /* the ':' */
                if (len == strlen(step->key) && memcmp(key, step->key, len) == 0) {
                    found = true;
                    break;
                }
            } else if (n == step->index) {
                found = true;
                break;
            }
            p = scan_ws(scan_value(p, end), end);
            if (p < end && *p == ',') {
                p = scan_ws(p + 1, end);
            }
        }
        if (!found) {
            return container;
        }
    }
    return p;
}

/* Report an error about the value at the current path. */
static bool json_fail(json_load_t *jl, strata_result_t r, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static bool json_fail(json_load_t *jl, strata_result_t r, const char *fmt, ...) {
    if (jl->r != STRATA_OK) {
        return false;
    }
    jl->r = r;
    const char *at = json_locate(jl);
    uint32_t line = 1;
    const char *line_start = jl->text;
    for (const char *p = jl->text; p < at; p++) {
        if (*p == '\n') {
            line++;
            line_start = p + 1;
        }
    }
    strata_load_report_t *report = jl->l->report;
    report->line = line;
    report->column = (uint32_t)(at - line_start) + 1;
    report->offset = (uint64_t)(at - jl->text);
    char path[200] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < jl->depth && used < sizeof path; i++) {
        const json_step_t *step = &jl->path[i];
        int n = step->key != NULL ? snprintf(path + used, sizeof path - used, "%s%s", i > 0 ? "." : "", step->key)
                                  : snprintf(path + used, sizeof path - used, "[%zu]", step->index);
        used += n > 0 ? (size_t)n : 0;
    }
    char what[200];
    va_list args;
    va_start(args, fmt);
    vsnprintf(what, sizeof what, fmt, args);
    va_end(args);
    sti_loader_fail(jl->l, r, "line %u, column %u: %s%s%s", line, report->column, path, path[0] ? ": " : "", what);
    return false;
}

static void json_push_key(json_load_t *jl, const char *key) {
    if (jl->depth < JSON_MAX_PATH) {
        jl->path[jl->depth] = (json_step_t){key, 0};
    }
    jl->depth++;
}

static void json_push_index(json_load_t *jl, size_t index) {
    if (jl->depth < JSON_MAX_PATH) {
        jl->path[jl->depth] = (json_step_t){NULL, index};
    }
    jl->depth++;
}

static void json_pop(json_load_t *jl) {
    jl->depth--;
}

/* --- Changes ------------------------------------------------------------------ */

/* Count one more occurrence of a change, noting it the first time. */
static bool json_change(json_load_t *jl, strata_change_kind_t kind, bool resource, const char *path, const char *name,
                        const char *former) {
    if (sti_evolve_note(jl->l, kind, resource ? -1 : 0, true, path, name, strlen(name), former) != STRATA_OK) {
        jl->r = STRATA_ERR_NOMEM;
        return false;
    }
    return true;
}

/* A JSON object as a level of a save (evolve.h): its members by key. */
static const void *json_find(const void *set, const char *name, size_t len) {
    (void)len;
    return json_object_get(set, name);
}

/* A level whose every name is there: the dump's components when no
 * component has a former name, so that they need not be gathered. */
static const void *json_find_any(const void *set, const char *name, size_t len) {
    (void)len;
    return name != NULL ? set : NULL;
}

/* --- Values ------------------------------------------------------------------- */

/* An unsigned integer: a JSON integer >= 0, or a string of digits (how the
 * writer spells values past INT64_MAX). */
static bool json_unsigned(json_t *v, uint64_t *out) {
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        *out = (uint64_t)i;
        return i >= 0;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (*s < '0' || *s > '9') {
            return false;
        }
        char *end;
        errno = 0;
        unsigned long long u = strtoull(s, &end, 10);
        *out = u;
        return errno == 0 && *end == '\0';
    }
    return false;
}

static bool json_fields(json_load_t *jl, json_t *obj, const strata_field_desc_t *fields, uint32_t count,
                        unsigned char *base, const char *path, bool resource);

/* One element of field f from v into p. */
static bool json_element(json_load_t *jl, json_t *v, const strata_field_desc_t *f, unsigned char *p, const char *path,
                         bool resource) {
    switch (f->kind) {
    case STRATA_KIND_BOOL: {
        if (!json_is_boolean(v)) {
            return json_fail(jl, STRATA_ERR_CORRUPT, "expected true or false");
        }
        bool b = json_is_true(v);
        memcpy(p, &b, 1);
        return true;
    }
    case STRATA_KIND_I8:
    case STRATA_KIND_I16:
    case STRATA_KIND_I32:
    case STRATA_KIND_I64: {
        if (!json_is_integer(v)) {
            return json_fail(jl, STRATA_ERR_CORRUPT, "expected an integer");
        }
        int64_t i = json_integer_value(v);
        uint32_t bits = sti_kind_bits(f->kind);
        if (bits < 64 && (i < -((int64_t)1 << (bits - 1)) || i >= ((int64_t)1 << (bits - 1)))) {
            return json_fail(jl, STRATA_ERR_CORRUPT, "%" PRId64 " is out of range for %s", i, sti_kind_name(f->kind));
        }
        sti_scalar_write(f->kind, f->size, p, (sti_scalar_t){.i = i, .u = (uint64_t)i});
        return true;
    }
    case STRATA_KIND_U8:
    case STRATA_KIND_U16:
    case STRATA_KIND_U32:
    case STRATA_KIND_U64:
    case STRATA_KIND_ENTITY: {
        uint64_t u = 0;
        if (!json_unsigned(v, &u)) {
            if (json_is_integer(v)) {
                return json_fail(jl, STRATA_ERR_CORRUPT, "%" PRId64 " is out of range for %s",
                                 (int64_t)json_integer_value(v), sti_kind_name(f->kind));
            }
            return json_fail(jl, STRATA_ERR_CORRUPT, "expected %s",
                             f->kind == STRATA_KIND_ENTITY ? "an entity id" : "an unsigned integer");
        }
        uint32_t bits = sti_kind_bits(f->kind);
        if (bits < 64 && u >> bits != 0) {
            return json_fail(jl, STRATA_ERR_CORRUPT, "%" PRIu64 " is out of range for %s", u, sti_kind_name(f->kind));
        }
        sti_scalar_write(f->kind, f->size, p, (sti_scalar_t){.u = u});
        return true;
    }
    case STRATA_KIND_F32:
    case STRATA_KIND_F64: {
        double d;
        if (json_is_number(v)) {
            d = json_number_value(v);
        } else if (json_is_string(v) && strcmp(json_string_value(v), "nan") == 0) {
            d = NAN;
        } else if (json_is_string(v) && strcmp(json_string_value(v), "inf") == 0) {
            d = INFINITY;
        } else if (json_is_string(v) && strcmp(json_string_value(v), "-inf") == 0) {
            d = -INFINITY;
        } else {
            return json_fail(jl, STRATA_ERR_CORRUPT, "expected a number");
        }
        /* Below 2^128 - 2^103 (halfway from FLT_MAX to 2^128) a number rounds to a finite f32. */
        if (f->kind == STRATA_KIND_F32 && isfinite(d) && fabs(d) >= 0x1.ffffffp127) {
            return json_fail(jl, STRATA_ERR_CORRUPT, "%g is out of range for f32", d);
        }
        sti_scalar_write(f->kind, f->size, p, (sti_scalar_t){.f = d});
        return true;
    }
    case STRATA_KIND_ENUM: {
        if (!json_is_string(v)) {
            return json_fail(jl, STRATA_ERR_CORRUPT, "expected a member name of %s", f->type->name);
        }
        const char *name = json_string_value(v);
        for (uint32_t m = 0; m < f->type->count; m++) {
            if (strcmp(f->type->members[m], name) == 0) {
                sti_scalar_write(STRATA_KIND_ENUM, f->size, p, (sti_scalar_t){.i = m});
                return true;
            }
        }
        return json_fail(jl, STRATA_ERR_CORRUPT, "%s has no member '%.60s'", f->type->name, name);
    }
    case STRATA_KIND_STRING: {
        if (!json_is_string(v)) {
            return json_fail(jl, STRATA_ERR_CORRUPT, "expected a string");
        }
        /* U+F780..U+F7FF (EF 9E 80 .. EF 9F BF) are bytes 0x80..0xff that were not
         * UTF-8 (json_write.c's out_string); every other byte is itself. */
        const unsigned char *text = (const unsigned char *)json_string_value(v);
        size_t n = json_string_length(v), len = 0;
        for (size_t i = 0; i < n; len++) {
            bool byte = i + 2 < n && text[i] == 0xef && (text[i + 1] == 0x9e || text[i + 1] == 0x9f);
            if (len < f->size) {
                p[len] = byte ? (unsigned char)(((text[i + 1] & 1u) << 6 | (text[i + 2] & 0x3fu)) + 0x80u) : text[i];
            }
            i += byte ? 3 : 1;
        }
        if (len >= f->size) {
            return json_fail(jl, STRATA_ERR_CORRUPT, "%zu bytes and the NUL do not fit in char[%u]", len, f->size);
        }
        memset(p + len, 0, f->size - len);
        return true;
    }
    case STRATA_KIND_STRUCT:
        if (!json_is_object(v)) {
            return json_fail(jl, STRATA_ERR_CORRUPT, "expected an object of %s's fields", f->type->name);
        }
        return json_fields(jl, v, f->type->fields, f->type->count, p, path, resource);
    default: return json_fail(jl, STRATA_ERR_CORRUPT, "a field of an unknown kind");
    }
}

/* The fields of obj into the value at base, mapped by the evolution rules
 * (evolve.h); absent ones keep their defaults, unknown ones are dropped
 * (both reported). */
static bool json_fields(json_load_t *jl, json_t *obj, const strata_field_desc_t *fields, uint32_t count,
                        unsigned char *base, const char *path, bool resource) {
    sti_evolve_names_t names = sti_evolve_fields(fields, count);
    sti_evolve_saved_t saved = {obj, json_find};
    size_t matched = 0;
    for (uint32_t i = 0; i < count; i++) {
        const strata_field_desc_t *f = &fields[i];
        const char *former;
        json_t *v = (json_t *)sti_evolve_source(&names, i, &saved, &former);
        const char *key = former != NULL ? former : f->name;
        if (v == NULL) {
            if (!json_change(jl, STRATA_CHANGE_ADDED, resource, path, f->name, NULL)) {
                return false;
            }
            continue;
        }
        if (former != NULL && !json_change(jl, STRATA_CHANGE_RENAMED, resource, path, f->name, key)) {
            return false;
        }
        matched++;
        json_push_key(jl, key);
        char sub[160];
        snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", f->name);
        unsigned char *p = base + f->offset;
        if (!f->array) {
            if (!json_element(jl, v, f, p, sub, resource)) {
                return false;
            }
        } else {
            if (!json_is_array(v)) {
                return json_fail(jl, STRATA_ERR_CORRUPT, "expected a list of at most %u values", f->count);
            }
            size_t n = json_array_size(v);
            if (n > f->count) {
                return json_fail(jl, STRATA_ERR_CORRUPT, "%zu values; the field holds %u", n, f->count);
            }
            for (size_t j = 0; j < n; j++) {
                json_push_index(jl, j);
                if (!json_element(jl, json_array_get(v, j), f, p + j * f->size, sub, resource)) {
                    return false;
                }
                json_pop(jl);
            }
        }
        json_pop(jl);
    }
    if (matched < json_object_size(obj)) {
        const char *key;
        json_t *v;
        json_object_foreach(obj, key, v) {
            if (sti_evolve_target(&names, &saved, key, strlen(key)) < 0 &&
                !json_change(jl, STRATA_CHANGE_DROPPED, resource, path, key, NULL)) {
                return false;
            }
        }
    }
    return true;
}

/* --- The document ------------------------------------------------------------ */

/* The components of the dump (the names its entities have), mapped onto
 * the schema's once, by the evolution rules: jl->components gets, for each
 * name that maps, its component id. */
static bool json_component_map(json_load_t *jl, json_t *entities) {
    const strata_schema_t *s = jl->l->fresh->schema;
    sti_evolve_names_t names = sti_evolve_components(s);
    bool formers = false;
    for (uint32_t c = 0; c < names.count; c++) {
        formers = formers || sti_evolve_has_former(&names, c);
    }
    jl->components = json_object();
    json_t *seen = formers ? json_object() : NULL;
    bool ok = jl->components != NULL && (seen != NULL || !formers);
    for (size_t i = 0; ok && formers && i < json_array_size(entities); i++) {
        json_t *components = json_object_get(json_array_get(entities, i), "components");
        const char *key;
        json_t *value;
        json_object_foreach(json_is_object(components) ? components : NULL, key, value) {
            ok = ok && json_object_set(seen, key, json_null()) == 0;
        }
    }
    sti_evolve_saved_t saved = {formers ? (const void *)seen : (const void *)s, formers ? json_find : json_find_any};
    for (uint32_t c = 0; ok && c < names.count; c++) {
        const char *former;
        if (sti_evolve_source(&names, c, &saved, &former) != NULL) {
            const char *key = former != NULL ? former : s->component_types[c].name;
            ok = json_object_set_new(jl->components, key, json_integer(c)) == 0;
        }
    }
    json_decref(seen);
    if (!ok) {
        jl->r = sti_loader_fail(jl->l, STRATA_ERR_NOMEM, "out of memory");
    }
    return ok;
}

/* The component id the dump's component `key` maps to, or -1 (dropped). */
static int64_t json_component(const json_load_t *jl, const char *key) {
    json_t *c = json_object_get(jl->components, key);
    return c != NULL ? (int64_t)json_integer_value(c) : -1;
}

/* An entity handle: "id" as a number or a string of digits. */
static bool json_handle(json_load_t *jl, json_t *entity, strata_entity_t *out) {
    json_t *id = json_object_get(entity, "id");
    if (id == NULL) {
        return json_fail(jl, STRATA_ERR_CORRUPT, "an entity needs an \"id\"");
    }
    json_push_key(jl, "id");
    uint64_t u = 0;
    if (!json_unsigned(id, &u) || (uint32_t)(u >> 32) == 0) {
        return json_fail(jl, STRATA_ERR_CORRUPT, "not an entity id (index + generation << 32, generation > 0)");
    }
    json_pop(jl);
    *out = u;
    return true;
}

/* One entity: its components mapped, its row filled. */
static bool json_entity(json_load_t *jl, json_t *entity) {
    const strata_schema_t *s = jl->l->fresh->schema;
    strata_world_t *w = jl->l->fresh;
    strata_entity_t e = 0;
    if (!json_is_object(entity)) {
        return json_fail(jl, STRATA_ERR_CORRUPT, "expected an entity object");
    }
    if (!json_handle(jl, entity, &e)) {
        return false;
    }
    json_t *components = json_object_get(entity, "components");
    if (components != NULL && !json_is_object(components)) {
        json_push_key(jl, "components");
        return json_fail(jl, STRATA_ERR_CORRUPT, "expected an object of components");
    }
    strata_mask_t mask = {{0}};
    const char *key;
    json_t *value;
    json_object_foreach(components, key, value) {
        int64_t c = json_component(jl, key);
        if (c < 0) {
            if (!json_change(jl, STRATA_CHANGE_DROPPED, false, "", key, NULL)) {
                return false;
            }
            continue;
        }
        strata_mask_set(&mask, (uint32_t)c);
        const char *name = s->component_types[c].name;
        if (strcmp(name, key) != 0 && !json_change(jl, STRATA_CHANGE_RENAMED, false, "", name, key)) {
            return false;
        }
    }
    sti_table_t *t = NULL;
    uint32_t row = 0;
    strata_result_t r = sti_loader_rows(jl->l, &mask, 1, &t, &row);
    if (r != STRATA_OK) {
        jl->r = r;
        return false;
    }
    if (!sti_loader_place(jl->l, t, row, e)) {
        /* Take the row back: the world is dropped anyway, but keep it consistent. */
        t->count--;
        return json_fail(jl, STRATA_ERR_CORRUPT, "entity id %" PRIu64 " is out of range or used twice", e);
    }
    json_push_key(jl, "components");
    json_object_foreach(components, key, value) {
        int64_t c = json_component(jl, key);
        if (c < 0) {
            continue;
        }
        json_push_key(jl, key);
        if (!json_is_object(value)) {
            return json_fail(jl, STRATA_ERR_CORRUPT, "expected an object of fields");
        }
        const strata_type_desc_t *type = &s->component_types[c];
        unsigned char *col = t->columns[c];
        if (col != NULL) {
            if (!json_fields(jl, value, type->fields, type->count, col + (size_t)row * w->components[c].size,
                             type->name, false)) {
                return false;
            }
        } else {
            /* A tag now: whatever fields the dump has are dropped. */
            const char *field;
            json_t *ignored;
            json_object_foreach(value, field, ignored) {
                if (!json_change(jl, STRATA_CHANGE_DROPPED, false, type->name, field, NULL)) {
                    return false;
                }
            }
        }
        json_pop(jl);
    }
    json_pop(jl);
    return true;
}

/* The resources object: each resource by name or former name. */
static bool json_resources(json_load_t *jl, json_t *resources) {
    const strata_schema_t *s = jl->l->fresh->schema;
    const strata_type_desc_t *rt = s->resource_type;
    if (resources == NULL) {
        return true;
    }
    json_push_key(jl, "resources");
    if (!json_is_object(resources)) {
        return json_fail(jl, STRATA_ERR_CORRUPT, "expected an object of resources");
    }
    /* Resources are fields of the resource block: the same mapping as fields. */
    if (rt != NULL && !json_fields(jl, resources, rt->fields, rt->count, jl->l->fresh->resources, "resource", true)) {
        return false;
    }
    json_pop(jl);
    return true;
}

/* The whole document, into the loader's fresh world. */
static bool json_world(json_load_t *jl, json_t *root) {
    const strata_schema_t *s = jl->l->fresh->schema;
    strata_load_report_t *report = jl->l->report;
    if (!json_is_object(root)) {
        return json_fail(jl, STRATA_ERR_CORRUPT, "expected an object (a world dump)");
    }
    json_t *format = json_object_get(root, "strata");
    if (format != NULL && !(json_is_integer(format) && json_integer_value(format) == 1)) {
        json_push_key(jl, "strata");
        return json_fail(jl, STRATA_ERR_CORRUPT, "a dump of another format (this runtime reads 1)");
    }
    json_t *schema = json_object_get(root, "schema");
    json_push_key(jl, "schema");
    if (!json_is_string(schema)) {
        return json_fail(jl, STRATA_ERR_CORRUPT, "expected the schema's name");
    }
    const char *mine = s->save_name != NULL ? s->save_name : s->name;
    snprintf(report->schema, sizeof report->schema, "%s", json_string_value(schema));
    if (strcmp(json_string_value(schema), mine) != 0) {
        return json_fail(jl, STRATA_ERR_SCHEMA, "a dump of '%.60s'; this world loads '%.60s'",
                         json_string_value(schema), mine);
    }
    json_pop(jl);
    json_t *version = json_object_get(root, "version");
    json_push_key(jl, "version");
    if (!json_is_integer(version) || json_integer_value(version) < 1 || json_integer_value(version) > UINT32_MAX) {
        return json_fail(jl, STRATA_ERR_CORRUPT, "expected the schema's version");
    }
    report->schema_version = (uint32_t)json_integer_value(version);
    if (report->schema_version > s->version) {
        return json_fail(jl, STRATA_ERR_SCHEMA, "a dump of version %u; this world has version %u",
                         report->schema_version, s->version);
    }
    json_pop(jl);
    json_t *entities = json_object_get(root, "entities");
    json_push_key(jl, "entities");
    if (!json_is_array(entities)) {
        return json_fail(jl, STRATA_ERR_CORRUPT, "expected a list of entities");
    }
    json_pop(jl);

    /* Indices: as many as the dump says, or as its ids and free list need. */
    uint64_t count = 0;
    json_t *indices = json_object_get(root, "indices");
    if (indices != NULL) {
        json_push_key(jl, "indices");
        if (!json_is_integer(indices) || json_integer_value(indices) < 0 || json_integer_value(indices) > UINT32_MAX) {
            return json_fail(jl, STRATA_ERR_CORRUPT, "expected a count of entity indices");
        }
        count = (uint64_t)json_integer_value(indices);
        json_pop(jl);
    }
    json_t *free_list = json_object_get(root, "free");
    if (free_list != NULL && !json_is_array(free_list)) {
        json_push_key(jl, "free");
        return json_fail(jl, STRATA_ERR_CORRUPT, "expected a list of [index, generation] pairs");
    }
    size_t n = json_array_size(entities);
    for (size_t i = 0; i < n && indices == NULL; i++) {
        json_t *id = json_object_get(json_array_get(entities, i), "id");
        uint64_t u = 0;
        if (json_unsigned(id, &u) && (uint32_t)u >= count) {
            count = (uint64_t)(uint32_t)u + 1;
        }
    }
    for (size_t i = 0; i < json_array_size(free_list) && indices == NULL; i++) {
        json_t *pair = json_array_get(free_list, i);
        json_t *index = json_array_get(pair, 0);
        if (json_is_integer(index) && json_integer_value(index) >= 0 && (uint64_t)json_integer_value(index) >= count &&
            json_integer_value(index) < UINT32_MAX) {
            count = (uint64_t)json_integer_value(index) + 1;
        }
    }
    /* Every index is an entity of the dump or a free one: listed in "free",
     * or, without it, a hole the ids leave (at most one a byte of the text,
     * so that a few bytes cannot make the loader reserve gigabytes). */
    size_t listed = json_array_size(free_list);
    uint64_t most = (uint64_t)n + (free_list != NULL ? (uint64_t)listed : (uint64_t)jl->size);
    if (count > most) {
        json_push_key(jl, indices != NULL ? "indices" : free_list != NULL ? "free" : "entities");
        if (free_list != NULL) {
            return json_fail(jl, STRATA_ERR_CORRUPT, "%" PRIu64 " entity indices, but %zu entities and %zu free", count,
                             n, listed);
        }
        return json_fail(jl, STRATA_ERR_CORRUPT, "%" PRIu64 " entity indices are more than %zu bytes of JSON hold",
                         count, jl->size);
    }
    strata_result_t r = sti_loader_records(jl->l, (uint32_t)(count > UINT32_MAX ? UINT32_MAX : count));
    if (r != STRATA_OK) {
        jl->r = r;
        return false;
    }
    json_push_key(jl, "free");
    for (size_t i = 0; i < json_array_size(free_list); i++) {
        json_t *pair = json_array_get(free_list, i);
        json_push_index(jl, i);
        json_t *index = json_array_get(pair, 0), *generation = json_array_get(pair, 1);
        if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_integer(index) ||
            !json_is_integer(generation) || json_integer_value(index) < 0 || json_integer_value(index) > UINT32_MAX ||
            json_integer_value(generation) < 1 || json_integer_value(generation) > UINT32_MAX ||
            !sti_loader_free(jl->l, (uint32_t)json_integer_value(index), (uint32_t)json_integer_value(generation))) {
            return json_fail(jl, STRATA_ERR_CORRUPT, "an invalid or repeated [index, generation]");
        }
        json_pop(jl);
    }
    json_pop(jl);
    if (!json_component_map(jl, entities)) {
        return false;
    }
    json_push_key(jl, "entities");
    for (size_t i = 0; i < n; i++) {
        json_push_index(jl, i);
        if (!json_entity(jl, json_array_get(entities, i))) {
            return false;
        }
        json_pop(jl);
    }
    json_pop(jl);
    return json_resources(jl, json_object_get(root, "resources"));
}

/* The text of a JSON load (sti_load_body_fn's context). */
typedef struct json_input_t {
    const char *text;
    size_t size;
} json_input_t;

static strata_result_t json_body(sti_loader_t *l, void *ctx) {
    const json_input_t *in = ctx;
    json_load_t jl = {.l = l, .text = in->text, .size = in->size};
    json_error_t error;
    json_t *root = json_loadb(in->text != NULL ? in->text : "", in->size, JSON_REJECT_DUPLICATES, &error);
    if (root == NULL) {
        l->report->line = (uint32_t)(error.line > 0 ? error.line : 1);
        l->report->column = (uint32_t)(error.column > 0 ? error.column : 1);
        l->report->offset = (uint64_t)(error.position > 0 ? error.position : 0);
        jl.r = sti_loader_fail(l, STRATA_ERR_CORRUPT, "line %u, column %u: %s", l->report->line, l->report->column,
                               error.text);
    } else if (json_world(&jl, root)) {
        /* A dump that lists the free indices must account for all of them. */
        jl.r = sti_loader_finish(l, json_object_get(root, "free") == NULL);
    }
    json_decref(root);
    json_decref(jl.components);
    return jl.r;
}

strata_result_t strata_world_load_json_mem(strata_world_t *w, const char *text, size_t size,
                                           strata_load_report_t *report) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(text != NULL || size == 0);
    json_input_t in = {text, size};
    return sti_load_run(w, report, json_body, &in);
}

/* strata_world_load_json_mem with the binary loader's signature. */
static strata_result_t json_load_mem(strata_world_t *w, const void *data, size_t size, strata_load_report_t *report) {
    return strata_world_load_json_mem(w, data, size, report);
}

strata_result_t strata_world_load_json(strata_world_t *w, const char *path, strata_load_report_t *report) {
    return sti_load_file(w, path, report, json_load_mem);
}

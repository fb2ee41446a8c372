/* json_write.c: entities and whole worlds as JSON (docs/saves.md). Writing
 * needs nothing beyond libc, so it is part of libstrata; loading JSON
 * (json_read.c) needs yajl and lives in libstrata_json.
 *
 * Values: bool as true/false, integers as numbers (a u64 or an entity id
 * above 2^63-1 as a decimal string, since JSON readers keep integers in an
 * int64), floats in the fewest digits that read back to the same value
 * (NaN and infinities as the strings "nan", "inf", "-inf"), enums as their
 * member's name, char[N] as a string, T[N] as a list, structs as objects.
 */
#include "file.h"
#include "format.h"
#include "writer.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A newline and `depth` levels of 4-space indent, when pretty. */
static void out_indent(sti_writer_t *o, bool pretty, uint32_t depth) {
    if (!pretty) {
        return;
    }
    sti_writer_put(o, "\n", 1);
    for (uint32_t i = 0; i < depth; i++) {
        sti_writer_put(o, "    ", 4);
    }
}

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_length(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || len > n) {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0;
        }
    }
    uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1fu : len == 3 ? c & 0x0fu : c & 0x07u;
    for (size_t i = 1; i < len; i++) {
        cp = (cp << 6) | (s[i] & 0x3fu);
    }
    /* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
        return 0;
    }
    return len;
}

/* A JSON string of n bytes: UTF-8 as it is, escapes for quotes, backslashes
 * and control characters. A byte b that is not part of valid UTF-8 becomes
 * the private-use character U+F700 + b (0x80 <= b <= 0xff), and so do the
 * three bytes of any such character the text really holds, so that the
 * loader (json_read.c) can turn every one of them back into its byte: any bytes
 * survive a dump and a load. */
static void out_string(sti_writer_t *o, const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    sti_writer_put(o, "\"", 1);
    size_t run = 0; /* bytes at p[i - run, i) to copy as they are */
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        size_t len = c >= 0x20 && c != '"' && c != '\\' ? utf8_length(p + i, n - i) : 0;
        /* U+F780..U+F7FF (EF 9E 80 .. EF 9F BF) stand for single bytes: written byte by byte. */
        if (len == 3 && c == 0xef && (p[i + 1] == 0x9e || p[i + 1] == 0x9f)) {
            len = 0;
        }
        if (len > 0) {
            i += len;
            run += len;
            continue;
        }
        sti_writer_put(o, (const char *)p + i - run, run);
        run = 0;
        char esc[8];
        if (c == '"' || c == '\\') {
            snprintf(esc, sizeof esc, "\\%c", c);
        } else if (c == '\n') {
            snprintf(esc, sizeof esc, "\\n");
        } else if (c == '\t') {
            snprintf(esc, sizeof esc, "\\t");
        } else if (c < 0x80) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
        } else {
            snprintf(esc, sizeof esc, "\\u%04x", 0xf700u + c);
        }
        sti_writer_text(o, esc);
        i++;
    }
    sti_writer_put(o, (const char *)p + n - run, run);
    sti_writer_put(o, "\"", 1);
}

static void json_out_u64(sti_writer_t *o, uint64_t v) {
    char text[32];
    snprintf(text, sizeof text, v > INT64_MAX ? "\"%" PRIu64 "\"" : "%" PRIu64, v);
    sti_writer_text(o, text);
}

static void out_i64(sti_writer_t *o, int64_t v) {
    char text[32];
    snprintf(text, sizeof text, "%" PRId64, v);
    sti_writer_text(o, text);
}

/* The fewest digits that read back as the same double (or float). */
static void out_float(sti_writer_t *o, double v, bool single) {
    if (isnan(v)) {
        sti_writer_text(o, "\"nan\"");
        return;
    }
    if (isinf(v)) {
        sti_writer_text(o, v > 0 ? "\"inf\"" : "\"-inf\"");
        return;
    }
    if (v == 0 && signbit(v)) {
        sti_writer_text(o, "-0.0"); /* "-0" would read back as the integer 0 */
        return;
    }
    /* An f32 is checked the way loading reads it: as a double, then rounded. */
    char text[40];
    for (int digits = single ? 6 : 15; digits <= (single ? 9 : 17); digits++) {
        snprintf(text, sizeof text, "%.*g", digits, v);
        if (single ? (float)strtod(text, NULL) == (float)v : strtod(text, NULL) == v) {
            break;
        }
    }
    sti_writer_text(o, text);
}

static void json_out_fields(sti_writer_t *o, const strata_field_desc_t *fields, uint32_t count,
                            const unsigned char *base, bool pretty, uint32_t depth);

/* One element of field f at p. */
static void out_element(sti_writer_t *o, const strata_field_desc_t *f, const unsigned char *p, bool pretty,
                        uint32_t depth) {
    sti_scalar_t v = sti_scalar_read(f->kind, f->size, p);
    switch (f->kind) {
    case STRATA_KIND_BOOL: sti_writer_text(o, v.u ? "true" : "false"); break;
    case STRATA_KIND_I8:
    case STRATA_KIND_I16:
    case STRATA_KIND_I32:
    case STRATA_KIND_I64: out_i64(o, v.i); break;
    case STRATA_KIND_U8:
    case STRATA_KIND_U16:
    case STRATA_KIND_U32:
    case STRATA_KIND_U64:
    case STRATA_KIND_ENTITY: json_out_u64(o, v.u); break;
    case STRATA_KIND_F32:
    case STRATA_KIND_F64: out_float(o, v.f, f->kind == STRATA_KIND_F32); break;
    case STRATA_KIND_ENUM:
        if (v.i >= 0 && v.i < (int64_t)f->type->count) {
            out_string(o, f->type->members[v.i], strlen(f->type->members[v.i]));
        } else {
            out_i64(o, v.i); /* not a member: the number, which loading rejects */
        }
        break;
    case STRATA_KIND_STRING: {
        const char *s = (const char *)p;
        const char *nul = memchr(s, 0, f->size);
        out_string(o, s, nul != NULL ? (size_t)(nul - s) : f->size);
        break;
    }
    case STRATA_KIND_STRUCT: json_out_fields(o, f->type->fields, f->type->count, p, pretty, depth); break;
    default: sti_writer_text(o, "null"); break;
    }
}

/* An object of `count` fields of the value at base. */
static void json_out_fields(sti_writer_t *o, const strata_field_desc_t *fields, uint32_t count,
                            const unsigned char *base, bool pretty, uint32_t depth) {
    if (count == 0) {
        sti_writer_text(o, "{}");
        return;
    }
    sti_writer_put(o, "{", 1);
    for (uint32_t i = 0; i < count; i++) {
        const strata_field_desc_t *f = &fields[i];
        if (i > 0) {
            sti_writer_put(o, pretty ? "," : ", ", pretty ? 1 : 2);
        }
        out_indent(o, pretty, depth + 1);
        out_string(o, f->name, strlen(f->name));
        sti_writer_put(o, ": ", 2);
        const unsigned char *p = base + f->offset;
        if (!f->array) {
            out_element(o, f, p, pretty, depth + 1);
            continue;
        }
        sti_writer_put(o, "[", 1);
        for (uint32_t j = 0; j < f->count; j++) {
            if (j > 0) {
                sti_writer_put(o, pretty ? "," : ", ", pretty ? 1 : 2);
            }
            out_indent(o, pretty, depth + 2);
            out_element(o, f, p + (size_t)j * f->size, pretty, depth + 2);
        }
        out_indent(o, pretty, depth + 1);
        sti_writer_put(o, "]", 1);
    }
    out_indent(o, pretty, depth);
    sti_writer_put(o, "}", 1);
}

/* The links of e in non-exclusive relation r: {"targets": [id, ...]}. */
static void out_targets(sti_writer_t *o, const strata_world_t *w, uint32_t r, strata_entity_t e, bool pretty,
                        uint32_t depth) {
    uint32_t n = 0;
    const strata_entity_t *targets = strata_relation_targets(w, r, e, &n);
    sti_writer_put(o, "{", 1);
    out_indent(o, pretty, depth + 1);
    sti_writer_text(o, "\"targets\": [");
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0) {
            sti_writer_put(o, ", ", 2);
        }
        json_out_u64(o, targets[i]);
    }
    sti_writer_put(o, "]", 1);
    out_indent(o, pretty, depth);
    sti_writer_put(o, "}", 1);
}

/* One entity: {"id": ..., "components": {...}} in component order. */
static void out_entity(sti_writer_t *o, const strata_world_t *w, const sti_record_t *rec, strata_entity_t e,
                       bool pretty, uint32_t depth) {
    const strata_schema_t *s = w->schema;
    const sti_table_t *t = w->tables[rec->table];
    sti_writer_put(o, "{", 1);
    out_indent(o, pretty, depth + 1);
    sti_writer_text(o, "\"id\": ");
    json_out_u64(o, e);
    sti_writer_put(o, pretty ? "," : ", ", pretty ? 1 : 2);
    out_indent(o, pretty, depth + 1);
    sti_writer_text(o, "\"components\": {");
    bool first = true;
    for (uint32_t c = 0; c < w->component_count; c++) {
        if (!sti_has(w, t, rec->row, c)) {
            continue;
        }
        const strata_type_desc_t *type = &s->component_types[c];
        if (!first) {
            sti_writer_put(o, pretty ? "," : ", ", pretty ? 1 : 2);
        }
        first = false;
        out_indent(o, pretty, depth + 2);
        out_string(o, type->name, strlen(type->name));
        sti_writer_put(o, ": ", 2);
        int32_t r = sti_relation_of_tag(w, c);
        if (r >= 0) {
            out_targets(o, w, (uint32_t)r, e, pretty, depth + 2);
            continue;
        }
        const unsigned char *value = sti_cell(w, t, c, rec->row);
        json_out_fields(o, type->fields, value != NULL ? type->count : 0, value, pretty, depth + 2);
    }
    if (!first) {
        out_indent(o, pretty, depth + 1);
    }
    sti_writer_put(o, "}", 1);
    out_indent(o, pretty, depth);
    sti_writer_put(o, "}", 1);
}

static void out_world(sti_writer_t *o, const strata_world_t *w);

/* One entity (at rec, pretty or not, with a newline when pretty), or with
 * rec NULL the whole world. */
static void out_json(sti_writer_t *o, const strata_world_t *w, const sti_record_t *rec, strata_entity_t e,
                     bool pretty) {
    if (rec == NULL) {
        out_world(o, w);
        return;
    }
    out_entity(o, w, rec, e, pretty, 0);
    if (pretty) {
        sti_writer_put(o, "\n", 1);
    }
}

/* out_json into f through a staging buffer from the world's allocator. */
static strata_result_t out_json_file(const strata_world_t *w, FILE *f, const sti_record_t *rec, strata_entity_t e,
                                     bool pretty) {
    struct {
        sti_writer_t sink;
        unsigned char stage[8192];
    } *o = w->allocator.alloc(sizeof *o, w->allocator.user);
    if (o == NULL) {
        return STRATA_ERR_NOMEM;
    }
    o->sink = (sti_writer_t){.file = f, .stage = o->stage, .stage_cap = sizeof o->stage};
    out_json(&o->sink, w, rec, e, pretty);
    sti_writer_flush(&o->sink);
    bool failed = o->sink.failed;
    w->allocator.free(o, sizeof *o, w->allocator.user);
    return failed ? STRATA_ERR_IO : STRATA_OK;
}

strata_result_t strata_entity_write_json(const strata_world_t *w, strata_entity_t e, FILE *f, unsigned flags) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(f != NULL);
    STRATA_ASSERT(sti_save_reflected(w));
    const sti_record_t *rec = sti_record_lookup(w, e);
    if (rec == NULL) {
        return STRATA_ERR_STALE;
    }
    return out_json_file(w, f, rec, e, (flags & STRATA_JSON_PRETTY) != 0);
}

size_t strata_entity_json(const strata_world_t *w, strata_entity_t e, char *buf, size_t cap, unsigned flags) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(buf != NULL || cap == 0);
    STRATA_ASSERT(sti_save_reflected(w));
    const sti_record_t *rec = sti_record_lookup(w, e);
    if (rec == NULL) {
        if (cap > 0) {
            buf[0] = '\0';
        }
        return 0;
    }
    sti_writer_t o = {.mem = (unsigned char *)buf, .cap = cap > 0 ? cap - 1 : 0}; /* room for the NUL */
    out_entity(&o, w, rec, e, (flags & STRATA_JSON_PRETTY) != 0, 0);
    if (cap > 0) {
        buf[o.pos < cap - 1 ? o.pos : cap - 1] = '\0';
    }
    return o.pos;
}

/* The whole world: the schema, the entity index, resources, then one entity a line. */
static void out_world(sti_writer_t *o, const strata_world_t *w) {
    const strata_schema_t *s = w->schema;
    char line[160];
    sti_writer_text(o, "{\n\"strata\": 1,\n\"schema\": ");
    const char *name = s->save_name != NULL ? s->save_name : s->name;
    out_string(o, name, strlen(name));
    snprintf(line, sizeof line, ",\n\"version\": %" PRIu32 ",\n\"indices\": %" PRIu32 ",\n\"free\": [", s->version,
             w->record_count);
    sti_writer_text(o, line);
    for (uint32_t i = w->free_head, n = 0; i != STI_NO_INDEX && n < w->free_count; i = w->records[i].row, n++) {
        snprintf(line, sizeof line, "%s[%" PRIu32 ", %" PRIu32 "]", n > 0 ? ", " : "", i, w->records[i].generation);
        sti_writer_text(o, line);
    }
    sti_writer_text(o, "],\n\"resources\": {");
    const strata_type_desc_t *rt = s->resource_type;
    for (uint32_t i = 0; rt != NULL && i < rt->count; i++) {
        const strata_field_desc_t *f = &rt->fields[i];
        sti_writer_text(o, i > 0 ? ",\n  " : "\n  ");
        out_string(o, f->name, strlen(f->name));
        sti_writer_put(o, ": ", 2);
        json_out_fields(o, f->type->fields, f->type->count, (const unsigned char *)w->resources + f->offset, false, 0);
    }
    sti_writer_text(o, rt != NULL && rt->count > 0 ? "\n},\n\"entities\": [" : "},\n\"entities\": [");
    bool first = true;
    for (uint32_t t = 0; t < w->table_count; t++) {
        const sti_table_t *table = w->tables[t];
        for (uint32_t row = 0; row < table->count; row++) {
            strata_entity_t e = table->entities[row];
            sti_writer_text(o, first ? "\n  " : ",\n  ");
            first = false;
            out_entity(o, w, &w->records[(uint32_t)e], e, false, 0);
        }
    }
    sti_writer_text(o, first ? "]\n}\n" : "\n]\n}\n");
}

strata_result_t strata_world_write_json(const strata_world_t *w, FILE *f) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(f != NULL);
    if (!sti_save_reflected(w)) {
        return STRATA_ERR_SCHEMA;
    }
    return out_json_file(w, f, NULL, 0, false);
}

strata_result_t strata_world_write_json_mem(const strata_world_t *w, char *buf, size_t cap, size_t *size) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(size != NULL);
    STRATA_ASSERT(buf != NULL || cap == 0);
    if (!sti_save_reflected(w)) {
        return STRATA_ERR_SCHEMA;
    }
    sti_writer_t o = {.mem = (unsigned char *)buf, .cap = cap};
    out_world(&o, w);
    *size = o.pos;
    return o.pos <= cap ? STRATA_OK : STRATA_ERR_LIMIT;
}

strata_result_t strata_world_save_json(const strata_world_t *w, const char *path) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(path != NULL);
    char tmp[4096];
    FILE *f = sti_file_begin(path, tmp, sizeof tmp);
    if (f == NULL) {
        return STRATA_ERR_IO;
    }
    strata_result_t r = strata_world_write_json(w, f);
    strata_result_t c = sti_file_commit(f, tmp, path, r == STRATA_OK);
    return r != STRATA_OK ? r : c;
}

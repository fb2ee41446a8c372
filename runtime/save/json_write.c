/* json_write.c: entities and whole worlds as JSON (docs/saves.md). Writing
 * needs nothing beyond libc, so it is part of libstrata; loading JSON
 * (json_read.c) needs yajl and lives in libstrata_json.
 *
 * Values are spelled by the codec the loader and the inspector read with
 * (value.h); T[N] as a list, structs as objects.
 */
#include "file.h"
#include "format.h"
#include "value.h"
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

/* sti_value_put_t into the writer. */
static void json_out_put(void *ctx, const char *s, size_t n) {
    sti_writer_put(ctx, s, n);
}

/* A JSON string of n bytes (value.h's rule for char[N]: any bytes survive). */
static void out_string(sti_writer_t *o, const char *s, size_t n) {
    sti_value_string(s, n, json_out_put, o);
}

/* An entity id as value.h spells an entity field. */
static void json_out_u64(sti_writer_t *o, uint64_t v) {
    static const strata_field_desc_t id = {.name = "id",
                                           .size = sizeof(uint64_t),
                                           .count = 1,
                                           .kind = STRATA_KIND_ENTITY};
    sti_value_encode(&id, (const unsigned char *)&v, json_out_put, o);
}

static void json_out_fields(sti_writer_t *o, const strata_field_desc_t *fields, uint32_t count,
                            const unsigned char *base, bool pretty, uint32_t depth);

/* One element of field f at p: a struct's fields, or value.h's spelling. */
static void out_element(sti_writer_t *o, const strata_field_desc_t *f, const unsigned char *p, bool pretty,
                        uint32_t depth) {
    if (f->kind == STRATA_KIND_STRUCT) {
        json_out_fields(o, f->type->fields, f->type->count, p, pretty, depth);
    } else {
        sti_value_encode(f, p, json_out_put, o);
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

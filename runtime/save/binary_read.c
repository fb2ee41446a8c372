/* binary_read.c: loading a binary save (docs/saves.md) made by this schema
 * or an older version of it: the header and layout are read and checked,
 * the layout mapped onto the schema by the evolution rules (evolve.h) into
 * a list of copy operations per component, then the tables and resources
 * decoded into a fresh world (loader.h) that replaces the target only when
 * everything succeeded. */
#include "binary.h"
#include "evolve.h"
#include "file.h"
#include "format.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* A field of the save's layout. */
typedef struct file_field_t {
    const unsigned char *name; /* in the file's bytes */
    uint16_t name_len;
    uint8_t kind;
    bool array;
    uint32_t size;                /* C bytes of an element when saved (char[N]: N) */
    uint32_t count;               /* elements */
    uint32_t bytes;               /* encoded bytes of one element */
    uint32_t member_count;        /* ENUM */
    const unsigned char *members; /* ENUM: the first member name's length prefix */
    uint32_t field_count;         /* STRUCT */
    struct file_field_t *fields;
} file_field_t;

/* A component or resource of the save's layout, and how it maps. */
typedef struct file_value_t {
    const unsigned char *name;
    uint16_t name_len;
    uint32_t field_count;
    file_field_t *fields;
    uint32_t bytes; /* encoded bytes of one value */
    int64_t target; /* component id / resource field index, -1 if dropped */
    struct load_op_t *ops;
    uint32_t op_count, op_capacity;
    bool raw;      /* a column copies as it is */
    uint64_t rows; /* entities that had it */
} file_value_t;

/* What an op does with each element. */
enum {
    LOAD_COPY,    /* convert losslessly (or copy) */
    LOAD_CHECKED, /* a migration's narrowing: convert, and count the rows whose values change */
    LOAD_TAIL,    /* a migration's shorter array: count the rows whose dropped elements are not zero */
};

/* One run of elements to convert from the save into the schema's value. */
typedef struct load_op_t {
    uint32_t src, dst;           /* offsets: in the encoded value, in the C value */
    uint32_t count;              /* elements */
    uint32_t src_size, dst_size; /* bytes of an element: encoded, C */
    uint8_t src_kind, dst_kind;
    uint8_t mode;              /* LOAD_* */
    int64_t lost;              /* a migration: the LOST change its lost values count in, or -1 */
    const file_field_t *field; /* for messages and enum member names */
    uint32_t *enum_map;        /* ENUM: the schema's value of each saved value (UINT32_MAX: gone) */
} load_op_t;

/* A block of layout fields; blocks are chained and freed together. */
typedef struct load_block_t {
    struct load_block_t *next;
    size_t count, used;
    file_field_t items[];
} load_block_t;

/* The state of one binary load. */
typedef struct load_t {
    sti_loader_t *l;
    const sti_load_opts_t *opts; /* a migration's options (zero for a load) */
    const unsigned char *data;
    size_t size, pos;
    strata_result_t r;    /* the first error */
    load_block_t *blocks; /* every file_field_t, newest block first */
    file_value_t *components, *resources;
    uint32_t component_count, resource_count;
    uint32_t format;            /* the save's format version */
    struct load_links_t *links; /* format 2: each saved non-exclusive relation's links */
    uint32_t link_count;
} load_t;

/* The links of one saved non-exclusive relation (format 2), found in the
 * file before the tables and filed after them. */
typedef struct load_links_t {
    int64_t component; /* the saved component of its tag */
    size_t at;         /* its first source in the file */
    uint32_t sources;
} load_links_t;

static bool load_fail(load_t *ld, strata_result_t r, size_t offset, const char *what) {
    if (ld->r == STRATA_OK) {
        ld->r = r;
        ld->l->report->offset = offset;
        sti_loader_fail(ld->l, r, "offset %zu: %s", offset, what);
    }
    return false;
}

/* True if n more bytes are there; else reports `what` as truncated. */
static bool load_need(load_t *ld, uint64_t n, const char *what) {
    if (ld->r != STRATA_OK) {
        return false;
    }
    if (n > ld->size - ld->pos) {
        char msg[160];
        snprintf(msg, sizeof msg, "truncated %s: needs %" PRIu64 " bytes, %zu left", what, n, ld->size - ld->pos);
        return load_fail(ld, STRATA_ERR_CORRUPT, ld->pos, msg);
    }
    return true;
}

static uint32_t load_u32(load_t *ld, const char *what) {
    if (!load_need(ld, 4, what)) {
        return 0;
    }
    ld->pos += 4;
    return sti_get32(ld->data + ld->pos - 4);
}

static uint8_t load_u8(load_t *ld, const char *what) {
    if (!load_need(ld, 1, what)) {
        return 0;
    }
    return ld->data[ld->pos++];
}

/* A string: its bytes stay in the file; *len gets the length. */
static const unsigned char *load_str(load_t *ld, uint16_t *len, const char *what) {
    *len = 0;
    if (!load_need(ld, 2, what)) {
        return NULL;
    }
    uint16_t n = sti_get16(ld->data + ld->pos);
    ld->pos += 2;
    if (!load_need(ld, n, what)) {
        return NULL;
    }
    *len = n;
    ld->pos += n;
    return ld->data + ld->pos - n;
}

/* True if the saved name (bytes, len) is the C string s. */
static bool name_is(const unsigned char *name, uint16_t len, const char *s) {
    return s != NULL && strlen(s) == len && memcmp(name, s, len) == 0;
}

/* Room for `n` more layout fields; the file must hold at least 18 bytes
 * for each, so a corrupt count cannot ask for much memory. */
static file_field_t *load_fields_alloc(load_t *ld, uint32_t n) {
    if ((uint64_t)n * 18 > ld->size - ld->pos) {
        load_need(ld, (uint64_t)n * 18, "field list");
        return NULL;
    }
    load_block_t *b = ld->blocks;
    if (b == NULL || b->count - b->used < n) {
        const strata_world_t *w = ld->l->fresh;
        size_t count = n > 256 ? n : 256;
        b = w->allocator.alloc(sizeof(load_block_t) + sizeof(file_field_t) * count, w->allocator.user);
        if (b == NULL) {
            load_fail(ld, STRATA_ERR_NOMEM, ld->pos, "out of memory");
            return NULL;
        }
        b->next = ld->blocks;
        b->count = count;
        b->used = 0;
        ld->blocks = b;
    }
    file_field_t *f = b->items + b->used;
    b->used += n;
    memset(f, 0, sizeof *f * n);
    return f;
}

/* Read `count` fields (recursively); returns their encoded bytes in *bytes. */
static bool load_fields(load_t *ld, file_field_t *fields, uint32_t count, uint32_t depth, uint32_t *bytes) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < count; i++) {
        file_field_t *f = &fields[i];
        size_t at = ld->pos;
        f->name = load_str(ld, &f->name_len, "field name");
        f->kind = load_u8(ld, "field kind");
        f->array = load_u8(ld, "field flags") != 0;
        load_u8(ld, "field flags");
        load_u8(ld, "field flags");
        load_u32(ld, "field offset");
        f->size = load_u32(ld, "field size");
        f->count = load_u32(ld, "field count");
        if (ld->r != STRATA_OK) {
            return false;
        }
        if (f->kind < STRATA_KIND_BOOL || f->kind > STRATA_KIND_STRING || f->count == 0 ||
            (f->kind == STRATA_KIND_STRING && f->size == 0)) {
            return load_fail(ld, STRATA_ERR_CORRUPT, at, "invalid field description");
        }
        if (f->kind == STRATA_KIND_ENUM) {
            f->member_count = load_u32(ld, "enum member count");
            f->members = ld->data + ld->pos;
            for (uint32_t m = 0; m < f->member_count && ld->r == STRATA_OK; m++) {
                uint16_t len;
                load_str(ld, &len, "enum member name");
            }
            f->bytes = 4;
        } else if (f->kind == STRATA_KIND_STRUCT) {
            if (depth >= STI_SAVE_MAX_DEPTH) {
                return load_fail(ld, STRATA_ERR_CORRUPT, at, "structs nested too deep");
            }
            f->field_count = load_u32(ld, "struct field count");
            f->fields = ld->r == STRATA_OK ? load_fields_alloc(ld, f->field_count) : NULL;
            if (ld->r != STRATA_OK || !load_fields(ld, f->fields, f->field_count, depth + 1, &f->bytes)) {
                return false;
            }
        } else {
            f->bytes = f->kind == STRATA_KIND_STRING ? f->size : sti_kind_bytes(f->kind);
        }
        total += (uint64_t)f->bytes * f->count;
        if (total > UINT32_MAX) {
            return load_fail(ld, STRATA_ERR_CORRUPT, at, "value too large");
        }
    }
    *bytes = (uint32_t)total;
    return ld->r == STRATA_OK;
}

/* Read the components' or resources' layout. */
static bool load_values(load_t *ld, file_value_t **out, uint32_t *count, const char *what) {
    uint32_t n = load_u32(ld, what);
    if (ld->r != STRATA_OK || !load_need(ld, (uint64_t)n * 10, what)) {
        return false;
    }
    const strata_world_t *w = ld->l->fresh;
    file_value_t *values = w->allocator.alloc(sizeof(file_value_t) * (n + 1), w->allocator.user);
    if (values == NULL) {
        return load_fail(ld, STRATA_ERR_NOMEM, ld->pos, "out of memory");
    }
    memset(values, 0, sizeof(file_value_t) * (n + 1));
    *out = values;
    *count = n;
    for (uint32_t i = 0; i < n && ld->r == STRATA_OK; i++) {
        file_value_t *v = &values[i];
        size_t at = ld->pos;
        v->name = load_str(ld, &v->name_len, "name");
        load_u32(ld, "size");
        v->field_count = load_u32(ld, "field count");
        v->target = -1;
        if (ld->r != STRATA_OK) {
            break;
        }
        v->fields = load_fields_alloc(ld, v->field_count);
        if (ld->r == STRATA_OK) {
            load_fields(ld, v->fields, v->field_count, 0, &v->bytes);
        }
        for (uint32_t j = 0; j < i && ld->r == STRATA_OK; j++) {
            if (values[j].name_len == v->name_len && memcmp(values[j].name, v->name, v->name_len) == 0) {
                load_fail(ld, STRATA_ERR_CORRUPT, at, "a name appears twice in the layout");
            }
        }
    }
    return ld->r == STRATA_OK;
}

/* --- Mapping the save's layout onto the schema ------------------------------- */

static bool op_push(load_t *ld, file_value_t *v, load_op_t op) {
    const strata_world_t *w = ld->l->fresh;
    if (v->op_count == v->op_capacity) {
        uint32_t cap = v->op_capacity ? v->op_capacity * 2 : 8;
        load_op_t *ops = w->allocator.realloc(v->ops, sizeof(load_op_t) * v->op_capacity, sizeof(load_op_t) * cap,
                                              w->allocator.user);
        if (ops == NULL) {
            return load_fail(ld, STRATA_ERR_NOMEM, ld->pos, "out of memory");
        }
        v->ops = ops;
        v->op_capacity = cap;
    }
    v->ops[v->op_count++] = op;
    return true;
}

/* A list of saved names (the layout's fields, components or resources):
 * each item starts with its name and length. */
typedef struct saved_list_t {
    const void *items;
    size_t stride;
    uint32_t count;
} saved_list_t;

static const file_field_t *saved_item(const saved_list_t *list, uint32_t i) {
    /* file_field_t and file_value_t both begin with name, name_len. */
    return (const file_field_t *)(const void *)((const char *)list->items + (size_t)i * list->stride);
}

/* The index of the item spelled name[0..len), or -1. */
static int64_t saved_list_find(const saved_list_t *list, const char *name, size_t len) {
    for (uint32_t i = 0; i < list->count; i++) {
        const file_field_t *f = saved_item(list, i);
        if (f->name_len == len && memcmp(f->name, name, len) == 0) {
            return i;
        }
    }
    return -1;
}

static const void *saved_element(const void *set, const char *name, size_t len) {
    int64_t i = saved_list_find(set, name, len);
    return i >= 0 ? saved_item(set, (uint32_t)i) : NULL;
}

static bool load_change(load_t *ld, strata_change_kind_t kind, int64_t counted, const char *path, const char *name,
                        size_t len, const char *former) {
    if (sti_evolve_note(ld->l, kind, counted, false, path, name, len, former) != STRATA_OK) {
        ld->r = STRATA_ERR_NOMEM;
        return false;
    }
    return true;
}

static bool load_map_struct(load_t *ld, file_value_t *v, int64_t counted, file_field_t *ff, uint32_t fcount,
                            const strata_field_desc_t *tf, uint32_t tcount, uint32_t src, uint32_t dst,
                            const char *path, bool report);

/* Note a LOST change of a migration, `path.name (reason)`, once (a field
 * met again, as in the next element of an array, finds its note); returns
 * its index in the loader's changes, or -1 when out of memory. */
static int64_t load_lost(load_t *ld, int64_t counted, const char *path, const char *name, const char *reason) {
    sti_loader_t *l = ld->l;
    char full[sizeof l->changes[0].name];
    snprintf(full, sizeof full, "%s%s%s (%s)", path, path[0] ? "." : "", name, reason);
    for (uint32_t i = 0; i < l->change_count; i++) {
        if (l->changes[i].kind == STRATA_CHANGE_LOST && strcmp(l->changes[i].name, full) == 0) {
            return i;
        }
    }
    if (sti_loader_change(l, STRATA_CHANGE_LOST, counted, "%s", full) != STRATA_OK) {
        ld->r = STRATA_ERR_NOMEM;
        return -1;
    }
    return (int64_t)l->change_count - 1;
}

/* "f32 to i8", "f32[5] to f32[4]": a type change in a LOST note. */
static void load_change_reason(char *out, size_t size, const file_field_t *f, const strata_field_desc_t *t,
                               bool counts) {
    char from[48], to[48];
    sti_evolve_type_name(from, sizeof from, f->kind, f->array || counts, f->size, f->count);
    sti_evolve_type_name(to, sizeof to, t->kind, t->array || counts, t->size, t->count);
    snprintf(out, size, "%s to %s", from, to);
}

/* A migration's field whose type change is not lossless: where the kinds
 * convert, the first elements that fit (a checked op when the element
 * type narrows) and a tail op for those an array drops; else every value
 * is lost and the field keeps its default. *n gets the elements to carry,
 * *checked the note of a narrowing (-1: none). False on NOMEM. */
static bool load_map_lossy(load_t *ld, file_value_t *v, int64_t counted, const file_field_t *f,
                           const strata_field_desc_t *t, uint32_t src, const char *path, uint32_t *n,
                           int64_t *checked) {
    char reason[120];
    *n = 0;
    *checked = -1;
    sti_evolve_type_t from = {f->kind, f->array, f->size, f->count};
    if (!sti_evolve_convertible(from, t)) {
        load_change_reason(reason, sizeof reason, f, t, false);
        return load_lost(ld, counted, path, t->name, reason) >= 0; /* counted: every row holding it */
    }
    *n = f->count < t->count ? f->count : t->count;
    if (f->count > t->count) {
        load_change_reason(reason, sizeof reason, f, t, true);
        int64_t lost = load_lost(ld, -2, path, t->name, reason);
        load_op_t tail =
            {src + *n * f->bytes, 0, f->count - *n, f->bytes, 0, f->kind, t->kind, LOAD_TAIL, lost, f, NULL};
        if (lost < 0 || !op_push(ld, v, tail)) {
            return false;
        }
    }
    bool narrows = f->kind == STRATA_KIND_STRING ? f->size > t->size
                                                 : f->kind != t->kind && !sti_evolve_lossless(f->kind, t->kind);
    if (narrows) {
        load_change_reason(reason, sizeof reason, f, t, false);
        *checked = load_lost(ld, -2, path, t->name, reason);
        return *checked >= 0;
    }
    return true;
}

/* Map saved field f (encoded at src) onto the schema's field t (at dst). */
static bool load_map_field(load_t *ld, file_value_t *v, int64_t counted, file_field_t *f, const strata_field_desc_t *t,
                           uint32_t src, uint32_t dst, const char *path, bool report) {
    char why[160];
    int convert = sti_evolve_convert((sti_evolve_type_t){f->kind, f->array, f->size, f->count}, t, why, sizeof why);
    uint32_t n = f->count;
    int64_t checked = -1;
    if (convert == 0 && ld->l->by_value) {
        if (!load_map_lossy(ld, v, counted, f, t, src, path, &n, &checked)) {
            return false;
        }
    } else if (convert == 0) {
        ld->l->report->offset = 0;
        if (ld->r == STRATA_OK) {
            ld->r = STRATA_ERR_SCHEMA;
            sti_loader_fail(ld->l, STRATA_ERR_SCHEMA, "field '%s%s%s': %s", path, path[0] ? "." : "", t->name, why);
        }
        return false;
    } else if (report && convert == 2 &&
               !load_change(ld, STRATA_CHANGE_CONVERTED, counted, path, t->name, strlen(t->name), NULL)) {
        return false;
    }
    if (n == 0) {
        return true;
    }
    if (f->kind == STRATA_KIND_STRUCT) {
        char sub[200];
        snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", t->name);
        for (uint32_t i = 0; i < n; i++) {
            if (!load_map_struct(ld, v, counted, f->fields, f->field_count, t->type->fields, t->type->count,
                                 src + i * f->bytes, dst + i * t->size, sub, report && i == 0)) {
                return false;
            }
        }
        return true;
    }
    load_op_t op = {src,     dst, n,   f->bytes, t->size, f->kind, t->kind, checked >= 0 ? LOAD_CHECKED : LOAD_COPY,
                    checked, f,   NULL};
    if (f->kind == STRATA_KIND_ENUM) {
        const strata_world_t *w = ld->l->fresh;
        op.enum_map = w->allocator.alloc(sizeof(uint32_t) * (f->member_count + 1), w->allocator.user);
        if (op.enum_map == NULL) {
            return load_fail(ld, STRATA_ERR_NOMEM, ld->pos, "out of memory");
        }
        const unsigned char *p = f->members;
        bool gone = false;
        for (uint32_t m = 0; m < f->member_count; m++) {
            uint16_t len = sti_get16(p);
            op.enum_map[m] = UINT32_MAX;
            for (uint32_t j = 0; j < t->type->count; j++) {
                if (name_is(p + 2, len, t->type->members[j])) {
                    op.enum_map[m] = j;
                }
            }
            gone = gone || op.enum_map[m] == UINT32_MAX;
            p += 2 + len;
        }
        /* A migration keeps the default where a saved value's member is gone. */
        if (gone && ld->l->by_value && (op.lost = load_lost(ld, -2, path, t->name, "an enum member gone")) < 0) {
            w->allocator.free(op.enum_map, sizeof(uint32_t) * (f->member_count + 1), w->allocator.user);
            return false;
        }
        if (!op_push(ld, v, op)) {
            w->allocator.free(op.enum_map, sizeof(uint32_t) * (f->member_count + 1), w->allocator.user);
            return false;
        }
        return true;
    }
    return op_push(ld, v, op);
}

/* Map saved fields ff (at src) onto the schema's fields tf (at dst) by the
 * evolution rules (evolve.h); with `report`, note what changed. */
static bool load_map_struct(load_t *ld, file_value_t *v, int64_t counted, file_field_t *ff, uint32_t fcount,
                            const strata_field_desc_t *tf, uint32_t tcount, uint32_t src, uint32_t dst,
                            const char *path, bool report) {
    saved_list_t list = {ff, sizeof *ff, fcount};
    sti_evolve_saved_t saved = {&list, saved_element};
    sti_evolve_names_t names = sti_evolve_fields(tf, tcount);
    for (uint32_t j = 0; j < tcount; j++) {
        const strata_field_desc_t *t = &tf[j];
        const char *former;
        const file_field_t *from = sti_evolve_source(&names, j, &saved, &former);
        if (from == NULL) {
            if (report && !load_change(ld, STRATA_CHANGE_ADDED, counted, path, t->name, strlen(t->name), NULL)) {
                return false;
            }
            continue;
        }
        int64_t match = from - ff;
        if (report && former != NULL &&
            !load_change(ld, STRATA_CHANGE_RENAMED, counted, path, t->name, strlen(t->name), former)) {
            return false;
        }
        uint32_t at = src;
        for (int64_t i = 0; i < match; i++) {
            at += ff[i].bytes * ff[i].count;
        }
        if (!load_map_field(ld, v, counted, &ff[match], t, at, dst + t->offset, path, report)) {
            return false;
        }
    }
    for (uint32_t i = 0; report && i < fcount; i++) {
        const char *name = (const char *)ff[i].name;
        if (sti_evolve_target(&names, &saved, name, ff[i].name_len) < 0 &&
            !load_change(ld, STRATA_CHANGE_DROPPED, counted, path, name, ff[i].name_len, NULL)) {
            return false;
        }
    }
    return true;
}

/* True if v's ops copy a whole column as it is: same kinds, same offsets,
 * covering the schema's value exactly (little-endian host). */
static bool load_raw(const file_value_t *v, uint32_t size) {
    if (!sti_little_endian() || v->bytes != size) {
        return false;
    }
    uint32_t at = 0;
    for (uint32_t i = 0; i < v->op_count; i++) {
        const load_op_t *op = &v->ops[i];
        if (op->mode != LOAD_COPY || op->src != at || op->dst != at || op->src_kind != op->dst_kind ||
            op->src_kind == STRATA_KIND_BOOL || op->src_kind == STRATA_KIND_ENUM ||
            op->src_kind == STRATA_KIND_STRING || op->src_size != op->dst_size) {
            return false;
        }
        at += op->src_size * op->count;
    }
    return at == size;
}

/* True if a migration's saving world held saved component v as a relation's links. */
static bool load_source_relation(const load_t *ld, const file_value_t *v) {
    const strata_schema_t *source = ld->opts->source;
    for (uint32_t r = 0; ld->l->by_value && source != NULL && r < source->relation_count; r++) {
        const char *name = source->component_types[source->relations[r].component].name;
        if (name_is(v->name, v->name_len, name)) {
            return true;
        }
    }
    return false;
}

/* Map the saved components (or resources) onto the schema's, and their
 * fields onto its fields; note what changed. */
static bool load_map_values(load_t *ld, file_value_t *values, uint32_t count, bool resources) {
    const strata_schema_t *s = ld->l->fresh->schema;
    const strata_type_desc_t *rt = sti_save_resources(s);
    sti_evolve_names_t names = resources ? sti_evolve_fields(rt != NULL ? rt->fields : NULL, rt != NULL ? rt->count : 0)
                                         : sti_evolve_components(s);
    saved_list_t list = {values, sizeof *values, count};
    sti_evolve_saved_t saved = {&list, saved_element};
    const char *path = resources ? "resource" : "";
    for (uint32_t i = 0; i < names.count; i++) {
        const strata_type_desc_t *t = resources ? rt->fields[i].type : &s->component_types[i];
        const char *name = resources ? rt->fields[i].name : t->name;
        const char *former;
        const file_value_t *from = sti_evolve_source(&names, i, &saved, &former);
        if (from == NULL) {
            if (!load_change(ld, STRATA_CHANGE_ADDED, resources ? -1 : -2, path, name, strlen(name), NULL)) {
                return false;
            }
            continue;
        }
        int64_t match = from - values;
        int64_t counted = resources ? -1 : match;
        file_value_t *v = &values[match];
        v->target = i;
        if (former != NULL && !load_change(ld, STRATA_CHANGE_RENAMED, counted, path, name, strlen(name), former)) {
            return false;
        }
        char sub[100];
        snprintf(sub, sizeof sub, "%s%s%.63s", path, path[0] ? "." : "", name); /* names are at most 63 characters */
        uint32_t dst = resources ? rt->fields[i].offset : 0;
        /* A migration loses the values of a component turned into a tag (one note, not one a field). */
        bool tagged = ld->l->by_value && !resources && t->size == 0 && v->bytes > 0;
        if (tagged && load_lost(ld, counted, "", name, "now a tag") < 0) {
            return false;
        }
        if (!load_map_struct(ld, v, counted, v->fields, v->field_count, t->fields, t->count, 0, dst, sub, !tagged)) {
            return false;
        }
        v->raw = !resources && t->size > 0 && load_raw(v, t->size);
    }
    for (uint32_t i = 0; i < count; i++) {
        const file_value_t *v = &values[i];
        if (sti_evolve_target(&names, &saved, (const char *)v->name, v->name_len) >= 0) {
            continue;
        }
        if (!resources && load_source_relation(ld, v)) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)v->name_len, (const char *)v->name);
            if (load_lost(ld, i, "", name, "relation dropped, with its links") < 0) {
                return false;
            }
        } else if (!load_change(ld, STRATA_CHANGE_DROPPED, resources ? -1 : (int64_t)i, path, (const char *)v->name,
                                v->name_len, NULL)) {
            return false;
        }
    }
    return true;
}

/* Map every saved component and resource onto the schema; report the rest. */
static bool load_map(load_t *ld) {
    return load_map_values(ld, ld->components, ld->component_count, false) &&
           load_map_values(ld, ld->resources, ld->resource_count, true);
}

/* --- Decoding values --------------------------------------------------------- */

/* The element encoded at s as the host's C value of scalar kind k, read. */
static sti_scalar_t load_scalar(uint8_t k, uint32_t size, const unsigned char *s) {
    unsigned char host[8];
    switch (sti_kind_bytes(k)) {
    case 1: host[0] = s[0]; break;
    case 2: {
        uint16_t x = sti_get16(s);
        memcpy(host, &x, 2);
        break;
    }
    case 4: {
        uint32_t x = sti_get32(s);
        memcpy(host, &x, 4);
        break;
    }
    default: {
        uint64_t x = sti_get64(s);
        memcpy(host, &x, 8);
        break;
    }
    }
    return sti_scalar_read(k, size, host);
}

/* One element of a migration's checked op: converted, true if kept exactly. */
static bool load_checked(const load_op_t *op, const unsigned char *s, unsigned char *d) {
    if (op->src_kind == STRATA_KIND_STRING) {
        /* The text up to its NUL must fit; what fits is kept. */
        size_t len = 0;
        while (len < op->src_size && s[len] != 0) {
            len++;
        }
        uint32_t keep = op->src_size < op->dst_size ? op->src_size : op->dst_size;
        memcpy(d, s, keep);
        memset(d + keep, 0, op->dst_size - keep);
        return len <= op->dst_size;
    }
    sti_scalar_t out;
    bool exact = sti_evolve_number(op->src_kind, load_scalar(op->src_kind, op->src_size, s), op->dst_kind, &out);
    sti_scalar_write(op->dst_kind, op->dst_size, d, out);
    return exact;
}

/* Convert one element (the mapping made sure it is lossless, or checks
 * it). 1 when done; 0 if the saved value is invalid (a bool not 0/1, an
 * enum value out of range or gone from the schema), with the message in
 * why; -1 when a migration loses it (d keeps the default, or the nearest
 * value for a checked op). */
static int load_element(const load_op_t *op, const unsigned char *s, unsigned char *d, char *why, size_t why_size) {
    uint8_t sk = op->src_kind, dk = op->dst_kind;
    if (op->mode == LOAD_CHECKED) {
        return load_checked(op, s, d) ? 1 : -1;
    }
    if (op->mode == LOAD_TAIL) {
        for (uint32_t i = 0; i < op->src_size; i++) {
            if (s[i] != 0) {
                return -1;
            }
        }
        return 1;
    }
    if (sk == STRATA_KIND_STRING) {
        /* All its bytes, NUL or not (a full char[N] holds N bytes); zeros past them. */
        memcpy(d, s, op->src_size);
        memset(d + op->src_size, 0, op->dst_size - op->src_size);
        return 1;
    }
    if (sk == STRATA_KIND_ENUM) {
        uint32_t value = sti_get32(s);
        if (value >= op->field->member_count) {
            snprintf(why, why_size, "enum value %u out of range", value);
            return 0;
        }
        if (op->enum_map[value] == UINT32_MAX) {
            if (op->lost >= 0) {
                return -1;
            }
            const unsigned char *p = op->field->members;
            for (uint32_t m = 0; m < value; m++) {
                p += 2 + sti_get16(p);
            }
            snprintf(why, why_size, "enum member '%.*s' of field '%.*s' is gone from the schema", (int)sti_get16(p),
                     (const char *)p + 2, (int)op->field->name_len, (const char *)op->field->name);
            return 0;
        }
        sti_scalar_write(STRATA_KIND_ENUM, op->dst_size, d, (sti_scalar_t){.i = op->enum_map[value]});
        return 1;
    }
    if (sk == STRATA_KIND_BOOL && s[0] > 1) {
        snprintf(why, why_size, "bool byte %u", s[0]);
        return 0;
    }
    if (sk == dk && sk == STRATA_KIND_F32) {
        memcpy(d, s, 4); /* keeps a NaN's bits */
        return 1;
    }
    /* The little-endian encoding as the host's C value of kind sk, then converted. */
    sti_scalar_write(dk, op->dst_size, d, load_scalar(sk, op->src_size, s));
    return 1;
}

/* Decode n values of v (encoded at ld->pos, checked to be there) into C
 * values `stride` apart at dst; a migration's lost values count a row
 * each in their op's LOST change. */
static bool load_decode(load_t *ld, const file_value_t *v, unsigned char *dst, uint32_t stride, uint32_t n) {
    const unsigned char *src = ld->data + ld->pos;
    if (v->raw) {
        memcpy(dst, src, (size_t)stride * n);
        return true;
    }
    for (uint32_t row = 0; row < n; row++) {
        const unsigned char *s = src + (size_t)row * v->bytes;
        unsigned char *d = dst + (size_t)row * stride;
        for (uint32_t k = 0; k < v->op_count; k++) {
            const load_op_t *op = &v->ops[k];
            bool lost = false;
            for (uint32_t e = 0; e < op->count; e++) {
                char why[200];
                const unsigned char *at = s + op->src + e * op->src_size;
                int done = load_element(op, at, d + op->dst + e * op->dst_size, why, sizeof why);
                if (done == 0) {
                    bool gone = op->src_kind == STRATA_KIND_ENUM && sti_get32(at) < op->field->member_count;
                    return load_fail(ld, gone ? STRATA_ERR_SCHEMA : STRATA_ERR_CORRUPT, (size_t)(at - ld->data), why);
                }
                lost = lost || done < 0;
            }
            if (lost) {
                ld->l->changes[op->lost].count++;
            }
        }
    }
    return true;
}

/* --- The load ---------------------------------------------------------------- */

/* The checksum of the bytes after it, as the header has it. */
static bool load_checksum(load_t *ld) {
    const unsigned char *d = ld->data;
    sti_crc_t *table = ld->l->fresh->allocator.alloc(sizeof *table, ld->l->fresh->allocator.user);
    if (table == NULL) {
        return load_fail(ld, STRATA_ERR_NOMEM, 0, "out of memory");
    }
    sti_crc_init(table);
    uint32_t crc = sti_crc(table, 0xffffffffu, d + 28, ld->size - 28) ^ 0xffffffffu;
    ld->l->fresh->allocator.free(table, sizeof *table, ld->l->fresh->allocator.user);
    if (crc != sti_get32(d + 24)) {
        return load_fail(ld, STRATA_ERR_CORRUPT, 24, "checksum mismatch: the file is corrupt");
    }
    return true;
}

/* Check the header: magic, format, size, checksum, schema name and version. */
static bool load_header(load_t *ld) {
    const unsigned char *d = ld->data;
    char msg[200];
    if (ld->size >= 8 && memcmp(d, STI_SAVE_MAGIC, 8) != 0) {
        return load_fail(ld, STRATA_ERR_CORRUPT, 0, "not a Strata save (no magic number)");
    }
    if (ld->size < STI_SAVE_HEADER) {
        snprintf(msg, sizeof msg, "truncated header: the file has %zu bytes, a header %u", ld->size, STI_SAVE_HEADER);
        return load_fail(ld, STRATA_ERR_CORRUPT, ld->size, msg);
    }
    uint32_t format = sti_get32(d + 8);
    if (format < STI_SAVE_FORMAT_OLDEST || format > STI_SAVE_FORMAT || sti_get32(d + 12) != STI_SAVE_HEADER) {
        snprintf(msg, sizeof msg, "save format %u: this runtime reads formats %u to %u", format, STI_SAVE_FORMAT_OLDEST,
                 STI_SAVE_FORMAT);
        return load_fail(ld, STRATA_ERR_CORRUPT, 8, msg);
    }
    uint64_t declared = sti_get64(d + 16);
    if (declared != ld->size) {
        snprintf(msg, sizeof msg, "%s: the header says %" PRIu64 " bytes, the file has %zu",
                 declared > ld->size ? "truncated" : "trailing bytes", declared, ld->size);
        return load_fail(ld, STRATA_ERR_CORRUPT, declared > ld->size ? ld->size : (size_t)declared, msg);
    }
    if (!ld->opts->trusted && !load_checksum(ld)) {
        return false;
    }
    ld->pos = STI_SAVE_HEADER;
    ld->format = format;
    strata_load_report_t *report = ld->l->report;
    report->schema_version = sti_get32(d + 28);
    uint16_t len;
    const unsigned char *name = load_str(ld, &len, "save name");
    if (ld->r != STRATA_OK) {
        return false;
    }
    snprintf(report->schema, sizeof report->schema, "%.*s", (int)len, (const char *)name);
    const strata_schema_t *s = ld->l->fresh->schema;
    const char *mine = s->save_name != NULL ? s->save_name : s->name;
    if (!name_is(name, len, mine)) {
        snprintf(msg, sizeof msg, "a save of '%.*s'; this world loads saves of '%.63s'", (int)len, (const char *)name,
                 mine);
        return load_fail(ld, STRATA_ERR_SCHEMA, STI_SAVE_HEADER, msg);
    }
    if (report->schema_version > s->version) {
        snprintf(msg, sizeof msg, "a save of version %u of '%.63s'; this world has version %u", report->schema_version,
                 mine, s->version);
        return load_fail(ld, STRATA_ERR_SCHEMA, 28, msg);
    }
    return true;
}

/* The layout: components and resources, checked against its hash. */
static bool load_layout(load_t *ld) {
    size_t start = ld->pos;
    if (!load_values(ld, &ld->components, &ld->component_count, "component layout") ||
        !load_values(ld, &ld->resources, &ld->resource_count, "resource layout")) {
        return false;
    }
    if (sti_fnv(STI_FNV_START, ld->data + start, ld->pos - start) != sti_get64(ld->data + 32)) {
        return load_fail(ld, STRATA_ERR_CORRUPT, start, "the layout does not match its hash");
    }
    return true;
}

/* The entity index: how many indices, and the free list. */
static bool load_index(load_t *ld, uint32_t *alive) {
    size_t at = ld->pos;
    uint32_t records = load_u32(ld, "entity index");
    *alive = load_u32(ld, "entity index");
    uint32_t free_count = load_u32(ld, "entity index");
    if (ld->r != STRATA_OK) {
        return false;
    }
    if ((uint64_t)*alive + free_count != records) {
        return load_fail(ld, STRATA_ERR_CORRUPT, at, "entity index: alive + free != indices");
    }
    /* Each index costs 8 bytes of the file (a handle or a free entry). */
    if (!load_need(ld, (uint64_t)records * 8, "entity index")) {
        return false;
    }
    strata_result_t r = sti_loader_records(ld->l, records);
    if (r != STRATA_OK) {
        ld->r = r;
        ld->l->report->offset = at;
        return false;
    }
    for (uint32_t i = 0; i < free_count; i++) {
        size_t entry = ld->pos;
        uint32_t index = load_u32(ld, "free list");
        uint32_t generation = load_u32(ld, "free list");
        if (ld->r != STRATA_OK) {
            return false;
        }
        if (!sti_loader_free(ld->l, index, generation)) {
            return load_fail(ld, STRATA_ERR_CORRUPT, entry, "free list: an invalid or repeated index");
        }
    }
    return true;
}

/* The links section (format 2): each saved relation's name and sources
 * are checked to be there and remembered; a relation's tag loads only with
 * its links, so the tag of a relation the save has no links of (every
 * format 1 save) is dropped and reported. */
static bool load_links(load_t *ld) {
    const strata_world_t *w = ld->l->fresh;
    uint32_t n = ld->format >= 2 ? load_u32(ld, "link section") : 0;
    /* Each relation takes at least 6 bytes of the file: a corrupt count asks for little memory. */
    if (ld->r != STRATA_OK || !load_need(ld, (uint64_t)n * 6, "link section")) {
        return false;
    }
    if (n > 0) {
        ld->links = w->allocator.alloc(sizeof(load_links_t) * n, w->allocator.user);
        if (ld->links == NULL) {
            return load_fail(ld, STRATA_ERR_NOMEM, ld->pos, "out of memory");
        }
        ld->link_count = n;
    }
    for (uint32_t i = 0; i < n; i++) {
        size_t at = ld->pos;
        uint16_t len = 0;
        const unsigned char *name = load_str(ld, &len, "relation name");
        uint32_t sources = load_u32(ld, "link sources");
        if (ld->r != STRATA_OK) {
            return false;
        }
        saved_list_t list = {ld->components, sizeof *ld->components, ld->component_count};
        int64_t c = saved_list_find(&list, (const char *)name, len);
        if (c < 0) {
            return load_fail(ld, STRATA_ERR_CORRUPT, at, "links of a relation the layout does not list");
        }
        for (uint32_t k = 0; k < i; k++) {
            if (ld->links[k].component == c) {
                return load_fail(ld, STRATA_ERR_CORRUPT, at, "a relation's links appear twice");
            }
        }
        if (!load_need(ld, (uint64_t)sources * 12, "link sources")) {
            return false;
        }
        ld->links[i] = (load_links_t){c, ld->pos, sources};
        for (uint32_t k = 0; k < sources; k++) {
            if (!load_need(ld, 12, "link source")) {
                return false;
            }
            uint32_t targets = sti_get32(ld->data + ld->pos + 8);
            ld->pos += 12;
            if (!load_need(ld, (uint64_t)targets * 8, "link targets")) {
                return false;
            }
            ld->pos += (size_t)targets * 8;
        }
    }
    for (uint32_t c = 0; c < ld->component_count; c++) {
        file_value_t *v = &ld->components[c];
        if (v->target < 0 || sti_relation_of_tag(w, (uint32_t)v->target) < 0) {
            continue;
        }
        bool listed = false;
        for (uint32_t k = 0; k < ld->link_count; k++) {
            listed = listed || ld->links[k].component == c;
        }
        if (!listed) {
            v->target = -1;
            if (!load_change(ld, STRATA_CHANGE_DROPPED, c, "", (const char *)v->name, v->name_len, NULL)) {
                return false;
            }
        }
    }
    return true;
}

/* File the links remembered by load_links into the fresh world's index:
 * each source and target must be an entity of the save. */
static bool load_links_file(load_t *ld) {
    strata_world_t *w = ld->l->fresh;
    for (uint32_t i = 0; i < ld->link_count; i++) {
        const load_links_t *links = &ld->links[i];
        int64_t c = ld->components[links->component].target;
        int32_t r = c >= 0 ? sti_relation_of_tag(w, (uint32_t)c) : -1;
        const char *name = r >= 0 ? w->schema->relations[r].name : "";
        size_t pos = links->at;
        for (uint32_t k = 0; r >= 0 && k < links->sources; k++) {
            strata_entity_t source = sti_get64(ld->data + pos);
            uint32_t targets = sti_get32(ld->data + pos + 8);
            char msg[200];
            if (sti_record_lookup(w, source) == NULL) {
                snprintf(msg, sizeof msg, "%s links from entity %" PRIu64 ", which the save does not hold", name,
                         source);
                return load_fail(ld, STRATA_ERR_CORRUPT, pos, msg);
            }
            pos += 12;
            for (uint32_t j = 0; j < targets; j++, pos += 8) {
                strata_entity_t target = sti_get64(ld->data + pos);
                strata_result_t res = sti_record_lookup(w, target) == NULL
                                          ? STRATA_ERR_STALE
                                          : sti_relation_load_link(w, (uint32_t)r, source, target);
                if (res == STRATA_ERR_NOMEM) {
                    return load_fail(ld, res, pos, "out of memory");
                }
                if (res != STRATA_OK) {
                    snprintf(msg, sizeof msg, "a %s link of entity %" PRIu64 " %s entity %" PRIu64 "%s", name, source,
                             res == STRATA_ERR_STALE ? "points at" : "names", target,
                             res == STRATA_ERR_STALE ? ", which the save does not hold" : " twice");
                    return load_fail(ld, STRATA_ERR_CORRUPT, pos, msg);
                }
            }
        }
    }
    return true;
}

/* The tables: handles, then each component's column. */
static bool load_tables(load_t *ld, uint32_t alive) {
    strata_world_t *w = ld->l->fresh;
    uint32_t tables = load_u32(ld, "table count");
    uint64_t rows_seen = 0;
    for (uint32_t t = 0; t < tables && ld->r == STRATA_OK; t++) {
        size_t at = ld->pos;
        uint32_t k = load_u32(ld, "table");
        if (ld->r != STRATA_OK || !load_need(ld, (uint64_t)k * 4, "table")) {
            return false;
        }
        if (k > ld->component_count) {
            return load_fail(ld, STRATA_ERR_CORRUPT, at, "a table with more components than the layout");
        }
        const unsigned char *ids = ld->data + ld->pos;
        ld->pos += (size_t)k * 4;
        strata_mask_t mask = {{0}};
        for (uint32_t i = 0; i < k; i++) {
            uint32_t c = sti_get32(ids + 4 * i);
            if (c >= ld->component_count || (i > 0 && c <= sti_get32(ids + 4 * (i - 1)))) {
                return load_fail(ld, STRATA_ERR_CORRUPT, at + 4 + 4 * i, "a table's component ids are invalid");
            }
            if (ld->components[c].target >= 0) {
                strata_mask_set(&mask, (uint32_t)ld->components[c].target);
            }
        }
        uint32_t n = load_u32(ld, "table rows");
        if (ld->r != STRATA_OK || !load_need(ld, (uint64_t)n * 8, "entity handles")) {
            return false;
        }
        rows_seen += n;
        if (rows_seen > alive) {
            return load_fail(ld, STRATA_ERR_CORRUPT, ld->pos - 4, "more entities in tables than the index holds");
        }
        sti_table_t *table = NULL;
        uint32_t row = 0;
        strata_result_t r = sti_loader_rows(ld->l, &mask, n, &table, &row);
        if (r != STRATA_OK) {
            ld->r = r;
            return false;
        }
        for (uint32_t i = 0; i < n; i++) {
            strata_entity_t e = sti_get64(ld->data + ld->pos);
            if (!sti_loader_place(ld->l, table, row + i, e)) {
                char msg[120];
                snprintf(msg, sizeof msg, "entity handle 0x%016" PRIx64 " is invalid or used twice", e);
                return load_fail(ld, STRATA_ERR_CORRUPT, ld->pos, msg);
            }
            ld->pos += 8;
        }
        for (uint32_t i = 0; i < k; i++) {
            file_value_t *v = &ld->components[sti_get32(ids + 4 * i)];
            v->rows += n;
            if (!load_need(ld, (uint64_t)v->bytes * n, "component column")) {
                return false;
            }
            unsigned char *dst = NULL; /* where the n values go: rows of a column, or n values of a sparse set */
            if (v->target >= 0 && sti_is_sparse(w, (uint32_t)v->target)) {
                r = sti_loader_sparse(ld->l, (uint32_t)v->target, table, row, n, &dst);
                if (r != STRATA_OK) {
                    ld->r = r;
                    return false;
                }
            } else if (v->target >= 0 && table->columns[v->target] != NULL) {
                dst = (unsigned char *)table->columns[v->target] + (size_t)row * w->components[v->target].size;
            }
            if (v->bytes > 0 && dst != NULL && !load_decode(ld, v, dst, w->components[v->target].size, n)) {
                return false;
            }
            ld->pos += (size_t)v->bytes * n;
        }
    }
    if (ld->r == STRATA_OK && rows_seen != alive) {
        return load_fail(ld, STRATA_ERR_CORRUPT, ld->pos, "fewer entities in tables than the index holds");
    }
    return ld->r == STRATA_OK;
}

/* The resources, in the layout's order. */
static bool load_resources(load_t *ld) {
    strata_world_t *w = ld->l->fresh;
    for (uint32_t i = 0; i < ld->resource_count; i++) {
        file_value_t *v = &ld->resources[i];
        if (!load_need(ld, v->bytes, "resource")) {
            return false;
        }
        /* The ops' destinations are offsets in the resource block. */
        if (v->target >= 0 && !load_decode(ld, v, w->resources, 0, 1)) {
            return false;
        }
        ld->pos += v->bytes;
    }
    if (ld->pos != ld->size) {
        return load_fail(ld, STRATA_ERR_CORRUPT, ld->pos, "data after the end of the save");
    }
    return true;
}

static void load_free(load_t *ld) {
    const strata_world_t *w = ld->l->fresh;
    if (w == NULL) {
        return;
    }
    file_value_t *lists[2] = {ld->components, ld->resources};
    uint32_t counts[2] = {ld->component_count, ld->resource_count};
    for (int k = 0; k < 2; k++) {
        for (uint32_t i = 0; lists[k] != NULL && i < counts[k]; i++) {
            file_value_t *v = &lists[k][i];
            for (uint32_t j = 0; j < v->op_count; j++) {
                if (v->ops[j].enum_map != NULL) {
                    w->allocator.free(v->ops[j].enum_map, sizeof(uint32_t) * (v->ops[j].field->member_count + 1),
                                      w->allocator.user);
                }
            }
            if (v->ops != NULL) {
                w->allocator.free(v->ops, sizeof(load_op_t) * v->op_capacity, w->allocator.user);
            }
        }
        if (lists[k] != NULL) {
            w->allocator.free(lists[k], sizeof(file_value_t) * (counts[k] + 1), w->allocator.user);
        }
    }
    if (ld->links != NULL) {
        w->allocator.free(ld->links, sizeof(load_links_t) * ld->link_count, w->allocator.user);
    }
    while (ld->blocks != NULL) {
        load_block_t *next = ld->blocks->next;
        w->allocator.free(ld->blocks, sizeof(load_block_t) + sizeof(file_field_t) * ld->blocks->count,
                          w->allocator.user);
        ld->blocks = next;
    }
}

/* The bytes of a binary load (sti_load_body_fn's context), and its options. */
typedef struct load_input_t {
    const unsigned char *data;
    size_t size;
    const sti_load_opts_t *opts;
} load_input_t;

static strata_result_t load_body(sti_loader_t *l, void *ctx) {
    const load_input_t *in = ctx;
    load_t ld = {.l = l, .opts = in->opts, .data = in->data, .size = in->size};
    l->by_value = in->opts->by_value;
    l->accept_loss = in->opts->accept_loss;
    uint32_t alive = 0;
    bool ok = load_header(&ld) && load_layout(&ld) && load_map(&ld) && load_index(&ld, &alive) && load_links(&ld) &&
              load_tables(&ld, alive) && load_links_file(&ld) && load_resources(&ld);
    /* Counts of field and component changes: the rows of their component. */
    for (uint32_t i = 0; ok && i < l->change_count; i++) {
        int64_t c = l->changes[i].component;
        if (c >= 0 && (uint64_t)c < ld.component_count) {
            l->changes[i].count = ld.components[c].rows;
        }
    }
    load_free(&ld);
    if (!ok) {
        return ld.r != STRATA_OK ? ld.r : STRATA_ERR_CORRUPT;
    }
    return sti_loader_finish(l, false);
}

strata_result_t sti_load_mem_opts(strata_world_t *w, const void *data, size_t size, const sti_load_opts_t *opts,
                                  strata_load_report_t *report) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(data != NULL || size == 0);
    load_input_t in = {data, size, opts};
    return sti_load_run(w, report, load_body, &in);
}

strata_result_t strata_world_load_mem(strata_world_t *w, const void *data, size_t size, strata_load_report_t *report) {
    static const sti_load_opts_t plain = {0};
    return sti_load_mem_opts(w, data, size, &plain, report);
}

strata_result_t strata_world_load(strata_world_t *w, const char *path, strata_load_report_t *report) {
    return sti_load_file(w, path, report, strata_world_load_mem);
}

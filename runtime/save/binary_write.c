/* binary_write.c: a world written in the binary save format (docs/saves.md).
 *
 * The file: a 40-byte header (magic, format version, file size, CRC-32 of
 * every byte from offset 28, schema version, layout hash), the save name,
 * the layout (each component's and resource's fields: names, kinds, sizes,
 * offsets, recursively), the entity index (so handles survive exactly), the
 * tables (handles, then each component's column), and the resources. Every
 * number is little-endian and fixed-width; a value is its fields' encodings
 * one after the other, so no padding byte is ever written.
 */
#include "binary.h"
#include "file.h"
#include "format.h"
#include "writer.h"

#include <stdio.h>
#include <string.h>

/* xxHash (Debian's libxxhash-dev), header only: the checksum needs no library to link. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#define SAVE_CHUNK 65536u

/* --- Leaves: a value's fields flattened, for the row loops ---------------- */

/* One run of scalar (or string) elements of a C value and their encoding. */
typedef struct save_leaf_t {
    uint32_t offset; /* in the C value */
    uint32_t count;  /* elements */
    uint32_t size;   /* C bytes of one element (char[N]: N) */
    uint8_t kind;
} save_leaf_t;

typedef struct save_leaves_t {
    save_leaf_t *items;
    uint32_t count, capacity;
    uint32_t bytes; /* encoded bytes of the whole value */
    bool raw;       /* the encoding is the C bytes themselves (little-endian host) */
} save_leaves_t;

static bool leaves_push(const strata_world_t *w, save_leaves_t *ls, save_leaf_t leaf) {
    if (ls->count == ls->capacity) {
        uint32_t cap = ls->capacity ? ls->capacity * 2 : 8;
        save_leaf_t *items = w->allocator.realloc(ls->items, sizeof(save_leaf_t) * ls->capacity,
                                                  sizeof(save_leaf_t) * cap, w->allocator.user);
        if (items == NULL) {
            return false;
        }
        ls->items = items;
        ls->capacity = cap;
    }
    ls->items[ls->count++] = leaf;
    return true;
}

static void leaves_free(const strata_world_t *w, save_leaves_t *ls) {
    if (ls->items != NULL) {
        w->allocator.free(ls->items, sizeof(save_leaf_t) * ls->capacity, w->allocator.user);
    }
    memset(ls, 0, sizeof *ls);
}

/* Append the leaves of `count` fields at `base`, structs expanded. */
static bool leaves_add(const strata_world_t *w, save_leaves_t *ls, const strata_field_desc_t *fields, uint32_t count,
                       uint32_t base) {
    for (uint32_t i = 0; i < count; i++) {
        const strata_field_desc_t *f = &fields[i];
        if (f->kind == STRATA_KIND_STRUCT) {
            for (uint32_t j = 0; j < f->count; j++) {
                if (!leaves_add(w, ls, f->type->fields, f->type->count, base + f->offset + j * f->size)) {
                    return false;
                }
            }
            continue;
        }
        if (!leaves_push(w, ls, (save_leaf_t){base + f->offset, f->count, f->size, f->kind})) {
            return false;
        }
        uint32_t each = f->kind == STRATA_KIND_STRING ? f->size : sti_kind_bytes(f->kind);
        ls->bytes += each * f->count;
    }
    return true;
}

/* The leaves of a value of type t; raw when its encoding equals its bytes. */
static bool leaves_build(const strata_world_t *w, save_leaves_t *ls, const strata_type_desc_t *t) {
    memset(ls, 0, sizeof *ls);
    if (!leaves_add(w, ls, t->fields, t->count, 0)) {
        leaves_free(w, ls);
        return false;
    }
    bool raw = sti_little_endian() && ls->bytes == t->size;
    uint32_t at = 0;
    for (uint32_t i = 0; raw && i < ls->count; i++) {
        const save_leaf_t *leaf = &ls->items[i];
        raw = leaf->kind != STRATA_KIND_STRING && leaf->offset == at && leaf->size == sti_kind_bytes(leaf->kind);
        at += leaf->size * leaf->count;
    }
    ls->raw = raw;
    return true;
}

/* Encode one value (C bytes at src) into dst (ls->bytes bytes). */
static void leaves_encode(const save_leaves_t *ls, const unsigned char *src, unsigned char *dst) {
    for (uint32_t i = 0; i < ls->count; i++) {
        const save_leaf_t *leaf = &ls->items[i];
        const unsigned char *s = src + leaf->offset;
        for (uint32_t j = 0; j < leaf->count; j++, s += leaf->size) {
            switch (leaf->kind) {
            case STRATA_KIND_BOOL: {
                bool b;
                memcpy(&b, s, 1);
                *dst++ = b ? 1 : 0;
                break;
            }
            case STRATA_KIND_I8:
            case STRATA_KIND_U8: *dst++ = *s; break;
            case STRATA_KIND_I16:
            case STRATA_KIND_U16: {
                uint16_t v;
                memcpy(&v, s, 2);
                sti_put16(dst, v);
                dst += 2;
                break;
            }
            case STRATA_KIND_I32:
            case STRATA_KIND_U32:
            case STRATA_KIND_F32: {
                uint32_t v;
                memcpy(&v, s, 4);
                sti_put32(dst, v);
                dst += 4;
                break;
            }
            case STRATA_KIND_ENUM:
                sti_put32(dst, (uint32_t)sti_scalar_read(STRATA_KIND_ENUM, leaf->size, s).i);
                dst += 4;
                break;
            case STRATA_KIND_STRING: {
                /* The text and zeros: what follows a NUL is not part of the value. */
                const unsigned char *nul = memchr(s, 0, leaf->size);
                size_t n = nul != NULL ? (size_t)(nul - s) : leaf->size;
                memcpy(dst, s, n);
                memset(dst + n, 0, leaf->size - n);
                dst += leaf->size;
                break;
            }
            default: {
                uint64_t v;
                memcpy(&v, s, 8);
                sti_put64(dst, v);
                dst += 8;
                break;
            }
            }
        }
    }
}

/* --- Writing ------------------------------------------------------------------ */

/* A save being written: the writer, the checksum and hash on the way. */
typedef struct save_out_t {
    const strata_world_t *w;
    sti_writer_t sink;
    unsigned char *chunk; /* SAVE_CHUNK bytes of file staging, then SAVE_CHUNK of row encoding scratch */
    unsigned char *scratch;
    uint32_t crc;  /* of the bytes from offset 28 (schema version on) */
    bool checking; /* adding to crc */
    bool dry;      /* only hashing: nothing is emitted */
    uint64_t hash; /* of the layout, while `hashing` */
    bool hashing;
    XXH3_state_t *sum; /* strata_checksum: every byte goes to this hash instead of the sink */
    bool trusted;      /* no checksum (a migration's bytes, loaded at once) */
    bool counting;     /* only the size is counted: no byte is written or encoded */
    sti_crc_t crc_table;
} save_out_t;

static void out_put(save_out_t *o, const void *data, size_t n) {
    const unsigned char *p = data;
    if (o->hashing) {
        o->hash = sti_fnv(o->hash, p, n);
    }
    if (o->dry) {
        return;
    }
    if (o->sum != NULL) {
        (void)XXH3_64bits_update(o->sum, p, n);
        return;
    }
    if (o->counting) {
        o->sink.pos += n;
        return;
    }
    if (o->checking) {
        o->crc = sti_crc(&o->crc_table, o->crc, p, n);
    }
    sti_writer_put(&o->sink, p, n);
}

static void out_u8(save_out_t *o, uint8_t v) {
    out_put(o, &v, 1);
}

static void out_u32(save_out_t *o, uint32_t v) {
    unsigned char b[4];
    sti_put32(b, v);
    out_put(o, b, 4);
}

static void out_u64(save_out_t *o, uint64_t v) {
    unsigned char b[8];
    sti_put64(b, v);
    out_put(o, b, 8);
}

/* A string: u16 length, then its bytes. */
static void out_str(save_out_t *o, const char *s) {
    size_t n = strlen(s);
    if (n > 0xffff) {
        n = 0xffff;
    }
    unsigned char b[2];
    sti_put16(b, (uint16_t)n);
    out_put(o, b, 2);
    out_put(o, s, n);
}

/* The layout of fields: name, kind, array flag, C offset, size and count,
 * then an enum's member names or a struct's fields. */
static void out_fields(save_out_t *o, const strata_field_desc_t *fields, uint32_t count) {
    out_u32(o, count);
    for (uint32_t i = 0; i < count; i++) {
        const strata_field_desc_t *f = &fields[i];
        out_str(o, f->name);
        out_u8(o, f->kind);
        out_u8(o, f->array ? 1 : 0);
        out_u8(o, 0);
        out_u8(o, 0);
        out_u32(o, f->offset);
        out_u32(o, f->size);
        out_u32(o, f->count);
        if (f->kind == STRATA_KIND_ENUM) {
            out_u32(o, f->type->count);
            for (uint32_t m = 0; m < f->type->count; m++) {
                out_str(o, f->type->members[m]);
            }
        } else if (f->kind == STRATA_KIND_STRUCT) {
            out_fields(o, f->type->fields, f->type->count);
        }
    }
}

/* n values (C bytes from src, `stride` apart) encoded through the scratch buffer. */
static void out_values(save_out_t *o, const save_leaves_t *ls, const unsigned char *src, uint32_t stride, uint32_t n) {
    if (o->counting) {
        o->sink.pos += (uint64_t)(ls->raw ? stride : ls->bytes) * n;
        return;
    }
    if (ls->raw) {
        out_put(o, src, (size_t)stride * n);
        return;
    }
    if (ls->bytes == 0) {
        return;
    }
    uint32_t per = SAVE_CHUNK / ls->bytes;
    if (per == 0) {
        /* A value larger than the scratch: encode it into a buffer of its own. */
        unsigned char *big = o->w->allocator.alloc(ls->bytes, o->w->allocator.user);
        if (big == NULL) {
            o->sink.failed = true;
            return;
        }
        for (uint32_t i = 0; i < n; i++) {
            leaves_encode(ls, src + (size_t)i * stride, big);
            out_put(o, big, ls->bytes);
        }
        o->w->allocator.free(big, ls->bytes, o->w->allocator.user);
        return;
    }
    for (uint32_t i = 0; i < n; i += per) {
        uint32_t m = n - i < per ? n - i : per;
        for (uint32_t j = 0; j < m; j++) {
            leaves_encode(ls, src + (size_t)(i + j) * stride, o->scratch + (size_t)j * ls->bytes);
        }
        out_put(o, o->scratch, (size_t)m * ls->bytes);
    }
}

/* The layout: each component's and resource's name, size and fields. */
static void save_layout(save_out_t *o, const strata_schema_t *s, const strata_type_desc_t *rt) {
    o->hashing = true;
    o->hash = STI_FNV_START;
    out_u32(o, s->component_count);
    for (uint32_t c = 0; c < s->component_count; c++) {
        const strata_type_desc_t *t = &s->component_types[c];
        out_str(o, t->name);
        out_u32(o, t->size);
        out_fields(o, t->fields, t->count);
    }
    out_u32(o, rt != NULL ? rt->count : 0);
    for (uint32_t i = 0; rt != NULL && i < rt->count; i++) {
        const strata_field_desc_t *f = &rt->fields[i];
        out_str(o, f->name);
        out_u32(o, f->size);
        out_fields(o, f->type->fields, f->type->count);
    }
    o->hashing = false;
}

/* --- Tables with sparse components --------------------------------------------- */

/* A row of a table and the sparse components it holds (their planes). */
typedef struct save_row_t {
    uint64_t held;
    uint32_t row;
} save_row_t;

/* t's rows in runs that hold the same sparse components (into rows[0 ..
 * t->count), in row order); returns how many runs. A save's tables are such
 * runs: each holds one component set, whatever the storage, and a load
 * appends them in order, so the rows keep their order (and a loaded world
 * iterates as the saved one did). */
static uint32_t save_groups(const strata_world_t *w, const sti_table_t *t, save_row_t *rows) {
    uint32_t groups = 0;
    for (uint32_t row = 0; row < t->count; row++) {
        rows[row] = (save_row_t){sti_sparse_held(w, t, row), row};
        groups += row == 0 || rows[row].held != rows[row - 1].held;
    }
    return groups;
}

/* One group of a table's rows as a save's table: its components (the
 * table's and the group's sparse ones), handles, then each component's
 * values row by row. */
static void save_group(save_out_t *o, const sti_table_t *t, const save_row_t *rows, uint32_t n,
                       const save_leaves_t *leaves) {
    const strata_world_t *w = o->w;
    strata_mask_t has = sti_sparse_mask(w, rows[0].held);
    for (uint32_t i = 0; i < w->mask_words; i++) {
        has.bits[i] |= t->mask.bits[i];
    }
    uint32_t k = 0;
    for (uint32_t c = 0; c < w->component_count; c++) {
        k += strata_mask_test(&has, c);
    }
    out_u32(o, k);
    for (uint32_t c = 0; c < w->component_count; c++) {
        if (strata_mask_test(&has, c)) {
            out_u32(o, c);
        }
    }
    out_u32(o, n);
    for (uint32_t i = 0; i < n; i++) {
        out_u64(o, t->entities[rows[i].row]);
    }
    for (uint32_t c = 0; c < w->component_count; c++) {
        for (uint32_t i = 0; strata_mask_test(&has, c) && w->components[c].size > 0 && i < n; i++) {
            out_values(o, &leaves[c], sti_cell(w, t, c, rows[i].row), w->components[c].size, 1);
        }
    }
}

/* The links of the non-exclusive relations (an exclusive one's are in its
 * component): per relation its name and its sources, each with its targets,
 * sources in the order of the tables and their rows (which a load keeps). */
static void save_links(save_out_t *o) {
    const strata_world_t *w = o->w;
    const strata_schema_t *s = w->schema;
    uint32_t count = 0;
    for (uint32_t r = 0; r < s->relation_count; r++) {
        count += !s->relations[r].exclusive;
    }
    out_u32(o, count);
    for (uint32_t r = 0; r < s->relation_count; r++) {
        const strata_relation_desc_t *d = &s->relations[r];
        if (d->exclusive) {
            continue;
        }
        out_str(o, s->component_types[d->component].name);
        uint32_t sources = 0;
        for (uint32_t t = 0; t < w->table_count; t++) {
            sources += strata_mask_test(&w->tables[t]->mask, d->component) ? w->tables[t]->count : 0;
        }
        out_u32(o, sources);
        for (uint32_t t = 0; t < w->table_count; t++) {
            const sti_table_t *table = w->tables[t];
            for (uint32_t row = 0; strata_mask_test(&table->mask, d->component) && row < table->count; row++) {
                uint32_t n = 0;
                const strata_entity_t *targets = strata_relation_targets(w, r, table->entities[row], &n);
                out_u64(o, table->entities[row]);
                out_u32(o, n);
                for (uint32_t i = 0; i < n; i++) {
                    out_u64(o, targets[i]);
                }
            }
        }
    }
}

/* Write the whole save (size and checksum last, when they are known). */
static strata_result_t save_write(save_out_t *o) {
    const strata_world_t *w = o->w;
    const strata_schema_t *s = w->schema;
    const strata_type_desc_t *rt = sti_save_resources(s);
    uint32_t cc = w->component_count;
    strata_result_t r = STRATA_OK;
    save_row_t *rows = NULL; /* a table's rows in groups, when its rows hold sparse components */
    uint32_t most = 0;       /* rows it has room for */
    save_leaves_t *leaves = w->allocator.alloc(sizeof(save_leaves_t) * (cc + 1), w->allocator.user);
    if (leaves == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memset(leaves, 0, sizeof(save_leaves_t) * (cc + 1));
    for (uint32_t c = 0; c < cc && r == STRATA_OK; c++) {
        if (!leaves_build(w, &leaves[c], &s->component_types[c])) {
            r = STRATA_ERR_NOMEM;
        }
    }
    if (r != STRATA_OK) {
        goto done;
    }
    /* The layout's hash goes in the header, before the layout: a dry pass first. */
    o->dry = true;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            o->dry = false;
            unsigned char header[STI_SAVE_HEADER] = {0};
            sti_put32(header + 28, s->version);
            sti_put64(header + 32, o->hash);
            out_put(o, header, 28);
            o->checking = !o->trusted;
            out_put(o, header + 28, STI_SAVE_HEADER - 28);
            out_str(o, s->save_name != NULL ? s->save_name : s->name);
        }
        save_layout(o, s, rt);
    }

    /* The entity index: indices handed out, alive, and the free list from its head. */
    out_u32(o, w->record_count);
    out_u32(o, w->alive);
    out_u32(o, w->free_count);
    for (uint32_t i = w->free_head, n = 0; i != STI_NO_INDEX && n < w->free_count; i = w->records[i].row, n++) {
        out_u32(o, i);
        out_u32(o, w->records[i].generation);
    }

    /* The tables that hold entities; one whose rows hold sparse components
     * as a table a group of rows that hold the same ones (the links too). */
    uint32_t tables = 0;
    for (uint32_t t = 0; t < w->table_count; t++) {
        tables += w->tables[t]->count > 0 && w->tables[t]->sparse_any == 0;
        most = w->tables[t]->sparse_any != 0 && w->tables[t]->count > most ? w->tables[t]->count : most;
    }
    rows = most > 0 ? w->allocator.alloc(sizeof(save_row_t) * most, w->allocator.user) : NULL;
    if (most > 0 && rows == NULL) {
        r = STRATA_ERR_NOMEM;
        goto done;
    }

    save_links(o);

    for (uint32_t t = 0; t < w->table_count; t++) {
        tables += w->tables[t]->sparse_any != 0 ? save_groups(w, w->tables[t], rows) : 0;
    }
    out_u32(o, tables);
    for (uint32_t t = 0; t < w->table_count; t++) {
        const sti_table_t *table = w->tables[t];
        if (table->count == 0) {
            continue;
        }
        if (table->sparse_any != 0) {
            (void)save_groups(w, table, rows);
            for (uint32_t i = 0, end; i < table->count; i = end) {
                for (end = i + 1; end < table->count && rows[end].held == rows[i].held; end++) {}
                save_group(o, table, rows + i, end - i, leaves);
            }
            continue;
        }
        uint32_t k = 0;
        for (uint32_t c = 0; c < cc; c++) {
            k += strata_mask_test(&table->mask, c);
        }
        out_u32(o, k);
        for (uint32_t c = 0; c < cc; c++) {
            if (strata_mask_test(&table->mask, c)) {
                out_u32(o, c);
            }
        }
        out_u32(o, table->count);
        if (sti_little_endian()) {
            out_put(o, table->entities, sizeof(strata_entity_t) * table->count);
        } else {
            for (uint32_t row = 0; row < table->count; row++) {
                out_u64(o, table->entities[row]);
            }
        }
        for (uint32_t i = 0; i < table->column_count; i++) {
            const sti_column_t *col = &table->dense[i];
            if (col->id >= cc) {
                break; /* aspect columns (ids past the components, last in the list) are not saved */
            }
            out_values(o, &leaves[col->id], col->data, col->size, table->count);
        }
    }

    /* The resources, each as its own value. */
    for (uint32_t i = 0; rt != NULL && i < rt->count && r == STRATA_OK; i++) {
        const strata_field_desc_t *f = &rt->fields[i];
        save_leaves_t *ls = &leaves[cc];
        leaves_free(w, ls);
        if (!leaves_build(w, ls, f->type)) {
            r = STRATA_ERR_NOMEM;
            break;
        }
        out_values(o, ls, (const unsigned char *)w->resources + f->offset, f->size, 1);
    }
    if (r == STRATA_OK && o->sink.failed) {
        r = o->sink.file != NULL ? STRATA_ERR_IO : STRATA_ERR_NOMEM;
    }
    if (r == STRATA_OK) {
        unsigned char header[28];
        memcpy(header, STI_SAVE_MAGIC, 8);
        sti_put32(header + 8, STI_SAVE_FORMAT);
        sti_put32(header + 12, STI_SAVE_HEADER);
        sti_put64(header + 16, o->sink.pos);
        sti_put32(header + 24, o->trusted ? 0u : o->crc ^ 0xffffffffu);
        if (o->sink.file != NULL) {
            sti_writer_flush(&o->sink);
            FILE *f = o->sink.file;
            if (o->sink.failed || fseek(f, 0, SEEK_SET) != 0 || fwrite(header, 1, sizeof header, f) != sizeof header) {
                r = STRATA_ERR_IO;
            }
        } else if (o->sum == NULL && o->sink.pos <= o->sink.cap) {
            memcpy(o->sink.mem, header, sizeof header);
        }
    }
done:
    if (rows != NULL) {
        w->allocator.free(rows, sizeof(save_row_t) * most, w->allocator.user);
    }
    for (uint32_t c = 0; c <= cc; c++) {
        leaves_free(w, &leaves[c]);
    }
    w->allocator.free(leaves, sizeof(save_leaves_t) * (cc + 1), w->allocator.user);
    return r;
}

/* Bytes of an output's buffers: file staging and row encoding; a checksum needs no staging. */
static size_t save_out_bytes(const save_out_t *o) {
    return o->sum != NULL ? SAVE_CHUNK : 2 * (size_t)SAVE_CHUNK;
}

/* Set up an output: the CRC tables (not for a checksum) and the scratch buffers. */
static strata_result_t save_out_open(save_out_t *o, const strata_world_t *w) {
    o->w = w;
    o->crc = 0xffffffffu;
    if (o->sum == NULL) {
        sti_crc_init(&o->crc_table);
    }
    o->chunk = w->allocator.alloc(save_out_bytes(o), w->allocator.user);
    if (o->chunk == NULL) {
        return STRATA_ERR_NOMEM;
    }
    o->scratch = o->chunk + save_out_bytes(o) - SAVE_CHUNK;
    o->sink.stage = o->chunk;
    o->sink.stage_cap = SAVE_CHUNK;
    return STRATA_OK;
}

static void save_out_close(save_out_t *o) {
    o->w->allocator.free(o->chunk, save_out_bytes(o), o->w->allocator.user);
}


/* Save w into memory (buf, cap) or, when path is set, into that file;
 * `trusted`: without a checksum (and with buf NULL, only counted); when
 * sum is set, into that hash instead (strata_checksum). */
static strata_result_t save_run(const strata_world_t *w, void *buf, size_t cap, const char *path, size_t *size,
                                bool trusted, XXH3_state_t *sum) {
    if (!sti_save_reflected(w)) {
        return STRATA_ERR_SCHEMA;
    }
    save_out_t *o = w->allocator.alloc(sizeof *o, w->allocator.user);
    if (o == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memset(o, 0, sizeof *o);
    o->sum = sum;
    o->sink.mem = buf;
    o->sink.cap = cap;
    o->trusted = trusted;
    o->counting = trusted && buf == NULL;
    strata_result_t r = save_out_open(o, w);
    if (r == STRATA_OK && path != NULL) {
        char tmp[4096];
        o->sink.file = sti_file_begin(path, tmp, sizeof tmp);
        if (o->sink.file == NULL) {
            r = STRATA_ERR_IO;
        } else {
            r = save_write(o);
            strata_result_t c = sti_file_commit(o->sink.file, tmp, path, r == STRATA_OK);
            r = r != STRATA_OK ? r : c;
        }
    } else if (r == STRATA_OK) {
        r = save_write(o);
    }
    if (o->chunk != NULL) {
        save_out_close(o);
    }
    if (r == STRATA_OK) {
        *size = (size_t)o->sink.pos;
        if (path == NULL && sum == NULL && !o->counting && o->sink.pos > cap) {
            r = STRATA_ERR_LIMIT;
        }
    }
    w->allocator.free(o, sizeof *o, w->allocator.user);
    return r;
}

strata_result_t strata_world_save_mem(const strata_world_t *w, void *buf, size_t cap, size_t *size) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(size != NULL);
    STRATA_ASSERT(buf != NULL || cap == 0);
    *size = 0;
    return save_run(w, buf, cap, NULL, size, false, NULL);
}

strata_result_t sti_save_mem_trusted(const strata_world_t *w, void *buf, size_t cap, size_t *size) {
    *size = 0;
    return save_run(w, buf, cap, NULL, size, true, NULL);
}

strata_result_t strata_world_save(const strata_world_t *w, const char *path) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(path != NULL);
    size_t size = 0;
    return save_run(w, NULL, 0, path, &size, false, NULL);
}

strata_result_t strata_checksum(const strata_world_t *w, uint64_t *out) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(out != NULL);
    XXH3_state_t sum;
    (void)XXH3_64bits_reset(&sum);
    size_t size = 0;
    strata_result_t r = save_run(w, NULL, 0, NULL, &size, false, &sum);
    *out = r == STRATA_OK ? XXH3_64bits_digest(&sum) : 0;
    return r;
}

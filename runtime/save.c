/* save.c: the binary save format (docs/saves.md): writing a world, and
 * loading a save made by this schema or an older version of it.
 *
 * The file: a 40-byte header (magic, format version, file size, CRC-32 of
 * every byte from offset 28, schema version, layout hash), the save name, the layout (each
 * component's and resource's fields: names, kinds, sizes, offsets,
 * recursively), the entity index (so handles survive exactly), the tables
 * (handles, then each component's column), and the resources. Every number
 * is little-endian and fixed-width; a value is its fields' encodings one
 * after the other, so no padding byte is ever written.
 */
#include "strata_save.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define SAVE_MAGIC "\x89STRATA\n"
#define SAVE_FORMAT 1u
#define SAVE_HEADER 40u
#define SAVE_CHUNK 65536u
#define SAVE_MAX_DEPTH 32u /* nesting of struct fields a save may have */

/* --- Little-endian numbers ----------------------------------------------- */

static void put16(unsigned char *p, uint16_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static void put64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static uint16_t get16(const unsigned char *p) {
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t get64(const unsigned char *p) {
    return (uint64_t)get32(p) | ((uint64_t)get32(p + 4) << 32);
}

/* True on a little-endian host: then columns of plain numbers are their own encoding. */
static bool save_little_endian(void) {
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* --- CRC-32 (IEEE, reflected), eight bytes a step ---------------------------- */

typedef struct save_crc_t {
    uint32_t t[8][256];
} save_crc_t;

static void save_crc_init(save_crc_t *c) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t x = i;
        for (int k = 0; k < 8; k++) {
            x = (x & 1) ? (x >> 1) ^ 0xEDB88320u : x >> 1;
        }
        c->t[0][i] = x;
    }
    for (uint32_t i = 0; i < 256; i++) {
        for (int k = 1; k < 8; k++) {
            c->t[k][i] = (c->t[k - 1][i] >> 8) ^ c->t[0][c->t[k - 1][i] & 0xff];
        }
    }
}

/* Continue a CRC (start with 0xffffffff, finish with ^ 0xffffffff). */
static uint32_t save_crc(const save_crc_t *c, uint32_t crc, const unsigned char *p, size_t n) {
    while (n >= 8) {
        uint32_t one = get32(p) ^ crc;
        uint32_t two = get32(p + 4);
        crc = c->t[7][one & 0xff] ^ c->t[6][(one >> 8) & 0xff] ^ c->t[5][(one >> 16) & 0xff] ^ c->t[4][one >> 24] ^
              c->t[3][two & 0xff] ^ c->t[2][(two >> 8) & 0xff] ^ c->t[1][(two >> 16) & 0xff] ^ c->t[0][two >> 24];
        p += 8;
        n -= 8;
    }
    while (n-- > 0) {
        crc = (crc >> 8) ^ c->t[0][(crc ^ *p++) & 0xff];
    }
    return crc;
}

/* FNV-1a, 64 bits: the layout hash. */
static uint64_t save_fnv(uint64_t h, const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 0x100000001b3u;
    }
    return h;
}

#define SAVE_FNV_START 0xcbf29ce484222325u

/* --- Kinds ------------------------------------------------------------------ */

/* Bytes of one encoded element of a scalar kind (0 for STRUCT and STRING). */
static uint32_t kind_bytes(uint8_t kind) {
    switch (kind) {
    case STRATA_KIND_BOOL: case STRATA_KIND_I8: case STRATA_KIND_U8: return 1;
    case STRATA_KIND_I16: case STRATA_KIND_U16: return 2;
    case STRATA_KIND_I32: case STRATA_KIND_U32: case STRATA_KIND_F32: case STRATA_KIND_ENUM: return 4;
    case STRATA_KIND_I64: case STRATA_KIND_U64: case STRATA_KIND_F64: case STRATA_KIND_ENTITY: return 8;
    default: return 0;
    }
}

static const char *kind_name(uint8_t kind) {
    static const char *const names[] = {"?", "bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
                                        "f32", "f64", "entity", "enum", "struct", "char[]"};
    return kind <= STRATA_KIND_STRING ? names[kind] : "?";
}

static bool kind_integer(uint8_t k) {
    return k >= STRATA_KIND_I8 && k <= STRATA_KIND_U64;
}

static bool kind_signed(uint8_t k) {
    return k >= STRATA_KIND_I8 && k <= STRATA_KIND_I64;
}

/* True if every value of kind `from` converts to kind `to` exactly
 * (docs/saves.md lists the rules). */
static bool kind_lossless(uint8_t from, uint8_t to) {
    if (from == to) {
        return true;
    }
    uint32_t fb = kind_bytes(from) * 8, tb = kind_bytes(to) * 8;
    if (from == STRATA_KIND_BOOL) {
        return kind_integer(to);
    }
    if (kind_integer(from) && kind_integer(to)) {
        if (kind_signed(from)) {
            return kind_signed(to) && tb >= fb;
        }
        return kind_signed(to) ? tb > fb : tb >= fb;
    }
    if (kind_integer(from) && (to == STRATA_KIND_F32 || to == STRATA_KIND_F64)) {
        return fb <= (to == STRATA_KIND_F32 ? 16u : 32u); /* within the mantissa: 24 and 53 bits */
    }
    return from == STRATA_KIND_F32 && to == STRATA_KIND_F64;
}

/* A C integer of `size` bytes at p (enums, whose size the compiler picks). */
static int64_t read_cint(const unsigned char *p, uint32_t size) {
    switch (size) {
    case 1: { int8_t v; memcpy(&v, p, 1); return v; }
    case 2: { int16_t v; memcpy(&v, p, 2); return v; }
    case 8: { int64_t v; memcpy(&v, p, 8); return v; }
    default: { int32_t v; memcpy(&v, p, 4); return v; }
    }
}

static void write_cint(unsigned char *p, uint32_t size, int64_t v) {
    switch (size) {
    case 1: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case 2: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case 8: memcpy(p, &v, 8); break;
    default: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    }
}

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
        uint32_t each = f->kind == STRATA_KIND_STRING ? f->size : kind_bytes(f->kind);
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
    bool raw = save_little_endian() && ls->bytes == t->size;
    uint32_t at = 0;
    for (uint32_t i = 0; raw && i < ls->count; i++) {
        const save_leaf_t *leaf = &ls->items[i];
        raw = leaf->kind != STRATA_KIND_STRING && leaf->offset == at && leaf->size == kind_bytes(leaf->kind);
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
            case STRATA_KIND_BOOL: { bool b; memcpy(&b, s, 1); *dst++ = b ? 1 : 0; break; }
            case STRATA_KIND_I8: case STRATA_KIND_U8: *dst++ = *s; break;
            case STRATA_KIND_I16: case STRATA_KIND_U16: { uint16_t v; memcpy(&v, s, 2); put16(dst, v); dst += 2; break; }
            case STRATA_KIND_I32: case STRATA_KIND_U32: case STRATA_KIND_F32: {
                uint32_t v; memcpy(&v, s, 4); put32(dst, v); dst += 4; break;
            }
            case STRATA_KIND_ENUM: put32(dst, (uint32_t)read_cint(s, leaf->size)); dst += 4; break;
            case STRATA_KIND_STRING: {
                /* The text and zeros: what follows a NUL is not part of the value. */
                const unsigned char *nul = memchr(s, 0, leaf->size);
                size_t n = nul != NULL ? (size_t)(nul - s) : leaf->size;
                memcpy(dst, s, n);
                memset(dst + n, 0, leaf->size - n);
                dst += leaf->size;
                break;
            }
            default: { uint64_t v; memcpy(&v, s, 8); put64(dst, v); dst += 8; break; }
            }
        }
    }
}

/* --- Writing ------------------------------------------------------------------ */

/* Where a save goes: a memory buffer (bytes past cap are only counted) or a
 * file (through a staging buffer). */
typedef struct save_out_t {
    const strata_world_t *w;
    unsigned char *mem;
    size_t cap;
    FILE *file;
    unsigned char *chunk; /* SAVE_CHUNK bytes: file staging, then row encoding scratch */
    unsigned char *scratch;
    size_t staged;
    uint64_t pos;         /* bytes emitted */
    uint32_t crc;         /* of the bytes from offset 28 (schema version on) */
    bool checking;        /* adding to crc */
    bool dry;             /* only hashing: nothing is emitted */
    uint64_t hash;        /* of the layout, while `hashing` */
    bool hashing;
    bool failed;          /* a write failed */
    save_crc_t crc_table;
} save_out_t;

static void out_flush(save_out_t *o) {
    if (o->file != NULL && o->staged > 0) {
        if (fwrite(o->chunk, 1, o->staged, o->file) != o->staged) {
            o->failed = true;
        }
        o->staged = 0;
    }
}

static void out_put(save_out_t *o, const void *data, size_t n) {
    const unsigned char *p = data;
    if (o->hashing) {
        o->hash = save_fnv(o->hash, p, n);
    }
    if (o->dry) {
        return;
    }
    if (o->checking) {
        o->crc = save_crc(&o->crc_table, o->crc, p, n);
    }
    if (o->file != NULL) {
        while (n > 0) {
            size_t m = SAVE_CHUNK - o->staged < n ? SAVE_CHUNK - o->staged : n;
            memcpy(o->chunk + o->staged, p, m);
            o->staged += m;
            o->pos += m;
            p += m;
            n -= m;
            if (o->staged == SAVE_CHUNK) {
                out_flush(o);
            }
        }
        return;
    }
    if (o->pos + n <= o->cap) {
        memcpy(o->mem + o->pos, p, n);
    }
    o->pos += n;
}

static void out_u8(save_out_t *o, uint8_t v) {
    out_put(o, &v, 1);
}

static void out_u32(save_out_t *o, uint32_t v) {
    unsigned char b[4];
    put32(b, v);
    out_put(o, b, 4);
}

static void out_u64(save_out_t *o, uint64_t v) {
    unsigned char b[8];
    put64(b, v);
    out_put(o, b, 8);
}

/* A string: u16 length, then its bytes. */
static void out_str(save_out_t *o, const char *s) {
    size_t n = strlen(s);
    if (n > 0xffff) {
        n = 0xffff;
    }
    unsigned char b[2];
    put16(b, (uint16_t)n);
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
            o->failed = true;
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

/* The resource block's type, or NULL when it has no resources. */
static const strata_type_desc_t *save_resource_type(const strata_schema_t *s) {
    return s->resource_type != NULL && s->resource_type->count > 0 ? s->resource_type : NULL;
}

/* The layout: each component's and resource's name, size and fields. */
static void save_layout(save_out_t *o, const strata_schema_t *s, const strata_type_desc_t *rt) {
    o->hashing = true;
    o->hash = SAVE_FNV_START;
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

/* Write the whole save (size and checksum last, when they are known). */
static strata_result_t save_write(save_out_t *o) {
    const strata_world_t *w = o->w;
    const strata_schema_t *s = w->schema;
    const strata_type_desc_t *rt = save_resource_type(s);
    uint32_t cc = w->component_count;
    strata_result_t r = STRATA_OK;
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
            unsigned char header[SAVE_HEADER] = {0};
            put32(header + 28, s->version);
            put64(header + 32, o->hash);
            out_put(o, header, 28);
            o->checking = true;
            out_put(o, header + 28, SAVE_HEADER - 28);
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

    /* The tables that hold entities. */
    uint32_t tables = 0;
    for (uint32_t t = 0; t < w->table_count; t++) {
        tables += w->tables[t]->count > 0;
    }
    out_u32(o, tables);
    for (uint32_t t = 0; t < w->table_count; t++) {
        const sti_table_t *table = w->tables[t];
        if (table->count == 0) {
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
        if (save_little_endian()) {
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
    if (r == STRATA_OK && o->failed) {
        r = o->file != NULL ? STRATA_ERR_IO : STRATA_ERR_NOMEM;
    }
    if (r == STRATA_OK) {
        unsigned char header[28];
        memcpy(header, SAVE_MAGIC, 8);
        put32(header + 8, SAVE_FORMAT);
        put32(header + 12, SAVE_HEADER);
        put64(header + 16, o->pos);
        put32(header + 24, o->crc ^ 0xffffffffu);
        if (o->file != NULL) {
            out_flush(o);
            if (fseek(o->file, 0, SEEK_SET) != 0 || fwrite(header, 1, sizeof header, o->file) != sizeof header) {
                r = STRATA_ERR_IO;
            }
        } else if (o->pos <= o->cap) {
            memcpy(o->mem, header, sizeof header);
        }
    }
done:
    for (uint32_t c = 0; c <= cc; c++) {
        leaves_free(w, &leaves[c]);
    }
    w->allocator.free(leaves, sizeof(save_leaves_t) * (cc + 1), w->allocator.user);
    return r;
}

/* Set up an output: the CRC tables and the scratch buffers. */
static strata_result_t save_out_open(save_out_t *o, const strata_world_t *w) {
    o->w = w;
    o->crc = 0xffffffffu;
    save_crc_init(&o->crc_table);
    o->chunk = w->allocator.alloc(2 * (size_t)SAVE_CHUNK, w->allocator.user);
    if (o->chunk == NULL) {
        return STRATA_ERR_NOMEM;
    }
    o->scratch = o->chunk + SAVE_CHUNK;
    return STRATA_OK;
}

static void save_out_close(save_out_t *o) {
    o->w->allocator.free(o->chunk, 2 * (size_t)SAVE_CHUNK, o->w->allocator.user);
}

/* Worlds built by hand (runtime tests) have no reflection to save with. */
static bool save_reflected(const strata_world_t *w) {
    return w->schema->component_types != NULL || w->component_count == 0;
}

strata_result_t strata_world_save_mem(const strata_world_t *w, void *buf, size_t cap, size_t *size) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(size != NULL);
    STRATA_ASSERT(buf != NULL || cap == 0);
    *size = 0;
    if (!save_reflected(w)) {
        return STRATA_ERR_SCHEMA;
    }
    save_out_t *o = w->allocator.alloc(sizeof *o, w->allocator.user);
    if (o == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memset(o, 0, sizeof *o);
    o->mem = buf;
    o->cap = cap;
    strata_result_t r = save_out_open(o, w);
    if (r == STRATA_OK) {
        r = save_write(o);
        save_out_close(o);
    }
    if (r == STRATA_OK) {
        *size = (size_t)o->pos;
        if (o->pos > cap) {
            r = STRATA_ERR_LIMIT;
        }
    }
    w->allocator.free(o, sizeof *o, w->allocator.user);
    return r;
}

strata_result_t strata_world_save(const strata_world_t *w, const char *path) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(path != NULL);
    if (!save_reflected(w)) {
        return STRATA_ERR_SCHEMA;
    }
    save_out_t *o = w->allocator.alloc(sizeof *o, w->allocator.user);
    if (o == NULL) {
        return STRATA_ERR_NOMEM;
    }
    memset(o, 0, sizeof *o);
    strata_result_t r = save_out_open(o, w);
    if (r == STRATA_OK) {
        char tmp[4096];
        o->file = sti_file_begin(path, tmp, sizeof tmp);
        if (o->file == NULL) {
            r = STRATA_ERR_IO;
        } else {
            r = save_write(o);
            strata_result_t c = sti_file_commit(o->file, tmp, path, r == STRATA_OK);
            r = r != STRATA_OK ? r : c;
        }
        save_out_close(o);
    }
    w->allocator.free(o, sizeof *o, w->allocator.user);
    return r;
}

/* --- Reading ------------------------------------------------------------------ */

/* A field of the save's layout. */
typedef struct file_field_t {
    const unsigned char *name; /* in the file's bytes */
    uint16_t name_len;
    uint8_t kind;
    bool array;
    bool claimed;              /* mapped to a field of the schema */
    uint32_t size;             /* C bytes of an element when saved (char[N]: N) */
    uint32_t count;            /* elements */
    uint32_t bytes;            /* encoded bytes of one element */
    uint32_t member_count;     /* ENUM */
    const unsigned char *members; /* ENUM: the first member name's length prefix */
    uint32_t field_count;      /* STRUCT */
    struct file_field_t *fields;
} file_field_t;

/* A component or resource of the save's layout, and how it maps. */
typedef struct file_value_t {
    const unsigned char *name;
    uint16_t name_len;
    uint32_t field_count;
    file_field_t *fields;
    uint32_t bytes;            /* encoded bytes of one value */
    int64_t target;            /* component id / resource field index, -1 if dropped */
    struct load_op_t *ops;
    uint32_t op_count, op_capacity;
    bool raw;                  /* a column copies as it is */
    uint64_t rows;             /* entities that had it */
} file_value_t;

/* One run of elements to convert from the save into the schema's value. */
typedef struct load_op_t {
    uint32_t src, dst;         /* offsets: in the encoded value, in the C value */
    uint32_t count;            /* elements */
    uint32_t src_size, dst_size; /* bytes of an element: encoded, C */
    uint8_t src_kind, dst_kind;
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
    const unsigned char *data;
    size_t size, pos;
    strata_result_t r;         /* the first error */
    load_block_t *blocks;      /* every file_field_t, newest block first */
    file_value_t *components, *resources;
    uint32_t component_count, resource_count;
} load_t;

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
    return get32(ld->data + ld->pos - 4);
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
    uint16_t n = get16(ld->data + ld->pos);
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
            if (depth >= SAVE_MAX_DEPTH) {
                return load_fail(ld, STRATA_ERR_CORRUPT, at, "structs nested too deep");
            }
            f->field_count = load_u32(ld, "struct field count");
            f->fields = ld->r == STRATA_OK ? load_fields_alloc(ld, f->field_count) : NULL;
            if (ld->r != STRATA_OK || !load_fields(ld, f->fields, f->field_count, depth + 1, &f->bytes)) {
                return false;
            }
        } else {
            f->bytes = f->kind == STRATA_KIND_STRING ? f->size : kind_bytes(f->kind);
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
        load_op_t *ops =
            w->allocator.realloc(v->ops, sizeof(load_op_t) * v->op_capacity, sizeof(load_op_t) * cap, w->allocator.user);
        if (ops == NULL) {
            return load_fail(ld, STRATA_ERR_NOMEM, ld->pos, "out of memory");
        }
        v->ops = ops;
        v->op_capacity = cap;
    }
    v->ops[v->op_count++] = op;
    return true;
}

static bool load_change(load_t *ld, strata_change_kind_t kind, int64_t component, const char *path, const char *name,
                        int name_len) {
    if (sti_loader_change(ld->l, kind, component, "%s%s%.*s", path, path[0] ? "." : "", name_len, name) !=
        STRATA_OK) {
        ld->r = STRATA_ERR_NOMEM;
        return false;
    }
    return true;
}

static bool load_map_struct(load_t *ld, file_value_t *v, int64_t counted, file_field_t *ff, uint32_t fcount,
                            const strata_field_desc_t *tf, uint32_t tcount, uint32_t src, uint32_t dst,
                            const char *path, bool report);

/* A schema error about field `path.name`. */
static bool load_incompatible(load_t *ld, const char *path, const char *name, const char *why) {
    char msg[256];
    snprintf(msg, sizeof msg, "field '%s%s%s': %s", path, path[0] ? "." : "", name, why);
    ld->l->report->offset = 0;
    if (ld->r == STRATA_OK) {
        ld->r = STRATA_ERR_SCHEMA;
        sti_loader_fail(ld->l, STRATA_ERR_SCHEMA, "%s", msg);
    }
    return false;
}

/* Map saved field f (encoded at src) onto the schema's field t (at dst). */
static bool load_map_field(load_t *ld, file_value_t *v, int64_t counted, file_field_t *f, const strata_field_desc_t *t,
                           uint32_t src, uint32_t dst, const char *path, bool report) {
    char why[160];
    if (f->array != t->array || f->count > t->count) {
        snprintf(why, sizeof why, "was %s%s[%u], is %s%s[%u]: not a lossless change", kind_name(f->kind),
                 f->array ? "" : " (not an array)", f->count, kind_name(t->kind), t->array ? "" : " (not an array)",
                 t->count);
        return load_incompatible(ld, path, t->name, why);
    }
    bool struct_pair = f->kind == STRATA_KIND_STRUCT && t->kind == STRATA_KIND_STRUCT;
    bool enum_pair = f->kind == STRATA_KIND_ENUM && t->kind == STRATA_KIND_ENUM;
    bool string_pair = f->kind == STRATA_KIND_STRING && t->kind == STRATA_KIND_STRING;
    bool scalar_pair = kind_bytes(f->kind) > 0 && f->kind != STRATA_KIND_ENUM && kind_bytes(t->kind) > 0 &&
                       t->kind != STRATA_KIND_ENUM;
    if (!(struct_pair || enum_pair || string_pair || (scalar_pair && kind_lossless(f->kind, t->kind))) ||
        (string_pair && f->size > t->size)) {
        snprintf(why, sizeof why, "cannot convert %s to %s without loss", kind_name(f->kind), kind_name(t->kind));
        if (string_pair) {
            snprintf(why, sizeof why, "cannot shorten char[%u] to char[%u]", f->size, t->size);
        }
        return load_incompatible(ld, path, t->name, why);
    }
    if (report && (f->kind != t->kind || (string_pair && f->size != t->size) || f->count != t->count)) {
        if (!load_change(ld, STRATA_CHANGE_CONVERTED, counted, path, t->name, (int)strlen(t->name))) {
            return false;
        }
    }
    if (struct_pair) {
        char sub[200];
        snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", t->name);
        for (uint32_t i = 0; i < f->count; i++) {
            if (!load_map_struct(ld, v, counted, f->fields, f->field_count, t->type->fields, t->type->count,
                                 src + i * f->bytes, dst + i * t->size, sub, report && i == 0)) {
                return false;
            }
        }
        return true;
    }
    load_op_t op = {src, dst, f->count, f->bytes, t->size, f->kind, t->kind, f, NULL};
    if (enum_pair) {
        const strata_world_t *w = ld->l->fresh;
        op.enum_map = w->allocator.alloc(sizeof(uint32_t) * (f->member_count + 1), w->allocator.user);
        if (op.enum_map == NULL) {
            return load_fail(ld, STRATA_ERR_NOMEM, ld->pos, "out of memory");
        }
        const unsigned char *p = f->members;
        for (uint32_t m = 0; m < f->member_count; m++) {
            uint16_t len = get16(p);
            op.enum_map[m] = UINT32_MAX;
            for (uint32_t j = 0; j < t->type->count; j++) {
                if (name_is(p + 2, len, t->type->members[j])) {
                    op.enum_map[m] = j;
                }
            }
            p += 2 + len;
        }
        if (!op_push(ld, v, op)) {
            w->allocator.free(op.enum_map, sizeof(uint32_t) * (f->member_count + 1), w->allocator.user);
            return false;
        }
        return true;
    }
    return op_push(ld, v, op);
}

/* Map saved fields ff (at src) onto the schema's fields tf (at dst), by
 * name, then by `renamed_from` for a schema field whose name was not saved. */
static bool load_map_struct(load_t *ld, file_value_t *v, int64_t counted, file_field_t *ff, uint32_t fcount,
                            const strata_field_desc_t *tf, uint32_t tcount, uint32_t src, uint32_t dst,
                            const char *path, bool report) {
    for (uint32_t i = 0; i < fcount; i++) {
        ff[i].claimed = false;
    }
    for (uint32_t j = 0; j < tcount; j++) {
        const strata_field_desc_t *t = &tf[j];
        int64_t match = -1;
        bool renamed = false;
        for (uint32_t i = 0; i < fcount && match < 0; i++) {
            if (name_is(ff[i].name, ff[i].name_len, t->name)) {
                match = i;
            }
        }
        for (uint32_t i = 0; i < fcount && match < 0 && t->renamed_from != NULL; i++) {
            if (name_is(ff[i].name, ff[i].name_len, t->renamed_from)) {
                match = i;
                renamed = true;
            }
        }
        if (match < 0) {
            if (report && !load_change(ld, STRATA_CHANGE_ADDED, counted, path, t->name, (int)strlen(t->name))) {
                return false;
            }
            continue;
        }
        ff[match].claimed = true;
        if (report && renamed) {
            char old[200];
            snprintf(old, sizeof old, "%s (was %s)", t->name, t->renamed_from);
            if (!load_change(ld, STRATA_CHANGE_RENAMED, counted, path, old, (int)strlen(old))) {
                return false;
            }
        }
        uint32_t at = src;
        for (int64_t i = 0; i < match; i++) {
            at += ff[i].bytes * ff[i].count;
        }
        if (!load_map_field(ld, v, counted, &ff[match], t, at, dst + t->offset, path, report)) {
            return false;
        }
    }
    for (uint32_t i = 0; i < fcount; i++) {
        if (!ff[i].claimed && report &&
            !load_change(ld, STRATA_CHANGE_DROPPED, counted, path, (const char *)ff[i].name, ff[i].name_len)) {
            return false;
        }
    }
    return true;
}

/* True if v's ops copy a whole column as it is: same kinds, same offsets,
 * covering the schema's value exactly (little-endian host). */
static bool load_raw(const file_value_t *v, uint32_t size) {
    if (!save_little_endian() || v->bytes != size) {
        return false;
    }
    uint32_t at = 0;
    for (uint32_t i = 0; i < v->op_count; i++) {
        const load_op_t *op = &v->ops[i];
        if (op->src != at || op->dst != at || op->src_kind != op->dst_kind || op->src_kind == STRATA_KIND_BOOL ||
            op->src_kind == STRATA_KIND_ENUM || op->src_kind == STRATA_KIND_STRING || op->src_size != op->dst_size) {
            return false;
        }
        at += op->src_size * op->count;
    }
    return at == size;
}

/* Map every saved component and resource onto the schema; report the rest. */
static bool load_map(load_t *ld) {
    const strata_schema_t *s = ld->l->fresh->schema;
    uint32_t cc = ld->l->fresh->component_count;
    for (uint32_t c = 0; c < cc; c++) {
        const strata_type_desc_t *t = &s->component_types[c];
        int64_t match = -1;
        bool renamed = false;
        for (uint32_t i = 0; i < ld->component_count && match < 0; i++) {
            if (name_is(ld->components[i].name, ld->components[i].name_len, t->name)) {
                match = i;
            }
        }
        for (uint32_t i = 0; i < ld->component_count && match < 0 && t->renamed_from != NULL; i++) {
            if (ld->components[i].target < 0 && name_is(ld->components[i].name, ld->components[i].name_len,
                                                        t->renamed_from)) {
                match = i;
                renamed = true;
            }
        }
        if (match < 0) {
            if (!load_change(ld, STRATA_CHANGE_ADDED, -2, "", t->name, (int)strlen(t->name))) {
                return false;
            }
            continue;
        }
        file_value_t *v = &ld->components[match];
        v->target = c;
        if (renamed) {
            char old[200];
            snprintf(old, sizeof old, "%s (was %s)", t->name, t->renamed_from);
            if (!load_change(ld, STRATA_CHANGE_RENAMED, match, "", old, (int)strlen(old))) {
                return false;
            }
        }
        if (!load_map_struct(ld, v, match, v->fields, v->field_count, t->fields, t->count, 0, 0, t->name, true)) {
            return false;
        }
        v->raw = t->size > 0 && load_raw(v, t->size);
    }
    for (uint32_t i = 0; i < ld->component_count; i++) {
        const file_value_t *v = &ld->components[i];
        if (v->target < 0 && !load_change(ld, STRATA_CHANGE_DROPPED, i, "", (const char *)v->name, v->name_len)) {
            return false;
        }
    }
    const strata_type_desc_t *rt = save_resource_type(s);
    for (uint32_t j = 0; rt != NULL && j < rt->count; j++) {
        const strata_field_desc_t *t = &rt->fields[j];
        int64_t match = -1;
        for (uint32_t i = 0; i < ld->resource_count && match < 0; i++) {
            if (name_is(ld->resources[i].name, ld->resources[i].name_len, t->name)) {
                match = i;
            }
        }
        for (uint32_t i = 0; i < ld->resource_count && match < 0 && t->renamed_from != NULL; i++) {
            if (ld->resources[i].target < 0 &&
                name_is(ld->resources[i].name, ld->resources[i].name_len, t->renamed_from)) {
                match = i;
            }
        }
        char path[100];
        snprintf(path, sizeof path, "resource.%.63s", t->name); /* names are at most 63 characters */
        if (match < 0) {
            if (!load_change(ld, STRATA_CHANGE_ADDED, -1, "", path, (int)strlen(path))) {
                return false;
            }
            continue;
        }
        file_value_t *v = &ld->resources[match];
        v->target = j;
        if (t->renamed_from != NULL && !name_is(v->name, v->name_len, t->name)) {
            char old[200];
            snprintf(old, sizeof old, "%s (was %s)", path, t->renamed_from);
            if (!load_change(ld, STRATA_CHANGE_RENAMED, -1, "", old, (int)strlen(old))) {
                return false;
            }
        }
        if (!load_map_struct(ld, v, -1, v->fields, v->field_count, t->type->fields, t->type->count, 0, t->offset,
                             path, true)) {
            return false;
        }
    }
    for (uint32_t i = 0; i < ld->resource_count; i++) {
        const file_value_t *v = &ld->resources[i];
        char path[100];
        snprintf(path, sizeof path, "resource.%.*s", (int)v->name_len, (const char *)v->name);
        if (v->target < 0 && !load_change(ld, STRATA_CHANGE_DROPPED, -1, "", path, (int)strlen(path))) {
            return false;
        }
    }
    return true;
}

/* --- Decoding values --------------------------------------------------------- */

/* Convert one element (the mapping made sure it is lossless). False if the
 * saved value is invalid (a bool not 0/1, an enum value out of range or
 * gone from the schema), with the message in why. */
static bool load_element(const load_op_t *op, const unsigned char *s, unsigned char *d, char *why, size_t why_size) {
    uint8_t sk = op->src_kind, dk = op->dst_kind;
    if (sk == STRATA_KIND_STRING) {
        memcpy(d, s, op->src_size);
        memset(d + op->src_size, 0, op->dst_size - op->src_size);
        return true;
    }
    if (sk == STRATA_KIND_ENUM) {
        uint32_t value = get32(s);
        if (value >= op->field->member_count) {
            snprintf(why, why_size, "enum value %u out of range", value);
            return false;
        }
        if (op->enum_map[value] == UINT32_MAX) {
            const unsigned char *p = op->field->members;
            for (uint32_t m = 0; m < value; m++) {
                p += 2 + get16(p);
            }
            snprintf(why, why_size, "enum member '%.*s' of field '%.*s' is gone from the schema", (int)get16(p),
                     (const char *)p + 2, (int)op->field->name_len, (const char *)op->field->name);
            return false;
        }
        write_cint(d, op->dst_size, op->enum_map[value]);
        return true;
    }
    int64_t i = 0;
    uint64_t u = 0;
    double f = 0;
    bool is_float = false, is_unsigned = false;
    switch (sk) {
    case STRATA_KIND_BOOL:
        if (s[0] > 1) {
            snprintf(why, why_size, "bool byte %u", s[0]);
            return false;
        }
        u = s[0];
        is_unsigned = true;
        break;
    case STRATA_KIND_I8: i = (int8_t)s[0]; break;
    case STRATA_KIND_I16: i = (int16_t)get16(s); break;
    case STRATA_KIND_I32: i = (int32_t)get32(s); break;
    case STRATA_KIND_I64: i = (int64_t)get64(s); break;
    case STRATA_KIND_U8: u = s[0]; is_unsigned = true; break;
    case STRATA_KIND_U16: u = get16(s); is_unsigned = true; break;
    case STRATA_KIND_U32: u = get32(s); is_unsigned = true; break;
    case STRATA_KIND_U64: case STRATA_KIND_ENTITY: u = get64(s); is_unsigned = true; break;
    case STRATA_KIND_F32: { uint32_t bits = get32(s); float x; memcpy(&x, &bits, 4); f = x; is_float = true; break; }
    case STRATA_KIND_F64: { uint64_t bits = get64(s); memcpy(&f, &bits, 8); is_float = true; break; }
    default: break;
    }
    if (sk == dk && sk == STRATA_KIND_F32) {
        memcpy(d, s, 4); /* keeps a NaN's bits */
        return true;
    }
    if (!is_float) {
        f = is_unsigned ? (double)u : (double)i;
        if (is_unsigned) {
            i = (int64_t)u;
        } else {
            u = (uint64_t)i;
        }
    }
    switch (dk) {
    case STRATA_KIND_BOOL: { bool b = u != 0; memcpy(d, &b, 1); break; }
    case STRATA_KIND_I8: case STRATA_KIND_U8: d[0] = (unsigned char)u; break;
    case STRATA_KIND_I16: case STRATA_KIND_U16: { uint16_t x = (uint16_t)u; memcpy(d, &x, 2); break; }
    case STRATA_KIND_I32: case STRATA_KIND_U32: { uint32_t x = (uint32_t)u; memcpy(d, &x, 4); break; }
    case STRATA_KIND_I64: case STRATA_KIND_U64: case STRATA_KIND_ENTITY: memcpy(d, &u, 8); break;
    case STRATA_KIND_F32: { float x = (float)f; memcpy(d, &x, 4); break; }
    case STRATA_KIND_F64:
        if (sk == STRATA_KIND_F64) {
            uint64_t bits = get64(s);
            memcpy(d, &bits, 8); /* keeps a NaN's bits */
        } else {
            memcpy(d, &f, 8);
        }
        break;
    default: break;
    }
    return true;
}

/* Decode n values of v (encoded at ld->pos, checked to be there) into C
 * values `stride` apart at dst. */
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
            for (uint32_t e = 0; e < op->count; e++) {
                char why[200];
                const unsigned char *at = s + op->src + e * op->src_size;
                if (!load_element(op, at, d + op->dst + e * op->dst_size, why, sizeof why)) {
                    bool gone = op->src_kind == STRATA_KIND_ENUM && get32(at) < op->field->member_count;
                    return load_fail(ld, gone ? STRATA_ERR_SCHEMA : STRATA_ERR_CORRUPT, (size_t)(at - ld->data), why);
                }
            }
        }
    }
    return true;
}

/* --- The load ---------------------------------------------------------------- */

/* Check the header: magic, format, size, checksum, schema name and version. */
static bool load_header(load_t *ld) {
    const unsigned char *d = ld->data;
    char msg[200];
    if (ld->size >= 8 && memcmp(d, SAVE_MAGIC, 8) != 0) {
        return load_fail(ld, STRATA_ERR_CORRUPT, 0, "not a Strata save (no magic number)");
    }
    if (ld->size < SAVE_HEADER) {
        snprintf(msg, sizeof msg, "truncated header: the file has %zu bytes, a header %u", ld->size, SAVE_HEADER);
        return load_fail(ld, STRATA_ERR_CORRUPT, ld->size, msg);
    }
    uint32_t format = get32(d + 8);
    if (format != SAVE_FORMAT || get32(d + 12) != SAVE_HEADER) {
        snprintf(msg, sizeof msg, "save format %u: this runtime reads format %u", format, SAVE_FORMAT);
        return load_fail(ld, STRATA_ERR_CORRUPT, 8, msg);
    }
    uint64_t declared = get64(d + 16);
    if (declared != ld->size) {
        snprintf(msg, sizeof msg, "%s: the header says %" PRIu64 " bytes, the file has %zu",
                 declared > ld->size ? "truncated" : "trailing bytes", declared, ld->size);
        return load_fail(ld, STRATA_ERR_CORRUPT, declared > ld->size ? ld->size : (size_t)declared, msg);
    }
    save_crc_t *table = ld->l->fresh->allocator.alloc(sizeof *table, ld->l->fresh->allocator.user);
    if (table == NULL) {
        return load_fail(ld, STRATA_ERR_NOMEM, 0, "out of memory");
    }
    save_crc_init(table);
    uint32_t crc = save_crc(table, 0xffffffffu, d + 28, ld->size - 28) ^ 0xffffffffu;
    ld->l->fresh->allocator.free(table, sizeof *table, ld->l->fresh->allocator.user);
    if (crc != get32(d + 24)) {
        return load_fail(ld, STRATA_ERR_CORRUPT, 24, "checksum mismatch: the file is corrupt");
    }
    ld->pos = SAVE_HEADER;
    strata_load_report_t *report = ld->l->report;
    report->schema_version = get32(d + 28);
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
        return load_fail(ld, STRATA_ERR_SCHEMA, SAVE_HEADER, msg);
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
    if (save_fnv(SAVE_FNV_START, ld->data + start, ld->pos - start) != get64(ld->data + 32)) {
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
            uint32_t c = get32(ids + 4 * i);
            if (c >= ld->component_count || (i > 0 && c <= get32(ids + 4 * (i - 1)))) {
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
            strata_entity_t e = get64(ld->data + ld->pos);
            if (!sti_loader_place(ld->l, table, row + i, e)) {
                char msg[120];
                snprintf(msg, sizeof msg, "entity handle 0x%016" PRIx64 " is invalid or used twice", e);
                return load_fail(ld, STRATA_ERR_CORRUPT, ld->pos, msg);
            }
            ld->pos += 8;
        }
        for (uint32_t i = 0; i < k; i++) {
            file_value_t *v = &ld->components[get32(ids + 4 * i)];
            v->rows += n;
            if (!load_need(ld, (uint64_t)v->bytes * n, "component column")) {
                return false;
            }
            if (v->target >= 0 && v->bytes > 0) {
                unsigned char *col = table->columns[v->target];
                uint32_t size = w->components[v->target].size;
                if (col != NULL && !load_decode(ld, v, col + (size_t)row * size, size, n)) {
                    return false;
                }
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
    while (ld->blocks != NULL) {
        load_block_t *next = ld->blocks->next;
        w->allocator.free(ld->blocks, sizeof(load_block_t) + sizeof(file_field_t) * ld->blocks->count,
                          w->allocator.user);
        ld->blocks = next;
    }
}

strata_result_t strata_world_load_mem(strata_world_t *w, const void *data, size_t size, strata_load_report_t *report) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(data != NULL || size == 0);
    sti_loader_t *l = NULL;
    strata_result_t r = sti_loader_open(w, report, &l);
    if (r != STRATA_OK) {
        return r;
    }
    if (!save_reflected(w)) {
        sti_loader_abort(l);
        r = sti_loader_fail(l, STRATA_ERR_SCHEMA, "this world has no reflection data to load with");
        w->allocator.free(l, sizeof *l, w->allocator.user);
        return r;
    }
    load_t ld = {.l = l, .data = data, .size = size};
    uint32_t alive = 0;
    bool ok = load_header(&ld) && load_layout(&ld) && load_map(&ld) && load_index(&ld, &alive) &&
              load_tables(&ld, alive) && load_resources(&ld);
    if (ok) {
        /* Counts of field and component changes: the rows of their component. */
        for (uint32_t i = 0; i < l->change_count; i++) {
            int64_t c = l->changes[i].component;
            if (c >= 0 && (uint64_t)c < ld.component_count) {
                l->changes[i].count = ld.components[c].rows;
            } else if (c == -2) {
                l->changes[i].count = 0; /* an added component: no saved entity has it */
            }
        }
    }
    load_free(&ld);
    if (ok) {
        r = sti_loader_finish(l, false);
        if (r != STRATA_OK) {
            ld.r = r;
        }
    } else {
        r = ld.r != STRATA_OK ? ld.r : STRATA_ERR_CORRUPT;
    }
    if (r != STRATA_OK) {
        sti_loader_abort(l);
    }
    w->allocator.free(l, sizeof *l, w->allocator.user);
    return r;
}

strata_result_t strata_world_load(strata_world_t *w, const char *path, strata_load_report_t *report) {
    return sti_load_file(w, path, report, strata_world_load_mem);
}

/* format.c: the pieces both save formats use (format.h): checksum, hash,
 * the kind table, scalar values in C memory, the schema's reflection. */
#include "format.h"

/* --- Checksum and hash ----------------------------------------------------- */

void sti_crc_init(sti_crc_t *c) {
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

uint32_t sti_crc(const sti_crc_t *c, uint32_t crc, const unsigned char *p, size_t n) {
    while (n >= 8) {
        uint32_t one = sti_get32(p) ^ crc;
        uint32_t two = sti_get32(p + 4);
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

uint64_t sti_fnv(uint64_t h, const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 0x100000001b3u;
    }
    return h;
}

/* --- Kinds ----------------------------------------------------------------- */

/* The one table of kinds: name and encoded bytes, by strata_kind_t. */
static const struct {
    const char *name;
    uint8_t bytes;
} kinds[] = {
    {"?", 0},   {"bool", 1},   {"i8", 1},   {"i16", 2},    {"i32", 4},      {"i64", 8},
    {"u8", 1},  {"u16", 2},    {"u32", 4},  {"u64", 8},    {"f32", 4},      {"f64", 8},
    {"entity", 8}, {"enum", 4}, {"struct", 0}, {"char[]", 0},
};

uint32_t sti_kind_bytes(uint8_t kind) {
    return kind <= STRATA_KIND_STRING ? kinds[kind].bytes : 0;
}

const char *sti_kind_name(uint8_t kind) {
    return kind <= STRATA_KIND_STRING ? kinds[kind].name : "?";
}

bool sti_kind_integer(uint8_t kind) {
    return kind >= STRATA_KIND_I8 && kind <= STRATA_KIND_U64;
}

bool sti_kind_signed(uint8_t kind) {
    return kind >= STRATA_KIND_I8 && kind <= STRATA_KIND_I64;
}

uint32_t sti_kind_bits(uint8_t kind) {
    return sti_kind_bytes(kind) * 8;
}

/* --- Scalar values in C memory --------------------------------------------- */

/* A C integer of `size` bytes at p (enums, whose size the compiler picks). */
static int64_t cint_read(const unsigned char *p, uint32_t size) {
    switch (size) {
    case 1: { int8_t v; memcpy(&v, p, 1); return v; }
    case 2: { int16_t v; memcpy(&v, p, 2); return v; }
    case 8: { int64_t v; memcpy(&v, p, 8); return v; }
    default: { int32_t v; memcpy(&v, p, 4); return v; }
    }
}

sti_scalar_t sti_scalar_read(uint8_t kind, uint32_t size, const unsigned char *p) {
    sti_scalar_t v = {0, 0, 0};
    switch (kind) {
    case STRATA_KIND_BOOL: { bool b; memcpy(&b, p, 1); v.u = b ? 1 : 0; break; }
    case STRATA_KIND_I8: case STRATA_KIND_I16: case STRATA_KIND_I32: case STRATA_KIND_I64: case STRATA_KIND_ENUM:
        v.i = cint_read(p, kind == STRATA_KIND_ENUM ? size : sti_kind_bytes(kind));
        v.u = (uint64_t)v.i;
        v.f = (double)v.i;
        return v;
    case STRATA_KIND_U8: v.u = p[0]; break;
    case STRATA_KIND_U16: { uint16_t x; memcpy(&x, p, 2); v.u = x; break; }
    case STRATA_KIND_U32: { uint32_t x; memcpy(&x, p, 4); v.u = x; break; }
    case STRATA_KIND_U64: case STRATA_KIND_ENTITY: memcpy(&v.u, p, 8); break;
    case STRATA_KIND_F32: { float x; memcpy(&x, p, 4); v.f = x; return v; }
    case STRATA_KIND_F64: memcpy(&v.f, p, 8); return v;
    default: return v;
    }
    v.i = (int64_t)v.u;
    v.f = (double)v.u;
    return v;
}

void sti_scalar_write(uint8_t kind, uint32_t size, unsigned char *p, sti_scalar_t v) {
    switch (kind) {
    case STRATA_KIND_BOOL: { bool b = v.u != 0; memcpy(p, &b, 1); break; }
    case STRATA_KIND_I8: case STRATA_KIND_U8: p[0] = (unsigned char)v.u; break;
    case STRATA_KIND_I16: case STRATA_KIND_U16: { uint16_t x = (uint16_t)v.u; memcpy(p, &x, 2); break; }
    case STRATA_KIND_I32: case STRATA_KIND_U32: { uint32_t x = (uint32_t)v.u; memcpy(p, &x, 4); break; }
    case STRATA_KIND_I64: case STRATA_KIND_U64: case STRATA_KIND_ENTITY: memcpy(p, &v.u, 8); break;
    case STRATA_KIND_F32: { float x = (float)v.f; memcpy(p, &x, 4); break; }
    case STRATA_KIND_F64: memcpy(p, &v.f, 8); break;
    case STRATA_KIND_ENUM:
        switch (size) {
        case 1: { int8_t x = (int8_t)v.i; memcpy(p, &x, 1); break; }
        case 2: { int16_t x = (int16_t)v.i; memcpy(p, &x, 2); break; }
        case 8: memcpy(p, &v.i, 8); break;
        default: { int32_t x = (int32_t)v.i; memcpy(p, &x, 4); break; }
        }
        break;
    default: break;
    }
}

/* --- The schema's reflection ----------------------------------------------- */

bool sti_save_reflected(const strata_world_t *w) {
    return w->schema->component_types != NULL || w->component_count == 0;
}

const char *sti_save_name(const strata_schema_t *s) {
    return s->save_name != NULL ? s->save_name : s->name;
}

const strata_type_desc_t *sti_save_resources(const strata_schema_t *s) {
    return s->resource_type != NULL && s->resource_type->count > 0 ? s->resource_type : NULL;
}

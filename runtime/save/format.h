/* format.h: what the save formats share (private): the binary header's
 * constants, little-endian numbers, the checksum and layout hash, the one
 * table of field kinds, and scalar values read from and written to C memory
 * whatever their kind (the walk over reflected fields in both formats). */
#ifndef STRATA_SAVE_FORMAT_H
#define STRATA_SAVE_FORMAT_H

#include "strata_internal.h"

#include <string.h>

#define STI_SAVE_MAGIC "\x89STRATA\n"
#define STI_SAVE_FORMAT 2u        /* 2 added the links of non-exclusive relations */
#define STI_SAVE_FORMAT_OLDEST 1u /* the oldest format this runtime still reads */
#define STI_SAVE_HEADER 40u
#define STI_SAVE_MAX_DEPTH 32u /* nesting of struct fields a save may have */
#define STI_FNV_START 0xcbf29ce484222325u

/* --- Little-endian numbers ------------------------------------------------- */

static inline void sti_put16(unsigned char *p, uint16_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static inline void sti_put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static inline void sti_put64(unsigned char *p, uint64_t v) {
    sti_put32(p, (uint32_t)v);
    sti_put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t sti_get16(const unsigned char *p) {
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t sti_get32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t sti_get64(const unsigned char *p) {
    return (uint64_t)sti_get32(p) | ((uint64_t)sti_get32(p + 4) << 32);
}

/* True on a little-endian host: then columns of plain numbers are their own encoding. */
static inline bool sti_little_endian(void) {
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* --- Checksum and hash ----------------------------------------------------- */

/* CRC-32 (IEEE, reflected) tables, eight bytes a step. */
typedef struct sti_crc_t {
    uint32_t t[8][256];
} sti_crc_t;

/* Fill the tables. */
void sti_crc_init(sti_crc_t *c);

/* Continue a CRC over n bytes (start with 0xffffffff, finish with ^ 0xffffffff). */
uint32_t sti_crc(const sti_crc_t *c, uint32_t crc, const unsigned char *p, size_t n);

/* Continue an FNV-1a 64 hash (start with STI_FNV_START): the layout hash. */
uint64_t sti_fnv(uint64_t h, const unsigned char *p, size_t n);

/* --- Kinds ----------------------------------------------------------------- */

/* Bytes of one encoded element of a scalar kind (0 for STRUCT and STRING). */
static inline uint32_t sti_kind_bytes(uint8_t kind) {
    switch (kind) {
    case STRATA_KIND_BOOL:
    case STRATA_KIND_I8:
    case STRATA_KIND_U8: return 1;
    case STRATA_KIND_I16:
    case STRATA_KIND_U16: return 2;
    case STRATA_KIND_I32:
    case STRATA_KIND_U32:
    case STRATA_KIND_F32:
    case STRATA_KIND_ENUM: return 4;
    case STRATA_KIND_I64:
    case STRATA_KIND_U64:
    case STRATA_KIND_F64:
    case STRATA_KIND_ENTITY: return 8;
    default: return 0;
    }
}

/* The kind's name as a schema spells it ("i32", "char[]"; "?" if unknown). */
const char *sti_kind_name(uint8_t kind);

/* True for the integer kinds i8 .. u64. */
bool sti_kind_integer(uint8_t kind);

/* True for the signed integer kinds i8 .. i64. */
bool sti_kind_signed(uint8_t kind);

/* Bits of an integer kind's values. */
uint32_t sti_kind_bits(uint8_t kind);

/* --- Scalar values in C memory --------------------------------------------- */

/* A scalar's value whatever its kind: integers in i (signed kinds) or u
 * (unsigned kinds, bool, entity, and enums as their member number), floats in f. */
typedef struct sti_scalar_t {
    int64_t i;
    uint64_t u;
    double f;
} sti_scalar_t;

/* The value of kind `kind` (C size `size`, for enums) at p. (Inline: the
 * row loops of both formats call it for every element.) */
static inline sti_scalar_t sti_scalar_read(uint8_t kind, uint32_t size, const unsigned char *p);

/* Store v as kind `kind` (C size `size`) at p; integers keep their low bits. */
static inline void sti_scalar_write(uint8_t kind, uint32_t size, unsigned char *p, sti_scalar_t v);

/* A C integer of `size` bytes at p (enums, whose size the compiler picks). */
static inline int64_t sti_cint_read(const unsigned char *p, uint32_t size) {
    switch (size) {
    case 1: {
        int8_t v;
        memcpy(&v, p, 1);
        return v;
    }
    case 2: {
        int16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case 8: {
        int64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    default: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    }
}

static inline sti_scalar_t sti_scalar_read(uint8_t kind, uint32_t size, const unsigned char *p) {
    sti_scalar_t v = {0, 0, 0};
    switch (kind) {
    case STRATA_KIND_BOOL: {
        bool b;
        memcpy(&b, p, 1);
        v.u = b ? 1 : 0;
        break;
    }
    case STRATA_KIND_I8:
    case STRATA_KIND_I16:
    case STRATA_KIND_I32:
    case STRATA_KIND_I64:
    case STRATA_KIND_ENUM:
        v.i = sti_cint_read(p, kind == STRATA_KIND_ENUM ? size : sti_kind_bytes(kind));
        v.u = (uint64_t)v.i;
        v.f = (double)v.i;
        return v;
    case STRATA_KIND_U8: v.u = p[0]; break;
    case STRATA_KIND_U16: {
        uint16_t x;
        memcpy(&x, p, 2);
        v.u = x;
        break;
    }
    case STRATA_KIND_U32: {
        uint32_t x;
        memcpy(&x, p, 4);
        v.u = x;
        break;
    }
    case STRATA_KIND_U64:
    case STRATA_KIND_ENTITY: memcpy(&v.u, p, 8); break;
    case STRATA_KIND_F32: {
        float x;
        memcpy(&x, p, 4);
        v.f = x;
        return v;
    }
    case STRATA_KIND_F64: memcpy(&v.f, p, 8); return v;
    default: return v;
    }
    v.i = (int64_t)v.u;
    v.f = (double)v.u;
    return v;
}

static inline void sti_scalar_write(uint8_t kind, uint32_t size, unsigned char *p, sti_scalar_t v) {
    switch (kind) {
    case STRATA_KIND_BOOL: {
        bool b = v.u != 0;
        memcpy(p, &b, 1);
        break;
    }
    case STRATA_KIND_I8:
    case STRATA_KIND_U8: p[0] = (unsigned char)v.u; break;
    case STRATA_KIND_I16:
    case STRATA_KIND_U16: {
        uint16_t x = (uint16_t)v.u;
        memcpy(p, &x, 2);
        break;
    }
    case STRATA_KIND_I32:
    case STRATA_KIND_U32: {
        uint32_t x = (uint32_t)v.u;
        memcpy(p, &x, 4);
        break;
    }
    case STRATA_KIND_I64:
    case STRATA_KIND_U64:
    case STRATA_KIND_ENTITY: memcpy(p, &v.u, 8); break;
    case STRATA_KIND_F32: {
        float x = (float)v.f;
        memcpy(p, &x, 4);
        break;
    }
    case STRATA_KIND_F64: memcpy(p, &v.f, 8); break;
    case STRATA_KIND_ENUM:
        switch (size) {
        case 1: {
            int8_t x = (int8_t)v.i;
            memcpy(p, &x, 1);
            break;
        }
        case 2: {
            int16_t x = (int16_t)v.i;
            memcpy(p, &x, 2);
            break;
        }
        case 8: memcpy(p, &v.i, 8); break;
        default: {
            int32_t x = (int32_t)v.i;
            memcpy(p, &x, 4);
            break;
        }
        }
        break;
    default: break;
    }
}

/* --- The schema's reflection ----------------------------------------------- */

/* False for worlds built by hand (runtime tests): no field descriptions to save with. */
bool sti_save_reflected(const strata_world_t *w);

/* The name saves of this schema carry: save_name, else the world's name. */
const char *sti_save_name(const strata_schema_t *s);

/* The resource block's type, or NULL when it has no resources. */
const strata_type_desc_t *sti_save_resources(const strata_schema_t *s);

#endif /* STRATA_SAVE_FORMAT_H */

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

/* The one table of kind names, by strata_kind_t. */
static const char *const kind_names[] = {"?",   "bool", "i8",  "i16", "i32",    "i64",  "u8",     "u16",
                                         "u32", "u64",  "f32", "f64", "entity", "enum", "struct", "char[]"};

const char *sti_kind_name(uint8_t kind) {
    return kind <= STRATA_KIND_STRING ? kind_names[kind] : "?";
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

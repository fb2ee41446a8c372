/* evolve.c: the one mapping of a save onto the schema (evolve.h), for
 * binary and JSON loads alike. */
#include "evolve.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

sti_evolve_names_t sti_evolve_fields(const strata_field_desc_t *fields, uint32_t n) {
    static const strata_field_desc_t none = {0};
    const strata_field_desc_t *f = fields != NULL ? fields : &none;
    return (sti_evolve_names_t){&f->name, &f->renamed_from, sizeof *f, fields != NULL ? n : 0};
}

sti_evolve_names_t sti_evolve_components(const strata_schema_t *s) {
    static const strata_type_desc_t none = {0};
    const strata_type_desc_t *t = s->component_types != NULL ? s->component_types : &none;
    return (sti_evolve_names_t){&t->name, &t->renamed_from, sizeof *t,
                                s->component_types != NULL ? s->component_count : 0};
}

static const char *name_at(const sti_evolve_names_t *schema, const char *const *first, uint32_t i) {
    return *(const char *const *)(const void *)((const char *)first + (size_t)i * schema->stride);
}

static const char *const *formers_at(const sti_evolve_names_t *schema, uint32_t i) {
    return *(const char *const *const *)(const void *)((const char *)schema->former + (size_t)i * schema->stride);
}

bool sti_evolve_has_former(const sti_evolve_names_t *schema, uint32_t i) {
    const char *const *formers = formers_at(schema, i);
    return formers != NULL && formers[0] != NULL;
}

static bool spelled(const char *s, const char *name, size_t len) {
    return s != NULL && strlen(s) == len && memcmp(s, name, len) == 0;
}

static const void *saved_find(const sti_evolve_saved_t *saved, const char *name) {
    return name != NULL ? saved->find(saved->set, name, strlen(name)) : NULL;
}

const void *sti_evolve_source(const sti_evolve_names_t *schema, uint32_t i, const sti_evolve_saved_t *saved,
                              const char **former) {
    *former = NULL;
    const void *found = saved_find(saved, name_at(schema, schema->name, i));
    const char *const *formers = formers_at(schema, i);
    for (uint32_t k = 0; found == NULL && formers != NULL && formers[k] != NULL; k++) {
        found = saved_find(saved, formers[k]);
        *former = found != NULL ? formers[k] : NULL;
    }
    return found;
}

/* True if `name` is one of element i's former names. */
static bool former_of(const sti_evolve_names_t *schema, uint32_t i, const char *name, size_t len) {
    const char *const *formers = formers_at(schema, i);
    for (uint32_t k = 0; formers != NULL && formers[k] != NULL; k++) {
        if (spelled(formers[k], name, len)) {
            return true;
        }
    }
    return false;
}

int64_t sti_evolve_target(const sti_evolve_names_t *schema, const sti_evolve_saved_t *saved, const char *name,
                          size_t len) {
    for (uint32_t i = 0; i < schema->count; i++) {
        if (spelled(name_at(schema, schema->name, i), name, len)) {
            return i;
        }
    }
    for (uint32_t i = 0; i < schema->count; i++) {
        const char *former;
        if (former_of(schema, i, name, len) && sti_evolve_source(schema, i, saved, &former) != NULL &&
            spelled(former, name, len)) {
            return i; /* the former name element i takes its value from */
        }
    }
    return -1;
}

strata_result_t sti_evolve_note(sti_loader_t *l, strata_change_kind_t kind, int64_t counted, bool each,
                                const char *path, const char *name, size_t len, const char *former) {
    char full[sizeof l->changes[0].name];
    snprintf(full, sizeof full, "%s%s%.*s%s%s%s", path, path[0] ? "." : "", (int)len, name,
             former != NULL ? " (was " : "", former != NULL ? former : "", former != NULL ? ")" : "");
    for (uint32_t i = 0; each && i < l->change_count; i++) {
        if (l->changes[i].kind == kind && strcmp(l->changes[i].name, full) == 0) {
            l->changes[i].count++;
            return STRATA_OK;
        }
    }
    strata_result_t r = sti_loader_change(l, kind, counted, "%s", full);
    if (r == STRATA_OK && each) {
        l->changes[l->change_count - 1].count = 1;
    }
    return r;
}

bool sti_evolve_lossless(uint8_t from, uint8_t to) {
    if (from == to) {
        return true;
    }
    uint32_t fb = sti_kind_bits(from), tb = sti_kind_bits(to);
    if (from == STRATA_KIND_BOOL) {
        return sti_kind_integer(to);
    }
    if (sti_kind_integer(from) && sti_kind_integer(to)) {
        if (sti_kind_signed(from)) {
            return sti_kind_signed(to) && tb >= fb;
        }
        return sti_kind_signed(to) ? tb > fb : tb >= fb;
    }
    if (sti_kind_integer(from) && (to == STRATA_KIND_F32 || to == STRATA_KIND_F64)) {
        return fb <= (to == STRATA_KIND_F32 ? 16u : 32u); /* within the mantissa: 24 and 53 bits */
    }
    return from == STRATA_KIND_F32 && to == STRATA_KIND_F64;
}

/* A scalar kind other than an enum (enums map by member name). */
static bool plain_scalar(uint8_t kind) {
    return sti_kind_bytes(kind) > 0 && kind != STRATA_KIND_ENUM;
}

int sti_evolve_convert(sti_evolve_type_t f, const strata_field_desc_t *t, char *why, size_t why_size) {
    if (f.array != t->array || f.count > t->count) {
        snprintf(why, why_size, "was %s%s[%u], is %s%s[%u]: not a lossless change", sti_kind_name(f.kind),
                 f.array ? "" : " (not an array)", f.count, sti_kind_name(t->kind), t->array ? "" : " (not an array)",
                 t->count);
        return 0;
    }
    bool string_pair = f.kind == STRATA_KIND_STRING && t->kind == STRATA_KIND_STRING;
    bool same = f.kind == t->kind && (f.kind == STRATA_KIND_STRUCT || f.kind == STRATA_KIND_ENUM || string_pair);
    if (string_pair && f.size > t->size) {
        snprintf(why, why_size, "cannot shorten char[%u] to char[%u]", f.size, t->size);
        return 0;
    }
    if (!same && !(plain_scalar(f.kind) && plain_scalar(t->kind) && sti_evolve_lossless(f.kind, t->kind))) {
        snprintf(why, why_size, "cannot convert %s to %s without loss", sti_kind_name(f.kind), sti_kind_name(t->kind));
        return 0;
    }
    return f.kind != t->kind || (string_pair && f.size != t->size) || f.count != t->count ? 2 : 1;
}

/* --- Migrations: type changes value by value ------------------------------ */

/* A number: bool, an integer or a float. */
static bool number_kind(uint8_t kind) {
    return kind == STRATA_KIND_BOOL || sti_kind_integer(kind) || kind == STRATA_KIND_F32 || kind == STRATA_KIND_F64;
}

bool sti_evolve_convertible(sti_evolve_type_t f, const strata_field_desc_t *t) {
    if (f.array != t->array) {
        return false;
    }
    if (number_kind(f.kind) && number_kind(t->kind)) {
        return true;
    }
    return f.kind == t->kind && (f.kind == STRATA_KIND_STRING || f.kind == STRATA_KIND_ENTITY ||
                                 f.kind == STRATA_KIND_ENUM || f.kind == STRATA_KIND_STRUCT);
}

void sti_evolve_type_name(char *out, size_t size, uint8_t kind, bool array, uint32_t elem_size, uint32_t count) {
    const char *name = kind == STRATA_KIND_STRING ? "char" : sti_kind_name(kind);
    if (kind == STRATA_KIND_STRING && array) {
        snprintf(out, size, "char[%u][%u]", elem_size, count);
    } else if (kind == STRATA_KIND_STRING) {
        snprintf(out, size, "char[%u]", elem_size);
    } else if (array) {
        snprintf(out, size, "%s[%u]", name, count);
    } else {
        snprintf(out, size, "%s", name);
    }
}

/* The range of integer kind (or bool) `kind`: [*lo, *hi]. */
static void number_range(uint8_t kind, int64_t *lo, uint64_t *hi) {
    if (kind == STRATA_KIND_BOOL) {
        *lo = 0;
        *hi = 1;
        return;
    }
    uint32_t bits = sti_kind_bits(kind);
    if (sti_kind_signed(kind)) {
        *hi = ((uint64_t)1 << (bits - 1)) - 1;
        *lo = -(int64_t)*hi - 1;
    } else {
        *lo = 0;
        *hi = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    }
}

/* An integer result: both spellings, as sti_scalar_write reads them. */
static sti_scalar_t number_int(int64_t i) {
    return (sti_scalar_t){i, (uint64_t)i, (double)i};
}

static sti_scalar_t number_uint(uint64_t u) {
    return (sti_scalar_t){(int64_t)u, u, (double)u};
}

/* A float into an integer kind: rounded to nearest (halves away from zero), saturated. */
static bool number_from_float(double x, uint8_t to, sti_scalar_t *out) {
    int64_t lo;
    uint64_t hi;
    number_range(to, &lo, &hi);
    if (x != x) {
        *out = number_int(0);
        return false;
    }
    /* Bounds as doubles: lo is a power of two (exact); hi + 1 is one. */
    double top = sti_kind_signed(to) ? -(double)lo : (double)hi + 1.0;
    if (x <= (double)lo) {
        *out = number_int(lo);
        return x == (double)lo;
    }
    if (x >= top) {
        *out = number_uint(hi);
        return false;
    }
    if (sti_kind_signed(to)) {
        int64_t t = (int64_t)x;
        double frac = x - (double)t;
        t += frac >= 0.5 ? 1 : frac <= -0.5 ? -1 : 0;
        t = t > (int64_t)hi ? (int64_t)hi : t; /* a half rounded up past the top */
        *out = number_int(t);
        return frac == 0.0;
    }
    uint64_t t = (uint64_t)x;
    double frac = x - (double)t;
    if (frac >= 0.5 && t < hi) {
        t++;
    }
    *out = number_uint(t);
    return frac == 0.0;
}

bool sti_evolve_number(uint8_t from, sti_scalar_t v, uint8_t to, sti_scalar_t *out) {
    bool from_float = from == STRATA_KIND_F32 || from == STRATA_KIND_F64;
    bool negative = sti_kind_signed(from) && v.i < 0;
    if (to == STRATA_KIND_F64) {
        if (from_float) {
            *out = (sti_scalar_t){0, 0, v.f};
            return true;
        }
        double y = negative ? (double)v.i : (double)v.u;
        *out = (sti_scalar_t){0, 0, y};
        /* Exact when it converts back to the same integer (2^63, 2^64 do not fit back). */
        return negative ? (y >= -9223372036854775808.0 && (int64_t)y == v.i)
                        : (y < 18446744073709551616.0 && (uint64_t)y == v.u);
    }
    if (to == STRATA_KIND_F32) {
        if (from_float) {
            double x = v.f;
            if (x != x || x - x != 0.0) {
                *out = (sti_scalar_t){0, 0, x}; /* NaN and the infinities stay */
                return true;
            }
            if (x > FLT_MAX || x < -FLT_MAX) {
                *out = (sti_scalar_t){0, 0, x > 0 ? FLT_MAX : -FLT_MAX};
                return false;
            }
            float y = (float)x;
            *out = (sti_scalar_t){0, 0, y};
            return (double)y == x;
        }
        float y = negative ? (float)v.i : (float)v.u;
        *out = (sti_scalar_t){0, 0, y};
        double back = y;
        return negative ? (back >= -9223372036854775808.0 && (int64_t)back == v.i)
                        : (back < 18446744073709551616.0 && (uint64_t)back == v.u);
    }
    if (from_float) {
        return number_from_float(v.f, to, out);
    }
    int64_t lo;
    uint64_t hi;
    number_range(to, &lo, &hi);
    if (negative) {
        bool fits = v.i >= lo;
        *out = number_int(fits ? v.i : lo);
        return fits;
    }
    bool fits = v.u <= hi;
    *out = number_uint(fits ? v.u : hi);
    return fits;
}

/* evolve.c: the one mapping of a save onto the schema (evolve.h), for
 * binary and JSON loads alike. */
#include "evolve.h"

#include "format.h"

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

/* json.h: the inspector's JSON (private): a growing output buffer, the
 * values of reflected fields written and set, and a strict parser for the
 * flat request bodies the API takes ({"key": value, ...}). */
#ifndef STI_INSPECT_JSON_H
#define STI_INSPECT_JSON_H

#include "save/value.h"
#include "strata.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An output buffer on libc's heap (the world's allocator counts the world's
 * bytes only). A failed growth sets `failed` and drops what follows. */
typedef struct sti_buf_t {
    char *data;
    size_t len, cap;
    bool failed;
} sti_buf_t;

void sti_buf_put(sti_buf_t *b, const char *s, size_t n);
void sti_buf_text(sti_buf_t *b, const char *s);
/* printf into the buffer (one value or a short piece). */
void sti_buf_fmt(sti_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A JSON string of s[0..n) (n: up to the first NUL), escaped. */
void sti_buf_str(sti_buf_t *b, const char *s, size_t n);
void sti_buf_free(sti_buf_t *b);

/* An entity as the inspector spells it everywhere: "4v1" (its index, "v",
 * its generation), quoted; the null handle as null. */
void sti_buf_entity(sti_buf_t *b, strata_entity_t e);

/* Read the spelling "4v1" (whole decimal numbers, each within 32 bits, no
 * sign, no leading zero, a generation of at least 1) into *out; false if
 * s is anything else. */
bool sti_entity_parse(const char *s, strata_entity_t *out);

/* Write count fields of the struct at base as a JSON object (entity
 * fields as sti_buf_entity spells them, every other value as a save does). */
void sti_json_fields(sti_buf_t *b, const strata_field_desc_t *fields, uint32_t count, const unsigned char *base);

/* One member of a flat request body; `text` points into the body. */
typedef struct sti_member_t {
    char key[64];
    enum { STI_JSON_STRING, STI_JSON_NUMBER, STI_JSON_BOOL, STI_JSON_NULL } type;
    char text[256]; /* the string (unescaped, UTF-8) or the number's characters */
    bool boolean;
} sti_member_t;

#define STI_MAX_MEMBERS 8

/* Parse a flat JSON object of strings, numbers, booleans and null into
 * out[0..max). Returns the member count, or -1 on any syntax error,
 * duplicate or over-long key or string, nesting, or too many members. */
int sti_json_parse_flat(const char *text, size_t n, sti_member_t *out, int max);

/* The member named key, or NULL. */
const sti_member_t *sti_json_member(const sti_member_t *m, int count, const char *key);

/* Find the element a dotted path names ("x", "color.r", "slots.2") among
 * `fields` of the struct at base: *field and *at get it. False if the path
 * names no element (or a struct, which cannot be set whole). */
bool sti_field_find(const strata_field_desc_t *fields, uint32_t count, unsigned char *base, const char *path,
                    const strata_field_desc_t **field, unsigned char **at);

/* Set the element at `at` of `field` from a parsed value by the save
 * layer's codec (save/value.h: what a JSON load takes, the loader's rules
 * and messages); an entity field takes the inspector's spelling ("4v1", or
 * null). False, nothing written and the reason in why[0..STI_VALUE_WHY),
 * if the value does not fit. */
bool sti_field_set(const strata_field_desc_t *field, unsigned char *at, const sti_member_t *value, char *why);

#endif /* STI_INSPECT_JSON_H */

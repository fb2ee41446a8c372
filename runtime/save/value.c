/* value.c: the one codec of field values as JSON (value.h). */
#include "value.h"

#include "format.h"
#include "number.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- Reading ------------------------------------------------------------------ */

/* The start of a refusal: the value's text, cut short. */
static bool value_refuse(char *why, const char *fmt, const char *s, size_t len, const char *kind) {
    snprintf(why, STI_VALUE_WHY, fmt, (int)(len < 40 ? len : 40), s, kind);
    return false;
}

static bool value_string(const strata_field_desc_t *f, const char *s, size_t len, unsigned char *p, char *why) {
    if (memchr(s, 0, len) != NULL) {
        snprintf(why, STI_VALUE_WHY, "\\u0000 is not allowed in a char[%u] value", f->size);
        return false;
    }
    /* U+F780..U+F7FF (EF 9E 80 .. EF 9F BF) are bytes 0x80..0xff that were not
     * UTF-8 when written (sti_value_string); every other byte is itself. */
    const unsigned char *text = (const unsigned char *)s;
    size_t n = 0;
    for (size_t i = 0; i < len; n++) {
        i += i + 2 < len && text[i] == 0xef && (text[i + 1] == 0x9e || text[i + 1] == 0x9f) ? 3 : 1;
    }
    if (n > f->size) {
        snprintf(why, STI_VALUE_WHY, "%zu bytes do not fit in char[%u]", n, f->size);
        return false;
    }
    n = 0;
    for (size_t i = 0; i < len; n++) {
        bool byte = i + 2 < len && text[i] == 0xef && (text[i + 1] == 0x9e || text[i + 1] == 0x9f);
        p[n] = byte ? (unsigned char)(((text[i + 1] & 1u) << 6 | (text[i + 2] & 0x3fu)) + 0x80u) : text[i];
        i += byte ? 3 : 1;
    }
    memset(p + n, 0, f->size - n);
    return true;
}

static bool value_float(const strata_field_desc_t *f, sti_token_t t, const char *s, size_t len, char point,
                        unsigned char *p, char *why) {
    double v;
    if (t == STI_TOKEN_NUMBER) {
        v = sti_number_double(s, len, point);
        /* Below 2^128 - 2^103 (halfway from FLT_MAX to 2^128) a number rounds to a finite f32. */
        if (isinf(v) || (f->kind == STRATA_KIND_F32 && fabs(v) >= 0x1.ffffffp127)) {
            return value_refuse(why, "%.*s is out of range for %s", s, len, sti_kind_name(f->kind));
        }
    } else if (t == STI_TOKEN_STRING && len == 3 && memcmp(s, "nan", 3) == 0) {
        v = NAN;
    } else if (t == STI_TOKEN_STRING && len == 3 && memcmp(s, "inf", 3) == 0) {
        v = INFINITY;
    } else if (t == STI_TOKEN_STRING && len == 4 && memcmp(s, "-inf", 4) == 0) {
        v = -INFINITY;
    } else {
        snprintf(why, STI_VALUE_WHY, "expected a number (or \"nan\", \"inf\", \"-inf\")");
        return false;
    }
    sti_scalar_write(f->kind, f->size, p, (sti_scalar_t){.f = v});
    return true;
}

bool sti_value_decode(const strata_field_desc_t *f, sti_token_t t, const char *s, size_t len, char point,
                      unsigned char *p, char *why) {
    switch (f->kind) {
    case STRATA_KIND_BOOL: {
        if (t != STI_TOKEN_BOOL) {
            snprintf(why, STI_VALUE_WHY, "expected true or false");
            return false;
        }
        bool b = len != 0;
        memcpy(p, &b, 1);
        return true;
    }
    case STRATA_KIND_I8:
    case STRATA_KIND_I16:
    case STRATA_KIND_I32:
    case STRATA_KIND_I64: {
        bool negative = false;
        uint64_t m = 0;
        sti_int_t k = t == STI_TOKEN_NUMBER ? sti_number_integer(s, len, false, &negative, &m) : STI_INT_NOT;
        if (k == STI_INT_NOT) {
            snprintf(why, STI_VALUE_WHY, "expected an integer");
            return false;
        }
        uint64_t limit = (uint64_t)1 << (sti_kind_bits(f->kind) - 1); /* |min|; max is limit - 1 */
        if (k == STI_INT_BIG || m > limit || (!negative && m == limit)) {
            return value_refuse(why, "%.*s is out of range for %s", s, len, sti_kind_name(f->kind));
        }
        int64_t i = negative ? (int64_t)(0 - m) : (int64_t)m;
        sti_scalar_write(f->kind, f->size, p, (sti_scalar_t){.i = i, .u = (uint64_t)i});
        return true;
    }
    case STRATA_KIND_U8:
    case STRATA_KIND_U16:
    case STRATA_KIND_U32:
    case STRATA_KIND_U64:
    case STRATA_KIND_ENTITY: {
        uint64_t u = 0;
        int k = t == STI_TOKEN_NUMBER || t == STI_TOKEN_STRING ? sti_number_unsigned(s, len, t == STI_TOKEN_STRING, &u)
                                                               : 0;
        uint32_t bits = sti_kind_bits(f->kind);
        if (k < 0 || (k > 0 && bits < 64 && u >> bits != 0)) {
            return value_refuse(why, "%.*s is out of range for %s", s, len, sti_kind_name(f->kind));
        }
        if (k == 0) {
            snprintf(why, STI_VALUE_WHY, "expected %s",
                     f->kind == STRATA_KIND_ENTITY ? "an entity id" : "an unsigned integer");
            return false;
        }
        sti_scalar_write(f->kind, f->size, p, (sti_scalar_t){.u = u});
        return true;
    }
    case STRATA_KIND_F32:
    case STRATA_KIND_F64: return value_float(f, t, s, len, point, p, why);
    case STRATA_KIND_ENUM:
        for (uint32_t m = 0; t == STI_TOKEN_STRING && m < f->type->count; m++) {
            const char *member = f->type->members[m];
            if (strncmp(member, s, len) == 0 && strlen(member) == len) {
                sti_scalar_write(STRATA_KIND_ENUM, f->size, p, (sti_scalar_t){.i = m});
                return true;
            }
        }
        if (t != STI_TOKEN_STRING) {
            snprintf(why, STI_VALUE_WHY, "expected a member name of %s", f->type->name);
            return false;
        }
        snprintf(why, STI_VALUE_WHY, "%s has no member '%.*s'", f->type->name, (int)(len < 60 ? len : 60), s);
        return false;
    case STRATA_KIND_STRING:
        if (t != STI_TOKEN_STRING) {
            snprintf(why, STI_VALUE_WHY, "expected a string");
            return false;
        }
        return value_string(f, s, len, p, why);
    default: snprintf(why, STI_VALUE_WHY, "a field of an unknown kind"); return false;
    }
}

/* --- Writing ------------------------------------------------------------------ */

static void value_text(sti_value_put_t put, void *ctx, const char *s) {
    put(ctx, s, strlen(s));
}

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t value_utf8(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || len > n) {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0;
        }
    }
    uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1fu : len == 3 ? c & 0x0fu : c & 0x07u;
    for (size_t i = 1; i < len; i++) {
        cp = (cp << 6) | (s[i] & 0x3fu);
    }
    /* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
        return 0;
    }
    return len;
}

/* UTF-8 as it is, escapes for quotes, backslashes and control characters.
 * A byte b that is not part of valid UTF-8 becomes the private-use
 * character U+F700 + b (0x80 <= b <= 0xff), and so do the three bytes of
 * any such character the text really holds, so that a reader can turn
 * every one of them back into its byte. */
void sti_value_string(const char *s, size_t n, sti_value_put_t put, void *ctx) {
    const unsigned char *p = (const unsigned char *)s;
    /* Most strings (names, members, short texts) are plain ASCII: one put, quotes and all. */
    char quoted[64];
    size_t plain = 0;
    while (plain < n && plain + 2 < sizeof quoted && p[plain] >= 0x20 && p[plain] < 0x7f && p[plain] != '"' &&
           p[plain] != '\\') {
        plain++;
    }
    if (plain == n && n + 2 <= sizeof quoted) {
        quoted[0] = '"';
        memcpy(quoted + 1, s, n);
        quoted[n + 1] = '"';
        put(ctx, quoted, n + 2);
        return;
    }
    put(ctx, "\"", 1);
    size_t run = 0; /* bytes at p[i - run, i) to copy as they are */
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        size_t len = c >= 0x20 && c != '"' && c != '\\' ? value_utf8(p + i, n - i) : 0;
        /* U+F780..U+F7FF (EF 9E 80 .. EF 9F BF) stand for single bytes: written byte by byte. */
        if (len == 3 && c == 0xef && (p[i + 1] == 0x9e || p[i + 1] == 0x9f)) {
            len = 0;
        }
        if (len > 0) {
            i += len;
            run += len;
            continue;
        }
        put(ctx, (const char *)p + i - run, run);
        run = 0;
        char esc[8];
        if (c == '"' || c == '\\') {
            snprintf(esc, sizeof esc, "\\%c", c);
        } else if (c == '\n') {
            snprintf(esc, sizeof esc, "\\n");
        } else if (c == '\t') {
            snprintf(esc, sizeof esc, "\\t");
        } else if (c < 0x80) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
        } else {
            snprintf(esc, sizeof esc, "\\u%04x", 0xf700u + c);
        }
        value_text(put, ctx, esc);
        i++;
    }
    put(ctx, (const char *)p + n - run, run);
    put(ctx, "\"", 1);
}

/* The fewest digits that read back as the same double (or float), with a
 * '.' whatever the locale. */
static void value_float_text(double v, bool single, sti_value_put_t put, void *ctx) {
    if (isnan(v)) {
        value_text(put, ctx, "\"nan\"");
        return;
    }
    if (isinf(v)) {
        value_text(put, ctx, v > 0 ? "\"inf\"" : "\"-inf\"");
        return;
    }
    if (v == 0 && signbit(v)) {
        value_text(put, ctx, "-0.0"); /* "-0" would read back as the integer 0 */
        return;
    }
    char text[40];
    for (int digits = single ? 6 : 15; digits <= (single ? 9 : 17); digits++) {
        snprintf(text, sizeof text, "%.*g", digits, v);
        /* An f32 is checked the way loading reads it: as a double, then rounded. */
        if (single ? (float)strtod(text, NULL) == (float)v : strtod(text, NULL) == v) {
            break;
        }
    }
    /* A locale's decimal point (a comma) is the one thing %g writes that JSON does not take. */
    for (char *c = text; *c != '\0'; c++) {
        *c = (*c >= '0' && *c <= '9') || *c == 'e' || *c == '-' || *c == '+' || *c == '.' ? *c : '.';
    }
    value_text(put, ctx, text);
}

void sti_value_encode(const strata_field_desc_t *f, const unsigned char *p, sti_value_put_t put, void *ctx) {
    sti_scalar_t v = sti_scalar_read(f->kind, f->size, p);
    char text[32];
    int n;
    switch (f->kind) {
    case STRATA_KIND_BOOL: put(ctx, v.u ? "true" : "false", v.u ? 4 : 5); break;
    case STRATA_KIND_I8:
    case STRATA_KIND_I16:
    case STRATA_KIND_I32:
    case STRATA_KIND_I64:
        n = snprintf(text, sizeof text, "%" PRId64, v.i);
        put(ctx, text, (size_t)n);
        break;
    case STRATA_KIND_U8:
    case STRATA_KIND_U16:
    case STRATA_KIND_U32:
    case STRATA_KIND_U64:
    case STRATA_KIND_ENTITY:
        n = snprintf(text, sizeof text, v.u > INT64_MAX ? "\"%" PRIu64 "\"" : "%" PRIu64, v.u);
        put(ctx, text, (size_t)n);
        break;
    case STRATA_KIND_F32:
    case STRATA_KIND_F64: value_float_text(v.f, f->kind == STRATA_KIND_F32, put, ctx); break;
    case STRATA_KIND_ENUM:
        if (v.i >= 0 && v.i < (int64_t)f->type->count) {
            sti_value_string(f->type->members[v.i], strlen(f->type->members[v.i]), put, ctx);
        } else {
            snprintf(text, sizeof text, "%" PRId64, v.i); /* not a member: the number, which loading refuses */
            value_text(put, ctx, text);
        }
        break;
    case STRATA_KIND_STRING: {
        const char *s = (const char *)p;
        const char *nul = memchr(s, 0, f->size);
        sti_value_string(s, nul != NULL ? (size_t)(nul - s) : f->size, put, ctx);
        break;
    }
    default: value_text(put, ctx, "null"); break;
    }
}

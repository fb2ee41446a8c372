/* json.c: the inspector's JSON output buffer, field values and request
 * bodies (json.h). */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sti_buf_put(sti_buf_t *b, const char *s, size_t n) {
    if (b->failed || n == 0) {
        return;
    }
    if (n > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap - b->len < n) {
            if (cap > ((size_t)1 << 30)) {
                b->failed = true;
                return;
            }
            cap *= 2;
        }
        char *data = realloc(b->data, cap);
        if (data == NULL) {
            b->failed = true;
            return;
        }
        b->data = data;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
}

void sti_buf_text(sti_buf_t *b, const char *s) {
    sti_buf_put(b, s, strlen(s));
}

void sti_buf_fmt(sti_buf_t *b, const char *fmt, ...) {
    char piece[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(piece, sizeof piece, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof piece) {
        b->failed = true;
        return;
    }
    sti_buf_put(b, piece, (size_t)n);
}

void sti_buf_str(sti_buf_t *b, const char *s, size_t n) {
    sti_buf_put(b, "\"", 1);
    for (size_t i = 0; i < n && s[i] != '\0'; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            sti_buf_put(b, esc, 2);
        } else if (c < 0x20 || c >= 0x7f) {
            /* Control bytes and anything not ASCII: escaped, so the output is valid whatever the bytes. */
            sti_buf_fmt(b, "\\u%04x", c);
        } else {
            sti_buf_put(b, (const char *)&c, 1);
        }
    }
    sti_buf_put(b, "\"", 1);
}

void sti_buf_free(sti_buf_t *b) {
    free(b->data);
    *b = (sti_buf_t){0};
}

/* --- Field values ---------------------------------------------------------- */

static void json_element(sti_buf_t *b, const strata_field_desc_t *f, const unsigned char *p) {
    union {
        int8_t i8;
        int16_t i16;
        int32_t i32;
        int64_t i64;
        uint8_t u8;
        uint16_t u16;
        uint32_t u32;
        uint64_t u64;
        float f32;
        double f64;
        bool b;
    } v;
    memcpy(&v, p, f->size < sizeof v ? f->size : sizeof v);
    switch (f->kind) {
    case STRATA_KIND_BOOL: sti_buf_text(b, v.b ? "true" : "false"); break;
    case STRATA_KIND_I8: sti_buf_fmt(b, "%d", v.i8); break;
    case STRATA_KIND_I16: sti_buf_fmt(b, "%d", v.i16); break;
    case STRATA_KIND_I32: sti_buf_fmt(b, "%d", (int)v.i32); break;
    case STRATA_KIND_I64: sti_buf_fmt(b, "%lld", (long long)v.i64); break;
    case STRATA_KIND_U8: sti_buf_fmt(b, "%u", v.u8); break;
    case STRATA_KIND_U16: sti_buf_fmt(b, "%u", v.u16); break;
    case STRATA_KIND_U32: sti_buf_fmt(b, "%u", (unsigned)v.u32); break;
    case STRATA_KIND_U64:
    case STRATA_KIND_ENTITY: sti_buf_fmt(b, "%llu", (unsigned long long)v.u64); break;
    case STRATA_KIND_F32:
    case STRATA_KIND_F64: {
        double d = f->kind == STRATA_KIND_F32 ? (double)v.f32 : v.f64;
        if (isfinite(d)) {
            /* The shortest text that reads back as the same value: 0.8, not 0.800000012. */
            char text[32];
            for (int digits = f->kind == STRATA_KIND_F32 ? 6 : 15; digits <= 17; digits++) {
                snprintf(text, sizeof text, "%.*g", digits, d);
                if (f->kind == STRATA_KIND_F32 ? strtof(text, NULL) == v.f32 : strtod(text, NULL) == d) {
                    break;
                }
            }
            sti_buf_text(b, text);
        } else {
            sti_buf_text(b, "null"); /* JSON has no NaN or infinity */
        }
        break;
    }
    case STRATA_KIND_ENUM: {
        int64_t e = f->size == 1 ? v.i8 : f->size == 2 ? v.i16 : f->size == 4 ? v.i32 : v.i64;
        if (f->type != NULL && e >= 0 && (uint64_t)e < f->type->count) {
            sti_buf_str(b, f->type->members[e], SIZE_MAX);
        } else {
            sti_buf_fmt(b, "%lld", (long long)e);
        }
        break;
    }
    case STRATA_KIND_STRUCT: sti_json_fields(b, f->type->fields, f->type->count, p); break;
    case STRATA_KIND_STRING: sti_buf_str(b, (const char *)p, f->size); break;
    default: sti_buf_text(b, "null"); break;
    }
}

void sti_json_fields(sti_buf_t *b, const strata_field_desc_t *fields, uint32_t count, const unsigned char *base) {
    sti_buf_put(b, "{", 1);
    for (uint32_t i = 0; i < count; i++) {
        const strata_field_desc_t *f = &fields[i];
        sti_buf_str(b, f->name, SIZE_MAX);
        sti_buf_put(b, ":", 1);
        if (f->array) {
            sti_buf_put(b, "[", 1);
        }
        for (uint32_t k = 0; k < f->count; k++) {
            sti_buf_text(b, k ? "," : "");
            json_element(b, f, base + f->offset + (size_t)k * f->size);
        }
        if (f->array) {
            sti_buf_put(b, "]", 1);
        }
        sti_buf_text(b, i + 1 < count ? "," : "");
    }
    sti_buf_put(b, "}", 1);
}

/* --- Request bodies ------------------------------------------------------- */

typedef struct parser_t {
    const char *p, *end;
} parser_t;

static void parse_space(parser_t *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) {
        s->p++;
    }
}

/* A JSON string into out[0..cap) (ASCII escapes only); false if broken or too long. */
static bool parse_string(parser_t *s, char *out, size_t cap) {
    size_t n = 0;
    if (s->p >= s->end || *s->p != '"') {
        return false;
    }
    for (s->p++; s->p < s->end; s->p++) {
        char c = *s->p;
        if (c == '"') {
            s->p++;
            out[n] = '\0';
            return true;
        }
        if ((unsigned char)c < 0x20 || n + 1 >= cap) {
            return false;
        }
        if (c == '\\') {
            if (++s->p >= s->end) {
                return false;
            }
            switch (*s->p) {
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            case '/': c = '/'; break;
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                unsigned v = 0;
                for (int i = 0; i < 4; i++) {
                    if (++s->p >= s->end) {
                        return false;
                    }
                    char h = *s->p;
                    unsigned d = h >= '0' && h <= '9'                 ? (unsigned)(h - '0')
                                 : (h | 32) >= 'a' && (h | 32) <= 'f' ? (unsigned)((h | 32) - 'a' + 10)
                                                                      : 16u;
                    if (d == 16u) {
                        return false;
                    }
                    v = v * 16 + d;
                }
                if (v == 0 || v > 0x7f) {
                    return false; /* names and values the API takes are ASCII */
                }
                c = (char)v;
                break;
            }
            default: return false;
            }
        }
        out[n++] = c;
    }
    return false;
}

/* A JSON number's characters (checked against the JSON grammar). */
static bool parse_number(parser_t *s, char *out, size_t cap) {
    const char *start = s->p;
    const char *p = s->p;
    if (p < s->end && *p == '-') {
        p++;
    }
    if (p >= s->end || *p < '0' || *p > '9') {
        return false;
    }
    if (*p == '0') {
        p++;
    } else {
        while (p < s->end && *p >= '0' && *p <= '9') {
            p++;
        }
    }
    if (p < s->end && *p == '.') {
        if (++p >= s->end || *p < '0' || *p > '9') {
            return false;
        }
        while (p < s->end && *p >= '0' && *p <= '9') {
            p++;
        }
    }
    if (p < s->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < s->end && (*p == '+' || *p == '-')) {
            p++;
        }
        if (p >= s->end || *p < '0' || *p > '9') {
            return false;
        }
        while (p < s->end && *p >= '0' && *p <= '9') {
            p++;
        }
    }
    if ((size_t)(p - start) >= cap) {
        return false;
    }
    memcpy(out, start, (size_t)(p - start));
    out[p - start] = '\0';
    s->p = p;
    return true;
}

static bool parse_word(parser_t *s, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0) {
        return false;
    }
    s->p += n;
    return true;
}

int sti_json_parse_flat(const char *text, size_t n, sti_member_t *out, int max) {
    parser_t s = {text, text + n};
    int count = 0;
    parse_space(&s);
    if (s.p >= s.end || *s.p++ != '{') {
        return -1;
    }
    parse_space(&s);
    if (s.p < s.end && *s.p == '}') {
        s.p++;
    } else {
        for (;;) {
            if (count >= max) {
                return -1;
            }
            sti_member_t *m = &out[count];
            *m = (sti_member_t){0};
            parse_space(&s);
            if (!parse_string(&s, m->key, sizeof m->key) || sti_json_member(out, count, m->key) != NULL) {
                return -1;
            }
            parse_space(&s);
            if (s.p >= s.end || *s.p++ != ':') {
                return -1;
            }
            parse_space(&s);
            if (s.p >= s.end) {
                return -1;
            }
            bool ok;
            if (*s.p == '"') {
                m->type = STI_JSON_STRING;
                ok = parse_string(&s, m->text, sizeof m->text);
            } else if (*s.p == 't' || *s.p == 'f') {
                m->type = STI_JSON_BOOL;
                m->boolean = *s.p == 't';
                ok = parse_word(&s, m->boolean ? "true" : "false");
            } else if (*s.p == 'n') {
                m->type = STI_JSON_NULL;
                ok = parse_word(&s, "null");
            } else {
                m->type = STI_JSON_NUMBER;
                ok = parse_number(&s, m->text, sizeof m->text);
            }
            if (!ok) {
                return -1;
            }
            count++;
            parse_space(&s);
            if (s.p < s.end && *s.p == ',') {
                s.p++;
                continue;
            }
            if (s.p < s.end && *s.p == '}') {
                s.p++;
                break;
            }
            return -1;
        }
    }
    parse_space(&s);
    return s.p == s.end ? count : -1;
}

const sti_member_t *sti_json_member(const sti_member_t *m, int count, const char *key) {
    for (int i = 0; i < count; i++) {
        if (strcmp(m[i].key, key) == 0) {
            return &m[i];
        }
    }
    return NULL;
}

/* --- Setting a field ------------------------------------------------------ */

bool sti_field_find(const strata_field_desc_t *fields, uint32_t count, unsigned char *base, const char *path,
                    const strata_field_desc_t **field, unsigned char **at) {
    char name[64];
    size_t n = strcspn(path, ".");
    if (n == 0 || n >= sizeof name) {
        return false;
    }
    memcpy(name, path, n);
    name[n] = '\0';
    const char *rest = path[n] == '.' ? path + n + 1 : NULL;
    for (uint32_t i = 0; i < count; i++) {
        const strata_field_desc_t *f = &fields[i];
        if (strcmp(f->name, name) != 0) {
            continue;
        }
        unsigned char *p = base + f->offset;
        if (f->array) {
            /* An element of T[N]: the next part of the path is its index. */
            char *end = NULL;
            if (rest == NULL || *rest < '0' || *rest > '9') {
                return false;
            }
            errno = 0;
            unsigned long k = strtoul(rest, &end, 10);
            if (errno != 0 || k >= f->count || (*end != '\0' && *end != '.')) {
                return false;
            }
            p += (size_t)k * f->size;
            rest = *end == '.' ? end + 1 : NULL;
        }
        if (f->kind == STRATA_KIND_STRUCT) {
            return rest != NULL && sti_field_find(f->type->fields, f->type->count, p, rest, field, at);
        }
        if (rest != NULL) {
            return false;
        }
        *field = f;
        *at = p;
        return true;
    }
    return false;
}

/* An integer value: whole, and within [lo, hi]. */
static bool field_integer(const sti_member_t *v, long double lo, long double hi, long double *out) {
    if (v->type != STI_JSON_NUMBER) {
        return false;
    }
    char *end = NULL;
    errno = 0;
    long double d = strtold(v->text, &end);
    /* 2^64 and -2^63 - 1 are out of every integer type, even where long double is double and hi rounds up. */
    if (errno != 0 || *end != '\0' || d != floorl(d) || d < lo || d > hi || d >= 0x1p64L || d < -0x1p63L) {
        return false;
    }
    *out = d;
    return true;
}

bool sti_field_set(const strata_field_desc_t *f, unsigned char *at, const sti_member_t *v) {
    long double d = 0;
    switch (f->kind) {
    case STRATA_KIND_BOOL: {
        if (v->type != STI_JSON_BOOL) {
            return false;
        }
        bool b = v->boolean;
        memcpy(at, &b, sizeof b);
        return true;
    }
#define STI_SET_INT(KIND, T, LO, HI)                                                                                   \
    case KIND: {                                                                                                       \
        if (!field_integer(v, (long double)(LO), (long double)(HI), &d)) {                                             \
            return false;                                                                                              \
        }                                                                                                              \
        T x = (T)d;                                                                                                    \
        memcpy(at, &x, sizeof x);                                                                                      \
        return true;                                                                                                   \
    }
        STI_SET_INT(STRATA_KIND_I8, int8_t, INT8_MIN, INT8_MAX)
        STI_SET_INT(STRATA_KIND_I16, int16_t, INT16_MIN, INT16_MAX)
        STI_SET_INT(STRATA_KIND_I32, int32_t, INT32_MIN, INT32_MAX)
        STI_SET_INT(STRATA_KIND_I64, int64_t, INT64_MIN, INT64_MAX)
        STI_SET_INT(STRATA_KIND_U8, uint8_t, 0, UINT8_MAX)
        STI_SET_INT(STRATA_KIND_U16, uint16_t, 0, UINT16_MAX)
        STI_SET_INT(STRATA_KIND_U32, uint32_t, 0, UINT32_MAX)
        STI_SET_INT(STRATA_KIND_U64, uint64_t, 0, UINT64_MAX)
        STI_SET_INT(STRATA_KIND_ENTITY, uint64_t, 0, UINT64_MAX)
#undef STI_SET_INT
    case STRATA_KIND_F32:
    case STRATA_KIND_F64: {
        if (v->type != STI_JSON_NUMBER) {
            return false;
        }
        char *end = NULL;
        errno = 0;
        double x = strtod(v->text, &end);
        if (errno != 0 || *end != '\0' || !isfinite(x) || (f->kind == STRATA_KIND_F32 && fabs(x) > 3.4028234e38)) {
            return false;
        }
        if (f->kind == STRATA_KIND_F32) {
            float y = (float)x;
            memcpy(at, &y, sizeof y);
        } else {
            memcpy(at, &x, sizeof x);
        }
        return true;
    }
    case STRATA_KIND_ENUM: {
        int64_t e = -1;
        for (uint32_t i = 0; f->type != NULL && i < f->type->count; i++) {
            if (v->type == STI_JSON_STRING && strcmp(f->type->members[i], v->text) == 0) {
                e = i;
            }
        }
        if (e < 0 && (f->type == NULL || !field_integer(v, 0, (long double)f->type->count - 1, &d))) {
            return false;
        }
        e = e < 0 ? (int64_t)d : e;
        if (f->size == 1) {
            int8_t x = (int8_t)e;
            memcpy(at, &x, 1);
        } else if (f->size == 2) {
            int16_t x = (int16_t)e;
            memcpy(at, &x, 2);
        } else if (f->size == 4) {
            int32_t x = (int32_t)e;
            memcpy(at, &x, 4);
        } else {
            memcpy(at, &e, sizeof e);
        }
        return true;
    }
    case STRATA_KIND_STRING: {
        size_t n = strlen(v->text);
        if (v->type != STI_JSON_STRING || n >= f->size) {
            return false;
        }
        memset(at, 0, f->size);
        memcpy(at, v->text, n);
        return true;
    }
    default: return false;
    }
}

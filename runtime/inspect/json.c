/* json.c: the inspector's JSON output buffer, field values and request
 * bodies (json.h). */
#include "json.h"

#include <errno.h>
#include <locale.h>
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

/* sti_value_put_t into a buffer. */
static void json_put(void *ctx, const char *s, size_t n) {
    sti_buf_put(ctx, s, n);
}

void sti_buf_entity(sti_buf_t *b, strata_entity_t e) {
    if (e == STRATA_ENTITY_NULL) {
        sti_buf_text(b, "null");
    } else {
        sti_buf_fmt(b, "\"%uv%u\"", (unsigned)(e & 0xffffffffu), (unsigned)(e >> 32));
    }
}

/* A whole decimal number within 32 bits, s[0..n): no sign, no leading zero. */
static bool json_u32(const char *s, size_t n, uint32_t *out) {
    uint64_t v = 0;
    if (n == 0 || n > 10 || (s[0] == '0' && n > 1)) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return false;
        }
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = (uint32_t)v;
    return v <= UINT32_MAX;
}

bool sti_entity_parse(const char *s, strata_entity_t *out) {
    const char *v = strchr(s, 'v');
    uint32_t index, generation;
    if (v == NULL || !json_u32(s, (size_t)(v - s), &index) || !json_u32(v + 1, strlen(v + 1), &generation) ||
        generation == 0) {
        return false;
    }
    *out = (uint64_t)generation << 32 | index;
    return true;
}

/* One element: a struct's fields, an entity as the inspector spells it, or
 * the save layer's spelling of the value. */
static void json_element(sti_buf_t *b, const strata_field_desc_t *f, const unsigned char *p) {
    if (f->kind == STRATA_KIND_STRUCT) {
        sti_json_fields(b, f->type->fields, f->type->count, p);
    } else if (f->kind == STRATA_KIND_ENTITY) {
        strata_entity_t e;
        memcpy(&e, p, sizeof e);
        sti_buf_entity(b, e);
    } else {
        sti_value_encode(f, p, json_put, b);
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

/* Four hex digits after the current byte, into *v (the cursor on the last). */
static bool parse_hex4(parser_t *s, unsigned *v) {
    *v = 0;
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
        *v = *v * 16 + d;
    }
    return true;
}

/* A JSON string into out[0..cap) as UTF-8 (no \u0000, no lone surrogate);
 * false if broken or too long. */
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
                /* A character by number, as UTF-8 (a pair of surrogates for one past U+FFFF). */
                unsigned v = 0;
                if (!parse_hex4(s, &v) || v == 0 || (v >= 0xdc00 && v <= 0xdfff)) {
                    return false;
                }
                if (v >= 0xd800 && v <= 0xdbff) {
                    unsigned low = 0;
                    if (s->end - s->p < 3 || s->p[1] != '\\' || s->p[2] != 'u') {
                        return false;
                    }
                    s->p += 2;
                    if (!parse_hex4(s, &low) || low < 0xdc00 || low > 0xdfff) {
                        return false;
                    }
                    v = 0x10000 + ((v - 0xd800) << 10) + (low - 0xdc00);
                }
                unsigned char utf8[4];
                size_t k = v < 0x80 ? 1 : v < 0x800 ? 2 : v < 0x10000 ? 3 : 4;
                static const unsigned char lead[5] = {0, 0, 0xc0, 0xe0, 0xf0};
                for (size_t i = k - 1; i > 0; i--, v >>= 6) {
                    utf8[i] = (unsigned char)(0x80 | (v & 0x3f));
                }
                utf8[0] = (unsigned char)(lead[k] | v);
                if (n + k >= cap) {
                    return false;
                }
                memcpy(out + n, utf8, k - 1);
                n += k - 1;
                c = (char)utf8[k - 1];
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

bool sti_field_set(const strata_field_desc_t *f, unsigned char *at, const sti_member_t *v, char *why) {
    sti_token_t t = v->type == STI_JSON_BOOL     ? STI_TOKEN_BOOL
                    : v->type == STI_JSON_NUMBER ? STI_TOKEN_NUMBER
                    : v->type == STI_JSON_STRING ? STI_TOKEN_STRING
                                                 : STI_TOKEN_NULL;
    size_t len = t == STI_TOKEN_BOOL ? (size_t)v->boolean : strlen(v->text);
    if (f->kind == STRATA_KIND_STRUCT) {
        snprintf(why, STI_VALUE_WHY, "a struct is set a field at a time");
        return false;
    }
    if (f->kind == STRATA_KIND_ENTITY) {
        strata_entity_t e = STRATA_ENTITY_NULL;
        if (t != STI_TOKEN_NULL && (t != STI_TOKEN_STRING || !sti_entity_parse(v->text, &e))) {
            snprintf(why, STI_VALUE_WHY, "an entity is spelled \"4v1\" (its index, v, its generation), or null");
            return false;
        }
        memcpy(at, &e, sizeof e);
        return true;
    }
    const struct lconv *locale = localeconv();
    char point = locale != NULL && locale->decimal_point != NULL ? locale->decimal_point[0] : '.';
    return sti_value_decode(f, t, v->text, len, point, at, why);
}

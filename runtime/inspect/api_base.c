/* api_base.c: what the inspector's API answers share (api_base.h): reading
 * a request (its query string, its body, the entity it names), errors, and
 * writing components, names and labels. */
#define _POSIX_C_SOURCE 200809L
#include "api_base.h"

#include "strata_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void sti_api_error(sti_request_t *r, int status, const char *message) {
    sti_buf_free(&r->out);
    r->status = status;
    r->type = "application/json";
    sti_buf_text(&r->out, "{\"error\":");
    sti_buf_str(&r->out, message, SIZE_MAX);
    sti_buf_text(&r->out, "}");
}

/* The value of `key` in the query string, percent-decoded into out[0..cap).
 * 0: absent; 1: found; -1: malformed or too long. */
int sti_api_param(const char *query, const char *key, char *out, size_t cap) {
    size_t klen = strlen(key);
    for (const char *p = query; *p != '\0';) {
        size_t n = strcspn(p, "&");
        if (n > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
            size_t o = 0;
            for (size_t i = klen + 1; i < n; i++) {
                char c = p[i];
                if (c == '%') {
                    char hex[3] = {0};
                    if (i + 2 >= n) {
                        return -1;
                    }
                    hex[0] = p[i + 1];
                    hex[1] = p[i + 2];
                    char *end = NULL;
                    unsigned long v = strtoul(hex, &end, 16);
                    if (end != hex + 2 || v == 0) {
                        return -1;
                    }
                    c = (char)v;
                    i += 2;
                } else if (c == '+') {
                    c = ' ';
                }
                if (o + 1 >= cap) {
                    return -1;
                }
                out[o++] = c;
            }
            out[o] = '\0';
            return 1;
        }
        p += n + (p[n] == '&');
    }
    return 0;
}

/* A whole unsigned decimal number in [0, max]; false otherwise. */
bool sti_api_number(const char *s, uint64_t max, uint64_t *out) {
    if (*s < '0' || *s > '9' || strlen(s) > 20) {
        return false;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v > max) {
        return false;
    }
    *out = v;
    return true;
}

/* The component named `name`, or UINT32_MAX. */
uint32_t sti_api_component(const strata_world_t *w, const char *name) {
    for (uint32_t c = 0; c < w->component_count; c++) {
        if (strcmp(w->schema->components[c].name, name) == 0) {
            return c;
        }
    }
    return UINT32_MAX;
}

/* The names of the components of `mask` as a JSON list (aspects left out). */
void sti_api_names(sti_buf_t *b, const strata_world_t *w, const strata_mask_t *mask) {
    sti_buf_put(b, "[", 1);
    bool first = true;
    for (uint32_t c = 0; c < w->component_count; c++) {
        if (strata_mask_test(mask, c)) {
            sti_buf_text(b, first ? "" : ",");
            sti_buf_str(b, w->schema->components[c].name, SIZE_MAX);
            first = false;
        }
    }
    sti_buf_put(b, "]", 1);
}

/* The entity a path names after its prefix ("4v1"), or STRATA_ENTITY_NULL (answered 404). */
strata_entity_t sti_api_entity(sti_api_t *api, sti_request_t *r, const char *id) {
    strata_entity_t e;
    if (!sti_entity_parse(id, &e)) {
        sti_api_error(r, 404, "no such entity: an entity is spelled 4v1 (its index, v, its generation)");
        return STRATA_ENTITY_NULL;
    }
    if (!strata_entity_alive(api->world, e)) {
        sti_api_error(r, 404, "no such entity (stale or never made)");
        return STRATA_ENTITY_NULL;
    }
    return e;
}

/* The non-exclusive relation whose tag component c is, or UINT32_MAX. */
uint32_t sti_api_tag_relation(const strata_world_t *w, uint32_t c) {
    for (uint32_t r = 0; r < w->schema->relation_count; r++) {
        if (w->schema->relations[r].component == c && !w->schema->relations[r].exclusive) {
            return r;
        }
    }
    return UINT32_MAX;
}

void sti_api_value(sti_api_t *api, sti_buf_t *b, strata_entity_t e, uint32_t c) {
    const strata_world_t *w = api->world;
    const strata_type_desc_t *types = w->schema->component_types;
    uint32_t relation = sti_api_tag_relation(w, c);
    const void *value = strata_get(w, e, c);
    if (relation != UINT32_MAX) {
        uint32_t n = 0;
        const strata_entity_t *targets = strata_relation_targets(w, relation, e, &n);
        sti_buf_text(b, "{\"targets\":[");
        for (uint32_t i = 0; i < n; i++) {
            sti_buf_text(b, i ? "," : "");
            sti_buf_entity(b, targets[i]);
        }
        sti_buf_text(b, "]}");
    } else if (types != NULL && value != NULL) {
        sti_json_fields(b, types[c].fields, types[c].count, value);
    } else {
        sti_buf_text(b, "{}");
    }
}

/* The request's body as flat JSON into m; -1 (answered 400) if broken. */
int sti_api_body(sti_request_t *r, sti_member_t *m) {
    int n = sti_json_parse_flat(r->body != NULL ? r->body : "", r->body_len, m, STI_MAX_MEMBERS);
    if (n < 0) {
        sti_api_error(r, 400, "the body is not a flat JSON object");
    }
    return n;
}

/* A string member, or NULL (answered 400). */
const char *sti_api_text(sti_request_t *r, const sti_member_t *m, int n, const char *key) {
    const sti_member_t *v = sti_json_member(m, n, key);
    if (v == NULL || v->type != STI_JSON_STRING) {
        sti_api_error(r, 400, "a string member is missing");
        return NULL;
    }
    return v->text;
}

/* The exclusive relation whose links component c holds, or UINT32_MAX. */
uint32_t sti_api_link_relation(const strata_world_t *w, uint32_t c) {
    for (uint32_t r = 0; r < w->schema->relation_count; r++) {
        if (w->schema->relations[r].component == c && w->schema->relations[r].exclusive) {
            return r;
        }
    }
    return UINT32_MAX;
}

/* The components the query's `key` lists ("A,B") into *mask; false: answered 4xx. */
bool sti_api_components(const sti_api_t *api, sti_request_t *r, const char *key, strata_mask_t *mask) {
    char text[512];
    int got = sti_api_param(r->query, key, text, sizeof text);
    if (got < 0) {
        sti_api_error(r, 400, "a component list is malformed");
        return false;
    }
    for (char *name = text, *next; got == 1 && *name != '\0'; name = next) {
        next = name + strcspn(name, ",");
        if (*next == ',') {
            *next++ = '\0';
        }
        uint32_t c = sti_api_component(api->world, name);
        if (c == UINT32_MAX) {
            sti_api_error(r, 404, "no such component");
            return false;
        }
        strata_mask_set(mask, c);
    }
    return true;
}

/* offset and limit of a page (limit default `fallback`); false: answered 400. */
bool sti_api_page(sti_request_t *r, uint64_t *offset, uint64_t *limit, uint64_t fallback) {
    char text[32];
    *offset = 0;
    *limit = fallback;
    int got = sti_api_param(r->query, "offset", text, sizeof text);
    if (got < 0 || (got == 1 && !sti_api_number(text, UINT32_MAX, offset))) {
        sti_api_error(r, 400, "offset: a whole number");
        return false;
    }
    got = sti_api_param(r->query, "limit", text, sizeof text);
    if (got < 0 || (got == 1 && !sti_api_number(text, STI_PAGE_MAX, limit))) {
        sti_api_error(r, 400, "limit: a whole number up to 1000");
        return false;
    }
    return true;
}

/* --- Labels ------------------------------------------------------------------------ */

bool sti_api_labels_init(sti_api_t *api) {
    const strata_world_t *w = api->world;
    uint32_t n = api->desc.label_count;
    api->label_count = 0;
    if (n == 0 || api->desc.labels == NULL || w->schema->component_types == NULL) {
        return true;
    }
    api->label_components = calloc(n, sizeof *api->label_components);
    api->label_fields = calloc(n, sizeof *api->label_fields);
    if (api->label_components == NULL || api->label_fields == NULL) {
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        const char *name = api->desc.labels[i];
        const char *dot = name != NULL ? strchr(name, '.') : NULL;
        char component[64];
        if (dot == NULL || (size_t)(dot - name) >= sizeof component) {
            continue;
        }
        memcpy(component, name, (size_t)(dot - name));
        component[dot - name] = '\0';
        uint32_t c = sti_api_component(w, component);
        const strata_type_desc_t *t = c != UINT32_MAX ? &w->schema->component_types[c] : NULL;
        for (uint32_t f = 0; t != NULL && f < t->count; f++) {
            if (t->fields[f].kind == STRATA_KIND_STRING && !t->fields[f].array &&
                strcmp(t->fields[f].name, dot + 1) == 0) {
                api->label_components[api->label_count] = c;
                api->label_fields[api->label_count++] = &t->fields[f];
            }
        }
    }
    return true;
}

void sti_api_labels_free(sti_api_t *api) {
    free(api->label_components);
    free((void *)api->label_fields);
    api->label_components = NULL;
    api->label_fields = NULL;
    api->label_count = 0;
}

const char *sti_api_label(const sti_api_t *api, strata_entity_t e, size_t *len) {
    for (uint32_t i = 0; i < api->label_count; i++) {
        const unsigned char *value = strata_get(api->world, e, api->label_components[i]);
        if (value != NULL) {
            const char *text = (const char *)value + api->label_fields[i]->offset;
            *len = strnlen(text, api->label_fields[i]->size);
            if (*len > 0) {
                return text;
            }
        }
    }
    *len = 0;
    return NULL;
}

void sti_api_label_member(const sti_api_t *api, sti_buf_t *b, strata_entity_t e) {
    size_t len = 0;
    const char *text = sti_api_label(api, e, &len);
    sti_buf_text(b, ",\"label\":");
    if (text != NULL) {
        sti_buf_str(b, text, len);
    } else {
        sti_buf_text(b, "null");
    }
}

void sti_api_entity_ref(sti_api_t *api, sti_buf_t *b, strata_entity_t e) {
    sti_buf_text(b, "{\"id\":");
    sti_buf_entity(b, e);
    sti_api_label_member(api, b, e);
    sti_buf_text(b, "}");
}

/* api.c: the inspector's JSON API (api.h), answered on the game's thread:
 * the only code of the inspector that reads or writes the world. */
#include "api.h"

#include "strata_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define API_PAGE_MAX 1000u /* entities a page of /api/entities lists at most */

void sti_api_error(sti_request_t *r, int status, const char *message) {
    sti_buf_free(&r->out);
    r->status = status;
    r->type = "application/json";
    sti_buf_text(&r->out, "{\"error\":");
    sti_buf_str(&r->out, message, SIZE_MAX);
    sti_buf_text(&r->out, "}");
}

/* --- Reading a request -------------------------------------------------------- */

/* The value of `key` in the query string, percent-decoded into out[0..cap).
 * 0: absent; 1: found; -1: malformed or too long. */
static int api_param(const char *query, const char *key, char *out, size_t cap) {
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
static bool api_number(const char *s, uint64_t max, uint64_t *out) {
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
static uint32_t api_component(const strata_world_t *w, const char *name) {
    for (uint32_t c = 0; c < w->component_count; c++) {
        if (strcmp(w->schema->components[c].name, name) == 0) {
            return c;
        }
    }
    return UINT32_MAX;
}

/* The system named `name` (or numbered), or UINT32_MAX. */
static uint32_t api_system(const sti_api_t *api, const char *name) {
    uint64_t n;
    if (api_number(name, UINT32_MAX, &n) && n < api->desc.system_count) {
        return (uint32_t)n;
    }
    for (uint32_t i = 0; i < api->desc.system_count; i++) {
        if (strcmp(api->desc.systems[i].name, name) == 0) {
            return i;
        }
    }
    return UINT32_MAX;
}

/* The names of the components of `mask` as a JSON list (aspects left out). */
static void api_names(sti_buf_t *b, const strata_world_t *w, const strata_mask_t *mask) {
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

/* --- The answers ------------------------------------------------------------------ */

/* A JSON list of n names: name(i) for i < n. */
static void api_name_list(sti_buf_t *b, uint32_t n, const char *(*name)(const void *, uint32_t), const void *ctx) {
    sti_buf_put(b, "[", 1);
    for (uint32_t i = 0; i < n; i++) {
        sti_buf_text(b, i ? "," : "");
        sti_buf_str(b, name(ctx, i), SIZE_MAX);
    }
    sti_buf_put(b, "]", 1);
}

static const char *api_component_name(const void *s, uint32_t i) {
    return ((const strata_schema_t *)s)->components[i].name;
}

static const char *api_query_name(const void *s, uint32_t i) {
    return ((const strata_schema_t *)s)->queries[i].name;
}

static const char *api_system_name(const void *api, uint32_t i) {
    return ((const sti_api_t *)api)->desc.systems[i].name;
}

static void api_world(sti_api_t *api, sti_request_t *r) {
    strata_world_stats_t st;
    strata_world_stats(api->world, &st);
    const strata_schema_t *s = api->world->schema;
    sti_buf_t *b = &r->out;
    sti_buf_text(b, "{\"world\":");
    sti_buf_str(b, s->name, SIZE_MAX);
    sti_buf_fmt(b, ",\"version\":%u,\"entities\":%u,\"archetypes\":%u,\"bytes\":%zu,\"pending\":%u",
                (unsigned)s->version, (unsigned)st.entities, (unsigned)st.tables, st.bytes, (unsigned)st.pending);
    sti_buf_fmt(b, ",\"step\":%llu,\"last_step_ms\":%.6f,\"average_step_ms\":%.6f", (unsigned long long)api->steps,
                api->last_step * 1e3, api->average_step * 1e3);
    sti_buf_text(b, ",\"components\":");
    api_name_list(b, s->component_count, api_component_name, s);
    sti_buf_text(b, ",\"systems\":");
    api_name_list(b, api->desc.system_count, api_system_name, api);
    sti_buf_text(b, ",\"queries\":");
    api_name_list(b, s->query_count, api_query_name, s);
    sti_buf_fmt(b, ",\"paused\":%s,\"writes\":%s}", api->paused ? "true" : "false",
                api->desc.writes ? "true" : "false");
}

static void api_archetypes(sti_api_t *api, sti_request_t *r) {
    const strata_world_t *w = api->world;
    sti_buf_t *b = &r->out;
    sti_buf_text(b, "{\"archetypes\":[");
    for (uint32_t i = 0; i < w->table_count; i++) {
        const sti_table_t *t = w->tables[i];
        size_t row_bytes = sizeof(strata_entity_t);
        for (uint32_t k = 0; k < t->column_count; k++) {
            row_bytes += t->dense[k].size;
        }
        sti_buf_fmt(b, "%s{\"id\":%u,\"count\":%u,\"capacity\":%u,\"row_bytes\":%zu,\"components\":", i ? "," : "",
                    (unsigned)t->id, (unsigned)t->count, (unsigned)t->capacity, row_bytes);
        api_names(b, w, &t->mask);
        sti_buf_text(b, "}");
    }
    sti_buf_text(b, "]}");
}

/* GET /api/entities?offset=&limit=&query=NAME&with=A,B: a page of the
 * entities that match the query, or have every component listed (their
 * table, and their rows for sparse components). */
static void api_entities(sti_api_t *api, sti_request_t *r) {
    const strata_world_t *w = api->world;
    char text[256];
    uint64_t offset = 0, limit = 100;
    uint32_t query = UINT32_MAX;
    strata_mask_t with = {0};
    int got = api_param(r->query, "offset", text, sizeof text);
    if (got < 0 || (got == 1 && !api_number(text, UINT32_MAX, &offset))) {
        sti_api_error(r, 400, "offset: a whole number");
        return;
    }
    got = api_param(r->query, "limit", text, sizeof text);
    if (got < 0 || (got == 1 && (!api_number(text, API_PAGE_MAX, &limit)))) {
        sti_api_error(r, 400, "limit: a whole number up to 1000");
        return;
    }
    got = api_param(r->query, "query", text, sizeof text);
    if (got < 0) {
        sti_api_error(r, 400, "query: malformed");
        return;
    }
    if (got == 1) {
        for (uint32_t q = 0; q < w->schema->query_count; q++) {
            if (strcmp(w->schema->queries[q].name, text) == 0) {
                query = q;
            }
        }
        if (query == UINT32_MAX) {
            sti_api_error(r, 404, "no such query");
            return;
        }
    }
    got = api_param(r->query, "with", text, sizeof text);
    if (got < 0) {
        sti_api_error(r, 400, "with: malformed");
        return;
    }
    for (char *name = text, *next; got == 1 && *name != '\0'; name = next) {
        next = name + strcspn(name, ",");
        if (*next == ',') {
            *next++ = '\0';
        }
        uint32_t c = api_component(w, name);
        if (c == UINT32_MAX) {
            sti_api_error(r, 404, "no such component");
            return;
        }
        strata_mask_set(&with, c);
    }
    sti_buf_t *b = &r->out;
    sti_buf_text(b, "{\"entities\":[");
    uint64_t total = 0, listed = 0, planes = 0; /* the sparse components of `with`: tested row by row */
    for (uint32_t c = 0; c < w->component_count; c++) {
        if (strata_mask_test(&with, c) && sti_is_sparse(w, c)) {
            planes |= (uint64_t)1 << w->sparse_plane[c];
            strata_mask_clear(&with, c);
        }
    }
    bool rows = planes != 0 || (query != UINT32_MAX && sti_sparse_terms(w, query) != NULL);
    for (uint32_t i = 0; i < w->table_count; i++) {
        const sti_table_t *t = w->tables[i];
        bool match = query == UINT32_MAX || sti_query_matches(w, query, &t->mask);
        for (uint32_t k = 0; k < STRATA_MAX_COMPONENTS / 64 && match; k++) {
            match = (with.bits[k] & ~t->mask.bits[k]) == 0;
        }
        if (!match || t->count == 0) {
            continue;
        }
        uint64_t first = offset > total && !rows ? offset - total : 0;
        for (uint64_t row = first; row < t->count && (rows || listed < limit); row++) {
            if (rows && ((planes & ~sti_sparse_held(w, t, (uint32_t)row)) != 0 ||
                         (query != UINT32_MAX && !sti_sparse_matches(w, query, t, (uint32_t)row)))) {
                continue;
            }
            if (rows && (total++ < offset || listed >= limit)) {
                continue;
            }
            strata_entity_t e = t->entities[row];
            sti_buf_text(b, listed ? ",{\"id\":" : "{\"id\":");
            sti_buf_entity(b, e);
            sti_buf_fmt(b, ",\"archetype\":%u}", (unsigned)t->id);
            listed++;
        }
        total += rows ? 0 : t->count;
    }
    sti_buf_fmt(b, "],\"total\":%llu,\"offset\":%llu,\"limit\":%llu}", (unsigned long long)total,
                (unsigned long long)offset, (unsigned long long)limit);
}

/* The entity a path names after its prefix ("4v1"), or STRATA_ENTITY_NULL (answered 404). */
static strata_entity_t api_entity_of(sti_api_t *api, sti_request_t *r, const char *id) {
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
static uint32_t api_tag_relation(const strata_world_t *w, uint32_t c) {
    for (uint32_t r = 0; r < w->schema->relation_count; r++) {
        if (w->schema->relations[r].component == c && !w->schema->relations[r].exclusive) {
            return r;
        }
    }
    return UINT32_MAX;
}

/* GET /api/entity/ID: {"id": "4v1", "archetype": A, "components": {...}},
 * each component an object of its fields (a tag {}, a non-exclusive
 * relation's tag {"targets": [...]}), every entity spelled "4v1". */
static void api_entity(sti_api_t *api, sti_request_t *r, const char *id) {
    strata_entity_t e = api_entity_of(api, r, id);
    if (e == STRATA_ENTITY_NULL) {
        return;
    }
    const strata_world_t *w = api->world;
    const sti_table_t *t = w->tables[sti_record_lookup(w, e)->table];
    const strata_type_desc_t *types = w->schema->component_types;
    sti_buf_t *b = &r->out;
    sti_buf_text(b, "{\"id\":");
    sti_buf_entity(b, e);
    sti_buf_fmt(b, ",\"archetype\":%u,\"components\":{", (unsigned)t->id);
    bool first = true;
    for (uint32_t c = 0; c < w->component_count; c++) {
        if (!strata_mask_test(&t->mask, c)) {
            continue;
        }
        sti_buf_text(b, first ? "" : ",");
        sti_buf_str(b, w->schema->components[c].name, SIZE_MAX);
        sti_buf_put(b, ":", 1);
        first = false;
        uint32_t relation = api_tag_relation(w, c);
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
    sti_buf_text(b, "}}");
}

/* GET /api/entity-state/ID: what the printer does not show: which of the
 * entity's components are marked changed (waiting in a set tracking them)
 * and its aspects (the systems holding per-entity state for it, as bytes). */
static void api_entity_state(sti_api_t *api, sti_request_t *r, const char *id) {
    strata_entity_t e = api_entity_of(api, r, id);
    if (e == STRATA_ENTITY_NULL) {
        return;
    }
    const strata_world_t *w = api->world;
    const sti_record_t *rec = sti_record_lookup(w, e);
    const sti_table_t *t = w->tables[rec->table];
    strata_mask_t marked = {0};
    for (uint32_t c = 0; c < w->component_count && w->dirty_count > 0; c++) {
        for (uint32_t k = 0; k < w->dirty_count && sti_has(w, t, rec->row, c); k++) {
            if ((w->trackers[c] >> k) & 1u && sti_dirty_has(w, k, e)) {
                strata_mask_set(&marked, c);
            }
        }
    }
    sti_buf_t *b = &r->out;
    sti_buf_text(b, "{\"id\":");
    sti_buf_entity(b, e);
    sti_buf_fmt(b, ",\"archetype\":%u,\"marked\":", (unsigned)t->id);
    api_names(b, w, &marked);
    sti_buf_text(b, ",\"aspects\":[");
    bool first = true;
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        uint32_t col = strata_query_aspect_id(w, q);
        if (col == UINT32_MAX || !strata_mask_test(&t->mask, col) || !sti_sparse_matches(w, q, t, rec->row)) {
            continue; /* (a system with sparse terms keeps a column in its tables' every row) */
        }
        uint32_t size = t->columns[col] != NULL ? w->schema->queries[q].aspect_size : 0;
        sti_buf_text(b, first ? "{\"system\":" : ",{\"system\":");
        sti_buf_str(b, w->schema->queries[q].name, SIZE_MAX);
        sti_buf_text(b, ",\"bytes\":\"");
        for (uint32_t i = 0; i < size; i++) {
            sti_buf_fmt(b, "%02x", ((const unsigned char *)t->columns[col])[(size_t)rec->row * size + i]);
        }
        sti_buf_text(b, "\"}");
        first = false;
    }
    sti_buf_text(b, "]}");
}

/* The names of the states of machine m in bit set `states` as a JSON list. */
static void api_state_names(sti_buf_t *b, const strata_machine_desc_t *m, uint64_t states) {
    sti_buf_put(b, "[", 1);
    bool first = true;
    for (uint32_t i = 0; i < m->state_count; i++) {
        if ((states >> i) & 1u) {
            sti_buf_text(b, first ? "" : ",");
            sti_buf_str(b, m->states[i], SIZE_MAX);
            first = false;
        }
    }
    sti_buf_put(b, "]", 1);
}

/* The machine whose state is at `offset` in the resource block, or NULL. */
static const strata_machine_desc_t *api_machine_at(const strata_schedule_t *s, uint32_t offset) {
    for (uint32_t m = 0; m < s->machine_count; m++) {
        if (s->machines[m].offset == offset) {
            return &s->machines[m];
        }
    }
    return NULL;
}

/* The bool of the resource block at `offset` as "Resource.field" ("?" if the block has no such field). */
static void api_condition_name(sti_buf_t *b, const strata_world_t *w, uint32_t offset) {
    const strata_type_desc_t *t = w->schema->resource_type;
    for (uint32_t i = 0; t != NULL && i < t->count; i++) {
        const strata_field_desc_t *f = &t->fields[i];
        for (uint32_t k = 0; f->kind == STRATA_KIND_STRUCT && f->type != NULL && k < f->type->count; k++) {
            const strata_field_desc_t *g = &f->type->fields[k];
            if (g->kind == STRATA_KIND_BOOL && f->offset + g->offset == offset) {
                sti_buf_fmt(b, "\"%s.%s\"", f->name, g->name); /* schema names: nothing to escape */
                return;
            }
        }
    }
    sti_buf_text(b, "\"?\"");
}

/* The rate of system `id`'s phase (0: once a step) as the inspector's list names it. */
static uint32_t api_rate(const sti_api_t *api, const strata_schedule_t *s, uint32_t id) {
    const char *phase = api->desc.systems[id].phase;
    for (uint32_t p = 0; phase != NULL && p < s->phase_count; p++) {
        if (strcmp(s->phases[p].name, phase) == 0) {
            return s->phases[p].rate;
        }
    }
    return 0;
}

/* System `id`'s gate and transitions as JSON members: "rate" of its phase,
 * "gate" ({"states": {M: [..]}, "conditions": [{"field": "R.f", "when": B}],
 * "every": N or "interval": S, "open": B}, or null) and "on" (the
 * transitions that run it: [{"enter": B, "machine": M, "states": [..]}]).
 * Only when the inspector's systems are the schedule's, id for id. */
static void api_gate(sti_buf_t *b, const sti_api_t *api, uint32_t id) {
    const strata_world_t *w = api->world;
    const strata_schedule_t *s = w->schema->schedule;
    if (s == NULL || api->desc.system_count != s->system_count ||
        strcmp(s->systems[id].name, api->desc.systems[id].name) != 0) {
        sti_buf_text(b, ",\"rate\":0,\"gate\":null,\"on\":[]");
        return;
    }
    const strata_system_desc_t *d = &s->systems[id];
    uint32_t rate = api_rate(api, s, id);
    sti_buf_fmt(b, ",\"rate\":%u,\"gate\":", (unsigned)rate);
    if ((d->flags & STRATA_SYSTEM_GATED) == 0 || d->gate >= s->gate_count) {
        sti_buf_text(b, "null");
    } else {
        const strata_gate_desc_t *g = &s->gates[d->gate];
        sti_buf_text(b, "{\"states\":{");
        bool first = true;
        for (uint32_t t = g->first; t < g->first + g->count && t < s->test_count; t++) {
            const strata_machine_desc_t *m = api_machine_at(s, s->tests[t].at);
            if (s->tests[t].kind == STRATA_TEST_STATE && m != NULL) {
                sti_buf_text(b, first ? "" : ",");
                sti_buf_str(b, m->name, SIZE_MAX);
                sti_buf_put(b, ":", 1);
                api_state_names(b, m, s->tests[t].value);
                first = false;
            }
        }
        sti_buf_text(b, "},\"conditions\":[");
        first = true;
        for (uint32_t t = g->first; t < g->first + g->count && t < s->test_count; t++) {
            if (s->tests[t].kind == STRATA_TEST_CONDITION) {
                sti_buf_text(b, first ? "{\"field\":" : ",{\"field\":");
                api_condition_name(b, w, s->tests[t].at);
                sti_buf_fmt(b, ",\"when\":%s}", s->tests[t].value ? "true" : "false");
                first = false;
            }
        }
        sti_buf_put(b, "]", 1);
        if (g->clock == STRATA_GATE_RUNS) {
            sti_buf_fmt(b, ",\"every\":%llu", (unsigned long long)g->period);
        } else if (g->clock == STRATA_GATE_TIME) {
            sti_buf_fmt(b, ",\"interval\":%.9g", (double)g->period / 1e9 / (rate > 0 ? rate : 1));
        }
        sti_buf_fmt(b, ",\"open\":%s}", strata_system_gate_open(w, id) ? "true" : "false");
    }
    sti_buf_text(b, ",\"on\":[");
    bool first = true;
    for (uint32_t t = 0; t < s->transition_count; t++) {
        const strata_transition_desc_t *x = &s->transitions[t];
        if (x->system == id && x->machine < s->machine_count) {
            sti_buf_fmt(b, "%s{\"enter\":%s,\"machine\":", first ? "" : ",", x->enter ? "true" : "false");
            sti_buf_str(b, s->machines[x->machine].name, SIZE_MAX);
            sti_buf_text(b, ",\"states\":");
            api_state_names(b, &s->machines[x->machine], x->states);
            sti_buf_put(b, "}", 1);
            first = false;
        }
    }
    sti_buf_put(b, "]", 1);
}

static void api_systems(sti_api_t *api, sti_request_t *r) {
    const strata_world_t *w = api->world;
    sti_buf_t *b = &r->out;
    sti_buf_text(b, "{\"systems\":[");
    for (uint32_t i = 0; i < api->desc.system_count; i++) {
        const strata_inspect_system_t *s = &api->desc.systems[i];
        const sti_system_stat_t *st = &api->systems[i];
        bool enabled = api->desc.enabled == NULL || api->desc.enabled(w, i);
        bool terms = s->query < w->schema->query_count;
        sti_buf_fmt(b, "%s{\"order\":%u,\"name\":", i ? "," : "", (unsigned)i);
        sti_buf_str(b, s->name, SIZE_MAX);
        sti_buf_text(b, ",\"phase\":");
        sti_buf_str(b, s->phase != NULL ? s->phase : "", SIZE_MAX);
        sti_buf_fmt(b, ",\"enabled\":%s,\"switchable\":%s,\"runs\":%llu,\"last_ms\":%.6f,\"average_ms\":%.6f",
                    enabled ? "true" : "false", api->desc.set_enabled != NULL ? "true" : "false",
                    (unsigned long long)st->runs, st->last * 1e3, st->average * 1e3);
        sti_buf_fmt(b, s->batch != 0 ? ",\"batch\":%u" : ",\"batch\":null", (unsigned)s->batch - 1u);
        sti_buf_fmt(b, ",\"changed\":%s,\"visited\":%u,\"matching\":%u,\"reads\":", st->changed ? "true" : "false",
                    (unsigned)st->visited, terms ? (unsigned)strata_query_count(w, s->query) : 0u);
        strata_mask_t none = {0};
        const strata_query_desc_t *q = terms ? &w->schema->queries[s->query] : NULL;
        strata_mask_t reads = q != NULL ? sti_mask_minus(&q->all, &q->write, &q->all) : none;
        api_names(b, w, &reads);
        sti_buf_text(b, ",\"writes\":");
        api_names(b, w, q != NULL ? &q->write : &none);
        sti_buf_text(b, ",\"without\":");
        api_names(b, w, q != NULL ? &q->none : &none);
        api_gate(b, api, i);
        sti_buf_text(b, "}");
    }
    sti_buf_text(b, "]}");
}

/* GET /api/states: each state machine, its states, the one it is in and the
 * one asked for (null when none waits). */
static void api_states(sti_api_t *api, sti_request_t *r) {
    const strata_world_t *w = api->world;
    const strata_schedule_t *s = w->schema->schedule;
    const unsigned char *base = strata_world_resources(api->world);
    sti_buf_t *b = &r->out;
    sti_buf_text(b, "{\"machines\":[");
    for (uint32_t m = 0; s != NULL && base != NULL && m < s->machine_count; m++) {
        const strata_machine_desc_t *d = &s->machines[m];
        strata_machine_state_t st;
        memcpy(&st, base + d->offset, sizeof st);
        sti_buf_text(b, m ? ",{\"name\":" : "{\"name\":");
        sti_buf_str(b, d->name, SIZE_MAX);
        sti_buf_text(b, ",\"states\":");
        api_state_names(b, d, d->state_count < 64 ? ((uint64_t)1 << d->state_count) - 1 : UINT64_MAX);
        sti_buf_text(b, ",\"current\":");
        sti_buf_str(b, st.current < d->state_count ? d->states[st.current] : "?", SIZE_MAX);
        sti_buf_text(b, ",\"next\":");
        if (st.pending && st.next < d->state_count) {
            sti_buf_str(b, d->states[st.next], SIZE_MAX);
        } else {
            sti_buf_text(b, "null");
        }
        sti_buf_put(b, "}", 1);
    }
    sti_buf_text(b, "]}");
}

/* The names of the queries whose dirty sets are in `sets` (bit k: set k). */
static void api_set_names(sti_buf_t *b, const strata_world_t *w, uint64_t sets) {
    sti_buf_put(b, "[", 1);
    for (uint32_t k = 0; k < w->dirty_count; k++) {
        if ((sets >> k) & 1u) {
            sti_buf_text(b, (sets & (((uint64_t)1 << k) - 1)) != 0 ? "," : "");
            sti_buf_str(b, w->schema->queries[w->dirty[k].query].name, SIZE_MAX);
        }
    }
    sti_buf_put(b, "]", 1);
}


/* GET /api/changes: each component some query tracks under `changed`, with
 * the entities marked for it now (written since the queries tracking it
 * last ran), and each dirty set: its query, components and entries. */
static void api_changes(sti_api_t *api, sti_request_t *r) {
    const strata_world_t *w = api->world;
    sti_buf_t *b = &r->out;
    sti_buf_text(b, "{\"components\":[");
    bool first = true;
    for (uint32_t c = 0; c < w->component_count && w->dirty_count > 0; c++) {
        if (w->trackers[c] == 0) {
            continue;
        }
        sti_buf_text(b, first ? "{\"name\":" : ",{\"name\":");
        sti_buf_str(b, w->schema->components[c].name, SIZE_MAX);
        sti_buf_fmt(b, ",\"marked\":%u,\"tracked_by\":", (unsigned)sti_dirty_count(w, w->trackers[c]));
        api_set_names(b, w, w->trackers[c]);
        sti_buf_text(b, "}");
        first = false;
    }
    sti_buf_text(b, "],\"sets\":[");
    for (uint32_t k = 0; k < w->dirty_count; k++) {
        const strata_query_desc_t *q = &w->schema->queries[w->dirty[k].query];
        sti_buf_text(b, k ? ",{\"query\":" : "{\"query\":");
        sti_buf_str(b, q->name, SIZE_MAX);
        sti_buf_fmt(b, ",\"marked\":%u,\"entries\":%u,\"components\":", (unsigned)sti_dirty_count(w, (uint64_t)1 << k),
                    (unsigned)sti_dirty_count(w, (uint64_t)1 << k));
        api_names(b, w, &q->changed);
        sti_buf_text(b, "}");
    }
    sti_buf_text(b, "]}");
}

/* GET /api/aspects: each system's aspect, its size and the entities holding one. */
static void api_aspects(sti_api_t *api, sti_request_t *r) {
    const strata_world_t *w = api->world;
    sti_buf_t *b = &r->out;
    sti_buf_text(b, "{\"aspects\":[");
    bool first = true;
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        uint32_t col = strata_query_aspect_id(w, q);
        if (col == UINT32_MAX) {
            continue;
        }
        uint32_t members = 0;
        for (uint32_t i = 0; i < w->table_count; i++) {
            const sti_table_t *t = w->tables[i];
            const sti_sparse_terms_t *terms = sti_sparse_terms(w, q);
            members += !strata_mask_test(&t->mask, col) ? 0u : terms != NULL ? sti_sparse_count(w, t, terms) : t->count;
        }
        sti_buf_text(b, first ? "{\"system\":" : ",{\"system\":");
        sti_buf_str(b, w->schema->queries[q].name, SIZE_MAX);
        sti_buf_fmt(b, ",\"size\":%u,\"members\":%u}", (unsigned)w->schema->queries[q].aspect_size, (unsigned)members);
        first = false;
    }
    sti_buf_text(b, "]}");
}

static void api_resources(sti_api_t *api, sti_request_t *r) {
    const strata_type_desc_t *t = api->world->schema->resource_type;
    const unsigned char *base = strata_world_resources(api->world);
    if (t == NULL || base == NULL) {
        sti_buf_text(&r->out, "{}");
        return;
    }
    sti_json_fields(&r->out, t->fields, t->count, base);
}

/* The schedule as SVG: a column a phase, a box a system in run order,
 * with what it reads and writes. */
static void api_schedule(sti_api_t *api, sti_request_t *r) {
    const strata_world_t *w = api->world;
    sti_buf_t *b = &r->out;
    enum { COL = 230, ROW = 74, TOP = 40 };
    uint32_t col = 0, row = 0, cols = 1, rows = 0;
    for (uint32_t i = 0; i < api->desc.system_count; i++) {
        if (i > 0 && strcmp(api->desc.systems[i].phase ? api->desc.systems[i].phase : "",
                            api->desc.systems[i - 1].phase ? api->desc.systems[i - 1].phase : "") != 0) {
            cols++;
            row = 0;
        }
        rows = ++row > rows ? row : rows;
    }
    r->type = "image/svg+xml";
    sti_buf_fmt(b,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" font-family=\"sans-serif\" "
                "font-size=\"12\">",
                cols * COL + 10, TOP + rows * ROW + 10);
    row = 0;
    for (uint32_t i = 0; i < api->desc.system_count; i++) {
        const strata_inspect_system_t *s = &api->desc.systems[i];
        const char *phase = s->phase != NULL ? s->phase : "";
        if (i == 0 || strcmp(phase, api->desc.systems[i - 1].phase ? api->desc.systems[i - 1].phase : "") != 0) {
            col += i > 0;
            row = 0;
            sti_buf_fmt(b, "<text x=\"%u\" y=\"24\" font-weight=\"bold\">phase ", col * COL + 14);
            sti_buf_text(b, phase); /* schema names are C identifiers: nothing to escape */
            sti_buf_text(b, "</text>");
        }
        bool enabled = api->desc.enabled == NULL || api->desc.enabled(w, i);
        unsigned x = col * COL + 10, y = TOP + row * ROW;
        if (row > 0) {
            sti_buf_fmt(b, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"#888\"/>", x + 100, y - 14, x + 100,
                        y);
        }
        sti_buf_fmt(b, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" rx=\"6\" fill=\"%s\" stroke=\"#446\"/>", x,
                    y, COL - 30, ROW - 14, enabled ? "#dde8f8" : "#eee");
        sti_buf_fmt(b, "<text x=\"%u\" y=\"%u\" font-weight=\"bold\">%u. %s%s</text>", x + 8, y + 17, (unsigned)i,
                    s->name, enabled ? "" : " (off)");
        const strata_query_desc_t *q = s->query < w->schema->query_count ? &w->schema->queries[s->query] : NULL;
        for (int line = 0; line < 2; line++) {
            sti_buf_fmt(b, "<text x=\"%u\" y=\"%u\" fill=\"#334\">%s", x + 8, y + 35 + 16 * line,
                        line ? "writes " : "reads ");
            bool any = false;
            for (uint32_t c = 0; q != NULL && c < w->component_count; c++) {
                bool in = strata_mask_test(&q->all, c) && strata_mask_test(&q->write, c) == (line == 1);
                if (in) {
                    sti_buf_text(b, any ? ", " : "");
                    sti_buf_text(b, w->schema->components[c].name);
                    any = true;
                }
            }
            sti_buf_text(b, any ? "</text>" : (q != NULL ? "-</text>" : "(no terms)</text>"));
        }
        row++;
    }
    sti_buf_text(b, "</svg>");
}

/* --- Writes ------------------------------------------------------------------------ */

/* The request's body as flat JSON into m; -1 (answered 400) if broken. */
static int api_body(sti_request_t *r, sti_member_t *m) {
    int n = sti_json_parse_flat(r->body != NULL ? r->body : "", r->body_len, m, STI_MAX_MEMBERS);
    if (n < 0) {
        sti_api_error(r, 400, "the body is not a flat JSON object");
    }
    return n;
}

/* A string member, or NULL (answered 400). */
static const char *api_text(sti_request_t *r, const sti_member_t *m, int n, const char *key) {
    const sti_member_t *v = sti_json_member(m, n, key);
    if (v == NULL || v->type != STI_JSON_STRING) {
        sti_api_error(r, 400, "a string member is missing");
        return NULL;
    }
    return v->text;
}

/* The exclusive relation whose links component c holds, or UINT32_MAX. */
static uint32_t api_link_relation(const strata_world_t *w, uint32_t c) {
    for (uint32_t r = 0; r < w->schema->relation_count; r++) {
        if (w->schema->relations[r].component == c && w->schema->relations[r].exclusive) {
            return r;
        }
    }
    return UINT32_MAX;
}

/* A copy of the n bytes at p on libc's heap (NULL: answered 500), or NULL for none. */
static unsigned char *api_copy(sti_request_t *r, const void *p, size_t n, bool *failed) {
    unsigned char *copy = n > 0 && p != NULL ? malloc(n) : NULL;
    *failed = n > 0 && p != NULL && copy == NULL;
    if (*failed) {
        sti_api_error(r, 500, "out of memory");
    } else if (copy != NULL) {
        memcpy(copy, p, n);
    }
    return copy;
}

/* Decode the body's "value" into the element that `field` names in a copy
 * of a struct of type t: *f and *at get it. False (answered 404 or 400) if
 * there is no such field or the value does not fit it; an entity field's
 * value must be a live entity or null (0): the page does not forge handles. */
static bool api_decode_field(sti_api_t *api, sti_request_t *r, const strata_type_desc_t *t, unsigned char *copy,
                             const char *field, const sti_member_t *value, const strata_field_desc_t **f,
                             unsigned char **at) {
    if (t == NULL || copy == NULL || !sti_field_find(t->fields, t->count, copy, field, f, at)) {
        sti_api_error(r, 404, "no such field");
        return false;
    }
    char why[STI_VALUE_WHY] = "a \"value\" member is missing";
    if (value == NULL || !sti_field_set(*f, *at, value, why)) {
        sti_api_error(r, 400, why);
        return false;
    }
    strata_entity_t e = STRATA_ENTITY_NULL;
    if ((*f)->kind == STRATA_KIND_ENTITY) {
        memcpy(&e, *at, sizeof e);
    }
    if (e != STRATA_ENTITY_NULL && !strata_entity_alive(api->world, e)) {
        sti_api_error(r, 404, "no such entity to point at (stale, never made, or forged)");
        return false;
    }
    return true;
}

/* Set the target of e's link in exclusive relation `relation` through the
 * runtime's rules (a live target, no cycle, the index of sources kept in
 * step); `link` is the whole new value. */
static void api_link_set(sti_api_t *api, sti_request_t *r, uint32_t relation, strata_entity_t e, const void *link) {
    strata_entity_t target;
    memcpy(&target, link, sizeof target);
    strata_result_t result = strata_relation_set(api->world, relation, e, target, link);
    if (result == STRATA_ERR_CYCLE) {
        sti_api_error(r, 409, "the link would close a cycle (a link to itself, or to one of its sources)");
    } else if (result == STRATA_ERR_STALE) {
        sti_api_error(r, 404, "no such entity to link to (stale, never made, forged or null)");
    } else if (result != STRATA_OK) {
        sti_api_error(r, 500, strata_result_str(result));
    } else {
        sti_buf_text(&r->out, "{\"ok\":true}");
    }
}

/* POST /api/entity/ID {"component": C, "field": "x", "value": V}: one field
 * set through the rules the typed API follows. An exclusive relation's
 * target goes through strata_relation_set; every other field is written in
 * place and the component marked changed. */
static void api_entity_set(sti_api_t *api, sti_request_t *r, const char *id) {
    sti_member_t m[STI_MAX_MEMBERS];
    int n = api_body(r, m);
    strata_entity_t e = n < 0 ? STRATA_ENTITY_NULL : api_entity_of(api, r, id);
    const char *component = e ? api_text(r, m, n, "component") : NULL;
    const char *field = component ? api_text(r, m, n, "field") : NULL;
    if (field == NULL) {
        return;
    }
    strata_world_t *w = api->world;
    uint32_t c = api_component(w, component);
    if (c == UINT32_MAX || !strata_has(w, e, c)) {
        sti_api_error(r, 404, "the entity has no such component");
        return;
    }
    const strata_type_desc_t *t = w->schema->component_types != NULL ? &w->schema->component_types[c] : NULL;
    bool failed = false;
    unsigned char *copy = api_copy(r, strata_get(w, e, c), w->schema->components[c].size, &failed);
    const strata_field_desc_t *f = NULL;
    unsigned char *at = NULL;
    if (!failed && api_decode_field(api, r, t, copy, field, sti_json_member(m, n, "value"), &f, &at)) {
        uint32_t relation = api_link_relation(w, c);
        if (relation != UINT32_MAX && at == copy && f->kind == STRATA_KIND_ENTITY) {
            api_link_set(api, r, relation, e, copy);
        } else {
            memcpy((unsigned char *)strata_get_mut(w, e, c) + (at - copy), at, f->size);
            sti_buf_text(&r->out, "{\"ok\":true}");
        }
    }
    free(copy);
}

/* True if byte `at` of the resource block belongs to the loop: a state
 * machine's state or the loop's clock (the accumulators and counters, after
 * the resources), which only the step and strata_state_set change. */
static bool api_loop_owned(const strata_world_t *w, uint32_t at) {
    const strata_schedule_t *s = w->schema->schedule;
    for (uint32_t m = 0; s != NULL && m < s->machine_count; m++) {
        if (at >= s->machines[m].offset && at - s->machines[m].offset < sizeof(strata_machine_state_t)) {
            return true;
        }
    }
    const strata_type_desc_t *t = w->schema->resource_type;
    for (uint32_t i = 0; t != NULL && i < t->count; i++) {
        const strata_field_desc_t *f = &t->fields[i];
        if (f->name[0] == '(' && at >= f->offset && at - f->offset < f->size) {
            return true;
        }
    }
    return false;
}

/* POST /api/resource {"resource": R, "field": "x", "value": V} */
static void api_resource_set(sti_api_t *api, sti_request_t *r) {
    sti_member_t m[STI_MAX_MEMBERS];
    int n = api_body(r, m);
    const char *resource = n < 0 ? NULL : api_text(r, m, n, "resource");
    const char *field = resource ? api_text(r, m, n, "field") : NULL;
    if (field == NULL) {
        return;
    }
    char path[160];
    if ((size_t)snprintf(path, sizeof path, "%s.%s", resource, field) >= sizeof path) {
        sti_api_error(r, 400, "the path is too long");
        return;
    }
    unsigned char *base = strata_world_resources(api->world);
    const strata_type_desc_t *t = base != NULL ? api->world->schema->resource_type : NULL;
    bool failed = false;
    unsigned char *copy = api_copy(r, base, t != NULL ? t->size : 0, &failed);
    const strata_field_desc_t *f = NULL;
    unsigned char *at = NULL;
    if (!failed && api_decode_field(api, r, t, copy, path, sti_json_member(m, n, "value"), &f, &at)) {
        if (api_loop_owned(api->world, (uint32_t)(at - copy))) {
            sti_api_error(r, 409,
                          "the loop owns this field: a state changes through POST /api/state/MACHINE "
                          "{\"state\": NAME}, which runs its on_exit and on_enter systems");
        } else {
            memcpy(base + (at - copy), at, f->size);
            sti_buf_text(&r->out, "{\"ok\":true}");
        }
    }
    free(copy);
}

/* POST /api/state/MACHINE {"state": NAME}: a transition asked as the typed
 * <world>_<machine>_set asks it (strata_state_set): applied at the next
 * transition point, the last request before it winning. */
static void api_state_set(sti_api_t *api, sti_request_t *r, const char *name) {
    const strata_schedule_t *s = api->world->schema->schedule;
    uint32_t machine = UINT32_MAX;
    for (uint32_t m = 0; s != NULL && m < s->machine_count; m++) {
        machine = strcmp(s->machines[m].name, name) == 0 ? m : machine;
    }
    if (machine == UINT32_MAX) {
        sti_api_error(r, 404, "no such state machine");
        return;
    }
    sti_member_t m[STI_MAX_MEMBERS];
    int n = api_body(r, m);
    const char *state = n < 0 ? NULL : api_text(r, m, n, "state");
    if (state == NULL) {
        return;
    }
    const strata_machine_desc_t *d = &s->machines[machine];
    for (uint32_t i = 0; i < d->state_count; i++) {
        if (strcmp(d->states[i], state) == 0 && strata_state_set(api->world, machine, i) == STRATA_OK) {
            sti_buf_text(&r->out, "{\"ok\":true}");
            return;
        }
    }
    sti_api_error(r, 404, "no such state");
}

/* A boolean member, or -1 (answered 400). */
static int api_flag(sti_request_t *r, const char *key) {
    sti_member_t m[STI_MAX_MEMBERS];
    int n = api_body(r, m);
    if (n < 0) {
        return -1;
    }
    const sti_member_t *v = sti_json_member(m, n, key);
    if (v == NULL || v->type != STI_JSON_BOOL) {
        sti_api_error(r, 400, "a boolean member is missing");
        return -1;
    }
    return v->boolean;
}

static void api_system_set(sti_api_t *api, sti_request_t *r, const char *name) {
    uint32_t s = api_system(api, name);
    if (s == UINT32_MAX) {
        sti_api_error(r, 404, "no such system");
        return;
    }
    int on = api_flag(r, "enabled");
    if (on < 0) {
        return;
    }
    if (api->desc.set_enabled == NULL) {
        sti_api_error(r, 403, "the game does not let systems be switched");
        return;
    }
    api->desc.set_enabled(api->world, s, on == 1);
    sti_buf_text(&r->out, "{\"ok\":true}");
}

/* GET /api/reloads: the live reloads the game listed, newest first:
 * {"reloads": [{"number": 3, "outcome": "refused", "at": 12.5, "ms": 412, "text": "..."}]}. */
static void api_reloads(sti_api_t *api, sti_request_t *r) {
    sti_buf_t *b = &r->out;
    sti_buf_text(b, "{\"reloads\":[");
    uint32_t shown = api->reload_count < STI_RELOADS ? api->reload_count : STI_RELOADS;
    for (uint32_t k = 0; k < shown; k++) {
        const sti_reload_t *x = &api->reloads[(api->reload_count - 1 - k) % STI_RELOADS];
        sti_buf_fmt(b, "%s{\"number\":%u,\"outcome\":", k > 0 ? "," : "", (unsigned)x->number);
        sti_buf_str(b, x->outcome, SIZE_MAX);
        sti_buf_fmt(b, ",\"at\":%.3f,\"ms\":%.1f,\"text\":", x->at, x->ms);
        sti_buf_str(b, x->text != NULL ? x->text : "", SIZE_MAX);
        sti_buf_text(b, "}");
    }
    sti_buf_text(b, "]}");
}

/* --- Routing ------------------------------------------------------------------------ */

void sti_api_answer(sti_api_t *api, sti_request_t *r) {
    static const char entity[] = "/api/entity/", system[] = "/api/system/", state[] = "/api/entity-state/",
                      machine[] = "/api/state/";
    const char *p = r->path;
    r->status = 200;
    r->type = "application/json";
    bool is_entity = strncmp(p, entity, sizeof entity - 1) == 0;
    bool is_system = strncmp(p, system, sizeof system - 1) == 0;
    bool is_state = strncmp(p, state, sizeof state - 1) == 0;
    bool is_machine = strncmp(p, machine, sizeof machine - 1) == 0;
    bool writes_here = is_entity || is_system || is_machine || strcmp(p, "/api/resource") == 0 ||
                       strcmp(p, "/api/pause") == 0 || strcmp(p, "/api/step") == 0;
    bool reads_here = is_entity || is_state || strcmp(p, "/api/world") == 0 || strcmp(p, "/api/archetypes") == 0 ||
                      strcmp(p, "/api/entities") == 0 || strcmp(p, "/api/systems") == 0 ||
                      strcmp(p, "/api/resources") == 0 || strcmp(p, "/api/schedule.svg") == 0 ||
                      strcmp(p, "/api/changes") == 0 || strcmp(p, "/api/aspects") == 0 ||
                      strcmp(p, "/api/states") == 0 || strcmp(p, "/api/reloads") == 0;
    if (!writes_here && !reads_here) {
        sti_api_error(r, 404, "no such path");
    } else if (r->post ? !writes_here : !reads_here) {
        sti_api_error(r, 405, r->post ? "this path takes GET" : "this path takes POST");
    } else if (r->post && !api->desc.writes) {
        sti_api_error(r, 403, "writes are off: the game starts the inspector with .writes = true to allow them");
    } else if (is_entity) {
        (r->post ? api_entity_set : api_entity)(api, r, p + sizeof entity - 1);
    } else if (is_state) {
        api_entity_state(api, r, p + sizeof state - 1);
    } else if (is_system) {
        api_system_set(api, r, p + sizeof system - 1);
    } else if (is_machine) {
        api_state_set(api, r, p + sizeof machine - 1);
    } else if (strcmp(p, "/api/states") == 0) {
        api_states(api, r);
    } else if (strcmp(p, "/api/changes") == 0) {
        api_changes(api, r);
    } else if (strcmp(p, "/api/aspects") == 0) {
        api_aspects(api, r);
    } else if (strcmp(p, "/api/reloads") == 0) {
        api_reloads(api, r);
    } else if (strcmp(p, "/api/world") == 0) {
        api_world(api, r);
    } else if (strcmp(p, "/api/archetypes") == 0) {
        api_archetypes(api, r);
    } else if (strcmp(p, "/api/entities") == 0) {
        api_entities(api, r);
    } else if (strcmp(p, "/api/systems") == 0) {
        api_systems(api, r);
    } else if (strcmp(p, "/api/resources") == 0) {
        api_resources(api, r);
    } else if (strcmp(p, "/api/schedule.svg") == 0) {
        api_schedule(api, r);
    } else if (strcmp(p, "/api/resource") == 0) {
        api_resource_set(api, r);
    } else if (strcmp(p, "/api/pause") == 0) {
        int on = api_flag(r, "paused");
        if (on >= 0) {
            api->paused = on == 1;
            api->single_steps = 0;
            sti_buf_text(&r->out, "{\"ok\":true}");
        }
    } else { /* /api/step: pause, and let one step through */
        sti_member_t m[STI_MAX_MEMBERS];
        if (api_body(r, m) >= 0) {
            api->paused = true;
            api->single_steps += api->single_steps < 1000;
            sti_buf_text(&r->out, "{\"ok\":true}");
        }
    }
    if (r->out.failed) {
        sti_api_error(r, 500, "out of memory");
    }
}

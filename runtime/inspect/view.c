/* view.c: the inspector's reads beyond one entity (view.h): the
 * hierarchy of an exclusive relation, an entity's links, ad-hoc queries,
 * the events and the history recorded while a client is attached. On the
 * game's thread, between steps, like the rest of the API. */
#include "view.h"

#include "strata_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VIEW_SOURCES_SHOWN 50 /* sources an entity's links list (the tree shows them all) */

/* --- Reading parameters ---------------------------------------------------------------- */

/* The relation named by the query's `relation` (or UINT32_MAX when absent:
 * *given false); false: answered 4xx. */
static bool view_relation(sti_api_t *api, sti_request_t *r, uint32_t *relation, bool *given) {
    const strata_schema_t *s = api->world->schema;
    char name[128];
    int got = sti_api_param(r->query, "relation", name, sizeof name);
    *relation = UINT32_MAX;
    *given = got == 1;
    if (got < 0) {
        sti_api_error(r, 400, "relation: malformed");
        return false;
    }
    for (uint32_t i = 0; got == 1 && i < s->relation_count; i++) {
        if (strcmp(s->relations[i].name, name) == 0) {
            *relation = i;
        }
    }
    if (got == 1 && *relation == UINT32_MAX) {
        sti_api_error(r, 404, "no such relation");
        return false;
    }
    return true;
}

/* The live entity the query's `key` names ("4v1"), STRATA_ENTITY_NULL when
 * absent; false: answered 4xx. */
static bool view_entity_param(sti_api_t *api, sti_request_t *r, const char *key, strata_entity_t *e) {
    char text[64];
    int got = sti_api_param(r->query, key, text, sizeof text);
    *e = STRATA_ENTITY_NULL;
    if (got < 0) {
        sti_api_error(r, 400, "an entity is spelled 4v1 (its index, v, its generation)");
        return false;
    }
    if (got == 1 && sti_api_entity(api, r, text) == STRATA_ENTITY_NULL) {
        return false; /* answered 404 */
    }
    if (got == 1) {
        sti_entity_parse(text, e);
    }
    return true;
}

/* --- The hierarchy ------------------------------------------------------------------- */

static int view_by_index(const void *a, const void *b) {
    uint32_t x = strata_entity_index(*(const strata_entity_t *)a), y = strata_entity_index(*(const strata_entity_t *)b);
    return (x > y) - (x < y);
}

/* The roots of exclusive relation r: entities with sources and no target of their own, by index. */
static strata_entity_t *view_roots(const strata_world_t *w, uint32_t r, uint32_t *count, bool *failed) {
    const sti_link_index_t *x = sti_link_index(w, r);
    uint32_t n = 0, cap = 0;
    strata_entity_t *roots = NULL;
    *failed = false;
    for (size_t i = 0; i < x->sources_cap; i++) {
        const sti_link_list_t *list = &x->sources[i];
        if (list->count == 0) {
            continue;
        }
        strata_entity_t target = strata_relation_target(w, r, list->items[0]);
        if (target == STRATA_ENTITY_NULL || strata_relation_target(w, r, target) != STRATA_ENTITY_NULL) {
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            strata_entity_t *grown = realloc(roots, cap * sizeof *roots);
            if (grown == NULL) {
                free(roots);
                *failed = true;
                return NULL;
            }
            roots = grown;
        }
        roots[n++] = target;
    }
    *count = n;
    return roots;
}

/* GET /api/tree?relation=R[&parent=4v1][&offset=&limit=]: the roots of
 * exclusive relation R (entities with sources and no target), or parent's
 * sources, by index, each with its label and its own count of sources. */
void sti_view_tree(sti_api_t *api, sti_request_t *r) {
    const strata_world_t *w = api->world;
    uint32_t relation;
    bool given;
    strata_entity_t parent;
    uint64_t offset, limit;
    if (!view_relation(api, r, &relation, &given) || !view_entity_param(api, r, "parent", &parent) ||
        !sti_api_page(r, &offset, &limit, 200)) {
        return;
    }
    if (!given || !w->schema->relations[relation].exclusive) {
        sti_api_error(r, 400, "relation: an exclusive relation (a tree) is required");
        return;
    }
    uint32_t n = 0;
    bool failed = false;
    strata_entity_t *nodes = NULL;
    if (parent == STRATA_ENTITY_NULL) {
        nodes = view_roots(w, relation, &n, &failed);
    } else {
        const strata_entity_t *sources = strata_relation_sources(w, relation, parent, &n);
        nodes = n > 0 ? malloc(n * sizeof *nodes) : NULL;
        failed = n > 0 && nodes == NULL;
        if (!failed && n > 0) {
            memcpy(nodes, sources, n * sizeof *nodes);
        }
    }
    if (failed) {
        sti_api_error(r, 500, "out of memory");
        return;
    }
    if (n > 1) {
        qsort(nodes, n, sizeof *nodes, view_by_index);
    }
    sti_buf_t *b = &r->out;
    sti_buf_text(b, "{\"relation\":");
    sti_buf_str(b, w->schema->relations[relation].name, SIZE_MAX);
    sti_buf_text(b, ",\"parent\":");
    sti_buf_entity(b, parent);
    sti_buf_fmt(b, ",\"total\":%u,\"offset\":%llu,\"nodes\":[", (unsigned)n, (unsigned long long)offset);
    for (uint64_t i = offset; i < n && i < offset + limit; i++) {
        uint32_t below = 0;
        (void)strata_relation_sources(w, relation, nodes[i], &below);
        sti_buf_text(b, i > offset ? ",{\"id\":" : "{\"id\":");
        sti_buf_entity(b, nodes[i]);
        sti_api_label_member(api, b, nodes[i]);
        sti_buf_fmt(b, ",\"children\":%u,\"depth\":%d}", (unsigned)below,
                    (int)strata_relation_depth(w, relation, nodes[i]));
    }
    sti_buf_text(b, "]}");
    free(nodes);
}

/* GET /api/links/4v1: the entity's links in every relation: its target(s)
 * and its sources (their count, and the first VIEW_SOURCES_SHOWN by index),
 * each entity with its label. */
void sti_view_links(sti_api_t *api, sti_request_t *r, const char *id) {
    strata_entity_t e = sti_api_entity(api, r, id);
    if (e == STRATA_ENTITY_NULL) {
        return;
    }
    const strata_world_t *w = api->world;
    sti_buf_t *b = &r->out;
    sti_buf_text(b, "{\"id\":");
    sti_buf_entity(b, e);
    sti_api_label_member(api, b, e);
    sti_buf_text(b, ",\"relations\":[");
    for (uint32_t rel = 0; rel < w->schema->relation_count; rel++) {
        const strata_relation_desc_t *d = &w->schema->relations[rel];
        uint32_t nt = 0, ns = 0;
        strata_entity_t one = STRATA_ENTITY_NULL;
        const strata_entity_t *targets = NULL;
        if (d->exclusive) {
            one = strata_relation_target(w, rel, e);
            targets = one != STRATA_ENTITY_NULL ? &one : NULL;
            nt = one != STRATA_ENTITY_NULL;
        } else {
            targets = strata_relation_targets(w, rel, e, &nt);
        }
        const strata_entity_t *sources = strata_relation_sources(w, rel, e, &ns);
        sti_buf_text(b, rel ? ",{\"relation\":" : "{\"relation\":");
        sti_buf_str(b, d->name, SIZE_MAX);
        sti_buf_fmt(b, ",\"exclusive\":%s,\"targets\":[", d->exclusive ? "true" : "false");
        for (uint32_t i = 0; i < nt; i++) {
            sti_buf_text(b, i ? "," : "");
            sti_api_entity_ref(api, b, targets[i]);
        }
        sti_buf_fmt(b, "],\"source_count\":%u,\"sources\":[", (unsigned)ns);
        strata_entity_t *sorted = ns > 0 ? malloc(ns * sizeof *sorted) : NULL;
        uint32_t shown = sorted != NULL ? (ns < VIEW_SOURCES_SHOWN ? ns : VIEW_SOURCES_SHOWN) : 0;
        if (sorted != NULL) {
            memcpy(sorted, sources, ns * sizeof *sorted);
            qsort(sorted, ns, sizeof *sorted, view_by_index);
        }
        b->failed = b->failed || (ns > 0 && sorted == NULL);
        for (uint32_t i = 0; i < shown; i++) {
            sti_buf_text(b, i ? "," : "");
            sti_api_entity_ref(api, b, sorted[i]);
        }
        free(sorted);
        sti_buf_text(b, "]}");
    }
    sti_buf_text(b, "]}");
}

/* --- Ad-hoc queries ------------------------------------------------------------------ */

/* GET /api/query?with=A,B&without=C&optional=D&relation=R&target=4v1&offset=&limit=:
 * the entities with every `with` component (and a link in R, to `target`
 * when given) and no `without` one, paged, each with the values of its
 * `with` and `optional` components (null for an optional one it lacks). */
void sti_view_query(sti_api_t *api, sti_request_t *r) {
    const strata_world_t *w = api->world;
    strata_mask_t with = {0}, without = {0}, optional = {0};
    uint32_t relation;
    bool given;
    strata_entity_t target;
    uint64_t offset, limit;
    if (!sti_api_components(api, r, "with", &with) || !sti_api_components(api, r, "without", &without) ||
        !sti_api_components(api, r, "optional", &optional) || !view_relation(api, r, &relation, &given) ||
        !view_entity_param(api, r, "target", &target) || !sti_api_page(r, &offset, &limit, 50)) {
        return;
    }
    if (target != STRATA_ENTITY_NULL && !given) {
        sti_api_error(r, 400, "target: a relation is required with it");
        return;
    }
    bool any = given;
    for (uint32_t k = 0; k < STRATA_MAX_COMPONENTS / 64; k++) {
        any = any || with.bits[k] != 0;
        if ((with.bits[k] & without.bits[k]) != 0) {
            sti_api_error(r, 400, "a component is both with and without");
            return;
        }
    }
    if (!any) {
        sti_api_error(r, 400, "a query needs a with component or a relation");
        return;
    }
    if (given) {
        strata_mask_set(&with, w->schema->relations[relation].component);
    }
    strata_mask_t shown = with;
    for (uint32_t k = 0; k < STRATA_MAX_COMPONENTS / 64; k++) {
        shown.bits[k] |= optional.bits[k];
    }
    sti_buf_t *b = &r->out;
    sti_buf_text(b, "{\"columns\":");
    sti_api_names(b, w, &shown);
    sti_buf_text(b, ",\"entities\":[");
    uint64_t total = 0, listed = 0;
    for (uint32_t i = 0; i < w->table_count; i++) {
        const sti_table_t *t = w->tables[i];
        bool match = t->count > 0;
        for (uint32_t k = 0; k < STRATA_MAX_COMPONENTS / 64 && match; k++) {
            match = (with.bits[k] & ~t->mask.bits[k]) == 0 && (without.bits[k] & t->mask.bits[k]) == 0;
        }
        for (uint32_t row = 0; match && row < t->count; row++) {
            strata_entity_t e = t->entities[row];
            if (target != STRATA_ENTITY_NULL && !strata_relation_has(w, relation, e, target)) {
                continue;
            }
            if (total++ < offset || listed >= limit) {
                continue;
            }
            sti_buf_text(b, listed++ ? ",{\"id\":" : "{\"id\":");
            sti_buf_entity(b, e);
            sti_api_label_member(api, b, e);
            sti_buf_text(b, ",\"values\":{");
            bool first = true;
            for (uint32_t c = 0; c < w->component_count; c++) {
                if (!strata_mask_test(&shown, c)) {
                    continue;
                }
                sti_buf_text(b, first ? "" : ",");
                sti_buf_str(b, w->schema->components[c].name, SIZE_MAX);
                sti_buf_put(b, ":", 1);
                first = false;
                if (strata_mask_test(&t->mask, c)) {
                    sti_api_value(api, b, e, c);
                } else {
                    sti_buf_text(b, "null");
                }
            }
            sti_buf_text(b, "}}");
        }
    }
    sti_buf_fmt(b, "],\"total\":%llu,\"offset\":%llu,\"limit\":%llu}", (unsigned long long)total,
                (unsigned long long)offset, (unsigned long long)limit);
}

/* --- Events and history (recorded by record.c) ----------------------------------------- */

/* The name of the system at schedule position p. */
static const char *view_system(const sti_api_t *api, uint32_t p) {
    return p < api->desc.system_count ? api->desc.systems[p].name : "(the game)";
}

/* GET /api/events: each event type, the events its last recorded step
 * held, how many were seen while recording, and the last STI_EVENT_RING
 * values, newest first, each with its step and emitting system. */
void sti_view_events(sti_api_t *api, sti_request_t *r) {
    const strata_world_t *w = api->world;
    const strata_schema_t *s = w->schema;
    sti_buf_t *b = &r->out;
    sti_buf_fmt(b, "{\"step\":%llu,\"recording\":%s,\"events\":[", (unsigned long long)api->steps,
                api->events != NULL ? "true" : "false");
    for (uint32_t e = 0; e < s->event_count; e++) {
        const sti_event_ring_t *ring = api->events != NULL ? &api->events[e] : NULL;
        sti_buf_text(b, e ? ",{\"name\":" : "{\"name\":");
        sti_buf_str(b, s->events[e].name, SIZE_MAX);
        sti_buf_fmt(b, ",\"last_step\":%u,\"total\":%llu,\"held\":%u,\"recent\":[",
                    ring ? (unsigned)ring->last_step : 0u, ring ? (unsigned long long)ring->total : 0ull,
                    (unsigned)strata_event_held(w, e));
        const strata_type_desc_t *t = s->events[e].type;
        for (uint32_t i = 0; ring != NULL && i < ring->count; i++) {
            uint32_t at = (ring->head + ring->count - 1 - i) % STI_EVENT_RING;
            sti_buf_fmt(b, "%s{\"step\":%llu,\"system\":", i ? "," : "", (unsigned long long)ring->steps[at]);
            sti_buf_str(b, view_system(api, ring->systems[at]), SIZE_MAX);
            sti_buf_text(b, ",\"value\":");
            if (t != NULL) {
                sti_json_fields(b, t->fields, t->count, ring->values + (size_t)at * s->events[e].size);
            } else {
                sti_buf_text(b, "{}");
            }
            sti_buf_text(b, "}");
        }
        sti_buf_text(b, "]}");
    }
    sti_buf_text(b, "]}");
}

/* GET /api/history[?since=STEP]: the samples of the last STI_HISTORY_SECONDS
 * (after step `since`), as columns; `ago`: seconds before now. */
void sti_view_history(sti_api_t *api, sti_request_t *r, double now) {
    char text[32];
    uint64_t since = 0;
    int got = sti_api_param(r->query, "since", text, sizeof text);
    if (got < 0 || (got == 1 && !sti_api_number(text, UINT64_MAX, &since))) {
        sti_api_error(r, 400, "since: a step number");
        return;
    }
    const sti_history_t *h = &api->history;
    uint32_t systems = api->desc.system_count;
    sti_buf_t *b = &r->out;
    sti_buf_text(b, "{\"systems\":[");
    for (uint32_t i = 0; i < systems; i++) {
        sti_buf_text(b, i ? "," : "");
        sti_buf_str(b, api->desc.systems[i].name, SIZE_MAX);
    }
    sti_buf_fmt(b, "],\"seconds\":%g,\"recording\":%s", STI_HISTORY_SECONDS, h->cap > 0 ? "true" : "false");
    uint32_t first = 0; /* the oldest sample to send */
    while (first < h->count) {
        uint32_t at = (h->head + first) % (h->cap ? h->cap : 1);
        if (h->step[at] > since && now - h->t[at] <= STI_HISTORY_SECONDS) {
            break;
        }
        first++;
    }
    /* The marks of the span: the state changes seen and the reloads listed. */
    sti_buf_text(b, ",\"marks\":[");
    bool any = false;
    for (uint32_t i = api->mark_count > STI_MARKS ? api->mark_count - STI_MARKS : 0; i < api->mark_count; i++) {
        const sti_mark_t *m = &api->marks[i % STI_MARKS];
        if (now - m->t <= STI_HISTORY_SECONDS) {
            sti_buf_fmt(b, "%s{\"ago\":%.4f,\"kind\":\"state\",\"text\":", any ? "," : "", now - m->t);
            sti_buf_str(b, m->text, SIZE_MAX);
            sti_buf_put(b, "}", 1);
            any = true;
        }
    }
    for (uint32_t i = api->reload_count > STI_RELOADS ? api->reload_count - STI_RELOADS : 0; i < api->reload_count;
         i++) {
        const sti_reload_t *x = &api->reloads[i % STI_RELOADS];
        double ago = now - api->started - x->at;
        if (ago <= STI_HISTORY_SECONDS) {
            char text[48];
            snprintf(text, sizeof text, "reload %u: %s", (unsigned)x->number, x->outcome);
            sti_buf_fmt(b, "%s{\"ago\":%.4f,\"kind\":\"reload\",\"text\":", any ? "," : "", ago);
            sti_buf_str(b, text, SIZE_MAX);
            sti_buf_put(b, "}", 1);
            any = true;
        }
    }
    sti_buf_put(b, "]", 1);
    static const char *const columns[] = {"step", "ago", "step_ms", "entities", "tables", "bytes", "system_ms"};
    for (int col = 0; col < 7; col++) {
        sti_buf_fmt(b, ",\"%s\":[", columns[col]);
        for (uint32_t i = first; i < h->count; i++) {
            uint32_t at = (h->head + i) % h->cap;
            const char *sep = i > first ? "," : "";
            switch (col) {
            case 0: sti_buf_fmt(b, "%s%llu", sep, (unsigned long long)h->step[at]); break;
            case 1: sti_buf_fmt(b, "%s%.4f", sep, now - h->t[at]); break;
            case 2: sti_buf_fmt(b, "%s%.4f", sep, (double)h->step_ms[at]); break;
            case 3: sti_buf_fmt(b, "%s%u", sep, (unsigned)h->entities[at]); break;
            case 4: sti_buf_fmt(b, "%s%u", sep, (unsigned)h->tables[at]); break;
            case 5: sti_buf_fmt(b, "%s%llu", sep, (unsigned long long)h->bytes[at]); break;
            default:
                sti_buf_text(b, sep);
                sti_buf_put(b, "[", 1);
                for (uint32_t k = 0; k < systems; k++) {
                    sti_buf_fmt(b, "%s%.4f", k ? "," : "", (double)h->system_ms[(size_t)at * systems + k]);
                }
                sti_buf_put(b, "]", 1);
                break;
            }
        }
        sti_buf_put(b, "]", 1);
    }
    sti_buf_text(b, "}");
}

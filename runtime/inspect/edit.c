/* edit.c: the inspector's structural edits (edit.h): create and destroy an
 * entity, spawn an assemblage, add and remove a component, set and remove a
 * link. Each goes through the runtime's own entry points, so hooks run and
 * relations' policies and cycle checks apply (the API answers between
 * steps, where nothing is deferred); each refusal is a 4xx that changes
 * nothing. Reached only with writes on and the run's secret (inspect.c). */
#include "edit.h"

#include "strata_internal.h"

#include <string.h>

/* Answer a runtime result: {"ok":true} (with the entity when `e` is given), or its 4xx/5xx. */
static void edit_answer(sti_request_t *r, strata_result_t result, strata_entity_t e) {
    switch (result) {
    case STRATA_OK:
        sti_buf_text(&r->out, "{\"ok\":true");
        if (e != STRATA_ENTITY_NULL) {
            sti_buf_text(&r->out, ",\"id\":");
            sti_buf_entity(&r->out, e);
        }
        sti_buf_text(&r->out, "}");
        break;
    case STRATA_ERR_STALE: sti_api_error(r, 404, "no such entity (stale, never made, forged or null)"); break;
    case STRATA_ERR_MISSING: sti_api_error(r, 404, "the entity has no such component or link"); break;
    case STRATA_ERR_CYCLE:
        sti_api_error(r, 409, "the link would close a cycle (a link to itself, or to one of its sources)");
        break;
    case STRATA_ERR_LIMIT: sti_api_error(r, 409, "a limit of the world is reached"); break;
    default: sti_api_error(r, 500, strata_result_str(result)); break;
    }
}

/* True if every member of the body is one of `keys` (NULL-terminated); else answered 400. */
static bool edit_only(sti_request_t *r, const sti_member_t *m, int n, const char *const *keys) {
    for (int i = 0; i < n; i++) {
        bool known = false;
        for (const char *const *k = keys; *k != NULL; k++) {
            known = known || strcmp(m[i].key, *k) == 0;
        }
        if (!known) {
            sti_api_error(r, 400, "the body has a member this request does not take");
            return false;
        }
    }
    return true;
}

/* POST /api/create {} or {"assemblage": "Name"}: a new entity, empty or from the assemblage. */
void sti_edit_create(sti_api_t *api, sti_request_t *r) {
    sti_member_t m[STI_MAX_MEMBERS];
    static const char *const keys[] = {"assemblage", NULL};
    int n = sti_api_body(r, m);
    if (n < 0 || !edit_only(r, m, n, keys)) {
        return;
    }
    const sti_member_t *which = sti_json_member(m, n, "assemblage");
    strata_entity_t e = STRATA_ENTITY_NULL;
    if (which == NULL) {
        strata_result_t result = strata_entity_create(api->world, &e);
        edit_answer(r, result, e);
        return;
    }
    if (which->type != STI_JSON_STRING) {
        sti_api_error(r, 400, "assemblage: a name");
        return;
    }
    for (uint32_t i = 0; api->desc.spawn != NULL && i < api->desc.assemblage_count; i++) {
        if (strcmp(api->desc.assemblages[i], which->text) == 0) {
            strata_result_t result = api->desc.spawn(api->world, i, &e);
            edit_answer(r, result, e);
            return;
        }
    }
    sti_api_error(r, 404, "no such assemblage");
}

/* POST /api/destroy/4v1 {}: destroy it (its relations' policies apply to its sources). */
void sti_edit_destroy(sti_api_t *api, sti_request_t *r, const char *id) {
    static const char *const keys[] = {NULL};
    sti_member_t m[STI_MAX_MEMBERS];
    int n = sti_api_body(r, m);
    strata_entity_t e = n < 0 || !edit_only(r, m, n, keys) ? STRATA_ENTITY_NULL : sti_api_entity(api, r, id);
    if (e != STRATA_ENTITY_NULL) {
        edit_answer(r, strata_entity_destroy(api->world, e), STRATA_ENTITY_NULL);
    }
}

/* The entity, the body's component and, for a relation's component, the
 * relation (UINT32_MAX for none) and the body's live "target" (NULL when
 * absent). False: answered 4xx. */
static bool edit_read(sti_api_t *api, sti_request_t *r, const char *id, strata_entity_t *e, uint32_t *c,
                      uint32_t *relation, strata_entity_t *target) {
    static const char *const keys[] = {"component", "target", NULL};
    sti_member_t m[STI_MAX_MEMBERS];
    int n = sti_api_body(r, m);
    *e = n < 0 || !edit_only(r, m, n, keys) ? STRATA_ENTITY_NULL : sti_api_entity(api, r, id);
    const char *component = *e != STRATA_ENTITY_NULL ? sti_api_text(r, m, n, "component") : NULL;
    if (component == NULL) {
        return false;
    }
    const strata_world_t *w = api->world;
    *c = sti_api_component(w, component);
    if (*c == UINT32_MAX) {
        sti_api_error(r, 404, "no such component");
        return false;
    }
    *relation = sti_api_link_relation(w, *c);
    *relation = *relation != UINT32_MAX ? *relation : sti_api_tag_relation(w, *c);
    *target = STRATA_ENTITY_NULL;
    const sti_member_t *t = sti_json_member(m, n, "target");
    if (t != NULL && *relation == UINT32_MAX) {
        sti_api_error(r, 400, "target: only a relation's component takes one");
        return false;
    }
    if (t != NULL && (t->type != STI_JSON_STRING || !sti_entity_parse(t->text, target))) {
        sti_api_error(r, 400, "target: an entity is spelled 4v1 (its index, v, its generation)");
        return false;
    }
    if (*target != STRATA_ENTITY_NULL && !strata_entity_alive(w, *target)) {
        sti_api_error(r, 404, "no such entity to link to (stale, never made or forged)");
        return false;
    }
    return true;
}

/* POST /api/add/4v1 {"component": "C"} adds C at its defaults (hooks run);
 * a relation's component takes {"component": "ChildOf", "target": "3v1"}:
 * an exclusive relation's link is set (replacing one, refused 409 if it
 * would close a cycle), a non-exclusive one's added. A component the
 * entity has already is 409: add does not overwrite (the fields are set
 * one by one). */
void sti_edit_add(sti_api_t *api, sti_request_t *r, const char *id) {
    strata_entity_t e, target;
    uint32_t c, relation;
    if (!edit_read(api, r, id, &e, &c, &relation, &target)) {
        return;
    }
    strata_world_t *w = api->world;
    if (relation != UINT32_MAX) {
        if (target == STRATA_ENTITY_NULL) {
            sti_api_error(r, 400, "target: a link needs one");
        } else if (w->schema->relations[relation].exclusive) {
            edit_answer(r, strata_relation_set(w, relation, e, target, strata_get(w, e, c)), STRATA_ENTITY_NULL);
        } else {
            edit_answer(r, strata_relation_add(w, relation, e, target), STRATA_ENTITY_NULL);
        }
        return;
    }
    if (strata_has(w, e, c)) {
        sti_api_error(r, 409, "the entity has that component already");
        return;
    }
    edit_answer(r, strata_add(w, e, c, NULL), STRATA_ENTITY_NULL);
}

/* POST /api/remove/4v1 {"component": "C"} removes C (hooks run); for a
 * relation's component, its link (a non-exclusive relation: the link to
 * "target", or every link when none is given). */
void sti_edit_remove(sti_api_t *api, sti_request_t *r, const char *id) {
    strata_entity_t e, target;
    uint32_t c, relation;
    if (!edit_read(api, r, id, &e, &c, &relation, &target)) {
        return;
    }
    strata_world_t *w = api->world;
    if (!strata_has(w, e, c)) {
        sti_api_error(r, 404, "the entity has no such component");
    } else if (relation == UINT32_MAX) {
        edit_answer(r, strata_remove(w, e, c), STRATA_ENTITY_NULL);
    } else if (w->schema->relations[relation].exclusive || target != STRATA_ENTITY_NULL) {
        edit_answer(r, strata_relation_remove(w, relation, e, target), STRATA_ENTITY_NULL);
    } else {
        uint32_t n = 0;
        strata_result_t result = STRATA_OK;
        while (result == STRATA_OK && strata_relation_targets(w, relation, e, &n) != NULL && n > 0) {
            result = strata_relation_remove(w, relation, e, strata_relation_targets(w, relation, e, &n)[n - 1]);
        }
        edit_answer(r, result, STRATA_ENTITY_NULL);
    }
}

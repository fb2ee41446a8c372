/* edit.h: the inspector's structural edits (private), each a POST that
 * the server lets through only with writes on and the run's secret. */
#ifndef STI_INSPECT_EDIT_H
#define STI_INSPECT_EDIT_H

#include "api_base.h"

/* POST /api/create {} or {"assemblage": "Name"}: a new entity. */
void sti_edit_create(sti_api_t *api, sti_request_t *r);
/* POST /api/destroy/4v1 {}: destroy it. */
void sti_edit_destroy(sti_api_t *api, sti_request_t *r, const char *id);
/* POST /api/add/4v1 {"component": C[, "target": "3v1"]}: add a component or a link. */
void sti_edit_add(sti_api_t *api, sti_request_t *r, const char *id);
/* POST /api/remove/4v1 {"component": C[, "target": "3v1"]}: remove a component or a link. */
void sti_edit_remove(sti_api_t *api, sti_request_t *r, const char *id);

#endif /* STI_INSPECT_EDIT_H */

/* view.h: the inspector's reads beyond one entity (private): the hierarchy
 * of an exclusive relation, an entity's links, ad-hoc queries, and the
 * events and history recorded while a client is attached. */
#ifndef STI_INSPECT_VIEW_H
#define STI_INSPECT_VIEW_H

#include "api_base.h"

/* GET /api/tree?relation=R[&parent=4v1][&offset=&limit=]: a level of R's tree. */
void sti_view_tree(sti_api_t *api, sti_request_t *r);
/* GET /api/links/4v1: the entity's targets and sources in every relation. */
void sti_view_links(sti_api_t *api, sti_request_t *r, const char *id);
/* GET /api/query?with=&without=&optional=&relation=&target=&offset=&limit=: matching entities with values. */
void sti_view_query(sti_api_t *api, sti_request_t *r);
/* GET /api/events: each event type's count last step and its last values. */
void sti_view_events(sti_api_t *api, sti_request_t *r);
/* GET /api/history[?since=STEP]: the samples of the last seconds (now: the inspector's clock). */
void sti_view_history(sti_api_t *api, sti_request_t *r, double now);

#endif /* STI_INSPECT_VIEW_H */

/* api.h: the inspector's JSON API (private): one request answered against
 * the world, on the game's thread, at its safe point. */
#ifndef STI_INSPECT_API_H
#define STI_INSPECT_API_H

#include "api_base.h"

/* Answer r (status, type, body). Never fails: NOMEM answers 500. */
void sti_api_answer(sti_api_t *api, sti_request_t *r);

#endif /* STI_INSPECT_API_H */

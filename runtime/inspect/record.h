/* record.h: what the inspector records while a client is attached
 * (private): the events of each step and a history sample a step. */
#ifndef STI_INSPECT_RECORD_H
#define STI_INSPECT_RECORD_H

#include "api_base.h"

/* After a step taken while a client is attached: record its events and a
 * history sample (now: the inspector's clock). Out of memory drops it. */
void sti_record_step(sti_api_t *api, double now);
/* Drop everything recorded (the client went, or the inspector stops). */
void sti_record_free(sti_api_t *api);

#endif /* STI_INSPECT_RECORD_H */

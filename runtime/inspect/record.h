/* record.h: what the inspector records while a client is attached
 * (private): the events of each step and a history sample a step. */
#ifndef STI_INSPECT_RECORD_H
#define STI_INSPECT_RECORD_H

#include "api_base.h"

/* After a step taken while a client is attached: record its events, a
 * history sample and the state machines' changes (now: the inspector's
 * clock). Out of memory drops it. */
void sti_record_step(sti_api_t *api, double now);
/* The step observer's part (while a client is attached): system `system`
 * begins, or has ended: the events appended between are its. */
void sti_record_system_begin(sti_api_t *api);
void sti_record_system_end(sti_api_t *api, uint32_t system);

/* Drop everything recorded (the client went, the inspector stops, or it
 * serves another world): touches nothing of the world. */
void sti_record_free(sti_api_t *api);

#endif /* STI_INSPECT_RECORD_H */

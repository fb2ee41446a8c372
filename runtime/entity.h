/* entity.h: creating and destroying entities (the public entry points are
 * in strata.h); what the save layer shares. */
#ifndef STI_ENTITY_H
#define STI_ENTITY_H

#include "pool.h"

/* Make room for `fresh` new indices: the records and, first, the dirty sets
 * (which hold an entry per index). STRATA_ERR_NOMEM leaves the world as it was. */
strata_result_t sti_records_reserve(strata_world_t *w, uint32_t fresh);

#endif /* STI_ENTITY_H */

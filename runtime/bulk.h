/* bulk.h: one component added to or removed from many entities in one call
 * (the public entry points are in strata.h: strata_bulk_add, _remove,
 * strata_query_add, _remove); what the world shares. */
#ifndef STI_BULK_H
#define STI_BULK_H

#include "pool.h"

/* Free the list a query's bulk change gathers its entities into. */
void sti_bulk_free(strata_world_t *w);

#endif /* STI_BULK_H */

/* strata_internal.h: every private header of the runtime core, for the
 * save layer above it. A core module includes the headers it needs
 * instead (runtime/LAYERS gives the order, runtime/README.md the map). */
#ifndef STRATA_INTERNAL_H
#define STRATA_INTERNAL_H

#include "relation.h"
#include "world.h"

#endif /* STRATA_INTERNAL_H */

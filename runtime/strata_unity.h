/* strata_unity.h: the runtime core (libstrata) as one translation unit, for
 * tests that reach private functions or define STRATA_ASSERT (e.g. as
 * cmocka's mock_assert) before including it. Such a test is compiled
 * alone, without linking the runtime's objects. The modules come in
 * layer order (runtime/LAYERS). */
#ifndef STRATA_UNITY_H
#define STRATA_UNITY_H

#include "mem.c"
#include "entity_index.c"
#include "table.c"
#include "query.c"
#include "archetype.c"
#include "dirty.c"
#include "observe.c"
#include "move.c"
#include "command.c"
#include "entity.c"
#include "component.c"
#include "iter.c"
#include "world.c"

#endif /* STRATA_UNITY_H */

/* strata_unity.h: the runtime (libstrata: the core and the saves) as one translation unit, for
 * tests that reach private functions or define STRATA_ASSERT (e.g. as
 * cmocka's mock_assert) before including it. Such a test is compiled
 * alone, without linking the runtime's objects. The modules come in
 * layer order (runtime/LAYERS). */
#ifndef STRATA_UNITY_H
#define STRATA_UNITY_H

/* save/file.c needs POSIX's fsync and fileno; in one unit the request must
 * come before any header. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "assert.c"
#include "mem.c"
#include "event.c"
#include "entity_index.c"
#include "table.c"
#include "sparse.c"
#include "query.c"
#include "archetype.c"
#include "dirty.c"
#include "observe.c"
#include "capacity.c"
#include "move.c"
#include "command.c"
#include "pool.c"
#include "entity.c"
#include "component.c"
#include "iter.c"
#include "cascade.c"
#include "bulk.c"
#include "link.c"
#include "relation.c"
#include "step.c"
#include "world.c"
#include "snapshot.c"
#include "save/writer.c"
#include "save/file.c"
#include "save/format.c"
#include "save/number.c"
#include "save/names.c"
#include "save/value.c"
#include "save/loader.c"
#include "save/evolve.c"
#include "save/binary_write.c"
#include "save/binary_read.c"
#include "save/migrate.c"
#include "save/json_write.c"

#endif /* STRATA_UNITY_H */

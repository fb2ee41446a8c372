/* strata_unity.h: the whole runtime as one translation unit, for tests that
 * reach private functions or define STRATA_ASSERT (e.g. as cmocka's
 * mock_assert) before including it. Such a test is compiled alone, without
 * linking the runtime's objects. */
#ifndef STRATA_UNITY_H
#define STRATA_UNITY_H

#include "command.c"
#include "component.c"
#include "entity.c"
#include "query.c"
#include "table.c"
#include "world.c"

#endif /* STRATA_UNITY_H */

/* The Eat system: each caught fly is destroyed and counted once. */
#include "pond.h"

void pond_eat_run(pond_eat_ctx *ctx) {
    ctx->score->catches += ctx->caught_count;
    for (uint32_t i = 0; i < ctx->caught_count; i++) {
        /* Two frogs may catch one fly in the same step: the first destroy
         * counts, the second finds the fly already destroyed (STRATA_ERR_STALE). */
        if (pond_entity_destroy(ctx->world, ctx->caught_events[i].fly) == STRATA_OK) {
            ctx->score->eaten++;
        }
    }
}

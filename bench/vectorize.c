/* vectorize.c: the loops whose vectorization `ninja bench-vec` reports.
 * Compiled only (never linked) by bench/vectorize.sh at -O2, at -O2
 * -fvect-cost-model=dynamic and at -O3, with -fopt-info-vec; each loop is
 * marked `loop: NAME` so the script can name gcc's verdict on it. */
#include "move.h"

/* A system written as the README shows it: the loop indexes the context's
 * column pointers. Position and Velocity are different types whose float
 * fields may alias, and p.x is stored before v.y is loaded, so even one
 * entity a vector needs a run-time alias check: gcc's -O2 cost model
 * ("very cheap") allows none. */
void move_move_run(move_move_ctx *ctx) {
    while (move_move_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) { /* loop: system, README style */
            ctx->position[i].x += ctx->velocity[i].x;
            ctx->position[i].y += ctx->velocity[i].y;
        }
    }
}

/* The same, reading the velocity as one value before writing: no store
 * comes before a load of the same entity, so one entity a vector needs no
 * check. */
void value_first(move_move_ctx *ctx) {
    while (move_move_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) { /* loop: system, velocity read first */
            move_velocity v = ctx->velocity[i];
            ctx->position[i].x += v.x;
            ctx->position[i].y += v.y;
        }
    }
}

/* The bench's form (the guide's loop form): the columns go to a small function as
 * restrict pointers with an int count. */
static __attribute__((noinline)) void kernel_rows(move_position *restrict p, const move_velocity *restrict v, int n) {
    for (int i = 0; i < n; i++) { /* loop: system, restrict kernel (the bench) */
        p[i].x += v[i].x;
        p[i].y += v[i].y;
    }
}

void kernel_system(move_move_ctx *ctx) {
    while (move_move_next(ctx)) {
        kernel_rows(ctx->position, ctx->velocity, (int)ctx->count);
    }
}

/* The plain-C baseline's loop without restrict: one struct type for both
 * arrays, so p[i].x and v[i].y cannot be the same float. */
typedef struct vec2 {
    float x, y;
} vec2;

void plain_loop(vec2 *p, const vec2 *v, int n) {
    for (int i = 0; i < n; i++) { /* loop: plain C arrays, no restrict */
        p[i].x += v[i].x;
        p[i].y += v[i].y;
    }
}

/* flock.h: what the swarm's systems (systems.c) and its program (main.c)
 * share: the size of the world, and the two buffers that live beside it.
 *
 * The grid and the picture are scratch space, rebuilt from the entities
 * every time they are used — per-cell sums of a million boids and a float
 * per pixel — not state of the simulation. A world holds entities and small
 * singletons, so these sit next to it, in this program. */
#ifndef SWARM_FLOCK_H
#define SWARM_FLOCK_H

#include <math.h>
#include <stdint.h>

#include "swarm.h"

/* The world is WORLD x WORLD units and wraps; GRID x GRID cells bin it. */
#define FLOCK_WORLD 1024.0f
enum { FLOCK_GRID = 128, FLOCK_CELLS = FLOCK_GRID * FLOCK_GRID };

/* Per cell, rebuilt by Bin each step: how many boids, and the sums of their
 * velocities and of their positions relative to the cell's corner. */
typedef struct flock_grid {
    uint32_t count[FLOCK_CELLS];
    float vx[FLOCK_CELLS], vy[FLOCK_CELLS];
    float x[FLOCK_CELLS], y[FLOCK_CELLS];
} flock_grid;

extern flock_grid flock_cells;

/* The picture Splat accumulates: FLOCK_IMAGE x FLOCK_IMAGE pixels, the
 * summed tint of the boids over each, red, green, blue. */
enum { FLOCK_IMAGE = 512 };
extern float flock_light[FLOCK_IMAGE * FLOCK_IMAGE][3];

/* The flock's scattering: a xorshift32 step, and from it a float in
 * [lo, hi) (main.c and the thread tests scatter the same flock). */
static inline float flock_uniform(uint32_t *s, float lo, float hi) {
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return lo + (hi - lo) * (float)(x >> 8) / 16777216.0f;
}

/* Scatter the boids (the Boids query) over the world, each flying in a
 * random direction at 20 to 50 units a second, from a fixed seed: main.c,
 * the live swarm and the thread tests make the same flock. */
static inline void flock_scatter(swarm_world *w) {
    uint32_t seed = 0x2545F491u;
    for (swarm_boids_iter it = swarm_boids_begin(w); swarm_boids_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++) {
            float angle = flock_uniform(&seed, 0.0f, 6.2831853f), speed = flock_uniform(&seed, 20.0f, 50.0f);
            it.position[i] = (swarm_position){flock_uniform(&seed, 0.0f, FLOCK_WORLD),
                                              flock_uniform(&seed, 0.0f, FLOCK_WORLD)};
            it.velocity[i] = (swarm_velocity){speed * cosf(angle), speed * sinf(angle)};
        }
    }
}

#endif

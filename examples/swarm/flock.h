/* flock.h: what the swarm's systems (systems.c) and its program (main.c)
 * share: the size of the world, and the two buffers that live beside it.
 *
 * The grid and the picture are scratch space, rebuilt from the entities
 * every time they are used — per-cell sums of a million boids and a float
 * per pixel — not state of the simulation. A world holds entities and small
 * singletons, so these sit next to it, in this program. */
#ifndef SWARM_FLOCK_H
#define SWARM_FLOCK_H

#include <stdint.h>

#include "swarm.h"

/* The world is WORLD x WORLD units and wraps; GRID x GRID cells bin it. */
#define SWARM_WORLD 1024.0f
enum { SWARM_GRID = 128, SWARM_CELLS = SWARM_GRID * SWARM_GRID };

/* Per cell, rebuilt by Bin each step: how many boids, and the sums of their
 * velocities and of their positions relative to the cell's corner. */
typedef struct swarm_grid {
    uint32_t count[SWARM_CELLS];
    float vx[SWARM_CELLS], vy[SWARM_CELLS];
    float x[SWARM_CELLS], y[SWARM_CELLS];
} swarm_grid;

extern swarm_grid swarm_cells;

/* The picture Splat accumulates: SWARM_IMAGE x SWARM_IMAGE pixels, the
 * summed tint of the boids over each, red, green, blue. */
enum { SWARM_IMAGE = 512 };
extern float swarm_light[SWARM_IMAGE * SWARM_IMAGE][3];

#endif

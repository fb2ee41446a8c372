/* systems.c: the swarm's systems. Each run walks its tables with the typed
 * iterator and hands each table's columns, as restrict pointers and a
 * count, to a small loop the compiler can keep in registers (or vectorize):
 * no function pointer and no branch on the component set per entity. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "flock.h"

flock_grid flock_cells;
float flock_light[FLOCK_IMAGE * FLOCK_IMAGE][3];

static const float to_cell = (float)FLOCK_GRID / FLOCK_WORLD;

static inline uint32_t cell_of(float x) {
    int c = (int)(x * to_cell);
    return (uint32_t)(c < 0 ? 0 : c >= FLOCK_GRID ? FLOCK_GRID - 1 : c);
}

/* --- sense: Bin, Steer ----------------------------------------------------- */

static void bin_rows(uint32_t n, const swarm_position *restrict p, const swarm_velocity *restrict v) {
    flock_grid *g = &flock_cells;
    const float cell_size = FLOCK_WORLD / (float)FLOCK_GRID;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t cx = cell_of(p[i].x), cy = cell_of(p[i].y), c = cy * FLOCK_GRID + cx;
        g->count[c]++;
        g->vx[c] += v[i].x;
        g->vy[c] += v[i].y;
        g->x[c] += p[i].x - (float)cx * cell_size;
        g->y[c] += p[i].y - (float)cy * cell_size;
    }
}

static void build_field(const swarm_flock *f);

/* The grid, then the field Steer reads: once a step, before Steer's chunks
 * run side by side and only read it. */
void swarm_bin_run(swarm_bin_ctx *ctx) {
    memset(&flock_cells, 0, sizeof flock_cells);
    while (swarm_bin_next(ctx)) {
        bin_rows(ctx->count, ctx->position, ctx->velocity);
    }
    build_field(ctx->flock);
}

/* What every boid of a table steers by this step. */
typedef struct steer_params {
    float dt, align, cohere, attract, swirl, lo, hi;
    float ax[3], ay[3]; /* the attractors */
} steer_params;

/* The part of each boid's acceleration that depends only on its cell,
 * worked out once a cell rather than once a boid: alignment towards the
 * cell's mean velocity, cohesion towards its centre of mass, separation
 * away from the more crowded neighbour on each axis. A boid then adds the
 * terms that depend on itself. */
static float field_x[FLOCK_CELLS], field_y[FLOCK_CELLS];

static void build_field(const swarm_flock *f) {
    const flock_grid *g = &flock_cells;
    const float cell_size = FLOCK_WORLD / (float)FLOCK_GRID;
    const uint32_t mask = FLOCK_GRID - 1;
    for (uint32_t cy = 0; cy < FLOCK_GRID; cy++) {
        for (uint32_t cx = 0; cx < FLOCK_GRID; cx++) {
            uint32_t c = cy * FLOCK_GRID + cx;
            float inv = g->count[c] ? 1.0f / (float)g->count[c] : 0.0f;
            float left = (float)g->count[cy * FLOCK_GRID + ((cx - 1) & mask)];
            float right = (float)g->count[cy * FLOCK_GRID + ((cx + 1) & mask)];
            float up = (float)g->count[((cy - 1) & mask) * FLOCK_GRID + cx];
            float down = (float)g->count[((cy + 1) & mask) * FLOCK_GRID + cx];
            float crowd = f->separate / (left + right + up + down + 1.0f);
            field_x[c] = f->align * g->vx[c] * inv + f->cohere * ((float)cx * cell_size + g->x[c] * inv) +
                         (left - right) * crowd;
            field_y[c] = f->align * g->vy[c] * inv + f->cohere * ((float)cy * cell_size + g->y[c] * inv) +
                         (up - down) * crowd;
        }
    }
}

static void steer_rows(uint32_t n, const swarm_position *restrict p, swarm_velocity *restrict v,
                       const steer_params *restrict k) {
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = cell_of(p[i].y) * FLOCK_GRID + cell_of(p[i].x);
        float fx = field_x[c] - k->align * v[i].x - k->cohere * p[i].x;
        float fy = field_y[c] - k->align * v[i].y - k->cohere * p[i].y;
        /* Pulled towards the nearest attractor, and around it (selects, not branches). */
        float dx = k->ax[0] - p[i].x, dy = k->ay[0] - p[i].y, best = dx * dx + dy * dy;
        for (int a = 1; a < 3; a++) {
            float ex = k->ax[a] - p[i].x, ey = k->ay[a] - p[i].y, d2 = ex * ex + ey * ey;
            bool nearer = d2 < best;
            dx = nearer ? ex : dx;
            dy = nearer ? ey : dy;
            best = nearer ? d2 : best;
        }
        float inv_d = 1.0f / (sqrtf(best) + 1.0f);
        fx += (k->attract * dx - k->swirl * dy) * inv_d;
        fy += (k->attract * dy + k->swirl * dx) * inv_d;
        /* Accelerate, then keep the speed within the limits. */
        float nx = v[i].x + fx * k->dt, ny = v[i].y + fy * k->dt;
        float speed = sqrtf(nx * nx + ny * ny) + 1e-6f;
        float clamped = speed < k->lo ? k->lo : speed > k->hi ? k->hi : speed;
        float scale = clamped / speed;
        v[i].x = nx * scale;
        v[i].y = ny * scale;
    }
}

void swarm_steer_run(swarm_steer_ctx *ctx) {
    const swarm_flock *f = ctx->flock;
    float t = ctx->clock->time;
    steer_params k = {ctx->dt, f->align, f->cohere, f->attract, f->swirl, 0, 0, {0}, {0}};
    /* Three attractors on slow circles round the middle. */
    for (int a = 0; a < 3; a++) {
        float angle = 0.21f * (float)(a + 1) * t + 2.0944f * (float)a;
        float radius = 200.0f + 90.0f * (float)a;
        k.ax[a] = FLOCK_WORLD / 2 + radius * cosf(angle);
        k.ay[a] = FLOCK_WORLD / 2 + radius * sinf(angle);
    }
    while (swarm_steer_next(ctx)) {
        float scale = ctx->fast ? f->fast_factor : 1.0f;
        k.lo = f->min_speed * scale;
        k.hi = f->max_speed * scale;
        steer_rows(ctx->count, ctx->position, ctx->velocity, &k);
    }
}

/* --- move: Integrate, Wrap ----------------------------------------------------- */

static void integrate_rows(uint32_t n, swarm_position *restrict p, const swarm_velocity *restrict v, float dt) {
    for (uint32_t i = 0; i < n; i++) {
        p[i].x += v[i].x * dt;
        p[i].y += v[i].y * dt;
    }
}

void swarm_integrate_run(swarm_integrate_ctx *ctx) {
    while (swarm_integrate_next(ctx)) {
        integrate_rows(ctx->count, ctx->position, ctx->velocity, ctx->dt);
    }
}

static void wrap_rows(uint32_t n, swarm_position *restrict p) {
    for (uint32_t i = 0; i < n; i++) {
        p[i].x += p[i].x < 0.0f ? FLOCK_WORLD : p[i].x >= FLOCK_WORLD ? -FLOCK_WORLD : 0.0f;
        p[i].y += p[i].y < 0.0f ? FLOCK_WORLD : p[i].y >= FLOCK_WORLD ? -FLOCK_WORLD : 0.0f;
    }
}

void swarm_wrap_run(swarm_wrap_ctx *ctx) {
    while (swarm_wrap_next(ctx)) {
        wrap_rows(ctx->count, ctx->position);
    }
}

/* --- look: Colour, Tick, Splat ----------------------------------------------- */

/* A colour wheel by heading, brighter with speed. */
static void colour_rows(uint32_t n, const swarm_velocity *restrict v, swarm_tint *restrict t, float top) {
    for (uint32_t i = 0; i < n; i++) {
        float speed = sqrtf(v[i].x * v[i].x + v[i].y * v[i].y) + 1e-6f;
        float hx = v[i].x / speed, hy = v[i].y / speed;
        float bright = 0.45f + 0.55f * fminf(speed / top, 1.0f);
        t[i].r = (uint8_t)(255.0f * bright * (0.5f + 0.5f * hx));
        t[i].g = (uint8_t)(255.0f * bright * (0.5f - 0.25f * hx + 0.433f * hy));
        t[i].b = (uint8_t)(255.0f * bright * (0.5f - 0.25f * hx - 0.433f * hy));
    }
}

void swarm_colour_run(swarm_colour_ctx *ctx) {
    while (swarm_colour_next(ctx)) {
        colour_rows(ctx->count, ctx->velocity, ctx->tint, 70.0f);
    }
}

void swarm_tick_run(swarm_tick_ctx *ctx) {
    ctx->clock->time += ctx->dt;
    ctx->clock->steps++;
}

static void splat_rows(uint32_t n, const swarm_position *restrict p, const swarm_tint *restrict t) {
    const float to_pixel = (float)FLOCK_IMAGE / FLOCK_WORLD;
    for (uint32_t i = 0; i < n; i++) {
        int x = (int)(p[i].x * to_pixel), y = (int)(p[i].y * to_pixel);
        if (x >= 0 && x < FLOCK_IMAGE && y >= 0 && y < FLOCK_IMAGE) {
            float *px = flock_light[y * FLOCK_IMAGE + x];
            px[0] += t[i].r;
            px[1] += t[i].g;
            px[2] += t[i].b;
        }
    }
}

void swarm_splat_run(swarm_splat_ctx *ctx) {
    memset(flock_light, 0, sizeof flock_light);
    while (swarm_splat_next(ctx)) {
        splat_rows(ctx->count, ctx->position, ctx->tint);
    }
}

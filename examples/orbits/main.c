/* orbits: a solar system on a hierarchy. Suns, planets, moons and moons of
 * moons are linked with ChildOf; Spin turns each body on its orbit around
 * its parent and Place, a cascade system, adds each parent's world position
 * to its children's local ones, parents first, in one pass. Halfway through,
 * a planet is destroyed and its moons go with it (ChildOf's policy). The
 * last frame goes to docs/relations.png (or --out FILE.png).
 *
 *     orbits [--steps N] [--out FILE.png] */
#include "canvas.h"
#include "orbits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { IMAGE = 640 };

void orbits_spin_run(orbits_spin_ctx *ctx) {
    while (orbits_spin_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            orbits_orbit *o = &ctx->orbit[i];
            o->angle += o->speed * ctx->dt;
            ctx->local[i].x = o->radius * cosf(o->angle);
            ctx->local[i].y = o->radius * sinf(o->angle);
        }
    }
}

void orbits_place_run(orbits_place_ctx *ctx) {
    while (orbits_place_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            orbits_global g = {ctx->local[i].x, ctx->local[i].y};
            if (ctx->up.row != NULL) { /* the parent was placed earlier in this pass: its row of up's columns */
                const orbits_global *up = &ctx->up.global[ctx->up.row[i]];
                g.x += up->x;
                g.y += up->y;
            }
            ctx->global[i] = g;
        }
    }
}

/* A body on an orbit of `radius` around `parent` (none: fixed at x, y). */
static orbits_entity body(orbits_world *w, orbits_entity parent, float radius, float speed, float angle, float size,
                          canvas_color c) {
    orbits_entity e = orbits_entity_create_bundle(w, &(orbits_bundle){.orbit = &(orbits_orbit){radius, speed, angle},
                                                                      .local = &(orbits_local){0},
                                                                      .global = &(orbits_global){0},
                                                                      .body = &(orbits_body){size, c.r, c.g, c.b}});
    if (!orbits_entity_eq(parent, ORBITS_ENTITY_NULL) && orbits_child_of_set(w, e, parent) != STRATA_OK) {
        fprintf(stderr, "orbits: link failed\n");
        exit(1);
    }
    return e;
}

/* A small deterministic generator, so every run draws the same sky. */
static uint32_t seed = 12345;
static float rnd(void) {
    seed = seed * 1664525u + 1013904223u;
    return (float)(seed >> 8) / 16777216.0f;
}

/* Draw every body at its world position: a square of its size, or (trail)
 * a faint dot of its colour. */
static void draw(orbits_world *w, canvas *c, bool trail) {
    orbits_place_ctx ctx = orbits_place_begin(w, 0.0f);
    while (orbits_place_next(&ctx)) {
        for (uint32_t i = 0; i < ctx.count; i++) {
            const orbits_body *b = orbits_body_get(w, ctx.entities[i]);
            int x = IMAGE / 2 + (int)ctx.global[i].x, y = IMAGE / 2 + (int)ctx.global[i].y;
            int s = trail ? 0 : (int)b->size;
            canvas_fill(c, x - s, y - s, x + s + 1, y + s + 1, (canvas_color){b->r, b->g, b->b, trail ? 60 : 255});
        }
    }
}

int main(int argc, char **argv) {
    unsigned long steps = 240;
    const char *out = "docs/relations.png";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--steps") == 0) {
            steps = strtoul(argv[i + 1], NULL, 0);
        } else if (strcmp(argv[i], "--out") == 0) {
            out = argv[i + 1];
        }
    }
    orbits_world *w = orbits_world_create(NULL);
    canvas picture = {0};
    if (w == NULL || !canvas_init(&picture, IMAGE, IMAGE)) {
        fprintf(stderr, "orbits: out of memory\n");
        return 1;
    }
    orbits_entity sun = body(w, ORBITS_ENTITY_NULL, 0, 0, 0, 9, (canvas_color){255, 210, 80, 255});
    orbits_entity doomed = ORBITS_ENTITY_NULL;
    for (int p = 0; p < 7; p++) {
        float radius = 40.0f + 38.0f * (float)p;
        canvas_color col = {(uint8_t)(90 + 160 * rnd()), (uint8_t)(90 + 160 * rnd()), (uint8_t)(120 + 130 * rnd()),
                            255};
        orbits_entity planet = body(w, sun, radius, 0.9f / sqrtf(radius / 40.0f), 6.28f * rnd(), 4 + 2 * rnd(), col);
        if (p == 3) {
            doomed = planet;
        }
        int moons = 1 + (int)(4 * rnd());
        for (int m = 0; m < moons; m++) {
            orbits_entity moon = body(w, planet, 10.0f + 6.0f * (float)m, 2.5f + rnd(), 6.28f * rnd(), 2,
                                      (canvas_color){200, 200, 210, 255});
            if (rnd() < 0.5f) {
                (void)body(w, moon, 4, 5, 6.28f * rnd(), 1, (canvas_color){150, 160, 255, 255});
            }
        }
    }
    canvas_clear(&picture, (canvas_color){8, 10, 24, 255});
    orbits_world_stats_t before;
    orbits_world_stats(w, &before);
    for (unsigned long s = 0; s < steps; s++) {
        if (s == steps / 2) {
            /* The planet's moons (and theirs) die with it: ChildOf's policy. */
            (void)orbits_entity_destroy(w, doomed);
        }
        if (orbits_world_step(w, 1.0f / 30.0f) != STRATA_OK) {
            fprintf(stderr, "orbits: step failed\n");
            return 1;
        }
        if (s + 160 >= steps) {
            draw(w, &picture, true);
        }
    }
    orbits_world_stats_t after;
    orbits_world_stats(w, &after);
    draw(w, &picture, false);
    char caption[96];
    snprintf(caption, sizeof caption, "%u BODIES, %u AFTER A PLANET FELL; DEPTH 0-3, ONE CASCADE PASS",
             (unsigned)before.entities, (unsigned)after.entities);
    canvas_text(&picture, 8, IMAGE - 14, 1, (canvas_color){230, 230, 240, 255}, caption);
    int status = canvas_write_png(&picture, out, 1) ? 0 : 1;
    if (status == 0) {
        printf("%s\nwrote %s\n", caption, out);
    }
    canvas_free(&picture);
    orbits_world_destroy(w);
    return status;
}

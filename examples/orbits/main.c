/* orbits: a solar system on a hierarchy. Suns, planets, moons and moons of
 * moons are linked with ChildOf; Spin turns each body on its orbit around
 * its parent and Place, a cascade system, adds each parent's world position
 * to its children's local ones, parents first, in one pass. Halfway through,
 * a planet is destroyed and its moons go with it (ChildOf's policy). The
 * last frame goes to docs/relations.png (or --out FILE.png). Built with
 * -DORBITS_INSPECT (orbits-inspect), `--inspect PORT` serves the live
 * inspector instead (PORT 0: any free one; the URL is printed) at 30 steps a
 * second until a signal or the parent's death: its hierarchy is four deep.
 *
 *     orbits [--steps N] [--out FILE.png] [--inspect PORT] */
#ifdef ORBITS_INSPECT
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "strata_inspect.h" /* before the world's header: it adds orbits_inspect_start */
#include "stop.h"
#endif
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

/* A body named `name` on an orbit of `radius` around `parent` (none: fixed at x, y). */
static orbits_entity body(orbits_world *w, const char *name, orbits_entity parent, float radius, float speed,
                          float angle, float size, canvas_color c) {
    orbits_name label = {0};
    snprintf(label.text, sizeof label.text, "%s", name);
    orbits_entity e = orbits_entity_create_bundle(w, &(orbits_bundle){.orbit = &(orbits_orbit){radius, speed, angle},
                                                                      .local = &(orbits_local){0},
                                                                      .global = &(orbits_global){0},
                                                                      .body = &(orbits_body){size, c.r, c.g, c.b},
                                                                      .name = &label});
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

#ifdef ORBITS_INSPECT
/* Serve the inspector on `port`, stepping 30 times a second, until SIGTERM,
 * SIGINT, SIGHUP or the parent's death; 0 when it stopped cleanly. */
static int inspect_run(orbits_world *w, long port) {
    example_stop_on_signals();
    strata_inspect_t *in = NULL;
    strata_inspect_desc_t desc = {.port = (uint16_t)port, .any_port = port == 0, .writes = true};
    if (orbits_inspect_start(w, &desc, &in) != STRATA_OK) {
        fprintf(stderr, "orbits: the inspector cannot listen on port %ld\n", port);
        return 1;
    }
    printf("orbits: inspector at http://127.0.0.1:%u/ (writes on, X-Strata-Token: %s)\n",
           (unsigned)strata_inspect_port(in), strata_inspect_token(in));
    fflush(stdout);
    strata_result_t r = STRATA_OK;
    while (r == STRATA_OK && !example_stop_asked()) {
        if (strata_inspect_poll(in)) {
            r = orbits_world_step(w, 1.0f / 30.0f);
        }
        nanosleep(&(struct timespec){0, 1000000000L / 30}, NULL);
    }
    strata_inspect_stop(in);
    return r == STRATA_OK ? 0 : 1;
}
#endif

int main(int argc, char **argv) {
    unsigned long steps = 240;
    const char *out = "docs/relations.png";
    long inspect_port = -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--steps") == 0) {
            steps = strtoul(argv[i + 1], NULL, 0);
        } else if (strcmp(argv[i], "--out") == 0) {
            out = argv[i + 1];
        } else if (strcmp(argv[i], "--inspect") == 0) {
            inspect_port = strtol(argv[i + 1], NULL, 0);
        }
    }
    orbits_world *w = orbits_world_create(NULL);
    canvas picture = {0};
    if (w == NULL || !canvas_init(&picture, IMAGE, IMAGE)) {
        fprintf(stderr, "orbits: out of memory\n");
        return 1;
    }
    orbits_entity sun = body(w, "Sun", ORBITS_ENTITY_NULL, 0, 0, 0, 9, (canvas_color){255, 210, 80, 255});
    orbits_entity doomed = ORBITS_ENTITY_NULL;
    for (int p = 0; p < 7; p++) {
        float radius = 40.0f + 38.0f * (float)p;
        canvas_color col = {(uint8_t)(90 + 160 * rnd()), (uint8_t)(90 + 160 * rnd()), (uint8_t)(120 + 130 * rnd()),
                            255};
        char name[40];
        snprintf(name, sizeof name, "planet %d", p + 1);
        orbits_entity planet = body(w, name, sun, radius, 0.9f / sqrtf(radius / 40.0f), 6.28f * rnd(), 4 + 2 * rnd(),
                                    col);
        if (p == 3) {
            doomed = planet;
        }
        int moons = 1 + (int)(4 * rnd());
        for (int m = 0; m < moons; m++) {
            snprintf(name, sizeof name, "moon %d.%d", p + 1, m + 1);
            orbits_entity moon = body(w, name, planet, 10.0f + 6.0f * (float)m, 2.5f + rnd(), 6.28f * rnd(), 2,
                                      (canvas_color){200, 200, 210, 255});
            if (rnd() < 0.5f) {
                snprintf(name, sizeof name, "moonlet %d.%d", p + 1, m + 1);
                (void)body(w, name, moon, 4, 5, 6.28f * rnd(), 1, (canvas_color){150, 160, 255, 255});
            }
        }
    }
#ifdef ORBITS_INSPECT
    if (inspect_port >= 0 && inspect_port < 65536) {
        int code = inspect_run(w, inspect_port);
        canvas_free(&picture);
        orbits_world_destroy(w);
        return code;
    }
#else
    (void)inspect_port;
#endif
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

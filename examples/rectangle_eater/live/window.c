/* window.c: Rectangle Eater in an SDL2 window on the live loop — `ninja
 * live`. The game is a module built from schema/rectangle_eater.yaml and
 * examples/rectangle_eater/ (host.h); edit either while it runs and save:
 * it is rebuilt and reloaded between two steps, the game going on where
 * it was. What each reload did is printed, and shown in the title bar.
 *
 *   arrows / WASD  move          P    autopilot on / off
 *   A              accept a refused reload's loss
 *   N              a new game (on the newest module)
 *   B              rebuild now   Esc  quit
 *
 * --inspect PORT serves the live inspector on PORT; it keeps serving
 * across reloads and lists them. --frames N quits after N steps (for
 * unattended runs, e.g. under Xvfb); --seed N picks the game. */
#include <SDL.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "strata_inspect.h"

enum { WIDTH = 320, HEIGHT = 240, SCALE = 2 };

static char title[256];

static void log_line(const char *line, void *user) {
    (void)user;
    printf("%s\n", line);
    fflush(stdout);
}

/* After an attempt: the inspector serves the world now running (the old
 * one may be gone), with its module's schedule, and lists the attempt. */
static void inspect_follow(strata_inspect_t *inspector, strata_live_t *live) {
    static const char *const outcomes[] = {"", "reloaded", "restarted", "refused", "failed"};
    strata_inspect_desc_t desc = {0};
    strata_live_current(live)->inspect(&desc);
    strata_inspect_retarget(inspector, strata_live_world(live), &desc);
    const strata_live_reload_t *r = strata_live_last(live);
    strata_inspect_add_reload(inspector,
                              &(strata_inspect_reload_t){r->number, outcomes[r->event], r->total_ms, r->text});
}

/* A reload's outcome, in the title bar and to the inspector. */
static void show_outcome(SDL_Window *window, strata_live_t *live, strata_inspect_t *inspector) {
    const strata_live_reload_t *r = strata_live_last(live);
    static const char *const words[] = {"", "reloaded", "restarted", "REFUSED (A: accept the loss, N: new game)",
                                        "FAILED (see the terminal)"};
    snprintf(title, sizeof title, "Rectangle Eater (live): reload %u %s", r->number, words[r->event]);
    SDL_SetWindowTitle(window, title);
    if (inspector != NULL) {
        inspect_follow(inspector, live);
    }
}

/* The Controls of the keys held now: arrows or WASD, -1..1 on each axis. */
static void keys_held(float *dx, float *dy) {
    const Uint8 *k = SDL_GetKeyboardState(NULL);
    *dx = (float)((k[SDL_SCANCODE_RIGHT] || k[SDL_SCANCODE_D]) - (k[SDL_SCANCODE_LEFT] || k[SDL_SCANCODE_A]));
    *dy = (float)((k[SDL_SCANCODE_DOWN] || k[SDL_SCANCODE_S]) - (k[SDL_SCANCODE_UP] || k[SDL_SCANCODE_W]));
}

int main(int argc, char **argv) {
    uint64_t seed = 0;
    bool seeded = false, autopilot = false;
    long max_frames = -1, port = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--autopilot") == 0) {
            autopilot = true;
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
            seeded = true;
        } else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
            max_frames = strtol(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--inspect") == 0 && i + 1 < argc) {
            port = strtol(argv[++i], NULL, 0);
        } else {
            fprintf(stderr, "usage: rectangle_eater_live [--seed N] [--autopilot] [--frames N] [--inspect PORT]\n");
            return 2;
        }
    }
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "rectangle_eater_live: no window (%s); `ninja live-demo` runs without one\n", SDL_GetError());
        return 1;
    }
    seed = seeded ? seed : (uint64_t)SDL_GetPerformanceCounter();
    rect_host_desc desc =
        {"build/live/rect", "schema/rectangle_eater.yaml", "examples/rectangle_eater", seed, 1, false, log_line, NULL};
    strata_live_t *live = rect_host_open(&desc);
    SDL_Window *window = live ? SDL_CreateWindow("Rectangle Eater (live)", SDL_WINDOWPOS_CENTERED,
                                                 SDL_WINDOWPOS_CENTERED, WIDTH * SCALE, HEIGHT * SCALE, 0)
                              : NULL;
    SDL_Renderer *renderer = window ? SDL_CreateRenderer(window, -1, SDL_RENDERER_PRESENTVSYNC) : NULL;
    if (window && !renderer) {
        renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE);
    }
    SDL_Texture *texture = renderer ? SDL_CreateTexture(renderer, SDL_PIXELFORMAT_RGBA32, SDL_TEXTUREACCESS_STREAMING,
                                                        WIDTH, HEIGHT)
                                    : NULL;
    canvas screen = {0};
    rect_screen shown = {.target = &screen};
    snprintf(shown.footer, sizeof shown.footer, "N: NEW GAME   EDIT THE GAME: IT RELOADS");
    strata_inspect_t *inspector = NULL;
    int status = 0;
    if (!texture || !canvas_init(&screen, WIDTH, HEIGHT)) {
        fprintf(stderr, "rectangle_eater_live: %s\n", live ? SDL_GetError() : "the module did not start");
        status = 1;
        goto done;
    }
    if (port >= 0) {
        strata_inspect_desc_t in = {.port = (uint16_t)port, .any_port = port == 0, .writes = true};
        strata_live_current(live)->inspect(&in);
        if (strata_inspect_start(strata_live_world(live), &in, &inspector) != STRATA_OK) {
            fprintf(stderr, "rectangle_eater_live: the inspector cannot listen on port %ld\n", port);
            status = 1;
            goto done;
        }
        printf("inspector at http://127.0.0.1:%u/\n", (unsigned)strata_inspect_port(inspector));
    }
    const rect_live_table *game = rect_host_table(live);
    game->render_to(strata_live_world(live), &shown);
    game->autopilot(strata_live_world(live), autopilot);

    /* Fixed steps: the game is the same at any frame rate. */
    const Uint64 tick = SDL_GetPerformanceFrequency() / 60;
    Uint64 last = SDL_GetPerformanceCounter(), owed = tick;
    long frames = 0;
    bool running = true;
    while (running && (max_frames < 0 || frames < max_frames)) {
        strata_live_event_t event = STRATA_LIVE_NONE;
        SDL_Event ev;
        while (SDL_PollEvent(&ev)) {
            if (ev.type == SDL_QUIT) {
                running = false;
            } else if (ev.type == SDL_KEYDOWN && !ev.key.repeat) {
                switch (ev.key.keysym.sym) {
                case SDLK_ESCAPE: running = false; break;
                case SDLK_a: event = strata_live_accept(live); break;
                case SDLK_n: event = strata_live_restart(live); break;
                case SDLK_b: strata_live_rebuild(live); break;
                case SDLK_p:
                    autopilot = !autopilot;
                    game->autopilot(strata_live_world(live), autopilot);
                    break;
                default: break;
                }
            }
        }
        /* Between two steps: a rebuilt module takes over here. */
        event = event != STRATA_LIVE_NONE ? event : strata_live_poll(live);
        if (event != STRATA_LIVE_NONE) {
            game = rect_host_table(live);
            game->render_to(strata_live_world(live), &shown); /* a new game's world: draw it too */
            game->autopilot(strata_live_world(live), autopilot);
            show_outcome(window, live, inspector);
        }
        if (inspector != NULL && !strata_inspect_poll(inspector)) {
            owed = 0; /* paused from the page */
        }
        Uint64 now = SDL_GetPerformanceCounter();
        owed += now - last;
        last = now;
        owed = owed > 5 * tick ? 5 * tick : owed; /* after a stall, catch up a little, not all at once */
        for (; owed >= tick && running; owed -= tick, frames++) {
            strata_world_t *w = strata_live_world(live);
            if (!autopilot) {
                float dx, dy;
                keys_held(&dx, &dy);
                game->steer(w, dx, dy);
            }
            if (strata_world_step(w, 1.0f / 60.0f) != STRATA_OK) {
                running = false;
                status = 1;
            }
        }
        SDL_UpdateTexture(texture, NULL, screen.rgba, WIDTH * 4);
        SDL_RenderClear(renderer);
        SDL_RenderCopy(renderer, texture, NULL, NULL);
        SDL_RenderPresent(renderer);
        SDL_Delay(1); /* without vsync, do not spin */
    }

done:
    strata_inspect_stop(inspector);
    strata_live_close(live);
    canvas_free(&screen);
    if (texture) {
        SDL_DestroyTexture(texture);
    }
    if (renderer) {
        SDL_DestroyRenderer(renderer);
    }
    if (window) {
        SDL_DestroyWindow(window);
    }
    SDL_Quit();
    return status;
}

/* play.c: Rectangle Eater in an SDL2 window — `ninja play`. The game draws
 * into its 320x240 canvas; this file shows it twice the size, reads the
 * keys, and steps the world once a displayed frame by the time the frame
 * took: the rules run in the schema's fixed phase, 60 times a second of
 * game time, whatever the display's rate. It opens on the title screen.
 *
 *   Space          play / pause  P    autopilot on / off
 *   arrows / WASD  move          F5   save    F9   load (build/rectangle_eater.save)
 *   R              new game      F12  screenshot (build/rectangle_eater_shot.png)
 *   Esc            quit
 *
 * --autopilot starts playing with the autopilot on; --frames N quits after
 * N frames (for unattended runs, e.g. under Xvfb); --seed N picks the game. */
#include <SDL.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"

enum { SCALE = 2 };

static const char footer[] = "PRESS R TO PLAY AGAIN, F9 TO LOAD";
static const char save_path[] = "build/rectangle_eater.save";

/* A new game replacing *w; false when out of memory. */
static bool restart(rect_world **w, uint64_t seed, bool autopilot, rect_screen *shown) {
    rect_world_destroy(*w);
    *w = rect_game_create(seed);
    if (*w) {
        rect_autopilot_enable(*w, autopilot);
        rect_render_to(*w, shown);
    }
    return *w != NULL;
}

/* The Controls of the keys held now: arrows or WASD, -1..1 on each axis. */
static rect_controls keys_held(void) {
    const Uint8 *k = SDL_GetKeyboardState(NULL);
    rect_controls c = {0};
    c.dx = (float)((k[SDL_SCANCODE_RIGHT] || k[SDL_SCANCODE_D]) - (k[SDL_SCANCODE_LEFT] || k[SDL_SCANCODE_A]));
    c.dy = (float)((k[SDL_SCANCODE_DOWN] || k[SDL_SCANCODE_S]) - (k[SDL_SCANCODE_UP] || k[SDL_SCANCODE_W]));
    return c;
}

int main(int argc, char **argv) {
    uint64_t seed = 0;
    bool seeded = false, autopilot = false;
    long max_frames = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--autopilot") == 0) {
            autopilot = true;
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
            seeded = true;
        } else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
            max_frames = strtol(argv[++i], NULL, 0);
        } else {
            fprintf(stderr, "usage: rectangle_eater_play [--seed N] [--autopilot] [--frames N]\n");
            return 2;
        }
    }
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "rectangle_eater_play: no window (%s); `ninja demo` plays without one\n", SDL_GetError());
        return 1;
    }
    if (!seeded) {
        seed = (uint64_t)SDL_GetPerformanceCounter(); /* a different game each time */
    }
    SDL_Window *window = SDL_CreateWindow("Rectangle Eater", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                                          RECT_WIDTH * SCALE, RECT_HEIGHT * SCALE, 0);
    SDL_Renderer *renderer = window ? SDL_CreateRenderer(window, -1, SDL_RENDERER_PRESENTVSYNC) : NULL;
    if (window && !renderer) {
        renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE);
    }
    SDL_Texture *texture = renderer ? SDL_CreateTexture(renderer, SDL_PIXELFORMAT_RGBA32, SDL_TEXTUREACCESS_STREAMING,
                                                        RECT_WIDTH, RECT_HEIGHT)
                                    : NULL;
    canvas screen = {0};
    rect_screen shown = {.target = &screen};
    snprintf(shown.footer, sizeof shown.footer, "%s", footer);
    rect_world *w = NULL;
    int status = 0;
    if (!texture || !canvas_init(&screen, RECT_WIDTH, RECT_HEIGHT) || !restart(&w, seed, autopilot, &shown)) {
        fprintf(stderr, "rectangle_eater_play: %s\n", texture ? "out of memory" : SDL_GetError());
        status = 1;
        goto done;
    }

    if (!autopilot) {
        (void)rect_mode_set(w, RECT_MODE_TITLE); /* the last request wins: the first step enters the title */
    }
    /* One step a frame, by the time it took: the fixed phase makes the game
     * the same at any frame rate (its cap drops what a long stall owes). */
    const Uint64 hz = SDL_GetPerformanceFrequency();
    Uint64 last = SDL_GetPerformanceCounter();
    long frames = 0;
    bool running = true;
    while (running && (max_frames < 0 || frames < max_frames)) {
        SDL_Event ev;
        while (SDL_PollEvent(&ev)) {
            if (ev.type == SDL_QUIT) {
                running = false;
            } else if (ev.type == SDL_KEYDOWN && !ev.key.repeat) {
                switch (ev.key.keysym.sym) {
                case SDLK_ESCAPE: running = false; break;
                case SDLK_r:
                    if (!restart(&w, seed = seed * 6364136223846793005ULL + 1442695040888963407ULL, autopilot,
                                 &shown)) {
                        running = false;
                        status = 1;
                    }
                    break;
                case SDLK_F5: {
                    /* The whole world, binary, written atomically (docs/saves.md). */
                    strata_result_t r = rect_world_save(w, save_path);
                    if (r == STRATA_OK) {
                        printf("saved frame %u to %s\n", (unsigned)rect_game_res(w)->frame, save_path);
                    } else {
                        fprintf(stderr, "cannot save %s: %s\n", save_path, strata_result_str(r));
                    }
                    break;
                }
                case SDLK_F9: {
                    /* All or nothing: on an error the game goes on as it was. */
                    strata_load_report_t report;
                    if (rect_world_load(w, save_path, &report) == STRATA_OK) {
                        printf("loaded frame %u from %s\n", (unsigned)rect_game_res(w)->frame, save_path);
                    } else {
                        fprintf(stderr, "cannot load %s: %s\n", save_path, report.error);
                    }
                    break;
                }
                case SDLK_SPACE: {
                    /* Title or paused: play; playing: pause. Applied at the next step's start. */
                    rect_mode mode = rect_mode_get(w);
                    if (mode == RECT_MODE_TITLE || mode == RECT_MODE_PAUSED || mode == RECT_MODE_PLAYING) {
                        (void)rect_mode_set(w, mode == RECT_MODE_PLAYING ? RECT_MODE_PAUSED : RECT_MODE_PLAYING);
                    }
                    break;
                }
                case SDLK_p:
                    autopilot = !autopilot;
                    rect_autopilot_enable(w, autopilot);
                    break;
                case SDLK_F12:
                    if (canvas_write_png(&screen, "build/rectangle_eater_shot.png", SCALE)) {
                        printf("wrote build/rectangle_eater_shot.png\n");
                    }
                    break;
                default: break;
                }
            }
        }
        if (!w) {
            break;
        }
        Uint64 now = SDL_GetPerformanceCounter(), ticks = now - last;
        last = now;
        uint64_t ns = ticks / hz * 1000000000u + ticks % hz * 1000000000u / hz;
        if (!autopilot) {
            *rect_controls_res(w) = keys_held();
        }
        strata_result_t r = rect_world_step_ns(w, ns);
        frames++;
        if (r != STRATA_OK) {
            fprintf(stderr, "rectangle_eater_play: %s\n", strata_result_str(r));
            running = false;
            status = 1;
        }
        SDL_UpdateTexture(texture, NULL, screen.rgba, RECT_WIDTH * 4);
        SDL_RenderClear(renderer);
        SDL_RenderCopy(renderer, texture, NULL, NULL);
        SDL_RenderPresent(renderer);
        SDL_Delay(1); /* without vsync, do not spin */
    }
    if (w) {
        const rect_game *game = rect_game_res(w);
        printf("rectangle eater: score %d, %s\n", (int)game->score, game->over ? "game over" : "quit");
    }

done:
    rect_world_destroy(w);
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

/* window.c: the rollback demo in an SDL2 window (`ninja rollback-play`):
 * the two peers' worlds side by side, a tick of the demo each frame at
 * 60 Hz, each peer's frame, confirmed frame and rollbacks above its half.
 * Esc quits; the demo's figures and verdict print when it ends, as the
 * headless program's do. Takes the same options (main.c). */
#include <SDL.h>
#include <stdio.h>

#include "canvas.h"
#include "demo.h"

enum { HALF_W = 320, HALF_H = 180, TOP = 12, SCALE = 2 };

/* Peer `peer`'s world in the canvas half at x0: the food as dots, the players as squares. */
static void draw_peer(canvas *c, uint32_t peer, int x0) {
    demo_peer_t done;
    duel_world *w = demo_world(peer, &done);
    canvas_fill(c, x0, TOP, x0 + HALF_W, TOP + HALF_H, (canvas_color){16, 20, 28, 255});
    float sx = (float)HALF_W / DUEL_W, sy = (float)HALF_H / DUEL_H;
    for (duel_pieces_iter it = duel_pieces_begin(w); duel_pieces_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++) {
            int x = x0 + (int)(it.pos[i].x * sx), y = TOP + (int)(it.pos[i].y * sy);
            canvas_fill(c, x, y, x + 1, y + 1, (canvas_color){120, 200, 90, 255});
        }
    }
    static const canvas_color seat_color[2] = {{240, 200, 60, 255}, {90, 160, 250, 255}};
    for (duel_players_iter it = duel_players_begin(w); duel_players_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++) {
            int x = x0 + (int)(it.pos[i].x * sx), y = TOP + (int)(it.pos[i].y * sy);
            int r = (int)(it.player[i].size * sx) + 1;
            canvas_fill(c, x - r, y - r, x + r, y + r, seat_color[it.player[i].seat & 1]);
        }
    }
    char line[96];
    snprintf(line, sizeof line, "PEER %u FRAME %llu CONFIRMED %llu ROLLBACKS %llu", peer,
             (unsigned long long)done.frame, (unsigned long long)done.confirmed, (unsigned long long)done.rollbacks);
    canvas_text(c, x0 + 2, 2, 1, (canvas_color){230, 230, 230, 255}, line);
}

int main(int argc, char **argv) {
    demo_options_t o;
    if (!demo_options(&o, argc, argv)) {
        fprintf(stderr, "usage: rollback_play [--frames N] [--seed S] [--food N] [--delay F] [--jitter F] "
                        "[--loss PERCENT] [--desync F]\n");
        return 2;
    }
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "rollback_play: no window (%s); `ninja rollback-demo` runs without one\n", SDL_GetError());
        return 2;
    }
    const int width = 2 * HALF_W + 4, height = TOP + HALF_H;
    SDL_Window *window = SDL_CreateWindow("Strata rollback: two peers", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                                          width * SCALE, height * SCALE, 0);
    SDL_Renderer *renderer = window ? SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE) : NULL;
    SDL_Texture *texture = renderer ? SDL_CreateTexture(renderer, SDL_PIXELFORMAT_RGBA32, SDL_TEXTUREACCESS_STREAMING,
                                                        width, height)
                                    : NULL;
    canvas screen = {0};
    if (texture == NULL || !canvas_init(&screen, width, height)) {
        fprintf(stderr, "rollback_play: %s\n", texture ? "out of memory" : SDL_GetError());
        SDL_Quit();
        return 2;
    }
    demo_start(&o);
    bool running = true;
    Uint64 tick = SDL_GetPerformanceFrequency() / 60, next = SDL_GetPerformanceCounter();
    while (running) {
        SDL_Event ev;
        while (SDL_PollEvent(&ev)) {
            running = running && ev.type != SDL_QUIT && !(ev.type == SDL_KEYDOWN && ev.key.keysym.sym == SDLK_ESCAPE);
        }
        if (SDL_GetPerformanceCounter() >= next) {
            next += tick;
            running = running && demo_tick();
        }
        canvas_clear(&screen, (canvas_color){0, 0, 0, 255});
        draw_peer(&screen, 0, 0);
        draw_peer(&screen, 1, HALF_W + 4);
        SDL_UpdateTexture(texture, NULL, screen.rgba, width * 4);
        SDL_RenderClear(renderer);
        SDL_RenderCopy(renderer, texture, NULL, NULL);
        SDL_RenderPresent(renderer);
        SDL_Delay(1);
    }
    int status = demo_finish();
    canvas_free(&screen);
    SDL_DestroyTexture(texture);
    SDL_DestroyRenderer(renderer);
    SDL_DestroyWindow(window);
    SDL_Quit();
    return status;
}

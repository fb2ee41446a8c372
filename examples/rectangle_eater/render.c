/* render.c: the original game's render system and the HUD, drawing each step into the
 * screen a front end gave rect_render_to: a window's texture or a PNG. */
#include "game.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void rect_render_to(rect_world *w, rect_screen *s) {
    rect_world_set_user(w, s);
}

/* The canvas w draws into, or NULL (tests, or a world that is only simulated). */
static canvas *target_of(const rect_world *w) {
    const rect_screen *s = rect_world_user(w);
    return s != NULL ? s->target : NULL;
}

enum { POP_IN_FRAMES = 8, GHOST_FRAMES = 16 };

static const canvas_color background = {236, 233, 226, 255};
static const canvas_color grid_line = {226, 222, 213, 255};
static const canvas_color outline = {0, 0, 0, 255};
static const canvas_color hud_band = {34, 38, 46, 255};
static const canvas_color white = {255, 255, 255, 255};

static canvas_color paint(rect_color c) {
    return (canvas_color){c.r, c.g, c.b, c.a};
}

/* The pixels a rectangle centred at p with half-side h covers. */
static void pixel_rect(rect_position p, float h, int16_t out[4]) {
    out[0] = (int16_t)floorf(p.x - h + 0.5f);
    out[1] = (int16_t)floorf(p.y - h + 0.5f);
    out[2] = (int16_t)floorf(p.x + h + 0.5f);
    out[3] = (int16_t)floorf(p.y + h + 0.5f);
}

/* The aspect is the renderer's memory of each rectangle: when it appeared
 * (for the pop-in) and where it was last drawn. */
void rect_render_on_add(rect_world *w, rect_entity e, rect_render_aspect *aspect) {
    (void)e;
    aspect->born = rect_game_res(w)->frame;
}

/* A rectangle leaves the screen (eaten, decayed, or the world is going):
 * leave a fading outline where it was last drawn. Its Position may already
 * say otherwise, or be gone; the aspect remembers what the player saw. */
void rect_render_on_remove(rect_world *w, rect_entity e, rect_render_aspect *aspect) {
    if (aspect->x1 <= aspect->x0) {
        return; /* never drawn */
    }
    rect_effects *fx = rect_effects_res(w);
    const rect_appearance *look = rect_appearance_get(w, e);
    fx->ghosts[fx->next] = (rect_ghost){aspect->x0,
                                        aspect->y0,
                                        aspect->x1,
                                        aspect->y1,
                                        look ? look->color : (rect_color){0, 0, 0, 255},
                                        0};
    fx->next = (uint8_t)((fx->next + 1) % (sizeof fx->ghosts / sizeof fx->ghosts[0]));
}

static void draw_arena(canvas *c) {
    canvas_fill(c, 0, RECT_HUD, RECT_WIDTH, RECT_HEIGHT, background);
    for (int x = 16; x < RECT_WIDTH; x += 16) {
        canvas_fill(c, x, RECT_HUD, x + 1, RECT_HEIGHT, grid_line);
    }
    for (int y = RECT_HUD + 16; y < RECT_HEIGHT; y += 16) {
        canvas_fill(c, 0, y, RECT_WIDTH, y + 1, grid_line);
    }
}

/* Ghosts grow a little and fade over GHOST_FRAMES steps. */
static void draw_ghosts(canvas *c, rect_effects *fx, bool age) {
    for (size_t i = 0; i < sizeof fx->ghosts / sizeof fx->ghosts[0]; i++) {
        rect_ghost *g = &fx->ghosts[i];
        if (g->age >= GHOST_FRAMES) {
            continue;
        }
        if (c) {
            int grow = 1 + g->age / 3;
            canvas_color col = paint(g->color);
            col.a = (uint8_t)(220 - 200 * g->age / GHOST_FRAMES);
            canvas_frame(c, g->x0 - grow, g->y0 - grow, g->x1 + grow, g->y1 + grow, col);
        }
        if (age) {
            g->age++;
        }
    }
}

/* One rectangle as the original game draws it: its colour, translucent without a
 * Collision component, dark when big enough to hurt, a black outline —
 * except on the smallest, which would be all outline. */
static void draw_box(canvas *c, int x0, int y0, int x1, int y1, canvas_color fill) {
    canvas_fill(c, x0, y0, x1, y1, fill);
    if (x1 - x0 > 3 && y1 - y0 > 3) {
        canvas_frame(c, x0, y0, x1, y1, outline);
    }
}

static void draw_rect(canvas *c, const int16_t r[4], canvas_color fill, uint32_t age) {
    if (age < POP_IN_FRAMES) {
        /* Pop in: grow from the centre over the first frames. */
        int cx = (r[0] + r[2]) / 2, cy = (r[1] + r[3]) / 2;
        int hx = (r[2] - r[0]) * (int)(age + 1) / (2 * POP_IN_FRAMES) + 1;
        int hy = (r[3] - r[1]) * (int)(age + 1) / (2 * POP_IN_FRAMES) + 1;
        draw_box(c, cx - hx, cy - hy, cx + hx, cy + hy, fill);
        return;
    }
    draw_box(c, r[0], r[1], r[2], r[3], fill);
}

void rect_render_run(rect_render_ctx *ctx) {
    canvas *c = target_of(ctx->world);
    uint32_t frame = ctx->game->frame;
    if (c) {
        draw_arena(c);
    }
    draw_ghosts(c, ctx->effects, !ctx->game->over);

    /* The player is drawn last, on top of what it is about to eat. */
    int16_t player_rect[4] = {0};
    canvas_color player_fill = {0};
    bool player_seen = false;
    while (rect_render_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            const rect_appearance *look = &ctx->appearance[i];
            rect_render_aspect *aspect = &ctx->aspect[i];
            int16_t r[4];
            pixel_rect(ctx->position[i], rect_half_extent(look->size), r);
            aspect->x0 = r[0];
            aspect->y0 = r[1];
            aspect->x1 = r[2];
            aspect->y1 = r[3];
            canvas_color fill = paint(look->color);
            if (!ctx->collision) {
                fill.a = 25;
            }
            if (ctx->player_controlled) {
                memcpy(player_rect, r, sizeof r);
                player_fill = fill;
                player_seen = true;
                continue;
            }
            if (look->size > ctx->rules->danger_size) {
                fill = (canvas_color){30, 30, 36, 215};
            }
            if (c) {
                draw_rect(c, r, fill, frame - aspect->born);
            }
        }
    }
    if (c && player_seen) {
        draw_rect(c, player_rect, player_fill, POP_IN_FRAMES);
    }
}

/* Minutes and seconds of play. */
static void clock_text(char *out, size_t n, uint32_t frame) {
    unsigned seconds = (unsigned)(frame / 60u);
    snprintf(out, n, "%u:%02u", seconds / 60u, seconds % 60u);
}

static void centred(canvas *c, int y, int scale, canvas_color col, const char *text) {
    canvas_text(c, (RECT_WIDTH - canvas_text_width(text, scale)) / 2, y, scale, col, text);
}

/* A panel over the middle of the arena, so the board shows around it. */
static void panel(canvas *c, canvas_color shade, canvas_color edge) {
    canvas_fill(c, 0, RECT_HUD, RECT_WIDTH, RECT_HEIGHT, shade);
    canvas_fill(c, 48, 58, RECT_WIDTH - 48, 202, (canvas_color){28, 22, 30, 225});
    canvas_frame(c, 48, 58, RECT_WIDTH - 48, 202, edge);
}

/* The HUD band — score, health bar, clock — and the screens of Mode: the
 * title, paused, and the game-over screen with the final score. */
void rect_hud_run(rect_hud_ctx *ctx) {
    canvas *c = target_of(ctx->world);
    if (!c) {
        return;
    }
    const rect_game *game = ctx->game;
    const rect_health *health = rect_health_get(ctx->world, game->player);
    float hp = health ? health->value : 0.0f;
    char text[64];

    canvas_fill(c, 0, 0, RECT_WIDTH, RECT_HUD, hud_band);
    snprintf(text, sizeof text, "SCORE %d", (int)game->score);
    canvas_text(c, 5, 5, 1, white, text);

    /* Health out of the most a player can have. */
    const int bar_x = 100, bar_w = 120;
    canvas_text(c, bar_x - 24, 5, 1, (canvas_color){160, 166, 180, 255}, "HP");
    canvas_fill(c, bar_x, 4, bar_x + bar_w, 12, (canvas_color){70, 76, 88, 255});
    float full = hp / ctx->rules->max_health;
    full = full < 0.0f ? 0.0f : full > 1.0f ? 1.0f : full;
    canvas_color bar = hp > 10.0f ? (canvas_color){50, 220, 50, 255} : (canvas_color){240, 60, 50, 255};
    canvas_fill(c, bar_x, 4, bar_x + (int)lroundf(full * (float)bar_w), 12, bar);
    canvas_frame(c, bar_x - 1, 3, bar_x + bar_w + 1, 13, (canvas_color){120, 126, 140, 255});

    clock_text(text, sizeof text, game->frame);
    int w = canvas_text_width(text, 1);
    canvas_text(c, RECT_WIDTH - 5 - w, 5, 1, white, text);
    if (rect_autopilot_enabled(ctx->world)) {
        canvas_text(c, RECT_WIDTH - 5 - w - 34, 5, 1, (canvas_color){255, 200, 40, 255}, "AUTO");
    }

    rect_mode mode = ctx->mode->current;
    if (mode == RECT_MODE_TITLE) {
        panel(c, (canvas_color){10, 20, 60, 60}, (canvas_color){80, 200, 90, 255});
        centred(c, 80, 2, (canvas_color){235, 255, 235, 255}, "RECTANGLE EATER");
        centred(c, 120, 1, white, "EAT THE SMALL ONES, AVOID THE BIG DARK ONES");
        centred(c, 160, 1, (canvas_color){255, 210, 50, 255}, "PRESS SPACE TO PLAY");
    } else if (mode == RECT_MODE_PAUSED) {
        panel(c, (canvas_color){10, 20, 60, 60}, (canvas_color){120, 126, 140, 255});
        centred(c, 100, 3, white, "PAUSED");
        centred(c, 160, 1, (canvas_color){255, 210, 50, 255}, "PRESS SPACE TO GO ON");
    } else if (game->over) {
        panel(c, (canvas_color){90, 10, 20, 60}, (canvas_color){240, 70, 60, 255});
        centred(c, 72, 3, (canvas_color){255, 235, 235, 255}, "GAME OVER");
        snprintf(text, sizeof text, "SCORE %d", (int)game->score);
        centred(c, 108, 3, (canvas_color){255, 210, 50, 255}, text);
        char clock[16];
        clock_text(clock, sizeof clock, game->frame);
        snprintf(text, sizeof text, "LASTED %s", clock);
        centred(c, 146, 2, white, text);
        centred(c, 180, 1, (canvas_color){220, 190, 190, 255},
                ((const rect_screen *)rect_world_user(ctx->world))->footer);
    }
}

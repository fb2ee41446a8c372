/* canvas.c: rectangles and text in an RGBA buffer (see canvas.h). */
#include "canvas.h"

#include <stdlib.h>
#include <string.h>

bool canvas_init(canvas *c, int width, int height) {
    c->rgba = calloc((size_t)width * (size_t)height, 4);
    c->width = c->rgba ? width : 0;
    c->height = c->rgba ? height : 0;
    return c->rgba != NULL;
}

void canvas_free(canvas *c) {
    free(c->rgba);
    *c = (canvas){0};
}

void canvas_clear(canvas *c, canvas_color col) {
    const uint8_t px[4] = {col.r, col.g, col.b, col.a};
    size_t n = (size_t)c->width * (size_t)c->height;
    for (size_t i = 0; i < n; i++) {
        memcpy(c->rgba + 4 * i, px, 4);
    }
}

/* Clip [*lo, *hi) to [0, limit); false when nothing is left. */
static bool clip(int *lo, int *hi, int limit) {
    if (*lo < 0) {
        *lo = 0;
    }
    if (*hi > limit) {
        *hi = limit;
    }
    return *lo < *hi;
}

void canvas_fill(canvas *c, int x0, int y0, int x1, int y1, canvas_color col) {
    if (!clip(&x0, &x1, c->width) || !clip(&y0, &y1, c->height) || col.a == 0) {
        return;
    }
    if (col.a == 255) {
        /* The first row pixel by pixel, the others copied from it. */
        const uint8_t px[4] = {col.r, col.g, col.b, 255};
        uint8_t *first = c->rgba + 4 * ((size_t)y0 * (size_t)c->width + (size_t)x0);
        for (int x = x0; x < x1; x++) {
            memcpy(first + 4 * (size_t)(x - x0), px, 4);
        }
        for (int y = y0 + 1; y < y1; y++) {
            memcpy(first + 4 * (size_t)(y - y0) * (size_t)c->width, first, 4 * (size_t)(x1 - x0));
        }
        return;
    }
    /* "over" compositing onto an opaque or translucent pixel, in integers:
     * out = src * a + dst * (255 - a), rounded. */
    const unsigned a = col.a, na = 255u - col.a;
    for (int y = y0; y < y1; y++) {
        uint8_t *p = c->rgba + 4 * ((size_t)y * (size_t)c->width + (size_t)x0);
        for (int x = x0; x < x1; x++, p += 4) {
            p[0] = (uint8_t)((col.r * a + p[0] * na + 127) / 255);
            p[1] = (uint8_t)((col.g * a + p[1] * na + 127) / 255);
            p[2] = (uint8_t)((col.b * a + p[2] * na + 127) / 255);
            p[3] = (uint8_t)(a + (p[3] * na + 127) / 255);
        }
    }
}

void canvas_frame(canvas *c, int x0, int y0, int x1, int y1, canvas_color col) {
    if (x1 - x0 <= 2 || y1 - y0 <= 2) {
        canvas_fill(c, x0, y0, x1, y1, col);
        return;
    }
    canvas_fill(c, x0, y0, x1, y0 + 1, col);
    canvas_fill(c, x0, y1 - 1, x1, y1, col);
    canvas_fill(c, x0, y0 + 1, x0 + 1, y1 - 1, col);
    canvas_fill(c, x1 - 1, y0 + 1, x1, y1 - 1, col);
}

/* The glyph of ch: upper case for lower case, a box for what has none. */
static const uint8_t *glyph(unsigned char ch) {
    static const uint8_t box[CANVAS_GLYPH_H] = {0x1F, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1F};
    if (ch >= 'a' && ch <= 'z') {
        ch = (unsigned char)(ch - 'a' + 'A');
    }
    if (ch < 32 || ch > 127) {
        return box;
    }
    const uint8_t *g = canvas_font[ch - 32];
    static const uint8_t empty[CANVAS_GLYPH_H] = {0};
    return (ch != ' ' && memcmp(g, empty, sizeof empty) == 0) ? box : g;
}

int canvas_text(canvas *c, int x, int y, int scale, canvas_color col, const char *text) {
    int cx = x, widest = 0;
    for (const unsigned char *s = (const unsigned char *)text; *s; s++) {
        if (*s == '\n') {
            widest = cx - x > widest ? cx - x : widest;
            cx = x;
            y += (CANVAS_GLYPH_H + 2) * scale;
            continue;
        }
        const uint8_t *g = glyph(*s);
        for (int row = 0; row < CANVAS_GLYPH_H; row++) {
            for (int col_ = 0; col_ < CANVAS_GLYPH_W; col_++) {
                if (g[row] & (0x10 >> col_)) {
                    int px = cx + col_ * scale, py = y + row * scale;
                    canvas_fill(c, px, py, px + scale, py + scale, col);
                }
            }
        }
        cx += CANVAS_ADVANCE * scale;
    }
    widest = cx - x > widest ? cx - x : widest;
    /* The advance leaves a blank column after the last glyph: not part of the text. */
    return widest > 0 ? widest - scale : 0;
}

int canvas_text_width(const char *text, int scale) {
    int line = 0, widest = 0;
    for (const char *s = text; *s; s++) {
        line = *s == '\n' ? 0 : line + 1;
        widest = line > widest ? line : widest;
    }
    return widest > 0 ? widest * CANVAS_ADVANCE * scale - scale : 0;
}

/* canvas.h: an RGBA pixel buffer the examples draw into — rectangles with
 * alpha blending and text in a built-in 5x7 font — so the same frame can go
 * to a window (SDL's RGBA32 texture) or to a PNG file. */
#ifndef STRATA_EXAMPLE_CANVAS_H
#define STRATA_EXAMPLE_CANVAS_H

#include <stdbool.h>
#include <stdint.h>

/* A colour; a is opacity, 255 opaque. */
typedef struct canvas_color {
    uint8_t r, g, b, a;
} canvas_color;

/* width x height pixels, row by row from the top left, 4 bytes each in the
 * order R, G, B, A (SDL_PIXELFORMAT_RGBA32, PNG_FORMAT_RGBA). */
typedef struct canvas {
    int width;
    int height;
    uint8_t *rgba;
} canvas;

/* The font's cell: 5x7 glyphs and a column of space; lines 9 pixels apart. */
enum { CANVAS_GLYPH_W = 5, CANVAS_GLYPH_H = 7, CANVAS_ADVANCE = 6 };

/* The 5x7 glyphs of ASCII 32..127, a row a byte, bit 4 the leftmost pixel;
 * lower case is drawn as upper case, a character with no glyph as a box. */
extern const uint8_t canvas_font[96][CANVAS_GLYPH_H];

/* Allocate a width x height canvas, cleared to transparent black. Returns
 * false when out of memory (c is then empty). */
bool canvas_init(canvas *c, int width, int height);

/* Free the pixels. An empty canvas is a no-op. */
void canvas_free(canvas *c);

/* Set every pixel to col (no blending). */
void canvas_clear(canvas *c, canvas_color col);

/* Blend col over the pixels of [x0, x1) x [y0, y1), clipped to the canvas. */
void canvas_fill(canvas *c, int x0, int y0, int x1, int y1, canvas_color col);

/* Blend a one-pixel outline just inside [x0, x1) x [y0, y1). */
void canvas_frame(canvas *c, int x0, int y0, int x1, int y1, canvas_color col);

/* Draw text with its top left at (x, y), each font pixel scale x scale
 * pixels; '\n' starts a new line. Returns the width of the widest line. */
int canvas_text(canvas *c, int x, int y, int scale, canvas_color col, const char *text);

/* The width canvas_text would draw text at, without drawing. */
int canvas_text_width(const char *text, int scale);

/* Write the canvas to a PNG file, each pixel scale x scale (1 or more).
 * Returns false, with a message on stderr, when the file cannot be written.
 * Defined in png.c, which links libpng. */
bool canvas_write_png(const canvas *c, const char *path, int scale);

#endif

/* png.c: canvas_write_png with libpng's simplified API (libpng 1.6). */
#include "canvas.h"

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool canvas_write_png(const canvas *c, const char *path, int scale) {
    if (scale < 1) {
        scale = 1;
    }
    size_t w = (size_t)c->width * (size_t)scale, h = (size_t)c->height * (size_t)scale;
    uint8_t *pixels = c->rgba;
    uint8_t *scaled = NULL;
    if (scale > 1) {
        /* Nearest neighbour: each pixel becomes a scale x scale block. */
        scaled = malloc(w * h * 4);
        if (!scaled) {
            fprintf(stderr, "%s: out of memory\n", path);
            return false;
        }
        for (size_t y = 0; y < h; y++) {
            const uint8_t *src = c->rgba + (y / (size_t)scale) * (size_t)c->width * 4;
            uint8_t *dst = scaled + y * w * 4;
            for (size_t x = 0; x < w; x++) {
                memcpy(dst + 4 * x, src + 4 * (x / (size_t)scale), 4);
            }
        }
        pixels = scaled;
    }
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)w;
    image.height = (png_uint_32)h;
    image.format = PNG_FORMAT_RGBA;
    bool ok = png_image_write_to_file(&image, path, 0, pixels, (png_int_32)(w * 4), NULL) != 0;
    if (!ok) {
        fprintf(stderr, "%s: %s\n", path, image.message);
    }
    png_image_free(&image);
    free(scaled);
    return ok;
}

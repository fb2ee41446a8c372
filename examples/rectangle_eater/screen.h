/* screen.h: where Rectangle Eater draws (game.h), apart from the generated
 * world, so that a live host (live_game.h) holds one without rect.h. */
#ifndef RECT_SCREEN_H
#define RECT_SCREEN_H

#include "canvas.h"

/* Where a world's Render and Hud draw: a front end's canvas, and the last
 * line of the game-over screen ("PRESS R TO PLAY AGAIN"). The front end
 * owns it; the world holds only what the game's rules need, and a pixel
 * buffer is not one of them. */
typedef struct rect_screen {
    canvas *target;
    char footer[64];
} rect_screen;

#endif

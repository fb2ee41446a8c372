/* game.h: Duel, the rollback demo's game (schema/duel.yaml): the field's
 * size, the players' pads, a new game. Everything the game holds lives in
 * the world, so a snapshot of the world is a snapshot of the game. */
#ifndef DUEL_GAME_H
#define DUEL_GAME_H

#include "duel.h"

#define DUEL_W 640.0f
#define DUEL_H 360.0f

/* A pad's buttons (Pads.held). */
enum { PAD_LEFT = 1, PAD_RIGHT = 2, PAD_UP = 4, PAD_DOWN = 8 };

/* A new game: the two players at their corners, the field to be filled
 * with `food` pieces (by Spawn, in the first step) from `seed`; NULL when
 * out of memory. */
duel_world *duel_game_new(uint32_t food, uint64_t seed);

#endif /* DUEL_GAME_H */

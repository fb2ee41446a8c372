/* game.h: Rectangle Eater (from "How to Build an Entity Component System Game in Javascript", 2014) on the generated `rect` world.
 * What the front ends (demo.c, play.c) and the tests share: making a game,
 * its rules as functions, its renderer's target, and the state hash. */
#ifndef RECT_GAME_H
#define RECT_GAME_H

#include <stdint.h>

#include "canvas.h"
#include "rect.h"
#include "screen.h"

/* The frame: 320x240 pixels; the HUD is the top band, the arena the rest. */
enum { RECT_WIDTH = 320, RECT_HEIGHT = 240, RECT_HUD = 16 };

/* The period of the fixed phase `physics` (rate 60 in the schema): a step
 * of RECT_DT runs the rules once. Front ends step by the frame's time. */
#define RECT_DT (1.0f / 60.0f)

/* A new game: a world seeded with `seed`, the player in the middle of the
 * arena and Rules.start_food rectangles, Mode asked to go to playing at
 * the first step (a front end may ask for title instead). The autopilot
 * starts disabled. Returns NULL when out of memory. */
rect_world *rect_game_create(uint64_t seed);
/* The same game stepped by `threads` threads (the world desc's `threads`). */
rect_world *rect_game_create_threads(uint64_t seed, uint32_t threads);

/* Make one food rectangle at a random place away from the player, drawing
 * from rng; counts it in game->spawned. Deferred when called in a system.
 * Returns RECT_ENTITY_NULL when out of memory. */
rect_entity rect_game_add_food(rect_world *w, rect_rng *rng, const rect_rules *rules, rect_game *game);

/* The next 32 random bits of rng (xorshift64*). */
uint32_t rect_rand(rect_rng *rng);

/* A random float in [lo, hi). */
float rect_rand_range(rect_rng *rng, float lo, float hi);

/* Half the side a rectangle of Appearance.size is drawn and hit with: never
 * less than one pixel, so the smallest rectangles stay visible. */
static inline float rect_half_extent(float size) {
    return size < 1.0f ? 1.0f : size;
}

/* The health eating a rectangle of `size` gives a player of `health`: big
 * ones little or less than nothing, small ones more, tiny ones a bonus. */
float rect_eat_gain(const rect_rules *rules, float size, float health);

/* The health a rectangle of `health` loses a second (before the player's
 * ramp): the original game's bands, fast when big, slow when nearly gone. */
float rect_decay_rate(const rect_rules *rules, float health);

/* Draw w's steps into s (NULL: draw nothing; the game plays the same). s
 * must outlive its use by w; it stays through loads. It is the world's
 * user pointer (rect_world_user). */
void rect_render_to(rect_world *w, rect_screen *s);

/* FNV-1a (64-bit) over the game's state: every entity's components in
 * entity-id order, then the Controls, Game, Rng and Rules resources. The
 * renderer's state (aspects, Effects) is not part of it. Two worlds with
 * the same hash play on identically. */
uint64_t rect_state_hash(rect_world *w);

#endif

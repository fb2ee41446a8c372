/* scene.h: the pond the last steps of the tutorial play in. */
#ifndef TUTORIAL_SCENE_H
#define TUTORIAL_SCENE_H

#include "pond.h"

/* A world with two frogs, one just above the x axis and one just below,
 * and three flies on the axis flying towards them from the left; NULL when
 * out of memory. The flies come within reach after 1.4, 3.4 and 5.4
 * seconds. The frogs' handles go to frogs[0] and frogs[1] (frogs may be NULL). */
pond_world *scene_create(pond_entity *frogs);

/* Step w for `seconds` at 60 steps a second: false if a step failed. */
bool scene_play(pond_world *w, float seconds);

#endif

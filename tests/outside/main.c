/* A tiny game on the world strata-gen makes from game.yaml: three entities,
 * two moving at the schema's default velocity, four steps of half a second.
 * It prints one line, which tests/outside/test_outside.py checks. (The same
 * game loading JSON is main_json.c.) */
#include <stdio.h>

#include "game.h"

int main(void) {
    game_world *w = game_world_create(NULL);
    if (w == NULL) {
        return 1;
    }
    game_entity e[3] = {
        game_entity_create_bundle(w, &(game_bundle){.position = &(game_position){0, 0},
                                                    .velocity = &GAME_VELOCITY_DEFAULT}),
        game_entity_create_bundle(w, &(game_bundle){.position = &(game_position){10, 0},
                                                    .velocity = &GAME_VELOCITY_DEFAULT}),
        game_entity_create_bundle(w, &(game_bundle){.position = &(game_position){5, 5}}),
    };
    for (int i = 0; i < 4; i++) {
        if (game_world_step(w, 0.5f) != STRATA_OK) {
            return 1;
        }
    }
    float x = 0, y = 0;
    for (int i = 0; i < 3; i++) {
        const game_position *p = game_position_get(w, e[i]);
        if (p == NULL) {
            return 1;
        }
        x += p->x;
        y += p->y;
    }
    strata_world_stats_t stats;
    game_world_stats(w, &stats);
    printf("game: %u entities, %u steps, x sum %g, y sum %g; strata-gen %s, strata.h %s\n", (unsigned)stats.entities,
           (unsigned)game_clock_res(w)->steps, (double)x, (double)y, GAME_STRATA_GEN_VERSION_STRING,
           STRATA_VERSION_STRING);
    game_world_destroy(w);
    return 0;
}

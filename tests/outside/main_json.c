/* The game of main.c when it loads JSON: its world, dumped as JSON (the
 * runtime writes JSON itself), is loaded into a second world, which needs
 * libstrata_json and yajl: the one change each build file names. It prints
 * one line, which tests/outside/test_outside.py checks. */
#include <stdio.h>
#include <string.h>

#include "game.h"

int main(void) {
    game_world *w = game_world_create(NULL), *copy = game_world_create(NULL);
    if (w == NULL || copy == NULL) {
        return 1;
    }
    for (int i = 0; i < 3; i++) {
        game_entity_create_bundle(w, &(game_bundle){.position = &(game_position){(float)i, 0},
                                                    .velocity = i < 2 ? &GAME_VELOCITY_DEFAULT : NULL});
    }
    for (int i = 0; i < 4; i++) {
        if (game_world_step(w, 0.5f) != STRATA_OK) {
            return 1;
        }
    }
    static char dump[4096], again[4096];
    size_t size = 0, size_again = 0;
    strata_load_report_t report = {.entities = 0};
    if (game_world_dump_json_mem(w, dump, sizeof dump, &size) != STRATA_OK ||
        game_world_load_json_mem(copy, dump, size, &report) != STRATA_OK ||
        game_world_dump_json_mem(copy, again, sizeof again, &size_again) != STRATA_OK) {
        fprintf(stderr, "game: JSON round trip failed: %s\n", report.error);
        return 1;
    }
    printf("json: %u entities loaded, %u steps, dumps %s\n", (unsigned)report.entities,
           (unsigned)game_clock_res(copy)->steps,
           size == size_again && memcmp(dump, again, size) == 0 ? "equal" : "differ");
    game_world_destroy(copy);
    game_world_destroy(w);
    return 0;
}

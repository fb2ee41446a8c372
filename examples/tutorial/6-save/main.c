/* Step 6: a save made in the middle of the game, loaded into another world,
 * plays on exactly as the original does. */
#include <string.h>

#include "scene.h"

#include "../check.h"

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "pond.sav";
    pond_entity frogs[2];
    pond_world *w = scene_create(frogs), *copy = pond_world_create(NULL);
    if (w == NULL || copy == NULL) {
        return 1;
    }
    CHECK(scene_play(w, 2));

    if (pond_world_save(w, path) != STRATA_OK) {
        fprintf(stderr, "cannot save %s\n", path);
        return 1;
    }
    pond_load_report_t report;
    if (pond_world_load(copy, path, &report) != STRATA_OK) {
        fprintf(stderr, "cannot load %s: %s\n", path, report.error);
        return 1;
    }

    /* The same entities under the same handles, with their links. */
    pond_entity fly = pond_hunts_target(copy, frogs[0]);
    CHECK(pond_entity_eq(fly, pond_hunts_target(w, frogs[0])));
    CHECK(pond_position_get(copy, fly)->x == pond_position_get(w, fly)->x);
    CHECK(pond_score_res(copy)->eaten == 1);
    pond_entity_print(copy, frogs[0], stdout); /* one entity as JSON */

    char json[256];
    pond_entity_json(copy, frogs[0], json, sizeof json);
    CHECK(strstr(json, "\"Hunts\"") != NULL);

    /* Both worlds play on; both end the same. */
    CHECK(scene_play(w, 4) && scene_play(copy, 4));
    printf("after 6 s: %u eaten here, %u in the loaded copy\n", pond_score_res(w)->eaten, pond_score_res(copy)->eaten);
    CHECK(pond_score_res(w)->eaten == 3 && pond_score_res(copy)->eaten == 3);

    pond_world_destroy(copy);
    pond_world_destroy(w);
    remove(path);
    return check_failed();
}

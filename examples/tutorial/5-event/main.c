/* Step 5: the flies fly into the frogs' reach, are caught and eaten. */
#include "scene.h"

#include "../check.h"

int main(void) {
    pond_world *w = scene_create(NULL);
    if (w == NULL) {
        return 1;
    }
    CHECK(scene_play(w, 2)); /* the first fly has been caught, by both frogs at once */
    const pond_score *score = pond_score_res(w);
    printf("after 2 s: %u catches, %u eaten, %u flying\n", score->catches, score->eaten, pond_flies_count(w));
    CHECK(score->catches == 2 && score->eaten == 1 && pond_flies_count(w) == 2);

    CHECK(scene_play(w, 4));
    printf("after 6 s: %u catches, %u eaten, %u flying\n", score->catches, score->eaten, pond_flies_count(w));
    CHECK(score->catches == 6 && score->eaten == 3 && pond_flies_count(w) == 0);

    pond_world_destroy(w);
    return check_failed();
}

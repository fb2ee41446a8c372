/* module.c: Rectangle Eater as a live module (docs/live.md): the table its
 * hosts call (game_table.h). The rest of the module is the game's own
 * sources, as `ninja demo` builds them, and the generated world with its
 * entry (rect_live.c). */
#include "game.h"
#include "game_table.h"
#include "strata_live.h"

/* The generated world under the runtime's handle (what rect_world_core undoes). */
static rect_world *game_world(strata_world_t *w) {
    return (rect_world *)(void *)w;
}

static strata_world_t *start(const strata_world_desc_t *desc, uint64_t seed) {
    rect_world *w = rect_game_create_threads(seed, desc->threads);
    return w != NULL ? rect_world_core(w) : NULL;
}

static void render_to(strata_world_t *w, rect_screen *s) {
    rect_render_to(game_world(w), s);
}

static void steer(strata_world_t *w, float dx, float dy) {
    rect_controls *controls = rect_controls_res(game_world(w));
    controls->dx = dx;
    controls->dy = dy;
}

static void autopilot(strata_world_t *w, bool on) {
    rect_autopilot_enable(game_world(w), on);
}

static void status(strata_world_t *w, rect_live_status *out) {
    const rect_game *game = rect_game_res(game_world(w));
    *out = (rect_live_status){.score = game->score, .frame = game->frame, .over = game->over};
}

static uint64_t hash(strata_world_t *w) {
    return rect_state_hash(game_world(w));
}

static const rect_live_table table = {start, render_to, steer, autopilot, status, hash};

const strata_live_game_t rect_live_game = {RECT_LIVE_GAME_VERSION, sizeof table, &table};

/* arena_game.c: the live reload test's game table (arena_game.h). */
#include "arena_game.h"

#include "arena.h"
#include "strata_live.h"

static strata_world_t *start(const strata_world_desc_t *desc, uint32_t count) {
    arena_world *w = arena_world_create(desc);
    if (w == NULL) {
        return NULL;
    }
    arena_entity last = ARENA_ENTITY_NULL;
    for (uint32_t i = 0; i < count; i++) {
        arena_entity e = arena_entity_create(w);
        arena_position_add(w, e, (arena_position){.x = (float)i * 1.5f, .y = -(float)i});
        if (i % 2 == 0) {
            arena_velocity_add(w, e, (arena_velocity){.x = 0.25f * (float)i, .y = 2});
        }
        if (i % 3 == 0) {
            arena_health_add(w, e, (arena_health){.value = (int32_t)i * 7 - 20});
        }
        if (i % 5 == 0) {
            arena_marked_add(w, e);
        }
        if (i % 6 == 2) {
            arena_glow_add(w, e, (arena_glow){.heat = (float)i + 0.25f});
        }
        if (i % 4 == 1) { /* a link to the entity made before */
            arena_likes_add(w, e, last);
        }
        last = e;
    }
    arena_entity_destroy(w, arena_entity_create(w));
    arena_clock_res(w)->ticks = 41;
    arena_tick_enable(w, false);
    return arena_world_core(w);
}

static const arena_game_t table = {start};

const strata_live_game_t arena_live_game = {ARENA_GAME_VERSION, sizeof table, &table};

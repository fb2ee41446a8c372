/* Tests of the Rectangle Eater example (examples/rectangle_eater/, world
 * `rect` from schema/rectangle_eater.yaml): its rules one by one, that a
 * seed replays frame for frame, and that the autopilot loses in time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "game.h"

/* --- Helpers ----------------------------------------------------------------- */

/* A game of `seed` with the arena emptied: only the player is left. */
static rect_world *empty_game(uint64_t seed) {
    rect_world *w = rect_game_create(seed);
    assert_non_null(w);
    for (rect_food_iter it = rect_food_begin(w); rect_food_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++) {
            assert_int_equal(rect_entity_destroy(w, it.entities[i]), STRATA_OK); /* applied when the loop ends */
        }
    }
    assert_int_equal(rect_food_count(w), 0);
    /* So that Spawn does not refill the arena while a rule is tested. */
    rect_rules_res(w)->min_food = 0;
    return w;
}

static rect_entity player(rect_world *w) {
    return rect_game_res(w)->player;
}

static float player_health(rect_world *w) {
    const rect_health *h = rect_health_get(w, player(w));
    assert_non_null(h);
    return h->value;
}

/* A food rectangle of `size` at (x, y), decaying with `health` if health > 0. */
static rect_entity put_food(rect_world *w, float x, float y, float size, float health) {
    rect_position p = {x, y};
    rect_appearance look = {{0, 100, 150, 255}, size};
    rect_health h = {health};
    rect_entity e = rect_entity_create_bundle(w, &(rect_bundle){.position = &p,
                                                                .appearance = &look,
                                                                .health = health > 0 ? &h : NULL,
                                                                .collision = true});
    assert_false(rect_entity_eq(e, RECT_ENTITY_NULL));
    return e;
}

static void step(rect_world *w, int frames) {
    for (int i = 0; i < frames; i++) {
        assert_int_equal(rect_world_step(w, RECT_DT), STRATA_OK);
    }
}

/* A game of `seed` played by the autopilot, stepped `frames` times. */
static rect_world *autoplay(uint64_t seed, int frames, rect_screen *shown) {
    rect_world *w = rect_game_create(seed);
    assert_non_null(w);
    rect_render_to(w, shown);
    rect_autopilot_enable(w, true);
    step(w, frames);
    return w;
}

/* --- Determinism -------------------------------------------------------------- */

static void test_rect_same_seed_same_game_frame_for_frame(void **state) {
    (void)state;
    rect_world *a = rect_game_create(7), *b = rect_game_create(7);
    assert_non_null(a);
    assert_non_null(b);
    rect_autopilot_enable(a, true);
    rect_autopilot_enable(b, true);
    assert_true(rect_state_hash(a) == rect_state_hash(b));
    for (int frame = 0; frame < 900; frame++) {
        step(a, 1);
        step(b, 1);
        assert_true(rect_state_hash(a) == rect_state_hash(b));
    }
    assert_true(rect_game_res(a)->score > 0); /* the game was played, not frozen */
    rect_world_destroy(a);
    rect_world_destroy(b);
}

static void test_rect_other_seed_other_game(void **state) {
    (void)state;
    rect_world *a = autoplay(7, 120, NULL), *b = autoplay(8, 120, NULL);
    assert_true(rect_state_hash(a) != rect_state_hash(b));
    rect_world_destroy(a);
    rect_world_destroy(b);
}

/* The hash sees every part of the state it claims to. */
static void test_rect_hash_changes_with_any_component(void **state) {
    (void)state;
    rect_world *w = rect_game_create(3);
    uint64_t h0 = rect_state_hash(w);
    rect_position_mut(w, player(w))->x += 0.5f;
    uint64_t h1 = rect_state_hash(w);
    assert_true(h1 != h0);
    rect_health_mut(w, player(w))->value -= 1.0f;
    uint64_t h2 = rect_state_hash(w);
    assert_true(h2 != h1);
    rect_rng_res(w)->state ^= 1;
    assert_true(rect_state_hash(w) != h2);
    rect_world_destroy(w);
}

static void test_rect_drawing_does_not_change_the_game(void **state) {
    (void)state;
    canvas screen;
    assert_true(canvas_init(&screen, RECT_WIDTH, RECT_HEIGHT));
    rect_screen shown = {.target = &screen, .footer = "TEST"};
    rect_world *drawn = autoplay(11, 600, &shown);
    rect_world *blind = autoplay(11, 600, NULL);
    assert_true(rect_state_hash(drawn) == rect_state_hash(blind));
    rect_world_destroy(drawn);
    rect_world_destroy(blind);
    canvas_free(&screen);
}

/* --- The autopilot -------------------------------------------------------------- */

/* It plays (eats a fair number) and still loses, by the lose condition,
 * within two minutes of game time, whatever the seed. */
static void test_rect_autopilot_loses_within_bound(void **state) {
    (void)state;
    enum { BOUND = 2 * 60 * 60 };
    for (uint64_t seed = 1; seed <= 4; seed++) {
        rect_world *w = rect_game_create(seed);
        rect_autopilot_enable(w, true);
        const rect_game *game = rect_game_res(w);
        int frames = 0;
        while (!game->over && frames < BOUND) {
            step(w, 1);
            frames++;
        }
        assert_true(game->over);
        assert_true(player_health(w) <= 0.0f);
        assert_true(game->score >= 20);
        assert_int_equal(game->frame, (uint32_t)frames);
        rect_world_destroy(w);
    }
}

/* --- The rules ------------------------------------------------------------------- */

static void test_rect_user_input_moves_player_inside_arena(void **state) {
    (void)state;
    rect_world *w = empty_game(1);
    rect_position start = *rect_position_get(w, player(w));
    *rect_controls_res(w) = (rect_controls){1, 0};
    step(w, 1);
    const rect_position *p = rect_position_get(w, player(w));
    assert_float_equal(p->x - start.x, rect_rules_res(w)->player_speed * RECT_DT, 1e-3);
    assert_float_equal(p->y, start.y, 1e-6);
    /* Held against the corner, it stays fully inside the arena. */
    *rect_controls_res(w) = (rect_controls){-1, -1};
    step(w, 300);
    p = rect_position_get(w, player(w));
    float h = rect_half_extent(rect_appearance_get(w, player(w))->size);
    assert_true(p->x - h >= 0.0f - 1e-3f);
    assert_true(p->y - h >= (float)RECT_HUD - 1e-3f);
    rect_world_destroy(w);
}

static void test_rect_eating_gives_health_and_a_point(void **state) {
    (void)state;
    rect_world *w = empty_game(1);
    const rect_position *p = rect_position_get(w, player(w));
    rect_entity food = put_food(w, p->x + 3, p->y, 2.0f, 0.0f);
    float before = player_health(w);
    float gain = rect_eat_gain(rect_rules_res(w), 2.0f, before);
    step(w, 1);
    assert_int_equal(rect_game_res(w)->score, 1);
    assert_false(rect_entity_alive(w, food));
    /* The gain, less one step of decay at the health it had after eating. */
    float decay = rect_decay_rate(rect_rules_res(w), before + gain) * RECT_DT;
    assert_float_equal(player_health(w), before + gain - decay, 1e-3);
    /* A feast takes it to max_health, not above. */
    p = rect_position_get(w, player(w));
    for (int i = 0; i < 6; i++) {
        put_food(w, p->x - 2 + (float)i, p->y, 0.5f, 0.0f);
    }
    step(w, 1);
    assert_int_equal(rect_game_res(w)->score, 7);
    assert_true(player_health(w) <= rect_rules_res(w)->max_health);
    assert_true(player_health(w) > rect_rules_res(w)->max_health - 1.0f);
    rect_world_destroy(w);
}

static void test_rect_small_food_gives_more_big_food_hurts(void **state) {
    (void)state;
    rect_world *w = empty_game(1);
    const rect_rules *rules = rect_rules_res(w);
    float tiny = rect_eat_gain(rules, 0.5f, 15.0f);
    float small = rect_eat_gain(rules, 2.0f, 15.0f);
    float big = rect_eat_gain(rules, 5.5f, 15.0f);
    float huge = rect_eat_gain(rules, 12.0f, 15.0f);
    assert_true(tiny > small && small > big && big > huge);
    assert_true(tiny - small > rules->tiny_bonus - 1e-3f); /* the bonus for tiny ones */
    assert_float_equal(huge, rules->eat_min, 1e-6);        /* big ones hurt, but only so much */
    assert_true(huge < 0.0f);
    /* And in play: a big dark rectangle costs health. */
    const rect_position *p = rect_position_get(w, player(w));
    put_food(w, p->x, p->y, 12.0f, 0.0f);
    float before = player_health(w);
    step(w, 1);
    assert_true(player_health(w) < before + rules->eat_min + 1e-3f);
    assert_int_equal(rect_game_res(w)->score, 1);
    rect_world_destroy(w);
}

static void test_rect_decay_shrinks_decaying_food_only(void **state) {
    (void)state;
    rect_world *w = empty_game(1);
    const rect_rules *rules = rect_rules_res(w);
    rect_entity decaying = put_food(w, 20, 40, 7.5f, 15.0f);
    rect_entity still = put_food(w, 300, 220, 4.0f, 0.0f);
    step(w, 60);
    const rect_health *h = rect_health_get(w, decaying);
    assert_non_null(h);
    assert_float_equal(h->value, 15.0f - rect_decay_rate(rules, 15.0f), 0.05);
    assert_float_equal(rect_appearance_get(w, decaying)->size, h->value * rules->size_per_health, 1e-4);
    assert_float_equal(rect_appearance_get(w, still)->size, 4.0f, 0.0);
    rect_world_destroy(w);
}

static void test_rect_decayed_food_is_gone_by_end_of_step(void **state) {
    (void)state;
    rect_world *w = empty_game(1);
    rect_entity dying = put_food(w, 20, 40, 0.1f, 0.001f);
    step(w, 1);
    assert_false(rect_entity_alive(w, dying));
    assert_int_equal(rect_food_count(w), 0);
    assert_int_equal(rect_game_res(w)->score, 0); /* decayed, not eaten */
    rect_world_destroy(w);
}

static void test_rect_spawning_keeps_food_count(void **state) {
    (void)state;
    rect_world *w = empty_game(1);
    rect_rules *rules = rect_rules_res(w);
    /* An empty arena is topped up to min_food in one step. */
    rules->min_food = 6;
    step(w, 1);
    assert_int_equal(rect_food_count(w), 6);
    /* Eating one gives spawn_tries chances of a new one: with certainty here. */
    rules->spawn_chance = 1.0f;
    const rect_position *p = rect_position_get(w, player(w));
    put_food(w, p->x, p->y, 1.0f, 0.0f);
    uint32_t spawned = rect_game_res(w)->spawned;
    step(w, 1);
    assert_int_equal(rect_game_res(w)->score, 1);
    assert_int_equal(rect_game_res(w)->spawned, spawned + rules->spawn_tries);
    assert_int_equal(rect_food_count(w), 6 + rules->spawn_tries);
    /* Never above max_food. */
    rules->max_food = 10;
    for (int i = 0; i < 4; i++) {
        p = rect_position_get(w, player(w));
        put_food(w, p->x, p->y, 1.0f, 0.0f);
        step(w, 1);
        assert_true(rect_food_count(w) <= 10);
    }
    rect_world_destroy(w);
}

static void test_rect_health_drains_faster_as_game_goes_on(void **state) {
    (void)state;
    rect_world *w = empty_game(1);
    float before = player_health(w);
    step(w, 1);
    float early = before - player_health(w);
    assert_true(early > 0.0f);
    rect_health_mut(w, player(w))->value = before;
    rect_game_res(w)->frame = 60 * 60; /* a minute in */
    step(w, 1);
    float late = before - player_health(w);
    assert_true(late > 2.0f * early);
    rect_world_destroy(w);
}

static void test_rect_game_over_at_zero_health_then_nothing_moves(void **state) {
    (void)state;
    rect_world *w = empty_game(1);
    rect_rules_res(w)->min_food = 6;
    rect_health_mut(w, player(w))->value = 0.001f;
    step(w, 1);
    const rect_game *game = rect_game_res(w);
    assert_true(game->over);
    assert_int_equal(rect_mode_get(w), RECT_MODE_OVER);
    uint32_t frame = game->frame;
    uint64_t hash = rect_state_hash(w);
    *rect_controls_res(w) = (rect_controls){1, 1};
    hash = rect_state_hash(w);
    step(w, 120);
    assert_int_equal(game->frame, frame);
    assert_true(rect_state_hash(w) == hash);
    rect_world_destroy(w);
}

/* The title screen and paused hold every rule (the gate in the schema);
 * playing again goes on from where it stood, and a fixed run a 1/60 s. */
static void test_rect_title_and_paused_hold_the_rules(void **state) {
    (void)state;
    rect_world *w = rect_game_create(3);
    assert_non_null(w);
    rect_autopilot_enable(w, true);
    assert_int_equal(rect_mode_set(w, RECT_MODE_TITLE), STRATA_OK); /* the last request wins */
    uint64_t hash = rect_state_hash(w);
    step(w, 30);
    assert_int_equal(rect_mode_get(w), RECT_MODE_TITLE);
    assert_int_equal(rect_game_res(w)->frame, 0);
    assert_int_equal(rect_mode_set(w, RECT_MODE_PLAYING), STRATA_OK);
    step(w, 30);
    assert_int_equal(rect_game_res(w)->frame, 30);
    assert_true(rect_state_hash(w) != hash);
    assert_int_equal(rect_mode_set(w, RECT_MODE_PAUSED), STRATA_OK);
    step(w, 1);
    hash = rect_state_hash(w);
    assert_int_equal(rect_world_step_ns(w, 1000000000u / 4), STRATA_OK); /* a quarter second: 15 runs if playing */
    assert_true(rect_state_hash(w) == hash);
    assert_int_equal(rect_game_res(w)->frame, 30);
    assert_int_equal(rect_mode_set(w, RECT_MODE_PLAYING), STRATA_OK);
    assert_int_equal(rect_world_step_ns(w, 1000000000u / 4), STRATA_OK);
    assert_int_equal(rect_game_res(w)->frame, 45);
    rect_world_destroy(w);
}

/* --- Saving and loading (F5 / F9) ----------------------------------------------------- */

/* The world saved into memory; *size gets its length. */
static void *save(rect_world *w, size_t *size) {
    assert_int_equal(rect_world_save_mem(w, NULL, 0, size), STRATA_ERR_LIMIT);
    void *buf = malloc(*size);
    assert_non_null(buf);
    assert_int_equal(rect_world_save_mem(w, buf, *size, size), STRATA_OK);
    return buf;
}

/* F5 mid-game, play on, F9: the game is back where it was saved, and plays
 * on from there exactly as it did the first time — in the same world, and
 * in a new one. */
static void test_rect_save_load_round_trips_game_in_progress(void **state) {
    (void)state;
    enum { LATER = 300 };
    rect_world *w = autoplay(5, 400, NULL);
    assert_false(rect_game_res(w)->over);
    size_t size;
    void *saved = save(w, &size);
    uint64_t at_save = rect_state_hash(w);
    uint64_t later[LATER];
    for (int i = 0; i < LATER; i++) {
        step(w, 1);
        later[i] = rect_state_hash(w);
    }
    assert_true(later[LATER - 1] != at_save);

    strata_load_report_t report;
    assert_int_equal(rect_world_load_mem(w, saved, size, &report), STRATA_OK);
    assert_int_equal(report.change_count, 0);
    assert_true(rect_state_hash(w) == at_save);
    assert_true(rect_autopilot_enabled(w)); /* which systems run is the game's, not the save's */
    for (int i = 0; i < LATER; i++) {
        step(w, 1);
        assert_true(rect_state_hash(w) == later[i]);
    }

    rect_world *fresh = rect_world_create(NULL);
    assert_non_null(fresh);
    assert_int_equal(rect_world_load_mem(fresh, saved, size, &report), STRATA_OK);
    assert_true(rect_state_hash(fresh) == at_save);
    rect_autopilot_enable(fresh, true);
    for (int i = 0; i < LATER; i++) {
        step(fresh, 1);
        assert_true(rect_state_hash(fresh) == later[i]);
    }
    rect_world_destroy(fresh);
    rect_world_destroy(w);
    free(saved);
}

/* What F5 and F9 do: the world to a file and back, through the file
 * functions the window calls. */
static void test_rect_f5_f9_round_trip_through_a_file(void **state) {
    (void)state;
    const char *dir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/strata_test_rectangle_eater.save", dir && *dir ? dir : "/tmp");
    rect_world *w = autoplay(12, 240, NULL);
    assert_int_equal(rect_world_save(w, path), STRATA_OK); /* F5 */
    uint64_t at_save = rect_state_hash(w);
    step(w, 120);
    uint64_t later = rect_state_hash(w);
    strata_load_report_t report;
    assert_int_equal(rect_world_load(w, path, &report), STRATA_OK); /* F9 */
    assert_true(rect_state_hash(w) == at_save);
    step(w, 120);
    assert_true(rect_state_hash(w) == later);
    remove(path);
    rect_world_destroy(w);
}

/* A damaged save is refused and the game in progress is untouched. */
static void test_rect_load_of_damaged_save_keeps_game(void **state) {
    (void)state;
    rect_world *w = autoplay(6, 200, NULL);
    size_t size;
    uint8_t *saved = save(w, &size);
    step(w, 50);
    uint64_t now = rect_state_hash(w);
    saved[size / 2] ^= 0x40;
    strata_load_report_t report;
    assert_int_equal(rect_world_load_mem(w, saved, size, &report), STRATA_ERR_CORRUPT);
    assert_true(report.error[0] != '\0');
    assert_true(rect_state_hash(w) == now);
    assert_int_equal(rect_world_load_mem(w, saved, size / 2, &report), STRATA_ERR_CORRUPT);
    assert_true(rect_state_hash(w) == now);
    rect_world_destroy(w);
    free(saved);
}

/* --- Rendering ---------------------------------------------------------------------- */

static const uint8_t *pixel(const canvas *c, int x, int y) {
    return c->rgba + 4 * ((size_t)y * (size_t)c->width + (size_t)x);
}

static void test_rect_render_draws_player_food_and_game_over(void **state) {
    (void)state;
    canvas screen;
    assert_true(canvas_init(&screen, RECT_WIDTH, RECT_HEIGHT));
    rect_screen shown = {.target = &screen, .footer = "TEST"};
    rect_world *w = empty_game(1);
    rect_render_to(w, &shown);
    put_food(w, 40, 60, 4.0f, 0.0f);
    step(w, 12); /* past the food's pop-in */
    const rect_position *p = rect_position_get(w, player(w));
    const rect_appearance *look = rect_appearance_get(w, player(w));
    const uint8_t *px = pixel(&screen, (int)p->x, (int)p->y);
    assert_int_equal(px[0], look->color.r);
    assert_int_equal(px[1], look->color.g);
    assert_int_equal(px[2], look->color.b);
    px = pixel(&screen, 40, 60);
    assert_int_equal(px[0], 0);
    assert_int_equal(px[1], 100);
    assert_int_equal(px[2], 150);
    /* The HUD band is drawn over the top rows. */
    assert_int_equal(pixel(&screen, 2, 2)[0], 34);
    /* Game over: the panel covers the middle. */
    rect_health_mut(w, player(w))->value = 0.001f;
    step(w, 1);
    px = pixel(&screen, RECT_WIDTH / 2, 100);
    assert_true(px[0] < 60 && px[1] < 60); /* the dark panel, not the arena */
    rect_world_destroy(w);
    canvas_free(&screen);
}

/* The renderer's aspect remembers where a rectangle was drawn, so an eaten
 * one leaves a fading outline there. */
static void test_rect_render_aspect_leaves_ghost_where_eaten(void **state) {
    (void)state;
    rect_world *w = empty_game(1);
    const rect_position *p = rect_position_get(w, player(w));
    float x = p->x + 30, y = p->y;
    put_food(w, x, y, 2.0f, 0.0f);
    step(w, 1); /* drawn once: its aspect has its rectangle */
    *rect_controls_res(w) = (rect_controls){1, 0};
    while (rect_game_res(w)->score == 0) {
        step(w, 1);
    }
    const rect_effects *fx = rect_effects_res(w);
    const rect_ghost *g = &fx->ghosts[(fx->next + 7) % 8];
    assert_true(g->age <= 1);
    assert_int_equal(g->x0, (int)(x - 2.0f + 0.5f));
    assert_int_equal(g->x1, (int)(x + 2.0f + 0.5f));
    assert_int_equal(g->color.b, 150);
    rect_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rect_same_seed_same_game_frame_for_frame),
        cmocka_unit_test(test_rect_other_seed_other_game),
        cmocka_unit_test(test_rect_hash_changes_with_any_component),
        cmocka_unit_test(test_rect_drawing_does_not_change_the_game),
        cmocka_unit_test(test_rect_autopilot_loses_within_bound),
        cmocka_unit_test(test_rect_user_input_moves_player_inside_arena),
        cmocka_unit_test(test_rect_eating_gives_health_and_a_point),
        cmocka_unit_test(test_rect_small_food_gives_more_big_food_hurts),
        cmocka_unit_test(test_rect_decay_shrinks_decaying_food_only),
        cmocka_unit_test(test_rect_decayed_food_is_gone_by_end_of_step),
        cmocka_unit_test(test_rect_spawning_keeps_food_count),
        cmocka_unit_test(test_rect_health_drains_faster_as_game_goes_on),
        cmocka_unit_test(test_rect_game_over_at_zero_health_then_nothing_moves),
        cmocka_unit_test(test_rect_title_and_paused_hold_the_rules),
        cmocka_unit_test(test_rect_save_load_round_trips_game_in_progress),
        cmocka_unit_test(test_rect_f5_f9_round_trip_through_a_file),
        cmocka_unit_test(test_rect_load_of_damaged_save_keeps_game),
        cmocka_unit_test(test_rect_render_draws_player_food_and_game_over),
        cmocka_unit_test(test_rect_render_aspect_leaves_ghost_where_eaten),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

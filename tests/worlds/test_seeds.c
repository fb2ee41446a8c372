/* The examples of the articles Strata's ideas come from (a TypeScript ECS in
 * 99 lines, and Aspects), ported: each test prints what the article prints
 * (or says in its comments) and checks it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "seeds.h"

/* What the tests printed, to compare with what the articles print. */
static char out[1024];
static size_t out_len;

/* Print a line and keep it. */
static void say(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    char line[128];
    int n = vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    assert_true(n > 0 && (size_t)n < sizeof line && out_len + (size_t)n + 1 < sizeof out);
    printf("%s\n", line);
    memcpy(out + out_len, line, (size_t)n);
    out_len += (size_t)n;
    out[out_len++] = '\n';
    out[out_len] = '\0';
}

static struct {
    uint32_t tracked; /* entities the Locator's last update saw */
    bool saw_doomed;  /* the Locator saw an entity the Reaper had destroyed */
} locator;

void seeds_reaper_run(seeds_reaper_ctx *ctx) {
    while (seeds_reaper_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            seeds_entity_destroy(ctx->world, ctx->entities[i]);
        }
    }
}

void seeds_locator_run(seeds_locator_ctx *ctx) {
    locator.tracked = 0;
    while (seeds_locator_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            locator.tracked++;
            locator.saw_doomed |= seeds_doomed_has(ctx->world, ctx->entities[i]);
        }
    }
}

void seeds_number_squarer_on_add(seeds_world *w, seeds_entity e, seeds_number_squarer_aspect *aspect) {
    double n = seeds_number_holder_get(w, e)->my_number;
    aspect->number_sq = n * n;
}

void seeds_number_squarer_run(seeds_number_squarer_ctx *ctx) {
    while (seeds_number_squarer_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            say("n=%g, n^2=%g", ctx->number_holder[i].my_number, ctx->aspect[i].number_sq);
        }
    }
}

static int setup(void **state) {
    out_len = 0;
    out[0] = '\0';
    memset(&locator, 0, sizeof locator);
    *state = seeds_world_create(NULL);
    assert_non_null(*state);
    return 0;
}

static int teardown(void **state) {
    seeds_world_destroy(*state);
    return 0;
}

/* The TypeScript ECS's removal after the update, as Strata does it: an entity
 * marked Doomed is still alive when marked, systems after the Reaper still see
 * it in that step, and it is gone once the step ends; the Locator tracks an
 * entity from the step after it gets a Position. */
static void test_seeds_typescript_ecs_locator_and_removal_after_the_update(void **state) {
    seeds_world *w = *state;
    seeds_entity entity = seeds_entity_create(w);
    assert_int_equal(seeds_world_step(w, 0), STRATA_OK);
    say("locator tracks %u", (unsigned)locator.tracked); /* no Position yet */
    seeds_position_add(w, entity, (seeds_position){5, 5});
    assert_int_equal(seeds_world_step(w, 0), STRATA_OK);
    say("locator tracks %u", (unsigned)locator.tracked);

    seeds_doomed_add(w, entity); /* removeEntity(entity) */
    say("%s", seeds_entity_alive(w, entity) ? "Entity still here now." : "Entity gone.");
    assert_int_equal(seeds_world_step(w, 0), STRATA_OK);
    assert_true(locator.saw_doomed); /* systems after the Reaper still saw it in that update */
    say("%s", seeds_entity_alive(w, entity) ? "Entity still here now." : "Entity gone.");
    assert_int_equal(seeds_world_step(w, 0), STRATA_OK);
    say("locator tracks %u", (unsigned)locator.tracked);

    assert_string_equal(out, "locator tracks 0\n"
                             "locator tracks 1\n"
                             "Entity still here now.\n"
                             "Entity gone.\n"
                             "locator tracks 0\n");
}

/* An aspect made by on_add: the Aspects article's NumberSquarer prints
 * n=4, n^2=16 and n=10, n^2=100. */
static void test_seeds_aspects_number_squarer(void **state) {
    seeds_world *w = *state;
    seeds_entity e1 = seeds_entity_create(w);
    seeds_number_holder_add(w, e1, (seeds_number_holder){4});
    seeds_entity e2 = seeds_entity_create(w);
    seeds_number_holder_add(w, e2, (seeds_number_holder){10});
    assert_int_equal(seeds_world_step(w, 0), STRATA_OK);
    assert_string_equal(out, "n=4, n^2=16\n"
                             "n=10, n^2=100\n");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_seeds_typescript_ecs_locator_and_removal_after_the_update, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_seeds_aspects_number_squarer, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

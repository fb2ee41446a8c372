/* Tests of snapshots, restores and the checksum (tests/schema/snap.yaml):
 * a restore gives a byte-identical save and the same steps after it, for
 * every kind of state (records and generations, free lists, columns,
 * resources, links and their index, changed sets, events, aspects), after
 * structural changes, relation cascades and freed tables, at 1 to 8
 * threads; delta takes against full ones; out of memory at each
 * allocation; the checksum against thread counts and save -> load. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "snap.h"
#include "test_alloc.h"

/* --- The systems: each a function of the world's state only -------------- */

void snap_steer_run(snap_steer_ctx *ctx) {
    while (snap_steer_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->vel[i].x += ctx->input->dx;
        }
    }
}

void snap_apply_run(snap_apply_ctx *ctx) {
    for (uint32_t i = 0; i < ctx->hit_count; i++) {
        ctx->tally->hits++;
        uint64_t sum = (uint64_t)ctx->tally->sum * 31 + (uint64_t)ctx->hit_events[i].dmg +
                       (ctx->hit_events[i].who.id & 0xffff);
        ctx->tally->sum = (int64_t)(sum >> 1); /* a hash of the order they came in */
    }
}

void snap_move_run(snap_move_ctx *ctx) {
    while (snap_move_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->pos[i].x += ctx->vel[i].x;
            ctx->pos[i].y += ctx->vel[i].y;
            ctx->aspect[i].steps++;
        }
    }
}

void snap_hurt_run(snap_hurt_ctx *ctx) {
    while (snap_hurt_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            if ((int32_t)ctx->pos[i].x % 3 == 0) {
                assert_int_equal(snap_hit_emit(ctx, &(snap_hit){.who = ctx->entities[i], .dmg = (int32_t)i + 1}),
                                 STRATA_OK);
            }
        }
    }
}

void snap_spawn_run(snap_spawn_ctx *ctx) {
    ctx->tally->steps++;
    for (uint32_t i = 0; i < ctx->input->spawn; i++) {
        snap_entity e = snap_entity_create(ctx->world);
        assert_int_equal(snap_pos_add(ctx->world, e, (snap_pos){(float)i, (float)ctx->tally->steps}), STRATA_OK);
        if (i % 2 == 0) {
            assert_int_equal(snap_hp_add(ctx->world, e, (snap_hp){(int32_t)i}), STRATA_OK);
        }
    }
}

void snap_watch_run(snap_watch_ctx *ctx) {
    while (snap_watch_next(ctx)) {
        ctx->tally->seen += ctx->count;
    }
}

/* The on_set calls a world has seen (its user pointer, when it has one):
 * not in the world, so that a load, which calls on_set, changes no save. */
typedef struct sets_seen_t {
    uint64_t calls, sum;
} sets_seen_t;

void snap_cool_run(snap_cool_ctx *ctx) {
    while (snap_cool_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->burn[i].heat *= 0.5f;
        }
    }
}

void snap_blink_run(snap_blink_ctx *ctx) {
    ctx->tally->blinks++;
}

void snap_hp_on_set(snap_world *w, snap_entity e, snap_hp *value) {
    sets_seen_t *seen = snap_world_user(w);
    if (seen != NULL) {
        seen->calls++;
        seen->sum = seen->sum * 31 + (uint64_t)value->hp + (e.id & 0xff);
    }
}

/* --- Helpers -------------------------------------------------------------- */

#define SAVE_CAP (1u << 20)

/* A save of w (malloc'd, *size bytes). */
static unsigned char *save_of(const snap_world *w, size_t *size) {
    unsigned char *buf = malloc(SAVE_CAP);
    assert_non_null(buf);
    assert_int_equal(snap_world_save_mem(w, buf, SAVE_CAP, size), STRATA_OK);
    return buf;
}

/* True if w's save is the bytes at want (size bytes). */
static bool saves_as(const snap_world *w, const unsigned char *want, size_t size) {
    size_t n = 0;
    unsigned char *got = save_of(w, &n);
    bool same = n == size && memcmp(got, want, n) == 0;
    free(got);
    return same;
}

static uint64_t checksum_of(const snap_world *w) {
    uint64_t sum = 0;
    assert_int_equal(snap_checksum(w, &sum), STRATA_OK);
    return sum;
}

/* A small deterministic generator. */
static uint32_t next_random(uint64_t *seed) {
    *seed = *seed * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(*seed >> 33);
}

#define MAX_KEPT 256

/* The handles a script made (some stale by now). */
typedef struct kept_t {
    snap_entity e[MAX_KEPT];
    uint32_t n;
} kept_t;

/* One random operation of every kind the world has: creates in many
 * archetypes, destroys (a parent's take its children: the cascade), adds
 * and removes (table and sparse components), links of both relations, entity fields, sets, resources,
 * freeing empty tables, the state machine's transitions, steps of even and
 * uneven length (a fixed phase's accumulator keeps a remainder). */
static void random_op(snap_world *w, kept_t *k, uint64_t *seed) {
    uint32_t op = next_random(seed) % 20;
    snap_entity a = k->n > 0 ? k->e[next_random(seed) % k->n] : SNAP_ENTITY_NULL;
    snap_entity b = k->n > 0 ? k->e[next_random(seed) % k->n] : SNAP_ENTITY_NULL;
    switch (op) {
    case 0:
    case 1: {
        snap_entity e = snap_entity_create(w);
        uint32_t bits = next_random(seed);
        (void)snap_pos_add(w, e, (snap_pos){(float)(bits % 7), 1});
        if (bits & 2) {
            (void)snap_vel_add(w, e, (snap_vel){0.5f, (float)(bits % 3)});
        }
        if (bits & 4) {
            (void)snap_hp_add(w, e, (snap_hp){(int32_t)(bits % 50)});
        }
        if (bits & 8) {
            (void)snap_label_add(w, e, (snap_label){.text = "abc", .code = (uint16_t)bits});
        }
        if (k->n < MAX_KEPT) {
            k->e[k->n++] = e;
        } else {
            k->e[bits % MAX_KEPT] = e;
        }
        break;
    }
    case 2: (void)snap_entity_destroy(w, a); break;
    case 3: (void)snap_child_of_set(w, a, b); break;
    case 4: (void)snap_likes_add(w, a, b); break;
    case 5: (void)snap_aim_add(w, a, (snap_aim){b}); break;
    case 6: (void)snap_frozen_add(w, a); break;
    case 7: (void)snap_frozen_remove(w, a); break;
    case 8: (void)snap_hp_set(w, a, (snap_hp){(int32_t)next_random(seed) % 100}); break;
    case 9: snap_input_res(w)->dx = (float)(next_random(seed) % 5) * 0.25f; break;
    case 10: snap_input_res(w)->spawn = next_random(seed) % 4; break;
    case 11: (void)snap_world_free_empty_tables(w); break;
    case 12: (void)snap_mode_set(w, (snap_mode)(next_random(seed) % 2)); break;
    case 14: (void)snap_burn_add(w, a, (snap_burn){(float)(next_random(seed) % 9)}); break;
    case 15: (void)snap_burn_remove(w, a); break;
    case 16: (void)snap_stun_add(w, a); break;
    case 17: (void)snap_stun_remove(w, a); break;
    case 13: { /* frames of uneven length: the fixed phase's accumulator keeps a remainder */
        static const float frames[] = {1.0f / 60, 1.0f / 30, 1.0f / 144, 0.013f};
        assert_int_equal(snap_world_step(w, frames[next_random(seed) % 4]), STRATA_OK);
        break;
    }
    default: assert_int_equal(snap_world_step(w, 1.0f / 60), STRATA_OK); break;
    }
}

static void random_ops(snap_world *w, kept_t *k, uint64_t *seed, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        random_op(w, k, seed);
    }
}

/* A world at `threads` after the same script: entities, links, a step with
 * events and marks waiting; its on_set calls counted in *seen (NULL: not). */
static snap_world *scripted_seen(uint32_t threads, uint64_t seed, uint32_t ops, sets_seen_t *seen) {
    snap_world *w = snap_world_create(&(snap_world_desc_t){.threads = threads, .chunk_rows = 8, .user = seen});
    assert_non_null(w);
    kept_t k = {0};
    random_ops(w, &k, &seed, ops);
    return w;
}

static snap_world *scripted(uint32_t threads, uint64_t seed, uint32_t ops) {
    return scripted_seen(threads, seed, ops, NULL);
}

/* --- Tests ---------------------------------------------------------------- */

static void test_snap_restore_gives_the_same_save_and_the_same_steps(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        sets_seen_t seen = {0}, twin_seen = {0};
        snap_world *w = scripted_seen(1, seed, 150, &seen), *twin = scripted_seen(1, seed, 150, &twin_seen);
        snap_snapshot_t *s = snap_snapshot_create(w);
        assert_non_null(s);
        assert_int_equal(snap_snapshot_take(w, s), STRATA_OK);
        size_t size = 0;
        unsigned char *before = save_of(w, &size);
        /* Structural changes, cascades, new and freed tables, steps. */
        kept_t k = {0};
        uint64_t other = seed * 977;
        random_ops(w, &k, &other, 200);
        assert_int_equal(snap_snapshot_restore(w, s), STRATA_OK);
        assert_true(saves_as(w, before, size));
        seen = twin_seen;
        /* Stepping on: the same as the twin that never left, resources
         * (which count events and changed rows) and the on_set calls included. */
        for (uint32_t i = 0; i < 5; i++) {
            snap_input_res(w)->spawn = snap_input_res(twin)->spawn = i % 3;
            assert_int_equal(snap_world_step(w, 1.0f / 60), STRATA_OK);
            assert_int_equal(snap_world_step(twin, 1.0f / 60), STRATA_OK);
            size_t n = 0;
            unsigned char *want = save_of(twin, &n);
            assert_true(saves_as(w, want, n));
            free(want);
            assert_memory_equal(snap_tally_res(w), snap_tally_res(twin), sizeof(snap_tally));
            assert_memory_equal(&seen, &twin_seen, sizeof seen); /* the on_set set came back */
        }
        free(before);
        snap_snapshot_destroy(s);
        snap_world_destroy(twin);
        snap_world_destroy(w);
    }
}

static void test_snap_restore_keeps_links_events_marks_and_aspects(void **state) {
    (void)state;
    snap_world *w = snap_world_create(NULL);
    snap_entity root = snap_entity_create(w), child = snap_entity_create(w), fan = snap_entity_create(w);
    assert_int_equal(snap_pos_add(w, root, (snap_pos){3, 0}), STRATA_OK);
    assert_int_equal(snap_hp_add(w, root, (snap_hp){4}), STRATA_OK);
    assert_int_equal(snap_pos_add(w, child, (snap_pos){6, 0}), STRATA_OK);
    assert_int_equal(snap_hp_add(w, child, (snap_hp){5}), STRATA_OK);
    assert_int_equal(snap_child_of_set(w, child, root), STRATA_OK);
    assert_int_equal(snap_likes_add(w, fan, root), STRATA_OK);
    assert_int_equal(snap_likes_add(w, fan, child), STRATA_OK);
    assert_int_equal(snap_aim_add(w, fan, (snap_aim){child}), STRATA_OK);
    assert_int_equal(snap_vel_add(w, root, (snap_vel){0, 0}), STRATA_OK);
    assert_int_equal(snap_world_step(w, 0), STRATA_OK); /* Hurt emits two hits, which Apply receives next step */
    assert_int_equal(snap_pos_set(w, child, (snap_pos){9, 0}), STRATA_OK); /* Watch's set holds child */
    snap_snapshot_t *s = snap_snapshot_create(w);
    assert_int_equal(snap_snapshot_take(w, s), STRATA_OK);
    /* The cascade: root's destroy takes child, Likes loses its targets, Aim is cleared. */
    assert_int_equal(snap_entity_destroy(w, root), STRATA_OK);
    assert_false(snap_entity_alive(w, child));
    assert_int_equal(snap_world_step(w, 0), STRATA_OK);
    assert_int_equal(snap_snapshot_restore(w, s), STRATA_OK);
    assert_true(snap_entity_alive(w, root) && snap_entity_alive(w, child));
    assert_true(snap_entity_eq(snap_child_of_target(w, child), root));
    uint32_t n = 0;
    const snap_entity *likes = snap_likes_targets(w, fan, &n);
    assert_int_equal(n, 2);
    assert_true(snap_entity_eq(likes[0], root) && snap_entity_eq(likes[1], child));
    const snap_entity *sources = snap_child_of_sources(w, root, &n);
    assert_int_equal(n, 1);
    assert_true(snap_entity_eq(sources[0], child));
    assert_true(snap_entity_eq(snap_aim_get(w, fan)->who, child));
    /* The events and the changed row come back: the step after sees them as the first time. */
    assert_int_equal(snap_world_step(w, 0), STRATA_OK);
    assert_int_equal(snap_tally_res(w)->hits, 2);
    assert_true(snap_tally_res(w)->seen >= 1);
    snap_tally replay = *snap_tally_res(w);
    assert_int_equal(snap_snapshot_restore(w, s), STRATA_OK);
    assert_int_equal(snap_world_step(w, 0), STRATA_OK);
    assert_memory_equal(snap_tally_res(w), &replay, sizeof replay);
    snap_snapshot_destroy(s);
    snap_world_destroy(w);
}

static void test_snap_restore_at_each_thread_count(void **state) {
    (void)state;
    size_t want_size = 0;
    unsigned char *want = NULL;
    uint64_t want_sum = 0;
    for (uint32_t threads = 1; threads <= 8; threads++) {
        snap_world *w = scripted(threads, 42, 300);
        snap_snapshot_t *s = snap_snapshot_create(w);
        assert_int_equal(snap_snapshot_take(w, s), STRATA_OK);
        uint64_t sum = checksum_of(w);
        kept_t k = {0};
        uint64_t seed = 7;
        random_ops(w, &k, &seed, 100);
        assert_int_equal(snap_snapshot_restore(w, s), STRATA_OK);
        assert_int_equal(checksum_of(w), sum);
        for (uint32_t i = 0; i < 4; i++) {
            assert_int_equal(snap_world_step(w, 1.0f / 60), STRATA_OK);
        }
        if (want == NULL) {
            want = save_of(w, &want_size);
            want_sum = checksum_of(w);
        } else {
            assert_true(saves_as(w, want, want_size)); /* the same world at every thread count */
            assert_int_equal(checksum_of(w), want_sum);
        }
        snap_snapshot_destroy(s);
        snap_world_destroy(w);
    }
    free(want);
}

/* A snapshot taken again and again (a delta each time) restores what a
 * fresh one (a full copy) does, after every kind of operation. */
static void test_snap_delta_matches_full(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        snap_world *w = scripted((uint32_t)seed % 4 + 1, seed, 100); /* split systems write from views too */
        snap_snapshot_t *delta = snap_snapshot_create(w);
        kept_t k = {0};
        uint64_t ops = seed * 31;
        for (uint32_t round = 0; round < 30; round++) {
            random_ops(w, &k, &ops, next_random(&ops) % 12);
            assert_int_equal(snap_snapshot_take(w, delta), STRATA_OK);
            size_t size = 0;
            unsigned char *want = save_of(w, &size);
            snap_snapshot_t *full = snap_snapshot_create(w);
            assert_int_equal(snap_snapshot_take(w, full), STRATA_OK);
            random_ops(w, &k, &ops, next_random(&ops) % 12);
            if (round % 3 == 0) {
                assert_int_equal(snap_snapshot_restore(w, full), STRATA_OK);
                assert_true(saves_as(w, want, size));
                random_ops(w, &k, &ops, 3);
            }
            assert_int_equal(snap_snapshot_restore(w, delta), STRATA_OK);
            assert_true(saves_as(w, want, size));
            free(want);
            snap_snapshot_destroy(full);
        }
        snap_snapshot_destroy(delta);
        snap_world_destroy(w);
    }
}

/* A take after a write in place (no row moved: set, mut, a system's write
 * term, a link changed to another target) copies the table it wrote. */
static void test_snap_delta_sees_writes_in_place(void **state) {
    (void)state;
    snap_world *w = snap_world_create(NULL);
    snap_entity a = snap_entity_create(w), b = snap_entity_create(w), c = snap_entity_create(w);
    for (uint32_t i = 0; i < 3; i++) {
        snap_entity e = i == 0 ? a : i == 1 ? b : c;
        assert_int_equal(snap_pos_add(w, e, (snap_pos){1, 1}), STRATA_OK);
        assert_int_equal(snap_hp_add(w, e, (snap_hp){1}), STRATA_OK);
    }
    assert_int_equal(snap_vel_add(w, a, (snap_vel){2, 2}), STRATA_OK);
    assert_int_equal(snap_child_of_set(w, b, a), STRATA_OK);
    snap_snapshot_t *s = snap_snapshot_create(w);
    assert_int_equal(snap_snapshot_take(w, s), STRATA_OK);

    assert_int_equal(snap_hp_set(w, a, (snap_hp){77}), STRATA_OK);
    assert_int_equal(snap_snapshot_take(w, s), STRATA_OK);
    assert_int_equal(snap_hp_set(w, a, (snap_hp){5}), STRATA_OK);
    assert_int_equal(snap_snapshot_restore(w, s), STRATA_OK);
    assert_int_equal(snap_hp_get(w, a)->hp, 77);

    snap_hp_mut(w, c)->hp = 55;
    assert_int_equal(snap_snapshot_take(w, s), STRATA_OK);
    snap_hp_mut(w, c)->hp = 6;
    assert_int_equal(snap_snapshot_restore(w, s), STRATA_OK);
    assert_int_equal(snap_hp_get(w, c)->hp, 55);

    assert_int_equal(snap_world_step(w, 1.0f / 60), STRATA_OK); /* Move's one fixed run: a's Pos 3, 3 */
    assert_int_equal(snap_snapshot_take(w, s), STRATA_OK);
    assert_int_equal(snap_pos_set(w, a, (snap_pos){0, 0}), STRATA_OK);
    assert_int_equal(snap_snapshot_restore(w, s), STRATA_OK);
    assert_true(snap_pos_get(w, a)->x == 3 && snap_pos_get(w, a)->y == 3);

    /* Components stored in the table and sparse at once: the table's own are written in place. */
    assert_int_equal(snap_snapshot_take(w, s), STRATA_OK);
    assert_int_equal(snap_entity_add_bundle(w, c, &(snap_bundle){.pos = &(snap_pos){66, 6}, .burn = &(snap_burn){2}}),
                     STRATA_OK);
    assert_int_equal(snap_snapshot_take(w, s), STRATA_OK);
    assert_int_equal(snap_pos_set(w, c, (snap_pos){7, 7}), STRATA_OK);
    assert_int_equal(snap_snapshot_restore(w, s), STRATA_OK);
    assert_true(snap_pos_get(w, c)->x == 66 && snap_burn_get(w, c)->heat == 2);

    assert_int_equal(snap_child_of_set(w, b, c), STRATA_OK); /* the same table: the link changes in place */
    assert_int_equal(snap_snapshot_take(w, s), STRATA_OK);
    assert_int_equal(snap_child_of_set(w, b, a), STRATA_OK);
    assert_int_equal(snap_snapshot_restore(w, s), STRATA_OK);
    assert_true(snap_entity_eq(snap_child_of_target(w, b), c));
    snap_snapshot_destroy(s);
    snap_world_destroy(w);
}

/* The game loop's state is the world's: a restore brings back the fixed
 * phase's accumulator, the state machine's state and a gate's count, and
 * the steps after run as they did. */
static void test_snap_restore_brings_back_the_loop_s_clocks_and_states(void **state) {
    (void)state;
    snap_world *w = scripted(1, 5, 40);
    assert_int_equal(snap_mode_set(w, SNAP_MODE_BUSY), STRATA_OK);
    assert_int_equal(snap_world_step(w, 0.013f), STRATA_OK);
    assert_int_equal(snap_world_step(w, 0.013f), STRATA_OK);
    snap_snapshot_t *s = snap_snapshot_create(w);
    assert_int_equal(snap_snapshot_take(w, s), STRATA_OK);
    float fraction = snap_physics_fraction(w);
    assert_true(fraction > 0.0f); /* 0.026 s and what the script left: runs of 1/60 and a remainder */
    snap_tally tally = *snap_tally_res(w);
    assert_int_equal(snap_mode_get(w), SNAP_MODE_BUSY);
    float frames[3] = {0.013f, 1.0f / 144, 0.02f};
    snap_tally after[3];
    float fractions[3];
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(snap_world_step(w, frames[i]), STRATA_OK);
        after[i] = *snap_tally_res(w);
        fractions[i] = snap_physics_fraction(w);
    }
    assert_int_equal(snap_mode_set(w, SNAP_MODE_CALM), STRATA_OK);
    assert_int_equal(snap_world_step(w, 0.05f), STRATA_OK);
    assert_int_equal(snap_mode_get(w), SNAP_MODE_CALM);
    assert_int_equal(snap_snapshot_restore(w, s), STRATA_OK);
    assert_int_equal(snap_mode_get(w), SNAP_MODE_BUSY);
    assert_true(snap_physics_fraction(w) == fraction);
    assert_memory_equal(snap_tally_res(w), &tally, sizeof tally);
    for (uint32_t i = 0; i < 3; i++) { /* Blink (every third step, while busy) counts as the first time */
        assert_int_equal(snap_world_step(w, frames[i]), STRATA_OK);
        assert_memory_equal(snap_tally_res(w), &after[i], sizeof after[i]);
        assert_true(snap_physics_fraction(w) == fractions[i]);
    }
    assert_true(after[2].blinks > tally.blinks);
    snap_snapshot_destroy(s);
    snap_world_destroy(w);
}

static void test_snap_take_and_restore_allocate_nothing_once_grown(void **state) {
    (void)state;
    snap_world *w = snap_world_create(
        &(snap_world_desc_t){.allocator = {.alloc = counting_alloc, .realloc = counting_resize, .free = test_release}});
    kept_t k = {0};
    uint64_t seed = 5;
    random_ops(w, &k, &seed, 200);
    snap_snapshot_t *s = snap_snapshot_create(w);
    assert_int_equal(snap_snapshot_take(w, s), STRATA_OK);
    assert_int_equal(snap_snapshot_restore(w, s), STRATA_OK);
    allocations = 0;
    for (uint32_t i = 0; i < 20; i++) {
        assert_int_equal(snap_snapshot_take(w, s), STRATA_OK);
        assert_int_equal(snap_snapshot_restore(w, s), STRATA_OK);
        assert_int_equal(snap_snapshot_restore(w, s), STRATA_OK);
    }
    assert_int_equal(allocations, 0);
    snap_snapshot_destroy(s);
    snap_world_destroy(w);
}

/* Out of memory at each allocation of a take leaves the snapshot holding
 * its older state; at each allocation of a restore, the world as it was. */
static void test_snap_out_of_memory_at_each_allocation(void **state) {
    (void)state;
    uint32_t take_fails = 0, restore_fails = 0;
    for (int at = 0; at < 400; at++) {
        budget = 1 << 30;
        snap_world *w = snap_world_create(&(snap_world_desc_t){
            .allocator = {.alloc = failing_alloc, .realloc = failing_resize, .free = test_release}});
        assert_non_null(w);
        kept_t k = {0};
        uint64_t seed = 9;
        random_ops(w, &k, &seed, 40);
        snap_snapshot_t *old = snap_snapshot_create(w);
        assert_int_equal(snap_snapshot_take(w, old), STRATA_OK);
        size_t old_size = 0;
        unsigned char *old_save = save_of(w, &old_size);
        random_ops(w, &k, &seed, 120);
        size_t now_size = 0;
        unsigned char *now_save = save_of(w, &now_size);
        /* A take into the old snapshot fails at allocation `at` or succeeds. */
        budget = at;
        strata_result_t r = snap_snapshot_take(w, old);
        budget = 1 << 30;
        if (r != STRATA_OK) {
            assert_int_equal(r, STRATA_ERR_NOMEM);
            take_fails++;
            assert_true(saves_as(w, now_save, now_size)); /* the world untouched */
            assert_int_equal(snap_snapshot_restore(w, old), STRATA_OK);
            assert_true(saves_as(w, old_save, old_size)); /* the older state intact */
        } else {
            /* The take made `old` the state now; a restore of a fresh snapshot of it, failing at `at`. */
            assert_int_equal(snap_snapshot_restore(w, old), STRATA_OK);
            assert_true(saves_as(w, now_save, now_size));
            snap_snapshot_t *older = snap_snapshot_create(w);
            assert_int_equal(snap_snapshot_take(w, older), STRATA_OK);
            random_ops(w, &k, &seed, 150);
            size_t size = 0;
            unsigned char *save = save_of(w, &size);
            budget = at;
            r = snap_snapshot_restore(w, older);
            budget = 1 << 30;
            if (r != STRATA_OK) {
                assert_int_equal(r, STRATA_ERR_NOMEM);
                restore_fails++;
                assert_true(saves_as(w, save, size));
                assert_int_equal(snap_world_step(w, 0), STRATA_OK); /* still a working world */
                assert_int_equal(snap_snapshot_restore(w, older), STRATA_OK);
            }
            assert_true(saves_as(w, now_save, now_size));
            free(save);
            snap_snapshot_destroy(older);
        }
        free(old_save);
        free(now_save);
        snap_snapshot_destroy(old);
        snap_world_destroy(w);
    }
    assert_true(take_fails > 0);
    assert_true(restore_fails > 0);
}

static void test_snap_ring_holds_the_last_frames(void **state) {
    (void)state;
    snap_world *w = scripted(1, 3, 60);
    snap_snapshot_ring_t *ring = snap_snapshot_ring_create(w, 4);
    assert_non_null(ring);
    unsigned char *saves[10];
    size_t sizes[10];
    kept_t k = {0};
    uint64_t seed = 11;
    for (uint64_t f = 0; f < 10; f++) {
        assert_int_equal(snap_snapshot_ring_take(w, ring, f), STRATA_OK);
        saves[f] = save_of(w, &sizes[f]);
        random_ops(w, &k, &seed, 10);
    }
    for (uint64_t f = 0; f < 10; f++) {
        assert_int_equal(snap_snapshot_ring_holds(ring, f), f >= 6);
    }
    assert_int_equal(snap_snapshot_ring_restore(w, ring, 5), STRATA_ERR_MISSING);
    assert_int_equal(snap_snapshot_ring_restore(w, ring, 7), STRATA_OK);
    assert_true(saves_as(w, saves[7], sizes[7]));
    assert_int_equal(snap_snapshot_ring_restore(w, ring, 9), STRATA_OK);
    assert_true(saves_as(w, saves[9], sizes[9]));
    for (uint64_t f = 0; f < 10; f++) {
        free(saves[f]);
    }
    snap_snapshot_ring_destroy(ring);
    snap_world_destroy(w);
}

/* A ring's take that runs out of memory leaves the slot's older frame, whole. */
static void test_snap_ring_keeps_the_older_frame_when_a_take_fails(void **state) {
    (void)state;
    budget = 1 << 30;
    snap_world *w = snap_world_create(
        &(snap_world_desc_t){.allocator = {.alloc = failing_alloc, .realloc = failing_resize, .free = test_release}});
    snap_snapshot_ring_t *ring = snap_snapshot_ring_create(w, 2);
    kept_t k = {0};
    uint64_t seed = 21;
    random_ops(w, &k, &seed, 20);
    assert_int_equal(snap_snapshot_ring_take(w, ring, 0), STRATA_OK);
    size_t size = 0;
    unsigned char *frame0 = save_of(w, &size);
    random_ops(w, &k, &seed, 300); /* more entities and tables than the slot has room for */
    budget = 0;
    assert_int_equal(snap_snapshot_ring_take(w, ring, 2), STRATA_ERR_NOMEM); /* frame 2 goes in frame 0's slot */
    budget = 1 << 30;
    assert_false(snap_snapshot_ring_holds(ring, 2));
    assert_true(snap_snapshot_ring_holds(ring, 0));
    assert_int_equal(snap_snapshot_ring_restore(w, ring, 0), STRATA_OK);
    assert_true(saves_as(w, frame0, size));
    free(frame0);
    snap_snapshot_ring_destroy(ring);
    snap_world_destroy(w);
}

/* A table whose rows held sparse components and left one by one keeps its
 * hint that they may; a save (and a snapshot's, and the checksum) of the
 * world then sorts no rows of it. */
/* A load replaces the world's tables with new ones; a snapshot taken before
 * still restores what it holds, and takes after the load copy everything. */
static void test_snap_restore_after_a_load(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        snap_world *w = scripted(1, seed, 120);
        snap_snapshot_t *s = snap_snapshot_create(w);
        assert_int_equal(snap_snapshot_take(w, s), STRATA_OK);
        size_t size = 0, later_size = 0;
        unsigned char *before = save_of(w, &size);
        kept_t k = {0};
        uint64_t ops = seed * 7;
        random_ops(w, &k, &ops, 60);
        unsigned char *later = save_of(w, &later_size);
        random_ops(w, &k, &ops, 60);
        assert_int_equal(snap_world_load_mem(w, later, later_size, NULL), STRATA_OK);
        random_ops(w, &k, &ops, 30);
        assert_int_equal(snap_snapshot_restore(w, s), STRATA_OK);
        assert_true(saves_as(w, before, size));
        assert_int_equal(snap_world_load_mem(w, later, later_size, NULL), STRATA_OK);
        size_t loaded_size = 0;
        unsigned char *loaded = save_of(w, &loaded_size);
        assert_int_equal(snap_snapshot_take(w, s), STRATA_OK); /* a take after a load: everything again */
        random_ops(w, &k, &ops, 30);
        assert_int_equal(snap_snapshot_restore(w, s), STRATA_OK);
        assert_true(saves_as(w, loaded, loaded_size));
        free(before);
        free(later);
        free(loaded);
        snap_snapshot_destroy(s);
        snap_world_destroy(w);
    }
}

static void test_snap_save_after_the_rows_that_held_sparse_values_left(void **state) {
    (void)state;
    snap_world *w = snap_world_create(NULL);
    snap_entity e = snap_entity_create(w);
    assert_int_equal(snap_pos_add(w, e, (snap_pos){1, 2}), STRATA_OK);
    assert_int_equal(snap_burn_add(w, e, (snap_burn){3}), STRATA_OK);
    assert_int_equal(snap_entity_destroy(w, e), STRATA_OK);
    size_t size = 0;
    unsigned char *save = save_of(w, &size);
    snap_world *loaded = snap_world_create(NULL);
    assert_int_equal(snap_world_load_mem(loaded, save, size, NULL), STRATA_OK);
    assert_int_equal(checksum_of(loaded), checksum_of(w));
    free(save);
    snap_world_destroy(loaded);
    snap_world_destroy(w);
}

/* The links of a table whose rows hold different sparse components are
 * saved in the order of its rows' groups, as its rows are: a load, which
 * places each group's rows together, saves the same bytes again (and so
 * has the same checksum). */
static void test_snap_save_load_save_with_links_and_sparse_groups(void **state) {
    (void)state;
    snap_world *w = snap_world_create(NULL);
    snap_entity t = snap_entity_create(w), e[4];
    for (uint32_t i = 0; i < 4; i++) {
        e[i] = snap_entity_create(w);
        assert_int_equal(snap_pos_add(w, e[i], (snap_pos){(float)i, 0}), STRATA_OK);
        assert_int_equal(snap_likes_add(w, e[i], t), STRATA_OK);
        if (i % 2 == 0) {
            assert_int_equal(snap_stun_add(w, e[i]), STRATA_OK); /* rows 0 and 2 hold Stun, 1 and 3 not */
        }
    }
    size_t size = 0;
    unsigned char *save = save_of(w, &size);
    snap_world *loaded = snap_world_create(NULL);
    assert_int_equal(snap_world_load_mem(loaded, save, size, NULL), STRATA_OK);
    assert_true(saves_as(loaded, save, size));
    assert_int_equal(checksum_of(loaded), checksum_of(w));
    free(save);
    snap_world_destroy(loaded);
    snap_world_destroy(w);
}

static void test_snap_restore_of_an_empty_snapshot_is_missing(void **state) {
    (void)state;
    snap_world *w = scripted(1, 4, 30);
    size_t size = 0;
    unsigned char *save = save_of(w, &size);
    snap_snapshot_t *s = snap_snapshot_create(w);
    assert_int_equal(snap_snapshot_restore(w, s), STRATA_ERR_MISSING);
    assert_true(saves_as(w, save, size));
    assert_true(snap_snapshot_bytes(s) > 0);
    free(save);
    snap_snapshot_destroy(s);
    snap_world_destroy(w);
}

static void test_snap_checksum_follows_the_state_and_survives_save_load(void **state) {
    (void)state;
    snap_world *w = scripted(1, 8, 200);
    uint64_t sum = checksum_of(w);
    assert_int_equal(checksum_of(w), sum);
    size_t size = 0;
    unsigned char *save = save_of(w, &size);
    snap_world *loaded = snap_world_create(NULL);
    assert_int_equal(snap_world_load_mem(loaded, save, size, NULL), STRATA_OK);
    assert_int_equal(checksum_of(loaded), sum);
    free(save);
    snap_world_destroy(loaded);
    /* A resource, an entity, a generation: each changes it. */
    snap_input_res(w)->dx += 1;
    assert_int_not_equal(checksum_of(w), sum);
    snap_input_res(w)->dx -= 1;
    assert_int_equal(checksum_of(w), sum);
    snap_entity made = snap_entity_create(w);
    assert_int_not_equal(checksum_of(w), sum);
    assert_int_equal(snap_entity_destroy(w, made), STRATA_OK);
    assert_int_not_equal(checksum_of(w), sum); /* the index's generation moved on */
    snap_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snap_restore_gives_the_same_save_and_the_same_steps),
        cmocka_unit_test(test_snap_restore_keeps_links_events_marks_and_aspects),
        cmocka_unit_test(test_snap_restore_at_each_thread_count),
        cmocka_unit_test(test_snap_delta_matches_full),
        cmocka_unit_test(test_snap_delta_sees_writes_in_place),
        cmocka_unit_test(test_snap_restore_brings_back_the_loop_s_clocks_and_states),
        cmocka_unit_test(test_snap_take_and_restore_allocate_nothing_once_grown),
        cmocka_unit_test(test_snap_out_of_memory_at_each_allocation),
        cmocka_unit_test(test_snap_ring_holds_the_last_frames),
        cmocka_unit_test(test_snap_ring_keeps_the_older_frame_when_a_take_fails),
        cmocka_unit_test(test_snap_restore_after_a_load),
        cmocka_unit_test(test_snap_save_after_the_rows_that_held_sparse_values_left),
        cmocka_unit_test(test_snap_save_load_save_with_links_and_sparse_groups),
        cmocka_unit_test(test_snap_restore_of_an_empty_snapshot_is_missing),
        cmocka_unit_test(test_snap_checksum_follows_the_state_and_survives_save_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* structural.c: one structural operation of the move world, alone, for a
 * profiler (docs/performance.md quotes its profiles). Built by `ninja
 * bench-profile` into build/bench/profile-structural, never run by the
 * build.
 *
 *     profile-structural OP [N] [ROUNDS]
 *
 * makes N entities (default 1,000,000) with Position and Velocity, brings
 * every table the ops use to full size once (the steady state), then runs
 * OP over all N entities ROUNDS times (default 20), with what it needs
 * before and what undoes it after each round untimed; the *_fresh ops
 * run each round in a new world instead (page faults and growth
 * included; add_*_fresh: the first add, its table growing from empty).
 * OP is one of the names in `ops` below. The timed rounds go
 * through measured(), and nothing else does, so
 *
 *     valgrind --tool=callgrind --toggle-collect=measured \
 *         build/bench/profile-structural add_tag 100000 1
 *
 * counts the instructions of the steady-state op alone (divide by N), and
 * `perf record -g` on the same command samples where its time goes. */
#define _POSIX_C_SOURCE 199309L
#include "move.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const move_bundle two = {.position = &(move_position){1, 2}, .velocity = &(move_velocity){0.5f, 0.25f}};

#define OP static __attribute__((noinline)) void

/* The world's one system (never stepped here). */
void move_move_run(move_move_ctx *ctx) {
    while (move_move_next(ctx)) {}
}

OP op_create(move_world *w, move_entity *ids, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        ids[i] = move_entity_create_bundle(w, &two);
    }
}

OP op_create_many(move_world *w, move_entity *ids, uint32_t n) {
    move_entity_create_many(w, &two, n, ids);
}

OP op_destroy(move_world *w, move_entity *ids, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        move_entity_destroy(w, ids[i]);
    }
}

OP op_add_tag(move_world *w, move_entity *ids, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        move_marked_add(w, ids[i]);
    }
}

OP op_remove_tag(move_world *w, move_entity *ids, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        move_marked_remove(w, ids[i]);
    }
}

OP op_add_small(move_world *w, move_entity *ids, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        move_small_add(w, ids[i], (move_small){(int32_t)i});
    }
}

OP op_remove_small(move_world *w, move_entity *ids, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        move_small_remove(w, ids[i]);
    }
}

/* The add_remove case's path: adds recorded while a query is open, applied
 * when it ends. */
OP op_deferred_add_small(move_world *w, move_entity *ids, uint32_t n) {
    move_move_ctx ctx = move_move_begin(w, 0);
    for (uint32_t i = 0; i < n; i++) {
        move_small_add(w, ids[i], (move_small){(int32_t)i});
    }
    move_move_end(&ctx);
}

/* A tag added to all n in one call: the whole table moves at once. */
OP op_add_tag_many(move_world *w, move_entity *ids, uint32_t n) {
    move_marked_add_many(w, ids, n);
}

/* An op with what must come before it and what undoes it (both untimed,
 * NULL: nothing). Between rounds the world is in its base state: all n
 * entities alive with Position and Velocity, every table at full size. */
static const struct {
    const char *name;
    void (*before)(move_world *, move_entity *, uint32_t);
    void (*run)(move_world *, move_entity *, uint32_t);
    void (*after)(move_world *, move_entity *, uint32_t);
    bool fresh; /* each round in a new, empty world instead */
} ops[] = {
    {"create_fresh", NULL, op_create, NULL, true},
    {"create_many_fresh", NULL, op_create_many, NULL, true},
    {"add_tag_fresh", op_create, op_add_tag, NULL, true},
    {"add_small_fresh", op_create, op_add_small, NULL, true},
    {"create", op_destroy, op_create, NULL, false},
    {"create_many", op_destroy, op_create_many, NULL, false},
    {"destroy", NULL, op_destroy, op_create, false},
    {"add_tag", NULL, op_add_tag, op_remove_tag, false},
    {"remove_tag", op_add_tag, op_remove_tag, NULL, false},
    {"add_small", NULL, op_add_small, op_remove_small, false},
    {"remove_small", op_add_small, op_remove_small, NULL, false},
    {"deferred_add_small", NULL, op_deferred_add_small, op_remove_small, false},
    {"add_tag_many", NULL, op_add_tag_many, op_remove_tag, false},
};

/* The timed rounds, and only they, run through here (see the top). */
static __attribute__((noinline)) void measured(void (*run)(move_world *, move_entity *, uint32_t), move_world *w,
                                               move_entity *ids, uint32_t n) {
    run(w, ids, n);
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    size_t k = 0, count = sizeof ops / sizeof ops[0];
    while (argc > 1 && k < count && strcmp(argv[1], ops[k].name) != 0) {
        k++;
    }
    if (argc < 2 || k == count) {
        fprintf(stderr, "usage: profile-structural OP [N] [ROUNDS]; OP is one of:");
        for (size_t i = 0; i < count; i++) {
            fprintf(stderr, " %s", ops[i].name);
        }
        fprintf(stderr, "\n");
        return 2;
    }
    uint32_t n = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1000000;
    int rounds = argc > 3 ? atoi(argv[3]) : 20;
    move_world *w = move_world_create(NULL);
    move_entity *ids = malloc(sizeof *ids * (n ? n : 1));
    if (w == NULL || ids == NULL || n == 0) {
        fprintf(stderr, "profile-structural: out of memory\n");
        return 1;
    }
    /* Every table at full size, the records too: the steady state. */
    op_create(w, ids, n);
    op_add_tag(w, ids, n);
    op_remove_tag(w, ids, n);
    op_add_small(w, ids, n);
    op_remove_small(w, ids, n);
    double total = 0;
    for (int r = 0; r < rounds; r++) {
        if (ops[k].fresh) {
            move_world_destroy(w);
            w = move_world_create(NULL);
            if (w == NULL) {
                fprintf(stderr, "profile-structural: out of memory\n");
                return 1;
            }
        }
        if (ops[k].before) {
            ops[k].before(w, ids, n);
        }
        double t0 = now_ns();
        measured(ops[k].run, w, ids, n);
        total += now_ns() - t0;
        if (ops[k].after) {
            ops[k].after(w, ids, n);
        }
    }
    printf("%s: %.2f ns per entity (%d rounds of %u)\n", ops[k].name, total / rounds / n, rounds, (unsigned)n);
    free(ids);
    move_world_destroy(w);
    return 0;
}

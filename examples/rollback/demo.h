/* demo.h: the rollback demo (demo.c): two peers of Duel over a simulated
 * network, run a tick at a time, for the headless program (main.c) and the
 * window (window.c). docs/rollback.md describes it. */
#ifndef DUEL_DEMO_H
#define DUEL_DEMO_H

#include "game.h"

/* The demo's settings; demo_options fills in the defaults. */
typedef struct demo_options_t {
    uint64_t frames, seed;
    uint32_t food;
    uint32_t delay, jitter, loss; /* frames, frames, percent */
    /* Peer 1 changes its world behind the game's back after stepping this
     * frame (UINT64_MAX: never), as a game keeping state outside the world
     * would: the demo must fail at the next confirmed frame. */
    uint64_t desync;
} demo_options_t;

/* What a peer has done, for the window. */
typedef struct demo_peer_t {
    uint64_t frame, confirmed, rollbacks, resimulated;
} demo_peer_t;

/* The defaults, then --frames N --seed S --food N --delay F --jitter F
 * --loss PERCENT --desync F from argv; false on anything else, a jitter
 * above the delay, a loss of 100% or no frame. */
bool demo_options(demo_options_t *o, int argc, char **argv);

/* Start: the reference game (both inputs known at once), the two peers,
 * the network; prints the settings. Exits 2 when out of memory. */
void demo_start(const demo_options_t *o);

/* One tick: each peer receives what arrived, rolls back and steps again if
 * a prediction was wrong, steps its next frame, checks the frames newly
 * confirmed and sends. False once every frame is confirmed or a peer
 * diverged (a `DIVERGED: ...` line printed). */
bool demo_tick(void);

/* Peer `peer`'s world now (to read between ticks), and in *out what it has done. */
duel_world *demo_world(uint32_t peer, demo_peer_t *out);

/* Print the peers' figures and, when every frame was confirmed without a
 * divergence, the cost of a rollback of 8 frames and the `converged:`
 * line; free everything. Returns 0 then, 1 otherwise. */
int demo_finish(void);

#endif /* DUEL_DEMO_H */

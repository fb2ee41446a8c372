/* demo.c: the rollback demo's peers and network (demo.h). Two peers play Duel (game.c) in one process
 * over a simulated network with delay, jitter and loss. Each frame a peer
 * snapshots its world, steps it with its own input and a prediction of the
 * other's (the last one it received), and sends its recent inputs. When a
 * real input arrives that differs from what was predicted, the peer
 * restores the snapshot of that frame and steps again to the present, in
 * the same frame. Each peer checksums every frame and sends the checksum of
 * its newest confirmed frame (all inputs before it known); the demo exits
 * non-zero at the first confirmed frame where the peers differ, or differ
 * from the same game played with no delay.
 * The headless program is main.c, the window window.c. */
#define _POSIX_C_SOURCE 199309L
#include "demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RING 32        /* frames a peer can roll back */
#define SENT_INPUTS 16 /* inputs a packet repeats: the last frames' own inputs */

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The process's CPU time: on a loaded machine the wall clock also counts other programs' turns. */
static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* A small seeded generator for the bots and the network. */
static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* Seat s's pad at frame f: a bot that holds a direction for a while. */
static uint8_t bot_pad(uint64_t seed, uint32_t seat, uint64_t f) {
    uint64_t h = mix(seed ^ mix(seat * 7919u + f / (5 + seat * 3)));
    return (uint8_t)(h & 15u);
}

/* One packet: the sender's inputs of frames [first, first + count), and the
 * checksum of its newest confirmed frame (sum_frame, or UINT64_MAX: none). */
typedef struct packet_t {
    uint64_t deliver; /* the tick it arrives */
    uint32_t to;      /* the receiving peer */
    uint64_t first;
    uint32_t count;
    uint8_t pads[SENT_INPUTS];
    uint64_t sum_frame, sum;
} packet_t;

/* The network: packets in flight, in no order. */
typedef struct net_t {
    packet_t *flying;
    size_t count, capacity;
    uint64_t rng;
    uint32_t delay, jitter, loss; /* frames, frames, percent */
    uint64_t sent, lost;
} net_t;

typedef struct peer_t {
    uint32_t seat;
    duel_world *w;
    duel_snapshot_ring_t *ring;
    uint8_t *pads[2];   /* by seat, by frame: own pads, and the other's as received */
    bool *known;        /* by frame: the other's pad has arrived */
    uint8_t *used;      /* by frame: the other's pad the frame was last stepped with */
    uint64_t *sums;     /* by frame: the checksum of the state before stepping it */
    uint64_t frame;     /* the next frame to step */
    uint64_t confirmed; /* frames [0, confirmed) have all inputs: their sums are final */
    uint64_t rollbacks, resimulated, longest;
    double worst_ms, worst_cpu_ms, total_ms; /* a frame's work: receive, roll back, step */
} peer_t;

static demo_options_t opt;
static bool failed;

static void die(const char *what) {
    fprintf(stderr, "rollback-demo: %s\n", what);
    exit(2);
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n, size);
    if (p == NULL) {
        die("out of memory");
    }
    return p;
}

static void net_send(net_t *n, const packet_t *p) {
    n->sent++;
    if (mix(n->rng++) % 100 < n->loss) {
        n->lost++;
        return;
    }
    if (n->count == n->capacity) {
        n->capacity = n->capacity ? n->capacity * 2 : 64;
        n->flying = realloc(n->flying, sizeof(packet_t) * n->capacity);
        if (n->flying == NULL) {
            die("out of memory");
        }
    }
    packet_t q = *p;
    q.deliver += n->delay + (n->jitter > 0 ? mix(n->rng++) % (2 * n->jitter + 1) : n->jitter) - n->jitter;
    n->flying[n->count++] = q;
}

/* Take the next packet for peer `to` due by tick t (false: none). */
static bool net_receive(net_t *n, uint32_t to, uint64_t t, packet_t *out) {
    for (size_t i = 0; i < n->count; i++) {
        if (n->flying[i].to == to && n->flying[i].deliver <= t) {
            *out = n->flying[i];
            n->flying[i] = n->flying[--n->count];
            return true;
        }
    }
    return false;
}

static void check(duel_result_t r, const char *what) {
    if (r != STRATA_OK) {
        fprintf(stderr, "rollback-demo: %s: %s\n", what, strata_result_str(r));
        exit(2);
    }
}

static uint64_t checksum(const duel_world *w) {
    uint64_t sum = 0;
    check(duel_checksum(w, &sum), "checksum");
    return sum;
}

/* Step frame f of p's world (snapshot first, its checksum kept), with the
 * other's pad known or predicted (the last one known before f). */
static void peer_step(peer_t *p, uint64_t f) {
    uint32_t other = 1 - p->seat;
    check(duel_snapshot_ring_take(p->w, p->ring, f), "snapshot");
    p->sums[f] = checksum(p->w);
    uint8_t guess = 0;
    if (p->known[f]) {
        guess = p->pads[other][f];
    } else {
        for (uint64_t g = f; g-- > 0;) {
            if (p->known[g]) {
                guess = p->pads[other][g];
                break;
            }
        }
    }
    p->used[f] = guess;
    duel_pads *pads = duel_pads_res(p->w);
    pads->held[p->seat] = p->pads[p->seat][f];
    pads->held[other] = guess;
    check(duel_world_step(p->w, 1.0f / 60), "step");
    if (p->seat == 1 && f == opt.desync) {
        duel_score_res(p->w)->eaten[0]++;
    }
}

/* The reference: the same game with both pads known at once. */
static uint64_t *reference_sums(void) {
    uint64_t *sums = xcalloc(opt.frames + 1, sizeof *sums);
    duel_world *w = duel_game_new(opt.food, opt.seed);
    if (w == NULL) {
        die("out of memory");
    }
    for (uint64_t f = 0; f <= opt.frames; f++) {
        sums[f] = checksum(w);
        duel_pads *pads = duel_pads_res(w);
        pads->held[0] = bot_pad(opt.seed, 0, f);
        pads->held[1] = bot_pad(opt.seed, 1, f);
        check(duel_world_step(w, 1.0f / 60), "step");
    }
    duel_world_destroy(w);
    return sums;
}

/* Frames newly confirmed by p: each checksum against the reference's. */
static void peer_confirm(peer_t *p, const uint64_t *ref) {
    uint64_t c = p->confirmed;
    while (c < p->frame && (c == 0 || p->known[c - 1])) {
        c++;
    }
    for (uint64_t f = p->confirmed; f < c && !failed; f++) {
        if (p->sums[f] != ref[f]) {
            printf("DIVERGED: peer %u at confirmed frame %llu: checksum %016llx, the game without delay %016llx\n",
                   p->seat, (unsigned long long)f, (unsigned long long)p->sums[f], (unsigned long long)ref[f]);
            failed = true;
        }
    }
    p->confirmed = c;
}

/* What arrived for p by tick t: the other's pads (a wrong prediction rolls
 * back to the first frame it was wrong on) and its checksums. */
static void peer_receive(peer_t *p, net_t *net, uint64_t t, const peer_t *other) {
    packet_t pk;
    uint64_t wrong = UINT64_MAX;
    uint32_t seat = 1 - p->seat;
    while (net_receive(net, p->seat, t, &pk)) {
        for (uint32_t i = 0; i < pk.count; i++) {
            uint64_t f = pk.first + i;
            if (f >= opt.frames || p->known[f]) {
                continue;
            }
            p->known[f] = true;
            p->pads[seat][f] = pk.pads[i];
            if (f < p->frame && p->used[f] != pk.pads[i] && f < wrong) {
                wrong = f;
            }
        }
        if (pk.sum_frame != UINT64_MAX && pk.sum_frame < p->confirmed && pk.sum != p->sums[pk.sum_frame]) {
            printf("DIVERGED: peers %u and %u differ at confirmed frame %llu (%016llx, %016llx)\n", p->seat,
                   other->seat, (unsigned long long)pk.sum_frame, (unsigned long long)p->sums[pk.sum_frame],
                   (unsigned long long)pk.sum);
            failed = true;
        }
    }
    /* A frame stepped with a pad that has not arrived yet: a guess equal to
     * a pad received later is still checked when that pad comes. */
    if (wrong == UINT64_MAX) {
        return;
    }
    if (!duel_snapshot_ring_holds(p->ring, wrong)) {
        printf("DIVERGED: peer %u must roll back to frame %llu, older than its %d snapshots\n", p->seat,
               (unsigned long long)wrong, RING);
        failed = true;
        return;
    }
    check(duel_snapshot_ring_restore(p->w, p->ring, wrong), "restore");
    uint64_t back = p->frame - wrong;
    p->rollbacks++;
    p->resimulated += back;
    p->longest = back > p->longest ? back : p->longest;
    for (uint64_t f = wrong; f < p->frame; f++) {
        peer_step(p, f);
    }
}

/* p's packet of tick t: its last pads and the checksum of its newest confirmed frame. */
static void peer_send(const peer_t *p, net_t *net, uint64_t t) {
    packet_t pk = {.deliver = t, .to = 1 - p->seat, .sum_frame = UINT64_MAX};
    pk.first = p->frame > SENT_INPUTS ? p->frame - SENT_INPUTS : 0;
    pk.count = (uint32_t)(p->frame - pk.first);
    for (uint32_t i = 0; i < pk.count; i++) {
        pk.pads[i] = p->pads[p->seat][pk.first + i];
    }
    if (p->confirmed > 0) {
        pk.sum_frame = p->confirmed - 1;
        pk.sum = p->sums[pk.sum_frame];
    }
    net_send(net, &pk);
}

static void peer_init(peer_t *p, uint32_t seat) {
    memset(p, 0, sizeof *p);
    p->seat = seat;
    p->w = duel_game_new(opt.food, opt.seed);
    if (p->w == NULL || (p->ring = duel_snapshot_ring_create(p->w, RING)) == NULL) {
        die("out of memory");
    }
    size_t n = opt.frames + 1;
    p->pads[0] = xcalloc(n, 1);
    p->pads[1] = xcalloc(n, 1);
    p->known = xcalloc(n, sizeof(bool));
    p->used = xcalloc(n, 1);
    p->sums = xcalloc(n, sizeof(uint64_t));
    for (uint64_t f = 0; f < opt.frames; f++) {
        p->pads[seat][f] = bot_pad(opt.seed, seat, f);
    }
}

static void peer_free(peer_t *p) {
    duel_snapshot_ring_destroy(p->ring);
    duel_world_destroy(p->w);
    free(p->pads[0]);
    free(p->pads[1]);
    free(p->known);
    free(p->used);
    free(p->sums);
}

/* The cost of a rollback of `back` frames on p's world now (restore, then
 * step again to the present), wall and CPU, the least of a few runs. */
static void rollback_cost(peer_t *p, uint64_t back, double *wall, double *cpu) {
    *wall = *cpu = 1e30;
    for (int run = 0; run < 5; run++) {
        double t0 = now_ms(), c0 = cpu_ms();
        check(duel_snapshot_ring_restore(p->w, p->ring, p->frame - back), "restore");
        for (uint64_t f = p->frame - back; f < p->frame; f++) {
            peer_step(p, f);
        }
        double ms = now_ms() - t0, c = cpu_ms() - c0;
        *wall = ms < *wall ? ms : *wall;
        *cpu = c < *cpu ? c : *cpu;
    }
}

/* The demo's state: the reference's checksums, the peers, the network, the tick. */
static uint64_t *ref;
static peer_t peers[2];
static net_t net;
static uint64_t tick;

bool demo_options(demo_options_t *o, int argc, char **argv) {
    *o = (demo_options_t){
        .frames = 600, .seed = 1, .food = 10000, .delay = 4, .jitter = 2, .loss = 10, .desync = UINT64_MAX};
    for (int i = 1; i < argc; i += 2) {
        char *end = NULL;
        unsigned long long v = i + 1 < argc ? strtoull(argv[i + 1], &end, 10) : 0;
        if (end == NULL || *end != '\0' || end == argv[i + 1]) {
            return false;
        }
        if (strcmp(argv[i], "--frames") == 0) {
            o->frames = v;
        } else if (strcmp(argv[i], "--seed") == 0) {
            o->seed = v;
        } else if (strcmp(argv[i], "--food") == 0) {
            o->food = (uint32_t)v;
        } else if (strcmp(argv[i], "--delay") == 0) {
            o->delay = (uint32_t)v;
        } else if (strcmp(argv[i], "--jitter") == 0) {
            o->jitter = (uint32_t)v;
        } else if (strcmp(argv[i], "--loss") == 0) {
            o->loss = (uint32_t)v;
        } else if (strcmp(argv[i], "--desync") == 0) {
            o->desync = v;
        } else {
            return false;
        }
    }
    return o->jitter <= o->delay && o->loss < 100 && o->frames > 0;
}

void demo_start(const demo_options_t *o) {
    opt = *o;
    failed = false;
    tick = 0;
    printf("rollback demo: seed %llu, %llu frames, %u food, delay %u frames +- %u, loss %u%%\n",
           (unsigned long long)opt.seed, (unsigned long long)opt.frames, opt.food, opt.delay, opt.jitter, opt.loss);
    ref = reference_sums();
    peer_init(&peers[0], 0);
    peer_init(&peers[1], 1);
    net = (net_t){.rng = mix(opt.seed), .delay = opt.delay, .jitter = opt.jitter, .loss = opt.loss};
}

bool demo_tick(void) {
    /* Ticks past the last frame let the last inputs arrive. */
    if (failed || (tick >= opt.frames && peers[0].confirmed >= opt.frames && peers[1].confirmed >= opt.frames)) {
        return false;
    }
    if (tick > opt.frames + 10 * (opt.delay + opt.jitter + 2) + 200) {
        printf("DIVERGED: the peers did not confirm every frame (%llu and %llu of %llu)\n",
               (unsigned long long)peers[0].confirmed, (unsigned long long)peers[1].confirmed,
               (unsigned long long)opt.frames);
        failed = true;
        return false;
    }
    for (uint32_t i = 0; i < 2 && !failed; i++) {
        peer_t *p = &peers[i];
        double t0 = now_ms(), c0 = cpu_ms();
        peer_receive(p, &net, tick, &peers[1 - i]);
        if (p->frame < opt.frames && !failed) {
            peer_step(p, p->frame);
            p->frame++;
        }
        double ms = now_ms() - t0, cpu = cpu_ms() - c0;
        p->worst_ms = ms > p->worst_ms ? ms : p->worst_ms;
        p->worst_cpu_ms = cpu > p->worst_cpu_ms ? cpu : p->worst_cpu_ms;
        p->total_ms += ms;
        peer_confirm(p, ref);
        peer_send(p, &net, tick);
    }
    tick++;
    return !failed;
}

duel_world *demo_world(uint32_t peer, demo_peer_t *out) {
    const peer_t *p = &peers[peer & 1];
    *out = (demo_peer_t){p->frame, p->confirmed, p->rollbacks, p->resimulated};
    return p->w;
}

int demo_finish(void) {
    for (uint32_t i = 0; i < 2; i++) {
        const peer_t *p = &peers[i];
        printf("peer %u: %llu frames played, %llu rollbacks, %llu frames re-simulated (longest %llu), worst frame "
               "%.2f ms (%.2f ms of CPU), mean %.2f ms\n",
               i, (unsigned long long)p->frame, (unsigned long long)p->rollbacks, (unsigned long long)p->resimulated,
               (unsigned long long)p->longest, p->worst_ms, p->worst_cpu_ms,
               p->frame > 0 ? p->total_ms / (double)p->frame : 0.0);
    }
    printf("network: %llu packets, %llu lost\n", (unsigned long long)net.sent, (unsigned long long)net.lost);
    int status = 1;
    if (!failed && peers[0].confirmed >= opt.frames && peers[1].confirmed >= opt.frames) {
        uint64_t back = opt.frames >= 9 ? 8 : opt.frames - 1;
        double wall = 0, cpu = 0;
        rollback_cost(&peers[0], back, &wall, &cpu);
        duel_world_stats_t stats;
        duel_world_stats(peers[0].w, &stats);
        printf("a rollback of %llu frames at %u entities (restore, then %llu snapshots, checksums and steps): %.2f ms, "
               "%.2f ms of CPU\n",
               (unsigned long long)back, stats.entities, (unsigned long long)back, wall, cpu);
        printf("converged: %llu confirmed frames, checksums equal\n", (unsigned long long)opt.frames);
        status = 0;
    }
    peer_free(&peers[0]);
    peer_free(&peers[1]);
    free(net.flying);
    free(ref);
    return status;
}

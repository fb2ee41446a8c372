/* par.c: the differential test of split systems. A stream of operations
 * (creates, destroys, adds, removes, sets and steps) runs on a world whose
 * systems are all `parallel` (tests/schema/fuzz_par.yaml), cut into chunks
 * of a few rows over many tables, and on a reference model; the stream is
 * run at 1, 2, 3, 4 and 8 threads.
 *
 * Two checks, after every operation and every step:
 *  - the model: each system's rows, written, and the structural changes
 *    each row records from its chunk (add, remove, destroy, create),
 *    applied when the system ends, the destroys at the step's end. A row's
 *    decisions depend on its own values only and touch only itself (or
 *    make a new entity), so the result does not depend on the order of the
 *    chunks: the model predicts it as sets (which entities, which
 *    components and values, how many hook calls), and adopts the handles
 *    the runtime gave the entities made in chunks;
 *  - determinism: the world's binary save after every step, at each
 *    thread count, is byte for byte the 1-thread run's (which is the
 *    order the chunk buffers are applied in).
 *
 * `test_fuzz_par [--ops N] [--seed S]` runs a longer stream (ninja fuzz-long);
 * `--shard K/N` the K-th run of the seeds 1-10 cut in N (each variant of
 * `ninja test` its own: 1-3, 4-6, 7-9 and 10 of 4). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fp.h"
#include "shard.h"

enum { P_POS, P_VEL, P_HP, P_ORIGIN, P_TAG, P_MARK, P_NC };
_Static_assert((int)FP_POS == P_POS && (int)FP_VEL == P_VEL && (int)FP_HP == P_HP && (int)FP_ORIGIN == P_ORIGIN &&
                   (int)FP_TAG == P_TAG && (int)FP_MARK == P_MARK && (int)FP_CHILD_OF == P_NC,
               "the model numbers components as the schema does");
#define P_BIT(c) ((uint8_t)(1u << (c)))

#define P_CAP 240         /* Spawn makes entities while fewer are alive */
#define P_MAX 2048        /* live entities the model holds at most */
#define P_MAX_INDEX 65536 /* entity indices it tracks generations of */
#define P_KIND_MADE 2     /* Origin.kind of what Spawn makes */

/* --- The stream: a PRNG ------------------------------------------------------ */

static uint64_t rng_state;

static uint32_t take(uint32_t bound) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return bound > 0 ? (uint32_t)(z >> 32) % bound : 0;
}

static uint32_t mix(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    return x ^ (x >> 16);
}

static int32_t wrap_add(int32_t a, int32_t b) {
    return (int32_t)(uint32_t)((uint32_t)a + (uint32_t)b);
}

/* --- The systems' decisions: a row's own values, never its handle ------------ */

static uint32_t move_choice(fp_pos p, fp_vel v) {
    return mix((uint32_t)p.x * 31u ^ (uint32_t)p.y ^ (uint32_t)v.dx << 8) % 8;
}

static uint32_t churn_choice(fp_hp hp, fp_pos p) {
    return mix((uint32_t)hp.v * 2654435761u ^ (uint32_t)p.x ^ (uint32_t)p.y << 3) % 16;
}

static uint32_t spawn_choice(fp_hp hp, fp_origin o) {
    return mix((uint32_t)hp.v ^ o.spare * 40503u ^ o.kind << 20);
}

/* What the game's code saw, for the model to check. The systems run on the
 * workers: counters are atomic; hooks run on the calling thread. */
static atomic_uint results_ok, results_missing, made_handles;
static uint32_t hook_added, hook_removed;
static bool spawning; /* set before each step from the model's population */

/* --- The game's code ------------------------------------------------------------ */

static void count_result(fp_result_t r) {
    atomic_fetch_add(r == STRATA_OK ? &results_ok : &results_missing, 1u);
}

void fp_move_run(fp_move_ctx *ctx) {
    while (fp_move_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->pos[i].x = wrap_add(ctx->pos[i].x, ctx->vel[i].dx);
            ctx->pos[i].y = wrap_add(ctx->pos[i].y, ctx->vel[i].dy);
            switch (move_choice(ctx->pos[i], ctx->vel[i])) {
            case 0: count_result(fp_tag_add(ctx->world, ctx->entities[i])); break;
            case 1: count_result(fp_tag_remove(ctx->world, ctx->entities[i])); break;
            default: break;
            }
        }
    }
}

void fp_churn_run(fp_churn_ctx *ctx) {
    fp_world *w = ctx->world;
    while (fp_churn_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            fp_entity e = ctx->entities[i];
            ctx->hp[i].v = wrap_add(ctx->hp[i].v, -1);
            uint32_t c = churn_choice(ctx->hp[i], ctx->pos[i]);
            switch (c) {
            case 0: count_result(fp_entity_destroy(w, e)); break;
            case 1: count_result(fp_mark_add(w, e)); break;
            case 2: count_result(fp_mark_remove(w, e)); break;
            case 3: count_result(fp_vel_remove(w, e)); break;
            case 4: count_result(fp_vel_add(w, e, (fp_vel){(int32_t)(c * 7 % 5) - 2, ctx->hp[i].v % 3})); break;
            case 5:
                count_result(fp_entity_destroy(w, e));
                count_result(fp_mark_add(w, e));
                break;
            case 6: count_result(fp_entity_remove_bundle(w, e, &(fp_bundle){.tag = true, .mark = true})); break;
            case 7: count_result(fp_hp_set(w, e, (fp_hp){wrap_add(ctx->hp[i].v, 5)})); break; /* its own row */
            default: break;
            }
        }
    }
}

void fp_spawn_run(fp_spawn_ctx *ctx) {
    while (fp_spawn_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->origin[i].spare++;
            uint32_t c = spawn_choice(ctx->hp[i], ctx->origin[i]);
            if (spawning && c % 4 == 0) {
                fp_pos p = {ctx->hp[i].v, (int32_t)ctx->origin[i].spare};
                fp_hp hp = {(int32_t)(c % 40)};
                fp_origin o = {ctx->entities[i], P_KIND_MADE, 0};
                fp_child_of up = {.target = ctx->entities[i]}; /* a child of its maker */
                fp_bundle b = {.pos = &p, .hp = &hp, .origin = &o, .mark = (c & 16) != 0, .child_of = &up};
                fp_entity made = fp_entity_create_bundle(ctx->world, &b);
                if (made.id != 0) {
                    atomic_fetch_add(&made_handles, 1u); /* a split system's creates give no handle */
                }
            }
        }
    }
}

void fp_mark_on_add(fp_world *w, fp_entity e) {
    (void)w;
    (void)e;
    hook_added++;
}

void fp_mark_on_remove(fp_world *w, fp_entity e) {
    (void)w;
    (void)e;
    hook_removed++;
}

/* --- The model ------------------------------------------------------------------- */

typedef struct p_entity {
    uint64_t h;
    uint64_t parent; /* its ChildOf target (0: none) */
    uint8_t mask;
    bool doomed; /* destroyed from a chunk: gone at the step's end */
    fp_pos pos;
    fp_vel vel;
    fp_hp hp;
    fp_origin origin;
} p_entity;

static struct {
    p_entity ents[P_MAX];
    uint32_t n;
    uint32_t generation[P_MAX_INDEX]; /* the last issued */
    uint64_t dead[64];
    uint32_t dead_count;
    uint32_t made_count; /* entities Spawn made in the last step (their handle 0 until adopted) */
    uint32_t hook_added, hook_removed, results_ok, results_missing;
    uint32_t place[P_MAX_INDEX]; /* by entity index: 1 + where in ents it was put last (p_place) */
} M;

/* Note where M.ents[i] is, by its handle's index (none while its handle is 0). */
static void p_place(uint32_t i) {
    uint64_t h = M.ents[i].h;
    if (h != 0 && (uint32_t)h < P_MAX_INDEX) {
        M.place[(uint32_t)h] = i + 1;
    }
}

/* The model's entity of handle h, or NULL: through the index (a place
 * left stale by a destroy holds another handle, or lies past M.n), or
 * by search for a handle it does not hold. */
static p_entity *p_find(uint64_t h) {
    if (h != 0 && (uint32_t)h < P_MAX_INDEX) {
        uint32_t at = M.place[(uint32_t)h];
        return at != 0 && at <= M.n && M.ents[at - 1].h == h ? &M.ents[at - 1] : NULL;
    }
    for (uint32_t i = 0; i < M.n; i++) {
        if (M.ents[i].h == h) {
            return &M.ents[i];
        }
    }
    return NULL;
}

/* Take a handle the runtime issued: never one issued before. */
static bool p_adopt(uint64_t h) {
    uint32_t index = (uint32_t)h, generation = (uint32_t)(h >> 32);
    if (h == 0 || index >= P_MAX_INDEX || generation <= M.generation[index] || p_find(h) != NULL) {
        return false;
    }
    M.generation[index] = generation;
    return true;
}

static bool p_has(const p_entity *e, int c) {
    return (e->mask & P_BIT(c)) != 0;
}

static void p_result(bool ok) {
    *(ok ? &M.results_ok : &M.results_missing) += 1;
}

/* Structural changes, applied (hooks counted as the runtime runs them). */
static void p_add(p_entity *e, int c) {
    if (c == P_MARK && !p_has(e, c)) {
        M.hook_added++;
    }
    e->mask |= P_BIT(c);
}

static void p_remove(p_entity *e, int c) {
    if (c == P_MARK && p_has(e, c)) {
        M.hook_removed++;
    }
    e->mask &= (uint8_t)~P_BIT(c);
}

static void p_destroy_now(uint32_t i) {
    p_remove(&M.ents[i], P_MARK);
    if (M.ents[i].h != 0) {
        M.dead[M.dead_count++ % 64] = M.ents[i].h;
    }
    M.ents[i] = M.ents[--M.n];
    p_place(i);
}

/* The destroys marked doomed, and (ChildOf's policy) every entity below
 * them: as sets, the order of the runtime's settle does not matter. */
static void p_destroy_doomed(void) {
    for (bool more = true; more;) {
        more = false;
        for (uint32_t i = 0; i < M.n; i++) {
            p_entity *e = &M.ents[i];
            const p_entity *up = e->parent != 0 ? p_find(e->parent) : NULL;
            if (!e->doomed && up != NULL && up->doomed) {
                e->doomed = more = true;
            }
        }
    }
    for (uint32_t i = 0; i < M.n;) {
        if (M.ents[i].doomed) {
            p_destroy_now(i);
        } else {
            i++;
        }
    }
}

/* One recorded change of a row, applied when its system ends. */
typedef struct p_change {
    uint64_t h;
    uint8_t kind; /* 1 add, 2 remove, 3 destroy */
    uint8_t mask;
    fp_vel vel;
} p_change;

static p_change changes[4 * P_MAX];
static uint32_t change_count;

static void p_record(uint64_t h, uint8_t kind, uint8_t mask, fp_vel vel) {
    changes[change_count++] = (p_change){h, kind, mask, vel};
}

/* A system's end: its rows' changes (in any order: each touches its own row). */
static void p_apply_changes(void) {
    for (uint32_t k = 0; k < change_count; k++) {
        p_change *ch = &changes[k];
        p_entity *e = p_find(ch->h);
        assert_non_null(e);
        if (ch->kind == 3) {
            e->doomed = true;
            continue;
        }
        for (int c = 0; c < P_NC; c++) {
            if (ch->mask & P_BIT(c)) {
                if (ch->kind == 1) {
                    p_add(e, c);
                    if (c == P_VEL) {
                        e->vel = ch->vel;
                    }
                } else {
                    p_remove(e, c);
                }
            }
        }
    }
    change_count = 0;
}

/* A step, system by system, as sets. */
static void p_step(void) {
    uint32_t n = M.n;
    for (uint32_t i = 0; i < n; i++) { /* Move: read Vel, write Pos */
        p_entity *e = &M.ents[i];
        if (p_has(e, P_POS) && p_has(e, P_VEL)) {
            e->pos.x = wrap_add(e->pos.x, e->vel.dx);
            e->pos.y = wrap_add(e->pos.y, e->vel.dy);
            uint32_t c = move_choice(e->pos, e->vel);
            if (c == 0) {
                p_result(true);
                p_record(e->h, 1, P_BIT(P_TAG), (fp_vel){0});
            } else if (c == 1) {
                /* "the MISSING check is made now and again when applied" */
                p_result(p_has(e, P_TAG));
                if (p_has(e, P_TAG)) {
                    p_record(e->h, 2, P_BIT(P_TAG), (fp_vel){0});
                }
            }
        }
    }
    p_apply_changes();
    for (uint32_t i = 0; i < M.n; i++) { /* Churn: read Pos, write Hp, optional Mark */
        p_entity *e = &M.ents[i];
        if (!p_has(e, P_POS) || !p_has(e, P_HP)) {
            continue;
        }
        e->hp.v = wrap_add(e->hp.v, -1);
        uint32_t c = churn_choice(e->hp, e->pos);
        switch (c) {
        case 0:
            p_result(true);
            p_record(e->h, 3, 0, (fp_vel){0});
            break;
        case 1:
            p_result(true);
            p_record(e->h, 1, P_BIT(P_MARK), (fp_vel){0});
            break;
        case 2:
        case 3:
            p_result(p_has(e, c == 2 ? P_MARK : P_VEL));
            if (p_has(e, c == 2 ? P_MARK : P_VEL)) {
                p_record(e->h, 2, P_BIT(c == 2 ? P_MARK : P_VEL), (fp_vel){0});
            }
            break;
        case 4:
            p_result(true);
            p_record(e->h, 1, P_BIT(P_VEL), (fp_vel){(int32_t)(c * 7 % 5) - 2, e->hp.v % 3});
            break;
        case 5:
            p_result(true);
            p_record(e->h, 3, 0, (fp_vel){0});
            p_result(true);
            p_record(e->h, 1, P_BIT(P_MARK), (fp_vel){0});
            break;
        case 6: {
            uint8_t both = P_BIT(P_TAG) | P_BIT(P_MARK);
            p_result((e->mask & both) != 0);
            if (e->mask & both) {
                p_record(e->h, 2, both, (fp_vel){0});
            }
            break;
        }
        case 7:
            p_result(true);
            e->hp.v = wrap_add(e->hp.v, 5); /* "set ... act at once" */
            break;
        default: break;
        }
    }
    p_apply_changes();
    M.made_count = 0;
    for (uint32_t i = 0, rows = M.n; i < rows; i++) { /* Spawn: read Hp, write Origin (not what it makes) */
        p_entity *e = &M.ents[i];
        if (!p_has(e, P_HP) || !p_has(e, P_ORIGIN)) {
            continue;
        }
        e->origin.spare++;
        uint32_t c = spawn_choice(e->hp, e->origin);
        if (spawning && c % 4 == 0) {
            assert_true(M.n < P_MAX);
            p_entity *made = &M.ents[M.n++]; /* its handle comes when the system ends */
            memset(made, 0, sizeof *made);
            M.made_count++;
            made->mask = P_BIT(P_POS) | P_BIT(P_HP) | P_BIT(P_ORIGIN) | ((c & 16) ? P_BIT(P_MARK) : 0);
            made->pos = (fp_pos){e->hp.v, (int32_t)e->origin.spare};
            made->vel = FP_VEL_DEFAULT;
            made->hp = (fp_hp){(int32_t)(c % 40)};
            made->origin = (fp_origin){{e->h}, P_KIND_MADE, 0};
            made->parent = e->h; /* linked when made: its maker is alive until the step ends */
            if (c & 16) {
                M.hook_added++; /* made with Mark: its on_add */
            }
        }
    }
    /* The step's end: the scheduled destroys, and what dies with them. */
    p_destroy_doomed();
}

/* --- The world against the model ------------------------------------------------- */

static fp_world *W;
static uint64_t population, made_total, tables_total; /* summed over a run's steps */

/* The entities Spawn made: each of the world's entities the model does not
 * know is one of them, found by its Origin (one a maker a step). */
static void adopt_made(void) {
    for (fp_made_iter it = fp_made_begin(W); fp_made_next(&it);) {
        for (uint32_t i = 0; i < it.count; i++) {
            if (p_find(it.entities[i].id) != NULL) {
                continue;
            }
            uint32_t k = 0;
            while (k < M.n && !(M.ents[k].h == 0 && M.ents[k].origin.from.id == it.origin[i].from.id)) {
                k++;
            }
            if (k == M.n) {
                fail_msg("%#llx appeared, made by %#llx, which the model did not expect",
                         (unsigned long long)it.entities[i].id, (unsigned long long)it.origin[i].from.id);
            }
            assert_true(p_adopt(it.entities[i].id));
            M.ents[k].h = it.entities[i].id;
            p_place(k);
        }
    }
    for (uint32_t k = 0; k < M.n; k++) {
        if (M.ents[k].h == 0) {
            fail_msg("Spawn's entity made by %#llx is missing", (unsigned long long)M.ents[k].origin.from.id);
        }
    }
}

static void check_world(long op) {
    strata_world_stats_t s;
    fp_world_stats(W, &s);
    if (s.entities != M.n || s.pending != 0) {
        fail_msg("op %ld: %u entities, %u pending; the model %u, 0", op, s.entities, s.pending, M.n);
    }
    /* Each entity's children in the model (those whose parent is its handle), in one pass. */
    static uint32_t children[P_MAX];
    memset(children, 0, sizeof(uint32_t) * M.n);
    for (uint32_t k = 0; k < M.n; k++) {
        const p_entity *up = M.ents[k].parent != 0 ? p_find(M.ents[k].parent) : NULL;
        children[up != NULL ? up - M.ents : 0] += up != NULL;
    }
    for (uint32_t i = 0; i < M.n; i++) {
        const p_entity *e = &M.ents[i];
        fp_entity h = {e->h};
        bool ok = fp_entity_alive(W, h) && fp_pos_has(W, h) == p_has(e, P_POS) && fp_vel_has(W, h) == p_has(e, P_VEL) &&
                  fp_hp_has(W, h) == p_has(e, P_HP) && fp_origin_has(W, h) == p_has(e, P_ORIGIN) &&
                  fp_tag_has(W, h) == p_has(e, P_TAG) && fp_mark_has(W, h) == p_has(e, P_MARK);
        ok = ok && (!p_has(e, P_POS) || memcmp(fp_pos_get(W, h), &e->pos, sizeof e->pos) == 0);
        ok = ok && (!p_has(e, P_VEL) || memcmp(fp_vel_get(W, h), &e->vel, sizeof e->vel) == 0);
        ok = ok && (!p_has(e, P_HP) || memcmp(fp_hp_get(W, h), &e->hp, sizeof e->hp) == 0);
        ok = ok && (!p_has(e, P_ORIGIN) || memcmp(fp_origin_get(W, h), &e->origin, sizeof e->origin) == 0);
        uint32_t kids = children[i], n = 0;
        (void)fp_child_of_sources(W, h, &n);
        if (n != kids) {
            fail_msg("op %ld: %#llx has %u sources in ChildOf, the model %u", op, (unsigned long long)e->h, n, kids);
        }
        if (!ok) {
            fail_msg("op %ld: %#llx differs from the model's", op, (unsigned long long)e->h);
        }
    }
    for (uint32_t i = 0; i < 64 && i < M.dead_count; i++) {
        if (fp_entity_alive(W, (fp_entity){M.dead[i]})) {
            fail_msg("op %ld: destroyed %#llx is alive", op, (unsigned long long)M.dead[i]);
        }
    }
    if (hook_added != M.hook_added || hook_removed != M.hook_removed) {
        fail_msg("op %ld: Mark's hooks ran %u / %u times, the model says %u / %u", op, hook_added, hook_removed,
                 M.hook_added, M.hook_removed);
    }
    if (atomic_load(&results_ok) != M.results_ok || atomic_load(&results_missing) != M.results_missing ||
        atomic_load(&made_handles) != 0) {
        fail_msg("op %ld: the systems' calls returned %u OK and %u MISSING (%u handles), the model says %u and %u", op,
                 atomic_load(&results_ok), atomic_load(&results_missing), atomic_load(&made_handles), M.results_ok,
                 M.results_missing);
    }
}

/* --- Operations ------------------------------------------------------------------ */

/* A handle: mostly live, else destroyed or null. */
static fp_entity pick(void) {
    uint32_t r = take(8);
    if (r < 6 && M.n > 0) {
        return (fp_entity){M.ents[take(M.n)].h};
    }
    if (r == 6 && M.dead_count > 0) {
        return (fp_entity){M.dead[take(M.dead_count < 64 ? M.dead_count : 64)]};
    }
    return FP_ENTITY_NULL;
}

static void pick_values(p_entity *v) {
    v->pos = (fp_pos){(int32_t)take(101) - 50, (int32_t)take(21) - 10};
    v->vel = (fp_vel){(int32_t)take(7) - 3, (int32_t)take(7) - 3};
    v->hp = (fp_hp){(int32_t)take(60)};
    v->origin = (fp_origin){pick(), 1, take(100)};
}

static fp_bundle bundle_of(uint8_t mask, const p_entity *v) {
    return (fp_bundle){.pos = (mask & P_BIT(P_POS)) ? &v->pos : NULL,
                       .vel = (mask & P_BIT(P_VEL)) ? &v->vel : NULL,
                       .hp = (mask & P_BIT(P_HP)) ? &v->hp : NULL,
                       .origin = (mask & P_BIT(P_ORIGIN)) ? &v->origin : NULL,
                       .tag = (mask & P_BIT(P_TAG)) != 0,
                       .mark = (mask & P_BIT(P_MARK)) != 0};
}

/* Write the values of mask from v into e (the model's side of an add or set). */
static void p_write(p_entity *e, uint8_t mask, const p_entity *v) {
    if (mask & P_BIT(P_POS)) {
        e->pos = v->pos;
    }
    if (mask & P_BIT(P_VEL)) {
        e->vel = v->vel;
    }
    if (mask & P_BIT(P_HP)) {
        e->hp = v->hp;
    }
    if (mask & P_BIT(P_ORIGIN)) {
        e->origin = v->origin;
    }
}

/* The world's binary save (buf grown as needed); its size. */
static size_t save_world(unsigned char **buf, size_t *cap) {
    size_t size = 0;
    while (fp_world_save_mem(W, *buf, *cap, &size) == STRATA_ERR_LIMIT) {
        *cap = size;
        *buf = realloc(*buf, *cap);
        assert_non_null(*buf);
    }
    return size;
}

/* A hash of a save: FNV-1a over its 8-byte words (then its last bytes),
 * a word a read where a byte a read costs a call under TSan. */
static uint64_t save_hash(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325u;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, sizeof w);
        h = (h ^ w) * 0x100000001b3u;
        h ^= h >> 29;
    }
    for (; i < n; i++) {
        h = (h ^ p[i]) * 0x100000001b3u;
    }
    return h;
}

/* The saves after each step, at one thread count: the 1-thread run keeps
 * each one's hash; a run at more threads compares each with the 1-thread
 * run's as it is made. */
typedef struct trace_t {
    const struct trace_t *reference; /* the 1-thread run's (NULL: this is it) */
    uint64_t seed;
    uint32_t threads, steps;
    uint64_t *hashes;    /* step i's save's (the reference only) */
    unsigned char *last; /* the last step's save */
    size_t last_size, last_cap;
} trace_t;

/* The save after a step: its hash kept (the reference) or compared with the reference's. */
static void trace_step(trace_t *t) {
    t->last_size = save_world(&t->last, &t->last_cap);
    uint64_t h = save_hash(t->last, t->last_size);
    const trace_t *ref = t->reference;
    uint32_t i = t->steps++;
    if (ref != NULL) {
        if (i >= ref->steps || ref->hashes[i] != h) {
            fail_msg("seed %llu: step %u's save at %u threads differs from 1 thread's", (unsigned long long)t->seed, i,
                     t->threads);
        }
        return;
    }
    t->hashes = realloc(t->hashes, sizeof(uint64_t) * t->steps);
    assert_non_null(t->hashes);
    t->hashes[i] = h;
}

static void op_one(long op, trace_t *trace) {
    p_entity v;
    pick_values(&v);
    uint32_t kind = take(12);
    if (M.n + 10 >= P_CAP && kind < 3) {
        kind = 5; /* crowded: destroy instead */
    }
    if (getenv("FUZZ_TRACE") != NULL) {
        fprintf(stderr, "op %ld: %u (n %u)\n", op, kind, M.n);
    }
    switch (kind) {
    case 0:
    case 1:
    case 2: { /* create with a bundle (several tables: any mask) */
        uint8_t mask = (uint8_t)take(1u << P_NC);
        fp_bundle b = bundle_of(mask, &v);
        fp_entity e = fp_entity_create_bundle(W, &b);
        assert_true(p_adopt(e.id));
        p_entity *me = &M.ents[M.n++];
        memset(me, 0, sizeof *me);
        me->h = e.id;
        p_place(M.n - 1);
        me->vel = FP_VEL_DEFAULT;
        me->hp = FP_HP_DEFAULT;
        for (int c = 0; c < P_NC; c++) {
            if (mask & P_BIT(c)) {
                p_add(me, c);
            }
        }
        p_write(me, mask, &v);
        break;
    }
    case 3: { /* add one component */
        fp_entity e = pick();
        int c = (int)take(P_NC);
        uint8_t m = P_BIT(c);
        fp_bundle b = bundle_of(m, &v);
        p_entity *me = p_find(e.id);
        assert_int_equal(fp_entity_add_bundle(W, e, &b), me != NULL ? STRATA_OK : STRATA_ERR_STALE);
        if (me != NULL) {
            p_add(me, c);
            p_write(me, m, &v);
        }
        break;
    }
    case 4: { /* remove one component */
        fp_entity e = pick();
        int c = (int)take(P_NC);
        fp_bundle b = bundle_of(P_BIT(c), &v);
        p_entity *me = p_find(e.id);
        fp_result_t want = me == NULL ? STRATA_ERR_STALE : p_has(me, c) ? STRATA_OK : STRATA_ERR_MISSING;
        assert_int_equal(fp_entity_remove_bundle(W, e, &b), want);
        if (want == STRATA_OK) {
            p_remove(me, c);
        }
        break;
    }
    case 5: { /* destroy */
        fp_entity e = pick();
        p_entity *me = p_find(e.id);
        assert_int_equal(fp_entity_destroy(W, e), me != NULL ? STRATA_OK : STRATA_ERR_STALE);
        if (me != NULL) {
            me->doomed = true;
            p_destroy_doomed(); /* at once, its children with it */
        }
        break;
    }
    case 6: { /* set Pos or Hp */
        fp_entity e = pick();
        p_entity *me = p_find(e.id);
        bool pos = take(2) != 0;
        fp_result_t want = me == NULL                      ? STRATA_ERR_STALE
                           : p_has(me, pos ? P_POS : P_HP) ? STRATA_OK
                                                           : STRATA_ERR_MISSING;
        assert_int_equal(pos ? fp_pos_set(W, e, v.pos) : fp_hp_set(W, e, v.hp), want);
        if (want == STRATA_OK) {
            p_write(me, P_BIT(pos ? P_POS : P_HP), &v);
        }
        break;
    }
    default: { /* a step, through the split systems */
        spawning = M.n < P_CAP;
        assert_int_equal(fp_world_step(W, 0.5f), STRATA_OK);
        p_step();
        made_total += M.made_count;
        adopt_made();
        population += M.n;
        strata_world_stats_t stats;
        fp_world_stats(W, &stats);
        tables_total += stats.tables;
        trace_step(trace);
        break;
    }
    }
    check_world(op);
}

/* Run `ops` operations from `seed` at `threads` threads (chunks of
 * chunk_rows rows), the model checked after each; the saves in *trace. */
static void run(uint32_t threads, uint32_t chunk_rows, uint64_t seed, long ops, trace_t *trace,
                const trace_t *reference) {
    memset(&M, 0, sizeof M);
    memset(trace, 0, sizeof *trace);
    trace->reference = reference;
    trace->seed = seed;
    trace->threads = threads;
    hook_added = hook_removed = 0;
    atomic_store(&results_ok, 0u);
    atomic_store(&results_missing, 0u);
    atomic_store(&made_handles, 0u);
    rng_state = seed;
    population = made_total = tables_total = 0;
    W = fp_world_create(&(fp_world_desc_t){.threads = threads, .chunk_rows = chunk_rows});
    assert_non_null(W);
    assert_int_equal(strata_world_threads(fp_world_core(W)), threads);
    for (long op = 0; op < ops; op++) {
        op_one(op, trace);
    }
    fp_world_destroy(W);
    W = NULL;
}

static void trace_free(trace_t *t) {
    free(t->hashes);
    free(t->last);
    memset(t, 0, sizeof *t);
}

static long option_ops = 2000;
static uint64_t option_seed = 0;
static long shard = 0, shards = 1; /* --shard K/N */
#define PAR_SEEDS 10               /* the stream: seeds 1-10, cut among the shards */

/* The same stream at 1, 2, 3, 4 and 8 threads: each run agrees with the
 * model after every operation, and every step's save is the 1-thread run's. */
static void test_fuzz_par_matches_model_at_every_thread_count(void **state) {
    (void)state;
    static const uint32_t counts[] = {1, 2, 3, 4, 8};
    long n = 0;
    long first = shard_seeds(PAR_SEEDS, shard, shards, &n);
    n = option_seed != 0 ? 1 : n;
    for (long s = 0; s < n; s++) {
        uint64_t seed = option_seed != 0 ? option_seed : (uint64_t)(first + s);
        uint32_t chunk_rows = 2 + (uint32_t)(seed % 5); /* a few rows: many chunks a table */
        /* Before the run, so that a failure names what reproduces it. */
        print_message("seed %llu: %ld operations (test_fuzz_par --seed %llu --ops %ld runs them alone)\n",
                      (unsigned long long)seed, option_ops, (unsigned long long)seed, option_ops);
        trace_t one;
        run(1, chunk_rows, seed, option_ops, &one, NULL);
        for (size_t k = 1; k < sizeof counts / sizeof counts[0]; k++) {
            trace_t other;
            run(counts[k], chunk_rows, seed, option_ops, &other, &one); /* each step's save compared */
            assert_int_equal(other.steps, one.steps);
            assert_int_equal(other.last_size, one.last_size);
            assert_memory_equal(other.last, one.last, one.last_size);
            trace_free(&other);
        }
        print_message("seed %llu: %ld operations (%u steps; %.1f entities in %.1f tables on average, chunks of %u "
                      "rows; %llu made in chunks) at 1, 2, 3, 4 and 8 threads: the model agrees, the saves are "
                      "identical\n",
                      (unsigned long long)seed, option_ops, one.steps, (double)population / one.steps,
                      (double)tables_total / one.steps, chunk_rows, (unsigned long long)made_total);
        trace_free(&one);
    }
}

int main(int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--ops") == 0) {
            option_ops = atol(argv[i + 1]);
        } else if (strcmp(argv[i], "--seed") == 0) {
            option_seed = strtoull(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "--shard") == 0) {
            if (sscanf(argv[i + 1], "%ld/%ld", &shard, &shards) != 2 || shards < 1 || shard < 0 || shard >= shards) {
                fprintf(stderr, "test_fuzz_par: --shard K/N with 0 <= K < N, not '%s'\n", argv[i + 1]);
                return 2;
            }
        }
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fuzz_par_matches_model_at_every_thread_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Events and tracked writes from split systems and shared batches
 * (runtime/pool.c, runtime/event.c): each chunk emits into its own staging
 * buffer, merged in chunk order when the system's chunks are done, so the
 * receivers (before and after the emitter) see the same sequence at 1, 2,
 * 3, 4 and 8 threads and the world's save is byte-identical; the sequence
 * is the one a single chunk gives; out of memory while emitting in a chunk
 * is STRATA_ERR_NOMEM for that emit and for the step, and every event
 * emitted before it is received; set and mut in a split system mark the
 * `changed` set and call on_set, the same at every thread count. Built
 * with ThreadSanitizer too (the tsan variant). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "event.h" /* the merge's own test calls sti_events_stage and sti_events_merge */
#include "tev.h"
#include "thread_test.h"

/* --- What the systems and the hook saw --------------------------------------- */

/* A growable array of u64, appended to by one thread at a time (receivers
 * are in batches of their own; on_set runs on the calling thread). */
typedef struct {
    uint64_t *v;
    size_t n, cap;
} log_t;

static void log_push(log_t *l, uint64_t x) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 1024;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (l->v == NULL) {
            abort(); /* may run on a worker: no cmocka assert there */
        }
    }
    l->v[l->n++] = x;
}

static void log_free(log_t *l) {
    free(l->v);
    *l = (log_t){0};
}

#define STEP_END UINT64_MAX /* the driver closes each step's block in every log */

static log_t early_log, late_log, set_log, watch_log;

static uint64_t hash_in(uint64_t h, uint64_t x) {
    return (h ^ x) * 0x100000001b3u;
}

/* Emit: how many Sparks a row emits (at most 4), and what its emits returned. */
static atomic_uint emits_per_row = 1;
static atomic_uint emits_ok, emits_nomem;
static atomic_uchar *emitted_ok; /* by Spark seq: its emit returned OK (NULL: not kept) */
static size_t emitted_ok_size;

/* The injected failure: allocations fail (thread_test.h's failing_here)
 * on the thread running the chunk of Emit that holds the row whose Seq is
 * fail_seq (every chunk: FAIL_EVERY_CHUNK), for that chunk's run. */
#define FAIL_EVERY_CHUNK UINT32_MAX
static atomic_bool fail_armed;
static atomic_uint fail_seq;

/* What a system saw that it should not have (systems may run on workers,
 * where a cmocka assert cannot jump: the test checks this after a step). */
static atomic_uint oddities;

void tev_early_run(tev_early_ctx *ctx) {
    for (uint32_t i = 0; i < ctx->spark_count; i++) {
        ctx->early_log->hash = hash_in(ctx->early_log->hash, ctx->spark_events[i].seq);
        log_push(&early_log, ctx->spark_events[i].seq);
    }
    ctx->early_log->count += ctx->spark_count;
}

void tev_move_run(tev_move_ctx *ctx) {
    while (tev_move_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->pos[i].x += ctx->vel[i].x * ctx->dt;
            ctx->pos[i].y += ctx->vel[i].y * ctx->dt;
        }
    }
}

void tev_emit_run(tev_emit_ctx *ctx) {
    uint32_t per_row = atomic_load(&emits_per_row);
    bool armed = atomic_load(&fail_armed);
    uint32_t fail_at = atomic_load(&fail_seq);
    while (tev_emit_next(ctx)) {
        for (uint32_t i = 0; armed && i < ctx->count; i++) { /* the chunk that fails, from its start */
            failing_here = failing_here || ctx->seq[i].v == fail_at || fail_at == FAIL_EVERY_CHUNK;
        }
        for (uint32_t i = 0; i < ctx->count; i++) {
            uint32_t seq = ctx->seq[i].v;
            if (mix(seq ^ (uint32_t)(int32_t)ctx->pos[i].x) % 3 == 0) {
                continue;
            }
            for (uint32_t j = 0; j < per_row; j++) {
                uint32_t id = seq * 4 + j;
                strata_result_t r = tev_spark_emit(ctx, &(tev_spark){.who = ctx->entities[i],
                                                                     .seq = id,
                                                                     .x = ctx->pos[i].x});
                if (r == STRATA_OK) {
                    atomic_fetch_add(&emits_ok, 1u);
                    if (emitted_ok != NULL && id < emitted_ok_size) {
                        atomic_store(&emitted_ok[id], 1);
                    }
                } else {
                    atomic_fetch_add(r == STRATA_ERR_NOMEM ? &emits_nomem : &oddities, 1u);
                }
            }
        }
    }
    failing_here = false;
}

/* A Spark from one row in 5, numbered from CHIME_SEQ up. */
#define CHIME_SEQ (1u << 28)

void tev_chime_run(tev_chime_ctx *ctx) {
    while (tev_chime_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            if (mix(ctx->seq[i].v * 7u) % 5 == 0) {
                (void)tev_spark_emit(ctx, &(tev_spark){.who = ctx->entities[i], .seq = CHIME_SEQ + ctx->seq[i].v});
            }
        }
    }
}

/* Each source adds 1 to its own Hp (its write term) and writes its
 * target's through set or mut, and says so with a Bang. */
void tev_hurt_run(tev_hurt_ctx *ctx) {
    tev_world *w = ctx->world;
    while (tev_hurt_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->hp[i].v += 1;
            tev_entity t = ctx->link[i].target;
            uint32_t h = mix((uint32_t)t.id ^ (uint32_t)ctx->hp[i].v * 2654435761u);
            if (h % 3 == 0) {
                if (tev_hp_set(w, t, (tev_hp){(int32_t)(h % 100)}) != STRATA_OK) {
                    atomic_fetch_add(&oddities, 1u);
                }
            } else if (h % 3 == 1) {
                tev_hp *hp = tev_hp_mut(w, t);
                if (hp == NULL) {
                    atomic_fetch_add(&oddities, 1u);
                    continue;
                }
                hp->v -= 2;
            } else {
                continue;
            }
            (void)tev_bang_emit(ctx, &(tev_bang){.target = t, .hp = tev_hp_get(w, t)->v});
        }
    }
}

/* This step's events; a few of the Sparks' emitters die, a few are born. */
void tev_late_run(tev_late_ctx *ctx) {
    tev_world *w = ctx->world;
    tev_late_log *l = ctx->late_log;
    for (uint32_t i = 0; i < ctx->spark_count; i++) {
        const tev_spark *s = &ctx->spark_events[i];
        l->hash = hash_in(l->hash, s->seq);
        log_push(&late_log, s->seq);
        uint32_t h = mix(s->seq ^ l->count);
        if (h % 16 == 0) {
            (void)tev_entity_destroy(w, s->who);
        } else if (h % 16 == 1) {
            uint32_t seq = 3000u + l->count; /* below 2^18 in these tests: 4 * seq + 3 indexes emitted_ok */
            tev_pos p = {s->x, (float)(h % 64)};
            tev_vel v = {(float)(h % 5) - 2.0f, 1.0f};
            (void)tev_entity_create_bundle(w, &(tev_bundle){.pos = &p, .vel = &v, .seq = &(tev_seq){seq}});
        }
        l->count++;
    }
    for (uint32_t i = 0; i < ctx->bang_count; i++) {
        l->hash = hash_in(l->hash, ctx->bang_events[i].target.id * 131u + (uint64_t)(uint32_t)ctx->bang_events[i].hp);
    }
}

void tev_watch_run(tev_watch_ctx *ctx) {
    while (tev_watch_next(ctx)) {
        for (uint32_t i = 0; i < ctx->count; i++) {
            ctx->watch_log->hash = hash_in(ctx->watch_log->hash, ctx->entities[i].id);
            log_push(&watch_log, ctx->entities[i].id);
        }
        ctx->watch_log->count += ctx->count;
    }
}

void tev_hp_on_set(tev_world *w, tev_entity e, tev_hp *value) {
    (void)w;
    log_push(&set_log, e.id << 16 ^ (uint64_t)(uint32_t)value->v);
}

/* --- Helpers ----------------------------------------------------------------- */

/* A world of `threads` threads: `emitters` entities Emit visits and `pairs`
 * source / target pairs for Hurt, from a fixed seed. */
static tev_world *world_with(uint32_t threads, uint32_t chunk_rows, uint32_t emitters, uint32_t pairs) {
    tev_world *w = tev_world_create(&(tev_world_desc_t){.allocator = {fail_alloc, fail_realloc, fail_free, NULL},
                                                        .threads = threads,
                                                        .chunk_rows = chunk_rows});
    assert_non_null(w);
    for (uint32_t i = 0; i < emitters; i++) {
        uint32_t s = mix(i + 1);
        tev_pos p = {(float)(s % 1000), (float)(s / 1000 % 1000)};
        tev_vel v = {(float)(s % 9) - 4.0f, (float)(s % 13) - 6.0f};
        tev_entity e = tev_entity_create_bundle(w, &(tev_bundle){.pos = &p, .vel = &v, .seq = &(tev_seq){i}});
        assert_true(e.id != 0);
    }
    for (uint32_t i = 0; i < pairs; i++) {
        tev_entity t = tev_entity_create_bundle(w, &(tev_bundle){.hp = &(tev_hp){(int32_t)(mix(i) % 50)}});
        tev_entity s = tev_entity_create_bundle(w, &(tev_bundle){.hp = &(tev_hp){0}, .link = &(tev_link){t}});
        assert_true(t.id != 0 && s.id != 0);
    }
    return w;
}

static void logs_reset(void) {
    log_free(&early_log);
    log_free(&late_log);
    log_free(&set_log);
    log_free(&watch_log);
}

/* Close a step's block in every log. */
static void logs_step_end(void) {
    log_push(&early_log, STEP_END);
    log_push(&late_log, STEP_END);
    log_push(&set_log, STEP_END);
    log_push(&watch_log, STEP_END);
}

/* What one run saw: its logs and the world's save. */
typedef struct {
    log_t early, late, set, watch;
    unsigned char *save;
    size_t save_size;
} outcome_t;

static void outcome_free(outcome_t *o) {
    log_free(&o->early);
    log_free(&o->late);
    log_free(&o->set);
    log_free(&o->watch);
    free(o->save);
}

static outcome_t run(uint32_t threads, uint32_t chunk_rows, int steps) {
    logs_reset();
    atomic_store(&bytes_held, 0);
    tev_world *w = world_with(threads, chunk_rows, 3000, 1000);
    assert_int_equal(strata_world_threads(tev_world_core(w)), threads);
    for (int s = 0; s < steps; s++) {
        assert_int_equal(tev_world_step(w, 0.25f), STRATA_OK);
        logs_step_end();
    }
    assert_int_equal(atomic_load(&oddities), 0u);
    outcome_t o = {early_log, late_log, set_log, watch_log, NULL, 0};
    early_log = late_log = set_log = watch_log = (log_t){0};
    assert_int_equal(tev_world_save_mem(w, NULL, 0, &o.save_size), STRATA_ERR_LIMIT);
    o.save = malloc(o.save_size);
    assert_non_null(o.save);
    assert_int_equal(tev_world_save_mem(w, o.save, o.save_size, &o.save_size), STRATA_OK);
    tev_world_destroy(w);
    assert_int_equal(atomic_load(&bytes_held), 0);
    return o;
}

static void assert_logs_equal(const log_t *a, const log_t *b) {
    assert_int_equal(a->n, b->n);
    assert_memory_equal(a->v, b->v, a->n * sizeof *a->v);
}

/* --- Tests --------------------------------------------------------------------- */

/* Over many steps, the sequences every receiver, the on_set hook and the
 * changed set saw, and the world's save, are the same at every thread count. */
static void test_thread_events_same_at_1_2_3_4_8_threads(void **state) {
    (void)state;
    static const uint32_t counts[] = {2, 3, 4, 8};
    outcome_t one = run(1, 64, 60);
    assert_true(one.late.n > 60 * 1000); /* about 2 Sparks in 3 rows, 3000 rows */
    assert_true(one.set.n > 60 * 1000);
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        outcome_t other = run(counts[i], 64, 60);
        assert_logs_equal(&other.early, &one.early);
        assert_logs_equal(&other.late, &one.late);
        assert_logs_equal(&other.set, &one.set);
        assert_logs_equal(&other.watch, &one.watch);
        assert_int_equal(other.save_size, one.save_size);
        assert_memory_equal(other.save, one.save, one.save_size);
        outcome_free(&other);
    }
    outcome_free(&one);
}

/* The same thread count twice gives the same sequences (no run-to-run noise). */
static void test_thread_events_every_run_the_same(void **state) {
    (void)state;
    outcome_t a = run(4, 32, 30), b = run(4, 32, 30);
    assert_logs_equal(&a.late, &b.late);
    assert_logs_equal(&a.set, &b.set);
    assert_int_equal(a.save_size, b.save_size);
    assert_memory_equal(a.save, b.save, a.save_size);
    outcome_free(&a);
    outcome_free(&b);
}

/* Chunk order is table and row order: the Sparks arrive as a single chunk
 * (an unsplit loop over the same rows) emits them. */
static void test_thread_events_chunks_give_the_unsplit_sequence(void **state) {
    (void)state;
    outcome_t whole = run(1, 1u << 30, 20), cut = run(3, 50, 20);
    assert_logs_equal(&cut.late, &whole.late);
    assert_logs_equal(&cut.early, &whole.early);
    outcome_free(&whole);
    outcome_free(&cut);
}

/* Early (before the emitter) sees in step s what Late (after it) saw in
 * step s - 1, and nothing in step 1. */
static void test_thread_events_receivers_before_and_after_the_emitter(void **state) {
    (void)state;
    outcome_t o = run(2, 64, 25);
    assert_true(o.early.n > 1 && o.early.v[0] == STEP_END); /* step 1: nothing yet */
    size_t last_block = 0;                                  /* the length of late's last block, its STEP_END included */
    while (last_block < o.late.n && o.late.v[o.late.n - 2 - last_block] != STEP_END) {
        last_block++;
    }
    last_block++;
    assert_int_equal(o.early.n - 1, o.late.n - last_block);
    assert_memory_equal(o.early.v + 1, o.late.v, (o.early.n - 1) * sizeof *o.early.v);
    /* Emit and Chime share a batch: each step, Emit's Sparks, then Chime's. */
    bool chimed = false;
    uint32_t chimes = 0;
    for (size_t i = 0; i < o.late.n; i++) {
        bool chime = o.late.v[i] != STEP_END && o.late.v[i] >= CHIME_SEQ;
        assert_false(chimed && !chime && o.late.v[i] != STEP_END);
        chimed = chime || (chimed && o.late.v[i] != STEP_END);
        chimes += chime;
    }
    assert_true(chimes > 25 * 3000 / 10);
    outcome_free(&o);
}

/* The Sparks Late received in the last step run: its last block. */
static log_t last_block_of(const log_t *l) {
    size_t end = l->n - 1, start = end;
    while (start > 0 && l->v[start - 1] != STEP_END) {
        start--;
    }
    log_t b = {0};
    for (size_t i = start; i < end; i++) {
        log_push(&b, l->v[i]);
    }
    return b;
}

/* Out of memory while emitting in the chunk holding `fail_at` (or in
 * every chunk) of Emit over `emitters` rows: those emits return NOMEM, the step returns NOMEM, and Late
 * receives every Spark whose emit returned OK, in the order the step
 * without the failure gives them; the world then steps on and holds
 * nothing more at its end. The same at 1, 2 and 4 threads. */
static void out_of_memory_in_chunks(uint32_t fail_at, uint32_t emitters) {
    static const uint32_t counts[] = {1, 2, 4};
    log_t first_failed = {0};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        /* Two warm-up steps, then one with 4 Sparks a row: in the failing
         * run the failing chunks cannot grow their buffers (the batch's
         * first chunk writes the world's, the others their own). */
        log_t blocks[2];
        for (int failing = 0; failing < 2; failing++) {
            logs_reset();
            atomic_store(&bytes_held, 0);
            tev_world *w = world_with(counts[c], 64, emitters, 0);
            tev_chime_enable(w, false); /* only Emit's Sparks, numbered below emitted_ok_size */
            for (int s = 0; s < 2; s++) {
                assert_int_equal(tev_world_step(w, 0.25f), STRATA_OK);
                logs_step_end();
            }
            emitted_ok_size = (size_t)1 << 20;
            emitted_ok = calloc(emitted_ok_size, 1);
            assert_non_null(emitted_ok);
            atomic_store(&emits_per_row, 4u);
            atomic_store(&emits_ok, 0u);
            atomic_store(&emits_nomem, 0u);
            atomic_store(&fail_seq, fail_at);
            atomic_store(&fail_armed, failing != 0);
            strata_result_t r = tev_world_step(w, 0.25f);
            atomic_store(&fail_armed, false);
            atomic_store(&emits_per_row, 1u);
            logs_step_end();
            blocks[failing] = last_block_of(&late_log);
            assert_int_equal(blocks[failing].n, atomic_load(&emits_ok));
            if (!failing) {
                assert_int_equal(r, STRATA_OK);
                assert_int_equal(atomic_load(&emits_nomem), 0u);
            } else {
                assert_int_equal(r, STRATA_ERR_NOMEM);
                assert_true(atomic_load(&emits_nomem) > 0);
                /* Every Spark emitted OK arrived, in the order of the step without the failure. */
                size_t k = 0;
                for (size_t i = 0; i < blocks[0].n; i++) {
                    assert_true(blocks[0].v[i] < emitted_ok_size);
                    if (atomic_load(&emitted_ok[blocks[0].v[i]])) {
                        assert_true(k < blocks[1].n);
                        assert_int_equal(blocks[1].v[k++], blocks[0].v[i]);
                    }
                }
                assert_int_equal(k, blocks[1].n);
                assert_true(blocks[1].n < blocks[0].n);
            }
            free(emitted_ok);
            emitted_ok = NULL;
            for (int s = 0; s < 3; s++) {
                assert_int_equal(tev_world_step(w, 0.25f), STRATA_OK);
                logs_step_end();
            }
            tev_world_destroy(w);
            assert_int_equal(atomic_load(&bytes_held), 0);
        }
        /* The failure itself is the same at every thread count. */
        if (c == 0) {
            first_failed = blocks[1];
        } else {
            assert_logs_equal(&blocks[1], &first_failed);
            log_free(&blocks[1]);
        }
        log_free(&blocks[0]);
    }
    log_free(&first_failed);
    logs_reset();
}

static void test_thread_events_out_of_memory_in_a_chunk(void **state) {
    (void)state;
    out_of_memory_in_chunks(1000u, 3000);
}

static void test_thread_events_out_of_memory_in_every_chunk(void **state) {
    (void)state;
    out_of_memory_in_chunks(FAIL_EVERY_CHUNK, 3000);
}

/* One chunk, the batch's first, which emits into the world's buffer
 * itself: its growth fails there, and the step still says so. */
static void test_thread_events_out_of_memory_in_the_first_chunk(void **state) {
    (void)state;
    out_of_memory_in_chunks(FAIL_EVERY_CHUNK, 50);
}

/* When the world's buffer cannot grow to take a system's chunks, the
 * chunks that fit are appended in chunk order, the first that does not and
 * those after it are dropped (never a gap), and the merge says NOMEM. */
static void test_thread_events_merge_out_of_memory_keeps_a_prefix(void **state) {
    (void)state;
    logs_reset();
    atomic_store(&bytes_held, 0);
    tev_world *w = world_with(1, 0, 0, 0);
    strata_world_t *core = tev_world_core(w);
    tev_spark one = {.seq = 1};
    assert_int_equal(tev_spark_send(w, &one), STRATA_OK); /* the buffer: room for 64, 1 held */
    sti_event_buf_t *chunks[3];
    for (uint32_t c = 0; c < 3; c++) {
        assert_int_equal(sti_events_stage(core, &chunks[c]), STRATA_OK);
        for (uint32_t i = 0; i < 30; i++) { /* 30 a chunk: the first two fit in 63, not the third */
            tev_spark v = {.seq = 100 * (c + 1) + i};
            assert_int_equal(strata_event_push(core, &chunks[c][TEV_EVENT_SPARK].q, TEV_EVENT_SPARK, &v), STRATA_OK);
        }
    }
    failing_here = true;
    assert_int_equal(sti_events_merge(core, chunks, 3), STRATA_ERR_NOMEM);
    failing_here = false;
    assert_int_equal(strata_event_held(core, TEV_EVENT_SPARK), 61u);
    /* What the first receiver of the next step sees: the one sent, then the two chunks in order. */
    assert_int_equal(tev_world_step(w, 0.25f), STRATA_OK);
    assert_int_equal(early_log.n, 61u);
    for (uint32_t i = 1; i < 61; i++) {
        assert_int_equal(early_log.v[i], 100 * (1 + (i - 1) / 30) + (i - 1) % 30);
    }
    for (uint32_t c = 0; c < 3; c++) {
        assert_int_equal(chunks[c][TEV_EVENT_SPARK].q.tail, 0u); /* emptied, the dropped chunk too */
        sti_events_unstage(core, chunks[c]);
    }
    tev_world_destroy(w);
    assert_int_equal(atomic_load(&bytes_held), 0);
    logs_reset();
}

/* set and mut on the targets of a split system (entities its query does not
 * match) reach on_set and the changed set: every target whose Hp changed
 * is there with its new value, at 1 and 3 threads alike. */
static void test_thread_events_set_and_mut_in_a_split_system_are_marked(void **state) {
    (void)state;
    enum { PAIRS = 700 };
    log_t seen[2] = {{0}, {0}};
    for (int run_ = 0; run_ < 2; run_++) {
        logs_reset();
        atomic_store(&bytes_held, 0);
        tev_world *w = world_with(run_ == 0 ? 1 : 3, 64, 0, PAIRS);
        assert_int_equal(tev_world_step(w, 0.25f), STRATA_OK); /* the values the creates brought settle */
        logs_reset();
        /* The targets and their values before. */
        static tev_entity targets[PAIRS];
        static int32_t before[PAIRS];
        uint32_t n = 0;
        tev_hurt_ctx ctx = tev_hurt_begin(w, 0.0f);
        while (tev_hurt_next(&ctx)) {
            for (uint32_t i = 0; i < ctx.count; i++) {
                targets[n] = ctx.link[i].target;
                before[n++] = tev_hp_get(w, ctx.link[i].target)->v;
            }
        }
        assert_int_equal(tev_hurt_end(&ctx), STRATA_OK);
        assert_int_equal(n, PAIRS);
        logs_reset(); /* the sources' on_set: Hurt's write term yielded them */
        assert_int_equal(tev_world_step(w, 0.25f), STRATA_OK);
        assert_int_equal(atomic_load(&oddities), 0u);
        uint32_t changed = 0;
        for (uint32_t i = 0; i < n; i++) {
            int32_t now = tev_hp_get(w, targets[i])->v;
            if (now == before[i]) {
                continue;
            }
            changed++;
            bool in_set = false, in_watch = false;
            for (size_t k = 0; k < set_log.n; k++) {
                in_set = in_set || set_log.v[k] == (targets[i].id << 16 ^ (uint64_t)(uint32_t)now);
            }
            for (size_t k = 0; k < watch_log.n; k++) {
                in_watch = in_watch || watch_log.v[k] == targets[i].id;
            }
            assert_true(in_set);
            assert_true(in_watch);
        }
        assert_true(changed > PAIRS / 3);
        assert_true(set_log.n >= PAIRS + changed); /* the sources (write term) and the targets */
        seen[run_] = set_log;
        set_log = (log_t){0};
        tev_world_destroy(w);
        assert_int_equal(atomic_load(&bytes_held), 0);
    }
    assert_logs_equal(&seen[0], &seen[1]);
    log_free(&seen[0]);
    log_free(&seen[1]);
    logs_reset();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thread_events_same_at_1_2_3_4_8_threads),
        cmocka_unit_test(test_thread_events_every_run_the_same),
        cmocka_unit_test(test_thread_events_chunks_give_the_unsplit_sequence),
        cmocka_unit_test(test_thread_events_receivers_before_and_after_the_emitter),
        cmocka_unit_test(test_thread_events_out_of_memory_in_a_chunk),
        cmocka_unit_test(test_thread_events_out_of_memory_in_every_chunk),
        cmocka_unit_test(test_thread_events_out_of_memory_in_the_first_chunk),
        cmocka_unit_test(test_thread_events_merge_out_of_memory_keeps_a_prefix),
        cmocka_unit_test(test_thread_events_set_and_mut_in_a_split_system_are_marked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Tests of the inspector (libstrata_inspect): its JSON API over loopback,
 * answered while the game steps on this thread; writes on and off; more
 * than 10,000 malformed or hostile requests, each answered 4xx, with the
 * game stepping throughout; and the cost of a poll with no client. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>

#include <cmocka.h>

#include "strata_inspect.h" /* first: the world's header then has insp_inspect_start */

#include "insp.h"
#include "insp_game.h"

/* --- The game (insp_game.h) ----------------------------------------------------- */

#define ENTITIES 40
#define POISONED 4 /* i % 10 == 4: with Health, without Label */

typedef struct fixture_t {
    insp_world *w;
    strata_inspect_t *in;
    insp_entity e[ENTITIES];
    insp_entity gone; /* destroyed: its handle is stale */
    unsigned long steps;
    bool still; /* answer requests without stepping (the world changes only by them) */
} fixture_t;

static int setup(void **state, bool writes) {
    fixture_t *f = calloc(1, sizeof *f);
    f->w = insp_world_create(NULL);
    assert_non_null(f->w);
    for (uint32_t i = 0; i < ENTITIES; i++) {
        assert_true(insp_game_spawn(f->w, i, &f->e[i]));
    }
    f->gone = insp_entity_create(f->w);
    assert_int_equal(insp_entity_destroy(f->w, f->gone), STRATA_OK);
    strata_inspect_desc_t desc = {.any_port = true, .writes = writes};
    assert_int_equal(insp_inspect_start(f->w, &desc, &f->in), STRATA_OK);
    assert_true(strata_inspect_port(f->in) != 0);
    *state = f;
    return 0;
}

static int setup_writes(void **state) {
    return setup(state, true);
}

static int setup_read_only(void **state) {
    return setup(state, false);
}

static int teardown(void **state) {
    fixture_t *f = *state;
    strata_inspect_stop(f->in);
    insp_world_destroy(f->w);
    free(f);
    return 0;
}

/* --- A client on its own thread, while the game steps on this one -------------- */

typedef struct exchange_t {
    uint16_t port;
    const char *const *requests; /* raw bytes, NUL-terminated... */
    const size_t *sizes;         /* ...or of these sizes */
    size_t count;
    int *statuses; /* the status line's code of each answer; 0: none */
    char *reply;   /* the last answer, headers and body */
    size_t reply_cap;
    /* Set by exchange(): what the client thread tells the game's. */
    pthread_mutex_t lock;
    pthread_cond_t moved; /* an answer came, or the last */
    size_t answered;
    bool done;
} exchange_t;

/* Send one raw request on a fresh connection; the answer's status code (0: none). */
static int exchange_one(uint16_t port, const char *raw, size_t n, char *reply, size_t cap) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        return 0;
    }
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        close(fd);
        return 0;
    }
    for (size_t sent = 0; sent < n;) {
        ssize_t k = send(fd, raw + sent, n - sent, MSG_NOSIGNAL);
        if (k <= 0) {
            break; /* the server answered and closed early: read what it said */
        }
        sent += (size_t)k;
    }
    shutdown(fd, SHUT_WR);
    size_t got = 0;
    char scratch[4096];
    for (;;) {
        char *into = got + 1 < cap ? reply + got : scratch;
        size_t room = got + 1 < cap ? cap - 1 - got : sizeof scratch;
        ssize_t k = recv(fd, into, room, 0);
        if (k <= 0) {
            break;
        }
        got += into == scratch ? 0 : (size_t)k;
    }
    reply[got] = '\0';
    close(fd);
    int status = 0;
    if (sscanf(reply, "HTTP/1.%*1[01] %3d", &status) != 1) {
        status = 0; /* not an HTTP/1.x status line */
    }
    return status;
}

static void *exchange_run(void *arg) {
    exchange_t *x = arg;
    for (size_t i = 0; i < x->count; i++) {
        size_t n = x->sizes != NULL ? x->sizes[i] : strlen(x->requests[i]);
        x->statuses[i] = exchange_one(x->port, x->requests[i], n, x->reply, x->reply_cap);
        pthread_mutex_lock(&x->lock);
        x->answered++;
        x->done = i + 1 == x->count;
        pthread_cond_signal(&x->moved);
        pthread_mutex_unlock(&x->lock);
    }
    return NULL;
}

/* Run the exchange on a thread while this one polls and steps the world,
 * as a game does a frame: after each answer, or 0.1 ms after the last
 * poll (a request queued for the game waits for one), not in a spin that
 * takes the processor from the client and the server. */
static void exchange(fixture_t *f, exchange_t *x) {
    x->port = strata_inspect_port(f->in);
    x->answered = 0;
    x->done = x->count == 0;
    pthread_condattr_t clock;
    assert_int_equal(pthread_condattr_init(&clock), 0);
    assert_int_equal(pthread_condattr_setclock(&clock, CLOCK_MONOTONIC), 0);
    assert_int_equal(pthread_cond_init(&x->moved, &clock), 0);
    pthread_condattr_destroy(&clock);
    assert_int_equal(pthread_mutex_init(&x->lock, NULL), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, exchange_run, x), 0);
    pthread_mutex_lock(&x->lock);
    while (!x->done) {
        size_t seen = x->answered;
        pthread_mutex_unlock(&x->lock);
        if (strata_inspect_poll(f->in) && !f->still) {
            assert_int_equal(insp_world_step(f->w, 1.0f / 60.0f), STRATA_OK);
            f->steps++;
        }
        pthread_mutex_lock(&x->lock);
        if (!x->done && x->answered == seen) {
            struct timespec until;
            clock_gettime(CLOCK_MONOTONIC, &until);
            until.tv_nsec += 100000;
            until.tv_sec += until.tv_nsec / 1000000000;
            until.tv_nsec %= 1000000000;
            pthread_cond_timedwait(&x->moved, &x->lock, &until);
        }
    }
    pthread_mutex_unlock(&x->lock);
    pthread_join(t, NULL);
    pthread_cond_destroy(&x->moved);
    pthread_mutex_destroy(&x->lock);
}

static char reply[1 << 16];

/* One request: its status; its body is in `reply` (after the headers). */
static int ask(fixture_t *f, const char *raw) {
    int status = 0;
    exchange_t x = {.requests = &raw, .count = 1, .statuses = &status, .reply = reply, .reply_cap = sizeof reply};
    exchange(f, &x);
    return status;
}

/* The body of the last answer. */
static const char *body(void) {
    const char *b = strstr(reply, "\r\n\r\n");
    return b != NULL ? b + 4 : "";
}

static int get(fixture_t *f, const char *path) {
    char raw[512];
    snprintf(raw, sizeof raw, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n", path, strata_inspect_port(f->in));
    return ask(f, raw);
}

/* A POST as the page sends it: its origin, JSON, this run's secret. */
static int post(fixture_t *f, const char *path, const char *json) {
    char raw[1024];
    unsigned port = strata_inspect_port(f->in);
    snprintf(raw, sizeof raw,
             "POST %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nOrigin: http://127.0.0.1:%u\r\nSec-Fetch-Site: same-origin\r\n"
             "Content-Type: application/json\r\nX-Strata-Token: %s\r\nContent-Length: %zu\r\n\r\n%s",
             path, port, port, strata_inspect_token(f->in), strlen(json), json);
    return ask(f, raw);
}

/* A save of the world (its entities, components, links and resources),
 * which systems are on, and the score: what a refused request must leave. */
typedef struct snapshot_t {
    void *save;
    size_t size;
    bool move, tally, watch, hurt;
} snapshot_t;

static snapshot_t snapshot(fixture_t *f) {
    snapshot_t s = {0};
    strata_world_t *core = insp_world_core(f->w);
    assert_int_equal(strata_world_save_mem(core, NULL, 0, &s.size), STRATA_ERR_LIMIT);
    s.save = malloc(s.size);
    assert_non_null(s.save);
    assert_int_equal(strata_world_save_mem(core, s.save, s.size, &s.size), STRATA_OK);
    s.move = insp_move_enabled(f->w);
    s.tally = insp_tally_enabled(f->w);
    s.watch = insp_watch_enabled(f->w);
    s.hurt = insp_hurt_enabled(f->w);
    return s;
}

/* The world is as the snapshot says (and the snapshot is freed). */
static void assert_unchanged(fixture_t *f, snapshot_t *before) {
    snapshot_t now = snapshot(f);
    assert_int_equal(now.size, before->size);
    assert_memory_equal(now.save, before->save, now.size);
    assert_true(now.move == before->move && now.tally == before->tally && now.watch == before->watch &&
                now.hurt == before->hurt);
    free(now.save);
    free(before->save);
}

/* The unsigned number after "key": in the last answer's body. */
static unsigned long long member(const char *key) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *at = strstr(body(), pattern);
    assert_non_null(at);
    return strtoull(at + strlen(pattern), NULL, 10);
}

/* An entity id as the inspector spells it: "4v1" (index, v, generation). */
#define SPELL(id) (unsigned)((id)&0xffffffffu), (unsigned)((id) >> 32)

/* --- Reads ------------------------------------------------------------------------ */

static void test_inspect_world_counts(void **state) {
    fixture_t *f = *state;
    strata_world_stats_t st;
    assert_int_equal(get(f, "/api/world"), 200);
    insp_world_stats(f->w, &st);
    assert_int_equal(member("entities"), st.entities);
    assert_int_equal(member("archetypes"), st.tables);
    assert_non_null(strstr(body(), "\"systems\":[\"Move\",\"Watch\",\"Hurt\",\"Tally\",\"Blink\",\"Beat\",\"Greet\"]"));
    assert_non_null(strstr(body(), "\"components\":[\"Position\",\"Velocity\",\"Health\",\"Label\",\"Frozen\""));
    assert_true(member("bytes") > 0);
    assert_non_null(strstr(body(), "\"world\":\"insp\""));
    assert_non_null(strstr(body(), "\"writes\":true"));
    assert_true(f->steps > 0); /* the game stepped while the request waited */
}

static void test_inspect_archetypes(void **state) {
    fixture_t *f = *state;
    assert_int_equal(get(f, "/api/archetypes"), 200);
    assert_non_null(strstr(body(), "\"components\":[\"Position\",\"Velocity\",\"Health\",\"Label\"]"));
    assert_non_null(strstr(body(), "\"count\":4,")); /* i % 10 == 0: Position, Velocity, Health, Label */
}

static void test_inspect_entities_paged_and_filtered(void **state) {
    fixture_t *f = *state;
    assert_int_equal(get(f, "/api/entities?limit=5"), 200);
    assert_int_equal(member("total"), ENTITIES);
    assert_int_equal(member("limit"), 5);
    assert_int_equal(get(f, "/api/entities?with=Health"), 200);
    assert_int_equal(member("total"), ENTITIES / 2);
    assert_int_equal(get(f, "/api/entities?with=Health,Label"), 200);
    assert_int_equal(member("total"), ENTITIES / 10);
    assert_int_equal(get(f, "/api/entities?query=Labelled"), 200);
    assert_int_equal(member("total"), ENTITIES / 5);
    assert_int_equal(get(f, "/api/entities?offset=38&limit=10"), 200);
    assert_non_null(strstr(body(), "\"offset\":38"));
    const char *last = strstr(body(), "\"id\":");
    assert_non_null(last);
    assert_non_null(strstr(last + 1, "\"id\":"));
    assert_null(strstr(strstr(last + 1, "\"id\":") + 1, "\"id\":")); /* two of them: 38 and 39 */
}

/* One spelling of an entity everywhere in the API: "4v1" (index, v,
 * generation) in the list, in the entity's answer, in its links and entity
 * fields, and in the paths, which take nothing else (once the list said
 * 4v1 and the entity's answer 4294967300). */
static void test_inspect_entity_spelled_one_way(void **state) {
    fixture_t *f = *state;
    f->still = true;
    insp_entity e = f->e[10], parent = f->e[3];
    assert_int_equal(insp_child_of_set(f->w, e, parent), STRATA_OK);
    assert_int_equal(insp_aim_add(f->w, e, (insp_aim){.who = parent}), STRATA_OK);
    char path[64], spelled[32], parent_spelled[32];
    snprintf(spelled, sizeof spelled, "\"%uv%u\"", SPELL(e.id));
    snprintf(parent_spelled, sizeof parent_spelled, "\"%uv%u\"", SPELL(parent.id));
    snprintf(path, sizeof path, "/api/entity/%uv%u", SPELL(e.id));
    assert_int_equal(get(f, path), 200);
    char expect[256];
    snprintf(expect, sizeof expect, "{\"id\":%s,\"label\":\"box\",\"archetype\":", spelled);
    assert_memory_equal(body(), expect, strlen(expect));
    assert_non_null(strstr(body(), "\"Label\":{\"text\":\"box\",\"kind\":\"plain\",\"slots\":[0,0,0]}"));
    snprintf(expect, sizeof expect, "\"ChildOf\":{\"target\":%s}", parent_spelled);
    assert_non_null(strstr(body(), expect));
    snprintf(expect, sizeof expect, "\"Aim\":{\"who\":%s}", parent_spelled);
    assert_non_null(strstr(body(), expect));
    assert_null(strstr(body(), "4294967")); /* no 64-bit handle anywhere */
    snprintf(path, sizeof path, "/api/entity-state/%uv%u", SPELL(e.id));
    assert_int_equal(get(f, path), 200);
    snprintf(expect, sizeof expect, "{\"id\":%s,", spelled);
    assert_memory_equal(body(), expect, strlen(expect));
    assert_int_equal(get(f, "/api/entities?limit=1000"), 200);
    assert_non_null(strstr(body(), spelled));
    assert_null(strstr(body(), "4294967"));
    /* The 64-bit number, leading zeros, a generation 0: not a spelling. */
    snprintf(path, sizeof path, "/api/entity/%llu", (unsigned long long)e.id);
    assert_int_equal(get(f, path), 404);
    snprintf(path, sizeof path, "/api/entity/0%uv%u", SPELL(e.id));
    assert_int_equal(get(f, path), 404);
    snprintf(path, sizeof path, "/api/entity/%uv0", (unsigned)(e.id & 0xffffffffu));
    assert_int_equal(get(f, path), 404);
    /* An entity field is written as it is shown; a number is refused. */
    snprintf(path, sizeof path, "/api/entity/%uv%u", SPELL(e.id));
    assert_int_equal(post(f, path, "{\"component\":\"Aim\",\"field\":\"who\",\"value\":null}"), 200);
    assert_int_equal(insp_aim_get(f->w, e)->who.id, 0);
    char json[160];
    snprintf(json, sizeof json, "{\"component\":\"Aim\",\"field\":\"who\",\"value\":%llu}",
             (unsigned long long)parent.id);
    assert_int_equal(post(f, path, json), 400);
    snprintf(json, sizeof json, "{\"component\":\"Aim\",\"field\":\"who\",\"value\":%s}", parent_spelled);
    assert_int_equal(post(f, path, json), 200);
    assert_int_equal(insp_aim_get(f->w, e)->who.id, parent.id);
}

static void test_inspect_systems_resources_schedule(void **state) {
    fixture_t *f = *state;
    assert_int_equal(get(f, "/api/systems"), 200);
    assert_non_null(strstr(body(), "\"name\":\"Move\",\"phase\":\"update\",\"enabled\":true"));
    assert_non_null(
        strstr(body(), "\"matching\":40,\"reads\":[\"Velocity\"],\"writes\":[\"Position\"],\"without\":[\"Frozen\"]"));
    assert_int_equal(get(f, "/api/resources"), 200);
    assert_non_null(strstr(body(), "{\"Score\":{\"value\":"));
    assert_int_equal(get(f, "/api/schedule.svg"), 200);
    assert_non_null(strstr(reply, "Content-Type: image/svg+xml"));
    assert_non_null(strstr(body(), "0. Move</text>"));
    assert_non_null(strstr(body(), "3. Tally</text>"));
}

/* The generated step times every system for the inspector: no game code. */
static void test_inspect_step_times_each_system(void **state) {
    fixture_t *f = *state;
    /* No client yet: the step is not observed. A first request starts the timing. */
    assert_null(strata_world_step_observer(insp_world_core(f->w)));
    assert_int_equal(get(f, "/api/world"), 200);
    assert_true(strata_world_step_observer(insp_world_core(f->w)) != NULL);
    assert_int_equal(get(f, "/api/systems"), 200);
    assert_true(f->steps > 0);
    /* Answered at a safe point after the steps so far: each ran each step. */
    const char *move = strstr(body(), "\"name\":\"Move\"");
    assert_non_null(move);
    assert_non_null(strstr(move, "\"batch\":null")); /* no parallel schedule: no batch */
    assert_true(strtoull(strstr(move, "\"runs\":") + 7, NULL, 10) > 0);
    assert_true(strtod(strstr(move, "\"last_ms\":") + 10, NULL) > 0.0);
    assert_int_equal(strtoull(strstr(move, "\"visited\":") + 10, NULL, 10), ENTITIES);
    /* Watch is given its changed set: the poisoned, written by Hurt each step. */
    const char *watch = strstr(body(), "\"name\":\"Watch\"");
    assert_non_null(watch);
    assert_non_null(strstr(watch, "\"changed\":true"));
    assert_int_equal(strtoull(strstr(watch, "\"visited\":") + 10, NULL, 10), POISONED);
    assert_int_equal(strtoull(strstr(watch, "\"matching\":") + 11, NULL, 10), ENTITIES / 2);
    /* Stopped, the inspector leaves the step unobserved: no clock is read. */
    strata_inspect_stop(f->in);
    f->in = NULL;
    assert_null(strata_world_step_observer(insp_world_core(f->w)));
    assert_int_equal(insp_world_step(f->w, 1.0f / 60.0f), STRATA_OK);
}

/* A load replaces the world's contents, not the tool watching its step. */
static void test_inspect_load_keeps_step_observer(void **state) {
    fixture_t *f = *state;
    strata_world_t *core = insp_world_core(f->w);
    assert_int_equal(get(f, "/api/world"), 200);
    const strata_step_observer_t *observer = strata_world_step_observer(core);
    assert_non_null(observer);
    size_t size = 0;
    assert_int_equal(strata_world_save_mem(core, NULL, 0, &size), STRATA_ERR_LIMIT);
    void *buf = malloc(size);
    assert_int_equal(strata_world_save_mem(core, buf, size, &size), STRATA_OK);
    assert_int_equal(strata_world_load_mem(core, buf, size, NULL), STRATA_OK);
    free(buf);
    assert_ptr_equal(strata_world_step_observer(core), observer);
    assert_int_equal(get(f, "/api/systems"), 200);
    assert_non_null(strstr(body(), "\"name\":\"Move\""));
}

/* The changed sets and the aspects, as the world counts them. */
static void test_inspect_changes_and_aspects(void **state) {
    fixture_t *f = *state;
    assert_int_equal(get(f, "/api/changes"), 200);
    /* Between steps, as when the answer was made: Hurt marked the poisoned after Watch ran. */
    assert_int_equal(insp_watch_changed_count(f->w), POISONED);
    assert_non_null(strstr(body(), "{\"components\":[{\"name\":\"Health\",\"marked\":4,\"tracked_by\":[\"Watch\"]}]"));
    assert_non_null(
        strstr(body(), "\"sets\":[{\"query\":\"Watch\",\"marked\":4,\"entries\":4,\"components\":[\"Health\"]}]"));
    assert_int_equal(get(f, "/api/aspects"), 200);
    char expect[128];
    snprintf(expect, sizeof expect, "{\"aspects\":[{\"system\":\"Watch\",\"size\":4,\"members\":%u}]}",
             (unsigned)insp_watch_count(f->w));
    assert_string_equal(body(), expect);
    /* One entity's view: its marked components and its aspects. */
    char path[64];
    snprintf(path, sizeof path, "/api/entity-state/%uv%u", SPELL(f->e[4].id));
    assert_int_equal(get(f, path), 200);
    assert_non_null(strstr(body(), "\"marked\":[\"Health\"],\"aspects\":[{\"system\":\"Watch\",\"bytes\":\""));
    snprintf(path, sizeof path, "/api/entity-state/%uv%u", SPELL(f->e[2].id));
    assert_int_equal(get(f, path), 200);
    assert_non_null(strstr(body(), "\"marked\":[],\"aspects\":[{\"system\":\"Watch\""));
    snprintf(path, sizeof path, "/api/entity-state/%uv%u", SPELL(f->e[1].id));
    assert_int_equal(get(f, path), 200);
    assert_non_null(strstr(body(), "\"marked\":[],\"aspects\":[]}"));
    /* A write from the API marks the entity too. */
    snprintf(path, sizeof path, "/api/entity/%uv%u", SPELL(f->e[2].id));
    insp_watch_enable(f->w, false);
    assert_int_equal(post(f, path, "{\"component\":\"Health\",\"field\":\"value\",\"value\":3}"), 200);
    snprintf(path, sizeof path, "/api/entity-state/%uv%u", SPELL(f->e[2].id));
    assert_int_equal(get(f, path), 200);
    assert_non_null(strstr(body(), "\"marked\":[\"Health\"]"));
    assert_int_equal(get(f, "/api/changes"), 200);
    assert_int_equal(member("marked"), POISONED + 1);
    assert_int_equal(insp_watch_changed_count(f->w), POISONED + 1);
}

/* The entity an answer spells "4v1" at s (up to its closing quote). */
static bool parse_id(const char *s, insp_entity *out) {
    unsigned index = 0, generation = 0;
    if (sscanf(s, "%uv%u\"", &index, &generation) != 2) {
        return false;
    }
    out->id = (uint64_t)index | (uint64_t)generation << 32;
    return true;
}

/* --- Labels, the hierarchy, links ----------------------------------------------------- */

/* The schema's `label: true` field (Label.text) labels an entity wherever
 * the API names one: the list, the entity, the tree and links. */
static void test_inspect_labels_from_schema(void **state) {
    fixture_t *f = *state;
    f->still = true;
    assert_int_equal(get(f, "/api/world"), 200);
    assert_non_null(strstr(body(), "\"labels\":[\"Label.text\"]"));
    assert_int_equal(get(f, "/api/entities?with=Label&limit=1000"), 200);
    assert_int_equal(member("total"), ENTITIES / 5);
    size_t boxes = 0;
    for (const char *at = body(); (at = strstr(at, "\"label\":\"box\"")) != NULL; at++) {
        boxes++;
    }
    assert_int_equal(boxes, ENTITIES / 5);
    assert_int_equal(get(f, "/api/entities?with=Velocity&limit=1000"), 200);
    boxes = 0;
    for (const char *at = body(); (at = strstr(at, "\"label\":null")) != NULL; at++) {
        boxes++;
    }
    assert_int_equal(boxes, ENTITIES - ENTITIES / 5);
    /* A label follows its field: renamed, it is the new text; emptied, none. */
    insp_label *l = insp_label_mut(f->w, f->e[5]);
    memcpy(l->text, "ship", 5);
    char path[64], expect[96];
    snprintf(path, sizeof path, "/api/entity/%uv%u", SPELL(f->e[5].id));
    assert_int_equal(get(f, path), 200);
    snprintf(expect, sizeof expect, "{\"id\":\"%uv%u\",\"label\":\"ship\",", SPELL(f->e[5].id));
    assert_memory_equal(body(), expect, strlen(expect));
    l = insp_label_mut(f->w, f->e[5]);
    l->text[0] = '\0';
    assert_int_equal(get(f, path), 200);
    assert_non_null(strstr(body(), "\"label\":null"));
    /* In links and the tree too. */
    assert_int_equal(insp_child_of_set(f->w, f->e[1], f->e[10]), STRATA_OK);
    snprintf(path, sizeof path, "/api/links/%uv%u", SPELL(f->e[1].id));
    assert_int_equal(get(f, path), 200);
    snprintf(expect, sizeof expect, "\"targets\":[{\"id\":\"%uv%u\",\"label\":\"box\"}]", SPELL(f->e[10].id));
    assert_non_null(strstr(body(), expect));
    assert_int_equal(get(f, "/api/tree?relation=ChildOf"), 200);
    snprintf(expect, sizeof expect, "{\"id\":\"%uv%u\",\"label\":\"box\",\"children\":1", SPELL(f->e[10].id));
    assert_non_null(strstr(body(), expect));
}

/* The number after "key": that follows `after` in the last answer's body. */
static unsigned long long member_after(const char *after, const char *key) {
    const char *at = strstr(body(), after);
    assert_non_null(at);
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    at = strstr(at, pattern);
    assert_non_null(at);
    return strtoull(at + strlen(pattern), NULL, 10);
}

/* A tree three deep (e0 <- e1 <- e2, e0 <- e3; e20 <- e21): its roots,
 * each level's nodes with their counts of sources as the world counts
 * them, in index order; a non-exclusive relation has no tree. */
static void test_inspect_tree_of_exclusive_relation(void **state) {
    fixture_t *f = *state;
    f->still = true;
    assert_int_equal(insp_child_of_set(f->w, f->e[1], f->e[0]), STRATA_OK);
    assert_int_equal(insp_child_of_set(f->w, f->e[2], f->e[1]), STRATA_OK);
    assert_int_equal(insp_child_of_set(f->w, f->e[3], f->e[0]), STRATA_OK);
    assert_int_equal(insp_child_of_set(f->w, f->e[21], f->e[20]), STRATA_OK);
    assert_int_equal(get(f, "/api/tree?relation=ChildOf"), 200);
    assert_int_equal(member("total"), 2);
    char id[32];
    snprintf(id, sizeof id, "\"id\":\"%uv%u\"", SPELL(f->e[0].id));
    uint32_t n = 0;
    (void)insp_child_of_sources(f->w, f->e[0], &n);
    assert_int_equal(member_after(id, "children"), n);
    assert_int_equal(n, 2);
    assert_true(strstr(body(), id) < strstr(body(), "\"id\":\"20v1\"")); /* by index */
    char path[96];
    snprintf(path, sizeof path, "/api/tree?relation=ChildOf&parent=%uv%u", SPELL(f->e[0].id));
    assert_int_equal(get(f, path), 200);
    assert_int_equal(member("total"), 2);
    snprintf(id, sizeof id, "\"id\":\"%uv%u\"", SPELL(f->e[1].id));
    assert_int_equal(member_after(id, "children"), 1);
    assert_int_equal(member_after(id, "depth"), 1);
    snprintf(id, sizeof id, "\"id\":\"%uv%u\"", SPELL(f->e[3].id));
    assert_int_equal(member_after(id, "children"), 0);
    snprintf(path, sizeof path, "/api/tree?relation=ChildOf&parent=%uv%u", SPELL(f->e[1].id));
    assert_int_equal(get(f, path), 200);
    snprintf(id, sizeof id, "\"id\":\"%uv%u\"", SPELL(f->e[2].id));
    assert_int_equal(member_after(id, "depth"), 2);
    assert_int_equal(member("total"), 1);
    /* Paged. */
    snprintf(path, sizeof path, "/api/tree?relation=ChildOf&parent=%uv%u&offset=1&limit=1", SPELL(f->e[0].id));
    assert_int_equal(get(f, path), 200);
    snprintf(id, sizeof id, "\"id\":\"%uv%u\"", SPELL(f->e[3].id));
    assert_non_null(strstr(body(), id));
    snprintf(id, sizeof id, "\"id\":\"%uv%u\"", SPELL(f->e[1].id));
    assert_null(strstr(body(), id));
    /* No tree for a non-exclusive relation, none without a relation. */
    assert_int_equal(get(f, "/api/tree?relation=Likes"), 400);
    assert_int_equal(get(f, "/api/tree"), 400);
    assert_int_equal(get(f, "/api/tree?relation=Nope"), 404);
}

/* An entity's links in every relation, both ways: its target, its
 * sources (counted, listed by index), a non-exclusive relation's targets. */
static void test_inspect_links_both_ways(void **state) {
    fixture_t *f = *state;
    f->still = true;
    assert_int_equal(insp_child_of_set(f->w, f->e[1], f->e[0]), STRATA_OK);
    assert_int_equal(insp_child_of_set(f->w, f->e[2], f->e[1]), STRATA_OK);
    assert_int_equal(insp_child_of_set(f->w, f->e[3], f->e[1]), STRATA_OK);
    assert_int_equal(insp_likes_add(f->w, f->e[1], f->e[7]), STRATA_OK);
    assert_int_equal(insp_likes_add(f->w, f->e[1], f->e[8]), STRATA_OK);
    char path[64], expect[256];
    snprintf(path, sizeof path, "/api/links/%uv%u", SPELL(f->e[1].id));
    assert_int_equal(get(f, path), 200);
    snprintf(expect, sizeof expect,
             "{\"relation\":\"ChildOf\",\"exclusive\":true,\"targets\":[{\"id\":\"%uv%u\",\"label\":\"box\"}],"
             "\"source_count\":2,\"sources\":[{\"id\":\"%uv%u\",\"label\":null},{\"id\":\"%uv%u\",\"label\":null}]}",
             SPELL(f->e[0].id), SPELL(f->e[2].id), SPELL(f->e[3].id));
    assert_non_null(strstr(body(), expect));
    assert_non_null(strstr(body(), "{\"relation\":\"Docked\",\"exclusive\":true,\"targets\":[],\"source_count\":0"));
    snprintf(expect, sizeof expect, "\"targets\":[{\"id\":\"%uv%u\",\"label\":null},{\"id\":\"%uv%u\",\"label\":null}]",
             SPELL(f->e[7].id), SPELL(f->e[8].id));
    assert_non_null(strstr(strstr(body(), "\"Likes\""), expect));
    snprintf(path, sizeof path, "/api/links/%uv%u", SPELL(f->gone.id));
    assert_int_equal(get(f, path), 404);
}

/* --- Ad-hoc queries -------------------------------------------------------------------- */

/* Entities with Health (read, or as the query asks) and without Poisoned, as the world counts them. */
static unsigned count_health_not_poisoned(fixture_t *f) {
    unsigned n = 0;
    for (uint32_t i = 0; i < ENTITIES; i++) {
        n += insp_health_has(f->w, f->e[i]) && !insp_poisoned_has(f->w, f->e[i]);
    }
    return n;
}

/* A query typed in the page: with, without, optional, a relation and its
 * target; counted as the world counts, paged, values as columns. */
static void test_inspect_query_typed(void **state) {
    fixture_t *f = *state;
    f->still = true;
    assert_int_equal(get(f, "/api/query?with=Health"), 200);
    assert_int_equal(member("total"), ENTITIES / 2);
    assert_int_equal(get(f, "/api/query?with=Health&without=Poisoned"), 200);
    assert_int_equal(member("total"), count_health_not_poisoned(f));
    assert_non_null(strstr(body(), "\"columns\":[\"Health\"]"));
    assert_int_equal(get(f, "/api/query?with=Health&optional=Label&limit=1000"), 200);
    assert_non_null(strstr(body(), "\"Label\":null"));
    assert_non_null(strstr(body(), "\"Label\":{\"text\":\"box\""));
    assert_int_equal(get(f, "/api/query?with=Health&optional=Label&limit=3"), 200);
    assert_non_null(strstr(body(), "\"columns\":[\"Health\",\"Label\"]"));
    assert_non_null(strstr(body(), "\"values\":{\"Health\":{\"value\":10,\"max\":"));
    assert_int_equal(member("limit"), 3);
    size_t rows = 0;
    for (const char *at = body(); (at = strstr(at, "\"values\":")) != NULL; at++) {
        rows++;
    }
    assert_int_equal(rows, 3);
    /* A relation, and a relation with its target. */
    assert_int_equal(insp_child_of_set(f->w, f->e[1], f->e[0]), STRATA_OK);
    assert_int_equal(insp_child_of_set(f->w, f->e[2], f->e[0]), STRATA_OK);
    assert_int_equal(insp_child_of_set(f->w, f->e[3], f->e[2]), STRATA_OK);
    assert_int_equal(get(f, "/api/query?relation=ChildOf"), 200);
    assert_int_equal(member("total"), 3);
    char path[128];
    snprintf(path, sizeof path, "/api/query?relation=ChildOf&target=%uv%u&with=Health", SPELL(f->e[0].id));
    assert_int_equal(get(f, path), 200);
    assert_int_equal(member("total"), 1); /* e2: e1 has no Health */
    assert_int_equal(insp_likes_add(f->w, f->e[4], f->e[9]), STRATA_OK);
    snprintf(path, sizeof path, "/api/query?relation=Likes&target=%uv%u", SPELL(f->e[9].id));
    assert_int_equal(get(f, path), 200);
    assert_int_equal(member("total"), 1);
    /* Paged past the end. */
    assert_int_equal(get(f, "/api/query?with=Position&offset=35&limit=10"), 200);
    assert_int_equal(member("total"), ENTITIES);
    rows = 0;
    for (const char *at = body(); (at = strstr(at, "\"values\":")) != NULL; at++) {
        rows++;
    }
    assert_int_equal(rows, 5);
    /* What is not a query. */
    assert_int_equal(get(f, "/api/query"), 400);
    assert_int_equal(get(f, "/api/query?with=Health&without=Health"), 400);
    assert_int_equal(get(f, "/api/query?with=Nope"), 404);
    snprintf(path, sizeof path, "/api/query?with=Health&target=%uv%u", SPELL(f->e[0].id));
    assert_int_equal(get(f, path), 400);
}

/* --- Events and history --------------------------------------------------------------- */

/* The events of the last step, recorded while a client is attached: Hurt
 * emits a Hit for each poisoned entity a step. */
static void test_inspect_events_recorded(void **state) {
    fixture_t *f = *state;
    assert_int_equal(get(f, "/api/events"), 200); /* the first request: nothing recorded yet */
    assert_non_null(strstr(body(), "\"recording\":false"));
    assert_non_null(strstr(body(), "{\"name\":\"Hit\",\"last_step\":0,\"total\":0,"));
    unsigned long before = f->steps;
    while (f->steps < before + 3) { /* attached now: steps are recorded */
        assert_int_equal(get(f, "/api/world"), 200);
    }
    assert_int_equal(get(f, "/api/events"), 200);
    assert_non_null(strstr(body(), "\"recording\":true"));
    assert_int_equal(member_after("\"name\":\"Hit\"", "last_step"), POISONED);
    assert_true(member_after("\"name\":\"Hit\"", "total") >= 2 * POISONED);
    unsigned long long step = member("step");
    char expect[128];
    snprintf(expect, sizeof expect,
             "\"recent\":[{\"step\":%llu,\"system\":\"Hurt\",\"value\":{\"who\":\"%uv%u\",\"amount\":1}}", step,
             SPELL(f->e[34].id)); /* newest first: the last poisoned of the last step */
    assert_non_null(strstr(body(), expect));
}

/* The history: a sample a step while attached, the step and each system's
 * time and the world's counts, the last 10 s; `since` sends only newer. */
static void test_inspect_history_recorded(void **state) {
    fixture_t *f = *state;
    f->still = true;                             /* this test steps the world itself */
    assert_int_equal(get(f, "/api/world"), 200); /* a client: recording from now */
    unsigned long long step0 = member("step");
    for (int i = 0; i < 7; i++) {
        if (i == 5) {
            insp_entity made = insp_entity_create(f->w);
            assert_int_equal(insp_position_add(f->w, made, (insp_position){0, 0}), STRATA_OK);
        }
        assert_true(strata_inspect_poll(f->in));
        assert_int_equal(insp_world_step(f->w, 1.0f / 60.0f), STRATA_OK);
    }
    char path[64];
    snprintf(path, sizeof path, "/api/history?since=%llu", step0);
    assert_int_equal(get(f, path), 200); /* its poll records the seventh step; its other polls, no step */
    assert_non_null(
        strstr(body(),
               "\"systems\":[\"Move\",\"Watch\",\"Hurt\",\"Tally\",\"Blink\",\"Beat\",\"Greet\"],\"seconds\":10,"
               "\"recording\":true"));
    const char *steps = strstr(body(), "\"step\":[");
    assert_non_null(steps);
    unsigned long long step[7];
    char *at = (char *)steps + 8;
    for (int i = 0; i < 7; i++) {
        step[i] = strtoull(at, &at, 10);
        assert_true(*at == (i < 6 ? ',' : ']'));
        at++;
        assert_true(i == 0 ? step[0] > step0 : step[i] == step[i - 1] + 1); /* one sample a step taken */
    }
    assert_non_null(strstr(body(), "\"entities\":[40,40,40,40,41,41,41]"));
    const char *system_ms = strstr(body(), "\"system_ms\":[[");
    assert_non_null(system_ms);
    assert_true(strtod(system_ms + 14, NULL) > 0.0); /* Move's time in the first sample */
    const char *step_ms = strstr(body(), "\"step_ms\":[");
    assert_true(strtod(step_ms + 11, NULL) > 0.0);
    snprintf(path, sizeof path, "/api/history?since=%llu", step[5]);
    assert_int_equal(get(f, path), 200);
    char expect[64];
    snprintf(expect, sizeof expect, "\"step\":[%llu]", step[6]);
    assert_non_null(strstr(body(), expect));
    assert_int_equal(get(f, "/api/history?since=x"), 400);
    /* What answering and recording cost the game: timed too. */
    assert_int_equal(get(f, "/api/world"), 200);
    assert_true(strtod(strstr(body(), "\"inspector_ms\":") + 15, NULL) > 0.0);
}

/* Nothing is recorded before a client asks: the step has no observer and the
 * inspector holds no history or events. */
static void test_inspect_nothing_recorded_without_client(void **state) {
    fixture_t *f = *state;
    for (int i = 0; i < 100; i++) {
        assert_true(strata_inspect_poll(f->in));
        assert_int_equal(insp_world_step(f->w, 1.0f / 60.0f), STRATA_OK);
    }
    assert_null(strata_world_step_observer(insp_world_core(f->w)));
    assert_int_equal(get(f, "/api/history"), 200);
    assert_non_null(strstr(body(), "\"recording\":false,\"marks\":[],\"step\":[],"));
}

/* The history marks a state machine's change, seen at the sample after it
 * (the first sample notes the states, marks nothing). */
static void test_inspect_history_marks_state_changes(void **state) {
    fixture_t *f = *state;
    f->still = true;                             /* this test steps the world itself */
    assert_int_equal(get(f, "/api/world"), 200); /* a client: recording from now */
    for (int i = 0; i < 3; i++) {
        if (i == 1) {
            assert_int_equal(insp_mode_set(f->w, INSP_MODE_PLAYING), STRATA_OK);
        }
        assert_true(strata_inspect_poll(f->in));
        assert_int_equal(insp_world_step(f->w, 1.0f / 60.0f), STRATA_OK);
    }
    assert_int_equal(get(f, "/api/history"), 200);
    assert_non_null(strstr(body(), "\"marks\":[{\"ago\":"));
    assert_non_null(strstr(body(), "\"kind\":\"state\",\"text\":\"Mode: playing\"}]"));
    assert_null(strstr(body(), "Mode: menu"));
}

/* The history marks a reload the game lists; a reload's new world is
 * recorded afresh, with its labels and assemblages (the old module's may
 * be gone). */
static void test_inspect_reload_marked_and_recorded_afresh(void **state) {
    fixture_t *f = *state;
    f->still = true;                             /* this test steps the world itself */
    assert_int_equal(get(f, "/api/world"), 200); /* a client: recording from now */
    assert_true(strata_inspect_poll(f->in));
    assert_int_equal(insp_world_step(f->w, 1.0f / 60.0f), STRATA_OK);
    strata_inspect_reload_t reload = {7, "reloaded", 12.0, "a change\n"};
    strata_inspect_add_reload(f->in, &reload);
    assert_int_equal(get(f, "/api/history"), 200);
    assert_non_null(strstr(body(), "\"kind\":\"reload\",\"text\":\"reload 7: reloaded\"}"));
    insp_world *next = insp_world_create(NULL);
    insp_entity e;
    assert_true(insp_game_spawn(next, 0, &e));
    strata_inspect_desc_t desc = {0};
    insp_inspect_schedule(&desc);
    assert_int_equal(strata_inspect_retarget(f->in, insp_world_core(next), &desc), STRATA_OK);
    insp_world *old = f->w;
    f->w = next;
    assert_int_equal(get(f, "/api/history"), 200);
    assert_non_null(strstr(body(), "\"recording\":false,"));
    assert_int_equal(get(f, "/api/events"), 200);
    assert_non_null(strstr(body(), "\"recording\":false,"));
    assert_int_equal(get(f, "/api/entities"), 200);
    assert_non_null(strstr(body(), "\"label\":\"box\"")); /* entity 0 of the new world: Label "box" */
    assert_int_equal(post(f, "/api/create", "{\"assemblage\":\"Crate\"}"), 200);
    strata_world_stats_t st;
    insp_world_stats(next, &st);
    assert_int_equal(st.entities, 2); /* spawned in the new world */
    assert_true(strata_inspect_poll(f->in));
    assert_int_equal(insp_world_step(next, 1.0f / 60.0f), STRATA_OK);
    assert_true(strata_inspect_poll(f->in));
    assert_int_equal(get(f, "/api/history"), 200);
    assert_non_null(strstr(body(), "\"entities\":[2]"));
    /* Back to the fixture's world, for its teardown. */
    insp_inspect_schedule(&desc);
    assert_int_equal(strata_inspect_retarget(f->in, insp_world_core(old), &desc), STRATA_OK);
    f->w = old;
    insp_world_destroy(next);
}

/* --- Structural edits ------------------------------------------------------------------- */

/* Create, spawn, add, remove, link and destroy from the page, through the
 * typed rules: hooks and policies run, and every refusal leaves the world. */
static void test_inspect_structural_edits(void **state) {
    fixture_t *f = *state;
    f->still = true;
    strata_world_stats_t st;
    insp_world_stats(f->w, &st);
    uint32_t alive = st.entities;
    assert_int_equal(post(f, "/api/create", "{}"), 200);
    insp_entity made = {0};
    const char *id = strstr(body(), "\"id\":\"");
    assert_non_null(id);
    assert_true(parse_id(id + 6, &made));
    assert_true(insp_entity_alive(f->w, made));
    insp_world_stats(f->w, &st);
    assert_int_equal(st.entities, alive + 1);
    /* From an assemblage: its values, its label. */
    assert_int_equal(post(f, "/api/create", "{\"assemblage\":\"Crate\"}"), 200);
    insp_entity crate = {0};
    assert_true(parse_id(strstr(body(), "\"id\":\"") + 6, &crate));
    assert_true(insp_position_get(f->w, crate)->x == 5.0f);
    assert_string_equal(insp_label_get(f->w, crate)->text, "crate");
    assert_int_equal(post(f, "/api/create", "{\"assemblage\":\"Nope\"}"), 404);
    assert_int_equal(post(f, "/api/create", "{\"assemblage\":3}"), 400);
    /* Add and remove a component; twice is refused. */
    char path[64], json[128];
    snprintf(path, sizeof path, "/api/add/%uv%u", SPELL(made.id));
    assert_int_equal(post(f, path, "{\"component\":\"Health\"}"), 200);
    assert_int_equal(insp_health_get(f->w, made)->value, 10); /* the schema's default */
    assert_int_equal(post(f, path, "{\"component\":\"Health\"}"), 409);
    assert_int_equal(post(f, path, "{\"component\":\"Frozen\"}"), 200);
    assert_true(insp_frozen_has(f->w, made));
    assert_int_equal(post(f, path, "{\"component\":\"Nope\"}"), 404);
    assert_int_equal(post(f, path, "{\"component\":\"Health\",\"target\":\"1v1\"}"), 400);
    snprintf(path, sizeof path, "/api/remove/%uv%u", SPELL(made.id));
    assert_int_equal(post(f, path, "{\"component\":\"Frozen\"}"), 200);
    assert_false(insp_frozen_has(f->w, made));
    assert_int_equal(post(f, path, "{\"component\":\"Frozen\"}"), 404);
    /* A link: set through the relation's rules (cycles refused), removed. */
    snprintf(path, sizeof path, "/api/add/%uv%u", SPELL(made.id));
    snprintf(json, sizeof json, "{\"component\":\"ChildOf\",\"target\":\"%uv%u\"}", SPELL(crate.id));
    assert_int_equal(post(f, path, json), 200);
    assert_int_equal(insp_child_of_target(f->w, made).id, crate.id);
    snprintf(path, sizeof path, "/api/add/%uv%u", SPELL(crate.id));
    snprintf(json, sizeof json, "{\"component\":\"ChildOf\",\"target\":\"%uv%u\"}", SPELL(made.id));
    snapshot_t before = snapshot(f);
    assert_int_equal(post(f, path, json), 409);
    snprintf(json, sizeof json, "{\"component\":\"ChildOf\",\"target\":\"%uv%u\"}", SPELL(f->gone.id));
    assert_int_equal(post(f, path, json), 404);
    assert_int_equal(post(f, path, "{\"component\":\"ChildOf\"}"), 400);
    assert_unchanged(f, &before);
    snprintf(path, sizeof path, "/api/add/%uv%u", SPELL(f->e[1].id));
    snprintf(json, sizeof json, "{\"component\":\"Likes\",\"target\":\"%uv%u\"}", SPELL(crate.id));
    assert_int_equal(post(f, path, json), 200);
    assert_true(insp_likes_has(f->w, f->e[1], crate));
    snprintf(path, sizeof path, "/api/remove/%uv%u", SPELL(f->e[1].id));
    assert_int_equal(post(f, path, "{\"component\":\"Likes\"}"), 200);
    assert_false(insp_likes_has(f->w, f->e[1], crate));
    /* Destroy the crate: ChildOf's policy destroys its source too. */
    snprintf(path, sizeof path, "/api/destroy/%uv%u", SPELL(crate.id));
    assert_int_equal(post(f, path, "{}"), 200);
    assert_false(insp_entity_alive(f->w, crate));
    assert_false(insp_entity_alive(f->w, made));
    assert_int_equal(post(f, path, "{}"), 404);
    insp_world_stats(f->w, &st);
    assert_int_equal(st.entities, alive);
}

/* A live reload: the inspector serves the new world, with its schedule,
 * on the same port with the same secret, and lists the reloads the game
 * adds (the last 16, newest first, their text escaped). */
static void test_inspect_retarget_and_reloads(void **state) {
    fixture_t *f = *state;
    uint16_t port = strata_inspect_port(f->in);
    char token[80];
    snprintf(token, sizeof token, "%s", strata_inspect_token(f->in));
    assert_int_equal(get(f, "/api/reloads"), 200);
    assert_string_equal(body(), "{\"reloads\":[]}");
    insp_world *next = insp_world_create(NULL);
    insp_entity e;
    assert_true(insp_game_spawn(next, 0, &e));
    insp_move_enable(next, false);
    strata_inspect_desc_t desc = {0};
    insp_inspect_schedule(&desc);
    assert_int_equal(strata_inspect_retarget(f->in, insp_world_core(next), &desc), STRATA_OK);
    insp_world *old = f->w;
    f->w = next; /* the fixture's steps go to the world served */
    assert_int_equal(get(f, "/api/world"), 200);
    assert_int_equal(member("entities"), 1);
    assert_int_equal(get(f, "/api/systems"), 200);
    assert_non_null(strstr(body(), "\"Move\""));
    assert_int_equal(post(f, "/api/system/Move", "{\"enabled\":true}"), 200);
    assert_true(insp_move_enabled(next)); /* switched in the new world */
    assert_int_equal(strata_inspect_port(f->in), port);
    assert_string_equal(strata_inspect_token(f->in), token);
    for (uint32_t i = 1; i <= 20; i++) {
        strata_inspect_reload_t r = {i, i % 2 ? "reloaded" : "refused", 100.0 + i,
                                     "rect.yaml:12:7: error: reload would lose \"Health\"\n\tin 3 entities\n"};
        strata_inspect_add_reload(f->in, &r);
    }
    assert_int_equal(get(f, "/api/reloads"), 200);
    assert_int_equal(member("number"), 20); /* newest first */
    assert_non_null(strstr(body(), "\"outcome\":\"refused\",\"at\":"));
    assert_non_null(strstr(body(), "lose \\\"Health\\\"\\u000a\\u0009in 3"));
    assert_non_null(strstr(body(), "{\"number\":5,"));
    assert_null(strstr(body(), "{\"number\":4,")); /* only the last 16 */
    assert_int_equal(post(f, "/api/reloads", "{}"), 405);
    /* Back to the fixture's world, for its teardown. */
    insp_inspect_schedule(&desc);
    assert_int_equal(strata_inspect_retarget(f->in, insp_world_core(old), &desc), STRATA_OK);
    f->w = old;
    insp_world_destroy(next);
}

static void test_inspect_page_is_served(void **state) {
    fixture_t *f = *state;
    assert_int_equal(get(f, "/"), 200);
    assert_non_null(strstr(body(), "<title>Strata inspector</title>"));
    assert_int_equal(get(f, "/inspector.js"), 200);
    assert_non_null(strstr(reply, "Content-Type: text/javascript"));
    assert_int_equal(get(f, "/inspector.css"), 200);
}

/* --- Writes ------------------------------------------------------------------------ */

static void test_inspect_set_component_field(void **state) {
    fixture_t *f = *state;
    char path[64];
    snprintf(path, sizeof path, "/api/entity/%uv%u", SPELL(f->e[0].id));
    assert_int_equal(post(f, path, "{\"component\":\"Health\",\"field\":\"value\",\"value\":-77}"), 200);
    assert_int_equal(insp_health_get(f->w, f->e[0])->value, -77);
    assert_int_equal(post(f, path, "{\"component\":\"Label\",\"field\":\"slots.2\",\"value\":65535}"), 200);
    assert_int_equal(insp_label_get(f->w, f->e[0])->slots[2], 65535);
    assert_int_equal(post(f, path, "{\"component\":\"Label\",\"field\":\"kind\",\"value\":\"bold\"}"), 200);
    assert_int_equal(insp_label_get(f->w, f->e[0])->kind, INSP_KIND_BOLD);
    assert_int_equal(post(f, path, "{\"component\":\"Label\",\"field\":\"text\",\"value\":\"crate\"}"), 200);
    assert_string_equal(insp_label_get(f->w, f->e[0])->text, "crate");
    /* Out of range: refused, nothing written. */
    assert_int_equal(post(f, path, "{\"component\":\"Health\",\"field\":\"max\",\"value\":256}"), 400);
    assert_int_equal(post(f, path, "{\"component\":\"Label\",\"field\":\"text\",\"value\":\"nine char\"}"), 400);
    assert_int_equal(insp_health_get(f->w, f->e[0])->max, 100);
    assert_string_equal(insp_label_get(f->w, f->e[0])->text, "crate");
    /* Eight bytes fill a char[8], as a load takes them. */
    assert_int_equal(post(f, path, "{\"component\":\"Label\",\"field\":\"text\",\"value\":\"eight ch\"}"), 200);
    assert_memory_equal(insp_label_get(f->w, f->e[0])->text, "eight ch", 8);
}

static void test_inspect_set_resource_field(void **state) {
    fixture_t *f = *state;
    assert_int_equal(post(f, "/api/resource", "{\"resource\":\"Score\",\"field\":\"ratio\",\"value\":0.25}"), 200);
    assert_true(insp_score_res(f->w)->ratio == 0.25);
    assert_int_equal(post(f, "/api/resource", "{\"resource\":\"Score\",\"field\":\"value\",\"value\":1.5}"), 400);
}

static void test_inspect_disable_system_stops_it(void **state) {
    fixture_t *f = *state;
    assert_int_equal(post(f, "/api/system/Move", "{\"enabled\":false}"), 200);
    assert_false(insp_move_enabled(f->w));
    float x = insp_position_get(f->w, f->e[3])->x;
    unsigned long before = f->steps;
    assert_int_equal(get(f, "/api/world"), 200);
    assert_int_equal(get(f, "/api/world"), 200);
    assert_true(f->steps > before);
    assert_true(insp_position_get(f->w, f->e[3])->x == x);
    assert_int_equal(post(f, "/api/system/3", "{\"enabled\":true}"), 200); /* by number: Tally */
    assert_int_equal(post(f, "/api/system/Move", "{\"enabled\":true}"), 200);
    assert_true(insp_move_enabled(f->w));
}

static void test_inspect_pause_and_step(void **state) {
    fixture_t *f = *state;
    assert_int_equal(post(f, "/api/pause", "{\"paused\":true}"), 200);
    int32_t score = insp_score_res(f->w)->value;
    assert_int_equal(get(f, "/api/world"), 200);
    assert_int_equal(insp_score_res(f->w)->value, score);
    assert_int_equal(post(f, "/api/step", "{}"), 200);
    assert_int_equal(get(f, "/api/world"), 200);
    assert_int_equal(insp_score_res(f->w)->value, score + 1);
    assert_int_equal(post(f, "/api/pause", "{\"paused\":false}"), 200);
    assert_int_equal(get(f, "/api/world"), 200);
    assert_true(insp_score_res(f->w)->value > score + 1);
}

static void test_inspect_writes_off_by_default(void **state) {
    fixture_t *f = *state;
    char path[64];
    snprintf(path, sizeof path, "/api/entity/%uv%u", SPELL(f->e[0].id));
    assert_int_equal(post(f, path, "{\"component\":\"Health\",\"field\":\"value\",\"value\":1}"), 403);
    assert_int_equal(post(f, "/api/system/Move", "{\"enabled\":false}"), 403);
    assert_int_equal(post(f, "/api/pause", "{\"paused\":true}"), 403);
    assert_int_equal(post(f, "/api/create", "{}"), 403);
    snprintf(path, sizeof path, "/api/destroy/%uv%u", SPELL(f->e[0].id));
    assert_int_equal(post(f, path, "{}"), 403);
    snprintf(path, sizeof path, "/api/add/%uv%u", SPELL(f->e[0].id));
    assert_int_equal(post(f, path, "{\"component\":\"Frozen\"}"), 403);
    snprintf(path, sizeof path, "/api/remove/%uv%u", SPELL(f->e[0].id));
    assert_int_equal(post(f, path, "{\"component\":\"Position\"}"), 403);
    assert_true(insp_entity_alive(f->w, f->e[0]) && !insp_frozen_has(f->w, f->e[0]));
    assert_true(insp_position_has(f->w, f->e[0]));
    assert_int_equal(post(f, "/api/state/Mode", "{\"state\":\"playing\"}"), 403);
    assert_false(insp_mode_state_res(f->w)->pending);
    assert_int_equal(insp_health_get(f->w, f->e[0])->value, 10);
    assert_true(insp_move_enabled(f->w));
    assert_int_equal(get(f, "/api/world"), 200);
    assert_non_null(strstr(body(), "\"writes\":false"));
}

/* --- Links ---------------------------------------------------------------------------- */

/* True if `source` is among the sources of `target` in ChildOf. */
static bool child_of_source(fixture_t *f, insp_entity target, insp_entity source) {
    uint32_t n = 0;
    const insp_entity *s = insp_child_of_sources(f->w, target, &n);
    for (uint32_t i = 0; i < n; i++) {
        if (s[i].id == source.id) {
            return true;
        }
    }
    return false;
}

/* POST an entity (spelled "4v1"; 0: null) to one field of an entity's component. */
static int post_field(fixture_t *f, insp_entity e, const char *component, const char *field, uint64_t v) {
    char path[64], json[160], value[32];
    snprintf(path, sizeof path, "/api/entity/%uv%u", SPELL(e.id));
    snprintf(value, sizeof value, v != 0 ? "\"%uv%u\"" : "null", SPELL(v));
    snprintf(json, sizeof json, "{\"component\":\"%s\",\"field\":\"%s\",\"value\":%s}", component, field, value);
    return post(f, path, json);
}

/* The page sets a link's target through the relation's own rules: a link
 * to itself, to a stale, forged or null handle, or one closing a cycle is
 * refused 4xx with the world (and the index of sources) as it was; a good
 * one moves the entity and its index entry. */
static void test_inspect_link_writes_follow_relation_rules(void **state) {
    fixture_t *f = *state;
    f->still = true;
    insp_entity d = f->e[3], a = f->e[0], b = f->e[1], c = f->e[2];
    assert_int_equal(insp_child_of_set(f->w, a, d), STRATA_OK); /* d <- a <- b <- c */
    assert_int_equal(insp_child_of_set(f->w, b, a), STRATA_OK);
    assert_int_equal(insp_child_of_set(f->w, c, b), STRATA_OK);
    assert_int_equal(insp_docked_set(f->w, c, d, &(insp_docked){.slot = 3}), STRATA_OK);
    assert_int_equal(insp_aim_add(f->w, c, (insp_aim){.who = a}), STRATA_OK);
    uint64_t next_generation = f->gone.id + ((uint64_t)1 << 32); /* the gone entity's index, a generation ahead */
    uint64_t live_wrong_generation = a.id + ((uint64_t)1 << 32);
    uint64_t never_made = (uint64_t)1 << 32 | 999999u; /* 999999v1 */
    snapshot_t before = snapshot(f);
    assert_int_equal(post_field(f, b, "ChildOf", "target", b.id), 409);       /* itself */
    assert_int_equal(post_field(f, a, "ChildOf", "target", b.id), 409);       /* its child: a <-> b */
    assert_int_equal(post_field(f, a, "ChildOf", "target", c.id), 409);       /* its grandchild */
    assert_int_equal(post_field(f, b, "ChildOf", "target", f->gone.id), 404); /* stale */
    assert_int_equal(post_field(f, b, "ChildOf", "target", next_generation), 404);
    assert_int_equal(post_field(f, b, "ChildOf", "target", live_wrong_generation), 404); /* forged */
    assert_int_equal(post_field(f, b, "ChildOf", "target", never_made), 404);
    assert_int_equal(post_field(f, b, "ChildOf", "target", 0), 404); /* null */
    assert_int_equal(post_field(f, b, "ChildOf", "depth", 0), 404);  /* the runtime's own: not a field */
    assert_int_equal(post_field(f, c, "Docked", "target", c.id), 409);
    assert_int_equal(post_field(f, c, "Docked", "target", live_wrong_generation), 404);
    assert_int_equal(post_field(f, c, "Aim", "who", f->gone.id), 404);
    assert_int_equal(post_field(f, c, "Aim", "who", live_wrong_generation), 404);
    assert_int_equal(post_field(f, d, "ChildOf", "target", a.id), 404); /* d has no link to set */
    assert_unchanged(f, &before);
    assert_int_equal(insp_child_of_target(f->w, b).id, a.id);
    assert_int_equal(insp_child_of_target(f->w, a).id, d.id);
    assert_true(child_of_source(f, a, b) && child_of_source(f, b, c) && !child_of_source(f, b, a));
    /* A good move: c from b to d; the index follows, the depth too. */
    assert_int_equal(post_field(f, c, "ChildOf", "target", d.id), 200);
    assert_int_equal(insp_child_of_target(f->w, c).id, d.id);
    assert_true(child_of_source(f, d, c) && !child_of_source(f, b, c));
    assert_int_equal(insp_child_of_depth(f->w, c), 1);
    /* A link's data is the game's: set in place, the link kept. */
    char path[64];
    snprintf(path, sizeof path, "/api/entity/%uv%u", SPELL(c.id));
    assert_int_equal(post(f, path, "{\"component\":\"Docked\",\"field\":\"slot\",\"value\":9}"), 200);
    assert_int_equal(insp_docked_get(f->w, c)->slot, 9);
    assert_int_equal(insp_docked_target(f->w, c).id, d.id);
    assert_int_equal(post_field(f, c, "Docked", "target", a.id), 200);
    assert_int_equal(insp_docked_target(f->w, c).id, a.id);
    assert_int_equal(insp_docked_get(f->w, c)->slot, 9);
    /* An entity field takes a live entity or null. */
    assert_int_equal(post_field(f, c, "Aim", "who", b.id), 200);
    assert_int_equal(insp_aim_get(f->w, c)->who.id, b.id);
    assert_int_equal(post_field(f, c, "Aim", "who", 0), 200);
    assert_int_equal(insp_aim_get(f->w, c)->who.id, 0);
}

/* --- One codec: the page's writes and a JSON load --------------------------------- */

/* One value for one field of Every, as JSON text. */
typedef struct codec_case_t {
    const char *field;
    const char *json;
} codec_case_t;

static const codec_case_t codec_cases[] = {
    {"flag", "true"},
    {"flag", "false"},
    {"flag", "1"},
    {"flag", "\"true\""},
    {"flag", "null"},
    {"small", "-128"},
    {"small", "127"},
    {"small", "-129"},
    {"small", "128"},
    {"small", "-0"},
    {"small", "1.0"},
    {"small", "1e2"},
    {"small", "\"5\""},
    {"medium", "-32768"},
    {"medium", "32767"},
    {"medium", "32768"},
    {"large", "-2147483648"},
    {"large", "2147483647"},
    {"large", "2147483648"},
    {"huge", "-9223372036854775808"},
    {"huge", "9223372036854775807"},
    {"huge", "9223372036854775808"},
    {"huge", "-9223372036854775809"},
    {"huge", "99999999999999999999999"},
    {"ubyte", "0"},
    {"ubyte", "255"},
    {"ubyte", "256"},
    {"ubyte", "-1"},
    {"ubyte", "-0"},
    {"ushort", "65535"},
    {"ushort", "65536"},
    {"uint", "4294967295"},
    {"uint", "4294967296"},
    {"ulong", "18446744073709551615"},
    {"ulong", "\"18446744073709551615\""},
    {"ulong", "\"9223372036854775808\""},
    {"ulong", "18446744073709551616"},
    {"ulong", "-1"},
    {"ulong", "1.5"},
    {"single", "3.4028234663852886e38"},
    {"single", "-3.4028234663852886e38"},
    {"single", "3.4028236e38"},
    {"single", "1.401298464324817e-45"},
    {"single", "1e-46"},
    {"single", "1.1754943508222875e-38"},
    {"single", "-0.0"},
    {"single", "0.1"},
    {"single", "16777217"},
    {"single", "\"nan\""},
    {"single", "\"inf\""},
    {"single", "\"-inf\""},
    {"single", "\"infinity\""},
    {"single", "null"},
    {"dbl", "1.7976931348623157e308"},
    {"dbl", "-1.7976931348623157e308"},
    {"dbl", "1e309"},
    {"dbl", "4.9406564584124654e-324"},
    {"dbl", "2.2250738585072014e-308"},
    {"dbl", "1e-400"},
    {"dbl", "-0.0"},
    {"dbl", "0.30000000000000004"},
    {"dbl", "9007199254740993"},
    {"dbl", "\"nan\""},
    {"dbl", "\"-inf\""},
    {"dbl", "true"},
    {"kind", "\"plain\""},
    {"kind", "\"bold\""},
    {"kind", "\"italic\""},
    {"kind", "1"},
    {"text", "\"\""},
    {"text", "\"1234567\""},
    {"text", "\"12345678\""},
    {"text", "\"123456789\""},
    {"text", "\"\\uf780\\uf781\\uf782\\uf783\\uf784\\uf785\\uf786\\uf7ff\""},
    {"text", "\"\\u00e9t\\u00e9\""},
    {"text", "\"\\ud83d\\ude00\""},
    {"text", "\"\\uf7ff\\uf780\""},
    {"text", "\"a\\u0000b\""},
    {"text", "\"tab\\t\\\"q\\\\\""},
    {"text", "5"},
};
#define CODEC_CASES (sizeof codec_cases / sizeof codec_cases[0])

/* Where field `name` of Every is, and its size. */
static size_t every_field(const char *name, size_t *size) {
    insp_world *w = insp_world_create(NULL);
    const strata_type_desc_t *t = &strata_world_schema(insp_world_core(w))->component_types[INSP_EVERY];
    insp_world_destroy(w);
    for (uint32_t i = 0; i < t->count; i++) {
        if (strcmp(t->fields[i].name, name) == 0) {
            *size = t->fields[i].size * t->fields[i].count;
            return t->fields[i].offset;
        }
    }
    fail_msg("Every has no field %s", name);
    return 0;
}

/* Load `json` as field `field` of Every through a JSON load of a world
 * whose one entity holds Every at its defaults: true and the value in *out
 * if the load took it. */
static bool codec_load(const char *field, const char *json, insp_every *out) {
    insp_world *w = insp_world_create(NULL);
    insp_entity e = insp_entity_create(w);
    assert_int_equal(insp_every_add(w, e, INSP_EVERY_DEFAULT), STRATA_OK);
    size_t size = 0;
    assert_int_equal(strata_world_write_json_mem(insp_world_core(w), NULL, 0, &size), STRATA_ERR_LIMIT);
    char *text = malloc(size + 1), *edited = malloc(size + strlen(json) + 1);
    assert_int_equal(strata_world_write_json_mem(insp_world_core(w), text, size + 1, &size), STRATA_OK);
    text[size] = '\0';
    char key[32];
    snprintf(key, sizeof key, "\"%s\": ", field);
    const char *at = strstr(text, key);
    assert_non_null(at);
    at += strlen(key);
    const char *end = at + strcspn(at, ",}");
    snprintf(edited, size + strlen(json) + 1, "%.*s%s%s", (int)(at - text), text, json, end);
    insp_world *loaded = insp_world_create(NULL);
    strata_load_report_t report;
    bool ok = strata_world_load_json_mem(insp_world_core(loaded), edited, strlen(edited), &report) == STRATA_OK;
    if (ok) {
        *out = *insp_every_get(loaded, e);
    }
    free(edited);
    free(text);
    insp_world_destroy(loaded);
    insp_world_destroy(w);
    return ok;
}

/* Every scalar type's extremes (minimum, maximum, past them, -0.0,
 * denormals, NaN and the infinities, the longest string and past it, odd
 * spellings) give the same answer through the page's write and a JSON
 * load: both take it and store the same bytes, or both refuse it. */
static void test_inspect_writes_and_loads_read_values_alike(void **state) {
    fixture_t *f = *state;
    f->still = true;
    insp_entity e = f->e[1];
    assert_int_equal(insp_every_add(f->w, e, INSP_EVERY_DEFAULT), STRATA_OK);
    char path[64];
    snprintf(path, sizeof path, "/api/entity/%uv%u", SPELL(e.id));
    size_t taken = 0;
    for (size_t i = 0; i < CODEC_CASES; i++) {
        const codec_case_t *c = &codec_cases[i];
        size_t size = 0, offset = every_field(c->field, &size);
        assert_int_equal(insp_every_set(f->w, e, INSP_EVERY_DEFAULT), STRATA_OK);
        char json[256];
        snprintf(json, sizeof json, "{\"component\":\"Every\",\"field\":\"%s\",\"value\":%s}", c->field, c->json);
        int status = post(f, path, json);
        insp_every loaded;
        bool load = codec_load(c->field, c->json, &loaded);
        if ((status == 200) != load) {
            fail_msg("%s = %s: the page's write answered %d, the load %s it", c->field, c->json, status,
                     load ? "took" : "refused");
        }
        assert_true(status == 200 || status == 400);
        if (load) {
            const unsigned char *page = (const unsigned char *)insp_every_get(f->w, e) + offset;
            if (memcmp(page, (const unsigned char *)&loaded + offset, size) != 0) {
                fail_msg("%s = %s: the page's write and the load stored different bytes", c->field, c->json);
            }
            taken++;
        }
    }
    print_message("%zu values, %zu taken by both, %zu refused by both\n", CODEC_CASES, taken, CODEC_CASES - taken);
    /* The rule for floats: NaN and the infinities are the strings; a number past the type is refused. */
    assert_int_equal(post(f, path, "{\"component\":\"Every\",\"field\":\"dbl\",\"value\":\"-inf\"}"), 200);
    assert_true(isinf(insp_every_get(f->w, e)->dbl) && insp_every_get(f->w, e)->dbl < 0);
    assert_int_equal(post(f, path, "{\"component\":\"Every\",\"field\":\"single\",\"value\":\"nan\"}"), 200);
    assert_true(isnan(insp_every_get(f->w, e)->single));
    /* And the page reads back what it wrote, spelled as a save spells it. */
    snprintf(path, sizeof path, "/api/entity/%uv%u", SPELL(e.id));
    assert_int_equal(get(f, path), 200);
    assert_non_null(strstr(body(), "\"single\":\"nan\""));
    assert_non_null(strstr(body(), "\"dbl\":\"-inf\""));
}

/* The loop: each system's gate and the transitions that run it, the state
 * machines, and a state set from the page as the typed API sets it (at the
 * next step's start, on_enter systems run); the loop's own fields are not
 * written as resources. */
static void test_inspect_states_and_gates(void **state) {
    fixture_t *f = *state;
    f->still = true;
    assert_int_equal(get(f, "/api/states"), 200); /* before the first step, it waits to enter its initial state */
    assert_non_null(strstr(body(), "\"current\":\"menu\",\"next\":\"menu\"}"));
    assert_int_equal(insp_world_step(f->w, 0.01f), STRATA_OK);
    assert_int_equal(get(f, "/api/systems"), 200);
    assert_non_null(strstr(body(), "\"without\":[\"Frozen\"],\"rate\":0,\"gate\":null,\"on\":[]}"));
    assert_non_null(strstr(body(),
                           "\"rate\":0,\"gate\":{\"states\":{\"Mode\":[\"playing\"]},\"conditions\":[{\"field\":"
                           "\"Settings.music\",\"when\":true}],\"interval\":0.25,\"open\":false},\"on\":[]}"));
    assert_non_null(strstr(body(), "\"gate\":{\"states\":{},\"conditions\":[],\"every\":4,\"open\":true},\"on\":[]}"));
    assert_non_null(
        strstr(body(), "\"gate\":null,\"on\":[{\"enter\":true,\"machine\":\"Mode\",\"states\":[\"playing\"]}]}"));
    assert_int_equal(get(f, "/api/states"), 200);
    assert_string_equal(body(),
                        "{\"machines\":[{\"name\":\"Mode\",\"states\":[\"menu\",\"playing\"],\"current\":\"menu\","
                        "\"next\":null}]}");
    /* Refused, and nothing asked. */
    assert_int_equal(post(f, "/api/state/Nope", "{\"state\":\"playing\"}"), 404);
    assert_int_equal(post(f, "/api/state/Mode", "{\"state\":\"over\"}"), 404);
    assert_int_equal(post(f, "/api/state/Mode", "{\"state\":\"Playing\"}"), 404);
    assert_int_equal(post(f, "/api/state/Mode", "{\"state\":1}"), 400);
    assert_int_equal(post(f, "/api/state/Mode", "{\"state\":"), 400);
    assert_int_equal(post(f, "/api/state/Mode", "{}"), 400);
    assert_int_equal(post(f, "/api/state/", "{\"state\":\"playing\"}"), 404);
    assert_int_equal(post(f, "/api/states", "{\"state\":\"playing\"}"), 405);
    assert_int_equal(get(f, "/api/state/Mode"), 405);
    assert_int_equal(post(f, "/api/resource", "{\"resource\":\"Mode\",\"field\":\"current\",\"value\":\"playing\"}"),
                     409);
    assert_int_equal(post(f, "/api/resource", "{\"resource\":\"Mode\",\"field\":\"pending\",\"value\":true}"), 409);
    assert_int_equal(post(f, "/api/resource", "{\"resource\":\"(loop)\",\"field\":\"systems.Beat\",\"value\":3}"), 409);
    assert_false(insp_mode_state_res(f->w)->pending);
    assert_int_equal(insp_mode_get(f->w), INSP_MODE_MENU);
    /* Asked: it waits for the next step's start. */
    assert_int_equal(post(f, "/api/state/Mode", "{\"state\":\"playing\"}"), 200);
    assert_int_equal(insp_mode_get(f->w), INSP_MODE_MENU);
    assert_int_equal(get(f, "/api/states"), 200);
    assert_non_null(strstr(body(), "\"current\":\"menu\",\"next\":\"playing\"}"));
    f->still = false;
    while (insp_mode_get(f->w) != INSP_MODE_PLAYING) {
        assert_int_equal(get(f, "/api/world"), 200);
    }
    f->still = true;
    assert_int_equal(get(f, "/api/states"), 200);
    assert_non_null(strstr(body(), "\"current\":\"playing\",\"next\":null}"));
    assert_int_equal(get(f, "/api/systems"), 200);
    assert_non_null(strstr(body(), "\"name\":\"Greet\",\"phase\":\"transitions\",\"enabled\":true,\"switchable\":true,"
                                   "\"runs\":1,"));
    assert_non_null(strstr(body(), "\"interval\":0.25,\"open\":true}"));
}

/* --- Writes from elsewhere ---------------------------------------------------------- */

/* Every write path, with a body the page could send to it. */
typedef struct write_t {
    char path[64];
    const char *body;
} write_t;

static size_t write_paths(fixture_t *f, write_t *out) {
    size_t n = 0;
    snprintf(out[n].path, sizeof out[n].path, "/api/entity/%uv%u", SPELL(f->e[0].id));
    out[n++].body = "{\"component\":\"Health\",\"field\":\"value\",\"value\":3}";
    snprintf(out[n].path, sizeof out[n].path, "/api/resource");
    out[n++].body = "{\"resource\":\"Score\",\"field\":\"value\",\"value\":77}";
    snprintf(out[n].path, sizeof out[n].path, "/api/system/Move");
    out[n++].body = "{\"enabled\":false}";
    snprintf(out[n].path, sizeof out[n].path, "/api/pause");
    out[n++].body = "{\"paused\":true}";
    snprintf(out[n].path, sizeof out[n].path, "/api/step");
    out[n++].body = "{}";
    snprintf(out[n].path, sizeof out[n].path, "/api/create");
    out[n++].body = "{\"assemblage\":\"Crate\"}";
    snprintf(out[n].path, sizeof out[n].path, "/api/add/%uv%u", SPELL(f->e[0].id));
    out[n++].body = "{\"component\":\"Frozen\"}";
    snprintf(out[n].path, sizeof out[n].path, "/api/remove/%uv%u", SPELL(f->e[1].id));
    out[n++].body = "{\"component\":\"Velocity\"}";
    snprintf(out[n].path, sizeof out[n].path, "/api/destroy/%uv%u", SPELL(f->e[7].id));
    out[n++].body = "{}";
    snprintf(out[n].path, sizeof out[n].path, "/api/state/Mode");
    out[n++].body = "{\"state\":\"playing\"}";
    return n;
}

/* A raw POST of `body` to `path` with these headers (each ending in CRLF). */
static int post_with(fixture_t *f, const char *path, const char *headers, const char *body) {
    char raw[4096];
    int n = snprintf(raw, sizeof raw, "POST %s HTTP/1.1\r\n%sContent-Length: %zu\r\n\r\n%s", path, headers,
                     strlen(body), body);
    assert_true(n > 0 && (size_t)n < sizeof raw);
    return ask(f, raw);
}

/* A page on another site (or another port of this machine) cannot change
 * the game: no CORS preflight is granted, and every write that does not
 * come from the inspector's own page with this run's secret, as JSON, to
 * this server's own name, is refused 4xx; the world stays as it was. */
static void test_inspect_cross_site_writes_refused(void **state) {
    fixture_t *f = *state;
    f->still = true;
    unsigned port = strata_inspect_port(f->in);
    const char *token = strata_inspect_token(f->in);
    assert_int_equal(strlen(token), 64);
    char wrong[65], shorter[64];
    snprintf(wrong, sizeof wrong, "%s", token);
    wrong[10] = wrong[10] == '0' ? '1' : '0';
    snprintf(shorter, sizeof shorter, "%.63s", token);
    /* Each: the headers of a request the page would not send, and the status expected. */
    struct {
        char headers[400];
        int status;
    } bad[16];
    size_t nbad = 0;
#define BAD(STATUS, ...)                                                                                               \
    do {                                                                                                               \
        snprintf(bad[nbad].headers, sizeof bad[nbad].headers, __VA_ARGS__);                                            \
        bad[nbad++].status = (STATUS);                                                                                 \
    } while (0)
    const char *json = "Content-Type: application/json\r\n";
    BAD(403, "Host: 127.0.0.1:%u\r\nOrigin: http://evil.example\r\n%sX-Strata-Token: %s\r\n", port, json, token);
    BAD(403, "Host: 127.0.0.1:%u\r\nOrigin: http://127.0.0.1:%u\r\n%sX-Strata-Token: %s\r\n", port, port + 1, json,
        token);
    BAD(403, "Host: 127.0.0.1:%u\r\nOrigin: null\r\n%sX-Strata-Token: %s\r\n", port, json, token);
    BAD(403, "Host: 127.0.0.1:%u\r\nSec-Fetch-Site: cross-site\r\n%sX-Strata-Token: %s\r\n", port, json, token);
    BAD(403, "Host: 127.0.0.1:%u\r\nSec-Fetch-Site: same-site\r\n%sX-Strata-Token: %s\r\n", port, json, token);
    BAD(403, "Host: 127.0.0.1:%u\r\nOrigin: http://127.0.0.1:%u\r\n%s", port, port, json);
    BAD(403, "Host: 127.0.0.1:%u\r\n%sX-Strata-Token: %s\r\n", port, json, wrong);
    BAD(403, "Host: 127.0.0.1:%u\r\n%sX-Strata-Token: %s\r\n", port, json, shorter);
    BAD(403, "Host: 127.0.0.1:%u\r\n%sX-Strata-Token: \r\n", port, json);
    BAD(415, "Host: 127.0.0.1:%u\r\nContent-Type: application/jsonx\r\nX-Strata-Token: %s\r\n", port, token);
    BAD(415, "Host: 127.0.0.1:%u\r\nContent-Type: text/plain\r\nX-Strata-Token: %s\r\n", port, token);
    BAD(415, "Host: 127.0.0.1:%u\r\nContent-Type: application/json; charset=latin1\r\nX-Strata-Token: %s\r\n", port,
        token);
    BAD(415, "Host: 127.0.0.1:%u\r\nX-Strata-Token: %s\r\n", port, token);
    BAD(421, "Host: evil.example:%u\r\n%sX-Strata-Token: %s\r\n", port, json, token);
    BAD(421, "Host: 127.0.0.1:%u\r\n%sX-Strata-Token: %s\r\n", port + 1, json, token);
    BAD(421, "%sX-Strata-Token: %s\r\n", json, token);
#undef BAD
    write_t writes[12];
    size_t nwrites = write_paths(f, writes);
    snapshot_t before = snapshot(f);
    for (size_t w = 0; w < nwrites; w++) {
        /* The preflight a page elsewhere sends first: refused, and nothing granted. */
        char raw[1280];
        snprintf(raw, sizeof raw,
                 "OPTIONS %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nOrigin: http://evil.example\r\n"
                 "Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type,x-strata-token"
                 "\r\n\r\n",
                 writes[w].path, port);
        assert_int_equal(ask(f, raw), 405);
        assert_null(strstr(reply, "Access-Control-"));
        for (size_t b = 0; b < nbad; b++) {
            int status = post_with(f, writes[w].path, bad[b].headers, writes[w].body);
            if (status != bad[b].status) {
                print_message("%s with\n%s-> %d\n", writes[w].path, bad[b].headers, status);
            }
            assert_int_equal(status, bad[b].status);
            assert_null(strstr(reply, "Access-Control-"));
        }
    }
    /* A read from another origin is refused too (a browser would not show it, but the game need not answer). */
    char raw[512];
    snprintf(raw, sizeof raw, "GET /api/world HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nOrigin: http://evil.example\r\n\r\n",
             port);
    assert_int_equal(ask(f, raw), 403);
    assert_unchanged(f, &before);
    assert_int_equal(get(f, "/api/world"), 200);
    assert_non_null(strstr(body(), "\"paused\":false"));
    /* The same writes from the page itself go through: the refusals above were for where they came from. */
    for (size_t w = 0; w < nwrites; w++) {
        assert_int_equal(post(f, writes[w].path, writes[w].body), 200);
    }
    assert_int_equal(insp_health_get(f->w, f->e[0])->value, 3);
    assert_int_equal(insp_score_res(f->w)->value, 77);
    assert_false(insp_move_enabled(f->w));
    assert_true(insp_frozen_has(f->w, f->e[0]) && !insp_velocity_has(f->w, f->e[1]));
    assert_false(insp_entity_alive(f->w, f->e[7]));
    assert_true(insp_mode_state_res(f->w)->pending && insp_mode_state_res(f->w)->next == INSP_MODE_PLAYING);
    /* A charset is allowed, in any case, as is a script's POST that sends no Origin. */
    char headers[512];
    snprintf(headers, sizeof headers,
             "Host: localhost:%u\r\nContent-Type: Application/JSON; Charset=UTF-8\r\n"
             "X-Strata-Token: %s\r\n",
             port, token);
    assert_int_equal(post_with(f, "/api/system/Move", headers, "{\"enabled\":true}"), 200);
    assert_true(insp_move_enabled(f->w));
}

/* The page carries this run's secret; another run has another. */
static void test_inspect_page_holds_the_secret(void **state) {
    fixture_t *f = *state;
    assert_int_equal(get(f, "/"), 200);
    char meta[128];
    snprintf(meta, sizeof meta, "<meta name=\"strata-token\" content=\"%s\">", strata_inspect_token(f->in));
    assert_non_null(strstr(body(), meta));
    assert_non_null(strstr(reply, "X-Frame-Options: DENY"));
    assert_non_null(strstr(reply, "frame-ancestors 'none'"));
    strata_inspect_t *other = NULL;
    assert_int_equal(insp_inspect_start(f->w, &(strata_inspect_desc_t){.any_port = true}, &other), STRATA_OK);
    assert_string_not_equal(strata_inspect_token(other), strata_inspect_token(f->in));
    strata_inspect_stop(other);
    /* The script, which a page elsewhere could include and run, holds no secret. */
    assert_int_equal(get(f, "/inspector.js"), 200);
    assert_null(strstr(body(), strata_inspect_token(f->in)));
}

/* --- Hostile requests -------------------------------------------------------------- */

#define HOSTILE 10240

typedef struct hostile_t {
    char *requests[HOSTILE];
    size_t sizes[HOSTILE];
    size_t count;
} hostile_t;

static void hostile_add(hostile_t *h, const char *raw, size_t n) {
    assert_true(h->count < HOSTILE);
    h->requests[h->count] = malloc(n + 1);
    memcpy(h->requests[h->count], raw, n);
    h->requests[h->count][n] = '\0';
    h->sizes[h->count++] = n;
}

static void hostile_fmt(hostile_t *h, const char *fmt, ...) {
    char raw[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof raw);
    hostile_add(h, raw, (size_t)n);
}

/* A POST with a JSON body to path, with the secret: refused only for what it asks. */
static const char *hostile_token;

static void hostile_post(hostile_t *h, unsigned port, const char *path, const char *json) {
    hostile_fmt(h,
                "POST %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\nX-Strata-Token: %s\r\n"
                "Content-Length: %zu\r\n\r\n%s",
                path, port, hostile_token, strlen(json), json);
}

static uint32_t xorshift(uint32_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void test_inspect_hostile_requests(void **state) {
    fixture_t *f = *state;
    unsigned port = strata_inspect_port(f->in);
    hostile_t *h = calloc(1, sizeof *h);
    hostile_token = strata_inspect_token(f->in);
    /* Links to forge and cycles to close: e3 <- e0 <- e1. With every system
     * off, the world steps on but nothing in it changes unless a request
     * changes it: a save before and after must be the same bytes. */
    assert_int_equal(insp_child_of_set(f->w, f->e[0], f->e[3]), STRATA_OK);
    assert_int_equal(insp_child_of_set(f->w, f->e[1], f->e[0]), STRATA_OK);
    insp_move_enable(f->w, false);
    insp_tally_enable(f->w, false);
    insp_watch_enable(f->w, false);
    insp_hurt_enable(f->w, false);
    insp_beat_enable(f->w, false);
    insp_greet_enable(f->w, false);
    assert_int_equal(insp_world_step(f->w, 0.01f), STRATA_OK); /* the initial state entered: its flag saved */
    snapshot_t before_world = snapshot(f);
    write_t writes[12];
    size_t nwrites = write_paths(f, writes);
    static const char *const reads[] = {"/api/world",   "/api/entities", "/api/systems",
                                        "/api/changes", "/api/reloads",  "/"};
    /* Headers of requests the page would not send (a page elsewhere, or no secret). */
    char elsewhere[6][256];
    snprintf(elsewhere[0], sizeof elsewhere[0],
             "Origin: http://evil.example\r\nContent-Type: application/json\r\n"
             "X-Strata-Token: %s\r\n",
             hostile_token);
    snprintf(elsewhere[1], sizeof elsewhere[1],
             "Sec-Fetch-Site: cross-site\r\nContent-Type: application/json\r\n"
             "X-Strata-Token: %s\r\n",
             hostile_token);
    snprintf(elsewhere[2], sizeof elsewhere[2], "Content-Type: application/json\r\n");
    snprintf(elsewhere[3], sizeof elsewhere[3], "Content-Type: application/json\r\nX-Strata-Token: %.63sx\r\n",
             hostile_token);
    snprintf(elsewhere[4], sizeof elsewhere[4], "Content-Type: application/jsonx\r\nX-Strata-Token: %s\r\n",
             hostile_token);
    snprintf(elsewhere[5], sizeof elsewhere[5], "Content-Type: text/plain\r\nX-Strata-Token: %s\r\n", hostile_token);
    /* Entity ids that name no live entity, and links that break the relation's rules. */
    char forged[8][64];
    snprintf(forged[0], sizeof forged[0], "%uv%u", SPELL(f->gone.id));
    snprintf(forged[1], sizeof forged[1], "%uv%u", SPELL(f->e[5].id + ((uint64_t)1 << 32)));
    snprintf(forged[2], sizeof forged[2], "%uv0", (unsigned)(f->e[5].id & 0xffffffffu));
    snprintf(forged[3], sizeof forged[3], "%uv%u", SPELL(f->gone.id + ((uint64_t)1 << 32)));
    snprintf(forged[4], sizeof forged[4], "999999v1");
    snprintf(forged[5], sizeof forged[5], "39v7");
    snprintf(forged[6], sizeof forged[6], "%llu",
             (unsigned long long)f->e[5].id); /* the 64-bit number: not a spelling */
    snprintf(forged[7], sizeof forged[7], "0%uv%u", SPELL(f->e[5].id));
    uint32_t seed = 0x9e3779b9u;
    static const char *const methods[] = {"PUT",     "DELETE", "PATCH", "OPTIONS", "TRACE",
                                          "CONNECT", "FOO",    "get",   "HEAD"};
    static const char *const traversal[] = {
        "/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/api/../../etc/shadow",
        "/inspector.js/../../../etc/passwd",
        "/..%2f..%2fetc%2fpasswd",
        "/%00",
        "/api/%2e%2e/world/../../x",
        "//etc/passwd",
        "/api/entity/../../../etc/passwd",
        "/index.html%00.js",
        "/C:%5cwindows%5cwin.ini",
        "/api/world/",
        "/api",
        "/api/entities/extra",
        "/inspector.css.map",
    };
    static const char *const broken_json[] = {
        "",
        "{",
        "}",
        "[]",
        "{\"component\":}",
        "{\"component\":\"Health\",}",
        "{\"a\":1 \"b\":2}",
        "nul",
        "{\"x\":tru}",
        "{\"x\":\"\\uZZZZ\"}",
        "{\"x\":\"\\u0000\"}",
        "{\"x\":01}",
        "{\"x\":-}",
        "{\"x\":1e}",
        "{\"x\":{\"nested\":1}}",
        "{\"x\":[1,2]}",
        "{\"x\":1}{",
        "{\"x\":\"unterminated}",
        "{\"x\":1,\"x\":2}",
        "\"just a string\"",
        "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9}",
        "{\"\x01\":1}",
        "{\"x\":\"\x7f\xff\"}",
    };
    char entity[64], stale[64];
    snprintf(entity, sizeof entity, "/api/entity/%uv%u", SPELL(f->e[0].id));
    snprintf(stale, sizeof stale, "/api/entity/%uv%u", SPELL(f->gone.id));
    static const write_t bad_states[] = {
        {"/api/state/Nope", "{\"state\":\"playing\"}"},
        {"/api/state/Mode", "{\"state\":\"over\"}"},
        {"/api/state/Mode", "{\"state\":\"\"}"},
        {"/api/state/Mode", "{\"state\":null}"},
        {"/api/state/Mode", "{\"state\":[\"playing\"]}"},
        {"/api/state/Mode", "{\"machine\":\"Mode\"}"},
        {"/api/state/Mode/playing", "{}"},
        {"/api/state/mode", "{\"state\":\"playing\"}"},
        {"/api/resource", "{\"resource\":\"Mode\",\"field\":\"current\",\"value\":\"playing\"}"},
        {"/api/resource", "{\"resource\":\"Mode\",\"field\":\"next\",\"value\":1}"},
        {"/api/resource", "{\"resource\":\"Mode\",\"field\":\"entered\",\"value\":false}"},
        {"/api/resource", "{\"resource\":\"(loop)\",\"field\":\"systems.Beat\",\"value\":0}"},
    };
    static const char *const out_of_range[] = {
        "{\"component\":\"Health\",\"field\":\"value\",\"value\":32768}",
        "{\"component\":\"Health\",\"field\":\"value\",\"value\":-32769}",
        "{\"component\":\"Health\",\"field\":\"value\",\"value\":1.5}",
        "{\"component\":\"Health\",\"field\":\"value\",\"value\":\"ten\"}",
        "{\"component\":\"Health\",\"field\":\"value\",\"value\":true}",
        "{\"component\":\"Health\",\"field\":\"value\",\"value\":1e400}",
        "{\"component\":\"Health\",\"field\":\"value\"}",
        "{\"component\":\"Health\",\"field\":\"max\",\"value\":-1}",
        "{\"component\":\"Health\",\"field\":\"max\",\"value\":256}",
        "{\"component\":\"Position\",\"field\":\"x\",\"value\":1e39}",
        "{\"component\":\"Position\",\"field\":\"x\",\"value\":null}",
        "{\"component\":\"Label\",\"field\":\"text\",\"value\":\"far too long\"}",
        "{\"component\":\"Label\",\"field\":\"kind\",\"value\":\"italic\"}",
        "{\"component\":\"Label\",\"field\":\"kind\",\"value\":2}",
        "{\"component\":\"Label\",\"field\":\"slots.3\",\"value\":1}",
        "{\"component\":\"Label\",\"field\":\"slots\",\"value\":1}",
        "{\"component\":\"Label\",\"field\":\"slots.-1\",\"value\":1}",
        "{\"component\":\"Label\",\"field\":\"slots.99999999999999999999\",\"value\":1}",
        "{\"component\":\"Nope\",\"field\":\"x\",\"value\":1}",
        "{\"component\":\"Frozen\",\"field\":\"x\",\"value\":1}",
        "{\"component\":\"Health\",\"field\":\"\",\"value\":1}",
        "{\"component\":\"Health\",\"field\":\"value.deeper\",\"value\":1}",
        "{\"component\":7,\"field\":\"value\",\"value\":1}",
    };
    static const char *const bad_queries[] = {
        "/api/entities?limit=1001",
        "/api/entities?limit=-1",
        "/api/entities?offset=abc",
        "/api/entities?offset=99999999999",
        "/api/entities?with=Nope",
        "/api/entities?with=Position,,Nope",
        "/api/entities?query=Nope",
        "/api/entities?query=%zz",
        "/api/entities?with=%00",
        "/api/entities?limit=1e3",
        "/api/entity/",
        "/api/entity/abc",
        "/api/entity/-1",
        "/api/entity/0",
        "/api/entity/18446744073709551616",
        "/api/entity/1%20",
        "/api/system/Nope",
        "/api/nothing",
        "/api/entity-state/",
        "/api/entity-state/abc",
        "/api/entity-state/0",
        "/api/entity-state/18446744073709551616",
        "/api/entity-state/4294967297/extra",
        "/api/changes/Health",
        "/api/aspects/Watch",
        "/api/entity-states",
        "/api/tree",
        "/api/tree?relation=Likes",
        "/api/tree?relation=Nope",
        "/api/tree?relation=ChildOf&parent=0v2",
        "/api/tree?relation=ChildOf&parent=999999v1",
        "/api/tree?relation=ChildOf&limit=1001",
        "/api/tree?relation=%zz",
        "/api/query",
        "/api/query?with=Nope",
        "/api/query?with=Health&without=Health",
        "/api/query?with=Health&target=1v1",
        "/api/query?relation=ChildOf&target=abc",
        "/api/query?relation=ChildOf&target=999999v1",
        "/api/query?with=Position&offset=-1",
        "/api/query?with=Position&limit=5000",
        "/api/query?optional=Nope",
        "/api/history?since=abc",
        "/api/history?since=-1",
        "/api/history/x",
        "/api/events/Hit",
        "/api/links/",
        "/api/links/abc",
        "/api/links/0",
        "/api/create",
        "/api/add/1v1",
        "/api/destroy/1v1",
        "/api/reloads/1",
        "/api/reload",
        "/api/state/Mode",
        "/api/state/Nope",
        "/api/states/Mode",
    };
    /* Structural edits the typed rules refuse: each 4xx, nothing changed
     * (e0 has a ChildOf link to e3 and is e1's target). */
    char edits[12][2][128];
    snprintf(edits[0][0], 128, "/api/add/%uv%u", SPELL(f->e[0].id));
    snprintf(edits[0][1], 128, "{\"component\":\"Position\"}"); /* has it: 409 */
    snprintf(edits[1][0], 128, "/api/add/%uv%u", SPELL(f->e[0].id));
    snprintf(edits[1][1], 128, "{\"component\":\"ChildOf\",\"target\":\"%uv%u\"}", SPELL(f->e[1].id)); /* cycle */
    snprintf(edits[2][0], 128, "/api/add/%uv%u", SPELL(f->e[0].id));
    snprintf(edits[2][1], 128, "{\"component\":\"ChildOf\",\"target\":\"%uv%u\"}", SPELL(f->e[0].id)); /* itself */
    snprintf(edits[3][0], 128, "/api/add/%uv%u", SPELL(f->e[2].id));
    snprintf(edits[3][1], 128, "{\"component\":\"ChildOf\",\"target\":\"%uv%u\"}", SPELL(f->gone.id)); /* stale */
    snprintf(edits[4][0], 128, "/api/add/%uv%u", SPELL(f->e[2].id));
    snprintf(edits[4][1], 128, "{\"component\":\"Likes\",\"target\":%llu}", (unsigned long long)f->e[3].id);
    snprintf(edits[5][0], 128, "/api/remove/%uv%u", SPELL(f->e[0].id));
    snprintf(edits[5][1], 128, "{\"component\":\"Frozen\"}"); /* has it not: 404 */
    snprintf(edits[6][0], 128, "/api/add/%uv%u", SPELL(f->e[2].id));
    snprintf(edits[6][1], 128, "{\"component\":\"Nope\"}");
    snprintf(edits[7][0], 128, "/api/add/%uv%u", SPELL(f->e[2].id));
    snprintf(edits[7][1], 128, "{\"component\":\"Frozen\",\"target\":\"%uv%u\"}", SPELL(f->e[3].id));
    snprintf(edits[8][0], 128, "/api/create");
    snprintf(edits[8][1], 128, "{\"assemblage\":\"Nope\"}");
    snprintf(edits[9][0], 128, "/api/create");
    snprintf(edits[9][1], 128, "{\"assemblage\":null}");
    snprintf(edits[10][0], 128, "/api/destroy/%uv%u", SPELL(f->gone.id));
    snprintf(edits[10][1], 128, "{}");
    snprintf(edits[11][0], 128, "/api/add/%uv%u", SPELL(f->e[2].id));
    snprintf(edits[11][1], 128, "{\"component\":\"ChildOf\"}"); /* a link needs a target */
    for (uint32_t round = 0; h->count + 40 < HOSTILE; round++) {
        uint32_t r = xorshift(&seed);
        switch (round % 12) {
        case 0: /* bad methods */
            hostile_fmt(h, "%s /api/world HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n", methods[r % 9], port);
            break;
        case 1: { /* huge headers: one long line, or too many */
            size_t n = 17000 + r % 30000;
            char *raw = malloc(n + 128);
            int head = snprintf(raw, 128, "GET /api/world HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nX-Big: ", port);
            size_t at = (size_t)head;
            if (r & 1) {
                memset(raw + at, 'a' + (char)(r % 26), n);
                at += n;
                memcpy(raw + at, "\r\n\r\n", 4);
                at += 4;
            } else {
                at = (size_t)snprintf(raw, 128, "GET /api/world HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n", port);
                for (uint32_t k = 0; k < 70 + r % 200 && at + 32 < n; k++) {
                    at += (size_t)sprintf(raw + at, "X-H%u: %u\r\n", k, k);
                }
                memcpy(raw + at, "\r\n", 2);
                at += 2;
            }
            hostile_add(h, raw, at);
            free(raw);
            break;
        }
        case 2: /* broken JSON */
            hostile_post(h, port,
                         r & 1   ? entity
                         : r & 2 ? "/api/create"
                                 : "/api/system/Move",
                         broken_json[r % (sizeof broken_json / sizeof *broken_json)]);
            break;
        case 3: /* unknown ids and stale handles */
            if (r % 6 == 3) {
                hostile_fmt(h, "GET /api/entity-state/%s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
                            stale + sizeof "/api/entity/" - 1, port);
            } else if (r % 3 == 0) {
                hostile_fmt(h, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n", stale, port);
            } else if (r % 3 == 1) {
                hostile_post(h, port, stale, "{\"component\":\"Health\",\"field\":\"value\",\"value\":1}");
            } else {
                hostile_fmt(h, "GET /api/entity/%u HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n", r, port);
            }
            break;
        case 4: /* values out of range, fields that do not exist; states that do not, or set around the loop */
            if (r % 3 == 0) {
                const write_t *w = &bad_states[(r >> 2) % (sizeof bad_states / sizeof *bad_states)];
                hostile_post(h, port, w->path, w->body);
            } else {
                hostile_post(h, port, entity, out_of_range[r % (sizeof out_of_range / sizeof *out_of_range)]);
            }
            break;
        case 5: /* path traversal */
            hostile_fmt(h, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
                        traversal[r % (sizeof traversal / sizeof *traversal)], port);
            break;
        case 6: /* bad query strings and paths */
            hostile_fmt(h, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
                        bad_queries[r % (sizeof bad_queries / sizeof *bad_queries)], port);
            break;
        case 7: /* bodies too large, missing, or not JSON; writes by GET, reads by POST */
            switch (r % 6) {
            case 0:
                hostile_fmt(h,
                            "POST /api/pause HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
                            "Content-Length: %u\r\n\r\n{}",
                            port, 20000 + r % 100000);
                break;
            case 1:
                hostile_fmt(h,
                            "POST /api/pause HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: text/plain\r\n"
                            "Content-Length: 2\r\n\r\n{}",
                            port);
                break;
            case 2:
                hostile_fmt(h,
                            "POST /api/pause HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n\r\n",
                            port);
                break;
            case 3:
                hostile_post(h, port,
                             r & 8    ? "/api/changes"
                             : r & 16 ? "/api/aspects"
                             : r & 32 ? "/api/reloads"
                                      : "/api/world",
                             "{}");
                break;
            case 4: hostile_fmt(h, "GET /api/pause HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n", port); break;
            default:
                hostile_fmt(h,
                            "POST /api/pause HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
                            "Content-Length: 50\r\n\r\n{\"paused\":",
                            port);
                break;
            }
            break;
        case 10: /* from elsewhere, or without the secret: every path */
            if (r % 4 == 0) {
                hostile_fmt(h, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nOrigin: http://evil.example\r\n\r\n",
                            reads[r % (sizeof reads / sizeof *reads)], port);
            } else {
                const write_t *w = &writes[r % nwrites];
                hostile_fmt(h, "POST %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n%sContent-Length: %zu\r\n\r\n%s", w->path,
                            port, elsewhere[(r >> 4) % 6], strlen(w->body), w->body);
            }
            break;
        case 11: { /* forged and stale ids on every entity path; links to them, to itself, in a cycle */
            const char *id = forged[(r >> 3) % 8];
            char json[160];
            switch (r % 6) {
            case 0: hostile_fmt(h, "GET /api/entity/%s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n", id, port); break;
            case 1:
                hostile_fmt(h, "GET /api/%s/%s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
                            r & 64 ? "links" : "entity-state", id, port);
                break;
            case 2: {
                static const char *const paths[] = {"entity", "destroy", "add", "remove"};
                char path[96]; /* "/api/", the longest path and an id of at most 63 bytes */
                snprintf(path, sizeof path, "/api/%s/%s", paths[(r >> 6) % 4], id);
                hostile_post(h, port, path, "{\"component\":\"Health\",\"field\":\"value\",\"value\":1}");
                break;
            }
            case 3: /* e0's link to a forged target, or to null */
                snprintf(json, sizeof json, "{\"component\":\"ChildOf\",\"field\":\"target\",\"value\":%s%s%s}",
                         r & 64 ? "" : "\"", r & 64 ? (r & 128 ? "0" : "null") : id, r & 64 ? "" : "\"");
                hostile_post(h, port, entity, json);
                break;
            case 5:
                if (r & 8) { /* the refused structural edits */
                    hostile_post(h, port, edits[(r >> 4) % 12][0], edits[(r >> 4) % 12][1]);
                    break;
                }
                /* fall through */
            default: /* e0's link to itself or to its child e1: a cycle */
                snprintf(json, sizeof json, "{\"component\":\"ChildOf\",\"field\":\"target\",\"value\":\"%uv%u\"}",
                         SPELL(r % 6 == 4 ? f->e[0].id : f->e[1].id));
                hostile_post(h, port, entity, json);
                break;
            }
            break;
        }
        case 8: /* a Host that is not this server (DNS rebinding), or none */
            if (r & 1) {
                hostile_fmt(h, "GET /api/world HTTP/1.1\r\nHost: evil.example:%u\r\n\r\n", port);
            } else {
                hostile_fmt(h, "GET /api/world HTTP/1.1\r\n\r\n");
            }
            break;
        default: { /* garbage request lines */
            char junk[64];
            for (size_t k = 0; k < sizeof junk; k++) {
                junk[k] = (char)(1 + xorshift(&seed) % 254);
                if (junk[k] == '\r' || junk[k] == '\n' || junk[k] == ' ') {
                    junk[k] = 'x';
                }
            }
            if (r % 3 == 0) {
                hostile_fmt(h, "GET /%.*s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n", 40, junk, port);
            } else if (r % 3 == 1) {
                hostile_fmt(h, "GET /api/world HTTP/7.3\r\nHost: 127.0.0.1:%u\r\n\r\n", port);
            } else {
                hostile_fmt(h, "%.*s %.*s HTTP/1.1\r\n\r\n", 8, junk, 20, junk + 10);
            }
            break;
        }
        }
    }
    assert_true(h->count >= 10000);
    int *statuses = calloc(h->count, sizeof *statuses);
    exchange_t x = {.requests = (const char *const *)h->requests,
                    .sizes = h->sizes,
                    .count = h->count,
                    .statuses = statuses,
                    .reply = reply,
                    .reply_cap = sizeof reply};
    unsigned long before = f->steps;
    exchange(f, &x);
    size_t bad = 0;
    for (size_t i = 0; i < h->count; i++) {
        if (statuses[i] < 400 || statuses[i] > 499) {
            if (bad++ < 10) {
                print_message("request %zu answered %d: %.120s\n", i, statuses[i], h->requests[i]);
            }
        }
        free(h->requests[i]);
    }
    print_message("%zu hostile requests, %zu not answered 4xx; %lu steps meanwhile\n", h->count, bad,
                  f->steps - before);
    assert_int_equal(bad, 0);
    assert_true(f->steps - before >= 1000); /* the game kept stepping */
    /* The world is as the game left it, and the inspector still answers. */
    assert_unchanged(f, &before_world);
    assert_int_equal(get(f, "/api/world"), 200);
    assert_non_null(strstr(body(), "\"paused\":false"));
    assert_int_equal(member("entities"), ENTITIES);
    free(statuses);
    free(h);
}

/* --- The cost of a poll with no client ---------------------------------------------- */

static void test_inspect_poll_cost_without_client(void **state) {
    fixture_t *f = *state;
    enum { POLLS = 1000000 };
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned go = 0;
    for (int i = 0; i < POLLS; i++) {
        go += strata_inspect_poll(f->in);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / POLLS;
    print_message("strata_inspect_poll with no client: %.1f ns\n", ns);
    assert_int_equal(go, POLLS);
    assert_true(ns < 1000.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_inspect_world_counts, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_archetypes, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_entities_paged_and_filtered, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_entity_spelled_one_way, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_systems_resources_schedule, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_step_times_each_system, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_changes_and_aspects, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_load_keeps_step_observer, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_labels_from_schema, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_tree_of_exclusive_relation, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_links_both_ways, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_query_typed, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_events_recorded, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_history_recorded, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_nothing_recorded_without_client, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_history_marks_state_changes, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_reload_marked_and_recorded_afresh, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_structural_edits, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_retarget_and_reloads, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_page_is_served, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_set_component_field, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_set_resource_field, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_disable_system_stops_it, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_states_and_gates, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_pause_and_step, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_writes_off_by_default, setup_read_only, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_link_writes_follow_relation_rules, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_writes_and_loads_read_values_alike, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_cross_site_writes_refused, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_page_holds_the_secret, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_hostile_requests, setup_writes, teardown),
        cmocka_unit_test_setup_teardown(test_inspect_poll_cost_without_client, setup_read_only, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* inspect.c: the inspector's server (strata_inspect.h). civetweb's threads
 * parse each request and queue it; the game's thread answers the queue in
 * strata_inspect_poll (api.c), so the world is only ever touched by the
 * game. The page's files, which are not the world's, are served at once. */
#define _POSIX_C_SOURCE 200809L
#include "strata_inspect.h"

#include "api.h"
#include "page.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define INSPECT_QUEUE 64u /* requests waiting for the game at most; more are answered 503 */
#define INSPECT_MAX_CONNECTIONS 64u
#define INSPECT_MAX_HEADERS 32                 /* headers a request may have; civetweb drops those past 64 */
#define INSPECT_TIMING 5.0                     /* seconds the step is timed after a request */
#define INSPECT_TOKEN_BYTES 32                 /* random bytes of the per-run secret (64 hex digits) */
#define INSPECT_TOKEN_SLOT "STRATA_TOKEN_SLOT" /* where index.html takes the secret */

enum { REQUEST_QUEUED, REQUEST_TAKEN, REQUEST_DONE };

/* A request waiting for the game: lives on its server thread's stack. */
typedef struct inspect_job_t {
    sti_request_t request;
    int state; /* REQUEST_*, under the inspector's lock */
} inspect_job_t;

struct strata_inspect_t {
    sti_api_t api; /* the game's side: touched on the game's thread only */
    struct mg_context *server;
    uint16_t port;
    char host[64];  /* what a request's Host must name when bound to loopback ("" : anything) */
    char local[64]; /* the same, spelled with the name localhost */
    char token[2 * INSPECT_TOKEN_BYTES + 1]; /* the per-run secret a write carries (X-Strata-Token) */
    char *index;                             /* index.html with the secret in its slot */
    size_t index_size;
    pthread_mutex_t lock;
    pthread_cond_t answered;
    inspect_job_t *queue[INSPECT_QUEUE];
    uint32_t queued;
    bool stopping;
    _Atomic uint32_t pending; /* == queued: the one thing a poll reads when no one is connected */
    _Atomic uint64_t answered_count;
    bool stepping;                   /* the last poll let the game step, timed */
    double step_start;               /* when it did (seconds) */
    double timing_until;             /* the coarse clock's time the timing stops, unless a request comes */
    strata_step_observer_t observer; /* attached to the world while started: times each system */
};

static double inspect_clock(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds, precise: the timing of steps and systems. */
static double inspect_now(void) {
    return inspect_clock(CLOCK_MONOTONIC);
}

/* Seconds to a few milliseconds, several times cheaper: whether a client asked lately. */
static double inspect_coarse(void) {
#ifdef CLOCK_MONOTONIC_COARSE
    return inspect_clock(CLOCK_MONOTONIC_COARSE);
#else
    return inspect_now();
#endif
}

static const char *inspect_reason(int status) {
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 421: return "Misdirected Request";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    default: return "Service Unavailable";
    }
}

static int inspect_send(strata_inspect_t *in, struct mg_connection *conn, int status, const char *type,
                        const char *body, size_t n) {
    /* No Access-Control-* header, ever: no other origin is granted anything.
     * The page may not be framed (a page elsewhere cannot steer clicks on it)
     * and loads nothing but its own files. */
    mg_printf(conn,
              "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nCache-Control: no-store\r\n"
              "X-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\n"
              "Content-Security-Policy: default-src 'self'; frame-ancestors 'none'\r\n"
              "Referrer-Policy: no-referrer\r\nConnection: close\r\n%s\r\n",
              status, inspect_reason(status), type, n, status == 405 ? "Allow: GET, POST\r\n" : "");
    if (n > 0) {
        mg_write(conn, body, n);
    }
    atomic_fetch_add_explicit(&in->answered_count, 1, memory_order_relaxed);
    return status;
}

static int inspect_fail(strata_inspect_t *in, struct mg_connection *conn, int status, const char *message) {
    char body[160];
    int n = snprintf(body, sizeof body, "{\"error\":\"%s\"}", message);
    return inspect_send(in, conn, status, "application/json", body, (size_t)n);
}

/* Queue the job and wait for the game to answer it (or give up: 503). */
static int inspect_wait(strata_inspect_t *in, struct mg_connection *conn, inspect_job_t *job) {
    pthread_mutex_lock(&in->lock);
    if (in->stopping || in->queued == INSPECT_QUEUE) {
        pthread_mutex_unlock(&in->lock);
        return inspect_fail(in, conn, 503, "the inspector is busy or stopping");
    }
    in->queue[in->queued++] = job;
    atomic_store_explicit(&in->pending, in->queued, memory_order_release);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    double timeout = in->api.desc.timeout;
    deadline.tv_sec += (time_t)timeout;
    deadline.tv_nsec += (long)((timeout - (double)(time_t)timeout) * 1e9);
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    bool gave_up = false;
    while (job->state != REQUEST_DONE) {
        bool late = pthread_cond_timedwait(&in->answered, &in->lock, &deadline) != 0;
        if ((late || in->stopping) && job->state == REQUEST_QUEUED) {
            /* The game did not poll in time: take the job back out of the queue. */
            for (uint32_t i = 0; i < in->queued; i++) {
                if (in->queue[i] == job) {
                    in->queue[i] = in->queue[--in->queued];
                    break;
                }
            }
            atomic_store_explicit(&in->pending, in->queued, memory_order_release);
            gave_up = true;
            break;
        }
    }
    pthread_mutex_unlock(&in->lock);
    if (gave_up) {
        return inspect_fail(in, conn, 503, "the game did not poll in time (paused in a debugger, or stopping)");
    }
    sti_request_t *r = &job->request;
    int status = inspect_send(in, conn, r->status, r->type, r->out.data, r->out.len);
    sti_buf_free(&r->out);
    return status;
}

/* True if the Host header names this server (a page elsewhere cannot make
 * the browser talk to it through a name of its own: DNS rebinding). */
static bool inspect_host_ok(const strata_inspect_t *in, const char *host) {
    if (in->host[0] == '\0') {
        return true;
    }
    return host != NULL && (strcmp(host, in->host) == 0 || strcmp(host, in->local) == 0);
}

/* True if the request comes from the inspector's own page, or from no page
 * at all (a script, curl): an Origin, when sent, is this server's origin
 * (http:// and the Host it was asked by), and a browser's Sec-Fetch-Site,
 * when sent, says the same origin or none (typed in, a bookmark). A page
 * elsewhere may only navigate to the page's files (a link to it). */
static bool inspect_origin_ok(struct mg_connection *conn, const char *host, bool page_file) {
    const char *origin = mg_get_header(conn, "Origin");
    if (origin != NULL && (host == NULL || strncmp(origin, "http://", 7) != 0 || strcmp(origin + 7, host) != 0)) {
        return false;
    }
    const char *site = mg_get_header(conn, "Sec-Fetch-Site");
    if (site == NULL || strcmp(site, "same-origin") == 0 || strcmp(site, "none") == 0) {
        return true;
    }
    const char *mode = mg_get_header(conn, "Sec-Fetch-Mode");
    return page_file && origin == NULL && mode != NULL && strcmp(mode, "navigate") == 0;
}

/* True for exactly `application/json`, or with `; charset=utf-8` (any case). */
static bool inspect_json_type(const char *type) {
    static const char json[] = "application/json";
    if (type == NULL || strncasecmp(type, json, sizeof json - 1) != 0) {
        return false;
    }
    const char *p = type + sizeof json - 1;
    p += strspn(p, " \t");
    if (*p == '\0') {
        return true;
    }
    if (*p++ != ';') {
        return false;
    }
    p += strspn(p, " \t");
    if (strncasecmp(p, "charset=utf-8", 13) != 0) {
        return false;
    }
    p += 13;
    return p[strspn(p, " \t")] == '\0';
}

/* True if the request carries the per-run secret (compared in constant time). */
static bool inspect_token_ok(const strata_inspect_t *in, const char *token) {
    size_t n = sizeof in->token - 1;
    if (token == NULL || strlen(token) != n) {
        return false;
    }
    unsigned char diff = 0;
    for (size_t i = 0; i < n; i++) {
        diff |= (unsigned char)(token[i] ^ in->token[i]);
    }
    return diff == 0;
}

static int inspect_handle(struct mg_connection *conn, void *data) {
    strata_inspect_t *in = data;
    const struct mg_request_info *ri = mg_get_request_info(conn);
    bool post = strcmp(ri->request_method, "POST") == 0;
    if (!post && strcmp(ri->request_method, "GET") != 0) {
        return inspect_fail(in, conn, 405, "GET or POST only"); /* OPTIONS too: no preflight is granted */
    }
    if (ri->num_headers > INSPECT_MAX_HEADERS) {
        return inspect_fail(in, conn, 431, "too many headers");
    }
    const char *host = mg_get_header(conn, "Host");
    if (!inspect_host_ok(in, host)) {
        return inspect_fail(in, conn, 421, "the Host header does not name this server");
    }
    const char *path = ri->local_uri_raw != NULL ? ri->local_uri_raw : "";
    bool page_file = false;
    for (size_t i = 0; i < sti_page_file_count && !post; i++) {
        page_file = page_file || strcmp(path, sti_page_files[i].path) == 0;
    }
    if (!inspect_origin_ok(conn, host, page_file)) {
        return inspect_fail(in, conn, 403,
                            "only the inspector's own page may ask (the request came from another origin)");
    }
    inspect_job_t job = {0};
    sti_request_t *r = &job.request;
    size_t plen = strlen(path), qlen = ri->query_string != NULL ? strlen(ri->query_string) : 0;
    if (plen >= sizeof r->path || qlen >= sizeof r->query) {
        return inspect_fail(in, conn, 414, "the path or query is too long");
    }
    /* The path is taken as sent (decode_url is off): every path the
     * inspector serves is plain, so an escape (%00, %2e%2e) is refused. */
    if (path[0] != '/' || strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") != plen) {
        return inspect_fail(in, conn, 400, "the path has characters no path here has");
    }
    for (size_t i = 0; i < sti_page_file_count && page_file; i++) {
        if (strcmp(path, sti_page_files[i].path) == 0) {
            bool index = strcmp(path, "/") == 0;
            return inspect_send(in, conn, 200, sti_page_files[i].type, index ? in->index : sti_page_files[i].data,
                                index ? in->index_size : sti_page_files[i].size);
        }
    }
    if (strncmp(path, "/api/", 5) != 0) {
        return inspect_fail(in, conn, 404, "no such path");
    }
    memcpy(r->path, path, plen + 1);
    memcpy(r->query, qlen ? ri->query_string : "", qlen + 1);
    r->post = post;
    char *body = NULL;
    if (post) {
        /* Only JSON bodies (a form cannot send one), with the secret of
         * this run, which only the page this server served holds. */
        if (!inspect_json_type(mg_get_header(conn, "Content-Type"))) {
            return inspect_fail(in, conn, 415, "the body must be application/json");
        }
        if (!inspect_token_ok(in, mg_get_header(conn, "X-Strata-Token"))) {
            return inspect_fail(in, conn, 403, "a write needs this run's X-Strata-Token (the page sends it)");
        }
        if (ri->content_length < 0) {
            return inspect_fail(in, conn, 411, "a Content-Length is required");
        }
        if ((unsigned long long)ri->content_length > in->api.desc.max_request) {
            return inspect_fail(in, conn, 413, "the body is too large");
        }
        size_t want = (size_t)ri->content_length, got = 0;
        body = malloc(want + 1);
        if (body == NULL) {
            return inspect_fail(in, conn, 503, "out of memory");
        }
        while (got < want) {
            int n = mg_read(conn, body + got, want - got);
            if (n <= 0) {
                free(body);
                return inspect_fail(in, conn, 400, "the body ended early");
            }
            got += (size_t)n;
        }
        body[want] = '\0';
        r->body = body;
        r->body_len = want;
    }
    int status = inspect_wait(in, conn, &job);
    free(body);
    return status;
}

/* The errors civetweb finds itself (a broken request line, headers too
 * large, a bad version): answered like the inspector's own, in HTTP/1.1,
 * without echoing anything of the request. A version other than 1.0 or 1.1
 * is a bad request here. */
static int inspect_error(struct mg_connection *conn, int status, const char *message) {
    (void)message;
    strata_inspect_t *in = mg_get_user_data(mg_get_context(conn));
    return inspect_fail(in, conn, status == 505 ? 400 : status, "the request is malformed") != 0 ? 0 : 1;
}

/* Keep civetweb's messages about broken requests off the game's stderr. */
static int inspect_log(const struct mg_connection *conn, const char *message) {
    (void)conn;
    (void)message;
    return 1;
}

/* The step observer: a system begins. The entities it is given are counted
 * now, before its run empties its changed set. */
static void inspect_system_begin(void *user, strata_world_t *w, uint32_t system) {
    strata_inspect_t *in = user;
    if (system >= in->api.desc.system_count) {
        return;
    }
    sti_system_stat_t *s = &in->api.systems[system];
    uint32_t q = in->api.desc.systems[system].query;
    s->given = q >= strata_world_schema(w)->query_count ? 0
               : s->changed                             ? strata_query_changed_count(w, q)
                                                        : strata_query_count(w, q);
    s->began = inspect_now();
}

/* The step observer: the system has ended (its commands applied). */
static void inspect_system_end(void *user, strata_world_t *w, uint32_t system) {
    (void)w;
    strata_inspect_t *in = user;
    if (system >= in->api.desc.system_count) {
        return;
    }
    sti_system_stat_t *s = &in->api.systems[system];
    double seconds = inspect_now() - s->began;
    s->last = seconds;
    s->average = s->runs == 0 ? seconds : s->average + (seconds - s->average) / 16.0;
    s->visited = s->given;
    s->runs++;
}

/* Time the step and its systems, or stop: the inspector is the world's step
 * observer only while it times, so with no client the step reads no clock
 * and makes no call. A game's own observer is left in place. */
static void inspect_timing(strata_inspect_t *in, bool on) {
    const strata_step_observer_t *now = strata_world_step_observer(in->api.world);
    if (on && now == NULL) {
        strata_world_set_step_observer(in->api.world, &in->observer);
    } else if (!on && now == &in->observer) {
        strata_world_set_step_observer(in->api.world, NULL);
    }
    in->api.timing = on;
}

/* Fill in->token with fresh random hex digits from the system; false if it has none to give. */
static bool inspect_make_token(strata_inspect_t *in) {
    unsigned char bytes[INSPECT_TOKEN_BYTES];
    size_t got = 0;
    while (got < sizeof bytes) {
        ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        got += (size_t)n;
    }
    if (got < sizeof bytes) { /* a kernel without getrandom: the device */
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        for (got = 0; fd >= 0 && got < sizeof bytes;) {
            ssize_t n = read(fd, bytes + got, sizeof bytes - got);
            if (n <= 0 && !(n < 0 && errno == EINTR)) {
                break;
            }
            got += n > 0 ? (size_t)n : 0;
        }
        if (fd >= 0) {
            close(fd);
        }
    }
    for (size_t i = 0; i < sizeof bytes; i++) {
        snprintf(in->token + 2 * i, 3, "%02x", bytes[i]);
    }
    return got == sizeof bytes;
}

/* index.html with this run's secret in its slot (the page reads it there;
 * no other origin can read the page). False: out of memory. */
static bool inspect_make_index(strata_inspect_t *in) {
    for (size_t i = 0; i < sti_page_file_count; i++) {
        const sti_page_file_t *f = &sti_page_files[i];
        const char *slot = strcmp(f->path, "/") == 0 ? strstr(f->data, INSPECT_TOKEN_SLOT) : NULL;
        if (slot == NULL) {
            continue;
        }
        size_t before = (size_t)(slot - f->data), after = f->size - before - (sizeof INSPECT_TOKEN_SLOT - 1);
        size_t n = sizeof in->token - 1;
        in->index = malloc(before + n + after + 1);
        if (in->index == NULL) {
            return false;
        }
        memcpy(in->index, f->data, before);
        memcpy(in->index + before, in->token, n);
        memcpy(in->index + before + n, slot + sizeof INSPECT_TOKEN_SLOT - 1, after + 1);
        in->index_size = before + n + after;
    }
    return in->index != NULL;
}

/* Which systems' queries have `changed` terms (they are given their changed set). */
static void inspect_changed_sets(sti_api_t *api) {
    const strata_schema_t *schema = strata_world_schema(api->world);
    for (uint32_t i = 0; i < api->desc.system_count; i++) {
        uint32_t q = api->desc.systems[i].query;
        for (uint32_t k = 0; q < schema->query_count && k < STRATA_MAX_COMPONENTS / 64; k++) {
            api->systems[i].changed |= schema->queries[q].changed.bits[k] != 0;
        }
    }
}

static void inspect_defaults(strata_inspect_desc_t *d) {
    d->address = d->address != NULL ? d->address : "127.0.0.1";
    d->port = d->port != 0 ? d->port : 27750;
    d->max_connections = d->max_connections != 0 ? d->max_connections : 4;
    d->max_connections = d->max_connections < INSPECT_MAX_CONNECTIONS ? d->max_connections : INSPECT_MAX_CONNECTIONS;
    d->max_request = d->max_request != 0 ? d->max_request : 16384;
    d->timeout = d->timeout > 0 ? d->timeout : 2.0;
}

strata_result_t strata_inspect_start(strata_world_t *w, const strata_inspect_desc_t *desc, strata_inspect_t **out) {
    STRATA_ASSERT(w != NULL && out != NULL);
    *out = NULL;
    strata_inspect_t *in = calloc(1, sizeof *in);
    sti_system_stat_t *systems = desc != NULL && desc->system_count ? calloc(desc->system_count, sizeof *systems)
                                                                    : NULL;
    if (in == NULL || (desc != NULL && desc->system_count && systems == NULL)) {
        free(in);
        free(systems);
        return STRATA_ERR_NOMEM;
    }
    in->api.world = w;
    in->api.desc = desc != NULL ? *desc : (strata_inspect_desc_t){0};
    in->api.systems = systems;
    inspect_defaults(&in->api.desc);
    const strata_inspect_desc_t *d = &in->api.desc;
    pthread_mutex_init(&in->lock, NULL);
    pthread_cond_init(&in->answered, NULL);
    if (!inspect_make_token(in)) {
        strata_inspect_stop(in);
        return STRATA_ERR_IO;
    }
    if (!inspect_make_index(in)) {
        strata_inspect_stop(in);
        return STRATA_ERR_NOMEM;
    }

    char ports[96], threads[16], request[16], backlog[16];
    snprintf(ports, sizeof ports, "%s:%u", d->address, d->any_port ? 0u : (unsigned)d->port);
    snprintf(threads, sizeof threads, "%u", (unsigned)d->max_connections);
    snprintf(request, sizeof request, "%u", (unsigned)d->max_request);
    snprintf(backlog, sizeof backlog, "%u", (unsigned)d->max_connections * 4);
    const char *options[] = {"listening_ports", ports, "num_threads", threads, "max_request_size", request,
                             "connection_queue", backlog, "listen_backlog", backlog, "request_timeout_ms", "5000",
                             "enable_keep_alive", "no", "decode_url", "no",
                             /* civetweb answers a CORS preflight itself unless these are empty */
                             "access_control_allow_origin", "", "access_control_allow_methods", "",
                             "access_control_allow_headers", "", NULL};
    struct mg_callbacks callbacks = {0};
    callbacks.log_message = inspect_log;
    callbacks.http_error = inspect_error;
    mg_init_library(0);
    in->server = mg_start(&callbacks, in, options);
    struct mg_server_port bound[1] = {{0}};
    if (in->server == NULL || mg_get_server_ports(in->server, 1, bound) < 1) {
        strata_inspect_stop(in);
        return STRATA_ERR_IO;
    }
    in->port = (uint16_t)bound[0].port;
    if (strcmp(d->address, "127.0.0.1") == 0) {
        snprintf(in->host, sizeof in->host, "127.0.0.1:%u", (unsigned)in->port);
    } else if (strcmp(d->address, "[::1]") == 0) {
        snprintf(in->host, sizeof in->host, "[::1]:%u", (unsigned)in->port);
    }
    snprintf(in->local, sizeof in->local, "localhost:%u", (unsigned)in->port);
    mg_set_request_handler(in->server, "/", inspect_handle, in);
    inspect_changed_sets(&in->api);
    in->observer = (strata_step_observer_t){inspect_system_begin, inspect_system_end, in};
    in->api.started = inspect_now();
    *out = in;
    return STRATA_OK;
}

/* While the server stops: civetweb's accept loop only sees its stop flag
 * when its poll of the listening socket returns, which an idle socket does
 * after 2 s. A connection made after the flag is set wakes it at once, so
 * this thread connects every millisecond until the stop is done. */
typedef struct inspect_waker_t {
    struct sockaddr_storage addr;
    socklen_t len;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
} inspect_waker_t;

static void *inspect_wake(void *arg) {
    inspect_waker_t *k = arg;
    pthread_mutex_lock(&k->lock);
    for (int tries = 0; !k->done && tries < 5000; tries++) {
        pthread_mutex_unlock(&k->lock);
        int fd = socket(k->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0) {
            (void)connect(fd, (const struct sockaddr *)&k->addr, k->len);
            close(fd);
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&k->lock);
        if (!k->done) {
            pthread_cond_timedwait(&k->cond, &k->lock, &until);
        }
    }
    pthread_mutex_unlock(&k->lock);
    return NULL;
}

/* mg_stop, woken promptly (inspect_wake) when the server listens on an
 * address this thread can connect to. */
static void inspect_stop_server(strata_inspect_t *in) {
    inspect_waker_t k = {.len = 0, .done = false};
    const char *address = in->api.desc.address;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&k.addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&k.addr;
    char bare[64];
    size_t n = strlen(address);
    bool bracketed = n >= 2 && n < sizeof bare + 2 && address[0] == '[' && address[n - 1] == ']';
    snprintf(bare, sizeof bare, "%.*s", (int)(bracketed ? n - 2 : n), bracketed ? address + 1 : address);
    if (inet_pton(AF_INET, bare, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(in->port);
        if (v4->sin_addr.s_addr == htonl(INADDR_ANY)) {
            v4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        }
        k.len = sizeof *v4;
    } else if (inet_pton(AF_INET6, bare, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(in->port);
        if (IN6_IS_ADDR_UNSPECIFIED(&v6->sin6_addr)) {
            v6->sin6_addr = in6addr_loopback;
        }
        k.len = sizeof *v6;
    }
    pthread_t waker;
    bool waking = false;
    if (k.len != 0) {
        pthread_mutex_init(&k.lock, NULL);
        pthread_cond_init(&k.cond, NULL);
        waking = pthread_create(&waker, NULL, inspect_wake, &k) == 0;
    }
    mg_stop(in->server);
    if (waking) {
        pthread_mutex_lock(&k.lock);
        k.done = true;
        pthread_cond_signal(&k.cond);
        pthread_mutex_unlock(&k.lock);
        pthread_join(waker, NULL);
    }
    if (k.len != 0) {
        pthread_cond_destroy(&k.cond);
        pthread_mutex_destroy(&k.lock);
    }
}

void strata_inspect_stop(strata_inspect_t *in) {
    if (in == NULL) {
        return;
    }
    pthread_mutex_lock(&in->lock);
    in->stopping = true;
    pthread_cond_broadcast(&in->answered);
    pthread_mutex_unlock(&in->lock);
    if (in->server != NULL) {
        inspect_stop_server(in);
    }
    inspect_timing(in, false);
    mg_exit_library();
    pthread_cond_destroy(&in->answered);
    pthread_mutex_destroy(&in->lock);
    free(in->index);
    free(in->api.systems);
    for (uint32_t i = 0; i < STI_RELOADS; i++) {
        free(in->api.reloads[i].text);
    }
    free(in);
}

strata_result_t strata_inspect_retarget(strata_inspect_t *in, strata_world_t *w, const strata_inspect_desc_t *desc) {
    STRATA_ASSERT(in != NULL && w != NULL);
    sti_api_t *api = &in->api;
    uint32_t n = desc != NULL ? desc->system_count : 0;
    sti_system_stat_t *systems = n > 0 ? calloc(n, sizeof *systems) : NULL;
    bool fits = n == 0 || systems != NULL;
    /* The old world may be gone: nothing of it is touched. */
    api->world = w;
    free(api->systems);
    api->systems = systems;
    api->desc.system_count = fits ? n : 0;
    api->desc.systems = fits && n > 0 ? desc->systems : NULL;
    api->desc.set_enabled = desc != NULL ? desc->set_enabled : NULL;
    api->desc.enabled = desc != NULL ? desc->enabled : NULL;
    inspect_changed_sets(api);
    in->stepping = false;
    if (api->timing && strata_world_step_observer(w) == NULL) {
        strata_world_set_step_observer(w, &in->observer);
    }
    return fits ? STRATA_OK : STRATA_ERR_NOMEM;
}

void strata_inspect_add_reload(strata_inspect_t *in, const strata_inspect_reload_t *reload) {
    sti_api_t *api = &in->api;
    sti_reload_t *x = &api->reloads[api->reload_count++ % STI_RELOADS];
    free(x->text);
    *x = (sti_reload_t){.number = reload->number, .at = inspect_now() - api->started, .ms = reload->ms};
    snprintf(x->outcome, sizeof x->outcome, "%s", reload->outcome != NULL ? reload->outcome : "");
    const char *text = reload->text != NULL ? reload->text : "";
    size_t n = strlen(text) < 4096 ? strlen(text) : 4096;
    x->text = malloc(n + 1);
    if (x->text != NULL) {
        memcpy(x->text, text, n);
        x->text[n] = '\0';
    }
}

uint16_t strata_inspect_port(const strata_inspect_t *in) {
    return in->port;
}

const char *strata_inspect_token(const strata_inspect_t *in) {
    return in->token;
}

uint64_t strata_inspect_answered(const strata_inspect_t *in) {
    return atomic_load_explicit(&((strata_inspect_t *)(uintptr_t)in)->answered_count, memory_order_relaxed);
}

/* Answer every queued request: take them under the lock, answer them
 * without it (the server threads keep queueing), then wake their threads. */
static void inspect_answer(strata_inspect_t *in) {
    inspect_job_t *jobs[INSPECT_QUEUE];
    pthread_mutex_lock(&in->lock);
    uint32_t n = in->queued;
    for (uint32_t i = 0; i < n; i++) {
        jobs[i] = in->queue[i];
        jobs[i]->state = REQUEST_TAKEN;
    }
    in->queued = 0;
    atomic_store_explicit(&in->pending, 0, memory_order_release);
    pthread_mutex_unlock(&in->lock);
    for (uint32_t i = 0; i < n; i++) {
        sti_api_answer(&in->api, &jobs[i]->request);
    }
    pthread_mutex_lock(&in->lock);
    for (uint32_t i = 0; i < n; i++) {
        jobs[i]->state = REQUEST_DONE;
    }
    pthread_cond_broadcast(&in->answered);
    pthread_mutex_unlock(&in->lock);
}

bool strata_inspect_poll(strata_inspect_t *in) {
    sti_api_t *api = &in->api;
    if (in->stepping) {
        double t = inspect_now() - in->step_start;
        api->last_step = t;
        api->average_step = api->timed_steps++ == 0 ? t : api->average_step + (t - api->average_step) / 16.0;
    }
    if (atomic_load_explicit(&in->pending, memory_order_acquire) != 0) {
        inspect_answer(in);
        in->timing_until = inspect_coarse() + INSPECT_TIMING;
        inspect_timing(in, true);
    } else if (api->timing && inspect_coarse() >= in->timing_until) {
        inspect_timing(in, false); /* no client lately */
    }
    bool go = !api->paused;
    if (!go && api->single_steps > 0) {
        api->single_steps--;
        go = true;
    }
    in->stepping = go && api->timing;
    if (in->stepping) {
        in->step_start = inspect_now();
    }
    api->steps += go;
    return go;
}

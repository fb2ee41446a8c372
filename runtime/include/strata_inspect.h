/* strata_inspect.h: the live inspector, libstrata_inspect (link
 * -lstrata_inspect -lcivetweb -lpthread, or `pkg-config strata-inspect`).
 *
 * A small HTTP server on its own thread serves a page and a JSON API about
 * one world (docs/inspector.md). The server never touches the world: it
 * queues each request, and the game answers the queue at a safe point of
 * its own choosing by calling strata_inspect_poll between steps.
 *
 * While a client has asked in the last 5 seconds, the inspector is the
 * world's step observer (strata_world_set_step_observer): the generated
 * step tells it as each system begins and ends, and it reads the clock and
 * the system's entity count then. A game that does not link this library
 * pays nothing; one that links it and has no client connected pays an
 * atomic load a poll (docs/inspector.md has the figures).
 */
#ifndef STRATA_INSPECT_H
#define STRATA_INSPECT_H

#include "strata.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The inspector of one world (opaque). */
typedef struct strata_inspect_t strata_inspect_t;

/* One system, as the game (or its generated code) describes it. */
typedef struct strata_inspect_system_t {
    const char *name;  /* the schema's name, e.g. "Move" */
    const char *phase; /* its phase, e.g. "update" */
    uint32_t query;    /* its query id; UINT32_MAX (or any id past the last) for a system with no terms */
    uint32_t batch;    /* 1 + its batch in a parallel schedule; 0: no batches (the API shows none) */
} strata_inspect_system_t;

/* Options for strata_inspect_start; zero means default for every field. */
typedef struct strata_inspect_desc_t {
    const char *address;      /* the address to bind (default "127.0.0.1": this machine only) */
    uint16_t port;            /* TCP port (default 27750); see `any_port` */
    bool any_port;            /* bind a free port chosen by the system (tests); strata_inspect_port says which */
    bool writes;              /* allow requests that change the world (default off: read only) */
    uint32_t max_connections; /* connections served at once (default 4, at most 64) */
    uint32_t max_request;     /* bytes of a request's line and headers, and of its body (default 16384) */
    double timeout;           /* seconds a request waits for the game to poll before a 503 (default 2) */
    /* The schedule, in order. With none, the API lists no systems. */
    uint32_t system_count;
    const strata_inspect_system_t *systems;
    /* Enable or disable system i (an index into `systems`), and ask whether it
     * is enabled. NULL: the inspector cannot switch systems. */
    void (*set_enabled)(strata_world_t *w, uint32_t system, bool enabled);
    bool (*enabled)(const strata_world_t *w, uint32_t system);
} strata_inspect_desc_t;

/* Start serving world `w` (which must outlive the inspector). Returns
 * STRATA_OK and the inspector in *out; STRATA_ERR_IO (*out NULL) when the
 * address cannot be bound (a port in use) or the system gives no random
 * bytes for the secret, STRATA_ERR_NOMEM. */
strata_result_t strata_inspect_start(strata_world_t *w, const strata_inspect_desc_t *desc, strata_inspect_t **out);

/* Stop the server: waiting requests are answered 503, then its threads
 * are joined. NULL is a no-op. */
void strata_inspect_stop(strata_inspect_t *in);

/* The TCP port the server listens on. */
uint16_t strata_inspect_port(const strata_inspect_t *in);

/* The safe point: answer every waiting request (reads and, when enabled,
 * writes) on the calling thread, then say whether the game should step now
 * (false while paused from the page, true once for each single step asked).
 * Call it once a frame, before the step; the time from a poll that returned
 * true to the next poll is the step time the API reports. Never call it
 * while an iterator or system is open. */
bool strata_inspect_poll(strata_inspect_t *in);

/* This run's secret: 64 hex digits from the system's random source, made
 * at start. A write (POST) must carry it in its X-Strata-Token header; the
 * page the inspector serves holds it, and no other origin can read it. */
const char *strata_inspect_token(const strata_inspect_t *in);

/* Requests answered so far (each with a status code), for tests and logs. */
uint64_t strata_inspect_answered(const strata_inspect_t *in);

/* --- Live reload (docs/live.md) -------------------------------------------- */

/* Serve world w from now on (a live reload's new world; the old one may be
 * gone already), with desc's schedule: its system_count, systems,
 * set_enabled and enabled (the rest of desc is not read: the server keeps
 * its address, port, secret, limits and clients). On the game's thread,
 * before the next step and poll. STRATA_ERR_NOMEM: w is served with no
 * systems listed. */
strata_result_t strata_inspect_retarget(strata_inspect_t *in, strata_world_t *w, const strata_inspect_desc_t *desc);

/* One attempt of a live reload, as the page lists it. */
typedef struct strata_inspect_reload_t {
    uint32_t number;     /* 1, 2, ... */
    const char *outcome; /* "reloaded", "restarted", "refused" or "failed" */
    double ms;           /* from the change to the new world (0: not known) */
    const char *text;    /* what it said, lines (copied, at most 4 KB) */
} strata_inspect_reload_t;

/* Add an attempt to what GET /api/reloads lists (the last 16), stamped
 * with the time since the inspector started. On the game's thread. */
void strata_inspect_add_reload(strata_inspect_t *in, const strata_inspect_reload_t *reload);


#ifdef __cplusplus
}
#endif

#endif /* STRATA_INSPECT_H */

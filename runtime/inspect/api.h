/* api.h: the inspector's JSON API (private): one request answered against
 * the world, on the game's thread, at its safe point. */
#ifndef STI_INSPECT_API_H
#define STI_INSPECT_API_H

#include "json.h"
#include "strata_inspect.h"

/* One request as the server thread parsed it; the game fills the answer. */
typedef struct sti_request_t {
    bool post;        /* POST (else GET) */
    char path[128];   /* decoded, e.g. "/api/entity/4294967297" */
    char query[512];  /* the raw query string, "" if none */
    const char *body; /* POST: body[0..body_len) */
    size_t body_len;
    int status;       /* the answer: HTTP status */
    const char *type; /* its content type */
    sti_buf_t out;    /* its body */
} sti_request_t;

/* One system's figures, kept on the game's thread. */
typedef struct sti_system_stat_t {
    double last;      /* seconds, its last run */
    double average;   /* seconds, a rolling average (weight 1/16 to each new run) */
    uint32_t visited; /* entities, its last run */
    uint64_t runs;
    double began;   /* while it runs: when it began (seconds) */
    uint32_t given; /* while it runs: the entities it was given (its changed set, or its matches) */
    bool changed;   /* its query has `changed` terms: it is given its changed set */
} sti_system_stat_t;

/* A live reload the game listed (strata_inspect_add_reload). */
typedef struct sti_reload_t {
    uint32_t number;
    char outcome[16];
    double at;  /* seconds since the inspector started */
    double ms;  /* from the change to the new world */
    char *text; /* malloc'd (NULL: out of memory, or none) */
} sti_reload_t;

/* The reloads /api/reloads lists: the last ones, oldest dropped. */
#define STI_RELOADS 16u

/* What the API answers from: the world and the game-side state. */
typedef struct sti_api_t {
    strata_world_t *world;
    strata_inspect_desc_t desc; /* with defaults filled */
    sti_system_stat_t *systems; /* desc.system_count of them */
    bool paused;
    uint32_t single_steps;             /* steps asked while paused, not yet taken */
    uint64_t steps;                    /* polls that let the game step */
    uint64_t timed_steps;              /* of those, the steps timed */
    double last_step, average_step;    /* seconds */
    bool timing;                       /* a client asked lately: the step and its systems are timed */
    sti_reload_t reloads[STI_RELOADS]; /* a ring: reload i at i % STI_RELOADS */
    uint32_t reload_count;             /* reloads listed so far */
    double started;                    /* the inspector's clock when it started (seconds) */
} sti_api_t;

/* Answer r (status, type, body). Never fails: NOMEM answers 500. */
void sti_api_answer(sti_api_t *api, sti_request_t *r);

/* A short JSON error answer. */
void sti_api_error(sti_request_t *r, int status, const char *message);

#endif /* STI_INSPECT_API_H */

/* api_base.h: the inspector's API (private): a request, the game-side
 * state the answers read, and what the answers share. */
#ifndef STI_INSPECT_API_BASE_H
#define STI_INSPECT_API_BASE_H

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

#define STI_EVENT_RING 64          /* the last values kept of each event type */
#define STI_HISTORY_SECONDS 10.0   /* how far back the history reaches */
#define STI_HISTORY_MAX (1u << 17) /* samples the history holds at most (10 s at 13,000 steps a second) */

/* A run of events one system emitted (the observer saw them appended). */
typedef struct sti_emit_run_t {
    uint32_t system;
    uint32_t count;
} sti_emit_run_t;

/* One event type as recorded while a client is attached: a ring of its
 * last values, each with the step and the system that emitted it. */
typedef struct sti_event_ring_t {
    uint64_t total;         /* events seen while recording */
    uint32_t last_step;     /* events the last recorded step held */
    uint32_t head, count;   /* the ring: oldest at head */
    uint64_t *steps;        /* STI_EVENT_RING of each */
    uint32_t *systems;      /* the emitter's system id (UINT32_MAX: the game) */
    unsigned char *values;  /* STI_EVENT_RING values of the event's size */
    uint32_t live_at_begin; /* events held when the running system began */
    sti_emit_run_t *runs;   /* this step's emitters, in order (the observer's) */
    uint32_t run_count, run_cap;
} sti_event_ring_t;

/* The history: one sample a step while a client is attached, in a ring
 * that grows (to STI_HISTORY_MAX) while its oldest sample is younger than
 * STI_HISTORY_SECONDS. Columns, each `cap` long (system_ms: cap rows of
 * system_count). Freed when the client goes. */
typedef struct sti_history_t {
    uint32_t cap, head, count;
    uint64_t *step;      /* the step's number (sti_api_t.steps) */
    double *t;           /* seconds on the inspector's clock */
    float *step_ms;      /* the step's time */
    float *system_ms;    /* each system's time this step (0: it did not run) */
    uint32_t *entities;  /* alive */
    uint32_t *tables;    /* archetypes held */
    uint64_t *bytes;     /* held through the allocator */
    uint64_t *last_runs; /* each system's runs at the last sample */
} sti_history_t;

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

#define STI_MARKS 32u /* the state changes the history keeps */

/* A state machine's change, seen while recording: the history marks it. */
typedef struct sti_mark_t {
    double t;      /* the inspector's clock */
    char text[64]; /* "Mode: playing" */
} sti_mark_t;

/* What the API answers from: the world and the game-side state. */
typedef struct sti_api_t {
    strata_world_t *world;
    strata_inspect_desc_t desc; /* with defaults filled */
    sti_system_stat_t *systems; /* desc.system_count of them */
    bool paused;
    uint32_t single_steps;          /* steps asked while paused, not yet taken */
    uint64_t steps;                 /* polls that let the game step */
    uint64_t timed_steps;           /* of those, the steps timed */
    double last_step, average_step; /* seconds */
    double poll_seconds; /* the game thread's CPU time in the polls after timed steps: answering, recording */
    bool timing;         /* a client asked lately: the step and its systems are timed */
    sti_reload_t reloads[STI_RELOADS]; /* a ring: reload i at i % STI_RELOADS */
    uint32_t reload_count;             /* reloads listed so far */
    double started;                    /* the inspector's clock when it started (seconds) */
    /* Labels: the desc's "Component.field", resolved at start. */
    uint32_t label_count;
    uint32_t *label_components;               /* component id of each */
    const strata_field_desc_t **label_fields; /* its char[N] field */
    /* Recorded while a client is attached (record.c); empty otherwise. */
    sti_event_ring_t *events;    /* one a schema event type, NULL until recording */
    uint32_t event_rings;        /* how many (the world may be gone when they are freed) */
    uint32_t *states;            /* each state machine's state at the last sample (NULL until recording) */
    sti_mark_t marks[STI_MARKS]; /* the state changes seen: a ring, mark i at i % STI_MARKS */
    uint32_t mark_count;
    sti_history_t history;
    uint64_t observed;          /* systems the step observer saw end: a step ran when it moves */
    uint64_t recorded_observed; /* `observed` at the last sample (or when the recording began) */
    double now;                 /* the inspector's clock at the poll answering */
} sti_api_t;

/* A short JSON error answer. */
void sti_api_error(sti_request_t *r, int status, const char *message);

/* The value of `key` in the query string, percent-decoded into out[0..cap).
 * 0: absent; 1: found; -1: malformed or too long. */
int sti_api_param(const char *query, const char *key, char *out, size_t cap);
/* A whole unsigned decimal number in [0, max]; false otherwise. */
bool sti_api_number(const char *s, uint64_t max, uint64_t *out);
/* The component named `name`, or UINT32_MAX. */
uint32_t sti_api_component(const strata_world_t *w, const char *name);
#define STI_PAGE_MAX 1000u /* rows a page lists at most */

/* offset and limit of a page (limit `fallback` when absent); false: answered 400. */
bool sti_api_page(sti_request_t *r, uint64_t *offset, uint64_t *limit, uint64_t fallback);
/* The components the query string's `key` lists ("A,B") into *mask; false: answered 4xx. */
bool sti_api_components(const sti_api_t *api, sti_request_t *r, const char *key, strata_mask_t *mask);
/* The names of the components of `mask` as a JSON list (aspects left out). */
void sti_api_names(sti_buf_t *b, const strata_world_t *w, const strata_mask_t *mask);
/* The live entity a path names ("4v1"), or STRATA_ENTITY_NULL (answered 404). */
strata_entity_t sti_api_entity(sti_api_t *api, sti_request_t *r, const char *id);
/* The request's body as flat JSON into m; -1 (answered 400) if broken. */
int sti_api_body(sti_request_t *r, sti_member_t *m);
/* A string member, or NULL (answered 400). */
const char *sti_api_text(sti_request_t *r, const sti_member_t *m, int n, const char *key);
/* The exclusive relation whose links component c holds, or UINT32_MAX. */
uint32_t sti_api_link_relation(const strata_world_t *w, uint32_t c);
/* The non-exclusive relation whose tag component c is, or UINT32_MAX. */
uint32_t sti_api_tag_relation(const strata_world_t *w, uint32_t c);
/* An entity as the API writes it where a label helps: {"id": "4v1", "label": "..."}
 * (label null when the entity has none). */
void sti_api_entity_ref(sti_api_t *api, sti_buf_t *b, strata_entity_t e);
/* The value of e's component c as JSON (fields; a tag {}; a non-exclusive
 * relation's tag {"targets": [...]}). */
void sti_api_value(sti_api_t *api, sti_buf_t *b, strata_entity_t e, uint32_t c);
/* The entity's label (its first labelled component's text), or NULL. */
const char *sti_api_label(const sti_api_t *api, strata_entity_t e, size_t *len);
/* ,"label":"..." (null when the entity has none). */
void sti_api_label_member(const sti_api_t *api, sti_buf_t *b, strata_entity_t e);

/* Resolve the desc's labels (false: out of memory; an unknown name is skipped). */
bool sti_api_labels_init(sti_api_t *api);
void sti_api_labels_free(sti_api_t *api);

#endif /* STI_INSPECT_API_BASE_H */

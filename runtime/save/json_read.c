/* json_read.c: loading worlds dumped as JSON (docs/saves.md), streamed with
 * yajl. In its own archive, libstrata_json, so only games that load JSON
 * link yajl.
 *
 * yajl checks the syntax and hands over one token at a time; this file
 * keeps a stack of frames (what each open object or array is: the root,
 * the free list, an entity, a value's fields, ...) and maps the tokens onto
 * the schema with the evolution rules of a binary load (evolve.h) as they
 * come. Nothing is held but the world being built: an entity's component
 * values are gathered in a scratch row, and copied into its table row once
 * the entity's object closes (its archetype is known then).
 *
 * Two passes over the text: a head pass reads the document's header (the
 * format, schema, version, index count and free list) and stops where the
 * entities begin when the header says all the load needs first; a dump
 * without "indices" (written by hand), or a schema with renamed components
 * (the dump's component names decide the mapping), is read whole by it.
 * Then the main pass builds the world.
 *
 * An error's position: yajl gives the byte offset just past the token it
 * handed over; the token's first byte is found from there (only when
 * reporting), and the line and column counted from the offset.
 */
#include "evolve.h"
#include "file.h"
#include "format.h"
#include "names.h"
#include "number.h"
#include "value.h"

#include <float.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

/* Objects and arrays nested deeper are refused (the writer's nesting is the schema's). */
#define JR_MAX_DEPTH 512
/* An entity's text is at least this long: {"id":4294967296} (generation > 0). */
#define JR_MIN_ENTITY_BYTES 17

/* What a token is. */
typedef enum jr_ev_t { JR_EV_NULL, JR_EV_BOOL, JR_EV_NUMBER, JR_EV_STRING, JR_EV_MAP, JR_EV_ARRAY, JR_EV_KEY } jr_ev_t;

/* What an open object or array is. */
typedef enum jr_kind_t {
    JR_ROOT,       /* the document */
    JR_FREE,       /* "free": the list of [index, generation] */
    JR_PAIR,       /* one [index, generation] */
    JR_ENTITIES,   /* "entities" */
    JR_ENTITY,     /* one entity: "id", "components" */
    JR_COMPONENTS, /* an entity's components by name */
    JR_FIELDS,     /* a value's fields by name: a component, a struct field, the resources */
    JR_LIST,       /* the values of an array field */
    JR_LINKS,      /* a non-exclusive relation's component: {"targets": [...]} */
    JR_TARGETS,    /* its list of target ids */
    JR_SKIP,       /* a value nobody takes */
} jr_kind_t;

/* The root's members. */
enum { JR_STRATA, JR_SCHEMA, JR_VERSION, JR_INDICES, JR_FREE_LIST, JR_ENTITY_LIST, JR_RESOURCES, JR_ROOT_KEYS };
static const char *const jr_root_keys[JR_ROOT_KEYS] = {"strata", "schema",   "version",  "indices",
                                                       "free",   "entities", "resources"};
/* An entity's members (JR_ENTITY's slot). */
enum { JR_ID, JR_COMPONENT_SET };

typedef struct jr_frame_t {
    uint8_t kind;     /* jr_kind_t */
    bool object;      /* JR_SKIP: an object (its keys are checked for repeats) */
    bool odd;         /* JR_FIELDS: a key that was not a field's own name came */
    int32_t slot;     /* the current member: a root key, a field, a component; -1 none (skipped) */
    uint32_t serial;  /* this object's number, for repeated keys among the unknown ones */
    uint32_t taken;   /* JR_FIELDS: fields given under their own name; JR_ENTITY: members seen */
    const char *key;  /* the current member's key as the dump spells it, for error paths (NULL: none) */
    const char *path; /* JR_FIELDS of a component or the resources: the name changes are noted under */
    size_t count;     /* arrays: elements begun (the current one is count - 1) */
    size_t start;     /* offset of the container's first byte */
    const strata_field_desc_t *fields; /* JR_FIELDS: the fields; JR_LIST: the field */
    uint32_t field_count;
    uint32_t marks;                /* JR_FIELDS: its fields' marks start at jr->marks[marks] */
    unsigned char *base;           /* JR_FIELDS: the value; JR_LIST: element 0 */
    const unsigned char *defaults; /* the same in the defaults, or NULL (zeros) */
    uint32_t relation;             /* JR_LINKS, JR_TARGETS: the relation */
} jr_frame_t;

/* A link of the entity being read, filed when its object ends (its id may come last). */
typedef struct jr_link_t {
    uint32_t relation;
    strata_entity_t target;
} jr_link_t;

/* A change noted in an entity, reported when it ends (the component's
 * before its fields', as a whole-entity reader noted them). */
typedef struct jr_note_t {
    uint8_t kind;
    bool fields; /* about fields (after those about components) */
    bool resource;
    uint32_t at; /* the full name in jr->note_text */
} jr_note_t;

/* What the head pass found at the root: each member's token. */
typedef struct jr_member_t {
    bool seen;
    uint8_t ev;
    size_t at;
    char raw[72]; /* a number's or string's text (cut short past 71 bytes) */
    size_t len;
    size_t full; /* its length before that */
} jr_member_t;

typedef struct jr_t {
    sti_loader_t *l;
    strata_world_t *w; /* the fresh world */
    const char *text;
    size_t size;
    yajl_handle h;
    strata_result_t r;
    bool head;       /* the head pass */
    bool stopped;    /* the head pass stopped where the entities begin */
    bool finishing;  /* in yajl_complete_parse: its offsets are not the text's */
    bool need_names; /* the head pass gathers the dump's component names */
    uint8_t ev;      /* the token being handled */
    char point;      /* the locale's decimal point */
    jr_frame_t *frames;
    uint32_t depth;
    uint32_t serial;
    jr_member_t root[JR_ROOT_KEYS];
    /* Counted by each pass. */
    size_t entity_count, free_count;
    bool free_seen;
    uint64_t highest;     /* 1 + the highest index an id or a free pair names (head pass) */
    uint64_t index_count; /* the indices reserved */
    bool bounded;         /* their check against the entity count waits for the main pass */
    /* Marks of fields (JR_FIELDS): which of their names came, by priority (bit 0 the own name). */
    uint64_t *marks;
    size_t mark_count, mark_capacity;
    /* The entity being read. */
    strata_entity_t id;
    strata_mask_t mask;
    uint32_t *touched; /* its components, in the order they came */
    /* The map's entry of each component, and which component came after
     * component c - 1 in the last entity that had it (guess[0]: first):
     * entities mostly list the same components in the same order, so a
     * key is most often the guessed one's, checked without hashing. */
    const sti_name_t **entry_of;
    int32_t *guess;
    uint32_t touched_count;
    jr_link_t *links; /* its links of non-exclusive relations */
    size_t link_count, link_capacity;
    unsigned char *scratch; /* a value of each component */
    size_t *scratch_at;     /* where component c's value is in scratch */
    size_t scratch_size;
    jr_note_t *notes;
    size_t note_count, note_capacity;
    char *note_text;
    size_t note_used, note_text_capacity;
    sti_names_t unknown; /* unknown keys, by object */
    sti_names_t names;   /* the dump's component names (head pass) */
    sti_names_t map;     /* the dump's component names -> the schema's components */
} jr_t;

static jr_frame_t *jr_top(jr_t *jr) {
    return &jr->frames[jr->depth - 1];
}

/* --- Where a token is ------------------------------------------------------ */

/* The first byte of the token just handed over. */
static size_t jr_here(const jr_t *jr) {
    if (jr->finishing) {
        return jr->size;
    }
    size_t end = yajl_get_bytes_consumed(jr->h);
    const char *t = jr->text;
    if (end == 0 || end > jr->size) {
        return end > jr->size ? jr->size : 0;
    }
    switch (jr->ev) {
    case JR_EV_STRING:
    case JR_EV_KEY:
        for (size_t i = end - 1; i-- > 0;) {
            if (t[i] == '"') {
                size_t slashes = 0;
                while (i - slashes > 0 && t[i - slashes - 1] == '\\') {
                    slashes++;
                }
                if (slashes % 2 == 0) {
                    return i;
                }
            }
        }
        return 0;
    case JR_EV_NUMBER: {
        size_t i = end;
        while (i > 0 && strchr("0123456789+-.eE", t[i - 1]) != NULL && t[i - 1] != '\0') {
            i--;
        }
        return i;
    }
    case JR_EV_NULL: return end >= 4 ? end - 4 : 0;
    case JR_EV_BOOL: return end >= 5 && memcmp(t + end - 5, "false", 5) == 0 ? end - 5 : end >= 4 ? end - 4 : 0;
    default: return end - 1;
    }
}

/* Line and column (1-based) of offset `at`. */
static void jr_position(const jr_t *jr, size_t at, uint32_t *line, uint32_t *column) {
    uint32_t n = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < at; i++) {
        if (jr->text[i] == '\n') {
            n++;
            line_start = i + 1;
        }
    }
    *line = n;
    *column = (uint32_t)(at - line_start) + 1;
}

/* Report an error about the token at offset `at`, named by the path of
 * keys and indices the open frames are at; returns 0 (yajl: stop). */
static int jr_fail_at(jr_t *jr, strata_result_t r, size_t at, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int jr_fail_at(jr_t *jr, strata_result_t r, size_t at, const char *fmt, ...) {
    if (jr->r != STRATA_OK) {
        return 0;
    }
    jr->r = r;
    strata_load_report_t *report = jr->l->report;
    jr_position(jr, at, &report->line, &report->column);
    report->offset = at;
    char path[200] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < jr->depth && used < sizeof path; i++) {
        const jr_frame_t *f = &jr->frames[i];
        int n = 0;
        if (f->kind == JR_FREE || f->kind == JR_PAIR || f->kind == JR_ENTITIES || f->kind == JR_LIST ||
            f->kind == JR_TARGETS || (f->kind == JR_SKIP && !f->object)) {
            n = f->count > 0 ? snprintf(path + used, sizeof path - used, "[%zu]", f->count - 1) : 0;
        } else if (f->key != NULL) {
            n = snprintf(path + used, sizeof path - used, "%s%s", used > 0 ? "." : "", f->key);
        }
        used += n > 0 ? (size_t)n : 0;
    }
    char what[200];
    va_list args;
    va_start(args, fmt);
    vsnprintf(what, sizeof what, fmt, args);
    va_end(args);
    sti_loader_fail(jr->l, r, "line %u, column %u: %s%s%s", report->line, report->column, path, path[0] ? ": " : "",
                    what);
    return 0;
}

#define jr_fail(jr, ...) jr_fail_at((jr), STRATA_ERR_CORRUPT, jr_here(jr), __VA_ARGS__)

static int jr_nomem(jr_t *jr) {
    if (jr->r == STRATA_OK) {
        jr->r = sti_loader_fail(jr->l, STRATA_ERR_NOMEM, "out of memory");
    }
    return 0;
}

/* A key of an object no schema element takes: refused if it came before in
 * the same object (as any repeated key). */
static bool jr_unknown_key(jr_t *jr, const jr_frame_t *f, const char *s, size_t len) {
    bool added = false;
    if (jr->head) {
        return true; /* the main pass checks them, with the path to them */
    }
    if (!sti_names_add(jr->w, &jr->unknown, f->serial, s, len, NULL, &added)) {
        return jr_nomem(jr);
    }
    if (!added) {
        return jr_fail(jr, "the key \"%.*s\" is repeated", (int)(len < 60 ? len : 60), s);
    }
    return true;
}

/* --- Frames ------------------------------------------------------------------ */

static jr_frame_t *jr_push(jr_t *jr, jr_kind_t kind) {
    if (jr->depth == JR_MAX_DEPTH) {
        jr_fail(jr, "nested more than %d deep", JR_MAX_DEPTH);
        return NULL;
    }
    jr_frame_t *f = &jr->frames[jr->depth++];
    memset(f, 0, sizeof *f);
    f->kind = (uint8_t)kind;
    f->slot = -1;
    f->serial = ++jr->serial;
    f->start = jr_here(jr);
    return f;
}

/* Skip the value that starts with this token (an object or array: until it closes). */
static int jr_skip(jr_t *jr, jr_ev_t ev) {
    if (ev == JR_EV_MAP || ev == JR_EV_ARRAY) {
        jr_frame_t *f = jr_push(jr, JR_SKIP);
        if (f == NULL) {
            return 0;
        }
        f->object = ev == JR_EV_MAP;
    }
    return 1;
}

/* --- Changes ------------------------------------------------------------------ */

/* Note a change (`path.name`, "(was former)"): kept until the entity (or
 * the resources) ends, then counted. */
static bool jr_note(jr_t *jr, strata_change_kind_t kind, bool fields, const char *path, const char *name, size_t len,
                    const char *former) {
    char full[sizeof jr->l->changes[0].name];
    int n = snprintf(full, sizeof full, "%s%s%.*s%s%s%s", path, path[0] ? "." : "", (int)len, name,
                     former != NULL ? " (was " : "", former != NULL ? former : "", former != NULL ? ")" : "");
    size_t size = (n < 0 ? 0 : (size_t)n >= sizeof full ? sizeof full - 1 : (size_t)n) + 1;
    if (sti_mem_grow(jr->w, &jr->notes, sizeof *jr->notes, &jr->note_capacity, jr->note_count + 1, 16) != STRATA_OK ||
        sti_mem_grow(jr->w, &jr->note_text, 1, &jr->note_text_capacity, jr->note_used + size, 512) != STRATA_OK) {
        return jr_nomem(jr);
    }
    bool resource = jr->depth > 1 && jr->frames[1].kind == JR_FIELDS;
    jr->notes[jr->note_count++] = (jr_note_t){(uint8_t)kind, fields, resource, (uint32_t)jr->note_used};
    memcpy(jr->note_text + jr->note_used, full, size);
    jr->note_text[jr->note_used + size - 1] = '\0';
    jr->note_used += size;
    return true;
}

/* Count the kept notes: those about components first, then those about fields. */
static bool jr_flush_notes(jr_t *jr) {
    for (int fields = 0; fields < 2; fields++) {
        for (size_t i = 0; i < jr->note_count; i++) {
            const jr_note_t *n = &jr->notes[i];
            const char *name = jr->note_text + n->at;
            if (n->fields == (fields == 1) && sti_evolve_note(jr->l, n->kind, n->resource ? -1 : 0, true, "", name,
                                                              strlen(name), NULL) != STRATA_OK) {
                return jr_nomem(jr);
            }
        }
    }
    jr->note_count = 0;
    jr->note_used = 0;
    return true;
}

/* The name changes of fields are noted under: the component (or
 * "resource") and the fields of the struct values between. */
static void jr_field_path(const jr_t *jr, char *out, size_t size) {
    uint32_t first = 0;
    while (first + 1 < jr->depth && jr->frames[first].path == NULL) {
        first++;
    }
    int n = snprintf(out, size, "%s", jr->frames[first].path != NULL ? jr->frames[first].path : "");
    size_t used = n > 0 ? (size_t)n : 0;
    for (uint32_t i = first; i + 1 < jr->depth && used < size; i++) {
        const jr_frame_t *f = &jr->frames[i];
        if (f->kind == JR_FIELDS && f->slot >= 0) {
            n = snprintf(out + used, size - used, ".%s", f->fields[f->slot].name);
            used += n > 0 ? (size_t)n : 0;
        }
    }
}

/* --- Values --------------------------------------------------------------------- */

static int jr_push_fields(jr_t *jr, const strata_field_desc_t *fields, uint32_t count, unsigned char *base,
                          const unsigned char *defaults, const char *path);

/* An unsigned value (an id): a JSON integer >= 0, or a string of digits. 0: not one; -1: out of range. */
static int jr_unsigned(jr_ev_t ev, const char *s, size_t len, uint64_t *out) {
    *out = 0;
    return ev == JR_EV_NUMBER || ev == JR_EV_STRING ? sti_number_unsigned(s, len, ev == JR_EV_STRING, out) : 0;
}

/* One element of field f from the token (ev, s, len) into p (defaults at d,
 * or NULL). One case a kind. */
static int jr_element(jr_t *jr, const strata_field_desc_t *f, unsigned char *p, const unsigned char *d, jr_ev_t ev,
                      const char *s, size_t len) {
    if (f->kind == STRATA_KIND_STRUCT) {
        if (ev != JR_EV_MAP) {
            return jr_fail(jr, "expected an object of %s's fields", f->type->name);
        }
        return jr_push_fields(jr, f->type->fields, f->type->count, p, d, NULL);
    }
    sti_token_t t = ev == JR_EV_BOOL     ? STI_TOKEN_BOOL
                    : ev == JR_EV_NUMBER ? STI_TOKEN_NUMBER
                    : ev == JR_EV_STRING ? STI_TOKEN_STRING
                                         : STI_TOKEN_NULL; /* null, or an object or array where a scalar goes */
    char why[STI_VALUE_WHY];
    return sti_value_decode(f, t, s, len, jr->point, p, why) ? 1 : jr_fail(jr, "%s", why);
}

static int jr_push_fields(jr_t *jr, const strata_field_desc_t *fields, uint32_t count, unsigned char *base,
                          const unsigned char *defaults, const char *path) {
    jr_frame_t *f = jr_push(jr, JR_FIELDS);
    if (f == NULL) {
        return 0;
    }
    f->fields = fields;
    f->field_count = count;
    f->base = base;
    f->defaults = defaults;
    f->path = path;
    f->marks = (uint32_t)jr->mark_count;
    if (sti_mem_grow(jr->w, &jr->marks, sizeof *jr->marks, &jr->mark_capacity, jr->mark_count + count, 64) !=
        STRATA_OK) {
        return jr_nomem(jr);
    }
    for (uint32_t i = 0; i < count; i++) {
        jr->marks[jr->mark_count + i] = 0;
    }
    jr->mark_count += count;
    return 1;
}

/* A field's key: which field takes the value that follows. Its own name
 * wins over its former names, and an earlier former name over a later
 * one, wherever in the object they come (evolve.h); a value a better name
 * replaces is dropped. */
static int jr_field_key(jr_t *jr, jr_frame_t *f, const char *s, size_t len) {
    f->slot = -1;
    f->key = NULL;
    uint32_t n = f->field_count;
    uint32_t guess = f->taken < n ? f->taken : 0; /* the writer's order: the next field */
    uint32_t field = UINT32_MAX, priority = 0;
    for (uint32_t k = 0; k < n && field == UINT32_MAX; k++) {
        uint32_t i = guess + k < n ? guess + k : guess + k - n;
        const char *name = f->fields[i].name;
        if (strncmp(name, s, len) == 0 && strlen(name) == len) {
            field = i;
        }
    }
    for (uint32_t i = 0; i < n && field == UINT32_MAX; i++) {
        const char *const *formers = f->fields[i].renamed_from;
        for (uint32_t k = 0; formers != NULL && formers[k] != NULL && k < 63; k++) {
            if (strncmp(formers[k], s, len) == 0 && strlen(formers[k]) == len) {
                field = i;
                priority = k + 1;
                break;
            }
        }
    }
    if (field == UINT32_MAX) {
        f->odd = true;
        if (!jr_unknown_key(jr, f, s, len)) {
            return 0;
        }
        char path[160];
        jr_field_path(jr, path, sizeof path);
        return jr_note(jr, STRATA_CHANGE_DROPPED, true, path, s, len, NULL);
    }
    uint64_t *mark = &jr->marks[f->marks + field];
    uint64_t bit = (uint64_t)1 << priority;
    if (*mark & bit) {
        return jr_fail(jr, "the key \"%.*s\" is repeated", (int)(len < 60 ? len : 60), s);
    }
    const strata_field_desc_t *fd = &f->fields[field];
    if ((*mark & (bit - 1)) == 0) {
        if (*mark != 0) {
            /* A better name for a field already given: its value starts over. */
            size_t bytes = (size_t)fd->size * (fd->array ? fd->count : 1);
            if (f->defaults != NULL) {
                memcpy(f->base + fd->offset, f->defaults + fd->offset, bytes);
            } else {
                memset(f->base + fd->offset, 0, bytes);
            }
        }
        f->slot = (int32_t)field;
        f->key = priority == 0 ? fd->name : fd->renamed_from[priority - 1];
    }
    f->odd = f->odd || priority != 0;
    f->taken += priority == 0;
    *mark |= bit;
    return 1;
}

/* A JR_FIELDS object ends: fields not given keep their defaults (added),
 * those given under a former name are renamed, replaced ones dropped. */
static int jr_fields_end(jr_t *jr) {
    jr_frame_t *f = jr_top(jr);
    bool changes = f->odd || f->taken < f->field_count;
    char path[160] = "";
    if (changes) {
        f->slot = -1;
        jr_field_path(jr, path, sizeof path);
    }
    for (uint32_t i = 0; changes && i < f->field_count; i++) {
        const strata_field_desc_t *fd = &f->fields[i];
        uint64_t mark = jr->marks[f->marks + i];
        if (mark == 0) {
            if (!jr_note(jr, STRATA_CHANGE_ADDED, true, path, fd->name, strlen(fd->name), NULL)) {
                return 0;
            }
            continue;
        }
        uint32_t best = (uint32_t)__builtin_ctzll(mark);
        if (best > 0 &&
            !jr_note(jr, STRATA_CHANGE_RENAMED, true, path, fd->name, strlen(fd->name), fd->renamed_from[best - 1])) {
            return 0;
        }
        for (uint32_t k = best + 1; k < 64; k++) {
            const char *former = mark >> k & 1 ? fd->renamed_from[k - 1] : NULL;
            if (former != NULL && !jr_note(jr, STRATA_CHANGE_DROPPED, true, path, former, strlen(former), NULL)) {
                return 0;
            }
        }
    }
    jr->mark_count = f->marks;
    jr->depth--;
    /* The resources end: their changes are counted now. */
    return jr->depth == 1 ? jr_flush_notes(jr) : 1;
}

/* A value inside a JR_FIELDS object or a JR_LIST. */
static int jr_field_value(jr_t *jr, jr_frame_t *f, jr_ev_t ev, const char *s, size_t len) {
    if (f->kind == JR_LIST) {
        const strata_field_desc_t *fd = f->fields;
        size_t j = f->count - 1;
        if (j >= fd->count) {
            return jr_fail(jr, "more than %u values; the field holds %u", fd->count, fd->count);
        }
        const unsigned char *d = f->defaults != NULL ? f->defaults + j * fd->size : NULL;
        return jr_element(jr, fd, f->base + j * fd->size, d, ev, s, len);
    }
    if (f->slot < 0) {
        return jr_skip(jr, ev);
    }
    const strata_field_desc_t *fd = &f->fields[f->slot];
    unsigned char *p = f->base + fd->offset;
    const unsigned char *d = f->defaults != NULL ? f->defaults + fd->offset : NULL;
    if (!fd->array) {
        return jr_element(jr, fd, p, d, ev, s, len);
    }
    if (ev != JR_EV_ARRAY) {
        return jr_fail(jr, "expected a list of at most %u values", fd->count);
    }
    jr_frame_t *list = jr_push(jr, JR_LIST);
    if (list == NULL) {
        return 0;
    }
    list->fields = fd;
    list->base = p;
    list->defaults = d;
    return 1;
}

/* --- Entities ------------------------------------------------------------------- */

/* An entity handle: "id" as a number or a string of digits. */
static int jr_entity_id(jr_t *jr, jr_ev_t ev, const char *s, size_t len) {
    uint64_t u = 0;
    if (jr_unsigned(ev, s, len, &u) <= 0 || (uint32_t)(u >> 32) == 0) {
        return jr->head ? 1 : jr_fail(jr, "not an entity id (index + generation << 32, generation > 0)");
    }
    if (jr->head) {
        jr->highest = (uint32_t)u >= jr->highest ? (uint64_t)(uint32_t)u + 1 : jr->highest;
    }
    jr->id = u;
    return 1;
}

/* A component's key in an entity: its value goes to the scratch row. */
static int jr_component_key(jr_t *jr, jr_frame_t *f, const char *s, size_t len) {
    f->slot = -1;
    f->key = NULL;
    if (jr->head) {
        bool added;
        return sti_names_add(jr->w, &jr->names, 0, s, len, NULL, &added) ? 1 : jr_nomem(jr);
    }
    uint32_t previous = jr->touched_count > 0 ? jr->touched[jr->touched_count - 1] + 1 : 0;
    const sti_name_t *e = jr->guess[previous] >= 0 ? jr->entry_of[jr->guess[previous]] : NULL;
    if (e == NULL || e->len != len || memcmp(sti_names_text(&jr->map, e), s, len) != 0) {
        e = sti_names_find(&jr->map, 0, s, len);
        jr->guess[previous] = e != NULL ? (int32_t)e->value : -1;
    }
    if (e == NULL) {
        return jr_unknown_key(jr, f, s, len) && jr_note(jr, STRATA_CHANGE_DROPPED, false, "", s, len, NULL);
    }
    uint32_t c = (uint32_t)e->value;
    if (strata_mask_test(&jr->mask, c)) {
        return jr_fail(jr, "the key \"%.*s\" is repeated", (int)(len < 60 ? len : 60), s);
    }
    const char *name = jr->w->schema->component_types[c].name;
    f->key = jr->map.text + e->at;
    if (e->name != name && !jr_note(jr, STRATA_CHANGE_RENAMED, false, "", name, strlen(name), f->key)) {
        return 0;
    }
    strata_mask_set(&jr->mask, c);
    jr->touched[jr->touched_count++] = c;
    f->slot = (int32_t)c;
    return 1;
}

/* A component's value: its fields, into the scratch row (a tag's are all dropped). */
static int jr_component_value(jr_t *jr, jr_frame_t *f, jr_ev_t ev) {
    if (f->slot < 0) {
        return jr_skip(jr, ev);
    }
    if (ev != JR_EV_MAP) {
        return jr_fail(jr, "expected an object of fields");
    }
    uint32_t c = (uint32_t)f->slot;
    const strata_component_desc_t *desc = &jr->w->components[c];
    const strata_type_desc_t *type = &jr->w->schema->component_types[c];
    unsigned char *value = jr->scratch + jr->scratch_at[c];
    int32_t relation = sti_relation_of_tag(jr->w, c);
    if (relation >= 0) {
        jr_frame_t *links = jr_push(jr, JR_LINKS);
        if (links != NULL) {
            links->relation = (uint32_t)relation;
            links->path = type->name;
        }
        return links != NULL;
    }
    if (desc->size == 0) {
        return jr_push_fields(jr, NULL, 0, value, NULL, type->name);
    }
    if (desc->defaults != NULL) {
        memcpy(value, desc->defaults, desc->size);
    } else {
        memset(value, 0, desc->size);
    }
    return jr_push_fields(jr, type->fields, type->count, value, desc->defaults, type->name);
}

/* A key of a relation's links: "targets", or one dropped. */
static int jr_links_key(jr_t *jr, jr_frame_t *f, const char *s, size_t len) {
    f->slot = -1;
    f->key = NULL;
    if (len != 7 || memcmp(s, "targets", 7) != 0) {
        return jr_unknown_key(jr, f, s, len) && jr_note(jr, STRATA_CHANGE_DROPPED, true, f->path, s, len, NULL);
    }
    if (f->taken != 0) {
        return jr_fail(jr, "the key \"targets\" is repeated");
    }
    f->taken = 1;
    f->slot = 0;
    f->key = "targets";
    return 1;
}

/* The value of "targets" (a list), or one of its ids: kept for the entity's end. */
static int jr_links_value(jr_t *jr, jr_frame_t *f, jr_ev_t ev, const char *s, size_t len) {
    if (f->kind == JR_LINKS) {
        if (f->slot < 0) {
            return jr_skip(jr, ev);
        }
        if (ev != JR_EV_ARRAY) {
            return jr_fail(jr, "expected a list of entity ids");
        }
        jr_frame_t *list = jr_push(jr, JR_TARGETS);
        if (list == NULL) {
            return 0;
        }
        list->relation = f->relation;
        /* A null target marks the list as given: the tag stays, even with no link. */
        if (sti_mem_grow(jr->w, &jr->links, sizeof *jr->links, &jr->link_capacity, jr->link_count + 1, 16) !=
            STRATA_OK) {
            return jr_nomem(jr);
        }
        jr->links[jr->link_count++] = (jr_link_t){f->relation, STRATA_ENTITY_NULL};
        return 1;
    }
    uint64_t u = 0;
    if (jr_unsigned(ev, s, len, &u) <= 0 || (uint32_t)(u >> 32) == 0) {
        return jr_fail(jr, "not an entity id (index + generation << 32, generation > 0)");
    }
    if ((uint32_t)u >= jr->l->record_count) {
        return jr_fail(jr, "a %s link points at entity %" PRIu64 ", which the save does not hold",
                       jr->w->schema->relations[f->relation].name, u);
    }
    if (sti_mem_grow(jr->w, &jr->links, sizeof *jr->links, &jr->link_capacity, jr->link_count + 1, 16) != STRATA_OK) {
        return jr_nomem(jr);
    }
    jr->links[jr->link_count++] = (jr_link_t){f->relation, u};
    return 1;
}

/* The entity's links filed. */
static int jr_entity_links(jr_t *jr, size_t start) {
    for (size_t i = 0; i < jr->link_count; i++) {
        const jr_link_t *k = &jr->links[i];
        if (k->target == STRATA_ENTITY_NULL) {
            continue;
        }
        strata_result_t r = sti_relation_load_link(jr->w, k->relation, jr->id, k->target);
        if (r == STRATA_ERR_NOMEM) {
            return jr_nomem(jr);
        }
        if (r != STRATA_OK) {
            return jr_fail_at(jr, STRATA_ERR_CORRUPT, start,
                              "a %s link of entity %" PRIu64 " names entity %" PRIu64 " twice",
                              jr->w->schema->relations[k->relation].name, jr->id, k->target);
        }
    }
    return 1;
}

/* An entity's object ends: its row in its archetype's table, its values copied in. */
static int jr_entity_end(jr_t *jr) {
    jr_frame_t *f = jr_top(jr);
    size_t start = f->start;
    bool has_id = f->taken & (1u << JR_ID);
    jr->depth--;
    sti_names_clear(&jr->unknown);
    if (jr->head) {
        return 1;
    }
    if (!has_id) {
        return jr_fail_at(jr, STRATA_ERR_CORRUPT, start, "an entity needs an \"id\"");
    }
    /* A relation's tag without a list of targets (a dump of format 1) goes. */
    for (uint32_t i = 0; i < jr->touched_count; i++) {
        int32_t relation = sti_relation_of_tag(jr->w, jr->touched[i]);
        bool linked = false;
        for (size_t k = 0; relation >= 0 && k < jr->link_count && !linked; k++) {
            linked = jr->links[k].relation == (uint32_t)relation;
        }
        if (relation >= 0 && !linked) {
            strata_mask_clear(&jr->mask, jr->touched[i]);
        }
    }
    sti_table_t *t = NULL;
    uint32_t row = 0;
    strata_result_t r = sti_loader_rows(jr->l, &jr->mask, 1, &t, &row);
    if (r != STRATA_OK) {
        jr->r = r;
        return 0;
    }
    if (!sti_loader_place(jr->l, t, row, jr->id)) {
        /* Take the row back: the world is dropped anyway, but keep it consistent. */
        if (--t->count == 0) {
            sti_table_emptied(jr->w, t);
        }
        return jr_fail_at(jr, STRATA_ERR_CORRUPT, start, "entity id %" PRIu64 " is out of range or used twice", jr->id);
    }
    for (uint32_t i = 0; i < jr->touched_count; i++) {
        uint32_t c = jr->touched[i];
        uint32_t size = jr->w->components[c].size;
        unsigned char *dst = size > 0 && !sti_is_sparse(jr->w, c) ? (unsigned char *)t->columns[c] + (size_t)row * size
                                                                  : NULL;
        if (sti_is_sparse(jr->w, c) && strata_mask_test(&jr->mask, c)) {
            r = sti_loader_sparse(jr->l, c, t, row, 1, &dst);
            if (r != STRATA_OK) {
                jr->r = r;
                return 0;
            }
        }
        if (dst != NULL) {
            memcpy(dst, jr->scratch + jr->scratch_at[c], size);
        }
    }
    if (!jr_entity_links(jr, start)) {
        return 0;
    }
    return jr->note_count == 0 || jr_flush_notes(jr);
}

/* --- The document ------------------------------------------------------------ */

static int jr_key_of_root(jr_t *jr, jr_frame_t *f, const char *s, size_t len) {
    f->slot = -1;
    f->key = NULL;
    for (int k = 0; k < JR_ROOT_KEYS; k++) {
        if (strncmp(jr_root_keys[k], s, len) == 0 && strlen(jr_root_keys[k]) == len) {
            if (f->taken & (1u << k)) {
                return jr_fail(jr, "the key \"%s\" is repeated", jr_root_keys[k]);
            }
            f->taken |= 1u << k;
            f->slot = k;
            f->key = jr_root_keys[k];
            jr->free_seen = jr->free_seen || k == JR_FREE_LIST;
            return 1;
        }
    }
    return jr_unknown_key(jr, f, s, len);
}

/* In the head pass: note a root member's token; stop at the entities when
 * the header has told what the load needs before them. */
static int jr_root_head(jr_t *jr, jr_frame_t *f, jr_ev_t ev, const char *s, size_t len) {
    jr_member_t *m = &jr->root[f->slot];
    m->seen = true;
    m->ev = (uint8_t)ev;
    m->at = jr_here(jr);
    m->len = len < sizeof m->raw ? len : sizeof m->raw - 1;
    m->full = len;
    if (ev == JR_EV_NUMBER || ev == JR_EV_STRING) {
        memcpy(m->raw, s, m->len);
    }
    m->raw[m->len] = '\0';
    if (f->slot == JR_ENTITY_LIST && jr->root[JR_SCHEMA].seen && jr->root[JR_VERSION].seen &&
        jr->root[JR_INDICES].seen && !jr->need_names) {
        jr->stopped = true;
        return 0;
    }
    if (f->slot == JR_FREE_LIST && ev == JR_EV_ARRAY) {
        return jr_push(jr, JR_FREE) != NULL;
    }
    if (f->slot == JR_ENTITY_LIST && ev == JR_EV_ARRAY) {
        return jr_push(jr, JR_ENTITIES) != NULL;
    }
    return jr_skip(jr, ev);
}

static int jr_root_value(jr_t *jr, jr_frame_t *f, jr_ev_t ev, const char *s, size_t len) {
    if (f->slot < 0) {
        return jr_skip(jr, ev);
    }
    if (jr->head) {
        return jr_root_head(jr, f, ev, s, len);
    }
    switch (f->slot) {
    case JR_STRATA: /* after the entities: the head pass did not see it */
        if (!jr->root[JR_STRATA].seen && !(ev == JR_EV_NUMBER && len == 1 && s[0] == '1')) {
            return jr_fail(jr, "a dump of another format (this runtime reads 1)");
        }
        return jr_skip(jr, ev);
    case JR_FREE_LIST:
        if (ev != JR_EV_ARRAY) { /* after the entities: the head pass did not see it */
            return jr_fail(jr, "expected a list of [index, generation] pairs");
        }
        return jr_push(jr, JR_FREE) != NULL;
    case JR_ENTITY_LIST: return jr_push(jr, JR_ENTITIES) != NULL;
    case JR_RESOURCES: {
        if (ev != JR_EV_MAP) {
            return jr_fail(jr, "expected an object of resources");
        }
        const strata_schema_t *schema = jr->w->schema;
        const strata_type_desc_t *rt = schema->resource_type;
        if (rt == NULL) {
            return jr_skip(jr, ev);
        }
        /* Resources are fields of the resource block: the same mapping as fields. */
        return jr_push_fields(jr, rt->fields, rt->count, (unsigned char *)jr->w->resources,
                              (const unsigned char *)schema->resources_defaults, "resource");
    }
    default: return jr_skip(jr, ev); /* checked by the head pass */
    }
}

/* One number of a free pair: [index, generation]. */
static int jr_pair_value(jr_t *jr, jr_frame_t *f, jr_ev_t ev, const char *s, size_t len) {
    bool negative = false;
    uint64_t m = 0;
    bool number = ev == JR_EV_NUMBER && sti_number_integer(s, len, false, &negative, &m) == STI_INT && !negative;
    if (jr->head) {
        if (f->count == 1 && number && m < UINT32_MAX && m >= jr->highest) {
            jr->highest = m + 1;
        }
        return jr_skip(jr, ev);
    }
    if (!number || f->count > 2 || m > UINT32_MAX) {
        jr->depth--;
        return jr_fail_at(jr, STRATA_ERR_CORRUPT, f->start, "an invalid or repeated [index, generation]");
    }
    f->field_count = f->count == 1 ? (uint32_t)m : f->field_count;
    f->taken = f->count == 2 ? (uint32_t)m : f->taken;
    return 1;
}

static int jr_pair_end(jr_t *jr) {
    jr_frame_t *f = jr_top(jr);
    jr->depth--;
    if (jr->head) {
        return 1;
    }
    if (f->count != 2 || !sti_loader_free(jr->l, f->field_count, f->taken)) {
        return jr_fail_at(jr, STRATA_ERR_CORRUPT, f->start, "an invalid or repeated [index, generation]");
    }
    return 1;
}

/* --- yajl's callbacks --------------------------------------------------------- */

static int jr_value(jr_t *jr, jr_ev_t ev, const char *s, size_t len) {
    jr->ev = (uint8_t)ev;
    if (jr->depth == 0) {
        if (ev != JR_EV_MAP) {
            return jr_fail(jr, "expected an object (a world dump)");
        }
        return jr_push(jr, JR_ROOT) != NULL;
    }
    jr_frame_t *f = jr_top(jr);
    f->count++;
    switch (f->kind) {
    case JR_ROOT: return jr_root_value(jr, f, ev, s, len);
    case JR_FREE:
        jr->free_count++;
        if (ev == JR_EV_ARRAY) {
            return jr_push(jr, JR_PAIR) != NULL;
        }
        return jr->head ? jr_skip(jr, ev) : jr_fail(jr, "an invalid or repeated [index, generation]");
    case JR_PAIR: return jr_pair_value(jr, f, ev, s, len);
    case JR_ENTITIES:
        jr->entity_count++;
        if (ev != JR_EV_MAP) {
            return jr->head ? jr_skip(jr, ev) : jr_fail(jr, "expected an entity object");
        }
        if (jr_push(jr, JR_ENTITY) == NULL) {
            return 0;
        }
        jr->mask = (strata_mask_t){{0}};
        jr->touched_count = 0;
        jr->link_count = 0;
        return 1;
    case JR_ENTITY:
        if (f->slot == JR_ID) {
            return jr_entity_id(jr, ev, s, len);
        }
        if (f->slot == JR_COMPONENT_SET) {
            if (ev == JR_EV_MAP && (!jr->head || jr->need_names)) {
                return jr_push(jr, JR_COMPONENTS) != NULL;
            }
            if (ev != JR_EV_MAP && !jr->head) {
                return jr_fail(jr, "expected an object of components");
            }
        }
        return jr_skip(jr, ev);
    case JR_COMPONENTS: return jr->head ? jr_skip(jr, ev) : jr_component_value(jr, f, ev);
    case JR_FIELDS:
    case JR_LIST: return jr_field_value(jr, f, ev, s, len);
    case JR_LINKS:
    case JR_TARGETS: return jr_links_value(jr, f, ev, s, len);
    default: return jr_skip(jr, ev);
    }
}

static int jr_key(void *ctx, const unsigned char *key, size_t len) {
    jr_t *jr = ctx;
    const char *s = (const char *)key;
    jr->ev = JR_EV_KEY;
    jr_frame_t *f = jr_top(jr);
    switch (f->kind) {
    case JR_ROOT: return jr_key_of_root(jr, f, s, len);
    case JR_ENTITY: {
        int k = len == 2 && memcmp(s, "id", 2) == 0             ? JR_ID
                : len == 10 && memcmp(s, "components", 10) == 0 ? JR_COMPONENT_SET
                                                                : -1;
        f->slot = k;
        f->key = NULL;
        if (k < 0) {
            return jr_unknown_key(jr, f, s, len);
        }
        if (f->taken & (1u << k)) {
            return jr_fail(jr, "the key \"%s\" is repeated", k == JR_ID ? "id" : "components");
        }
        f->key = k == JR_ID ? "id" : "components";
        f->taken |= 1u << k;
        return 1;
    }
    case JR_COMPONENTS: return jr_component_key(jr, f, s, len);
    case JR_FIELDS: return jr_field_key(jr, f, s, len);
    case JR_LINKS: return jr_links_key(jr, f, s, len);
    default: return jr_unknown_key(jr, f, s, len); /* JR_SKIP objects */
    }
}

static int jr_end(void *ctx) {
    jr_t *jr = ctx;
    jr_frame_t *f = jr_top(jr);
    switch (f->kind) {
    case JR_ENTITY: return jr_entity_end(jr);
    case JR_FIELDS: return jr_fields_end(jr);
    case JR_PAIR: return jr_pair_end(jr);
    default: jr->depth--; return 1;
    }
}

static int jr_on_null(void *ctx) {
    return jr_value(ctx, JR_EV_NULL, NULL, 0);
}

static int jr_on_bool(void *ctx, int b) {
    return jr_value(ctx, JR_EV_BOOL, NULL, b != 0);
}

static int jr_on_number(void *ctx, const char *s, size_t len) {
    return jr_value(ctx, JR_EV_NUMBER, s, len);
}

static int jr_on_string(void *ctx, const unsigned char *s, size_t len) {
    return jr_value(ctx, JR_EV_STRING, (const char *)s, len);
}

static int jr_on_map(void *ctx) {
    return jr_value(ctx, JR_EV_MAP, NULL, 0);
}

static int jr_on_array(void *ctx) {
    return jr_value(ctx, JR_EV_ARRAY, NULL, 0);
}

static const yajl_callbacks jr_callbacks = {
    jr_on_null, jr_on_bool, NULL, NULL, jr_on_number, jr_on_string, jr_on_map, jr_key, jr_end, jr_on_array, jr_end,
};

/* One pass of yajl over the text. */
static strata_result_t jr_pass(jr_t *jr) {
    jr->h = yajl_alloc(&jr_callbacks, NULL, jr);
    if (jr->h == NULL) {
        return jr_nomem(jr), jr->r;
    }
    jr->depth = 0;
    jr->finishing = false;
    const unsigned char *text = (const unsigned char *)(jr->text != NULL ? jr->text : "");
    yajl_status st = yajl_parse(jr->h, text, jr->size);
    if (st == yajl_status_ok) {
        jr->finishing = true;
        st = yajl_complete_parse(jr->h);
    }
    if (st == yajl_status_error && jr->r == STRATA_OK) {
        /* yajl stops just past the token it could not take: point at its last byte. */
        size_t at = jr->finishing ? jr->size : yajl_get_bytes_consumed(jr->h);
        at = at > 0 ? at - 1 : 0;
        at = at > jr->size ? jr->size : at;
        unsigned char *message = yajl_get_error(jr->h, 0, text, jr->size);
        const char *what = message != NULL ? (const char *)message : "not valid JSON";
        const char *colon = strstr(what, "error: ");
        what = colon != NULL ? colon + 7 : what;
        size_t n = strcspn(what, "\n");
        jr->depth = 0;
        jr_fail_at(jr, STRATA_ERR_CORRUPT, at, "%.*s", (int)(n < 150 ? n : 150), what);
        if (message != NULL) {
            yajl_free_error(jr->h, message);
        }
    }
    yajl_free(jr->h);
    jr->h = NULL;
    return jr->r;
}

/* --- Before the entities ------------------------------------------------------- */

/* A root member's integer, or -1 if it is not a number without fraction
 * and sign within [0, max]. */
static int64_t jr_member_integer(const jr_member_t *m, int64_t max) {
    bool negative = false;
    uint64_t u = 0;
    if (m->ev != JR_EV_NUMBER || sti_number_integer(m->raw, m->len, false, &negative, &u) != STI_INT || negative ||
        u > (uint64_t)max) {
        return negative && u == 0 && m->ev == JR_EV_NUMBER ? 0 : -1;
    }
    return (int64_t)u;
}

/* Report an error about a root member (at its value, or the root's start if it has none). */
static bool jr_fail_member(jr_t *jr, strata_result_t r, int member, const char *what) {
    jr->depth = 1;
    jr->frames[0].kind = JR_ROOT;
    jr->frames[0].key = jr_root_keys[member];
    size_t at = jr->root[member].seen ? jr->root[member].at : jr->frames[0].start;
    return jr_fail_at(jr, r, at, "%s", what);
}

/* Every index is an entity of the dump or a free one: listed in "free",
 * or, without it, a hole the ids leave (at most one a byte of the text,
 * so that a few bytes cannot make the loader reserve gigabytes). */
static bool jr_check_indices(jr_t *jr, uint64_t entities, uint64_t listed, bool free_seen) {
    uint64_t most = entities + (free_seen ? listed : (uint64_t)jr->size);
    if (jr->index_count <= most) {
        return true;
    }
    char what[200];
    int member = jr->root[JR_INDICES].seen ? JR_INDICES : free_seen ? JR_FREE_LIST : JR_ENTITY_LIST;
    if (free_seen) {
        snprintf(what, sizeof what, "%" PRIu64 " entity indices, but %" PRIu64 " entities and %" PRIu64 " free",
                 jr->index_count, entities, listed);
    } else {
        snprintf(what, sizeof what, "%" PRIu64 " entity indices are more than %zu bytes of JSON hold", jr->index_count,
                 jr->size);
    }
    return jr_fail_member(jr, STRATA_ERR_CORRUPT, member, what);
}

/* The header: format, schema, version, the entity list, the index count
 * (checked against what the text can hold before anything is reserved). */
static bool jr_header(jr_t *jr) {
    const strata_schema_t *s = jr->w->schema;
    strata_load_report_t *report = jr->l->report;
    char what[200];
    const jr_member_t *format = &jr->root[JR_STRATA];
    if (format->seen && !(format->ev == JR_EV_NUMBER && strcmp(format->raw, "1") == 0)) {
        return jr_fail_member(jr, STRATA_ERR_CORRUPT, JR_STRATA, "a dump of another format (this runtime reads 1)");
    }
    const jr_member_t *schema = &jr->root[JR_SCHEMA];
    if (!schema->seen || schema->ev != JR_EV_STRING) {
        return jr_fail_member(jr, STRATA_ERR_CORRUPT, JR_SCHEMA, "expected the schema's name");
    }
    const char *mine = s->save_name != NULL ? s->save_name : s->name;
    snprintf(report->schema, sizeof report->schema, "%.*s", (int)sizeof report->schema - 1, schema->raw);
    if (schema->full != strlen(mine) || strcmp(schema->raw, mine) != 0) {
        snprintf(what, sizeof what, "a dump of '%.60s'; this world loads '%.60s'", schema->raw, mine);
        return jr_fail_member(jr, STRATA_ERR_SCHEMA, JR_SCHEMA, what);
    }
    int64_t version = jr_member_integer(&jr->root[JR_VERSION], UINT32_MAX);
    if (version < 1) {
        return jr_fail_member(jr, STRATA_ERR_CORRUPT, JR_VERSION, "expected the schema's version");
    }
    report->schema_version = (uint32_t)version;
    if (report->schema_version > s->version) {
        snprintf(what, sizeof what, "a dump of version %u; this world has version %u", report->schema_version,
                 s->version);
        return jr_fail_member(jr, STRATA_ERR_SCHEMA, JR_VERSION, what);
    }
    if (!jr->root[JR_ENTITY_LIST].seen || jr->root[JR_ENTITY_LIST].ev != JR_EV_ARRAY) {
        return jr_fail_member(jr, STRATA_ERR_CORRUPT, JR_ENTITY_LIST, "expected a list of entities");
    }
    const jr_member_t *indices = &jr->root[JR_INDICES];
    jr->index_count = jr->highest;
    if (indices->seen) {
        int64_t n = jr_member_integer(indices, UINT32_MAX);
        if (n < 0) {
            return jr_fail_member(jr, STRATA_ERR_CORRUPT, JR_INDICES, "expected a count of entity indices");
        }
        jr->index_count = (uint64_t)n;
    }
    const jr_member_t *free_list = &jr->root[JR_FREE_LIST];
    if (free_list->seen && free_list->ev != JR_EV_ARRAY) {
        return jr_fail_member(jr, STRATA_ERR_CORRUPT, JR_FREE_LIST, "expected a list of [index, generation] pairs");
    }
    /* When the head pass stopped before the entities, their count is bounded
     * by the text's size here and checked exactly once they are read. A free
     * list the head pass saw came before the entities: it was read whole. */
    jr->bounded = jr->stopped;
    uint64_t entities = jr->stopped ? jr->size / JR_MIN_ENTITY_BYTES : jr->entity_count;
    if (!jr_check_indices(jr, entities, jr->free_count, free_list->seen)) {
        return false;
    }
    strata_result_t r = sti_loader_records(jr->l, (uint32_t)jr->index_count);
    if (r != STRATA_OK) {
        jr->r = r;
        return false;
    }
    return true;
}

/* A level of the dump's component names for evolve.h. */
static const void *jr_find_name(const void *set, const char *name, size_t len) {
    const jr_t *jr = set;
    return sti_names_find(&jr->names, 0, name, len) != NULL ? jr : NULL;
}

/* Every name is there: no component has a former name, so the names need not be gathered. */
static const void *jr_find_any(const void *set, const char *name, size_t len) {
    (void)len;
    return name != NULL ? set : NULL;
}

/* The dump's component names mapped onto the schema's components once, by
 * the evolution rules; and the scratch row their values are read into. */
static bool jr_components(jr_t *jr) {
    const strata_schema_t *s = jr->w->schema;
    sti_evolve_names_t names = sti_evolve_components(s);
    sti_evolve_saved_t saved = {jr, jr->need_names ? jr_find_name : jr_find_any};
    size_t size = 0;
    jr->scratch_at = sti_mem_alloc(jr->w, (s->component_count + 1) * sizeof *jr->scratch_at);
    jr->touched = sti_mem_alloc(jr->w, (s->component_count + 1) * sizeof *jr->touched);
    jr->entry_of = sti_mem_alloc(jr->w, (s->component_count + 1) * sizeof *jr->entry_of);
    jr->guess = sti_mem_alloc(jr->w, (s->component_count + 1) * sizeof *jr->guess);
    if (jr->scratch_at == NULL || jr->touched == NULL || jr->entry_of == NULL || jr->guess == NULL) {
        return jr_nomem(jr);
    }
    for (uint32_t c = 0; c <= s->component_count; c++) {
        jr->guess[c] = -1;
        jr->entry_of[c] = NULL;
    }
    for (uint32_t c = 0; c < names.count; c++) {
        jr->scratch_at[c] = size;
        size += (jr->w->components[c].size + 15u) & ~(size_t)15u;
        const char *former;
        if (sti_evolve_source(&names, c, &saved, &former) == NULL) {
            continue;
        }
        const char *key = former != NULL ? former : s->component_types[c].name;
        sti_name_t *e;
        bool added;
        if (!sti_names_add(jr->w, &jr->map, 0, key, strlen(key), &e, &added)) {
            return jr_nomem(jr);
        }
        if (added) {
            e->value = c;
            e->name = former != NULL ? former : s->component_types[c].name;
        }
    }
    for (size_t i = 0; i < jr->map.capacity; i++) {
        const sti_name_t *e = &jr->map.slots[i];
        if (e->len != UINT32_MAX) {
            jr->entry_of[e->value] = e;
        }
    }
    jr->scratch_size = size + 16;
    jr->scratch = sti_mem_alloc(jr->w, jr->scratch_size);
    return jr->scratch != NULL || jr_nomem(jr);
}

/* --- The load ------------------------------------------------------------------- */

/* The text of a JSON load (sti_load_body_fn's context). */
typedef struct json_input_t {
    const char *text;
    size_t size;
} json_input_t;

static void jr_free(jr_t *jr) {
    strata_world_t *w = jr->w;
    const strata_schema_t *s = w->schema;
    sti_mem_free(w, jr->frames, JR_MAX_DEPTH * sizeof *jr->frames);
    sti_mem_free(w, jr->marks, jr->mark_capacity * sizeof *jr->marks);
    sti_mem_free(w, jr->touched, (s->component_count + 1) * sizeof *jr->touched);
    sti_mem_free(w, jr->entry_of, (s->component_count + 1) * sizeof *jr->entry_of);
    sti_mem_free(w, jr->guess, (s->component_count + 1) * sizeof *jr->guess);
    sti_mem_free(w, jr->scratch_at, (s->component_count + 1) * sizeof *jr->scratch_at);
    sti_mem_free(w, jr->scratch, jr->scratch_size);
    sti_mem_free(w, jr->notes, jr->note_capacity * sizeof *jr->notes);
    sti_mem_free(w, jr->links, jr->link_capacity * sizeof *jr->links);
    sti_mem_free(w, jr->note_text, jr->note_text_capacity);
    sti_names_free(jr->w, &jr->unknown);
    sti_names_free(jr->w, &jr->names);
    sti_names_free(jr->w, &jr->map);
}

static strata_result_t json_body(sti_loader_t *l, void *ctx) {
    const json_input_t *in = ctx;
    jr_t jr = {.l = l, .w = l->fresh, .text = in->text, .size = in->size};
    const struct lconv *locale = localeconv();
    jr.point = locale != NULL && locale->decimal_point != NULL ? locale->decimal_point[0] : '.';
    const strata_schema_t *s = jr.w->schema;
    sti_evolve_names_t names = sti_evolve_components(s);
    for (uint32_t c = 0; c < names.count; c++) {
        jr.need_names = jr.need_names || sti_evolve_has_former(&names, c);
    }
    jr.frames = sti_mem_alloc(jr.w, JR_MAX_DEPTH * sizeof *jr.frames);
    if (jr.frames == NULL) {
        jr_nomem(&jr);
    }
    /* The head pass; then the header checked, the records reserved, the components mapped. */
    jr.head = true;
    if (jr.r == STRATA_OK && jr_pass(&jr) == STRATA_OK && jr_header(&jr) && jr_components(&jr)) {
        jr.head = false;
        jr.serial = 0;
        sti_names_clear(&jr.unknown);
        jr.entity_count = 0;
        jr.free_count = 0;
        jr.free_seen = false;
        /* The entity count the header could only bound, checked now. */
        if (jr_pass(&jr) == STRATA_OK && jr.bounded) {
            jr_check_indices(&jr, jr.entity_count, jr.free_count, jr.free_seen);
        }
    }
    jr_free(&jr); /* before the fresh world, whose allocations these are, is swapped in */
    if (jr.r == STRATA_OK) {
        /* A dump that lists the free indices must account for all of them. */
        jr.r = sti_loader_finish(l, !jr.free_seen);
    }
    return jr.r;
}

strata_result_t strata_world_load_json_mem(strata_world_t *w, const char *text, size_t size,
                                           strata_load_report_t *report) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(text != NULL || size == 0);
    json_input_t in = {text, size};
    return sti_load_run(w, report, json_body, &in);
}

/* strata_world_load_json_mem with the binary loader's signature. */
static strata_result_t json_load_mem(strata_world_t *w, const void *data, size_t size, strata_load_report_t *report) {
    return strata_world_load_json_mem(w, data, size, report);
}

strata_result_t strata_world_load_json(strata_world_t *w, const char *path, strata_load_report_t *report) {
    return sti_load_file(w, path, report, json_load_mem);
}

/* names.h: a set of names by hash (private), open addressing, memory
 * through the world's allocator. The JSON loader keeps three: the unknown
 * keys of each object (to refuse a repeat), the dump's component names,
 * and the map from them to the schema's components. */
#ifndef STRATA_SAVE_NAMES_H
#define STRATA_SAVE_NAMES_H

#include "strata_internal.h"

/* One name of a set. */
typedef struct sti_name_t {
    uint32_t serial; /* the object it belongs to (0: a plain set of names) */
    uint32_t hash;
    uint32_t at, len; /* the name in the set's text; len == UINT32_MAX: an empty slot */
    int64_t value;    /* the caller's (-1 when added) */
    const char *name; /* the caller's (NULL when added) */
} sti_name_t;

typedef struct sti_names_t {
    sti_name_t *slots;
    size_t capacity, count;
    char *text; /* the names, each with a NUL */
    size_t text_used, text_capacity;
} sti_names_t;

/* The entry of (serial, s[0..len)), or NULL. */
sti_name_t *sti_names_find(const sti_names_t *set, uint32_t serial, const char *s, size_t len);

/* Add (serial, s[0..len)) unless there: *added says which, *out (if not
 * NULL) gets the entry. False: out of memory (the set is as it was). */
bool sti_names_add(strata_world_t *w, sti_names_t *set, uint32_t serial, const char *s, size_t len, sti_name_t **out,
                   bool *added);

/* The text of entry e (NUL-terminated). */
static inline const char *sti_names_text(const sti_names_t *set, const sti_name_t *e) {
    return set->text + e->at;
}

/* Empty the set, keeping its memory. */
void sti_names_clear(sti_names_t *set);

/* Free the set's memory. */
void sti_names_free(strata_world_t *w, sti_names_t *set);

#endif /* STRATA_SAVE_NAMES_H */

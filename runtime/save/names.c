/* names.c: a set of names by hash (names.h). */
#include "names.h"

#include <string.h>

static uint32_t names_hash(const char *s, size_t len, uint32_t serial) {
    uint32_t h = 2166136261u ^ serial;
    for (size_t i = 0; i < len; i++) {
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    }
    return h;
}

/* The entry of (serial, name), or the empty slot where it would go. */
static sti_name_t *names_slot(const sti_names_t *set, uint32_t serial, const char *s, size_t len, uint32_t hash) {
    for (size_t i = hash & (set->capacity - 1);; i = (i + 1) & (set->capacity - 1)) {
        sti_name_t *e = &set->slots[i];
        if (e->len == UINT32_MAX ||
            (e->hash == hash && e->serial == serial && e->len == len && memcmp(set->text + e->at, s, len) == 0)) {
            return e;
        }
    }
}

sti_name_t *sti_names_find(const sti_names_t *set, uint32_t serial, const char *s, size_t len) {
    if (set->count == 0) {
        return NULL;
    }
    sti_name_t *e = names_slot(set, serial, s, len, names_hash(s, len, serial));
    return e->len == UINT32_MAX ? NULL : e;
}

bool sti_names_add(strata_world_t *w, sti_names_t *set, uint32_t serial, const char *s, size_t len, sti_name_t **out,
                   bool *added) {
    if (len >= UINT32_MAX / 2 || set->text_used + len >= UINT32_MAX) {
        return false;
    }
    if ((set->count + 1) * 2 > set->capacity) {
        size_t capacity = set->capacity == 0 ? 16 : set->capacity * 2;
        sti_name_t *slots = sti_mem_alloc(w, capacity * sizeof *slots);
        if (slots == NULL) {
            return false;
        }
        for (size_t i = 0; i < capacity; i++) {
            slots[i].len = UINT32_MAX;
        }
        sti_names_t grown = *set;
        grown.slots = slots;
        grown.capacity = capacity;
        for (size_t i = 0; i < set->capacity; i++) {
            if (set->slots[i].len != UINT32_MAX) {
                *names_slot(&grown, set->slots[i].serial, set->text + set->slots[i].at, set->slots[i].len,
                            set->slots[i].hash) = set->slots[i];
            }
        }
        sti_mem_free(w, set->slots, set->capacity * sizeof *set->slots);
        *set = grown;
    }
    uint32_t hash = names_hash(s, len, serial);
    sti_name_t *e = names_slot(set, serial, s, len, hash);
    *added = e->len == UINT32_MAX;
    if (*added) {
        if (sti_mem_grow(w, &set->text, 1, &set->text_capacity, set->text_used + len + 1, 256) != STRATA_OK) {
            return false;
        }
        memcpy(set->text + set->text_used, s, len);
        set->text[set->text_used + len] = '\0';
        *e = (sti_name_t){serial, hash, (uint32_t)set->text_used, (uint32_t)len, -1, NULL};
        set->text_used += len + 1;
        set->count++;
    }
    if (out != NULL) {
        *out = e;
    }
    return true;
}

void sti_names_clear(sti_names_t *set) {
    if (set->count > 0) {
        for (size_t i = 0; i < set->capacity; i++) {
            set->slots[i].len = UINT32_MAX;
        }
    }
    set->count = 0;
    set->text_used = 0;
}

void sti_names_free(strata_world_t *w, sti_names_t *set) {
    sti_mem_free(w, set->slots, set->capacity * sizeof *set->slots);
    sti_mem_free(w, set->text, set->text_capacity);
}

/* writer.h: the buffered writer both save formats write through (private):
 * into memory (bytes past the capacity are only counted, so a caller can
 * ask for the size it needs) or into a FILE through a staging buffer. */
#ifndef STRATA_SAVE_WRITER_H
#define STRATA_SAVE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct sti_writer_t {
    FILE *file;         /* NULL: into mem */
    unsigned char *mem; /* holds the first `cap` bytes produced */
    size_t cap;
    unsigned char *stage; /* file staging, stage_cap bytes (the caller's) */
    size_t stage_cap;
    size_t staged;
    uint64_t pos; /* bytes produced */
    bool failed;  /* a write to the file failed */
} sti_writer_t;

/* sti_writer_put when the bytes do not simply fit: flush, write through, or cut at cap. */
void sti_writer_put_slow(sti_writer_t *o, const void *data, size_t n);

/* Append n bytes (staged for a file; cut at cap in memory, still counted).
 * Inline: JSON writes many pieces of a few bytes. */
static inline void sti_writer_put(sti_writer_t *o, const void *data, size_t n) {
    if (n > 0 && (o->file != NULL ? n <= o->stage_cap - o->staged : o->pos + n <= o->cap)) {
        memcpy(o->file != NULL ? o->stage + o->staged : o->mem + o->pos, data, n);
        o->staged += o->file != NULL ? n : 0;
        o->pos += n;
        return;
    }
    sti_writer_put_slow(o, data, n);
}

/* Append a NUL-terminated string's bytes. */
void sti_writer_text(sti_writer_t *o, const char *s);

/* Write the staged bytes to the file (sets failed if fwrite fails). */
void sti_writer_flush(sti_writer_t *o);

#endif /* STRATA_SAVE_WRITER_H */

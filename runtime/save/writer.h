/* writer.h: the buffered writer both save formats write through (private):
 * into memory (bytes past the capacity are only counted, so a caller can
 * ask for the size it needs) or into a FILE through a staging buffer. */
#ifndef STRATA_SAVE_WRITER_H
#define STRATA_SAVE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct sti_writer_t {
    FILE *file;           /* NULL: into mem */
    unsigned char *mem;   /* holds the first `cap` bytes produced */
    size_t cap;
    unsigned char *stage; /* file staging, stage_cap bytes (the caller's) */
    size_t stage_cap;
    size_t staged;
    uint64_t pos;         /* bytes produced */
    bool failed;          /* a write to the file failed */
} sti_writer_t;

/* Append n bytes (staged for a file; cut at cap in memory, still counted). */
void sti_writer_put(sti_writer_t *o, const void *data, size_t n);

/* Append a NUL-terminated string's bytes. */
void sti_writer_text(sti_writer_t *o, const char *s);

/* Write the staged bytes to the file (sets failed if fwrite fails). */
void sti_writer_flush(sti_writer_t *o);

#endif /* STRATA_SAVE_WRITER_H */

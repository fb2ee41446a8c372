/* file.h: saves on disk (private): write through a temporary and a rename,
 * read a whole file, load one with a loader from memory. */
#ifndef STRATA_SAVE_FILE_H
#define STRATA_SAVE_FILE_H

#include "strata_internal.h"

#include <stdio.h>

/* Open "path.tmp" for writing; the name goes to tmp (of tmp_cap bytes). */
FILE *sti_file_begin(const char *path, char *tmp, size_t tmp_cap);

/* Flush and fsync f, close it, rename tmp over path. On failure (ok false
 * or any step) removes tmp and returns STRATA_ERR_IO. */
strata_result_t sti_file_commit(FILE *f, const char *tmp, const char *path, bool ok);

/* Read a whole file into memory from the world's allocator (size in *size;
 * free with sti_file_free). */
strata_result_t sti_file_read(const strata_world_t *w, const char *path, unsigned char **data, size_t *size);
void sti_file_free(const strata_world_t *w, unsigned char *data, size_t size);

/* A loader from memory: binary or JSON. */
typedef strata_result_t (*sti_load_mem_fn)(strata_world_t *w, const void *data, size_t size,
                                           strata_load_report_t *report);
/* Read the file at path and load it with `load`; a read failure is reported
 * as "<path>: <why>" and leaves the world as it was. */
strata_result_t sti_load_file(strata_world_t *w, const char *path, strata_load_report_t *report, sti_load_mem_fn load);

#endif /* STRATA_SAVE_FILE_H */

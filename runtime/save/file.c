/* file.c: saves on disk: written to a temporary file, flushed, fsynced and
 * renamed over the old save (a crash mid-save keeps the previous one), and
 * read whole for a load. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* POSIX, declared again because in the one-unit build (strata_unity.h) a
 * test's own headers may have fixed the feature macros before ours. */
int fileno(FILE *stream);
int fsync(int fd);

FILE *sti_file_begin(const char *path, char *tmp, size_t tmp_cap) {
    int n = snprintf(tmp, tmp_cap, "%s.tmp", path);
    if (n < 0 || (size_t)n >= tmp_cap) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    return fopen(tmp, "wb");
}

strata_result_t sti_file_commit(FILE *f, const char *tmp, const char *path, bool ok) {
    ok = ok && fflush(f) == 0 && !ferror(f) && fsync(fileno(f)) == 0;
    int saved = errno;
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) == 0) {
        return STRATA_OK;
    }
    saved = errno != 0 ? errno : saved;
    remove(tmp);
    errno = saved;
    return STRATA_ERR_IO;
}

strata_result_t sti_file_read(const strata_world_t *w, const char *path, unsigned char **data, size_t *size) {
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return STRATA_ERR_IO;
    }
    strata_result_t r = STRATA_ERR_IO;
    long end = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (end = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        size_t n = (size_t)end;
        unsigned char *p = w->allocator.alloc(n > 0 ? n : 1, w->allocator.user);
        if (p == NULL) {
            r = STRATA_ERR_NOMEM;
        } else if (fread(p, 1, n, f) != n) {
            w->allocator.free(p, n > 0 ? n : 1, w->allocator.user);
        } else {
            *data = p;
            *size = n;
            r = STRATA_OK;
        }
    }
    fclose(f);
    return r;
}

void sti_file_free(const strata_world_t *w, unsigned char *data, size_t size) {
    if (data != NULL) {
        w->allocator.free(data, size > 0 ? size : 1, w->allocator.user);
    }
}

strata_result_t sti_load_file(strata_world_t *w, const char *path, strata_load_report_t *report, sti_load_mem_fn load) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(path != NULL);
    unsigned char *data = NULL;
    size_t size = 0;
    strata_result_t r = sti_file_read(w, path, &data, &size);
    if (r != STRATA_OK) {
        if (report != NULL) {
            memset(report, 0, sizeof *report);
            snprintf(report->error, sizeof report->error, "%s: %s", path,
                     r == STRATA_ERR_NOMEM ? "out of memory" : strerror(errno));
        }
        return r;
    }
    r = load(w, data, size, report);
    sti_file_free(w, data, size);
    return r;
}

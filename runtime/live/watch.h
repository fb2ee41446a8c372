/* watch.h: what a live session's watching thread does (private): watch
 * files with inotify, wait for a moment of quiet, run the build, copy and
 * load the module it built, and hand the outcome to the game's thread. */
#ifndef STRATA_LIVE_WATCH_H
#define STRATA_LIVE_WATCH_H

#include "strata_live.h"

#include <stdarg.h>
#include <stdatomic.h>

/* Lines of text that grow as they are written (malloc'd). Out of memory
 * drops what does not fit: this is what is said, never what is done. */
typedef struct sti_text_t {
    char *p; /* NUL-terminated, or NULL when empty */
    size_t n, cap;
} sti_text_t;

/* Append printf-style text. */
void sti_text_add(sti_text_t *t, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Append n bytes. */
void sti_text_put(sti_text_t *t, const char *s, size_t n);

/* Free the text (it is then empty). */
void sti_text_free(sti_text_t *t);

/* Seconds on the monotonic clock. */
double sti_live_now(void);

/* A module loaded from its own copy, and its entry. */
typedef struct sti_live_module_t {
    void *handle;                       /* dlopen's, NULL when none */
    const strata_live_module_t *module; /* its entry */
} sti_live_module_t;

/* Unload m (nothing when it holds none); it then holds none. */
void sti_live_unload(sti_live_module_t *m);

/* What the watcher hands the game's thread: one attempt, built and loaded or not. */
typedef struct sti_live_result_t {
    bool loaded; /* the build succeeded and the module loaded: `module` holds it */
    sti_live_module_t module;
    sti_text_t text;     /* what to say: the build's output when it failed, why a load failed */
    double first_change; /* when the first change of the attempt was seen (sti_live_now) */
    double build_ms, load_ms;
    uint32_t changes; /* file changes seen before the build started */
} sti_live_result_t;

/* How to build and check a module. */
typedef struct sti_watch_desc_t {
    const char *module;
    const char *build;        /* NULL: none */
    const char *const *watch; /* NULL-terminated */
    double quiet;
    uint32_t game_version, game_size;
} sti_watch_desc_t;

/* Run the build (if any), then copy the module and load the copy, on the
 * calling thread; *out says how it went (its text and module are the
 * caller's). While the build runs *child (when not NULL) holds its process
 * group, so that another thread can stop it; a build that starts after
 * *stopping is set stops at once. */
void sti_live_build_load(const sti_watch_desc_t *d, sti_live_result_t *out, _Atomic int *child,
                         const atomic_bool *stopping);

/* The watching thread (opaque). */
typedef struct sti_watch_t sti_watch_t;

/* Watch d->watch and start the thread. STRATA_ERR_IO when inotify or a
 * watch cannot be set up (why in `error`), STRATA_ERR_NOMEM. */
strata_result_t sti_watch_start(const sti_watch_desc_t *d, sti_watch_t **out, sti_text_t *error);

/* True when an outcome waits (one atomic load). */
bool sti_watch_ready(sti_watch_t *w);

/* Take the waiting outcome into *out; false when there is none. */
bool sti_watch_take(sti_watch_t *w, sti_live_result_t *out);

/* Wait until an outcome waits, or `seconds` pass; true if one does. */
bool sti_watch_wait(sti_watch_t *w, double seconds);

/* Start a build as a change would. */
void sti_watch_request(sti_watch_t *w);

/* Stop the thread (and a build under way), unload an outcome nobody took, free w. */
void sti_watch_stop(sti_watch_t *w);

#endif /* STRATA_LIVE_WATCH_H */

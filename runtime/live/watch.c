/* watch.c: a live session's watching thread (watch.h). It sleeps in
 * poll(2) on an inotify descriptor and a pipe of requests. A change starts
 * a moment of quiet (editors write a file as a burst: a temporary file, a
 * rename, a touch); when it has passed, the thread runs the build with its
 * output captured, copies the module it made to a file of its own (so the
 * next build never writes over a loaded library) and loads the copy. A
 * change seen during the build makes that build stale: it is dropped and
 * the next one waits for quiet again. The outcome waits in a one-slot
 * mailbox until the game's thread takes it; `ready` is what a poll reads. */
#define _GNU_SOURCE
#include "watch.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* What the watch reacts to: a file written and closed, renamed into place,
 * deleted or renamed away; a watched folder gone. */
#define WATCH_EVENTS (IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF)

/* --- Text ------------------------------------------------------------------ */

void sti_text_put(sti_text_t *t, const char *s, size_t n) {
    if (t->n + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->n + n + 1) {
            cap *= 2;
        }
        char *p = realloc(t->p, cap);
        if (p == NULL) {
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n] = '\0';
}

void sti_text_add(sti_text_t *t, const char *fmt, ...) {
    char line[1024];
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    sti_text_put(t, line, n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void sti_text_free(sti_text_t *t) {
    free(t->p);
    memset(t, 0, sizeof *t);
}

double sti_live_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --- Building and loading ---------------------------------------------------- */

/* Run `command` with sh, its output and errors into `out`; returns its
 * exit status (-1 when it could not start). *child holds its process
 * group while it runs (0 otherwise). */
static int watch_run(const char *command, sti_text_t *out, _Atomic int *child, const atomic_bool *stopping) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        sti_text_add(out, "live: cannot run the build: %s\n", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    posix_spawnattr_init(&attr);
    /* Its own process group, so a stop reaches the compilers it starts; the
     * signals the game ignores or blocks are the defaults again there. */
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char *argv[] = {"sh", "-c", (char *)command, NULL};
    pid_t pid = 0;
    int spawned = posix_spawn(&pid, "/bin/sh", &actions, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close(fds[1]);
    if (spawned != 0) {
        close(fds[0]);
        sti_text_add(out, "live: cannot run the build: %s\n", strerror(spawned));
        return -1;
    }
    if (child != NULL) {
        atomic_store(child, (int)pid);
        if (stopping != NULL && atomic_load(stopping)) {
            kill(-pid, SIGTERM); /* a stop that came before the child's group was known */
        }
    }
    char buf[4096];
    for (;;) {
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n > 0) {
            sti_text_put(out, buf, (size_t)n);
        } else if (n == 0 || errno != EINTR) {
            break;
        }
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (child != NULL) {
        atomic_store(child, 0);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* Copy the file at `from` to a new file beside it, named in `to` (size
 * bytes); false with why in `out`. */
static bool watch_copy(const char *from, char *to, size_t size, sti_text_t *out) {
    static _Atomic unsigned copies;
    const char *slash = strrchr(from, '/');
    int dir = slash != NULL ? (int)(slash - from + 1) : 0;
    snprintf(to, size, "%.*s.%s.live-%ld-%u", dir, from, slash != NULL ? slash + 1 : from, (long)getpid(),
             atomic_fetch_add(&copies, 1));
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0) {
        sti_text_add(out, "%s: cannot read the module: %s\n", from, strerror(errno));
        return false;
    }
    int copy = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
    bool ok = copy >= 0;
    char buf[65536];
    ssize_t n = 0;
    while (ok && (n = read(in, buf, sizeof buf)) != 0) {
        ok = n > 0 ? write(copy, buf, (size_t)n) == n : errno == EINTR;
    }
    if (!ok) {
        sti_text_add(out, "%s: cannot copy the module to %s: %s\n", from, to, strerror(errno));
    }
    close(in);
    if (copy >= 0 && close(copy) != 0 && ok) {
        sti_text_add(out, "%s: cannot copy the module to %s: %s\n", from, to, strerror(errno));
        ok = false;
    }
    if (!ok && copy >= 0) {
        unlink(to);
    }
    return ok;
}

/* dlerror's text with the copy's path spelled as the module's. */
static void watch_dlerror(sti_text_t *out, const char *module, const char *copy) {
    const char *e = dlerror();
    e = e != NULL ? e : "unknown error";
    const char *at = strstr(e, copy);
    sti_text_add(out, "%s: cannot load the module: ", module);
    if (at != NULL) {
        sti_text_put(out, e, (size_t)(at - e));
        sti_text_add(out, "%s%s\n", module, at + strlen(copy));
    } else {
        sti_text_add(out, "%s\n", e);
    }
}

/* Why module m (from `path`) cannot run in this host, in out; true if it can. */
static bool watch_check(const sti_watch_desc_t *d, const char *path, const strata_live_module_t *m, sti_text_t *out) {
    if (m == NULL) {
        sti_text_add(out, "%s: no %s in the module: link the world's <world>_live.c (strata-gen --live) into it\n",
                     path, STRATA_LIVE_ENTRY);
        return false;
    }
    if (m->abi != STRATA_LIVE_ABI || m->size < sizeof *m) {
        sti_text_add(out, "%s: built with strata_live.h ABI %u; this host has ABI %u: rebuild the %s\n", path, m->abi,
                     STRATA_LIVE_ABI, m->abi > STRATA_LIVE_ABI ? "host" : "module");
        return false;
    }
    if (m->runtime_version != STRATA_VERSION) {
        sti_text_add(out,
                     "%s: compiled against strata.h %u.%u.%u; the host's runtime is %s: rebuild the module "
                     "with the Strata the host links\n",
                     path, m->runtime_version / 10000, m->runtime_version / 100 % 100, m->runtime_version % 100,
                     STRATA_VERSION_STRING);
        return false;
    }
    if (d->game_version == 0) {
        return true;
    }
    if (m->game == NULL) {
        sti_text_add(out, "%s: the module has no game table (%s_live_game); this host expects version %u of it\n", path,
                     m->world, d->game_version);
        return false;
    }
    if (m->game->version != d->game_version || m->game->size < d->game_size) {
        sti_text_add(out,
                     "%s: the module's game table is version %u (%u bytes); this host was built for version %u "
                     "(%u bytes): restart the host\n",
                     path, m->game->version, m->game->size, d->game_version, d->game_size);
        return false;
    }
    return true;
}

void sti_live_build_load(const sti_watch_desc_t *d, sti_live_result_t *out, _Atomic int *child,
                         const atomic_bool *stopping) {
    double t0 = sti_live_now();
    out->loaded = false;
    if (d->build != NULL) {
        sti_text_t output = {0};
        int status = watch_run(d->build, &output, child, stopping);
        out->build_ms = (sti_live_now() - t0) * 1e3;
        if (status != 0) {
            if (output.n > 0) {
                sti_text_put(&out->text, output.p, output.n);
                if (output.p[output.n - 1] != '\n') {
                    sti_text_put(&out->text, "\n", 1);
                }
            }
            if (status > 0) {
                sti_text_add(&out->text, "live: the build failed (exit status %d): %s\n", status, d->build);
            }
            sti_text_free(&output);
            return;
        }
        sti_text_free(&output);
    }
    double t1 = sti_live_now();
    char copy[4096];
    if (!watch_copy(d->module, copy, sizeof copy, &out->text)) {
        return;
    }
    void *handle = dlopen(copy, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        watch_dlerror(&out->text, d->module, copy);
    }
    unlink(copy); /* the mapping stays; nothing is left behind */
    if (handle == NULL) {
        return;
    }
    const strata_live_module_t *m = dlsym(handle, STRATA_LIVE_ENTRY);
    if (!watch_check(d, d->module, m, &out->text)) {
        dlclose(handle);
        return;
    }
    out->module = (sti_live_module_t){handle, m};
    out->loaded = true;
    out->load_ms = (sti_live_now() - t1) * 1e3;
}

void sti_live_unload(sti_live_module_t *m) {
    if (m->handle != NULL) {
        dlclose(m->handle);
    }
    m->handle = NULL;
    m->module = NULL;
}

/* --- The watching thread ------------------------------------------------------ */

/* One inotify watch: a folder, and the one name in it that counts (NULL: any). */
typedef struct watch_entry_t {
    int wd;
    char *dir;
    char *name;
} watch_entry_t;

struct sti_watch_t {
    sti_watch_desc_t desc;
    int inotify;
    int wake[2]; /* requests to the thread: 'b' build now, 's' stop */
    watch_entry_t *entries;
    size_t entry_count;
    pthread_t thread;
    _Atomic int child; /* the build's process group while it runs */
    atomic_bool stopping;
    /* The mailbox: one outcome, under the lock. */
    pthread_mutex_t lock;
    pthread_cond_t changed; /* an outcome posted, taken, or the thread stopping */
    bool full;
    sti_live_result_t slot;
    atomic_bool ready; /* == full: what a poll reads */
};

/* Names in a watched folder that are not sources: editors' swap, backup and
 * lock files, vim's write test ("4913"), hidden files. */
static bool watch_ignored(const char *name) {
    size_t n = strlen(name);
    static const char *const tails[] = {"~", ".swp", ".swx", ".tmp"};
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        size_t k = strlen(tails[i]);
        if (n >= k && strcmp(name + n - k, tails[i]) == 0) {
            return true;
        }
    }
    return name[0] == '.' || name[0] == '#' || strcmp(name, "4913") == 0;
}

/* Watch `path`: a folder as it is, a file through its folder and name. */
static bool watch_add(sti_watch_t *w, const char *path, sti_text_t *error) {
    struct stat st;
    bool folder = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    char dir[4096];
    const char *name = NULL;
    if (folder) {
        snprintf(dir, sizeof dir, "%s", path);
    } else {
        const char *slash = strrchr(path, '/');
        snprintf(dir, sizeof dir, "%.*s", slash != NULL ? (int)(slash - path) : 1, slash != NULL ? path : ".");
        if (slash == path) {
            snprintf(dir, sizeof dir, "/");
        }
        name = slash != NULL ? slash + 1 : path;
    }
    int wd = inotify_add_watch(w->inotify, dir, WATCH_EVENTS);
    if (wd < 0) {
        sti_text_add(error, "%s: cannot watch: %s\n", dir, strerror(errno));
        return false;
    }
    watch_entry_t *grown = realloc(w->entries, sizeof *grown * (w->entry_count + 1));
    char *dir_copy = strdup(dir), *name_copy = name != NULL ? strdup(name) : NULL;
    if (grown == NULL || dir_copy == NULL || (name != NULL && name_copy == NULL)) {
        w->entries = grown != NULL ? grown : w->entries;
        free(dir_copy);
        free(name_copy);
        sti_text_add(error, "live: out of memory\n");
        return false;
    }
    w->entries = grown;
    w->entries[w->entry_count++] = (watch_entry_t){wd, dir_copy, name_copy};
    return true;
}

/* Read what inotify has; the number of events that count (a watched file
 * or folder changed). A watched folder that went is said in `notes`. */
static uint32_t watch_drain(sti_watch_t *w, sti_text_t *notes) {
    uint32_t counted = 0;
    _Alignas(struct inotify_event) char buf[16384];
    for (;;) {
        ssize_t n = read(w->inotify, buf, sizeof buf);
        if (n <= 0) {
            return counted;
        }
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)(void *)p;
            p += sizeof *e + e->len;
            if (e->mask & IN_Q_OVERFLOW) {
                counted++;
                continue;
            }
            for (size_t i = 0; i < w->entry_count; i++) {
                watch_entry_t *x = &w->entries[i];
                if (x->wd != e->wd) {
                    continue;
                }
                if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
                    sti_text_add(notes, "live: %s was deleted or moved: it is no longer watched\n", x->dir);
                    counted++;
                } else if (e->len > 0 && (x->name != NULL ? strcmp(x->name, e->name) == 0 : !watch_ignored(e->name))) {
                    counted++;
                }
            }
        }
    }
}

/* Why a watched file is missing, in out: true if every one is there. A
 * build would fail without it; the old module runs on until it is back. */
static bool watch_files_present(const sti_watch_t *w, sti_text_t *out) {
    bool present = true;
    for (size_t i = 0; i < w->entry_count; i++) {
        const watch_entry_t *x = &w->entries[i];
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", x->dir, x->name != NULL ? x->name : "");
        if (x->name != NULL && access(path, F_OK) != 0) {
            sti_text_add(out, "live: %s was deleted: no build until it is back\n", path);
            present = false;
        }
    }
    return present;
}

/* Post an outcome and wait for nothing: the slot is free (the caller waited). */
static void watch_post(sti_watch_t *w, sti_live_result_t *r) {
    pthread_mutex_lock(&w->lock);
    w->slot = *r;
    w->full = true;
    atomic_store_explicit(&w->ready, true, memory_order_release);
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
    memset(r, 0, sizeof *r);
}

/* Wait until the game's thread has taken the last outcome; false when stopping. */
static bool watch_slot_free(sti_watch_t *w) {
    pthread_mutex_lock(&w->lock);
    while (w->full && !atomic_load(&w->stopping)) {
        pthread_cond_wait(&w->changed, &w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return !atomic_load(&w->stopping);
}

static void *watch_main(void *arg) {
    sti_watch_t *w = arg;
    bool pending = false;
    double first = 0.0, last = 0.0;
    uint32_t changes = 0;
    sti_text_t notes = {0};
    while (!atomic_load(&w->stopping)) {
        int timeout = -1;
        if (pending) {
            double left = w->desc.quiet - (sti_live_now() - last);
            timeout = left > 0.0 ? (int)(left * 1e3) + 1 : 0;
        }
        struct pollfd fds[2] = {{w->inotify, POLLIN, 0}, {w->wake[0], POLLIN, 0}};
        if (poll(fds, 2, timeout) < 0 && errno != EINTR) {
            break;
        }
        double now = sti_live_now();
        if (fds[1].revents & POLLIN) {
            char c;
            while (read(w->wake[0], &c, 1) == 1) {
                if (c == 'b') {
                    first = pending ? first : now;
                    pending = true;
                    last = now - w->desc.quiet;
                    changes++;
                }
            }
        }
        uint32_t seen = watch_drain(w, &notes);
        if (seen > 0) {
            first = pending ? first : now;
            pending = true;
            last = now;
            changes += seen;
        }
        if (!pending || sti_live_now() - last < w->desc.quiet || !watch_slot_free(w)) {
            continue;
        }
        sti_live_result_t r = {0};
        r.first_change = first;
        r.changes = changes;
        sti_text_put(&r.text, notes.p != NULL ? notes.p : "", notes.n);
        sti_text_free(&notes);
        if (watch_files_present(w, &r.text)) {
            sti_live_build_load(&w->desc, &r, &w->child, &w->stopping);
        }
        seen = watch_drain(w, &r.text);
        if (seen > 0 && !atomic_load(&w->stopping)) {
            /* Changed while it built: this build is stale; the next waits for quiet. */
            sti_live_unload(&r.module);
            sti_text_free(&r.text);
            last = sti_live_now();
            changes += seen;
            continue;
        }
        if (atomic_load(&w->stopping)) {
            sti_live_unload(&r.module);
            sti_text_free(&r.text);
            break;
        }
        pending = false;
        changes = 0;
        watch_post(w, &r);
    }
    sti_text_free(&notes);
    return NULL;
}

/* Free what w holds but its thread (stopped, or never started). */
static void watch_free(sti_watch_t *w) {
    pthread_cond_destroy(&w->changed);
    pthread_mutex_destroy(&w->lock);
    for (size_t i = 0; i < w->entry_count; i++) {
        free(w->entries[i].dir);
        free(w->entries[i].name);
    }
    free(w->entries);
    for (int i = 0; i < 2; i++) {
        if (w->wake[i] >= 0) {
            close(w->wake[i]);
        }
    }
    if (w->inotify >= 0) {
        close(w->inotify);
    }
    free(w);
}

strata_result_t sti_watch_start(const sti_watch_desc_t *d, sti_watch_t **out, sti_text_t *error) {
    *out = NULL;
    sti_watch_t *w = calloc(1, sizeof *w);
    if (w == NULL) {
        return STRATA_ERR_NOMEM;
    }
    w->desc = *d;
    w->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    w->wake[0] = w->wake[1] = -1;
    bool ok = w->inotify >= 0 && pipe2(w->wake, O_NONBLOCK | O_CLOEXEC) == 0;
    if (!ok) {
        sti_text_add(error, "live: cannot watch files: %s\n", strerror(errno));
    }
    const char *const module_only[] = {d->module, NULL};
    const char *const *paths = d->watch != NULL ? d->watch : module_only;
    for (size_t i = 0; ok && paths[i] != NULL; i++) {
        ok = watch_add(w, paths[i], error);
    }
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->changed, NULL);
    if (ok && pthread_create(&w->thread, NULL, watch_main, w) != 0) {
        sti_text_add(error, "live: cannot start the watching thread\n");
        ok = false;
    }
    if (!ok) {
        watch_free(w);
        return STRATA_ERR_IO;
    }
    *out = w;
    return STRATA_OK;
}

bool sti_watch_ready(sti_watch_t *w) {
    return atomic_load_explicit(&w->ready, memory_order_acquire);
}

bool sti_watch_take(sti_watch_t *w, sti_live_result_t *out) {
    pthread_mutex_lock(&w->lock);
    bool full = w->full;
    if (full) {
        *out = w->slot;
        memset(&w->slot, 0, sizeof w->slot);
        w->full = false;
        atomic_store_explicit(&w->ready, false, memory_order_release);
        pthread_cond_broadcast(&w->changed);
    }
    pthread_mutex_unlock(&w->lock);
    return full;
}

bool sti_watch_wait(sti_watch_t *w, double seconds) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    double s = (double)until.tv_sec + (double)until.tv_nsec * 1e-9 + seconds;
    until.tv_sec = (time_t)s;
    until.tv_nsec = (long)((s - (double)until.tv_sec) * 1e9);
    pthread_mutex_lock(&w->lock);
    int r = 0;
    while (!w->full && r == 0) {
        r = pthread_cond_timedwait(&w->changed, &w->lock, &until);
    }
    bool full = w->full;
    pthread_mutex_unlock(&w->lock);
    return full;
}

void sti_watch_request(sti_watch_t *w) {
    char c = 'b';
    (void)!write(w->wake[1], &c, 1);
}

void sti_watch_stop(sti_watch_t *w) {
    if (w == NULL) {
        return;
    }
    atomic_store(&w->stopping, true);
    char c = 's';
    (void)!write(w->wake[1], &c, 1);
    pthread_mutex_lock(&w->lock);
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
    int child = atomic_load(&w->child);
    if (child > 0) {
        kill(-child, SIGTERM); /* the build's whole process group */
    }
    pthread_join(w->thread, NULL);
    if (w->full) {
        sti_live_unload(&w->slot.module);
        sti_text_free(&w->slot.text);
    }
    watch_free(w);
}

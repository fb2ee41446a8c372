/* live_build.c: a live module's Ninja file (live_build.h). */
#define _POSIX_C_SOURCE 200809L
#include "live_build.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Make each folder of path that is missing (mkdir -p). */
static bool make_dirs(const char *path) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
                return false;
            }
            *p = c;
            if (c == '\0') {
                return true;
            }
        }
    }
}

/* The object of source s: its path under dir/obj/, with .o for .c. */
static void object_of(const char *dir, const char *s, char *out, size_t size) {
    snprintf(out, size, "%s/obj/%.*s.o", dir, (int)strlen(s) - 2, s);
}

bool live_build_write(const live_build *b, char *command, size_t size) {
    char path[1100];
    if (!make_dirs(b->dir)) {
        return false;
    }
    snprintf(path, sizeof path, "%s/build.ninja", b->dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return false;
    }
    const char *d = b->dir, *w = b->world;
    /* A module is compiled as the project is (warnings are errors), but for
     * one warning: a field added to a component leaves every positional
     * initializer of it short, and a live edit should not fail for that.
     * It is optimised at -O1, not -O2: a third less compiler time on every
     * edit, for code a tenth slower (docs/live.md). The generator keeps its
     * compiled Python in the build's folder, even where the environment
     * says to write none (PYTHONDONTWRITEBYTECODE): a schema edit would
     * otherwise compile the generator's modules again, each time. */
    fprintf(f,
            "# The live module of %s, written by its host (examples/common/live_build.c).\n"
            "ninja_required_version = 1.10\n"
            "builddir = %s\n"
            "cflags = -std=c11 -O1 -fPIC -fvisibility=hidden -Wall -Wextra -Wpedantic -Werror "
            "-Wno-missing-field-initializers -I%s/gen -Iruntime/include %s\n\n"
            "rule gen\n"
            "  command = PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$builddir/pycache python3 -m codegen $in -o "
            "%s/gen --live --depfile $out.d\n"
            "  depfile = $out.d\n  deps = gcc\n  restat = 1\n  description = GEN $in\n"
            "rule cc\n"
            "  command = cc $cflags -MMD -MF $out.d -c $in -o $out\n"
            "  depfile = $out.d\n  deps = gcc\n  description = CC $in\n"
            "rule so\n"
            "  command = cc -shared -o $out.tmp $in -lm && mv $out.tmp $out\n  description = LINK $out\n\n"
            "build %s/gen/%s.h | %s/gen/%s.c %s/gen/%s_live.c %s/gen/%s_schedule.txt %s/gen/%s_schedule.dot: "
            "gen %s\n",
            w, d, d, b->includes, d, d, w, d, w, d, w, d, w, d, w, b->schema);
    char objects[8192] = "";
    char generated[2][1100];
    snprintf(generated[0], sizeof generated[0], "%s/gen/%s.c", d, w);
    snprintf(generated[1], sizeof generated[1], "%s/gen/%s_live.c", d, w);
    for (size_t i = 0; b->sources[i] != NULL; i++) {
        const char *s = b->sources[i];
        char o[1200];
        object_of(d, s, o, sizeof o);
        fprintf(f, "build %s: cc %s || %s/gen/%s.h\n", o, s, d, w);
        size_t n = strlen(objects);
        snprintf(objects + n, sizeof objects - n, " %s", o);
    }
    for (int i = 0; i < 2; i++) {
        char o[1200];
        snprintf(o, sizeof o, "%s/obj/gen/%s%s.o", d, w, i == 0 ? "" : "_live");
        fprintf(f, "build %s: cc %s || %s/gen/%s.h\n", o, generated[i], d, w);
        size_t n = strlen(objects);
        snprintf(objects + n, sizeof objects - n, " %s", o);
    }
    fprintf(f, "build %s: so%s\ndefault %s\n", b->module, objects, b->module);
    if (fclose(f) != 0) {
        return false;
    }
    snprintf(command, size, "ninja --quiet -f %s/build.ninja", d);
    return true;
}

strata_live_t *live_build_open(const live_build *b, strata_live_desc_t *desc) {
    char command[1200];
    if (!live_build_write(b, command, sizeof command)) {
        char line[1200];
        snprintf(line, sizeof line, "%s: cannot write the module's build file: %s", b->dir, strerror(errno));
        if (desc->log != NULL) {
            desc->log(line, desc->user);
        } else {
            fprintf(stderr, "%s\n", line);
        }
        return NULL;
    }
    desc->module = b->module;
    desc->build = command;
    strata_live_t *live = NULL;
    return strata_live_open(desc, &live) == STRATA_OK ? live : NULL;
}

/* check.h: how each step of the tutorial checks itself. CHECK(condition)
 * prints the condition and its line when it is false; main returns
 * check_failed(), so the program exits 1 when any check failed. */
#ifndef TUTORIAL_CHECK_H
#define TUTORIAL_CHECK_H

#include <stdbool.h>
#include <stdio.h>

static int check_failures;

static inline void check_at(bool ok, const char *what, const char *file, int line) {
    if (!ok) {
        fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
        check_failures++;
    }
}

#define CHECK(condition) check_at((condition), #condition, __FILE__, __LINE__)

/* 1 when any check failed, else 0: main's exit status. */
static inline int check_failed(void) {
    return check_failures != 0;
}

/* Two floats equal to within a thousandth (a position after many steps). */
static inline bool near(float a, float b) {
    return a - b < 0.001f && b - a < 0.001f;
}

#endif

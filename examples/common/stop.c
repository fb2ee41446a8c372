#define _POSIX_C_SOURCE 200809L
#include "stop.h"

#include <signal.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

static volatile sig_atomic_t stop_asked;

static void stop_ask(int signal) {
    (void)signal;
    stop_asked = 1;
}

void example_stop_on_signals(void) {
    struct sigaction action = {.sa_handler = stop_ask};
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGHUP, &action, NULL);
#ifdef __linux__
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* the parent's death is a SIGTERM */
    stop_asked = getppid() != parent; /* it died before the request */
#endif
}

bool example_stop_asked(void) {
    return stop_asked != 0;
}

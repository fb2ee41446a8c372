/* Stopping an example that serves the inspector: on a signal, or when the
 * process that started it dies. */
#ifndef EXAMPLE_STOP_H
#define EXAMPLE_STOP_H

#include <stdbool.h>

/* From now on SIGTERM, SIGINT and SIGHUP (and on Linux the parent's death)
 * ask the program to stop; a parent already gone asks it at once. */
void example_stop_on_signals(void);

/* Whether a stop was asked: the program's loop ends, it stops the
 * inspector and exits 0. */
bool example_stop_asked(void);

#endif

/* visit.h: a visitor standing in for the browser, so that step 7 checks
 * itself: on its own thread it asks the inspector for pages, while the
 * game's thread polls and steps. */
#ifndef TUTORIAL_VISIT_H
#define TUTORIAL_VISIT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct visit_t visit_t;

/* Start asking http://127.0.0.1:port for each path of `paths` (NULL-ended),
 * one after the other; NULL when no thread can be started. */
visit_t *visit_start(uint16_t port, const char *const *paths);

/* True once every answer has arrived (or failed). */
bool visit_done(const visit_t *v);

/* Answer i (status line, headers and body; "" if none came), once done. */
const char *visit_answer(const visit_t *v, int i);

/* Wait for the visitor's thread and free it (after visit_done). */
void visit_end(visit_t *v);

/* Sleep a 60th of a second: a frame of a game that is not checking itself. */
void visit_frame_wait(void);

#endif

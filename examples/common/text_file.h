/* text_file.h: reading a file whole and saving one as an editor does,
 * for the live hosts that edit their sources as a programmer would (the
 * live demo, the live bench, the live reload test). */
#ifndef TEXT_FILE_H
#define TEXT_FILE_H

#include <stdbool.h>

/* The file's bytes and a NUL (malloc'd), or NULL when it cannot be read. */
char *text_file_read(const char *path);

/* Save text at path as an editor does: into path.tmp, then renamed over
 * path (one event for a watcher). False when it cannot. */
bool text_file_save(const char *path, const char *text);

#endif

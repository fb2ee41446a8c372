/* writer.c: the buffered writer of both save formats (writer.h). */
#include "writer.h"

#include <string.h>

void sti_writer_flush(sti_writer_t *o) {
    if (o->file != NULL && o->staged > 0) {
        if (fwrite(o->stage, 1, o->staged, o->file) != o->staged) {
            o->failed = true;
        }
        o->staged = 0;
    }
}

void sti_writer_put_slow(sti_writer_t *o, const void *data, size_t n) {
    if (o->file != NULL) {
        if (n > o->stage_cap - o->staged) {
            sti_writer_flush(o);
            if (n >= o->stage_cap) {
                /* Larger than the stage: straight to the file. */
                o->failed |= fwrite(data, 1, n, o->file) != n;
                o->pos += n;
                return;
            }
        }
        memcpy(o->stage + o->staged, data, n);
        o->staged += n;
    } else if (o->pos < o->cap) {
        size_t room = o->cap - (size_t)o->pos;
        memcpy(o->mem + o->pos, data, n < room ? n : room);
    }
    o->pos += n;
}

void sti_writer_text(sti_writer_t *o, const char *s) {
    sti_writer_put(o, s, strlen(s));
}

/* text_file.c: whole files read and saved (text_file.h). */
#include "text_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *text_file_read(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    char *text = n >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)n + 1) : NULL;
    if (text != NULL && fread(text, 1, (size_t)n, f) == (size_t)n) {
        text[n] = '\0';
    } else {
        free(text);
        text = NULL;
    }
    fclose(f);
    return text;
}

bool text_file_save(const char *path, const char *text) {
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (f == NULL) {
        return false;
    }
    bool ok = fwrite(text, 1, strlen(text), f) == strlen(text);
    ok = fclose(f) == 0 && ok;
    return ok && rename(tmp, path) == 0;
}

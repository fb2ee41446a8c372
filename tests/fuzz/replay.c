/* replay.c: a fuzz target's inputs run once each, without libFuzzer. Linked
 * with diff.c built as a target (-DFUZZ_LIBFUZZER=N) and the runtime of a
 * sanitizer build, it is how `ninja test` replays the checked-in corpora:
 * the same entry point and the same checks as `ninja fuzz`, with no
 * coverage instrumentation to compile. Each input is handed over in a
 * buffer of exactly its size, as libFuzzer does, so a read past its end is
 * caught by AddressSanitizer. A failing check aborts with the input's name
 * printed first.
 * Usage: replay FILE... */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The bytes of the regular file at path in a buffer of their size (NULL if unreadable). */
static uint8_t *replay_read(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    uint8_t *data = NULL;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        *size = (size_t)st.st_size;
        data = malloc(*size > 0 ? *size : 1);
        if (data != NULL && fread(data, 1, *size, f) != *size) {
            free(data);
            data = NULL;
        }
    }
    fclose(f);
    return data;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        size_t size = 0;
        uint8_t *data = replay_read(argv[i], &size);
        if (data == NULL) {
            fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[i]);
            return 1;
        }
        fprintf(stderr, "replay: %s (%zu bytes)\n", argv[i], size);
        LLVMFuzzerTestOneInput(data, size);
        free(data);
    }
    printf("replay: %d inputs, every check passed\n", argc - 1);
    return 0;
}

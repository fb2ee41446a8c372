/* number.c: JSON numbers' text read exactly (number.h). */
#include "number.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sti_int_t sti_number_integer(const char *s, size_t len, bool digits_only, bool *negative, uint64_t *magnitude) {
    size_t i = !digits_only && len > 0 && s[0] == '-';
    *negative = i == 1;
    *magnitude = 0;
    if (i >= len) {
        return STI_INT_NOT;
    }
    bool big = false;
    uint64_t m = 0;
    for (; i < len; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d > 9) {
            return STI_INT_NOT;
        }
        big = big || m > (UINT64_MAX - d) / 10;
        m = m * 10 + d;
    }
    *magnitude = m;
    return big ? STI_INT_BIG : STI_INT;
}

int sti_number_unsigned(const char *s, size_t len, bool string, uint64_t *out) {
    bool negative = false;
    sti_int_t k = sti_number_integer(s, len, string, &negative, out);
    if (k == STI_INT && (!negative || *out == 0)) {
        *out = negative ? 0 : *out;
        return 1;
    }
    *out = 0;
    return k == STI_INT_NOT || string ? 0 : -1;
}

double sti_number_double_slow(const char *s, size_t len, char point) {
    char buffer[128];
    char *copy = len < sizeof buffer ? buffer : malloc(len + 1);
    if (copy == NULL) {
        return NAN;
    }
    memcpy(copy, s, len);
    copy[len] = '\0';
    for (size_t k = 0; point != '.' && k < len; k++) {
        copy[k] = copy[k] == '.' ? point : copy[k];
    }
    double d = strtod(copy, NULL);
    if (copy != buffer) {
        free(copy);
    }
    return d;
}

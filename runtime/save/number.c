/* number.c: JSON numbers' text read exactly (number.h). */
#include "number.h"

#include <float.h>
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

/* Short decimals (at most 15 significant digits, a power of ten within
 * 10^22) are exact quotients or products of two doubles, so one correctly
 * rounded operation gives the nearest double; the rest go through strtod,
 * with the locale's decimal point put in. */
double sti_number_double(const char *s, size_t len, char point) {
    static const double tens[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    size_t i = 0;
    bool negative = len > 0 && s[0] == '-';
    i += negative;
    uint64_t m = 0;
    int digits = 0, scale = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        m = m * 10 + (uint64_t)(s[i] - '0');
        digits += m != 0;
    }
    if (i < len && s[i] == '.') {
        for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
            m = m * 10 + (uint64_t)(s[i] - '0');
            digits += m != 0;
            scale--;
        }
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool minus = i < len && s[i] == '-';
        i += i < len && (s[i] == '-' || s[i] == '+');
        int e = 0;
        for (; i < len && s[i] >= '0' && s[i] <= '9' && e < 100000; i++) {
            e = e * 10 + (s[i] - '0');
        }
        scale += minus ? -e : e;
    }
#if FLT_EVAL_METHOD == 0
    if (i == len && digits <= 15 && scale >= -22 && scale <= 22) {
        double d = (double)m;
        d = scale < 0 ? d / tens[-scale] : d * tens[scale];
        return negative ? -d : d;
    }
#else
    (void)tens;
#endif
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

/* number.h: JSON numbers' text read exactly (private): integers as a sign
 * and a 64-bit magnitude, so every integer type's range is checked without
 * rounding, and decimals as the nearest double. Used by the value codec
 * (value.h) and by the JSON loader for ids and counts. */
#ifndef STRATA_SAVE_NUMBER_H
#define STRATA_SAVE_NUMBER_H

#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What an integer's text is. */
typedef enum sti_int_t {
    STI_INT,     /* an integer whose magnitude fits 64 bits */
    STI_INT_BIG, /* an integer past 2^64 - 1 */
    STI_INT_NOT, /* not an integer (a fraction, an exponent, a sign where none may be, no digits) */
} sti_int_t;

/* The integer s[0..len) (a JSON number without fraction or exponent, or
 * with `digits_only` a string of digits, no sign): its sign and magnitude. */
sti_int_t sti_number_integer(const char *s, size_t len, bool digits_only, bool *negative, uint64_t *magnitude);

/* An unsigned integer: a JSON integer >= 0 (`string` false; "-0" is 0) or
 * a string of digits (`string` true: how values past INT64_MAX are
 * written). 1: *out is it; 0: not one; -1: a negative or too large one. */
int sti_number_unsigned(const char *s, size_t len, bool string, uint64_t *out);

/* strtod of s[0..len) with the locale's decimal point put in: the long way. */
double sti_number_double_slow(const char *s, size_t len, char point);

/* A JSON number's text s[0..len) as the nearest double (±HUGE_VAL past
 * DBL_MAX, a signed zero or denormal below DBL_MIN). `point` is the
 * locale's decimal point (localeconv), which the caller reads once.
 * Short decimals (at most 15 significant digits, a power of ten within
 * 10^22) are exact quotients or products of two doubles, so one correctly
 * rounded operation gives the nearest double, here (inline: a load reads
 * every float through it); the rest go through strtod. */
static inline double sti_number_double(const char *s, size_t len, char point) {
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
    return sti_number_double_slow(s, len, point);
}

#endif /* STRATA_SAVE_NUMBER_H */

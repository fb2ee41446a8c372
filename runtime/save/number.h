/* number.h: JSON numbers' text read exactly (private): integers as a sign
 * and a 64-bit magnitude, so every integer type's range is checked without
 * rounding, and decimals as the nearest double. Used by the value codec
 * (value.h) and by the JSON loader for ids and counts. */
#ifndef STRATA_SAVE_NUMBER_H
#define STRATA_SAVE_NUMBER_H

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

/* A JSON number's text s[0..len) as the nearest double (±HUGE_VAL past
 * DBL_MAX, a signed zero or denormal below DBL_MIN). `point` is the
 * locale's decimal point (localeconv), which the caller reads once. */
double sti_number_double(const char *s, size_t len, char point);

#endif /* STRATA_SAVE_NUMBER_H */

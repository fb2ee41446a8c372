/* value.h: the one codec of field values as JSON (private), a case a
 * kind: what the JSON loader reads, what the inspector's page may write,
 * and how the JSON writer and the inspector spell a value. One rule each:
 *
 * - bool: true or false.
 * - i8..i64: a JSON integer (no fraction, no exponent) within the type,
 *   checked on its exact 64-bit magnitude.
 * - u8..u64, entity: a JSON integer >= 0 within the type, or a string of
 *   digits (how a value past INT64_MAX is written, since JSON readers keep
 *   integers in an int64).
 * - f32, f64: a JSON number, read as the nearest double (an f32 then
 *   rounded to float); a number past the type's range is refused, not made
 *   infinite. NaN and the infinities, which JSON numbers cannot spell, are
 *   the strings "nan", "inf" and "-inf", read and written. -0.0 is written
 *   "-0.0" (not "-0", which is the integer 0).
 * - enum: its member's name, as a string.
 * - char[N]: a string of at most N bytes, no \u0000: the field holds its
 *   bytes and zeros after them, and N bytes fill it with no NUL (as C lets
 *   a game fill a char[N]); U+F780..U+F7FF stand for the single bytes
 *   0x80..0xff that were not UTF-8 when written (so any bytes survive).
 */
#ifndef STRATA_SAVE_VALUE_H
#define STRATA_SAVE_VALUE_H

#include "strata_internal.h"

/* A JSON scalar as a reader hands it over. */
typedef enum sti_token_t {
    STI_TOKEN_NULL,
    STI_TOKEN_BOOL,   /* len: 1 for true, 0 for false */
    STI_TOKEN_NUMBER, /* s[0..len): the number's text as JSON spells it */
    STI_TOKEN_STRING, /* s[0..len): the string's bytes, unescaped (UTF-8) */
} sti_token_t;

/* Bytes of a refusal's reason. */
#define STI_VALUE_WHY 96

/* Decode one element of field f (any kind but STRUCT) from a token into p.
 * `point` is the locale's decimal point (localeconv), read once by the
 * caller. True; or false with p untouched and the reason in
 * why[0..STI_VALUE_WHY) ("expected an integer", "300 is out of range for
 * u8", ...). */
bool sti_value_decode(const strata_field_desc_t *f, sti_token_t t, const char *s, size_t len, char point,
                      unsigned char *p, char *why);

/* Where text goes: put(ctx, s, n). */
typedef void (*sti_value_put_t)(void *ctx, const char *s, size_t n);

/* Write one element of field f at p (any kind but STRUCT) as JSON. */
void sti_value_encode(const strata_field_desc_t *f, const unsigned char *p, sti_value_put_t put, void *ctx);

/* Write s[0..n) as a JSON string (the char[N] rule above). */
void sti_value_string(const char *s, size_t n, sti_value_put_t put, void *ctx);

#endif /* STRATA_SAVE_VALUE_H */

"""Numbers as the schema writes them and as C reads them back.

The validator reads every numeric token here, with a bound on its length
(so a 5000-digit token is an error, not a slow or failing conversion), and
rounds a float default exactly as a C compiler rounds the literal the
renderer writes: to the nearest f32 or f64, ties to even, denormals kept.
The renderer then writes the shortest decimal that rounds back to the same
value, so what the schema says and what the C holds are the same number.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Optional, Tuple

MAX_INTEGER_CHARS = 64  # u64's largest is 20 digits; 0x and 16 hex digits with a sign is 19
MAX_FLOAT_CHARS = 400  # DBL_MAX written out in full is 309 digits
_FLOAT_PARTS = re.compile(r"(?P<mantissa>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:[eE](?P<exp>[+-]?[0-9]+))?")
_BEYOND = 10000  # an exponent past this is zero or infinite for any type we have


class Format:
    """An IEEE 754 binary format: bits of significand (with the hidden one) and exponent range."""

    def __init__(self, name: str, digits: int, emin: int, emax: int, max_decimal_digits: int):
        self.name = name
        self.digits = digits
        self.emin = emin
        self.emax = emax
        self.max_decimal_digits = max_decimal_digits  # enough to round-trip every value
        self.largest = float((2 ** digits - 1) * Fraction(2) ** (emax - digits + 1))
        self.smallest = float(Fraction(2) ** (emin - digits + 1))  # the smallest denormal


F32 = Format("f32", 24, -126, 127, 9)
F64 = Format("f64", 53, -1022, 1023, 17)
FORMATS = {"f32": F32, "f64": F64}


def parse_float_text(text: str) -> Optional[Fraction]:
    """The exact value of a decimal token (`1.5`, `-2e-3`), or None if it is
    not one. A token past MAX_FLOAT_CHARS is None too (the caller says why)."""
    if len(text) > MAX_FLOAT_CHARS:
        return None
    match = _FLOAT_PARTS.fullmatch(text)
    if not match:
        return None
    mantissa = Fraction(match["mantissa"])
    exp = int(match["exp"] or 0)
    if mantissa == 0:
        return mantissa
    if exp > _BEYOND:
        return Fraction(10) ** _BEYOND * (1 if mantissa > 0 else -1)
    if exp < -_BEYOND:
        return Fraction(1, 10 ** _BEYOND) * (1 if mantissa > 0 else -1)
    return mantissa * Fraction(10) ** exp


def round_to(fmt: Format, value: Fraction) -> float:
    """`value` rounded to the nearest `fmt` value (ties to even), as C rounds
    a literal: math.inf (signed) past the largest, 0.0 below half the smallest."""
    if value == 0:
        return 0.0
    sign = -1.0 if value < 0 else 1.0
    x = abs(value)
    e = x.numerator.bit_length() - x.denominator.bit_length()  # 2**e <= x < 2**(e+2)
    if Fraction(2) ** e > x:
        e -= 1
    e = max(e, fmt.emin)  # below the normal range the step stays that of the denormals
    quantum = e - (fmt.digits - 1)
    steps = round(x / Fraction(2) ** quantum)  # Fraction rounds half to even
    result = steps * Fraction(2) ** quantum
    if result > Fraction(fmt.largest):
        return sign * math.inf
    return sign * float(result)


def float_value(type_name: str, text: str) -> Tuple[Optional[float], Optional[str], Optional[str]]:
    """(value, None, None) for a token that rounds to a finite value of the
    type (zero only when it is zero), else (None, why, hint)."""
    fmt = FORMATS[type_name]
    exact = parse_float_text(text)
    if exact is None:
        if len(text) > MAX_FLOAT_CHARS:
            return None, f"is longer than {MAX_FLOAT_CHARS} characters", None
        return None, "is not a number", None
    rounded = round_to(fmt, exact)
    if math.isinf(rounded):
        return None, f"is out of range for {type_name}", f"the largest is {shortest(fmt, fmt.largest)}"
    if rounded == 0 and exact != 0:
        return None, f"rounds to zero in {type_name}", f"the smallest is {shortest(fmt, fmt.smallest)}; write 0 for zero"
    if rounded == 0 and text.lstrip().startswith("-"):
        return -0.0, None, None
    return rounded, None, None


def shortest(fmt: Format, value: float) -> str:
    """The shortest decimal that rounds back to `value` (a `fmt` value) in `fmt`."""
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    for precision in range(1, fmt.max_decimal_digits + 1):
        text = f"{value:.{precision}g}"
        if round_to(fmt, Fraction(text)) == value:
            break
    plain = repr(float(text))  # the same digits as Python writes them: 150.0, not 1.5e+02
    if round_to(fmt, Fraction(plain)) == value:
        text = plain
    if "e" not in text and "." not in text:
        text += ".0"
    return text


def integer_value(text: str) -> Optional[int]:
    """A decimal or 0x-hexadecimal integer token of at most MAX_INTEGER_CHARS; else None."""
    if len(text) > MAX_INTEGER_CHARS:
        return None
    digits = text.lstrip("+-")
    value = int(digits, 16) if digits[:2].lower() == "0x" else int(digits, 10)
    return -value if text.startswith("-") else value

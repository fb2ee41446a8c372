"""Diagnostics: what the generator says about a schema, like a compiler does.

A Diagnostic prints as one line, `FILE:LINE:COL: error: MESSAGE`, with
` (HINT)` appended when there is a hint, e.g.

    schema/game.yaml:12:5: error: system 'Move': unknown component 'Positon' (did you mean 'Position'?)

FILE is the schema's path as given on the command line.

What a diagnostic echoes from the schema (a name, a string, a key) is made
printable once, here, when the diagnostic is made: a line break of any kind
(LF, CR, VT, FF, U+0085, U+2028, U+2029), any other control or format
character, NUL and a lone surrogate are written as escapes (`\\n`,
`\\x00`, `\\u2028`, `\\udc80`), so every diagnostic is one line of valid
text, whatever the schema holds. `Reporter` collects a file's diagnostics.
"""
from __future__ import annotations

import difflib
import unicodedata
from dataclasses import dataclass
from typing import Iterable, List, Optional

from .model import Loc

SEVERITIES = ("error", "warning")


@dataclass(frozen=True)
class Diagnostic:
    """One message about one place in the schema.

    `message` names the element it is about (`component 'Health': field
    'value': ...`); `hint` suggests a fix and is printed in parentheses.
    Only severity 'error' stops generation.
    """
    loc: Loc
    message: str
    hint: Optional[str] = None
    severity: str = "error"

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")
        # Frozen: the printable forms replace what was given, once.
        object.__setattr__(self, "message", printable(self.message))
        if self.hint is not None:
            object.__setattr__(self, "hint", printable(self.hint))
        if printable(self.loc.file) != self.loc.file:
            object.__setattr__(self, "loc", Loc(printable(self.loc.file), self.loc.line, self.loc.col))

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def __str__(self) -> str:
        text = f"{self.loc}: {self.severity}: {self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text


# Unicode categories written as escapes: controls, lone surrogates, line and
# paragraph separators, format characters (zero-width, bidirectional overrides).
_UNPRINTABLE = ("Cc", "Cs", "Zl", "Zp", "Cf")


def printable(text: str) -> str:
    """`text` with every character of _UNPRINTABLE written as a Python-style
    escape (`\\n`, `\\x00`, `\\u2028`, `\\U000e0001`): one line, encodable."""
    if text.isprintable():
        return text
    return "".join(_escape(c) if unicodedata.category(c) in _UNPRINTABLE else c for c in text)


def _escape(c: str) -> str:
    code = ord(c)
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(c)
    if named:
        return named
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


class Reporter:
    """The diagnostics of one file, in the order they were reported: every
    check of the file reports through one Reporter."""

    def __init__(self) -> None:
        self.diagnostics: List[Diagnostic] = []

    def error(self, loc: Loc, message: str, hint: Optional[str] = None) -> None:
        self.diagnostics.append(Diagnostic(loc, message, hint))

    def warn(self, loc: Loc, message: str, hint: Optional[str] = None) -> None:
        self.diagnostics.append(Diagnostic(loc, message, hint, severity="warning"))


def did_you_mean(word: str, candidates: Iterable[str]) -> Optional[str]:
    """The hint "did you mean 'X'?" for the closest of `candidates`, or None
    when nothing is close enough."""
    matches = difflib.get_close_matches(word, list(candidates), n=1)
    if not matches:
        return None
    return f"did you mean '{matches[0]}'?"


def sorted_by_position(diagnostics: Iterable[Diagnostic]) -> List[Diagnostic]:
    """The diagnostics in file order (line, then column); ties keep the order
    they were reported in."""
    return sorted(diagnostics, key=lambda d: (d.loc.line, d.loc.col))


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    """True if any of the diagnostics is an error (not just a warning)."""
    return any(d.is_error for d in diagnostics)

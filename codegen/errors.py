"""Diagnostics: what the generator says about a schema, like a compiler does.

A Diagnostic prints as one line, `FILE:LINE:COL: error: MESSAGE`, with
` (HINT)` appended when there is a hint, e.g.

    schema/game.yaml:12:5: error: system 'Move': unknown component 'Positon' (did you mean 'Position'?)

FILE is the schema's path as given on the command line.
"""
from __future__ import annotations

import difflib
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

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def __str__(self) -> str:
        text = f"{self.loc}: {self.severity}: {self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text


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

"""Diagnostics as JSON, for editors and CI annotations
(`python3 -m codegen SCHEMA.yaml -o OUTDIR --diagnostics=json`).

The generator's text report stays the default; this is the same list, in
the same order, as one JSON array on stdout:

    [{"file": "schema/game.yaml", "line": 12, "column": 14, "end_line": 12, "end_column": 21,
      "severity": "error", "message": "system 'Move': unknown component 'Positon'",
      "hint": "did you mean 'Position'?"}]

Lines and columns count from 1, columns in characters; the end is the
first character after the span, which covers the token the diagnostic
points at (a key, a scalar, a quoted string, a flow list) on its line.
`hint` is null when there is none.
"""
from __future__ import annotations

import json
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from .errors import Diagnostic

# Characters that end a plain scalar inside a flow collection ([...] or {...}).
_FLOW_ENDS = ",]}"
_CLOSING = {"[": "]", "{": "}"}


def to_json(diagnostics: Iterable[Diagnostic], read: Callable[[str], Optional[bytes]]) -> str:
    """The diagnostics as a JSON array; `read(path)` gives a file's bytes
    (None if it cannot be read: the span is then one character)."""
    lines: Dict[str, List[str]] = {}
    items = []
    for d in diagnostics:
        if d.loc.file not in lines:
            source = read(d.loc.file)
            lines[d.loc.file] = source.decode("utf-8", "replace").splitlines() if source is not None else []
        end_line, end_column = span_end(lines[d.loc.file], d.loc.line, d.loc.col)
        items.append({"file": d.loc.file, "line": d.loc.line, "column": d.loc.col, "end_line": end_line,
                      "end_column": end_column, "severity": d.severity, "message": d.message, "hint": d.hint})
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"


def span_end(lines: List[str], line: int, col: int) -> Tuple[int, int]:
    """Where the token starting at (line, col) ends, as (line, column just
    past it); a token that runs past its line ends at the line's end."""
    if not 1 <= line <= len(lines):
        return line, col + 1
    text = lines[line - 1]
    start = col - 1
    if start >= len(text):
        return line, col + 1
    first = text[start]
    if first in "\"'":
        end = _quoted_end(text, start)
    elif first in _CLOSING:
        end = _bracket_end(text, start)
    else:
        end = _plain_end(text, start, _in_flow(text, start))
    return line, max(end, start + 1) + 1


def _quoted_end(text: str, start: int) -> int:
    quote = text[start]
    i = start + 1
    while i < len(text):
        if quote == '"' and text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            if quote == "'" and text[i + 1:i + 2] == "'":  # '' is a quote inside '...'
                i += 2
                continue
            return i + 1
        i += 1
    return len(text.rstrip())


def _bracket_end(text: str, start: int) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] in _CLOSING:
            depth += 1
        elif text[i] in _CLOSING.values():
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text.rstrip())


def _plain_end(text: str, start: int, in_flow: bool) -> int:
    i = start
    while i < len(text):
        c = text[i]
        if c == ":" and (i + 1 == len(text) or text[i + 1] in " \t" or (in_flow and text[i + 1] in _FLOW_ENDS)):
            break
        if c == "#" and i > start and text[i - 1] in " \t":
            break
        if in_flow and c in _FLOW_ENDS:
            break
        i += 1
    return start + len(text[start:i].rstrip())


def _in_flow(text: str, start: int) -> bool:
    """True if `start` is inside a [...] or {...} opened earlier on its line."""
    depth = 0
    quote = ""
    for c in text[:start]:
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in _CLOSING:
            depth += 1
        elif c in _CLOSING.values():
            depth -= 1
    return depth > 0

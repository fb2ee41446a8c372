"""Generated C laid out as clang-format lays it out in the repository's style.

The generator emits formatted text without running clang-format (a game's
build need not have it): the templates write each construct in its final
shape where that does not depend on the names, and the passes below lay out
what does (a line's length, the width of a run of trailing comments). Each
follows what clang-format 14 does with `.clang-format`, and the generator's
tests compare the two over every schema of the repository.
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

COLUMN_LIMIT = 120  # .clang-format's ColumnLimit
PP_LIMIT = COLUMN_LIMIT - 2  # a line of a directive continued with ` \`
INDENT = 4  # .clang-format's IndentWidth (also ContinuationIndentWidth)


def c_wrap(text: str) -> str:
    """C code with its long calls and function heads laid out as
    clang-format lays them out in the repository's style: a line as it is
    when it fits in COLUMN_LIMIT columns, otherwise wrapped (_wrap_line).
    Comments, preprocessor lines and lines of data (ending with a comma)
    are left as they are."""
    return "\n".join(line if line.lstrip().startswith(("/*", "*", "#", "//")) or line.endswith(",")
                     else _wrap_line(line) for line in text.split("\n"))


_HEAD = re.compile(r"((?:[A-Za-z_]\w*[ *]+)+?)(\w+\(.*)")  # a function's head: return type, name(...
# What clang-format 14 charges for the line breaks of a function's head
# (its PenaltyReturnTypeOnItsOwnLine, its extra charge for the first break
# at a nesting level, and a break after a parameter's comma as fitted to
# its choices): the head takes the layout that costs less.
_RETURN_TYPE_BREAK = 60
_FIRST_BREAK = 15
_COMMA_BREAK = 35


def _wrap_line(line: str) -> str:
    """A long line wrapped: a function's head either aligned after its
    parenthesis or, when that costs clang-format more (or does not fit),
    broken after the return type; a call aligned after its parenthesis; a
    conditional that does not fit so broken before its `:`."""
    head = _HEAD.fullmatch(line) if not line.startswith((" ", "typedef ", "return ")) else None
    aligned = _wrap_args(line)
    fits = max(map(len, aligned.split("\n"))) <= COLUMN_LIMIT
    if head is None:
        return aligned if fits or " ? " not in line or " : " not in line else _wrap_conditional(line)
    after = head.group(1).rstrip() + "\n" + _wrap_args(head.group(2))
    cost_aligned = _FIRST_BREAK + aligned.count("\n") * _COMMA_BREAK
    breaks_inside = after.count("\n") - 1  # after the return type, the parameters' breaks
    cost_after = _RETURN_TYPE_BREAK + _FIRST_BREAK + (_FIRST_BREAK + breaks_inside * _COMMA_BREAK
                                                      if breaks_inside else 0)
    return after if not fits or cost_after < cost_aligned else aligned


def _wrap_conditional(line: str) -> str:
    """`x = c ? a : b;` broken before the `:`, aligned under the `?`."""
    question = line.index(" ? ")
    colon = line.index(" : ", question)
    return line[:colon] + "\n" + " " * (question + 1) + line[colon + 1:]


def _wrap_args(line: str) -> str:
    """A line broken after the last argument that fits, the next line
    aligned after the innermost open parenthesis, until the rest fits."""
    out: List[str] = []
    carried: List[int] = []  # the columns of the parentheses still open where the last line was cut
    while len(line) > COLUMN_LIMIT:
        opened, cut, align = list(carried), None, 0
        for i, ch in enumerate(line[:COLUMN_LIMIT]):
            if ch == "(":
                opened.append(i)
            elif ch == ")" and opened:
                opened.pop()
            elif ch == "," and opened and line[i + 1:i + 2] == " ":
                cut, align, carried = i + 1, opened[-1] + 1, list(opened)
        if cut is None:
            break
        out.append(line[:cut])
        line = " " * align + line[cut + 1:]
    return "\n".join(out + [line])


def c_header(text: str) -> str:
    """A generated header laid out: enums that fit joined on one line, long
    lines wrapped (c_wrap), long directives continued (after c_wrap, which
    must not break a directive's continued lines), trailing comments
    aligned."""
    lines = _short_enums(text.split("\n"))
    lines = _directives(c_wrap("\n".join(lines)).split("\n"))
    return "\n".join(align_comments(lines))


# --- directives ---------------------------------------------------------------

def _continued(lines: List[str]) -> List[str]:
    """The lines of one directive, each but the last ended by a backslash
    in the last column, as clang-format aligns them."""
    return [line.ljust(COLUMN_LIMIT - 1) + "\\" for line in lines[:-1]] + lines[-1:]


def _directives(lines: List[str]) -> List[str]:
    out: List[str] = []
    for line in lines:
        if len(line) <= COLUMN_LIMIT or not line.startswith("#"):
            out.append(line)
        elif line.startswith("#error "):
            out += _continued(["#error", " " * INDENT + line[len("#error "):]])
        elif line.startswith("#define "):
            out += _continued(_define(line))
        else:
            out.append(line)
    return out


_DEFINE = re.compile(r"#define (\w+(?:\([^)]*\))?) (.*)")


def _define(line: str) -> List[str]:
    """A long #define: its name alone, then its body one level in; a body
    still too long is broken between its tokens (a compound literal of
    designated fields: one field a line, aligned after the brace)."""
    match = _DEFINE.fullmatch(line)
    if match is None:
        return [line]
    head, body = f"#define {match.group(1)}", " " * INDENT + match.group(2)
    if len(body) <= COLUMN_LIMIT:
        return [head, body]
    if body.lstrip().startswith("(("):
        return [head] + _designated(body)
    return [head] + _tokens(body)


def _designated(body: str) -> List[str]:
    """`((T){.a = 1, .b = {...}})` one designated field a line, each after
    the first aligned under it."""
    brace = body.index("{")
    items = _split_top(body[brace + 1:-2])
    if items is None or not all(item.startswith(".") for item in items):
        return [body]
    pad = " " * (brace + 1)
    rows = [body[:brace + 1] + items[0]] + [pad + item for item in items[1:]]
    return [row + "," for row in rows[:-1]] + [rows[-1] + body[-2:]]


def _split_top(text: str) -> Optional[List[str]]:
    """text split at its commas outside braces, parentheses and strings."""
    items, depth, start, quote, i = [], 0, 0, None, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
        i += 1
    items.append(text[start:].strip())
    return items if depth == 0 and quote is None else None


def _tokens(body: str) -> List[str]:
    """A body of string literals and names (a message) filled line by line."""
    parts = re.findall(r'"(?:[^"\\]|\\.)*"|[^\s"]+', body)
    rows = [" " * INDENT + parts[0]]
    for part in parts[1:]:
        if len(rows[-1]) + 1 + len(part) <= PP_LIMIT:
            rows[-1] += " " + part
        else:
            rows.append(" " * INDENT + part)
    return rows


# --- enums --------------------------------------------------------------------

_ENUM_OPEN = re.compile(r"typedef enum (\w+) \{")


def _short_enums(lines: List[str]) -> List[str]:
    """`typedef enum T { A, B } T;` on one line when it fits and its last
    enumerator has no trailing comma (clang-format keeps an enum with one
    a line per enumerator)."""
    out: List[str] = []
    i = 0
    while i < len(lines):
        match = _ENUM_OPEN.fullmatch(lines[i])
        end = lines.index(f"}} {match.group(1)};", i) if match and f"}} {match.group(1)};" in lines[i:] else -1
        if end > i:
            members = [x.strip() for x in lines[i + 1:end]]
            joined = f"typedef enum {match.group(1)} {{ {' '.join(members)} }} {match.group(1)};"
            if (members and not members[-1].endswith(",") and len(joined) <= COLUMN_LIMIT
                    and not any("/*" in x for x in members)):
                out.append(joined)
                i = end + 1
                continue
        out.append(lines[i])
        i += 1
    return out


# --- trailing comments ----------------------------------------------------------

def _trailing(line: str) -> Optional[Tuple[str, str]]:
    """(code, comment) of a line of code ended by a one-line /* comment */."""
    if not line.endswith("*/") or line.lstrip().startswith(("/*", "*")):
        return None
    start = line.rfind("/*")
    if start <= 0 or "*/" in line[start + 2:-2]:
        return None
    code = line[:start].rstrip()
    return (code, line[start:]) if code.strip() else None


def align_comments(lines: List[str]) -> List[str]:
    """Trailing comments on consecutive lines aligned one space after the
    longest code, as clang-format's AlignTrailingComments: a run breaks at
    a line without one, and where aligning would push a comment past the
    column limit (that comment starts a new run)."""
    out = list(lines)
    run: List[Tuple[int, str, str]] = []
    low, high = 0, 0

    def flush() -> None:
        for at, code, comment in run:
            out[at] = code.ljust(low - 1) + " " + comment
        run.clear()

    for at, line in enumerate(lines):
        parts = _trailing(line)
        if parts is None:
            flush()
            continue
        code, comment = parts
        mine_low = len(code) + 1
        mine_high = COLUMN_LIMIT - len(comment) if len(comment) <= COLUMN_LIMIT else mine_low
        if run and (run[-1][0] != at - 1 or mine_low > high or mine_high < low):
            flush()
        if not run:
            low, high = mine_low, mine_high
        else:
            low, high = max(low, mine_low), min(high, mine_high)
        run.append((at, code, comment))
    flush()
    return out

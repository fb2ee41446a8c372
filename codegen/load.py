"""Read a schema file into a tree of nodes that remember where they came from.

PyYAML composes the file into its node graph (which keeps positions); this
module turns that graph into three small immutable node types, `Scalar`,
`Sequence` and `Mapping`, each with the 1-based line and column of where it
starts. Nothing here knows what a schema means: that is `validate`'s job.

A scalar keeps its text exactly as written (without quotes), whether it was
quoted, and the kind YAML 1.1 would give it ('null', 'bool', 'int', 'float' or
'str'). The validator reads names and defaults from the text, so a field
named `on` stays `on` and a default `1e3` is not a string by accident.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple, Union

import yaml

from .errors import Diagnostic
from .model import Loc

_TAG_PREFIX = "tag:yaml.org,2002:"
# The deepest a list or mapping may sit (the top-level mapping is level 1).
# PyYAML composes a document recursively; checking first keeps it far from
# Python's recursion limit, and no schema needs more than a few levels.
MAX_NESTING = 64
# Scalar kinds the validator understands; a timestamp is just text to us.
_SCALAR_KINDS = {"null": "null", "bool": "bool", "int": "int", "float": "float",
                 "str": "str", "timestamp": "str"}


@dataclass(frozen=True)
class Scalar:
    """A single value: `text` as written, `kind` as YAML resolves it."""
    text: str
    kind: str  # 'null' | 'bool' | 'int' | 'float' | 'str'
    quoted: bool
    loc: Loc

    @property
    def is_null(self) -> bool:
        return self.kind == "null"


@dataclass(frozen=True)
class Sequence:
    """A YAML list."""
    items: Tuple["Node", ...]
    loc: Loc


@dataclass(frozen=True)
class Mapping:
    """A YAML mapping whose keys are scalars, in file order, without duplicates."""
    items: Tuple[Tuple[Scalar, "Node"], ...]
    loc: Loc

    def get(self, key: str) -> Optional["Node"]:
        """The value under `key`, or None if the key is absent."""
        for k, value in self.items:
            if k.text == key:
                return value
        return None


Node = Union[Scalar, Sequence, Mapping]


def load(path: str, source: bytes) -> Tuple[Optional[Node], List[Diagnostic]]:
    """Parse `source` (the bytes of the file at `path`).

    Returns (root, diagnostics). Root is None when the file is not valid
    UTF-8 or not valid YAML (one diagnostic says where). Otherwise it is the
    document's node (an empty file gives a null Scalar at 1:1) and the
    diagnostics list duplicate keys and unsupported YAML features, whose
    offending entries are left out of the tree.
    """
    try:
        text = source.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        return None, [_decode_error(path, source, e)]
    try:
        too_deep = _too_deep(path, text)
        if too_deep is not None:
            return None, [too_deep]
        document = _compose(text)
    except yaml.MarkedYAMLError as e:
        return None, [_syntax_error(path, text, e)]
    except yaml.reader.ReaderError as e:
        return None, [_reader_error(path, text, e)]
    if document is None:
        return Scalar("", "null", False, Loc(path, 1, 1)), []
    converter = _Converter(path)
    return converter.node(document), converter.diagnostics


def _compose(text: str) -> Optional[yaml.Node]:
    """The document's node graph (None for an empty document). libyaml's
    parser, when PyYAML has it, is some twenty times faster than PyYAML's
    own; the two give the same nodes at the same places, except that
    libyaml puts an empty value in a flow mapping (`{b: }`) at the next
    token and PyYAML right after the colon, and that their messages for a
    syntax error differ. A document with either is composed again by
    PyYAML's parser, so what the generator says never depends on which
    parser the machine has."""
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        try:
            document = yaml.compose(text, Loader=fast)
        except yaml.YAMLError:
            pass  # PyYAML's parser below raises it again, with PyYAML's words
        else:
            if not _has_empty_flow_value(document):
                return document
    return yaml.compose(text, Loader=yaml.SafeLoader)


def _has_empty_flow_value(document: Optional[yaml.Node]) -> bool:
    """True if an empty scalar is a key or value of a flow mapping (`{b: }`)."""
    pending = [document] if document is not None else []
    seen: Set[int] = set()
    while pending:
        node = pending.pop()
        if id(node) in seen or isinstance(node, yaml.ScalarNode):
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
            continue
        for key, value in node.value:
            if node.flow_style and any(isinstance(x, yaml.ScalarNode) and x.value == "" and not x.style
                                       for x in (key, value)):
                return True
            pending += [key, value]
    return False


def _too_deep(path: str, text: str) -> Optional[Diagnostic]:
    """An error at the first list or mapping nested deeper than MAX_NESTING,
    found with an event parser (libyaml's when PyYAML has it, else PyYAML's:
    both keep their own stack, so any depth is safe to scan); None when the
    document is shallow enough. A syntax error is left to the composer, which
    reports it the same way with either."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_NESTING:
                    mark = event.start_mark
                    return Diagnostic(Loc(path, mark.line + 1, mark.column + 1),
                                      f"lists and mappings nest deeper than {MAX_NESTING} levels",
                                      "no schema needs more than a few")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        pass  # the composer stops at the same place, no deeper, and says why
    return None


class _Converter:
    """Turns PyYAML nodes into our nodes, reporting what it leaves out."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.diagnostics: List[Diagnostic] = []
        # An alias is the same PyYAML node twice: convert it once, share the result.
        self._done: Dict[int, Node] = {}
        self._in_progress: Set[int] = set()

    def node(self, yaml_node: yaml.Node) -> Node:
        key = id(yaml_node)
        if key in self._done:
            return self._done[key]
        loc = self.loc(yaml_node)
        if key in self._in_progress:
            self.error(loc, "recursive YAML alias")
            return Scalar("", "null", False, loc)
        self._in_progress.add(key)
        if isinstance(yaml_node, yaml.MappingNode):
            result: Node = self.mapping(yaml_node)
        elif isinstance(yaml_node, yaml.SequenceNode):
            result = Sequence(tuple(self.node(item) for item in yaml_node.value), loc)
        else:
            result = self.scalar(yaml_node)
        self._in_progress.discard(key)
        self._done[key] = result
        return result

    def scalar(self, yaml_node: yaml.ScalarNode) -> Scalar:
        loc = self.loc(yaml_node)
        kind = _scalar_kind(yaml_node.tag)
        if kind is None:
            self.error(loc, f"unsupported YAML tag '{yaml_node.tag}'")
            kind = "str"
        return Scalar(yaml_node.value, kind, bool(yaml_node.style), loc)  # plain: None (PyYAML), "" (libyaml)

    def mapping(self, yaml_node: yaml.MappingNode) -> Mapping:
        items: List[Tuple[Scalar, Node]] = []
        first_seen: Dict[str, Loc] = {}
        for key_node, value_node in yaml_node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                self.error(self.loc(key_node), "a mapping key must be a plain name, not a list or mapping")
                continue
            if key_node.tag == _TAG_PREFIX + "merge":
                self.error(self.loc(key_node), "YAML merge keys ('<<') are not supported",
                           "write the entries out")
                continue
            key = self.scalar(key_node)
            if key.text in first_seen:
                first = first_seen[key.text]
                self.error(key.loc, f"duplicate key '{key.text}'", f"first defined at {first.line}:{first.col}")
                continue
            first_seen[key.text] = key.loc
            items.append((key, self.node(value_node)))
        return Mapping(tuple(items), self.loc(yaml_node))

    def loc(self, yaml_node: yaml.Node) -> Loc:
        mark = yaml_node.start_mark
        return Loc(self.path, mark.line + 1, mark.column + 1)

    def error(self, loc: Loc, message: str, hint: Optional[str] = None) -> None:
        self.diagnostics.append(Diagnostic(loc, message, hint))


def _scalar_kind(tag: str) -> Optional[str]:
    """Our kind for a resolved YAML tag, or None for a tag we do not support."""
    if not tag.startswith(_TAG_PREFIX):
        return None
    return _SCALAR_KINDS.get(tag[len(_TAG_PREFIX):])


def _syntax_error(path: str, text: str, e: yaml.MarkedYAMLError) -> Diagnostic:
    """A YAML syntax error, placed where PyYAML saw the problem."""
    mark = e.problem_mark or e.context_mark
    loc = Loc(path, mark.line + 1, mark.column + 1) if mark else Loc(path, 1, 1)
    problem = e.problem or e.context or "syntax error"
    hint = None
    if e.problem and e.context and e.problem.startswith("but "):
        # PyYAML splits "expected X, but found Y" into context and problem.
        problem = f"{e.context}, {e.problem}"
    elif e.problem and e.context:
        hint = e.context
        if e.context_mark:
            hint += f" at {e.context_mark.line + 1}:{e.context_mark.column + 1}"
    if mark and "but got '['" in problem:
        hint = _bracketed_type_hint(text, mark.line, mark.column) or hint
    return Diagnostic(loc, f"invalid YAML: {problem}", hint)


_BRACKETED_TYPE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\[\]{},]*\])+")


def _bracketed_type_hint(text: str, line: int, column: int) -> Optional[str]:
    """The hint for `{ name: char[16] }`: inside a flow mapping or list
    YAML ends the plain `char` at '[' and reads a list; the type must be
    quoted. None when the '[' at (line, column) does not end a type name."""
    row = text.splitlines()[line] if line < len(text.splitlines()) else ""
    start = column
    while start > 0 and (row[start - 1].isalnum() or row[start - 1] == "_"):
        start -= 1
    match = _BRACKETED_TYPE.match(row, start)
    if start == column or not match:
        return None
    return f"inside {{ }} or [ ], YAML reads '[' as a list: quote a type with brackets, \"{match.group()}\""


def _reader_error(path: str, text: str, e: yaml.reader.ReaderError) -> Diagnostic:
    """A character YAML does not allow (a control character, say)."""
    before = text[:e.position]
    line = before.count("\n") + 1
    col = e.position - (before.rfind("\n") + 1) + 1
    return Diagnostic(Loc(path, line, col),
                      f"invalid YAML: unacceptable character #x{e.character:04x}: {e.reason}")


def _decode_error(path: str, source: bytes, e: UnicodeDecodeError) -> Diagnostic:
    """The file is not UTF-8; the column counts bytes."""
    before = source[:e.start]
    line = before.count(b"\n") + 1
    col = e.start - (before.rfind(b"\n") + 1) + 1
    return Diagnostic(Loc(path, line, col), "the schema is not valid UTF-8")

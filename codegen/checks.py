"""What every check of a schema shares: the names declared so far
(`Symbols`), the reporter, the generic shapes of a value (`Section`: keys,
lists, mappings, names, flags) and the helpers that word messages.

validate.py walks the sections in order; each concern is a Section of its
own module (check_types, check_elements, check_systems, check_renames,
check_assemblages), all reporting through the one `errors.Reporter` and
reading and filling the one `Symbols`.
"""
from __future__ import annotations

import heapq
import re
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Mapping as MappingType, Optional, Sequence as SequenceType, Set, Tuple

from . import numbers
from .errors import Reporter, did_you_mean
from .limits import MAX_NAME_LENGTH
from .load import Mapping, Node, Scalar, Sequence
from .model import SCALARS, EnumType, Field, Loc, Query

C_KEYWORDS = frozenset("""
    auto break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef
    union unsigned void volatile while _Alignas _Alignof _Atomic _Bool _Complex _Generic
    _Imaginary _Noreturn _Static_assert _Thread_local
""".split())
# Macros of <stdbool.h>, which every generated header includes.
STDBOOL_NAMES = frozenset(("bool", "true", "false"))
BUILTIN_TYPES = SCALARS + ("entity", "char")

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
INTEGER = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F]+|0|[1-9][0-9]*)")
FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

Entry = Tuple[Scalar, Node]  # a key of a mapping and its value


@dataclass
class Symbols:
    """What the sections checked so far declare, for the sections after them."""
    phases: Tuple[str, ...] = ()
    # name -> (what it is, where it is declared), for the two C namespaces
    data_names: Dict[str, Tuple[str, Loc]] = field(default_factory=dict)  # types, components, resources, ...
    run_names: Dict[str, Tuple[str, Loc]] = field(default_factory=dict)  # queries, systems
    struct_names: Set[str] = field(default_factory=set)
    enums: Dict[str, EnumType] = field(default_factory=dict)
    struct_fields: Dict[str, Tuple[Field, ...]] = field(default_factory=dict)  # structs built so far
    struct_layouts: Dict[str, Tuple[int, int]] = field(default_factory=dict)  # their C (size, alignment)
    component_names: List[str] = field(default_factory=list)  # relations' components included
    tag_names: Set[str] = field(default_factory=set)
    sparse_names: Set[str] = field(default_factory=set)  # components with `storage: sparse`
    on_set_components: List[Tuple[str, Loc]] = field(default_factory=list)  # (name, where `on_set: true` is)
    resource_names: List[str] = field(default_factory=list)
    event_names: List[str] = field(default_factory=list)
    exclusive_relations: Set[str] = field(default_factory=set)
    free_queries: Tuple[Query, ...] = ()
    resource_fields: Dict[str, Tuple[Field, ...]] = field(default_factory=dict)  # resources checked so far
    machines: Dict[str, Tuple[str, ...]] = field(default_factory=dict)  # state machine -> its states
    fixed_phases: Dict[str, int] = field(default_factory=dict)  # a phase with a rate -> its rate
    # element -> its fields whose type is wrong (reported, left out of the model)
    broken_fields: Dict[str, Set[str]] = field(default_factory=dict)

    def declared(self, name: str, loc: Loc) -> bool:
        """True if `name` is the data name declared at `loc` (not a bad or taken one)."""
        return self.data_names.get(name, ("", None))[1] == loc

    def kind_of(self, name: str) -> str:
        """What `name` is declared as ('component', 'relation', ...), or ''."""
        return self.data_names.get(name, self.run_names.get(name, ("", None)))[0]


class Section:
    """One concern's checks: the generic shapes every section reads, and
    the reporter and symbols they share."""

    def __init__(self, report: Reporter, symbols: Symbols) -> None:
        self.report = report
        self.symbols = symbols

    def error(self, loc: Loc, message: str, hint: Optional[str] = None) -> None:
        self.report.error(loc, message, hint)

    def warn(self, loc: Loc, message: str, hint: Optional[str] = None) -> None:
        self.report.warn(loc, message, hint)

    def known_keys(self, mapping: Mapping, allowed: SequenceType[str], owner: str) -> Dict[str, Entry]:
        """The entries of `mapping` whose keys are in `allowed`, in file order.

        Reports every other key, with a did-you-mean hint.
        """
        result: Dict[str, Entry] = {}
        for key, value in mapping.items:
            if key.text in allowed:
                result[key.text] = (key, value)
            else:
                self.error(key.loc, prefixed(owner, f"unknown key '{key.text}'"), did_you_mean(key.text, allowed))
        return result

    def entries(self, entry: Optional[Entry], what: str) -> Tuple[Entry, ...]:
        """The entries of a mapping value; an absent or empty (null) value has none."""
        node = entry[1] if entry else None
        if node is None or (isinstance(node, Scalar) and node.is_null):
            return ()
        if isinstance(node, Mapping):
            return node.items
        self.error(node.loc, f"{what} must be a mapping")
        return ()

    def items(self, node: Optional[Node], what: str) -> Tuple[Node, ...]:
        """The items of a list value; an absent or empty (null) value has none."""
        if node is None or (isinstance(node, Scalar) and node.is_null):
            return ()
        if isinstance(node, Sequence):
            return node.items
        hint = f"write [{node.text}]" if isinstance(node, Scalar) else None
        self.error(node.loc, f"{what} must be a list", hint)
        return ()

    def mapping_or_empty(self, node: Node, what: str, hint: Optional[str] = None) -> Mapping:
        """`node` as a mapping; null stands for an empty one. Reports anything else."""
        if isinstance(node, Mapping):
            return node
        if not (isinstance(node, Scalar) and node.is_null):
            self.error(node.loc, f"{what} must be a mapping", hint)
        return Mapping((), node.loc)

    def name(self, node: Node, what: str) -> Optional[str]:
        """The C identifier `node` spells, or None after reporting why it is
        not one. `what` says what the name is for ("component name")."""
        if not isinstance(node, Scalar) or node.text == "":
            self.error(node.loc, f"{what}: expected a name")
            return None
        text = node.text
        if not IDENTIFIER.fullmatch(text):
            self.error(node.loc, f"{what} '{text}' is not a C identifier",
                       "use letters, digits and '_', not starting with a digit")
            return None
        if text in C_KEYWORDS:
            self.error(node.loc, f"{what} '{text}' is a C keyword")
            return None
        if text in STDBOOL_NAMES:
            self.error(node.loc, f"{what} '{text}' is reserved by <stdbool.h>")
            return None
        if len(text) > MAX_NAME_LENGTH:
            self.error(node.loc, f"{what} '{text}' is too long", f"{len(text)} characters; at most {MAX_NAME_LENGTH}")
            return None
        return text

    def distinct_names(self, items: Iterable[Node], what: str, duplicate: str) -> List[str]:
        """The names `items` spell (`what` says what each is for, as in
        name()), each once: a repeat is reported at the repeat as
        "<duplicate> '<name>'"."""
        names: List[str] = []
        first: Dict[str, Loc] = {}
        for item in items:
            name = self.name(item, what)
            if name is None:
                continue
            if name in first:
                self.error(item.loc, f"{duplicate} '{name}'", f"first listed at {line_col(first[name])}")
                continue
            first[name] = item.loc
            names.append(name)
        return names

    def declare_all(self, table: Dict[str, Tuple[str, Loc]],
                    sections: List[Tuple[str, Tuple[Entry, ...]]]) -> None:
        """Check the names of the sections that share one C namespace and
        record them in `table`; a later duplicate (in file order) is reported."""
        keys = [(key, kind) for kind, entries in sections for key, _ in entries]
        keys.sort(key=lambda pair: (pair[0].loc.line, pair[0].loc.col))
        for key, kind in keys:
            name = self.name(key, f"{kind} name")
            if name is None:
                continue
            if kind == "type" and name in BUILTIN_TYPES:
                self.error(key.loc, f"type name '{name}' is a built-in type")
                continue
            if name in table:
                other_kind, other_loc = table[name]
                self.error(key.loc, f"{kind} '{name}': name already used by the {other_kind} "
                                    f"declared at {line_col(other_loc)}")
                continue
            table[name] = (kind, key.loc)

    def kind_hint(self, name: str) -> Optional[str]:
        """A hint like "'Score' is a resource" when `name` is declared as
        something other than what was asked for; else None."""
        kind = self.symbols.kind_of(name)
        return f"'{name}' is a {kind}" if kind else None

    def flag(self, entry: Entry, what: str) -> bool:
        """A `true` / `false` value (hooks are switched on with `on_add: true`)."""
        node = entry[1]
        if isinstance(node, Scalar) and not node.quoted and node.text in ("true", "false"):
            return node.text == "true"
        self.error(node.loc, f"{what}: expected true or false", f"e.g. '{entry[0].text}: true'")
        return False

    def one_of(self, entry: Entry, choices: SequenceType[str], owner: str, default: str) -> str:
        """The value of a key that takes one of `choices` (`on_target_destroy`,
        `sent_by`); reported, and taken as `default`, when it is not one."""
        key, node = entry
        if isinstance(node, Scalar) and not node.quoted and node.text in choices:
            return node.text
        text = node.text if isinstance(node, Scalar) else ""
        self.error(node.loc, prefixed(owner, f"'{key.text}' must be one of {', '.join(choices)}"),
                   did_you_mean(text, choices) if text else None)
        return default

    def flags(self, keys: MappingType[str, Entry], names: Iterable[str], owner: str) -> Dict[str, bool]:
        """The flags among `keys` named in `names`: {name: value} for those given."""
        return {name: self.flag(keys[name], prefixed(owner, f"'{name}'")) for name in names if name in keys}


def split_key(node: Node, name: str) -> Tuple[Optional[Entry], Node]:
    """The entry of a reserved key `name` in a body of fields
    (`renamed_from`, `sent_by`), and the body without it."""
    if not isinstance(node, Mapping):
        return None, node
    entry = next(((k, v) for k, v in node.items if k.text == name), None)
    if entry is None:
        return None, node
    return entry, Mapping(tuple((k, v) for k, v in node.items if k.text != name), node.loc)


# --- wording ----------------------------------------------------------------------


def prefixed(owner: str, message: str) -> str:
    """`message` prefixed with the element it is about, if any."""
    return f"{owner}: {message}" if owner else message


def line_col(loc: Loc) -> str:
    """LINE:COL, how a message points at another place in the same file."""
    return f"{loc.line}:{loc.col}"


def cut(text: str) -> str:
    """A long token cut short for a message."""
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


def shown(node: Node) -> str:
    """A scalar as a message quotes it: plain text in single quotes, a
    quoted string in double quotes (so `"5"` is visibly not the number 5)."""
    if not isinstance(node, Scalar):
        return "a list" if isinstance(node, Sequence) else "a mapping"
    text = cut(node.text)
    return f'"{text}"' if node.quoted else f"'{text}'"


# --- shapes of nodes --------------------------------------------------------------


def is_empty_list(node: Node) -> bool:
    """True for `[]` and for an empty (null) value."""
    if isinstance(node, Sequence):
        return not node.items
    return isinstance(node, Scalar) and node.is_null


def is_empty_body(node: Node) -> bool:
    """True for `{}` and for an empty (null) value: a body with no fields."""
    if isinstance(node, Mapping):
        return not node.items
    return isinstance(node, Scalar) and node.is_null


def node_of(entry: Optional[Entry]) -> Optional[Node]:
    return entry[1] if entry else None


def texts(items: Iterable[Node]) -> Tuple[str, ...]:
    return tuple(item.text for item in items if isinstance(item, Scalar))


def parse_integer(text: str) -> Optional[int]:
    """A decimal (no leading zeros) or 0x-hexadecimal integer, optionally
    signed; else None."""
    if not INTEGER.fullmatch(text):
        return None
    return numbers.integer_value(text)


# --- orders -------------------------------------------------------------------------


def stable_topological_order(names: List[str], deps: MappingType[str, Set[str]]) -> Tuple[List[str], List[str]]:
    """Order `names` (given in declaration order) so each follows its `deps`.

    Kahn's algorithm that always takes the earliest-declared ready name.
    Deps outside `names` are taken as satisfied. Returns (ordered, leftover):
    leftover are the names on or behind a cycle, in declaration order.
    """
    position = {name: i for i, name in enumerate(names)}
    waiting_for = {name: len(deps[name] & position.keys()) for name in names}
    dependents: Dict[str, List[str]] = {name: [] for name in names}
    for name in names:
        for dep in deps[name] & position.keys():
            dependents[dep].append(name)
    ready = [position[name] for name in names if waiting_for[name] == 0]
    heapq.heapify(ready)
    ordered: List[str] = []
    while ready:
        name = names[heapq.heappop(ready)]
        ordered.append(name)
        for dependent in dependents[name]:
            waiting_for[dependent] -= 1
            if waiting_for[dependent] == 0:
                heapq.heappush(ready, position[dependent])
    placed = set(ordered)
    return ordered, [name for name in names if name not in placed]


def cycles(leftover: List[str], deps: MappingType[str, Set[str]]) -> List[List[str]]:
    """The cycles among `leftover` (what stable_topological_order could not
    place), each once, as a path along `deps` starting at its earliest name.

    Every leftover name has a dep that is also left over, so walking from
    any of them along deps must come back to a name already on the path.
    """
    position = {name: i for i, name in enumerate(leftover)}
    covered: Set[str] = set()
    found = []
    for start in leftover:
        if start in covered:
            continue
        path: List[str] = []
        step: Dict[str, int] = {}
        name = start
        while name not in step:
            step[name] = len(path)
            path.append(name)
            name = min((dep for dep in deps[name] if dep in position), key=position.__getitem__)
        cycle = path[step[name]:]
        if covered.isdisjoint(cycle):
            first = cycle.index(min(cycle, key=position.__getitem__))
            found.append(cycle[first:] + cycle[:first])
        covered.update(cycle)
    return found


def cycle_path(cycle: List[str]) -> str:
    """`'A' -> 'B' -> 'A'`: a cycle as a message shows it."""
    return " -> ".join(f"'{n}'" for n in cycle + [cycle[0]])

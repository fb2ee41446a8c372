"""Check a loaded schema and build the immutable model.

`validate_file(path)` reads, loads and validates a schema file and returns
(schema, diagnostics): the `model.Schema` when the file has no error (the
diagnostics then hold only warnings), else None and every error found in the
file, in line order. The checker never stops at the first error: each
section is checked as far as it can be, and an element with an error is
left out or given a stand-in so the rest can still be checked.

The schema language is described in docs/schema.md; the rules enforced
here, in the order the checker applies them:

  top level   world, version (required), save_name, phases, types,
              components, resources, queries, systems, assemblages
  names       C identifiers, not C keywords, at most 63 characters; unique
              across types+components+resources and across queries+systems
  types       structs (which may nest, not cyclically) and enums
  fields      `name: TYPE`, `name: "TYPE = DEFAULT"` or
              `name: {type: TYPE, default: VALUE}`; every Field of the model
              carries a complete resolved default
  terms       read/write/with/without/optional, each component in one list
  schedule    phases in order, then before/after (stable Kahn), then
              declaration order
  events      a mapping of at least one field each; systems list them in
              emit / receive / receive_late; every event has an emitter and
              a receiver; a receiver runs after its emitters when nothing
              else decides (else a warning, unless `receive_late`)
  renames     `renamed_from` on a component, resource or field names its
              former name (for loading old saves): unique, not a current name
  storage     a component's `storage` is `table` or `sparse` (at most 64
              sparse); not on a relation; no `cascade` over a sparse term
  relations   `exclusive`, `data` (exclusive only; no field `target`),
              `on_target_destroy` (`clear` exclusive only); each becomes a
              component of its name after the declared ones; queries may not
              `write` one; `on_target_destroy` on a field: a component's
              `entity` field only
  assemblages components with per-field overrides (nested for structs),
              `extends` one parent (no cycles); parents come first
"""
from __future__ import annotations

import hashlib
import heapq
import math
import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Mapping as MappingType, Optional, Sequence as SequenceType, Set, Tuple

from . import load, numbers
from .errors import Diagnostic, did_you_mean, has_errors, sorted_by_position
from .load import Mapping, Node, Scalar, Sequence
from .model import (INTEGER_RANGES, SCALAR_SIZES, SCALARS, Assemblage, Component, EnumType, Event, Field, Loc, Query,
                    Relation, Resource, Schema, StructType, System, Terms, TypeRef, Value)
# The keys of every section, defined with their meaning (and shared with the JSON Schema) in spec.py.
from .spec import (EVENT_KEYS, EXTENDS, HOOK_KEYS, LONG_FIELD_KEYS, POLICIES, QUERY_KEYS, RELATION_KEYS,
                   RENAMED_FROM, REQUIRED_TERMS, RESOURCE_ACCESS_KEYS, STORAGE_KEY, STORAGES, SYSTEM_KEYS, TERM_KEYS,
                   TOP_LEVEL_KEYS)

# Limits of the runtime (runtime/include/strata.h) and of the generator.
MAX_COMPONENTS = 256  # STRATA_MAX_COMPONENTS
MAX_QUERIES = 1024  # STRATA_MAX_QUERIES: free queries plus systems
MAX_MONITORS = 64  # STRATA_MAX_MONITORS: systems with an aspect, on_add or on_remove
MAX_CHANGED = 15  # STRATA_MAX_CHANGED: queries and systems with `changed` terms
MAX_SPARSE = 64  # STRATA_MAX_SPARSE: components with `storage: sparse`
MAX_NAME_LENGTH = 63
MAX_ARRAY_LENGTH = 65535  # keeps defaults (one Python value per element) and structs sane
MAX_FIELDS = 256  # fields of one struct type, component, resource or aspect
MAX_VALUE_BYTES = 1 << 20  # C size of one struct type, component, resource or aspect (1 MiB)
MAX_RESOURCES = 256  # resources per world
MAX_VERSION = 2 ** 32 - 1  # strata_schema_t.version is a uint32_t
# How deep a value's braces may nest: a struct is one level, an array one
# more. The C of a default nests its braces as deep, and clang stops at 256
# brackets; the renderer walks values by recursion, kept far from Python's limit.
MAX_TYPE_DEPTH = 32

DEFAULT_PHASE = "update"
LINK_TARGET = "target"  # the field of an exclusive relation's component that holds the target

C_KEYWORDS = frozenset("""
    auto break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef
    union unsigned void volatile while _Alignas _Alignof _Atomic _Bool _Complex _Generic
    _Imaginary _Noreturn _Static_assert _Thread_local
""".split())
# Macros of <stdbool.h>, which every generated header includes.
STDBOOL_NAMES = frozenset(("bool", "true", "false"))
BUILTIN_TYPES = SCALARS + ("entity", "char")

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TYPE = re.compile(r"(?P<base>[A-Za-z_][A-Za-z0-9_]*)(?P<dims>(?:\s*\[[^\[\]]*\])*)")
_DIM = re.compile(r"\[([^\[\]]*)\]")
_DIGITS = re.compile(r"[0-9]+")
_INTEGER = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F]+|0|[1-9][0-9]*)")
_LEADING_ZERO = re.compile(r"[+-]?0[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

Entry = Tuple[Scalar, Node]  # a key of a mapping and its value


def validate_file(path: str) -> Tuple[Optional[Schema], List[Diagnostic]]:
    """Read, load and validate the schema file at `path` (as given on the
    command line; diagnostics name it so). Raises OSError if it cannot be read."""
    with open(path, "rb") as f:
        source = f.read()
    return validate_source(path, source)


def validate_source(path: str, source: bytes) -> Tuple[Optional[Schema], List[Diagnostic]]:
    """Load and validate `source`, the bytes of the schema file at `path`.

    Returns (schema, diagnostics) with the diagnostics in line order; schema
    is None if any of them is an error.
    """
    root, diagnostics = load.load(path, source)
    if root is None:
        return None, diagnostics
    schema, more = validate(root, path, hashlib.sha256(source).hexdigest())
    diagnostics = sorted_by_position(diagnostics + more)
    if has_errors(diagnostics):
        return None, diagnostics
    return schema, diagnostics


def validate(root: Node, path: str, source_hash: str) -> Tuple[Optional[Schema], List[Diagnostic]]:
    """Check the loaded document `root` and build the model from it.

    Returns (schema, diagnostics) with the diagnostics in line order; schema
    is None if any of them is an error.
    """
    checker = _Checker()
    schema = checker.schema(root, path, source_hash)
    diagnostics = sorted_by_position(checker.diagnostics)
    if has_errors(diagnostics):
        return None, diagnostics
    return schema, diagnostics


@dataclass(frozen=True)
class _FieldSpec:
    """A field as written, before its default is resolved."""
    name: str
    loc: Loc  # the field's key
    where: str  # how messages name it: "component 'A': field 'x'"
    type: Optional[TypeRef]  # None when the type is bad (already reported)
    default: Optional[Node]  # None when no default is given
    short: bool  # the default came from `TYPE = VALUE`
    renamed_from: Tuple[str, ...] = ()  # the long form's `renamed_from`, checked
    policy: str = "keep"  # the long form's `on_target_destroy`, checked


@dataclass(frozen=True)
class _SystemSpec:
    """A system as written, before it is placed in the schedule."""
    name: str
    loc: Loc
    phase: str
    terms: Terms
    before: Tuple[Node, ...]
    after: Tuple[Node, ...]
    resources_read: Tuple[str, ...]
    resources_write: Tuple[str, ...]
    aspect: Tuple[Field, ...]
    on_add: bool
    on_remove: bool
    parallel: bool
    main_thread: bool
    # event lists: (event name, where it is listed), by key of EVENT_KEYS
    events: MappingType[str, Tuple[Tuple[str, Loc], ...]]


class _Checker:
    """Walks the nodes once, collecting diagnostics and building the model.

    The methods follow the schema's sections; each reports what is wrong
    with its part and returns the best model it can so later checks go on.
    """

    def __init__(self) -> None:
        self.diagnostics: List[Diagnostic] = []
        self.phases: Tuple[str, ...] = (DEFAULT_PHASE,)
        # name -> (what it is, where it is declared), for the two C namespaces
        self.data_names: Dict[str, Tuple[str, Loc]] = {}  # types, components, resources
        self.run_names: Dict[str, Tuple[str, Loc]] = {}  # queries, systems
        self.struct_names: Set[str] = set()
        self.enums: Dict[str, EnumType] = {}
        self.struct_fields: Dict[str, Tuple[Field, ...]] = {}  # structs built so far
        self.struct_layouts: Dict[str, Tuple[int, int]] = {}  # their C (size, alignment)
        self.component_names: List[str] = []
        self.tag_names: Set[str] = set()
        self.sparse_names: Set[str] = set()  # components with `storage: sparse`
        self.on_set_components: List[Tuple[str, Loc]] = []  # (name, where `on_set: true` is)
        self.resource_names: List[str] = []
        self.event_names: List[str] = []
        self.exclusive_relations: Set[str] = set()
        self.receive_locs: Dict[str, Tuple[Tuple[str, Loc], ...]] = {}  # system -> its `receive` items
        self.free_queries: Tuple[Query, ...] = ()

    # --- reporting ---------------------------------------------------------

    def error(self, loc: Loc, message: str, hint: Optional[str] = None) -> None:
        self.diagnostics.append(Diagnostic(loc, message, hint))

    def warn(self, loc: Loc, message: str, hint: Optional[str] = None) -> None:
        self.diagnostics.append(Diagnostic(loc, message, hint, severity="warning"))

    # --- the whole file ----------------------------------------------------

    def schema(self, root: Node, path: str, source_hash: str) -> Optional[Schema]:
        """The Schema of the document (None if it is not even a mapping)."""
        if isinstance(root, Scalar) and root.is_null:
            root = Mapping((), root.loc)
        if not isinstance(root, Mapping):
            self.error(root.loc, "the schema must be a mapping", "with keys 'world', 'version', 'components', ...")
            return None
        keys = self.known_keys(root, TOP_LEVEL_KEYS, "")
        world = self.world(keys.get("world"), root.loc)
        version = self.version(keys.get("version"), root.loc)
        self.phases = self.phase_list(keys.get("phases"))
        sections = {name: self.entries(keys.get(name), f"'{name}'")
                    for name in ("types", "components", "resources", "events", "queries", "systems", "assemblages",
                                 "relations")}
        self.declare_all(self.data_names, [("type", sections["types"]), ("component", sections["components"]),
                                           ("resource", sections["resources"]), ("event", sections["events"]),
                                           ("relation", sections["relations"])])
        self.declare_all(self.run_names, [("query", sections["queries"]), ("system", sections["systems"])])
        structs, enums = self.types(sections["types"])
        components = self.components(sections["components"])
        relations, links = self.relations(sections["relations"], len(components))
        components += links
        resources = self.resources(sections["resources"])
        events = self.events(sections["events"])
        queries = self.queries(sections["queries"])
        systems = self.systems(sections["systems"], first_query_index=len(queries))
        self.check_event_flow(events, systems)
        self.check_renames(components, resources, structs)
        assemblages = self.assemblages(sections["assemblages"], components)
        save_name = self.save_name(keys.get("save_name")) or world
        return Schema(path=path, world=world, version=version, phases=self.phases, structs=structs,
                      enums=enums, components=components, resources=resources, queries=queries,
                      systems=systems, source_hash=source_hash, assemblages=assemblages, save_name=save_name,
                      events=events, relations=relations, threads=self.flag(keys["threads"], "'threads'") if "threads" in keys else False,
                      world_loc=keys["world"][1].loc if "world" in keys else None)

    def world(self, entry: Optional[Entry], root_loc: Loc) -> str:
        if entry is None:
            self.error(root_loc, "missing required key 'world'",
                       "the C prefix of everything generated, e.g. 'world: game'")
            return ""
        return self.name(entry[1], "world name") or ""

    def version(self, entry: Optional[Entry], root_loc: Loc) -> int:
        if entry is None:
            self.error(root_loc, "missing required key 'version'", "the schema's own version, e.g. 'version: 1'")
            return 1
        node = entry[1]
        value = _parse_integer(node.text) if isinstance(node, Scalar) and not node.quoted else None
        if value is None or value < 1:
            self.error(node.loc, f"version must be a positive integer, got {_shown(node)}")
            return 1
        if value > MAX_VERSION:
            self.error(node.loc, f"version {value} is too large", f"at most {MAX_VERSION}")
            return 1
        return value

    def phase_list(self, entry: Optional[Entry]) -> Tuple[str, ...]:
        """The phases, in order; [update] when the schema names none."""
        if entry is None:
            return (DEFAULT_PHASE,)
        key, node = entry
        items = self.items(node, "'phases'")
        if not items:
            if _is_empty_list(node):
                self.error(key.loc, "'phases' needs at least one phase", "leave it out for the default [update]")
            return (DEFAULT_PHASE,)
        phases: List[str] = []
        first: Dict[str, Loc] = {}
        for item in items:
            name = self.name(item, "phase name")
            if name is None:
                continue
            if name in first:
                self.error(item.loc, f"duplicate phase '{name}'", f"first listed at {_position(first[name])}")
                continue
            first[name] = item.loc
            phases.append(name)
        return tuple(phases) or (DEFAULT_PHASE,)

    # --- generic shapes ----------------------------------------------------

    def known_keys(self, mapping: Mapping, allowed: SequenceType[str], owner: str) -> Dict[str, Entry]:
        """The entries of `mapping` whose keys are in `allowed`, in file order.

        Reports every other key, with a did-you-mean hint.
        """
        result: Dict[str, Entry] = {}
        for key, value in mapping.items:
            if key.text in allowed:
                result[key.text] = (key, value)
            else:
                self.error(key.loc, _in(owner, f"unknown key '{key.text}'"), did_you_mean(key.text, allowed))
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

    # --- names -------------------------------------------------------------

    def name(self, node: Node, what: str) -> Optional[str]:
        """The C identifier `node` spells, or None after reporting why it is
        not one. `what` says what the name is for ("component name")."""
        if not isinstance(node, Scalar) or node.text == "":
            self.error(node.loc, f"{what}: expected a name")
            return None
        text = node.text
        if not _IDENTIFIER.fullmatch(text):
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
                                    f"declared at {_position(other_loc)}")
                continue
            table[name] = (kind, key.loc)

    def kind_hint(self, name: str) -> Optional[str]:
        """A hint like "'Score' is a resource" when `name` is declared as
        something other than what was asked for; else None."""
        for table in (self.data_names, self.run_names):
            if name in table:
                kind = table[name][0]
                return f"'{name}' is a {kind}"
        return None

    # --- types ---------------------------------------------------------------

    def types(self, entries: Tuple[Entry, ...]) -> Tuple[Tuple[StructType, ...], Tuple[EnumType, ...]]:
        """The structs (in dependency order) and enums (in declaration order)."""
        struct_entries = []
        for key, value in entries:
            if isinstance(value, Mapping) and value.get("enum") is not None:
                self.enums[key.text] = self.enum_type(key, value)
            else:
                self.struct_names.add(key.text)
                struct_entries.append((key, value))
        specs: Dict[str, Tuple[Scalar, List[_FieldSpec]]] = {}
        for key, value in struct_entries:
            owner = f"type '{key.text}'"
            field_entries = self.field_entries(value, owner)
            if _is_empty_body(value):
                self.error(key.loc, f"{owner}: a struct type needs at least one field",
                           "C has no empty structs; for a marker, use a tag component")
            specs[key.text] = (key, self.field_specs(field_entries, owner))
        names = list(specs)
        uses = {name: {used for spec in specs[name][1] for used in _structs_in(spec.type)} for name in names}
        order, leftover = _stable_topological_order(names, uses)
        for cycle in _cycles(leftover, uses):
            path = " -> ".join(f"'{n}'" for n in cycle + [cycle[0]])
            self.error(specs[cycle[0]][0].loc, f"type '{cycle[0]}': contains itself: {path}",
                       "a struct cannot contain itself, directly or through other types")
        structs = []
        depths: Dict[str, int] = {}
        for name in order:  # a struct follows those it uses: each depth is known when needed
            key, field_specs = specs[name]
            inner = [_depth(spec.type, depths) for spec in field_specs if spec.type is not None]
            depths[name] = 1 + max(inner, default=0)
            if depths[name] > MAX_TYPE_DEPTH:
                if all(depths.get(used, 0) <= MAX_TYPE_DEPTH for used in uses[name]):  # the first past it only
                    self.error(key.loc, f"type '{name}': nests {depths[name]} levels deep (at most {MAX_TYPE_DEPTH})",
                               "a struct or an array inside a struct is one level")
                self.struct_fields[name] = ()
                self.struct_layouts[name] = (0, 1)
                continue
            fields = self.fields_from_specs(field_specs)
            self.struct_fields[name] = fields
            self.struct_layouts[name] = self.check_body(f"type '{name}'", key.loc, field_specs, fields)
            structs.append(StructType(name, fields, key.loc))
        return tuple(structs), tuple(self.enums.values())

    def enum_type(self, key: Scalar, value: Mapping) -> EnumType:
        owner = f"type '{key.text}'"
        for other, _ in value.items:
            if other.text != "enum":
                self.error(other.loc, f"{owner}: unknown key '{other.text}'", "an enum has only 'enum: [...]'")
        node = value.get("enum")
        items = self.items(node, f"{owner}: 'enum'")
        if _is_empty_list(node):
            self.error(node.loc, f"{owner}: an enum needs at least one member")
        members: List[str] = []
        first: Dict[str, Loc] = {}
        for item in items:
            name = self.name(item, f"{owner}: member name")
            if name is None:
                continue
            if name in first:
                self.error(item.loc, f"{owner}: duplicate member '{name}'", f"first listed at {_position(first[name])}")
                continue
            first[name] = item.loc
            members.append(name)
        return EnumType(key.text, tuple(members), key.loc)

    # --- fields --------------------------------------------------------------

    def field_entries(self, node: Node, owner: str) -> Tuple[Entry, ...]:
        """The `field: TYPE` entries of a struct, component or resource body."""
        body = self.mapping_or_empty(node, owner, "of fields, e.g. { x: f32, y: f32 }")
        return body.items

    def field_specs(self, entries: Iterable[Entry], owner: str) -> List[_FieldSpec]:
        specs = []
        for key, value in entries:
            self.name(key, f"{owner}: field name")
            specs.append(self.field_spec(key, value, f"{owner}: field '{key.text}'"))
        return specs

    def field_spec(self, key: Scalar, value: Node, where: str) -> _FieldSpec:
        """Read one field in any of its three forms."""
        if isinstance(value, Mapping):
            return self.long_field(key, value, where)
        if isinstance(value, Scalar) and not value.is_null:
            return self.short_field(key, value, where)
        loc = key.loc if isinstance(value, Scalar) else value.loc
        self.error(loc, f"{where}: expected a type", "e.g. 'f32', 'f32 = 1' or {type: f32, default: 1}")
        return _FieldSpec(key.text, key.loc, where, None, None, False)

    def short_field(self, key: Scalar, value: Scalar, where: str) -> _FieldSpec:
        """`name: TYPE` or `name: "TYPE = DEFAULT"`."""
        type_text, equals, default_text = value.text.partition("=")
        type_ref = self.parse_type(type_text.strip(), value.loc, where)
        default = None
        if equals:
            default = _short_default(default_text.strip(), value.loc)
            if default is None:
                self.error(value.loc, f"{where}: missing default after '='")
        return _FieldSpec(key.text, key.loc, where, type_ref, default, True)

    def long_field(self, key: Scalar, value: Mapping, where: str) -> _FieldSpec:
        """`name: {type: TYPE, default: VALUE}`."""
        keys = self.known_keys(value, LONG_FIELD_KEYS, where)
        type_ref = None
        if "type" not in keys:
            self.error(value.loc, f"{where}: missing 'type'", "the long form is {type: T, default: V}")
        else:
            node = keys["type"][1]
            if isinstance(node, Scalar) and not node.is_null:
                type_ref = self.parse_type(node.text.strip(), node.loc, where)
            else:
                self.error(node.loc, f"{where}: 'type' must be a type name", "e.g. f32, Color or char[16]")
        default = keys["default"][1] if "default" in keys else None
        renamed_from = self.renamed_from(keys.get("renamed_from"), where)
        policy = "keep"
        if "on_target_destroy" in keys:
            policy = self.policy(keys["on_target_destroy"][1], where)
            if type_ref is not None and type_ref.kind != "entity":
                self.error(keys["on_target_destroy"][0].loc,
                           f"{where}: 'on_target_destroy' needs an entity field, not {_type_name(type_ref)}",
                           "only a component's 'entity' field names a target")
        return _FieldSpec(key.text, key.loc, where, type_ref, default, False, renamed_from, policy)

    def policy(self, node: Node, where: str) -> str:
        """An `on_target_destroy` value (reported and taken as `keep` when it is not one)."""
        if isinstance(node, Scalar) and not node.quoted and node.text in POLICIES:
            return node.text
        text = node.text if isinstance(node, Scalar) else ""
        self.error(node.loc, f"{where}: 'on_target_destroy' must be one of {', '.join(POLICIES)}",
                   did_you_mean(text, POLICIES) if text else None)
        return "keep"

    def fields_from_specs(self, specs: Iterable[_FieldSpec], policies: bool = False) -> Tuple[Field, ...]:
        """Resolve the defaults; fields whose type is bad are left out. Only
        a component's fields (`policies`) may have `on_target_destroy`."""
        specs = list(specs)
        for spec in specs:
            if spec.policy != "keep" and not policies:
                self.error(spec.loc, f"{spec.where}: 'on_target_destroy' is for a component's entity fields",
                           "a link elsewhere is not followed when its target dies")
        return tuple(f for f in (self.field(spec) for spec in specs) if f is not None)

    def check_body(self, owner: str, loc: Loc, specs: SequenceType[_FieldSpec],
                   fields: Tuple[Field, ...]) -> Tuple[int, int]:
        """The limits of a struct body (fields, bytes); returns its C (size, alignment)."""
        if len(specs) > MAX_FIELDS:
            self.error(specs[MAX_FIELDS].loc, f"{owner}: too many fields: at most {MAX_FIELDS}")
        size, align = _struct_layout(fields, self.struct_layouts)
        if size > MAX_VALUE_BYTES:
            self.error(loc, f"{owner}: {size} bytes is too large", f"at most {MAX_VALUE_BYTES}")
        return size, align

    def field(self, spec: _FieldSpec) -> Optional[Field]:
        if spec.type is None:
            return None
        if spec.default is None:
            value = self.zero(spec.type)
        elif spec.short and spec.type.kind in ("array", "struct"):
            example = "[1, 2]" if spec.type.kind == "array" else "{x: 1}"
            self.error(spec.default.loc, f"{spec.where}: {_type_name(spec.type)} needs the long form for a default",
                       f"{{type: {_type_name(spec.type)}, default: {example}}}")
            value = self.zero(spec.type)
        else:
            value = self.value(spec.type, spec.default, spec.where)
        return Field(spec.name, spec.type, value, spec.loc, explicit_default=spec.default is not None,
                     renamed_from=spec.renamed_from, on_target_destroy=spec.policy)

    # --- types of fields ------------------------------------------------------

    def parse_type(self, text: str, loc: Loc, where: str) -> Optional[TypeRef]:
        """The TypeRef `text` spells (`f32`, `Color`, `u8[4]`, `char[16]`), or
        None after reporting why it is not one."""
        match = _TYPE.fullmatch(text)
        if not match:
            self.error(loc, f"{where}: invalid type '{text}'", "e.g. f32, Color, u8[4] or char[16]")
            return None
        base, dims = match["base"], _DIM.findall(match["dims"])
        if len(dims) > 1:
            what = "arrays of strings are" if base == "char" else "nested arrays are"
            self.error(loc, f"{where}: {what} not supported: '{text}'", "wrap the inner one in a struct type")
            return None
        if base == "char":
            return self.string_type(dims, loc, where)
        element = self.named_type(base, loc, where)
        if element is None or not dims:
            return element
        length = self.array_length(dims[0], loc, where)
        return TypeRef("array", element=element, length=length) if length else None

    def string_type(self, dims: List[str], loc: Loc, where: str) -> Optional[TypeRef]:
        if not dims:
            self.error(loc, f"{where}: 'char' needs a length", "a string is char[N], e.g. char[16]")
            return None
        length = self.array_length(dims[0], loc, where)
        if length is None:
            return None
        if length < 2:
            self.error(loc, f"{where}: char[{length}] has no room for text",
                       "char[N] holds N-1 bytes and a NUL; use N >= 2")
            return None
        return TypeRef("string", length=length)

    def named_type(self, name: str, loc: Loc, where: str) -> Optional[TypeRef]:
        if name in SCALARS:
            return TypeRef("scalar", name)
        if name == "entity":
            return TypeRef("entity")
        if name in self.struct_names:
            return TypeRef("struct", name)
        if name in self.enums:
            return TypeRef("enum", name)
        hint = self.kind_hint(name)
        if hint:
            hint += "; a field's type must be built in or declared under 'types:'"
        else:
            hint = did_you_mean(name, list(BUILTIN_TYPES) + sorted(self.struct_names | set(self.enums)))
        self.error(loc, f"{where}: unknown type '{name}'", hint)
        return None

    def array_length(self, text: str, loc: Loc, where: str) -> Optional[int]:
        text = text.strip()
        if _DIGITS.fullmatch(text) and len(text.lstrip("0")) > len(str(MAX_ARRAY_LENGTH)):
            self.error(loc, f"{where}: array length {_cut(text)} is too large", f"at most {MAX_ARRAY_LENGTH}")
            return None
        if not _DIGITS.fullmatch(text) or int(text.lstrip("0") or "0") < 1:
            self.error(loc, f"{where}: array length must be a positive integer, got '{_cut(text)}'")
            return None
        value = int(text.lstrip("0"))  # at most six digits now
        if value > MAX_ARRAY_LENGTH:
            self.error(loc, f"{where}: array length {value} is too large", f"at most {MAX_ARRAY_LENGTH}")
            return None
        return value

    # --- defaults --------------------------------------------------------------

    def zero(self, t: TypeRef) -> Value:
        """The default of a field of type `t` that gives none."""
        if t.kind == "scalar" and t.name == "bool":
            return False
        if t.kind == "scalar":
            return 0 if t.name in INTEGER_RANGES else 0.0
        if t.kind == "enum":
            members = self.enums[t.name].members
            return members[0] if members else ""
        if t.kind == "struct":
            return tuple((f.name, f.default) for f in self.struct_fields.get(t.name, ()))
        if t.kind == "array":
            return ()  # every element at the element's zero
        if t.kind == "string":
            return ""
        return 0  # entity: the null entity

    def value(self, t: TypeRef, node: Node, where: str, base: Optional[Value] = None) -> Value:
        """The default `node` gives a field of type `t`; reports a bad one
        and returns the type's zero instead. A struct's mapping overrides
        fields of `base` (by default the struct's own defaults)."""
        if isinstance(node, Scalar) and node.is_null:
            self.error(node.loc, f"{where}: missing default value")
            return self.zero(t)
        if t.kind == "entity":
            self.error(node.loc, f"{where}: an entity field cannot have a default", "it is always the null entity")
            return 0
        if t.kind == "struct":
            return self.struct_value(t, node, where, self.zero(t) if base is None else base)
        if t.kind == "array":
            return self.array_value(t, node, where)
        if not isinstance(node, Scalar):
            self.error(node.loc, f"{where}: expected a single value for {_type_name(t)}")
            return self.zero(t)
        if t.kind == "enum":
            return self.enum_value(t, node, where)
        if t.kind == "string":
            return self.string_value(t, node, where)
        if t.name == "bool":
            return self.bool_value(node, where)
        if t.name in INTEGER_RANGES:
            return self.integer_value(t.name, node, where)
        return self.float_value(t.name, node, where)

    def bool_value(self, node: Scalar, where: str) -> bool:
        if not node.quoted and node.text in ("true", "false"):
            return node.text == "true"
        self.error(node.loc, f"{where}: invalid default for bool: {_shown(node)}", "expected true or false")
        return False

    def integer_value(self, type_name: str, node: Scalar, where: str) -> int:
        value = None if node.quoted else _parse_integer(node.text)
        if value is None and not node.quoted and _INTEGER.fullmatch(node.text):
            low, high = INTEGER_RANGES[type_name]
            self.error(node.loc, f"{where}: default {_cut(node.text)} is out of range for {type_name}", f"{low}..{high}")
            return 0
        if value is None:
            hint = None
            if not node.quoted and _LEADING_ZERO.fullmatch(node.text):
                hint = "C would read a leading 0 as octal; write it without"
            self.error(node.loc, f"{where}: invalid default for {type_name}: {_shown(node)} is not an integer", hint)
            return 0
        low, high = INTEGER_RANGES[type_name]
        if not low <= value <= high:
            self.error(node.loc, f"{where}: default {node.text} is out of range for {type_name}", f"{low}..{high}")
            return 0
        return value

    def float_value(self, type_name: str, node: Scalar, where: str) -> float:
        if node.quoted or not _FLOAT.fullmatch(node.text):
            self.error(node.loc, f"{where}: invalid default for {type_name}: {_shown(node)} is not a number")
            return 0.0
        value, why, hint = numbers.float_value(type_name, node.text)
        if value is None:
            self.error(node.loc, f"{where}: default {_cut(node.text)} {why}", hint)
            return 0.0
        return value

    def enum_value(self, t: TypeRef, node: Scalar, where: str) -> str:
        members = self.enums[t.name].members
        if node.text in members:
            return node.text
        hint = did_you_mean(node.text, members) or f"one of: {', '.join(members)}"
        self.error(node.loc, f"{where}: unknown member '{node.text}' of enum '{t.name}'", hint)
        return self.zero(t)

    def string_value(self, t: TypeRef, node: Scalar, where: str) -> str:
        size = len(node.text.encode("utf-8"))
        if size > t.length - 1:
            self.error(node.loc, f"{where}: default is {size} bytes long; char[{t.length}] holds at most "
                                 f"{t.length - 1}")
            return ""
        if "\0" in node.text:
            self.error(node.loc, f"{where}: a string default cannot contain a NUL character")
            return ""
        return node.text

    def array_value(self, t: TypeRef, node: Node, where: str) -> Tuple[Value, ...]:
        """A list of at most `length` values; the rest take the element's
        zero (the model keeps only the values given)."""
        if not isinstance(node, Sequence):
            self.error(node.loc, f"{where}: expected a list of at most {t.length} values for {_type_name(t)}")
            return self.zero(t)
        if len(node.items) > t.length:
            self.error(node.items[t.length].loc,
                       f"{where}: {len(node.items)} values given; {_type_name(t)} holds {t.length}")
        return tuple(self.value(t.element, item, f"{where}: element {i}")
                     for i, item in enumerate(node.items[:t.length]))

    def struct_value(self, t: TypeRef, node: Node, where: str,
                     base: Tuple[Tuple[str, Value], ...]) -> Tuple[Tuple[str, Value], ...]:
        """A mapping overriding some fields of `base`, a value of the struct;
        a struct-typed field is overridden field by field in turn."""
        fields = self.struct_fields.get(t.name)
        if fields is None:  # the struct is part of a cycle, reported already
            return ()
        if not isinstance(node, Mapping):
            self.error(node.loc, f"{where}: expected a mapping of {t.name}'s fields to override",
                       f"e.g. {{{fields[0].name}: ...}}" if fields else None)
            return self.zero(t)
        by_name = {f.name: f for f in fields}
        values = dict(base)
        for key, value in node.items:
            f = by_name.get(key.text)
            if f is None:
                self.error(key.loc, f"{where}: type '{t.name}' has no field '{key.text}'",
                           did_you_mean(key.text, by_name))
                continue
            values[f.name] = self.value(f.type, value, f"{where}: field '{f.name}'", values[f.name])
        return tuple((f.name, values[f.name]) for f in fields)

    # --- components and resources -------------------------------------------

    def components(self, entries: Tuple[Entry, ...]) -> Tuple[Component, ...]:
        components = []
        for index, (key, value) in enumerate(entries):
            if index == MAX_COMPONENTS:
                self.error(key.loc, f"too many components: at most {MAX_COMPONENTS}", "STRATA_MAX_COMPONENTS")
            owner = f"component '{key.text}'"
            self.component_names.append(key.text)
            renamed_from, value = self.split_renamed(value, owner)
            entries = self.field_entries(value, owner)
            hooks = {k.text: self.flag((k, v), f"{owner}: '{k.text}'") for k, v in entries if k.text in HOOK_KEYS}
            on_set_key = next((k for k, _ in entries if k.text == "on_set"), None)
            storage_entry = next(((k, v) for k, v in entries if k.text == STORAGE_KEY), None)
            storage = self.storage(storage_entry, owner) if storage_entry is not None else "table"
            if storage == "sparse":
                if len(self.sparse_names) == MAX_SPARSE:
                    self.error(storage_entry[1].loc, f"{owner}: too many sparse components: at most {MAX_SPARSE}",
                               "STRATA_MAX_SPARSE; keep the others in tables")
                self.sparse_names.add(key.text)
            entries = tuple((k, v) for k, v in entries if k.text not in HOOK_KEYS and k.text != STORAGE_KEY)
            if not entries:
                self.tag_names.add(key.text)
            if on_set_key is not None and hooks["on_set"]:
                if not entries:
                    self.error(on_set_key.loc, f"{owner}: 'on_set' on a tag, which has no value to set",
                               "use on_add for a tag")
                self.on_set_components.append((key.text, on_set_key.loc))
            specs = self.field_specs(entries, owner)
            fields = self.fields_from_specs(specs, policies=True)
            self.check_body(owner, key.loc, specs, fields)
            components.append(Component(key.text, index, fields, key.loc, on_add=hooks.get("on_add", False),
                                        on_remove=hooks.get("on_remove", False), on_set=hooks.get("on_set", False),
                                        renamed_from=renamed_from, storage=storage))
        return tuple(components)

    def storage(self, entry: Entry, owner: str) -> str:
        """A component's `storage` (reported and taken as `table` when it is not one)."""
        node = entry[1]
        if isinstance(node, Scalar) and node.text in STORAGES:
            return node.text
        text = node.text if isinstance(node, Scalar) else ""
        hint = did_you_mean(text, STORAGES) if text else None
        if hint is None and _TYPE.fullmatch(text.partition("=")[0].strip()):
            hint = "'storage' is the component's own key, not a field: name the field otherwise"
        self.error(node.loc, f"{owner}: 'storage' must be one of {', '.join(STORAGES)}", hint)
        return "table"

    def relations(self, entries: Tuple[Entry, ...], first: int) -> Tuple[Tuple[Relation, ...], Tuple[Component, ...]]:
        """The relations, and the components holding their links (ids from
        `first`, the number of declared components)."""
        relations: List[Relation] = []
        links: List[Component] = []
        for key, value in entries:
            if self.data_names.get(key.text, ("", None))[1] != key.loc:
                continue  # a bad or taken name: reported by declare_all
            owner = f"relation '{key.text}'"
            index = first + len(links)
            if index == MAX_COMPONENTS:
                self.error(key.loc, f"too many components and relations: at most {MAX_COMPONENTS}",
                           "STRATA_MAX_COMPONENTS")
            keys = self.known_keys(self.mapping_or_empty(value, owner, "e.g. { exclusive: true }"),
                                   RELATION_KEYS + (STORAGE_KEY,), owner)
            if STORAGE_KEY in keys:
                self.error(keys[STORAGE_KEY][0].loc, f"{owner}: a relation's links are always stored in tables",
                           "'storage' is for components: the index of links and cascades read the links there")
            exclusive = self.flag(keys["exclusive"], f"{owner}: 'exclusive'") if "exclusive" in keys else False
            policy = self.policy(keys["on_target_destroy"][1], owner) if "on_target_destroy" in keys else "remove"
            if policy == "clear" and not exclusive:
                self.error(keys["on_target_destroy"][1].loc,
                           f"{owner}: 'clear' keeps a link with no target, which only an exclusive relation has",
                           "use 'remove', or make the relation exclusive")
            data: Tuple[Field, ...] = ()
            if "data" in keys:
                data_key, data_node = keys["data"]
                if not exclusive:
                    self.error(data_key.loc, f"{owner}: 'data' needs an exclusive relation",
                               "add 'exclusive: true', or keep the data in a component")
                specs = self.field_specs(self.field_entries(data_node, f"{owner}: 'data'"), owner)
                data = self.fields_from_specs(specs)
                self.check_body(owner, key.loc, specs, data)
                for f in data:
                    if f.name == LINK_TARGET:
                        self.error(f.loc, f"{owner}: field '{LINK_TARGET}' is the link's own",
                                   "rename it; the link's target has its own function")
            renamed_from = self.renamed_from(keys.get("renamed_from"), owner)
            target = Field(LINK_TARGET, TypeRef("entity"), 0, key.loc)
            fields = (target,) + data if exclusive else ()
            self.component_names.append(key.text)
            if exclusive:
                self.exclusive_relations.add(key.text)
            else:
                self.tag_names.add(key.text)
            relations.append(Relation(key.text, len(relations), index, exclusive, policy, data, key.loc))
            links.append(Component(key.text, index, fields, key.loc, renamed_from=renamed_from, relation=key.text))
        return tuple(relations), tuple(links)

    def flag(self, entry: Entry, what: str) -> bool:
        """A `true` / `false` value (hooks are switched on with `on_add: true`)."""
        node = entry[1]
        if isinstance(node, Scalar) and not node.quoted and node.text in ("true", "false"):
            return node.text == "true"
        self.error(node.loc, f"{what}: expected true or false", f"e.g. '{entry[0].text}: true'")
        return False

    def resources(self, entries: Tuple[Entry, ...]) -> Tuple[Resource, ...]:
        resources = []
        for index, (key, value) in enumerate(entries):
            if index == MAX_RESOURCES:
                self.error(key.loc, f"too many resources: at most {MAX_RESOURCES}")
            owner = f"resource '{key.text}'"
            self.resource_names.append(key.text)
            renamed_from, value = self.split_renamed(value, owner)
            if _is_empty_body(value):
                self.error(key.loc, f"{owner}: a resource needs at least one field")
            specs = self.field_specs(self.field_entries(value, owner), owner)
            fields = self.fields_from_specs(specs)
            self.check_body(owner, key.loc, specs, fields)
            resources.append(Resource(key.text, fields, key.loc, renamed_from))
        return tuple(resources)

    def events(self, entries: Tuple[Entry, ...]) -> Tuple[Event, ...]:
        """The event types, numbered 0.. in declaration order."""
        events = []
        for key, value in entries:
            if self.data_names.get(key.text, ("", None))[1] != key.loc:
                continue  # a bad or taken name: reported by declare_all
            owner = f"event '{key.text}'"
            index = len(self.event_names)
            self.event_names.append(key.text)
            if _is_empty_body(value):
                self.error(key.loc, f"{owner}: an event needs at least one field",
                           "C has no empty structs; e.g. { who: entity }")
            specs = self.field_specs(self.field_entries(value, owner), owner)
            fields = self.fields_from_specs(specs)
            self.check_body(owner, key.loc, specs, fields)
            events.append(Event(key.text, index, fields, key.loc))
        return tuple(events)

    def event_lists(self, keys: MappingType[str, Entry], owner: str) -> Dict[str, Tuple[Tuple[str, Loc], ...]]:
        """A system's emit / receive / receive_late: each event once, in one
        of the receive lists, and never both emitted and received."""
        lists: Dict[str, List[Tuple[str, Loc]]] = {key: [] for key in EVENT_KEYS}
        first: Dict[str, str] = {}  # event -> the list it was first named in
        for key in EVENT_KEYS:
            if key not in keys:
                continue
            for item in self.items(keys[key][1], f"{owner}: '{key}'"):
                name = self.event_ref(item, owner)
                if name is None:
                    continue
                other = first.get(name)
                if other == key:
                    self.error(item.loc, f"{owner}: event '{name}' is listed twice in '{key}'")
                    continue
                if other is not None and other != "emit":
                    self.error(item.loc, f"{owner}: event '{name}' is in both '{other}' and '{key}'",
                               "'receive_late' receives it too")
                    continue
                if other == "emit":
                    self.error(item.loc, f"{owner}: event '{name}' is both emitted and received",
                               "a system does not receive its own events; emit another event or split the system")
                    continue
                first[name] = key
                lists[key].append((name, item.loc))
        return {key: tuple(items) for key, items in lists.items()}

    def event_ref(self, item: Node, owner: str) -> Optional[str]:
        """The event `item` names, or None after reporting it is not one."""
        if not isinstance(item, Scalar):
            self.error(item.loc, f"{owner}: expected an event name")
            return None
        if item.text in self.event_names:
            return item.text
        hint = self.kind_hint(item.text) or did_you_mean(item.text, self.event_names)
        self.error(item.loc, f"{owner}: unknown event '{item.text}'", hint)
        return None

    def event_order(self, specs: List[_SystemSpec], runs_after: Dict[str, Set[str]]) -> None:
        """Order each receiver after the emitters of its phase when nothing
        else decides: an edge is added unless before/after (or an edge added
        earlier) already puts the receiver first."""
        for receiver in specs:
            for event, _ in receiver.events["receive"]:
                for emitter in specs:
                    if emitter.phase != receiver.phase or event not in _names_of(emitter.events["emit"]):
                        continue
                    if not _reaches(runs_after, emitter.name, receiver.name):
                        runs_after[receiver.name].add(emitter.name)

    def check_event_flow(self, events: Tuple[Event, ...], systems: Tuple[System, ...]) -> None:
        """Every event has an emitter and a receiver; warn about a receiver
        that runs before an emitter without saying so (`receive_late`)."""
        for e in events:
            if not any(e.name in y.emit for y in systems):
                self.error(e.loc, f"event '{e.name}': no system emits it",
                           "list it in a system's 'emit', or remove the event")
            if not any(e.name in y.receives for y in systems):
                self.error(e.loc, f"event '{e.name}': no system receives it",
                           "list it in a system's 'receive', or remove the event")
        for r in systems:
            for event, loc in self.receive_locs.get(r.name, ()):
                for y in systems:
                    if event in y.emit and y.order > r.order:
                        self.warn(loc, f"system '{r.name}' receives '{event}' but runs before '{y.name}', which emits "
                                       f"it: it sees those events one step late",
                                  f"list '{event}' in 'receive_late' to say so, or order '{r.name}' after '{y.name}'")

    # --- queries and systems ------------------------------------------------

    def queries(self, entries: Tuple[Entry, ...]) -> Tuple[Query, ...]:
        """The free queries, numbered 0.. in declaration order."""
        queries = []
        for index, (key, value) in enumerate(entries):
            self.check_query_limit(index, key)
            owner = f"query '{key.text}'"
            body = self.mapping_or_empty(value, owner, "e.g. { read: [Position], with: [Collision] }")
            keys = self.known_keys(body, QUERY_KEYS, owner)
            terms = self.terms(keys, owner)
            if not _lists_something(keys, REQUIRED_TERMS):
                self.error(key.loc, f"{owner}: needs at least one 'read', 'write' or 'with' term")
            queries.append(Query(key.text, index, terms, key.loc))
        self.free_queries = tuple(queries)
        return self.free_queries

    def check_query_limit(self, count_before: int, key: Scalar) -> None:
        """Report the first query or system past STRATA_MAX_QUERIES."""
        if count_before == MAX_QUERIES:
            self.error(key.loc, f"too many queries and systems: at most {MAX_QUERIES}", "STRATA_MAX_QUERIES")

    def terms(self, keys: MappingType[str, Entry], owner: str) -> Terms:
        """The component terms among `keys`; a component may be in one list only."""
        lists: Dict[str, List[str]] = {term: [] for term in TERM_KEYS}
        first: Dict[str, str] = {}  # component -> the term it was first listed in
        for term, (_, node) in keys.items():
            if term not in TERM_KEYS:
                continue
            listed: Set[str] = set()
            for item in self.items(node, f"{owner}: '{term}'"):
                name = self.component_ref(item, owner)
                if name is None:
                    continue
                if name in listed:
                    self.error(item.loc, f"{owner}: component '{name}' is listed twice in '{term}'")
                    continue
                listed.add(name)
                if name in first:
                    self.error(item.loc, f"{owner}: {_conflict(first[name], term, name)}")
                    continue
                first[name] = term
                if term in ("read", "write") and name in self.tag_names:
                    if self.data_names.get(name, ("", None))[0] == "relation":
                        self.error(item.loc, f"{owner}: relation '{name}' has many targets a source, no column; "
                                             f"use 'with'", "its targets are read with '<world>_<relation>_targets'")
                    else:
                        self.error(item.loc, f"{owner}: tag '{name}' has no data; use 'with'")
                    continue
                if term == "write" and name in self.exclusive_relations:
                    self.error(item.loc, f"{owner}: relation '{name}' is changed through its functions, not "
                                         f"written", "use 'read'; set links with '<world>_<relation>_set'")
                    continue
                lists[term].append(name)
        changed: List[str] = []
        if "changed" in keys:
            for item in self.items(keys["changed"][1], f"{owner}: 'changed'"):
                name = self.component_ref(item, owner)
                if name is None:
                    continue
                if name in changed:
                    self.error(item.loc, f"{owner}: component '{name}' is listed twice in 'changed'")
                elif name not in lists["read"] and name not in lists["write"]:
                    self.error(item.loc, f"{owner}: 'changed' lists '{name}', which is not read or written",
                               f"add '{name}' to 'read' or 'write'")
                else:
                    changed.append(name)
        cascade = self.cascade(keys.get("cascade"), owner, changed)
        sparse = [name for term in TERM_KEYS for name in lists[term] if name in self.sparse_names]
        if cascade and sparse:
            self.error(keys["cascade"][0].loc, f"{owner}: 'cascade' over sparse component '{sparse[0]}'",
                       "a cascade visits whole runs of a table's rows; filter inside the system, or store it in "
                       "tables")
            cascade = ""
        return Terms(read=tuple(lists["read"]), write=tuple(lists["write"]), with_=tuple(lists["with"]),
                     without=tuple(lists["without"]), optional=tuple(lists["optional"]), changed=tuple(changed),
                     cascade=cascade)

    def cascade(self, entry: Optional[Entry], owner: str, changed: List[str]) -> str:
        """The exclusive relation a `cascade` names ("" when absent or bad)."""
        if entry is None:
            return ""
        key, node = entry
        if not isinstance(node, Scalar) or node.text not in self.exclusive_relations:
            text = node.text if isinstance(node, Scalar) else ""
            if self.data_names.get(text, ("", None))[0] == "relation":
                hint: Optional[str] = f"relation '{text}' has many targets a source; give it 'exclusive: true'"
            else:
                hint = self.kind_hint(text) or did_you_mean(text, sorted(self.exclusive_relations))
            self.error(node.loc, f"{owner}: 'cascade' must name an exclusive relation", hint)
            return ""
        if changed:
            self.error(key.loc, f"{owner}: 'cascade' and 'changed' do not mix",
                       "a changed pass visits entities in the order they were written")
            return ""
        return node.text

    def component_ref(self, item: Node, owner: str) -> Optional[str]:
        """The component `item` names, or None after reporting it is not one."""
        if not isinstance(item, Scalar):
            self.error(item.loc, f"{owner}: expected a component name")
            return None
        if item.text in self.component_names:
            return item.text
        hint = self.kind_hint(item.text) or did_you_mean(item.text, self.component_names)
        self.error(item.loc, f"{owner}: unknown component '{item.text}'", hint)
        return None

    def systems(self, entries: Tuple[Entry, ...], first_query_index: int) -> Tuple[System, ...]:
        """The systems in schedule order. Those with terms get query ids
        numbered in that order from `first_query_index` (the number of free
        queries); those without get None."""
        specs = []
        for index, (key, value) in enumerate(entries):
            self.check_query_limit(first_query_index + index, key)
            specs.append(self.system_spec(key, value))
        runs_after = self.ordering(specs)
        self.event_order(specs, runs_after)
        self.receive_locs = {spec.name: spec.events["receive"] for spec in specs}
        scheduled = self.schedule(specs, runs_after)
        systems = []
        next_query = first_query_index
        for order, spec in enumerate(scheduled):
            query_index = None
            if not spec.terms.empty:
                query_index = next_query
                next_query += 1
            systems.append(System(
                name=spec.name, phase=spec.phase, order=order, terms=spec.terms, query_index=query_index,
                before=_texts(spec.before), after=_texts(spec.after), resources_read=spec.resources_read,
                resources_write=spec.resources_write, loc=spec.loc, aspect=spec.aspect, on_add=spec.on_add,
                on_remove=spec.on_remove, emit=_names_of(spec.events["emit"]),
                receive=_names_of(spec.events["receive"]), receive_late=_names_of(spec.events["receive_late"]),
                parallel=spec.parallel, main_thread=spec.main_thread))
        self.write_conflicts(systems, self.ordering_closure(specs, tuple(systems)))
        self.check_tracking_limits(systems)
        return tuple(systems)

    def check_tracking_limits(self, systems: Tuple[System, ...]) -> None:
        """The runtime's limits on what it tracks per world: reported at the first element past each."""
        monitored = [y for y in systems if y.monitored]
        if len(monitored) > MAX_MONITORS:
            self.error(monitored[MAX_MONITORS].loc, f"too many systems with an aspect or hooks: at most {MAX_MONITORS}",
                       "STRATA_MAX_MONITORS")
        with_aspect = [y for y in systems if y.aspect]
        room = max(MAX_COMPONENTS - len(self.component_names), 0)
        if len(with_aspect) > room:
            self.error(with_aspect[room].loc,
                       f"too many aspects: components and aspects share {MAX_COMPONENTS} column ids",
                       "STRATA_MAX_COMPONENTS")
        changed = [(q.name, q.loc) for q in self.free_queries if q.terms.changed]
        changed += [(y.name, y.loc) for y in systems if y.terms.changed]
        if len(changed) + len(self.on_set_components) > MAX_CHANGED:
            name, loc = (changed + self.on_set_components)[MAX_CHANGED]
            what = "queries and systems with 'changed'" + (" and components with 'on_set'"
                                                          if self.on_set_components else "")
            self.error(loc, f"too many {what}: at most {MAX_CHANGED}", "STRATA_MAX_CHANGED")

    def system_spec(self, key: Scalar, value: Node) -> _SystemSpec:
        owner = f"system '{key.text}'"
        body = self.mapping_or_empty(value, owner, "e.g. { read: [Velocity], write: [Position] }")
        keys = self.known_keys(body, SYSTEM_KEYS, owner)
        terms = self.terms(keys, owner)
        if _lists_something(keys, TERM_KEYS) and not _lists_something(keys, REQUIRED_TERMS):
            self.error(key.loc, f"{owner}: needs at least one 'read', 'write' or 'with' term",
                       "a system with no terms at all runs once a step")
        reads, writes = self.resource_access(keys.get("resources"), owner)
        aspect: Tuple[Field, ...] = ()
        if "aspect" in keys:
            aspect_owner = f"{owner}: aspect"
            aspect_entries = self.field_entries(keys["aspect"][1], aspect_owner)
            if not aspect_entries:
                self.error(keys["aspect"][0].loc, f"{aspect_owner}: needs at least one field",
                           "e.g. aspect: { sprite: u32 }")
            aspect_specs = self.field_specs(aspect_entries, aspect_owner)
            aspect = self.fields_from_specs(aspect_specs)
            self.check_body(aspect_owner, keys["aspect"][0].loc, aspect_specs, aspect)
        hooks = {name: self.flag(keys[name], f"{owner}: '{name}'") for name in HOOK_KEYS if name in keys}
        if terms.empty:
            for name in ("aspect", "changed", "cascade") + HOOK_KEYS:
                if name in keys:
                    self.error(keys[name][0].loc, f"{owner}: '{name}' needs query terms",
                               "a system with no terms matches no entity")
        threads = {name: self.flag(keys[name], f"{owner}: '{name}'") for name in ("parallel", "main_thread")
                   if name in keys}
        events = self.event_lists(keys, owner)
        if threads.get("parallel"):
            self.check_parallel(keys, terms, threads, owner)
        return _SystemSpec(
            name=key.text, loc=key.loc, phase=self.phase_of(keys.get("phase"), owner), terms=terms,
            before=self.items(_value(keys.get("before")), f"{owner}: 'before'"),
            after=self.items(_value(keys.get("after")), f"{owner}: 'after'"),
            resources_read=reads, resources_write=writes, aspect=aspect, on_add=hooks.get("on_add", False),
            on_remove=hooks.get("on_remove", False), parallel=threads.get("parallel", False),
            main_thread=threads.get("main_thread", False), events=events)

    def check_parallel(self, keys: Dict[str, Entry], terms: Terms, threads: Dict[str, bool], owner: str) -> None:
        """What a system split into chunks cannot have: no rows to split, a
        changed set (one shared list, visited in order), a cascade (one
        ordered pass), a place on the calling thread. (Its chunks' events are staged and merged in chunk
        order, so it may emit.)"""
        loc = keys["parallel"][0].loc
        if terms.empty:
            self.error(loc, f"{owner}: 'parallel' needs query terms", "a system with no terms has no rows to split")
        if terms.changed:
            self.error(loc, f"{owner}: 'parallel' cannot be used with 'changed'",
                       "a changed set is visited one entity at a time, in table then row order")
        if terms.cascade:
            self.error(loc, f"{owner}: 'parallel' cannot be used with 'cascade'",
                       "a cascade visits parents before children, batch after batch, in one pass")
        if threads.get("main_thread"):
            self.error(loc, f"{owner}: 'parallel' and 'main_thread' exclude each other",
                       "a split system runs its chunks on every worker")

    def phase_of(self, entry: Optional[Entry], owner: str) -> str:
        """The system's phase: as given, else 'update' if there is one, else the first."""
        default = DEFAULT_PHASE if DEFAULT_PHASE in self.phases else self.phases[0]
        if entry is None:
            return default
        node = entry[1]
        text = node.text if isinstance(node, Scalar) else ""
        if text not in self.phases:
            hint = did_you_mean(text, self.phases) or f"phases: {', '.join(self.phases)}"
            self.error(node.loc, f"{owner}: unknown phase '{text}'", hint)
            return default
        return text

    def resource_access(self, entry: Optional[Entry], owner: str) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
        """The resources a system reads and writes (`resources: {read, write}`)."""
        if entry is None:
            return (), ()
        body = self.mapping_or_empty(entry[1], f"{owner}: 'resources'",
                                     "e.g. { read: [Input], write: [Score] }")
        keys = self.known_keys(body, RESOURCE_ACCESS_KEYS, f"{owner}: resources")
        lists: Dict[str, List[str]] = {"read": [], "write": []}
        first: Dict[str, str] = {}
        for access, (_, node) in keys.items():
            for item in self.items(node, f"{owner}: resources: '{access}'"):
                name = self.resource_ref(item, owner)
                if name is None:
                    continue
                if name in first:
                    if first[name] == access:
                        self.error(item.loc, f"{owner}: resource '{name}' is listed twice in '{access}'")
                    else:
                        self.error(item.loc, f"{owner}: resource '{name}' is both read and written",
                                   "'write' gives read access too")
                    continue
                first[name] = access
                lists[access].append(name)
        return tuple(lists["read"]), tuple(lists["write"])

    def resource_ref(self, item: Node, owner: str) -> Optional[str]:
        if not isinstance(item, Scalar):
            self.error(item.loc, f"{owner}: expected a resource name")
            return None
        if item.text in self.resource_names:
            return item.text
        hint = self.kind_hint(item.text) or did_you_mean(item.text, self.resource_names)
        self.error(item.loc, f"{owner}: unknown resource '{item.text}'", hint)
        return None

    # --- the schedule -------------------------------------------------------

    def ordering(self, specs: List[_SystemSpec]) -> Dict[str, Set[str]]:
        """Check before/after and return, for each system, the systems of its
        phase that must run before it."""
        by_name = {spec.name: spec for spec in specs}
        phase_index = {phase: i for i, phase in enumerate(self.phases)}
        runs_after: Dict[str, Set[str]] = {spec.name: set() for spec in specs}
        for spec in specs:
            owner = f"system '{spec.name}'"
            for relation, items in (("before", spec.before), ("after", spec.after)):
                listed: Set[str] = set()
                for item in items:
                    other = self.system_ref(item, by_name, owner)
                    if other is None:
                        continue
                    if other.name == spec.name:
                        self.error(item.loc, f"{owner}: '{relation}' names the system itself")
                        continue
                    if other.name in listed:
                        self.error(item.loc, f"{owner}: '{other.name}' is listed twice in '{relation}'")
                        continue
                    listed.add(other.name)
                    first, then = (spec, other) if relation == "before" else (other, spec)
                    if phase_index[first.phase] > phase_index[then.phase]:
                        # The phases already order them the other way round.
                        later = "after" if relation == "before" else "before"
                        self.error(item.loc, f"{owner}: cannot run {relation} '{other.name}'",
                                   f"phase '{spec.phase}' runs {later} phase '{other.phase}'")
                    elif first.phase == then.phase:
                        runs_after[then.name].add(first.name)
        return runs_after

    def ordering_closure(self, specs: List[_SystemSpec], systems: Tuple[System, ...]) -> Dict[str, int]:
        """For each system, every system of its phase ordered before it,
        directly or through others (before/after only, not declaration), as
        a bit mask over the systems' run order. In run order a system's
        closure is its direct predecessors' closures and themselves; only a
        before/after cycle (reported already) needs a walk."""
        direct = self.quiet_ordering(specs)
        place = {y.name: i for i, y in enumerate(systems)}
        closure: Dict[str, int] = {}
        for y in systems:
            firsts = direct.get(y.name, ())
            if all(first in closure for first in firsts):
                bits = 0
                for first in firsts:
                    bits |= closure[first] | (1 << place[first])
            else:  # a cycle: a walk with a list, not recursion (a chain may be 1024 long)
                bits, pending = 0, list(firsts)
                while pending:
                    first = pending.pop()
                    if not (bits >> place[first]) & 1:
                        bits |= 1 << place[first]
                        pending.extend(direct.get(first, ()))
            closure[y.name] = bits & ~(1 << place[y.name])
        return closure

    def quiet_ordering(self, specs: List[_SystemSpec]) -> Dict[str, Set[str]]:
        """ordering() without its reports (they were made once already)."""
        saved = list(self.diagnostics)
        result = self.ordering(specs)
        self.diagnostics = saved
        return result

    def write_conflicts(self, systems: Tuple[System, ...], ordered: Dict[str, int]) -> None:
        """Warn about systems of one phase that write the same component or
        resource with no before/after between them: they run in declaration
        order, which is easy to break by moving a line. One warning per
        system, naming the earlier writers it has no order with."""
        seen: Dict[Tuple[str, str, str], int] = {}  # (phase, kind, name) -> its writers so far, as bits
        for j, b in enumerate(systems):
            written = [("c", c) for c in b.terms.write] + [("r", r) for r in b.resources_write]
            earlier = 0
            for kind, name in written:
                key = (b.phase, kind, name)
                earlier |= seen.get(key, 0)
                seen[key] = seen.get(key, 0) | (1 << j)
            loose = []  # the earlier writers with no order either way, in run order
            bits = earlier & ~ordered[b.name]
            while bits:
                i = (bits & -bits).bit_length() - 1
                bits &= bits - 1
                if not (ordered[systems[i].name] >> j) & 1:
                    loose.append(systems[i])
            if not loose:
                continue
            shared = [c for c in b.terms.write if any(c in a.terms.write for a in loose)]
            shared += [r for r in b.resources_write if any(r in a.resources_write for a in loose)]
            names = ", ".join(f"'{n}'" for n in shared)
            shown = ", ".join(f"'{a.name}'" for a in loose[:3])
            if len(loose) > 3:
                shown += f" (and {len(loose) - 3:,} more)"
            self.warn(b.loc, f"systems {shown} and '{b.name}' all write {names} in phase '{b.phase}' "
                             f"with no order between them" if len(loose) > 1 else
                             f"systems {shown} and '{b.name}' both write {names} in phase '{b.phase}' "
                             f"with no order between them",
                      f"give '{b.name}' 'after: [{loose[-1].name}]' to make the order explicit")

    def system_ref(self, item: Node, by_name: Dict[str, _SystemSpec], owner: str) -> Optional[_SystemSpec]:
        if not isinstance(item, Scalar):
            self.error(item.loc, f"{owner}: expected a system name")
            return None
        if item.text in by_name:
            return by_name[item.text]
        hint = self.kind_hint(item.text) or did_you_mean(item.text, by_name)
        self.error(item.loc, f"{owner}: unknown system '{item.text}'", hint)
        return None

    def schedule(self, specs: List[_SystemSpec], runs_after: Dict[str, Set[str]]) -> List[_SystemSpec]:
        """The systems in run order: by phase, then before/after, then
        declaration order. Reports each before/after cycle once."""
        by_name = {spec.name: spec for spec in specs}
        order: List[str] = []
        for phase in self.phases:
            names = [spec.name for spec in specs if spec.phase == phase]
            placed, leftover = _stable_topological_order(names, runs_after)
            for cycle in _cycles(leftover, runs_after):
                # The walk follows "runs after"; print it as "runs before".
                runs_before = [cycle[0]] + list(reversed(cycle[1:]))
                path = " -> ".join(f"'{n}'" for n in runs_before + [cycle[0]])
                self.error(by_name[cycle[0]].loc, f"system '{cycle[0]}': before/after cycle: {path}",
                           "each arrow reads 'runs before'")
            order += placed + leftover
        return [by_name[name] for name in order]


    # --- saves: renames and the save name -------------------------------------

    def save_name(self, entry: Optional[Entry]) -> str:
        """The top-level `save_name`, or "" when absent (then saves use `world`)."""
        if entry is None:
            return ""
        return self.name(entry[1], "save name") or ""

    def renamed_from(self, entry: Optional[Entry], owner: str) -> Tuple[str, ...]:
        """The former names a `renamed_from` entry gives: one name or a list,
        in the order a load tries them (bad ones are reported and left out)."""
        if entry is None:
            return ()
        node = entry[1]
        nodes = node.items if isinstance(node, Sequence) else (node,)
        if isinstance(node, Sequence) and not nodes:
            self.error(node.loc, f"{owner}: 'renamed_from' is an empty list", "give a name, or leave it out")
        names = [self.name(item, f"{owner}: 'renamed_from'") for item in nodes]
        return tuple(name for name in names if name)

    def split_renamed(self, node: Node, owner: str) -> Tuple[Tuple[str, ...], Node]:
        """The `renamed_from` of a component or resource body (reserved, not a
        field) and the body without it."""
        if not isinstance(node, Mapping):
            return (), node
        entry = next(((k, v) for k, v in node.items if k.text == RENAMED_FROM), None)
        if entry is None:
            return (), node
        rest = Mapping(tuple((k, v) for k, v in node.items if k.text != RENAMED_FROM), node.loc)
        return self.renamed_from(entry, owner), rest

    def check_renames(self, components: Tuple[Component, ...], resources: Tuple[Resource, ...],
                      structs: Tuple[StructType, ...]) -> None:
        """A former name must not be a current name of the same kind, nor be
        claimed twice: a save's name must map to one element only."""
        for kind, elements in (("component", components), ("resource", resources)):
            current = {e.name for e in elements}
            claimed: Dict[str, str] = {}
            for e in elements:
                self.check_rename(f"{kind} '{e.name}'", e.renamed_from, e.loc, kind, current, claimed, e.name)
                self.check_field_renames(f"{kind} '{e.name}'", e.fields)
        for t in structs:
            self.check_field_renames(f"type '{t.name}'", t.fields)

    def check_field_renames(self, owner: str, fields: Tuple[Field, ...]) -> None:
        current = {f.name for f in fields}
        claimed: Dict[str, str] = {}
        for f in fields:
            self.check_rename(f"{owner}: field '{f.name}'", f.renamed_from, f.loc, "field", current, claimed, f.name)

    def check_rename(self, owner: str, formers: Tuple[str, ...], loc: Loc, kind: str, current: Set[str],
                     claimed: Dict[str, str], name: str) -> None:
        for old in formers:
            if old == name:
                self.error(loc, f"{owner}: 'renamed_from' names itself")
            elif old in current:
                self.error(loc, f"{owner}: renamed from '{old}', which is still a {kind}",
                           "a save's element must map to one element only")
            elif old in claimed:
                self.error(loc, f"{owner}: {kind} '{claimed[old]}' is already renamed from '{old}'"
                           if claimed[old] != name else f"{owner}: renamed from '{old}' twice")
            else:
                claimed[old] = name

    # --- assemblages --------------------------------------------------------------

    def assemblages(self, entries: Tuple[Entry, ...], components: Tuple[Component, ...]) -> Tuple[Assemblage, ...]:
        """The assemblages in declaration order, each with its parent's
        components merged in (a parent's values, then the child's overrides)."""
        by_component = {c.name: c for c in components}
        names: Dict[str, Loc] = {}
        bodies: Dict[str, Tuple[Scalar, Mapping]] = {}
        for key, value in entries:
            owner = f"assemblage '{key.text}'"
            if self.name(key, "assemblage name") is None:
                continue
            if key.text in names:
                self.error(key.loc, f"{owner}: declared twice", f"first declared at {_position(names[key.text])}")
                continue
            names[key.text] = key.loc
            bodies[key.text] = (key, self.mapping_or_empty(value, owner, "of components, e.g. { Position: {} }"))
        parents: Dict[str, str] = {}
        for name, (key, body) in bodies.items():
            node = body.get(EXTENDS)
            if node is None:
                continue
            owner = f"assemblage '{name}'"
            if not isinstance(node, Scalar) or node.is_null:
                self.error(node.loc, f"{owner}: 'extends' must name an assemblage")
            elif node.text not in bodies:
                self.error(node.loc, f"{owner}: extends unknown assemblage '{node.text}'",
                           did_you_mean(node.text, bodies))
            elif node.text == name:
                self.error(node.loc, f"{owner}: extends itself")
            else:
                parents[name] = node.text
        order, leftover = _stable_topological_order(list(bodies), {n: ({parents[n]} if n in parents else set())
                                                                   for n in bodies})
        for cycle in _cycles(leftover, {n: {parents[n]} for n in leftover}):
            path = " -> ".join(f"'{n}'" for n in cycle + [cycle[0]])
            self.error(bodies[cycle[0]][0].loc, f"assemblage '{cycle[0]}': extends cycle: {path}",
                       "each arrow reads 'extends'")
        built: Dict[str, Tuple[Tuple[str, Value], ...]] = {}
        for name in order + leftover:  # those on a cycle are still checked, over no parent
            key, body = bodies[name]
            base = dict(built.get(parents.get(name, ""), ()))
            built[name] = self.assemblage_components(name, body, base, by_component)
        return tuple(Assemblage(name, parents.get(name, ""), built[name], bodies[name][0].loc)
                     for name in bodies if name in built)

    def assemblage_components(self, name: str, body: Mapping, base: Dict[str, Value],
                              by_component: Dict[str, Component]) -> Tuple[Tuple[str, Value], ...]:
        """The components of one assemblage over its parent's (`base`)."""
        owner = f"assemblage '{name}'"
        values = dict(base)
        for key, node in body.items:
            if key.text == EXTENDS:
                continue
            c = by_component.get(key.text)
            if c is None:
                hint = self.kind_hint(key.text) or did_you_mean(key.text, by_component)
                self.error(key.loc, f"{owner}: unknown component '{key.text}'", hint)
                continue
            where = f"{owner}: component '{c.name}'"
            start = values.get(c.name, tuple((f.name, f.default) for f in c.fields))
            values[c.name] = self.component_override(c, node, where, start)
        return tuple((c.name, values[c.name]) for c in by_component.values() if c.name in values)

    def component_override(self, c: Component, node: Node, where: str,
                           base: Tuple[Tuple[str, Value], ...]) -> Tuple[Tuple[str, Value], ...]:
        """A component's value in an assemblage: `{}` (its defaults, or the
        parent's value) or a mapping overriding some fields."""
        if isinstance(node, Scalar) and node.is_null:
            return base
        if not isinstance(node, Mapping):
            example = f"{{{c.fields[0].name}: ...}}" if c.fields else "{}"
            self.error(node.loc, f"{where}: expected a mapping of field values", f"e.g. {example}")
            return base
        by_name = {f.name: f for f in c.fields}
        values = dict(base)
        for key, value in node.items:
            f = by_name.get(key.text)
            if f is None:
                hint = did_you_mean(key.text, by_name) if by_name else f"'{c.name}' is a tag: it has no fields"
                self.error(key.loc, f"{where}: unknown field '{key.text}'", hint)
                continue
            values[f.name] = self.value(f.type, value, f"{where}: field '{f.name}'", values[f.name])
        return tuple((f.name, values[f.name]) for f in c.fields)


# --- helpers without state ------------------------------------------------------


def _names_of(items: Iterable[Tuple[str, Loc]]) -> Tuple[str, ...]:
    return tuple(name for name, _ in items)


def _reaches(runs_after: MappingType[str, Set[str]], start: str, target: str) -> bool:
    """True if `target` must run before `start` (directly or through others)."""
    seen: Set[str] = set()
    pending = [start]
    while pending:
        name = pending.pop()
        for first in runs_after.get(name, ()):
            if first == target:
                return True
            if first not in seen:
                seen.add(first)
                pending.append(first)
    return False


def _in(owner: str, message: str) -> str:
    """`message` prefixed with the element it is about, if any."""
    return f"{owner}: {message}" if owner else message


def _position(loc: Loc) -> str:
    """LINE:COL, how a message points at another place in the same file."""
    return f"{loc.line}:{loc.col}"


def _cut(text: str) -> str:
    """A long token cut short for a message."""
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


def _shown(node: Node) -> str:
    """A scalar as a message quotes it: plain text in single quotes, a
    quoted string in double quotes (so `"5"` is visibly not the number 5)."""
    if not isinstance(node, Scalar):
        return "a list" if isinstance(node, Sequence) else "a mapping"
    text = _cut(node.text)
    return f'"{text}"' if node.quoted else f"'{text}'"


def _is_empty_list(node: Node) -> bool:
    """True for `[]` and for an empty (null) value."""
    if isinstance(node, Sequence):
        return not node.items
    return isinstance(node, Scalar) and node.is_null


def _is_empty_body(node: Node) -> bool:
    """True for `{}` and for an empty (null) value: a body with no fields."""
    if isinstance(node, Mapping):
        return not node.items
    return isinstance(node, Scalar) and node.is_null


def _value(entry: Optional[Entry]) -> Optional[Node]:
    return entry[1] if entry else None


def _texts(items: Iterable[Node]) -> Tuple[str, ...]:
    return tuple(item.text for item in items if isinstance(item, Scalar))


def _lists_something(keys: MappingType[str, Entry], terms: Iterable[str]) -> bool:
    """True if any of `terms` is given a non-empty list."""
    return any(isinstance(keys[t][1], Sequence) and keys[t][1].items for t in terms if t in keys)


def _conflict(first: str, second: str, name: str) -> str:
    """What is wrong with listing component `name` under two terms."""
    pair = {first, second}
    if pair == {"read", "write"}:
        return f"component '{name}' is both read and written"
    if "without" in pair and pair & {"read", "write", "with"}:
        return f"component '{name}' is both required and excluded"
    if pair == {"optional", "without"}:
        return f"component '{name}' is both optional and excluded"
    return f"component '{name}' is in both '{first}' and '{second}'"


def _parse_integer(text: str) -> Optional[int]:
    """A decimal (no leading zeros) or 0x-hexadecimal integer, optionally
    signed; else None."""
    if not _INTEGER.fullmatch(text):
        return None
    return numbers.integer_value(text)


def _short_default(text: str, loc: Loc) -> Optional[Scalar]:
    """The default of `TYPE = DEFAULT` as a scalar node (None if empty).
    Quotes around it make it a string: `char[8] = " hi"`."""
    if not text:
        return None
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return Scalar(text[1:-1], "str", True, loc)
    return Scalar(text, "str", False, loc)


def _type_name(t: TypeRef) -> str:
    """The type as the schema spells it."""
    if t.kind == "array":
        return f"{_type_name(t.element)}[{t.length}]"
    if t.kind == "string":
        return f"char[{t.length}]"
    if t.kind == "entity":
        return "entity"
    return t.name


def _structs_in(t: Optional[TypeRef]) -> Set[str]:
    """The struct types a field of type `t` contains by value."""
    if t is None:
        return set()
    if t.kind == "struct":
        return {t.name}
    if t.kind == "array":
        return _structs_in(t.element)
    return set()


def _stable_topological_order(names: List[str], deps: MappingType[str, Set[str]]) -> Tuple[List[str], List[str]]:
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


def _cycles(leftover: List[str], deps: MappingType[str, Set[str]]) -> List[List[str]]:
    """The cycles among `leftover` (what _stable_topological_order could not
    place), each once, as a path along `deps` starting at its earliest name.

    Every leftover name has a dep that is also left over, so walking from
    any of them along deps must come back to a name already on the path.
    """
    position = {name: i for i, name in enumerate(leftover)}
    covered: Set[str] = set()
    cycles = []
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
            cycles.append(cycle[first:] + cycle[:first])
        covered.update(cycle)
    return cycles


def _depth(t: TypeRef, structs: Dict[str, int]) -> int:
    """How deep the braces of a value of type t nest (a scalar: 0)."""
    if t.kind == "array":
        return 1 + _depth(t.element, structs)  # arrays do not nest: one call deeper at most
    if t.kind == "struct":
        return structs.get(t.name, 0)
    return 0


def _layout(t: TypeRef, structs: Dict[str, Tuple[int, int]]) -> Tuple[int, int]:
    """The C (size, alignment) of a field of type t, as the generated code declares it."""
    if t.kind == "scalar":
        return SCALAR_SIZES[t.name], SCALAR_SIZES[t.name]
    if t.kind == "entity":
        return 8, 8
    if t.kind == "enum":
        return 4, 4
    if t.kind == "string":
        return t.length, 1
    if t.kind == "array":
        size, align = _layout(t.element, structs)
        return size * t.length, align
    return structs.get(t.name, (0, 1))  # a struct (one in error counts as empty)


def _struct_layout(fields: Iterable[Field], structs: Dict[str, Tuple[int, int]]) -> Tuple[int, int]:
    """The C (size, alignment) of a struct of these fields: each at the next
    multiple of its alignment, the whole rounded up to the largest."""
    offset, largest = 0, 1
    for f in fields:
        size, align = _layout(f.type, structs)
        offset = (offset + align - 1) // align * align + size
        largest = max(largest, align)
    return (offset + largest - 1) // largest * largest, largest

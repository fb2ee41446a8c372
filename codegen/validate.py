"""Check a loaded schema and build the immutable model.

`validate_file(path)` reads, loads and validates a schema file and returns
(schema, diagnostics): the `model.Schema` when the file has no error (the
diagnostics then hold only warnings), else None and every error found in the
file, in line order. The checker never stops at the first error: each
section is checked as far as it can be, and an element with an error is
left out or given a stand-in so the rest can still be checked.

The schema language is described in docs/schema.md. This module walks the
top level and hands each section to its checks, all reporting through one
`errors.Reporter` and sharing one `checks.Symbols`: check_types (types,
fields, defaults), check_elements (components, relations, resources,
events), check_systems (queries, systems; the order and batches are
schedule.py's), check_renames, check_assemblages. The rules, in the order
they are applied:

  top level   world, version (required), save_name, phases, threads, types,
              components, relations, resources, events, queries, systems,
              assemblages
  names       C identifiers, not C keywords, at most 63 characters; unique
              across types+components+resources+events+relations and across
              queries+systems
  types       structs (which may nest, not cyclically) and enums
  fields      `name: TYPE`, `name: "TYPE = DEFAULT"` or
              `name: {type: TYPE, default: VALUE}`; every Field of the model
              carries a complete resolved default
  terms       read/write/with/without/optional, each component in one list
  schedule    phases in order, then before/after, then receivers after
              emitters, then declaration order; batches (schedule.py)
  limits      the runtime's (strata.h's STRATA_MAX_*) and the generator's
              own, all in limits.py
  events      a mapping of at least one field each; systems list them in
              emit / receive / receive_late; every event has an emitter (or
              `sent_by: game`) and a receiver; a receiver runs after its
              emitters when nothing else decides (else a warning, unless
              `receive_late`)
  renames     `renamed_from` on a component, resource or field names its
              former name (for loading old saves): unique, not a current name
  storage     a component's `storage` is `table` or `sparse` (at most
              STRATA_MAX_SPARSE sparse); not on a relation; no `cascade` over
              a sparse term
  relations   `exclusive`, `data` (exclusive only; no field `target`),
              `on_target_destroy` (`clear` exclusive only); each becomes a
              component of its name after the declared ones; queries may not
              `write` one; `on_target_destroy` on a field: a component's
              `entity` field only
  assemblages components with per-field overrides (nested for structs),
              `extends` one parent (no cycles); parents come first; no
              relation (a link needs a target)
  the loop    a phase `{name, rate, max_runs}` is fixed; `states:` lists
              state machines (each an enum and a resource of its name);
              in_state / on_enter / on_exit name machines and their states,
              run_if a bool field of a resource, interval seconds, every a
              count; a system that runs on_enter / on_exit has no phase, no
              other gate but run_if, receives no event, and is ordered among
              its kind only; a system of a fixed phase receives no event
              (check_loop.py)
"""
from __future__ import annotations

import hashlib
from typing import List, Optional, Tuple

from . import load
from .check_assemblages import Assemblages
from .check_elements import Elements
from .check_loop import Loop
from .check_renames import Renames
from .check_systems import Systems
from .check_types import Types
from .checks import Entry, Section, Symbols, parse_integer, shown
from .errors import Diagnostic, Reporter, has_errors, sorted_by_position
from .limits import MAX_VERSION
from .load import Mapping, Node, Scalar
from .model import EnumType, Loc, Schema
from .spec import TOP_LEVEL_KEYS

SECTIONS = ("types", "components", "resources", "events", "queries", "systems", "assemblages", "relations", "states")


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
    report = Reporter()
    schema = _TopLevel(report, Symbols()).schema(root, path, source_hash)
    diagnostics = sorted_by_position(report.diagnostics)
    if has_errors(diagnostics):
        return None, diagnostics
    return schema, diagnostics


class _TopLevel(Section):
    """The top-level keys, and the sections in the order they depend on each other."""

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
        loop = Loop(self.report, self.symbols)
        self.symbols.phases, fixed = loop.phases(keys.get("phases"))
        self.symbols.fixed_phases = {f.name: f.rate for f in fixed}
        threads = self.flags(keys, ("threads",), "").get("threads", False)
        sections = {name: self.entries(keys.get(name), f"'{name}'") for name in SECTIONS}
        self.declare_all(self.symbols.data_names, [
            ("type", sections["types"]), ("component", sections["components"]), ("resource", sections["resources"]),
            ("event", sections["events"]), ("relation", sections["relations"]),
            ("state machine", sections["states"])])
        self.declare_all(self.symbols.run_names, [("query", sections["queries"]), ("system", sections["systems"])])
        renames = Renames(self.report, self.symbols)
        types = Types(self.report, self.symbols, renames)
        elements = Elements(self.report, self.symbols, types, renames)
        systems_ = Systems(self.report, self.symbols, types)
        structs, enums = types.types(sections["types"])
        components = elements.components(sections["components"])
        relations, links = elements.relations(sections["relations"], len(components))
        components += links
        resources = elements.resources(sections["resources"])
        machines = loop.machines(sections["states"])
        enums += tuple(EnumType(m.name, m.states, m.loc) for m in machines)
        resources += tuple(loop.machine_resource(m) for m in machines)
        events = elements.events(sections["events"])
        queries = systems_.queries(sections["queries"])
        systems, batches = systems_.systems(sections["systems"], len(queries), threads)
        systems_.check_event_flow(events, systems)
        renames.check_renames(components, resources, structs)
        assemblages = Assemblages(self.report, self.symbols, types).assemblages(sections["assemblages"], components)
        save_name = renames.save_name(keys.get("save_name")) or world
        return Schema(path=path, world=world, version=version, phases=self.symbols.phases, structs=structs,
                      enums=enums, components=components, resources=resources, queries=queries,
                      systems=systems, source_hash=source_hash, assemblages=assemblages, save_name=save_name,
                      events=events, relations=relations, threads=threads, schedule=batches, fixed=fixed,
                      machines=machines, world_loc=keys["world"][1].loc if "world" in keys else None)

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
        value = parse_integer(node.text) if isinstance(node, Scalar) and not node.quoted else None
        if value is None or value < 1:
            self.error(node.loc, f"version must be a positive integer, got {shown(node)}")
            return 1
        if value > MAX_VERSION:
            self.error(node.loc, f"version {value} is too large", f"at most {MAX_VERSION}")
            return 1
        return value

"""The validated, immutable model of a schema.

The validator builds it from the loaded YAML; the renderer and the naming
module read it. Nothing here knows YAML or C spelling: C identifiers live in
`names.py`.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional, Tuple, Union

from .spec import DEFAULT_SENDER, FIELD_POLICY, GAME

# The scalar field types and their C spelling live in names.py; this is the set.
SCALARS = ("bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64")
INTEGER_RANGES = {
    "i8": (-(2 ** 7), 2 ** 7 - 1),
    "i16": (-(2 ** 15), 2 ** 15 - 1),
    "i32": (-(2 ** 31), 2 ** 31 - 1),
    "i64": (-(2 ** 63), 2 ** 63 - 1),
    "u8": (0, 2 ** 8 - 1),
    "u16": (0, 2 ** 16 - 1),
    "u32": (0, 2 ** 32 - 1),
    "u64": (0, 2 ** 64 - 1),
}
# Bytes and alignment of each scalar, as the C ABI of every target we build for.
SCALAR_SIZES = {"bool": 1, "i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4,
                "i64": 8, "u64": 8, "f32": 4, "f64": 8, "entity": 8}


@dataclass(frozen=True)
class Loc:
    """Where a node sits in the schema file (1-based line and column)."""
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class TypeRef:
    """A field's type.

    kind is one of:
      'scalar'  name is one of SCALARS
      'entity'  an entity handle
      'struct'  name is a struct in Schema.types
      'enum'    name is an enum in Schema.types
      'array'   element is the element TypeRef, length its count (T[N])
      'string'  a fixed char[length], NUL-terminated, so length-1 usable bytes
    """
    kind: str
    name: str = ""
    element: Optional["TypeRef"] = None
    length: int = 0


# A resolved default value, always complete (never None once validated):
#   scalar int/float/bool   -> int / float / bool
#   entity                  -> 0 (the null entity; the only allowed default)
#   enum                    -> the member name (str)
#   struct                  -> tuple of (field name, Value) in field order
#   array                   -> tuple of Value, at most `length` items: the
#                              elements after them take the element's zero
#                              (a struct's defaults), so an array nobody
#                              gives a default costs nothing
#   string                  -> str (fits in length-1 bytes)
Value = Union[int, float, bool, str, tuple]


@dataclass(frozen=True)
class Field:
    name: str
    type: TypeRef
    default: Value
    loc: Loc
    explicit_default: bool = False  # the schema gave `= x` or `default:`
    renamed_from: Tuple[str, ...] = ()  # the field's former names (long form `renamed_from:`), for old saves
    on_target_destroy: str = FIELD_POLICY  # an entity field of a component: what its target's destroy does


@dataclass(frozen=True)
class StructType:
    name: str
    fields: Tuple[Field, ...]
    loc: Loc


@dataclass(frozen=True)
class EnumType:
    name: str
    members: Tuple[str, ...]
    loc: Loc


@dataclass(frozen=True)
class Component:
    name: str
    index: int  # component id, declaration order from 0
    fields: Tuple[Field, ...]
    loc: Loc
    on_add: bool = False  # the game defines <world>_<component>_on_add
    on_remove: bool = False
    on_set: bool = False  # <world>_<component>_on_set, when written values settle
    renamed_from: Tuple[str, ...] = ()  # the component's former names (key `renamed_from:`), for old saves
    relation: str = ""  # the relation whose links this component holds ("" for a declared component)
    storage: str = "table"  # `storage:`: "table" (a column of its archetype tables) or "sparse" (a set beside them)

    @property
    def is_tag(self) -> bool:
        return not self.fields

    @property
    def sparse(self) -> bool:
        """Stored in a sparse set: adding or removing it moves no row."""
        return self.storage == "sparse"

    @property
    def holds_value(self) -> bool:
        """A bundle or an assemblage can give it: not the tag of a relation
        with many targets a source (its links are made by `_add`, each with
        its target; the tag alone would be a link to nothing)."""
        return not (self.relation and self.is_tag)


@dataclass(frozen=True)
class Relation:
    """A relation: links from sources to targets. Its links live in a component
    of the same name (numbered after the declared ones): exclusive, the
    target and the data fields; otherwise a tag on every source with links."""
    name: str
    index: int  # relation id, declaration order from 0
    component: int  # the component id of its links
    exclusive: bool
    on_target_destroy: str  # what a target's destroy does to its sources: keep, clear, remove or destroy
    data: Tuple[Field, ...]
    loc: Loc


@dataclass(frozen=True)
class Resource:
    name: str
    fields: Tuple[Field, ...]
    loc: Loc
    renamed_from: Tuple[str, ...] = ()  # the resource's former names, for loading old saves
    machine: bool = False  # the state of the state machine of this name (current, next, pending, entered)


@dataclass(frozen=True)
class FixedPhase:
    """A phase with a `rate`: 0..max_runs runs a step, each 1/rate s of game time."""
    name: str
    rate: int  # runs a second
    max_runs: int  # the most runs a step
    loc: Loc


@dataclass(frozen=True)
class StateMachine:
    """A state machine of `states:`: an enum of its states (the first the
    initial one) and a resource of its name holding where it is."""
    name: str
    index: int  # machine id, declaration order from 0
    states: Tuple[str, ...]
    loc: Loc


@dataclass(frozen=True)
class StateTest:
    """States of one machine (`in_state`, `on_enter`, `on_exit`)."""
    machine: str
    states: Tuple[str, ...]  # in the machine's order


@dataclass(frozen=True)
class Condition:
    """A bool field of a resource a system runs under (`run_if`)."""
    resource: str
    field: str
    expect: bool  # True: runs while the field is true; False (`not FIELD`): while it is false


@dataclass(frozen=True)
class Event:
    """An event type: the fields one emission carries. Not saved."""
    name: str
    index: int  # event id, declaration order from 0
    fields: Tuple[Field, ...]
    loc: Loc
    sent_by: str = DEFAULT_SENDER  # "game": game code or a hook sends it, so no system need emit it

    @property
    def sent_by_game(self) -> bool:
        return self.sent_by == GAME


@dataclass(frozen=True)
class Terms:
    """The component terms of a query or system, names in schema order."""
    read: Tuple[str, ...] = ()
    write: Tuple[str, ...] = ()
    with_: Tuple[str, ...] = ()
    without: Tuple[str, ...] = ()
    optional: Tuple[str, ...] = ()
    changed: Tuple[str, ...] = ()
    cascade: str = ""  # an exclusive relation: targets are visited before their sources

    @property
    def required(self) -> Tuple[str, ...]:
        """Components a matching entity must have (read, write, with)."""
        return self.read + self.write + self.with_

    @property
    def empty(self) -> bool:
        return not (self.read or self.write or self.with_ or self.without or self.optional)


@dataclass(frozen=True)
class Query:
    name: str
    index: int  # query id in the runtime: free queries first, then systems with terms
    terms: Terms
    loc: Loc


@dataclass(frozen=True)
class System:
    name: str
    phase: str
    order: int  # position in the schedule, 0 first
    terms: Terms
    query_index: Optional[int]  # runtime query id; None when the system has no terms (runs once a step)
    before: Tuple[str, ...]
    after: Tuple[str, ...]
    resources_read: Tuple[str, ...]
    resources_write: Tuple[str, ...]
    loc: Loc
    aspect: Tuple[Field, ...] = ()  # per-entity state while it matches
    on_add: bool = False  # the game defines <world>_<system>_on_add
    on_remove: bool = False
    emit: Tuple[str, ...] = ()  # events it emits, schema order
    receive: Tuple[str, ...] = ()  # events it receives, ordered after their emitters
    receive_late: Tuple[str, ...] = ()  # events it receives, knowingly before an emitter
    parallel: bool = False  # its rows are split into chunks run on the worker threads
    main_thread: bool = False  # it always runs on the thread that calls step
    in_state: Tuple[StateTest, ...] = ()  # runs only while each machine is in one of its states
    run_if: Tuple[Condition, ...] = ()  # runs only while each condition holds
    interval: int = 0  # nanoseconds between runs (of its phase's time); 0: none
    every: int = 0  # runs once every this many runs of its phase; 0: none
    on_enter: Tuple[StateTest, ...] = ()  # runs when a machine enters one of the states (no phase then)
    on_exit: Tuple[StateTest, ...] = ()  # runs when a machine leaves one of the states

    @property
    def transition(self) -> bool:
        """It runs at transitions of a state machine, not in a phase."""
        return bool(self.on_enter or self.on_exit)

    @property
    def gated(self) -> bool:
        """Something besides its switch decides whether it runs: a state, a condition, a count."""
        return bool(self.in_state or self.run_if or self.interval or self.every)

    @property
    def counted(self) -> bool:
        """It keeps a counter between runs (`interval` or `every`)."""
        return bool(self.interval or self.every)

    @property
    def condition_resources(self) -> Tuple[str, ...]:
        """The resources its `run_if` reads, each once, in schema order."""
        return tuple(dict.fromkeys(c.resource for c in self.run_if))

    @property
    def receives(self) -> Tuple[str, ...]:
        """Every event the system receives (`receive`, then `receive_late`)."""
        return self.receive + self.receive_late

    @property
    def monitored(self) -> bool:
        """The runtime watches which entities start and stop matching it."""
        return bool(self.aspect) or self.on_add or self.on_remove


@dataclass(frozen=True)
class Assemblage:
    """An entity template: components with their values, the parent's merged in."""
    name: str
    extends: str  # the parent assemblage, or ""
    # (component name, value) in component index order; a value is a struct
    # Value (tuple of (field, Value)), () for a tag
    components: Tuple[Tuple[str, Value], ...]
    loc: Loc


@dataclass(frozen=True)
class Apart:
    """Why `later` runs in a batch after `earlier`'s: what they share."""
    earlier: str
    later: str
    reasons: Tuple[str, ...]  # "Position", "res Clock", "event Eaten", "order", "changed set"


@dataclass(frozen=True)
class Batch:
    """Systems of one phase that touch disjoint data (schedule.py)."""
    index: int  # 0 first, over the whole step
    phase: str
    systems: Tuple[System, ...]  # schedule order

    @property
    def alone(self) -> bool:
        """One system that is not split: it runs as in a single-threaded step."""
        return len(self.systems) == 1 and not self.systems[0].parallel


@dataclass(frozen=True)
class Schedule:
    """The step's batches, and the pairs of systems they keep apart (schedule.py)."""
    batches: Tuple[Batch, ...] = ()
    apart: Tuple[Apart, ...] = ()  # the conflicting pairs of a phase no chain of others implies, in schedule order

    def batch_of(self, name: str) -> int:
        return next(b.index for b in self.batches for y in b.systems if y.name == name)


@dataclass(frozen=True)
class Schema:
    path: str  # the schema file as given on the command line
    world: str
    version: int
    phases: Tuple[str, ...]
    structs: Tuple[StructType, ...]  # in dependency order: a struct follows the structs it uses
    enums: Tuple[EnumType, ...]
    components: Tuple[Component, ...]  # by index
    resources: Tuple[Resource, ...]
    queries: Tuple[Query, ...]  # free-standing queries, declaration order
    systems: Tuple[System, ...]  # in schedule order (phase, then before/after, then declaration)
    source_hash: str  # sha256 hex of the schema file's bytes
    assemblages: Tuple[Assemblage, ...] = ()  # declaration order
    world_loc: Optional[Loc] = None  # where the world's name is written
    save_name: str = ""  # the name saves record and loading matches; `world` unless `save_name:` says otherwise
    events: Tuple[Event, ...] = ()  # by event id (declaration order)
    relations: Tuple[Relation, ...] = ()  # by relation id (declaration order)
    threads: bool = False  # `threads: true`: systems share batches (schedule.py)
    schedule: Schedule = Schedule()  # the systems' batches, worked out once by the validator
    fixed: Tuple[FixedPhase, ...] = ()  # the phases with a rate, in phase order
    machines: Tuple[StateMachine, ...] = ()  # by machine id (declaration order)

    def rate(self, phase: str) -> int:
        """Runs a second of `phase`; 0 for an ordinary phase."""
        return next((f.rate for f in self.fixed if f.name == phase), 0)

    def machine(self, name: str) -> StateMachine:
        return next(m for m in self.machines if m.name == name)

    @property
    def phase_systems(self) -> Tuple[System, ...]:
        """The systems that run in a phase (in schedule order: before the transitions' systems)."""
        return tuple(y for y in self.systems if not y.transition)

    @property
    def transition_systems(self) -> Tuple[System, ...]:
        """The systems that run at transitions, in schedule order."""
        return tuple(y for y in self.systems if y.transition)

    @property
    def counted_systems(self) -> Tuple[System, ...]:
        """The systems with a counter (`interval`, `every`), in schedule order: the counters' order."""
        return tuple(y for y in self.systems if y.counted)

    @property
    def has_loop_clock(self) -> bool:
        """The resource block holds a clock: fixed phases' accumulators or systems' counters."""
        return bool(self.fixed or self.counted_systems)

    @property
    def field_policies(self) -> Tuple[Tuple[Component, Field], ...]:
        """The entity fields of components whose target's destroy does something."""
        return tuple((c, f) for c in self.components for f in c.fields if f.on_target_destroy != FIELD_POLICY)

    @functools.cached_property
    def saved_types(self) -> frozenset:
        """The types a component or resource contains (directly or through
        other types): those the reflection data, and so saves, describe."""
        used = set()
        pending = [f.type for c in self.components for f in c.fields]
        pending += [f.type for r in self.resources for f in r.fields]
        while pending:
            t = pending.pop()
            if t.kind == "array":
                pending.append(t.element)
            elif t.kind in ("struct", "enum") and t.name not in used:
                used.add(t.name)
                if t.kind == "struct":
                    pending += [f.type for f in self.struct(t.name).fields]
        return frozenset(used)

    @property
    def bundle_components(self) -> Tuple[Component, ...]:
        """The components a bundle holds: all but non-exclusive relations."""
        return tuple(c for c in self.components if c.holds_value)

    def relation(self, name: str) -> Relation:
        return next(r for r in self.relations if r.name == name)

    def component(self, name: str) -> Component:
        return next(c for c in self.components if c.name == name)

    def sparse_terms(self, terms: Terms) -> Tuple[str, ...]:
        """The sparse components among a query's terms, in schema order."""
        return tuple(c for c in terms.required + terms.without + terms.optional if self.component(c).sparse)

    def sparse_rows(self, terms: Terms) -> bool:
        """A term reads a sparse component's value, or an optional one is
        sparse: a visit yields one row a batch, whose value is looked up."""
        return any(self.component(c).sparse for c in terms.read + terms.write + terms.optional)

    def first_receiver(self, event: str) -> int:
        """The schedule position of the first system that receives `event`
        (0 if none): no receiver's window reaches events of the step before
        that were emitted before it."""
        return min((y.order for y in self.systems if event in y.receives), default=0)

    def struct(self, name: str) -> StructType:
        return next(s for s in self.structs if s.name == name)

    def enum(self, name: str) -> EnumType:
        return next(e for e in self.enums if e.name == name)

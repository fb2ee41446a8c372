"""The schema language's definitions: every key of every section, what its
value holds, what it means and an example.

The validator reads the key names from here (TOP_LEVEL_KEYS, SYSTEM_KEYS,
...) to accept and report keys; `jsonschema.py` reads the same definitions to
write the JSON Schema that editors use for completion, hover text and errors
as you type. A key added here is therefore known to both at once.

Each Key says what its value holds with one word, `value`:

    name         a C identifier (a world, a phase, a system, a former name)
    names        a list of names (components, systems, resources)
    former_names one name or a list of names (`renamed_from`)
    phases       a list of distinct phases, at least one: a name, or a mapping
                 with the keys of PHASE (a fixed-rate phase)
    rate         a positive integer of runs a second
    count        a positive integer (runs, steps)
    seconds      a positive number of seconds
    states       a mapping from state machine names to lists of their states
    state_map    a mapping from state machine names to a state or a list of
                 states (`in_state`, `on_enter`, `on_exit`)
    conditions   a mapping from resource names to a bool field, or a list of
                 them, each optionally `not FIELD` (`run_if`)
    version      a positive integer
    flag         true or false
    fields       a mapping of fields: `name: TYPE`, `name: "TYPE = DEFAULT"`
                 or `name: {type: TYPE, default: VALUE}`
    field_type   a field's type: f32, u8[4], char[16], a name from `types:`
    any          any value, checked by the generator alone (a field's default)
    access       a system's `resources: {read: [...], write: [...]}`
    policy       what happens to a link when its target is destroyed: one of
                 POLICIES (`on_target_destroy`)
    storage      where a component's values live: one of STORAGES (`storage`)
    sender       who sends an event: one of SENDERS (`sent_by`)
    a section    types, components, resources, events, queries, systems, assemblages:
                 a mapping from names to what that section declares
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Tuple

# The words a Key's `value` may be (see the module's docstring).
VALUES = ("name", "names", "former_names", "phases", "version", "flag", "fields", "field_type", "any", "access",
          "policy", "storage", "sender", "rate", "count", "seconds", "states", "state_map", "conditions", "types",
          "components", "resources", "events", "queries", "systems", "assemblages", "relations")

# The values of `on_target_destroy`, in the order the docs list them.
POLICIES = ("keep", "clear", "remove", "destroy")
# The values of an event's `sent_by`: systems only, or the game too.
GAME = "game"
SENDERS = ("systems", GAME)

# The values of a component's `storage`, the default first.
STORAGES = ("table", "sparse")


@dataclass(frozen=True)
class Key:
    """One key of a section: what it holds, what it means (an editor's hover
    text) and an example value (as YAML loads it)."""
    name: str
    value: str
    description: str
    example: Any
    required: bool = False
    default: Any = None  # None: no default beyond "absent"

    def __post_init__(self) -> None:
        if self.value not in VALUES:
            raise ValueError(f"key '{self.name}': unknown value kind {self.value!r}")


@dataclass(frozen=True)
class Item:
    """What a section's entries are (a component, a field, ...): the hover
    text of an entry and an example of one."""
    description: str
    example: Any


def names(keys: Tuple[Key, ...]) -> Tuple[str, ...]:
    return tuple(k.name for k in keys)


def key(keys: Tuple[Key, ...], name: str) -> Key:
    """The key called `name` among `keys`."""
    return next(k for k in keys if k.name == name)


# --- the top level -----------------------------------------------------------

TOP_LEVEL = (
    Key("world", "name",
        "The world's name: a C identifier that prefixes everything generated (`rect` gives `rect_world`, "
        "`rect_entity`, `RECT_POSITION`). Name the file `<world>.yaml`.",
        "game", required=True),
    Key("version", "version",
        "The schema's own version, a positive integer. Saves record it; a world loads saves of its version "
        "or older.",
        1, required=True),
    Key("phases", "phases",
        "The ordered phases of a step. Systems run phase by phase; a system names its phase with `phase:`. "
        "A phase written `{ name: physics, rate: 60 }` runs at a fixed rate: 0..n times a step, each run with "
        "dt = 1/60.",
        ["input", {"name": "physics", "rate": 60}, "update", "render"], default=["update"]),
    Key("states", "states",
        "State machines, each a list of its states (the first is the initial one), kept as a resource of its "
        "name: `<world>_<machine>_set(w, STATE)` asks for a transition, applied at the next transition point; "
        "systems run `in_state`, `on_enter` or `on_exit` of a state.",
        {"Game": ["title", "playing", "paused", "over"]}),
    Key("types", "types",
        "Reusable struct types (a mapping of fields) and enums (`{enum: [a, b]}`) that fields of "
        "components, resources and other types may use.",
        {"Color": {"r": "u8", "g": "u8", "b": "u8", "a": "u8 = 255"}, "Shape": {"enum": ["square", "circle"]}}),
    Key("components", "components",
        "The components, numbered in declaration order. Each is a mapping of fields; one with no fields "
        "(`{}` or nothing) is a tag.",
        {"Position": {"x": "f32", "y": "f32"}, "Collision": {}}),
    Key("relations", "relations",
        "Typed links from an entity (the source) to another (the target): `exclusive` (one target, a "
        "hierarchy such as ChildOf) or many, optional `data` on the link, and what happens to the link "
        "when its target is destroyed (`on_target_destroy`). Queries name a relation like a component.",
        {"ChildOf": {"exclusive": True, "on_target_destroy": "destroy"}, "Targets": {}}),
    Key("resources", "resources",
        "Singletons stored in the world, each a mapping of at least one field, starting at its defaults.",
        {"Score": {"value": "i32 = 0"}}),
    Key("events", "events",
        "Events, each a mapping of at least one field: a system lists those it emits in `emit` and those it "
        "receives in `receive`; `sent_by: game` for one the game sends. An event lives one step: every "
        "receiver sees it once.",
        {"Eaten": {"who": "entity", "by": "entity", "size": "f32"}}),
    Key("queries", "queries",
        "Free-standing typed queries: terms over components, iterated with `<world>_<query>_next`.",
        {"Collidables": {"read": ["Position"], "with": ["Collision"]}}),
    Key("systems", "systems",
        "The systems. They run in phase order, then as `before` / `after` say, then in declaration order. "
        "The game defines `<world>_<system>_run`.",
        {"Move": {"read": ["Velocity"], "write": ["Position"]}}),
    Key("assemblages", "assemblages",
        "Entity templates: the components an entity is created with, with field overrides. Each gives "
        "`<world>_spawn_<name>(w)` and `<world>_spawn_<name>_many(w, n, out)`.",
        {"Player": {"extends": "Rect", "Health": {"value": 100}}}),
    Key("save_name", "name",
        "The name saves record and loading matches; default: `world`. Versions of one game that differ "
        "in `world:` keep one `save_name`.",
        "game"),
    Key("threads", "flag",
        "`true`: systems that touch disjoint data run side by side, in batches, on the world's threads "
        "(`threads` in the world desc), and a batch's structural changes apply at its end; default: one "
        "system a batch, as a single-threaded step runs them. `parallel` systems split either way.",
        True, default=False),
)

# The keys of a phase written as a mapping (a fixed-rate phase).
PHASE = (
    Key("name", "name", "The phase's name, as systems' `phase:` names it.", "physics", required=True),
    Key("rate", "rate",
        "Runs a second of game time: the phase keeps an accumulator of the steps' time (integer nanoseconds x "
        "rate) and runs 0..max_runs times a step, once per 1/rate s, each run with dt = 1/rate. The game reads "
        "the fraction of a period left with `<world>_<phase>_fraction(w)`.",
        60),
    Key("max_runs", "count",
        "The most runs in one step (against the spiral of death): whole periods left beyond them are dropped, "
        "so the game slows down instead of falling behind. Default: a quarter of a second's worth of runs "
        "(rate / 4, rounded up).",
        8),
)
PHASE_KEYS = ("name", "rate", "max_runs")
# max_runs when not given: this many seconds of runs (rounded up, at least one).
MAX_RUNS_SECONDS = 0.25

# --- queries and systems --------------------------------------------------------

TERMS = (
    Key("read", "names",
        "Components required and read: the iterator gives `const T *` columns.",
        ["Position", "Velocity"]),
    Key("write", "names",
        "Components required and written: the iterator gives `T *` columns.",
        ["Position"]),
    Key("with", "names",
        "Components required but not accessed (tags go here): no column in the iterator.",
        ["Collision"]),
    Key("without", "names",
        "Components excluded: an entity with any of them does not match.",
        ["Frozen"]),
    Key("optional", "names",
        "Components not required: the iterator gives a `const T *` that is NULL for tables without it "
        "(a `bool` for a tag).",
        ["Target"]),
)
# A query (and a system with terms) needs at least one of these.
REQUIRED = ("read", "write", "with")

CHANGED = Key("changed", "names",
              "A subset of `read` / `write`: visit only the entities whose listed components were written "
              "since the last run (one row per batch).",
              ["Position"])

CASCADE = Key("cascade", "name",
              "An exclusive relation: visit every target before its sources (parents before children, "
              "table by table, depth by depth), so a transform propagates in one pass.",
              "ChildOf")

QUERY = TERMS + (CHANGED, CASCADE)

# A system's event lists.
EVENT_LISTS = (
    Key("emit", "names",
        "Events the system emits, with `<world>_<event>_emit(ctx, &(<world>_<event>){...})`.",
        ["Collision"]),
    Key("receive", "names",
        "Events the system receives: `ctx-><event>_events[0..ctx-><event>_count)`, those emitted since its "
        "last run. The system runs after their emitters when nothing else decides the order.",
        ["Collision"]),
    Key("receive_late", "names",
        "Events received like `receive`, when the system runs before an emitter on purpose: it sees that "
        "emitter's events of the step before, and the generator does not warn about it.",
        ["Input"]),
)

# What holds a system back in its phase (its gate).
GATES = (
    Key("in_state", "state_map",
        "Run only while the state machine is in the state, or one of the states: `{Game: playing}`, "
        "`{Game: [playing, paused]}`; several machines must all hold.",
        {"Game": "playing"}),
    Key("run_if", "conditions",
        "Run only while a bool field of a resource is true (`not FIELD`: false): `{Settings: ai_enabled}`; "
        "a list of fields, or several resources, must all hold. The condition reads the resource: a system "
        "that writes it runs before, in another batch.",
        {"Settings": "ai_enabled"}),
    Key("interval", "seconds",
        "Run once every this many seconds of game time (in a fixed phase, of its runs' time), the first time "
        "when that much has passed; at most once a step (a run); time counts while its other gates are open.",
        0.5),
    Key("every", "count",
        "Run every N-th step (in a fixed phase, every N-th run of it), the first time at the N-th; the count "
        "goes on while its other gates are open.",
        10),
)
# When a system runs instead of in a phase: at a transition of a state machine.
TRANSITIONS = (
    Key("on_enter", "state_map",
        "Run once each time the state machine enters the state (or one of the states), at the transition "
        "point, instead of in a phase: `{Game: title}`. The initial state is entered at the start of the "
        "first step.",
        {"Game": "title"}),
    Key("on_exit", "state_map",
        "Run once each time the state machine leaves the state (or one of the states), at the transition "
        "point, before the new state's `on_enter` systems: `{Game: playing}`.",
        {"Game": "playing"}),
)
# A condition's field read the other way round: `not FIELD`.
NOT = "not"

SYSTEM = (
    (Key("phase", "name",
         "The phase the system runs in; default `update` if it is a phase, else the first phase.",
         "update", default="update"),)
    + TERMS
    + (Key("before", "names", "Systems of the same phase (or a later one) this system runs before.",
           ["Render"]),
       Key("after", "names", "Systems of the same phase (or an earlier one) this system runs after.",
           ["Input"]),
       Key("resources", "access",
           "The resources the system reads and writes: `{read: [...], write: [...]}` ('write' gives read "
           "access too); reached through its context.",
           {"read": ["Tuning"], "write": ["Score"]}),
       CHANGED,
       CASCADE)
    + EVENT_LISTS
    + (Key("aspect", "fields",
           "Per-entity state private to the system, a mapping of fields: made at its defaults when an "
           "entity starts to match, dropped when it stops; `ctx->aspect[i]` in the run function.",
           {"sprite": "u32"}),
       Key("on_add", "flag",
           "`true`: the game defines `<world>_<system>_on_add(w, e, aspect)`, called when an entity starts "
           "to match the system.",
           True, default=False),
       Key("on_remove", "flag",
           "`true`: the game defines `<world>_<system>_on_remove(w, e, aspect)`, called when an entity stops "
           "matching the system.",
           True, default=False),
       Key("parallel", "flag",
           "`true`: the system's rows are split into chunks (a table and a row range each) run on the "
           "world's worker threads; `_run` is called once a chunk. Not with `changed` or `emit`.",
           True, default=False),
       Key("main_thread", "flag",
           "`true`: the system always runs on the thread that calls `<world>_world_step` (it talks to a "
           "window or a library that is not thread-safe); other systems of its batch may run beside it.",
           True, default=False))
    + GATES
    + TRANSITIONS
)

RESOURCE_ACCESS = (
    Key("read", "names", "Resources the system reads: `const T *` in its context.", ["Tuning"]),
    Key("write", "names", "Resources the system reads and writes: `T *` in its context.", ["Score"]),
)

# --- bodies of components, resources and fields ---------------------------------

# Keys of a component body that are hooks, not fields.
HOOKS = (
    Key("on_add", "flag",
        "`true`: the game defines `<world>_<component>_on_add(w, e, value)`, called when the component is "
        "added to an entity.",
        True, default=False),
    Key("on_remove", "flag",
        "`true`: the game defines `<world>_<component>_on_remove(w, e, value)`, called when the component "
        "is removed or its entity destroyed.",
        True, default=False),
    Key("on_set", "flag",
        "`true`: the game defines `<world>_<component>_on_set(w, e, value)`, called once per entity whose "
        "value was written (set, mut, an add, a system's write term) when the changes settle; not for a tag.",
        True, default=False),
)

# Reserved in a component body: not a field.
STORAGE = Key("storage", "storage",
              "Where the component lives: `table` (the default), a column of its entities' archetype tables, "
              "the fastest to iterate; or `sparse`, a set beside the tables, so adding or removing it moves no "
              "row: for a tag or value that comes and goes every few frames (stunned, selected, on fire).",
              "sparse", default="table")

# Reserved in a component or resource body: not a field.
RENAMED = Key("renamed_from", "former_names",
              "The former name, or a list of former names (a load tries the current name, then these in "
              "order), so that saves made before the renames load into this one. None may be a current name "
              "of the same kind.",
              "Health")

LONG_FIELD = (
    Key("type", "field_type",
        "The field's type: bool, i8..i64, u8..u64, f32, f64, entity, char[N] (a string of N-1 bytes), T[N] "
        "(an array) or a name from `types:`.",
        "f32", required=True),
    Key("default", "any",
        "The field's default, checked against its type: a number, true/false, an enum member, a string "
        "for char[N], a list for T[N], a mapping overriding some fields of a struct. An entity has none.",
        1.5),
    Key("renamed_from", "former_names",
        "The field's former name, or a list of former names tried in order after the current one, so "
        "that saves made before the renames load into this field.",
        "value"),
    Key("on_target_destroy", "policy",
        "An `entity` field of a component: what happens when the entity it names is destroyed. `keep` "
        "leaves the stale handle, `clear` sets the field to the null entity, `remove` removes the "
        "component, `destroy` destroys the entity holding it.",
        "clear", default="keep"),
)

# The body of a relation.
RELATION = (
    Key("exclusive", "flag",
        "`true`: a source has at most one target (setting another replaces it), links form a forest, and "
        "the relation has a depth, subtree destroys and `cascade` order. Cycles are refused.",
        True, default=False),
    Key("data", "fields",
        "Fields carried by each link (an exclusive relation only), e.g. a slot number: read with "
        "`<world>_<relation>_get`, and by queries that `read` the relation.",
        {"slot": "u8"}),
    Key("on_target_destroy", "policy",
        "What happens to a source when its target is destroyed: `remove` the link (the default), "
        "`destroy` the source too (a subtree dies with its root), `clear` (exclusive) keep the link with "
        "a null target, or `keep` the stale handle.",
        "destroy", default="remove"),
    Key("renamed_from", "former_names",
        "The relation's former name, or a list of former names, so that saves made before the rename "
        "keep their links.",
        "Parent"),
)


# Reserved in an event body: not a field.
SENT_BY = Key("sent_by", "sender",
              "Who sends the event: `systems` (the default: a system must list it in `emit`) or `game`: game code "
              "or a hook sends it with `<world>_<event>_send(w, &v)` (input from a window, say), so no system "
              "needs to emit it; systems may emit it too. Receivers see it as they see emitted events.",
              "game", default="systems")

# Reserved in an assemblage body: not a component.
EXTENDS_KEY = Key("extends", "name",
                  "The parent assemblage: start from its components and values, then add and override.",
                  "Rect")

# The one key of an enum type.
ENUM_KEY = Key("enum", "names", "The enum's members, in order: `<WORLD>_<TYPE>_<MEMBER>` in C.",
               ["square", "circle"])

# --- what the sections' entries are ----------------------------------------------

ITEMS = {
    "schema": Item("A Strata schema: one world's components, resources, queries, systems and assemblages, from "
                   "which strata-gen writes typed C.",
                   {"world": "game", "version": 1, "components": {"Position": {"x": "f32", "y": "f32"}}}),
    "type": Item("A reusable type: a struct (a mapping of fields) or an enum (`{enum: [members]}`).",
                 {"x": "f32", "y": "f32"}),
    "component": Item("A component: a mapping of fields, `{}` or nothing for a tag. May also have hooks "
                      "(`on_add`, `on_remove`, `on_set`), `storage` and `renamed_from`.",
                      {"x": "f32", "y": "f32 = 0"}),
    "resource": Item("A resource: a mapping of at least one field, one value stored in the world.",
                     {"value": "i32 = 0"}),
    "event": Item("An event: a mapping of at least one field, the data one emission carries; `sent_by: game` "
                  "when game code sends it.",
                  {"a": "entity", "b": "entity"}),
    "query": Item("A query: component terms (`read`, `write`, `with`, `without`, `optional`, `changed`); "
                  "at least one of `read`, `write` or `with` lists a component.",
                  {"read": ["Position"], "with": ["Collision"]}),
    "system": Item("A system: optional query terms, its phase and order, its resources. With no terms it runs "
                   "once a step.",
                   {"read": ["Velocity"], "write": ["Position"], "after": ["Input"]}),
    "assemblage": Item("An entity template: `Component: {}` takes the component's defaults, a mapping "
                       "overrides some fields; `extends: Parent` starts from another assemblage.",
                       {"Position": {}, "Health": {"value": 20}}),
    "machine": Item("A state machine: the list of its states, the first the initial one. The world keeps it as a "
                    "resource of its name.",
                    ["title", "playing", "paused", "over"]),
    "phase": Item("A phase: its name, or `{name: NAME, rate: RUNS_A_SECOND, max_runs: N}` for a fixed-rate phase.",
                  {"name": "physics", "rate": 60}),
    "relation": Item("A relation: `exclusive`, `data`, `on_target_destroy`, `renamed_from`; `{}` or "
                     "nothing for a many-to-many link that is removed when its target dies.",
                     {"exclusive": True, "on_target_destroy": "destroy"}),
    "field": Item("A field: `TYPE`, `\"TYPE = DEFAULT\"` or `{type: TYPE, default: VALUE}`.",
                  "f32 = 0"),
    "override": Item("The component's field values in this assemblage: `{}` for its defaults, or a mapping "
                     "overriding some fields.",
                     {"value": 20}),
}

# --- field types ---------------------------------------------------------------------

SCALAR_DESCRIPTIONS = {
    "bool": "true or false (C bool)",
    "i8": "a signed 8-bit integer (int8_t)",
    "i16": "a signed 16-bit integer (int16_t)",
    "i32": "a signed 32-bit integer (int32_t)",
    "i64": "a signed 64-bit integer (int64_t)",
    "u8": "an unsigned 8-bit integer (uint8_t)",
    "u16": "an unsigned 16-bit integer (uint16_t)",
    "u32": "an unsigned 32-bit integer (uint32_t)",
    "u64": "an unsigned 64-bit integer (uint64_t)",
    "f32": "a 32-bit float (float)",
    "f64": "a 64-bit float (double)",
}
# What other languages call a field's type, and the schema's spelling (a
# string is the fixed char[N], N counting the NUL): the hint for `hp: int`.
STRING_SPELLING = '"char[N]" (N bytes with the NUL), e.g. "char[32]"'
FOREIGN_TYPES = {
    **dict.fromkeys(("signed char", "int8_t", "int8", "sbyte"), "i8"),
    **dict.fromkeys(("short", "short int", "signed short", "int16_t", "int16"), "i16"),
    **dict.fromkeys(("int", "signed", "signed int", "int32_t", "int32", "integer"), "i32"),
    **dict.fromkeys(("long", "long int", "long long", "long long int", "signed long", "int64_t", "int64",
                     "ssize_t", "intptr_t", "ptrdiff_t", "time_t"), "i64"),
    **dict.fromkeys(("unsigned char", "uint8_t", "uint8", "byte"), "u8"),
    **dict.fromkeys(("unsigned short", "unsigned short int", "uint16_t", "uint16"), "u16"),
    **dict.fromkeys(("unsigned", "unsigned int", "uint32_t", "uint32", "uint"), "u32"),
    **dict.fromkeys(("unsigned long", "unsigned long int", "unsigned long long", "unsigned long long int",
                     "uint64_t", "uint64", "size_t", "uintptr_t"), "u64"),
    **dict.fromkeys(("float", "float32", "single"), "f32"),
    **dict.fromkeys(("double", "float64", "long double", "real", "number"), "f64"),
    **dict.fromkeys(("_Bool", "boolean", "Bool", "BOOL"), "bool"),
    **dict.fromkeys(("string", "String", "str", "text", "char *", "const char *", "char const *"), STRING_SPELLING),
    **dict.fromkeys(("Entity", "entity_t", "strata_entity_t", "id"), "entity"),
}
ENTITY_DESCRIPTION = "a handle to an entity; its default is always the null entity"
STRING_DESCRIPTION = "char[N]: a NUL-terminated string of at most N-1 bytes (N >= 2)"
ARRAY_DESCRIPTION = "T[N]: an array of N values of type T"

# --- the names the validator checks keys against ------------------------------------

TOP_LEVEL_KEYS = names(TOP_LEVEL)
TERM_KEYS = names(TERMS)
REQUIRED_TERMS = REQUIRED
QUERY_KEYS = names(QUERY)
SYSTEM_KEYS = names(SYSTEM)
RELATION_KEYS = names(RELATION)
HOOK_KEYS = names(HOOKS)  # in a component body: hooks, not fields
STORAGE_KEY = STORAGE.name  # in a component body: not a field
LONG_FIELD_KEYS = names(LONG_FIELD)
RENAMED_FROM = RENAMED.name  # reserved in a component or resource body: not a field
SENT_BY_KEY = SENT_BY.name  # reserved in an event body: not a field
DEFAULT_SENDER = SENT_BY.default
EXTENDS = EXTENDS_KEY.name  # reserved in an assemblage body: not a component
RESOURCE_ACCESS_KEYS = names(RESOURCE_ACCESS)
EVENT_KEYS = names(EVENT_LISTS)  # a system's event lists
GATE_KEYS = names(GATES)  # what holds a system back in its phase
TRANSITION_KEYS = names(TRANSITIONS)  # a system that runs at transitions

# --- the defaults the validator fills in, from the keys above --------------------------
DEFAULT_PHASES = tuple(key(TOP_LEVEL, "phases").default)  # a schema without `phases:`
DEFAULT_PHASE = key(SYSTEM, "phase").default  # a system without `phase:`, if it is a phase
FIELD_POLICY = key(LONG_FIELD, "on_target_destroy").default  # an entity field's target is destroyed
RELATION_POLICY = key(RELATION, "on_target_destroy").default  # a link's target is destroyed

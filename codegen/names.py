"""Every C identifier the generator emits is spelt here, and only here.

Templates ask this module for a name by its purpose (`n.world_create`,
`n.component('Position').get`, `n.system('Move').ctx`); they never build an
identifier out of pieces. Each element's names are one `Spelled` table of
purpose -> (identifier, scope), so the same tables that the templates read
are the ones `emitted` enumerates and `collisions` checks: a name added to a
table is checked the moment it exists.

Scopes follow C's namespaces as the generated files use them:

  file             typedefs, struct tags, statics, enum constants
  function         functions (file scope; the identifier is followed by '(')
  macro            object-like #defines: they break the same spelling in every scope
  function macro   function-like #defines (an event's emit)
  member S         the members of the generated struct S
  param F          the parameters of the generated function type F
  local            the fixed parameter and local names of generated bodies

A table lists the names the generated files hold for that schema, and only
those: a component without hooks has no `_on_add`, a system without terms
no `_next`, a tag no `_get` (tests/codegen/test_names.py checks the output
holds every listed name and no other).

`collisions(schema)` reports, as `file:line:col` errors naming both sides,
any two names that meet in one scope, one of our object-like macros that
meets any name, a name the C library or the runtime owns (reserved.py: a
library's function-like macro breaks only a function or a macro of its
name, so a struct member may be called `floor`), and a world name whose
header would hide a C library or runtime header.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Tuple

from . import model, reserved
from .errors import Diagnostic

C_SCALARS = {
    "bool": "bool",
    "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
    "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t",
    "f32": "float", "f64": "double",
}

FILE, FUNC, MACRO, FMACRO, LOCAL = "file", "function", "macro", "function macro", "local"
GLOBAL = (FILE, FUNC, MACRO, FMACRO)  # the scopes of C's file-scope ordinary identifiers

# The world's own names: purpose -> noun after the world prefix (lower case),
# by scope; a purpose is its noun unless a pair says otherwise.
WORLD_FUNCTIONS = (
    "entity_eq", "world_create", "world_destroy", "world_step", "world_step_ns", "world_stats", "world_user", "world_set_user",
    "world_core", "world_core_const", "entity_create", "entity_destroy", "entity_alive", "entity_create_bundle",
    "entity_create_many", "entity_add_bundle", "entity_remove_bundle",
    "world_save", "world_save_mem", "world_load", "world_load_mem", "world_save_json", "world_dump_json",
    "world_dump_json_mem", "world_load_json", "world_load_json_mem", "entity_print", "entity_json",
    "world_clear", "entity_each", "entity_index", "entity_generation", "assert_handler_set", "inspect_start",
    "inspect_schedule",
    # statics of the live module's entry (<world>_live.c)
    "live_create_",
    # room made ahead and given back (docs/guide.md, "Room ahead, tables given back")
    "world_free_empty_tables", "reserve_bundle", "reserve_entities",
    # snapshots and the checksum (docs/rollback.md)
    "snapshot_create", "snapshot_destroy", "snapshot_take", "snapshot_restore", "snapshot_bytes",
    "snapshot_ring_create", "snapshot_ring_destroy", "snapshot_ring_take", "snapshot_ring_restore",
    "snapshot_ring_holds", "checksum",
    # statics of the world's .c
    "bundle_gather_", "entity_visit_call_", "world_of_",
)
WORLD_FILE_NOUNS = (
    "world", "entity", "bundle", ("component_id_type", "component_id"), "entity_fn",
    # the runtime's types a game meets, under the world's prefix (typedefs; the strata_ names work too)
    "result_t", "world_desc_t", "world_stats_t", "load_report_t", "assert_handler_t", "snapshot_t",
    "snapshot_ring_t",
    # statics of the world's .c
    "resources_", "resources_defaults_", "components_", "schema_", "component_types_", "resource_type_",
    "entity_visit_",
    # the live module's entry: the game's table (the game defines it) and the schema's locations
    "live_game", "live_locations_",
)
WORLD_CONSTANTS = ("COMPONENT_COUNT",)  # enum constants (file scope)
WORLD_MACROS = ("STRATA_GEN_VERSION", "STRATA_GEN_VERSION_STRING", "VERSION_MISMATCH", "ENTITY_NULL",
                "GENERATED_H")

# Members and parameters the templates spell themselves, by the struct or
# function type they belong to. A schema name that becomes a member of the
# same struct is a collision.
ENTITY_MEMBERS = ("id",)
ITER_MEMBERS = ("count", "entities", "impl_")  # a query iterator, a system context with terms
CTX_MEMBERS = ("world", "dt")  # a system context
ASPECT_MEMBER = "aspect"  # a system context with an aspect
CASCADE_MEMBER = "up"  # a cascade iterator or context: its batch's parents (a struct)
CASCADE_ROW = "row"  # in that struct: each row's parent's row
RESOURCES_MEMBERS = ("enabled",)  # the world's resource block
LOOP_MEMBER = "loop_"  # the resource block's clock of the loop (fixed phases, counters), when it has one
LOOP_MEMBERS = ("clocks", "counters")  # the members of that clock
MACHINE_SUFFIX = "_state"  # a state machine's resource type: <world>_<machine>_state (the enum is <world>_<machine>)
EACH_PARAMS = ("count", "entities", "user")  # a query's _each callback
LINK_DEPTH = "depth_"  # the member of an exclusive relation's link that the runtime keeps (its depth)
BUNDLE_PLACEHOLDER = "none_"  # the member of a bundle when the world has no components
# Parameters and locals of generated function bodies (they meet only macros).
LOCALS = ("a", "b", "e", "v", "w", "it", "ctx", "fn", "user", "n", "out", "f", "path", "buf", "cap", "size",
          "report", "data", "text", "enabled", "dt", "value", "aspect", "id", "k", "ids", "values", "core",
          "first", "r", "desc", "systems", "full", "view", "system", "all", "i", "s", "ring", "count", "at",
          "entities", "q")


def has_query_ids(s: model.Schema) -> bool:
    """The world has query ids: free queries, or systems with terms."""
    return bool(s.queries) or any(y.query_index is not None for y in s.systems)


def snake(name: str) -> str:
    """CamelCase or mixedCase to snake_case: 'PlayerControlled' -> 'player_controlled'."""
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    s = re.sub(r"(?<=[A-Z])(?=[A-Z][a-z])", "_", s)
    return s.lower()


@dataclass(frozen=True)
class Name:
    """One emitted identifier: where it comes from and the scope it lives in."""
    ident: str
    scope: str
    what: str  # the schema element that makes it: "component 'Position'", or "the world's own API"
    loc: Optional[model.Loc]  # None for the generator's own fixed names
    purpose: str


class Spelled:
    """The C names of one schema element (or of the world), by purpose.

    `spelled.get` or `spelled['get']` is the identifier; `entries()` lists
    (purpose, identifier, scope) for the collision check.
    """

    def __init__(self, what: str, loc: Optional[model.Loc], table: Dict[str, Tuple[str, str]]):
        self._what = what
        self._loc = loc
        self._table = table

    def __getattr__(self, purpose: str) -> str:
        if purpose.startswith("_"):
            raise AttributeError(purpose)
        try:
            return self._table[purpose][0]
        except KeyError:
            raise AttributeError(f"{self._what} has no C name for '{purpose}'") from None

    def __getitem__(self, purpose: str) -> str:
        return self.__getattr__(purpose)

    def hook(self, hook: str) -> str:
        """The game's hook function: hook('on_add')."""
        return self[hook]

    def hook_call(self, hook: str) -> str:
        """The static that calls the game's hook: hook_call('on_add')."""
        return self[hook + "_call"]

    def names(self) -> Iterator[Name]:
        for purpose, (ident, scope) in self._table.items():
            yield Name(ident, scope, self._what, self._loc, purpose)


class Names:
    """The C spelling of one world's identifiers."""

    def __init__(self, schema: model.Schema):
        self.schema = schema
        self.stem = snake(schema.world)
        self.STEM = self.stem.upper()
        self._world_names = Spelled("the world's own API", None, self._world_table(schema))
        self._cache: Dict[Tuple[str, str], Spelled] = {}
        kinds = [(e.name, self.enum) for e in schema.enums] + [(t.name, self.struct) for t in schema.structs]
        kinds += [(c.name, self.component) for c in schema.components]
        kinds += [(r.name, self.resource) for r in schema.resources]
        kinds += [(e.name, self.event) for e in schema.events]
        self._data_kind = dict(kinds)
        self._enum_members = {e.name: e.members for e in schema.enums}
        self._assemblage_components = {a.name: a.components for a in schema.assemblages}
        self._components = {c.name: c for c in schema.components}
        self._queries = {q.name: q for q in schema.queries}
        self._systems = {y.name: y for y in schema.systems}
        self._relations = {r.name: r for r in schema.relations}
        self._machines = {m.name: m for m in schema.machines}
        self._fixed = {f.name: f for f in schema.fixed}

    def __getattr__(self, purpose: str) -> str:
        """A name of the world itself: n.world_create, n.ENTITY_NULL."""
        if purpose.startswith("_"):
            raise AttributeError(purpose)
        return getattr(self._world_names, purpose)

    def _world_table(self, s: model.Schema) -> Dict[str, Tuple[str, str]]:
        """The world's own names that its files hold."""
        nouns = {FILE: list(WORLD_FILE_NOUNS), FUNC: list(WORLD_FUNCTIONS)}
        constants = list(WORLD_CONSTANTS)
        if s.assemblages:
            nouns[FUNC].append("inspect_spawn_")  # the inspector's spawn (with strata_inspect.h)
        if s.systems:
            nouns[FILE].append(("system_id_type", "system_id"))
            # the schedule's tables, which strata_world_step walks
            nouns[FILE] += ["schedule_", "systems_", "system_order_", "batches_", "phases_", "batch_items_"]
            if any(y.gated for y in s.systems):
                nouns[FILE] += ["gates_", "gate_tests_"]
            if s.transition_systems:
                nouns[FILE].append("transitions_")
            nouns[FUNC] += ["system_set_enabled", "system_is_enabled", "system_run"]
            constants.append("SYSTEM_COUNT")
        if has_query_ids(s):
            # the ids of the free queries and of the systems' queries
            nouns[FILE] += [("query_id_type", "query_id"), "queries_"]
        if s.events:
            nouns[FILE] += [("event_id_type", "event_id"), "events_"]
            constants.append("EVENT_COUNT")
        if s.relations:
            nouns[FILE] += [("relation_id_type", "relation_id"), "relations_"]
        if s.field_policies:
            nouns[FILE].append("field_policies_")
        if s.resources or s.has_loop_clock:
            nouns[FILE].append("resource_fields_")
        if s.resources:
            nouns[FUNC].append("res_")
        if s.machines:
            nouns[FILE].append("machines_")
        if s.has_loop_clock:
            # the clock in the resource block, and its reflection (saved as the resource "(loop)")
            nouns[FILE] += ["loop_", "loop_type_", "loop_fields_"]
            if s.fixed:
                nouns[FILE] += ["loop_phases_type_", "loop_phases_fields_"]
            if s.counted_systems:
                nouns[FILE] += ["loop_systems_type_", "loop_systems_fields_"]
        table = {}
        for scope, listed in nouns.items():
            for x in listed:
                purpose, noun = x if isinstance(x, tuple) else (x, x)
                table[purpose] = (self._p(noun), scope)
        table.update({noun: (self._P(noun), FILE) for noun in constants})
        table.update({noun: (self._P(noun), MACRO) for noun in WORLD_MACROS})
        return table

    def _p(self, noun: str) -> str:
        return f"{self.stem}_{noun}"

    def _P(self, noun: str) -> str:
        return f"{self.STEM}_{noun}"

    # --- files -----------------------------------------------------------------
    @property
    def header(self) -> str:
        return f"{self.stem}.h"

    @property
    def source(self) -> str:
        return f"{self.stem}.c"

    @property
    def live_source(self) -> str:
        """The live module's entry (`--live`)."""
        return f"{self.stem}_live.c"

    @property
    def schedule_text(self) -> str:
        return f"{self.stem}_schedule.txt"

    @property
    def schedule_dot(self) -> str:
        return f"{self.stem}_schedule.dot"

    @property
    def link_depth(self) -> str:
        return LINK_DEPTH

    @property
    def loop_member(self) -> str:
        """The resource block's member holding the loop's clock."""
        return LOOP_MEMBER

    @property
    def bundle_placeholder(self) -> str:
        """The bundle's only member when the world has no components."""
        return BUNDLE_PLACEHOLDER

    @property
    def graph(self) -> str:
        """The Graphviz graph's name."""
        return self.stem

    @property
    def run_pattern(self) -> str:
        """How the comments spell a system's run function."""
        return self._p("<system>_run")

    @property
    def guard(self) -> str:
        return self._world_names.GENERATED_H

    # --- each element's names ----------------------------------------------------
    def _spelled(self, kind: str, name: str, loc: Optional[model.Loc], build) -> Spelled:
        key = (kind, name)
        if key not in self._cache:
            self._cache[key] = Spelled(f"{kind} '{name}'", loc, build(snake(name)))
        return self._cache[key]

    def struct(self, name: str, loc: Optional[model.Loc] = None) -> Spelled:
        def build(s: str) -> Dict[str, Tuple[str, str]]:
            table = {"type": (self._p(s), FILE), "default_macro": (self._P(f"{s}_DEFAULT".upper()), MACRO)}
            if name in self.schema.saved_types:  # reflection data, for saves
                table.update(fields_=(self._p(f"{s}_fields_"), FILE), type_=(self._p(f"{s}_type_"), FILE))
            return table
        return self._spelled("type", name, loc, build)

    def enum(self, name: str, loc: Optional[model.Loc] = None) -> Spelled:
        def build(s: str) -> Dict[str, Tuple[str, str]]:
            table = {"type": (self._p(s), FILE)}
            if name in self.schema.saved_types:
                table.update(members_=(self._p(f"{s}_members_"), FILE), type_=(self._p(f"{s}_type_"), FILE))
            for m in self._enum_members.get(name, ()):
                table[f"member {m}"] = (self._P(f"{s}_{snake(m)}".upper()), FILE)
            return table
        return self._spelled("type", name, loc, build)

    def component(self, name: str, loc: Optional[model.Loc] = None) -> Spelled:
        c = self._components.get(name)

        def build(s: str) -> Dict[str, Tuple[str, str]]:
            table = {}
            exclusive = c is None or (c.relation and not c.is_tag)
            if c is None or not c.is_tag:
                table["type"] = (self._p(s), FILE)
            table.update(id=(self._P(s.upper()), FILE), member=(s, "member"))
            if c is None or not c.is_tag:
                table.update(default_macro=(self._P(f"{s}_DEFAULT".upper()), MACRO),
                             defaults_=(self._p(f"{s}_defaults_"), FILE), fields_=(self._p(f"{s}_fields_"), FILE))
            verbs = ["has", "remove"]
            if c is None or not c.relation:
                verbs += ["add"] + ([] if c is not None and c.is_tag else ["get", "mut", "set"])
                # many entities at once: an array of handles, or what a query matches
                verbs += ["add_many", "remove_many"]
                if has_query_ids(self.schema):
                    verbs += ["add_matching", "remove_matching"]
            else:
                verbs += ["get", "set"] if exclusive else ["add"]
            for verb in verbs:
                table[verb] = (self._p(f"{s}_{verb}"), FUNC)
            for hook in ("on_add", "on_remove", "on_set"):
                if c is None or getattr(c, hook):
                    table[hook] = (self._p(f"{s}_{hook}"), FUNC)
                    table[hook + "_call"] = (self._p(f"{s}_{hook}_"), FUNC)
            return table
        return self._spelled("component", name, loc, build)

    def resource(self, name: str, loc: Optional[model.Loc] = None) -> Spelled:
        """A resource's names; a state machine's resource is `<world>_<machine>_state`
        (the enum of its states is `<world>_<machine>`)."""
        suffix = MACHINE_SUFFIX if name in self._machines else ""
        return self._spelled("resource", name, loc, lambda s: {
            "type": (self._p(f"{s}{suffix}"), FILE),
            "res": (self._p(f"{s}{suffix}_res"), FUNC),
            "fields_": (self._p(f"{s}{suffix}_fields_"), FILE),
            "type_": (self._p(f"{s}{suffix}_type_"), FILE),
            "member": (s, "member"),
        })

    def machine(self, name: str, loc: Optional[model.Loc] = None) -> Spelled:
        """A state machine's functions (its enum is enum(name), its resource resource(name))."""
        return self._spelled("state machine", name, loc, lambda s: {
            "get": (self._p(f"{s}_get"), FUNC),
            "set": (self._p(f"{s}_set"), FUNC),
        })

    def phase(self, name: str, loc: Optional[model.Loc] = None) -> Spelled:
        """A fixed phase's functions (an ordinary phase has none)."""
        return self._spelled("phase", name, loc, lambda s: {
            "fraction": (self._p(f"{s}_fraction"), FUNC),
            "runs": (self._p(f"{s}_runs"), FUNC),
        })

    def event(self, name: str, loc: Optional[model.Loc] = None) -> Spelled:
        """An event's type, id, world-level send, and the emit macro and the
        members of the contexts of the systems that list it."""
        return self._spelled("event", name, loc, lambda s: {
            "type": (self._p(s), FILE),
            "id": (self._P(f"EVENT_{s}".upper()), FILE),
            "send": (self._p(f"{s}_send"), FUNC),
            "emit": (self._p(f"{s}_emit"), FMACRO),
            "emit_": (self._p(f"{s}_emit_"), FUNC),
            "emit_slow_": (self._p(f"{s}_emit_slow_"), FUNC),
            "events_member": (f"{s}_events", "member"),
            "count_member": (f"{s}_count", "member"),
            "out_member": (f"{s}_out_", "member"),
            "fields_": (self._p(f"{s}_fields_"), FILE),
            "type_": (self._p(f"{s}_type_"), FILE),
        })

    def query(self, name: str, loc: Optional[model.Loc] = None) -> Spelled:
        q = self._queries.get(name)

        def build(s: str) -> Dict[str, Tuple[str, str]]:
            table = {"id": (self._P(f"QUERY_{s}".upper()), FILE), "iter": (self._p(f"{s}_iter"), FILE),
                     "fn": (self._p(f"{s}_fn"), FILE)}
            verbs = ["begin", "next", "end", "count", "each"]
            if q is None or q.terms.changed:
                verbs.append("changed_count")
            for verb in verbs:
                table[verb] = (self._p(f"{s}_{verb}"), FUNC)
            return table
        return self._spelled("query", name, loc, build)

    def system(self, name: str, loc: Optional[model.Loc] = None) -> Spelled:
        y = self._systems.get(name)

        def build(s: str) -> Dict[str, Tuple[str, str]]:
            table = {"id": (self._P(f"SYSTEM_{s}".upper()), FILE), "ctx": (self._p(f"{s}_ctx"), FILE),
                     "call_": (self._p(f"{s}_call_"), FUNC)}  # the trampoline the step calls: open, run, end
            if y is None or y.query_index is not None:  # its query's id, beside the free queries'
                table["query_id"] = (self._P(f"QUERY_{s}".upper()), FILE)
            if y is None or y.aspect:
                table.update(aspect_type=(self._p(f"{s}_aspect"), FILE),
                             aspect_id=(self._P(f"ASPECT_{s}".upper()), MACRO),
                             aspect_defaults_=(self._p(f"{s}_aspect_defaults_"), FILE))
            verbs = ["run", "begin", "end", "enable", "enabled"]
            if y is None or y.query_index is not None:
                verbs += ["next", "count"]
            if y is None or y.terms.changed:
                verbs.append("changed_count")
            for hook in ("on_add", "on_remove"):
                if y is None or getattr(y, hook):
                    verbs.append(hook)
                    table[hook + "_call"] = (self._p(f"{s}_{hook}_"), FUNC)
            for verb in verbs:
                table[verb] = (self._p(f"{s}_{verb}"), FUNC)
            return table
        return self._spelled("system", name, loc, build)

    def relation(self, name: str, loc: Optional[model.Loc] = None) -> Spelled:
        """A relation's id and the functions its component's names do not
        cover (set, add, get, has, remove are the component's spellings)."""
        r = self._relations.get(name)

        def build(s: str) -> Dict[str, Tuple[str, str]]:
            table = {"id": (self._P(f"RELATION_{s}".upper()), FILE)}
            verbs = ["sources"]
            if r is None or r.exclusive:
                verbs += ["target", "depth", "destroy_tree", "hook_add_", "hook_remove_"]
            if r is None or not r.exclusive:
                verbs.append("targets")
            for verb in verbs:
                table[verb] = (self._p(f"{s}_{verb}"), FUNC)
            return table
        return self._spelled("relation", name, loc, build)

    def assemblage(self, name: str, loc: Optional[model.Loc] = None) -> Spelled:
        components = self._assemblage_components.get(name, ())
        return self._spelled("assemblage", name, loc, lambda s: dict({
            "spawn": (self._p(f"spawn_{s}"), FUNC),
            "spawn_many": (self._p(f"spawn_{s}_many"), FUNC),
            "reserve": (self._p(f"reserve_{s}"), FUNC),
            "ids_": (self._p(f"spawn_{s}_ids_"), FILE),
            "values_": (self._p(f"spawn_{s}_values_"), FILE),
        }, **{f"value {c}": (self._p(f"spawn_{s}_{snake(c)}_value_"), FILE) for c, _ in components
              if not self._components[c].is_tag}))

    # --- shorthands the templates use (each reads one of the tables above) -------
    def _data(self, name: str) -> Spelled:
        """The names of a type, component or resource called `name`."""
        return self._data_kind.get(name, self.struct)(name)

    def type(self, name: str) -> str:
        """The C type of a component, resource, struct or enum: 'rect_position'."""
        return self._data(name).type

    def component_id(self, name: str) -> str:
        """The enum constant of a component: 'RECT_POSITION'."""
        return self.component(name).id

    def enum_member(self, enum: str, member: str) -> str:
        return self.enum(enum)[f"member {member}"]

    def query_id(self, name: str) -> str:
        return self.query(name).id

    def system_id(self, name: str) -> str:
        return self.system(name).id

    def aspect_type(self, system: str) -> str:
        """The C type of a system's aspect: 'rect_render_aspect'."""
        return self.system(system).aspect_type

    def aspect_id(self, system: str) -> str:
        """The column id constant of a system's aspect: 'RECT_ASPECT_RENDER'."""
        return self.system(system).aspect_id

    def spawn(self, assemblage: str, many: bool = False) -> str:
        """The spawn function of an assemblage: 'rect_spawn_player' (bulk: 'rect_spawn_player_many')."""
        return self.assemblage(assemblage)["spawn_many" if many else "spawn"]

    def spawn_value(self, assemblage: str, component: str) -> str:
        """The static value of one component of an assemblage: 'rect_spawn_player_health_value_'."""
        return self.assemblage(assemblage)[f"value {component}"]

    def type_desc(self, name: str) -> str:
        """The static strata_type_desc_t of a type or resource: 'rect_position_type_'."""
        return self._data(name).type_

    def field_descs(self, name: str) -> str:
        """Its static strata_field_desc_t array: 'rect_position_fields_'."""
        return self._data(name).fields_

    def member_names(self, name: str) -> str:
        """An enum's static array of member names: 'rect_shape_members_'."""
        return self.enum(name).members_

    def member(self, name: str) -> str:
        """A struct member or parameter for a component or resource: 'Position' -> 'position'."""
        return self._data(name).member

    # --- types of fields ----------------------------------------------------
    def ctype(self, t: model.TypeRef) -> str:
        """The C type of a field, without array suffix."""
        if t.kind == "scalar":
            return C_SCALARS[t.name]
        if t.kind == "entity":
            return self.entity
        if t.kind == "enum":
            return self.enum(t.name).type
        if t.kind == "struct":
            return self.type(t.name)
        if t.kind == "array":
            return self.ctype(t.element)
        if t.kind == "string":
            return "char"
        raise ValueError(t.kind)

    def suffix(self, t: model.TypeRef) -> str:
        """The declarator suffix of a field: '[4]' for arrays and strings."""
        return f"[{t.length}]" if t.kind in ("array", "string") else ""

    # --- every identifier, by scope ------------------------------------------------
    def emitted(self) -> List[Name]:
        """Every identifier the generated files hold, with its scope: the
        world's own names, each element's tables, the members of every
        generated struct and the parameters of every generated function type."""
        s = self.schema
        out: List[Name] = list(self._world_names.names())
        def fixed(ident: str) -> str:
            return f"the generator's own '{ident}'"

        def member(struct: str, ident: str, what: str, loc: Optional[model.Loc], purpose: str) -> None:
            out.append(Name(ident, f"member {struct}", what, loc, purpose))

        def fields(struct: str, owner: str, fs) -> None:
            for f in fs:
                member(struct, f.name, f"{owner}: field '{f.name}'", f.loc, "field")

        member(self.entity, ENTITY_MEMBERS[0], fixed(ENTITY_MEMBERS[0]), None, "member")
        for t in s.structs:
            names = self.struct(t.name, t.loc)
            out += names.names()
            fields(names.type, f"type '{t.name}'", t.fields)
        for e in s.enums:
            out += self.enum(e.name, e.loc).names()
        for c in s.components:
            names = self.component(c.name, c.loc)
            out += [x for x in names.names() if x.scope != "member"]
            if not c.is_tag:
                fields(names.type, f"component '{c.name}'", c.fields)
            if c.relation and not c.is_tag:
                member(names.type, LINK_DEPTH, fixed(LINK_DEPTH), None, "member")
            if c.holds_value:
                member(self.bundle, names.member, f"component '{c.name}'", c.loc, "member")
        if not s.bundle_components:
            member(self.bundle, BUNDLE_PLACEHOLDER, fixed(BUNDLE_PLACEHOLDER), None, "member")
        member(self.resources_, RESOURCES_MEMBERS[0], fixed(RESOURCES_MEMBERS[0]), None, "member")
        if s.has_loop_clock:
            member(self.resources_, LOOP_MEMBER, fixed(LOOP_MEMBER), None, "member")
            for ident in LOOP_MEMBERS:
                member(self.loop_, ident, fixed(ident), None, "member")
        for m in s.machines:
            out += self.machine(m.name, m.loc).names()
        for f in s.fixed:
            out += self.phase(f.name, f.loc).names()
        for r in s.resources:
            names = self.resource(r.name, r.loc)
            out += [x for x in names.names() if x.scope != "member"]
            fields(names.type, f"resource '{r.name}'", r.fields)
            member(self.resources_, names.member, f"resource '{r.name}'", r.loc, "member")
        for e in s.events:
            names = self.event(e.name, e.loc)
            out += [x for x in names.names() if x.scope != "member"]
            fields(names.type, f"event '{e.name}'", e.fields)
        for q in s.queries:
            names = self.query(q.name, q.loc)
            out += names.names()
            self._terms(out, names.iter, q.terms, ITER_MEMBERS, "member")
            self._terms(out, names.fn, q.terms, EACH_PARAMS, "param")
        for y in s.systems:
            names = self.system(y.name, y.loc)
            out += names.names()
            ctx = names.ctx
            for fixed_member in CTX_MEMBERS:
                member(ctx, fixed_member, fixed(fixed_member), None, "member")
            for r in y.resources_read + y.resources_write:
                member(ctx, self.member(r), f"system '{y.name}': resource '{r}'", y.loc, "member")
            if y.query_index is not None:
                self._terms(out, ctx, y.terms, ITER_MEMBERS + ((ASPECT_MEMBER,) if y.aspect else ()), "member")
            if y.aspect:
                fields(names.aspect_type, f"system '{y.name}': aspect", y.aspect)
            for e in y.emit:
                member(ctx, self.event(e).out_member, f"system '{y.name}': event '{e}'", y.loc, "member")
            for e in y.receives:
                for purpose in ("events_member", "count_member"):
                    member(ctx, self.event(e)[purpose], f"system '{y.name}': event '{e}'", y.loc, "member")
        for rel in s.relations:
            out += self.relation(rel.name, rel.loc).names()
        for a in s.assemblages:
            out += self.assemblage(a.name, a.loc).names()
        out += [Name(ident, LOCAL, fixed(ident), None, "local") for ident in LOCALS]
        return out

    def _terms(self, out: List[Name], owner: str, terms: model.Terms, fixed: Tuple[str, ...], kind: str) -> None:
        """The members (or parameters) of an iterator, context or callback."""
        scope = f"{kind} {owner}"
        for ident in fixed:
            out.append(Name(ident, scope, f"the generator's own '{ident}'", None, kind))
        for c in terms.read + terms.write + terms.optional:
            loc = self.schema.component(c).loc
            out.append(Name(self.member(c), scope, f"component '{c}'", loc, kind))
        if kind == "member" and terms.cascade:
            # The struct of the batch's parents: their rows, then the terms' columns.
            up = f"{scope}.{CASCADE_MEMBER}"
            out.append(Name(CASCADE_MEMBER, scope, f"the generator's own '{CASCADE_MEMBER}'", None, kind))
            out.append(Name(CASCADE_ROW, up, f"the generator's own '{CASCADE_ROW}'", None, kind))
            for c in terms.read + terms.write + terms.optional:
                if not self.schema.component(c).is_tag:
                    loc = self.schema.component(c).loc
                    out.append(Name(self.member(c), up, f"component '{c}'", loc, kind))


# --- the collision check ----------------------------------------------------------

_RUNTIME_PREFIX = re.compile(r"(?i)strata(_|$)")
_IMPLEMENTATION = re.compile(r"_[A-Z_]")


def _where(name: Name) -> str:
    if name.loc is None:
        return name.what
    return f"{name.what} (at {name.loc.line}:{name.loc.col})"


def _scope_text(scope: str) -> str:
    if scope in (FILE, FUNC):
        return "at file scope"
    if scope in (MACRO, FMACRO):
        return "as a macro"
    if scope == LOCAL:
        return "as a local name"
    kind, owner = scope.split(" ", 1)
    return f"as a member of struct {owner}" if kind == "member" else f"as a parameter of {owner}"


def _reserved_by(name: Name) -> Optional[str]:
    """Who owns `name.ident` already, or None."""
    ident = name.ident
    if ident in reserved.KEYWORDS:
        return "a C keyword (C11 or C23)"
    if ident in reserved.MACROS:
        return "a macro of the C library or the compiler"
    if name.scope in (FUNC, MACRO, FMACRO) and ident in reserved.FUNCTION_MACROS:
        return "a function-like macro of the C library"
    if name.scope in GLOBAL and ident in reserved.FILE_SCOPE:
        return "declared by the C library"
    if ident.startswith("STRATA_") or (name.scope in GLOBAL and _RUNTIME_PREFIX.match(ident)):
        return "reserved for the Strata runtime (strata_*, STRATA_*)"
    if _IMPLEMENTATION.match(ident) or (name.scope in GLOBAL and ident.startswith("_")):
        return "reserved for the C implementation (a leading '_' at file scope, or '_' and a capital or '_')"
    return None


def _world_loc(schema: model.Schema) -> model.Loc:
    return schema.world_loc or model.Loc(schema.path, 1, 1)


def collisions(schema: model.Schema) -> List[Diagnostic]:
    """Errors for schema names whose C identifiers would clash with each
    other, with the C library or with the runtime."""
    names = Names(schema)
    out: List[Diagnostic] = []
    world = names.stem
    if world in reserved.HEADERS or _RUNTIME_PREFIX.match(world):
        owner = "the Strata runtime" if _RUNTIME_PREFIX.match(world) else "the C library"
        out.append(Diagnostic(_world_loc(schema), f"world '{schema.world}': its header '{names.header}' would hide "
                                                  f"a header of {owner}", hint="rename the world"))
    reported = set()

    def report(name: Name, message: str, rename: str, key) -> None:
        """One error per element and reason, or per pair of elements."""
        if key in reported:
            return
        reported.add(key)
        loc = name.loc or _world_loc(schema)
        out.append(Diagnostic(loc, f"{name.what}: C name '{name.ident}' {message}", hint=f"rename {rename}"))

    emitted = names.emitted()
    for name in emitted:
        owner = _reserved_by(name)
        if owner is not None:
            report(name, f"is {owner}", name.what if name.loc else f"the world '{schema.world}'", (name.what, owner))
    first_in_scope: Dict[Tuple[str, str], Name] = {}
    macros: Dict[str, Name] = {}
    for name in emitted:
        if name.scope == MACRO:
            macros.setdefault(name.ident, name)
    for name in emitted:
        scope = FILE if name.scope in GLOBAL else name.scope  # functions and macros take their file-scope spelling
        other = first_in_scope.setdefault((scope, name.ident), name)
        if other is not name and (other.what, other.purpose) != (name.what, name.purpose):
            _clash(report, name, other)
        # An object-like macro of ours breaks the spelling in every scope; a
        # function-like one (an emit) only a call, which inner names never are.
        macro = macros.get(name.ident)
        if macro is not None and macro is not name and macro.what != name.what and name.scope not in GLOBAL:
            _clash(report, name, macro)
    return out


def _clash(report, name: Name, other: Name) -> None:
    """Report the pair once, at the schema element that can be renamed
    (the later one in the file when both can)."""
    if other.loc is not None and (name.loc is None or (other.loc.line, other.loc.col) > (name.loc.line, name.loc.col)):
        name, other = other, name
    if name.loc is None:
        return  # two of the generator's own names: a bug the tests catch
    role = "the macro of " if other.scope in (MACRO, FMACRO) and name.scope not in (MACRO, FMACRO) else ""
    report(name, f"{_scope_text(name.scope)} collides with {role}{_where(other)}",
           name.what + (f" or {other.what}" if other.loc is not None else ""), frozenset((name.what, other.what)))

"""Every C identifier the generator emits is spelt here, and only here.

Templates ask this module for names (through the `Names` object the renderer
passes them); they never build an identifier out of pieces themselves. That
keeps the spelling consistent and lets `collisions` find clashes before the
C compiler does.
"""
from __future__ import annotations

import re
from typing import Dict, List, Tuple

from . import model
from .errors import Diagnostic

C_SCALARS = {
    "bool": "bool",
    "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
    "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t",
    "f32": "float", "f64": "double",
}


def snake(name: str) -> str:
    """CamelCase or mixedCase to snake_case: 'PlayerControlled' -> 'player_controlled'."""
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    s = re.sub(r"(?<=[A-Z])(?=[A-Z][a-z])", "_", s)
    return s.lower()


class Names:
    """The C spelling of one world's identifiers."""

    def __init__(self, schema: model.Schema):
        self.schema = schema
        self.world = snake(schema.world)
        self.WORLD = self.world.upper()

    # --- world-level names -------------------------------------------------
    def p(self, noun: str) -> str:
        """world-prefixed lower-case name: p('world_create') -> 'rect_world_create'."""
        return f"{self.world}_{noun}"

    def P(self, noun: str) -> str:
        """world-prefixed upper-case name: P('ENTITY_NULL') -> 'RECT_ENTITY_NULL'."""
        return f"{self.WORLD}_{noun}"

    @property
    def header(self) -> str:
        return f"{self.world}.h"

    @property
    def source(self) -> str:
        return f"{self.world}.c"

    @property
    def schedule_text(self) -> str:
        return f"{self.world}_schedule.txt"

    @property
    def schedule_dot(self) -> str:
        return f"{self.world}_schedule.dot"

    @property
    def guard(self) -> str:
        return f"{self.WORLD}_GENERATED_H"

    # --- per element --------------------------------------------------------
    def base(self, name: str) -> str:
        """The snake_case stem of a schema name ('Position' -> 'position')."""
        return snake(name)

    def type(self, name: str) -> str:
        """The C type of a component, resource, struct or enum: 'rect_position'."""
        return self.p(snake(name))

    def component_id(self, name: str) -> str:
        """The enum constant of a component: 'RECT_POSITION'."""
        return self.P(snake(name).upper())

    def enum_member(self, enum: str, member: str) -> str:
        return self.P(f"{snake(enum)}_{snake(member)}".upper())

    def fn(self, element: str, verb: str) -> str:
        """A function on an element: fn('Position', 'get') -> 'rect_position_get'."""
        return self.p(f"{snake(element)}_{verb}")

    def query_id(self, name: str) -> str:
        return self.P(f"QUERY_{snake(name).upper()}")

    def system_id(self, name: str) -> str:
        return self.P(f"SYSTEM_{snake(name).upper()}")

    def aspect_type(self, system: str) -> str:
        """The C type of a system's aspect: 'rect_render_aspect'."""
        return self.p(f"{snake(system)}_aspect")

    def aspect_id(self, system: str) -> str:
        """The column id constant of a system's aspect: 'RECT_ASPECT_RENDER'."""
        return self.P(f"ASPECT_{snake(system).upper()}")
    def spawn(self, assemblage: str, many: bool = False) -> str:
        """The spawn function of an assemblage: 'rect_spawn_player' (bulk: 'rect_spawn_player_many')."""
        return self.p(f"spawn_{snake(assemblage)}" + ("_many" if many else ""))

    def spawn_data(self, assemblage: str, what: str) -> str:
        """Static data of a spawn function: spawn_data('Player', 'ids') -> 'rect_spawn_player_ids_',
        spawn_data('Player', 'values'); for a component, its value: 'rect_spawn_player_health_value_'."""
        suffix = what if what in ("ids", "values") else f"{snake(what)}_value"
        return self.p(f"spawn_{snake(assemblage)}_{suffix}_")

    def type_desc(self, name: str) -> str:
        """The static strata_type_desc_t of a type, component or resource: 'rect_position_type_'."""
        return self.p(f"{snake(name)}_type_")

    def field_descs(self, name: str) -> str:
        """Its static strata_field_desc_t array: 'rect_position_fields_'."""
        return self.p(f"{snake(name)}_fields_")

    def member_names(self, name: str) -> str:
        """An enum's static array of member names: 'rect_shape_members_'."""
        return self.p(f"{snake(name)}_members_")

    def member(self, name: str) -> str:
        """A struct member or pointer for a component term: 'Position' -> 'position'."""
        return snake(name)

    # --- types of fields ----------------------------------------------------
    def ctype(self, t: model.TypeRef) -> str:
        """The C type of a field, without array suffix."""
        if t.kind == "scalar":
            return C_SCALARS[t.name]
        if t.kind == "entity":
            return self.p("entity")
        if t.kind in ("struct", "enum"):
            return self.type(t.name)
        if t.kind == "array":
            return self.ctype(t.element)
        if t.kind == "string":
            return "char"
        raise ValueError(t.kind)

    def suffix(self, t: model.TypeRef) -> str:
        """The declarator suffix of a field: '[4]' for arrays and strings."""
        return f"[{t.length}]" if t.kind in ("array", "string") else ""

    # --- every identifier, for collision checks --------------------------------
    def declared(self) -> List[Tuple[str, model.Loc, str]]:
        """(identifier, where, what) for every per-element identifier emitted."""
        s = self.schema
        out: List[Tuple[str, model.Loc, str]] = []
        for t in s.structs:
            out.append((self.type(t.name), t.loc, f"type '{t.name}'"))
        for e in s.enums:
            out.append((self.type(e.name), e.loc, f"type '{e.name}'"))
            for m in e.members:
                out.append((self.enum_member(e.name, m), e.loc, f"type '{e.name}' member '{m}'"))
        for c in s.components:
            what = f"component '{c.name}'"
            out.append((self.type(c.name), c.loc, what))
            out.append((self.component_id(c.name), c.loc, what))
            for verb in COMPONENT_VERBS:
                out.append((self.fn(c.name, verb), c.loc, what))
        for r in s.resources:
            out.append((self.type(r.name), r.loc, f"resource '{r.name}'"))
            out.append((self.fn(r.name, "res"), r.loc, f"resource '{r.name}'"))
        for q in s.queries:
            what = f"query '{q.name}'"
            out.append((self.query_id(q.name), q.loc, what))
            for verb in QUERY_VERBS:
                out.append((self.fn(q.name, verb), q.loc, what))
        for a in s.assemblages:
            out.append((self.spawn(a.name), a.loc, f"assemblage '{a.name}'"))
            out.append((self.spawn(a.name, many=True), a.loc, f"assemblage '{a.name}'"))
        for y in s.systems:
            what = f"system '{y.name}'"
            out.append((self.system_id(y.name), y.loc, what))
            out.append((self.aspect_id(y.name), y.loc, what))
            for verb in SYSTEM_VERBS:
                out.append((self.fn(y.name, verb), y.loc, what))
        return out


COMPONENT_VERBS = ("add", "get", "mut", "set", "has", "remove", "on_add", "on_remove")
QUERY_VERBS = ("iter", "begin", "next", "end", "count", "each", "fn", "changed_count")
SYSTEM_VERBS = ("ctx", "run", "begin", "next", "end", "count", "enable", "enabled", "aspect", "on_add", "on_remove",
                "changed_count")
# Names the generator emits for the world itself; an element must not take them.
WORLD_NOUNS = ("world", "world_create", "world_destroy", "world_step", "world_stats", "world_desc",
               "world_core", "world_user", "world_set_user", "entity", "entity_create", "entity_destroy", "entity_alive",
               "bundle", "entity_create_bundle", "entity_create_many", "entity_eq", "entity_add_bundle", "entity_remove_bundle",
               "resources", "component_id", "query_id", "system_id", "schema")
# The world's own upper-case names (macros and constants).
WORLD_MACROS = ("ENTITY_NULL", "COMPONENT_COUNT", "QUERY_COUNT", "SYSTEM_COUNT",
                "STRATA_GEN_VERSION", "STRATA_GEN_VERSION_STRING", "VERSION_MISMATCH")
# The world's save and JSON functions (templates/saves.h.j2).
SAVE_NOUNS = ("world_save", "world_save_mem", "world_load", "world_load_mem", "world_save_json",
              "world_dump_json", "world_dump_json_mem", "world_load_json", "world_load_json_mem",
              "entity_print", "entity_json")


def collisions(schema: model.Schema) -> List[Diagnostic]:
    """Errors for schema names whose C identifiers would clash."""
    names = Names(schema)
    seen: Dict[str, str] = {names.p(n): "the world's own API" for n in WORLD_NOUNS + SAVE_NOUNS}
    seen.update({names.P(n): "the world's own API" for n in WORLD_MACROS})
    out: List[Diagnostic] = []
    reported = set()  # one error per pair of elements, naming the first clash
    for ident, loc, what in names.declared():
        other = seen.get(ident)
        if other is not None and other != what and (what, other) not in reported:
            reported.add((what, other))
            out.append(Diagnostic(loc, f"{what}: C name '{ident}' collides with {other}",
                                  hint="rename one of them"))
        seen.setdefault(ident, what)
    return out

"""The validator: the model built from valid schemas, and its rules.

The exact messages of bad schemas are checked by test_bad_schemas.py; here
the model is checked field by field, and a few rules are checked through the
diagnostics they produce.
"""
import dataclasses
import hashlib
import textwrap
import unittest
from pathlib import Path

from codegen import model
from codegen.model import Loc, TypeRef
from codegen.validate import validate_source

REPO = Path(__file__).resolve().parents[2]
FULL = "tests/schema/full.yaml"

F32 = TypeRef("scalar", "f32")
VEC2_ZERO = (("x", 0.0), ("y", 0.0))
COLOR_DEFAULT = (("r", 0), ("g", 0), ("b", 0), ("a", 255))


def check(text, path="test.yaml"):
    """Validate the schema `text` (dedented); returns (schema, messages)."""
    source = textwrap.dedent(text).encode("utf-8")
    schema, diagnostics = validate_source(path, source)
    return schema, [str(d) for d in diagnostics]


def valid(text):
    """The schema of `text`, which must have no diagnostics."""
    schema, messages = check(text)
    if messages:
        raise AssertionError("unexpected diagnostics:\n" + "\n".join(messages))
    return schema


def field(fields, name):
    return next(f for f in fields if f.name == name)


class FullSchemaTest(unittest.TestCase):
    """tests/schema/full.yaml uses every feature; check the model it gives."""

    @classmethod
    def setUpClass(cls):
        cls.schema, cls.diagnostics = validate_source(FULL, (REPO / FULL).read_bytes())

    def test_is_valid_without_diagnostics(self):
        self.assertEqual([str(d) for d in self.diagnostics], [])
        self.assertIsNotNone(self.schema)

    def test_top_level(self):
        s = self.schema
        self.assertEqual((s.path, s.world, s.version), (FULL, "full", 3))
        self.assertEqual(s.phases, ("input", "update", "render"))
        self.assertEqual(s.source_hash, hashlib.sha256((REPO / FULL).read_bytes()).hexdigest())

    def test_structs_come_in_dependency_order(self):
        # Line is declared first but uses Vec2; ties go by declaration order.
        self.assertEqual([t.name for t in self.schema.structs], ["Vec2", "Line", "Color", "Sprite"])

    def test_enums(self):
        self.assertEqual(self.schema.enum("Shape").members, ("square", "circle", "triangle"))

    def test_component_indices_follow_declaration(self):
        names = [c.name for c in self.schema.components]
        self.assertEqual(names, ["Position", "Velocity", "Health", "Appearance", "Collision", "Frozen",
                                 "Name", "Target", "Counters", "Path"])
        self.assertEqual([c.index for c in self.schema.components], list(range(len(names))))

    def test_tags_have_no_fields(self):
        self.assertEqual([c.name for c in self.schema.components if c.is_tag], ["Collision", "Frozen"])

    def test_field_types(self):
        c = self.schema.component
        self.assertEqual(field(c("Position").fields, "x").type, F32)
        self.assertEqual(field(c("Health").fields, "max").type, TypeRef("scalar", "f64"))
        self.assertEqual(field(c("Appearance").fields, "shape").type, TypeRef("enum", "Shape"))
        self.assertEqual(field(c("Appearance").fields, "color").type, TypeRef("struct", "Color"))
        self.assertEqual(field(c("Name").fields, "text").type, TypeRef("string", length=24))
        self.assertEqual(field(c("Target").fields, "who").type, TypeRef("entity"))
        self.assertEqual(field(c("Path").fields, "points").type,
                         TypeRef("array", element=TypeRef("struct", "Vec2"), length=3))

    def test_scalar_defaults_in_short_and_long_form(self):
        counters = self.schema.component("Counters").fields
        defaults = {f.name: f.default for f in counters}
        self.assertEqual(defaults, {
            "flag": True, "off": False, "small": -128, "big": 2 ** 64 - 1, "mid": -16, "word": 65535,
            "count": 0, "wide": -2 ** 63, "byte": 127, "dword": 2 ** 32 - 1, "ratio": 0.25})
        velocity = self.schema.component("Velocity").fields
        self.assertEqual([f.default for f in velocity], [1.0, -0.5])
        health = self.schema.component("Health").fields
        self.assertEqual([f.default for f in health], [20.0, 1000.0])

    def test_default_value_types(self):
        defaults = {f.name: f.default for f in self.schema.component("Counters").fields}
        self.assertIs(type(defaults["flag"]), bool)
        self.assertIs(type(defaults["count"]), int)
        self.assertIs(type(defaults["ratio"]), float)
        self.assertIs(type(field(self.schema.component("Position").fields, "x").default), float)
        self.assertIs(type(field(self.schema.component("Velocity").fields, "x").default), float)

    def test_explicit_default_flags(self):
        counters = self.schema.component("Counters").fields
        self.assertTrue(field(counters, "flag").explicit_default)
        self.assertFalse(field(counters, "count").explicit_default)
        self.assertTrue(field(self.schema.component("Health").fields, "max").explicit_default)

    def test_missing_defaults_are_zero_first_member_or_struct_defaults(self):
        appearance = self.schema.component("Appearance").fields
        self.assertEqual(field(appearance, "shape").default, "square")
        self.assertEqual(field(appearance, "color").default, COLOR_DEFAULT)
        self.assertEqual(field(self.schema.component("Target").fields, "who").default, 0)
        self.assertEqual(field(self.schema.component("Path").fields, "points").default, ())  # all at Vec2's defaults

    def test_string_defaults(self):
        name = self.schema.component("Name").fields
        self.assertEqual(field(name, "text").default, "nobody")
        self.assertEqual(field(name, "initials").default, " A")  # quotes keep the space

    def test_array_defaults_keep_the_values_given_the_rest_are_element_defaults(self):
        path = self.schema.component("Path").fields
        self.assertEqual(field(path, "weights").default, (0.5, 1.0))  # the rest: the element's zero
        sprite = self.schema.struct("Sprite").fields
        self.assertEqual(field(sprite, "frames").default, (1, 2))

    def test_struct_defaults_override_some_fields(self):
        line = self.schema.struct("Line").fields
        self.assertEqual(field(line, "from").default, VEC2_ZERO)
        self.assertEqual(field(line, "to").default, (("x", 1.5), ("y", -2.0)))
        sprite = self.schema.struct("Sprite").fields
        self.assertEqual(field(sprite, "tint").default, (("r", 10), ("g", 0), ("b", 0), ("a", 255)))

    def test_nested_struct_override_starts_from_the_enclosing_default(self):
        sprite = field(self.schema.component("Appearance").fields, "sprite").default
        self.assertEqual(sprite, (
            ("tint", (("r", 10), ("g", 7), ("b", 0), ("a", 255))),  # Sprite's r=10 kept, g overridden
            ("offset", VEC2_ZERO),
            ("frames", (9,)),  # a list replaces the whole array
            ("shape", "circle"),
        ))

    def test_array_of_structs_default(self):
        palette = self.schema.resources[2]
        self.assertEqual(palette.name, "Palette")
        self.assertEqual(palette.fields[0].default, (
            (("r", 1), ("g", 0), ("b", 0), ("a", 255)),
            (("r", 0), ("g", 2), ("b", 0), ("a", 255))))

    def test_resources(self):
        self.assertEqual([r.name for r in self.schema.resources], ["Score", "Input", "Palette"])
        self.assertEqual([f.name for f in self.schema.resources[1].fields], ["dx", "dy", "fire"])

    def test_free_queries_come_first(self):
        queries = self.schema.queries
        self.assertEqual([(q.name, q.index) for q in queries], [("Collidables", 0), ("Named", 1)])
        self.assertEqual(queries[0].terms, model.Terms(read=("Position", "Appearance"), with_=("Collision",)))
        self.assertEqual(queries[1].terms, model.Terms(read=("Name",), without=("Frozen",), optional=("Target",)))

    def test_schedule_order(self):
        # input: Steer; update: Decay, Tally (after Decay, before Spawner),
        # Spawner, Move (after Spawner); render: Clear (before Draw), Draw.
        systems = self.schema.systems
        self.assertEqual([s.name for s in systems], ["Steer", "Decay", "Tally", "Spawner", "Move", "Clear", "Draw"])
        self.assertEqual([s.order for s in systems], list(range(7)))
        self.assertEqual([s.phase for s in systems],
                         ["input", "update", "update", "update", "update", "render", "render"])

    def test_system_query_indices_follow_the_schedule(self):
        indices = {s.name: s.query_index for s in self.schema.systems}
        self.assertEqual(indices, {"Steer": 2, "Decay": 3, "Tally": 4, "Spawner": None, "Move": 5,
                                   "Clear": None, "Draw": 6})

    def test_system_details(self):
        by_name = {s.name: s for s in self.schema.systems}
        move = by_name["Move"]
        self.assertEqual(move.terms, model.Terms(read=("Velocity",), write=("Position",), without=("Frozen",)))
        self.assertEqual((move.before, move.after), ((), ("Spawner",)))
        self.assertEqual((by_name["Tally"].before, by_name["Tally"].after), (("Spawner",), ("Decay",)))
        spawner = by_name["Spawner"]
        self.assertTrue(spawner.terms.empty)
        self.assertEqual((spawner.resources_read, spawner.resources_write), (("Input",), ("Score",)))
        self.assertEqual(by_name["Draw"].terms.optional, ("Collision",))
        self.assertEqual(move.loc, Loc(FULL, 67, 3))

    def test_locations_point_at_keys(self):
        self.assertEqual(self.schema.component("Position").loc, Loc(FULL, 21, 3))
        self.assertEqual(field(self.schema.component("Health").fields, "max").loc, Loc(FULL, 25, 5))
        self.assertEqual(self.schema.queries[0].loc, Loc(FULL, 57, 3))

    def test_model_is_immutable_and_free_of_yaml_nodes(self):
        hash(self.schema)  # every part is frozen and hashable: tuples, never lists
        allowed = (str, int, float, bool, type(None), tuple, model.Loc, model.TypeRef, model.Field,
                   model.StructType, model.EnumType, model.Component, model.Resource, model.Terms,
                   model.Query, model.System, model.Schema, model.Schedule, model.Batch, model.Apart)

        def walk(value):
            self.assertIsInstance(value, allowed)
            if dataclasses.is_dataclass(value):
                for f in dataclasses.fields(value):
                    walk(getattr(value, f.name))
            elif isinstance(value, tuple):
                for item in value:
                    walk(item)

        walk(self.schema)


class DefaultsTest(unittest.TestCase):
    HEADER = "world: w\nversion: 1\n"

    def component_fields(self, body):
        return valid(self.HEADER + "components:\n  C:\n" + textwrap.indent(textwrap.dedent(body), "    ")) \
            .component("C").fields

    def test_float_defaults_accept_ints_and_exponents(self):
        fields = self.component_fields("""\
            a: f32 = 1
            b: f64 = -0.5
            c: f32 = 1e3
            d: { type: f64, default: 2 }
            """)
        self.assertEqual([f.default for f in fields], [1.0, -0.5, 1000.0, 2.0])
        self.assertTrue(all(type(f.default) is float for f in fields))

    def test_integer_limits_are_inclusive(self):
        fields = self.component_fields("""\
            a: i8 = -128
            b: i8 = 127
            c: u8 = 255
            d: { type: u8, default: 0xff }
            """)
        self.assertEqual([f.default for f in fields], [-128, 127, 255, 255])

    def test_string_fits_in_n_minus_one_utf8_bytes(self):
        fields = self.component_fields("""\
            a: "char[4] = abc"
            b: { type: "char[5]", default: "hé!" }
            c: { type: "char[2]", default: "" }
            """)
        self.assertEqual([f.default for f in fields], ["abc", "hé!", ""])

    def test_yaml_1_1_booleans_are_plain_names(self):
        fields = self.component_fields("""\
            on: bool
            no: bool = true
            """)
        self.assertEqual([(f.name, f.default) for f in fields], [("on", False), ("no", True)])

    def test_enum_default_is_first_member(self):
        schema = valid(self.HEADER + "types:\n  Mode: { enum: [off, on] }\ncomponents:\n  C: { m: Mode }\n")
        self.assertEqual(schema.component("C").fields[0].default, "off")

    def test_tag_forms(self):
        schema = valid(self.HEADER + "components:\n  A: {}\n  B:\n  C: ~\n")
        self.assertTrue(all(c.is_tag for c in schema.components))


class ScheduleTest(unittest.TestCase):
    HEADER = "world: w\nversion: 1\ncomponents:\n  P: { x: f32 }\n"

    def order(self, systems, phases=None):
        text = self.HEADER + (f"phases: {phases}\n" if phases else "") + "systems:\n" + \
            textwrap.indent(textwrap.dedent(systems), "  ")
        return [(s.name, s.phase) for s in valid(text).systems]

    def test_declaration_order_without_constraints(self):
        self.assertEqual(self.order("C:\nA:\nB:\n"), [("C", "update"), ("A", "update"), ("B", "update")])

    def test_kahn_takes_the_earliest_declared_ready_system(self):
        # D must follow A; B and C are free: the order stays as close to the file as it can.
        names = [n for n, _ in self.order("D: { after: [A] }\nB:\nA:\nC:\n")]
        self.assertEqual(names, ["B", "A", "D", "C"])

    def test_before_holds_back_only_the_systems_it_names(self):
        # A waits for C; B is ready at once and declared before C.
        names = [n for n, _ in self.order("A:\nB:\nC: { before: [A] }\n")]
        self.assertEqual(names, ["B", "C", "A"])

    def test_phases_come_first(self):
        got = self.order("R: { phase: render }\nI: { phase: input }\nU:\n", phases="[input, update, render]")
        self.assertEqual(got, [("I", "input"), ("U", "update"), ("R", "render")])

    def test_default_phase_is_update_else_the_first(self):
        self.assertEqual(self.order("A:\n", phases="[pre, update, post]"), [("A", "update")])
        self.assertEqual(self.order("A:\n", phases="[pre, post]"), [("A", "pre")])
        self.assertEqual(self.order("A:\n"), [("A", "update")])

    def test_order_across_phases_that_agrees_with_phase_order_is_accepted(self):
        got = self.order("U: { before: [R] }\nR: { phase: render, after: [U] }\n", phases="[update, render]")
        self.assertEqual(got, [("U", "update"), ("R", "render")])

    def test_query_indices_skip_systems_without_terms(self):
        schema = valid(self.HEADER + "queries:\n  Q: { read: [P] }\n"
                       "systems:\n  B: { read: [P], after: [A] }\n  N:\n  A: { write: [P] }\n")
        # Schedule: N (ready, declared before A), A, then B after A.
        self.assertEqual([(s.name, s.query_index) for s in schema.systems], [("N", None), ("A", 1), ("B", 2)])
        self.assertEqual(schema.queries[0].index, 0)


class RulesTest(unittest.TestCase):
    HEADER = "world: w\nversion: 1\n"

    def test_all_errors_are_reported_in_line_order(self):
        schema, messages = check(self.HEADER + textwrap.dedent("""\
            systems:
              S: { read: [Nope] }
            components:
              A: { x: f23 }
            extra: 1
            """))
        self.assertIsNone(schema)
        self.assertEqual(messages, [
            "test.yaml:4:15: error: system 'S': unknown component 'Nope'",
            "test.yaml:6:11: error: component 'A': field 'x': unknown type 'f23' (did you mean 'f32'?)",
            "test.yaml:7:1: error: unknown key 'extra'",
        ])

    def test_a_type_and_a_component_may_not_share_a_name_whatever_the_order(self):
        _, messages = check(self.HEADER + "components:\n  Color: { r: u8 }\ntypes:\n  Color: { r: u8 }\n")
        self.assertEqual(messages, ["test.yaml:6:3: error: type 'Color': name already used by the component "
                                    "declared at 4:3"])

    def test_a_system_with_no_terms_is_valid(self):
        schema = valid(self.HEADER + "systems:\n  Tick:\n")
        self.assertIsNone(schema.systems[0].query_index)

    def test_optional_tag_is_allowed(self):
        valid(self.HEADER + "components:\n  P: { x: f32 }\n  T: {}\nqueries:\n  Q: { read: [P], optional: [T] }\n")

    def test_cycle_downstream_systems_are_not_blamed(self):
        _, messages = check(self.HEADER + "systems:\n  A: { after: [B] }\n  B: { after: [A] }\n  C: { after: [A] }\n")
        self.assertEqual(messages, ["test.yaml:4:3: error: system 'A': before/after cycle: 'A' -> 'B' -> 'A' "
                                    "(each arrow reads 'runs before')"])

    def test_leading_zero_is_not_silently_decimal_or_octal(self):
        _, messages = check(self.HEADER + "components:\n  C: { x: i32 = 010 }\n")
        self.assertEqual(len(messages), 1)
        self.assertIn("'010' is not an integer", messages[0])

    def test_empty_file_reports_missing_keys(self):
        schema, messages = check("")
        self.assertIsNone(schema)
        self.assertEqual([m.split(" (")[0] for m in messages], [
            "test.yaml:1:1: error: missing required key 'world'",
            "test.yaml:1:1: error: missing required key 'version'"])



class AssemblageTest(unittest.TestCase):
    """Assemblages merge their parent's components and override field by field."""

    SCHEMA = """
        world: rect
        version: 1
        types:
          Color: { r: u8, g: u8, b: u8, a: u8 = 255 }
        components:
          Position:   { x: f32, y: f32 }
          Health:     { value: f32 = 20, max: f32 = 100 }
          Appearance: { color: Color, size: f32 = 5 }
          Collision:  {}
        assemblages:
          Player: { extends: Rect, Health: { value: 100 }, Appearance: { color: { g: 255 } } }
          Rect:   { Position: {}, Appearance: {}, Collision: }
          Food:   { extends: Rect, Health: { value: 20 }, Appearance: { size: 2 } }
        """

    @classmethod
    def setUpClass(cls):
        cls.schema = valid(cls.SCHEMA)

    def assemblage(self, name):
        return next(a for a in self.schema.assemblages if a.name == name)

    def test_declaration_order_is_kept_and_parents_resolved_first(self):
        self.assertEqual([a.name for a in self.schema.assemblages], ["Player", "Rect", "Food"])
        self.assertEqual(self.assemblage("Player").extends, "Rect")

    def test_components_come_in_component_order_with_the_parents(self):
        self.assertEqual([c for c, _ in self.assemblage("Player").components],
                         ["Position", "Health", "Appearance", "Collision"])
        self.assertEqual(dict(self.assemblage("Rect").components)["Collision"], ())

    def test_nested_override_keeps_the_other_fields(self):
        appearance = dict(dict(self.assemblage("Player").components)["Appearance"])
        self.assertEqual(appearance["color"], (("r", 0), ("g", 255), ("b", 0), ("a", 255)))
        self.assertEqual(appearance["size"], 5.0)

    def test_child_overrides_parent_values(self):
        food = dict(self.assemblage("Food").components)
        self.assertEqual(dict(food["Appearance"])["size"], 2.0)
        self.assertEqual(dict(food["Health"]), {"value": 20.0, "max": 100.0})

    def test_grandchild_inherits_the_parents_overrides(self):
        schema = valid(self.SCHEMA + "  Snack: { extends: Food, Health: { max: 5 } }\n")
        snack = dict(next(a for a in schema.assemblages if a.name == "Snack").components)
        self.assertEqual(dict(snack["Health"]), {"value": 20.0, "max": 5.0})
        self.assertEqual(dict(snack["Appearance"])["size"], 2.0)


class RenameTest(unittest.TestCase):
    def test_renamed_from_is_in_the_model_and_not_a_field(self):
        schema = valid("""
            world: w
            version: 2
            save_name: game
            components:
              Vitality: { renamed_from: Health, value: { type: f32, renamed_from: hp } }
            resources:
              Score: { renamed_from: Points, value: i32 }
            """)
        c = schema.components[0]
        self.assertEqual((c.renamed_from, [f.name for f in c.fields]), (("Health",), ["value"]))
        self.assertEqual(c.fields[0].renamed_from, ("hp",))
        self.assertEqual(schema.resources[0].renamed_from, ("Points",))
        self.assertEqual(schema.save_name, "game")

    def test_renamed_from_takes_a_list_in_the_order_loads_try_it(self):
        schema = valid("""
            world: w
            version: 3
            components:
              Stamina: { renamed_from: [Vitality, Health], limit: { type: i32, renamed_from: [cap, max] } }
            resources:
              Score: { renamed_from: [Points, Tally], value: i32 }
            """)
        c = schema.components[0]
        self.assertEqual(c.renamed_from, ("Vitality", "Health"))
        self.assertEqual(c.fields[0].renamed_from, ("cap", "max"))
        self.assertEqual(schema.resources[0].renamed_from, ("Points", "Tally"))

    def test_save_name_defaults_to_the_world(self):
        self.assertEqual(valid("world: w\nversion: 1\n").save_name, "w")

    def test_a_component_of_only_renamed_from_is_a_tag(self):
        schema = valid("world: w\nversion: 1\ncomponents:\n  Hidden: { renamed_from: Invisible }\n")
        self.assertTrue(schema.components[0].is_tag)


class StorageTest(unittest.TestCase):
    """`storage:` in a component body: the model's storage, and its rules."""

    def test_storage_is_table_unless_sparse(self):
        s = valid("""
            world: w
            version: 1
            components:
              Position: { x: f32 }
              Stunned: { storage: sparse }
              Heat: { t: f32, storage: sparse, on_add: true }
              Mass: { kg: f32, storage: table }
            queries:
              Hot: { read: [Position, Heat], without: [Stunned] }
              Calm: { read: [Position], optional: [Stunned] }
            """)
        self.assertEqual([c.storage for c in s.components], ["table", "sparse", "sparse", "table"])
        self.assertEqual([c.name for c in s.components if c.sparse], ["Stunned", "Heat"])
        self.assertTrue(s.component("Stunned").is_tag)  # `storage` is no field
        self.assertEqual([f.name for f in s.component("Heat").fields], ["t"])
        hot, calm = s.queries
        self.assertEqual(s.sparse_terms(hot.terms), ("Heat", "Stunned"))
        self.assertTrue(s.sparse_rows(hot.terms))  # reads Heat's value: a row a batch
        self.assertEqual(s.sparse_terms(calm.terms), ("Stunned",))
        self.assertTrue(s.sparse_rows(calm.terms))  # an optional sparse term
        s = valid("""
            world: w
            version: 1
            components:
              Position: { x: f32 }
              Stunned: { storage: sparse }
            queries:
              Dazed: { read: [Position], with: [Stunned] }
            """)
        self.assertFalse(s.sparse_rows(s.queries[0].terms))  # runs of rows

    def test_a_relation_has_no_storage_key(self):
        _, messages = check("""
            world: w
            version: 1
            relations:
              Targets: { storage: sparse }
            """)
        self.assertEqual(messages, ["test.yaml:5:14: error: relation 'Targets': a relation's links are always "
                                    "stored in tables ('storage' is for components: the index of links and "
                                    "cascades read the links there)"])


class TypeNameTest(unittest.TestCase):
    """A field typed the way C (or another language) spells it gets the
    schema's spelling as a hint, and one error only: nothing that uses the
    field is reported again."""

    def test_every_foreign_spelling_gets_the_schemas(self):
        from codegen.spec import FOREIGN_TYPES, STRING_SPELLING
        for foreign, ours in FOREIGN_TYPES.items():
            with self.subTest(foreign=foreign):
                _, messages = check(f'world: w\nversion: 1\ncomponents:\n  A: {{ x: "{foreign}" }}\n')
                self.assertEqual(len(messages), 1, messages)
                if ours == STRING_SPELLING:
                    self.assertIn('a string is "char[N]"', messages[0])
                    continue
                self.assertTrue(messages[0].endswith(f"unknown type '{foreign}' ('{foreign}' is '{ours}' in a "
                                                     f"schema)"), messages[0])
                valid(f"world: w\nversion: 1\ncomponents:\n  A: {{ x: '{ours}' }}\n")
                _, arrays = check(f'world: w\nversion: 1\ncomponents:\n  A: {{ x: "{foreign}[4]" }}\n')
                self.assertIn(f"is '{ours}[4]' in a schema", arrays[0])

    def test_a_declared_type_of_that_name_is_not_foreign(self):
        valid("world: w\nversion: 1\ntypes:\n  string: { c: 'char[8]' }\ncomponents:\n  A: { x: string }\n")

    def test_a_field_whose_type_is_wrong_is_reported_once(self):
        _, messages = check("""\
            world: w
            version: 1
            types:
              T: { a: int, b: u8 }
              U: { t: T }
            components:
              Health: { hp: int, max: f32 }
              Holder: { t: { type: T, default: { a: 1, b: 2 } }, u: { type: U, default: { t: { a: 3 } } } }
            relations:
              ChildOf: { exclusive: true, data: { slot: int } }
            assemblages:
              Player: { Health: { hp: 5, max: 2 }, Holder: { t: { a: 4 } } }
              Child: { extends: Player, Health: { hp: 6 } }
            """)
        self.assertEqual(messages, [
            "test.yaml:4:11: error: type 'T': field 'a': unknown type 'int' ('int' is 'i32' in a schema)",
            "test.yaml:7:17: error: component 'Health': field 'hp': unknown type 'int' ('int' is 'i32' in a schema)",
            "test.yaml:10:45: error: relation 'ChildOf': field 'slot': unknown type 'int' ('int' is 'i32' in a "
            "schema)"])

    def test_an_array_type_in_a_flow_mapping_must_be_quoted(self):
        for line, token in (("  Name: { text: char[16] }", "char[16]"), ("  B: { a: u8[4], b: f32 }", "u8[4]"),
                            ("  C: { v: 'f32 = 1', w: Vec[2] }", "Vec[2]")):
            with self.subTest(line=line):
                _, messages = check(f"world: w\nversion: 1\ncomponents:\n{line}\n")
                self.assertEqual(len(messages), 1, messages)
                self.assertTrue(messages[0].endswith(f"(inside {{ }} or [ ], YAML reads '[' as a list: quote a "
                                                     f"type with brackets, \"{token}\")"), messages[0])


if __name__ == "__main__":
    unittest.main()

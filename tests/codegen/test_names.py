"""The naming layer owns every C name, and no schema name can break one.

- Every identifier in the generated C is one the naming layer lists
  (`Names.emitted`), a name the templates take from the C library or the
  runtime's headers, or a C keyword: a name added to a template without the
  naming layer fails here.
- For every identifier the generator emits for a schema, and for every kind
  of schema name (type, component, resource, query, system, assemblage,
  field, world) whose C names could spell it, a schema that adds such a name is
  either rejected with an error or generates C that compiles under gcc and
  clang with -Werror (also after a game file includes the C library's
  headers).
- Every reserved word (C11 and C23 keywords, the C library's macros and
  file-scope names, GNU's predefined macros) as a field, component or world
  name, and every header name as a world, is rejected.
"""
from __future__ import annotations

import copy
import functools
import re
import sys
import tempfile
import unittest
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
from codegen import names, render, reserved  # noqa: E402
from codegen.validate import validate_source  # noqa: E402
from tests.codegen import ccheck  # noqa: E402

# Names the templates take from the C library; each must be reserved, so no
# schema name can take it first.
LIBRARY = ("NULL", "bool", "true", "false", "size_t", "FILE", "offsetof", "alignof", "static_assert",
           "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
           "INT64_C", "UINT64_C", "INT64_MIN", "INT32_MIN", "stdalign", "stdbool", "stdint", "stddef", "string",
           "memset")
PREPROCESSOR = ("include", "define", "if", "ifdef", "ifndef", "elif", "else", "endif", "error", "defined",
                "__cplusplus", "__STDC_VERSION__", "__VA_ARGS__")

# The schema every collision case starts from: one of each kind of name,
# each used in every place a name goes (terms, resources, hooks, aspects).
BASE = {
    "world": "w",
    "version": 1,
    "phases": ["update", {"name": "fix", "rate": 60}],
    "states": {"Mode": ["On", "Off"]},
    "types": {"T": {"a": "f32"}, "E": {"enum": ["One", "Two"]}},
    "components": {"Pos": {"x": "f32", "e": "E", "t": "T", "on_add": True}, "Tag": {},
                   "Hot": {"h": "u8", "storage": "sparse", "on_remove": True}, "Stun": {"storage": "sparse"}},
    "resources": {"Res": {"v": "u8", "b": "bool"}},
    "events": {"Ev": {"v": "u8"}},
    "relations": {"Rel": {"exclusive": True, "data": {"k": "u8"}, "on_target_destroy": "destroy"}, "Many": {}},
    "queries": {"Q": {"read": ["Pos"], "optional": ["Tag"], "changed": ["Pos"]},
                "H": {"write": ["Hot"], "without": ["Stun"]},
                "C": {"read": ["Pos", "Rel"], "with": ["Many"], "cascade": "Rel"}},
    "systems": {
        "Sys": {"write": ["Pos"], "resources": {"write": ["Res"]}, "aspect": {"k": "u8"}, "on_add": True,
                "on_remove": True, "changed": ["Pos"], "emit": ["Ev"]},
        "Once": {"resources": {"read": ["Res"]}, "receive": ["Ev"]},
        "Gate": {"phase": "fix", "in_state": {"Mode": "On"}, "run_if": {"Res": "b"}, "interval": 0.5},
        "Step": {"every": 2, "resources": {"write": ["Mode"]}},
        "Enter": {"on_enter": {"Mode": "On"}, "on_exit": {"Mode": ["Off"]}},
    },
    "assemblages": {"Thing": {"Pos": {"x": 1}, "Tag": {}, "Hot": {"h": 2}, "Stun": {}}},
}
PROBE = "ZzProbe"  # a schema name whose C spellings show where a stem goes
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def add_name(doc: dict, kind: str, name: str, index: int = 0) -> None:
    """Add to `doc` one more name of `kind`, used wherever that kind can be
    (`index` keeps the helper names of several additions apart)."""
    if kind == "type":
        doc["types"][name] = {"a": "u8"}
        doc["components"]["Pos"][f"extra_{index}"] = name
    elif kind == "component":
        doc["components"][name] = {"z": "u8", "on_add": True, "on_remove": True}
        doc["queries"]["Q"]["read"].append(name)
        doc["systems"]["Sys"]["write"].append(name)
        doc["assemblages"]["Thing"][name] = {"z": 2}
    elif kind == "resource":
        doc["resources"][name] = {"z": "u8"}
        doc["systems"]["Sys"]["resources"]["write"].append(name)
        doc["systems"]["Once"]["resources"]["read"].append(name)
    elif kind == "event":
        doc["events"][name] = {"z": "u8"}
        doc["systems"]["Sys"]["emit"].append(name)
        doc["systems"]["Once"]["receive"].append(name)
    elif kind == "query":
        doc["queries"][name] = {"read": ["Pos"], "changed": ["Pos"]}
    elif kind == "system":
        doc["systems"][name] = {"read": ["Pos"], "aspect": {"k": "u8"}, "on_add": True, "on_remove": True}
    elif kind == "assemblage":
        doc["assemblages"][name] = {"Pos": {"x": 2}, "Tag": {}}
    elif kind == "relation":
        doc["relations"][name] = {"exclusive": True, "data": {"z": "u8"}}
        doc["queries"]["C"]["read"].append(name)
    elif kind == "field":
        doc["components"]["Pos"][name] = "u8 = 1"
        doc["resources"]["Res"][name] = "u8 = 1"
        doc["types"]["T"][name] = "u8"
        doc["events"]["Ev"][name] = "u8"
        doc["systems"]["Sys"]["aspect"][name] = "u8"
        doc["relations"]["Rel"]["data"][name] = "u8"
    elif kind == "machine":
        doc["states"][name] = ["S0", "S1"]
        doc["systems"]["Gate"]["in_state"][name] = "S1"
        doc["systems"]["Enter"]["on_enter"][name] = "S0"
        doc["systems"]["Step"]["resources"]["write"].append(name)
    elif kind == "state":
        doc["states"]["Mode"].append(name)
        doc["systems"]["Enter"]["on_exit"]["Mode"].append(name)
    elif kind == "phase":
        doc["phases"].append({"name": name, "rate": 30})
        doc["systems"][f"In{index}{name}"] = {"phase": name, "every": 3}
    elif kind == "world":
        doc["world"] = name


def with_name(kind: str, name: str) -> dict:
    """BASE with one more name of `kind`."""
    doc = copy.deepcopy(BASE)
    add_name(doc, kind, name)
    return doc


KINDS = ("type", "component", "resource", "event", "query", "system", "assemblage", "field", "relation", "machine",
         "state", "phase")


def schema_of(doc: dict):
    """(schema or None, its errors, collisions included)."""
    text = yaml.dump(doc, Dumper=DUMPER, sort_keys=False)
    schema, diagnostics = validate_source("n.yaml", text.encode("utf-8"))
    if schema is None:
        return None, [str(d) for d in diagnostics]
    errors = [str(d) for d in names.collisions(schema)]
    return (None if errors else schema), errors


def is_global(scope: str) -> bool:
    return scope in names.GLOBAL


def patterns(kind: str):
    """(regex, case, global) for each C name a `kind` name makes: the stem is
    where its snake_case goes; global when the name is at file scope or a macro."""
    schema, errors = schema_of(with_name(kind, PROBE))
    assert schema is not None, errors
    out = set()
    for name in names.Names(schema).emitted():
        for stem, case in (("zz_probe", "lower"), ("ZZ_PROBE", "upper")):
            if stem in name.ident:
                before, after = name.ident.split(stem, 1)
                out.add((re.escape(before) + "([A-Za-z0-9_]+?)" + re.escape(after), case, is_global(name.scope)))
    if kind == "field":
        out.add(("(.+)", "as is", False))  # a field keeps its name as written
    return [(re.compile(regex), case, where) for regex, case, where in sorted(out)]


def meets(pattern_global: bool, target) -> bool:
    """Whether a name made at file scope (or in a struct) can meet `target`:
    names meet in their own kind of scope, and an object-like macro meets
    every name."""
    return target.scope == names.MACRO or is_global(target.scope) == pattern_global


def _code(c_text: str) -> str:
    """C source without comments, strings and character constants."""
    text = re.sub(r"/\*.*?\*/", " ", c_text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', " ", text)
    return re.sub(r"'(\\.|[^'\\\n])*'", " ", text)


def identifiers(c_text: str):
    """The identifiers of C source, outside comments, strings and character constants."""
    return set(re.findall(r"\b[A-Za-z_]\w*\b", _code(c_text)))


def called(c_text: str):
    """The identifiers followed by '(' (called, declared or defined as a
    function, or a function-like macro), not an object-like #define's."""
    text = re.sub(r"#\s*define\s+\w+\b(?!\()", " ", _code(c_text))
    return set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", text))


def runtime_identifiers():
    found = set()
    for header in (REPO / "runtime/include").glob("*.h"):
        found |= identifiers(header.read_text(encoding="utf-8"))
    return found


# A variant of BASE with nothing optional: no hooks, aspects, changed sets,
# terms of a system, data of a relation, events, assemblages.
BARE = {"world": "b", "version": 1, "types": {"T": {"a": "f32"}, "E": {"enum": ["One"]}},
        "components": {"Pos": {"x": "f32", "t": "T"}, "Tag": {}},
        "relations": {"Many": {}}, "resources": {"Res": {"v": "u8"}},
        "queries": {"Q": {"read": ["Pos"]}}, "systems": {"Once": {}}}
SCHEMAS = ("tests/schema/full.yaml", "tests/schema/systems.yaml", "tests/schema/rel.yaml",
           "tests/schema/events.yaml", "tests/schema/save.yaml", "schema/rectangle_eater.yaml", "schema/orbits.yaml",
           "tests/threads/threads.yaml")


@functools.lru_cache(maxsize=None)
def rendered():
    """(schema, the C text of its .c and .h) for each schema the naming tests read."""
    schemas = [validate_source(p, (REPO / p).read_bytes())[0] for p in SCHEMAS]
    schemas += [schema_of(BASE)[0], schema_of(BARE)[0]]
    return [(s, "\n".join(t for f, t in render.render(s, live=True).items() if f.endswith((".c", ".h"))))
            for s in schemas]


class NamingLayerTest(unittest.TestCase):
    def test_every_identifier_in_the_output_comes_from_the_naming_layer(self):
        allowed = runtime_identifiers() | reserved.KEYWORDS | set(LIBRARY) | set(PREPROCESSOR)
        for schema, text in rendered():
            with self.subTest(schema=schema.path):
                emitted = {x.ident for x in names.Names(schema).emitted()}
                self.assertEqual(identifiers(text) - emitted - allowed, set(),
                                 "identifiers the naming layer does not list")

    def test_every_name_the_naming_layer_lists_is_in_the_output(self):
        """So the collision check refuses no name for a function never written
        (a component without hooks has no _on_add). The fixed locals and members
        meet only our own macros, and may be listed where they are not written."""
        for schema, text in rendered():
            with self.subTest(schema=schema.path):
                found = identifiers(text)
                listed = {(x.ident, x.what) for x in names.Names(schema).emitted()
                          if x.loc is not None or x.scope in names.GLOBAL}
                self.assertEqual({x for x in listed if x[0] not in found}, set(), "listed but not written")

    def test_functions_are_the_names_followed_by_a_parenthesis(self):
        """A library's function-like macro breaks only a name followed by '(':
        the naming layer marks exactly those (its functions and function-like
        macros; `fn`, a callback, is the one local called)."""
        for schema, text in rendered():
            with self.subTest(schema=schema.path):
                calls = called(text)
                emitted = names.Names(schema).emitted()
                functions = {x.ident for x in emitted if x.scope in (names.FUNC, names.FMACRO)}
                others = {x.ident for x in emitted if x.scope not in (names.FUNC, names.FMACRO)} - functions
                self.assertEqual(functions - calls, set(), "marked as functions, never called")
                self.assertEqual((others & calls) - {"fn"}, set(), "called, not marked as functions")

    def test_the_library_names_the_templates_use_are_reserved(self):
        for ident in LIBRARY:
            self.assertTrue(ident in reserved.KEYWORDS | reserved.MACROS | reserved.FUNCTION_MACROS |
                            reserved.FILE_SCOPE or ident in reserved.HEADERS, ident)

    def test_the_generators_own_names_never_collide(self):
        for doc in (BASE, BARE, {"world": "w", "version": 1}):
            schema, errors = schema_of(doc)
            self.assertIsNotNone(schema, errors)

    def test_the_fixed_locals_are_no_macro(self):
        for ident in names.LOCALS + names.ITER_MEMBERS + names.CTX_MEMBERS + names.EACH_PARAMS:
            self.assertNotIn(ident, reserved.MACROS | reserved.FUNCTION_MACROS | reserved.KEYWORDS, ident)


def merged(cases):
    """Schemas holding the cases' names, as many a schema as validate
    together: {label: schema}. A group that does not validate is split."""
    if not cases:
        return {}
    doc = copy.deepcopy(BASE)
    for i, (kind, name) in enumerate(cases):
        add_name(doc, kind, name, i)
    schema, _ = schema_of(doc)
    if schema is not None:
        return {", ".join(f"{k} '{n}'" for k, n in cases): schema}
    if len(cases) == 1:
        raise AssertionError(f"{cases[0]} was accepted alone but not with BASE")
    half = len(cases) // 2
    return {**merged(cases[:half]), **merged(cases[half:])}


class CollisionTest(unittest.TestCase):
    """Each emitted name, spelt again by a new schema name: an error where
    the two meet in one scope, else C that compiles under gcc and clang
    with -Werror after every covered C library header."""

    def test_every_emitted_name_spelt_by_every_kind_of_schema_name(self):
        base, errors = schema_of(BASE)
        self.assertIsNotNone(base, errors)
        targets = names.Names(base).emitted()
        cases, must_reject = {}, set()
        for kind in KINDS:
            for regex, case, where in patterns(kind):
                for target in targets:
                    match = regex.fullmatch(target.ident)
                    if not match or not meets(where, target):
                        continue
                    stem = match.group(1)
                    name = stem if case == "as is" else stem.lower()
                    if kind != "field" and not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
                        continue
                    cases.setdefault((kind, name), target.ident)
                    if where and is_global(target.scope) and target.loc is not None:
                        must_reject.add((kind, name))  # two schema names spelling one file-scope name
        # A world name changes every prefix: the worlds that spell the head of an emitted name
        # (world 'w_pos' makes 'w_pos_get' its own 'w_pos_' + 'get').
        for target in targets:
            parts = target.ident.lower().split("_")
            for cut in range(2, len(parts)):
                head = "_".join(parts[:cut])
                if re.fullmatch(r"[a-z][a-z0-9_]*[a-z0-9]", head):
                    cases.setdefault(("world", head), target.ident)
        self.assertGreater(len(cases), 400)
        accepted, lax = {}, []
        for (kind, name), target in sorted(cases.items()):
            schema, errors = schema_of(with_name(kind, name))
            if schema is None:
                self.assertTrue(errors, (kind, name))
                for e in errors:
                    self.assertRegex(e, r"^n\.yaml:\d+:\d+: error: ")
                continue
            if (kind, name) in must_reject:
                lax.append(f"{kind} '{name}' spells {target}")
            accepted.setdefault(kind, []).append(((kind, name), schema))
        self.assertEqual(lax, [], "accepted, though it meets another name at file scope")
        worlds = {}
        for kind, group in accepted.items():
            if kind == "world":
                worlds.update({f"world '{name}'": schema for (_, name), schema in group})
                continue
            for start in range(0, len(group), 40):
                worlds.update(merged([case for case, _ in group[start:start + 40]]))
        with tempfile.TemporaryDirectory() as tmp:
            broken = ccheck.compile_worlds({label: render.render(s) for label, s in worlds.items()}, Path(tmp),
                                           strict=False)
        self.assertEqual(broken, {})
        print(f"name collisions: {len(cases)} cases, {len(cases) - sum(map(len, accepted.values()))} rejected, "
              f"{sum(map(len, accepted.values()))} compiled in {len(worlds)} worlds", file=sys.stderr)


# Names that look like a collision and are none: each compiles.
NEAR_MISSES = {
    # A component without hooks has no _on_add: a system (or anything) may spell it.
    "a system named like a component without hooks": {
        "components": {"Pos": {"x": "f32"}, "PosOnAdd": {"y": "u8"}},
        "systems": {"Pos": {"read": ["Pos"]}}},
    "a tag has no get, mut or set": {"components": {"Tag": {}, "TagGet": {"v": "u8"}, "TagMut": {"v": "u8"}}},
    "a query without changed has no changed_count": {
        "components": {"Pos": {"x": "f32"}}, "queries": {"Q": {"read": ["Pos"]}, "QChangedCount": {"read": ["Pos"]}}},
    "a system without terms has no next or count": {
        "components": {"SNext": {"v": "u8"}, "SCount": {"v": "u8"}}, "systems": {"S": {}}},
    "a system without an aspect has no aspect type": {
        "components": {"Pos": {"x": "f32"}, "MoveAspect": {"v": "u8"}}, "systems": {"Move": {"read": ["Pos"]}}},
    "a relation with many targets has no target or depth": {
        "components": {"LikesTarget": {"v": "u8"}, "LikesDepth": {"v": "u8"}}, "relations": {"Likes": {}}},
    "an exclusive relation has no targets": {
        "components": {"ChildOfTargets": {"v": "u8"}}, "relations": {"ChildOf": {"exclusive": True}}},
    "a type no component holds has no reflection data": {
        "types": {"Vec": {"x": "f32"}}, "components": {"VecFields_": {"v": "u8"}, "VecType_": {"v": "u8"}}},
    # A library's function-like macro breaks a call, not a member: fields, and
    # components whose members (the bundle's, a context's) are such names.
    "function-like macros as fields and members": {
        "components": {"Floor": {"floor": "f32", "round": "f32", "sqrt": "f32", "isnan": "bool", "offsetof": "u8",
                                 "assert": "u8", "setjmp": "u8", "htole16": "u16", "FD_SET": "u8", "S_ISDIR": "u8",
                                 "signbit": "bool", "log": "f32", "pow": "f32"},
                       "Log": {"v": "u8"}, "Round": {"v": "u8"}},
        "resources": {"Sqrt": {"v": "u8"}},
        "systems": {"Cos": {"read": ["Floor", "Log"], "write": ["Round"], "resources": {"write": ["Sqrt"]}}}},
}


class NearMissTest(unittest.TestCase):
    def test_legal_names_that_look_like_collisions_compile(self):
        worlds = {}
        for label, body in NEAR_MISSES.items():
            schema, errors = schema_of({"world": f"nm{len(worlds)}", "version": 1, **body})
            self.assertIsNotNone(schema, (label, errors))
            worlds[label] = render.render(schema)
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(ccheck.compile_worlds(worlds, Path(tmp)), {})


class ReservedWordTest(unittest.TestCase):
    """Every reserved word in each place a schema name goes is an error."""

    def rejected(self, doc):
        schema, errors = schema_of(doc)
        return schema is None

    def errors_naming(self, kind: str, words, what: str):
        """The words of `words`, each added as a name of `kind` to one schema,
        that no error names (`what` says how an error names one)."""
        words = sorted(words)
        doc = copy.deepcopy(BASE)
        for i, word in enumerate(words):
            if kind == "field":  # at most MAX_FIELDS a component: spread them over a few
                doc["components"].setdefault(f"Words{i // 200}", {})[word] = "u8"
            else:
                add_name(doc, kind, word, i)
        schema, errors = schema_of(doc)
        self.assertIsNone(schema)
        text = "\n".join(errors)
        return [w for w in words if what.format(w) not in text]

    def test_reserved_words_as_fields_and_components(self):
        words = {w for w in reserved.KEYWORDS | reserved.MACROS if re.fullmatch(r"[A-Za-z_]\w*", w)}
        from codegen.checks import C_KEYWORDS, STDBOOL_NAMES  # refused by the validator itself
        self.assertEqual(self.errors_naming("field", words & (C_KEYWORDS | STDBOOL_NAMES), "field name '{}'"), [])
        self.assertEqual(self.errors_naming("field", words - C_KEYWORDS - STDBOOL_NAMES, "field '{}'"), [])
        # A component's member is its snake_case name: the lower-case words as components.
        camels = {"".join(part.capitalize() for part in w.split("_")): w
                  for w in reserved.MACROS | reserved.KEYWORDS - C_KEYWORDS - STDBOOL_NAMES
                  if w.islower() and "__" not in w}
        self.assertEqual(self.errors_naming("component", camels, "component '{}'"), [])

    def test_function_like_macros_are_fine_as_fields(self):
        """...and compile, after every covered header: a member is never called."""
        words = sorted(w for w in reserved.FUNCTION_MACROS if w not in reserved.KEYWORDS | reserved.MACROS)
        self.assertGreater(len(words), 200)
        doc = {"world": "fm", "version": 1, "components": {}}
        for i, word in enumerate(words):
            doc["components"].setdefault(f"Words{i // 200}", {})[word] = "u8"
        schema, errors = schema_of(doc)
        self.assertIsNotNone(schema, errors)
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(ccheck.compile_worlds({"fields": render.render(schema)}, Path(tmp)), {})

    def test_relation_names_meet_component_names(self):
        # A relation's functions are spelt like a component's: 'ChildOf' makes w_child_of_target.
        doc = with_name("component", "RelTarget")
        self.assertTrue(self.rejected(doc))
        doc = with_name("component", "RelSources")
        self.assertTrue(self.rejected(doc))
        # The link's own members are no data field's.
        doc = copy.deepcopy(BASE)
        doc["relations"]["Rel"]["data"]["depth_"] = "u8"
        self.assertTrue(self.rejected(doc))
        doc["relations"]["Rel"]["data"] = {"target": "u8"}
        self.assertTrue(self.rejected(doc))
        doc = copy.deepcopy(BASE)
        doc["relations"]["Pos"] = {}
        self.assertTrue(self.rejected(doc))

    def test_step_tables_names(self):
        # A system's query id sits beside the free queries' (w_QUERY_SYS), its
        # trampoline beside its functions (w_sys_call_): both spelt by the
        # naming layer, and a name that spells them again is an error.
        base, errors = schema_of(BASE)
        self.assertIsNotNone(base, errors)
        n = names.Names(base)
        self.assertEqual((n.system("Sys").query_id, n.system("Sys").call_), ("W_QUERY_SYS", "w_sys_call_"))
        self.assertEqual((n.world_core_const, n.world_of_, n.schedule_), ("w_world_core_const", "w_world_of_",
                                                                          "w_schedule_"))
        self.assertTrue(self.rejected(with_name("component", "QuerySys")))  # W_QUERY_SYS, a component id
        self.assertTrue(self.rejected(with_name("component", "SysCall_")))  # w_sys_call_, a component's type
        self.assertTrue(self.rejected(with_name("component", "WorldCoreConst")))
        source = render.render(base)["w.c"]
        self.assertIn("strata_iter_init(&ctx.impl_, w_world_core(w), W_QUERY_SYS)", source)
        self.assertIn(".call = w_sys_call_,", source)

    def test_assemblage_names_meet_the_reserve_functions(self):
        # An assemblage's reserve is spelt as the bundle's and the records' are: 'Bundle' makes
        # w_reserve_bundle, the world's own.
        for name in ("Bundle", "Entities"):
            doc = yaml.safe_load(yaml.safe_dump(BASE))
            doc["assemblages"][name] = {"Tag": {}}
            schema, errors = schema_of(doc)
            self.assertIsNone(schema, name)
            self.assertTrue(any(f"'w_reserve_{name.lower()}'" in e and "world's own API" in e for e in errors), errors)
        doc = yaml.safe_load(yaml.safe_dump(BASE))
        doc["assemblages"]["Crate"] = {"Tag": {}}
        schema, errors = schema_of(doc)
        self.assertIsNotNone(schema, errors)
        self.assertIn("w_reserve_crate", {x.ident for x in names.Names(schema).emitted()})

    def test_snapshot_names_meet_component_names(self):
        # The snapshot functions and types are the world's own: a component 'Checksum' would make
        # the type w_checksum beside the function w_checksum; 'Snapshot' and 'SnapshotRing' spell
        # only names of their own (w_snapshot_get beside w_snapshot_take).
        doc = yaml.safe_load(yaml.safe_dump(BASE))
        doc["components"]["Checksum"] = {"value": "u64"}
        schema, errors = schema_of(doc)
        self.assertIsNone(schema)
        self.assertTrue(any("'w_checksum'" in e and "world's own API" in e for e in errors), errors)
        doc = yaml.safe_load(yaml.safe_dump(BASE))
        doc["components"]["Snapshot"] = {"frame": "u32"}
        doc["components"]["SnapshotRing"] = {"slot": "u32"}
        schema, errors = schema_of(doc)
        self.assertIsNotNone(schema, errors)
        emitted = {x.ident for x in names.Names(schema).emitted()}
        self.assertTrue({"w_snapshot_get", "w_snapshot_take", "w_snapshot_t", "w_snapshot_ring_get",
                         "w_snapshot_ring_take", "w_snapshot_ring_t", "w_checksum"} <= emitted)
        self.assertFalse(self.rejected(doc))

    def test_file_scope_library_names_as_generated_names(self):
        # 'w_' prefix: a world whose prefix makes a library name (world 'int8', type 'T' -> int8_t).
        self.assertTrue(self.rejected(dict(with_name("type", "T"), world="int8")))
        self.assertTrue(self.rejected(dict(with_name("type", "T"), world="div")))
        self.assertTrue(self.rejected(dict(with_name("component", "Max"), world="int8")))  # INT8_MAX
        self.assertTrue(self.rejected(dict(with_name("component", "Set"), world="seek")))  # SEEK_SET
        # ...of the headers past the twelve once covered: <time.h>, <threads.h>, <stdatomic.h>, <fenv.h>,
        # <signal.h>: each compiles alone and breaks a game that includes the header first.
        for world, kind, name in (("clock", "component", "Gettime"), ("cnd", "type", "T"), ("atomic", "component", "Int"),
                                  ("fenv", "type", "T"), ("sig", "component", "Atomic_t")):
            with self.subTest(world=world):
                self.assertTrue(self.rejected(dict(with_name(kind, name), world=world)))

    def test_header_names_as_worlds(self):
        for header in sorted(reserved.HEADERS) + ["strata", "strata_json", "Strata", "strataX"]:
            schema, errors = schema_of(with_name("world", header))
            self.assertIsNone(schema, header)
            if header not in reserved.KEYWORDS:  # 'float' is a keyword first
                self.assertTrue(any("would hide a header" in e for e in errors), (header, errors))


if __name__ == "__main__":
    unittest.main()

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
           "INT64_C", "UINT64_C", "INT64_MIN", "INT32_MIN", "stdalign", "stdbool", "stdint", "stddef")
PREPROCESSOR = ("include", "define", "if", "ifdef", "ifndef", "elif", "else", "endif", "error", "defined",
                "__cplusplus", "__STDC_VERSION__", "__VA_ARGS__")

# The schema every collision case starts from: one of each kind of name,
# each used in every place a name goes (terms, resources, hooks, aspects).
BASE = {
    "world": "w",
    "version": 1,
    "types": {"T": {"a": "f32"}, "E": {"enum": ["One", "Two"]}},
    "components": {"Pos": {"x": "f32", "e": "E", "t": "T", "on_add": True}, "Tag": {}},
    "resources": {"Res": {"v": "u8"}},
    "events": {"Ev": {"v": "u8"}},
    "relations": {"Rel": {"exclusive": True, "data": {"k": "u8"}, "on_target_destroy": "destroy"}, "Many": {}},
    "queries": {"Q": {"read": ["Pos"], "optional": ["Tag"], "changed": ["Pos"]},
                "C": {"read": ["Pos", "Rel"], "with": ["Many"], "cascade": "Rel"}},
    "systems": {
        "Sys": {"write": ["Pos"], "resources": {"write": ["Res"]}, "aspect": {"k": "u8"}, "on_add": True,
                "on_remove": True, "changed": ["Pos"], "emit": ["Ev"]},
        "Once": {"resources": {"read": ["Res"]}, "receive": ["Ev"]},
    },
    "assemblages": {"Thing": {"Pos": {"x": 1}, "Tag": {}}},
}
PROBE = "ZzProbe"  # a schema name whose C spellings show where a stem goes


def with_name(kind: str, name: str) -> dict:
    """BASE with one more name of `kind`, used wherever that kind can be."""
    doc = yaml.safe_load(yaml.safe_dump(BASE))
    if kind == "type":
        doc["types"][name] = {"a": "u8"}
        doc["components"]["Pos"]["extra_"] = name
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
    elif kind == "world":
        doc["world"] = name
    return doc


KINDS = ("type", "component", "resource", "event", "query", "system", "assemblage", "field", "relation")


def schema_of(doc: dict):
    text = yaml.safe_dump(doc, sort_keys=False)
    schema, diagnostics = validate_source("n.yaml", text.encode("utf-8"))
    if schema is None:
        return None, [str(d) for d in diagnostics]
    errors = [str(d) for d in names.collisions(schema)]
    return (None if errors else schema), errors


def is_global(scope: str) -> bool:
    return scope in (names.FILE, names.MACRO)


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
    names meet in their own kind of scope, and a macro meets every name."""
    return target.scope == names.MACRO or is_global(target.scope) == pattern_global


def identifiers(c_text: str):
    """The identifiers of C source, outside comments, strings and character constants."""
    text = re.sub(r"/\*.*?\*/", " ", c_text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', " ", text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", " ", text)
    return set(re.findall(r"\b[A-Za-z_]\w*\b", text))


def runtime_identifiers():
    found = set()
    for header in (REPO / "runtime/include").glob("*.h"):
        found |= identifiers(header.read_text(encoding="utf-8"))
    return found


class NamingLayerTest(unittest.TestCase):
    def test_every_identifier_in_the_output_comes_from_the_naming_layer(self):
        allowed = runtime_identifiers() | reserved.KEYWORDS | set(LIBRARY) | set(PREPROCESSOR)
        paths = [REPO / "tests/schema/full.yaml", REPO / "tests/schema/systems.yaml",
                 REPO / "schema/rectangle_eater.yaml", REPO / "tests/schema/events.yaml"]
        schemas = [validate_source(str(p), p.read_bytes())[0] for p in paths]
        schemas.append(schema_of(BASE)[0])
        for schema in schemas:
            emitted = {x.ident for x in names.Names(schema).emitted()}
            for file, text in render.render(schema).items():
                if file.endswith((".c", ".h")):
                    stray = identifiers(text) - emitted - allowed
                    self.assertEqual(stray, set(), f"{file}: identifiers the naming layer does not list")

    def test_the_library_names_the_templates_use_are_reserved(self):
        for ident in LIBRARY:
            self.assertTrue(ident in reserved.KEYWORDS | reserved.MACROS | reserved.FILE_SCOPE
                            or ident in reserved.HEADERS, ident)

    def test_the_generators_own_names_never_collide(self):
        for doc in (BASE, {"world": "w", "version": 1}):
            schema, errors = schema_of(doc)
            self.assertIsNotNone(schema, errors)

    def test_the_fixed_locals_are_no_macro(self):
        for ident in names.LOCALS + names.ITER_MEMBERS + names.CTX_MEMBERS + names.EACH_PARAMS:
            self.assertNotIn(ident, reserved.MACROS | reserved.KEYWORDS, ident)


class CollisionTest(unittest.TestCase):
    """Each emitted name, spelt again by a new schema name: an error or C that compiles."""

    def test_every_emitted_name_spelt_by_every_kind_of_schema_name(self):
        base, errors = schema_of(BASE)
        self.assertIsNotNone(base, errors)
        targets = names.Names(base).emitted()
        cases = {}
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
        # A world name changes every prefix: the worlds that spell the head of an emitted name
        # (world 'w_pos' makes 'w_pos_get' its own 'w_pos_' + 'get').
        for target in targets:
            parts = target.ident.lower().split("_")
            for cut in range(2, len(parts)):
                head = "_".join(parts[:cut])
                if re.fullmatch(r"[a-z][a-z0-9_]*[a-z0-9]", head):
                    cases.setdefault(("world", head), target.ident)
        self.assertGreater(len(cases), 400)
        rejected, files, origin = 0, [], {}
        with tempfile.TemporaryDirectory() as tmp:
            for i, ((kind, name), target) in enumerate(sorted(cases.items())):
                schema, errors = schema_of(with_name(kind, name))
                if schema is None:
                    self.assertTrue(errors, (kind, name))
                    for e in errors:
                        self.assertRegex(e, r"^n\.yaml:\d+:\d+: error: ")
                    rejected += 1
                    continue
                written = ccheck.write_world(Path(tmp, f"case{i}"), render.render(schema))
                files += written
                origin.update({f: f"{kind} '{name}' (spells {target})" for f in written})
            broken = ccheck.failures(files)
            self.assertEqual({origin[f]: message for f, message in broken.items()}, {})
        print(f"name collisions: {len(cases)} cases, {rejected} rejected, {len(cases) - rejected} compiled",
              file=sys.stderr)


class ReservedWordTest(unittest.TestCase):
    """Every reserved word in each place a schema name goes is an error."""

    def rejected(self, doc):
        schema, errors = schema_of(doc)
        return schema is None

    def test_reserved_words_as_fields_and_components(self):
        accepted = []
        words = sorted(reserved.KEYWORDS | reserved.MACROS)
        for word in words:
            if not re.fullmatch(r"[A-Za-z_]\w*", word):
                continue
            if not self.rejected(with_name("field", word)):
                accepted.append(("field", word))
        # A component's member is its snake_case name: the lower-case words as components.
        for word in sorted(w for w in reserved.MACROS | reserved.KEYWORDS if w.islower() and "__" not in w):
            camel = "".join(part.capitalize() for part in word.split("_"))
            if camel and not self.rejected(with_name("component", camel)):
                accepted.append(("component", camel))
        self.assertEqual(accepted, [])

    def test_relation_names_meet_component_names(self):
        # A relation's functions are spelt like a component's: 'ChildOf' makes w_child_of_target.
        doc = with_name("component", "RelTarget")
        self.assertTrue(self.rejected(doc))
        doc = with_name("component", "RelSources")
        self.assertTrue(self.rejected(doc))
        # The link's own members are no data field's.
        doc = yaml.safe_load(yaml.safe_dump(BASE))
        doc["relations"]["Rel"]["data"]["depth_"] = "u8"
        self.assertTrue(self.rejected(doc))
        doc["relations"]["Rel"]["data"] = {"target": "u8"}
        self.assertTrue(self.rejected(doc))
        doc = yaml.safe_load(yaml.safe_dump(BASE))
        doc["relations"]["Pos"] = {}
        self.assertTrue(self.rejected(doc))

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

    def test_file_scope_library_names_as_generated_names(self):
        # 'w_' prefix: a world whose prefix makes a library name (world 'int8', type 'T' -> int8_t).
        self.assertTrue(self.rejected(dict(with_name("type", "T"), world="int8")))
        self.assertTrue(self.rejected(dict(with_name("type", "T"), world="div")))
        self.assertTrue(self.rejected(dict(with_name("component", "Max"), world="int8")))  # INT8_MAX
        self.assertTrue(self.rejected(dict(with_name("component", "Set"), world="seek")))  # SEEK_SET

    def test_header_names_as_worlds(self):
        for header in sorted(reserved.HEADERS) + ["strata", "strata_json", "Strata", "strataX"]:
            schema, errors = schema_of(with_name("world", header))
            self.assertIsNone(schema, header)
            if header not in reserved.KEYWORDS:  # 'float' is a keyword first
                self.assertTrue(any("would hide a header" in e for e in errors), (header, errors))


if __name__ == "__main__":
    unittest.main()

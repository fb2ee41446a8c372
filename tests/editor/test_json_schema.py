"""The JSON Schema for editors (schema/strata.schema.json): committed and
current, built from spec.py's keys, accepting every valid schema of the
repository and rejecting the bad cases a JSON Schema can express, checked
with python3-jsonschema (draft-07)."""
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import jsonschema

from codegen import jsonschema as strata_jsonschema
from codegen import (check_assemblages, check_elements, check_loop, check_renames, check_systems, check_types, checks,
                     limits, spec, validate)
from codegen.model import SCALARS
from tests.editor.documents import REPO, document, valid_schemas

COMMITTED = REPO / "schema" / "strata.schema.json"

# The bad-schema cases of tests/codegen/bad/ the JSON Schema rejects, each
# with the places (JSON paths) it must flag. The others need the whole file
# (unknown components, cycles, ranges, limits) and are the generator's alone.
REJECTED = {
    "array_default": ["components/Path/brief", "components/Path/scalar/default"],
    "array_length": ["components/Path/negative", "components/Path/none", "components/Path/some"],
    "assemblage_wrong_value": ["assemblages/Pet/Health"],
    "bad_version": ["version"],
    "bad_world": ["world"],
    "builtin_type_name": ["types"],
    "c_keyword": ["components", "phases/1", "types/Mode/enum/2"],
    "duplicate_phase": ["phases"],
    "empty_file": [""],
    "empty_phases": ["phases"],
    "entity_default": ["components/Target/who", "components/Target/whom/default"],
    "long_form_field": ["components/Health/min/type", "components/Health/nothing", "components/Health/value"],
    "missing_world": [""],
    "name_too_long": ["components"],
    "nested_array": ["components/Grid/cells", "components/Grid/names"],
    "not_identifier": ["components", "components/Health", "queries/all-3d/read/0"],
    "query_without_required_term": ["queries/Bare", "queries/Excluded", "queries/Nothing"],
    "resource_without_fields": ["resources/Input", "resources/Score", "resources/Time"],
    "string_type": ["components/Label/letter", "components/Label/text"],
    "system_hooks": ["components/Sprite/on_add", "components/Texture/on_remove", "systems/Draw/on_add",
                     "systems/Empty/aspect"],
    "terms_not_lists": ["systems/Move/resources", "systems/Move/write"],
    "top_level_list": [""],
    "type_forms": ["types/Empty", "types/Mode", "types/Scalar", "types/Shape/enum"],
    "unknown_system_key": ["systems/Move"],
    "unknown_top_level_key": [""],
    "version_not_integer": ["version"],
    "wrong_default_type": ["components/Stats/count", "components/Stats/flag", "components/Stats/nan",
                           "components/Stats/octal", "components/Stats/quoted/default", "components/Stats/speed",
                           "components/Stats/yes"],
}


def validator():
    return jsonschema.Draft7Validator(strata_jsonschema.json_schema())


def flagged(value):
    """The JSON paths of everything the JSON Schema flags in `value`."""
    return {"/".join(str(p) for p in e.absolute_path) for e in validator().iter_errors(value)}


class JsonSchemaTest(unittest.TestCase):
    def test_committed_schema_is_current(self):
        self.assertEqual(COMMITTED.read_text(encoding="utf-8"), strata_jsonschema.text(),
                         "schema/strata.schema.json is stale: run "
                         "python3 -m codegen --json-schema > schema/strata.schema.json")

    def test_command_prints_it(self):
        result = subprocess.run([sys.executable, "-m", "codegen", "--json-schema"], cwd=REPO, capture_output=True,
                                text=True, timeout=60)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(result.stdout, COMMITTED.read_text(encoding="utf-8"))

    def test_is_a_draft_07_schema(self):
        schema = strata_jsonschema.json_schema()
        self.assertEqual(schema["$schema"], "http://json-schema.org/draft-07/schema#")
        jsonschema.Draft7Validator.check_schema(schema)

    def test_accepts_every_valid_schema(self):
        schemas = valid_schemas()
        self.assertGreater(len(schemas), 15)
        for path in schemas:
            with self.subTest(schema=str(path)):
                model, diagnostics = validate.validate_file(str(REPO / path))
                self.assertIsNotNone(model, [str(d) for d in diagnostics])
                self.assertEqual(flagged(document(path)), set())

    def test_rejects_the_bad_cases_it_can_express(self):
        for name, paths in REJECTED.items():
            with self.subTest(case=name):
                found = flagged(document(f"tests/codegen/bad/{name}.yaml"))
                self.assertLessEqual(set(paths), found)

    def test_field_types(self):
        schema = strata_jsonschema.json_schema()
        field = jsonschema.Draft7Validator(schema["definitions"]["field"])
        good = list(SCALARS) + ["entity", "char[16]", "char [2]", "f32[4]", "entity[2]", "Color", "Color[2]",
                                "u8 = 255", "i64 = -0x10", "f32 = 1e3", "f64 = .25", "bool = true",
                                "char[8] = hi", 'char[4] = " A"', "Shape = circle", " f32 ",
                                {"type": "u16[4]", "default": [1, 2]}, {"type": "Vec2", "default": {"x": 1}},
                                {"type": "i32", "default": -3}, {"type": "f32", "default": 2},
                                {"type": "Color", "renamed_from": "colour"}]
        bad = ["float", "int", "char", "char[1]", "u8[4][4]", "f32[0]", "f32[]", "u8 = 1.5",
               "u8 = 010", "bool = 3", "bool = yes", "entity = 0", "f32[2] = 1", "1x", "f32 = ", 5, None, [],
               {"default": 1}, {"type": "i32", "default": "5"}, {"type": "entity", "default": 0},
               {"type": "f32", "size": 4}, {"type": "char[8]", "default": ["a"]}]
        for value in good:
            with self.subTest(good=value):
                self.assertEqual(list(field.iter_errors(value)), [])
        for value in bad:
            with self.subTest(bad=value):
                self.assertNotEqual(list(field.iter_errors(value)), [])


class DefinitionsTest(unittest.TestCase):
    """The validator and the JSON Schema read their keys from spec.py."""

    def test_the_validator_uses_specs_tables(self):
        checkers = (validate, check_types, check_elements, check_systems, check_renames, check_assemblages,
                    check_loop)
        for table in ("TOP_LEVEL_KEYS", "TERM_KEYS", "QUERY_KEYS", "SYSTEM_KEYS", "HOOK_KEYS", "LONG_FIELD_KEYS",
                      "RESOURCE_ACCESS_KEYS", "RENAMED_FROM", "EXTENDS", "RELATION_KEYS", "EVENT_KEYS",
                      "DEFAULT_PHASE", "DEFAULT_PHASES", "FIELD_POLICY", "RELATION_POLICY", "PHASE_KEYS", "GATE_KEYS",
                      "TRANSITION_KEYS", "MAX_RUNS_SECONDS", "NOT"):
            with self.subTest(table=table):
                users = [m for m in checkers if hasattr(m, table)]
                self.assertNotEqual(users, [], f"no check reads spec.{table}")
                for m in users:
                    self.assertIs(getattr(m, table), getattr(spec, table), m.__name__)

    def test_every_key_is_in_the_json_schema_with_its_description_and_example(self):
        schema = strata_jsonschema.json_schema()
        top = schema["properties"]
        sections = {
            "top level": (top, spec.TOP_LEVEL),
            "query": (top["queries"]["additionalProperties"]["properties"], spec.QUERY),
            "system": (top["systems"]["additionalProperties"]["properties"], spec.SYSTEM),
            "system resources": (top["systems"]["additionalProperties"]["properties"]["resources"]["properties"],
                                 spec.RESOURCE_ACCESS),
            "component": (top["components"]["additionalProperties"]["properties"],
                          spec.HOOKS + (spec.STORAGE, spec.RENAMED)),
            "resource": (top["resources"]["additionalProperties"]["properties"], (spec.RENAMED,)),
            "long-form field": (schema["definitions"]["field"]["properties"], spec.LONG_FIELD),
            "assemblage": (top["assemblages"]["additionalProperties"]["properties"], (spec.EXTENDS_KEY,)),
            "enum": (top["types"]["additionalProperties"]["then"]["properties"], (spec.ENUM_KEY,)),
        }
        for section, (properties, keys) in sections.items():
            with self.subTest(section=section):
                self.assertEqual(list(properties), [k.name for k in keys])
                for key in keys:
                    self.assertEqual(properties[key.name]["description"], key.description)
                    self.assertEqual(properties[key.name]["examples"], [key.example])
                    if key.default is not None:
                        self.assertEqual(properties[key.name]["default"], key.default)
        self.assertEqual(schema["required"], ["world", "version"])

    def test_every_object_is_closed_and_described(self):
        """Unknown keys are flagged everywhere: no object schema leaves
        additionalProperties open; every property has hover text."""
        def walk(node, path):
            if isinstance(node, dict):
                types = node.get("type", [])
                if "object" in (types if isinstance(types, list) else [types]):
                    self.assertIn("additionalProperties", node, path)
                    self.assertIsNot(node["additionalProperties"], True, path)
                for name, value in node.get("properties", {}).items():
                    self.assertIn("description", value, f"{path}/{name}")
                for key, value in node.items():
                    if key not in ("if", "allOf", "anyOf"):  # conditions and constraints, not values' schemas
                        walk(value, f"{path}/{key}")
            elif isinstance(node, list):
                for i, value in enumerate(node):
                    walk(value, f"{path}/{i}")
        walk(strata_jsonschema.json_schema(), "")

    def test_every_scalar_type_is_described(self):
        self.assertEqual(tuple(spec.SCALAR_DESCRIPTIONS), SCALARS)

    def test_names_exclude_every_c_keyword(self):
        name = jsonschema.Draft7Validator({"type": "string", "pattern": strata_jsonschema.name_pattern()})
        for word in sorted(checks.C_KEYWORDS | checks.STDBOOL_NAMES):
            with self.subTest(word=word):
                self.assertFalse(name.is_valid(word))
                self.assertTrue(name.is_valid(word + "_"))
        self.assertTrue(name.is_valid("x" * limits.MAX_NAME_LENGTH))
        self.assertFalse(name.is_valid("x" * (limits.MAX_NAME_LENGTH + 1)))


class InstallTest(unittest.TestCase):
    def test_installed_with_the_generator(self):
        with tempfile.TemporaryDirectory() as tmp:
            libs = [Path(tmp) / name for name in ("libstrata.a", "libstrata_debug.a", "libstrata_json.a")]
            for lib in libs:
                lib.write_bytes(b"")
            env = dict(os.environ, PREFIX="/usr/local", DESTDIR=str(Path(tmp) / "stage"))
            subprocess.run(["sh", "tools/install.sh", *map(str, libs)], cwd=REPO, env=env, check=True,
                           capture_output=True, timeout=120)
            prefix = Path(tmp) / "stage" / "usr" / "local"
            installed = prefix / "share" / "strata" / "strata.schema.json"
            self.assertEqual(installed.read_text(encoding="utf-8"), COMMITTED.read_text(encoding="utf-8"))
            result = subprocess.run([str(prefix / "bin" / "strata-gen"), "--json-schema"], capture_output=True,
                                    text=True, timeout=60)
            self.assertEqual((result.returncode, result.stdout), (0, installed.read_text(encoding="utf-8")))


if __name__ == "__main__":
    unittest.main()

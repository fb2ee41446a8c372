"""Every generated macro, in every use the docs show, compiles under gcc and
clang with -Wall -Wextra -Wpedantic -Werror, for each shape a struct's
first field can take (scalar, bool, array, struct type, enum, string,
entity), its defaults all zero or not:

- `<W>_<T>_DEFAULT` of a type and of a component: a declaration's
  initializer, a function's argument (`set`, `add`), a member of another
  compound literal, and its address in a bundle (`&(w_bundle){ .c =
  &W_C_DEFAULT }`, as the guide writes it), where gcc once warned of missing
  braces around `{0}`;
- `<W>_ENTITY_NULL` as a value, a member of an event and an argument;
- `<w>_<event>_emit(ctx, &(w_event){...})` in a system's run function;
- `<W>_STRATA_GEN_VERSION` and `_STRING` in the preprocessor and in C.
"""
from __future__ import annotations

import sys
import tempfile
import unittest
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
from codegen import render  # noqa: E402
from codegen.validate import validate_source  # noqa: E402
from tests.codegen import ccheck  # noqa: E402

# The first field of each struct, by shape, zero and not.
SHAPES = {
    "Scalar": ("f32", "f32 = 1.5"),
    "Flag": ("bool", "bool = true"),
    "Array": ("u8[4]", {"type": "u8[4]", "default": [1, 2]}),
    "Nested": ("Pair", {"type": "Pair", "default": {"b": 3}}),
    "Deep": ("Wrap", {"type": "Wrap", "default": {"p": [{"a": 1}]}}),
    "Shaped": ("Kind", "Kind = two"),
    "Text": ("char[8]", "char[8] = hi"),
    "Handle": ("entity", "entity"),
    "Rows": ("Pair[2]", {"type": "Pair[2]", "default": [{"a": 1}]}),
}


def schema_doc() -> dict:
    types = {"Pair": {"a": "i32", "b": "i32"}, "Wrap": {"p": "Pair[2]", "n": "u8"},
             "Kind": {"enum": ["one", "two"]}}
    components, events = {}, {}
    for shape, (zero, nonzero) in SHAPES.items():
        types[f"T{shape}"] = {"first": zero, "rest": "u8"}
        components[f"Zero{shape}"] = {"first": zero, "rest": "u8"}
        components[f"Set{shape}"] = {"first": nonzero, "rest": "u8"}
        events[f"Ev{shape}"] = {"first": zero, "rest": "u8"}
    components["Holder"] = {f"t{shape.lower()}": f"T{shape}" for shape in SHAPES}
    components["Mark"] = {}
    events["Hit"] = {"who": "entity"}
    return {"world": "m", "version": 1, "types": types, "components": components, "events": events,
            "systems": {"Emit": {"read": ["Holder"], "emit": sorted(events)},
                        "Hear": {"receive": sorted(events)}}}


def snake(name: str) -> str:
    from codegen.names import snake as spelled
    return spelled(name)


def game_source(doc: dict) -> str:
    """A game's C file using every macro as the docs show it."""
    lines = ['#include "m.h"', "",
             "#if M_STRATA_GEN_VERSION < 1", '#error "no version"', "#endif",
             'static const char *m_version_ = M_STRATA_GEN_VERSION_STRING;',
             "static void m_take_(const void *p) { (void)p; }", "",
             "void game_defaults_(m_world *w);", "void game_defaults_(m_world *w) {",
             "    m_entity e = M_ENTITY_NULL;", "    m_version_ = M_STRATA_GEN_VERSION_STRING;",
             "    e = m_entity_create(w);", "    (void)m_entity_eq(e, M_ENTITY_NULL);"]
    for t in doc["types"]:
        if t.startswith("T"):
            macro = f"M_{snake(t).upper()}_DEFAULT"
            lines += [f"    m_{snake(t)} v_{t} = {macro};", f"    m_take_(&v_{t});",
                      f"    m_take_(&{macro});"]
    lines.append("    m_holder h = { " + ", ".join(f".t{s.lower()} = M_T_{snake(s).upper()}_DEFAULT"
                                                   for s in SHAPES) + " };")
    lines.append("    m_take_(&(m_holder){ " + ", ".join(f".t{s.lower()} = M_T_{snake(s).upper()}_DEFAULT"
                                                          for s in SHAPES) + " });")
    lines.append("    m_take_(&h);")
    for c in doc["components"]:
        if c == "Mark":
            continue
        macro = f"M_{snake(c).upper()}_DEFAULT"
        lines += [f"    m_{snake(c)} c_{c} = {macro};", f"    m_take_(&c_{c});",
                  f"    (void)m_{snake(c)}_add(w, e, {macro});", f"    (void)m_{snake(c)}_set(w, e, {macro});",
                  f"    (void)m_entity_create_bundle(w, &(m_bundle){{ .{snake(c)} = &{macro}, .mark = true }});"]
    members = ", ".join(f".{snake(c)} = &M_{snake(c).upper()}_DEFAULT" for c in doc["components"] if c != "Mark")
    lines += [f"    (void)m_entity_create_bundle(w, &(m_bundle){{ {members} }});",
              f"    (void)m_entity_add_bundle(w, e, &(m_bundle){{ {members} }});", "}", "",
              "void m_emit_run(m_emit_ctx *ctx) {", "    m_entity who = M_ENTITY_NULL;"]
    for e in doc["events"]:
        if e == "Hit":
            lines.append("    (void)m_hit_emit(ctx, &(m_hit){ .who = M_ENTITY_NULL });")
            continue
        lines.append(f"    (void)m_{snake(e)}_emit(ctx, &(m_{snake(e)}){{ .rest = 1 }});")
    lines += ["    (void)m_hit_emit(ctx, &(m_hit){ .who = who });", "}",
              "void m_hear_run(m_hear_ctx *ctx) { (void)ctx; }", ""]
    return "\n".join(lines)


class MacroUseTest(unittest.TestCase):
    def test_every_documented_use_of_every_macro_compiles(self):
        doc = schema_doc()
        schema, diagnostics = validate_source("m.yaml", yaml.safe_dump(doc, sort_keys=False).encode("utf-8"))
        self.assertIsNotNone(schema, [str(d) for d in diagnostics])
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in render.render(schema).items():
                Path(tmp, name).write_text(text, encoding="utf-8")
            game = Path(tmp, "game.c")
            game.write_text(game_source(doc), encoding="utf-8")
            failed = ccheck.compile_each([game, Path(tmp, "m.c")], ["-std=c11", "-std=gnu11"])
            self.assertEqual(failed, {})


if __name__ == "__main__":
    unittest.main()

"""The live module's entry (`--live`, docs/live.md): written only when
asked, compiled with warnings as errors, clang-formatted, and locating each
element where the schema declares it; and the compiled templates the
generator keeps between runs (a live reload waits for the generator)."""
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from codegen import render
from codegen.validate import validate_source
from tests.codegen import run_generator

REPO = Path(__file__).resolve().parents[2]
CFLAGS = ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I", str(REPO / "runtime/include")]

SCHEMA = """\
world: lv
version: 1
types:
  Color: { r: u8, g: u8 }
components:
  Position: { x: f32, y: f32 }
  Look:
    color: Color
    size: { type: f32, default: 2 }
  Tag: {}
relations:
  Holds: { exclusive: true, data: { grip: u8 } }
resources:
  Clock: { ticks: u32 }
systems:
  Move: { write: [Position] }
"""


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "codegen", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=60, env=env)


def locations(text: str):
    """{name: (type, place, line, column)} of a rendered <world>_live.c."""
    found = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith('{"') and "STRATA_LIVE_" in line:
            name, type_, place, row, column = [x.strip() for x in line.strip("{},").split(",")]
            found[name.strip('"')] = (type_.strip('"'), place, int(row.rstrip("u")), int(column.rstrip("u")))
    return found


class LiveEntryTest(unittest.TestCase):
    def render(self):
        schema, diagnostics = validate_source("lv.yaml", SCHEMA.encode("utf-8"))
        self.assertIsNotNone(schema, diagnostics)
        return render.render(schema, live=True)

    def test_written_only_with_the_flag(self):
        with tempfile.TemporaryDirectory() as out:
            schema = Path(out, "lv.yaml")
            schema.write_text(SCHEMA)
            self.assertEqual(run_generator(str(schema), "-o", out).returncode, 0)
            self.assertFalse(Path(out, "lv_live.c").exists())
            self.assertEqual(run_generator(str(schema), "-o", out, "--live").returncode, 0)
            self.assertIn(f'.schema = "{schema}"', Path(out, "lv_live.c").read_text())

    def test_locations_are_where_the_schema_declares_each_element(self):
        found = locations(self.render()["lv_live.c"])
        lines = SCHEMA.splitlines()

        def at(text):
            """Line and column of the first `text` in the schema."""
            row = next(i for i, line in enumerate(lines) if text in line)
            return row + 1, lines[row].index(text) + 1

        self.assertEqual(found["Position"][2:], at("Position:"))
        self.assertEqual(found["Position.y"][2:], at("y: f32"))
        self.assertEqual(found["Look.color"], ("Color", "STRATA_LIVE_COMPONENT") + at("color: Color"))
        self.assertEqual(found["Look.size"][2:], at("size:"))
        self.assertEqual(found["Color.g"][1:], ("STRATA_LIVE_TYPE",) + at("g: u8"))
        self.assertEqual(found["Holds.grip"][2:], at("grip: u8"))
        self.assertEqual(found["resource.Clock.ticks"][1:], ("STRATA_LIVE_RESOURCE",) + at("ticks: u32"))
        self.assertEqual(found["lv"][1:], ("STRATA_LIVE_WORLD",) + at("lv"))
        self.assertIn("Tag", found)

    def test_compiles_with_warnings_as_errors(self):
        outputs = self.render()
        with tempfile.TemporaryDirectory() as out:
            for name, text in outputs.items():
                Path(out, name).write_text(text)
            for cc in ("gcc", "clang"):
                with self.subTest(cc=cc):
                    result = subprocess.run([cc, *CFLAGS, "-fPIC", "-fvisibility=hidden", "-I", out, "-c",
                                             str(Path(out, "lv_live.c")), "-o", str(Path(out, f"{cc}.o"))],
                                            capture_output=True, text=True)
                    self.assertEqual(result.returncode, 0, result.stderr)
                    symbols = subprocess.run(["nm", str(Path(out, f"{cc}.o"))], capture_output=True, text=True)
                    exported = [line.split()[-1] for line in symbols.stdout.splitlines()
                                if line.split()[-2] in ("D", "R", "T")]
                    self.assertEqual(exported, ["strata_live_entry"])  # the one symbol looked up
                    self.assertIn("w lv_live_game", symbols.stdout)       # the game's table: weak

    def test_clang_formatted(self):
        text = self.render()["lv_live.c"]
        formatted = subprocess.run(["clang-format", f"--style=file:{REPO / '.clang-format'}",
                                    "--assume-filename=lv_live.c"], input=text, capture_output=True, text=True)
        self.assertEqual(formatted.stdout, text)


class TemplateCacheTest(unittest.TestCase):
    def test_the_cache_changes_no_output_and_survives_corruption(self):
        with tempfile.TemporaryDirectory() as tmp:
            schema = Path(tmp, "lv.yaml")
            schema.write_text(SCHEMA)
            cache = Path(tmp, "cache")
            outputs = []
            for i, variant in enumerate(("", str(cache), str(cache), "corrupt")):
                if variant == "corrupt":
                    for entry in cache.iterdir():
                        entry.write_bytes(b"not bytecode")
                    variant = str(cache)
                out = Path(tmp, f"out{i}")
                result = run(str(schema), "-o", str(out), "--live", env=dict(os.environ, STRATA_GEN_CACHE=variant))
                self.assertEqual(result.returncode, 0, result.stderr)
                outputs.append({p.name: p.read_bytes() for p in out.iterdir()})
                if i == 1:
                    self.assertTrue(any(cache.iterdir()), "the first run with a cache fills it")
            self.assertTrue(all(o == outputs[0] for o in outputs))


if __name__ == "__main__":
    unittest.main()

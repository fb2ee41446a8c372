"""The success path: golden output, determinism, restat-friendly writes, name
collisions, and the generated C compiled with warnings as errors by gcc and
clang (and run, for the world the runtime tests use)."""
import contextlib
import difflib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Dict

from codegen import names, render
from codegen.__main__ import main as generator_main
from codegen.validate import validate_file, validate_source
from tests.codegen import ccheck, crun, run_generator, test_many_systems

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "codegen" / "golden"
SCHEMAS = [*sorted(REPO.glob("schema/*.yaml")), *sorted(REPO.glob("tests/schema/*.yaml")),
           *sorted(REPO.glob("bench/*.yaml"))]
CFLAGS = ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I", str(REPO / "runtime/include")]


def generate(schema: Path, outdir: str, *extra: str) -> subprocess.CompletedProcess:
    return run_generator(os.path.relpath(schema, REPO), "-o", outdir, *extra)


# Generates each schema of argv[2:] into its own directory under argv[1], in
# one process; prints the hash of a string, which shows the hash seed.
GENERATE_ALL = """
import os, sys
from codegen.__main__ import main
for i, schema in enumerate(sys.argv[2:]):
    if main([schema, "-o", os.path.join(sys.argv[1], str(i))]) != 0:
        sys.exit(f"{schema}: the generator failed")
print(hash("strata"))
"""


def generate_all(outdir: str, seed: str) -> subprocess.CompletedProcess:
    """Every schema of SCHEMAS into outdir/0, outdir/1, ..., in one process
    whose string hashes are seeded with `seed` (so set orders differ)."""
    return subprocess.run([sys.executable, "-c", GENERATE_ALL, outdir, *(os.path.relpath(p, REPO) for p in SCHEMAS)],
                          cwd=REPO, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONHASHSEED=seed))


def model(path: Path):
    schema, diagnostics = validate_file(os.path.relpath(path, REPO))
    assert schema is not None, "\n".join(map(str, diagnostics))
    return schema


class GoldenTest(unittest.TestCase):
    """tests/codegen/golden/ holds the output for tests/schema/core.yaml; a
    change to the templates shows up here as a readable diff. Regenerate with
    `python3 -m codegen tests/schema/core.yaml -o tests/codegen/golden`."""

    def test_core_world_matches_golden(self):
        outputs = render.render(model(REPO / "tests/schema/core.yaml"))
        for name, text in outputs.items():
            expected = (GOLDEN / name).read_text(encoding="utf-8")
            if text != expected:
                diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                                    f"golden/{name}", f"generated/{name}"))
                self.fail(f"{name} differs from the golden file:\n{diff}")

    def test_committed_generated_dir_is_current(self):
        for schema in sorted(REPO.glob("schema/*.yaml")):
            with self.subTest(schema=schema.name):
                stderr = io.StringIO()
                with contextlib.redirect_stderr(stderr):
                    code = generator_main([os.path.relpath(schema, REPO), "-o", str(REPO / "generated"), "--check"])
                self.assertEqual(code, 0, stderr.getvalue())


class DeterminismTest(unittest.TestCase):
    def test_two_runs_give_the_same_bytes(self):
        """One run in this process, one in another whose string hashes differ."""
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            for i, schema in enumerate(SCHEMAS):
                self.assertEqual(generate(schema, str(Path(a, str(i)))).returncode, 0, schema.name)
            other = generate_all(b, "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1")
            self.assertEqual(other.returncode, 0, other.stderr)
            self.assertNotEqual(other.stdout.split()[-1], str(hash("strata")))  # so set orders differ
            for i, schema in enumerate(SCHEMAS):
                with self.subTest(schema=schema.name):
                    files = sorted(os.listdir(Path(a, str(i))))
                    self.assertEqual(files, sorted(os.listdir(Path(b, str(i)))))
                    self.assertGreaterEqual(len(files), 4)
                    for name in files:
                        self.assertEqual(Path(a, str(i), name).read_bytes(), Path(b, str(i), name).read_bytes(), name)

    def test_unchanged_output_is_not_rewritten(self):
        schema = REPO / "tests/schema/core.yaml"
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(generate(schema, out).returncode, 0)
            header = Path(out, "core.h")
            os.utime(header, (1, 1))
            self.assertEqual(generate(schema, out).returncode, 0)
            self.assertEqual(header.stat().st_mtime, 1)  # so ninja's restat skips the rebuild

    def test_stamp_is_touched_every_run_and_is_the_depfile_target(self):
        """--stamp: for Make, which has no restat, the stamp is the target the
        schema is older than, while the outputs keep their mtime."""
        schema = REPO / "tests/schema/core.yaml"
        with tempfile.TemporaryDirectory() as out:
            stamp, depfile = Path(out, "gen", "core.stamp"), Path(out, "core.d")
            self.assertEqual(generate(schema, out, "--stamp", str(stamp), "--depfile", str(depfile)).returncode, 0)
            self.assertTrue(depfile.read_text(encoding="utf-8").startswith(f"{stamp}: \\\n  tests/schema/core.yaml"))
            for path in (stamp, Path(out, "core.h"), Path(out, "core.c")):
                os.utime(path, (1, 1))
            self.assertEqual(generate(schema, out, "--stamp", str(stamp)).returncode, 0)
            self.assertGreater(stamp.stat().st_mtime, 1)
            self.assertEqual((Path(out, "core.h").stat().st_mtime, Path(out, "core.c").stat().st_mtime), (1, 1))
            os.utime(stamp, (1, 1))
            self.assertEqual(generate(schema, out, "--check", "--stamp", str(stamp)).returncode, 0)
            self.assertEqual(stamp.stat().st_mtime, 1)  # --check writes nothing, not even the stamp

    def test_check_fails_on_a_stale_file(self):
        schema = REPO / "tests/schema/core.yaml"
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(generate(schema, out).returncode, 0)
            self.assertEqual(generate(schema, out, "--check").returncode, 0)
            with open(Path(out, "core.c"), "a", encoding="utf-8") as f:
                f.write("/* edited */\n")
            result = generate(schema, out, "--check")
            self.assertEqual(result.returncode, 1)
            self.assertIn("core.c", result.stderr)

    def test_header_names_generator_version_and_schema_hash(self):
        schema = model(REPO / "tests/schema/core.yaml")
        header = render.render(schema)["core.h"]
        self.assertIn("strata-gen 0.4.0", header)
        self.assertIn(schema.source_hash[:16], header)
        self.assertIn("#define CORE_STRATA_GEN_VERSION 400\n", header)
        self.assertIn('#define CORE_STRATA_GEN_VERSION_STRING "0.4.0"\n', header)
        self.assertIn("#if STRATA_VERSION != CORE_STRATA_GEN_VERSION\n", header)


class MaskTest(unittest.TestCase):
    def test_a_query_lists_its_nonempty_masks_up_to_their_last_word(self):
        """The query table spells a mask up to its last nonzero word (the
        rest are zero) and leaves an empty mask out."""
        components = "".join(f"  C{i}: {{v: u8}}\n" for i in range(66))
        schema, diagnostics = validate_source("m.yaml", (f"world: m\nversion: 1\ncomponents:\n{components}"
                                                         "queries:\n  Q: {read: [C65], without: [C1]}\n").encode())
        self.assertIsNotNone(schema, diagnostics)
        source = render.render(schema)["m.c"]
        entry = source[source.index('.name = "Q"'):]
        entry = entry[:entry.index("\n    },")]
        self.assertEqual(entry.splitlines()[1:], ["        .all = {{UINT64_C(0x0), UINT64_C(0x2)}},",
                                                  "        .none = {{UINT64_C(0x2)}},"])


class CollisionTest(unittest.TestCase):
    def collisions(self, text: str):
        schema, diagnostics = validate_source("t.yaml", text.encode())
        self.assertIsNotNone(schema, diagnostics)
        return [str(d) for d in names.collisions(schema)]

    def test_camel_and_snake_spellings_collide(self):
        found = self.collisions("world: w\nversion: 1\ncomponents:\n  PlayerInput: {x: f32}\n"
                                "  Player_Input: {y: f32}\n")
        self.assertEqual(found, ["t.yaml:5:3: error: component 'Player_Input': C name 'w_player_input' at file "
                                 "scope collides with component 'PlayerInput' (at 4:3) (rename component "
                                 "'Player_Input' or component 'PlayerInput')"])

    def test_component_function_collides_with_query_function(self):
        found = self.collisions("world: w\nversion: 1\ncomponents:\n  A: {x: f32}\n  AGet: {v: u8}\n"
                                "queries:\n  A: {with: [AGet]}\n")
        self.assertTrue(any("'w_a_get'" in f for f in found), found)

    def test_component_collides_with_version_macro(self):
        found = self.collisions("world: w\nversion: 1\ncomponents:\n  StrataGenVersion: {x: f32}\n")
        self.assertEqual(found, ["t.yaml:4:3: error: component 'StrataGenVersion': C name 'W_STRATA_GEN_VERSION' "
                                 "at file scope collides with the macro of the world's own API "
                                 "(rename component 'StrataGenVersion')"])

    def test_cli_reports_collisions_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            schema = Path(tmp, "w.yaml")
            schema.write_text("world: w\nversion: 1\ncomponents:\n  Entity: {x: f32}\n", encoding="utf-8")
            out = Path(tmp, "out")
            result = subprocess.run([sys.executable, "-m", "codegen", str(schema), "-o", str(out)], cwd=REPO,
                                    capture_output=True, text=True, timeout=60)
            self.assertEqual(result.returncode, 1)
            self.assertIn("collides with the world's own API", result.stderr)
            self.assertFalse(out.exists())


@unittest.skipUnless(shutil.which("gcc") and shutil.which("clang"), "needs gcc and clang")
class CompileTest(unittest.TestCase):
    """Generated code compiles with -Werror under both compilers."""

    def test_every_schema_compiles_with_gcc_and_clang(self):
        """In ISO C11, and in GNU C11 after every C library header a game may include."""
        worlds = {schema.name: render.render(model(schema)) for schema in SCHEMAS}
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(ccheck.compile_worlds(worlds, Path(out)), {})

    def test_header_rejects_another_runtime_version(self):
        """Built against a strata.h of another version, the generated code fails
        to compile with a message naming both versions (a static assertion: an
        #error cannot expand STRATA_VERSION_STRING)."""
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(generate(REPO / "tests/schema/core.yaml", out).returncode, 0)
            fake = Path(out, "include")
            fake.mkdir()
            text = (REPO / "runtime/include/strata.h").read_text(encoding="utf-8")
            text = text.replace("#define STRATA_VERSION 400", "#define STRATA_VERSION 500")
            text = text.replace('#define STRATA_VERSION_STRING "0.4.0"', '#define STRATA_VERSION_STRING "0.5.0"')
            (fake / "strata.h").write_text(text, encoding="utf-8")
            Path(out, "use.cpp").write_text('#include "core.h"\n', encoding="utf-8")
            both = "core.h was generated by strata-gen 0.4.0 but strata.h is version 0.5.0: regenerate core.h"
            c11 = [str(Path(out, "core.c")), "-std=c11"]
            cases = {"gcc": (["gcc", *c11], both), "clang": (["clang", *c11], both),
                     "g++": (["g++", "-std=c++11", str(Path(out, "use.cpp"))], both),
                     # C99 has no static assertion: the #error still says to regenerate.
                     "gcc c99": (["gcc", "-std=c99", str(Path(out, "core.c"))],
                                 "core.h was generated by strata-gen 0.4.0 but strata.h is another version: regenerate")}
            for name, (command, message) in cases.items():
                if not shutil.which(command[0]):
                    continue
                with self.subTest(compiler=name):
                    result = subprocess.run([*command, "-I", str(fake), "-I", out, "-fsyntax-only"],
                                            capture_output=True, text=True)
                    self.assertNotEqual(result.returncode, 0)
                    self.assertIn(message, result.stderr)

    def test_header_accepts_its_own_runtime_version(self):
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(generate(REPO / "tests/schema/core.yaml", out).returncode, 0)
            for std in ("c99", "c11"):
                with self.subTest(std=std):
                    result = subprocess.run(["gcc", f"-std={std}", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I",
                                             str(REPO / "runtime/include"), "-I", out, "-fsyntax-only",
                                             str(Path(out, "core.h"))], capture_output=True, text=True)
                    self.assertEqual(result.returncode, 0, result.stderr)

    def test_full_world_defaults_reach_c(self):
        """Compile and run a program printing the defaults of tests/schema/full.yaml."""
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(generate(REPO / "tests/schema/full.yaml", out).returncode, 0)
            Path(out, "main.c").write_text(r'''
#include <inttypes.h>
#include <stdio.h>
#include "full.h"
int main(void) {
    full_appearance a = FULL_APPEARANCE_DEFAULT;
    full_counters c = FULL_COUNTERS_DEFAULT;
    full_name n = FULL_NAME_DEFAULT;
    full_path p = FULL_PATH_DEFAULT;
    printf("%d %d %d %d %g %d %d %d %d\n", a.color.a, a.sprite.tint.r, a.sprite.tint.g, a.sprite.frames[0],
           (double)a.size, a.shape, a.sprite.shape, a.sprite.frames[1], a.sprite.frames[3]);
    printf("%d %d %d %" PRIu64 " %d %u %" PRId64 " %u %u %g\n", c.flag, c.off, c.small, c.big, c.mid, c.word,
           c.wide, c.byte, c.dword, c.ratio);
    printf("[%s] [%s] %g %g %g\n", n.text, n.initials, (double)p.weights[0], (double)p.weights[1],
           (double)p.weights[2]);
    return 0;
}
''', encoding="utf-8")
            exe = Path(out, "defaults")
            build = subprocess.run(["gcc", *CFLAGS, "-I", out, str(Path(out, "main.c")), "-o", str(exe)],
                                   capture_output=True, text=True)
            self.assertEqual(build.returncode, 0, build.stderr)
            run = subprocess.run([str(exe)], capture_output=True, text=True)
            self.assertEqual(run.stdout.splitlines(), [
                "255 10 7 9 5 0 1 0 0",
                "1 0 -128 18446744073709551615 -16 65535 -9223372036854775808 127 4294967295 0.25",
                "[nobody] [ A] 0.5 1 0",
            ])

    def test_static_defaults_equal_the_nested_initializers(self):
        """The .c spells each default one leaf a line (`.rules.decay[2] =
        0.7f`); the same value as nested braces (what the header's macros
        use) has the same bytes, for every component and resource (the .c
        is included in the program's file, so its statics are seen)."""
        schema = model(REPO / "tests/schema/full.yaml")
        n = names.Names(schema)
        lit = render.Literals(schema, n)
        pairs = [(n.component(c.name).defaults_, n.type(c.name), lit.fields(c.fields), c.name)
                 for c in schema.components if not c.is_tag]
        pairs += [(f"{n.resources_defaults_}.{n.member(r.name)}", n.type(r.name), lit.fields(r.fields), r.name)
                  for r in schema.resources]
        expected = "".join(f"static const {ctype} expected{i} = {braces};\n"
                           for i, (_, ctype, braces, _) in enumerate(pairs))
        checks = "".join(f"    same(&{static}, &expected{i}, sizeof expected{i}, \"{what}\");\n"
                         for i, (static, _, _, what) in enumerate(pairs))
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(generate(REPO / "tests/schema/full.yaml", out).returncode, 0)
            # The game's systems and hooks, never called here: weak, so the program links without them.
            game = "".join(f"#pragma weak {x.ident}\n" for x in n.emitted()
                           if x.purpose in ("run", "on_add", "on_remove", "on_set") and x.scope == names.FUNC)
            main = f"""{game}#include "{Path(out, 'full.c')}"
#include <stdio.h>
#include <string.h>
{expected}
static int failed;
static void same(const void *a, const void *b, size_t size, const char *what) {{
    if (memcmp(a, b, size) != 0) {{
        printf("%s differs\\n", what);
        failed = 1;
    }}
}}
int main(void) {{
{checks}    return failed;
}}
"""
            run = crun.build_and_run(Path(out), [], main)  # linked with the runtime the other tests share
            self.assertEqual((run.returncode, run.stdout), (0, ""))
            self.assertGreater(len(pairs), 8)


class FormatTest(unittest.TestCase):
    """The generated C follows the repository's .clang-format: every world's
    .c (world.c.j2 and what it includes) and header (world.h.j2 and what it
    includes), for every schema of the repository that generates (the
    examples', the tests', the benches') and a world of 1,000 systems."""

    def assert_formatted(self, outputs: Dict[str, str]) -> None:
        """Each text of {where: text} as clang-format leaves it (one run for all)."""
        with tempfile.TemporaryDirectory() as tmp:
            paths = {}
            for i, (where, text) in enumerate(outputs.items()):
                paths[where] = Path(tmp, str(i), Path(where).name)
                paths[where].parent.mkdir()
                paths[where].write_text(text, encoding="utf-8")
            run = subprocess.run(["clang-format", f"--style=file:{REPO / '.clang-format'}", "-i",
                                  *map(str, paths.values())], capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            for where, text in outputs.items():
                formatted = paths[where].read_text(encoding="utf-8")
                diff = "".join(difflib.unified_diff(text.splitlines(True), formatted.splitlines(True),
                                                    "generated", "clang-format", n=1))
                self.assertEqual(diff, "", f"{where}: the generated text is not clang-formatted")

    def test_generated_c_and_headers_are_clang_formatted(self):
        schemas = sorted({*SCHEMAS, *REPO.glob("tests/**/*.yaml"), *REPO.glob("examples/**/*.yaml"),
                          *REPO.glob("bench/**/*.yaml")})
        outputs = {}
        for schema in schemas:
            world, _ = validate_file(os.path.relpath(schema, REPO))
            if world is not None:  # else a schema the tests expect to fail
                outputs.update((f"{os.path.relpath(schema, REPO)}: {name}", text)
                               for name, text in render.render(world).items() if name.endswith((".c", ".h")))
        many, _ = validate_source("many.yaml", test_many_systems.schema_text().encode("utf-8"))
        outputs.update((f"many.yaml: {name}", text) for name, text in render.render(many).items()
                       if name.endswith((".c", ".h")))
        self.assertGreater(sum(where.endswith(".h") for where in outputs), 50)
        self.assert_formatted(outputs)

    def test_c_wrap_breaks_as_clang_format_does(self):
        line = "    ctx.x = (const t *)call(" + ", ".join(f"argument_{i}" for i in range(12)) + ");"
        wrapped = render.c_wrap(line)
        self.assertTrue(all(len(x) <= render.COLUMN_LIMIT for x in wrapped.split("\n")))
        self.assertEqual(wrapped.replace("\n", "").replace(" " * 28, " "), line)
        formatted = subprocess.run(["clang-format", f"--style=file:{REPO / '.clang-format'}",
                                    "--assume-filename=x.c"], input="void f(void) {\n" + wrapped + "\n}\n",
                                   capture_output=True, text=True)
        self.assertEqual(formatted.stdout, "void f(void) {\n" + wrapped + "\n}\n")
        self.assertEqual(render.c_wrap("short(a, b);"), "short(a, b);")


if __name__ == "__main__":
    unittest.main()

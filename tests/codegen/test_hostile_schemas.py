"""Hostile but plausible schemas, each once a way to make the generator write
C that does not compile, mean something else, or crash: every one now gets
`file:line:col: error:` lines, or C that compiles under gcc and clang with
-std=c11 -Wall -Wextra -Wpedantic -Werror (and, where a value is at stake,
runs and holds the value the schema says).
"""
from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
from codegen import names, render  # noqa: E402
from codegen.__main__ import main as generator_main  # noqa: E402
from codegen.validate import validate_source  # noqa: E402
from tests.codegen import ccheck  # noqa: E402


def check(text: str):
    """(schema or None, error lines) for a schema text, collisions included."""
    schema, diagnostics = validate_source("h.yaml", text.encode("utf-8"))
    errors = [str(d) for d in diagnostics if d.is_error]
    if schema is not None:
        errors += [str(d) for d in names.collisions(schema)]
    return (None if errors else schema), errors


def world(body: str, name: str = "w") -> str:
    return f"world: {name}\nversion: 1\n{body}"


class HostileSchemaTest(unittest.TestCase):
    def assert_rejected(self, text: str, *fragments: str):
        schema, errors = check(text)
        self.assertIsNone(schema, text)
        for line in errors:
            self.assertRegex(line, r"^h\.yaml:\d+:\d+: error: ")
        for fragment in fragments:
            self.assertTrue(any(fragment in e for e in errors), (fragment, errors))
        return errors

    def assert_compiles(self, *texts: str):
        worlds = {}
        for i, text in enumerate(texts):
            schema, errors = check(text)
            self.assertIsNotNone(schema, errors)
            worlds[f"schema {i}"] = render.render(schema)
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(ccheck.compile_worlds(worlds, Path(tmp)), {})

    def run_c(self, text: str, main: str) -> str:
        """Compile the world and `main` with gcc, run it, return its output."""
        schema, errors = check(text)
        self.assertIsNotNone(schema, errors)
        with tempfile.TemporaryDirectory() as tmp:
            for name, body in render.render(schema).items():
                Path(tmp, name).write_text(body, encoding="utf-8")
            Path(tmp, "main.c").write_text(main, encoding="utf-8")
            exe = Path(tmp, "main")
            result = subprocess.run(["gcc", *ccheck.FLAGS[:-1], f"-I{REPO / 'runtime/include'}", f"-I{tmp}",
                                     str(Path(tmp, "main.c")), "-o", str(exe), "-lm"], capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stderr)
            return subprocess.run([str(exe)], capture_output=True, text=True, timeout=60).stdout

    # --- generated names that collide with each other ------------------------------

    def test_component_named_like_an_iterator_or_context_member(self):
        for member in ("Count", "Entities", "Impl_"):
            self.assert_rejected(world(f"components:\n  Pos: {{x: f32}}\n  {member}: {{v: u8}}\n"
                                       f"queries:\n  Q: {{read: [Pos, {member}]}}\n"), "collides")
        for member in ("Count", "Entities", "Dt", "Aspect", "World", "Impl_"):
            self.assert_rejected(world(f"components:\n  Pos: {{x: f32}}\n  {member}: {{v: u8}}\n"
                                       f"systems:\n  S: {{read: [Pos, {member}], aspect: {{k: u8}}}}\n"), "collides")

    def test_resource_named_like_a_context_member(self):
        for member in ("World", "Dt"):
            self.assert_rejected(world(f"resources:\n  {member}: {{v: u8}}\n"
                                       f"systems:\n  S: {{resources: {{read: [{member}]}}}}\n"), "collides")
        self.assert_rejected(world("resources:\n  Enabled: {v: u8}\n"), "collides")

    def test_component_user_in_a_query_is_an_each_parameter(self):
        self.assert_rejected(world("components:\n  User: {v: u8}\nqueries:\n  Q: {read: [User]}\n"),
                             "as a parameter of w_q_fn collides")

    def test_component_and_its_default_macro(self):
        errors = self.assert_rejected(world("components:\n  Foo: {x: f32}\n  FooDefault: {y: f32}\n"),
                                      "W_FOO_DEFAULT")
        self.assertIn("h.yaml:5:3: error: component 'FooDefault'", errors[0])

    def test_names_of_the_generators_statics(self):
        for body in ("types:\n  P: {x: f32}\n  PFields_: {y: f32}\ncomponents:\n  A: {p: P}\n",
                     "components:\n  Components_: {x: f32}\n",
                     "components:\n  Schema_: {x: f32}\n",
                     "components:\n  A: {x: f32}\n  SpawnAIds_: {x: f32}\nassemblages:\n  A: {A: {}}\n"):
            self.assert_rejected(world(body), "collides")

    def test_names_of_the_loop(self):
        # A state machine's enum, its resource type and functions; its states'
        # constants; a fixed phase's functions; the loop's statics and members.
        def loop(components: str = "", resources: str = "") -> str:
            return world("phases: [update, {name: fix, rate: 60}]\nstates:\n  Mode: [on, off]\n"
                         f"components:\n  Pos: {{x: f32}}\n{components}resources:\n  Res: {{b: bool}}\n{resources}"
                         "systems:\n  S: {phase: fix, every: 2, in_state: {Mode: on}, run_if: {Res: b}}\n"
                         "  E: {on_enter: {Mode: off}}\n")
        self.assert_compiles(loop())
        for name in ("ModeState",      # w_mode_state, the machine's resource
                     "ModeGet",        # w_mode_get
                     "ModeOn",         # W_MODE_ON, a state's constant (upper case as a component id)
                     "FixFraction",    # w_fix_fraction
                     "FixRuns",        # w_fix_runs
                     "Loop_",          # w_loop_, the clock's type
                     "Gates_",         # w_gates_
                     "Transitions_",   # w_transitions_
                     "BatchItems_",    # w_batch_items_
                     "WorldStepNs"):   # w_world_step_ns
            self.assert_rejected(loop(components=f"  {name}: {{x: f32}}\n"), "collides")
        self.assert_rejected(loop(resources="  Loop_: {x: f32}\n"), "collides")  # the resource block's loop_
        # A machine and a state named after each other's spellings.
        self.assert_rejected(world("states:\n  Mode: [get]\n  ModeGet: [x]\n"), "collides")
        self.assert_rejected(world("states:\n  Mode: [state]\ncomponents:\n  ModeStateRes: {x: u8}\n"),
                             "collides")

    # --- names the C library owns ---------------------------------------------------------

    def test_c_library_names_as_fields(self):
        for name in ("NULL", "EOF", "BUFSIZ", "SEEK_SET", "SIZE_MAX", "INT8_MAX", "alignof", "alignas",
                     "static_assert", "errno", "linux", "unix", "constexpr", "typeof", "nullptr", "bool",
                     # <complex.h>, <iso646.h>, <stdnoreturn.h>, <signal.h>, <time.h>, <unistd.h>
                     "I", "complex", "and", "not", "noreturn", "SIGINT", "CLOCKS_PER_SEC", "STDIN_FILENO"):
            self.assert_rejected(world(f"components:\n  A: {{{name}: f32}}\n"), f"'{name}'")

    def test_c_library_names_as_components(self):
        for name in ("Errno", "Linux", "Unix", "Stdin", "Constexpr", "Typeof", "Complex", "Noreturn"):
            self.assert_rejected(world(f"components:\n  {name}: {{x: f32}}\n"), "C name")
        # A function-like macro breaks only a call: as a member (the bundle's, a context's) the name is fine.
        self.assert_compiles(world("components:\n  Assert: {x: f32}\n  Offsetof: {x: f32}\n  Floor: {x: f32}\n"
                                   "systems:\n  S: {read: [Assert, Offsetof], write: [Floor]}\n"))

    def test_world_prefix_that_spells_library_names(self):
        self.assert_rejected(world("components:\n  Max: {x: f32}\n", "int8"), "INT8_MAX")
        self.assert_rejected(world("types:\n  T: {x: f32}\ncomponents:\n  A: {t: T}\n", "size"), "size_t")

    def test_names_c_reserves_for_the_implementation(self):
        for field in ("_X", "__x"):
            self.assert_rejected(world(f"components:\n  A: {{{field}: f32}}\n"), "reserved for the C implementation")
        self.assert_rejected(world("", "_w"), "reserved for the C implementation")

    def test_world_names_that_hide_headers(self):
        for name in ("strata", "strata_json", "stdint", "stdio", "stdbool", "stddef", "math", "string"):
            self.assert_rejected(world("", name), "would hide a header")

    # --- literals ----------------------------------------------------------------------------

    @unittest.skipUnless(shutil.which("gcc"), "needs gcc")
    def test_trigraphs_in_a_string_default(self):
        text = world('components:\n  A: {s: {type: "char[16]", default: "??=??/??(a?"}}\n')
        out = self.run_c(text, '#include <stdio.h>\n#include "w.h"\n'
                               'int main(void) { printf("%s", W_A_DEFAULT.s); return 0; }\n')
        self.assertEqual(out, "??=??/??(a?")

    @unittest.skipUnless(shutil.which("gcc"), "needs gcc")
    def test_float_defaults_round_trip_exactly(self):
        text = world('components:\n  A:\n'
                     '    fmax: "f32 = 3.4028235e38"\n    fmin: "f32 = 1.4e-45"\n    fnorm: "f32 = 1.17549435e-38"\n'
                     '    dmin: "f64 = 4.9406564584124654e-324"\n    dmax: "f64 = 1.7976931348623157e308"\n'
                     '    third: "f32 = 0.333333333333"\n    nz: "f32 = -0.0"\n')
        out = self.run_c(text, '#include <float.h>\n#include <math.h>\n#include <stdio.h>\n#include "w.h"\n'
                               'int main(void) { w_a a = W_A_DEFAULT;\n'
                               '  printf("%d %d %d %d %d %d %d\\n", a.fmax == FLT_MAX, a.fmin == 0x1p-149f,\n'
                               '         a.fnorm == FLT_MIN, a.dmin == 0x1p-1074, a.dmax == DBL_MAX,\n'
                               '         a.third == 0.333333333333f, signbit(a.nz) != 0);\n  return 0; }\n')
        self.assertEqual(out, "1 1 1 1 1 1 1\n")

    def test_floats_that_round_to_zero_or_past_the_largest(self):
        self.assert_rejected(world('components:\n  A: {x: "f32 = 1e-46"}\n'), "rounds to zero in f32")
        self.assert_rejected(world('components:\n  A: {x: "f64 = 1e-400"}\n'), "rounds to zero in f64")
        self.assert_rejected(world('components:\n  A: {x: "f32 = 3.4028236e38"}\n'), "out of range for f32")
        self.assertIsNotNone(check(world('components:\n  A: {x: "f32 = 3.4028235e38"}\n'))[0])

    def test_long_string_default(self):
        long = "a?" * 2500  # 5000 bytes: past the 4095 a C11 compiler must take in one literal
        self.assert_compiles(world(f'components:\n  A: {{s: {{type: "char[5001]", default: "{long}"}}}}\n'))

    # --- shapes ---------------------------------------------------------------------------

    def test_worlds_without_components_systems_or_resources(self):
        # Each world of its own name, so that all compile in one translation unit.
        self.assert_compiles(world("", "w0"), world("resources:\n  R: {v: u8}\n", "w1"),
                             world("components:\n  A: {x: f32}\n", "w2"), world("systems:\n  S: {}\n", "w3"),
                             world("components:\n  T: {}\nqueries:\n  Q: {with: [T]}\n", "w4"))

    def test_world_without_components_compiles_optimised(self):
        """Regression: at -O2, gcc saw a no-component world's bundle arrays
        passed on uninitialised (-Wmaybe-uninitialized), which -fsyntax-only
        never shows."""
        schema, errors = check(world("resources:\n  R: {v: u8}\nsystems:\n  S: {resources: {write: [R]}}\n"))
        self.assertIsNotNone(schema, errors)
        with tempfile.TemporaryDirectory() as tmp:
            sources = []
            for name, body in render.render(schema).items():
                Path(tmp, name).write_text(body, encoding="utf-8")
                if name.endswith(".c"):
                    sources.append(str(Path(tmp, name)))
            for cc in ccheck.compilers():
                for source in sources:
                    result = subprocess.run([cc, *ccheck.FLAGS[:-1], "-O2", f"-I{REPO / 'runtime/include'}",
                                             f"-I{tmp}", "-c", source, "-o", str(Path(tmp, "w.o"))],
                                            capture_output=True, text=True, timeout=120)
                    self.assertEqual(result.returncode, 0, f"{cc}: {result.stderr}")

    def test_struct_nesting_past_the_limit(self):
        def chain(n):
            return world("types:\n" + "".join(f"  S{i}: {{s: S{i + 1}}}\n" for i in range(n)) +
                         f"  S{n}: {{x: \"u8 = 1\"}}\ncomponents:\n  A: {{s: S0}}\n")
        self.assert_rejected(chain(260), "nests 33 levels deep (at most 32)")
        self.assert_compiles(chain(30))  # 31 struct levels and the component's: at the limit

    # --- tracebacks ---------------------------------------------------------------------

    def test_deep_yaml_nesting(self):
        self.assert_rejected(world("components:\n  A: {x: {type: u8, default: " + "[" * 500 + "]" * 500 + "}}\n"),
                             "nest deeper than 64 levels")

    def test_struct_chain_1000_deep(self):
        text = world("types:\n" + "".join(f"  S{i}: {{s: S{i + 1}}}\n" for i in range(1000)) +
                     "  S1000: {x: u8}\ncomponents:\n  A: {s: S0}\n")
        self.assert_rejected(text, "nests 33 levels deep")

    def test_after_chain_of_991_systems(self):
        text = world("components:\n  A: {x: f32}\nsystems:\n" +
                     "".join(f"  S{i}: {{write: [A], after: [S{i + 1}]}}\n" for i in range(990)) +
                     "  S990: {write: [A]}\n")
        schema, errors = check(text)
        self.assertIsNotNone(schema, errors)
        self.assertEqual([y.name for y in schema.systems][:2], ["S990", "S989"])
        render.render(schema)

    def test_numbers_of_thousands_of_digits(self):
        digits = "9" * 4400
        self.assert_rejected(world(f'components:\n  A: {{x: "u8[{digits}]"}}\n'), "is too large")
        self.assert_rejected(world(f'components:\n  A: {{x: "u64 = {digits}"}}\n'), "out of range for u64")
        self.assert_rejected(world(f'components:\n  A: {{x: "f64 = {digits}"}}\n'), "longer than 400")
        self.assert_rejected(f"world: w\nversion: {digits}\n", "version must be")

    def test_the_command_line_prints_no_traceback(self):
        bodies = ("[" * 600, world("types:\n" + "".join(f"  S{i}: {{s: S{i + 1}}}\n" for i in range(1000))))
        with tempfile.TemporaryDirectory() as tmp:
            for i, body in enumerate(bodies):
                path = Path(tmp, f"h{i}.yaml")
                path.write_text(body, encoding="utf-8")
                err = io.StringIO()
                with contextlib.redirect_stderr(err):
                    status = generator_main([str(path), "-o", str(Path(tmp, "out"))])
                self.assertEqual(status, 1)
                self.assertNotIn("Traceback", err.getvalue())
                self.assertRegex(err.getvalue().splitlines()[0], r":\d+:\d+: error: ")

    # --- size ------------------------------------------------------------------------------

    def test_large_zero_resources_are_fast_and_small(self):
        text = world("types:\n  Block: {a: 'u8[65535]', b: 'u8[65535]', c: 'u8[65535]', d: 'u8[65535]'}\n"
                     "resources:\n" + "".join(f"  R{i}: {{blocks: 'Block[4]', tail: 'u8[16]'}}\n" for i in range(256)))
        start = time.perf_counter()
        schema, errors = check(text)
        self.assertIsNotNone(schema, errors)
        size = sum(len(t) for t in render.render(schema).values())
        elapsed = time.perf_counter() - start
        self.assertLess(size, 2_000_000)  # once 805 MB: every zero was spelt out
        self.assertLess(elapsed, 20)  # once 58 s; about 1 s


if __name__ == "__main__":
    unittest.main()

"""The generator's limits, each tested at the limit (accepted) and one past
it (rejected with a clear error): fields per struct body, bytes of a value,
resources, components, queries and systems, name length, array length.
The C size the generator computes for the byte limit is the compiler's.

The exact messages one past each limit are bad cases too
(tests/codegen/bad/too_many_fields, value_too_large, type_too_large,
too_many_resources, too_many_components, name_too_long, array_length).
"""
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from codegen import validate
from codegen.validate import validate_source

REPO = Path(__file__).resolve().parents[2]


def messages(text):
    _, diagnostics = validate_source("limits.yaml", text.encode("utf-8"))
    return [str(d) for d in diagnostics]


def world(body):
    return "world: lim\nversion: 1\n" + body


def fields(n, typ="u8"):
    return "".join(f"    f{i}: {typ}\n" for i in range(n))


class LimitsTest(unittest.TestCase):
    def test_fields_per_component_type_resource_and_aspect(self):
        n = validate.MAX_FIELDS
        for make in (lambda k: f"components:\n  C:\n{fields(k)}",
                     lambda k: f"types:\n  T:\n{fields(k)}",
                     lambda k: f"resources:\n  R:\n{fields(k)}",
                     lambda k: f"components:\n  A: {{ x: u8 }}\nsystems:\n  S:\n    read: [A]\n    aspect:\n"
                               + "".join(f"      f{i}: u8\n" for i in range(k))):
            self.assertEqual(messages(world(make(n))), [])
            past = messages(world(make(n + 1)))
            self.assertEqual(len(past), 1, past)
            self.assertIn(f"too many fields: at most {n}", past[0])

    def test_bytes_of_a_value(self):
        limit = validate.MAX_VALUE_BYTES
        # 16 arrays of 65535 bytes and one of 16: exactly 1 MiB, then one byte more.
        exact = fields(16, "u8[65535]") + "    tail: u8[16]\n"
        self.assertEqual(messages(world(f"components:\n  C:\n{exact}")), [])
        past = messages(world(f"components:\n  C:\n{exact}    one: u8\n"))
        self.assertEqual(past, [f"limits.yaml:4:3: error: component 'C': {limit + 1} bytes is too large "
                                f"(at most {limit})"])

    def test_resources_per_world(self):
        n = validate.MAX_RESOURCES
        body = lambda k: "resources:\n" + "".join(f"  R{i}: {{ v: u8 }}\n" for i in range(k))
        self.assertEqual(messages(world(body(n))), [])
        self.assertEqual(messages(world(body(n + 1))),
                         [f"limits.yaml:{4 + n}:3: error: too many resources: at most {n}"])

    def test_components_queries_names_and_arrays_at_their_limits(self):
        comps = "components:\n" + "".join(f"  C{i}: {{}}\n" for i in range(validate.MAX_COMPONENTS))
        self.assertEqual(messages(world(comps)), [])
        queries = "components:\n  A: {}\nqueries:\n" + "".join(
            f"  Q{i}: {{ with: [A] }}\n" for i in range(validate.MAX_QUERIES))
        self.assertEqual(messages(world(queries)), [])
        name = "N" * validate.MAX_NAME_LENGTH
        self.assertEqual(messages(world(f"components:\n  {name}: {{ x: u8 }}\n")), [])
        array = f"components:\n  C: {{ a: 'u8[{validate.MAX_ARRAY_LENGTH}]' }}\n"
        self.assertEqual(messages(world(array)), [])
        self.assertEqual(len(messages(world(array.replace(str(validate.MAX_ARRAY_LENGTH),
                                                          str(validate.MAX_ARRAY_LENGTH + 1))))), 1)

    @unittest.skipUnless(shutil.which("gcc"), "needs gcc")
    def test_computed_sizes_are_the_compilers(self):
        schema = world("types:\n"
                       "  Inner: { a: u8, b: f64, c: u16 }\n"
                       "  Shape: { enum: [one, two] }\n"
                       "components:\n"
                       "  Mixed: { a: bool, b: u64, c: 'char[3]', d: Shape, e: 'Inner[3]', f: entity, g: i16 }\n"
                       "  Small: { a: u8, b: u16, c: 'u8[3]' }\n")
        s, diagnostics = validate_source("sizes.yaml", schema.encode("utf-8"))
        self.assertEqual([str(d) for d in diagnostics], [])
        layouts = {}
        for t in s.structs:
            layouts[t.name] = validate._struct_layout(t.fields, layouts)
        expected = {c.name: validate._struct_layout(c.fields, layouts)[0] for c in s.components}
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "lim.yaml").write_text(schema, encoding="utf-8")
            gen = subprocess.run([sys.executable, "-m", "codegen", str(Path(tmp, "lim.yaml")), "-o", tmp],
                                 cwd=REPO, capture_output=True, text=True)
            self.assertEqual(gen.returncode, 0, gen.stderr)
            checks = "".join(f"_Static_assert(sizeof(lim_{name.lower()}) == {size}, \"{name}\");\n"
                             for name, size in expected.items())
            Path(tmp, "sizes.c").write_text(f"#include \"lim.h\"\n{checks}", encoding="utf-8")
            cc = subprocess.run(["gcc", "-std=c11", "-fsyntax-only", f"-I{REPO / 'runtime/include'}", f"-I{tmp}",
                                 str(Path(tmp, "sizes.c"))], capture_output=True, text=True)
            self.assertEqual(cc.returncode, 0, cc.stderr)


if __name__ == "__main__":
    unittest.main()

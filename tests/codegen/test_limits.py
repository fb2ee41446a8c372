"""The generator's limits, each tested at the limit (accepted) and one past
it (rejected with a clear error): fields per struct body, bytes of a value,
resources, components, sparse components, queries and systems, name
length, array length, YAML nesting, type nesting, the length of a numeric
token, the range of float defaults; and the generator's time on a large
schema.
The C size the generator computes for the byte limit is the compiler's.

The runtime's limits (strata.h's STRATA_MAX_*, which limits.py reads): a
world at every one of them at once generates, compiles and is created and
stepped by the runtime with its asserts on; one past each is one
`file:line:col: error:`; docs/schema.md's table lists each with its value.

The exact messages one past each limit are bad cases too
(tests/codegen/bad/too_many_fields, value_too_large, type_too_large,
too_many_resources, too_many_components, name_too_long, array_length).
"""
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
from codegen import check_types, limits, load, names, numbers, render  # noqa: E402
from codegen.validate import validate_source  # noqa: E402
from tests.codegen import ccheck, crun  # noqa: E402


def messages(text):
    _, diagnostics = validate_source("limits.yaml", text.encode("utf-8"))
    return [str(d) for d in diagnostics]


def world(body):
    return "world: lim\nversion: 1\n" + body


def fields(n, typ="u8"):
    return "".join(f"    f{i}: {typ}\n" for i in range(n))


class LimitsTest(unittest.TestCase):
    def test_fields_per_component_type_resource_and_aspect(self):
        n = limits.MAX_FIELDS
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
        limit = limits.MAX_VALUE_BYTES
        # 16 arrays of 65535 bytes and one of 16: exactly 1 MiB, then one byte more.
        exact = fields(16, "u8[65535]") + "    tail: u8[16]\n"
        self.assertEqual(messages(world(f"components:\n  C:\n{exact}")), [])
        past = messages(world(f"components:\n  C:\n{exact}    one: u8\n"))
        self.assertEqual(past, [f"limits.yaml:4:3: error: component 'C': {limit + 1} bytes is too large "
                                f"(at most {limit})"])

    def test_resources_per_world(self):
        n = limits.MAX_RESOURCES
        body = lambda k: "resources:\n" + "".join(f"  R{i}: {{ v: u8 }}\n" for i in range(k))
        self.assertEqual(messages(world(body(n))), [])
        self.assertEqual(messages(world(body(n + 1))),
                         [f"limits.yaml:{4 + n}:3: error: too many resources: at most {n}"])

    def test_sparse_components_per_world(self):
        n = limits.MAX_SPARSE
        body = lambda k: "components:\n" + "".join(f"  S{i}: {{ storage: sparse }}\n" for i in range(k))
        self.assertEqual(messages(world(body(n))), [])
        self.assertEqual(messages(world(body(n + 1))),
                         [f"limits.yaml:{4 + n}:19: error: component 'S{n}': too many sparse components: at most {n} "
                          "(STRATA_MAX_SPARSE; keep the others in tables)"])

    def test_components_queries_names_and_arrays_at_their_limits(self):
        comps = "components:\n" + "".join(f"  C{i}: {{}}\n" for i in range(limits.MAX_COMPONENTS))
        self.assertEqual(messages(world(comps)), [])
        queries = "components:\n  A: {}\nqueries:\n" + "".join(
            f"  Q{i}: {{ with: [A] }}\n" for i in range(limits.MAX_QUERIES))
        self.assertEqual(messages(world(queries)), [])
        name = "N" * limits.MAX_NAME_LENGTH
        self.assertEqual(messages(world(f"components:\n  {name}: {{ x: u8 }}\n")), [])
        array = f"components:\n  C: {{ a: 'u8[{limits.MAX_ARRAY_LENGTH}]' }}\n"
        self.assertEqual(messages(world(array)), [])
        self.assertEqual(len(messages(world(array.replace(str(limits.MAX_ARRAY_LENGTH),
                                                          str(limits.MAX_ARRAY_LENGTH + 1))))), 1)

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
            layouts[t.name] = check_types.struct_layout(t.fields, layouts)
        expected = {c.name: check_types.struct_layout(c.fields, layouts)[0] for c in s.components}
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


class NewLimitsTest(unittest.TestCase):
    def test_yaml_nesting(self):
        limit = load.MAX_NESTING
        # The document is level 1, `components` 2, `A` 3, the field's mapping 4: the list adds the rest.
        def nested(levels):
            return world("components:\n  A: {x: {type: 'u8[1]', default: " + "[" * levels + "1" + "]" * levels + "}}\n")
        _, ok = validate_source("n.yaml", nested(limit - 4).encode())
        self.assertFalse([d for d in ok if "nest" in d.message], ok)
        past = messages(nested(limit - 3))
        column = len("  A: {x: {type: 'u8[1]', default: ") + (limit - 4) + 1  # the list that passes the limit
        self.assertEqual(past, [f"limits.yaml:4:{column}: error: lists and mappings nest deeper than "
                                f"{limit} levels (no schema needs more than a few)"])

    def test_type_nesting(self):
        limit = limits.MAX_TYPE_DEPTH

        def chain(structs):
            return world("types:\n" + "".join(f"  S{i}: {{ s: S{i + 1} }}\n" for i in range(structs - 1)) +
                         f"  S{structs - 1}: {{ x: 'u8 = 1' }}\n")
        self.assertEqual(messages(chain(limit)), [])
        self.assertEqual(messages(chain(limit + 1)), [
            f"limits.yaml:4:3: error: type 'S0': nests {limit + 1} levels deep (at most {limit}) "
            "(a struct or an array inside a struct is one level)"])
        # An array is a level too: S0 holds an array of the chain's first struct.
        arrays = world("types:\n  A: { a: 'S0[2]' }\n" + chain(limit).split("types:\n")[1])
        self.assertEqual(len(messages(arrays)), 1)

    def test_numeric_tokens(self):
        longest_integer = "1" + "0" * (numbers.MAX_INTEGER_CHARS - 1)
        self.assertEqual(numbers.integer_value(longest_integer), 10 ** (numbers.MAX_INTEGER_CHARS - 1))
        self.assertIsNone(numbers.integer_value(longest_integer + "0"))
        self.assertIn("out of range for u64", messages(world(f"components:\n  A: {{x: 'u64 = {longest_integer}0'}}\n"))[0])
        longest_float = "0." + "0" * (numbers.MAX_FLOAT_CHARS - 3) + "1"
        self.assertIn("rounds to zero", messages(world(f"components:\n  A: {{x: 'f64 = {longest_float}'}}\n"))[0])
        self.assertIn(f"longer than {numbers.MAX_FLOAT_CHARS} characters",
                      messages(world(f"components:\n  A: {{x: 'f64 = {longest_float}0'}}\n"))[0])

    def test_float_range(self):
        cases = [("f32", "3.4028235e38", True), ("f32", "3.4028236e38", False),
                 ("f32", "-3.4028235e38", True), ("f32", "1e-45", True), ("f32", "7.1e-46", True),
                 ("f32", "7e-46", False), ("f64", "1.7976931348623157e308", True), ("f64", "1.8e308", False),
                 ("f64", "5e-324", True), ("f64", "2.5e-324", True), ("f64", "2.4e-324", False), ("f32", "0", True), ("f32", "-0.0", True)]
        for scalar, text, ok in cases:
            found = messages(world(f"components:\n  A: {{x: '{scalar} = {text}'}}\n"))
            self.assertEqual(found == [], ok, (scalar, text, found))

    def test_a_large_schema_is_generated_in_linear_time(self):
        # The bench: 256 components (the runtime's most), 1,000 struct types and 1,000 systems.
        def schema(n):
            text = "types:\n" + "".join(f"  T{i}: {{ a: f32, b: 'i32 = 3' }}\n" for i in range(4 * n))
            text += "components:\n" + "".join(f"  C{i}: {{ x: f32, y: 'f32 = 1.5', t: T{i} }}\n" for i in range(n))
            text += "systems:\n" + "".join(f"  S{i}: {{ read: [C{i % n}], write: [C{(i + 1) % n}] }}\n"
                                            for i in range(4 * n))
            return world(text)

        def seconds(text):
            start = time.perf_counter()
            s, diagnostics = validate_source("big.yaml", text.encode("utf-8"))
            self.assertIsNotNone(s, [str(d) for d in diagnostics if d.is_error][:3])
            self.assertEqual(names.collisions(s), [])
            render.render(s)
            return time.perf_counter() - start
        small, large = seconds(schema(64)), seconds(schema(250))
        print(f"generator: 250 components, 1,000 types, 1,000 systems in {large:.2f} s "
              f"(64, 256, 256 in {small:.2f} s)", file=sys.stderr)
        self.assertLess(large, 60)
        self.assertLess(large / small, 4 * (250 / 64))  # linear would be 3.9; quadratic 15


# Parameters of a generated function declaration, for a game's stub of it.
_DECLARATION = re.compile(r"^void (\w+)\(([^()]*)\);$", re.M)


def stubs(header: str, pattern: str) -> str:
    """Empty definitions of the header's `void f(...)` declarations whose
    name matches `pattern` (systems' run functions, hooks)."""
    out = []
    for name, params in _DECLARATION.findall(header):
        if re.fullmatch(pattern, name):
            used = " ".join(f"(void){p.split()[-1].lstrip('*')};" for p in params.split(","))
            out.append(f"void {name}({params}) {{ {used} }}")
    return "\n".join(out) + "\n"


def at_runtime_limits(monitors: int = limits.MAX_MONITORS, aspects: int = 4, relations: int = limits.MAX_RELATIONS,
                      changed: int = limits.MAX_CHANGED, queries: int = limits.MAX_QUERIES,
                      components: int = 0) -> str:
    """A world at every runtime limit at once (or past one, as the
    arguments say): relations, components (with the relations and aspects,
    every column id), systems with an aspect or a hook, queries with
    `changed`, and queries plus systems."""
    components = components or limits.MAX_COMPONENTS - limits.MAX_RELATIONS - aspects
    text = "components:\n" + "".join(f"  C{i}: {{ x: u8 }}\n" for i in range(components))
    text += "relations:\n" + "".join(f"  L{i}: {{}}\n" for i in range(relations))
    text += "systems:\n"
    for i in range(monitors):
        extra = "aspect: { k: u8 }" if i < aspects else "on_add: true"
        text += f"  S{i}: {{ read: [C{i % components}], {extra} }}\n"
    text += "queries:\n"
    for i in range(queries - monitors):
        extra = f", changed: [C{i}]" if i < changed else ""
        text += f"  Q{i}: {{ read: [C{i % components}]{extra} }}\n"
    return world(text)


class RuntimeLimitsTest(unittest.TestCase):
    def test_the_limits_are_strata_hs(self):
        header = (REPO / "runtime/include/strata.h").read_text(encoding="utf-8")
        for name in ("COMPONENTS", "RELATIONS", "QUERIES", "MONITORS", "CHANGED"):
            self.assertRegex(header, rf"#define STRATA_MAX_{name} {getattr(limits, 'MAX_' + name)}\b")

    def test_an_installed_generator_reads_the_installed_header(self):
        with tempfile.TemporaryDirectory() as prefix:
            package = Path(prefix, "share", "strata", "codegen")
            package.mkdir(parents=True)
            Path(prefix, "include").mkdir()
            Path(prefix, "include", "strata.h").write_text("#define STRATA_MAX_RELATIONS 7u /* relations */\n",
                                                           encoding="utf-8")
            self.assertEqual(limits.read_runtime_limits(limits.header_places(str(package))),
                             {"STRATA_MAX_RELATIONS": 7})
            Path(prefix, "include", "strata.h").unlink()
            with self.assertRaisesRegex(ImportError, "strata.h is in none of: .*include/strata.h"):
                limits.read_runtime_limits(limits.header_places(str(package)))

    def test_a_world_at_every_runtime_limit_is_created_and_stepped(self):
        schema, diagnostics = validate_source("lim.yaml", at_runtime_limits().encode("utf-8"))
        self.assertIsNotNone(schema, [str(d) for d in diagnostics if d.is_error][:3])
        self.assertEqual(len(schema.relations), limits.MAX_RELATIONS)
        self.assertEqual(len(schema.components) + sum(1 for y in schema.systems if y.aspect), limits.MAX_COMPONENTS)
        self.assertEqual(len(schema.queries) + len(schema.systems), limits.MAX_QUERIES)
        self.assertEqual(sum(1 for y in schema.systems if y.monitored), limits.MAX_MONITORS)
        self.assertEqual(sum(1 for q in schema.queries if q.terms.changed), limits.MAX_CHANGED)
        self.assertEqual(names.collisions(schema), [])
        outputs = render.render(schema)
        checks = "".join(f'_Static_assert({name} == {value}, "{name}");\n' for name, value in limits.RUNTIME.items())
        main = ('#include <stdio.h>\n#include "lim.h"\n' + checks + stubs(outputs["lim.h"], r"lim_s\d+_(run|on_add)") +
                "int main(void) {\n"
                "    lim_world *w = lim_world_create(NULL);\n"
                "    if (w == NULL) { return 1; }\n"
                "    lim_entity e = lim_entity_create(w);\n"
                "    if (lim_c0_add(w, e, LIM_C0_DEFAULT) != STRATA_OK || lim_world_step(w, 0.0f) != STRATA_OK) {\n"
                "        return 2;\n"
                "    }\n"
                "    lim_world_destroy(w);\n"
                '    puts("created");\n'
                "    return 0;\n"
                "}\n")
        with tempfile.TemporaryDirectory() as tmp:
            sources = crun.write_outputs(Path(tmp), outputs)
            self.assertEqual(ccheck.compile_each(sources, ["-std=c11"]), {})
            run = crun.build_and_run(Path(tmp), sources, main)
        self.assertEqual((run.returncode, run.stdout, run.stderr), (0, "created\n", ""))

    def test_one_past_each_runtime_limit_is_one_error_at_the_element_past_it(self):
        cases = {
            "STRATA_MAX_RELATIONS": (at_runtime_limits(relations=limits.MAX_RELATIONS + 1, components=20), "L64"),
            "STRATA_MAX_COMPONENTS": (at_runtime_limits(aspects=0, components=limits.MAX_COMPONENTS -
                                                        limits.MAX_RELATIONS + 1), f"L{limits.MAX_RELATIONS - 1}"),
            # Free queries are numbered first, then systems: the last system is the one past.
            "STRATA_MAX_QUERIES": (at_runtime_limits(queries=limits.MAX_QUERIES + 1), f"S{limits.MAX_MONITORS - 1}"),
            "STRATA_MAX_MONITORS": (at_runtime_limits(monitors=limits.MAX_MONITORS + 1), "S64"),
            "STRATA_MAX_CHANGED": (at_runtime_limits(changed=limits.MAX_CHANGED + 1), "Q15"),
        }
        aspects = at_runtime_limits(aspects=5, components=limits.MAX_COMPONENTS - limits.MAX_RELATIONS - 4)
        cases["STRATA_MAX_COMPONENTS (aspects)"] = (aspects, "S4")
        for limit, (text, element) in cases.items():
            with self.subTest(limit=limit):
                found = messages(text)
                self.assertEqual(len(found), 1, found)
                line = next(i for i, row in enumerate(text.splitlines(), 1) if row.startswith(f"  {element}:"))
                name = limit.split()[0]
                self.assertRegex(found[0], rf"^limits\.yaml:{line}:3: error: too many [^\n]*\b{limits.RUNTIME[name]}\b"
                                           rf"[^\n]* \({name}\)$")

    def test_the_docs_list_every_limit(self):
        docs = (REPO / "docs/schema.md").read_text(encoding="utf-8")
        table = docs[docs.index("## Limits"):].split("\n## ")[0]
        rows = [row for row in table.splitlines() if row.startswith("| ") and "---" not in row]
        for name in ("COMPONENTS", "RELATIONS", "QUERIES", "MONITORS", "CHANGED"):
            value = getattr(limits, "MAX_" + name)
            with self.subTest(limit=name):
                self.assertTrue(any(f"`STRATA_MAX_{name}`" in row and f"| {value:,} |" in row for row in rows),
                                f"no row says STRATA_MAX_{name} is {value:,}")
        for name in ("RESOURCES", "FIELDS", "ARRAY_LENGTH", "NAME_LENGTH", "TYPE_DEPTH"):
            value = getattr(limits, "MAX_" + name)
            with self.subTest(limit=name):
                self.assertTrue(any(f"| {value:,}" in row for row in rows), f"no row says {value:,}")


if __name__ == "__main__":
    unittest.main()

"""The generator never crashes: random mutations of every schema in schema/
and tests/schema/ (keys deleted, duplicated and renamed; types, defaults
and shapes changed; lists and scalars swapped; text cut short or garbled;
names taken from a dictionary of reserved words, generated suffixes,
standard macros, header names and case variants; deep nesting, long chains,
empty sections and huge numbers) either generate C that compiles with
-Werror under gcc and clang, or fail with compiler-style messages only:
exit 1, every stderr line `PATH:LINE:COL: error: ...` (or `warning:`), no
Python traceback, nothing written.

The mutations come from a fixed seed, so a failure names a mutant that can
be made again: its number, and with STRATA_FUZZ_KEEP=DIR the file is kept.
STRATA_FUZZ_MUTANTS=N runs N mutants instead of the default.
"""
import contextlib
import io
import os
import random
import re
import shutil
import sys
import tempfile
import traceback
import unittest
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
from codegen.__main__ import main as generator_main  # noqa: E402
from tests.codegen import ccheck  # noqa: E402

SEED = 20240607
MUTANTS = int(os.environ.get("STRATA_FUZZ_MUTANTS", "300"))

# Values a mutation may put anywhere: types good and bad, defaults of every
# shape, names good, bad, long and reserved.
TYPES = ["bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "entity", "char[8]",
         "char[1]", "char[0]", "u8[3]", "u8[0]", "f32[65536]", "u8[70000]", "Vec2[2]", "u8[2][2]", "f33",
         "entity[2]", "char[-1]", "i32 = 5", "u8 = 300", "f32 = nan", "bool = 2", "char[4] = toolong",
         "Color", "Shape", "Kind", "Position", "", " ", "u8[", "[u8]"]
SCALARS = [0, 1, -1, 255, 256, 65536, 2 ** 31, 2 ** 63, 2 ** 64, -2 ** 63 - 1, 1.5, -0.0, 1e39, float("inf"),
           float("nan"), True, False, None, "", "x", "square", "0x10", "1e3", "=", "==", "true", "null",
           "Position", "update", "a" * 64, "a" * 63, "int", "while", "_x", "9lives", "héllo", "a b",
           "x = 1", "\t", "{}", "[]", "on_add"]


# Names that once made C that did not compile: reserved words, the suffixes
# the generator adds, the C library's macros, header names, case variants.
NAMES = ["NULL", "EOF", "BUFSIZ", "SEEK_SET", "SIZE_MAX", "INT8_MAX", "errno", "linux", "unix", "i386",
         "alignof", "alignas", "static_assert", "constexpr", "typeof", "nullptr", "thread_local", "assert",
         "offsetof", "stdin", "isnan", "size_t", "FILE", "int8_t", "div_t",
         "count", "entities", "dt", "aspect", "world", "user", "impl_", "enabled", "Count", "Entities", "Dt",
         "Aspect", "World", "User", "Enabled", "Impl_",
         "PositionDefault", "PositionGet", "PositionFields_", "PFields_", "Components_", "Schema_", "SpawnAIds_",
         "Resources_", "Queries_", "QueryId", "SystemId", "ComponentId", "EntityNull", "StrataGenVersion",
         "Bundle", "EntityEq", "WorldCreate", "Res_", "KeepError_", "MoveCtx", "VelocityDefault",
         "strata", "stdint", "stdio", "stdbool", "stddef", "string", "math", "strata_json", "Strata",
         "position", "POSITION", "Position_", "Pos_ition", "PoSiTiOn", "HTTPServer", "x1", "X1", "_x", "__x"]


def schema_paths():
    return sorted(REPO.glob("schema/*.yaml")) + sorted(REPO.glob("tests/schema/*.yaml"))


def random_value(rnd, depth=0):
    """A random YAML value: a scalar, a type, or (shallow) a list or a map of them."""
    roll = rnd.random()
    if depth < 2 and roll < 0.12:
        return [random_value(rnd, depth + 1) for _ in range(rnd.randint(0, 3))]
    if depth < 2 and roll < 0.24:
        return {random_key(rnd): random_value(rnd, depth + 1) for _ in range(rnd.randint(0, 3))}
    if roll < 0.3:
        return rnd.choice(NAMES)
    if roll < 0.6:
        return rnd.choice(TYPES)
    return rnd.choice(SCALARS)


def random_key(rnd):
    if rnd.random() < 0.25:
        return rnd.choice(NAMES)
    return rnd.choice(["x", "y", "value", "Position", "Velocity", "read", "write", "with", "without",
                       "optional", "changed", "phase", "before", "after", "aspect", "on_add", "on_remove",
                       "resources", "extends", "type", "default", "enum", "world", "version", "phases",
                       "types", "components", "systems", "queries", "assemblages", "save_name",
                       "renamed_from", "Frozen", "Health", "Score", "a" * 64, "if", "Bad Name", "x1", "_"])


def containers(node, path=()):
    """Every map and list in the document, with its path."""
    if isinstance(node, (dict, list)):
        yield path, node
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in items:
            yield from containers(child, path + (key,))


def mutate_tree(rnd, doc):
    """Apply one structural mutation to the parsed document (in place)."""
    nodes = list(containers(doc))
    if not nodes:
        return random_value(rnd)
    _, node = rnd.choice(nodes)
    kind = rnd.choice(["delete", "rename", "retype", "swap", "insert", "duplicate", "empty"])
    if isinstance(node, dict):
        if not node:
            node[random_key(rnd)] = random_value(rnd)
            return doc
        key = rnd.choice(list(node))
        if kind == "delete":
            del node[key]
        elif kind == "rename":
            node[rnd.choice([random_key(rnd), str(key) + "x", str(key).lower(), str(key).upper(),
                             rnd.choice(SCALARS)])] = node.pop(key)
        elif kind == "retype":
            node[key] = random_value(rnd)
        elif kind == "swap":
            value = node[key]
            node[key] = ([value] if not isinstance(value, list)
                         else (value[0] if value else {}) if rnd.random() < 0.5 else {str(v): v for v in value[:3]
                                                                                    if isinstance(v, (str, int))})
        elif kind == "insert":
            node[random_key(rnd)] = random_value(rnd)
        elif kind == "duplicate":
            other = rnd.choice(list(node))
            node[key] = node[other]
        else:
            node[key] = rnd.choice([{}, [], None, ""])
    else:
        if not node or kind == "insert":
            node.insert(rnd.randint(0, len(node)), random_value(rnd))
        elif kind == "delete":
            del node[rnd.randrange(len(node))]
        elif kind == "duplicate":
            node.append(rnd.choice(node))
        else:
            node[rnd.randrange(len(node))] = random_value(rnd)
    return doc


def mutate_text(rnd, text):
    """Apply one mutation to the text itself: cut, garble, indent, duplicate a line."""
    kind = rnd.choice(["cut", "garble", "indent", "dupline", "dropline"])
    lines = text.splitlines(True)
    if kind == "cut":
        return text[:rnd.randrange(len(text) + 1)]
    if kind == "garble":
        at = rnd.randrange(len(text) + 1)
        junk = rnd.choice([":", "- ", "{", "}", "[", "]", "'", '"', "\t", "#", "&a", "*a", "!!python/tuple",
                           "\x00", "\udcff", "é", "---\n", "? ", "|", ">", "%", "@", "`", "\\", "= ="])
        return text[:at] + junk + text[at:]
    if not lines:
        return text
    i = rnd.randrange(len(lines))
    if kind == "indent":
        lines[i] = rnd.choice([" ", "   ", "\t"]) + lines[i]
    elif kind == "dupline":
        lines.insert(i, lines[i])
    else:
        del lines[i]
    return "".join(lines)


def deep(rnd, depth):
    """A list or mapping nested `depth` levels."""
    value = rnd.choice([1, "x", None])
    for _ in range(depth):
        value = [value] if rnd.random() < 0.5 else {"a": value}
    return value


def mutate_structure(rnd, doc):
    """A mutation of shape rather than value: deep nesting, a long chain of
    structs or of ordered systems, empty sections, huge numbers."""
    kind = rnd.choice(["nest", "struct_chain", "system_chain", "empty", "huge"])
    if not isinstance(doc, dict):
        doc = {"world": "w", "version": 1}
    if kind == "nest":  # shallow enough for PyYAML to write; nest_text goes deeper
        nodes = list(containers(doc))
        _, node = rnd.choice(nodes)
        value = deep(rnd, rnd.choice([30, 60, 61, 62]))
        if isinstance(node, dict):
            node[random_key(rnd)] = value
        else:
            node.append(value)
    elif kind == "struct_chain":
        n = rnd.choice([31, 32, 33, 300, 1000])
        doc["types"] = {f"S{i}": {"s": f"S{i + 1}"} for i in range(n)}
        doc["types"][f"S{n}"] = {"x": "u8 = 1"}
        doc.setdefault("components", {})
        if isinstance(doc["components"], dict):
            doc["components"]["Deep"] = {"s": "S0"}
    elif kind == "system_chain":
        n = rnd.choice([100, 991, 1023, 1100])
        relation = rnd.choice(["after", "before"])
        doc["systems"] = {f"S{i}": {relation: [f"S{i + 1}"]} for i in range(n)}
        doc["systems"][f"S{n}"] = {}
    elif kind == "empty":
        for key in rnd.sample(["types", "components", "resources", "queries", "systems", "assemblages"],
                              rnd.randint(1, 6)):
            doc[key] = rnd.choice([{}, None])
    else:
        digits = "9" * rnd.choice([20, 400, 4400])
        huge = rnd.choice([digits, "-" + digits, "0x" + "f" * 4400, "1e" + digits, "0." + digits + "1", digits + ".5"])
        nodes = [node for _, node in containers(doc) if isinstance(node, dict) and node]
        if nodes:
            node = rnd.choice(nodes)
            key = rnd.choice(list(node))
            node[key] = rnd.choice([huge, f"u8[{huge}]", f"f32 = {huge}", f"u64 = {huge}", f"char[{huge}]"])
        else:
            doc["version"] = huge
    return doc


def nest_text(rnd, text):
    """A flow list or mapping nested past the generator's limit (and past
    Python's recursion limit), put in place of a value of the text."""
    depth = rnd.choice([64, 65, 500, 1200])
    value = "[" * depth + "]" * depth if rnd.random() < 0.5 else "{a: " * depth + "1" + "}" * depth
    lines = text.splitlines(True) or ["\n"]
    i = rnd.randrange(len(lines))
    head = lines[i].split(":", 1)[0] if ":" in lines[i] else "  deep"
    lines[i] = f"{head}: {value}\n"
    return "".join(lines)


# libyaml's reader and writer when PyYAML has them: the mutants are made ten times faster.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def depth_of(doc) -> int:
    """How deep lists and mappings nest in doc (without recursion)."""
    deepest, pending = 0, [(doc, 1)]
    while pending:
        node, depth = pending.pop()
        if isinstance(node, (dict, list)):
            deepest = max(deepest, depth)
            pending += [(v, depth + 1) for v in (node.values() if isinstance(node, dict) else node)]
    return deepest


def dump(doc, flow: bool) -> str:
    try:
        return yaml.dump(doc, Dumper=DUMPER, sort_keys=False, allow_unicode=True, default_flow_style=flow)
    except UnicodeEncodeError:  # a lone surrogate, which only PyYAML's writer escapes
        return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, default_flow_style=flow)


def make_mutant(rnd, sources):
    """A mutant's text: one to three mutations of a random schema."""
    text = rnd.choice(sources)
    for _ in range(rnd.randint(1, 3)):
        roll = rnd.random()
        try:
            doc = yaml.load(text, Loader=LOADER) if text.strip() else None
            readable = depth_of(doc) < 100  # the mutations walk the tree by recursion
        except (yaml.YAMLError, RecursionError):  # garbled, or nested past what PyYAML reads
            doc, readable = None, False
        if not readable:
            doc = None
        if roll < 0.05:
            text = nest_text(rnd, text)
        elif roll < 0.18 and readable:
            doc = mutate_structure(rnd, doc)
            text = dump(doc, rnd.random() < 0.3)
        elif roll < 0.7 and isinstance(doc, (dict, list)):
            doc = mutate_tree(rnd, doc)
            text = dump(doc, rnd.random() < 0.3)
        else:
            text = mutate_text(rnd, text)
    return text


def run_generator(path, outdir):
    """The generator in this process: (exit status, stderr); a crash is a traceback."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = generator_main([str(path), "-o", str(outdir)])
        except SystemExit as e:
            status = e.code
        except Exception:  # the bug this test looks for
            return None, traceback.format_exc()
    return status, err.getvalue()


class SchemaFuzzTest(unittest.TestCase):
    def test_mutated_schemas_generate_or_fail_cleanly(self):
        rnd = random.Random(SEED)
        sources = []
        for path in schema_paths():
            sources.append(path.read_text(encoding="utf-8"))
        self.assertGreater(len(sources), 5)
        keep = os.environ.get("STRATA_FUZZ_KEEP")
        generated, failed, worlds = 0, 0, {}
        with tempfile.TemporaryDirectory() as tmp:
            for n in range(MUTANTS):
                try:
                    text = make_mutant(rnd, sources)
                except yaml.YAMLError:
                    continue  # a text mutation PyYAML itself cannot read back: the next one
                path = Path(tmp, f"mutant{n}.yaml")
                path.write_text(text, encoding="utf-8", errors="surrogateescape")
                outdir = Path(tmp, f"out{n}")
                status, stderr = run_generator(path, outdir)
                where = f"mutant {n} (seed {SEED})"
                if keep and (status not in (0, 1)):
                    os.makedirs(keep, exist_ok=True)
                    shutil.copy(path, keep)
                self.assertIsNotNone(status, f"{where}: the generator crashed:\n{stderr}\n--- schema:\n{text}")
                self.assertIn(status, (0, 1), f"{where}: exit status {status}")
                for line in stderr.splitlines():
                    self.assertRegex(line, r"^" + re.escape(str(path)) + r":\d+:\d+: (error|warning): ",
                                     f"{where}: a message that is not compiler style\n--- schema:\n{text}")
                if status == 1:
                    failed += 1
                    self.assertTrue(stderr.strip(), f"{where}: exit 1 with no message")
                    self.assertFalse(outdir.exists() and any(outdir.iterdir()), f"{where}: wrote files despite errors")
                    continue
                generated += 1
                worlds[f"{where}, schema:\n{text}"] = {p.name: p.read_text(encoding="utf-8") for p in outdir.iterdir()}
            # Every mutant that generates: its C compiles with gcc and clang, alone in ISO C11 and after every
            # C library header in GNU C11.
            compiled = len(worlds)
            self.assertEqual(ccheck.compile_worlds(worlds, Path(tmp, "cc")), {})
        print(f"schema fuzz: {MUTANTS} mutants, {generated} generated ({compiled} compiled), {failed} rejected",
              file=sys.stderr)
        self.assertGreater(failed, MUTANTS // 4)
        self.assertGreater(generated, 5)


if __name__ == "__main__":
    unittest.main()

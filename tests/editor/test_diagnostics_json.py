"""`--diagnostics=json`: the generator's diagnostics as JSON for editors
and CI, the same list as the text report, with where each span ends."""
import json
import subprocess
import sys
import tempfile
import unittest

from codegen.diagnostics import span_end
from tests.codegen import run_generator
from tests.editor.documents import REPO

KEYS = ["file", "line", "column", "end_line", "end_column", "severity", "message", "hint"]


def run_command(*args):
    """`python3 -m codegen ARGS` in a process of its own, as an editor runs it."""
    return subprocess.run([sys.executable, "-m", "codegen", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=60)


def run(*args):
    """What the command does, run in this process (quicker than a process a case)."""
    return run_generator(*args)


class DiagnosticsJsonTest(unittest.TestCase):
    def test_same_diagnostics_as_the_text_report(self):
        with tempfile.TemporaryDirectory() as tmp:
            for path in ("tests/codegen/bad/many_errors.yaml", "tests/codegen/bad/wrong_default_type.yaml"):
                with self.subTest(schema=path):
                    text = run(path, "-o", tmp)
                    as_json = run_command(path, "-o", tmp, "--check", "--diagnostics=json")
                    self.assertEqual((text.returncode, as_json.returncode, as_json.stderr), (1, 1, ""))
                    items = json.loads(as_json.stdout)
                    lines = []
                    for item in items:
                        self.assertEqual(list(item), KEYS)
                        line = f"{item['file']}:{item['line']}:{item['column']}: {item['severity']}: {item['message']}"
                        lines.append(line + (f" ({item['hint']})" if item["hint"] else ""))
                    self.assertEqual(lines, text.stderr.splitlines())

    def test_spans(self):
        result = run("tests/codegen/bad/many_errors.yaml", "-o", "build/never-written", "--diagnostics=json")
        spans = [(d["line"], d["column"], d["end_line"], d["end_column"]) for d in json.loads(result.stdout)]
        self.assertEqual(spans, [
            (2, 10, 2, 13),    # version: one
            (4, 15, 4, 23),    # r: u8 = 256  (up to the comma of the flow mapping)
            (6, 26, 6, 29),    # y: f23
            (10, 12, 10, 19),  # read: [Positon]
            (11, 13, 11, 19),  # write: [Frozen]
            (12, 12, 12, 17),  # phase: later
            (14, 13, 14, 17),  # after: [Mvoe]
            (15, 1, 15, 8),    # unknown: 1  (the key)
        ])

    def test_valid_schema_gives_an_empty_list(self):
        result = run("schema/particles.yaml", "-o", "generated", "--check", "--diagnostics=json")
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, "[]\n", ""))

    def test_warnings_are_json_too(self):
        with tempfile.TemporaryDirectory() as tmp:
            schema = f"{tmp}/warn.yaml"
            with open(schema, "w", encoding="utf-8") as f:
                f.write("world: w\nversion: 1\ncomponents:\n  P: { x: f32 }\n"
                        "systems:\n  A: { write: [P] }\n  B: { write: [P] }\n")
            result = run(schema, "-o", f"{tmp}/out", "--diagnostics=json")
            items = json.loads(result.stdout)
            self.assertEqual(result.returncode, 0)
            self.assertEqual([(d["severity"], d["line"], d["column"], d["end_column"]) for d in items],
                             [("warning", 7, 3, 4)])
            self.assertIn("after: [A]", items[0]["hint"])

    def test_unreadable_schema(self):
        result = run("tests/codegen/bad/no_such_file.yaml", "-o", "build/never-written", "--diagnostics=json")
        items = json.loads(result.stdout)
        self.assertEqual(result.returncode, 1)
        self.assertEqual([(d["line"], d["column"], d["severity"]) for d in items], [(1, 1, "error")])
        self.assertIn("cannot read the schema", items[0]["message"])

    def test_text_stays_the_default(self):
        result = run("tests/codegen/bad/many_errors.yaml", "-o", "build/never-written")
        self.assertEqual(result.stdout, "")
        self.assertTrue(result.stderr.startswith("tests/codegen/bad/many_errors.yaml:2:10: error: "))

    def test_span_end(self):
        lines = ['key: value  # comment', '  x: { a: "q, r", b: [1, 2] }', "  'it''s': 1", "word"]
        self.assertEqual(span_end(lines, 1, 1), (1, 4))     # key
        self.assertEqual(span_end(lines, 1, 6), (1, 11))    # value, not the comment
        self.assertEqual(span_end(lines, 2, 11), (2, 17))   # "q, r"
        self.assertEqual(span_end(lines, 2, 22), (2, 28))   # [1, 2]
        self.assertEqual(span_end(lines, 2, 23), (2, 24))   # 1 inside the flow list
        self.assertEqual(span_end(lines, 3, 3), (3, 10))    # 'it''s'
        self.assertEqual(span_end(lines, 4, 1), (4, 5))
        self.assertEqual(span_end(lines, 9, 1), (9, 2))     # past the end: one character


if __name__ == "__main__":
    unittest.main()

"""Every schema in tests/codegen/bad/ is rejected with exactly the stderr of
its .err file, exit status 1, and nothing written.

A case is NAME.yaml beside NAME.err (cproc's runtests layout). The generator
runs as a user runs it, from the repository root with the relative path, so
the paths in the .err files read `tests/codegen/bad/NAME.yaml`.
"""
import difflib
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BAD = Path("tests", "codegen", "bad")
MIN_CASES = 30


def case_names(suffix):
    return sorted(p.stem for p in (REPO / BAD).glob("*" + suffix))


def run_generator(schema, outdir):
    """Run `python3 -m codegen SCHEMA -o OUTDIR` from the repository root."""
    return subprocess.run([sys.executable, "-m", "codegen", str(schema), "-o", str(outdir)],
                          cwd=REPO, capture_output=True, text=True, timeout=60)


class BadSchemaTest(unittest.TestCase):
    def test_every_case_has_its_expected_stderr(self):
        self.assertEqual(case_names(".yaml"), case_names(".err"))

    def test_there_are_enough_cases(self):
        self.assertGreaterEqual(len(case_names(".yaml")), MIN_CASES)

    def test_bad_schemas_fail_with_exact_messages_and_write_nothing(self):
        for name in case_names(".yaml"):
            with self.subTest(case=name):
                self.check_case(name)

    def check_case(self, name):
        expected = (REPO / BAD / (name + ".err")).read_text(encoding="utf-8")
        with tempfile.TemporaryDirectory() as outdir:
            result = run_generator(BAD / (name + ".yaml"), outdir)
            written = os.listdir(outdir)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertEqual(result.stdout, "")
        if result.stderr != expected:
            diff = "".join(difflib.unified_diff(expected.splitlines(True), result.stderr.splitlines(True),
                                                f"{name}.err", "stderr"))
            self.fail(f"stderr differs from {name}.err:\n{diff}")
        self.assertEqual(written, [], "the generator wrote files despite errors")


if __name__ == "__main__":
    unittest.main()

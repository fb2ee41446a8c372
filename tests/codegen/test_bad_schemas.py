"""Every schema in tests/codegen/bad/ is rejected with exactly the stderr of
its .err file, exit status 1, and nothing written.

A case is NAME.yaml beside NAME.err (cproc's runtests layout). The generator
runs as a user runs it, from the repository root with the relative path, so
the paths in the .err files read `tests/codegen/bad/NAME.yaml`: one Python
process runs the command line's main for every case, each with its own
stdout, stderr and output directory.
"""
import difflib
import json
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


# Runs `python3 -m codegen SCHEMA -o OUTDIR` for each (SCHEMA, OUTDIR) of argv in one process.
DRIVER = """
import contextlib, io, json, sys
from codegen.__main__ import main
results = []
for schema, outdir in zip(sys.argv[1::2], sys.argv[2::2]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([schema, "-o", outdir])
    results.append({"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()})
sys.stdout.write(json.dumps(results))
"""


def run_generator(cases):
    """{case: (exit status, stdout, stderr, files written)}, the generator run
    from the repository root on each case's schema."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = [str(x) for name in cases for x in (BAD / (name + ".yaml"), Path(tmp, name))]
        result = subprocess.run([sys.executable, "-c", DRIVER, *argv], cwd=REPO, capture_output=True, text=True,
                                timeout=300)
        assert result.returncode == 0, result.stderr
        runs = json.loads(result.stdout)
        written = {name: os.listdir(Path(tmp, name)) if Path(tmp, name).exists() else [] for name in cases}
    return {name: (r["code"], r["stdout"], r["stderr"], written[name]) for name, r in zip(cases, runs)}


class BadSchemaTest(unittest.TestCase):
    def test_every_case_has_its_expected_stderr(self):
        self.assertEqual(case_names(".yaml"), case_names(".err"))

    def test_there_are_enough_cases(self):
        self.assertGreaterEqual(len(case_names(".yaml")), MIN_CASES)

    def test_bad_schemas_fail_with_exact_messages_and_write_nothing(self):
        for name, (code, stdout, stderr, written) in run_generator(case_names(".yaml")).items():
            with self.subTest(case=name):
                expected = (REPO / BAD / (name + ".err")).read_text(encoding="utf-8")
                self.assertEqual(code, 1, stderr)
                self.assertEqual(stdout, "")
                if stderr != expected:
                    diff = "".join(difflib.unified_diff(expected.splitlines(True), stderr.splitlines(True),
                                                        f"{name}.err", "stderr"))
                    self.fail(f"stderr differs from {name}.err:\n{diff}")
                self.assertEqual(written, [], "the generator wrote files despite errors")


if __name__ == "__main__":
    unittest.main()

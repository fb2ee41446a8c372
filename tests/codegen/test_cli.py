"""The command line's error paths, and the helpers that write files.

These never need the renderer: every error happens before it is called.
The success path of `python3 -m codegen` is tested with the renderer.
"""
import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import codegen
from codegen import __main__ as cli

REPO = Path(__file__).resolve().parents[2]
BAD_SCHEMA = "tests/codegen/bad/misspelt_component.yaml"


def run(*args):
    return subprocess.run([sys.executable, "-m", "codegen", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=60)


class CommandLineTest(unittest.TestCase):
    def test_version(self):
        result = run("--version")
        self.assertEqual((result.returncode, result.stdout), (0, f"strata-gen {codegen.__version__}\n"))

    def test_version_matches_the_runtime_header(self):
        header = (REPO / "runtime" / "include" / "strata.h").read_text()
        match = re.search(r'#define STRATA_VERSION_STRING "([^"]+)"', header)
        self.assertEqual(match.group(1), codegen.__version__)

    def test_help(self):
        result = run("--help")
        self.assertEqual(result.returncode, 0)
        for option in ("-o OUTDIR", "--check", "--depfile", "--version"):
            self.assertIn(option, result.stdout)

    def test_help_names_the_installed_command(self):
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout), self.assertRaises(SystemExit) as exit:
            cli.main(["--help"], prog="strata-gen")
        self.assertEqual(exit.exception.code, 0)
        self.assertTrue(stdout.getvalue().startswith("usage: strata-gen "), stdout.getvalue())
        self.assertIn("--stamp FILE", stdout.getvalue())

    def test_output_directory_is_required(self):
        result = run("tests/schema/full.yaml")
        self.assertEqual(result.returncode, 2)
        self.assertIn("-o", result.stderr)

    def test_unreadable_schema(self):
        with tempfile.TemporaryDirectory() as tmp:
            result = run("tests/codegen/bad/no_such_file.yaml", "-o", tmp)
            self.assertEqual(os.listdir(tmp), [])
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stderr, "tests/codegen/bad/no_such_file.yaml: error: cannot read the schema: "
                                        "No such file or directory\n")

    def test_errors_create_neither_outdir_nor_depfile(self):
        with tempfile.TemporaryDirectory() as tmp:
            outdir = os.path.join(tmp, "out")
            depfile = os.path.join(tmp, "out.d")
            result = run(BAD_SCHEMA, "-o", outdir, "--depfile", depfile)
            self.assertEqual(result.returncode, 1)
            self.assertIn("unknown component 'Positon'", result.stderr)
            self.assertEqual(os.listdir(tmp), [])

    def test_errors_do_not_touch_the_stamp(self):
        with tempfile.TemporaryDirectory() as tmp:
            result = run(BAD_SCHEMA, "-o", os.path.join(tmp, "out"), "--stamp", os.path.join(tmp, "w.stamp"))
            self.assertEqual(result.returncode, 1)
            self.assertEqual(os.listdir(tmp), [])

    def test_check_reports_schema_errors_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            result = run(BAD_SCHEMA, "-o", tmp, "--check")
            self.assertEqual(os.listdir(tmp), [])
        self.assertEqual(result.returncode, 1)
        self.assertIn("error: system 'Move'", result.stderr)


class WriteTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = self.tmp.name

    def test_write_outputs_creates_the_directory(self):
        outdir = os.path.join(self.dir, "a", "b")
        written = cli.write_outputs({"w.h": "header\n", "w.c": "source\n"}, outdir)
        self.assertEqual(written, [os.path.join(outdir, "w.h"), os.path.join(outdir, "w.c")])
        self.assertEqual(Path(outdir, "w.c").read_bytes(), b"source\n")

    def test_unchanged_files_are_left_alone(self):
        path = os.path.join(self.dir, "w.h")
        cli.write_outputs({"w.h": "same\n"}, self.dir)
        os.utime(path, (1_000_000, 1_000_000))
        self.assertEqual(cli.write_outputs({"w.h": "same\n"}, self.dir), [])
        self.assertEqual(os.stat(path).st_mtime, 1_000_000)
        self.assertEqual(cli.write_outputs({"w.h": "changed\n"}, self.dir), [path])
        self.assertNotEqual(os.stat(path).st_mtime, 1_000_000)
        self.assertEqual(sorted(os.listdir(self.dir)), ["w.h"])  # no temporary left behind

    def test_text_is_written_as_utf8_bytes_without_newline_translation(self):
        cli.write_outputs({"w.h": "é\n"}, self.dir)
        self.assertEqual(Path(self.dir, "w.h").read_bytes(), "é\n".encode("utf-8"))

    def test_check_outputs(self):
        cli.write_outputs({"w.h": "header\n", "w.c": "old\n"}, self.dir)
        outputs = {"w.h": "header\n", "w.c": "new\n", "w.txt": "x\n"}
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            status = cli.check_outputs(outputs, self.dir)
        self.assertEqual(status, 1)
        self.assertEqual(stderr.getvalue(), f"{os.path.join(self.dir, 'w.c')}: out of date\n"
                                            f"{os.path.join(self.dir, 'w.txt')}: missing\n")
        self.assertEqual(Path(self.dir, "w.c").read_text(), "old\n")  # --check never writes
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(cli.check_outputs({"w.h": "header\n"}, self.dir), 0)


class DepfileTest(unittest.TestCase):
    def test_format(self):
        text = cli.depfile_text("gen/w.h", ["schema/w.yaml", "codegen/templates/w.h.j2"])
        self.assertEqual(text, "gen/w.h: \\\n  schema/w.yaml \\\n  codegen/templates/w.h.j2\n")

    def test_special_characters_are_escaped(self):
        self.assertEqual(cli.depfile_text("out dir/w.h", ["a#b", "c$d"]),
                         "out\\ dir/w.h: \\\n  a\\#b \\\n  c$$d\n")

    def test_templates_are_spelled_like_the_schema(self):
        template = os.path.join(os.getcwd(), "codegen", "templates", "w.h.j2")
        self.assertEqual(cli._spelled_like("schema/w.yaml", [template]),
                         [os.path.join("codegen", "templates", "w.h.j2")])
        self.assertEqual(cli._spelled_like("/abs/w.yaml", [template]), [template])


if __name__ == "__main__":
    unittest.main()

"""bench/report.py: a results file it cannot read is named, with what is
wrong in it, in one line and exit status 1, never a Python traceback (the
threads rows once carried the bytes of a dead buffer as their `op`)."""
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


class BenchReportTest(unittest.TestCase):
    def report(self, data):
        with tempfile.TemporaryDirectory() as tmp:
            results = Path(tmp, "results.json")
            results.write_bytes(data)
            run = subprocess.run([sys.executable, str(REPO / "bench/report.py"), str(results),
                                  str(Path(tmp, "none.json")), str(Path(tmp, "chart.svg"))],
                                 capture_output=True, timeout=60)
            return run.returncode, run.stderr.decode("utf-8", "replace"), str(results), Path(tmp, "chart.svg").exists()

    def assert_refused(self, data, message):
        code, err, path, chart = self.report(data)
        self.assertEqual(code, 1, err)
        self.assertNotIn("Traceback", err)
        self.assertEqual(err.count("\n"), 1, err)
        self.assertIn(f"report: {path}", err)
        self.assertIn(message, err)
        self.assertFalse(chart)

    def test_report_names_a_results_file_that_is_not_utf8(self):
        self.assert_refused(b'{"rows": [{"case": "threads", "size": 1000, "op": "\xc3\x28\xff"}]}',
                            "not UTF-8 (byte 51")

    def test_report_names_a_results_file_that_is_not_json(self):
        self.assert_refused(b'{"rows": [\n{"case": "threads",}]}', ":2:20: not JSON")

    def test_report_names_results_without_rows(self):
        self.assert_refused(b'{"rows": [{"case": "threads"}]}', "no list of rows, each with a case and a size")


if __name__ == "__main__":
    unittest.main()

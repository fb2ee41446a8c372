"""tools/deps.sh: with everything present it passes and touches its stamp;
on a machine without the tools (and without apt-get, so even root cannot
install) it names every missing package in one apt-get line and fails."""
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# What deps.sh itself runs besides the tools it checks for.
UTILITIES = ("sh", "id", "mktemp", "rm", "cut", "touch")


class DepsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)

    def deps(self, path, *args):
        env = {**os.environ, "PATH": path}
        return subprocess.run(["/bin/sh", str(REPO / "tools/deps.sh"), *args], env=env,
                              capture_output=True, text=True)

    def test_deps_passes_and_touches_the_stamp_on_this_machine(self):
        stamp = self.tmp / "deps.stamp"
        result = self.deps(os.environ["PATH"], str(stamp))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(stamp.exists())

    def test_deps_prints_the_one_install_line_when_it_cannot_install(self):
        bare = self.tmp / "bin"
        bare.mkdir()
        for tool in UTILITIES:
            (bare / tool).symlink_to(shutil.which(tool))
        stamp = self.tmp / "deps.stamp"
        result = self.deps(str(bare), str(stamp))
        self.assertEqual(result.returncode, 1)
        self.assertIn("strata: missing dependencies; run: sudo apt-get install gcc clang libclang-rt-dev "
                      "ninja-build python3 make cmake pkg-config clang-format nodejs npm\n", result.stderr)
        self.assertIn("strata: and for the game's window (ninja play): libsdl2-dev\n", result.stderr)
        self.assertFalse(stamp.exists())


if __name__ == "__main__":
    unittest.main()

"""tools/deps.sh: each target checks (and installs) only what it builds.

On a bare machine (a PATH of the shell's utilities only, headers looked for
under an empty root, no build/npm), `deps.sh --dry-run TARGET` lists exactly
the packages of that target: `demo` a C compiler, Python with Jinja2 and
PyYAML, ninja and libpng, and nothing of the tests' toolchain (no clang,
Node.js, npm or chromium, no npm install). The groups a target checks are
those its edges in build.ninja wait for, so `ninja demo` runs no other check.
Without apt-get (or root) it names every missing package in one line and
fails; with everything present it touches its stamp. The README's
requirements name each target with exactly the packages it checks."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# What deps.sh itself runs besides the tools it checks for.
UTILITIES = ("sh", "id", "mktemp", "rm", "cut", "touch", "dirname", "grep")
CORE = "gcc ninja-build python3 python3-jinja2 python3-yaml"
NPM = "npm install --prefix build/npm yaml-language-server@1.25.0 playwright-core@1.65.1"
# On a bare machine: what each target would install, apt-get then npm.
BARE = {
    "demo": [f"apt-get install {CORE} libpng-dev libxxhash-dev"],
    "install": [f"apt-get install {CORE} libxxhash-dev libyajl-dev libcivetweb-dev"],
    "play": [f"apt-get install {CORE} libpng-dev libxxhash-dev pkg-config libsdl2-dev"],
    "particles": [f"apt-get install {CORE} libxxhash-dev"],
    "rollback-demo": [f"apt-get install {CORE} libxxhash-dev"],
    "generate": [f"apt-get install {CORE}"],
    "bench": [f"apt-get install {CORE} libxxhash-dev libyajl-dev libcivetweb-dev"],
    "live-demo": [f"apt-get install {CORE} libxxhash-dev"],
    "format-check": ["apt-get install clang-format"],
    "fuzz": [f"apt-get install {CORE} libxxhash-dev libyajl-dev clang libclang-rt-dev libcmocka-dev"],
    "test": [f"apt-get install {CORE} libpng-dev libxxhash-dev libyajl-dev libcivetweb-dev clang libclang-rt-dev "
             "libcmocka-dev make cmake meson pkg-config nodejs npm python3-jsonschema chromium clang-format", NPM],
    "uninstall": ["nothing to install for uninstall"],
}


class DepsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        # A copy of the script, so that its build/npm is the empty one here.
        (self.tmp / "tools").mkdir()
        shutil.copy2(REPO / "tools/deps.sh", self.tmp / "tools/deps.sh")
        self.bare = self.tmp / "bin"
        self.bare.mkdir()
        for tool in UTILITIES:
            (self.bare / tool).symlink_to(shutil.which(tool))
        self.root = self.tmp / "root"
        self.root.mkdir()

    def deps(self, *args, path=None, root=None):
        env = {**os.environ, "PATH": path or str(self.bare), "STRATA_DEPS_ROOT": str(root or self.root)}
        return subprocess.run(["/bin/sh", str(self.tmp / "tools/deps.sh"), *args], env=env,
                              capture_output=True, text=True, timeout=60)

    def test_dry_run_lists_exactly_what_each_target_needs_on_a_bare_machine(self):
        for target, lines in BARE.items():
            with self.subTest(target=target):
                result = self.deps("--dry-run", target)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertEqual(result.stdout.splitlines(), lines)

    def test_demo_install_and_play_need_nothing_of_the_tests_toolchain(self):
        for target in ("demo", "install", "play", "live-demo"):
            with self.subTest(target=target):
                packages = self.deps("--dry-run", target).stdout.split()
                for tool in ("clang", "nodejs", "npm", "chromium", "libcmocka-dev", "yaml-language-server@1.25.0"):
                    self.assertNotIn(tool, packages)

    def test_a_machine_with_the_demo_s_packages_needs_nothing_more_for_the_demo(self):
        """gcc, python3 (with Jinja2 and PyYAML), ninja, png.h and xxhash.h: `ninja demo` installs nothing."""
        path = self.tmp / "demo-bin"
        shutil.copytree(self.bare, path, symlinks=True)
        for tool in ("gcc", "python3", "ninja"):
            (path / tool).symlink_to(shutil.which(tool))
        (self.root / "usr/include").mkdir(parents=True)
        (self.root / "usr/include/png.h").write_text("", encoding="utf-8")
        (self.root / "usr/include/xxhash.h").write_text("", encoding="utf-8")
        self.assertEqual(self.deps("--dry-run", "demo", path=str(path)).stdout, "nothing to install for demo\n")
        packages = self.deps("--dry-run", "test", path=str(path)).stdout.split()
        self.assertIn("clang", packages)
        self.assertNotIn("gcc", packages)
        self.assertNotIn("libpng-dev", packages)

    def test_the_groups_a_target_checks_are_those_its_edges_wait_for(self):
        """For every target deps.sh knows: the DEPS edges `ninja -t commands TARGET` runs."""
        listing = self.deps("--list", path=os.environ["PATH"]).stdout.splitlines()
        self.assertIn("demo: core png xxhash", listing)
        for line in listing:
            target, groups = line.split(":")
            with self.subTest(target=target):
                commands = subprocess.run(["ninja", "-t", "commands", target], cwd=REPO, capture_output=True,
                                          text=True, timeout=60, check=True).stdout
                waited = re.findall(r"tools/deps\.sh --stamp \S+ (\S+)", commands)
                self.assertEqual(sorted(waited), sorted(groups.split()))
                if target in ("demo", "live-demo"):
                    self.assertNotRegex(commands, r"\b(clang|node|npm|chromium)\b")

    def test_the_readme_names_each_target_with_exactly_what_it_checks(self):
        """Every target of `deps.sh --list` in one row of the README's requirements,
        and the row's packages are those the dry run lists for each of its targets."""
        readme = (REPO / "README.md").read_text(encoding="utf-8")
        section = readme[readme.index("## Requirements\n"):readme.index("## Layout\n")]
        core = re.search(r"the \*core\*: (.*?)\.\n", section, re.S).group(1)
        rows = {}
        for line in section.splitlines():
            cells = line.split(" | ")
            if len(cells) != 2 or not line.startswith("| `ninja"):
                continue
            targets = ["all" if t == "ninja" else t.removeprefix("ninja ") for t in re.findall(r"`([^`]*)`", cells[0])]
            named = set(re.findall(r"`([^`]+)`", cells[1].replace("the core", core)))
            named = {p.replace("<version>-", "") for p in named}
            for target in targets:
                self.assertNotIn(target, rows, f"{target} has two rows")
                rows[target] = named
        listing = self.deps("--list", path=os.environ["PATH"]).stdout.splitlines()
        self.assertEqual(sorted(rows), sorted(line.split(":")[0] for line in listing))
        for target, named in rows.items():
            with self.subTest(target=target):
                lines = self.deps("--dry-run", target).stdout.splitlines()
                apt = [line.split()[2:] for line in lines if line.startswith("apt-get install")]
                npm = [line.split()[4:] for line in lines if line.startswith("npm install")]
                needed = {p for ps in apt for p in ps if p != "ninja-build"}
                needed |= {p.rsplit("@", 1)[0] for ps in npm for p in ps}
                self.assertEqual(named, needed)

    def test_unknown_names_are_refused(self):
        result = self.deps("--dry-run", "tset")
        self.assertEqual(result.returncode, 2)
        self.assertIn("no target or group 'tset'", result.stderr)

    def test_deps_passes_and_touches_the_stamp_on_this_machine(self):
        stamp = self.tmp / "deps.stamp"
        result = self.deps("--stamp", str(stamp), "core", path=os.environ["PATH"], root="/")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(stamp.exists())

    def test_deps_prints_the_one_install_line_when_it_cannot_install(self):
        stamp = self.tmp / "deps.stamp"
        result = self.deps("--stamp", str(stamp), "demo")
        self.assertEqual(result.returncode, 1)
        self.assertIn(f"strata: missing dependencies for demo; run: sudo apt-get install {CORE} libpng-dev libxxhash-dev\n",
                      result.stderr)
        self.assertFalse(stamp.exists())


if __name__ == "__main__":
    unittest.main()

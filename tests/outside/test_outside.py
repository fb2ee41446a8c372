"""Strata used from another project, as a game programmer uses it.

Installs Strata into a prefix under build/outside/ (the install edge's own
script), then builds the tiny game in this directory (its own schema and
build files) with Make, Ninja, Meson, and CMake (its Makefile and its Ninja
generator) twice: through Strata's CMake package (find_package and
strata_add_world) and through pkg-config by hand. Every build finds the
install's strata-gen and links the release libstrata only: a game that
loads JSON makes the one change its build file names (main_json.c does not
link without it, and runs with it). Each build is run and its output
checked; then touching the schema must run the generator and nothing else,
editing it must regenerate and rebuild, and a build with nothing changed
must do nothing. Uninstall must remove exactly what install wrote.
Each way of building configures its project once; its tests share it (each
puts back what the one before changed), so that each rebuilds only what its
own changes need.
docs/using.md shows the build files verbatim: checked here too.

Run by `ninja test` from the top of the tree:
    python3 tests/outside/test_outside.py
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import time
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HERE = REPO / "tests" / "outside"
WORK = REPO / "build" / "outside"
# What `ninja install` passes to tools/install.sh: the release and debug runtimes, the JSON loader, the inspector,
# live reload.
LIBRARIES = [str(REPO / "build" / b) for b in ("release/libstrata.a", "debug/libstrata.a", "release/libstrata_json.a",
                                               "release/libstrata_inspect.a", "release/libstrata_live.a")]
PROJECT = ("game.yaml", "main.c", "systems.c", "Makefile", "CMakeLists.txt", "build.ninja", "meson.build")
# Each build file as docs/using.md shows it: (its code block's language, its file here).
BUILD_FILES = (("ninja", "build.ninja"), ("make", "Makefile"), ("cmake", "CMakeLists.txt"),
               ("cmake", "cmake-pkg-config/CMakeLists.txt"), ("meson", "meson.build"))
ROOT = WORK / "prefix"               # PREFIX: a prefix of the user's own
OUTPUT = "game: 3 entities, 4 steps, x sum {x}, y sum 7; strata-gen {v}, strata.h {v}\n"
JSON_OUTPUT = "json: 3 entities loaded, 4 steps, dumps equal\n"
EDIT = ("x: f32 = 1,", "x: f32 = 2,")  # the schema edit: Velocity's default x; x sum 19 -> 23


def strata_version() -> str:
    header = (REPO / "runtime" / "include" / "strata.h").read_text(encoding="utf-8")
    return re.search(r'#define STRATA_VERSION_STRING "([^"]+)"', header).group(1)


def incompatible_versions() -> list:
    """Requests find_package(Strata VERSION) must refuse while the version is
    0.x: the minor before, the minor after, the next major."""
    major, minor = (int(part) for part in strata_version().split(".")[:2])
    return [f"{major}.{minor - 1}", f"{major}.{minor + 1}", f"{major + 1}.0"]


def script_env(**extra: str) -> dict:
    """The environment for tools/install.sh and uninstall.sh: only what is given."""
    env = {k: v for k, v in os.environ.items() if k not in ("PREFIX", "DESTDIR")}
    env.update(extra)
    return env


def user_env() -> dict:
    """What a game programmer sets for a prefix of their own: PATH and PKG_CONFIG_PATH."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "CMAKE_GENERATOR", "PKG_CONFIG_LIBDIR")}
    env["PATH"] = f"{ROOT / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PKG_CONFIG_PATH"] = str(ROOT / "lib" / "pkgconfig")
    return env


def run(command, cwd=REPO, env=None, check=True) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=cwd, env=env if env is not None else user_env(),
                            capture_output=True, text=True, timeout=300)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, command))} failed ({result.returncode}):\n"
                             f"{result.stdout}{result.stderr}")
    return result


def install(prefix_env: dict) -> subprocess.CompletedProcess:
    return run(["sh", "tools/install.sh", *LIBRARIES], env=script_env(**prefix_env))


def uninstall(prefix_env: dict) -> subprocess.CompletedProcess:
    return run(["sh", "tools/uninstall.sh"], env=script_env(**prefix_env))


def tree(root: Path) -> dict:
    """Every file and directory under root: {relative path: 'file' | 'dir'}."""
    out = {}
    for path in sorted(root.rglob("*")):
        out[path.relative_to(root).as_posix()] = "dir" if path.is_dir() and not path.is_symlink() else "file"
    return out


def ninja_log_inode():
    """The inode of the top's .ninja_log (None if there is none): ninja
    rewrites it only through a new file."""
    try:
        return (REPO / ".ninja_log").stat().st_ino
    except FileNotFoundError:
        return None


def setUpModule():
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    install({"PREFIX": str(ROOT)})


class InstallTest(unittest.TestCase):
    def test_installs_exactly_the_runtimes_the_json_loader_the_generator_and_their_pc_and_cmake_files(self):
        run(["strata-gen", "--version"])  # running the generator writes nothing into the install
        expected = {"bin/strata-gen", "include/strata.h", "lib/libstrata.a", "lib/libstrata_debug.a",
                    "lib/libstrata_json.a", "lib/pkgconfig/strata.pc", "lib/pkgconfig/strata-debug.pc",
                    "lib/pkgconfig/strata-json.pc", "share/strata/install-manifest.txt",
                    "share/strata/strata.schema.json", "include/strata_inspect.h", "lib/libstrata_inspect.a",
                    "lib/pkgconfig/strata-inspect.pc", "include/strata_live.h", "lib/libstrata_live.a",
                    "lib/pkgconfig/strata-live.pc", "lib/cmake/Strata/StrataConfig.cmake",
                    "lib/cmake/Strata/StrataConfigVersion.cmake", "lib/cmake/Strata/StrataTargets.cmake",
                    "lib/cmake/Strata/StrataWorld.cmake"}
        expected |= {f"share/strata/codegen/{p.name}" for p in (REPO / "codegen").glob("*.py")}
        expected |= {f"share/strata/codegen/__pycache__/{p.stem}.{sys.implementation.cache_tag}.pyc"
                     for p in (REPO / "codegen").glob("*.py")}
        expected |= {f"share/strata/codegen/templates/{p.name}" for p in (REPO / "codegen/templates").glob("*.j2")}
        files = {path for path, kind in tree(ROOT).items() if kind == "file"}
        self.assertEqual(files, expected)
        self.assertTrue(os.access(ROOT / "bin/strata-gen", os.X_OK))
        self.assertEqual((ROOT / "include/strata.h").read_bytes(), (REPO / "runtime/include/strata.h").read_bytes())
        for lib, built in zip(("libstrata.a", "libstrata_debug.a", "libstrata_json.a"), LIBRARIES):
            self.assertEqual((ROOT / "lib" / lib).read_bytes(), Path(built).read_bytes(), lib)

    def generator_s_modules(self, env: dict) -> list:
        """Where a run of the installed strata-gen read each of its modules
        from (its bytecode: a .pyc; compiled again: a .py)."""
        python = (ROOT / "bin/strata-gen").read_text(encoding="utf-8").splitlines()[0][2:]
        log = run([python, "-v", str(ROOT / "bin/strata-gen"), str(HERE / "game.yaml"), "-o", str(WORK / "pyc-gen")],
                  env=env).stderr
        loaded = re.findall(r"(?m)^# code object from '?(\S*/codegen/(?:__pycache__/)?[^/\s']+?)'?$", log)
        self.assertGreaterEqual(len(loaded), len(list((REPO / "codegen").glob("*.py"))) // 2, log)
        return loaded

    def test_the_generator_runs_from_the_installed_bytecode(self):
        """Each module strata-gen imports from the install is read from the
        bytecode beside it, not compiled again from its source."""
        env = {k: v for k, v in user_env().items() if k != "PYTHONPYCACHEPREFIX"}
        loaded = self.generator_s_modules(env)
        self.assertEqual([p for p in loaded if not (p.startswith(f"{ROOT}/share/strata/codegen/__pycache__/")
                                                     and p.endswith(".pyc"))], [])

    def test_with_a_pycache_prefix_the_generator_keeps_its_bytecode_there(self):
        """With PYTHONPYCACHEPREFIX, strata-gen writes its modules' bytecode
        there (not into the install) and reads it from there the next time."""
        prefix = WORK / "pycache"
        shutil.rmtree(prefix, ignore_errors=True)
        env = {**user_env(), "PYTHONPYCACHEPREFIX": str(prefix)}
        before = tree(ROOT)
        self.assertTrue(all(p.endswith(".py") for p in self.generator_s_modules(env)))
        self.assertEqual(tree(ROOT), before)
        loaded = self.generator_s_modules(env)
        self.assertEqual([p for p in loaded if not (p.startswith(f"{prefix}/") and p.endswith(".pyc"))], [])

    def test_using_md_s_install_table_names_every_file_installed(self):
        """Each file is in the table's first column: by its path, by its
        directory's (`$PREFIX/lib/cmake/Strata/`), or by its name in a row
        of its directory's files."""
        text = (REPO / "docs" / "using.md").read_text(encoding="utf-8")
        cells = [row.split("|")[1] for row in re.findall(r"(?m)^\| `\$PREFIX.*$", text)]
        for path, kind in tree(ROOT).items():
            if kind != "file":
                continue
            with self.subTest(path=path):
                folder, name = os.path.split(path)
                self.assertTrue(any(f"$PREFIX/{path}`" in cell or f"`{name}`" in cell and f"$PREFIX/{folder}/" in cell
                                    or any(f"$PREFIX/{d}/`" in cell for d in Path(path).parents if str(d) != ".")
                                    for cell in cells), f"docs/using.md's install table does not name {path}")

    def test_the_readme_names_every_public_header(self):
        readme = (REPO / "README.md").read_text(encoding="utf-8")
        self.assertFalse("only public header" in readme, "README.md calls one header the only public one")
        for header in (REPO / "runtime/include").glob("*.h"):
            self.assertTrue(f"`{header.name}`" in readme, f"README.md does not name {header.name}")

    def test_release_library_has_no_asserts_and_the_debug_one_has(self):
        """NDEBUG took STRATA_ASSERT out of libstrata.a; libstrata_debug.a keeps
        it, each failure going to the assert handler (strata_assert_fail)."""
        def calls_assert(lib):
            return "strata_assert_fail" in run(["nm", "-u", str(ROOT / "lib" / lib)]).stdout
        self.assertFalse(calls_assert("libstrata.a"))
        self.assertTrue(calls_assert("libstrata_debug.a"))

    def test_manifest_lists_every_file_and_every_directory_created(self):
        manifest = (ROOT / "share/strata/install-manifest.txt").read_text(encoding="utf-8").splitlines()
        listed = {line.split(" ", 1)[1] for line in manifest}
        everything = {str(ROOT)} | {f"{ROOT}/{p}" for p in tree(ROOT)}
        self.assertEqual(listed, everything - {f"{ROOT}/share/strata/install-manifest.txt"})

    def test_versions_agree(self):
        version = strata_version()
        self.assertEqual(run(["strata-gen", "--version"]).stdout, f"strata-gen {version}\n")
        for name in ("strata", "strata-debug", "strata-json", "strata-live"):
            self.assertEqual(run(["pkg-config", "--modversion", name]).stdout, f"{version}\n")
        generator = run(["pkg-config", "--variable=strata_gen", "strata"]).stdout.strip()
        self.assertEqual(run([generator, "--version"]).stdout, f"strata-gen {version}\n")

    def test_help_names_the_command(self):
        self.assertTrue(run(["strata-gen", "--help"]).stdout.startswith("usage: strata-gen "))

    def test_pkg_config_flags_are_the_prefix_s_paths_spelt_plainly(self):
        """PREFIX=... ninja install, then PKG_CONFIG_PATH=... pkg-config gives working, normalised flags."""
        for name, lib in (("strata", "-lstrata"), ("strata-debug", "-lstrata_debug")):
            with self.subTest(name=name):
                cflags = run(["pkg-config", "--cflags", name]).stdout.split()
                libs = run(["pkg-config", "--libs", name]).stdout.split()
                self.assertEqual(cflags, [f"-I{ROOT}/include"])
                self.assertEqual(libs, [f"-L{ROOT}/lib", lib])
                source = WORK / "flags.c"
                source.write_text('#include <stdio.h>\n#include "strata.h"\n'
                                  'int main(void) { puts(strata_result_str(STRATA_OK) ? STRATA_VERSION_STRING : "?"); }\n',
                                  encoding="utf-8")
                run(["cc", "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", *cflags, str(source), *libs,
                     "-o", str(WORK / "flags")])
                self.assertEqual(run([str(WORK / "flags")]).stdout, f"{strata_version()}\n")

    def test_strata_json_comes_before_the_runtime_and_brings_yajl(self):
        libs = run(["pkg-config", "--libs", "strata-json", "strata"]).stdout.split()
        self.assertEqual([f for f in libs if f.startswith("-l")], ["-lstrata_json", "-lyajl", "-lstrata"])
        self.assertIn(f"-L{ROOT}/lib", libs)
        self.assertEqual(run(["pkg-config", "--print-requires", "strata-json"]).stdout.split(), ["yajl"])


class LiveTest(unittest.TestCase):
    STRICT = ["cc", "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]
    OUTPUT = "live: world 'game', 2 systems, 4 steps\n"

    @classmethod
    def setUpClass(cls):
        """The game of this folder as a live module (strata-gen --live, a
        shared library with no runtime of its own), which both hosts load."""
        work = WORK / "live"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        run(["strata-gen", str(HERE / "game.yaml"), "-o", str(work / "gen"), "--live"])
        cflags = run(["pkg-config", "--cflags", "strata-live"]).stdout.split()
        run([*cls.STRICT, "-fPIC", "-fvisibility=hidden", "-shared", *cflags, "-I", str(work / "gen"),
             str(HERE / "systems.c"), str(work / "gen/game.c"), str(work / "gen/game_live.c"), "-o", str(work / "game.so")])
        cls.module = work / "game.so"

    def test_a_live_host_and_its_module_build_with_pkg_config(self):
        """The module loaded by a host built with strata-live's flags (the
        runtime linked whole and exported)."""
        work = WORK / "live"
        module = self.module
        cflags = run(["pkg-config", "--cflags", "strata-live"]).stdout.split()
        libs = run(["pkg-config", "--libs", "strata-live"]).stdout.split()
        run([*self.STRICT, *cflags, str(HERE / "live_host.c"), *libs, "-o", str(work / "host")])
        self.assertEqual(run([str(work / "host"), str(module)]).stdout, self.OUTPUT)

    def test_a_live_host_builds_with_the_cmake_package(self):
        """The same module loaded by a host that links Strata::live: the module
        finds the runtime in the host only if the target links it whole and
        exports it (an undefined symbol otherwise)."""
        work = WORK / "cmake-live"
        module = self.module
        shutil.rmtree(work, ignore_errors=True)
        src, bin_dir = work / "host", work / "host-build"
        src.mkdir(parents=True)
        shutil.copy2(HERE / "live_host.c", src / "live_host.c")
        (src / "CMakeLists.txt").write_text(
            "cmake_minimum_required(VERSION 3.20)\nproject(host C)\n"
            "find_package(Strata REQUIRED COMPONENTS live)\n"
            "add_executable(host live_host.c)\n"
            "target_compile_options(host PRIVATE -Wall -Wextra -Wpedantic -Werror)\n"
            "target_link_libraries(host PRIVATE Strata::live)\n", encoding="utf-8")
        run(["cmake", "-S", str(src), "-B", str(bin_dir), f"-DCMAKE_PREFIX_PATH={ROOT}"])
        run(["cmake", "--build", str(bin_dir)])
        self.assertEqual(run([str(bin_dir / "host"), str(module)]).stdout, self.OUTPUT)


class UninstallTest(unittest.TestCase):
    def test_uninstall_removes_exactly_what_install_wrote(self):
        stage = WORK / "stage-uninstall"
        prefix = {"DESTDIR": os.path.relpath(stage, REPO), "PREFIX": "/opt/strata/"}  # relative, trailing slash
        (stage / "opt/strata/lib").mkdir(parents=True)
        (stage / "opt/strata/lib/other.a").write_text("someone else's\n", encoding="utf-8")
        (stage / "opt/strata/share").mkdir()
        before = tree(stage)
        install(prefix)
        install(prefix)  # a second install replaces the first
        self.assertTrue((stage / "opt/strata/bin/strata-gen").is_file())
        (stage / "opt/strata/share/strata/codegen/templates/mine.j2").write_text("not Strata's\n", encoding="utf-8")
        result = uninstall(prefix)
        self.assertIn("kept", result.stdout)
        self.assertEqual(tree(stage), {**before, "opt/strata/share/strata": "dir",
                                       "opt/strata/share/strata/codegen": "dir",
                                       "opt/strata/share/strata/codegen/templates": "dir",
                                       "opt/strata/share/strata/codegen/templates/mine.j2": "file"})
        (stage / "opt/strata/share/strata/codegen/templates/mine.j2").unlink()
        self.assertIn("nothing to uninstall", uninstall(prefix).stdout)

    def test_staged_install_names_the_final_prefix_and_pkg_config_s_sysroot_finds_the_stage(self):
        stage = WORK / "stage"
        install({"DESTDIR": str(stage), "PREFIX": "/usr"})
        self.addCleanup(uninstall, {"DESTDIR": str(stage), "PREFIX": "/usr"})
        self.assertIn("prefix=/usr\n", (stage / "usr/lib/pkgconfig/strata.pc").read_text(encoding="utf-8"))
        env = {**user_env(), "PKG_CONFIG_PATH": str(stage / "usr/lib/pkgconfig"), "PKG_CONFIG_SYSROOT_DIR": str(stage)}
        self.assertEqual(run(["pkg-config", "--cflags", "strata"], env=env).stdout.split(), [f"-I{stage}/usr/include"])
        generator = run(["pkg-config", "--variable=strata_gen", "strata"], env=env).stdout.strip()
        self.assertEqual(generator, f"{stage}/usr/bin/strata-gen")
        self.assertEqual(run([generator, "--version"]).stdout, f"strata-gen {strata_version()}\n")

    def test_uninstall_removes_the_directories_it_created(self):
        stage = WORK / "stage-empty"
        install({"DESTDIR": str(stage), "PREFIX": "/opt/strata"})
        uninstall({"DESTDIR": str(stage), "PREFIX": "/opt/strata"})
        self.assertEqual(tree(stage), {})  # DESTDIR itself is not part of the install

    def test_relative_prefix_is_refused(self):
        result = run(["sh", "tools/install.sh", *LIBRARIES], env=script_env(PREFIX="opt"), check=False)
        self.assertEqual(result.returncode, 1)
        self.assertIn("PREFIX must be an absolute path", result.stderr)


class Build:
    """One way of building the game: subclasses say how, where things land,
    and how a game that loads JSON asks for it. Each way has one project,
    configured once (setUpClass); its tests share it, each starting from
    the project's files as they are here (setUp puts back what an earlier
    test changed), so a test rebuilds only what its own changes need."""
    tool = ""
    generator_ran = ""  # a regular expression matching the build log when strata-gen ran
    # For a game that loads JSON: the build file, a line of it, what replaces
    # the line, and the words of the file's comment that name the change.
    json_edit = ("", "", "", "")

    @classmethod
    def sources(cls) -> dict:
        """The project's files: {name in the project: the file here}."""
        return {name: HERE / name for name in PROJECT}

    @classmethod
    def setUpClass(cls):
        cls.src = WORK / cls.tool / "src"
        shutil.rmtree(WORK / cls.tool, ignore_errors=True)
        cls.src.mkdir(parents=True)
        for name, source in cls.sources().items():
            shutil.copy2(source, cls.src / name)
        cls.configure()

    @classmethod
    def configure(cls):
        """Prepare the build directory once (Make and Ninja need nothing)."""

    def setUp(self):
        """Put back, newer than every file built, each project file that an
        earlier test changed."""
        for name, source in self.sources().items():
            text = source.read_bytes()
            if (self.src / name).read_bytes() != text:
                (self.src / name).write_bytes(text)
                self.make_newer(self.src / name)

    def build(self, check=True) -> subprocess.CompletedProcess:
        """Build the game as docs/using.md says."""
        raise NotImplementedError

    def rebuild(self, check=True) -> subprocess.CompletedProcess:
        """Build again after a change (the schema's, main.c's, the build file's)."""
        return self.build(check)

    def outputs(self) -> dict:
        """The generated header, the objects and the game: {name: path}."""
        raise NotImplementedError

    def mtimes(self) -> dict:
        return {name: path.stat().st_mtime_ns for name, path in self.outputs().items()}

    def game(self) -> str:
        return run([str(self.outputs()["game"])]).stdout

    def make_newer(self, path: Path):
        """Give path an mtime newer than every file built so far."""
        newest = max((p.stat().st_mtime_ns for p in self.outputs().values() if p.exists()), default=0)
        while True:
            os.utime(path)
            if path.stat().st_mtime_ns > newest:
                return
            time.sleep(0.01)  # a file system with coarse timestamps

    def use_json_main(self):
        """main.c becomes main_json.c, newer than its object."""
        shutil.copyfile(HERE / "main_json.c", self.src / "main.c")
        self.make_newer(self.src / "main.c")

    def change_schema(self, edit=None):
        """Touch (or edit) the schema so that it is newer than every file built."""
        schema = self.src / "game.yaml"
        if edit:
            schema.write_text(schema.read_text(encoding="utf-8").replace(*edit), encoding="utf-8")
        self.make_newer(schema)

    def test_builds_and_runs(self):
        self.build()
        self.assertEqual(self.game(), OUTPUT.format(x=19, v=strata_version()))
        before = self.mtimes()
        self.assertNotRegex(self.build().stdout, self.generator_ran)
        self.assertEqual(self.mtimes(), before, "a second build with nothing changed rebuilt something")

    def test_schema_changes_regenerate_and_rebuild_only_what_they_must(self):
        self.rebuild()
        before = self.mtimes()
        self.change_schema()
        self.assertRegex(self.rebuild().stdout, self.generator_ran, "touching the schema did not run strata-gen")
        self.assertEqual(self.mtimes(), before, "an unchanged generated header rebuilt the game")
        self.assertNotRegex(self.rebuild().stdout, self.generator_ran, "strata-gen ran again with nothing changed")
        self.assertEqual(self.mtimes(), before)

        self.change_schema(EDIT)
        self.assertRegex(self.rebuild().stdout, self.generator_ran, "editing the schema did not run strata-gen")
        after = self.mtimes()
        rebuilt = sorted(name for name in after if after[name] != before[name])
        self.assertEqual(rebuilt, sorted(after), "a changed header must rebuild every object and the game")
        self.assertEqual(self.game(), OUTPUT.format(x=23, v=strata_version()))
        self.assertNotRegex(self.rebuild().stdout, self.generator_ran)
        self.assertEqual(self.mtimes(), after, "a build after the edit with nothing changed rebuilt something")

    def test_json_loading_is_linked_only_when_the_build_file_asks(self):
        """main_json.c loads JSON: it does not link as the build file stands
        (libstrata_json and yajl are not linked), and links and runs after the
        one change the build file's comment names."""
        self.use_json_main()
        failed = self.rebuild(check=False)
        self.assertNotEqual(failed.returncode, 0, "the game linked libstrata_json without asking for it")
        self.assertIn("strata_world_load_json_mem", failed.stdout + failed.stderr)
        name, line, json_line, named = self.json_edit
        build_file = self.src / name
        text = build_file.read_text(encoding="utf-8")
        self.assertEqual(text.count(line), 1, f"{name} has no line '{line.strip()}'")
        build_file.write_text(text.replace(line, json_line), encoding="utf-8")
        comments = "".join(re.findall(r"(?m)^#.*$", text))
        self.assertIn(named, comments, f"{name}'s comment does not name the change for JSON")
        self.rebuild()
        self.assertEqual(self.game(), JSON_OUTPUT)


class MakeTest(Build, unittest.TestCase):
    tool = "make"
    generator_ran = r"(?m)^strata-gen game\.yaml"
    json_edit = ("Makefile", "STRATA_JSON ?=\n", "STRATA_JSON = strata-json\n", "STRATA_JSON = strata-json")

    def build(self, check=True):
        return run(["make", "--no-print-directory"], cwd=self.src, check=check)

    def test_links_the_debug_runtime_when_asked(self):
        """The game linked again (its objects do not change) with STRATA=strata-debug."""
        self.build()
        self.outputs()["game"].unlink()
        self.addCleanup(self.outputs()["game"].unlink)  # the next build links the release runtime again
        log = run(["make", "--no-print-directory", "STRATA=strata-debug"], cwd=self.src).stdout
        self.assertIn("-lstrata_debug", log)
        self.assertNotIn("-lstrata_json", log)
        self.assertEqual(self.game(), OUTPUT.format(x=19, v=strata_version()))

    def outputs(self):
        b = self.src / "build"
        return {"header": b / "gen/game.h", "main": b / "main.o", "systems": b / "systems.o",
                "world": b / "game.o", "game": b / "game"}


class NinjaTest(Build, unittest.TestCase):
    tool = "ninja"
    generator_ran = r"STRATA-GEN game\.yaml"
    json_edit = ("build.ninja", "strata_json =\n", "strata_json = strata-json\n", "strata_json = strata-json")

    def build(self, check=True):
        return run(["ninja"], cwd=self.src, check=check)

    def outputs(self):
        return MakeTest.outputs(self)


class MesonTest(Build, unittest.TestCase):
    """Meson: pkg-config's flags and a custom_target with the generator's depfile."""
    tool = "meson"
    generator_ran = r"Generating world with a custom command"
    json_edit = ("meson.build", "strata = [dependency('strata')]",
                 "strata = [dependency('strata-json'), dependency('strata')]", "dependency('strata-json')")

    @classmethod
    def configure(cls):
        cls.bin = WORK / cls.tool / "build"
        # Meson refreshes ninja's caches (`ninja -t restat`, `-t cleandead`)
        # in the directory it is started from: started from the top, it
        # rewrote the running build's .ninja_log, which then lost every edge
        # that ended after it (and ran them all again next time).
        cls.log = ninja_log_inode()
        run(["meson", "setup", str(cls.bin), str(cls.src)], cwd=WORK / cls.tool)
        cls.log_after_setup = ninja_log_inode()

    def test_setup_leaves_the_running_build_s_log_alone(self):
        self.assertEqual(self.log_after_setup, self.log)

    def build(self, check=True):
        return run(["meson", "compile", "-C", str(self.bin)], check=check)

    def rebuild(self, check=True):
        """The backend that `meson compile` runs, without its start-up: each
        rebuild is ninja running the build.ninja that Meson wrote (and
        regenerates when meson.build changes)."""
        return run(["ninja", "-C", str(self.bin)], check=check)

    def outputs(self):
        o = self.bin / "game.p"
        return {"header": self.bin / "game.h", "main": o / "main.c.o", "systems": o / "systems.c.o",
                "world": o / "meson-generated_.._game.c.o", "game": self.bin / "game"}


class CMakeTest(Build, unittest.TestCase):
    """CMake's default generator (Unix Makefiles), building out of the source
    tree with Strata's CMake package: find_package(Strata) and strata_add_world."""
    tool = "cmake"
    generator = "Unix Makefiles"
    generator_ran = r"strata-gen \S*game\.yaml"
    json_edit = ("CMakeLists.txt", "strata_add_world(game game.yaml)\n",
                 "strata_add_world(game game.yaml)\ntarget_link_libraries(game PRIVATE Strata::json)\n",
                 "target_link_libraries(game PRIVATE Strata::json)")
    configure_args = ("-DCMAKE_PREFIX_PATH=" + str(ROOT),)

    @classmethod
    def configure(cls):
        cls.bin = WORK / cls.tool / "build"
        run(["cmake", "-G", cls.generator, "-S", str(cls.src), "-B", str(cls.bin), *cls.configure_args])

    def build(self, check=True):
        return run(["cmake", "--build", str(self.bin)], check=check)

    def outputs(self):
        o = self.bin / "CMakeFiles/game.dir"
        return {"header": self.bin / "strata/game.h", "main": o / "main.c.o", "systems": o / "systems.c.o",
                "world": o / "strata/game.c.o", "game": self.bin / "game"}


class CMakeNinjaTest(CMakeTest):
    """The same CMakeLists.txt with CMake's Ninja generator."""
    tool = "cmake-ninja"
    generator = "Ninja"


class CMakePkgConfigTest(CMakeTest):
    """The CMakeLists.txt that does without the package: find_program,
    pkg_check_modules and the generator's command by hand."""
    tool = "cmake-pkg-config"
    configure_args = ()

    @classmethod
    def sources(cls):
        return {**super().sources(), "CMakeLists.txt": HERE / "cmake-pkg-config/CMakeLists.txt"}

    def test_json_loading_is_linked_only_when_the_build_file_asks(self):
        """Here the switch is a cache entry, -DSTRATA_JSON=strata-json, as the file's comment says."""
        self.use_json_main()
        self.assertNotEqual(self.build(check=False).returncode, 0)
        self.assertIn("-DSTRATA_JSON=strata-json",
                      (HERE / "cmake-pkg-config/CMakeLists.txt").read_text(encoding="utf-8"))
        run(["cmake", "-S", str(self.src), "-B", str(self.bin), "-DSTRATA_JSON=strata-json"])
        self.addCleanup(run, ["cmake", "-S", str(self.src), "-B", str(self.bin), "-DSTRATA_JSON="])
        self.build()
        self.assertEqual(self.game(), JSON_OUTPUT)

    def outputs(self):
        o = self.bin / "CMakeFiles/game.dir"
        return {"header": self.bin / "gen/game.h", "main": o / "main.c.o", "systems": o / "systems.c.o",
                "world": o / "gen/game.c.o", "game": self.bin / "game"}


class CMakePackageTest(unittest.TestCase):
    """What find_package(Strata) answers: versions, components, targets, a Debug build."""

    def configure(self, name, body):
        src, bin_dir = WORK / "cmake-package" / name, WORK / "cmake-package" / f"{name}-build"
        shutil.rmtree(src, ignore_errors=True)
        shutil.rmtree(bin_dir, ignore_errors=True)
        src.mkdir(parents=True)
        (src / "CMakeLists.txt").write_text(f"cmake_minimum_required(VERSION 3.20)\nproject({name} C)\n{body}",
                                            encoding="utf-8")
        return run(["cmake", "-S", str(src), "-B", str(bin_dir), f"-DCMAKE_PREFIX_PATH={ROOT}"], check=False)

    def test_versions_components_and_targets(self):
        result = self.configure("probe", f"""
find_package(Strata {strata_version()} EXACT REQUIRED COMPONENTS json inspect live)
foreach(t Strata::strata Strata::json Strata::inspect Strata::live Strata::gen)
  get_target_property(where ${{t}} LOCATION)
  message(STATUS "target ${{t}}: ${{where}}")
endforeach()
get_target_property(debug Strata::strata IMPORTED_LOCATION_DEBUG)
message(STATUS "debug: ${{debug}}")
get_target_property(links Strata::inspect INTERFACE_LINK_LIBRARIES)
message(STATUS "inspect links: ${{links}}")
foreach(v {" ".join(incompatible_versions())})
  find_package(Strata ${{v}} QUIET)
  message(STATUS "asked ${{v}}: found ${{Strata_FOUND}}")
endforeach()
find_package(Strata QUIET COMPONENTS bogus)
message(STATUS "bogus: found ${{Strata_FOUND}}")
""")
        self.assertEqual(result.returncode, 0, result.stderr)
        out = result.stdout
        self.assertIn(f"-- target Strata::strata: {ROOT}/lib/libstrata.a\n", out)
        self.assertIn(f"-- debug: {ROOT}/lib/libstrata_debug.a\n", out)
        self.assertIn(f"-- target Strata::json: {ROOT}/lib/libstrata_json.a\n", out)
        self.assertIn(f"-- target Strata::inspect: {ROOT}/lib/libstrata_inspect.a\n", out)
        self.assertIn(f"-- target Strata::gen: {ROOT}/bin/strata-gen\n", out)
        self.assertIn(f"-- target Strata::live: {ROOT}/lib/libstrata_live.a\n", out)
        self.assertRegex(out, r"-- inspect links: Strata::strata;\S*civetweb\S*;Threads::Threads;m\n")
        for v in incompatible_versions():
            self.assertIn(f"-- asked {v}: found 0\n", out)
        self.assertIn("-- bogus: found 0\n", out)

    def test_a_debug_build_links_the_debug_runtime(self):
        src = WORK / "cmake-package" / "debug"
        shutil.rmtree(src.parent / "debug-build", ignore_errors=True)
        shutil.rmtree(src, ignore_errors=True)
        src.mkdir(parents=True)
        for name in ("game.yaml", "main.c", "systems.c", "CMakeLists.txt"):
            shutil.copy2(HERE / name, src / name)
        bin_dir = src.parent / "debug-build"
        run(["cmake", "-S", str(src), "-B", str(bin_dir), f"-DCMAKE_PREFIX_PATH={ROOT}", "-DCMAKE_BUILD_TYPE=Debug"])
        link = (bin_dir / "CMakeFiles/game.dir/link.txt").read_text(encoding="utf-8")
        self.assertIn(f"{ROOT}/lib/libstrata_debug.a", link)
        self.assertNotIn(f"{ROOT}/lib/libstrata.a", link)

    def test_a_missing_schema_or_world_line_is_a_clear_error(self):
        result = self.configure("noschema", "find_package(Strata REQUIRED)\nadd_executable(g g.c)\n"
                                            "strata_add_world(g missing.yaml)\n")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("strata_add_world: no schema", result.stderr)


class DocsTest(unittest.TestCase):
    def test_using_md_shows_the_tested_build_files(self):
        """Every build file here is a code block of docs/using.md, and every
        block of those languages is one of them."""
        text = (REPO / "docs" / "using.md").read_text(encoding="utf-8")
        blocks = re.findall(r"(?ms)^```(\w*)\n(.*?)^```$", text)
        files = {name: (HERE / name).read_text(encoding="utf-8") for _, name in BUILD_FILES}
        for language, name in BUILD_FILES:
            with self.subTest(file=name):
                shown = [body for lang, body in blocks if lang == language]
                if files[name] not in shown:
                    nearest = max(shown, key=lambda b: difflib.SequenceMatcher(None, b, files[name]).ratio(),
                                  default="")
                    diff = "".join(difflib.unified_diff(files[name].splitlines(True), nearest.splitlines(True),
                                                        f"tests/outside/{name}", f"docs/using.md ```{language}"))
                    self.fail(f"docs/using.md does not show tests/outside/{name}:\n{diff}")
        for language, body in blocks:
            if language in {lang for lang, _ in BUILD_FILES}:
                self.assertIn(body, files.values(), f"a ```{language} block of docs/using.md is no tested file")


if __name__ == "__main__":
    unittest.main(verbosity=2)

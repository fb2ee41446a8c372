#!/usr/bin/env python3
"""Write build.ninja: the whole build of Strata, generated so that it stays
readable as tests and examples are added. Run it after adding a source file,
a test or a schema; the result is committed.

    python3 configure.py          # writes build.ninja
    python3 configure.py --check  # exit 1 if build.ninja is not what it would write

The file reads top to bottom: what is built (the tables below), then the
rules, then one function a kind of edge, then main(), which lists the edges.
A new test file is picked up by its name (tests/runtime/test_*.c,
tests/worlds/test_<world>_*.c, tests/examples/test_<example>.c); a new
example is one line of EXAMPLES.
"""
import glob
import os
import sys
from dataclasses import dataclass

import yaml

ROOT = os.path.dirname(os.path.abspath(__file__))


def sources(*patterns):
    """The files matching the patterns (relative to the top, sorted, no duplicates; `**` is any depth)."""
    found = {os.path.relpath(p, ROOT) for pattern in patterns
             for p in glob.glob(os.path.join(ROOT, pattern), recursive=True)}
    return sorted(p for p in found if os.path.isfile(os.path.join(ROOT, p)))


def first_existing(*paths):
    """The first of paths that exists, as a one-element list (the last if none does)."""
    return [next((p for p in paths if os.path.exists(os.path.join(ROOT, p))), paths[-1])]


# --- What is built ----------------------------------------------------------

WARNINGS = "-Wall -Wextra -Wpedantic -Werror"
SAN = "-fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
# Each build of the C files: compiler and flags. Tests run with
# TEST_VARIANTS; debug and release are the two runtimes `ninja install` puts
# in place; the bench compiles the runtime into its program, at -O2 with
# asserts off (and at -O3 for `ninja bench-o3` only).
VARIANTS = {
    "gcc": ("gcc", "-O2 -g"),
    "clang": ("clang", "-O2 -g"),
    # gcc's sanitizers ship with gcc itself; clang's need an extra package
    # (tools/deps.sh installs it). clang's UBSan checks more (a zero offset
    # applied to a null pointer, for one), so the tests run under both.
    "san": ("gcc", f"-O1 -g {SAN}"),
    "san-clang": ("clang", f"-O1 -g {SAN}"),
    # ThreadSanitizer, for the threaded tests (tests/threads/) only.
    "tsan": ("clang", "-O1 -g -fno-omit-frame-pointer -fsanitize=thread"),
    "debug": ("gcc", "-O0 -g"),            # asserts on
    "release": ("gcc", "-O2 -DNDEBUG"),    # asserts off: what games ship
    # The libFuzzer targets: everything they link is instrumented for
    # coverage; only the final link brings in libFuzzer's main.
    "fuzz": ("clang", f"-O1 -g {SAN} -fsanitize=fuzzer-no-link"),
    "bench": ("gcc", "-O2 -g -DNDEBUG"),
    "bench-o3": ("gcc", "-O3 -g -DNDEBUG"),
}
BENCH_VARIANTS = ("bench", "bench-o3")
LIBRARY_VARIANTS = [v for v in VARIANTS if v not in BENCH_VARIANTS]
TEST_VARIANTS = ("gcc", "clang", "san", "san-clang")
THREAD_TEST_VARIANTS = TEST_VARIANTS + ("tsan",)  # tests/threads/ runs under ThreadSanitizer too
QUICK_VARIANT = "gcc"  # `ninja test-quick`

# The runtime: every runtime/*.c and runtime/save/*.c. The JSON loader needs
# yajl, so it has an archive of its own, libstrata_json: a game that never
# loads JSON links neither it nor yajl.
JSON_SOURCES = first_existing("runtime/save/json_read.c", "runtime/json.c")
JSON_LIBS = "-lyajl"
RUNTIME_SOURCES = [s for s in sources("runtime/*.c", "runtime/save/*.c") if s not in JSON_SOURCES]
RUNTIME_FILES = sources("runtime/**/*.[ch]")
LAYERS = "runtime/LAYERS"

# Test programs, built with each of TEST_VARIANTS and run by `ninja test`.
# tests/worlds/test_<world>_*.c links the world of tests/schema/<world>.yaml,
# and those EXTRA_WORLDS name besides.
EXTRA_WORLDS = {"test_save_evolve": ["save2", "save3", "save4", "save5"], "test_rel_save": ["rel2"]}
# Linked into every test: CMOCKA_TEST_FILTER=PATTERN runs the tests matching it.
TEST_FILTER = "tools/test_filter.c"

# The examples' programs: name, world (schema/<world>.yaml, generated into
# generated/), sources, libraries, the target that runs it, and whether `all`
# builds it. GAME is the game without a front end, which its tests link too.
COMMON = ["examples/common/canvas.c", "examples/common/font.c"]
PNG = ["examples/common/png.c"]
GAME = [f for f in sources("examples/rectangle_eater/*.c") if not f.endswith(("/demo.c", "/play.c"))] + COMMON
ROLLBACK = ["examples/rollback/game.c", "examples/rollback/demo.c"]  # the rollback demo's game and peers


@dataclass
class Example:
    name: str
    world: str
    sources: list
    libs: str = ""
    target: str = ""
    variant: str = "gcc"   # "sdl": the window front end, with SDL2's flags
    default: bool = True


EXAMPLES = [
    Example("rectangle_eater", "rectangle_eater", GAME + ["examples/rectangle_eater/demo.c"] + PNG, "-lpng -lm", "demo"),
    Example("rectangle_eater_play", "rectangle_eater", GAME + ["examples/rectangle_eater/play.c"] + PNG, "-lpng -lm",
            "play", variant="sdl", default=False),  # only when asked: nothing else needs SDL2 or a display
    Example("swarm", "swarm", sources("examples/swarm/*.c") + COMMON + PNG, "-lpng -lm", "swarm"),
    Example("particles", "particles", sources("examples/particles/*.c"), "", "particles"),
    # Two peers over a simulated network, rolling back and converging (docs/rollback.md).
    Example("rollback_demo", "duel", ROLLBACK + ["examples/rollback/main.c"], "", "rollback-demo"),
    Example("rollback_play", "duel", ROLLBACK + ["examples/rollback/window.c"] + COMMON, "", "rollback-play",
            variant="sdl", default=False),  # the two peers side by side in an SDL2 window
    Example("orbits", "orbits", sources("examples/orbits/*.c") + COMMON + PNG, "-lpng -lm", "orbits"),
]
# What each example's tests (tests/examples/test_<example>.c) link besides.
EXAMPLE_TEST_SOURCES = {"rectangle_eater": GAME}

BENCH_JS_PACKAGE = "bitecs@0.4.0"  # what `ninja bench-js` installs from npm

# The fuzz targets: seconds each for `ninja fuzz`; operations for `ninja fuzz-long`
# (the split-system test runs LONG_PAR_OPS at each of its five thread counts).
FUZZ_SECONDS = {"diff": 60, "load_bin": 30, "load_json": 30}
LONG_OPS = 1000000
LONG_PAR_OPS = 50000
# The differential test's large world in `ninja fuzz-long`: operations, and the entities it keeps alive.
LARGE_OPS, LARGE_AIM = 5000, 100000

# The project's own C files, as `ninja format-check` sees them (not
# generated/, build/ or the generator's golden files).
FORMATTED = sources("runtime/**/*.[ch]", "tests/**/*.[ch]", "examples/**/*.[ch]", "bench/**/*.[ch]", "tools/*.[ch]")
FORMATTED = [f for f in FORMATTED if not f.startswith("tests/codegen/") and "/build/" not in f]

INSTALL_SCRIPTS = ["tools/install.sh", "tools/uninstall.sh", "tools/install-common.sh"]
# What `ninja install` copies besides the libraries.
INSTALLED = ["runtime/include/strata.h", "tools/strata-gen.in", "tools/strata.pc.in",
             "runtime/include/strata_inspect.h", "tools/strata-inspect.pc.in",
             "schema/strata.schema.json"] + sources(
    "codegen/*.py", "codegen/templates/*.j2")


# --- A minimal Ninja writer ---------------------------------------------------

def _list(x):
    return [x] if isinstance(x, str) else list(x)


class Writer:
    def __init__(self):
        self.lines = []

    def line(self, text=""):
        self.lines.append(text)

    def comment(self, text):
        self.line(f"# {text}")

    def variable(self, key, value, indent=0):
        self.line(f"{'  ' * indent}{key} = {value}")

    def rule(self, name, command, description, **extra):
        self.line(f"rule {name}")
        self.variable("command", command, 1)
        self.variable("description", description, 1)
        for k, v in extra.items():
            self.variable(k, v, 1)
        self.line()

    def build(self, outputs, rule, inputs=(), implicit=(), order_only=(), implicit_outputs=(), variables=None):
        text = f"build {' '.join(_list(outputs))}"
        if implicit_outputs:
            text += f" | {' '.join(_list(implicit_outputs))}"
        text += f": {rule}"
        if inputs:
            text += f" {' '.join(_list(inputs))}"
        if implicit:
            text += f" | {' '.join(_list(implicit))}"
        if order_only:
            text += f" || {' '.join(_list(order_only))}"
        self.line(text)
        for k, v in (variables or {}).items():
            if v != "":
                self.variable(k, v, 1)

    def text(self):
        return "\n".join(self.lines) + "\n"


def world_of(schema_path):
    """The `world:` of a schema: the stem of its generated files."""
    with open(os.path.join(ROOT, schema_path), encoding="utf-8") as f:
        return yaml.safe_load(f)["world"]


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def obj(build, src):
    return f"build/{build}/{src[:-2]}.o"


# --- The rules ------------------------------------------------------------------

def rules(n):
    n.rule("deps", "sh tools/deps.sh $flags $out", "DEPS checking build dependencies")
    n.rule("gen", "$python -m codegen $in -o $outdir --depfile $depfile",
           "GEN $in", depfile="$depfile", deps="gcc", restat="1")
    for v, (cc, flags) in VARIANTS.items():
        n.rule(f"cc_{v}", f"{cc} -std=c11 $warnings {flags} $includes $extra -MMD -MF $out.d -c $in -o $out",
               f"CC[{v}] $in", depfile="$out.d", deps="gcc")
        link_flags = flags.replace("fuzzer-no-link", "fuzzer")
        n.rule(f"link_{v}", f"{cc} {link_flags} -o $out $in $libs", f"LINK[{v}] $out")
    # The game's window front end only: SDL2's flags come from pkg-config.
    n.rule("cc_sdl", "gcc -std=c11 $warnings -O2 -g $includes $extra `pkg-config --cflags sdl2` -MMD -MF $out.d -c $in -o $out",
           "CC[sdl] $in", depfile="$out.d", deps="gcc")
    n.rule("link_sdl", "gcc -O2 -g -o $out $in $libs `pkg-config --libs sdl2`", "LINK[sdl] $out")
    n.rule("ar", "rm -f $out && ar crs $out $in", "AR $out")
    n.rule("test", "sh tools/run-test.sh $out.log $out $cmd", "TEST $cmd")
    n.rule("summary", "sh tools/test-summary.sh $in", "SUMMARY", pool="console")
    n.rule("run", "$cmd", "RUN $cmd", pool="console")
    n.rule("install_files", "sh tools/install.sh $in", "INSTALL Strata", pool="console")
    n.rule("uninstall_files", "sh tools/uninstall.sh", "UNINSTALL Strata", pool="console")
    n.line()


# --- The kinds of edge ------------------------------------------------------------

class Build:
    """The edges written so far, and helpers that write one kind each."""

    def __init__(self, n):
        self.n = n
        self.deps = "build/deps.stamp"
        self.deps_sdl2 = "build/deps-sdl2.stamp"  # SDL2: checked (and installed) for `ninja play` only
        self.codegen = sources("codegen/*.py", "codegen/templates/*.j2")
        self.objects = set()
        self.all = []                 # what `ninja all` builds besides the worlds
        self.tests = {}               # test stamp -> the variant it belongs to (None: no compiler)
        self.libs = {}                # variant -> libstrata.a
        self.json_libs = {}           # variant -> libstrata_json.a

    def generate(self, schema, outdir):
        """schema -> (outdir/<world>.h, outdir/<world>.c), with the schedule beside them."""
        world = world_of(schema)
        h, c = f"{outdir}/{world}.h", f"{outdir}/{world}.c"
        schedule = [f"{outdir}/{world}_schedule.txt", f"{outdir}/{world}_schedule.dot"]
        self.n.build(h, "gen", inputs=schema, implicit_outputs=[c] + schedule, implicit=self.codegen,
                     order_only=self.deps, variables={"outdir": outdir, "depfile": f"{h}.d"})
        return h, c

    def compile(self, build, src, headers=(), extra="", objdir=None):
        """One object file, written once however many programs link it."""
        o = obj(objdir or build, src)
        if o not in self.objects:
            self.objects.add(o)
            order = [self.deps, *headers] + ([self.deps_sdl2] if build == "sdl" else [])
            self.n.build(o, f"cc_{build}", inputs=src, order_only=order,
                         variables={"extra": extra} if extra else None)
        return o

    def library(self, v, name, srcs):
        lib = f"build/{v}/{name}"
        self.n.build(lib, "ar", inputs=[self.compile(v, s) for s in srcs])
        return lib

    def program(self, v, name, srcs, headers=(), libs="", archives=(), default=True, extra=""):
        """Compile srcs with variant v and link them with archives and libstrata
        (the gcc one for "sdl"); default=False keeps the program out of `all`."""
        extra = f"-Ibuild/gen -Iexamples/common {extra}".strip()
        objs = [self.compile(v, s, headers=headers, extra=extra) for s in srcs]
        exe = f"build/{v}/{name}"
        runtime = self.libs["gcc" if v == "sdl" else v]
        self.n.build(exe, f"link_{v}", inputs=objs + list(archives) + [runtime], variables={"libs": libs})
        if default:
            self.all.append(exe)
        return exe

    def test(self, stamp, cmd, variant=None, inputs=(), implicit=(), order_only=()):
        """Run cmd; stamp (and stamp.log) when it passes."""
        self.tests[stamp] = variant
        self.n.build(stamp, "test", inputs=inputs, implicit=implicit, order_only=order_only,
                     implicit_outputs=f"{stamp}.log", variables={"cmd": cmd})

    def test_program(self, v, name, srcs, headers=(), libs="", archives=(), extra=""):
        exe = self.program(v, f"tests/{name}", srcs + [TEST_FILTER], headers, f"-lcmocka {libs}".strip(),
                           archives, extra=extra)
        self.test(f"{exe}.ok", exe, variant=v, inputs=exe)

    def run(self, target, cmd, inputs=(), implicit=(), order_only=()):
        self.n.build(target, "run", inputs=inputs, implicit=implicit, order_only=order_only,
                     variables={"cmd": cmd})

    def summary(self, target, stamps):
        out = f"build/{target}-summary"
        self.n.build(out, "summary", inputs=[f"{s}.log" for s in stamps], implicit=stamps)
        self.n.build(target, "phony", inputs=out)


def bench(b, then):
    """The bench's edges: its worlds (bench/*.yaml into build/gen/), its
    program (bench/*.c but vectorize.c) at -O2 and -O3, and the targets that
    run them; `bench` runs the programs in `then` after the suite."""
    n = b.n
    worlds = [b.generate(s, "build/gen") for s in sources("bench/*.yaml")]
    headers = [h for h, _ in worlds]
    programs = {}
    for build in BENCH_VARIANTS:
        srcs = RUNTIME_SOURCES + [s for s in sources("bench/*.c") if s != "bench/vectorize.c"] + [c for _, c in worlds]
        # -iquote: the bench world move.h comes before the runtime's own move.h.
        objs = [b.compile(build, s, headers=headers, extra="-iquote build/gen", objdir=f"{build}/obj") for s in srcs]
        programs[build] = f"build/{build}/strata-bench"
        n.build(programs[build], f"link_{build}", inputs=objs, variables={"libs": "-lm"})
    # One structural operation alone, for perf and callgrind (not run here).
    runtime_objs = [obj("bench/obj", s) for s in RUNTIME_SOURCES]
    profile = b.compile("bench", "bench/profile/structural.c", headers=headers, extra="-iquote build/gen", objdir="bench/obj")
    n.build("build/bench/profile-structural", "link_bench",
            inputs=[profile, "build/bench/obj/build/gen/move.o"] + runtime_objs)
    n.build("bench-profile", "phony", inputs="build/bench/profile-structural")
    # `bench` prints the table as it runs, then report.py adds the bitECS
    # side-by-side (when `ninja bench-js` has left its results) and the chart.
    results, js_results = "build/bench/results.json", "build/bench-js/results.json"
    report = f"$python bench/report.py {results} {js_results} build/bench/chart.svg"
    b.run("bench", " && ".join([f"{programs['bench']} --json {results}", report, *then]),
          inputs=[programs["bench"], *then], implicit="bench/report.py")
    # The network is used here only, never by `test` or the default build.
    b.run("bench-js", f"sh bench/js/run.sh {BENCH_JS_PACKAGE} {js_results} && {report}",
          implicit=["bench/report.py"] + sources("bench/js/*"))
    # What -O3 does to the iteration rows.
    b.run("bench-o3", f"{programs['bench-o3']} --json build/bench-o3/results.json move packed_5",
          inputs=programs["bench-o3"])
    # gcc's own report on which loops vectorize, at -O2, -O2 with the dynamic cost model, and -O3.
    b.run("bench-vec", "sh bench/vectorize.sh", implicit=["bench/vectorize.sh", "bench/vectorize.c"],
          order_only=headers)
    b.all.append(programs["bench"])


# --- The inspector --------------------------------------------------------------

# libstrata_inspect: runtime/inspect/*.c and its page (runtime/inspect/page/,
# compiled in by embed.py), linked with civetweb (docs/inspector.md says why);
# its header is runtime/include/strata_inspect.h.
INSPECT_SOURCES = sources("runtime/inspect/*.c")
INSPECT_PAGE = sources("runtime/inspect/page/*")
INSPECT_LIBS = "-lcivetweb -lpthread -lm"
INSPECT_VARIANTS = TEST_VARIANTS + ("release",)
INSPECT_PORT = 27750  # `ninja inspect`


def inspector(b, generated):
    """libstrata_inspect in each variant, its tests, swarm-inspect and `ninja inspect`;
    returns the libraries and the program `ninja bench` runs for its cost a step."""
    n = b.n
    n.rule("embed", "$python runtime/inspect/embed.py $out $in", "EMBED $out", restat="1")
    page = "build/gen/inspect_page.c"
    n.build(page, "embed", inputs=INSPECT_PAGE, implicit="runtime/inspect/embed.py")
    libs = {v: f"build/{v}/libstrata_inspect.a" for v in INSPECT_VARIANTS}
    for v, lib in libs.items():
        n.build(lib, "ar", inputs=[b.compile(v, s, extra="-Iruntime/inspect") for s in INSPECT_SOURCES + [page]])
    h, c = b.generate("tests/inspect/inspect.yaml", "build/gen")
    for v in TEST_VARIANTS:
        # With the JSON loader: the page's writes and a load read values by one codec.
        b.test_program(v, "test_inspect", ["tests/inspect/test_inspect.c", c], headers=[h],
                       libs=f"{INSPECT_LIBS} {JSON_LIBS}", archives=[libs[v], b.json_libs[v]])
    # The test world as a running game (for the browser test) and its cost a step (for the bench).
    game = b.program("release", "inspect-game", ["tests/inspect/game.c", c], headers=[h], libs=INSPECT_LIBS,
                     archives=[libs["release"]])
    cost = b.program("release", "inspect-bench", ["tests/inspect/bench_inspect.c", c], headers=[h],
                     libs=INSPECT_LIBS, archives=[libs["release"]])
    # The swarm with the inspector on (built with -DSWARM_INSPECT).
    h, c = generated["swarm"]
    flags = "-Ibuild/gen -Iexamples/common -DSWARM_INSPECT"
    srcs = sources("examples/swarm/*.c") + COMMON + PNG + [c]
    objs = [b.compile("gcc", s, headers=[h], extra=flags, objdir="gcc/inspect") for s in srcs]
    exe = "build/gcc/swarm-inspect"
    n.build(exe, "link_gcc", inputs=objs + [libs["gcc"], b.libs["gcc"]],
            variables={"libs": f"{INSPECT_LIBS} -lpng -lm"})
    b.all.append(exe)
    # Through tools/console-run.py: a SIGTERM to ninja stops the server too.
    b.run("inspect", f"$python tools/console-run.py {exe} --count 20000 --inspect {INSPECT_PORT}", inputs=exe,
          implicit="tools/console-run.py")
    # The programs stop on a signal, on their parent's death, and with ninja.
    b.test("build/inspect-stop.ok", f"$python tests/inspect/test_stop.py {exe} {game}", inputs=[exe, game],
           implicit=["tests/inspect/test_stop.py", "tools/console-run.py"])
    # The page in a real browser: chromium driven by playwright-core. The
    # test's screenshot goes to build/; `ninja inspect-screenshot` takes the docs' one.
    browser = sources("tests/inspect/*.mjs")
    b.test("build/inspect-browser.ok", f"node tests/inspect/browser.mjs {exe} {game} build/inspect/inspector.png",
           inputs=[exe, game], implicit=browser, order_only=b.deps)
    b.run("inspect-screenshot", f"node tests/inspect/browser.mjs {exe} {game} docs/inspector.png",
          inputs=[exe, game], implicit=browser, order_only=b.deps)
    return libs, cost


# --- The tutorial and the docs' examples ----------------------------------------------

# docs/tutorial.md's steps, examples/tutorial/<N>-<name>/: each a program that
# checks itself. A step is its own *.c files and the files of the steps before
# it but their main.c, over its own pond.yaml or the latest earlier one.
TUTORIAL_VARIANTS = ("gcc", "clang", "san")
TUTORIAL_ARGS = {"6-save": "build/{v}/tutorial/pond.sav"}  # where step 6 writes its save


def uses(path, text):
    """True if the file at path (relative to the top) contains text."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return text in f.read()


def tutorial_and_docs(b, inspect_libs):
    """The tutorial's steps, built and run as tests, and the test that every
    example of README.md and docs/ compiles (tests/docs/)."""
    steps = sorted((os.path.basename(os.path.dirname(p)) for p in sources("examples/tutorial/*/main.c")),
                   key=lambda step: int(step.split("-")[0]))
    schema, shared, shown = None, [], []
    for i, step in enumerate(steps):
        here = f"examples/tutorial/{step}"
        if os.path.exists(os.path.join(ROOT, here, "pond.yaml")):
            schema = (step,) + b.generate(f"{here}/pond.yaml", f"build/gen/tutorial/{step}")
        world_step, h, c = schema
        own = sources(f"{here}/*.c")
        dirs = [os.path.dirname(h)] + [f"examples/tutorial/{d}" for d in reversed(steps[:i + 1])]
        includes = " ".join(f"-I{d}" for d in dirs)  # the world's header, then this step's files first
        inspect = any(uses(f, "strata_inspect.h") for f in own)  # the step with the live inspector
        for v in TUTORIAL_VARIANTS:
            objs = [b.compile(v, s, headers=[h], extra=includes, objdir=f"{v}/tutorial-obj/{step}")
                    for s in own + shared]
            objs.append(b.compile(v, c, headers=[h], extra=includes, objdir=f"{v}/tutorial-obj/{world_step}"))
            exe = f"build/{v}/tutorial/{step}"
            archives = [inspect_libs[v]] if inspect else []
            b.n.build(exe, f"link_{v}", inputs=objs + archives + [b.libs[v]],
                      variables={"libs": "-lcivetweb -lpthread -lm" if inspect else ""})
            b.test(f"{exe}.ok", f"{exe} {TUTORIAL_ARGS.get(step, '').format(v=v)}".strip(), variant=v, inputs=exe)
            if v == QUICK_VARIANT:
                b.all.append(exe)
                shown.append(f"{exe}.ok")  # docs/tutorial.md shows what it printed
        shared += [s for s in own if not s.endswith("/main.c")]
    b.test("build/docs-tests.ok", "$python -m unittest discover -s tests/docs -t .",
           implicit=b.codegen + sources("tests/docs/*", "README.md", "docs/*.md", "schema/*.yaml",
                                        "examples/tutorial/**/*", "tests/outside/*.yaml",
                                        "runtime/include/*.h") + shown, order_only=b.deps)


# --- The edges ----------------------------------------------------------------------

def main(argv):
    n = Writer()
    n.comment("Generated by configure.py; edit that, then run `python3 configure.py`.")
    n.comment("Targets: all (default), test, test-quick, demo, play, swarm, particles, rollback-demo, rollback-play, bench,")
    n.comment("bench-js, bench-o3, bench-vec, bench-profile, generate, format-check, install, uninstall, fuzz, fuzz-long, inspect, inspect-screenshot.")
    n.comment("install and uninstall read PREFIX (default /usr/local) and DESTDIR.")
    n.line()
    n.variable("ninja_required_version", "1.10")
    n.variable("python", "python3")
    n.variable("warnings", WARNINGS)
    n.variable("includes", "-Iruntime/include -Iruntime -Igenerated")
    n.line()
    rules(n)

    b = Build(n)
    n.build(b.deps, "deps", implicit="tools/deps.sh")
    n.build(b.deps_sdl2, "deps", implicit="tools/deps.sh", variables={"flags": "--sdl2"})
    n.line()

    # Worlds: the examples' are committed in generated/; the tests' and the bench's live in build/gen/.
    generated = {stem(s): b.generate(s, "generated") for s in sources("schema/*.yaml")}
    test_worlds = {stem(s): b.generate(s, "build/gen") for s in sources("tests/schema/*.yaml", "tests/schema/evolve/*.yaml")}
    n.build("generate", "phony", inputs=[f for pair in generated.values() for f in pair])
    n.line()

    # The runtime: libstrata and libstrata_json, in every variant.
    for v in LIBRARY_VARIANTS:
        b.libs[v] = b.library(v, "libstrata.a", RUNTIME_SOURCES)
        b.json_libs[v] = b.library(v, "libstrata_json.a", JSON_SOURCES)
    n.build("libs", "phony", inputs=[b.libs["debug"], b.libs["release"], b.json_libs["release"]])
    n.line()

    # The tests: each file a program, in each compiler variant.
    for v in TEST_VARIANTS:
        for src in sources("tests/runtime/test_*.c"):
            b.test_program(v, stem(src), [src])
        for src in sources("tests/worlds/test_*.c"):
            worlds = [stem(src)[len("test_"):].split("_")[0]] + EXTRA_WORLDS.get(stem(src), [])
            b.test_program(v, stem(src), [src] + [test_worlds[w][1] for w in worlds],
                           headers=[test_worlds[w][0] for w in worlds], libs=JSON_LIBS, archives=[b.json_libs[v]])
        # The differential test against the reference model, and its allocation-failure sweep.
        h, c = test_worlds["fuzz"]
        b.test_program(v, "test_fuzz_diff", ["tests/fuzz/diff.c", "tests/fuzz/model.c", c], headers=[h],
                       libs=JSON_LIBS, archives=[b.json_libs[v]])
        # The examples' own tests: the game's rules, determinism, the autopilot.
        for src in sources("tests/examples/test_*.c"):
            example = stem(src)[len("test_"):]
            h, c = generated[example]
            b.test_program(v, stem(src), [src, c] + EXAMPLE_TEST_SOURCES.get(example, []), headers=[h],
                           libs="-lm", extra=f"-Iexamples/{example}")
    # The threaded step: its own world, and the examples' at several thread counts;
    # the differential test of split systems at 1, 2, 3, 4 and 8 threads.
    thr_h, thr_c = b.generate("tests/threads/threads.yaml", "build/gen")
    tev_h, tev_c = b.generate("tests/threads/thread_events.yaml", "build/gen")
    for v in THREAD_TEST_VARIANTS:
        h, c = test_worlds["fuzz_par"]
        b.test_program(v, "test_fuzz_par", ["tests/fuzz/par.c", c], headers=[h])
        b.test_program(v, "test_threads", ["tests/threads/test_threads.c", thr_c], headers=[thr_h],
                       libs=JSON_LIBS, archives=[b.json_libs[v]])
        # Events and tracked writes from split systems and shared batches.
        b.test_program(v, "test_thread_events", ["tests/threads/test_thread_events.c", tev_c], headers=[tev_h],
                       libs=JSON_LIBS, archives=[b.json_libs[v]])
        worlds = [generated["rectangle_eater"], generated["swarm"]]
        b.test_program(v, "test_threads_examples",
                       ["tests/threads/test_threads_examples.c", "examples/swarm/systems.c"] + GAME
                       + [c for _, c in worlds], headers=[h for h, _ in worlds], libs="-lm",
                       extra="-Iexamples/rectangle_eater -Iexamples/swarm")
    # The snapshots' tests step at 1 to 8 threads: under ThreadSanitizer as well.
    h, c = test_worlds["snap"]
    b.test_program("tsan", "test_snap", ["tests/worlds/test_snap.c", c], headers=[h])
    # The generator's tests, the build tools' tests, and the runtime's layering.
    codegen_tests = sources("tests/codegen/*.py", "tests/codegen/bad/*", "tests/schema/*.yaml")
    b.test("build/codegen-tests.ok", "$python -m unittest discover -s tests/codegen -t .",
           implicit=b.codegen + codegen_tests + ["generate"], order_only=b.deps)
    b.test("build/tools-tests.ok", "$python -m unittest discover -s tests/tools -t .",
           implicit=sources("tests/tools/*.py", "tools/*.py", "tools/*.sh"), order_only=b.deps)
    b.test("build/editor-tests.ok", "$python -m unittest discover -s tests/editor -t .",
           implicit=b.codegen + sources("tests/editor/*.py", "tests/editor/broken/*", "schema/*.yaml")
           + INSTALL_SCRIPTS + INSTALLED, order_only=b.deps)
    b.test("build/layers.ok", "$python tools/check-layers.py runtime",
           implicit=["tools/check-layers.py"] + RUNTIME_FILES + sources(LAYERS))
    # The rollback demo converges, and catches a desync (its program: the examples, below).
    b.test("build/gcc/rollback-demo.ok", "sh tests/examples/rollback_demo.sh build/gcc/rollback_demo", variant="gcc",
           implicit=["build/gcc/rollback_demo", "tests/examples/rollback_demo.sh"])
    inspect_libs, inspect_bench = inspector(b, generated)
    tutorial_and_docs(b, inspect_libs)
    # A game outside the tree, built with Make, CMake and Ninja against an install.
    b.test("build/outside-tests.ok", "$python tests/outside/test_outside.py",
           implicit=[b.libs["release"], b.libs["debug"], b.json_libs["release"], inspect_libs["release"], "docs/using.md"]
           + INSTALL_SCRIPTS + INSTALLED + sources("tests/outside/*"), order_only=b.deps)
    b.summary("test", list(b.tests))
    b.summary("test-quick", [s for s, v in b.tests.items() if v == QUICK_VARIANT])
    n.line()

    # The examples, and the targets that run them.
    for ex in EXAMPLES:
        h, c = generated[ex.world]
        exe = b.program(ex.variant, ex.name, ex.sources + [c], headers=[h], libs=ex.libs, default=ex.default)
        if ex.target:
            # `THREADS=N ninja swarm`: the swarm's threads (0: one per core; default 1).
            cmd = f"{exe} --threads $${{THREADS:-1}}" if ex.name == "swarm" else exe
            b.run(ex.target, cmd, inputs=exe)
    # Saves and loads have their own program and world (bench/save/), run after the suite.
    save_world = b.generate("bench/save/save.yaml", "build/gen")
    save_bench = b.program("gcc", "strata-save-bench", ["bench/save/save_bench.c", save_world[1]],
                           headers=save_world, libs=JSON_LIBS, archives=[b.json_libs["gcc"]])
    bench(b, then=[save_bench, inspect_bench])
    n.line()

    # libFuzzer targets: `ninja fuzz` runs each from its checked-in corpus
    # (tests/fuzz/corpus/<target>/), keeping what it finds under build/fuzz/.
    h, c = test_worlds["fuzz"]
    fuzzers = {}
    for number, target in enumerate(FUZZ_SECONDS, 1):
        # One source, three targets: its objects are per target.
        objs = [b.compile("fuzz", s, headers=[h], extra=f"-Ibuild/gen -DFUZZ_LIBFUZZER={number}",
                          objdir=f"fuzz/{target}") for s in ["tests/fuzz/diff.c", "tests/fuzz/model.c", c]]
        fuzzers[target] = f"build/fuzz/fuzz-{target}"
        n.build(fuzzers[target], "link_fuzz", inputs=objs + [b.json_libs["fuzz"], b.libs["fuzz"]],
                variables={"libs": JSON_LIBS})
        b.all.append(fuzzers[target])
    b.run("fuzz", " && ".join(f"sh tools/fuzz.sh {FUZZ_SECONDS[t]} {t} {exe}" for t, exe in fuzzers.items()),
          inputs=list(fuzzers.values()), implicit="tools/fuzz.sh")
    long_exe, par_exe = "build/san/tests/test_fuzz_diff", "build/san/tests/test_fuzz_par"
    b.run("fuzz-long", f"{long_exe} --ops {LONG_OPS} --seed 20240601 && "
          f"{long_exe} --large --ops {LARGE_OPS} --aim {LARGE_AIM} --seed 20240601 && "
          f"{par_exe} --ops {LONG_PAR_OPS} --seed 20240601",
          inputs=[long_exe, par_exe])
    n.line()

    # clang-format over the project's own C files, changing nothing (.clang-format says how).
    b.run("format-check", "clang-format --dry-run --Werror " + " ".join(FORMATTED),
          implicit=[".clang-format"] + FORMATTED, order_only=b.deps)
    n.build("all", "phony", inputs=["generate", "libs"] + b.all)
    # `install` and `uninstall` name no file, so they run every time asked.
    n.build("install", "install_files", inputs=[b.libs["release"], b.libs["debug"], b.json_libs["release"],
                                                inspect_libs["release"]],
            implicit=INSTALL_SCRIPTS + INSTALLED)
    n.build("uninstall", "uninstall_files", implicit=INSTALL_SCRIPTS)
    n.line()
    n.line("default all")

    path = os.path.join(ROOT, "build.ninja")
    if "--check" in argv:
        with open(path, encoding="utf-8") as f:
            if f.read() != n.text():
                print("build.ninja is stale: run python3 configure.py", file=sys.stderr)
                return 1
        return 0
    with open(path, "w", encoding="utf-8") as f:
        f.write(n.text())
    return 0



if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

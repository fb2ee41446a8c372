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
import re
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
    # ASan+UBSan: clang's for `ninja test` (its UBSan checks all that gcc's
    # does and more: a zero offset applied to a null pointer, a float cast
    # out of range), gcc's for `ninja test-san-gcc` (CI runs both).
    # The sanitizers' reports name functions, files and lines: line tables
    # (-g1) are all they read, and a quarter cheaper to compile than -g.
    "san": ("gcc", f"-O1 -g1 {SAN}"),
    "san-clang": ("clang", f"-O1 -g1 {SAN}"),
    # ThreadSanitizer, for the threaded tests (tests/threads/) only.
    "tsan": ("clang", "-O1 -g1 -fno-omit-frame-pointer -fsanitize=thread"),
    "debug": ("gcc", "-O0 -g"),            # asserts on
    "release": ("gcc", "-O2 -DNDEBUG"),    # asserts off: what games ship
    # The libFuzzer targets: everything they link is instrumented for
    # coverage; only the final link brings in libFuzzer's main.
    "fuzz": ("clang", f"-O1 -g {SAN} -fsanitize=fuzzer-no-link"),
    "bench": ("gcc", "-O2 -g -DNDEBUG"),
    "bench-o3": ("gcc", "-O3 -g -DNDEBUG"),
}
BENCH_VARIANTS = ("bench", "bench-o3")
# The code that only drives what is tested (the tests' own files, the
# tutorial's steps, the bench's cases run once at a tiny size) is compiled
# at -O0 in these builds, as it is quickest to compile: the runtime and the
# generated worlds keep the build's level, since they are what the tests
# exercise, and so do the differential tests (tests/fuzz/), whose model is
# most of their run. It checks nothing less: a sanitizer sees every access
# at -O0, clang's warnings do not depend on the level, and gcc's build, whose
# warnings do, compiles everything at -O2.
DRIVER_FLAGS = {"clang": "-O0", "san": "-O0", "san-clang": "-O0"}
DRIVER_CODE = ("tests/", "tools/test_filter.c", "examples/tutorial/", "bench/")


def driver_flags(build, src):
    """The flags added to the build's for src: DRIVER_FLAGS[build] if src only drives what is tested."""
    driver = src.startswith(DRIVER_CODE) and not src.startswith("tests/fuzz/")
    return DRIVER_FLAGS.get(build, "") if driver else ""
# The order their edges are written in, and so started in: Ninja starts the
# ready edges in the order they appear, so those on the longest chains of
# `ninja test` come first (the install's runtimes for tests/outside, then the
# sanitizers', whose tests run longest).
BUILD_ORDER = ["fuzz", "release", "debug", "tsan", "san", "san-clang", "gcc", "clang", "bench", "bench-o3"]
LIBRARY_VARIANTS = [v for v in VARIANTS if v not in BENCH_VARIANTS]
# `ninja test` runs every test built by gcc and by clang at -O2 and by clang
# with ASan+UBSan (the threaded ones with TSan too): each compiler's
# optimized code, and each sanitizer's checks. gcc's ASan+UBSan build adds
# no kind of check clang's lacks (the same sanitizer runtime, a subset of
# its UBSan checks) and a sixth of the run's time, so it runs every test
# as `ninja test-san-gcc`, which CI runs beside `ninja test`.
TEST_VARIANTS = ("gcc", "clang", "san-clang")
THREAD_TEST_VARIANTS = TEST_VARIANTS + ("tsan",)  # tests/threads/ runs under ThreadSanitizer too
CI_TEST_VARIANT = "san"  # `ninja test-san-gcc`
# The builds the tests are compiled in: those of `ninja test`, then gcc's sanitizers'.
BUILT_TEST_VARIANTS = TEST_VARIANTS + (CI_TEST_VARIANT,)
BUILT_THREAD_TEST_VARIANTS = THREAD_TEST_VARIANTS + (CI_TEST_VARIANT,)
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
EXTRA_WORLDS = {"test_save_evolve": ["save2", "save3", "save4", "save5"], "test_rel_save": ["rel2"],
                "test_fire_sparse_evolve": ["fire2"], "test_mig_migrate": ["mig2", "mig3"]}
# Tests whose long sweep takes --shard K/N: each test variant runs its own part.
SHARDED_TESTS = ("test_fuzz_diff", "test_rel_save")
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
REPLAY_VARIANT = "san-clang"  # the build `ninja test` replays the fuzzers' corpora with
LONG_OPS = 1000000
LONG_PAR_OPS = 50000
# The differential test's large world in `ninja fuzz-long`: operations, and the entities it keeps alive.
LARGE_OPS, LARGE_AIM = 5000, 100000

# The project's own C files, as `ninja format-check` sees them (not
# generated/, build/ or the generator's golden files: the generator's
# FormatTest checks what it writes, without making format-check generate).
FORMATTED = sources("runtime/**/*.[ch]", "tests/**/*.[ch]", "examples/**/*.[ch]", "bench/**/*.[ch]", "tools/*.[ch]")
FORMATTED = [f for f in FORMATTED if not f.startswith("tests/codegen/") and "/build/" not in f]

INSTALL_SCRIPTS = ["tools/install.sh", "tools/uninstall.sh", "tools/install-common.sh"]
# What `ninja install` copies besides the libraries.
INSTALLED = ["runtime/include/strata.h", "tools/strata-gen.in", "tools/strata.pc.in",
             "runtime/include/strata_inspect.h", "tools/strata-inspect.pc.in",
             "runtime/include/strata_live.h", "tools/strata-live.pc.in",
             "schema/strata.schema.json"] + sources(
    "codegen/*.py", "codegen/templates/*.j2", "tools/cmake/*")


# What each edge needs installed: tools/deps.sh checks (and, as root,
# installs) one group of packages at a time, touching build/deps/<group>.stamp,
# and an edge waits for the stamps of the groups it needs. So a target checks
# only what it builds: `ninja demo` a C compiler, Python with Jinja2 and PyYAML,
# and libpng. Every edge needs "core"; a clang variant "clang"; a C file
# whatever its #includes name (SOURCE_NEEDS); a Python test module whatever
# program it runs besides the compilers (COMMAND_NEEDS); the other edges say theirs.
SOURCE_NEEDS = {"png.h": "png", "SDL.h": "sdl2", "yajl/": "yajl", "civetweb.h": "civetweb", "cmocka.h": "cmocka",
                "xxhash.h": "xxhash"}
COMMAND_NEEDS = {"clang-format": "format"}


def source_needs(src):
    """The groups a C file's system #includes need (none for a file not written yet)."""
    path = os.path.join(ROOT, src)
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        included = re.findall(r"(?m)^#\s*include\s*<([^>]+)>", f.read())
    return sorted({g for header, g in SOURCE_NEEDS.items() for i in included if i.startswith(header)})


def command_needs(module):
    """The groups of the programs a Python test module runs (a command's first word, `["clang-format", ...`)."""
    with open(os.path.join(ROOT, module), encoding="utf-8") as f:
        text = f.read()
    return sorted({g for command, g in COMMAND_NEEDS.items() if re.search(rf'\[\s*"{re.escape(command)}"', text)})


def stamps(*groups):
    """The deps stamps of these groups, each once."""
    return [f"build/deps/{g}.stamp" for g in sorted(set(groups))]


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


# Python keeps its compiled modules under build/pycache (never beside the
# sources), even where the environment asks it not to write any: the
# generator runs hundreds of times in a test run, a fifth faster so. The
# generator's edges run in this environment; tools/run-test.sh sets the same
# for the tests.
PYTHON_ENV = "env PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=build/pycache"


# --- The rules ------------------------------------------------------------------

def rules(n):
    # One at a time (apt-get takes a lock), in the console: it may install.
    n.rule("deps", "sh tools/deps.sh --stamp $out $group", "DEPS $group", pool="console")
    n.rule("gen", f"{PYTHON_ENV} $python -m codegen $in -o $outdir --depfile $depfile",
           "GEN $in", depfile="$depfile", deps="gcc", restat="1")
    n.rule("gen_worlds", f"{PYTHON_ENV} $python tools/gen-worlds.py $depfile $out $pairs",
           "GEN the worlds of build/gen", depfile="$depfile", deps="gcc", restat="1")
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
    # The Python test modules take at most two of ninja's jobs, so that the
    # C builds (and the tests waiting on them) go on beside them.
    n.line("pool python_tests")
    n.variable("depth", "2", 1)
    n.line()
    n.rule("summary", "sh tools/test-summary.sh $in", "SUMMARY", pool="console")
    n.rule("run", "$cmd", "RUN $cmd", pool="console")
    # The fuzzers run for a time, not an amount of work: one at a time, so
    # that beside the tests (CI's `ninja test fuzz`) they take one job, not all.
    n.line("pool fuzz")
    n.variable("depth", "1", 1)
    n.line()
    n.rule("fuzz", "sh tools/fuzz.sh $seconds $target $in", "FUZZ $target for $seconds s", pool="fuzz")
    n.rule("embed", f"{PYTHON_ENV} $python runtime/inspect/embed.py $out $in", "EMBED $out", restat="1")
    n.rule("install_files", "sh tools/install.sh $in", "INSTALL Strata", pool="console")
    n.rule("uninstall_files", "sh tools/uninstall.sh", "UNINSTALL Strata", pool="console")
    n.line()


# --- The kinds of edge ------------------------------------------------------------

class Build:
    """The edges written so far, and helpers that write one kind each."""

    def __init__(self, n):
        self.n = n
        self.codegen = sources("codegen/*.py", "codegen/templates/*.j2")
        self.objects = set()          # the objects and generated headers written so far
        self.all = []                 # what `ninja all` builds besides the worlds
        self.tests = {}               # test stamp -> the variant it belongs to (None: no compiler)
        self.libs = {}                # variant -> libstrata.a
        self.json_libs = {}           # variant -> libstrata_json.a
        self.batch = []               # (schema, outdir, outputs) of the worlds generated under build/gen/
        self.batch_at = None          # where in the file their one edge goes (the first such world's place)

    def generate(self, schema, outdir):
        """schema -> (outdir/<world>.h, outdir/<world>.c), with the schedule
        beside them. The examples' worlds (generated/) have an edge each;
        those of the tests and benches (build/gen/) are made by one process
        (tools/gen-worlds.py, written by write_batch): starting Python and
        the generator is most of a world's time."""
        world = world_of(schema)
        h, c = f"{outdir}/{world}.h", f"{outdir}/{world}.c"
        if h in self.objects:
            return h, c
        self.objects.add(h)
        schedule = [f"{outdir}/{world}_schedule.txt", f"{outdir}/{world}_schedule.dot"]
        if outdir.startswith("build/gen"):
            if self.batch_at is None:
                self.batch_at = len(self.n.lines)
            self.batch.append((schema, outdir, [h, c] + schedule))
            return h, c
        self.n.build(h, "gen", inputs=schema, implicit_outputs=[c] + schedule, implicit=self.codegen,
                     order_only=stamps("core"), variables={"outdir": outdir, "depfile": f"{h}.d"})
        return h, c

    def write_batch(self):
        """The edge that generates every world of build/gen/, in the place of the first asked for."""
        outputs = [f for _, _, files in self.batch for f in files]
        edge = Writer()
        edge.build(outputs[0], "gen_worlds", inputs=[schema for schema, _, _ in self.batch],
                   implicit_outputs=outputs[1:], implicit=self.codegen + ["tools/gen-worlds.py"],
                   order_only=stamps("core"),
                   variables={"depfile": "build/gen/worlds.d",
                              "pairs": " ".join(f"{schema} {outdir}" for schema, outdir, _ in self.batch)})
        self.n.lines[self.batch_at:self.batch_at] = edge.lines

    def compile(self, build, src, headers=(), extra="", objdir=None):
        """One object file, written once however many programs link it."""
        o = obj(objdir or build, src)
        if o not in self.objects:
            self.objects.add(o)
            compiler = "gcc" if build == "sdl" else VARIANTS[build][0]
            groups = ["core"] + source_needs(src) + (["clang"] if compiler == "clang" else [])
            extra = f"{extra} {driver_flags(build, src)}".strip()
            self.n.build(o, f"cc_{build}", inputs=src, order_only=stamps(*groups) + list(headers),
                         variables={"extra": extra} if extra else None)
        return o

    def library(self, v, name, srcs, extra=""):
        lib = f"build/{v}/{name}"
        self.n.build(lib, "ar", inputs=[self.compile(v, s, extra=extra) for s in srcs])
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

    def test(self, stamp, cmd, variant=None, inputs=(), implicit=(), needs=(), pool=""):
        """Run cmd once the groups it needs are checked; stamp (and stamp.log) when it passes."""
        self.tests[stamp] = variant
        self.n.build(stamp, "test", inputs=inputs, implicit=implicit, order_only=stamps("core", *needs),
                     implicit_outputs=f"{stamp}.log", variables={"cmd": cmd, "pool": pool})

    def test_program(self, v, name, srcs, headers=(), libs="", archives=(), extra="", args=""):
        """A cmocka program of variant v, run with args by `ninja test`."""
        exe = self.program(v, f"tests/{name}", srcs + [TEST_FILTER], headers, f"-lcmocka {libs}".strip(),
                           archives, extra=extra)
        self.test(f"{exe}.ok", f"{exe} {args}".strip(), variant=v, inputs=exe)

    def run(self, target, cmd, inputs=(), implicit=(), order_only=(), needs=()):
        self.n.build(target, "run", inputs=inputs, implicit=implicit, order_only=stamps(*needs) + list(order_only),
                     variables={"cmd": cmd})

    def summary(self, target, stamps):
        out = f"build/{target}-summary"
        self.n.build(out, "summary", inputs=[f"{s}.log" for s in stamps], implicit=stamps)
        self.n.build(target, "phony", inputs=out)


def shard_of(v, variants):
    """--shard K/N for variant v: its part of a stream the variants of `ninja
    test` cover between them; `ninja test-san-gcc` runs one more part, of a
    split in N + 1 (seeds of its own)."""
    if v in variants:
        return f"--shard {variants.index(v)}/{len(variants)}"
    return f"--shard {len(variants)}/{len(variants) + 1}"


def bench_smoke(b):
    """`ninja test` runs every case of the bench once at a tiny size under
    ASan+UBSan (strata-bench --smoke, linked with the san-clang runtime), and
    report.py reads what it wrote."""
    worlds = [b.generate(s, "build/gen") for s in sources("bench/*.yaml")]
    srcs = [s for s in sources("bench/*.c") if s != "bench/vectorize.c"] + [c for _, c in worlds]
    objs = [b.compile("san-clang", s, headers=[h for h, _ in worlds], extra="-iquote build/gen",
                      objdir="san-clang/bench") for s in srcs]
    exe = "build/san-clang/strata-bench"
    b.n.build(exe, "link_san-clang", inputs=objs + [b.libs["san-clang"]], variables={"libs": "-lm"})
    out = "build/san-clang/bench-smoke"
    # A name a case keeps pointing at after its frame is gone is only caught
    # with ASan's fake stack (detect_stack_use_after_return).
    b.test(f"{out}.ok", f"sh -c 'ASAN_OPTIONS=detect_stack_use_after_return=1 {exe} --smoke --json {out}.json"
           f" && $python bench/report.py {out}.json {out}-no-bitecs.json {out}.svg'",
           variant="san-clang", inputs=exe, implicit="bench/report.py")


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
          implicit=["bench/report.py"] + sources("bench/js/*"), needs=["node"])
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
INSPECT_VARIANTS = BUILT_TEST_VARIANTS + ("release",)
INSPECT_PORT = 27750  # `ninja inspect`


def inspector_lib(b, v):
    """libstrata_inspect of variant v (its page compiled in, embedded once)."""
    page = "build/gen/inspect_page.c"
    if page not in b.objects:
        b.objects.add(page)
        b.n.build(page, "embed", inputs=INSPECT_PAGE, implicit="runtime/inspect/embed.py")
    return b.library(v, "libstrata_inspect.a", INSPECT_SOURCES + [page], extra="-Iruntime/inspect")


def inspector(b, generated, libs):
    """The inspector's tests, swarm-inspect and `ninja inspect`; returns the
    program `ninja bench` runs for its cost a step."""
    n = b.n
    h, c = b.generate("tests/inspect/inspect.yaml", "build/gen")
    for v in BUILT_TEST_VARIANTS:
        # With the JSON loader: the page's writes and a load read values by one codec.
        b.test_program(v, "test_inspect", ["tests/inspect/test_inspect.c", c], headers=[h],
                       libs=f"{INSPECT_LIBS} {JSON_LIBS}", archives=[libs[v], b.json_libs[v]])
    # The test world as a running game (for the browser test) and its cost a step (for the bench).
    game = b.program("release", "inspect-game", ["tests/inspect/game.c", c], headers=[h], libs=INSPECT_LIBS,
                     archives=[libs["release"]])
    cost = b.program("release", "inspect-bench", ["tests/inspect/bench_inspect.c", c], headers=[h],
                     libs=INSPECT_LIBS, archives=[libs["release"]])
    def with_inspector(example, files):
        """build/gcc/<example>-inspect: the example built with -D<EXAMPLE>_INSPECT (its --inspect PORT)."""
        h, c = generated[example]
        flags = f"-Ibuild/gen -Iexamples/common -D{example.upper()}_INSPECT"
        srcs = files + PNG + ["examples/common/stop.c", c]
        objs = [b.compile("gcc", s, headers=[h], extra=flags, objdir="gcc/inspect") for s in srcs]
        exe = f"build/gcc/{example}-inspect"
        n.build(exe, "link_gcc", inputs=objs + [libs["gcc"], b.libs["gcc"]],
                variables={"libs": f"{INSPECT_LIBS} -lpng -lm"})
        b.all.append(exe)
        return exe

    exe = with_inspector("swarm", sources("examples/swarm/*.c") + COMMON)
    orbits = with_inspector("orbits", sources("examples/orbits/*.c") + COMMON)  # a labelled hierarchy
    rect = with_inspector("rectangle_eater", GAME + ["examples/rectangle_eater/demo.c"])  # events
    # Through tools/console-run.py: a SIGTERM to ninja stops the server too.
    b.run("inspect", f"$python tools/console-run.py {exe} --count 20000 --inspect {INSPECT_PORT}", inputs=exe,
          implicit="tools/console-run.py")
    # The programs stop on a signal, on their parent's death, and with ninja.
    b.test("build/inspect-stop.ok", f"$python tests/inspect/test_stop.py {exe} {game} {orbits} {rect}",
           inputs=[exe, game, orbits, rect],
           implicit=["tests/inspect/test_stop.py", "tools/console-run.py"])
    # The page in a real browser: chromium driven by playwright-core. The
    # test's screenshot goes to build/; `ninja inspect-screenshot` takes the docs' one.
    browser = sources("tests/inspect/*.mjs")
    b.test("build/inspect-browser.ok",
           f"node tests/inspect/browser.mjs {exe} {game} build/inspect/inspector.png {orbits} {rect}",
           inputs=[exe, game, orbits, rect], implicit=browser, needs=["browser"])
    b.run("inspect-screenshot", f"node tests/inspect/browser.mjs {exe} {game} docs/inspector.png {orbits} {rect}",
          inputs=[exe, game, orbits, rect], implicit=browser, needs=["browser"])
    return cost


# --- Live reload -------------------------------------------------------------------------

# libstrata_live: runtime/live/*.c (inotify, dlopen, a watching thread); its
# header is runtime/include/strata_live.h. A host links it and the runtime
# whole, exported for the modules it loads (docs/live.md).
LIVE_SOURCES = sources("runtime/live/*.c")
LIVE_VARIANTS = BUILT_THREAD_TEST_VARIANTS + ("release",)
LIVE_LIBS = "-ldl -lpthread"


def whole(runtime):
    """Link flags for a host: the whole runtime archive, exported for a module to use."""
    return f"-Wl,--whole-archive {runtime} -Wl,--no-whole-archive -rdynamic"


def live_host(b, v, name, srcs, live_lib, libs="", extra="", default=True, archives=()):
    """A program that loads modules: srcs compiled with variant v, linked with
    `archives`, libstrata_live and the whole runtime of v (the gcc one for "sdl")."""
    objs = [b.compile(v, s, extra=f"-Iexamples/common {extra}".strip()) for s in srcs]
    runtime = b.libs["gcc" if v == "sdl" else v]
    exe = f"build/{v}/{name}"
    b.n.build(exe, f"link_{v}", inputs=objs + list(archives) + [live_lib], implicit=runtime,
              variables={"libs": f"{whole(runtime)} {libs} {LIVE_LIBS} -lm".strip()})
    if default:
        b.all.append(exe)
    return exe


# Rectangle Eater on the live loop (examples/rectangle_eater/live/): the
# module is built by the host as it runs; its sources are the game's.
RECT_LIVE = ["examples/rectangle_eater/live/host.c", "examples/common/live_build.c",
             "examples/common/text_file.c"] + COMMON
RECT_LIVE_FLAGS = "-Iexamples/rectangle_eater -Iexamples/rectangle_eater/live"


def live(b, inspect_libs):
    """libstrata_live in each variant and its test (tests/live/: a module
    built, edited and reloaded as the test runs), Rectangle Eater's live
    hosts, `ninja live` and `ninja live-demo`; returns the libraries."""
    libs = {v: b.library(v, "libstrata_live.a", LIVE_SOURCES) for v in LIVE_VARIANTS}
    module = sources("tests/live/*")
    for v in BUILT_THREAD_TEST_VARIANTS:
        exe = live_host(b, v, "tests/test_live", ["tests/live/test_live.c", "examples/common/text_file.c", TEST_FILTER],
                        libs[v], libs="-lcmocka",
                        extra="-Itests/live", default=False)
        b.all.append(exe)
        b.test(f"{exe}.ok", f"{exe} build/{v}/live-test", variant=v, inputs=exe, implicit=module + b.codegen)
    demo = live_host(b, "gcc", "rectangle_eater_live_demo", ["examples/rectangle_eater/live/demo.c"] + RECT_LIVE,
                     libs["gcc"], extra=RECT_LIVE_FLAGS)
    b.run("live-demo", demo, inputs=demo, needs=["core"])
    # ninja test runs the demo too: the same program, its module built in a folder of its own.
    demo_inputs = sources("examples/rectangle_eater/*.[ch]", "examples/rectangle_eater/live/*.[ch]",
                          "examples/common/*.[ch]", "runtime/include/*.h") + ["schema/rectangle_eater.yaml"]
    b.test(f"{demo}.ok", f"{demo} --dir build/gcc/live-demo", variant="gcc", inputs=demo,
           implicit=demo_inputs + b.codegen)
    window = live_host(b, "sdl", "rectangle_eater_live", ["examples/rectangle_eater/live/window.c"] + RECT_LIVE,
                       libs["gcc"], libs=INSPECT_LIBS, extra=RECT_LIVE_FLAGS, default=False,
                       archives=[inspect_libs["gcc"]])
    b.run("live", window, inputs=window, needs=["core"])
    # The swarm on the live loop, and the speed of reloads (run after `ninja bench`'s suite).
    swarm_host = ["examples/swarm/live/host.c", "examples/common/live_build.c"]
    swarm = live_host(b, "gcc", "swarm_live", ["examples/swarm/live/main.c"] + swarm_host, libs["gcc"],
                      extra="-Iexamples/swarm/live")
    b.run("swarm-live", f"{swarm} --threads $${{THREADS:-1}}", inputs=swarm, needs=["core"])
    bench_exe = live_host(b, "gcc", "live-bench", ["bench/live/live_bench.c"] + RECT_LIVE + swarm_host[:1], libs["gcc"],
                          extra=f"-Iexamples {RECT_LIVE_FLAGS} -Iexamples/swarm/live")
    return libs, bench_exe


# --- The tutorial and the docs' examples ----------------------------------------------

# docs/tutorial.md's steps, examples/tutorial/<N>-<name>/: each a program that
# checks itself. A step is its own *.c files and the files of the steps before
# it but their main.c, over its own pond.yaml or the latest earlier one.
TUTORIAL_VARIANTS = BUILT_TEST_VARIANTS
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
            # The inspector's step links civetweb.
            b.n.build(exe, f"link_{v}", inputs=objs + archives + [b.libs[v]],
                      order_only=stamps("civetweb") if inspect else (),
                      variables={"libs": INSPECT_LIBS if inspect else ""})
            b.test(f"{exe}.ok", f"{exe} {TUTORIAL_ARGS.get(step, '').format(v=v)}".strip(), variant=v, inputs=exe)
            if v == QUICK_VARIANT:
                b.all.append(exe)
                shown.append(f"{exe}.ok")  # docs/tutorial.md shows what it printed
        shared += [s for s in own if not s.endswith("/main.c")]
    # The docs' C examples are compiled with gcc and clang.
    python_tests(b, "docs", b.codegen + sources("tests/docs/*", "README.md", "docs/*.md", "schema/*.yaml",
                                                "examples/tutorial/**/*", "tests/outside/*.yaml",
                                                "runtime/include/*.h") + shown, needs=["clang"])


# --- The edges ----------------------------------------------------------------------

def deps_groups():
    """The groups tools/deps.sh checks, as its GROUPS line lists them."""
    with open(os.path.join(ROOT, "tools/deps.sh"), encoding="utf-8") as f:
        return re.search(r'(?m)^GROUPS="([^"]*)"', f.read()).group(1).split()


def python_tests(b, directory, implicit, needs):
    """One edge a test module of tests/<directory>/, so that they run beside each
    other and the C builds; each reruns when any of `implicit` (named once, by
    the phony <directory>-test-inputs) changes."""
    inputs = f"{directory}-test-inputs"
    b.n.build(inputs, "phony", inputs=implicit)
    for module in sources(f"tests/{directory}/test_*.py"):
        name = stem(module)
        b.test(f"build/tests/{directory}/{name}.ok", f"$python -m unittest tests.{directory}.{name}",
               implicit=inputs, needs=list(needs) + command_needs(module), pool="python_tests")


def main(argv):
    n = Writer()
    n.comment("Generated by configure.py; edit that, then run `python3 configure.py`.")
    n.comment("Targets: all (default), test, test-quick, test-san-gcc, demo, play, swarm, particles, rollback-demo, rollback-play, bench,")
    n.comment("bench-js, bench-o3, bench-vec, bench-profile, generate, format-check, install, uninstall, fuzz, fuzz-long,")
    n.comment("inspect, inspect-screenshot, live, live-demo, swarm-live.")
    n.comment("install and uninstall read PREFIX (default /usr/local) and DESTDIR.")
    n.comment("Ninja starts the ready edges in the order they appear here: the long tests come first.")
    n.line()
    n.variable("ninja_required_version", "1.10")
    n.variable("python", "python3")
    n.variable("warnings", WARNINGS)
    n.variable("includes", "-Iruntime/include -Iruntime -Igenerated")
    n.line()
    rules(n)

    b = Build(n)
    for group in deps_groups():
        n.build(stamps(group)[0], "deps", implicit="tools/deps.sh", variables={"group": group})
    n.line()

    # Worlds: the examples' are committed in generated/; the tests' and the bench's live in build/gen/.
    generated = {stem(s): b.generate(s, "generated") for s in sources("schema/*.yaml")}
    test_worlds = {stem(s): b.generate(s, "build/gen") for s in sources("tests/schema/*.yaml", "tests/schema/evolve/*.yaml")}
    n.build("generate", "phony", inputs=[f for pair in generated.values() for f in pair])
    n.line()

    # The generator's tests (they compile what it writes with gcc and clang),
    # the editor's, the build tools', and the runtime's layering: one edge a module.
    python_tests(b, "codegen", b.codegen + sources("tests/codegen/*.py", "tests/codegen/bad/*", "tests/schema/*.yaml")
                 + ["generate"], needs=["clang", "xxhash"])  # (they compile the runtime: strata_unity.h)
    python_tests(b, "editor", b.codegen + sources("tests/editor/*.py", "tests/editor/broken/*", "schema/*.yaml")
                 + INSTALL_SCRIPTS + INSTALLED, needs=["editor"])
    python_tests(b, "tools", sources("tests/tools/*.py", "tools/*.py", "tools/*.sh", "configure.py", "bench/report.py",
                                     "README.md"), needs=[])
    b.test("build/layers.ok", "$python tools/check-layers.py runtime",
           implicit=["tools/check-layers.py"] + RUNTIME_FILES + sources(LAYERS))
    n.line()

    # The runtime: libstrata and libstrata_json, in every variant (first
    # those the longest tests wait for), and libstrata_inspect.
    inspect_libs = {}
    for v in sorted(LIBRARY_VARIANTS, key=BUILD_ORDER.index):
        b.libs[v] = b.library(v, "libstrata.a", RUNTIME_SOURCES)
        b.json_libs[v] = b.library(v, "libstrata_json.a", JSON_SOURCES)
        if v in INSPECT_VARIANTS:
            inspect_libs[v] = inspector_lib(b, v)
    n.build("libs", "phony", inputs=[b.libs["debug"], b.libs["release"], b.json_libs["release"]])
    n.line()

    # libFuzzer targets: `ninja fuzz` runs each from its checked-in corpus
    # (tests/fuzz/corpus/<target>/), keeping what it finds under build/fuzz/;
    # beside the tests when asked with them (`ninja test fuzz`, as CI does).
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
        # The output is never written, so each `ninja fuzz` fuzzes again.
        n.build(f"build/fuzz/{target}.run", "fuzz", inputs=fuzzers[target], implicit="tools/fuzz.sh",
                variables={"seconds": str(FUZZ_SECONDS[target]), "target": target})
    n.build("fuzz", "phony", inputs=[f"build/fuzz/{t}.run" for t in fuzzers])
    # `ninja test` runs each target once over its checked-in corpus (no
    # fuzzing: seconds), so a change that breaks a found input fails there:
    # the target's source with a replaying main (tests/fuzz/replay.c) in the
    # clang sanitizer build, so the tests never wait on the coverage build.
    for number, target in enumerate(FUZZ_SECONDS, 1):
        # (model.c and the world: the same objects as the variant's test_fuzz_diff)
        # (diff.c as the target and the replaying main at -O0: a few inputs, run once;
        # model.c and the world: the same objects as the build's test_fuzz_diff)
        objs = [b.compile(REPLAY_VARIANT, src, headers=[h], objdir=f"{REPLAY_VARIANT}/replay/{target}",
                          extra=f"-Ibuild/gen -DFUZZ_LIBFUZZER={number} -O0")
                for src in ["tests/fuzz/diff.c", "tests/fuzz/replay.c"]]
        objs += [b.compile(REPLAY_VARIANT, s, headers=[h], extra="-Ibuild/gen -Iexamples/common")
                 for s in ["tests/fuzz/model.c", c]]
        exe = f"build/{REPLAY_VARIANT}/fuzz-replay-{target}"
        n.build(exe, f"link_{REPLAY_VARIANT}", inputs=objs + [b.json_libs[REPLAY_VARIANT], b.libs[REPLAY_VARIANT]],
                variables={"libs": JSON_LIBS})
        b.test(f"build/fuzz/{target}-corpus.ok", f"{exe} tests/fuzz/corpus/{target}/*", variant=REPLAY_VARIANT,
               inputs=exe, implicit=sources(f"tests/fuzz/corpus/{target}/*"))
    n.line()

    # The differential test against the reference model, and its
    # allocation-failure sweep: the longest test of each build, so its
    # edges come first. A stream of random operations is cut in one shard a
    # variant (--shard K/N), so the variants together cover it once each
    # instead of three times the same.
    for v in sorted(BUILT_TEST_VARIANTS, key=BUILD_ORDER.index):
        h, c = test_worlds["fuzz"]
        b.test_program(v, "test_fuzz_diff", ["tests/fuzz/diff.c", "tests/fuzz/model.c", c], headers=[h],
                       libs=JSON_LIBS, archives=[b.json_libs[v]], args=shard_of(v, TEST_VARIANTS))
    live_libs, live_bench = live(b, inspect_libs)
    # A game outside the tree, built with CMake (with the installed package
    # and without), Meson, Make and Ninja against an install.
    b.test("build/outside-tests.ok", "$python tests/outside/test_outside.py",
           implicit=[b.libs["release"], b.libs["debug"], b.json_libs["release"], inspect_libs["release"],
                     live_libs["release"], "docs/using.md", "README.md"] + INSTALL_SCRIPTS + INSTALLED + sources("tests/outside/**/*"), needs=["outside"])
    inspect_bench = inspector(b, generated, inspect_libs)
    tutorial_and_docs(b, inspect_libs)
    # The threaded step: its own world, and the examples' at several thread counts;
    # the differential test of split systems at 1, 2, 3, 4 and 8 threads, each
    # variant with seeds of its own (--shard K/N).
    thr_h, thr_c = b.generate("tests/threads/threads.yaml", "build/gen")
    tev_h, tev_c = b.generate("tests/threads/thread_events.yaml", "build/gen")
    tlp_h, tlp_c = b.generate("tests/threads/thread_loop.yaml", "build/gen")
    tsp_h, tsp_c = b.generate("tests/threads/threads_sparse.yaml", "build/gen")
    for v in sorted(BUILT_THREAD_TEST_VARIANTS, key=BUILD_ORDER.index):
        h, c = test_worlds["fuzz_par"]
        b.test_program(v, "test_fuzz_par", ["tests/fuzz/par.c", c], headers=[h],
                       args=shard_of(v, THREAD_TEST_VARIANTS))
        b.test_program(v, "test_threads", ["tests/threads/test_threads.c", thr_c], headers=[thr_h],
                       libs=JSON_LIBS, archives=[b.json_libs[v]])
        # Events and tracked writes from split systems and shared batches.
        b.test_program(v, "test_thread_events", ["tests/threads/test_thread_events.c", tev_c], headers=[tev_h],
                       libs=JSON_LIBS, archives=[b.json_libs[v]])
        # The game loop: fixed phases, gates and transitions on the threads.
        b.test_program(v, "test_thread_loop", ["tests/threads/test_thread_loop.c", tlp_c], headers=[tlp_h])
        # Sparse components added, removed, filtered and written from split systems.
        b.test_program(v, "test_threads_sparse", ["tests/threads/test_threads_sparse.c", tsp_c], headers=[tsp_h])
        worlds = [generated["rectangle_eater"], generated["swarm"]]
        b.test_program(v, "test_threads_examples",
                       ["tests/threads/test_threads_examples.c", "examples/swarm/systems.c"] + GAME
                       + [c for _, c in worlds], headers=[h for h, _ in worlds], libs="-lm",
                       extra="-Iexamples/rectangle_eater -Iexamples/swarm")
    # The snapshots' tests step at 1 to 8 threads: under ThreadSanitizer as well.
    h, c = test_worlds["snap"]
    b.test_program("tsan", "test_snap", ["tests/worlds/test_snap.c", c], headers=[h])
    # The rollback demo converges, and catches a desync (its program: the examples, below).
    b.test("build/gcc/rollback-demo.ok", "sh tests/examples/rollback_demo.sh build/gcc/rollback_demo", variant="gcc",
           implicit=["build/gcc/rollback_demo", "tests/examples/rollback_demo.sh"])
    # The tests: each file a program, in each compiler variant (the sharded
    # ones with their part of the stream, shard_of).
    for v in sorted(BUILT_TEST_VARIANTS, key=BUILD_ORDER.index):
        for src in sources("tests/worlds/test_*.c"):
            worlds = [stem(src)[len("test_"):].split("_")[0]] + EXTRA_WORLDS.get(stem(src), [])
            b.test_program(v, stem(src), [src] + [test_worlds[w][1] for w in worlds],
                           headers=[test_worlds[w][0] for w in worlds], libs=JSON_LIBS, archives=[b.json_libs[v]],
                           args=shard_of(v, TEST_VARIANTS) if stem(src) in SHARDED_TESTS else "")
        # Linked with libstrata of the variant, unless the file includes the runtime itself (strata_unity.h).
        for src in sources("tests/runtime/test_*.c"):
            b.test_program(v, stem(src), [src])
        # The examples' own tests: the game's rules, determinism, the autopilot.
        for src in sources("tests/examples/test_*.c"):
            example = stem(src)[len("test_"):]
            h, c = generated[example]
            b.test_program(v, stem(src), [src, c] + EXAMPLE_TEST_SOURCES.get(example, []), headers=[h],
                           libs="-lm", extra=f"-Iexamples/{example}")
    # The demo (built with the examples, below) fed frames of 1/60, 1/30, 1/144 s
    # and a random mix, all summing to the same time, ends in one state.
    demo = "build/gcc/rectangle_eater"
    b.test("build/demo-frames.ok", f"$python tests/examples/test_demo_frames.py {demo}", variant="gcc",
           inputs=demo, implicit=["tests/examples/test_demo_frames.py"])
    bench_smoke(b)
    b.summary("test", [s for s, v in b.tests.items() if v != CI_TEST_VARIANT])
    b.summary("test-san-gcc", [s for s, v in b.tests.items() if v == CI_TEST_VARIANT])
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
    bench(b, then=[save_bench, inspect_bench, live_bench])
    long_exe, par_exe = "build/san-clang/tests/test_fuzz_diff", "build/san-clang/tests/test_fuzz_par"
    b.run("fuzz-long", f"{long_exe} --ops {LONG_OPS} --seed 20240601 && "
          f"{long_exe} --large --ops {LARGE_OPS} --aim {LARGE_AIM} --seed 20240601 && "
          f"{par_exe} --ops {LONG_PAR_OPS} --seed 20240601",
          inputs=[long_exe, par_exe])
    n.line()

    # clang-format over the project's own C files, changing nothing (.clang-format says how).
    b.run("format-check", "clang-format --dry-run --Werror " + " ".join(FORMATTED),
          implicit=[".clang-format"] + FORMATTED, needs=["format"])
    n.build("all", "phony", inputs=["generate", "libs"] + b.all)
    # `install` and `uninstall` name no file, so they run every time asked.
    n.build("install", "install_files", inputs=[b.libs["release"], b.libs["debug"], b.json_libs["release"],
                                                inspect_libs["release"], live_libs["release"]],
            implicit=INSTALL_SCRIPTS + INSTALLED)
    n.build("uninstall", "uninstall_files", implicit=INSTALL_SCRIPTS)
    n.line()
    n.line("default all")
    b.write_batch()

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

#!/usr/bin/env python3
"""Write build.ninja: the whole build of Strata, generated so that it stays
readable as tests and examples are added. Run it after adding a source file,
a test or a schema; the result is committed.

    python3 configure.py          # writes build.ninja
    python3 configure.py --check  # exit 1 if build.ninja is not what it would write
"""
import glob
import os
import sys

import yaml

ROOT = os.path.dirname(os.path.abspath(__file__))

WARNINGS = "-Wall -Wextra -Wpedantic -Werror"
# The compilers every C file is built with, and how.
VARIANTS = {
    "gcc": ("gcc", "-O2 -g"),
    "clang": ("clang", "-O2 -g"),
    # gcc's sanitizers ship with gcc itself; clang's need an extra package.
    "san": ("gcc", "-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"),
}
# The libFuzzer targets (ninja fuzz): everything they link is instrumented
# for coverage; only the final link brings in libFuzzer's main.
FUZZ_FLAGS = "-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
# How long `ninja fuzz` runs each target (seconds), and `ninja fuzz-long`'s operations.
FUZZ_SECONDS = {"diff": 60, "load_bin": 30, "load_json": 30}
LONG_OPS = 1000000


class Writer:
    """A minimal Ninja file writer (the subset this build uses)."""

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
            self.variable(k, v, 1)

    def text(self):
        return "\n".join(self.lines) + "\n"


def _list(x):
    return [x] if isinstance(x, str) else list(x)


def sources(pattern):
    return sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, pattern)))


# The JSON loader needs jansson, so it has an archive of its own: a game that
# never loads JSON links neither it nor jansson.
JSON_SOURCES = ("runtime/save/json_read.c",)
JSON_LIBS = "-ljansson"
# World tests that link more worlds than the one their name gives
# (tests/worlds/test_<world>_x.c uses tests/schema/<world>.yaml).
EXTRA_WORLDS = {"test_save_evolve": ["save2", "save3", "save4"]}


def world_of(schema_path):
    """The `world:` of a schema: the stem of its generated files."""
    with open(os.path.join(ROOT, schema_path), encoding="utf-8") as f:
        return yaml.safe_load(f)["world"]


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


# The bench is a release build: gcc at -O2 with asserts off (STRATA_ASSERT is
# on in debug builds only), over its own copy of the runtime so the tests'
# builds keep theirs. The -O3 copy is for `ninja bench-o3` only.
BENCH_BUILDS = {"bench": "-O2 -g -DNDEBUG", "bench-o3": "-O3 -g -DNDEBUG"}
# The bitECS release `ninja bench-js` installs from npm and runs beside Strata.
BENCH_JS_PACKAGE = "bitecs@0.4.0"


def bench(n, generate, runtime_c, deps, then=()):
    """The bench's edges: its worlds (bench/*.yaml into build/gen/), its
    program (bench/*.c but vectorize.c) at -O2 and -O3, and the phony targets
    that run them; `bench` runs the programs in `then` after the suite.
    Returns the -O2 program's path (part of `all`)."""
    worlds = [generate(s, "build/gen") for s in sources("bench/*.yaml")]
    headers = [h for h, _ in worlds]
    programs = {}
    for build, flags in BENCH_BUILDS.items():
        rule = build.replace("-", "_")
        n.rule(f"cc_{rule}", f"gcc -std=c11 $warnings {flags} $includes -Ibuild/gen -MMD -MF $out.d -c $in -o $out",
               f"CC[{build}] $in", depfile="$out.d", deps="gcc")
        n.rule(f"link_{rule}", f"gcc {flags} -o $out $in", f"LINK[{build}] $out")
        objs = []
        for src in runtime_c + sources("bench/*.c") + [c for _, c in worlds]:
            if src == "bench/vectorize.c":
                continue
            obj = f"build/{build}/obj/{src[:-2]}.o"
            n.build(obj, f"cc_{rule}", inputs=[src], order_only=[deps, *headers])
            objs.append(obj)
        programs[build] = f"build/{build}/strata-bench"
        n.build(programs[build], f"link_{rule}", inputs=objs)
    # One structural operation alone, for perf and callgrind (not run here).
    profile_obj = "build/bench/obj/bench/profile/structural.o"
    n.build(profile_obj, "cc_bench", inputs=["bench/profile/structural.c"], order_only=[deps, *headers])
    runtime_objs = [f"build/bench/obj/{src[:-2]}.o" for src in runtime_c]
    n.build("build/bench/profile-structural", "link_bench",
            inputs=[profile_obj, "build/bench/obj/build/gen/move.o"] + runtime_objs)
    n.build("bench-profile", "phony", inputs=["build/bench/profile-structural"])
    # `bench` prints the table as it runs, then report.py adds the bitECS
    # side-by-side (when `ninja bench-js` has left its results) and the chart.
    results, js_results = "build/bench/results.json", "build/bench-js/results.json"
    report = f"$python bench/report.py {results} {js_results} build/bench/chart.svg"
    n.build("bench", "run", inputs=[programs["bench"], *then], implicit=["bench/report.py"], variables={
        "cmd": " && ".join([f"{programs['bench']} --json {results}", report, *then])})
    # The network is used here only, never by `test` or the default build.
    n.build("bench-js", "run", implicit=["bench/report.py"] + sources("bench/js/*"), variables={
        "cmd": f"sh bench/js/run.sh {BENCH_JS_PACKAGE} {js_results} && {report}"})
    # What -O3 does to the iteration rows (DESIGN section 7 is at -O2).
    n.build("bench-o3", "run", inputs=[programs["bench-o3"]], variables={
        "cmd": f"{programs['bench-o3']} --json build/bench-o3/results.json move packed_5"})
    # gcc's own report on which loops vectorize, at -O2, -O2 with the dynamic
    # cost model, and -O3.
    n.build("bench-vec", "run", implicit=["bench/vectorize.sh", "bench/vectorize.c"], order_only=headers,
            variables={"cmd": "sh bench/vectorize.sh"})
    return programs["bench"]


def main(argv):
    n = Writer()
    n.comment("Generated by configure.py; edit that, then run `python3 configure.py`.")
    n.comment("Targets: all (default), test, demo, play, swarm, particles, bench, bench-js, bench-o3, bench-vec,")
    n.comment("bench-profile, generate, install, uninstall, fuzz, fuzz-long. install and uninstall read PREFIX")
    n.comment("(default /usr/local) and DESTDIR.")
    n.line()
    n.variable("ninja_required_version", "1.10")
    n.variable("python", "python3")
    n.variable("warnings", WARNINGS)
    n.variable("includes", "-Iruntime/include -Iruntime -Igenerated")
    n.line()

    n.rule("deps", "sh tools/deps.sh $flags $out", "DEPS checking build dependencies")
    n.rule("gen", "$python -m codegen $in -o $outdir --depfile $depfile",
           "GEN $in", depfile="$depfile", deps="gcc", restat="1")
    for v, (cc, flags) in VARIANTS.items():
        n.rule(f"cc_{v}", f"{cc} -std=c11 $warnings {flags} $includes $extra -MMD -MF $out.d -c $in -o $out",
               f"CC[{v}] $in", depfile="$out.d", deps="gcc")
        n.rule(f"link_{v}", f"{cc} {flags} -o $out $in $libs", f"LINK[{v}] $out")
    n.rule("cc_fuzz", f"clang -std=c11 $warnings {FUZZ_FLAGS} -fsanitize=fuzzer-no-link $includes $extra "
           "-MMD -MF $out.d -c $in -o $out", "CC[fuzz] $in", depfile="$out.d", deps="gcc")
    n.rule("link_fuzz", f"clang {FUZZ_FLAGS} -fsanitize=fuzzer -o $out $in $libs", "LINK[fuzz] $out")
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

    deps = "build/deps.stamp"
    n.build(deps, "deps", implicit=["tools/deps.sh"])
    # SDL2 is needed by `ninja play` alone: checked (and installed) only then.
    deps_sdl2 = "build/deps-sdl2.stamp"
    n.build(deps_sdl2, "deps", implicit=["tools/deps.sh"], variables={"flags": "--sdl2"})
    n.line()

    codegen_py = sources("codegen/*.py") + sources("codegen/templates/*.j2")
    install_scripts = ["tools/install.sh", "tools/uninstall.sh", "tools/install-common.sh"]
    installed = ["runtime/include/strata.h", "tools/strata-gen.in", "tools/strata.pc.in"] + codegen_py

    def generate(schema, outdir):
        world = world_of(schema)
        h, c = f"{outdir}/{world}.h", f"{outdir}/{world}.c"
        schedule = [f"{outdir}/{world}_schedule.txt", f"{outdir}/{world}_schedule.dot"]
        n.build([h], "gen", inputs=[schema], implicit_outputs=[c] + schedule, implicit=codegen_py,
                order_only=[deps], variables={"outdir": outdir, "depfile": f"{h}.d"})
        return h, c

    # The examples' worlds are committed in generated/; the tests' and the
    # bench's live in build/gen/.
    generated = {stem(s): generate(s, "generated") for s in sources("schema/*.yaml")}
    test_worlds = {stem(s): generate(s, "build/gen") for s in sources("tests/schema/*.yaml") + sources("tests/schema/evolve/*.yaml")}
    n.build("generate", "phony", inputs=[h for pair in generated.values() for h in pair])
    n.line()

    runtime_c = [src for src in sources("runtime/*.c") + sources("runtime/save/*.c") if src not in JSON_SOURCES]
    libs = {}
    json_libs = {}
    for v in list(VARIANTS) + ["fuzz"]:
        objs = []
        for src in runtime_c:
            obj = f"build/{v}/{src[:-2]}.o"
            n.build(obj, f"cc_{v}", inputs=[src], order_only=[deps])
            objs.append(obj)
        libs[v] = f"build/{v}/libstrata.a"
        n.build(libs[v], "ar", inputs=objs)
        json_objs = []
        for src in JSON_SOURCES:
            obj = f"build/{v}/{src[:-2]}.o"
            n.build(obj, f"cc_{v}", inputs=[src], order_only=[deps])
            json_objs.append(obj)
        json_libs[v] = f"build/{v}/libstrata_json.a"
        n.build(json_libs[v], "ar", inputs=json_objs)
    n.line()

    built = set()
    exes = []

    def program(v, name, c_files, gen_headers=(), libs_extra="", archives=(), default=True, includes=""):
        """Compile c_files with compiler variant v (or "sdl") and link them
        with `archives` and libstrata; default=False keeps the program out of `all`."""
        objs = []
        cc, link, lib = (f"cc_{v}", f"link_{v}", libs[v]) if v != "sdl" else ("cc_sdl", "link_sdl", libs["gcc"])
        for src in c_files:
            obj = f"build/{v}/{src[:-2]}.o"
            if obj not in built:
                built.add(obj)
                n.build(obj, cc, inputs=[src], order_only=[deps, *gen_headers] + ([deps_sdl2] if v == "sdl" else []),
                        variables={"extra": f"-Ibuild/gen -Iexamples/common {includes}".strip()})
            objs.append(obj)
        exe = f"build/{v}/{name}"
        n.build(exe, link, inputs=objs + list(archives) + [lib], variables={"libs": libs_extra})
        if default:
            exes.append(exe)
        return exe

    stamps = []
    # The game without a front end: what its tests link.
    game_sources = [f for f in sources("examples/rectangle_eater/*.c") if stem(f) not in ("demo", "play")]
    game_sources += ["examples/common/canvas.c", "examples/common/font.c"]

    def run_test(stamp, cmd, inputs=(), implicit=(), order_only=()):
        stamps.append(stamp)
        n.build(stamp, "test", inputs=inputs, implicit=implicit, order_only=order_only,
                implicit_outputs=[f"{stamp}.log"], variables={"cmd": cmd})
    for v in VARIANTS:
        for src in sources("tests/runtime/test_*.c"):
            exe = program(v, f"tests/{stem(src)}", [src], libs_extra="-lcmocka")
            run_test(f"{exe}.ok", exe, inputs=[exe])
        for src in sources("tests/worlds/test_*.c"):
            worlds = [stem(src)[len("test_"):].split("_")[0]] + EXTRA_WORLDS.get(stem(src), [])
            exe = program(v, f"tests/{stem(src)}", [src] + [test_worlds[x][1] for x in worlds],
                          gen_headers=[test_worlds[x][0] for x in worlds],
                          libs_extra=f"-lcmocka {JSON_LIBS}", archives=[json_libs[v]])
            run_test(f"{exe}.ok", exe, inputs=[exe])
        # The differential test against the reference model, and its allocation-failure sweep.
        h, c = test_worlds["fuzz"]
        exe = program(v, "tests/test_fuzz_diff", ["tests/fuzz/diff.c", "tests/fuzz/model.c", c], gen_headers=[h],
                      libs_extra=f"-lcmocka {JSON_LIBS}", archives=[json_libs[v]])
        run_test(f"{exe}.ok", exe, inputs=[exe])
        # The examples' own tests: the game's rules, determinism, the autopilot.
        for src in sources("tests/examples/test_*.c"):
            example = stem(src)[len("test_"):]
            h, c = generated[example]
            exe = program(v, f"tests/{stem(src)}", [src, c] + game_sources, gen_headers=[h],
                          libs_extra="-lcmocka -lm", includes=f"-Iexamples/{example}")
            run_test(f"{exe}.ok", exe, inputs=[exe])
    codegen_tests = sources("tests/codegen/*.py") + sources("tests/codegen/bad/*") + sources("tests/schema/*.yaml")
    run_test("build/codegen-tests.ok", "$python -m unittest discover -s tests/codegen -t .",
             implicit=codegen_py + codegen_tests + ["generate"], order_only=[deps])
    # A game outside the tree, built with Make, CMake and Ninja against a staged install.
    outside = [f for f in sources("tests/outside/*") if os.path.isfile(os.path.join(ROOT, f))]
    run_test("build/outside-tests.ok", "$python tests/outside/test_outside.py",
             implicit=[libs["gcc"], "docs/using.md"] + install_scripts + installed + outside, order_only=[deps])
    logs = [f"{s}.log" for s in stamps]
    n.build("build/test-summary", "summary", inputs=logs, implicit=stamps)
    n.build("test", "phony", inputs=["build/test-summary"])
    n.line()

    # `ninja demo`: the game, headless, with its autopilot; writes build/rectangle_eater.png.
    rect_h, rect_c = generated["rectangle_eater"]
    game = program("gcc", "rectangle_eater", game_sources + [rect_c, "examples/rectangle_eater/demo.c", "examples/common/png.c"],
                   gen_headers=[rect_h], libs_extra="-lpng -lm")
    n.build("demo", "run", inputs=[game], variables={"cmd": game})
    # `ninja play`: the game in an SDL2 window. Built only when asked, so
    # nothing else needs SDL2 or a display.
    play = program("sdl", "rectangle_eater_play",
                   game_sources + [rect_c, "examples/rectangle_eater/play.c", "examples/common/png.c"],
                   gen_headers=[rect_h], libs_extra="-lpng -lm", default=False)
    n.build("play", "run", inputs=[play], variables={"cmd": play})
    # `ninja swarm`: a million entities, headless; writes build/swarm.png.
    swarm_h, swarm_c = generated["swarm"]
    swarm = program("gcc", "swarm", sources("examples/swarm/*.c") + [swarm_c, "examples/common/canvas.c",
                    "examples/common/font.c", "examples/common/png.c"], gen_headers=[swarm_h], libs_extra="-lpng -lm")
    n.build("swarm", "run", inputs=[swarm], variables={"cmd": swarm})
    particles_src = sources("examples/particles/*.c")
    particles = program("gcc", "particles", particles_src + [generated["particles"][1]], gen_headers=generated["particles"])
    n.build("particles", "run", inputs=[particles], variables={"cmd": particles})
    # Saves and loads have their own program and world (bench/save/), run after the suite.
    save_world = generate("bench/save/save.yaml", "build/gen")
    save_bench = program("gcc", "strata-save-bench", ["bench/save/save_bench.c", save_world[1]],
                         gen_headers=save_world, libs_extra=JSON_LIBS, archives=[json_libs["gcc"]])
    exes.append(bench(n, generate, runtime_c, deps, then=[save_bench]))
    # libFuzzer targets: `ninja fuzz` runs each from its checked-in corpus
    # (tests/fuzz/corpus/<target>/), keeping what it finds under build/fuzz/.
    h, c = test_worlds["fuzz"]
    fuzzers = {}
    for number, target in enumerate(FUZZ_SECONDS, 1):
        # One source, three targets: its objects are per target.
        srcs = []
        for src in ["tests/fuzz/diff.c", "tests/fuzz/model.c", c]:
            obj = f"build/fuzz/{target}/{src[:-2]}.o"
            n.build(obj, "cc_fuzz", inputs=[src], order_only=[deps, h],
                    variables={"extra": f"-Ibuild/gen -DFUZZ_LIBFUZZER={number}"})
            srcs.append(obj)
        exe = f"build/fuzz/fuzz-{target}"
        n.build(exe, "link_fuzz", inputs=srcs + [json_libs["fuzz"], libs["fuzz"]], variables={"libs": JSON_LIBS})
        exes.append(exe)
        fuzzers[target] = exe
    runs = " && ".join(f"sh tools/fuzz.sh {FUZZ_SECONDS[t]} {t} {exe}" for t, exe in fuzzers.items())
    n.build("fuzz", "run", inputs=list(fuzzers.values()), implicit=["tools/fuzz.sh"], variables={"cmd": runs})
    long_exe = "build/san/tests/test_fuzz_diff"
    n.build("fuzz-long", "run", inputs=[long_exe],
            variables={"cmd": f"{long_exe} --ops {LONG_OPS} --seed 20240601"})
    n.build("all", "phony", inputs=["generate"] + exes)
    n.line()

    # `install` and `uninstall` name no file, so they run every time asked.
    n.build("install", "install_files", inputs=[libs["gcc"]], implicit=install_scripts + installed)
    n.build("uninstall", "uninstall_files", implicit=install_scripts)
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

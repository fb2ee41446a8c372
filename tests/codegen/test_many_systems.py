"""A world of 1,000 systems: generated from a schema written here, compiled
at -O2 with warnings as errors, linked with the runtime and stepped. The
step walks the schedule's tables in the runtime, so the generated C grows
with the schema's data, not with a copy of the loop per system; the
compile's time is printed (docs/performance.md quotes it), never asserted.
"""
import os
import resource
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

from codegen import render
from codegen.validate import validate_source
from tests.codegen import crun

REPO = Path(__file__).resolve().parents[2]
CFLAGS = ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I", str(REPO / "runtime/include")]
SYSTEMS = 1000
COMPONENTS = 16
PHASES = ("input", "update", "late", "render")


def schema_text(systems: int = SYSTEMS, threads: bool = True) -> str:
    """The schema: COMPONENTS components, PHASES phases and `systems`
    systems spread over them; most read one component and write the next
    (so batches form and break), every seventh has no terms, every
    eleventh runs after the system before it."""
    lines = ["world: many", "version: 1", f"phases: [{', '.join(PHASES)}]", f"threads: {str(threads).lower()}",
             "components:"]
    lines += [f"  C{i}: {{ v: i32 }}" for i in range(COMPONENTS)]
    lines += ["resources:", "  Tally: { n: u32 }", "systems:"]
    for i in range(systems):
        phase = PHASES[i * len(PHASES) // systems]
        if i % 7 == 3:
            lines.append(f"  S{i}: {{ phase: {phase}, resources: {{ write: [Tally] }} }}")
            continue
        after = f", after: [S{i - 1}]" if i % 11 == 5 and PHASES[(i - 1) * len(PHASES) // systems] == phase else ""
        lines.append(f"  S{i}: {{ phase: {phase}, read: [C{i % COMPONENTS}], write: [C{(i + 5) % COMPONENTS}]{after} }}")
    return "\n".join(lines) + "\n"


def game_source(systems: int = SYSTEMS) -> str:
    """The game: each system's run logs its id (and visits its rows); main
    makes a few entities, switches some systems off, steps twice and prints
    the log."""
    runs = []
    for i in range(systems):
        if i % 7 == 3:
            runs.append(f"void many_s{i}_run(many_s{i}_ctx *ctx) {{\n    ctx->tally->n++;\n    logged({i});\n}}\n")
        else:
            runs.append(f"void many_s{i}_run(many_s{i}_ctx *ctx) {{\n    while (many_s{i}_next(ctx)) {{\n"
                        f"        ctx->c{(i + 5) % COMPONENTS}[0].v += ctx->c{i % COMPONENTS}[0].v + 1;\n    }}\n"
                        f"    logged({i});\n}}\n")
    return f'''#include "many.h"
#include <stdio.h>

static unsigned log_ids[{2 * systems}];
static unsigned log_count;

static void logged(unsigned id) {{
    log_ids[log_count++] = id;
}}

{"".join(runs)}
int main(void) {{
    many_world *w = many_world_create(NULL);
    if (w == NULL) {{
        return 2;
    }}
    many_bundle all = {{0}};
{"".join(f"    all.c{c} = &(many_c{c}){{{c}}};{chr(10)}" for c in range(COMPONENTS))}    many_entity e[3];
    if (many_entity_create_many(w, &all, 3, e) != STRATA_OK) {{
        return 3;
    }}
    many_s10_enable(w, false);
    many_system_set_enabled(many_world_core(w), 500, false);
    int failed = many_world_step(w, 1.0f) != STRATA_OK || many_world_step(w, 1.0f) != STRATA_OK;
    printf("%u %d %d\\n", many_tally_res(w)->n, many_s10_enabled(w), many_s11_enabled(w));
    for (unsigned i = 0; i < log_count; i++) {{
        printf("%u\\n", log_ids[i]);
    }}
    many_world_destroy(w);
    return failed;
}}
'''


class ManySystemsTest(unittest.TestCase):
    def test_a_world_of_1000_systems_compiles_links_and_steps_in_schedule_order(self):
        text = schema_text()
        schema, diagnostics = validate_source("many.yaml", text.encode("utf-8"))
        self.assertIsNotNone(schema, [str(d) for d in diagnostics if d.is_error][:3])
        self.assertEqual(len(schema.systems), SYSTEMS)
        batches = schema.schedule.batches
        self.assertLess(len(batches), SYSTEMS // 2)  # systems share batches: the table has runs to walk
        ids = {y.name: i for i, y in enumerate(schema.systems)}
        order = [ids[y.name] for b in batches for y in b.systems if ids[y.name] not in (10, 500)]
        with tempfile.TemporaryDirectory() as out:
            for name, body in render.render(schema).items():
                Path(out, name).write_text(body, encoding="utf-8")
            world_o = Path(out, "many.o")
            start, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
            world = subprocess.run(["gcc", *CFLAGS, "-O2", "-c", str(Path(out, "many.c")), "-o", str(world_o)],
                                   capture_output=True, text=True)
            seconds, used = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
            self.assertEqual(world.returncode, 0, world.stderr[:3000])
            lines = Path(out, "many.c").read_text(encoding="utf-8").count("\n")
            print(f"a world of {SYSTEMS} systems: many.c ({lines} lines) compiled by gcc -O2 in {seconds:.1f} s "
                  f"({used.ru_utime - cpu.ru_utime:.1f} s user, {used.ru_maxrss // 1024} MB; "
                  f"load {os.getloadavg()[0]:.1f})", file=sys.stderr)
            # The game, linked with the world's object and the runtime object the generator tests share.
            run = crun.build_and_run(Path(out), [world_o], game_source())
            self.assertEqual(run.returncode, 0, run.stderr)
            head, *logged = run.stdout.split("\n")[:-1]
            no_terms = sum(1 for i in range(SYSTEMS) if i % 7 == 3 and i not in (10, 500))
            self.assertEqual(head, f"{2 * no_terms} 0 1")
            self.assertEqual([int(x) for x in logged], order + order)


if __name__ == "__main__":
    unittest.main()

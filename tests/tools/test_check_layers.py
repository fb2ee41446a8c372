"""tools/check-layers.py on small runtimes planted in a temporary directory:
a clean one passes, a cycle and an upward include fail naming the include."""
import contextlib
import importlib.util
import io
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "check-layers.py"
_SPEC = importlib.util.spec_from_file_location("check_layers", SCRIPT)
CHECK_LAYERS = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(CHECK_LAYERS)

# A small runtime in three layers: mem at the bottom, then table and
# save/format, then world; strata.h is public, strata_unity.h exempt.
LAYERS = """\
# bottom-up
mem
table save/format   # one layer, two modules
world
"""
CLEAN = {
    "include/strata.h": "#pragma once\n",
    "mem.h": '#include "strata.h"\n',
    "mem.c": '#include "mem.h"\n#include <stdlib.h>\n',
    "table.h": '#include "mem.h"\n',
    "table.c": '#include "table.h"\n#include "strata.h"\n',
    "save/format.h": '#include "../mem.h"\n',
    "save/format.c": '#include "format.h"\n#include "table.h"\n',
    "world.c": '#include "table.h"\n#include "save/format.h"\n#include "mem.h"\n',
    "strata_unity.h": '#include "world.c"\n#include "table.c"\n#include "save/format.c"\n#include "mem.c"\n',
}


class CheckLayersTest(unittest.TestCase):
    def plant(self, files, layers=LAYERS):
        root = Path(self.tmp.name) / "runtime"
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        if layers is not None:
            (root / "LAYERS").write_text(layers, encoding="utf-8")
        return root

    def check(self, root):
        """`python3 tools/check-layers.py ROOT`, run in this process (ninja's
        layers check runs the command)."""
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = CHECK_LAYERS.main([str(root)])
        return subprocess.CompletedProcess([sys.executable, str(SCRIPT), str(root)], code, stdout.getvalue(),
                                           stderr.getvalue())

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def test_check_layers_passes_a_clean_tree(self):
        result = self.check(self.plant(CLEAN))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("layers hold", result.stdout)

    def test_check_layers_fails_when_the_unit_leaves_out_a_c_file(self):
        root = self.plant({**CLEAN, "strata_unity.h": '#include "world.c"\n#include "mem.c"\n'})
        result = self.check(root)
        self.assertEqual(result.returncode, 1)
        self.assertIn(f'{root / "strata_unity.h"}:1: error: table.c is not in the unit', result.stderr)

    def test_check_layers_fails_on_an_upward_include(self):
        root = self.plant({**CLEAN, "table.c": '#include "table.h"\n\n#include "world.c"\n'})
        result = self.check(root)
        self.assertEqual(result.returncode, 1)
        self.assertIn(f'{root / "table.c"}:3: error: #include "world.c": \'table\' (layer 2) includes '
                      "'world' of a higher layer (3)", result.stderr)

    def test_check_layers_fails_on_a_cycle_within_a_layer(self):
        root = self.plant({**CLEAN, "table.h": '#include "mem.h"\n#include "save/format.h"\n'})
        result = self.check(root)
        self.assertEqual(result.returncode, 1)
        self.assertIn("error: include cycle: save/format -> table -> save/format", result.stderr)
        self.assertIn(f'{root / "table.h"}:2: #include "save/format.h"', result.stderr)
        self.assertIn(f'{root / "save/format.c"}:2: #include "table.h"', result.stderr)
        self.assertNotIn("higher layer", result.stderr)

    def test_check_layers_fails_on_a_file_in_no_layer(self):
        result = self.check(self.plant({**CLEAN, "hook.c": '#include "mem.h"\n'}))
        self.assertEqual(result.returncode, 1)
        self.assertIn("hook.c:1: error: module 'hook' is in no layer of", result.stderr)

    def test_check_layers_fails_on_a_module_without_files(self):
        result = self.check(self.plant(CLEAN, LAYERS + "query\n"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("error: module 'query' has no query.c or query.h", result.stderr)

    # Calls: the public header declares functions of every layer, so a call
    # through it is seen only by the call check.
    PUBLIC_API = {
        "include/strata.h": textwrap.dedent("""\
            #pragma once
            #ifdef __cplusplus
            extern "C" {
            #endif
            void world_tick(int n); /* defined in world.c */
            int mem_size(void);     /* defined in mem.c */
            static inline int strata_twice(int x) { return 2 * x; }
            #ifdef __cplusplus
            }
            #endif
            """),
        "mem.c": '#include "mem.h"\nint mem_size(void) {\n    return 8;\n}\n',
        "world.c": textwrap.dedent("""\
            #include "table.h"
            #include "save/format.h"
            void world_tick(int n) {
                (void)n;
            }
            """),
    }

    def test_check_layers_fails_on_a_call_up_through_the_public_header(self):
        table = textwrap.dedent("""\
            #include "table.h"
            /* world_tick(1) in a comment is no call, nor "world_tick(2)" in a string */
            static void table_grow(void) {
                world_tick(mem_size());
            }
            """)
        root = self.plant({**CLEAN, **self.PUBLIC_API, "table.c": table})
        result = self.check(root)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stderr.splitlines(), [
            f"{root / 'table.c'}:4: error: 'table' (layer 2) calls world_tick of 'world', a higher layer (3)"])

    def test_check_layers_passes_calls_down_prototypes_statics_and_pointers(self):
        # A call down (mem_size), to the public header's inline function; a
        # prototype of a higher function in a lower header; a static of the
        # same name as a higher function; a call through a pointer that a
        # higher module installs: none is a call up.
        files = {**CLEAN, **self.PUBLIC_API,
                 "table.h": '#include "mem.h"\nvoid world_tick(int n);\nextern void (*table_hook)(int);\n',
                 "table.c": textwrap.dedent("""\
                     #include "table.h"
                     void (*table_hook)(int);
                     static int world_tick_count(void) {
                         return strata_twice(mem_size());
                     }
                     int table_run(void) {
                         table_hook(world_tick_count());
                         return 0;
                     }
                     """),
                 "save/format.c": '#include "format.h"\nstatic void world_tick(int n) {\n    (void)n;\n}\n',
                 "world.c": textwrap.dedent("""\
                     #include "table.h"
                     #include "save/format.h"
                     void world_tick(int n) {
                         (void)n;
                     }
                     void world_open(void) {
                         table_hook = world_tick;
                         (void)table_run();
                     }
                     """)}
        files["save/format.c"] = '#include "format.h"\n#include "table.h"\nstatic void world_tick(int n) {\n}\n'
        result = self.check(self.plant(files))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("no call up", result.stdout)

    def test_check_layers_fails_on_a_variable_of_a_higher_layer(self):
        files = {**CLEAN, **self.PUBLIC_API,
                 "world.h": '#include "table.h"\nextern const int world_limit;\n',
                 "world.c": '#include "world.h"\nconst int world_limit = 4;\n',
                 "mem.c": '#include "mem.h"\n#include "strata.h"\nint mem_size(void) {\n    return world_limit;\n}\n'}
        result = self.check(self.plant(files))
        self.assertEqual(result.returncode, 1)
        self.assertIn("'mem' (layer 1) calls world_limit of 'world', a higher layer (3)", result.stderr)

    # A base.h with the hooks struct: world.c sets the hook table.c calls.
    HOOKED = {
        **CLEAN,
        "base.h": textwrap.dedent("""\
            typedef struct sti_hooks_t {
                void (*destroyed)(struct strata_world_t *w);
            } sti_hooks_t;
            struct strata_world_t {
                int count;
                sti_hooks_t hooks;
            };
            """),
        "table.c": '#include "table.h"\nvoid f(struct strata_world_t *w) { w->hooks.destroyed(w); }\n',
        "world.c": '#include "table.h"\n/* hooks.destroyed = here */\nvoid g(struct strata_world_t *w) {\n'
                   '    w->hooks.destroyed = 0;\n}\n',
    }

    def test_check_layers_passes_hooks_set_above_their_callers(self):
        result = self.check(self.plant(self.HOOKED, "base\n" + LAYERS))
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_check_layers_passes_a_hook_named_like_a_higher_function(self):
        # The call checker reads `w->hooks.destroyed(w)` as a member, not as
        # the function world.c defines under the same name.
        world = self.HOOKED["world.c"] + "void destroyed(struct strata_world_t *w) {\n    (void)w;\n}\n"
        world = world.replace("hooks.destroyed = 0;", "hooks.destroyed = destroyed;")
        mem = '#include "mem.h"\nvoid m(struct strata_world_t *w) {\n    (*w).hooks.destroyed(w);\n}\n'
        root = self.plant({**self.HOOKED, "world.c": world, "mem.c": mem}, "base\n" + LAYERS)
        result = self.check(root)
        self.assertEqual(result.returncode, 0, result.stderr)
        # Named as a function, it is a call up.
        table = '#include "table.h"\nvoid f(struct strata_world_t *w) {\n    destroyed(w);\n}\n'
        result = self.check(self.plant({**self.HOOKED, "world.c": world, "table.c": table}, "base\n" + LAYERS))
        self.assertEqual(result.returncode, 1)
        self.assertIn("'table' (layer 3) calls destroyed of 'world', a higher layer (4)", result.stderr)

    def test_check_layers_fails_on_an_up_call_outside_the_hooks_struct(self):
        base = self.HOOKED["base.h"].replace("    int count;\n", "    int count;\n    void (*on_grow)(int n);\n")
        root = self.plant({**self.HOOKED, "base.h": base}, "base\n" + LAYERS)
        result = self.check(root)
        self.assertEqual(result.returncode, 1)
        self.assertIn(f"{root / 'base.h'}:6: error: the world holds the function pointer 'on_grow' outside "
                      "sti_hooks_t", result.stderr)

    def test_check_layers_fails_on_a_hook_set_below_its_caller(self):
        root = self.plant({**self.HOOKED, "mem.c": '#include "mem.h"\nvoid h(struct strata_world_t *w) '
                                                   '{ w->hooks.destroyed = 0; }\n'}, "base\n" + LAYERS)
        result = self.check(root)
        self.assertEqual(result.returncode, 1)
        self.assertIn(f"{root / 'mem.c'}:2: error: hooks.destroyed is set by 'mem' (layer 2), which is not above "
                      "'table' (layer 3) that calls it", result.stderr)
        self.assertNotIn("world.c", result.stderr)

    def test_check_layers_skips_only_without_a_layers_file(self):
        result = self.check(self.plant({**CLEAN, "table.c": '#include "world.c"\n'}, layers=None))
        self.assertEqual(result.returncode, 0)
        self.assertIn("LAYERS does not exist", result.stdout)
        (Path(self.tmp.name) / "runtime" / "LAYERS").write_text(LAYERS, encoding="utf-8")
        self.assertEqual(self.check(Path(self.tmp.name) / "runtime").returncode, 1)


if __name__ == "__main__":
    unittest.main()

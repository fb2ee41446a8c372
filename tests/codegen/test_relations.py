"""A link always has a target. A bundle holds an exclusive relation's value
(its target inside) and offers no member for a relation with many targets a
source, whose links are made by `_add`, one target each: `.likes = true`
once made a live entity holding the relation's tag with no target. An
assemblage names no relation (it cannot name a target): an error, with the
function to link after spawning.
"""
from __future__ import annotations

import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
from codegen import render  # noqa: E402
from tests.codegen import ccheck, crun  # noqa: E402
from tests.codegen.test_validate import check, valid  # noqa: E402

WORLD = """\
world: lk
version: 1
components:
  Body: { mass: f32 = 1 }
relations:
  ChildOf: { exclusive: true }
  Likes: {}
"""

MAIN = r"""#include <stdio.h>
#include "lk.h"
int main(void) {
    lk_world *w = lk_world_create(NULL);
    lk_entity parent = lk_entity_create(w);
    lk_entity e = lk_entity_create_bundle(w, &(lk_bundle){ .body = &LK_BODY_DEFAULT,
                                                          .child_of = &(lk_child_of){ .target = parent } });
    uint32_t n = 0;
    printf("%d %d %d\n", lk_child_of_has(w, e), lk_entity_eq(lk_child_of_target(w, e), parent), strata_has(lk_world_core(w), e.id, LK_LIKES));
    if (lk_likes_add(w, e, parent) != STRATA_OK) { return 1; }
    const lk_entity *targets = lk_likes_targets(w, e, &n);
    printf("%d %u %d\n", lk_likes_has(w, e, parent), n, n == 1 && lk_entity_eq(targets[0], parent));
    lk_world_destroy(w);
    return 0;
}
"""


class LinkTargetTest(unittest.TestCase):
    def test_a_bundle_has_no_member_for_a_relation_with_many_targets(self):
        schema = valid(WORLD)
        header = render.render(schema)["lk.h"]
        bundle = header[header.index("typedef struct lk_bundle {"):header.index("} lk_bundle;")]
        self.assertIn("const lk_child_of *child_of;", bundle)
        self.assertNotIn("likes", bundle)
        with tempfile.TemporaryDirectory() as tmp:
            sources = crun.write_outputs(Path(tmp), render.render(schema))
            misuse = Path(tmp, "misuse.c")
            misuse.write_text('#include "lk.h"\nlk_entity f(lk_world *w);\n'
                              "lk_entity f(lk_world *w) { return lk_entity_create_bundle(w, &(lk_bundle){ .likes = true }); }\n",
                              encoding="utf-8")
            failed = ccheck.compile_each([misuse], ["-std=c11"], [f"-I{tmp}"])
            self.assertEqual(sorted(failed), sorted(f"{cc} -std=c11" for cc in ccheck.compilers()))
            self.assertTrue(all("likes" in message for message in failed.values()), failed)
            self.assertEqual(ccheck.compile_each(sources, ["-std=c11"]), {})
            run = crun.build_and_run(Path(tmp), sources, MAIN)
        self.assertEqual((run.returncode, run.stdout), (0, "1 1 0\n1 1 1\n"), run.stderr)

    def test_a_world_whose_only_components_are_many_target_relations_still_has_a_bundle(self):
        schema = valid("world: lk\nversion: 1\nrelations:\n  Likes: {}\n")
        with tempfile.TemporaryDirectory() as tmp:
            sources = crun.write_outputs(Path(tmp), render.render(schema))
            self.assertEqual(ccheck.compile_each(sources, ["-std=c11"]), {})

    def test_an_assemblage_names_no_relation(self):
        _, messages = check(WORLD + "assemblages:\n  A: { Body: {}, Likes: {} }\n  B: { ChildOf: {} }\n"
                                    "  C: { extends: A }\n")
        self.assertEqual(messages, [
            "test.yaml:9:18: error: assemblage 'A': relation 'Likes' links to a target, which an assemblage cannot "
            "name (spawn, then link it with its _add)",
            "test.yaml:10:8: error: assemblage 'B': relation 'ChildOf' links to a target, which an assemblage cannot "
            "name (spawn, then link it with its _set)"])


if __name__ == "__main__":
    unittest.main()

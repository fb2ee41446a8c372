#!/usr/bin/env python3
"""Generate many worlds in one process: the build's worlds of tests and
benches (build/gen/), which would otherwise each start Python and import
the generator (most of a run's time). Each world is written as
`python3 -m codegen SCHEMA -o OUTDIR` writes it (only the files whose bytes
change, so Ninja's restat skips what did not); DEPFILE names every schema
and template read, as the target TARGET's dependencies. Stops at the first
schema with errors, which it prints, and exits 1.

Usage: tools/gen-worlds.py DEPFILE TARGET SCHEMA OUTDIR [SCHEMA OUTDIR ...]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from codegen import render  # noqa: E402 (after the path)
from codegen.__main__ import depfile_text, main as generate, write_if_changed  # noqa: E402


def run(argv):
    if len(argv) < 4 or len(argv) % 2 != 0:
        print("usage: tools/gen-worlds.py DEPFILE TARGET SCHEMA OUTDIR [SCHEMA OUTDIR ...]", file=sys.stderr)
        return 2
    depfile, target, pairs = argv[0], argv[1], argv[2:]
    schemas = pairs[0::2]
    for schema, outdir in zip(schemas, pairs[1::2]):
        if generate([schema, "-o", outdir]) != 0:
            return 1
    deps = schemas + [os.path.relpath(p) for p in render.template_paths()]
    write_if_changed(depfile, depfile_text(target, deps).encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))

"""Build and run C programs over generated worlds and the runtime, for the
generator tests that must show a world works, not only that it compiles.

The runtime is compiled once (runtime/strata_unity.h, debug: asserts on)
into build/test-cache/, named by a hash of its sources and the command, so
every test module and every run shares it; a program links it with the
worlds' sources and its own main.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Sequence

from tests.codegen import ccheck

REPO = Path(__file__).resolve().parents[2]
CC = "gcc"
FLAGS = ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-g", "-O0"]
CACHE = REPO / "build" / "test-cache"


def runtime_object() -> Path:
    """The runtime's object file, compiled if its sources changed."""
    command = [CC, *FLAGS, f"-I{REPO / 'runtime/include'}", f"-I{REPO / 'runtime'}", "-c"]
    digest = hashlib.sha256(" ".join(command).encode())
    for path in sorted(REPO.glob("runtime/**/*.[ch]")):
        digest.update(path.relative_to(REPO).as_posix().encode() + b"\0" + path.read_bytes())
    target = CACHE / f"strata-{digest.hexdigest()[:16]}.o"
    if target.exists():
        return target
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        unity = Path(tmp, "unity.c")
        unity.write_text('#include "strata_unity.h"\n', encoding="utf-8")
        partial = Path(tmp, "strata.o")
        subprocess.run([*command, str(unity), "-o", str(partial)], check=True, capture_output=True, text=True)
        os.replace(partial, target)  # atomic: another test process may be making it too
    return target


write_outputs = ccheck.write_world


def build_and_run(directory: Path, sources: Sequence[Path], main: str) -> subprocess.CompletedProcess:
    """Compile `main` (C text) with `sources` and link the runtime; run it.
    Raises AssertionError with the compiler's messages when it does not build."""
    main_c = directory / "main_.c"
    main_c.write_text(main, encoding="utf-8")
    exe = directory / "program_"
    includes = sorted({f"-I{p.parent}" for p in sources})
    build = subprocess.run([CC, *FLAGS, f"-I{REPO / 'runtime/include'}", *includes, str(main_c), *map(str, sources),
                            str(runtime_object()), "-o", str(exe), "-lm", "-lpthread"],
                           capture_output=True, text=True, timeout=600)
    if build.returncode != 0:
        raise AssertionError(f"does not build:\n{build.stderr[:4000]}")
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)

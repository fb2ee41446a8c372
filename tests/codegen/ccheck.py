"""Compile generated worlds in batches with gcc and clang, warnings as errors.

Shared by the generator tests that must show a schema's C compiles: each
world sits in its own directory (so `#include "w.h"` finds its own header)
and one compiler run checks many of them. A second file per world, as a game
would write it, includes every C library header the reserved list covers
(in gcc's GNU mode, where `linux` and `unix` are macros) before the world's
header.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List, Sequence

REPO = Path(__file__).resolve().parents[2]
FLAGS = ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-fsyntax-only"]
GAME_FLAGS = ["-std=gnu11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-fsyntax-only"]
HEADERS = ("stdint", "stddef", "stdbool", "stdio", "stdlib", "string", "errno", "math", "assert", "stdalign",
           "limits", "float")
BATCH = 150


def compilers() -> List[str]:
    return [cc for cc in ("gcc", "clang") if shutil.which(cc)]


def write_world(directory: Path, outputs: Dict[str, str]) -> List[Path]:
    """Write a rendered world and a game file that includes it; the C files to compile."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in outputs.items():
        (directory / name).write_text(text, encoding="utf-8")
    header = next(name for name in outputs if name.endswith(".h"))
    game = directory / "game_.c"
    game.write_text("#define _GNU_SOURCE 1\n" + "".join(f"#include <{h}.h>\n" for h in HEADERS) +
                    f'#include "{header}"\nint game_(void);\nint game_(void) {{ return 0; }}\n', encoding="utf-8")
    return [directory / name for name in outputs if name.endswith(".c")] + [game]


def failures(files: List[Path]) -> Dict[Path, str]:
    """The files that do not compile cleanly under each compiler, with the messages."""
    found: Dict[Path, str] = {}
    for cc in compilers():
        for start in range(0, len(files), BATCH):
            batch = files[start:start + BATCH]
            games = [f for f in batch if f.name == "game_.c"] if cc == "gcc" else []  # GNU mode: gcc's
            for flags, chosen in ((FLAGS, [f for f in batch if f.name != "game_.c"]), (GAME_FLAGS, games)):
                if not chosen:
                    continue
                result = subprocess.run([cc, *flags, f"-I{REPO / 'runtime/include'}", *map(str, chosen)],
                                        capture_output=True, text=True, timeout=600)
                if result.returncode == 0:
                    continue
                named = False
                for f in chosen:
                    lines = [line for line in result.stderr.splitlines() if str(f.parent) + "/" in line]
                    if any(re.search(r"error", line) for line in lines):
                        found[f] = f"{cc}: " + "\n".join(lines[:6])
                        named = True
                if not named:  # the compiler failed without naming a file: blame the batch's first
                    found[chosen[0]] = f"{cc}: {result.stderr[:2000]}"
    return found


WARNINGS = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]


def compile_each(files: List[Path], standards: List[str], extra: Sequence[str] = ()) -> Dict[str, str]:
    """Check `files` with each compiler under each `-std=` of `standards`,
    warnings as errors, every run at once; {"gcc -std=c11": messages} for
    each run that fails."""
    runs = {}
    for cc in compilers():
        for std in standards:
            command = [cc, std, *WARNINGS, "-fsyntax-only", f"-I{REPO / 'runtime/include'}", *extra, *map(str, files)]
            runs[f"{cc} {std}"] = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                                   text=True)
    failed = {}
    for name, process in runs.items():
        output, _ = process.communicate(timeout=600)
        if process.returncode != 0:
            failed[name] = output[:4000]
    return failed

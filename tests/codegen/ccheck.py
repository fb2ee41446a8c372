"""Compile generated worlds with gcc and clang, warnings as errors, fast.

Shared by the generator tests that must show a schema's C compiles. Each
world sits in its own directory (so `#include "w.h"` finds its own
header). `compile_worlds` checks many worlds in few translation units: each
unit includes every C library header the reserved list covers (in GNU mode,
with _GNU_SOURCE, where `linux` and `unix` are macros), as a game's file
would before the world's header, then the worlds' sources one after the
other; worlds whose identifiers overlap go to different units. With
`strict`, each unit is also compiled in ISO C11 without the headers (where
trigraphs are read). A failing unit is split until the failing worlds are
found.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Dict, Iterable, List, Sequence, Set

from codegen.make_reserved import HEADERS

REPO = Path(__file__).resolve().parents[2]
WARNINGS = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]
FLAGS = ["-std=c11", *WARNINGS, "-fsyntax-only"]
GAME_FLAGS = ["-std=gnu11", *WARNINGS, "-fsyntax-only"]
UNIT = 64  # worlds a translation unit at most


def compilers() -> List[str]:
    return [cc for cc in ("gcc", "clang") if shutil.which(cc)]


def game_prelude() -> str:
    """What a game's C file starts with: every covered header."""
    return "#define _GNU_SOURCE 1\n" + "".join(f"#include <{h}.h>\n" for h in HEADERS)


def write_world(directory: Path, outputs: Dict[str, str]) -> List[Path]:
    """Write a rendered world into `directory`; its C sources."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in outputs.items():
        (directory / name).write_text(text, encoding="utf-8")
    return [directory / name for name in outputs if name.endswith(".c")]


def _owned(outputs: Dict[str, str]) -> Set[str]:
    """The identifiers a world defines: those under its prefix (in any case)."""
    header = next(name for name in outputs if name.endswith(".h"))
    prefix = re.compile(r"\b" + re.escape(header[:-2]) + r"_\w*", re.IGNORECASE)  # whole identifiers only
    found: Set[str] = set()
    for name, text in outputs.items():
        if name.endswith((".c", ".h")):
            found.update(prefix.findall(text))
    return found


def _run_all(commands: Dict[str, List[str]]) -> Dict[str, str]:
    """Run the commands at once; {key: output} of those that fail."""
    running = {key: subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
               for key, command in commands.items()}
    failed = {}
    for key, process in running.items():
        output, _ = process.communicate(timeout=900)
        if process.returncode != 0:
            failed[key] = output
    return failed


def compile_worlds(worlds: Dict[str, Dict[str, str]], directory: Path, strict: bool = True) -> Dict[str, str]:
    """Compile every world (label -> its rendered outputs) after every
    covered header in GNU C11, and with `strict` alone in ISO C11, with
    each compiler; {label: the compiler's messages} for the worlds that do
    not compile cleanly."""
    sources: Dict[str, List[Path]] = {}
    units: List[List[str]] = []
    taken: List[Set[str]] = []
    for i, (label, outputs) in enumerate(worlds.items()):
        sources[label] = write_world(directory / f"world{i}", outputs)
        owned = _owned(outputs)
        for unit, names in zip(units, taken):
            if len(unit) < UNIT and names.isdisjoint(owned):
                unit.append(label)
                names |= owned
                break
        else:
            units.append([label])
            taken.append(set(owned))
    return _compile_units(units, sources, directory, strict)


def _compile_units(units: List[List[str]], sources: Dict[str, List[Path]], directory: Path,
                   strict: bool) -> Dict[str, str]:
    commands, members = {}, {}
    for unit in units:
        number = len(list(directory.glob("unit*.c")))
        included = "".join(f'#include "{src}"\n' for label in unit for src in sources[label])
        for prelude, flags, suffix in ((game_prelude(), GAME_FLAGS, ""), ("", FLAGS, "_iso"))[:2 if strict else 1]:
            path = directory / f"unit{number}{suffix}.c"
            path.write_text(prelude + included, encoding="utf-8")
            for cc in compilers():
                key = f"{cc} {path.name}"
                commands[key] = [cc, *flags, f"-I{REPO / 'runtime/include'}", str(path)]
                members[key] = unit
    failed: Dict[str, str] = {}
    split: List[List[str]] = []
    for key, output in _run_all(commands).items():
        unit = members[key]
        if len(unit) == 1:
            failed[unit[0]] = f"{key.split()[0]}: {output[:3000]}"
        elif unit not in split:
            split += [unit[:len(unit) // 2], unit[len(unit) // 2:]]
    if split:
        failed.update(_compile_units(split, sources, directory, strict))
    return failed


def compile_each(files: Sequence[Path], standards: Iterable[str], extra: Sequence[str] = ()) -> Dict[str, str]:
    """Check `files` with each compiler under each `-std=` of `standards`,
    warnings as errors, every run at once; {"gcc -std=c11": messages} for
    each run that fails."""
    commands = {f"{cc} {std}": [cc, std, *WARNINGS, "-fsyntax-only", f"-I{REPO / 'runtime/include'}", *extra,
                                *map(str, files)]
                for cc in compilers() for std in standards}
    return {key: output[:4000] for key, output in _run_all(commands).items()}

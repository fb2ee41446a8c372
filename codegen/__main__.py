"""The command line: `python3 -m codegen SCHEMA.yaml -o OUTDIR`, installed
as `strata-gen` by `ninja install`.

    python3 -m codegen SCHEMA.yaml -o OUTDIR [--check] [--depfile FILE] [--stamp FILE]
                       [--live] [--diagnostics=json]
    python3 -m codegen --json-schema

Validates the schema and writes the generated files into OUTDIR, each only
when its bytes change (so Ninja's `restat` skips needless rebuilds). When
the schema has errors it prints them all, in line order, to stderr, writes
nothing and exits 1. `--check` writes nothing and exits 1 when a file in
OUTDIR is missing or differs. `--depfile FILE` also writes a Make/Ninja
depfile naming the schema and every template read. `--stamp FILE` touches
FILE after every successful run, for build tools without Ninja's `restat`
(Make, CMake's Makefile generators): the stamp is their target, so a schema
that was touched but whose output did not change is not regenerated again
and again; the depfile then names the stamp as its target.

`--live` also writes `<world>_live.c`, the entry of a live module: the
table libstrata_live finds in a module built from the world (docs/live.md).

`--diagnostics=json` prints the diagnostics as one JSON array on stdout
instead of lines on stderr (see diagnostics.py), for editors and CI.
`--json-schema` prints the JSON Schema of the schema language (see
jsonschema.py), which editors read for completion and errors as you type.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Dict, Iterable, List, Optional, Sequence

from . import __version__
from .errors import Diagnostic, has_errors, printable, sorted_by_position
from .model import Loc, Schema
from .validate import validate_file


def main(argv: Optional[Sequence[str]] = None, prog: str = "python3 -m codegen") -> int:
    """Run the generator; returns the exit status (0 ok, 1 errors or stale files).
    `prog` is the command's name in --help (the installed launcher passes 'strata-gen')."""
    args = _parse_args(argv, prog)
    if args.json_schema:
        from . import jsonschema
        sys.stdout.write(jsonschema.text())
        return 0
    schema = _valid_schema(args.schema, args.diagnostics)
    if schema is None:
        return 1
    from . import render  # imported late, like names: error reports never need it
    outputs = render.render(schema, live=args.live)
    if args.check:
        return check_outputs(outputs, args.outdir)
    try:
        write_outputs(outputs, args.outdir)
        if args.depfile and outputs:
            target = args.stamp or os.path.join(args.outdir, next(iter(outputs)))
            deps = [args.schema] + _spelled_like(args.schema, render.template_paths())
            write_if_changed(args.depfile, depfile_text(target, deps).encode("utf-8"))
        if args.stamp:
            touch(args.stamp)
    except OSError as e:
        _say(f"{e.filename or args.outdir}: error: {e.strerror}")
        return 1
    return 0


def _valid_schema(path: str, form: str = "text") -> Optional[Schema]:
    """The schema at `path` if it has no error, C name collisions included;
    else None. Prints every diagnostic (warnings too) in line order, as
    text or (form 'json') as JSON."""
    try:
        schema, diagnostics = validate_file(path)
    except OSError as e:
        if form == "json":
            _report([Diagnostic(Loc(path, 1, 1), f"cannot read the schema: {e.strerror}")], form)
        else:
            _say(f"{path}: error: cannot read the schema: {e.strerror}")
        return None
    if schema is not None:
        # Imported only for a valid schema: error reports never need the C names.
        from . import names
        diagnostics = sorted_by_position(diagnostics + list(names.collisions(schema)))
    _report(diagnostics, form)
    if has_errors(diagnostics):
        return None
    return schema


def _parse_args(argv: Optional[Sequence[str]], prog: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Strata's generator: turn a YAML schema into typed C for the Strata runtime.")
    parser.add_argument("schema", metavar="SCHEMA.yaml", nargs="?", help="the schema to compile")
    parser.add_argument("-o", dest="outdir", metavar="OUTDIR",
                        help="the directory to write the generated files into (created if needed)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a file in OUTDIR is missing or differs")
    parser.add_argument("--depfile", metavar="FILE",
                        help="also write a Make/Ninja depfile: the first output depends on the "
                             "schema and every template")
    parser.add_argument("--stamp", metavar="FILE",
                        help="touch FILE after every successful run, even when no output changed: the "
                             "target for Make and CMake's Makefile generators (with --depfile, the "
                             "depfile names FILE as its target)")
    parser.add_argument("--live", action="store_true",
                        help="also write OUTDIR/<world>_live.c, the entry of a live module (docs/live.md)")
    parser.add_argument("--diagnostics", choices=("text", "json"), default="text",
                        help="how to print errors and warnings: 'text' (the default), lines like a "
                             "compiler's on stderr, or 'json', one JSON array on stdout for editors and CI")
    parser.add_argument("--json-schema", action="store_true",
                        help="print the JSON Schema of the schema language (for editors) and exit")
    parser.add_argument("--version", action="version", version=f"strata-gen {__version__}")
    args = parser.parse_args(argv)
    if not args.json_schema:
        missing = [name for name, value in (("SCHEMA.yaml", args.schema), ("-o", args.outdir)) if value is None]
        if missing:
            parser.error(f"the following arguments are required: {', '.join(missing)}")
    return args


def _say(line: str) -> None:
    print(printable(line), file=sys.stderr)  # a path from the command line may hold a line break too


def _report(diagnostics: Iterable[Diagnostic], form: str = "text") -> None:
    if form == "json":
        from .diagnostics import to_json
        sys.stdout.write(to_json(diagnostics, _read_or_none))
        return
    for diagnostic in diagnostics:
        _say(str(diagnostic))


def check_outputs(outputs: Dict[str, str], outdir: str) -> int:
    """Print each output that is missing or differs in `outdir`; 1 if any."""
    stale = False
    for name, text in outputs.items():
        path = os.path.join(outdir, name)
        problem = _staleness(path, text.encode("utf-8"))
        if problem:
            _say(f"{path}: {problem}")
            stale = True
    return 1 if stale else 0


def _staleness(path: str, data: bytes) -> Optional[str]:
    """'missing' or 'out of date' when the file at `path` does not hold `data`."""
    current = _read_or_none(path)
    if current is None:
        return "missing"
    if current != data:
        return "out of date"
    return None


def write_outputs(outputs: Dict[str, str], outdir: str) -> List[str]:
    """Write each {filename: text} into `outdir` (created if needed), only
    where the bytes differ. Returns the paths actually written."""
    os.makedirs(outdir, exist_ok=True)
    written = []
    for name, text in outputs.items():
        path = os.path.join(outdir, name)
        if write_if_changed(path, text.encode("utf-8")):
            written.append(path)
    return written


def write_if_changed(path: str, data: bytes) -> bool:
    """Replace the file at `path` with `data` unless it already holds exactly
    that; returns whether it wrote. The new file is renamed into place, so a
    reader never sees half of it."""
    if _read_or_none(path) == data:
        return False
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    temporary = path + ".tmp"
    with open(temporary, "wb") as f:
        f.write(data)
    os.replace(temporary, path)
    return True


def touch(path: str) -> None:
    """Set the modification time of the file at `path` to now, creating it
    (and its directory) if needed."""
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "ab"):
        pass
    os.utime(path, None)


def _read_or_none(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def depfile_text(target: str, deps: Iterable[str]) -> str:
    """A Make/Ninja depfile: `target` depends on each of `deps`, one a line."""
    lines = [f"{_escape(target)}:"] + [f"  {_escape(dep)}" for dep in deps]
    return " \\\n".join(lines) + "\n"


def _escape(path: str) -> str:
    """A path as Make and Ninja's depfile parser read it back."""
    return path.replace("$", "$$").replace("#", "\\#").replace(" ", "\\ ")


def _spelled_like(schema: str, paths: Iterable[str]) -> List[str]:
    """The template paths spelled like the schema's path: absolute if it is,
    else relative to the current directory (as the build runs us)."""
    if os.path.isabs(schema):
        return [os.path.abspath(p) for p in paths]
    return [os.path.relpath(p) for p in paths]


if __name__ == "__main__":
    sys.exit(main())

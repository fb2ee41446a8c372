"""The generator's tests, and what several of them share."""
from __future__ import annotations

import contextlib
import io
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run_generator(*args: str) -> subprocess.CompletedProcess:
    """`python3 -m codegen ARGS` from the repository's root, run in this
    process (what the command runs, without a Python start and the
    generator's import each time); tests/codegen/test_cli.py runs the
    command itself."""
    from codegen.__main__ import main

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.chdir(REPO), contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(list(args))
    return subprocess.CompletedProcess(["python3", "-m", "codegen", *args], code, stdout.getvalue(),
                                       stderr.getvalue())

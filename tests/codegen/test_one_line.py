"""Every diagnostic is one line, whatever a name or string of the schema
holds.

A schema using every key of the spec (each section, each key of a query,
system, relation, field, resource access; hooks, renamed_from, sent_by,
extends, enum) is the base. For every scalar of it, key or value, and for each
character that breaks a line, a terminal or an encoder (LF, CR, U+0085,
U+2028, NUL, a lone surrogate, a bidirectional override), the scalar with the character inside goes through the command
line: it exits 0 (the character is fine where it is, e.g. inside a string
default) or 1 with only `file:line:col: error:` / `warning:` lines on
stderr, never a traceback; `--diagnostics=json` prints valid JSON.
"""
from __future__ import annotations

import contextlib
import io
import json
import re
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Iterator, List, Tuple

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
from codegen import spec  # noqa: E402
from codegen.__main__ import main as generator_main  # noqa: E402
from codegen.errors import printable  # noqa: E402

CHARACTERS = {"LF": "\n", "CR": "\r", "NEL": "\x85", "LS": "\u2028", "NUL": "\x00", "surrogate": "\udc80",
              "RLO": "\u202e"}
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

BASE = {
    "world": "w", "version": 1, "save_name": "game",
    "phases": ["input", {"name": "physics", "rate": 60, "max_runs": 4}, "update"], "threads": True,
    "states": {"Mode": ["title", "playing"]},
    "types": {"Vec": {"x": "f32", "y": {"type": "f32", "default": 1, "renamed_from": "why"}},
              "Kind": {"enum": ["one", "two"]}},
    "components": {
        "Pos": {"x": "f32 = 1", "k": "Kind = one", "label": "char[8] = hi", "v": "Vec", "on_add": True,
                "on_remove": True, "on_set": True, "renamed_from": ["Place"]},
        "Target": {"who": {"type": "entity", "on_target_destroy": "clear"}},
        "Extra": {"n": "u8"},
        "Tag": {},
        "Stunned": {"storage": "sparse"},
    },
    "relations": {"ChildOf": {"exclusive": True, "data": {"slot": "u8"}, "on_target_destroy": "destroy",
                              "renamed_from": "Parent"},
                  "Likes": {}},
    "resources": {"Score": {"value": "i32 = 0", "renamed_from": "Points"}, "Tuning": {"speed": "f32", "on": "bool"}},
    "events": {"Hit": {"who": "entity"}, "Ping": {"n": "u8"}, "Key": {"code": "u32", "sent_by": "game"}},
    "queries": {"Q": {"read": ["Pos"], "write": ["Extra"], "with": ["Tag"], "without": ["Target"],
                      "optional": ["Likes"], "changed": ["Pos"]},
                "Up": {"read": ["ChildOf"], "cascade": "ChildOf"}},
    "systems": {
        "Move": {"phase": "update", "read": ["Pos"], "write": ["Extra"], "with": ["Tag"], "without": ["Target"],
                 "optional": ["Likes"], "before": ["Draw"], "resources": {"read": ["Tuning"], "write": ["Score"]},
                 "changed": ["Pos"], "emit": ["Hit"], "aspect": {"k": "u8"}, "on_add": True, "on_remove": True},
        "Draw": {"after": ["Move"], "read": ["Pos"], "receive": ["Hit"], "main_thread": True, "emit": ["Ping"]},
        "Early": {"phase": "input", "receive_late": ["Ping"], "receive": ["Key"]},
        "Split": {"read": ["Extra"], "parallel": True},
        "Walk": {"read": ["ChildOf"], "cascade": "ChildOf"},
        "Tick": {"phase": "physics", "in_state": {"Mode": "playing"}, "run_if": {"Tuning": "not on"},
                 "interval": 0.5},
        "Blink": {"every": 10},
        "Enter": {"on_enter": {"Mode": ["title"]}, "on_exit": {"Mode": "playing"}},
    },
    "assemblages": {"Thing": {"Pos": {"x": 2, "label": "yo"}, "Tag": {}}, "Child": {"extends": "Thing"}},
}



def every_key() -> set:
    """Every key spec.py defines: each Key, alone or in a tuple of keys."""
    keys = set()
    for value in vars(spec).values():
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, spec.Key):
                keys.add(item.name)
    return keys


def keys_in(doc) -> set:
    if isinstance(doc, dict):
        return set(doc) | {k for v in doc.values() for k in keys_in(v)}
    if isinstance(doc, list):
        return {k for v in doc for k in keys_in(v)}
    return set()


Path_ = Tuple[object, ...]  # keys and list indices from the top to a scalar


def slots(doc, where: Path_ = ()) -> Iterator[Tuple[Path_, bool]]:
    """Every scalar of doc: (its path, whether it is a mapping's key)."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield where + (k,), True
            yield from slots(v, where + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from slots(v, where + (i,))
    else:
        yield where, False


MARK = "zzMarkzz"  # stands for the spoiled scalar in the dumped text


def replaced(doc, where: Path_, is_key: bool):
    """A copy of doc with MARK as the scalar at `where`, and that scalar."""
    if not where:
        return MARK, doc
    head, rest = where[0], where[1:]
    if isinstance(doc, list):
        items = [replaced(v, rest, is_key) if i == head else (v, None) for i, v in enumerate(doc)]
        return [v for v, _ in items], items[head][1]
    out, old = {}, None
    for k, v in doc.items():
        if k == head and is_key and not rest:
            out[MARK], old = v, k
        elif k == head:
            out[k], old = replaced(v, rest, is_key)
        else:
            out[k] = v
    return out, old


def quoted(text: str) -> str:
    """`text` as a YAML double-quoted scalar, every character outside
    printable ASCII escaped (a lone surrogate too, which no emitter writes)."""
    return '"' + "".join(c if " " <= c <= "~" and c not in '"\\' else
                         f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}" for c in text) + '"'


def spoiled_text(template: str, old, is_key: bool, character: str) -> str:
    """The dumped `template` with the marked scalar spoiled by `character`."""
    old = str(old).lower() if isinstance(old, bool) else str(old)
    new = f"{old[:1]}{character}{old[1:]}" if is_key else f"{old}{character}x"
    return template.replace(MARK, quoted(new), 1)


def run(path: Path, out: Path, *extra: str) -> Tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = generator_main([str(path), "-o", str(out), *extra])
    return code, stdout.getvalue(), stderr.getvalue()


class OneLineTest(unittest.TestCase):
    def test_the_base_uses_every_key_and_is_valid(self):
        self.assertEqual(every_key() - keys_in(BASE), set())
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp, "n.yaml")
            path.write_text(yaml.safe_dump(BASE), encoding="utf-8")
            code, _, stderr = run(path, Path(tmp, "out"))
        self.assertEqual((code, stderr), (0, ""))

    def test_every_scalar_with_every_breaking_character(self):
        failures: List[str] = []
        count = 0
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp, "n.yaml")
            line_pattern = re.compile(re.escape(str(path)) + r":\d+:\d+: (error|warning): \S")
            for number, (where, is_key) in enumerate(slots(BASE)):
                marked, old = replaced(BASE, where, is_key)
                template = yaml.dump(marked, Dumper=DUMPER)
                for label, character in CHARACTERS.items():
                    count += 1
                    # A new file each time: rewriting one in place makes ext4 flush it at close (auto_da_alloc).
                    path.unlink(missing_ok=True)
                    path.write_text(spoiled_text(template, old, is_key, character), encoding="utf-8")
                    what = f"{'key' if is_key else 'value'} {'/'.join(map(str, where))} with {label}"
                    try:
                        code, _, stderr = run(path, Path(tmp, "out"))
                    except Exception as e:  # a traceback is the bug this test is for
                        failures.append(f"{what}: {type(e).__name__}: {printable(str(e))}")
                        continue
                    lines = stderr.splitlines()
                    stray = [line for line in lines if not line_pattern.match(line)]
                    if code not in (0, 1) or stray or (code == 1) != any(": error: " in x for x in lines):
                        failures.append(f"{what}: exit {code}: {[printable(x) for x in stray or lines][:3]}")
                    if code == 1 and label == "surrogate" and number % 4 == 0:  # the JSON form, now and then
                        code, stdout, _ = run(path, Path(tmp, "out"), "--diagnostics=json")
                        self.assertEqual(code, 1)
                        self.assertTrue(json.loads(stdout), what)
        self.assertGreater(count, 1000)
        self.assertEqual(failures, [])


if __name__ == "__main__":
    unittest.main()

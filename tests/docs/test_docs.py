"""The docs' promises, checked: README.md and docs/*.md.

Every fenced block names its language. Every ```c block says, in an HTML
comment on the line before it (invisible on the rendered page), how it is
checked:

    <!-- c: SCHEMA -->                   the block is a C file
    <!-- c: SCHEMA, in a function        the block is the body of a function
    PRELUDE LINES                        (C at file scope, before the block)
    after:
    EPILOGUE LINES                       (C after the block, in the function)
    -->
    <!-- from: PATH -->                  the block is a run of lines of PATH

A `c:` block is compiled by gcc and clang with -std=c11 -Wall -Wextra
-Wpedantic -Werror against the header the generator writes for SCHEMA (a
schema file of this repository): `#include "<world>.h"` unless the block
includes it, then the prelude, then the block. In a function, the block's
own `#include` lines go to file scope, before the prelude, and the rest is
the body of `void snippet(void)`; the epilogue is where a fragment uses what
it declared (`(void)r;`), since a page shows the call, not the rest of a
game. A `from:` block (every C and YAML block of docs/tutorial.md) is checked
against the file it comes from, which `ninja test` builds and runs, and an
`<!-- output: examples/tutorial/STEP -->` block against what that step
printed when `ninja test` ran its gcc build (build/gcc/tutorial/STEP.ok.log).

Besides: docs/schema.md names every key of schema/strata.schema.json in the
section of that key's owner; every relative link and anchor resolves; the
reference pages and the reference link each other; README links the
tutorial right after its two commands; no page says "seed" for a source a
reader cannot look up.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
from tests.codegen import run_generator  # noqa: E402
COMPILERS = ("gcc", "clang")
FLAGS = ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-O2"]
IN_A_FUNCTION = "in a function"


def pages() -> List[str]:
    docs = sorted(f"docs/{f}" for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    return ["README.md"] + docs


def read(path: str) -> str:
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


# --- Fenced blocks and their directives -------------------------------------------------

@dataclass
class Directive:
    kind: str                     # "c", "from" or "output"
    target: str                   # the schema, the file the block comes from, or the tutorial's step
    in_function: bool = False
    prelude: Tuple[str, ...] = ()
    epilogue: Tuple[str, ...] = ()


@dataclass
class Block:
    page: str
    line: int                     # the first line of the block's text (1-based)
    language: str
    text: str
    directive: Optional[Directive]

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)")
_DIRECTIVE = re.compile(r"^<!--\s*(c|from|output):\s*(.*?)\s*(-->)?\s*$")


def parse_directive(lines: List[str]) -> Optional[Directive]:
    """The directive of an HTML comment (its lines, `<!--` to `-->`), or None."""
    first = _DIRECTIVE.match(lines[0])
    if first is None:
        return None
    kind, head, closed = first.groups()
    target, _, options = head.partition(",")
    body = [] if closed else lines[1:-1]
    prelude, epilogue = (body[:body.index("after:")], body[body.index("after:") + 1:]) if "after:" in body \
        else (body, [])
    return Directive(kind, target.strip(), options.strip() == IN_A_FUNCTION, tuple(prelude), tuple(epilogue))


def blocks(page: str) -> Iterator[Block]:
    """The fenced blocks of a page, each with the directive ending on the line above it."""
    lines = read(page).split("\n")
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if fence is None:
            i += 1
            continue
        indent, marks, language = fence.groups()
        end = i + 1
        while end < len(lines) and not re.match(rf"^\s*{marks[0]}{{{len(marks)},}}\s*$", lines[end]):
            end += 1
        text = "\n".join(l[len(indent):] if l.startswith(indent) else l.lstrip() for l in lines[i + 1:end])
        directive = None
        if i > 0 and lines[i - 1].strip().endswith("-->"):
            start = i - 1
            while start > 0 and not lines[start].lstrip().startswith("<!--"):
                start -= 1
            directive = parse_directive([l.strip() for l in lines[start:i]])
        yield Block(page, i + 2, language, text + "\n", directive)
        i = end + 1


def all_blocks() -> List[Block]:
    return [b for page in pages() for b in blocks(page)]


# --- Compiling the C blocks ---------------------------------------------------------------

def snippet_source(block: Block, world: str) -> str:
    """The C file a `c:` block is compiled as (see the module's docstring);
    `#line` keeps the block's lines at their numbers in the page."""
    d = block.directive
    body = block.text.split("\n")
    includes = [l for l in body if l.lstrip().startswith("#include")]
    top = [] if any(f'"{world}.h"' in l for l in includes) else [f'#include "{world}.h"']
    if not d.in_function:
        return "\n".join(top + list(d.prelude) + [f'#line {block.line} "{block.page}"'] + body) + "\n"
    lines = top + includes + list(d.prelude)
    lines += ["void snippet(void);", "void snippet(void) {", f'#line {block.line} "{block.page}"']
    lines += ["" if l in includes else l for l in body]  # an include's line stays, blank
    return "\n".join(lines + list(d.epilogue) + ["}"]) + "\n"


class Generated:
    """The headers of the schemas the blocks name, generated once into a temporary directory."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="strata-docs-")
        self.worlds: Dict[str, Tuple[str, str]] = {}

    def world(self, schema: str) -> Tuple[str, str]:
        """(world name, include directory) of schema, generating it the first time."""
        if schema not in self.worlds:
            out = os.path.join(self.dir, str(len(self.worlds)))
            run = run_generator(schema, "-o", out)
            if run.returncode != 0:
                raise AssertionError(f"cannot generate {schema}:\n{run.stderr}")
            header = next(f for f in os.listdir(out) if f.endswith(".h"))
            self.worlds[schema] = (header[:-2], out)
        return self.worlds[schema]

    def compile(self, block: Block, cc: str) -> Optional[str]:
        """None if the block compiles with cc, else what cc said."""
        world, include = self.world(block.directive.target)
        source = os.path.join(self.dir, "snippet.c")
        with open(source, "w", encoding="utf-8") as f:
            f.write(snippet_source(block, world))
        run = subprocess.run([cc, *FLAGS, "-I", os.path.join(ROOT, "runtime/include"), "-I", include, "-c", source,
                              "-o", os.path.join(self.dir, "snippet.o")], cwd=ROOT, capture_output=True, text=True)
        return None if run.returncode == 0 else run.stderr

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


class TestCBlocks(unittest.TestCase):
    def test_every_block_names_its_language(self):
        for block in all_blocks():
            with self.subTest(block=block.where):
                self.assertTrue(block.language, f"{block.where}: a fenced block without a language (```text for "
                                                "output, ```c for C, ...)")

    def test_every_c_block_says_how_it_is_checked(self):
        for block in all_blocks():
            if block.language == "c":
                with self.subTest(block=block.where):
                    self.assertIsNotNone(block.directive, f"{block.where}: a ```c block needs '<!-- c: SCHEMA -->' "
                                                          "or '<!-- from: FILE -->' on the line above it")
                    if block.directive.kind == "c":
                        self.assertTrue(os.path.isfile(os.path.join(ROOT, block.directive.target)),
                                        f"{block.where}: no schema {block.directive.target}")

    def test_every_c_block_compiles(self):
        generated = Generated()
        self.addCleanup(generated.close)
        for block in all_blocks():
            if block.language != "c" or block.directive is None or block.directive.kind != "c":
                continue
            for cc in COMPILERS:
                with self.subTest(block=block.where, cc=cc):
                    errors = generated.compile(block, cc)
                    if errors is not None:
                        self.fail(f"{block.where} does not compile with {cc}:\n" + "\n".join(errors.split("\n")[:40]))

    def test_a_block_from_a_file_is_a_run_of_its_lines(self):
        for block in all_blocks():
            if block.directive is None or block.directive.kind != "from":
                continue
            with self.subTest(block=block.where):
                path = os.path.join(ROOT, block.directive.target)
                self.assertTrue(os.path.isfile(path), f"{block.where}: no file {block.directive.target}")
                self.assertIn(block.text, read(block.directive.target),
                              f"{block.where}: not a run of lines of {block.directive.target}: copy it again")

    def test_the_tutorials_code_comes_from_its_steps(self):
        for block in blocks("docs/tutorial.md"):
            if block.language in ("c", "yaml"):
                with self.subTest(block=block.where):
                    self.assertTrue(block.directive is not None and block.directive.kind == "from"
                                    and block.directive.target.startswith("examples/tutorial/"),
                                    f"{block.where}: the tutorial's code comes from examples/tutorial/ "
                                    "('<!-- from: examples/tutorial/STEP/FILE -->')")


    def test_the_tutorials_output_is_what_its_steps_print(self):
        shown = [b for b in blocks("docs/tutorial.md") if b.directive is not None and b.directive.kind == "output"]
        self.assertGreaterEqual(len(shown), 7)  # one a step
        for block in shown:
            step = os.path.basename(block.directive.target)
            log = f"build/gcc/tutorial/{step}.ok.log"
            with self.subTest(block=block.where):
                self.assertTrue(os.path.isfile(os.path.join(ROOT, log)), f"no {log}: run `ninja {log[:-4]}` first")
                self.assertEqual(block.text, read(log), f"{block.where}: not what {step} prints ({log})")


class TestTheCheckItself(unittest.TestCase):
    """The block reader and the compile on pages made up here: a wrong
    declaration fails, a right one passes."""

    def check(self, page_text: str) -> List[Optional[str]]:
        with tempfile.TemporaryDirectory(dir=os.path.join(ROOT, "build") if os.path.isdir(
                os.path.join(ROOT, "build")) else None) as d:
            page = os.path.relpath(os.path.join(d, "page.md"), ROOT)
            with open(os.path.join(ROOT, page), "w", encoding="utf-8") as f:
                f.write(page_text)
            generated = Generated()
            try:
                return [generated.compile(b, "gcc") for b in blocks(page) if b.language == "c"]
            finally:
                generated.close()

    def test_a_hook_with_a_const_value_does_not_compile(self):
        page = ("<!-- c: tests/docs/game.yaml -->\n```c\n"
                "void game_texture_on_add(game_world *w, game_entity e, const game_texture *value) {\n"
                "    (void)w; (void)e; (void)value;\n}\n```\n")
        [errors] = self.check(page)
        self.assertIsNotNone(errors)
        self.assertIn("conflicting types", errors)

    def test_a_fragment_in_a_function_with_its_prelude_compiles(self):
        page = ("<!-- c: tests/docs/game.yaml, in a function\nextern game_world *w;\nafter:\n(void)p;\n-->\n"
                "```c\nconst game_position *p = game_position_get(w, game_spawn_player(w));\n```\n")
        self.assertEqual(self.check(page), [None])

    def test_a_name_the_header_lacks_fails_at_its_line_in_the_page(self):
        page = ("text\n\n<!-- c: tests/docs/game.yaml, in a function\nextern game_world *w;\n-->\n"
                "```c\ngame_velocity_set(w, GAME_ENTITY_NULL, (game_velocity){0});\n"
                "game_warp_run(w);\n```\n")
        [errors] = self.check(page)
        self.assertRegex(errors, r"page\.md:8:\d+: error: implicit declaration of function .game_warp_run")


# --- The schema reference ---------------------------------------------------------------------

def json_schema_keys() -> List[Tuple[Tuple[str, ...], str]]:
    """Every key of the JSON Schema: (owner, key), the owner being the path of
    section names and '*' (an entry of a section) down to the key's mapping;
    ('field',) for a field's long form."""
    schema = json.loads(read("schema/strata.schema.json"))
    found: List[Tuple[Tuple[str, ...], str]] = []

    def walk(node, owner: Tuple[str, ...]) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item, owner)
        if not isinstance(node, dict):
            return
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                for name, sub in value.items():
                    if (owner, name) not in found:
                        found.append((owner, name))
                    walk(sub, owner + (name,))
            elif key == "additionalProperties":
                walk(value, owner + ("*",))
            elif key == "definitions":
                for name, sub in value.items():
                    walk(sub, (name,))
            elif key in ("allOf", "anyOf", "oneOf", "if", "then", "else", "items", "not"):
                walk(value, owner)

    walk(schema, ())
    return found


def heading_slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def sections(page: str) -> Dict[str, str]:
    """Each heading's text (in lower case, without its #) -> the page's text
    from it to the next heading of the same or a higher level."""
    lines = read(page).split("\n")
    heads = []
    in_code = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            in_code = not in_code
        elif not in_code and re.match(r"^#{1,6} ", line):
            heads.append((i, len(line) - len(line.lstrip("#")), line.lstrip("#").strip()))
    out = {}
    for n, (i, level, title) in enumerate(heads):
        end = next((j for j, lv, _ in heads[n + 1:] if lv <= level), len(lines))
        out[title.lower()] = "\n".join(lines[i:end])
    return out


def section_of(owner: Tuple[str, ...]) -> str:
    """The heading of docs/schema.md that documents the keys of `owner`."""
    return {(): "top level", ("field",): "fields"}.get(owner[:1], owner[0] if owner else "top level")


class TestSchemaReference(unittest.TestCase):
    def test_every_key_of_the_json_schema_is_in_the_reference(self):
        parts = sections("docs/schema.md")
        keys = json_schema_keys()
        self.assertGreater(len(keys), 40)  # the walk found the schema's keys
        for owner, key in keys:
            section = section_of(owner)
            with self.subTest(key="/".join(owner + (key,))):
                self.assertIn(section, parts, f"docs/schema.md has no section '## {section.capitalize()}' "
                                              f"for the key '{key}' of {'/'.join(owner) or 'the top level'}")
                text = parts[section]
                self.assertTrue(f"`{key}`" in text or re.search(rf"^\s*{re.escape(key)}:", text, re.M)
                                or re.search(rf"[{{,]\s*{re.escape(key)}:", text),
                                f"docs/schema.md, section '{section}': the key '{key}' of "
                                f"{'/'.join(owner) or 'the top level'} is not documented")

    def test_every_section_of_the_schema_has_its_own_heading(self):
        parts = sections("docs/schema.md")
        schema = json.loads(read("schema/strata.schema.json"))
        for key, value in schema["properties"].items():
            if isinstance(value.get("additionalProperties"), dict):  # a section: names -> entries
                with self.subTest(section=key):
                    self.assertIn(key, parts, f"docs/schema.md has no '## {key.capitalize()}' section")


# --- Links, words, the tutorial's place ----------------------------------------------------------

_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def prose(page: str) -> str:
    """The page without its fenced blocks and inline code."""
    out, in_code = [], False
    for line in read(page).split("\n"):
        if _FENCE.match(line):
            in_code = not in_code
            continue
        out.append("" if in_code else re.sub(r"`[^`]*`", "", line))
    return "\n".join(out)


def links(page: str) -> List[str]:
    return _LINK.findall(prose(page))


def anchors(page: str) -> set:
    found, seen = set(), {}
    for title in sections(page):
        slug = heading_slug(title)
        found.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return found


class TestLinks(unittest.TestCase):
    def test_every_relative_link_and_anchor_resolves(self):
        for page in pages():
            for target in links(page):
                if re.match(r"^[a-z]+:", target):
                    continue  # http:, https:, mailto:
                with self.subTest(page=page, link=target):
                    path, _, anchor = target.partition("#")
                    file = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
                    self.assertTrue(os.path.exists(os.path.join(ROOT, file)), f"{page}: no file {target}")
                    if anchor and file.endswith(".md"):
                        self.assertIn(anchor, anchors(file), f"{page}: no heading #{anchor} in {file}")

    def test_the_reference_and_the_pages_link_each_other(self):
        reference = {os.path.normpath(os.path.join("docs", t.partition("#")[0])) for t in links("docs/schema.md")}
        for page in ("docs/guide.md", "docs/systems.md", "docs/events.md", "docs/relations.md", "docs/threads.md",
                     "docs/tutorial.md"):
            with self.subTest(page=page):
                self.assertTrue(any(t.partition("#")[0] == "schema.md" for t in links(page)),
                                f"{page} does not link the schema reference")
                self.assertIn(page, reference, f"docs/schema.md does not link {page}")

    def test_readme_links_the_tutorial_right_after_the_two_commands(self):
        text = read("README.md")
        commands = text.index("## Two commands")
        after = text.index("```", text.index("```", commands) + 3) + 3
        next_paragraph = text[after:].strip().split("\n\n")[0]
        self.assertIn("](docs/tutorial.md)", next_paragraph)

    def test_no_page_cites_a_seed(self):
        # "the seed's assemblages", or "seed" and a three-digit number: a reader
        # cannot look those up; a random number generator's seed is fine.
        words = re.compile(r"\bseeds?\s+0\d\d\b|\bthe seeds?'s?\b|\bseeds?\s+\d{3}(?:\s+and\s+\d{3})?\b", re.I)
        files = pages() + [os.path.relpath(os.path.join(d, f), ROOT)
                           for sub in ("examples/tutorial", "tests/docs")
                           for d, _, fs in os.walk(os.path.join(ROOT, sub)) for f in fs
                           if f.endswith((".c", ".h", ".yaml", ".py")) and f != "test_docs.py"]
        for path in files:
            for n, line in enumerate(read(path).split("\n"), 1):
                with self.subTest(where=f"{path}:{n}"):
                    self.assertIsNone(words.search(line), f"{path}:{n}: {line.strip()}")


if __name__ == "__main__":
    unittest.main()

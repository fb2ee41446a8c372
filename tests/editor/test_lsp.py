"""A scripted editor session: yaml-language-server (installed into
build/npm/ by tools/deps.sh) opens the example schemas and broken ones
through their modelines and the committed JSON Schema, and answers as it
would in VS Code or Neovim: diagnostics, completion and hover text.

The session's messages are written to build/editor/lsp-transcript.txt and
a readable summary to build/editor/lsp-session.txt (quoted by
docs/editing.md).
"""
import json
import re
import unittest
from pathlib import Path

from codegen import spec
from codegen.model import SCALARS
from tests.editor.lsp import REPO, Server

MODELINE = "# yaml-language-server: $schema=strata.schema.json"
EXPECT = re.compile(r"#\s*expect:\s*(.+?)\s*$")
OUT = REPO / "build" / "editor"
HEADER = "# yaml-language-server: $schema=../../schema/strata.schema.json\nworld: game\nversion: 1\n"


def expectations(text):
    """{line (0-based): [message, ...]} from the file's `# expect: MESSAGE | MESSAGE` comments."""
    return {number: m.group(1).split(" | ") for number, line in enumerate(text.splitlines())
            if (m := EXPECT.search(line))}


def documentation(item):
    doc = item.get("documentation", "")
    return doc.get("value", "") if isinstance(doc, dict) else doc


class EditorSessionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.transcript = []
        cls.session = []  # what docs/editing.md shows: each step and its answer
        cls.server = Server(cls.transcript).__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / "lsp-transcript.txt").write_text("\n".join(cls.transcript) + "\n", encoding="utf-8")
        (OUT / "lsp-session.txt").write_text("\n".join(cls.session) + "\n", encoding="utf-8")

    def log(self, text):
        self.session.append(text)

    def open_text(self, name, text):
        """Open an unsaved buffer `text` as tests/editor/NAME (so its modeline
        finds the schema)."""
        return self.server.open(f"tests/editor/{name}", text)

    # --- diagnostics ------------------------------------------------------------------

    def test_example_schemas_have_no_diagnostic(self):
        for path in sorted((REPO / "schema").glob("*.yaml")):
            with self.subTest(schema=path.name):
                self.assertEqual(path.read_text(encoding="utf-8").splitlines()[0], MODELINE)
                uri = self.server.open(path.relative_to(REPO))
                self.assertEqual(self.server.diagnostics(uri), [])
                self.server.close(uri)

    def test_broken_schemas_get_their_diagnostics(self):
        for path in sorted((REPO / "tests" / "editor" / "broken").glob("*.yaml")):
            with self.subTest(schema=path.name):
                text = path.read_text(encoding="utf-8")
                expected = expectations(text)
                self.assertTrue(expected, "a broken schema names the diagnostics it expects")
                uri = self.server.open(path.relative_to(REPO))
                published = self.server.diagnostics(uri)
                lines = text.splitlines()
                self.log(f"$ diagnostics for {path.relative_to(REPO)}")
                def position(d):
                    return d["range"]["start"]["line"], d["range"]["start"]["character"]
                for d in sorted(published, key=position):
                    start = d["range"]["start"]
                    self.log(f"  {start['line'] + 1}:{start['character'] + 1}: {d['message']}")
                    self.log(f"      {lines[start['line']].split('#')[0].rstrip()}")
                    self.log(f"      {' ' * start['character']}^")
                got = {}
                for d in published:
                    got.setdefault(d["range"]["start"]["line"], []).append(d["message"])
                for line, messages in expected.items():
                    for message in messages:
                        self.assertTrue(any(message in m for m in got.get(line, [])),
                                        f"{path.name}:{line + 1}: expected '{message}', got {got.get(line)}")
                unexpected = {line: m for line, m in got.items() if line not in expected}
                self.assertEqual(unexpected, {}, f"{path.name}: diagnostics on lines that expect none")
                self.server.close(uri)

    def test_missing_world_and_version(self):
        uri = self.open_text("missing.yaml", "# yaml-language-server: $schema=../../schema/strata.schema.json\n"
                                             "components:\n  Position: { x: f32 }\n")
        messages = [d["message"] for d in self.server.diagnostics(uri)]
        self.assertTrue(any('"world"' in m for m in messages), messages)
        self.assertTrue(any('"version"' in m for m in messages), messages)
        self.server.close(uri)

    # --- completion ---------------------------------------------------------------------

    def test_completion_of_a_systems_keys(self):
        text = HEADER + "systems:\n  Move:\n    re\n"
        uri = self.open_text("complete_system.yaml", text)
        items = {item["label"]: item for item in self.server.completion(uri, 5, 6)}
        self.log("$ completion at 'systems: Move: re|'")
        for label, item in items.items():
            self.log(f"  {label:10} {documentation(item).splitlines()[0] if documentation(item) else ''}")
        self.assertEqual(set(items), set(spec.SYSTEM_KEYS))
        read = next(k for k in spec.SYSTEM if k.name == "read")
        self.assertIn(read.description, documentation(items["read"]))
        self.server.close(uri)

    def test_completion_of_a_field_type(self):
        text = HEADER + "components:\n  Position:\n    x: \n"
        uri = self.open_text("complete_type.yaml", text)
        items = {item["label"]: item for item in self.server.completion(uri, 5, 7)}
        self.log("$ completion at 'components: Position: x: |'")
        for label, item in items.items():
            self.log(f"  {label:10} {documentation(item)}")
        for name in SCALARS + ("entity", "char[16]", "f32[4]"):
            self.assertIn(name, items)
        self.assertEqual(documentation(items["u8"]), spec.SCALAR_DESCRIPTIONS["u8"])
        self.server.close(uri)

    def test_completion_of_a_long_form_type(self):
        text = HEADER + "components:\n  Position:\n    x: { type: }\n"
        uri = self.open_text("complete_long_type.yaml", text)
        labels = {item["label"] for item in self.server.completion(uri, 5, 15)}
        self.assertTrue(set(SCALARS) <= labels, labels)
        self.server.close(uri)

    # --- hover ---------------------------------------------------------------------------

    def test_hover_on_a_key(self):
        path = "schema/particles.yaml"
        lines = (REPO / path).read_text(encoding="utf-8").splitlines()
        uri = self.server.open(path)
        line = next(i for i, text in enumerate(lines) if text.startswith("    read:"))
        hover = self.server.hover(uri, line, 6)
        self.log(f"$ hover at {path}:{line + 1}:7 ('{lines[line].strip()}')")
        self.log("\n".join("  " + text for text in hover.splitlines()))
        read = next(k for k in spec.SYSTEM if k.name == "read")
        self.assertIn(read.description, hover)
        top = self.server.hover(uri, next(i for i, text in enumerate(lines) if text.startswith("world:")), 1)
        self.assertIn(spec.TOP_LEVEL[0].description, top)
        self.server.close(uri)


if __name__ == "__main__":
    unittest.main()

"""The loader (positions, scalar kinds, duplicate keys, YAML errors) and
the Diagnostic format."""
import textwrap
import unittest

from codegen.errors import Diagnostic, did_you_mean, sorted_by_position
from codegen.load import Mapping, Scalar, Sequence, load
from codegen.model import Loc


def parse(text):
    return load("f.yaml", textwrap.dedent(text).encode("utf-8"))


class LoadTest(unittest.TestCase):
    def test_keys_and_values_carry_one_based_positions(self):
        root, diagnostics = parse("""\
            world: w
            components:
              Position: { x: f32 }
            """)
        self.assertEqual(diagnostics, [])
        self.assertIsInstance(root, Mapping)
        self.assertEqual(root.loc, Loc("f.yaml", 1, 1))
        (world_key, world), (components_key, components) = root.items
        self.assertEqual((world_key.text, world_key.loc), ("world", Loc("f.yaml", 1, 1)))
        self.assertEqual((world.text, world.loc), ("w", Loc("f.yaml", 1, 8)))
        position_key, body = components.items[0]
        self.assertEqual(position_key.loc, Loc("f.yaml", 3, 3))
        self.assertEqual(body.loc, Loc("f.yaml", 3, 13))
        self.assertEqual(body.items[0][1].loc, Loc("f.yaml", 3, 18))

    def test_scalars_keep_their_text_kind_and_quoting(self):
        root, _ = parse("""\
            a: 1e3
            b: "x"
            c: 0x1F
            on: ~
            d:
            e: [true, 'false']
            """)
        values = {key.text: value for key, value in root.items}
        self.assertEqual((values["a"].text, values["a"].kind, values["a"].quoted), ("1e3", "str", False))
        self.assertEqual((values["b"].text, values["b"].quoted), ("x", True))
        self.assertEqual(values["c"].kind, "int")
        self.assertTrue(values["on"].is_null)  # and the key `on` stays the text "on"
        self.assertTrue(values["d"].is_null)
        self.assertIsInstance(values["e"], Sequence)
        self.assertEqual([(s.text, s.kind) for s in values["e"].items], [("true", "bool"), ("false", "str")])

    def test_duplicate_key_is_reported_and_dropped(self):
        root, diagnostics = parse("""\
            a: 1
            b: 2
            a: 3
            """)
        self.assertEqual([key.text for key, _ in root.items], ["a", "b"])
        self.assertEqual(root.get("a").text, "1")
        self.assertEqual([str(d) for d in diagnostics],
                         ["f.yaml:3:1: error: duplicate key 'a' (first defined at 1:1)"])

    def test_syntax_error_has_a_position_and_no_tree(self):
        root, diagnostics = parse("a: [1, 2\nb: 3\n")
        self.assertIsNone(root)
        self.assertEqual(len(diagnostics), 1)
        self.assertEqual((diagnostics[0].loc.line, diagnostics[0].loc.col), (2, 2))
        self.assertTrue(diagnostics[0].message.startswith("invalid YAML: "))

    def test_control_character_is_a_positioned_error(self):
        root, diagnostics = load("f.yaml", b"a: 1\nb: \x07\n")
        self.assertIsNone(root)
        self.assertEqual(diagnostics[0].loc, Loc("f.yaml", 2, 4))

    def test_not_utf8(self):
        root, diagnostics = load("f.yaml", b"a: 1\nbb: \xff\n")
        self.assertIsNone(root)
        self.assertEqual(str(diagnostics[0]), "f.yaml:2:5: error: the schema is not valid UTF-8")

    def test_empty_document_is_a_null_scalar(self):
        root, diagnostics = load("f.yaml", b"# nothing\n")
        self.assertEqual((root, diagnostics), (Scalar("", "null", False, Loc("f.yaml", 1, 1)), []))

    def test_aliases_are_shared_not_copied(self):
        root, diagnostics = parse("""\
            a: &v { x: f32 }
            b: *v
            """)
        self.assertEqual(diagnostics, [])
        self.assertIs(root.get("a"), root.get("b"))

    def test_recursive_alias_is_an_error(self):
        root, diagnostics = parse("a: &v [1, *v]\n")
        self.assertEqual([d.message for d in diagnostics], ["recursive YAML alias"])

    def test_custom_tags_are_rejected(self):
        _, diagnostics = parse("a: !python/name:os.system x\n")
        self.assertEqual([d.message for d in diagnostics], ["unsupported YAML tag '!python/name:os.system'"])


class DiagnosticTest(unittest.TestCase):
    def test_format_with_and_without_hint(self):
        loc = Loc("schema/game.yaml", 12, 5)
        self.assertEqual(str(Diagnostic(loc, "system 'Move': unknown component 'Positon'",
                                        "did you mean 'Position'?")),
                         "schema/game.yaml:12:5: error: system 'Move': unknown component 'Positon' "
                         "(did you mean 'Position'?)")
        self.assertEqual(str(Diagnostic(loc, "oops", severity="warning")), "schema/game.yaml:12:5: warning: oops")

    def test_unknown_severity_is_refused(self):
        with self.assertRaises(ValueError):
            Diagnostic(Loc("f", 1, 1), "m", severity="fatal")

    def test_did_you_mean(self):
        self.assertEqual(did_you_mean("Positon", ["Velocity", "Position"]), "did you mean 'Position'?")
        self.assertIsNone(did_you_mean("zzz", ["Velocity", "Position"]))

    def test_sorted_by_position_is_stable(self):
        a = Diagnostic(Loc("f", 2, 1), "a")
        b = Diagnostic(Loc("f", 1, 9), "b")
        c = Diagnostic(Loc("f", 2, 1), "c")
        self.assertEqual(sorted_by_position([a, b, c]), [b, a, c])


if __name__ == "__main__":
    unittest.main()

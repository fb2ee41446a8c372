"""The threaded schedule (codegen/schedule.py): which systems share a batch,
which are kept apart and why, and `threads: true` switching batches on."""
import unittest

from tests.codegen.test_validate import check, valid

HEAD = """\
world: w
version: 1
threads: true
phases: [update, draw]
components:
  Position: { x: f32 }
  Velocity: { x: f32 }
  Tint: { r: u8 }
  Frozen: {}
resources:
  Clock: { t: f32 }
"""
EVENTS = """\
events:
  Hit: { v: i32 }
"""


def batches(schema):
    return [[y.name for y in b.systems] for b in schema.schedule.batches]


def apart(schema):
    return {(p.earlier, p.later): p.reasons for p in schema.schedule.apart}


class ScheduleTest(unittest.TestCase):
    def test_disjoint_systems_share_a_batch_and_a_writer_waits_for_a_reader(self):
        schema = valid(HEAD + """
systems:
  Move: { read: [Velocity], write: [Position] }
  Paint: { read: [Velocity], write: [Tint] }
  Drag: { write: [Velocity] }
""")
        self.assertEqual(batches(schema), [["Move", "Paint"], ["Drag"]])
        self.assertEqual(apart(schema), {("Move", "Drag"): ("Velocity",), ("Paint", "Drag"): ("Velocity",)})

    def test_with_and_without_do_not_conflict_but_resources_events_and_order_do(self):
        schema = valid(HEAD + EVENTS + """
systems:
  A: { read: [Position], without: [Frozen], resources: { read: [Clock] } }
  B: { write: [Tint], with: [Frozen], resources: { read: [Clock] } }
  C: { resources: { write: [Clock] } }
  D: { read: [Tint], emit: [Hit], after: [B] }
  E: { read: [Position], receive: [Hit] }
""")
        self.assertEqual(batches(schema), [["A", "B"], ["C", "D"], ["E"]])
        self.assertEqual(apart(schema)[("A", "C")], ("res Clock",))
        self.assertEqual(apart(schema)[("B", "D")], ("Tint", "order"))
        self.assertEqual(apart(schema)[("D", "E")], ("event Hit",))

    def test_two_emitters_of_one_event_share_a_batch_but_not_with_its_receiver(self):
        schema = valid(HEAD + EVENTS + """
systems:
  A: { read: [Position], emit: [Hit] }
  B: { read: [Velocity], emit: [Hit], parallel: true }
  E: { read: [Position], receive: [Hit] }
""")
        self.assertEqual(batches(schema), [["A", "B"], ["E"]])
        self.assertNotIn(("A", "B"), apart(schema))
        self.assertEqual(apart(schema)[("B", "E")], ("event Hit",))

    def test_a_changed_system_runs_alone_and_batches_stop_at_a_phase(self):
        schema = valid(HEAD + """
systems:
  A: { read: [Position] }
  C: { read: [Velocity] }
  B: { read: [Tint], changed: [Tint] }
  E: { read: [Velocity] }
  D: { phase: draw, read: [Velocity] }
""")
        self.assertEqual(batches(schema), [["A", "C"], ["B"], ["E"], ["D"]])
        self.assertEqual(apart(schema)[("A", "B")], ("changed set",))

    def test_a_pair_a_chain_already_keeps_apart_is_not_listed(self):
        chain = "".join(f"  S{i}: {{ write: [Position]{f', after: [S{i - 1}]' if i else ''} }}\n" for i in range(40))
        schema = valid(HEAD + "systems:\n" + chain + "  Side: { read: [Velocity] }\n  Last: { write: [Velocity] }\n")
        pairs = apart(schema)
        self.assertEqual(len(batches(schema)), 40)  # Side and Last fit beside S0 and S1
        self.assertEqual(pairs[("S0", "S1")], ("Position", "order"))
        self.assertEqual(pairs[("S38", "S39")], ("Position", "order"))
        self.assertNotIn(("S0", "S2"), pairs)  # S1 keeps them apart
        self.assertEqual(pairs[("Side", "Last")], ("Velocity",))
        self.assertEqual(len(pairs), 39 + 1)

    def test_a_run_if_reads_its_resource_and_in_state_reads_nothing(self):
        schema = valid(HEAD.replace("resources:", "states:\n  Mode: [menu, play]\nresources:")
                       .replace("Clock: { t: f32 }", "Clock: { t: f32, on: bool }") + """
systems:
  Tick: { resources: { write: [Clock] } }
  Gated: { read: [Position], run_if: { Clock: on } }
  Playing: { write: [Tint], in_state: { Mode: play } }
  Asks: { resources: { write: [Mode] } }
  Later: { read: [Position], run_if: { Clock: "not on" } }
""")
        # A condition is a read: its writer (Tick) runs in an earlier batch, readers share one.
        self.assertEqual(batches(schema), [["Tick", "Playing", "Asks"], ["Gated", "Later"]])
        self.assertEqual(apart(schema)[("Tick", "Gated")], ("res Clock",))
        # in_state reads no resource: the state changes only at transition points, between batches.
        self.assertNotIn(("Asks", "Playing"), apart(schema))

    def test_systems_that_run_on_transitions_are_in_no_batch(self):
        schema = valid(HEAD.replace("resources:", "states:\n  Mode: [menu, play]\nresources:") + """
systems:
  Move: { read: [Velocity], write: [Position] }
  Enter: { on_enter: { Mode: play }, write: [Position] }
  Leave: { on_exit: { Mode: play }, after: [Enter] }
  Draw: { phase: draw, read: [Position] }
""")
        self.assertEqual(batches(schema), [["Move"], ["Draw"]])
        # After every system of a phase, in declaration order (then before/after among them).
        self.assertEqual([y.name for y in schema.systems], ["Move", "Draw", "Enter", "Leave"])
        self.assertEqual([y.name for y in schema.transition_systems], ["Enter", "Leave"])

    def test_without_threads_every_system_is_a_batch(self):
        schema = valid(HEAD.replace("threads: true\n", "") + """
systems:
  Move: { read: [Velocity], write: [Position], parallel: true }
  Paint: { read: [Velocity], write: [Tint], main_thread: true }
""")
        self.assertEqual(batches(schema), [["Move"], ["Paint"]])
        self.assertTrue(schema.systems[0].parallel)
        self.assertTrue(schema.systems[1].main_thread)
        self.assertFalse(schema.schedule.batches[0].alone)  # split: run through the pool
        self.assertTrue(schema.schedule.batches[1].alone)

    def test_a_thousand_systems_writing_one_component(self):
        """1,023 systems writing Position: as a chain they list n - 1 pairs
        and warn about nothing; with no order they warn once per system
        (naming the earlier writers, the rest counted), not once per pair."""
        n = 1023
        chain = "".join(f"  S{i}: {{ write: [Position]{f', after: [S{i - 1}]' if i else ''} }}\n" for i in range(n))
        schema = valid(HEAD + "systems:\n" + chain)
        self.assertEqual(len(schema.schedule.apart), n - 1)
        self.assertEqual(len(batches(schema)), n)
        flat = "".join(f"  S{i}: {{ write: [Position] }}\n" for i in range(n))
        _, diagnostics = check(HEAD + "systems:\n" + flat)
        self.assertEqual(len(diagnostics), n - 1)
        self.assertIn("systems 'S0' and 'S1' both write 'Position' in phase 'update' with no order between them "
                      "(give 'S1' 'after: [S0]' to make the order explicit)", diagnostics[0])
        self.assertIn("systems 'S0', 'S1', 'S2' (and 1,019 more) and 'S1022' all write 'Position' in phase "
                      "'update' with no order between them (give 'S1022' 'after: [S1021]'", diagnostics[-1])


class WriteOrderWarningTest(unittest.TestCase):
    """Two systems of a phase writing one thing with no before/after
    between them run in declaration order: a warning says so."""

    def warnings(self, systems):
        _, diagnostics = check(HEAD + "systems:\n" + systems)
        return diagnostics

    def test_an_order_through_a_third_system_is_an_order(self):
        self.assertEqual(self.warnings("""\
  A: { write: [Position] }
  B: { read: [Velocity], after: [A] }
  C: { write: [Position], after: [B] }
"""), [])

    def test_other_phases_and_reads_do_not_count(self):
        self.assertEqual(self.warnings("""\
  A: { write: [Position] }
  B: { read: [Position] }
  C: { write: [Position], phase: draw }
"""), [])

    def test_each_system_names_its_unordered_earlier_writers(self):
        got = self.warnings("""\
  A: { write: [Position, Tint] }
  B: { write: [Velocity], resources: { write: [Clock] } }
  C: { write: [Tint, Velocity], after: [A] }
  D: { write: [Position], resources: { write: [Clock] } }
""")
        self.assertEqual(len(got), 2, got)
        self.assertIn("test.yaml:15:3: warning: systems 'B' and 'C' both write 'Velocity' in phase 'update'", got[0])
        self.assertIn("test.yaml:16:3: warning: systems 'A', 'B' and 'D' all write 'Position', 'Clock' in phase "
                      "'update' with no order between them (give 'D' 'after: [B]'", got[1])


if __name__ == "__main__":
    unittest.main()

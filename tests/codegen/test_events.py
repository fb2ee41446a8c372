"""Events in the validator: the order it gives receivers, the warning about a
receiver that runs before an emitter, and `receive_late` silencing it. The
exact errors are bad cases (tests/codegen/bad/event_*.yaml)."""
import unittest

from tests.codegen.test_validate import check, valid

HEAD = """\
world: w
version: 1
events:
  Ping: { v: i32 }
"""


def order(schema):
    return [y.name for y in schema.systems]


class EventScheduleTest(unittest.TestCase):
    def test_a_receiver_declared_first_runs_after_its_emitter(self):
        schema = valid(HEAD + """
systems:
  Hear: { receive: [Ping] }
  Other: {}
  Say: { emit: [Ping] }
""")
        self.assertEqual(order(schema), ["Other", "Say", "Hear"])
        self.assertEqual(schema.systems[2].receive, ("Ping",))
        self.assertEqual(schema.events[0].name, "Ping")

    def test_before_after_wins_and_the_receiver_is_warned_about(self):
        _, messages = check(HEAD + """
systems:
  Hear: { receive: [Ping], before: [Say] }
  Say: { emit: [Ping] }
""")
        self.assertEqual(messages, [
            "test.yaml:7:21: warning: system 'Hear' receives 'Ping' but runs before 'Say', which emits it: it sees "
            "those events one step late (list 'Ping' in 'receive_late' to say so, or order 'Hear' after 'Say')"])

    def test_an_earlier_phase_is_warned_about_and_receive_late_silences_it(self):
        text = HEAD + """
phases: [input, update]
systems:
  Say: { emit: [Ping] }
  Hear: { phase: input, %s: [Ping] }
"""
        _, messages = check(text % "receive")
        self.assertEqual(len(messages), 1)
        self.assertIn("warning: system 'Hear' receives 'Ping' but runs before 'Say'", messages[0])
        schema = valid(text % "receive_late")
        self.assertEqual(order(schema), ["Hear", "Say"])
        self.assertEqual(schema.systems[0].receive_late, ("Ping",))
        self.assertEqual(schema.systems[0].receives, ("Ping",))

    def test_first_receiver_is_the_earliest_receiving_position(self):
        schema = valid(HEAD + """
  Pong: { v: i32 }
systems:
  Other: {}
  Say: { emit: [Ping] }
  Hear: { receive: [Ping], emit: [Pong] }
  Late: { receive_late: [Pong], before: [Hear] }
  Also: { receive: [Ping] }
""")
        positions = {y.name: y.order for y in schema.systems}
        self.assertEqual(schema.first_receiver("Ping"), min(positions["Hear"], positions["Also"]))
        self.assertEqual(schema.first_receiver("Pong"), positions["Late"])
        self.assertLess(positions["Late"], positions["Hear"])

    def test_two_systems_feeding_each_other_warn_once(self):
        _, messages = check("""\
world: w
version: 1
events:
  Ping: { v: i32 }
  Pong: { v: i32 }
systems:
  A: { emit: [Ping], receive: [Pong] }
  B: { emit: [Pong], receive: [Ping] }
""")
        self.assertEqual(len(messages), 1)
        self.assertIn("warning: system 'B' receives 'Ping' but runs before 'A'", messages[0])  # A, declared first, got its order

    def test_an_event_member_meets_a_component_member(self):
        from codegen import names
        schema = valid(HEAD + """
components:
  PingCount: { n: u32 }
systems:
  Say: { emit: [Ping] }
  Hear: { receive: [Ping], read: [PingCount] }
""")
        errors = [str(d) for d in names.collisions(schema)]
        self.assertEqual(len(errors), 1)
        self.assertIn("C name 'ping_count' as a member of struct w_hear_ctx collides with", errors[0])


if __name__ == "__main__":
    unittest.main()

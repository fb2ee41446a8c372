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


SENT = """\
world: w
version: 1
events:
  Key: { code: u32, sent_by: game }
  Tick: { n: u32, sent_by: game }
systems:
  Hear: { receive: [Key, Tick] }
  Say: { emit: [Tick] }
"""


class SentByGameTest(unittest.TestCase):
    """`sent_by: game`: an event game code (or a hook) sends with
    `<world>_<event>_send`, which no system need emit."""

    def test_no_system_need_emit_it_and_its_receivers_keep_their_checks(self):
        schema = valid(SENT)
        self.assertEqual([(e.name, e.sent_by) for e in schema.events], [("Key", "game"), ("Tick", "game")])
        # A system may emit a game-sent event too: its receivers run after it, as for any event.
        self.assertEqual(order(schema), ["Say", "Hear"])
        _, messages = check(SENT.replace("  Hear: { receive: [Key, Tick] }", "  Hear: { receive: [Key, Tick], "
                                                                            "before: [Say] }"))
        self.assertEqual(len(messages), 1)
        self.assertIn("warning: system 'Hear' receives 'Tick' but runs before 'Say'", messages[0])
        _, messages = check(SENT.replace(", sent_by: game }\n  Tick", " }\n  Tick").replace("emit: [Tick]", "emit: []"))
        self.assertEqual(messages, ["test.yaml:4:3: error: event 'Key': no system emits it (list it in a system's "
                                    "'emit', say 'sent_by: game' if game code sends it, or remove the event)"])

    def test_game_code_sends_and_a_system_receives(self):
        import tempfile
        from pathlib import Path
        from codegen import render
        from tests.codegen import ccheck, crun
        schema = valid("""\
world: inp
version: 1
events:
  Key: { code: u32, sent_by: game }
resources:
  Seen: { count: u32, sum: u32 }
systems:
  Input: { receive: [Key], resources: { write: [Seen] } }
""")
        main = r"""#include <stdio.h>
#include "inp.h"
void inp_input_run(inp_input_ctx *ctx) {
    for (uint32_t i = 0; i < ctx->key_count; i++) {
        ctx->seen->count++;
        ctx->seen->sum += ctx->key_events[i].code;
    }
}
int main(void) {
    inp_world *w = inp_world_create(NULL);
    if (w == NULL) { return 1; }
    for (uint32_t step = 1; step <= 3; step++) {
        for (uint32_t k = 0; k < step; k++) {
            if (inp_key_send(w, &(inp_key){ .code = 10 * step + k }) != STRATA_OK) { return 2; }
        }
        if (inp_world_step(w, 0.0f) != STRATA_OK) { return 3; }
        printf("%u %u\n", inp_seen_res(w)->count, inp_seen_res(w)->sum);
    }
    inp_world_destroy(w);
    return 0;
}
"""
        with tempfile.TemporaryDirectory() as tmp:
            sources = crun.write_outputs(Path(tmp), render.render(schema))
            self.assertEqual(ccheck.compile_each(sources, ["-std=c11"]), {})
            run = crun.build_and_run(Path(tmp), sources, main)
        # Each step's receiver sees the keys sent before it, once: 10; then 20, 21; then 30, 31, 32.
        self.assertEqual((run.returncode, run.stdout.split("\n")), (0, ["1 10", "3 51", "6 144", ""]), run.stderr)

#!/usr/bin/env python3
"""The inspector's programs stop when they are asked to: `swarm-inspect`
(what `ninja inspect` runs) and `inspect-game` (the browser test's world)
exit 0, their port closed, on SIGTERM, SIGINT and SIGHUP and when their
parent dies; and `ninja inspect`'s way of running a server (a console
edge through tools/console-run.py) stops it when ninja is sent SIGTERM,
which ninja does not pass on to a console edge.

    python3 tests/inspect/test_stop.py SWARM_INSPECT INSPECT_GAME
"""
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

PROGRAMS = {}  # name -> argv, from the command line
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIMIT = 20.0  # seconds anything here may take: a bound, never a wait


def read_url(stream):
    """Read lines until one names the inspector's URL; its port."""
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if m:
            return int(m.group(1))
    raise AssertionError("the program printed no inspector URL")


def listening(port):
    """True if something accepts connections on 127.0.0.1:port."""
    with socket.socket() as s:
        s.settimeout(2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def gone(pid):
    """True once process pid has exited (and, if it is not our child, been reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] == "Z"
    except FileNotFoundError:
        return True


def wait_until(what, condition):
    deadline = time.monotonic() + LIMIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {LIMIT:.0f} s: {what}")
        time.sleep(0.02)  # a poll's pace; the test ends as soon as the condition holds


class Stop(unittest.TestCase):
    def start(self, name):
        p = subprocess.Popen(PROGRAMS[name], stdout=subprocess.PIPE, text=True)
        self.addCleanup(p.stdout.close)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        port = read_url(p.stdout)
        self.assertTrue(listening(port))
        return p, port

    def test_signals_stop_the_server_and_exit_0(self):
        for name in PROGRAMS:
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                with self.subTest(program=name, signal=sig.name):
                    p, port = self.start(name)
                    p.send_signal(sig)
                    self.assertEqual(p.wait(LIMIT), 0)  # it stopped itself: not killed by the signal
                    self.assertFalse(listening(port))

    def test_parent_death_stops_the_server(self):
        for name in PROGRAMS:
            with self.subTest(program=name):
                # A parent that starts the program, says its pid, and is then killed.
                parent = subprocess.Popen(
                    [sys.executable, "-c", textwrap.dedent("""
                        import subprocess, sys, time
                        p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, text=True)
                        print(p.pid, flush=True)
                        for line in p.stdout:
                            print(line, end="", flush=True)
                    """)] + PROGRAMS[name], stdout=subprocess.PIPE, text=True)
                self.addCleanup(parent.stdout.close)
                self.addCleanup(lambda p=parent: p.poll() is None and p.kill())
                child = int(parent.stdout.readline())
                self.addCleanup(lambda pid=child: gone(pid) or os.kill(pid, signal.SIGKILL))
                port = read_url(parent.stdout)
                parent.kill()
                parent.wait()
                wait_until(f"{name} exits after its parent's death", lambda: gone(child))
                self.assertFalse(listening(port))

    def test_ninja_stopped_by_sigterm_stops_its_console_server(self):
        with tempfile.TemporaryDirectory() as build:
            argv = " ".join(PROGRAMS["swarm-inspect"])
            with open(os.path.join(build, "build.ninja"), "w") as f:
                f.write(textwrap.dedent(f"""\
                    rule run
                      command = $cmd
                      pool = console
                    build inspect: run
                      cmd = {sys.executable} {ROOT}/tools/console-run.py {argv}
                    """))
            ninja = subprocess.Popen(["ninja", "-C", build, "inspect"], stdout=subprocess.PIPE, text=True,
                                     start_new_session=True)  # alone: the SIGTERM reaches ninja only
            self.addCleanup(ninja.stdout.close)
            self.addCleanup(lambda: ninja.poll() is None and os.killpg(ninja.pid, signal.SIGKILL))
            port = read_url(ninja.stdout)
            ninja.send_signal(signal.SIGTERM)
            self.assertNotEqual(ninja.wait(LIMIT), 0)  # "interrupted by user"
            self.assertFalse(listening(port))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    PROGRAMS["swarm-inspect"] = [os.path.abspath(sys.argv[1]), "--count", "2000", "--inspect", "0"]
    PROGRAMS["inspect-game"] = [os.path.abspath(sys.argv[2]), "200", "0"]
    unittest.main(argv=sys.argv[:1] + sys.argv[3:], verbosity=2)

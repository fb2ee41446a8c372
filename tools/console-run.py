#!/usr/bin/env python3
"""Run a long-lived command (a server) from a console-pool ninja edge, and
stop it when ninja stops.

    python3 tools/console-run.py COMMAND [ARG...]

Ctrl-C reaches a console edge's command with ninja (they share the
terminal's process group), but a SIGTERM sent to ninja alone does not:
ninja (1.11) then closes its end of a pipe that the command inherited, and
waits for the command, which serves on. This wrapper runs COMMAND as its
child and sends it SIGTERM when that pipe's reader is gone (ninja stopped,
or died), when it is sent SIGTERM, SIGINT or SIGHUP itself, or when its
own parent dies; it then waits for COMMAND (SIGKILL after 10 s) and exits
with its status. Outside ninja (no such pipe) it only forwards signals.
"""
import fcntl
import os
import select
import signal
import stat
import subprocess
import sys

GRACE = 10.0  # seconds COMMAND has to stop after SIGTERM


def inherited_pipes():
    """The write ends of pipes this process inherited past stdin, stdout, stderr."""
    fds = []
    for name in os.listdir("/proc/self/fd") if os.path.isdir("/proc/self/fd") else []:
        fd = int(name)
        try:
            if fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode) and \
                    fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                fds.append(fd)
        except OSError:
            pass  # the descriptor listdir itself used, now closed
    return fds


def main(argv):
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    pipes = inherited_pipes()
    parent = os.getppid()
    child = subprocess.Popen(argv, close_fds=True)
    stop = []

    def forward(signum, frame):
        stop.append(signum)

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, forward)
    wake, woken = os.pipe()  # a signal's number is written here: the poll returns at once
    os.set_blocking(woken, False)
    signal.set_wakeup_fd(woken)
    poller = select.poll()
    poller.register(wake, select.POLLIN)
    for fd in pipes:
        poller.register(fd, 0)  # POLLERR and POLLHUP are always reported
    pidfd = os.pidfd_open(child.pid) if hasattr(os, "pidfd_open") else None
    if pidfd is not None:
        poller.register(pidfd, select.POLLIN)
    while child.poll() is None and not stop:
        # The timeout only notices a parent that died without closing the pipe.
        events = poller.poll(500)
        if any(fd in pipes for fd, _ in events) or os.getppid() != parent:
            stop.append(signal.SIGTERM)
    if child.poll() is None:
        child.send_signal(signal.SIGTERM if stop[0] != signal.SIGINT else signal.SIGINT)
        try:
            child.wait(GRACE)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    code = child.returncode
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

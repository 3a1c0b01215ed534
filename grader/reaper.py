"""One grade's own reaper process, and the process-tree primitives it shares with the sandbox.

A grade's cleanup must reach only what that grade started. `grade --all`, `grade check` and
`grade batch` run several grades as threads of one process, and that process cannot tell whose
orphans it holds: killing its children would kill the other grades. So each grade runs under a
reaper of its own. The reaper is a child subreaper: whatever the grade leaves behind (a worker's
escaped children, the workers of a grading process that was killed) is reparented to it, not to
the `grade` process. When the grading process ends, the reaper kills and reaps every child it
has, all of them the grade's, and then exits as the grading process did.

The runner signals the reaper, never the grading process: SIGINT asks the grading process to stop
(Ctrl-C, so that it closes its sandbox first), SIGTERM kills it at once (the outer limit). The
reaper sweeps either way. It is also told when `grade` itself dies (PR_SET_PDEATHSIG), and then
does the same as for SIGTERM.

Standard library only: the runner starts it as a script with -I -S, so it costs milliseconds.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

# Set to "off" to switch off the Linux-only mechanisms (pidfd, /proc, prctl, cgroups, CPU
# pinning), so that the kit's tests can take the path that macOS takes, on Linux.
LINUX_MECHANISMS_ENV = "GRADE_LINUX_MECHANISMS"
# A kill sweep gives up after this many rounds; each round kills every child it finds, so only a
# fork bomb outrunning the sweep needs more than a few (and RLIMIT_NPROC bounds those as root).
SWEEP_ROUNDS = 50
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def linux_mechanisms() -> bool:
    """Whether the Linux-only mechanisms may be used: on Linux, unless switched off for a test."""
    return sys.platform.startswith("linux") and os.environ.get(LINUX_MECHANISMS_ENV, "").lower() != "off"


def _prctl(option: int, value: int) -> bool:
    import ctypes

    return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0


def become_subreaper() -> bool:
    """Make orphaned descendants reparent to this process (Linux), so they can be found and killed."""
    return linux_mechanisms() and _prctl(PR_SET_CHILD_SUBREAPER, 1)


def kill_children(keep: set[int] = frozenset()) -> None:
    """Kill and reap this process's children (orphans adopted as subreaper included), except `keep`.

    Without /proc (macOS, or the Linux mechanisms switched off) children cannot be listed, and
    nothing is done: each worker's own process group is killed where it is closed instead.
    """
    if not linux_mechanisms() or not os.path.isdir("/proc"):
        return
    me = str(os.getpid())
    for _ in range(SWEEP_ROUNDS):
        found = False
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) in keep:
                continue
            try:
                with open(f"/proc/{name}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[1] == me:
                found = True
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(name), signal.SIGKILL)
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(int(name), 0)
        if not found:
            return
        time.sleep(0.01)


class _Reaper:
    """The reaper's state: the grading process it started, and whether it was told to stop."""

    def __init__(self, command: list[str]):
        self.child = subprocess.Popen(command)

    def interrupt(self, signum, frame) -> None:
        """SIGINT: pass it on, so the grading process closes its sandbox and says which uids it used."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.child.pid, signal.SIGINT)

    def stop(self, signum, frame) -> None:
        """SIGTERM, or `grade` died: kill the grading process now; the sweep follows its death."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.child.pid, signal.SIGKILL)


def main(argv: list[str]) -> None:
    """reaper.py -- COMMAND...: run COMMAND, kill whatever it leaves, and end as COMMAND ended."""
    if argv[:1] != ["--"] or len(argv) < 2:
        sys.exit("usage: reaper.py -- COMMAND...")
    parent = os.getppid()
    if linux_mechanisms():
        _prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))
    become_subreaper()
    # The handlers exist before the grading process does, so no signal is missed in between.
    pending: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: pending.append(signum))
    signal.signal(signal.SIGTERM, lambda signum, frame: pending.append(signum))
    reaper = _Reaper(argv[1:])
    signal.signal(signal.SIGINT, reaper.interrupt)
    signal.signal(signal.SIGTERM, reaper.stop)
    for signum in pending:
        (reaper.interrupt if signum == signal.SIGINT else reaper.stop)(signum, None)
    if os.getppid() != parent:  # `grade` died before the death signal was asked for
        reaper.stop(signal.SIGTERM, None)
    returncode = reaper.child.wait()
    kill_children()
    if returncode < 0:  # end as the grading process did, so the runner sees the same signal
        with contextlib.suppress(OSError, ValueError):  # SIGKILL has no handler to reset
            signal.signal(-returncode, signal.SIG_DFL)
        os.kill(os.getpid(), -returncode)
    sys.exit(returncode)


if __name__ == "__main__":
    main(sys.argv[1:])

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

import os
import signal
import sys
import time
from collections.abc import Callable  # already loaded by os: typing would cost the reaper 10 ms

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


def kill_children(keep: set[int] = frozenset(), all_ours: bool = False) -> None:
    """Kill and reap this process's children (orphans adopted as subreaper included), except `keep`.

    `all_ours`: every child of this process is the caller's to kill (a grade's reaper), so the
    kernel's own answer, that no child at all is left, may end the sweep at once. Otherwise (a
    process that also has children it must not reap) every round lists the machine's processes.
    Without /proc (macOS, or the Linux mechanisms switched off) children cannot be listed, and
    nothing is done: each worker's own process group is killed where it is closed instead.
    """
    if not linux_mechanisms() or not os.path.isdir("/proc"):
        return
    for _ in range(SWEEP_ROUNDS):
        # The common end of a grade: nothing left. waitpid says so for certain, where the search
        # below reads the stat file of every process on the machine (2 ms for 68 processes).
        if all_ours and not keep and _no_child_left():
            return
        found = False
        for pid in _children(keep):
            found = True
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):  # gone already, or reaped by its waiter
                pass
        if not found:
            return
        time.sleep(0.01)


def _no_child_left() -> bool:
    """Whether this process has no child left at all, once the dead ones are reaped."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] != 0:  # a dead child, reaped; 0: a live one is left
            pass
    except ChildProcessError:
        return True
    return False


def _children(keep: set[int]) -> list[int]:
    """This process's children but `keep`, from the parent field of every process's stat file."""
    me, found = str(os.getpid()), []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in keep:
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == me:
            found.append(int(name))
    return found


def reaper_command(command: list[str]) -> list[str]:
    """`command` run under a reaper of its own, which kills whatever it leaves and nothing else.

    -I -S: the reaper needs only the standard library. It is defined here, not beside the sandbox's
    set-up, so that a grade can start its reaper before it has loaded the rest of the sandbox.
    """
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), "--", *command]


def reap(start: Callable[[], int]) -> int:
    """Start the grade's process with `start` (it returns the pid), wait for it, kill whatever it
    left, and return its exit code (negative for a signal)."""
    parent = os.getppid()
    if linux_mechanisms():
        _prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))
    become_subreaper()
    child: list[int] = []  # the grading process, once started; a signal before that waits for it
    pending: list[int] = []

    def on_signal(signum, frame) -> None:
        if not child:
            pending.append(signum)
            return
        # SIGINT is passed on, so the grading process closes its sandbox and says which uids it
        # used; SIGTERM (or `grade` dying) kills it now. The sweep follows its death either way.
        try:
            os.kill(child[0], signal.SIGINT if signum == signal.SIGINT else signal.SIGKILL)
        except ProcessLookupError:  # it has just ended; the wait below sees it
            pass

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    child.append(start())
    for signum in pending:
        on_signal(signum, None)
    if os.getppid() != parent:  # the parent died before the death signal was asked for
        on_signal(signal.SIGTERM, None)
    returncode = _wait_for(child[0])
    kill_children(all_ours=True)  # the grade's process is reaped: every child left is the grade's leftover
    return returncode


def _wait_for(pid: int) -> int:
    """Wait for child `pid` to end, with the signal handlers run while it lives; its exit code.

    Not a blocking os.waitpid: a Python handler runs only between bytecodes, so a signal that lands
    after the last check and before waitpid's system call (a reaper preempted there, on a busy
    machine) would run its handler only once the child had ended, and a Ctrl-C passed on by that
    handler would never come. Here each signal, SIGCHLD included, also writes a byte to a pipe
    (set_wakeup_fd, from the C handler), and select returns on it, however late the wait begins.
    Set up after the child is started, so a forked grading process inherits none of it.
    """
    import select

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)  # set_wakeup_fd's rule: the C handler must never block
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)  # a handler of Python's, so it writes
    signal.set_wakeup_fd(wake_w)
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)  # after the set-up: a child that ended before it is seen here
            if done:
                return os.waitstatus_to_exitcode(status)
            select.select([wake_r], [], [])
            os.read(wake_r, 512)  # each wake only says "look again"
    finally:
        # The sweep that follows may reap a fork bomb's thousands: their SIGCHLDs must not fill the pipe.
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.close(wake_r)
        os.close(wake_w)


def end_as(returncode: int) -> None:
    """End this process (it does not return) as the grading process ended, so that whoever waits sees the same code or signal."""
    if returncode < 0:
        if -returncode != signal.SIGKILL:  # SIGKILL has no handler to reset
            signal.signal(-returncode, signal.SIG_DFL)
        os.kill(os.getpid(), -returncode)
    os._exit(returncode)  # nothing to flush or close: the interpreter's teardown would only delay the grade


def main(argv: list[str]) -> None:
    """reaper.py -- COMMAND...: run COMMAND, kill whatever it leaves, and end as COMMAND ended."""
    # os.posix_spawnp and os.waitpid, not subprocess: every grade starts a reaper, and importing
    # subprocess would double what it costs to start one.
    if argv[:1] != ["--"] or len(argv) < 2:
        sys.exit("usage: reaper.py -- COMMAND...")
    end_as(reap(lambda: os.posix_spawnp(argv[1], argv[1:], os.environ)))


if __name__ == "__main__":
    main(sys.argv[1:])

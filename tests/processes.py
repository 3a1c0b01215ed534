"""The live processes the kit's own tests look at for leftovers, found by what no process can shed.

A leftover is found by its uid and when it started (as root, each worker has a uid of its own),
and by its ancestry: a test that grades becomes a child subreaper (`Leftovers`), so whatever a
grade starts stays below the test, whatever it runs, whichever session or group it moves to,
and however its parents end. Neither is a command line, which a process that escaped and exec'd
another program (`/bin/sleep`, say) chooses itself.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
# A killed process takes a moment to leave /proc, and an orphan a moment to be reparented.
SETTLE_S = 5


@dataclass(frozen=True)
class Process:
    """One live process, as /proc shows it."""

    pid: int
    uids: frozenset[int]
    """Its real, effective, saved and filesystem uids."""
    started: int
    """When it started, in clock ticks since boot (/proc/PID/stat's starttime)."""


def now() -> int:
    """The time now in the units of Process.started: clock ticks since boot."""
    return int(float(Path("/proc/uptime").read_text().split()[0]) * os.sysconf("SC_CLK_TCK"))


def live_processes() -> list[Process]:
    """Every process this one may look at; those that end while being read are left out."""
    found = []
    for folder in Path("/proc").glob("[0-9]*"):
        try:
            status = (folder / "status").read_text().splitlines()
            stat = (folder / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        uids = frozenset(int(uid) for line in status if line.startswith("Uid:") for uid in line.split()[1:])
        # stat's fields after the name: the state is field 3, so starttime (field 22) is the 20th.
        found.append(Process(int(folder.name), uids, int(stat[19])))
    return found


def descendants(pid: int) -> list[int]:
    """Every live process below `pid`, parents before their children (from /proc's children lists)."""
    found, queue = [], [pid]
    while queue:
        parent = queue.pop(0)
        for tasks in Path(f"/proc/{parent}/task").glob("*/children"):
            try:
                children = [int(child) for child in tasks.read_text().split()]
            except OSError:  # ended while being read
                continue
            found += children
            queue += children
    return found


def _state(pid: int) -> str:
    """A process's state letter (Z for a zombie), or "" once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def _set_subreaper(on: bool) -> None:
    """Make orphaned descendants reparent to this process (or stop)."""
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


class Leftovers:
    """What the grades since this object was made left alive: by uid and start time, and by ancestry.

    While it is open this process is a child subreaper, so every process a grade starts stays
    among its descendants until it ends. Its children from before are set aside (with theirs).
    """

    def __init__(self):
        self.since = now()
        self.before = set(descendants(os.getpid()))
        _set_subreaper(True)

    def close(self) -> None:
        """Stop adopting orphans, and kill whatever was left, so that one test's leftovers fail only that test."""
        _set_subreaper(False)
        for pid in self._below():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._reap()

    def _below(self) -> set[int]:
        """This process's live descendants that were not there (nor below one that was) when watching began."""
        found = set(descendants(os.getpid()))
        for pid in self.before:
            found -= {pid, *descendants(pid)}
        return {pid for pid in found if _state(pid) not in ("", "Z")}

    def _reap(self) -> None:
        """Reap the zombies this process adopted (a grade's orphans that ended); a child it still waits for stays."""
        for pid in set(descendants(os.getpid())) - self.before:
            if _state(pid) == "Z":
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:  # a grandchild: its own parent reaps it
                    pass

    def alive(self, worker_uids: range | set[int] = frozenset()) -> dict[int, frozenset[int]]:
        """Leftovers (pid: uids): descendants of this process, and processes of `worker_uids` started since."""
        self._reap()
        below = self._below()
        by_uid = set()
        if os.geteuid() == 0:  # without root the workers' uid is everyone's, so it names nothing
            by_uid = {process.pid for process in live_processes()
                      if any(uid in worker_uids for uid in process.uids) and process.started >= self.since}
        return {process.pid: process.uids for process in live_processes() if process.pid in below | by_uid}

    def assert_none(self, worker_uids: range | set[int] = frozenset(), error: type[Exception] = AssertionError) -> None:
        """Nothing a grade started is alive, given a moment for killed processes to go."""
        deadline = time.monotonic() + SETTLE_S
        while (left := self.alive(worker_uids)) and time.monotonic() < deadline:
            time.sleep(0.05)
        if left:
            raise error(f"processes outlived the grade, by ancestry or by worker uid: {left}")


def supported() -> bool:
    """Whether leftovers can be found this way: Linux with /proc."""
    return sys.platform.startswith("linux") and Path("/proc/self/stat").exists()

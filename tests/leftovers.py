"""What a grade left behind, found by what nothing it started can shed: ancestry, uid and start time.

Processes: while a `Leftovers` watch is open this test process is a child subreaper, so every
process a grade starts stays among its descendants until it ends, whatever it runs now,
whichever session or group it moved to and however its parents ended. As root a process of a
worker uid that started during the watch counts too. A command line counts for nothing: a
process that escaped and exec'd `/bin/sleep` chooses its own.

Files and IPC objects: a top-level entry of a world-writable folder, or a SysV object, that is
new since the watch began and belongs to a worker uid (as root) or to this test's uid (without
root the workers keep it).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests import processes

PR_SET_CHILD_SUBREAPER = 36
# A killed process takes a moment to leave /proc, and an orphan a moment to be reparented.
SETTLE_S = 5
# The folders any uid may write to, where a file outlives the process that wrote it.
WORLD_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue")
SYSV_KINDS = ("shm", "sem", "msg")


@dataclass(frozen=True)
class Left:
    """What outlived the grades: live processes (pid: uids), files, and SysV IPC objects."""

    processes: dict[int, frozenset[int]]
    files: frozenset[str]
    ipc: frozenset[str]

    def __bool__(self) -> bool:
        return bool(self.processes or self.files or self.ipc)


def supported() -> bool:
    """Whether leftovers can be found this way: Linux with /proc."""
    return sys.platform.startswith("linux") and Path("/proc/self/stat").exists()


def _set_subreaper(on: bool) -> None:
    """Make orphaned descendants reparent to this process (or stop)."""
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def _entries() -> dict[str, int]:
    """Every top-level entry of the world-writable folders: path and owner."""
    found = {}
    for folder in map(Path, WORLD_WRITABLE):
        try:
            children = list(folder.iterdir())
        except OSError:  # not mounted here (/dev/mqueue), or not readable
            continue
        for path in children:
            try:
                found[str(path)] = path.lstat().st_uid
            except OSError:  # removed while being read
                continue
    return found


def _sysv_objects() -> dict[str, frozenset[int]]:
    """Every SysV IPC object this process can see: "shm 12" and its owner and creator uids."""
    found = {}
    for kind in SYSV_KINDS:
        lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
        columns = lines[0].split()
        for line in lines[1:]:
            row = dict(zip(columns, line.split()))
            found[f"{kind} {row[columns[1]]}"] = frozenset({int(row["uid"]), int(row["cuid"])})
    return found


class Leftovers:
    """A watch over what the grades run while it is open leave behind."""

    def __init__(self):
        self.since = processes.now()
        self.before = set(processes.descendants(os.getpid()))
        self.entries_before = set(_entries())
        self.ipc_before = set(_sysv_objects())
        _set_subreaper(True)

    def close(self) -> None:
        """Stop adopting orphans, and kill what was left, so that one test's leftovers fail only that test."""
        _set_subreaper(False)
        for pid in self._below():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + SETTLE_S  # killed processes become zombies a moment later
        while self._below() and time.monotonic() < deadline:
            self._reap()
            time.sleep(0.01)
        self._reap()

    def _below(self) -> set[int]:
        """This process's live descendants that were not there (nor below one that was) when the watch began."""
        found = set(processes.descendants(os.getpid()))
        for pid in self.before:
            found -= {pid, *processes.descendants(pid)}
        return {pid for pid in found if processes.state(pid) not in ("", "Z")}

    def _reap(self) -> None:
        """Reap the zombies this process adopted (a grade's orphans that ended)."""
        for pid in set(processes.descendants(os.getpid())) - self.before:
            if processes.state(pid) == "Z":
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:  # a grandchild: its own parent reaps it
                    pass

    def left(self, worker_uids: range | set[int] = frozenset()) -> Left:
        """What is left now: descendants, and processes, files and IPC objects of the worker uids new since."""
        self._reap()
        # Without root the workers keep this test's uid, so that is the one to look for.
        owners = worker_uids if os.geteuid() == 0 else {os.getuid()}
        below = self._below()
        if os.geteuid() == 0:  # a worker uid is a grade's own from its start only as root
            below |= {process.pid for process in processes.live_processes()
                      if any(uid in owners for uid in process.uids) and process.started >= self.since}
        return Left(
            processes={process.pid: process.uids for process in processes.live_processes() if process.pid in below},
            files=frozenset(path for path, owner in _entries().items()
                            if owner in owners and path not in self.entries_before),
            ipc=frozenset(name for name, uids in _sysv_objects().items()
                          if any(uid in owners for uid in uids) and name not in self.ipc_before),
        )

    def settle(self, worker_uids: range | set[int] = frozenset(), settle_s: float = SETTLE_S) -> Left:
        """What is left once killed processes had a moment (`settle_s`) to go."""
        deadline = time.monotonic() + settle_s
        while (left := self.left(worker_uids)) and time.monotonic() < deadline:
            time.sleep(0.05)
        return left

    def assert_none(self, worker_uids: range | set[int] = frozenset(), error: type[Exception] = AssertionError,
                    settle_s: float = SETTLE_S) -> None:
        """Nothing a grade started is left."""
        if left := self.settle(worker_uids, settle_s):
            raise error(f"outlived the grade: {left}")

"""How long a grade's processes ran on a CPU and waited for one, and whether that wait was contention.

A grade keeps to a CPU of its own where it can (isolation.CpuLease), but student code may widen
its own affinity, and a machine may be busy with work that is not the kit's. The kernel counts,
for every thread, the time it ran and the time it was ready to run but waited for a CPU
(/proc/PID/task/TID/schedstat). A grade whose processes waited much of the time they wanted a CPU
ran under contention: its timeouts measured the machine, not the student's code.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

# A grade is contended when its processes waited at least this long for a CPU in all ...
CONTENDED_WAIT_S = 0.5
# ... and for at least this share of the time they wanted one. Below both, the wait is the
# ordinary hand-over between the grading process and its worker on one CPU: microseconds a call.
CONTENDED_SHARE = 0.25


@dataclass(frozen=True)
class CpuTime:
    """Nanoseconds run on a CPU and waited for one, summed over some threads."""

    ran_ns: int = 0
    waited_ns: int = 0

    def __add__(self, other: CpuTime) -> CpuTime:
        return CpuTime(self.ran_ns + other.ran_ns, self.waited_ns + other.waited_ns)

    def __sub__(self, other: CpuTime) -> CpuTime:
        return CpuTime(max(0, self.ran_ns - other.ran_ns), max(0, self.waited_ns - other.waited_ns))

    @property
    def contended(self) -> bool:
        """Whether the wait was long and a large share of the time a CPU was wanted."""
        wanted = self.ran_ns + self.waited_ns
        return self.waited_ns >= CONTENDED_WAIT_S * 1e9 and self.waited_ns >= CONTENDED_SHARE * wanted


class CpuAccount:
    """The CPU time of every worker of one sandbox, added as each one closes."""

    def __init__(self):
        self.total = CpuTime()
        # A throwaway's workers close on a thread of their own (Sandbox.throwaway), beside the main one's.
        self._adding = threading.Lock()

    def add(self, used: CpuTime) -> None:
        """Count one worker's time."""
        with self._adding:
            self.total += used


def _thread_files(pid: int | str, name: str) -> list[Path]:
    """The file `name` of each thread of one process, from /proc; none once the process has ended.

    Not Path.glob: a process that ends between glob's look at its task folder and the listing of it
    makes glob raise, and the worker whose time is read here may be ending just then.
    """
    folder = Path(f"/proc/{pid}/task")
    try:
        threads = os.listdir(folder)
    except OSError:  # ended (or reaped) already, or no /proc
        return []
    return [folder / thread / name for thread in threads]


def cpu_time(pid: int | str = "self") -> CpuTime:
    """What every thread of one process ran and waited so far; nothing where /proc does not say."""
    total = CpuTime()
    for stats in _thread_files(pid, "schedstat"):
        try:
            ran, waited = (int(field) for field in stats.read_text().split()[:2])
        except (OSError, ValueError):  # the thread ended while being read, or no schedstats
            continue
        total += CpuTime(ran, waited)
    return total


def _children(pid: int) -> list[int]:
    """The pids whose parent is `pid`, oldest first (from /proc's children lists)."""
    found = []
    for tasks in _thread_files(pid, "children"):
        try:
            found += [int(child) for child in tasks.read_text().split()]
        except OSError:  # ended while being read
            continue
    return found


def worker_pid(launched: int) -> int | None:
    """The pid, as this process sees it, of the worker that the process `launched` became or started.

    Call it once the worker has started. Without namespaces (or where the kernel refused them)
    `launched` is the worker itself, and has no child before student code runs. In namespaces
    `launched` waits outside, its child is process 1 inside, and the worker is that one's first
    child: process 2 of its namespace (/proc's NSpid line ends in 2).
    """
    queue = _children(launched)
    if not queue:
        return launched
    while queue:
        pid = queue.pop(0)
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:  # ended while being read
            continue
        nspids = next((line.split()[1:] for line in status.splitlines() if line.startswith("NSpid:")), [])
        if len(nspids) > 1 and nspids[-1] == "2":
            return pid
        if nspids[-1:] == ["1"]:  # process 1: the worker is among its children
            queue += _children(pid)
    return None

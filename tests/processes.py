"""The live processes the kit's own tests look at: their uids, start times and descendants, from /proc."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


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


def state(pid: int) -> str:
    """A process's state letter (Z for a zombie), or "" once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""

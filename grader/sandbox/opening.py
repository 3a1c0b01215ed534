"""Opening a sandbox: the one set-up that grading and `grade play` share."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from grader.catalog import Exercise, Kit
from grader.run_contract import RunSettings
from grader.sandbox import reaper
from grader.sandbox.isolation import sweep_workers
from grader.sandbox.process import SandboxSettings
from grader.sandbox.service import Sandbox
from grader.source_map import SourceMap


def protect_secrets(kit: Kit) -> None:
    """As root, make the kit unreadable to the workers' unprivileged uids before any worker starts.

    A fresh clone is world-readable, and the uid drop alone would not hide the hidden checks or the
    solutions: not in their folders, and not in .git's objects either. The kit's root becomes
    owner-only, which closes every path into it at once; the secret folders inside are closed as
    well, in case the kit is reachable by another path. Workers need nothing from the kit: their
    script and the submission are copied out, and their interpreter lies outside.
    """
    if os.geteuid() != 0:
        return
    secrets = (kit.root, kit.root / ".git", kit.root / "solutions", kit.root / "reports",
               *(kit.root / "exercises").glob("*/checks"))
    for secret in secrets:
        if secret.exists():
            os.chmod(secret, secret.stat().st_mode & ~0o077)


# Every worker's hash seed. One for all: the same code always meets the same tie-breaks in set and
# dict order, whether graded or played and under every seed, and a worker can start before its
# run's seed is known (a ready grade of grade --watch derives the seed from the file saved later).
WORKER_HASH_SEED = 0


def sandbox_settings(exercise: Exercise | RunSettings, source_dir: Path, cpu_seconds: int, *,
                     owner_pid: int | None = None, source_map: SourceMap | None = None) -> SandboxSettings:
    """The settings of a sandbox for an exercise's module in `source_dir`.

    The exercise comes as its `exercise.toml` or as a run's settings, which carry the same fields.
    """
    return SandboxSettings(module=exercise.module, functions=tuple(exercise.functions), source_dir=source_dir,
                           memory_mb=exercise.memory_mb, cpu_seconds=cpu_seconds, hash_seed=WORKER_HASH_SEED,
                           # Whose end kills what the workers leave: a grade's reaper, or this process.
                           owner_pid=os.getpid() if owner_pid is None else owner_pid,
                           source_map=source_map)


@contextlib.contextmanager
def open_sandbox(kit: Kit, settings: SandboxSettings) -> Iterator[Sandbox]:
    """A sandbox set up as every user of one needs it, and closed with every worker's uid swept.

    Before any worker starts: the kit's secrets are closed to the workers' uids, and without root
    this process becomes a subreaper, so that a worker's orphans come to it and are killed.
    """
    protect_secrets(kit)
    if os.geteuid() != 0:
        reaper.become_subreaper()
    sandbox = Sandbox(settings)
    try:
        yield sandbox
    finally:
        sandbox.close()
        sweep_workers(sandbox.uids_used)


"""The contract between a grade's processes: a run's folder, and each file in it as a typed value.

The runner (in the `grade` process) and the plugin (in pytest) share only these files. Each side
writes only its own, and every file is written and read through the dataclasses here, never as
loose JSON:

| file | written by | what it holds |
|---|---|---|
| `settings.json` | the runner, before pytest starts | `RunSettings`: the module, the limits, the seed |
| `collected.json` | the plugin, once collection ends and before any check runs | `Collected`: every `Check` |
| `sandbox.json` | the plugin, after the import and again at the end | `SandboxFacts` |
| `results.json` | the plugin, at the end | a `CheckResult` per check that reached its teardown |
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from grader.outcomes import Outcome
from grader.source_map import SourceMap


def _write(path: Path, value) -> None:
    path.write_text(json.dumps(asdict(value)), encoding="utf-8")


def _read_json(path: Path):
    """A file the other side wrote, or None if it is missing or unreadable (a process that died)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


@dataclass(frozen=True)
class RunSettings:
    """What the runner tells the plugin about one run."""

    module: str
    functions: tuple[str, ...]
    call_timeout: float
    check_timeout: float
    memory_mb: int
    public_file: str
    seed: int
    # The submission laid out with its module at the top; None when it could not be (see submission_error).
    source_dir: str | None
    submission_error: str | None
    # How the report names the module's lines when it was made from a notebook.
    source_map: SourceMap | None = None
    # End the run at the first check that fails other than by its deadline (grade check's mistakes).
    stop_at_catch: bool = False

    def write(self, path: Path) -> None:
        """Write the settings for the plugin."""
        data = asdict(self)
        data["source_map"] = self.source_map.as_data() if self.source_map else None
        path.write_text(json.dumps(data), encoding="utf-8")

    @classmethod
    def read(cls, path: Path) -> RunSettings:
        """The settings the runner wrote."""
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(**{**data, "functions": tuple(data["functions"]),
                      "source_map": SourceMap.from_data(data["source_map"]) if data["source_map"] else None})


@dataclass(frozen=True)
class Check:
    """One collected check: what the report says of it before it runs."""

    nodeid: str
    id: str  # the report's id: a hidden parametrized case is only numbered, since its id can spell an input
    name: str
    visibility: str  # "public" or "hidden"
    points: float
    hint: str | None
    budget_s: float
    # The check's source, for Exercism; only a public check's, since hidden code holds inputs.
    code: str | None
    # The check's name without its case's number: what a gated check says it waits on.
    family: str
    # The nodeids this check waits on (@pytest.mark.requires).
    requires: tuple[str, ...] = ()

    @property
    def public(self) -> bool:
        """Whether the student may see the check's code, inputs and output."""
        return self.visibility == "public"


@dataclass(frozen=True)
class Collected:
    """The checks pytest collected, and the check files it could not import (a fault in the kit)."""

    checks: tuple[Check, ...]
    errors: tuple[str, ...] = ()

    def write(self, path: Path) -> None:
        """Write the list before any check runs, so that scoring can fail closed on what never ran."""
        _write(path, self)

    @classmethod
    def read(cls, path: Path) -> Collected | None:
        """The list the plugin wrote, or None if it wrote none."""
        data = _read_json(path)
        if data is None:
            return None
        checks = tuple(Check(**{**check, "requires": tuple(check["requires"])}) for check in data["checks"])
        return cls(checks, tuple(data["errors"]))


@dataclass(frozen=True)
class CpuWait:
    """What the grade's processes waited for a CPU: whether that was contention, and how long."""

    contended: bool
    waited_s: int


@dataclass(frozen=True)
class SandboxFacts:
    """What the plugin learnt of the sandbox: the import, the environment, the uids it used, the CPU."""

    import_error: str | None = None
    # What the module printed while it was imported (kept on a failed import: it is what the student needs).
    import_output: str | None = None
    missing_functions: tuple[str, ...] = ()
    environment: dict = field(default_factory=dict)
    # For the runner's final sweep as root.
    uids_used: tuple[int, ...] = ()
    cpu: CpuWait | None = None

    def write(self, path: Path) -> None:
        """Write the facts, whole: a later write replaces an earlier one."""
        _write(path, self)

    @classmethod
    def read(cls, path: Path) -> SandboxFacts:
        """The facts the plugin wrote; none at all if it wrote none (it died before the import)."""
        data = _read_json(path)
        if data is None:
            return cls()
        cpu = data.get("cpu")
        return cls(**{**data, "missing_functions": tuple(data["missing_functions"]),
                      "uids_used": tuple(data["uids_used"]), "cpu": CpuWait(**cpu) if cpu else None})


@dataclass(frozen=True)
class CheckResult:
    """How one check ended, as the plugin saw it: scoring counts it only if every stage passed."""

    nodeid: str
    # Whether pytest recorded a pass for the check's setup, call and teardown.
    stages_passed: bool
    duration_s: float
    outcome: Outcome
    message: str | None = None
    # The failure's facts (failures.Failure.facts), or None.
    failure: dict | None = None
    output: str | None = None


def write_results(path: Path, results: list[CheckResult]) -> None:
    """Write every check's result."""
    path.write_text(json.dumps([asdict(result) for result in results]), encoding="utf-8")


def read_results(path: Path) -> dict[str, CheckResult] | None:
    """Each check's result by nodeid, or None if the plugin wrote none."""
    data = _read_json(path)
    if data is None:
        return None
    return {entry["nodeid"]: CheckResult(**{**entry, "outcome": Outcome(entry["outcome"])}) for entry in data}


@dataclass(frozen=True)
class RunFiles:
    """A grading run's folder and the files in it; each side writes only its own."""

    folder: Path

    @property
    def settings(self) -> Path:
        """The runner's RunSettings."""
        return self.folder / "settings.json"

    @property
    def collected(self) -> Path:
        """The plugin's Collected checks."""
        return self.folder / "collected.json"

    @property
    def sandbox(self) -> Path:
        """The plugin's SandboxFacts."""
        return self.folder / "sandbox.json"

    @property
    def results(self) -> Path:
        """The plugin's CheckResults."""
        return self.folder / "results.json"

    @property
    def log(self) -> Path:
        """pytest's own output, for a collection error's message."""
        return self.folder / "pytest.log"

    @property
    def pytest_root(self) -> Path:
        """pytest's rootdir, holding the copied checks and an empty pytest.ini."""
        return self.folder / "pytest"

    @property
    def submission(self) -> Path:
        """The submission, laid out with the module at its top."""
        return self.folder / "submission"

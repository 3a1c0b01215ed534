"""The contract between a grade's processes: a run's folder, and each file in it as a typed value.

The runner (in the `grade` process) and the plugin (in pytest) share only these files. Each side
writes only its own, and every file is written and read through the dataclasses here, never as
loose JSON:

| file | written by | what it holds |
|---|---|---|
| `settings.json` | the runner, before pytest starts (a ready grade's: again once its submission is laid out, before the plugin reads it a second time) | `RunSettings`: the module, the limits, the seed |
| `collected.json` | the plugin, once collection ends and before any check runs | `Collected`: every `Check` |
| `sandbox.json` | the plugin, after the import and again at the end | `SandboxFacts` |
| `raw.json` | pytest-json-report, when the last check ends | each check's stages, its `CheckFeedback` as metadata |
| `explained.json` | the plugin, after raw.json | `Explained`: the failed checks' feedback with their explanations |
| `diagnosis.json` | the plugin, at the end | `Diagnosis`: the known mistakes the failed checks' answers match |
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from pathlib import Path

from grader.outcomes import Outcome
from grader.source_map import SourceMap
from grader.text import write_text_atomically


def _write(path: Path, value) -> None:
    # Whole or not at all: the other side may read while this side writes (a ready grade's pytest
    # reads its settings at its start, while the runner may already be writing the submission's).
    write_text_atomically(path, json.dumps(asdict(value)))


def read_json(path: Path):
    """A file the other side wrote, or None if it is missing or unreadable (a process that died)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


class StopAt(StrEnum):
    """When a grade may stop before every check has run; checks left unrun score 0, as scoring fails closed."""

    NEVER = "never"
    FIRST_FAILURE = "first_failure"  # any lost points: enough to know a submission loses points
    FIRST_CATCH = "first_catch"  # a check failed other than by its deadline: enough to know a check catches it


class CallRecording(StrEnum):
    """Which checks' calls a run keeps in its calls.json, beside what a diagnosis needs."""

    NONE = "none"
    PUBLIC = "public"  # grade export: what each known mistake answers on the handout's checks
    ALL = "all"  # grade check: which known mistakes no check's calls tell apart


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
    # When the run may end early (grade check's mistakes, the mutation report).
    stop_at: StopAt = StopAt.NEVER
    # The exercise's id, whose known mistakes a diagnosis looks for.
    exercise: str = ""
    # How long the diagnosis of a failed grade may take; None: the plugin's default share of the grade.
    # A limit is grade check's proof: every mistake decided, and no diagnosis unless a check caught the
    # code on an answer (the proof reads none otherwise).
    diagnosis_limit_s: float | None = None
    # The known mistake that grade check's proof grades, whose name the diagnosis must give; None: any.
    diagnosis_target: str | None = None
    # Which checks' calls are kept in the run's calls.json, for grade export and grade check.
    record_calls: CallRecording = CallRecording.NONE
    # Whether a failed check's feedback.on_failure explanations run (grade check, which only needs to
    # know what loses points, leaves them out).
    explain: bool = True
    # Whether a failed grade looks for the known mistakes it matches (grade check reads only a known
    # mistake's diagnosis, so the code it grades for its score alone is not diagnosed).
    diagnose: bool = True
    # The test functions whose checks run, with the checks they wait on; empty: every check. Grade
    # check's proof runs only the checks a known mistake's verdict can rest on.
    only: frozenset[str] = frozenset()

    def write(self, path: Path) -> None:
        """Write the settings for the plugin."""
        data = asdict(self)
        data["only"] = sorted(self.only)
        data["source_map"] = self.source_map.as_data() if self.source_map else None
        write_text_atomically(path, json.dumps(data))

    @classmethod
    def read(cls, path: Path) -> RunSettings:
        """The settings the runner wrote."""
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(**{**data, "functions": tuple(data["functions"]), "stop_at": StopAt(data["stop_at"]),
                      "record_calls": CallRecording(data["record_calls"]), "only": frozenset(data["only"]),
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
        data = read_json(path)
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
        data = read_json(path)
        if data is None:
            return cls()
        cpu = data.get("cpu")
        return cls(**{**data, "missing_functions": tuple(data["missing_functions"]),
                      "uids_used": tuple(data["uids_used"]), "cpu": CpuWait(**cpu) if cpu else None})


@dataclass(frozen=True)
class CheckFeedback:
    """What the plugin says of one check once it ends: its outcome and the words and facts the student may see.

    It reaches the report through pytest-json-report's documented metadata hook
    (`pytest_json_runtest_metadata`): a check's `metadata` in the raw report is exactly this value.
    Whether the check scores is still pytest's own record of its stages (scoring fails closed).
    """

    outcome: Outcome
    message: str | None = None
    # The failure's facts (failures.Failure.facts), or None.
    failure: dict | None = None
    output: str | None = None
    # A hidden check's explanation (feedback.on_failure), for after the due date: it may show inputs.
    after_due: str | None = None

    def as_metadata(self) -> dict:
        """The check's metadata in the raw report."""
        return asdict(self)

    @classmethod
    def from_metadata(cls, metadata) -> CheckFeedback | None:
        """The feedback in a check's metadata, or None if the check never reached its teardown."""
        if not isinstance(metadata, dict) or set(metadata) != {item.name for item in fields(cls)}:
            return None
        try:
            return cls(**{**metadata, "outcome": Outcome(metadata["outcome"])})
        except ValueError:  # not an outcome the plugin writes
            return None


@dataclass(frozen=True)
class Explained:
    """The failed checks' feedback once their explanations (feedback.on_failure) have run, by nodeid.

    They run after the last check, so that the score and the table (raw.json) come before them;
    each replaces its check's metadata in the raw report (into()).
    """

    feedback: dict[str, CheckFeedback] = field(default_factory=dict)

    def write(self, path: Path) -> None:
        """Write the explained feedback for scoring."""
        _write(path, self)

    @classmethod
    def read(cls, path: Path) -> Explained:
        """The plugin's explained feedback; none when it wrote none (nothing to explain, or it died first)."""
        data = read_json(path)
        if not isinstance(data, dict) or not isinstance(data.get("feedback"), dict):
            return cls()
        return cls({nodeid: feedback for nodeid, metadata in data["feedback"].items()
                    if (feedback := CheckFeedback.from_metadata(metadata)) is not None})

    def into(self, raw: dict | None) -> dict | None:
        """`raw` with each explained check's metadata replaced by its explained feedback."""
        if raw is None or not self.feedback:
            return raw
        tests = [{**test, "metadata": self.feedback[test["nodeid"]].as_metadata()}
                 if test.get("nodeid") in self.feedback else test for test in raw.get("tests", [])]
        return {**raw, "tests": tests}


@dataclass(frozen=True)
class DiagnosedMistake:
    """A known mistake that the student's answers match, and the checks (nodeids) on whose calls they do."""

    mistake: str
    why: str
    checks: tuple[str, ...]


@dataclass(frozen=True)
class Diagnosis:
    """The known mistakes the failed checks' answers match, most checks first."""

    mistakes: tuple[DiagnosedMistake, ...] = ()

    def write(self, path: Path) -> None:
        """Write the diagnosis for scoring."""
        _write(path, self)

    @classmethod
    def read(cls, path: Path) -> Diagnosis:
        """The plugin's diagnosis; none when it wrote none (nothing failed, or no mistake is known)."""
        data = read_json(path)
        if data is None:
            return cls()
        return cls(tuple(DiagnosedMistake(entry["mistake"], entry["why"], tuple(entry["checks"]))
                         for entry in data["mistakes"]))


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
    def raw(self) -> Path:
        """pytest-json-report's raw report: each check's stages, with its CheckFeedback as metadata."""
        return self.folder / "raw.json"

    @property
    def explained(self) -> Path:
        """The plugin's Explained feedback."""
        return self.folder / "explained.json"

    @property
    def diagnosis(self) -> Path:
        """The plugin's Diagnosis."""
        return self.folder / "diagnosis.json"

    @property
    def calls(self) -> Path:
        """The public checks' recorded calls, when the settings ask for them (grading's own file)."""
        return self.folder / "calls.json"

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

"""`grade batch`: grade a whole class, one report per student and exercise, plus grades.csv."""

from __future__ import annotations

import csv
import json
import statistics
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from grader import __version__
from grader.catalog import Exercise, Kit, KitError
from grader.failures import FailureKind
from grader.notebook import NOTEBOOK_SUFFIX
from grader.outcomes import Regraded, Status
from grader.classroom.folder import ClassFolder, inputs_path
from grader.grading import expected_grade_seconds, grade, in_parallel
from grader.report import ReportError, read_report, render
from grader.submission import Submission, submission_fingerprint

if TYPE_CHECKING:
    from grader.grading import Launcher


@dataclass(frozen=True)
class Student:
    """One entry of the class folder: a subfolder, a .py file, a .zip or a .ipynb notebook."""

    name: str
    path: Path


def find_students(folder: Path) -> list[Student]:
    """Every student in `folder`, by name; hidden files and other kinds of file are not students."""
    if not folder.is_dir():
        raise KitError(f"batch {folder}: no such folder")
    students = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith("."):
            continue
        if path.is_dir():
            students.append(Student(path.name, path))
        elif path.suffix in (".py", ".zip", NOTEBOOK_SUFFIX):
            students.append(Student(path.stem, path))
    names = [student.name for student in students]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise KitError(f"batch {folder}: more than one submission for {', '.join(duplicates)}")
    return students


@dataclass(frozen=True)
class GradingInputs:
    """Everything that produced a report, stored beside it: a report is reused only while all of it holds."""

    kit: str
    exercise: str
    submission: str
    seed: int | None

    def compared_with(self, stored: GradingInputs) -> Regraded:
        """REUSED if `stored` equals these, else the first thing that differs."""
        for reason, field in ((Regraded.KIT, "kit"), (Regraded.CHECKS, "exercise"),
                              (Regraded.SUBMISSION, "submission"), (Regraded.SEED, "seed")):
            if getattr(self, field) != getattr(stored, field):
                return reason
        return Regraded.REUSED


def _stored_inputs(report_path: Path) -> GradingInputs | None:
    """The stored record of what produced the report at `report_path`, or None if there is no usable one."""
    try:
        data = json.loads(inputs_path(report_path).read_text(encoding="utf-8"))
        return GradingInputs(**data)
    except (OSError, ValueError, TypeError):  # none yet, not JSON, or not the record's fields
        return None


def error_from_the_grader(report: dict) -> bool:
    """Whether a report's error came from the grader's side (outer limit, a check that could not start,
    no checks collected) rather than the submission's (it could not be laid out or imported)."""
    kinds = {(test.get("failure") or {}).get("kind") for test in report.get("tests", [])}
    if str(FailureKind.ERROR) in kinds:
        return True
    return report.get("status") == str(Status.ERROR) and kinds != {str(FailureKind.IMPORT)}


def ran_under_contention(report: dict) -> bool:
    """Whether the grade's processes waited for a CPU much of the time they wanted one (cpu_time.CpuTime)."""
    return bool(((report.get("environment") or {}).get("sandbox") or {}).get("cpu", {}).get("contended"))


def _reusable(report_path: Path, inputs: GradingInputs) -> tuple[dict | None, Regraded]:
    """The stored report if nothing that produced it changed, and why not otherwise."""
    stored = _stored_inputs(report_path)
    try:
        report = read_report(report_path)
    except ReportError:
        report = None
    if stored is None or report is None:
        return None, Regraded.NEW
    reason = inputs.compared_with(stored)
    if reason is Regraded.REUSED and error_from_the_grader(report):
        reason = Regraded.GRADER_ERROR
    elif reason is Regraded.REUSED and ran_under_contention(report):
        reason = Regraded.CONTENTION
    return (report if reason is Regraded.REUSED else None), reason


def run_batch(kit: Kit, exercises: list[Exercise], students: list[Student], out: Path, *, jobs: int | None,
              force: bool, seed: int | None, advance: Callable[[], None],
              launcher: Launcher | None = None) -> tuple[dict, Counter]:
    """Grade every student on every exercise; returns {student: {exercise id: report}} and why each was (re)graded."""
    out.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict[str, dict]] = {student.name: {} for student in students}
    fingerprints = {exercise.id: exercise.fingerprint() for exercise in exercises}

    def job(student: Student, exercise: Exercise, again: bool = False) -> tuple[str, str, dict, Regraded]:
        report_path = ClassFolder(out).report(student.name, exercise.id)
        inputs = GradingInputs(kit=__version__, exercise=fingerprints[exercise.id],
                               submission=submission_fingerprint(student.path, exercise.module), seed=seed)
        reason = Regraded.CONTENTION if again else Regraded.FORCED
        if not (force or again):
            stored, reason = _reusable(report_path, inputs)
            if stored is not None:
                return student.name, exercise.id, stored, reason
        report = grade(kit, exercise, Submission(student.path, f"{student.name}/{student.path.name}"), seed=seed,
                       launcher=launcher)
        report_path.parent.mkdir(parents=True, exist_ok=True)
        report_path.write_text(render(report, "json"), encoding="utf-8")
        inputs_path(report_path).write_text(json.dumps(asdict(inputs)) + "\n", encoding="utf-8")
        return student.name, exercise.id, report, reason

    pairs = [(student, exercise) for student in students for exercise in exercises]
    reasons: Counter = Counter()
    # The exercises whose last grade took longest start first, so that none of them ends the batch alone.
    seconds = {exercise.id: expected_grade_seconds(exercise) for exercise in exercises}
    for name, exercise_id, report, reason in in_parallel(lambda pair: job(*pair), pairs, jobs, done=advance,
                                                         cost=lambda pair: seconds[pair[1].id]):
        results[name][exercise_id] = report
        reasons[reason] += 1
    # A grade that waited for a CPU much of the time (a neighbour spinning on every CPU, or a busy
    # machine) may have timed out for that alone: it is graded once more, alone. A second report
    # that still says so is kept, and says so.
    contended = [(student, exercise) for student, exercise in pairs
                 if ran_under_contention(results[student.name][exercise.id])]
    for student, exercise in contended:
        _, _, results[student.name][exercise.id], _ = job(student, exercise, again=True)
        reasons[Regraded.CONTENTION] += 1
    return results, reasons


def write_gradebook(results: dict, exercise_ids: list[str], path: Path) -> None:
    """grades.csv: a student column, one score column per exercise, and the total."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", *exercise_ids, "total"])
        for student, reports in sorted(results.items()):
            scores = [reports[exercise_id]["score"] for exercise_id in exercise_ids]
            writer.writerow([student, *(f"{score:g}" for score in scores), f"{sum(scores):g}"])


def distribution(results: dict, exercises: list[Exercise]) -> dict:
    """Totals across the class: how many, the mean, median, lowest and highest, and the most possible."""
    totals = [sum(reports[exercise.id]["score"] for exercise in exercises) for reports in results.values()]
    first = next(iter(results.values()), {})
    possible = sum(first[exercise.id]["max_score"] for exercise in exercises) if first else 0.0
    if not totals:
        return {"students": 0, "possible": possible}
    return {"students": len(totals), "possible": possible, "mean": statistics.fmean(totals),
            "median": statistics.median(totals), "lowest": min(totals), "highest": max(totals),
            "full_marks": sum(total == possible for total in totals),
            "errors": sum(any(r["status"] == Status.ERROR for r in reports.values()) for reports in results.values())}

"""`grade batch`: grade a whole class, one report per student and exercise, plus grades.csv."""

from __future__ import annotations

import contextlib
import hashlib
import json
import stat
import statistics
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from grader import __version__
from grader.catalog import Exercise, Kit, KitError
from grader.classroom.folder import ClassFolder, inputs_path
from grader.classroom.spreadsheet import SafeWriter
from grader.failures import FailureKind
from grader.grading import expected_grade_seconds, grade, in_parallel
from grader.notebook import NOTEBOOK_SUFFIX
from grader.outcomes import Regraded, Status
from grader.report import ReportError, read_report, render
from grader.submission import LaidOut, Submission, laid_out

if TYPE_CHECKING:
    from grader.grading import Launcher


# The kinds of file that are a student's submission; a regular file of any other kind is not a student.
SUBMISSION_SUFFIXES = (".py", ".zip", NOTEBOOK_SUFFIX)


@dataclass(frozen=True)
class Student:
    """One entry of the class folder: a subfolder, a .py file, a .zip or a .ipynb notebook.

    `problem` says why the entry cannot be graded when that is known from the folder alone (two
    entries for one name); the grade then makes it an error report.
    """

    name: str
    path: Path
    problem: str | None = None


def shown_name(raw: str) -> str:
    """An entry's name as text: bytes that are not UTF-8 (which Linux allows in a name) as \\xNN escapes."""
    return raw.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _student_of(path: Path) -> Student | None:
    """The student an entry of the class folder stands for, by lstat alone (nothing is opened), or None.

    A link, a FIFO, a device or a socket is a student too: nothing opens it, and its grade is an
    error report that says what it is (grader.submission_files.entry_mode).
    """
    if path.name.startswith("."):
        return None
    mode = path.lstat().st_mode
    if stat.S_ISDIR(mode):
        return Student(shown_name(path.name), path)
    if path.suffix in SUBMISSION_SUFFIXES:
        return Student(shown_name(path.stem), path)
    if stat.S_ISREG(mode):
        return None
    return Student(shown_name(path.name), path)


def find_students(folder: Path) -> list[Student]:
    """Every student in `folder`, by name; hidden files and other kinds of file are not students.

    Two entries for one name (eve.py and eve/) are both kept as that student's one error report,
    so that the rest of the class is graded.
    """
    if not folder.is_dir():
        raise KitError(f"batch {folder}: no such folder")
    found = [student for path in sorted(folder.iterdir()) if (student := _student_of(path)) is not None]
    entries: dict[str, list[Student]] = {}
    for student in found:
        entries.setdefault(student.name, []).append(student)
    students = []
    for name, same in entries.items():
        if len(same) == 1:
            students.append(same[0])
        else:
            problem = f"more than one submission for {name}: {', '.join(shown_name(s.path.name) for s in same)}"
            students.append(Student(name, same[0].path, problem))
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


@contextlib.contextmanager
def _laid_out(student: Student, module: str) -> Iterator[LaidOut]:
    """The student's submission laid out, or, for an entry known bad from the folder alone, its problem."""
    if student.problem is None:
        with laid_out(student.path, module) as prepared:
            yield prepared
        return
    fingerprint = hashlib.sha256(student.problem.encode("utf-8", "surrogateescape")).hexdigest()
    yield LaidOut(student.path, None, student.problem, None, fingerprint)


def run_batch(kit: Kit, exercises: list[Exercise], students: list[Student], out: Path, *, jobs: int | None,
              force: bool, seed: int | None, advance: Callable[[], None],
              launcher: Launcher | None = None, modules: dict[tuple[str, str], str | None] | None = None,
              ) -> tuple[dict, Counter]:
    """Grade every student on every exercise; returns {student: {exercise id: report}} and why each was (re)graded.

    `modules`, if given, is filled with each (student, exercise id)'s module as laid out for its
    grade (None if it could not be), so that the comparison of submissions need not unpack it again.
    """
    out.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict[str, dict]] = {student.name: {} for student in students}
    fingerprints = {exercise.id: exercise.fingerprint() for exercise in exercises}

    def job(student: Student, exercise: Exercise, again: bool = False) -> tuple[str, str, dict, Regraded]:
        report_path = ClassFolder(out).report(student.name, exercise.id)
        # Laid out once: the fingerprint, the grade and the comparison of submissions all read this.
        with _laid_out(student, exercise.module) as prepared:
            if modules is not None:
                modules[student.name, exercise.id] = prepared.module_text(exercise.module)
            inputs = GradingInputs(kit=__version__, exercise=fingerprints[exercise.id],
                                   submission=prepared.fingerprint, seed=seed)
            reason = Regraded.CONTENTION if again else Regraded.FORCED
            if not (force or again):
                stored, reason = _reusable(report_path, inputs)
                if stored is not None:
                    return student.name, exercise.id, stored, reason
            report = grade(kit, exercise, Submission(student.path, f"{student.name}/{shown_name(student.path.name)}",
                                                     prepared), seed=seed, launcher=launcher)
        report_path.parent.mkdir(parents=True, exist_ok=True)
        report_path.write_text(render(report, "json"), encoding="utf-8")
        inputs_path(report_path).write_text(json.dumps(asdict(inputs)) + "\n", encoding="utf-8")
        return student.name, exercise.id, report, reason

    pairs = [(student, exercise) for student in students for exercise in exercises]
    # Why each report was (re)graded or reused, the last reason standing: a report graded again
    # after contention is one report, counted once.
    reasons: dict[tuple[str, str], Regraded] = {}
    # The exercises whose last grade took longest start first, so that none of them ends the batch alone.
    seconds = {exercise.id: expected_grade_seconds(exercise) for exercise in exercises}
    for name, exercise_id, report, reason in in_parallel(lambda pair: job(*pair), pairs, jobs, done=advance,
                                                         cost=lambda pair: seconds[pair[1].id]):
        results[name][exercise_id] = report
        reasons[name, exercise_id] = reason
    # A grade that waited for a CPU much of the time (a neighbour spinning on every CPU, or a busy
    # machine) may have timed out for that alone: it is graded once more, alone. A second report
    # that still says so is kept, and says so.
    contended = [(student, exercise) for student, exercise in pairs
                 if ran_under_contention(results[student.name][exercise.id])]
    for student, exercise in contended:
        _, _, results[student.name][exercise.id], _ = job(student, exercise, again=True)
        reasons[student.name, exercise.id] = Regraded.CONTENTION
    return results, Counter(reasons.values())


def write_gradebook(results: dict, exercise_ids: list[str], path: Path) -> None:
    """grades.csv: a student column, one score column per exercise, and the total."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = SafeWriter(handle)
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

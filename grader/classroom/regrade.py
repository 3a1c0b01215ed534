"""`grade batch diff OLD NEW`: what a regrade changed, student by student and check by check.

OLD and NEW are two folders `grade batch` wrote (OUT/students/STUDENT/exNN.json). A student's two reports
on an exercise are compared by their score and by each check's points, the checks matched by
their stable id (`checks/test_hidden.py::test_name`), so a check whose wording changed is still
the same check. The comparison is a pure function over the reports' attempts; reading the folders
and writing NEW/changes.csv are the only I/O here, and the terminal's table is the CLI's.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from grader.catalog import KitError
from grader.text import write_text_atomically
from grader.classroom.class_report import read_attempt
from grader.classroom.folder import ClassFolder
from grader.classroom.item_analysis import Attempt
from grader.classroom.spreadsheet import SafeWriter

# Two scores closer than this are the same score: partial credit summed in another order may
# differ in the last bits of a float, which is no change of mark.
SAME_SCORE = 1e-9


class ChangeKind(StrEnum):
    """How a student's mark on an exercise differs between OLD and NEW."""

    REGRADED = "regraded"  # a report in both folders, whose score or some check's points differ
    STUDENT_ONLY_OLD = "student_only_old"  # the student has no report at all in NEW
    STUDENT_ONLY_NEW = "student_only_new"  # the student has no report at all in OLD
    REPORT_ONLY_OLD = "report_only_old"  # the student is in both folders, but this exercise only in OLD
    REPORT_ONLY_NEW = "report_only_new"  # the student is in both folders, but this exercise only in NEW


@dataclass(frozen=True)
class CheckChange:
    """One check whose points differ between a student's two reports; None where a report lacks the check."""

    id: str
    name: str
    """The check's name in NEW, or in OLD for a check NEW no longer has."""
    old: float | None
    new: float | None

    @property
    def change(self) -> float:
        """Points gained (negative when lost); a check a report lacks counts as no points."""
        return (self.new or 0.0) - (self.old or 0.0)


@dataclass(frozen=True)
class MarkChange:
    """One student's mark on one exercise, as OLD and NEW have it; None where that folder has no report."""

    student: str
    exercise: str
    kind: ChangeKind
    old: float | None
    new: float | None
    checks: tuple[CheckChange, ...] = ()
    """For REGRADED only: the checks that changed, in NEW's order, then those only OLD has."""

    @property
    def change(self) -> float | None:
        """New score less old, or None when one of the two reports is missing."""
        return None if self.old is None or self.new is None else self.new - self.old


@dataclass(frozen=True)
class Regrade:
    """What comparing OLD with NEW found."""

    changes: tuple[MarkChange, ...]
    """Every mark that differs, by student and then exercise; none at all when nothing changed."""
    students: int
    """How many students both folders hold."""
    exercises: int
    """How many exercises both folders hold."""
    students_only_old: tuple[str, ...]
    students_only_new: tuple[str, ...]
    exercises_only_old: tuple[str, ...]
    exercises_only_new: tuple[str, ...]


def _same(old: float, new: float) -> bool:
    return math.isclose(old, new, rel_tol=0.0, abs_tol=SAME_SCORE)


def check_changes(old: Attempt, new: Attempt) -> tuple[CheckChange, ...]:
    """The checks whose points differ between two reports on one exercise, a check in only one of them included."""
    before = {check.id: check for check in old.checks}
    after = {check.id: check for check in new.checks}
    changed = []
    for check in new.checks:
        was = before.get(check.id)
        if was is None or not _same(was.score, check.score):
            changed.append(CheckChange(check.id, check.name, None if was is None else was.score, check.score))
    changed += [CheckChange(check.id, check.name, check.score, None) for check in old.checks if check.id not in after]
    return tuple(changed)


def compare_attempts(old: list[Attempt], new: list[Attempt]) -> Regrade:
    """Every mark that differs between two gradings of a class, and who and what only one of them holds."""
    before = {(attempt.student, attempt.exercise): attempt for attempt in old}
    after = {(attempt.student, attempt.exercise): attempt for attempt in new}
    old_students, new_students = {student for student, _ in before}, {student for student, _ in after}
    old_exercises, new_exercises = {exercise for _, exercise in before}, {exercise for _, exercise in after}
    changes = []
    for key in sorted(before.keys() | after.keys()):
        student, exercise = key
        was, now = before.get(key), after.get(key)
        if was is not None and now is not None:
            checks = check_changes(was, now)
            if checks or not _same(was.score, now.score):
                changes.append(MarkChange(student, exercise, ChangeKind.REGRADED, was.score, now.score, checks))
        elif now is None:
            kind = ChangeKind.REPORT_ONLY_OLD if student in new_students else ChangeKind.STUDENT_ONLY_OLD
            changes.append(MarkChange(student, exercise, kind, was.score, None))
        else:
            kind = ChangeKind.REPORT_ONLY_NEW if student in old_students else ChangeKind.STUDENT_ONLY_NEW
            changes.append(MarkChange(student, exercise, kind, None, now.score))
    return Regrade(
        changes=tuple(changes), students=len(old_students & new_students), exercises=len(old_exercises & new_exercises),
        students_only_old=tuple(sorted(old_students - new_students)),
        students_only_new=tuple(sorted(new_students - old_students)),
        exercises_only_old=tuple(sorted(old_exercises - new_exercises)),
        exercises_only_new=tuple(sorted(new_exercises - old_exercises)))


def read_graded(folder: Path, side: str) -> list[Attempt]:
    """Every report in a folder `grade batch` wrote; `side` (OLD or NEW) names it in the one-line errors."""
    if not folder.exists():
        raise KitError(f"batch diff {side} {folder}: no such folder")
    if not folder.is_dir():
        raise KitError(f"batch diff {side} {folder}: not a folder")
    graded = ClassFolder(folder)
    attempts = [read_attempt(student, path) for student, path in graded.reports()]
    if not attempts:
        raise KitError(f"batch diff {side} {folder}: no reports in it "
                       f"(grade batch writes {graded.report('STUDENT', 'exNN')})")
    return attempts


def diff_folders(old: Path, new: Path) -> Regrade:
    """Read both folders in full (any bad one is a one-line KitError), then compare them."""
    return compare_attempts(read_graded(old, "OLD"), read_graded(new, "NEW"))


def _number(value: float) -> str:
    """A score as grades.csv writes it."""
    return f"{value:g}"


def check_change_text(check: CheckChange) -> str:
    """"NAME -2", or "NAME +1 (only in NEW)" for a check one of the two reports lacks: in changes.csv and on screen."""
    text = f"{check.name} {check.change:+g}"
    if check.old is None:
        return f"{text} (only in NEW)"
    if check.new is None:
        return f"{text} (only in OLD)"
    return text


CHANGE_COLUMNS = ["student", "exercise", "old_score", "new_score", "change", "checks"]


def change_rows(regrade: Regrade) -> list[list[str]]:
    """The rows of changes.csv: an empty score where that folder has no report, and then no change."""
    return [[change.student, change.exercise, "" if change.old is None else _number(change.old),
             "" if change.new is None else _number(change.new), "" if change.change is None else _number(change.change),
             "; ".join(check_change_text(check) for check in change.checks)]
            for change in regrade.changes]


def write_changes(regrade: Regrade, path: Path) -> None:
    """changes.csv, whole or not at all: written beside its place under a hidden name, then moved there."""
    buffer = io.StringIO()
    writer = SafeWriter(buffer)
    writer.writerow(CHANGE_COLUMNS)
    writer.writerows(change_rows(regrade))
    try:
        write_text_atomically(path, buffer.getvalue())
    except OSError as exc:
        raise KitError(f"{path}: cannot write it: {exc.strerror or exc}") from None

"""`grade batch`: grade a whole class, one report per student and exercise, plus grades.csv."""

from __future__ import annotations

import csv
import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from grader import __version__
from grader.catalog import Exercise, Kit, KitError
from grader.formats import render
from grader.notebook import NOTEBOOK_SUFFIX
from grader.outcomes import Status
from grader.runner import grade, in_parallel
from grader.submission import Submission, submission_sha256


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


def _reusable(report_path: Path, sha256: str | None, seed: int | None) -> dict | None:
    """A stored report that still holds: same module, same kit version, and the seed asked for."""
    try:
        report = json.loads(report_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    same = (sha256 is not None and report.get("submission", {}).get("sha256") == sha256
            and report.get("kit", {}).get("version") == __version__
            and (seed is None or report.get("seed") == seed))
    return report if same else None


def run_batch(kit: Kit, exercises: list[Exercise], students: list[Student], out: Path, *, jobs: int | None,
              force: bool, seed: int | None, advance: Callable[[], None]) -> tuple[dict, int]:
    """Grade every student on every exercise; returns {student: {exercise id: report}} and how many were reused."""
    out.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict[str, dict]] = {student.name: {} for student in students}
    reused = 0

    def job(student: Student, exercise: Exercise) -> tuple[str, str, dict, bool]:
        report_path = out / student.name / f"{exercise.id}.json"
        sha256 = submission_sha256(student.path, exercise.module)
        if not force:
            stored = _reusable(report_path, sha256, seed)
            if stored is not None:
                return student.name, exercise.id, stored, True
        report = grade(kit, exercise, Submission(student.path, f"{student.name}/{student.path.name}"), seed=seed)
        report_path.parent.mkdir(parents=True, exist_ok=True)
        report_path.write_text(render(report, "json"), encoding="utf-8")
        return student.name, exercise.id, report, False

    pairs = [(student, exercise) for student in students for exercise in exercises]
    for name, exercise_id, report, was_reused in in_parallel(lambda pair: job(*pair), pairs, jobs, done=advance):
        results[name][exercise_id] = report
        reused += was_reused
    return results, reused


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

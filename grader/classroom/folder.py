"""A class's output folder, OUT: the one place that knows where each of its files lives."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# A report's file name, as `grade batch` writes it: the exercise's id.
REPORT_NAME = re.compile(r"ex[0-9]{2}\.json")


@dataclass(frozen=True)
class ClassFolder:
    """OUT/STUDENT/exNN.json for each report, with a hidden record of its inputs beside it, and the class's files at the top."""

    root: Path

    def report(self, student: str, exercise_id: str) -> Path:
        """Where a student's report on an exercise lives."""
        return self.root / student / f"{exercise_id}.json"

    def reports(self) -> list[tuple[str, Path]]:
        """Every report in the folder, as (student, path), in order of student and then exercise."""
        if not self.root.is_dir():
            return []
        return [(folder.name, path)
                for folder in sorted(self.root.iterdir()) if folder.is_dir() and not folder.name.startswith(".")
                for path in sorted(folder.iterdir()) if REPORT_NAME.fullmatch(path.name)]

    @property
    def gradebook(self) -> Path:
        """grades.csv: a row per student."""
        return self.root / "grades.csv"

    def lms_gradebook(self, lms: str) -> Path:
        """gradebook-LMS.csv (canvas, moodle, blackboard): the grades as that LMS imports them."""
        return self.root / f"gradebook-{lms}.csv"

    @property
    def page(self) -> Path:
        """report.html: the class report."""
        return self.root / "report.html"

    @property
    def checks_table(self) -> Path:
        """checks.csv: a row per check."""
        return self.root / "checks.csv"

    @property
    def mistakes_table(self) -> Path:
        """mistakes.csv: a row per known mistake some student's answers match."""
        return self.root / "mistakes.csv"

    @property
    def similar_table(self) -> Path:
        """similar.csv: a row per pair of students on each exercise, most similar first."""
        return self.root / "similar.csv"

    @property
    def similarity_record(self) -> Path:
        """similarity.json: the flagged pairs and their code, which the class page shows."""
        return self.root / "similarity.json"

    @property
    def changes_table(self) -> Path:
        """changes.csv: what `grade batch diff OLD NEW` found changed, written into NEW."""
        return self.root / "changes.csv"


def inputs_path(report_path: Path) -> Path:
    """Where `grade batch` keeps the record of what produced a report: beside it, hidden (.ex04.inputs.json)."""
    return report_path.with_name(f".{report_path.stem}.inputs.json")

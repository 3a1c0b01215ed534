"""A class's output folder, OUT: the one place that knows where each of its files lives.

The students' reports live in OUT/students/, a folder per student, and the class's own files
(grades.csv, report.html, ...) at OUT's top: a student's folder name, which is the student's
name, can then never be a class file's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from grader.catalog import KitError

# A report's file name, as `grade batch` writes it: the exercise's id.
REPORT_NAME = re.compile(r"ex[0-9]{2}\.json")
# The folder of OUT that holds a folder per student, and nothing else.
STUDENTS = "students"


@dataclass(frozen=True)
class ClassFolder:
    """OUT/students/STUDENT/exNN.json for each report, with a hidden record of its inputs beside it, and the class's
    files at the top."""

    root: Path

    def report(self, student: str, exercise_id: str) -> Path:
        """Where a student's report on an exercise lives."""
        return self.root / STUDENTS / student / f"{exercise_id}.json"

    @staticmethod
    def report_link(student: str, exercise_id: str) -> str:
        """The address of `report(student, exercise_id)` from a page at OUT's top (report.html), percent-encoded."""
        return f"{STUDENTS}/{quote(student, safe='')}/{quote(exercise_id, safe='')}.json"

    def reports(self) -> list[tuple[str, Path]]:
        """Every report in the folder, as (student, path), in order of student and then exercise.

        A folder an earlier kit wrote (OUT/STUDENT/exNN.json) is a KitError, not a folder with no reports.
        """
        if not self.root.is_dir():
            return []
        self.refuse_earlier_layout()
        students = self.root / STUDENTS
        if not students.is_dir():
            return []
        return [(folder.name, path)
                for folder in sorted(students.iterdir()) if folder.is_dir() and not folder.name.startswith(".")
                for path in sorted(folder.iterdir()) if REPORT_NAME.fullmatch(path.name)]

    def refuse_earlier_layout(self) -> None:
        """A one-line KitError if an earlier kit wrote this folder, its reports as OUT/STUDENT/exNN.json.

        Such a folder has no OUT/students/ but a folder at the top with a report in it, or (for an
        earlier kit's student named "students") a report right inside OUT/students/, where this kit
        keeps only students' folders.
        """
        students = self.root / STUDENTS
        if students.is_dir():
            places = [students]
        elif self.root.is_dir():
            places = [folder for folder in sorted(self.root.iterdir())
                      if folder.is_dir() and not folder.name.startswith(".")]
        else:
            return
        for place in places:
            found = next((path for path in sorted(place.iterdir())
                          if REPORT_NAME.fullmatch(path.name) and path.is_file()), None)
            if found is not None:
                raise KitError(f"{self.root}: written by an earlier kit (reports as {found}, now "
                               f"{self.report('STUDENT', 'exNN')}); grade the class again into a new folder")

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

    def compared_modules(self, exercise_id: str) -> Path:
        """compared-modules/exNN.json.gz: a shard's students' modules as the comparison read them, for the merge."""
        return self.root / "compared-modules" / f"{exercise_id}.json.gz"

    @property
    def changes_table(self) -> Path:
        """changes.csv: what `grade batch diff OLD NEW` found changed, written into NEW."""
        return self.root / "changes.csv"


def inputs_path(report_path: Path) -> Path:
    """Where `grade batch` keeps the record of what produced a report: beside it, hidden (.ex04.inputs.json)."""
    return report_path.with_name(f".{report_path.stem}.inputs.json")

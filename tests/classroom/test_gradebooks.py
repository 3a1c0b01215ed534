"""Gradebooks an LMS imports (grader/classroom/gradebooks.py): `grade batch ... --gradebook LMS --roster CSV` and
`grade batch gradebook OUT --lms LMS --roster CSV`, checked against what each LMS documents (docs/gradebooks.md).

A class of three is graded once for the module with the real CLI; each test works on its own copy of
OUT, with rosters written in tmp_path, and reads the gradebook back with the csv module.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest

from grader.classroom.gradebooks import CANVAS, LMS_FORMATS, write_lms_gradebook
from grader.cli import main
from tests.conftest import REPO, TOY_KIT, run_grade

GOLDEN = REPO / "tests" / "golden"
# The toy exercise's column, one per exercise: its id and its title.
COLUMN = "ex01 A toy exercise for the grader's tests"
# What the three students score on the toy exercise (tests/classroom/test_batch.py grades the same files).
SCORES = {"alice": "8", "bob": "4", "carol": "0"}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[Path, Path, Path]:
    """(kit, class folder, OUT) after `grade batch CLASS --exercise ex01 --out OUT` on a class of three."""
    base = tmp_path_factory.mktemp("gradebooks")
    kit = base / "kit"
    shutil.copytree(TOY_KIT, kit, ignore=shutil.ignore_patterns("reports", "__pycache__"))
    folder = base / "class"
    for name, golden in {"alice": "full_solution", "bob": "partial_solution", "carol": "syntax_error"}.items():
        (folder / name).mkdir(parents=True)
        shutil.copyfile(GOLDEN / golden / "toy.py", folder / name / "toy.py")
    out = base / "marks"
    result = run_grade("batch", str(folder), "--exercise", "ex01", "--jobs", "2", "--out", str(out), cwd=kit)
    assert result.returncode == 0, result.stderr
    return kit, folder, out


@pytest.fixture
def out(graded, tmp_path) -> Path:
    """This test's own copy of OUT (the reports and the records of what made them)."""
    copy = tmp_path / "marks"
    shutil.copytree(graded[2], copy)
    return copy


def _roster(path: Path, header: list[str], *rows: list[str]) -> Path:
    """A roster file, written as a spreadsheet would."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([header, *rows])
    return path


# A full roster per LMS, in an order that is not the folders' (the gradebook keeps the roster's order),
# with a column no LMS uses.
ROSTERS = {
    "canvas": (["folder", "id", "name", "sis_user_id", "sis_login_id", "section", "notes"],
               ["carol", "103", "Doe, Carol", "S003", "carol.doe", "Sec 1", "late"],
               ["alice", "101", "Liddell, Alice", "S001", "alice.l", "Sec 1", ""],
               ["bob", "102", "Builder, Bob", "S002", "bob.b", "Sec 2", ""]),
    "moodle": (["folder", "id", "email", "notes"],
               ["carol", "M-3", "carol@uni.example", "late"],
               ["alice", "M-1", "alice@uni.example", ""],
               ["bob", "M-2", "bob@uni.example", ""]),
    "blackboard": (["folder", "id", "username", "last_name", "first_name"],
                   ["carol", "900003", "cdoe", "Doe", "Carol"],
                   ["alice", "900001", "aliddell", "Liddell", "Alice"],
                   ["bob", "900002", "bbuilder", "Builder", "Bob"]),
}


def _gradebook_route(out: Path, lms: str, roster: Path, *extra: str) -> list[str]:
    """`grade batch gradebook OUT --lms LMS --roster CSV` as an argument list."""
    return ["batch", "gradebook", str(out), "--lms", lms, "--roster", str(roster), *extra]


def _written(out: Path, lms: str) -> tuple[str, list[list[str]]]:
    """The gradebook's text and its rows, read back with the csv module."""
    path = out / f"gradebook-{lms}.csv"
    text = path.read_text(encoding="utf-8")
    with open(path, newline="", encoding="utf-8") as handle:
        return text, list(csv.reader(handle, delimiter=LMS_FORMATS[lms].delimiter))


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch):
    """A terminal wide enough that rich does not wrap a path in what `grade` prints in this process."""
    monkeypatch.setenv("COLUMNS", "200")


def _grade(argv: list[str], capsys) -> tuple[int, str, str]:
    """Run `grade` in this process: (exit code, stdout, stderr)."""
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_canvas_gradebook_has_canvas_columns_a_points_row_and_the_reports_scores(out, tmp_path, capsys):
    roster = _roster(tmp_path / "roster.csv", *ROSTERS["canvas"])
    code, stdout, stderr = _grade(_gradebook_route(out, "canvas", roster), capsys)
    assert (code, stderr) == (0, "")
    assert f"Canvas gradebook: {out / 'gradebook-canvas.csv'} (3 students, 1 exercise(s)" in stdout
    text, rows = _written(out, "canvas")
    # Canvas's importer: "Student" then "ID" first, "SIS User ID" and "SIS Login ID", "Section" last of the
    # student columns, then one column per assignment; no total (Canvas computes its own, and a column named
    # so would become a new assignment).
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", COLUMN]
    # A row whose first cell says "Points Possible" gives each new assignment its points.
    assert rows[1] == ["Points Possible", "", "", "", "", "8"]
    assert rows[2:] == [["Doe, Carol", "103", "S003", "carol.doe", "Sec 1", SCORES["carol"]],
                        ["Liddell, Alice", "101", "S001", "alice.l", "Sec 1", SCORES["alice"]],
                        ["Builder, Bob", "102", "S002", "bob.b", "Sec 2", SCORES["bob"]]]
    assert '"Doe, Carol",103,' in text  # comma-delimited, quoted only where a comma needs it
    scores = {p.parent.name: json.loads(p.read_text())["score"] for p in out.glob("students/*/ex01.json")}
    assert {name: float(score) for name, score in SCORES.items()} == scores


def test_canvas_student_columns_the_roster_lacks_are_left_blank(out, tmp_path, capsys):
    roster = _roster(tmp_path / "roster.csv", ["Folder", " ID "], ["bob", "102"], ["alice", "101"], ["carol", "103"])
    assert _grade(_gradebook_route(out, "canvas", roster), capsys)[0] == 0
    _, rows = _written(out, "canvas")
    assert rows[2:] == [["", "102", "", "", "", "4"], ["", "101", "", "", "", "8"], ["", "103", "", "", "", "0"]]


def test_moodle_gradebook_has_an_identifier_column_and_one_column_per_grade_item(out, tmp_path, capsys):
    roster = _roster(tmp_path / "roster.csv", *ROSTERS["moodle"])
    code, _, stderr = _grade(_gradebook_route(out, "moodle", roster), capsys)
    assert (code, stderr) == (0, "")
    _, rows = _written(out, "moodle")
    # Named as Moodle's grade export names them; the import maps "Email address" to the user field of
    # that name. No points row and no total: Moodle reads every row after the header as a student.
    assert rows == [["ID number", "Email address", COLUMN],
                    ["M-3", "carol@uni.example", "0"], ["M-1", "alice@uni.example", "8"],
                    ["M-2", "bob@uni.example", "4"]]


def test_blackboard_gradebook_quotes_every_value_and_keys_on_username(out, tmp_path, capsys):
    roster = _roster(tmp_path / "roster.csv", *ROSTERS["blackboard"])
    code, _, stderr = _grade(_gradebook_route(out, "blackboard", roster), capsys)
    assert (code, stderr) == (0, "")
    text, rows = _written(out, "blackboard")
    assert rows == [["Last Name", "First Name", "Username", "Student ID", COLUMN],
                    ["Doe", "Carol", "cdoe", "900003", "0"], ["Liddell", "Alice", "aliddell", "900001", "8"],
                    ["Builder", "Bob", "bbuilder", "900002", "4"]]
    # Blackboard: each value of a comma-delimited file inside a quote character.
    lines = text.splitlines()
    assert len(lines) == 4 and all(re.fullmatch(r'"[^"]*"(,"[^"]*")*', line) for line in lines), lines


@pytest.mark.parametrize("lms", sorted(LMS_FORMATS))
def test_a_fractional_score_keeps_four_places_with_a_decimal_point(out, tmp_path, capsys, lms):
    report_path = out / "students" / "bob" / "ex01.json"
    report = json.loads(report_path.read_text())
    report["score"] = 2.666666  # a hand-edited copy: grading is not the point here
    report_path.write_text(json.dumps(report))
    roster = _roster(tmp_path / "roster.csv", *ROSTERS[lms])
    assert _grade(_gradebook_route(out, lms, roster), capsys)[0] == 0
    _, rows = _written(out, lms)
    assert rows[-1][-1] == "2.6667"


def test_the_batch_option_and_the_batch_action_write_the_same_file(graded, out, tmp_path):
    kit, folder, _ = graded
    roster = _roster(tmp_path / "roster.csv", *ROSTERS["canvas"])
    batch = run_grade("batch", str(folder), "--exercise", "ex01", "--out", str(out), "--gradebook", "canvas",
                      "--roster", str(roster), cwd=kit)
    assert batch.returncode == 0, batch.stderr
    assert "3 reused (nothing changed)" in batch.stdout
    path = out / "gradebook-canvas.csv"
    assert f"Canvas gradebook: {path}" in " ".join(batch.stdout.split())
    from_batch = path.read_bytes()
    path.unlink()
    action = run_grade(*_gradebook_route(out, "canvas", roster), cwd=tmp_path)
    assert action.returncode == 0, action.stderr
    assert path.read_bytes() == from_batch
    assert from_batch.startswith(b"Student,ID,SIS User ID,SIS Login ID,Section,")


def _mismatched_roster(tmp_path: Path) -> Path:
    """A Moodle roster without bob, and with dave, who submitted nothing."""
    return _roster(tmp_path / "roster.csv", ["folder", "id", "email"], ["alice", "M-1", "alice@uni.example"],
                   ["dave", "M-4", "dave@uni.example"], ["carol", "M-3", "carol@uni.example"])


def test_a_roster_that_does_not_match_says_every_mismatch_and_writes_nothing(out, tmp_path, capsys):
    roster = _mismatched_roster(tmp_path)
    code, _, stderr = _grade(_gradebook_route(out, "moodle", roster), capsys)
    assert code == 2
    lines = stderr.splitlines()
    assert lines[:-1] == [f"grade: {roster}: no row for folder bob",
                          f"grade: {roster} line 3: dave has no submission in {out}"]
    assert lines[-1] == (f"grade: {roster}: does not match {out} (1 folder(s) with no row, 1 row(s) with no "
                         "submission), so no gradebook was written; fix the roster, or pass --allow-missing to "
                         "write the matched students only")
    assert not list(out.glob("gradebook-*"))


def test_allow_missing_writes_the_matched_students_and_still_says_the_rest(out, tmp_path, capsys):
    roster = _mismatched_roster(tmp_path)
    code, _, stderr = _grade(_gradebook_route(out, "moodle", roster, "--allow-missing"), capsys)
    assert code == 0
    assert stderr.splitlines() == [f"grade: warning: {roster}: no row for folder bob",
                                   f"grade: warning: {roster} line 3: dave has no submission in {out}"]
    # Left out, not blank: a blank cell would clear a grade Moodle already holds for dave.
    _, rows = _written(out, "moodle")
    assert rows == [["ID number", "Email address", COLUMN], ["M-1", "alice@uni.example", "8"],
                    ["M-3", "carol@uni.example", "0"]]


def test_the_batch_option_checks_the_roster_before_grading_anything(graded, tmp_path):
    kit, folder, _ = graded
    roster = _mismatched_roster(tmp_path)
    fresh = tmp_path / "fresh"
    result = run_grade("batch", str(folder), "--exercise", "ex01", "--out", str(fresh), "--gradebook", "moodle",
                       "--roster", str(roster), cwd=kit)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert lines[:-1] == [f"grade: {roster}: no row for folder bob",
                          f"grade: {roster} line 3: dave has no submission in {folder}"]
    assert lines[-1].startswith(f"grade: {roster}: does not match {folder} (1 folder(s) with no row")
    assert not fresh.exists()


def _corrupt_report(out: Path) -> None:
    (out / "students" / "alice" / "ex01.json").write_text("{")


def _a_second_exercise_for_alice_only(out: Path) -> None:
    report = json.loads((out / "students" / "alice" / "ex01.json").read_text())
    report["exercise"]["id"] = "ex02"
    (out / "students" / "alice" / "ex02.json").write_text(json.dumps(report))


def _no_reports(out: Path) -> None:
    for student in ("alice", "bob", "carol"):
        shutil.rmtree(out / "students" / student)


def _as_an_earlier_kit_left_it(out: Path) -> None:
    """OUT/STUDENT/exNN.json, with no OUT/students/."""
    for folder in (out / "students").iterdir():
        folder.rename(out / folder.name)
    (out / "students").rmdir()


CANVAS_HEADER = "folder,id\n"
# (roster file's bytes or None for no file, LMS, a change to OUT, what the one-line error says)
BAD_INPUTS = {
    "no roster file": (None, "canvas", None, "no such roster file"),
    "not UTF-8": (b"folder,id\ncaf\xe9,1\n", "canvas", None, "the roster is not UTF-8 text (byte 13)"),
    "not CSV": (b'folder,id\n"alice,101\nbob,102\n', "canvas", None, "not valid CSV (unexpected end of data)"),
    "empty": (b"\n\n", "canvas", None, "the roster is empty"),
    "no folder column": (b"name,id\nalice,101\n", "canvas", None, "no folder column, which Canvas needs"),
    "no id column": (b"folder,email\nalice,a@x\n", "moodle", None, "no id column, which Moodle needs"),
    "no LMS column": (b"folder,id\nalice,1\n", "blackboard", None, "no username column, which Blackboard Learn needs"),
    "a column twice": (b"folder,id,ID\nalice,1,2\n", "canvas", None, "the header names column 'id' more than once"),
    "empty id": (b"folder,id\nalice,101\nbob,\ncarol,103\n", "canvas", None, "line 3: empty id"),
    "empty folder": (b"folder,id\n,101\n", "canvas", None, "line 2: empty folder"),
    "duplicate folder": (b"folder,id\nalice,101\nbob,102\nalice,103\n", "canvas", None,
                         "line 4: folder alice again (first on line 2)"),
    "duplicate id": (b"folder,id\nalice,101\nbob,101\n", "canvas", None, "line 3: id 101 again (first on line 2)"),
    "duplicate key": (b"folder,id,email\nalice,1,a@x\nbob,2,a@x\n", "moodle", None,
                      "line 3: email a@x again (first on line 2)"),
    "too many cells": (b"folder,id\nalice,101,extra\n", "canvas", None,
                       "line 2: 3 cells, but the header names 2 columns"),
    "no row matches": (b"folder,id\nzoe,1\n", "canvas", None, "no row names a folder of"),
    "no reports": (b"folder,id\nalice,1\n", "canvas", _no_reports, "no reports in it"),
    "corrupt report": (b"folder,id\nalice,1\n", "canvas", _corrupt_report,
                       "students/alice/ex01.json: not a readable report"),
    "a report missing": (b"folder,id\nalice,1\nbob,2\ncarol,3\n", "canvas", _a_second_exercise_for_alice_only,
                         ("students/bob/ex02.json: missing, and the gradebook needs every student's report on "
                          "each of ex01, ex02")),
    "an earlier kit's folder": (b"folder,id\nalice,1\n", "canvas", _as_an_earlier_kit_left_it,
                                 "written by an earlier kit"),
    "unknown LMS": (b"folder,id\nalice,1\n", "d2l", None, "argument --lms: invalid choice: 'd2l'"),
}


@pytest.mark.parametrize("case", BAD_INPUTS, ids=lambda case: case.replace(" ", "-"))
def test_bad_input_is_one_line_exit_2_and_no_gradebook(out, tmp_path, capsys, case):
    content, lms, change, words = BAD_INPUTS[case]
    roster = tmp_path / "roster.csv"
    if content is not None:
        roster.write_bytes(content)
    if change is not None:
        change(out)
    extra = ["--allow-missing"] if case == "no row matches" else []
    code, _, stderr = _grade(_gradebook_route(out, lms, roster, *extra), capsys)
    assert code == 2
    lines = stderr.splitlines() if case != "no row matches" else stderr.splitlines()[-1:]
    assert len(lines) == 1 and lines[0].startswith("grade: "), stderr
    assert words in lines[0], lines[0]
    assert not list(out.glob("gradebook-*")) and not list(out.glob(".gradebook-*"))


USAGE_ERRORS = {
    "--gradebook without --roster": (["--gradebook", "canvas"], "--gradebook canvas needs --roster CSV"),
    "--roster without --gradebook": (["--roster", "roster.csv"], "--roster goes with --gradebook LMS"),
    "--allow-missing without --gradebook": (["--allow-missing"], "--allow-missing goes with --gradebook LMS"),
    "--gradebook on a shard": (["--gradebook", "moodle", "--roster", "roster.csv", "--shard", "1/2"],
                               "--gradebook needs the whole class, not a shard"),
    "an unknown LMS": (["--gradebook", "d2l", "--roster", "roster.csv"], "argument --gradebook: invalid choice"),
}


@pytest.mark.parametrize("case", USAGE_ERRORS, ids=lambda case: case.replace(" ", "-"))
def test_gradebook_options_of_batch_misused_are_one_line_and_grade_nothing(graded, tmp_path, capsys, case):
    _, folder, _ = graded
    options, words = USAGE_ERRORS[case]
    fresh = tmp_path / "fresh"
    code, _, stderr = _grade(["batch", str(folder), "--exercise", "ex01", "--out", str(fresh), *options], capsys)
    assert code == 2
    assert len(stderr.splitlines()) == 1 and stderr.startswith(f"grade: {words}"), stderr
    assert not fresh.exists()


def test_the_command_line_offers_exactly_the_formats_there_are():
    from grader.cli.arguments import LMS_NAMES

    assert LMS_NAMES == tuple(LMS_FORMATS)


class Unprintable:
    """A cell that fails half-way through writing a gradebook."""

    def __str__(self) -> str:
        raise RuntimeError("disk full, say")


def test_a_write_that_fails_leaves_the_old_gradebook_and_no_temporary_file(tmp_path):
    path = tmp_path / "gradebook-canvas.csv"
    path.write_text("the old one\n")
    with pytest.raises(RuntimeError):
        write_lms_gradebook(CANVAS, [["Student", "ID"], ["Alice", Unprintable()]], path)
    assert path.read_text() == "the old one\n"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]

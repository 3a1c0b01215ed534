"""`grade batch diff OLD NEW` (grader/classroom/regrade.py): every mark a regrade changed, check by check.

A class of three on the real kit's ex01 (the reference, a known mistake and the untouched stub) is
graded once into OLD for the module. NEW is then a real regrade of the same class, a real regrade
of one student whose file changed, or a copy of OLD with reports edited by hand (still valid
reports) where a change that grading cannot easily make is the point.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from grader.classroom.regrade import CHANGE_COLUMNS
from grader.cli import main
from tests.conftest import REPO, mutant_file, run_grade

# The known mistake bob made: the reference but for accepting a negative pile, which one hidden check catches.
MISTAKE = "negative_pile_not_rejected"


def _grade_class(folder: Path, out: Path, *more: str) -> None:
    """`grade batch FOLDER --exercise ex01 --out OUT` in the real kit, as an instructor runs it."""
    result = run_grade("batch", str(folder), "--exercise", "ex01", "--jobs", "2", "--out", str(out), *more, cwd=REPO)
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module")
def graded(tmp_path_factory, repo_kit):
    """(base, class folder, OLD, reference file, bob's mistake file): the class graded once into OLD."""
    base = tmp_path_factory.mktemp("regrade")
    exercise = repo_kit.resolve("ex01")
    reference = exercise.solution_dir(repo_kit.root) / exercise.module
    mistake = mutant_file(repo_kit, "ex01", MISTAKE, base / "mutants")
    folder = base / "class"
    folder.mkdir()
    for student, source in (("alice", reference), ("bob", mistake), ("carol", exercise.stub_path)):
        shutil.copyfile(source, folder / f"{student}.py")
    old = base / "old"
    _grade_class(folder, old)
    return base, folder, old, reference, mistake


@pytest.fixture(scope="module")
def regraded_unchanged(graded):
    """NEW: the same class graded again from scratch, so every report is a fresh grade."""
    base, folder, _, _, _ = graded
    new = base / "new-unchanged"
    _grade_class(folder, new)
    return new


@pytest.fixture(scope="module")
def bob_fixed(graded):
    """NEW: a copy of OLD, graded again after bob replaced his file with a correct one (only bob is regraded)."""
    base, folder, old, reference, _ = graded
    fixed = base / "class-bob-fixed"
    shutil.copytree(folder, fixed)
    shutil.copyfile(reference, fixed / "bob.py")
    new = base / "new-bob-fixed"
    shutil.copytree(old, new)
    result = run_grade("batch", str(fixed), "--exercise", "ex01", "--out", str(new), cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert "2 reused (nothing changed), 1 graded (1 submission changed)" in " ".join(result.stdout.split())
    return new


def _diff(old: Path, new: Path):
    result = run_grade("batch", "diff", str(old), str(new), cwd=REPO)
    assert result.returncode == 0, result.stderr
    return result


def _changes(new: Path) -> list[dict[str, str]]:
    with open(new / "changes.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == CHANGE_COLUMNS == ["student", "exercise", "old_score", "new_score", "change", "checks"]
    return [dict(zip(rows[0], row)) for row in rows[1:]]


def _report(folder: Path, student: str, exercise: str = "ex01") -> dict:
    return json.loads((folder / "students" / student / f"{exercise}.json").read_text(encoding="utf-8"))


def _row_of(stdout: str, student: str) -> str:
    """The first line of the table's row for `student`."""
    return next(line for line in stdout.splitlines() if line.startswith(f"│ {student} "))


def _cells(line: str) -> list[str]:
    """A line of the table, cell by cell."""
    return [cell.strip() for cell in line.split("│")[1:-1]]


def test_a_regrade_that_changes_nothing_says_so_in_one_line_and_writes_only_the_header(graded, regraded_unchanged):
    _, _, old, _, _ = graded
    result = _diff(old, regraded_unchanged)
    assert result.stdout.splitlines() == [
        f"No mark changed: 3 students on 1 exercise(s) compared ({regraded_unchanged / 'changes.csv'} holds only "
        "its header)"]
    assert _changes(regraded_unchanged) == []
    # Written whole and moved into place: no temporary file is left beside it.
    assert not [path.name for path in regraded_unchanged.iterdir() if path.name.startswith(".changes")]


def test_a_student_whose_file_changed_shows_the_new_mark_and_the_checks_that_made_it(graded, bob_fixed):
    _, _, old, _, _ = graded
    before, after = _report(old, "bob"), _report(bob_fixed, "bob")
    assert (before["score"], after["score"]) == (26, 27)  # the mistake costs one hidden check's point
    # The checks that changed, as the two report files themselves have them.
    was = {test["id"]: test["score"] for test in before["tests"]}
    gained = [f"{test['name']} {test['score'] - was[test['id']]:+g}" for test in after["tests"]
              if test["score"] != was[test["id"]]]
    assert gained == ["negative piles raise ValueError +1"]

    result = _diff(old, bob_fixed)
    assert _changes(bob_fixed) == [{"student": "bob", "exercise": "ex01", "old_score": "26", "new_score": "27",
                                    "change": "1", "checks": "negative piles raise ValueError +1"}]
    assert _cells(_row_of(result.stdout, "bob")) == ["bob", "ex01", "26", "27", "+1",
                                                     "negative piles raise ValueError +1"]
    assert "│ alice " not in result.stdout and "│ carol " not in result.stdout
    assert f"1 mark(s) changed: 3 students on 1 exercise(s) compared. Changes: {bob_fixed / 'changes.csv'}" \
        in result.stdout


@pytest.fixture(scope="module")
def edited(graded, schema_validator):
    """NEW: a copy of OLD edited by hand into every other kind of change, each report kept valid.

    alice's report loses its last check, has its first one replaced by a check of another id and its
    second one reworded (the same id and points: no change); carol left the class, dave joined it,
    and bob has a report on ex04 that OLD has for no one.
    """
    base, _, old, _, _ = graded
    new = base / "new-edited"
    shutil.copytree(old, new)
    alice = _report(new, "alice")
    dropped = alice["tests"].pop()
    alice["tests"][0] = {**alice["tests"][0], "id": "checks/test_public.py::test_empty_pile_either_player",
                         "name": "an empty pile, either player to move"}
    alice["tests"][1] = {**alice["tests"][1], "name": "minimax, reworded"}
    alice["score"] -= dropped["score"]
    alice["max_score"] -= dropped["max_score"]
    shutil.rmtree(new / "students" / "carol")
    shutil.copytree(new / "students" / "bob", new / "students" / "dave")
    bob_on_ex04 = {**_report(new, "bob"), "exercise": {**_report(new, "bob")["exercise"], "id": "ex04",
                                                       "title": "Alpha-beta"}}
    for student, exercise, report in (("alice", "ex01", alice), ("bob", "ex04", bob_on_ex04)):
        schema_validator.validate(report)
        (new / "students" / student / f"{exercise}.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    return new, alice, dropped


def test_checks_and_students_and_exercises_in_only_one_folder_are_changes(graded, edited):
    _, _, old, _, _ = graded
    new, alice, dropped = edited
    first = _report(old, "alice")["tests"][0]
    result = _diff(old, new)
    alice_checks = [f"an empty pile, either player to move +{first['score']:g} (only in NEW)",
                    f"{first['name']} -{first['score']:g} (only in OLD)",
                    f"{dropped['name']} -{dropped['score']:g} (only in OLD)"]
    assert _changes(new) == [
        {"student": "alice", "exercise": "ex01", "old_score": "27", "new_score": f"{alice['score']:g}",
         "change": f"{-dropped['score']:g}", "checks": "; ".join(alice_checks)},
        {"student": "bob", "exercise": "ex04", "old_score": "", "new_score": "26", "change": "", "checks": ""},
        {"student": "carol", "exercise": "ex01", "old_score": "0", "new_score": "", "change": "", "checks": ""},
        {"student": "dave", "exercise": "ex01", "old_score": "", "new_score": "26", "change": "", "checks": ""},
    ]
    lines = result.stdout.splitlines()
    alice_row = lines.index(_row_of(result.stdout, "alice"))
    assert _cells(lines[alice_row])[:5] == ["alice", "ex01", "27", f"{alice['score']:g}", f"{-dropped['score']:+g}"]
    assert [_cells(line)[5] for line in lines[alice_row:alice_row + 3]] == alice_checks
    assert _cells(_row_of(result.stdout, "bob")) == ["bob", "ex04", "—", "26", "—", "report only in NEW"]
    assert _cells(_row_of(result.stdout, "carol")) == ["carol", "ex01", "0", "—", "—", "student only in OLD"]
    assert _cells(_row_of(result.stdout, "dave")) == ["dave", "ex01", "—", "26", "—", "student only in NEW"]
    said = " ".join(result.stdout.split())
    assert "4 mark(s) changed: 2 students on 1 exercise(s) compared." in said
    for line in ("students only in OLD: carol", "students only in NEW: dave", "exercises only in NEW: ex04"):
        assert line in said
    assert "exercises only in OLD" not in said
    assert "reworded" not in result.stdout, "a check is matched by its id, not its name"


def _listing(folder: Path) -> dict[str, bytes]:
    """Every file under a folder, with its bytes: what `nothing written` is checked against."""
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def _bad_new(old: Path, base: Path, how: str) -> tuple[Path, Path, str]:
    """(OLD, NEW, a word the one-line error must hold) for each kind of bad input."""
    if how == "old missing":
        new = base / "new"
        shutil.copytree(old, new)
        return base / "nowhere", new, "OLD"
    if how == "new is a file":
        (base / "new.txt").write_text("not a folder\n")
        return old, base / "new.txt", "not a folder"
    if how == "new has no reports":
        (base / "new" / "students" / "bob").mkdir(parents=True)
        (base / "new" / "grades.csv").write_text("student,ex01,total\n")
        return old, base / "new", "no reports"
    new = base / "new"
    shutil.copytree(old, new)
    if how == "report not json":
        (new / "students" / "bob" / "ex01.json").write_text('{"schema_version": 1, "score"', encoding="utf-8")
        return old, new, "students/bob/ex01.json"
    if how == "json not a report":
        (new / "students" / "bob" / "ex01.json").write_text(json.dumps({"score": 26, "tests": []}), encoding="utf-8")
        return old, new, "students/bob/ex01.json"
    if how == "old in an earlier kit's layout":
        earlier = base / "old-earlier"
        shutil.copytree(old / "students", earlier)  # OLD/STUDENT/exNN.json, with no OLD/students/
        shutil.copyfile(old / "grades.csv", earlier / "grades.csv")
        return earlier, new, "written by an earlier kit"
    assert how == "old report not a report"
    broken = base / "old-broken"
    shutil.copytree(old, broken)
    (broken / "students" / "carol" / "ex01.json").write_text("[]", encoding="utf-8")
    return broken, new, "students/carol/ex01.json"


@pytest.mark.parametrize("how", ["old missing", "new is a file", "new has no reports", "report not json",
                                 "json not a report", "old report not a report", "old in an earlier kit's layout"])
def test_bad_input_is_one_line_exit_2_and_nothing_written(graded, tmp_path, capsys, how):
    _, _, old, _, _ = graded
    old_folder, new, word = _bad_new(old, tmp_path, how)
    before = _listing(new) if new.is_dir() else None
    assert main(["batch", "diff", str(old_folder), str(new)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("grade: "), lines
    assert word in lines[0]
    if before is not None:
        assert _listing(new) == before, "a refused diff writes nothing into NEW"
    assert not (tmp_path / "changes.csv").exists()


def test_a_diff_needs_both_folders(graded, capsys):
    _, _, old, _, _ = graded
    assert main(["batch", "diff", str(old)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["grade: the following arguments are required: NEW"]
    assert not (old / "changes.csv").exists()

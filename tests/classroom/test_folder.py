"""A class's output folder: where each report lives, and finding them again."""

from __future__ import annotations

import csv
import json
import shutil

import pytest

from grader.catalog import KitError
from grader.classroom import ClassFolder
from grader.classroom.folder import inputs_path
from grader.classroom.shards import MANIFEST
from tests.conftest import REPO, run_grade

GOLDEN = REPO / "tests" / "golden"

# Students named as the class's own files are named (and as the folder of students): a student's
# name must never reach one of them.
CLASS_FILE_NAMES = ("grades.csv", "report.html", "students", "checks.csv", "mistakes.csv", "similar.csv",
                    "similarity.json", "changes.csv", "gradebook-canvas.csv", MANIFEST, "ex01.json")


def _class_files(folder: ClassFolder) -> list:
    return [folder.gradebook, folder.lms_gradebook("canvas"), folder.page, folder.checks_table, folder.mistakes_table,
            folder.similar_table, folder.similarity_record, folder.changes_table, folder.root / MANIFEST]


def test_every_report_is_found_by_student_then_exercise_and_nothing_else(tmp_path):
    folder = ClassFolder(tmp_path)
    for student, exercise in (("bob", "ex02"), ("ann", "ex04"), ("ann", "ex01")):
        path = folder.report(student, exercise)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
        inputs_path(path).write_text("{}")
    (tmp_path / "students" / "ann" / "notes.json").write_text("{}")
    (tmp_path / "students" / ".cache").mkdir()
    (tmp_path / "students" / ".cache" / "ex01.json").write_text("{}")
    folder.gradebook.write_text("student\n")
    assert [(student, path.name) for student, path in folder.reports()] == [
        ("ann", "ex01.json"), ("ann", "ex04.json"), ("bob", "ex02.json")]
    assert folder.report("ann", "ex04") == tmp_path / "students" / "ann" / "ex04.json"
    assert inputs_path(folder.report("ann", "ex04")) == tmp_path / "students" / "ann" / ".ex04.inputs.json"
    assert ClassFolder.report_link("a b", "ex04") == "students/a%20b/ex04.json"


def test_a_folder_that_is_not_there_holds_no_reports(tmp_path):
    assert ClassFolder(tmp_path / "missing").reports() == []
    assert ClassFolder(tmp_path).reports() == []


def test_students_named_as_the_class_files_are_kept_apart_from_them(tmp_path):
    folder = ClassFolder(tmp_path)
    for student in CLASS_FILE_NAMES:
        path = folder.report(student, "ex01")
        assert not any(path == place or place in path.parents or path in place.parents
                       for place in _class_files(folder)), student
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
        inputs_path(path).write_text("{}")
    for place in _class_files(folder):  # each a file at the top, whoever is in the class
        place.write_text("written\n")
    assert [student for student, _ in folder.reports()] == sorted(CLASS_FILE_NAMES)
    folder.refuse_earlier_layout()  # a student named "ex01.json" is a folder, not an earlier kit's report


@pytest.mark.parametrize("where", ["OUT/STUDENT/exNN.json", "OUT/students/exNN.json"])
def test_a_folder_an_earlier_kit_wrote_is_refused_in_one_line(tmp_path, where):
    """An earlier kit kept OUT/ann/ex01.json (and, for a student named students, OUT/students/ex01.json)."""
    report = tmp_path / ("ann" if where == "OUT/STUDENT/exNN.json" else "students") / "ex01.json"
    report.parent.mkdir()
    report.write_text("{}")
    (tmp_path / "grades.csv").write_text("student,ex01,total\n")
    with pytest.raises(KitError) as refused:
        ClassFolder(tmp_path).reports()
    assert str(refused.value) == (f"{tmp_path}: written by an earlier kit (reports as {report}, now "
                                  f"{tmp_path}/students/STUDENT/exNN.json); grade the class again into a new folder")


def test_a_new_folder_beside_leftovers_of_an_earlier_kit_reads_the_new_reports(tmp_path):
    folder = ClassFolder(tmp_path)
    (tmp_path / "ann").mkdir()
    (tmp_path / "ann" / "ex01.json").write_text("{}")
    folder.report("ann", "ex01").parent.mkdir(parents=True)
    folder.report("ann", "ex01").write_text("{}")
    assert folder.reports() == [("ann", folder.report("ann", "ex01"))]


def test_a_class_named_as_the_class_files_is_graded_merged_reported_and_diffed(toy_kit, tmp_path):
    """Through the CLI: two shards graded, merged, its page rebuilt, a gradebook written and a diff taken."""
    classroom = tmp_path / "class"
    for index, student in enumerate(CLASS_FILE_NAMES):
        if index % 2 == 0:  # a folder named grades.csv/, and a file named report.html.py
            (classroom / student).mkdir(parents=True)
            shutil.copyfile(GOLDEN / "full_solution" / "toy.py", classroom / student / "toy.py")
        else:
            classroom.mkdir(exist_ok=True)
            shutil.copyfile(GOLDEN / "partial_solution" / "toy.py", classroom / f"{student}.py")
    scores = {student: "8" if index % 2 == 0 else "4" for index, student in enumerate(CLASS_FILE_NAMES)}
    shards = [tmp_path / f"shard{k}" for k in (1, 2)]
    for k, shard in enumerate(shards, 1):
        graded = run_grade("batch", str(classroom), "--exercise", "ex01", "--jobs", "2", "--seed", "3",
                           "--out", str(shard), "--shard", f"{k}/2", cwd=toy_kit.root)
        assert graded.returncode == 0, graded.stderr
        assert (shard / MANIFEST).is_file() and (shard / "report.html").is_file()
    marks = tmp_path / "marks"
    merged = run_grade("batch", "merge", str(marks), *map(str, shards), cwd=toy_kit.root)
    assert merged.returncode == 0, merged.stderr
    folder = ClassFolder(marks)
    with open(folder.gradebook, newline="") as handle:
        assert {row["student"]: row["ex01"] for row in csv.DictReader(handle)} == scores
    for student, score in scores.items():
        assert json.loads(folder.report(student, "ex01").read_text())["score"] == float(score)
        assert inputs_path(folder.report(student, "ex01")).is_file()
    assert all(place.is_file() for place in (folder.page, folder.checks_table, folder.mistakes_table,
                                             folder.similar_table, folder.similarity_record))
    page = folder.page.read_text()
    assert 'href="students/grades.csv/ex01.json"' in page and 'href="students/students/ex01.json"' in page
    rebuilt = run_grade("batch", "report", str(marks), cwd=toy_kit.root)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert f"Read the reports of {len(CLASS_FILE_NAMES)} students" in rebuilt.stdout
    roster = tmp_path / "roster.csv"
    with open(roster, "w", newline="") as handle:
        csv.writer(handle).writerows([["folder", "id"], *([student, str(n)] for n, student in enumerate(scores))])
    book = run_grade("batch", "gradebook", str(marks), "--lms", "canvas", "--roster", str(roster), cwd=toy_kit.root)
    assert book.returncode == 0, book.stderr
    assert folder.lms_gradebook("canvas").is_file()
    again = tmp_path / "again"
    shutil.copytree(marks, again)
    diffed = run_grade("batch", "diff", str(marks), str(again), cwd=toy_kit.root)
    assert diffed.returncode == 0, diffed.stderr
    with open(ClassFolder(again).changes_table, newline="") as handle:
        assert len(list(csv.reader(handle))) == 1  # the header: nothing changed


def test_grade_batch_into_a_folder_an_earlier_kit_wrote_is_refused_before_grading(toy_kit, tmp_path):
    classroom = tmp_path / "class"
    (classroom / "ann").mkdir(parents=True)
    shutil.copyfile(GOLDEN / "full_solution" / "toy.py", classroom / "ann" / "toy.py")
    marks = tmp_path / "marks"
    (marks / "ann").mkdir(parents=True)
    (marks / "ann" / "ex01.json").write_text("{}")
    result = run_grade("batch", str(classroom), "--exercise", "ex01", "--out", str(marks), cwd=toy_kit.root)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"{marks}: written by an earlier kit" in result.stderr
    assert sorted(path.name for path in marks.iterdir()) == ["ann"]

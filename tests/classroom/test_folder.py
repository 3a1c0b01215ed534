"""A class's output folder: where each report lives, and finding them again."""

from __future__ import annotations

from grader.classroom import ClassFolder
from grader.classroom.folder import inputs_path


def test_every_report_is_found_by_student_then_exercise_and_nothing_else(tmp_path):
    folder = ClassFolder(tmp_path)
    for student, exercise in (("bob", "ex02"), ("ann", "ex04"), ("ann", "ex01")):
        path = folder.report(student, exercise)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
        inputs_path(path).write_text("{}")
    (tmp_path / "ann" / "notes.json").write_text("{}")
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "ex01.json").write_text("{}")
    folder.gradebook.write_text("student\n")
    assert [(student, path.name) for student, path in folder.reports()] == [
        ("ann", "ex01.json"), ("ann", "ex04.json"), ("bob", "ex02.json")]
    assert folder.report("ann", "ex04") == tmp_path / "ann" / "ex04.json"
    assert inputs_path(folder.report("ann", "ex04")) == tmp_path / "ann" / ".ex04.inputs.json"


def test_a_folder_that_is_not_there_holds_no_reports(tmp_path):
    assert ClassFolder(tmp_path / "missing").reports() == []

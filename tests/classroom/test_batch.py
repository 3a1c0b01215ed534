"""`grade batch`: a whole class graded in parallel into reports and grades.csv, broken ones included."""

from __future__ import annotations

import csv
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from grader.classroom.batch import error_from_the_grader, find_students
from grader.catalog import KitError
from grader.outcomes import Regraded
from tests.conftest import REPO, run_grade

# Run again as an ordinary user by .ci/run (python -m pytest -m ordinary_user): what a uid without root meets.
pytestmark = pytest.mark.ordinary_user

GOLDEN = REPO / "tests" / "golden"


@pytest.fixture
def classroom(tmp_path):
    """Four students: a full folder, a partial file, a corrupt zip and a syntax error in a zip."""
    folder = tmp_path / "class"
    (folder / "alice").mkdir(parents=True)
    shutil.copyfile(GOLDEN / "full_solution" / "toy.py", folder / "alice" / "toy.py")
    shutil.copyfile(GOLDEN / "partial_solution" / "toy.py", folder / "bob.py")
    (folder / "carol.zip").write_bytes(b"PK\x03\x04 broken")
    with zipfile.ZipFile(folder / "dave.zip", "w") as archive:
        archive.writestr("work/toy.py", (GOLDEN / "syntax_error" / "toy.py").read_text())
    (folder / ".DS_Store").write_text("not a student")
    return folder


def _gradebook(out):
    with open(out / "grades.csv", newline="") as handle:
        return list(csv.reader(handle))


def test_a_class_is_graded_into_reports_and_a_gradebook(toy_kit, classroom, tmp_path, validate_report):
    out = tmp_path / "marks"
    result = run_grade("batch", str(classroom), "--exercise", "ex01", "--jobs", "2", "--out", str(out),
                       cwd=toy_kit.root)
    assert result.returncode == 0, result.stderr
    assert _gradebook(out) == [["student", "ex01", "total"], ["alice", "8", "8"], ["bob", "4", "4"],
                               ["carol", "0", "0"], ["dave", "0", "0"]]
    for student in ("alice", "bob", "carol", "dave"):
        validate_report(json.loads((out / "students" / student / "ex01.json").read_text()))
    assert "Graded 4 students on 1 exercise(s): 4 graded (4 new)" in result.stdout
    assert "mean 3.0, median 2, lowest 0, highest 8; 1 with full marks, 2 with a submission that did not run" \
        in result.stdout


def test_unchanged_submissions_are_not_regraded(toy_kit, classroom, tmp_path):
    out = tmp_path / "marks"
    args = ["batch", str(classroom), "--exercise", "ex01", "--out", str(out), "--jobs", "2"]
    run_grade(*args, cwd=toy_kit.root)
    first = (out / "students" / "alice" / "ex01.json").read_text()
    shutil.copyfile(GOLDEN / "full_solution" / "toy.py", classroom / "bob.py")
    again = run_grade(*args, cwd=toy_kit.root)
    assert "3 reused (nothing changed), 1 graded (1 submission changed)" in again.stdout
    assert (out / "students" / "alice" / "ex01.json").read_text() == first
    assert _gradebook(out)[2] == ["bob", "8", "8"]
    forced = run_grade(*args, "--force", cwd=toy_kit.root)
    assert "4 graded (4 --force)" in forced.stdout


def _reasons(result) -> str:
    """What the batch said it reused and why it graded the rest."""
    assert result.returncode == 0, result.stderr
    return result.stdout.split(": ", 1)[1].split(". Gradebook", 1)[0]


def test_a_report_is_reused_only_while_nothing_that_made_it_changed(toy_kit, classroom, tmp_path):
    """Each input of a grade, changed alone, sends exactly the reports it made back to grading."""
    out = tmp_path / "marks"
    args = ["batch", str(classroom), "--exercise", "ex01", "--out", str(out), "--jobs", "2", "--seed", "7"]
    assert _reasons(run_grade(*args, cwd=toy_kit.root)) == "4 graded (4 new)"
    assert _reasons(run_grade(*args, cwd=toy_kit.root)) == "4 reused (nothing changed)"
    # A helper module of a folder submission: only that student.
    (classroom / "alice" / "notes.py").write_text("SIZE = 3\n")
    assert _reasons(run_grade(*args, cwd=toy_kit.root)) == (
        "3 reused (nothing changed), 1 graded (1 submission changed)")
    exercise = toy_kit.root / "exercises" / "ex01_toy"
    edits = [  # a hidden check, exercise.toml, a helper beside the checks, a shared helper
        (exercise / "checks" / "test_hidden.py", "\n# the instructor's edit\n"),
        (exercise / "exercise.toml", "\n# the instructor's edit\n"),
        (exercise / "checks" / "toy_helpers.py", "LIMIT = 3\n"),
        (toy_kit.root / "exercises" / "shared_checks" / "drawing.py", "WIDTH = 80\n"),
    ]
    for path, text in edits:
        path.parent.mkdir(exist_ok=True)
        path.write_text((path.read_text() if path.exists() else "") + text)
        assert _reasons(run_grade(*args, cwd=toy_kit.root)) == (
            "4 graded (4 checks changed)"), path
    assert _reasons(run_grade(*args[:-1], "8", cwd=toy_kit.root)) == (
        "4 graded (4 seed changed)")
    # A report with no record of what made it (written by hand, or by an older kit) is graded anew.
    (out / "students" / "bob" / ".ex01.inputs.json").unlink()
    assert _reasons(run_grade(*args[:-1], "8", cwd=toy_kit.root)) == "3 reused (nothing changed), 1 graded (1 new)"


def test_another_kit_version_regrades(toy_kit, classroom, tmp_path, monkeypatch):
    from grader.classroom import batch

    out = tmp_path / "marks"
    students = batch.find_students(classroom)
    exercises = [toy_kit.resolve("ex01")]
    graded = lambda: batch.run_batch(toy_kit, exercises, students, out, jobs=2, force=False, seed=7,  # noqa: E731
                                     advance=lambda: None)[1]
    assert graded() == {Regraded.NEW: 4}
    assert graded() == {Regraded.REUSED: 4}
    monkeypatch.setattr(batch, "__version__", "99.0")  # what an upgrade of the kit changes
    assert graded() == {Regraded.KIT: 4}


FLAKY_CHECK = """

import os


@pytest.fixture
def busy_machine():
    if os.environ.get("MINIMAX_TOY_BUSY"):
        raise RuntimeError("the machine was too busy to start this check")


def test_on_a_busy_machine(student, busy_machine):
    \"\"\"add on a machine that may be busy\"\"\"
    assert student.add(1, 1) == 2
"""


def test_a_report_with_an_error_on_the_graders_side_is_never_reused(toy_kit, classroom, tmp_path, monkeypatch):
    """A check that could not start (the machine, not the student) costs a bad night's zero only until the next run."""
    hidden = toy_kit.root / "exercises" / "ex01_toy" / "checks" / "test_hidden.py"
    hidden.write_text(hidden.read_text() + FLAKY_CHECK)
    out = tmp_path / "marks"
    args = ["batch", str(classroom), "--exercise", "ex01", "--out", str(out), "--jobs", "2", "--seed", "7"]
    monkeypatch.setenv("MINIMAX_TOY_BUSY", "1")
    assert _reasons(run_grade(*args, cwd=toy_kit.root)) == "4 graded (4 new)"
    assert _gradebook(out)[1] == ["alice", "8", "8"]  # the busy check lost alice its point
    monkeypatch.delenv("MINIMAX_TOY_BUSY")
    # alice and bob had the check's error; carol's and dave's could not be imported, which a new grade repeats.
    assert _reasons(run_grade(*args, cwd=toy_kit.root)) == (
        "2 reused (nothing changed), 2 graded (2 an error on the grader's side last time)")
    assert _gradebook(out)[1] == ["alice", "9", "9"]
    assert _reasons(run_grade(*args, cwd=toy_kit.root)) == "4 reused (nothing changed)"


def test_an_outer_limit_or_no_checks_is_the_graders_error_and_an_import_is_not():
    from grader.report import build_report
    from grader.run_contract import Check, SandboxFacts

    check = Check(nodeid="checks/test_public.py::test_add", id="checks/test_public.py::test_add", name="add",
                  visibility="public", points=1.0, hint=None, budget_s=1.0, code=None, family="add")
    common = dict(exercise={"id": "ex01", "slug": "toy", "title": "Toy"}, submission={"path": "toy.py", "sha256": ""},
                  seed=1, raw=None, started_at="2026-01-01T00:00:00Z", duration_s=1.0, call_timeout=1.0)
    outer = build_report(collected=(check,), sandbox=SandboxFacts(), fault="the grading process ran past its 9 s limit",
                         **common)
    nothing = build_report(collected=(), sandbox=SandboxFacts(), fault=None, **common)
    unimportable = build_report(collected=(check,), sandbox=SandboxFacts(import_error="toy.py line 1: SyntaxError"),
                                fault=None, **common)
    assert error_from_the_grader(outer) and error_from_the_grader(nothing)
    assert not error_from_the_grader(unimportable)


def test_batch_with_all_exercises_has_a_column_each(toy_kit, classroom, tmp_path):
    out = tmp_path / "marks"
    result = run_grade("batch", str(classroom), "--all", "--out", str(out), cwd=toy_kit.root)
    assert result.returncode == 0
    assert _gradebook(out)[0] == ["student", "ex01", "total"]


def test_batch_usage_errors(toy_kit, tmp_path):
    missing = run_grade("batch", str(tmp_path / "nope"), "--exercise", "ex01", "--out", str(tmp_path / "o"),
                        cwd=toy_kit.root)
    assert missing.returncode == 2 and "no such folder" in missing.stderr
    neither = run_grade("batch", str(tmp_path), "--out", str(tmp_path / "o"), cwd=toy_kit.root)
    assert neither.returncode == 2 and "one of the arguments --exercise --all is required" in neither.stderr
    jobs = run_grade("batch", str(tmp_path), "--all", "--jobs", "0", "--out", "o", cwd=toy_kit.root)
    assert jobs.returncode == 2 and "expected a number >= 1" in jobs.stderr


@pytest.mark.parametrize("entries", [("erin", "erin.py"), ("erin.ipynb", "erin.py")])
def test_two_submissions_for_one_student_are_that_students_problem_alone(tmp_path, entries):
    for entry in entries:
        if "." in entry:
            (tmp_path / entry).write_text("")
        else:
            (tmp_path / entry).mkdir()
    (tmp_path / "frank.py").write_text("")
    erin, frank = find_students(tmp_path)
    assert erin.problem == f"more than one submission for erin: {', '.join(sorted(entries))}"
    assert (frank.name, frank.problem) == ("frank", None)


def test_a_class_of_notebooks_is_graded_and_an_unchanged_one_reused(toy_kit, tmp_path, validate_report):
    """A bare notebook, a notebook in a folder and in a zip, and a .ipynb that is no notebook."""
    import nbformat

    folder = tmp_path / "class"
    (folder / "frank").mkdir(parents=True)
    shutil.copyfile(GOLDEN / "notebook_full_solution" / "toy.ipynb", folder / "erin.ipynb")
    shutil.copyfile(GOLDEN / "notebook_magics" / "toy.ipynb", folder / "frank" / "toy.ipynb")
    with zipfile.ZipFile(folder / "gina.zip", "w") as archive:
        archive.write(GOLDEN / "notebook_failing_cell" / "toy.ipynb", "handin/toy.ipynb")
    shutil.copyfile(GOLDEN / "notebook_not_a_notebook" / "toy.ipynb", folder / "hank.ipynb")
    assert [student.name for student in find_students(folder)] == ["erin", "frank", "gina", "hank"]
    out = tmp_path / "marks"
    args = ["batch", str(folder), "--exercise", "ex01", "--jobs", "1", "--out", str(out)]
    result = run_grade(*args, cwd=toy_kit.root)
    assert result.returncode == 0, result.stderr
    assert _gradebook(out)[1:] == [["erin", "8", "8"], ["frank", "8", "8"], ["gina", "0", "0"], ["hank", "0", "0"]]
    reports = {name: validate_report(json.loads((out / "students" / name / "ex01.json").read_text()))
               for name in ("erin", "frank", "gina", "hank")}
    assert reports["frank"]["submission"]["notebook"]["magic_cells"] == [2, 3, 4, 6]
    assert reports["gina"]["message"].startswith("toy.ipynb cell 3 line 2 (raised in tag at cell 2 line 14)")
    assert reports["hank"]["message"].startswith("hank.ipynb is not a notebook: it is not valid JSON")
    # Erin runs her notebook again: new outputs and counts, the same code, so her report stands.
    notebook = nbformat.read(folder / "erin.ipynb", 4)
    for count, cell in enumerate(cell for cell in notebook.cells if cell.cell_type == "code"):
        cell.execution_count = count + 1
        cell.outputs = [nbformat.v4.new_output("stream", text=f"run {count}\n")]
    nbformat.write(notebook, folder / "erin.ipynb")
    first = (out / "students" / "erin" / "ex01.json").read_text()
    again = run_grade(*args, cwd=toy_kit.root)
    assert "4 reused (nothing changed)" in again.stdout
    assert (out / "students" / "erin" / "ex01.json").read_text() == first
    # Frank edits a cell: his notebook is graded again.
    notebook = nbformat.read(folder / "frank" / "toy.ipynb", 4)
    notebook.cells[-1].source += "\nlater = add(2, 2)"
    nbformat.write(notebook, folder / "frank" / "toy.ipynb")
    assert "3 reused (nothing changed), 1 graded (1 submission changed)" in run_grade(*args, cwd=toy_kit.root).stdout


def test_a_report_graded_under_cpu_contention_is_graded_again_and_then_reused(toy_kit, classroom, tmp_path):
    out = tmp_path / "marks"
    args = ["batch", str(classroom), "--exercise", "ex01", "--out", str(out), "--jobs", "2", "--seed", "7"]
    run_grade(*args, cwd=toy_kit.root)
    stored = out / "students" / "alice" / "ex01.json"
    report = json.loads(stored.read_text())
    assert set(report["environment"]["sandbox"]["cpu"]) == {"contended", "waited_s"}
    report["environment"]["sandbox"]["cpu"] = {"contended": True, "waited_s": 4}  # as a busy night left it
    stored.write_text(json.dumps(report))
    assert _reasons(run_grade(*args, cwd=toy_kit.root)) == (
        "3 reused (nothing changed), 1 graded (1 again alone after CPU contention)")
    assert json.loads(stored.read_text())["environment"]["sandbox"]["cpu"]["contended"] is False
    assert _reasons(run_grade(*args, cwd=toy_kit.root)) == "4 reused (nothing changed)"


def test_each_submission_is_laid_out_once_for_its_fingerprint_grade_and_comparison(toy_kit, classroom, tmp_path,
                                                                                   monkeypatch):
    """A zip of 100,000 files once cost three unpackings: for the fingerprint, the grade and the comparison."""
    from grader import submission
    from grader.classroom import batch, similarity

    laid_out = []
    real = submission.prepare_submission

    def counted(path, *args, **kwargs):
        laid_out.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(submission, "prepare_submission", counted)
    monkeypatch.setattr(similarity, "prepare_submission", counted)
    students = find_students(classroom)
    modules: dict = {}
    batch.run_batch(toy_kit, [toy_kit.resolve("ex01")], students, tmp_path / "marks", jobs=1, force=False, seed=1,
                    advance=lambda: None, modules=modules)
    similarity.compare_class([toy_kit.resolve("ex01")], students, known=modules)
    assert sorted(laid_out) == sorted(student.path.name for student in students)


def test_a_report_graded_again_after_contention_is_counted_once(toy_kit, classroom, tmp_path, monkeypatch):
    """On a busy night every grade waits for a CPU: each is graded again alone, and is still one report."""
    from collections import Counter

    from grader.classroom import batch

    monkeypatch.setattr(batch, "ran_under_contention", lambda report: True)
    students = find_students(classroom)
    _, reasons = batch.run_batch(toy_kit, [toy_kit.resolve("ex01")], students, tmp_path / "marks", jobs=2,
                                 force=False, seed=1, advance=lambda: None)
    assert reasons == Counter({Regraded.CONTENTION: len(students)})

"""The `grade` command end to end, through subprocesses, as students and pipelines run it."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, run_grade


def test_the_readme_first_command_grades_the_reference_with_full_marks():
    grade = Path(sys.executable).parent / "grade"
    if not grade.exists():
        pytest.skip("the grade console script is not installed next to this interpreter")
    import subprocess

    result = subprocess.run([str(grade), "ex04", "--solution"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "(pass)" in result.stdout


def test_listing_shows_progress(toy_kit):
    before = run_grade(cwd=toy_kit.root)
    assert before.returncode == 0
    assert "ex01_toy" in before.stdout and "not started" in before.stdout
    run_grade("ex01", cwd=toy_kit.root)
    after = run_grade(cwd=toy_kit.root)
    assert "0/8" in after.stdout and "partial" in after.stdout


def test_grading_own_work_writes_the_progress_report(toy_kit, validate_report):
    result = run_grade("toy", cwd=toy_kit.root / "exercises")
    assert result.returncode == 1
    report = validate_report(json.loads((toy_kit.root / "reports" / "ex01.json").read_text()))
    assert report["status"] == "fail" and report["score"] == 0
    assert "Report written to reports/ex01.json" in result.stdout
    assert "Score 0/8 (fail)" in result.stdout


def test_the_reference_passes_and_writes_only_where_asked(toy_kit, tmp_path, validate_report):
    out = tmp_path / "out.json"
    result = run_grade("ex01_toy", "--solution", "--output", str(out), cwd=toy_kit.root)
    assert result.returncode == 0, result.stdout + result.stderr
    assert validate_report(json.loads(out.read_text()))["status"] == "pass"
    assert not (toy_kit.root / "reports").exists()


def test_output_dash_prints_only_the_json(toy_kit, validate_report):
    result = run_grade("ex01", "--solution", "--output", "-", cwd=toy_kit.root)
    report = validate_report(json.loads(result.stdout))
    assert report["score"] == report["max_score"] == 8


def test_a_submission_that_loses_points_exits_1_unless_exit_zero(toy_kit):
    stub = str(toy_kit.root / "exercises" / "ex01_toy" / "toy.py")
    assert run_grade("ex01", "--submission", stub, cwd=toy_kit.root).returncode == 1
    assert run_grade("ex01", "--submission", stub, "--exit-zero", cwd=toy_kit.root).returncode == 0


def test_seed_reproduces_a_run(toy_kit):
    first = run_grade("ex01", "--solution", "--seed", "42", "--output", "-", cwd=toy_kit.root)
    second = run_grade("ex01", "--solution", "--seed", "42", "--output", "-", cwd=toy_kit.root)
    assert json.loads(first.stdout)["seed"] == json.loads(second.stdout)["seed"] == 42


def test_a_corrupt_zip_gets_a_report_with_status_error(toy_kit, tmp_path, validate_report):
    archive = tmp_path / "student.zip"
    archive.write_bytes(b"PK\x03\x04 not a zip")
    result = run_grade("ex01", "--submission", str(archive), "--output", "-", cwd=toy_kit.root)
    assert result.returncode == 1
    report = validate_report(json.loads(result.stdout))
    assert report["status"] == "error" and "not a readable zip" in report["message"]


def test_the_kit_can_be_named_from_anywhere(toy_kit, tmp_path):
    result = run_grade("ex01", "--solution", "--kit", str(toy_kit.root), cwd=tmp_path)
    assert result.returncode == 0


@pytest.mark.parametrize(
    "args, words",
    [
        (["ex99"], "unknown exercise 'ex99'; the exercises are: ex01_toy"),
        (["ex01", "--submission", "/no/such/file.py"], "--submission /no/such/file.py: no such file or folder"),
        (["ex01", "--seed", "abc"], "expected a whole number, got 'abc'"),
        (["ex01", "--seed", "-3"], "expected a number >= 0"),
        (["ex01", "--format", "yaml"], "invalid choice: 'yaml'"),
        (["ex01", "--solution", "--submission", "x.py"], "not allowed with argument"),
        (["ex01", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(toy_kit, args, words):
    result = run_grade(*args, cwd=toy_kit.root)
    assert result.returncode == 2
    assert words in result.stderr
    assert result.stderr.startswith("grade: ") and result.stderr.count("\n") == 1
    assert not (toy_kit.root / "reports").exists()


def test_a_malformed_exercise_toml_names_the_file_and_field(toy_kit):
    toml = toy_kit.root / "exercises" / "ex01_toy" / "exercise.toml"
    toml.write_text(toml.read_text().replace("call_timeout = 1.0", 'call_timeout = "soon"'))
    result = run_grade("ex01", cwd=toy_kit.root)
    assert result.returncode == 2
    assert "exercise.toml: field 'call_timeout' must be a positive number, got 'soon'" in result.stderr
    assert result.stderr.count("\n") == 1


def test_outside_a_kit_says_how_to_find_one(tmp_path):
    result = run_grade("ex01", cwd=tmp_path)
    assert result.returncode == 2
    assert "no kit found" in result.stderr and "--kit DIR" in result.stderr


def test_a_missing_reference_solution_is_a_kit_fault(toy_kit):
    shutil.rmtree(toy_kit.root / "solutions")
    result = run_grade("ex01", "--solution", cwd=toy_kit.root)
    assert result.returncode == 2
    assert "the reference solution is missing" in result.stderr


def test_failures_show_their_message_and_public_output(toy_kit, tmp_path):
    partial = REPO / "tests" / "golden" / "partial_solution" / "toy.py"
    result = run_grade("ex01", "--submission", str(partial), cwd=toy_kit.root)
    assert result.returncode == 1
    assert "✗ pair is a tuple" in result.stdout
    assert "assert [7, 7] == (7, 7)" in result.stdout
    assert "Hint: A negative n is bad input." in result.stdout
    assert "Score 4/8 (fail)" in result.stdout


def test_hints_come_one_more_at_a_time(toy_kit):
    first = run_grade("hint", "ex01", cwd=toy_kit.root)
    assert first.returncode == 0
    assert "Hint 1 of 2 (ex01): Read the docstrings." in first.stdout and "Hint 2" not in first.stdout
    second = run_grade("hint", "toy", cwd=toy_kit.root)
    assert "Hint 2 of 2 (ex01): add returns a + b." in second.stdout and "last hint" in second.stdout
    third = run_grade("hint", "ex01", cwd=toy_kit.root)
    assert third.stdout.count("Hint 2 of 2") == 1


def test_hint_errors_are_usage_errors(toy_kit):
    assert run_grade("hint", cwd=toy_kit.root).returncode == 2
    unknown = run_grade("hint", "ex42", cwd=toy_kit.root)
    assert unknown.returncode == 2 and "unknown exercise 'ex42'" in unknown.stderr


def test_grade_all_writes_one_summary(toy_kit, tmp_path, validate_report):
    (toy_kit.root / "exercises" / "ex02_twin").mkdir()
    import shutil as _shutil

    for item in (toy_kit.root / "exercises" / "ex01_toy").iterdir():
        target = toy_kit.root / "exercises" / "ex02_twin" / item.name
        (_shutil.copytree if item.is_dir() else _shutil.copyfile)(item, target)
    toml = toy_kit.root / "exercises" / "ex02_twin" / "exercise.toml"
    toml.write_text(toml.read_text().replace('id = "ex01"', 'id = "ex02"').replace('slug = "toy"', 'slug = "twin"'))
    folder = tmp_path / "student"
    folder.mkdir()
    _shutil.copyfile(REPO / "tests" / "golden" / "partial_solution" / "toy.py", folder / "toy.py")
    result = run_grade("--all", "--submission", str(folder), "--output", "-", cwd=toy_kit.root)
    summary = validate_report(json.loads(result.stdout))
    assert result.returncode == 1
    assert [r["exercise"]["id"] for r in summary["exercises"]] == ["ex01", "ex02"]
    assert (summary["score"], summary["max_score"], summary["status"]) == (8, 16, "fail")
    shown = run_grade("--all", "--solution", cwd=toy_kit.root)
    assert shown.returncode == 2 and "ex02_twin" in shown.stderr  # ex02 has no reference solution


def test_grade_all_rejects_a_single_file_and_an_exercise_name(toy_kit):
    stub = str(toy_kit.root / "exercises" / "ex01_toy" / "toy.py")
    assert "give a folder or a .zip" in run_grade("--all", "--submission", stub, cwd=toy_kit.root).stderr
    assert "not both" in run_grade("ex01", "--all", cwd=toy_kit.root).stderr


def test_grade_check_passes_a_sound_exercise(toy_kit):
    result = run_grade("check", "--all", "--seeds", "1,2", cwd=toy_kit.root)
    assert result.returncode == 0, result.stdout
    assert "✓ ex01_toy: reference 8/8, stub 0/8, 1 alt, 1 wrong x 2 seeds" in result.stdout


def test_grade_check_names_every_problem(toy_kit):
    solutions = toy_kit.root / "solutions" / "ex01_toy"
    # A wrong solution that is in fact right means a check is missing; an alt that is wrong is unfair.
    (solutions / "wrong" / "secretly_right.py").write_text((solutions / "toy.py").read_text())
    (solutions / "alt" / "broken.py").write_text((solutions / "wrong" / "pair_as_list.py").read_text())
    stub = toy_kit.root / "exercises" / "ex01_toy" / "toy.py"
    stub.write_text(stub.read_text().replace("# TODO", "# to do"))
    result = run_grade("check", "ex01", "--seeds", "1", cwd=toy_kit.root)
    assert result.returncode == 1
    assert "✗ ex01_toy: 3 problem(s)" in result.stdout
    assert "toy.py: the stub has no # TODO markers" in result.stdout
    assert "alt/broken.py must get full marks but scored 4/8" in result.stdout
    assert "wrong/secretly_right.py got full marks with seed 1: a check is missing" in result.stdout


def test_grade_check_reports_a_malformed_exercise_and_goes_on(toy_kit):
    toml = toy_kit.root / "exercises" / "ex01_toy" / "exercise.toml"
    toml.write_text(toml.read_text().replace("hints = ", "hints_typo = "))
    result = run_grade("check", "--all", cwd=toy_kit.root)
    assert result.returncode == 1
    assert "✗ ex01_toy" in result.stdout and "unknown field 'hints_typo'" in result.stdout


def test_grade_check_usage_errors(toy_kit):
    assert "name the exercises to check, or pass --all" in run_grade("check", cwd=toy_kit.root).stderr
    assert "expected seeds such as 1,2,3" in run_grade("check", "--all", "--seeds", "x", cwd=toy_kit.root).stderr


def test_weakened_isolation_is_said_on_stderr_too(toy_kit, monkeypatch, capsys):
    """If no interpreter the worker uid can run exists, the report says so, and so does stderr."""
    from grader import cli, sandbox

    monkeypatch.setattr(sandbox, "_readable_by_other", lambda path: False)
    interpreter, warning = sandbox.choose_interpreter(drop_privileges=True)
    assert interpreter == sys.executable and "hidden checks are NOT protected" in warning
    real_grade = cli.grade

    def grade_with_warning(*args, **kwargs):
        report = real_grade(*args, **kwargs)
        report["environment"]["sandbox"]["warning"] = warning
        return report

    monkeypatch.setattr(cli, "grade", grade_with_warning)
    monkeypatch.chdir(toy_kit.root)
    assert cli.main(["ex01", "--solution", "--output", str(toy_kit.root / "out.json")]) == 0
    assert f"grade: warning: {warning}" in capsys.readouterr().err

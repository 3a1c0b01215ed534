"""How long an exercise's last grade took, and grades side by side started longest first."""

from __future__ import annotations

import threading

import pytest

from grader.grading import expected_grade_seconds, in_parallel
from grader.grading.costs import COST_FILE
from grader.grading.runner import StopAt, grade
from grader.submission import Submission


def _solution(kit):
    return Submission(kit.root / "solutions" / "ex01_toy" / "toy.py", "toy.py")


def test_a_grade_remembers_how_long_it_took(toy_kit):
    exercise = toy_kit.resolve("ex01")
    assert expected_grade_seconds(exercise) == 0.0  # nothing on record yet
    report = grade(toy_kit, exercise, _solution(toy_kit))
    kept = expected_grade_seconds(exercise)
    # From the submission handed over to the report built, to the millisecond: the report's duration is
    # the same time rounded down to whole seconds (the toy has hidden checks), the record keeps it whole.
    assert 0.0 < kept and report["duration_s"] <= kept < report["duration_s"] + 1.01
    assert (exercise.checks_dir / "__pycache__" / COST_FILE).is_file()


def test_a_grade_stopped_at_its_first_failure_is_not_remembered(toy_kit):
    exercise = toy_kit.resolve("ex01")
    grade(toy_kit, exercise, Submission(exercise.stub_path, "toy.py"), stop_at=StopAt.FIRST_FAILURE)
    assert expected_grade_seconds(exercise) == 0.0


@pytest.mark.parametrize("text", ["", "soon\n", "nan\n", "-1.5\n", "inf\n"])
def test_a_record_that_is_no_duration_reads_as_none(toy_kit, text):
    exercise = toy_kit.resolve("ex01")
    (exercise.checks_dir / "__pycache__").mkdir()
    (exercise.checks_dir / "__pycache__" / COST_FILE).write_text(text)
    assert expected_grade_seconds(exercise) == 0.0


def test_a_kit_that_cannot_keep_the_record_still_grades(toy_kit, validate_report):
    exercise = toy_kit.resolve("ex01")
    (exercise.checks_dir / "__pycache__").write_text("a file where the cache folder would be\n")
    report = validate_report(grade(toy_kit, exercise, _solution(toy_kit)))
    assert report["status"] == "pass" and expected_grade_seconds(exercise) == 0.0


def test_the_costliest_start_first_and_results_keep_their_order():
    started, lock = [], threading.Lock()
    costs = {"short": 0.4, "long": 3.0, "unknown": 0.0, "middle": 1.5}

    def run(name):
        with lock:
            started.append(name)
        return name.upper()

    results = in_parallel(run, list(costs), jobs=1, cost=costs.__getitem__)
    assert started == ["long", "middle", "short", "unknown"]
    assert results == ["SHORT", "LONG", "UNKNOWN", "MIDDLE"]
    started.clear()
    assert in_parallel(run, list(costs), jobs=1) == results and started == list(costs)  # no cost: as given

"""feedback.on_failure and student.probing: explanations that run once a check has failed, and never change it."""

from __future__ import annotations

import io
import json
import os
import subprocess

from rich.console import Console

from grader.catalog import Kit
from grader.cli import student_view
from grader.grading.runner import grade
from grader.submission import Submission
from grader.report import render
from tests.cli.screen import NARROW, one_line
from tests.conftest import GRADE, REPO

CHECKS = '''
import time

def test_public_explained(student, feedback):
    """public explained"""
    def explain():
        with student.probing() as ask:
            answers = [ask("add", n, n) for n in range(4)]
        wrong = [n for n, answer in zip(range(4), answers) if answer.value != 2 * n]
        return f"EXPLAINED smallest wrong: {wrong[0] if wrong else None}; {answers[0]}"
    feedback.on_failure(explain)
    for _ in range(3):  # add goes wrong in the checks' worker after its third call
        student.add(0, 0)
    assert student.add(1, 2) == 3


def test_public_explained_but_passing(student, feedback):
    """public passing"""
    feedback.on_failure(lambda: "NEVER SHOWN")
    assert student.pair(1) == (1, 1)


def test_public_slow_probe(student, feedback):
    """public with a probe that loops"""
    def explain():
        with student.probing(budget_s=1.5) as ask:
            answers = [ask("spin", 1) for _ in range(10)]
        return f"never reached {answers}"
    feedback.on_failure(explain)
    assert student.tag(-1) == "raised"


@pytest.mark.timeout(2)
def test_public_slow_explanation(student, feedback):
    """public with an explanation slower than the check's limit"""
    def explain():  # past the check's own 2 s: its alarm waits meanwhile
        time.sleep(2.5)
        return "SLEPT"
    feedback.on_failure(explain)
    assert student.tag(-1) == "raised"
'''

HIDDEN = '''

def test_hidden_explained(student, feedback):
    """hidden explained"""
    feedback.on_failure(lambda: "SECRET INPUT [[3, 5], [3, 1]]")
    assert student.add(10, 20) == 30
'''

# add is wrong from 2 on, and counts its calls: a probe in the checks' worker would change the next check.
SUBMISSION = '''
CALLS = []

def add(a, b):
    CALLS.append(1)
    return a + b + (1 if a >= 2 or len(CALLS) > 3 else 0)

def pair(x):
    return (x, x)

def tag(n):
    return {"n": n}

def push(items, item):
    items.append(item)
    return len(items)

def spin(n):
    while True:
        pass
'''


def _graded(kit: Kit, validate) -> dict:
    checks = kit.root / "exercises" / "ex01_toy" / "checks"
    (checks / "test_public.py").write_text((checks / "test_public.py").read_text() + CHECKS)
    (checks / "test_hidden.py").write_text((checks / "test_hidden.py").read_text() + HIDDEN)
    submitted = kit.root / "submitted.py"
    submitted.write_text(SUBMISSION)
    return validate(grade(kit, kit.resolve("ex01"), Submission(submitted, "submitted.py"), seed=5))


def test_an_explanation_shows_on_a_failed_public_check_and_waits_for_the_due_date_on_a_hidden_one(
        toy_kit, validate_report):
    report = _graded(toy_kit, validate_report)
    tests = {test["name"]: test for test in report["tests"]}
    assert "EXPLAINED" in tests["public explained"]["message"]
    passing = tests["public passing"]
    assert passing["outcome"] == "passed" and passing["message"] is None
    hidden = tests["hidden explained"]
    assert hidden["outcome"] == "failed"
    assert "SECRET" not in (hidden["message"] or "") and hidden["after_due"] == "SECRET INPUT [[3, 5], [3, 1]]"
    assert all(test["after_due"] is None for test in report["tests"] if test["visibility"] == "public")
    # Gradescope holds it back with the hidden check's result, and leaves it out when results show at once.
    later = json.loads(render(report, "gradescope", "after_due_date"))
    now = json.loads(render(report, "gradescope", "visible"))
    assert [test["output"].endswith("SECRET INPUT [[3, 5], [3, 1]]") for test in later["tests"]].count(True) == 1
    assert "SECRET" not in json.dumps(now)
    for fmt in ("exercism", "classroom", "junit"):
        assert "SECRET" not in render(report, fmt)
    out = io.StringIO()
    student_view.print_report(Console(file=out, width=80, color_system=None), report, [])
    assert "SECRET" not in out.getvalue() and "EXPLAINED" in out.getvalue()


def test_probes_run_in_a_throwaway_worker_under_a_budget_and_never_change_an_outcome(toy_kit, validate_report):
    report = _graded(toy_kit, validate_report)
    tests = {test["name"]: test for test in report["tests"]}
    public = tests["public explained"]
    assert public["outcome"] == "failed"  # add(1, 2) came after the third call in the checks' worker
    # The probes met add fresh: right on 0 and 1 (the first calls), wrong from 2 on.
    assert "EXPLAINED smallest wrong: 2; Answer(kind='returned', value=0)" in public["message"]
    slow = tests["public with a probe that loops"]
    # A probe past its budget ends the explanation, not the check: it failed on its value, in time.
    assert slow["outcome"] == "failed" and slow["failure"]["kind"] == "assertion"
    assert "This check's explanation could not be worked out: ProbeOver: the probes' 1.5 s are spent" in slow["message"]
    slept = tests["public with an explanation slower than the check's limit"]
    assert slept["outcome"] == "failed" and slept["failure"]["kind"] == "assertion"
    assert slept["message"].endswith("\n\nSLEPT")


def test_the_score_and_table_come_before_the_explanations_are_worked_out(toy_kit, validate_report):
    early: list[dict] = []
    checks = toy_kit.root / "exercises" / "ex01_toy" / "checks"
    (checks / "test_public.py").write_text((checks / "test_public.py").read_text() + CHECKS)
    (checks / "test_hidden.py").write_text((checks / "test_hidden.py").read_text() + HIDDEN)
    submitted = toy_kit.root / "submitted.py"
    submitted.write_text(SUBMISSION)
    report = validate_report(grade(toy_kit, toy_kit.resolve("ex01"), Submission(submitted, "submitted.py"), seed=5,
                                   on_table=early.append))
    [table] = early
    validate_report(table)
    assert (table["status"], table["score"]) == (report["status"], report["score"])
    assert [(test["id"], test["outcome"], test["score"]) for test in table["tests"]] == \
        [(test["id"], test["outcome"], test["score"]) for test in report["tests"]]
    shown, whole = ({test["name"]: test for test in graded["tests"]} for graded in (table, report))
    # The explanations had not run yet: the failure's own words are there, what they add is not.
    assert "EXPLAINED" not in shown["public explained"]["message"]
    assert "EXPLAINED" in whole["public explained"]["message"]
    assert whole["public explained"]["message"].startswith(shown["public explained"]["message"])
    assert shown["hidden explained"]["after_due"] is None and whole["hidden explained"]["after_due"]
    assert table["diagnosis"] == []


# An explanation that waits for the test to say it saw the score, or gives up after a while.
WAITING_CHECK = '''

def test_explained_once_the_score_is_shown(student, feedback):
    """explained once the score is shown"""
    def explain():
        import pathlib, time
        said = pathlib.Path({said!r})
        for _ in range(300):
            if said.exists():
                return "EXPLAINED AFTER THE SCORE"
            time.sleep(0.1)
        return "EXPLAINED BEFORE THE SCORE WAS SHOWN"
    feedback.on_failure(explain)
    assert student.add(1, 2) == 4
'''


def _grade_streamed(kit: Kit, checks: str) -> subprocess.Popen:
    public = kit.root / "exercises" / "ex01_toy" / "checks" / "test_public.py"
    public.write_text(public.read_text() + checks)
    partial = REPO / "tests" / "golden" / "partial_solution" / "toy.py"
    return subprocess.Popen([*GRADE, "ex01", "--submission", str(partial)], cwd=kit.root, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **NARROW})


def test_grade_shows_the_score_while_the_explanations_are_still_being_worked_out(toy_kit, tmp_path):
    said = tmp_path / "the score was shown"
    grading = _grade_streamed(toy_kit, WAITING_CHECK.format(said=str(said)))
    before = []
    for line in grading.stdout:
        before.append(line)
        if line.startswith("Score "):
            said.touch()
            break
    rest = grading.stdout.read()
    assert grading.wait(timeout=120) == 1, grading.stderr.read()
    assert before[-1].startswith("Score 4/9 (fail)")
    assert "✗  explained once the score is shown" in "".join(before)
    assert "EXPLAINED AFTER THE SCORE" in one_line(rest) and "Failed public checks" in rest


def test_an_error_after_the_checks_shows_the_whole_report_again(toy_kit):
    # pytest's code for an internal error, from the grading process once the checks are over.
    grading = _grade_streamed(toy_kit, '''

def test_explanation_ends_the_grading_process(student, feedback):
    """an explanation that ends the grading process"""
    feedback.on_failure(lambda: __import__("os")._exit(3))
    assert student.add(1, 2) == 4
''')
    out, errors = grading.communicate(timeout=120)
    assert grading.returncode == 1, errors
    first, again = out.split("Score 4/9 (fail)")
    assert "✗  an explanation that ends the grading process" in first
    assert "Nothing could be graded: the grading process stopped with an internal error" in one_line(again)
    assert "Score 0/9 (error)" in again and "!  add of two small numbers" in again

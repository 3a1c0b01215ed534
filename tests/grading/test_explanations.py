"""feedback.on_failure and student.probing: explanations that run once a check has failed, and never change it."""

from __future__ import annotations

import io
import json

from rich.console import Console

from grader.catalog import Kit
from grader.cli import student_view
from grader.grading.runner import grade
from grader.submission import Submission
from grader.report import render

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

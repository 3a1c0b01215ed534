"""A hidden check's explanation, kept for after the due date, holds no text the student's code made.

Its probes answer in hidden_view: the student's value compares as it is, but shows only as small
numbers (and dicts keyed by the check's own words); an explanation that fails names only its class.
"""

from __future__ import annotations

import pytest

from grader.catalog import Kit
from grader.grading.proxy import SHOWN_INT_LIMIT, SHOWN_NUMBERS, hidden_view
from grader.grading.runner import grade
from grader.submission import Submission

HIDDEN = '''

def test_hidden_probed(student, feedback):
    """hidden probed"""
    def explain():
        with student.probing(shown_keys=("n",)) as ask:
            answers = [ask("say", kind) for kind in ("text", "big", "long", "dict", "keyed", "small", "float")]
        return " | ".join(repr(answer.value) for answer in answers) + f" | equal {answers[0].value == 'WORKER-TEXT'}"
    feedback.on_failure(explain)
    assert student.add(10, 20) == 0


def test_hidden_explanation_raises(student, feedback):
    """hidden explanation raises"""
    feedback.on_failure(lambda: student.tag(-5))
    assert student.add(1, 1) == 0
'''

SUBMISSION = '''
def add(a, b):
    return a + b

def tag(n):
    if n < 0:
        raise ValueError("WORKER-RAISED")
    return {"n": n}

def say(kind):
    return {"text": "WORKER-TEXT", "big": 10**12, "long": list(range(50)), "dict": {"WORKER-KEY": 1},
            "keyed": {"n": 7}, "small": (3, -2), "float": 0.123456789}[kind]
'''


def test_a_hidden_explanation_shows_only_small_numbers_and_fixed_words(toy_kit, validate_report):
    checks = toy_kit.root / "exercises" / "ex01_toy" / "checks"
    (checks / "test_hidden.py").write_text((checks / "test_hidden.py").read_text() + HIDDEN)
    submitted = toy_kit.root / "submitted.py"
    submitted.write_text(SUBMISSION)
    report = validate_report(grade(toy_kit, toy_kit.resolve("ex01"), Submission(submitted, "submitted.py"), seed=5))
    tests = {test["name"]: test for test in report["tests"]}
    probed = tests["hidden probed"]["after_due"]
    assert probed == ("a value not shown | a value not shown | a value not shown | a value not shown | "
                      "{'n': 7} | (3, -2) | 0.123 | equal True")
    raised = tests["hidden explanation raises"]["after_due"]
    assert raised == "(This check's explanation could not be worked out: ValueError)"
    assert "WORKER" not in str(report)


@pytest.mark.parametrize("value", ["text", SHOWN_INT_LIMIT, -SHOWN_INT_LIMIT, [1] * (SHOWN_NUMBERS + 1),
                                   {"other": 1}, {1: 1}, [[[]], "a"], b"bytes", 1.5 + 0j])
def test_what_a_hidden_probe_withholds_still_compares_as_the_value(value):
    shown = hidden_view(value, frozenset({"n"}))
    assert repr(shown) == "a value not shown"
    assert shown == value


@pytest.mark.parametrize("value, words", [(SHOWN_INT_LIMIT - 1, "999"), ([1] * SHOWN_NUMBERS, "[1, 1, 1, 1]"),
                                          (None, "None"), (True, "True"), ((2.0 / 3, -1), "(0.667, -1)"),
                                          ({"n": [1, 2]}, "{'n': [1, 2]}"), ([], "[]")])
def test_what_a_hidden_probe_shows(value, words):
    shown = hidden_view(value, frozenset({"n"}))
    assert repr(shown) == words and shown == value

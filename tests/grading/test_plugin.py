"""The pytest plugin: check names, visibility, markers, and what a hidden check may reveal."""

from __future__ import annotations

import random
import re

import pytest

from grader.catalog import KitError
from grader.grading.runner import grade
from grader.submission import Submission


def _grade_source(kit, source: str, validate, seed: int = 7) -> dict:
    path = kit.root / "submitted.py"
    path.write_text(source)
    report = grade(kit, kit.resolve("ex01"), Submission(path, "submitted.py"), seed=seed)
    return validate(report)


OFF_BY_ONE = '''
def add(a, b):
    print("secret-looking output", a, b)
    return a + b + 1

def pair(x):
    return (x, x)

def tag(n):
    if n < 0:
        raise ValueError(f"bad n {n}")
    return {"n": n}

def push(items, item):
    items.append(item)
    return len(items)
'''


def test_a_failed_hidden_check_shows_its_name_and_hint_but_no_inputs_or_output(toy_kit, validate_report):
    report = _grade_source(toy_kit, OFF_BY_ONE, validate_report, seed=7)
    hidden = [t for t in report["tests"] if t["visibility"] == "hidden" and t["name"].startswith("add of random")]
    assert [t["name"] for t in hidden] == ["add of random integers #1", "add of random integers #2"]
    assert [t["id"] for t in hidden] == ["checks/test_hidden.py::test_add_random[1]",
                                         "checks/test_hidden.py::test_add_random[2]"]
    for test in hidden:
        assert test["outcome"] == "failed"
        assert test["message"] == "Hint: add must work for any two integers."
        assert test["output"] is None
    # The inputs the check drew, and the sums, must appear nowhere in the report.
    text = str(report)
    for case in (1, 2):
        draw = random.Random(f"7:checks/test_hidden.py::test_add_random[{case}]")
        a, b = draw.randint(-10**6, 10**6), draw.randint(-10**6, 10**6)
        for number in (a, b, a + b, a + b + 1):
            assert str(number) not in text


def test_a_failed_public_check_shows_everything(toy_kit, validate_report):
    report = _grade_source(toy_kit, OFF_BY_ONE, validate_report)
    add = report["tests"][0]
    assert add["visibility"] == "public" and add["outcome"] == "failed"
    assert "assert 6 == 5" in add["message"]
    assert add["output"] == "secret-looking output 2 3\n"


def test_a_public_message_drops_pytests_advice_to_rerun_with_v(toy_kit, validate_report):
    checks = toy_kit.root / "exercises" / "ex01_toy" / "checks" / "test_public.py"
    checks.write_text(checks.read_text() + '''

def test_tag_dict(student):
    """tag gives a dict"""
    assert {**student.tag(3), "x": 1, "y": 2} == {"n": 4, "x": 1, "y": 2}
''')
    report = _grade_source(toy_kit, OFF_BY_ONE, validate_report)
    message = next(t for t in report["tests"] if t["name"] == "tag gives a dict")["message"]
    # pytest would add "Omitting 2 identical items, use -vv to show": a student cannot rerun it.
    assert "{'n': 3} != {'n': 4}" in message and "-v" not in message


def test_a_student_exception_in_a_hidden_check_shows_its_built_in_type_only(toy_kit, validate_report):
    """Not its message, nor its lines: the student's process chooses both, and knows the hidden input."""
    source = OFF_BY_ONE.replace('return {"n": n}', 'raise KeyError(f"leaked {n}")')
    report = _grade_source(toy_kit, source, validate_report)
    tag = next(t for t in report["tests"] if t["name"] == "tag rejects a negative number")
    assert tag["message"] == "your code raised KeyError\nHint: A negative n is bad input."


# The exceptions students write most, each raised by add, which a public and a hidden check both call:
# (what the class line reads, the name a public check shows, the built-in name a hidden check shows).
PLAIN_EXCEPTIONS = [
    ("", "Exception", "Exception"),
    ("class BadTree(Exception):\n    pass\n", "BadTree", "Exception"),
    ("class Stop(BaseException):\n    pass\n", "Stop", "BaseException"),
]


@pytest.mark.parametrize("declared, public_name, hidden_name", PLAIN_EXCEPTIONS,
                         ids=["Exception", "subclass of Exception", "subclass of BaseException"])
def test_a_plain_exception_is_reported_as_raised_in_public_and_hidden_checks(
        toy_kit, validate_report, declared, public_name, hidden_name):
    raised = "Exception" if not declared else public_name
    source = declared + OFF_BY_ONE.replace("return a + b + 1", f'raise {raised}("bad tree")')
    report = _grade_source(toy_kit, source, validate_report)
    public = next(t for t in report["tests"] if t["name"] == "add of two small numbers")
    assert public["failure"] == {"kind": "raised", "call": "add", "exception": hidden_name}
    line = source.splitlines().index(f'    raise {raised}("bad tree")') + 1
    assert public["message"] == f"your code raised {public_name}: bad tree (toy.py line {line} in add)"
    assert public["output"] == "secret-looking output 2 3\n"
    for hidden in (t for t in report["tests"] if t["name"].startswith("add of random")):
        assert hidden["failure"] == {"kind": "raised", "call": "add", "exception": hidden_name}
        assert hidden["message"] == (f"your code raised {hidden_name}\n"
                                     "Hint: add must work for any two integers.")
        assert hidden["output"] is None  # a hidden check never shows output: it can echo a hidden input


def test_hidden_parametrize_ids_never_reach_the_report(toy_kit, validate_report):
    hidden = toy_kit.root / "exercises" / "ex01_toy" / "checks" / "test_hidden.py"
    hidden.write_text(hidden.read_text() + '''

@pytest.mark.parametrize("a, b", [(123457, 765431)], ids=["case-123457"])
def test_add_listed(student, a, b):
    """add of a listed pair"""
    assert student.add(a, b) == a + b
''')
    report = _grade_source(toy_kit, OFF_BY_ONE, validate_report)
    assert "123457" not in str(report) and "765431" not in str(report)
    listed = next(t for t in report["tests"] if t["name"] == "add of a listed pair #1")
    assert listed["id"] == "checks/test_hidden.py::test_add_listed[1]"


def test_points_and_order_follow_the_markers_and_files(toy_kit, validate_report):
    report = _grade_source(toy_kit, OFF_BY_ONE, validate_report)
    assert [(t["visibility"], t["max_score"]) for t in report["tests"]] == [
        ("public", 2.0), ("public", 1.0), ("hidden", 1.0), ("hidden", 1.0), ("hidden", 2.0), ("hidden", 1.0),
    ]


def test_the_rng_fixture_is_seeded_from_the_run(toy_kit, validate_report):
    checks = toy_kit.root / "exercises" / "ex01_toy" / "checks" / "test_hidden.py"
    checks.write_text(checks.read_text() + '''

def test_reveal_rng(student, rng):
    """reveals its random draw"""
    pytest.fail(f"drew {rng.random()!r}")
''')
    first = _grade_source(toy_kit, OFF_BY_ONE, validate_report, seed=11)
    second = _grade_source(toy_kit, OFF_BY_ONE, validate_report, seed=11)
    third = _grade_source(toy_kit, OFF_BY_ONE, validate_report, seed=12)
    message = [t["message"] for t in first["tests"] if t["name"] == "reveals its random draw"][0]
    assert message == [t["message"] for t in second["tests"] if t["name"] == "reveals its random draw"][0]
    assert message != [t["message"] for t in third["tests"] if t["name"] == "reveals its random draw"][0]
    expected = random.Random("11:checks/test_hidden.py::test_reveal_rng").random()
    assert message == f"drew {expected!r}"


def test_a_call_timeout_marker_overrides_the_exercise_default(toy_kit, validate_report):
    checks = toy_kit.root / "exercises" / "ex01_toy" / "checks" / "test_public.py"
    checks.write_text(checks.read_text() + '''

@pytest.mark.call_timeout(0.2)
def test_quick(student):
    """must answer fast"""
    assert student.add(1, 1) == 2
''')
    slow = OFF_BY_ONE.replace("def add(a, b):", "def add(a, b):\n    import time; time.sleep(0.5)")
    report = _grade_source(toy_kit, slow, validate_report)
    quick = next(t for t in report["tests"] if t["name"] == "must answer fast")
    assert quick["outcome"] == "timeout" and quick["message"] == "add did not return within 0.2 s"
    small = next(t for t in report["tests"] if t["name"] == "add of two small numbers")
    assert small["outcome"] == "failed"  # the default 1 s deadline let the slow add answer


def test_the_whole_check_budget_is_enforced_by_pytest_timeout(toy_kit, validate_report):
    checks = toy_kit.root / "exercises" / "ex01_toy" / "checks" / "test_public.py"
    checks.write_text(checks.read_text() + '''

@pytest.mark.timeout(1)
def test_many_calls(student):
    """many calls"""
    for _ in range(100):
        student.add(1, 1)
''')
    slow = OFF_BY_ONE.replace("def add(a, b):", "def add(a, b):\n    import time; time.sleep(0.05)")
    report = _grade_source(toy_kit, slow, validate_report)
    many = next(t for t in report["tests"] if t["name"] == "many calls")
    assert many["outcome"] == "timeout" and many["message"] == "the check did not finish within 1 s"
    # The interrupted call's worker was replaced, so the next checks still ran.
    assert next(t for t in report["tests"] if t["name"] == "pair is a tuple")["outcome"] == "passed"


GATED_CHECKS = '''
import pytest


def test_add_works(student):
    """add works"""
    assert student.add(2, 3) == 5


@pytest.mark.requires("test_add_works")
def test_tag_rejects(student):
    """gated: tag rejects a negative number"""
    with pytest.raises(ValueError):
        student.tag(-1)
'''

RAISES_EVERYWHERE = '''
def add(a, b):
    raise ValueError("nothing computed")

def pair(x):
    raise ValueError("nothing computed")

def tag(n):
    raise ValueError("nothing computed")

def push(items, item):
    raise ValueError("nothing computed")
'''


def test_a_check_gated_on_another_pays_only_when_that_one_passes(toy_kit, validate_report):
    (toy_kit.root / "exercises" / "ex01_toy" / "checks" / "test_gated.py").write_text(GATED_CHECKS)
    tests = {test["name"]: test for test in _grade_source(toy_kit, RAISES_EVERYWHERE, validate_report)["tests"]}
    gated = tests["gated: tag rejects a negative number"]
    assert gated["score"] == 0.0 and gated["max_score"] == 1.0
    assert gated["message"] == "earns its points once 'add works' passes"
    correct = OFF_BY_ONE.replace("a + b + 1", "a + b")
    tests = {test["name"]: test for test in _grade_source(toy_kit, correct, validate_report)["tests"]}
    assert tests["gated: tag rejects a negative number"]["score"] == 1.0


@pytest.mark.parametrize("marker, words", [
    ('@pytest.mark.requires("test_nowhere")', "@pytest.mark.requires('test_nowhere') names no other check"),
    ("@pytest.mark.requires()", "@pytest.mark.requires needs the names of test functions"),
    ('@pytest.mark.requires("test_tag_rejects")', "names no other check"),
])
def test_a_requirement_that_names_no_other_check_is_a_fault_in_the_kit(toy_kit, marker, words):
    source = GATED_CHECKS.replace('@pytest.mark.requires("test_add_works")', marker)
    (toy_kit.root / "exercises" / "ex01_toy" / "checks" / "test_gated.py").write_text(source)
    path = toy_kit.root / "submitted.py"
    path.write_text(RAISES_EVERYWHERE)
    with pytest.raises(KitError, match=r"the checks could not be collected: .*" + re.escape(words)):
        grade(toy_kit, toy_kit.resolve("ex01"), Submission(path, "submitted.py"), seed=1)

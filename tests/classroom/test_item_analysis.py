"""The class report's numbers (grader/item_analysis.py): pure functions over typed reports, degenerate cases too."""

from __future__ import annotations

import json
import math
import statistics

import pytest

from grader.failures import FailureKind
from grader.classroom.item_analysis import (
    CRASH_KINDS,
    Flag,
    Undefined,
    analyse_class,
    analyse_exercise,
    attempt_from_report,
    group_messages,
    point_biserial,
    summarize_scores,
)
from grader.outcomes import Status
from tests.conftest import REPO

GOLDEN = REPO / "tests" / "golden"


def entry(check_id, *, points=1.0, outcome="passed", kind=None, message=None, public=True, duration=0.01):
    """One entry of a report's tests, as the grader writes it."""
    passed = outcome == "passed"
    return {"id": check_id, "name": check_id.replace("_", " "), "visibility": "public" if public else "hidden",
            "outcome": outcome, "score": points if passed else 0.0, "max_score": points, "message": message,
            "failure": None if passed else {"kind": kind or "assertion"}, "output": None, "duration_s": duration}


def report(tests, *, exercise="ex04", status=None):
    """A native report around these tests; the score is what they earned, as scoring makes it."""
    score = sum(test["score"] for test in tests)
    possible = sum(test["max_score"] for test in tests)
    status = status or ("pass" if score == possible else "fail")
    return {"schema_version": 1, "exercise": {"id": exercise, "slug": "alpha_beta", "title": "Alpha-beta pruning"},
            "status": status, "score": score, "max_score": possible, "message": None, "tests": tests}


def attempts(rows, exercise="ex04"):
    """Attempts from {student: [(check id, passed), ...]}, each check worth 1."""
    return [attempt_from_report(student, report([entry(check, outcome="passed" if ok else "failed")
                                                 for check, ok in checks], exercise=exercise))
            for student, checks in rows.items()]


def by_id(analysis):
    return {check.id: check for check in analysis.checks}


def test_point_biserial_is_the_textbook_formula():
    passed, rest = [True, True, True, False, False], [7.0, 5.0, 6.0, 2.0, 4.0]
    ones = [score for ok, score in zip(passed, rest) if ok]
    zeros = [score for ok, score in zip(passed, rest) if not ok]
    share = len(ones) / len(rest)
    expected = ((statistics.fmean(ones) - statistics.fmean(zeros)) / statistics.pstdev(rest)
                * math.sqrt(share * (1 - share)))
    assert point_biserial(passed, rest) == pytest.approx(expected)
    assert point_biserial(passed, [-score for score in rest]) == pytest.approx(-expected)


def test_discrimination_is_the_rest_of_the_score_not_the_total():
    """With the total, a check would correlate with itself; the rest leaves its own points out."""
    analysis = analyse_exercise(attempts({
        "ann": [("a", True), ("b", True), ("c", True)],
        "bea": [("a", True), ("b", False), ("c", True)],
        "cal": [("a", False), ("b", True), ("c", False)],
        "dan": [("a", False), ("b", False), ("c", False)],
    }))
    check = by_id(analysis)["b"]
    rest = [2.0, 2.0, 0.0, 0.0]  # each student's score without check b
    assert check.discrimination == pytest.approx(statistics.correlation([1.0, 0.0, 1.0, 0.0], rest))
    assert check.discrimination == pytest.approx(0.0)
    rest_a = [2.0, 1.0, 1.0, 0.0]
    assert by_id(analysis)["a"].discrimination == pytest.approx(statistics.correlation([1.0, 1.0, 0.0, 0.0], rest_a))


def test_a_check_the_weaker_students_pass_is_flagged_negative():
    analysis = analyse_exercise(attempts({
        "ann": [("a", True), ("b", True), ("c", True), ("odd", False)],
        "bea": [("a", True), ("b", True), ("c", False), ("odd", False)],
        "cal": [("a", True), ("b", False), ("c", False), ("odd", True)],
        "dan": [("a", False), ("b", False), ("c", False), ("odd", True)],
    }))
    odd, a = by_id(analysis)["odd"], by_id(analysis)["a"]
    assert odd.discrimination < 0 and odd.flags == (Flag.NEGATIVE,) and odd.undefined is None
    assert a.discrimination > 0 and a.flags == ()


def test_one_student_leaves_every_discrimination_undefined():
    analysis = analyse_exercise(attempts({"ann": [("a", True), ("b", False)]}))
    a, b = analysis.checks
    assert (a.discrimination, a.undefined, a.flags) == (None, Undefined.CHECK_CONSTANT, (Flag.EVERYONE_PASSES,))
    assert (b.discrimination, b.undefined, b.flags) == (None, Undefined.CHECK_CONSTANT, (Flag.NOBODY_PASSES,))
    assert (a.pass_rate, b.pass_rate) == (1.0, 0.0)
    summary = analysis.summary
    assert (summary.students, summary.mean, summary.median, summary.lowest, summary.highest) == (1, 1, 1, 1, 1)
    assert (summary.possible, summary.full_marks) == (2, 0)


def test_everyone_on_full_marks():
    analysis = analyse_exercise(attempts({name: [("a", True), ("b", True)] for name in ("ann", "bea", "cal")}))
    assert all(check.flags == (Flag.EVERYONE_PASSES,) and check.undefined is Undefined.CHECK_CONSTANT
               and check.discrimination is None for check in analysis.checks)
    assert analysis.summary.full_marks == 3 and analysis.summary.mean == 2
    assert analysis.failures == () and analysis.messages == () and (analysis.timeouts, analysis.crashes) == (0, 0)


def test_a_rest_with_no_spread_is_said_rather_than_divided_by():
    """The only check of an exercise: the rest of the score is 0 for everyone, so there is nothing to correlate."""
    analysis = analyse_exercise(attempts({"ann": [("only", True)], "bea": [("only", False)]}))
    (only,) = analysis.checks
    assert (only.discrimination, only.undefined, only.flags) == (None, Undefined.REST_CONSTANT, ())
    assert point_biserial([True, False, True], [3.0, 3.0, 3.0]) is Undefined.REST_CONSTANT
    assert point_biserial([False, False], [1.0, 2.0]) is Undefined.CHECK_CONSTANT


def test_timeouts_and_crashes_are_counted_from_the_failure_kind():
    tests = [entry("slow", outcome="timeout", kind="timeout", duration=2.0),
             entry("segv", outcome="crashed", kind="crash"), entry("oom", outcome="crashed", kind="memory"),
             entry("wrong", outcome="failed", kind="assertion", message="timed out, says the student's own text")]
    analysis = analyse_exercise([attempt_from_report("ann", report(tests)),
                                 attempt_from_report("bea", report([entry(t["id"]) for t in tests]))])
    checks = by_id(analysis)
    assert (checks["slow"].timeouts, checks["segv"].crashes, checks["oom"].crashes) == (1, 1, 1)
    assert (checks["wrong"].timeouts, checks["wrong"].crashes) == (0, 0)
    assert (analysis.timeouts, analysis.crashes) == (1, 2)
    assert dict(analysis.failures) == {FailureKind.TIMEOUT: 1, FailureKind.CRASH: 1, FailureKind.MEMORY: 1,
                                       FailureKind.ASSERTION: 1}
    assert CRASH_KINDS == {FailureKind.CRASH, FailureKind.EXIT, FailureKind.MEMORY, FailureKind.BROKEN_CHANNEL}
    assert [check.id for check in analysis.slowest(2)] == ["slow", "segv"]
    assert checks["slow"].mean_duration_s == pytest.approx(1.005) and checks["slow"].max_duration_s == 2.0


def test_a_hidden_checks_message_is_never_kept():
    """A real report: the golden segfault run, whose hidden checks crashed with a message each."""
    golden = json.loads((GOLDEN / "segfault" / "expected.json").read_text())
    for test in golden["tests"]:
        test["duration_s"] = 0.01  # the golden files leave out what changes from run to run, the times among it
    assert any(test["visibility"] == "hidden" and test["message"] for test in golden["tests"])
    attempt = attempt_from_report("ann", golden)
    assert all(check.message is None for check in attempt.checks if not check.public)
    assert any(check.message for check in attempt.checks if check.public)
    assert attempt.status is Status.FAIL and attempt.score == golden["score"]
    kinds = {check.failure for check in attempt.checks if not check.passed}
    assert FailureKind.CRASH in kinds


def test_messages_of_public_checks_are_grouped_by_first_line():
    def failing(student, check, message, public=True, kind="assertion"):
        return attempt_from_report(student, report([entry(check, outcome="failed", kind=kind, message=message,
                                                          public=public)]))

    groups = group_messages([
        failing("ann", "a", "NotImplementedError: not written yet\nraised at line 3"),
        failing("ann", "b", "NotImplementedError: not written yet\nraised at line 9"),
        failing("bea", "a", "NotImplementedError: not written yet"),
        failing("bea", "b", "AssertionError: assert 3 == 4"),
        failing("cal", "h", "Hint: a secret-shaped hint", public=False),
        failing("dan", "a", "not run: toy.py line 2: SyntaxError", kind="import"),
    ], limit=5)
    assert [(group.message, group.students, group.checks, group.times) for group in groups] == [
        ("NotImplementedError: not written yet", 2, ("a", "b"), 3),
        ("AssertionError: assert 3 == 4", 1, ("b",), 1),
    ]
    assert len(group_messages([failing(name, "a", f"message {name}") for name in "abcdef"], limit=3)) == 3


def test_a_class_in_exercises_students_and_totals():
    class_attempts = [*attempts({"ann": [("a", True)], "bea": [("a", False)]}, exercise="ex02"),
                      *attempts({"ann": [("x", True), ("y", True)], "cal": [("x", False), ("y", True)]},
                                exercise="ex01")]
    analysis = analyse_class(class_attempts)
    assert [exercise.id for exercise in analysis.exercises] == ["ex01", "ex02"]
    assert [(row.student, row.scores, row.total) for row in analysis.students] == [
        ("ann", {"ex01": 2.0, "ex02": 1.0}, 3.0), ("bea", {"ex02": 0.0}, 0.0), ("cal", {"ex01": 1.0}, 1.0)]
    assert (analysis.totals.possible, analysis.totals.mean, analysis.totals.full_marks) == (3.0, 4 / 3, 1)


def test_a_check_only_some_reports_have_counts_only_those():
    """Reports of two kit versions: the newer one has a check the older lacked."""
    analysis = analyse_exercise(attempts({"ann": [("a", True), ("new", True)], "bea": [("a", False)]}))
    assert [(check.id, check.students, check.passed) for check in analysis.checks] == [("a", 2, 1), ("new", 1, 1)]


def test_submissions_that_did_not_run_are_counted():
    broken = report([entry("a", outcome="error", kind="import", message="not run: toy.py line 2")], status="error")
    analysis = analyse_exercise([attempt_from_report("ann", broken), *attempts({"bea": [("a", True)]})])
    assert analysis.summary.did_not_run == 1 and analysis.messages == ()
    assert dict(analysis.failures) == {FailureKind.IMPORT: 1}


@pytest.mark.parametrize("change, words", [
    (lambda r: r.pop("tests"), "the report: no field 'tests'"),
    (lambda r: r.update(score="7"), "the report: field 'score' is str, not the expected kind"),
    (lambda r: r.update(score=True), "the report: field 'score' is bool"),
    (lambda r: r.update(status="great"), "the report: field 'status' is not one of pass, fail, error"),
    (lambda r: r["exercise"].pop("id"), "the report's exercise: no field 'id'"),
    (lambda r: r["tests"].append("a check"), "the report's tests[1] is str, not an object"),
    (lambda r: r["tests"][0].update(outcome="fine"), "the report's tests[0]: field 'outcome' is not one of passed"),
    (lambda r: r["tests"][0].update(failure={"kind": "bored"}),
     "the report's tests[0]: field 'failure' has no known kind"),
    (lambda r: r["tests"][0].pop("duration_s"), "the report's tests[0]: no field 'duration_s'"),
    (lambda r: r["tests"][0].update(failure="timeout"), "the report's tests[0]: field 'failure' is str, not an object"),
])
def test_a_malformed_report_is_a_value_error_naming_the_field(change, words):
    broken = report([entry("a", outcome="failed")])
    change(broken)
    with pytest.raises(ValueError) as caught:
        attempt_from_report("ann", broken)
    assert words in str(caught.value)


def test_nothing_to_analyse_is_refused():
    with pytest.raises(ValueError, match="no scores"):
        summarize_scores([], 10.0, 0)
    with pytest.raises(ValueError, match="no attempts"):
        analyse_exercise([])
    with pytest.raises(ValueError, match="no attempts"):
        analyse_class([])

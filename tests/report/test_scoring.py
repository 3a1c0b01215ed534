"""Unit tests for grader/report/scoring.py: pure functions, fed the run's typed contract and hand-built
pytest-json-report data.

Scoring fails closed: a check scores only when pytest recorded a pass for
its setup, call and teardown and the plugin attached its feedback (the check's metadata). Every
report built here is validated against the shipped schema.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from grader.outcomes import Outcome
from grader.run_contract import Check, CheckFeedback, CpuWait, DiagnosedMistake, Diagnosis, SandboxFacts
from grader.report.scoring import MESSAGE_CAP, build_report, cap, check_passed, score_check
from grader.text import truncate

PASSED = {"outcome": "passed", "message": None, "output": None}


def check(nodeid: str, visibility: str = "public", points=1.0) -> Check:
    """One collected check, as the plugin writes it."""
    name = nodeid.split("::")[-1].replace("_", " ")
    return Check(nodeid=nodeid, id=nodeid, name=name, visibility=visibility, points=points, hint=None,
                 budget_s=10.0, code=None, family=name)


def metadata(feedback: dict) -> dict:
    """The plugin's CheckFeedback as a check's metadata, from the fields given (the rest as defaults)."""
    return CheckFeedback(**{**feedback, "outcome": Outcome(feedback["outcome"])}).as_metadata()


def facts(**fields) -> SandboxFacts:
    """The sandbox's facts, from the fields given."""
    if "missing_functions" in fields:
        fields["missing_functions"] = tuple(fields["missing_functions"])
    if "cpu" in fields:
        fields["cpu"] = CpuWait(**fields["cpu"])
    return SandboxFacts(**fields)


def raw_test(nodeid: str, *, setup="passed", call="passed", teardown="passed", feedback=PASSED) -> dict:
    """One pytest-json-report test entry; a stage given as None is left out, feedback None means no metadata."""
    entry: dict = {"nodeid": nodeid, "outcome": call or setup}
    for stage, outcome in (("setup", setup), ("call", call), ("teardown", teardown)):
        if outcome is not None:
            entry[stage] = {"duration": 0.001, "outcome": outcome}
    if feedback is not None:
        entry["metadata"] = metadata(feedback)
    return entry


def report(collected, raw_tests=(), *, raw_none=False, sandbox=None, fault=None) -> dict:
    return build_report(
        exercise={"id": "ex01", "slug": "toy", "title": "Toy"},
        submission={"path": "toy.py", "sha256": "0" * 64},
        seed=1,
        collected=list(collected),
        raw=None if raw_none else {"tests": list(raw_tests)},
        sandbox=facts(**sandbox) if sandbox is not None else facts(environment={"uid": 65534}),
        fault=fault,
        started_at="2026-11-29T12:00:00Z",
        duration_s=1.5,
        call_timeout=2.0,
    )


A, B, H = "checks/test_public.py::test_a", "checks/test_public.py::test_b", "checks/test_hidden.py::test_h"
THREE = [check(A, points=2.0), check(B), check(H, "hidden", points=3.0)]
ALL_PASSED = [raw_test(A), raw_test(B), raw_test(H)]


def by_id(rep: dict) -> dict:
    return {test["id"]: test for test in rep["tests"]}


# -- pass and fail


def test_all_checks_passed_scores_full_marks(validate_report):
    rep = validate_report(report(THREE, ALL_PASSED))
    assert rep["status"] == "pass"
    assert rep["score"] == rep["max_score"] == 6.0
    assert all(t["outcome"] == "passed" and t["score"] == t["max_score"] for t in rep["tests"])
    assert rep["message"] is None


def test_one_failed_check_makes_the_status_fail(validate_report):
    failed = raw_test(B, call="failed", feedback={"outcome": "failed", "message": "AssertionError: 1 != 2",
                                                  "failure": {"kind": "assertion"}})
    rep = validate_report(report(THREE, [raw_test(A), failed, raw_test(H)]))
    assert rep["status"] == "fail"
    assert rep["score"] == 5.0 and rep["max_score"] == 6.0
    assert by_id(rep)[B] | {"duration_s": 0} == {
        "id": B, "name": "test b", "visibility": "public", "outcome": "failed", "score": 0.0, "max_score": 1.0,
        "message": "AssertionError: 1 != 2", "output": None, "duration_s": 0, "code": None, "after_due": None,
        "failure": {"kind": "assertion"},
    }


# -- a check counts only when setup, call and teardown all passed


def test_teardown_failure_after_a_passed_call_scores_zero(validate_report):
    broken = raw_test(A, teardown="failed")  # even though the feedback says "passed"
    rep = validate_report(report(THREE, [broken, raw_test(B), raw_test(H)]))
    assert by_id(rep)[A]["score"] == 0.0
    assert by_id(rep)[A]["outcome"] == "failed"
    assert rep["status"] == "fail"


def test_setup_failure_with_no_call_scores_zero(validate_report):
    broken = raw_test(A, setup="failed", call=None, feedback={"outcome": "error", "message": "the check could not start"})
    rep = validate_report(report(THREE, [broken, raw_test(B), raw_test(H)]))
    assert by_id(rep)[A]["score"] == 0.0
    assert by_id(rep)[A]["outcome"] == "error"
    assert by_id(rep)[A]["message"] == "the check could not start"


@pytest.mark.parametrize("stage", ["setup", "call", "teardown"])
def test_a_missing_stage_scores_zero(validate_report, stage):
    broken = raw_test(A, **{stage: None})
    rep = validate_report(report(THREE, [broken, raw_test(B), raw_test(H)]))
    assert by_id(rep)[A]["score"] == 0.0
    assert rep["status"] == "fail"


@pytest.mark.parametrize("outcome", ["skipped", "failed", "xfailed", "error", None])
def test_a_call_that_did_not_pass_scores_zero_even_if_feedback_says_passed(validate_report, outcome):
    broken = raw_test(A)
    broken["call"]["outcome"] = outcome
    rep = validate_report(report(THREE, [broken, raw_test(B), raw_test(H)]))
    assert by_id(rep)[A]["score"] == 0.0
    assert by_id(rep)[A]["outcome"] == "failed"
    assert by_id(rep)[A]["message"] == "this check did not pass"


@pytest.mark.parametrize(
    "raw, expected",
    [
        ({"setup": {"outcome": "passed"}, "call": {"outcome": "passed"}, "teardown": {"outcome": "passed"}}, True),
        ({"setup": {"outcome": "passed"}, "call": {"outcome": "passed"}, "teardown": {"outcome": "failed"}}, False),
        ({"setup": {"outcome": "failed"}, "teardown": {"outcome": "passed"}}, False),
        ({"setup": {"outcome": "passed"}, "call": {"outcome": "passed"}}, False),
        ({"setup": {"outcome": "passed"}, "call": None, "teardown": {"outcome": "passed"}}, False),
        ({"outcome": "passed"}, False),
        ({}, False),
        (None, False),
    ],
)
def test_check_passed_needs_every_stage_passed(raw, expected):
    assert check_passed(raw) is expected


def test_feedback_passed_alone_does_not_score():
    entry = score_check(check(A), {"metadata": metadata(PASSED)}, None)
    assert entry["score"] == 0.0


# -- no record means no points


def test_check_with_no_raw_entry_scores_zero_with_a_message(validate_report):
    rep = validate_report(report(THREE, [raw_test(A), raw_test(H)]))
    assert by_id(rep)[B]["score"] == 0.0
    assert by_id(rep)[B]["message"] == "this check did not finish, so it scores 0"
    assert rep["status"] == "fail"


@pytest.mark.parametrize("other", [None, {}, {"other": 1}, {**metadata(PASSED), "other": 1},
                                   {**metadata(PASSED), "outcome": "fine"}])
def test_check_without_the_plugin_feedback_scores_zero_with_a_message(validate_report, other):
    bare = raw_test(A, feedback=None)
    if other is not None:
        bare["metadata"] = other
    rep = validate_report(report(THREE, [bare, raw_test(B), raw_test(H)]))
    assert by_id(rep)[A]["score"] == 0.0
    assert by_id(rep)[A]["message"] == "this check did not finish, so it scores 0"


def test_a_raw_pass_for_a_check_never_collected_adds_nothing(validate_report):
    stray = raw_test("checks/test_public.py::test_injected")
    rep = validate_report(report([check(A)], [raw_test(A, call="failed", feedback={"outcome": "failed"}), stray]))
    assert [t["id"] for t in rep["tests"]] == [A]
    assert rep["score"] == 0.0 and rep["max_score"] == 1.0


# -- faults and import errors fail closed


def test_missing_raw_report_with_a_fault_is_an_error_scoring_zero(validate_report):
    rep = validate_report(report(THREE, raw_none=True, fault="the grading process was killed"))
    assert rep["status"] == "error"
    assert rep["message"] == "the grading process was killed"
    assert rep["score"] == 0.0 and rep["max_score"] == 6.0
    assert all(t["score"] == 0.0 for t in rep["tests"])


def test_a_fault_zeroes_even_recorded_passes(validate_report):
    rep = validate_report(report(THREE, ALL_PASSED, fault="the grading process ran past its 30 s limit"))
    assert rep["status"] == "error" and rep["score"] == 0.0
    assert all(t["score"] == 0.0 for t in rep["tests"])
    assert all(t["message"] == "not counted: the grading process ran past its 30 s limit" for t in rep["tests"])


def test_import_error_is_an_error_and_every_check_is_not_run(validate_report):
    problem = "toy.py line 3: SyntaxError: invalid syntax"
    rep = validate_report(report(THREE, ALL_PASSED, sandbox={"import_error": problem}))
    assert rep["status"] == "error"
    assert rep["message"] == problem
    assert rep["score"] == 0.0 and rep["max_score"] == 6.0
    assert [t["message"] for t in rep["tests"]] == [f"not run: {problem}"] * 3
    assert all(t["score"] == 0.0 and t["outcome"] == "error" for t in rep["tests"])


def test_import_error_takes_precedence_over_a_fault(validate_report):
    rep = validate_report(report(THREE, raw_none=True, sandbox={"import_error": "no toy.py"}, fault="killed"))
    assert rep["message"] == "no toy.py"
    assert rep["tests"][0]["message"] == "not run: no toy.py"


def test_no_collected_checks_is_an_error(validate_report):
    rep = validate_report(report([], []))
    assert rep["status"] == "error"
    assert rep["message"] == "no checks were collected"
    assert rep["tests"] == [] and rep["score"] == 0


# -- missing functions


def test_missing_functions_are_named_in_the_message(validate_report):
    sandbox = {"missing_functions": ["pair", "push"], "environment": {}}
    failed = raw_test(B, call="failed", feedback={"outcome": "failed", "message": "pair is not defined"})
    rep = validate_report(report(THREE, [raw_test(A), failed, raw_test(H)], sandbox=sandbox))
    assert rep["status"] == "fail"
    assert rep["message"] == "toy.py does not define: pair, push"


# -- order


def test_public_checks_come_first_each_in_collected_order(validate_report):
    ids = ["checks/test_hidden.py::test_h1", "checks/test_public.py::test_p2", "checks/test_hidden.py::test_h0",
           "checks/test_public.py::test_p1"]
    collected = [check(i, "hidden" if "hidden" in i else "public") for i in ids]
    rep = validate_report(report(collected, [raw_test(i) for i in ids]))
    assert [t["id"] for t in rep["tests"]] == [ids[1], ids[3], ids[0], ids[2]]
    assert [t["visibility"] for t in rep["tests"]] == ["public", "public", "hidden", "hidden"]


# -- caps and types


def test_cap_leaves_short_text_and_none_alone():
    assert cap(None) is None
    assert cap("") == ""
    assert cap("x" * MESSAGE_CAP) == "x" * MESSAGE_CAP


def test_cap_cuts_long_text_to_the_limit_and_says_so():
    capped = cap("x" * (MESSAGE_CAP + 1))
    assert MESSAGE_CAP == 2000
    assert len(capped) == MESSAGE_CAP
    assert capped.endswith(" [... truncated]")
    assert capped.startswith("x" * (MESSAGE_CAP - 16))


def test_the_one_truncation_helper_honours_a_custom_limit_and_marker():
    assert truncate("abcdefghijklmnopqrstuvwxyz" * 4, 40) == "abcdefghijklmnopqrstuvwx [... truncated]"
    assert truncate("abcdefghij", 8, "[...]") == "abc[...]"
    assert truncate("short", 8) == "short" and truncate(None, 8) is None


def test_long_fault_is_capped_everywhere(validate_report):
    rep = validate_report(report(THREE, raw_none=True, fault="boom " * 1000))
    assert len(rep["message"]) == MESSAGE_CAP
    assert all(len(t["message"]) == MESSAGE_CAP and t["message"].startswith("not counted: boom") for t in rep["tests"])


def test_long_import_error_is_capped(validate_report):
    rep = validate_report(report(THREE, sandbox={"import_error": "E" * 5000}))
    assert len(rep["message"]) == MESSAGE_CAP
    assert all(len(t["message"]) <= MESSAGE_CAP for t in rep["tests"])


def test_long_missing_functions_message_is_capped(validate_report):
    sandbox = {"missing_functions": [f"function_{i}" for i in range(500)]}
    rep = validate_report(report(THREE, ALL_PASSED, sandbox=sandbox))
    assert len(rep["message"]) == MESSAGE_CAP
    assert rep["message"].endswith("[... truncated]")


def test_long_feedback_message_and_output_are_capped(validate_report):
    noisy = raw_test(A, call="failed", feedback={"outcome": "failed", "message": "m" * 5000, "output": "o" * 5000})
    rep = report(THREE, [noisy, raw_test(B), raw_test(H)])
    entry = by_id(rep)[A]
    assert len(entry["message"]) <= MESSAGE_CAP and len(entry["output"]) <= MESSAGE_CAP
    validate_report(rep)


def test_points_are_floats(validate_report):
    collected = [check(A, points=2), check(H, "hidden", points=1)]
    rep = validate_report(report(collected, [raw_test(A), raw_test(H, call="failed", feedback={"outcome": "failed"})]))
    for test in rep["tests"]:
        assert type(test["score"]) is float and type(test["max_score"]) is float
    assert type(rep["score"]) is float and type(rep["max_score"]) is float
    assert (rep["score"], rep["max_score"]) == (2.0, 3.0)


def test_check_duration_sums_its_stages(validate_report):
    timed = raw_test(A)
    for stage, seconds in (("setup", 0.25), ("call", 0.5), ("teardown", 0.125)):
        timed[stage]["duration"] = seconds
    rep = validate_report(report([check(A)], [timed]))
    assert rep["tests"][0]["duration_s"] == 0.875


def test_report_carries_the_run_details(validate_report):
    rep = validate_report(report(THREE, ALL_PASSED))
    assert rep["schema_version"] == 1
    assert rep["kit"]["name"] == "minimax-kit"
    assert rep["exercise"] == {"id": "ex01", "slug": "toy", "title": "Toy"}
    # 1.5 s graded, rounded down as a hidden check's time is: THREE holds a hidden check.
    assert any(c.visibility == "hidden" for c in THREE)
    assert (rep["seed"], rep["started_at"], rep["duration_s"]) == (1, "2026-11-29T12:00:00Z", 1.0)
    assert rep["environment"]["sandbox"] == {"uid": 65534, "timeout_s": 2.0}


def test_a_report_without_hidden_checks_keeps_its_time_to_the_millisecond(validate_report):
    public = [c for c in THREE if c.visibility == "public"]
    rep = validate_report(report(public, [t for c, t in zip(THREE, ALL_PASSED) if c.visibility == "public"]))
    assert rep["duration_s"] == 1.5


def test_public_output_from_feedback_is_kept(validate_report):
    chatty = raw_test(A, feedback={"outcome": "passed", "message": None, "output": "adding 2 3\n"})
    rep = validate_report(report([check(A)], [chatty]))
    assert rep["tests"][0]["output"] == "adding 2 3\n"
    assert rep["status"] == "pass"


# -- gated checks: robustness pays only for a function that also computes correctly

G = "checks/test_hidden.py::test_g"
CASES = ["checks/test_hidden.py::test_random[1]", "checks/test_hidden.py::test_random[2]"]


def gated(requires: list[str]) -> Check:
    return replace(check(G, "hidden", points=2.0), family="rejects bad input", requires=tuple(requires))


def random_cases() -> list[Check]:
    return [replace(check(nodeid, "hidden"), family="random trees") for nodeid in CASES]


def test_a_gated_check_pays_once_every_case_it_waits_on_passes(validate_report):
    rep = validate_report(report([*random_cases(), gated(CASES)], [raw_test(CASES[0]), raw_test(CASES[1]),
                                                                   raw_test(G)]))
    assert by_id(rep)[G]["score"] == 2.0 and rep["status"] == "pass"


def test_a_gated_check_whose_requirement_failed_scores_0_and_says_what_it_waits_on(validate_report):
    failed = raw_test(CASES[1], call="failed", feedback={"outcome": "failed", "message": "wrong",
                                                          "failure": {"kind": "assertion"}})
    rep = validate_report(report([*random_cases(), gated(CASES)], [raw_test(CASES[0]), failed, raw_test(G)]))
    entry = by_id(rep)[G]
    assert entry["score"] == 0.0 and entry["max_score"] == 2.0 and entry["outcome"] == "failed"
    assert entry["failure"] == {"kind": "waiting", "waits_on": ["random trees"]}
    # A hidden requirement is named as hidden checks are: by its name only, not its case.
    assert entry["message"] == "earns its points once 'random trees' passes"
    assert rep["score"] == 1.0 and rep["max_score"] == 4.0


def test_a_gated_check_that_failed_itself_keeps_its_own_failure(validate_report):
    own = raw_test(G, call="failed", feedback={"outcome": "failed", "message": "no ValueError",
                                               "failure": {"kind": "assertion"}})
    failed = raw_test(CASES[0], call="failed", feedback={"outcome": "failed", "failure": {"kind": "assertion"}})
    rep = validate_report(report([*random_cases(), gated(CASES)], [failed, raw_test(CASES[1]), own]))
    assert by_id(rep)[G]["message"] == "no ValueError" and by_id(rep)[G]["failure"] == {"kind": "assertion"}


# -- the schema's submission: a notebook's facts, when a notebook stood for the module


def test_the_schema_takes_a_notebooks_facts_and_refuses_malformed_ones(validate_report, schema_validator):
    import jsonschema

    rep = report(THREE, ALL_PASSED)
    rep["submission"]["notebook"] = {"file": "work.ipynb", "code_cells": 4, "magic_cells": [2, 5]}
    validate_report(rep)
    for bad in ({"file": "work.ipynb", "code_cells": 4, "magic_cells": ["2"]},
                {"file": "work.ipynb", "code_cells": 4},
                {"file": "work.ipynb", "code_cells": 4, "magic_cells": [], "cells": 9}):
        rep["submission"]["notebook"] = bad
        with pytest.raises(jsonschema.ValidationError):
            schema_validator.validate(rep)


# -- what the module printed while it was imported


def test_import_output_goes_into_the_submission_capped_and_none_when_empty(validate_report):
    chatty = validate_report(report(THREE, ALL_PASSED, sandbox={"import_output": "x" * 5000}))
    assert chatty["submission"]["import_output"] == truncate("x" * 5000, MESSAGE_CAP)
    assert len(chatty["submission"]["import_output"]) == MESSAGE_CAP
    silent = validate_report(report(THREE, ALL_PASSED, sandbox={"import_output": ""}))
    assert silent["submission"]["import_output"] is None
    assert validate_report(report(THREE, ALL_PASSED))["submission"]["import_output"] is None


def test_import_output_is_kept_when_the_import_failed(validate_report):
    rep = validate_report(report(THREE, sandbox={"import_error": "toy.py line 3: KeyError: 'first'",
                                                 "import_output": "loading the table\n"}))
    assert rep["status"] == "error" and rep["submission"]["import_output"] == "loading the table\n"


def test_the_schema_takes_import_output_as_capped_text_or_null(validate_report, schema_validator):
    import jsonschema

    rep = report(THREE, ALL_PASSED)
    for good in ("hello\n", None):
        rep["submission"]["import_output"] = good
        validate_report(rep)
    del rep["submission"]["import_output"]
    validate_report(rep)  # a report written before the field existed
    for bad in (["hello"], {"stdout": "hello"}, "x" * (MESSAGE_CAP + 1)):
        rep["submission"]["import_output"] = bad
        with pytest.raises(jsonschema.ValidationError):
            schema_validator.validate(rep)


def test_a_diagnosed_mistake_names_its_checks_in_the_reports_order(validate_report):
    failed = {"outcome": "failed", "message": "no", "output": None}
    raw = [raw_test(A, call="failed", feedback=failed), raw_test(B, call="failed", feedback=failed),
           raw_test(H, call="failed", feedback=failed)]
    # The diagnosis found them in the order its replays happened to end.
    found = Diagnosis((DiagnosedMistake("m", "why", (H, B, A)),))
    rep = validate_report(build_report(
        exercise={"id": "ex01", "slug": "toy", "title": "Toy"}, submission={"path": "toy.py", "sha256": "0" * 64},
        seed=1, collected=THREE, raw={"tests": raw}, sandbox=facts(environment={"uid": 65534}), fault=None,
        started_at="2026-11-29T12:00:00Z", duration_s=1.5, call_timeout=2.0, diagnosis=found))
    assert rep["diagnosis"] == [{"mistake": "m", "why": "why", "checks": [A, B, H]}]

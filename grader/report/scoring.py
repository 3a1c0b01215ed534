"""Turning what a grading run recorded into the score report: pure functions, no pytest, no I/O.

Its inputs are the run's typed contract (`grader.run_contract`): the collected `Check`s, the
`SandboxFacts`, and pytest-json-report's raw report, whose checks carry the plugin's
`CheckFeedback` as their metadata.
"""

from __future__ import annotations

import math
import platform
import sys
from dataclasses import asdict

from grader import __version__
from grader.failures import FailureKind
from grader.outcomes import Outcome, Status, roll_up
from grader.run_contract import Check, CheckFeedback, Diagnosis, SandboxFacts
from grader.text import truncate

SCHEMA_VERSION = 1
STAGES = ("setup", "call", "teardown")
# Text fields of the report are capped, like Exercism's 500-character messages but roomier.
MESSAGE_CAP = 2000


def cap(text: str | None) -> str | None:
    """A report text cut to MESSAGE_CAP characters, saying that it was cut."""
    return truncate(text, MESSAGE_CAP)


def check_passed(raw_test: dict | None) -> bool:
    """A check passed only if pytest-json-report recorded a pass for setup, call and teardown."""
    if not raw_test:
        return False
    return all((raw_test.get(stage) or {}).get("outcome") == Outcome.PASSED for stage in STAGES)


def _feedback(raw_test: dict | None) -> CheckFeedback | None:
    """What the plugin said of the check once its teardown ended (its metadata), if it got that far."""
    return CheckFeedback.from_metadata((raw_test or {}).get("metadata"))


# A hidden check's time is the student's to stretch: to the tenth of a second it would carry a
# few bits of a hidden input; rounded down to whole seconds, log2(check_timeout + 1) at most. Down,
# so that a quick check stays 0 s and is not shown as a slow one.
HIDDEN_DURATION_STEP_S = 1.0


def _hidden_time(seconds: float) -> float:
    """Time that hidden calls may have stretched, rounded down as a hidden check's duration is."""
    return float(math.floor(seconds / HIDDEN_DURATION_STEP_S) * HIDDEN_DURATION_STEP_S)


def _duration(raw_test: dict | None, hidden: bool) -> float:
    seconds = sum((raw_test or {}).get(stage, {}).get("duration", 0.0) for stage in STAGES)
    return _hidden_time(seconds) if hidden else round(seconds, 4)


def score_check(check: Check, raw_test: dict | None, blocked: tuple[FailureKind, str] | None) -> dict:
    """One check's entry in the report; `blocked` says why nothing could count (e.g. no import), and in words."""
    entry = {
        "id": check.id,
        "name": check.name,
        "visibility": check.visibility,
        "outcome": str(Outcome.ERROR),
        "score": 0.0,
        "max_score": float(check.points),
        "message": None,
        "failure": None,
        "output": None,
        "duration_s": _duration(raw_test, not check.public),
        "code": check.code,
        # A hidden check's explanation of its failure, which may show inputs: only for after the due date.
        "after_due": None,
    }
    feedback = _feedback(raw_test)
    if blocked is not None:
        entry.update(message=cap(blocked[1]), failure={"kind": str(blocked[0])})
    elif feedback is None:
        entry.update(message="this check did not finish, so it scores 0", failure={"kind": str(FailureKind.ERROR)})
    else:
        entry.update(outcome=str(feedback.outcome), message=cap(feedback.message), output=cap(feedback.output),
                     failure=feedback.failure, after_due=None if check.public else cap(feedback.after_due))
        if check_passed(raw_test) and entry["outcome"] == Outcome.PASSED:
            entry["score"] = entry["max_score"]
        elif entry["outcome"] == Outcome.PASSED:
            # The plugin saw no exception, yet pytest did not record a pass (a skip, say).
            entry.update(outcome=str(Outcome.FAILED), message=entry["message"] or "this check did not pass",
                         failure={"kind": str(FailureKind.ERROR)})
    return entry


def _hold_back_gated(checks: list[Check], tests: list[dict]) -> None:
    """A check that passed, but waits on checks that did not all pass, scores 0 and says what it waits on.

    Robustness checks (bad input raises, the input is left alone, the result has the right shape)
    pay only for a function that also computes correctly: code that computes nothing earns nothing.
    """
    by_nodeid = {check.nodeid: (check, test) for check, test in zip(checks, tests)}
    for check, test in zip(checks, tests):
        waiting = [by_nodeid[nodeid][0] for nodeid in check.requires
                   if by_nodeid[nodeid][1]["score"] < by_nodeid[nodeid][1]["max_score"]]
        if not waiting or test["score"] == 0:
            continue
        names = list(dict.fromkeys(required.family for required in waiting))
        verb = "passes" if len(names) == 1 else "pass"
        test.update(score=0.0, outcome=str(Outcome.FAILED),
                    failure={"kind": str(FailureKind.WAITING), "waits_on": names},
                    message=f"earns its points once {' and '.join(repr(name) for name in names)} {verb}")


def diagnosis_entries(diagnosis: Diagnosis, checks: list[Check], tests: list[dict]) -> list[dict]:
    """The report's `diagnosis`: each known mistake matched, with the ids of the checks (that lost points) it matched on."""
    ids = {check.nodeid: test["id"] for check, test in zip(checks, tests) if test["score"] < test["max_score"]}
    entries = []
    for mistake in diagnosis.mistakes:
        # In the report's order: the diagnosis finds a mistake's checks in an order its timing decides.
        matched = [test_id for nodeid, test_id in ids.items() if nodeid in mistake.checks]
        if matched:
            entries.append({"mistake": mistake.mistake, "why": cap(mistake.why), "checks": matched})
    return entries


def build_report(*, exercise: dict, submission: dict, seed: int, collected: tuple[Check, ...], raw: dict | None,
                 sandbox: SandboxFacts, fault: str | None, started_at: str, duration_s: float,
                 call_timeout: float, diagnosis: Diagnosis = Diagnosis()) -> dict:
    """The native report (schema_version 1). Scoring fails closed: only recorded passes score."""
    raw_tests = {test.get("nodeid"): test for test in (raw or {}).get("tests", [])}
    import_error = sandbox.import_error
    if import_error:
        blocked = (FailureKind.IMPORT, f"not run: {import_error}")
    elif fault:
        blocked = (FailureKind.ERROR, f"not counted: {fault}")
    else:
        blocked = None
    ordered = sorted(collected, key=lambda check: not check.public)
    tests = [score_check(check, raw_tests.get(check.nodeid), blocked) for check in ordered]
    _hold_back_gated(ordered, tests)
    score = sum((test["score"] for test in tests), 0.0)
    max_score = sum((test["max_score"] for test in tests), 0.0)
    missing = sandbox.missing_functions
    if import_error or fault or not tests:
        status = Status.ERROR
        message = import_error or fault or "no checks were collected"
    else:
        status = Status.PASS if all(test["score"] == test["max_score"] for test in tests) else Status.FAIL
        message = f"{submission['path']} does not define: {', '.join(missing)}" if missing else None
    environment = {
        "python": platform.python_version(),
        "platform": sys.platform,
        "sandbox": {**sandbox.environment, "timeout_s": call_timeout,
                    **({"cpu": asdict(sandbox.cpu)} if sandbox.cpu is not None else {})},
    }
    return {
        "schema_version": SCHEMA_VERSION,
        "kit": {"name": "minimax-kit", "version": __version__},
        "exercise": exercise,
        # What the module printed while it was imported, before any check ran (kept if it then raised).
        "submission": {**submission, "import_output": cap(sandbox.import_output or None)},
        "seed": seed,
        "status": str(status),
        "score": round(score, 4),
        "max_score": round(max_score, 4),
        "message": cap(message),
        "tests": tests,
        # The known mistakes whose answers the student's match on the failed checks' calls (never their inputs).
        "diagnosis": diagnosis_entries(diagnosis, ordered, tests),
        "started_at": started_at,
        # The whole grade's time holds the hidden checks' too: to the millisecond it would carry what
        # their rounding hides, so it is rounded the same way wherever a check is hidden.
        "duration_s": _hidden_time(duration_s) if any(not check.public for check in collected) else round(duration_s, 3),
        "environment": environment,
    }


def summarize(reports: list[dict]) -> dict:
    """The `grade --all` document: every exercise's report and the totals."""
    statuses = [report["status"] for report in reports]
    return {
        "schema_version": SCHEMA_VERSION,
        "kit": {"name": "minimax-kit", "version": __version__},
        "status": str(roll_up(statuses)),
        "score": round(sum((report["score"] for report in reports), 0.0), 4),
        "max_score": round(sum((report["max_score"] for report in reports), 0.0), 4),
        "exercises": reports,
    }

"""Turning what a grading run recorded into the score report: pure functions, no pytest, no I/O."""

from __future__ import annotations

import platform
import sys

from grader import __version__

SCHEMA_VERSION = 1
STAGES = ("setup", "call", "teardown")
# Text fields of the report are capped, like Exercism's 500-character messages but roomier.
MESSAGE_CAP = 2000


def cap(text: str | None, limit: int = MESSAGE_CAP) -> str | None:
    """Shorten a report text to `limit` characters, saying that it was cut."""
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 16] + " [... truncated]"


def check_passed(raw_test: dict | None) -> bool:
    """A check passed only if pytest-json-report recorded a pass for setup, call and teardown."""
    if not raw_test:
        return False
    return all((raw_test.get(stage) or {}).get("outcome") == "passed" for stage in STAGES)


def _feedback(raw_test: dict | None) -> dict | None:
    """What the plugin attached to the check's teardown report, if it got that far."""
    for prop in (raw_test or {}).get("user_properties") or []:
        if "minimax_kit" in prop:
            return prop["minimax_kit"]
    return None


def _duration(raw_test: dict | None) -> float:
    return round(sum((raw_test or {}).get(stage, {}).get("duration", 0.0) for stage in STAGES), 4)


def score_check(check: dict, raw_test: dict | None, blocked: str | None) -> dict:
    """One check's entry in the report; `blocked` says why nothing could count (e.g. no import)."""
    entry = {
        "id": check["id"],
        "name": check["name"],
        "visibility": check["visibility"],
        "outcome": "error",
        "score": 0.0,
        "max_score": float(check["points"]),
        "message": None,
        "output": None,
        "duration_s": _duration(raw_test),
        "code": check.get("code"),
    }
    feedback = _feedback(raw_test)
    if blocked is not None:
        entry["message"] = cap(blocked)
    elif feedback is None:
        entry["message"] = "this check did not finish, so it scores 0"
    else:
        entry.update(outcome=feedback.get("outcome", "error"), message=cap(feedback.get("message")),
                     output=cap(feedback.get("output")))
        if check_passed(raw_test) and entry["outcome"] == "passed":
            entry["score"] = entry["max_score"]
        elif entry["outcome"] == "passed":
            # The plugin saw no exception, yet pytest did not record a pass (a skip, say).
            entry.update(outcome="failed", message=entry["message"] or "this check did not pass")
    return entry


def build_report(*, exercise: dict, submission: dict, seed: int, collected: list[dict], raw: dict | None,
                 sandbox: dict, fault: str | None, started_at: str, duration_s: float,
                 call_timeout: float) -> dict:
    """The native report (schema_version 1). Scoring fails closed: only recorded passes score."""
    raw_tests = {test.get("nodeid"): test for test in (raw or {}).get("tests", [])}
    import_error = sandbox.get("import_error")
    if import_error:
        blocked = f"not run: {import_error}"
    elif fault:
        blocked = f"not counted: {fault}"
    else:
        blocked = None
    ordered = sorted(collected, key=lambda check: check["visibility"] != "public")
    tests = [score_check(check, raw_tests.get(check["nodeid"]), blocked) for check in ordered]
    score = sum((test["score"] for test in tests), 0.0)
    max_score = sum((test["max_score"] for test in tests), 0.0)
    missing = sandbox.get("missing_functions") or []
    if import_error or fault or not tests:
        status = "error"
        message = import_error or fault or "no checks were collected"
    else:
        status = "pass" if all(test["score"] == test["max_score"] for test in tests) else "fail"
        message = f"{submission['path']} does not define: {', '.join(missing)}" if missing else None
    environment = {
        "python": platform.python_version(),
        "platform": sys.platform,
        "sandbox": {**(sandbox.get("environment") or {}), "timeout_s": call_timeout},
    }
    return {
        "schema_version": SCHEMA_VERSION,
        "kit": {"name": "minimax-kit", "version": __version__},
        "exercise": exercise,
        "submission": submission,
        "seed": seed,
        "status": status,
        "score": round(score, 4),
        "max_score": round(max_score, 4),
        "message": cap(message),
        "tests": tests,
        "started_at": started_at,
        "duration_s": round(duration_s, 3),
        "environment": environment,
    }


def summarize(reports: list[dict]) -> dict:
    """The `grade --all` document: every exercise's report and the totals."""
    statuses = [report["status"] for report in reports]
    return {
        "schema_version": SCHEMA_VERSION,
        "kit": {"name": "minimax-kit", "version": __version__},
        "status": "error" if "error" in statuses else "fail" if "fail" in statuses or not reports else "pass",
        "score": round(sum((report["score"] for report in reports), 0.0), 4),
        "max_score": round(sum((report["max_score"] for report in reports), 0.0), 4),
        "exercises": reports,
    }

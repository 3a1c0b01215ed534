"""The vocabulary of results: a check's outcome, a report's status, and how statuses roll up."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class Outcome(StrEnum):
    """How one check ended; the report's `tests[].outcome`."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    TIMEOUT = "timeout"
    CRASHED = "crashed"


class Status(StrEnum):
    """How a whole report ended; the report's `status`."""

    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"


def roll_up(statuses: Iterable[str]) -> Status:
    """The status of several reports together: error over fail over pass; nothing at all is a fail."""
    seen = {Status(status) for status in statuses}
    if Status.ERROR in seen:
        return Status.ERROR
    if Status.FAIL in seen or not seen:
        return Status.FAIL
    return Status.PASS

"""The vocabulary of results: a check's outcome, a report's status, how statuses roll up, why a batch regraded."""

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


class Regraded(StrEnum):
    """Why `grade batch` graded a report again rather than reuse the stored one; REUSED when it did not."""

    REUSED = "reused"  # nothing that produced it changed
    NEW = "new"  # no report (or no record of what produced one) was there
    FORCED = "forced"  # --force
    SUBMISSION = "submission"  # a file of the submission changed
    CHECKS = "checks"  # the exercise's checks, helpers or exercise.toml changed
    KIT = "kit"  # another version of the kit
    SEED = "seed"  # another seed was asked for
    GRADER_ERROR = "grader_error"  # the report's error came from the grader's side, which a new grade may not repeat
    CONTENTION = "contention"  # it ran under CPU contention, which a grade on its own may not meet


def roll_up(statuses: Iterable[str]) -> Status:
    """The status of several reports together: error over fail over pass; nothing at all is a fail."""
    seen = {Status(status) for status in statuses}
    if Status.ERROR in seen:
        return Status.ERROR
    if Status.FAIL in seen or not seen:
        return Status.FAIL
    return Status.PASS

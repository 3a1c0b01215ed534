"""Reading a stored report back: the one reader every part of the kit uses, with its one set of checks."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path

from grader.outcomes import Status


class ReportProblem(StrEnum):
    """Why a stored report could not be used."""

    UNREADABLE = "unreadable"  # missing, or the file system refused it
    NOT_TEXT = "not_text"  # not UTF-8
    NOT_JSON = "not_json"
    MALFORMED = "malformed"  # JSON, but not the shape of a native report


class ReportError(ValueError):
    """A stored report that cannot be used: its problem as data, and a detail for the one-line error."""

    def __init__(self, path: Path, problem: ReportProblem, detail: str):
        super().__init__(detail)
        self.path, self.problem, self.detail = path, problem, detail


def report_field(data, key: str, kinds: type | tuple[type, ...], where: str):
    """`data[key]`, which must be of `kinds` (never a bool); otherwise a ValueError naming the field."""
    if not isinstance(data, dict):
        raise ValueError(f"{where} is {type(data).__name__}, not an object")
    if key not in data:
        raise ValueError(f"{where}: no field {key!r}")
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise ValueError(f"{where}: field {key!r} is {type(value).__name__}, not the expected kind")
    return value


def report_status(report) -> Status:
    """The report's status; a missing, mistyped or unknown one is a ValueError naming the field."""
    try:
        return Status(report_field(report, "status", str, "the report"))
    except ValueError:
        raise ValueError(f"the report: field 'status' is not one of {', '.join(Status)}") from None


def check_summary(report) -> None:
    """The fields every reader relies on (exercise, tests, status, score, max score); a ValueError names the first amiss."""
    exercise = report_field(report, "exercise", dict, "the report")
    report_field(report, "tests", list, "the report")
    report_status(report)
    report_field(exercise, "id", str, "the report's exercise")
    report_field(exercise, "title", str, "the report's exercise")
    report_field(report, "score", (int, float), "the report")
    report_field(report, "max_score", (int, float), "the report")


def read_report(path: Path) -> dict:
    """The native report stored at `path`; a ReportError says why it cannot be used."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReportError(path, ReportProblem.UNREADABLE, exc.strerror or str(exc)) from None
    except UnicodeDecodeError:
        raise ReportError(path, ReportProblem.NOT_TEXT, "it is not UTF-8 text") from None
    except ValueError as exc:
        raise ReportError(path, ReportProblem.NOT_JSON, str(exc)) from None
    try:
        check_summary(report)
    except ValueError as exc:
        raise ReportError(path, ReportProblem.MALFORMED, str(exc)) from None
    return report

"""The list of checks: each collected test function as a `Check`, and what `@pytest.mark.requires` waits on.

Pure functions over `CheckItem`s, plain descriptions of pytest's items, so that the rules are
tested without pytest (the plugin makes the descriptions).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from grader.run_contract import Check


@dataclass(frozen=True)
class Marker:
    """One marker on a check, as written: its positional and keyword arguments."""

    args: tuple
    kwargs: dict


@dataclass(frozen=True)
class CheckItem:
    """What the check list needs of one pytest item."""

    nodeid: str
    function: str  # the test function's name, without a case's id
    doc: str | None
    case: str | None  # a parametrized case's id, or None
    markers: dict[str, Marker]  # the closest marker of each name
    source: str | None  # the test function's source, for a public check (the only kind that shows it)


class BadMarker(ValueError):
    """A marker with arguments it cannot take: a fault in the kit, said as one line naming the check."""


def is_public(nodeid: str, public_file: str) -> bool:
    """Whether a check lives in the public check file, which ships to students."""
    return PurePosixPath(nodeid.split("::", 1)[0]).name == public_file


def check_name(function: str, doc: str | None) -> str:
    """The first line of the check's docstring, or its function name in words."""
    doc = (doc or "").strip()
    if doc:
        return doc.splitlines()[0].strip()
    return function.removeprefix("test_").replace("_", " ")


def _positive(value) -> bool:
    return type(value) in (int, float) and value > 0


def _non_blank_text(value) -> bool:
    return type(value) is str and bool(value.strip())


def marker_value(item: CheckItem, name: str, valid):
    """The single argument of a marker, validated by `valid`, or None when the marker is absent."""
    marker = item.markers.get(name)
    if marker is None:
        return None
    if len(marker.args) != 1 or marker.kwargs or not valid(marker.args[0]):
        raise BadMarker(f"{item.nodeid}: @pytest.mark.{name} needs one valid argument, got {marker.args!r}")
    return marker.args[0]


def call_timeout(item: CheckItem) -> float | None:
    """The check's own deadline for each call into student code, if it sets one."""
    return marker_value(item, "call_timeout", _positive)


def describe(items: list[CheckItem], public_file: str, check_timeout: float, cap) -> list[Check]:
    """Every item as a Check with its name, visibility, points and budget; `cap` cuts a public check's code."""
    case_numbers: dict[tuple[str, str], int] = {}
    checks = []
    for item in items:
        path = PurePosixPath(item.nodeid.split("::", 1)[0])
        public = is_public(item.nodeid, public_file)
        name = family = check_name(item.function, item.doc)
        report_id = item.nodeid
        if item.case is not None:
            key = (str(path), item.function)
            case_numbers[key] = case_numbers.get(key, 0) + 1
            if public:
                name = f"{name} [{item.case}]"
            else:
                # Parametrize ids can spell out hidden inputs, so hidden cases are only numbered.
                report_id = f"{path}::{item.function}[{case_numbers[key]}]"
                name = f"{name} #{case_numbers[key]}"
        points = marker_value(item, "points", _positive)
        checks.append(Check(
            nodeid=item.nodeid, id=report_id, name=name, visibility="public" if public else "hidden",
            points=float(points if points is not None else 1), hint=marker_value(item, "hint", _non_blank_text),
            budget_s=float(marker_value(item, "timeout", _positive) or check_timeout),
            # Exercism shows a check's code; only public code may be shown, since hidden code holds inputs.
            code=cap(item.source) if public else None, family=family))
    return checks


def resolve_requirements(items: list[CheckItem], checks: list[Check]) -> tuple[list[Check], list[str]]:
    """Each check with the nodeids its @pytest.mark.requires waits on, and the faults found (one line each)."""
    by_function: dict[str, list[str]] = {}
    for item in items:
        by_function.setdefault(item.function, []).append(item.nodeid)
    gated = {item.nodeid for item in items if "requires" in item.markers}
    errors: list[str] = []
    resolved = []
    for item, check in zip(items, checks):
        marker = item.markers.get("requires")
        if marker is None:
            resolved.append(check)
            continue
        names, waits = marker.args, []
        if not names or marker.kwargs or not all(type(name) is str for name in names):
            errors.append(f"{item.nodeid}: @pytest.mark.requires needs the names of test functions, got {names!r}")
            resolved.append(check)
            continue
        for name in names:
            waited = by_function.get(name)
            if not waited or item.nodeid in waited:
                errors.append(f"{item.nodeid}: @pytest.mark.requires({name!r}) names no other check of this exercise")
            elif gated & set(waited):
                # One level only: a requirement that waits itself could make a cycle.
                errors.append(f"{item.nodeid}: @pytest.mark.requires({name!r}) names a check that waits on "
                              "another itself")
            else:
                waits.extend(waited)
        resolved.append(replace(check, requires=tuple(waits)))
    return resolved, errors

"""Writing a native report in the formats that pipelines read: pure mappings of the native report."""

from __future__ import annotations

import json
import math
import textwrap
from fractions import Fraction

from grader.outcomes import Outcome, Status, roll_up
from grader.text import truncate

FORMATS = ("json", "gradescope", "exercism", "classroom", "junit")
# Gradescope's visibility settings. A hidden check's result is shown after the due date unless told
# otherwise, as Gradescope's own spec suggests for the tests a submission is graded on.
GRADESCOPE_VISIBILITIES = ("after_due_date", "after_published", "hidden", "visible")
DEFAULT_HIDDEN_VISIBILITY = "after_due_date"
# Exercism's interface caps a test's output at 500 characters.
EXERCISM_OUTPUT_CAP = 500


def load_schema() -> dict:
    """The JSON Schema of the native report, shipped inside the package."""
    # Imported here: `grade` alone imports this module, and it must start fast.
    from importlib import resources

    return json.loads(resources.files("grader.report").joinpath("report.schema.json").read_text(encoding="utf-8"))


def _reports(document: dict) -> list[dict]:
    """The exercise reports in a native document: one report, or the list of a `grade --all` summary."""
    return document["exercises"] if "exercises" in document else [document]


def _full_name(test: dict, report: dict, many: bool) -> str:
    return f"{report['exercise']['id']}: {test['name']}" if many else test["name"]


MISTAKE_LEAD = "Your answers match a known mistake: "


def _mistakes_by_check(report: dict) -> dict[str, list[str]]:
    """Each check's id, with the whys of the known mistakes its answers match (.get(): older reports lack them)."""
    found: dict[str, list[str]] = {}
    for entry in report.get("diagnosis") or []:
        for check in entry["checks"]:
            found.setdefault(check, []).append(entry["why"])
    return found


def _feedback(test: dict, mistakes: list[str] = ()) -> str:
    """A check's message, the known mistakes its answers match, and its output, as one text for a single field."""
    parts = [test["message"] or "", *(MISTAKE_LEAD + why for why in mistakes)]
    if test["output"]:
        parts.append(f"Your output:\n{test['output']}")
    return "\n".join(part for part in parts if part)


def _diagnosis_lines(report: dict) -> list[str]:
    """The diagnosis for text shown to everyone at once: public checks by name, hidden ones only counted,
    since a hidden check's name may be shown later than the summary (Gradescope's visibility)."""
    names = {test["id"]: test["name"] for test in report["tests"] if test["visibility"] == "public"}
    lines = []
    for entry in report.get("diagnosis") or []:
        public = [names[check] for check in entry["checks"] if check in names]
        hidden = len(entry["checks"]) - len(public)
        where = [*(f"'{name}'" for name in public), *([f"{hidden} hidden check{'s' if hidden > 1 else ''}"]
                                                       if hidden else [])]
        lines.append(f"{MISTAKE_LEAD}{entry['why']} (on {', '.join(where)})")
    return lines


def to_gradescope(document: dict, hidden_visibility: str = DEFAULT_HIDDEN_VISIBILITY) -> dict:
    """Gradescope's results.json: score, per-test score and max_score, status, name, output, visibility.

    Public checks are always visible; hidden ones get `hidden_visibility`. Every text is plain
    (`"text"` formats): the kit's messages hold trees and boards drawn with `<`, `>` and spaces,
    which Gradescope's default top-level format (sanitised HTML) would eat.
    """
    if hidden_visibility not in GRADESCOPE_VISIBILITIES:
        raise ValueError(f"unknown Gradescope visibility {hidden_visibility!r}; choose one of: "
                         f"{', '.join(GRADESCOPE_VISIBILITIES)}")
    reports = _reports(document)
    many = len(reports) > 1
    tests = []
    for report in reports:
        mistakes = _mistakes_by_check(report)
        for test in report["tests"]:
            output = _feedback(test, mistakes.get(test["id"], []))
            # A hidden check's explanation may show inputs: only where Gradescope holds its result back.
            if test.get("after_due") and hidden_visibility != "visible":
                output = "\n\n".join(part for part in (output, test["after_due"]) if part)
            tests.append({
                "name": _full_name(test, report, many),
                "number": str(len(tests) + 1),
                "score": test["score"],
                "max_score": test["max_score"],
                "status": "passed" if test["outcome"] == Outcome.PASSED else "failed",
                "output": output,
                "visibility": "visible" if test["visibility"] == "public" else hidden_visibility,
            })
    messages = [f"{r['exercise']['id']}: {r['message']}" if many else r["message"] for r in reports if r["message"]]
    for report in reports:
        # Gradescope's one place for submission-wide text; .get(): older reports lack the field.
        printed = report["submission"].get("import_output")
        if printed:
            heading = "Your module printed while it was imported:"
            messages += [f"{report['exercise']['id']}: {heading}" if many else heading, printed.rstrip("\n")]
        messages += [f"{report['exercise']['id']}: {line}" if many else line for line in _diagnosis_lines(report)]
    return {
        "score": sum(r["score"] for r in reports),
        "max_score": sum(r["max_score"] for r in reports),
        "execution_time": round(sum(r["duration_s"] for r in reports), 3),
        "output": "\n".join(messages),
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }


def _exercism_status(outcome: str) -> str:
    return {Outcome.PASSED: "pass", Outcome.ERROR: "error"}.get(outcome, "fail")


def to_exercism(document: dict) -> dict:
    """Exercism's test-runner results.json, version 3."""
    reports = _reports(document)
    many = len(reports) > 1
    tests = []
    for report in reports:
        mistakes = _mistakes_by_check(report)
        for test in report["tests"]:
            # The spec's top-level message is for errors only, so each failed test's message names its mistakes.
            message = "\n".join([test["message"] or "this check failed",
                                  *(MISTAKE_LEAD + why for why in mistakes.get(test["id"], []))])
            entry = {
                "name": _full_name(test, report, many),
                "status": _exercism_status(test["outcome"]),
                "message": None if test["outcome"] == Outcome.PASSED else message,
                "test_code": test.get("code") or "(a hidden check: its code is not shown)",
            }
            if test["output"]:
                output = test["output"]
                entry["output"] = truncate(output, EXERCISM_OUTPUT_CAP, "[... truncated]")
            tests.append(entry)
    # The spec's top-level "error" means that no test ran: with --all, only when every exercise errored.
    ran = [r["status"] for r in reports if r["status"] != Status.ERROR]
    if not ran:
        status = str(Status.ERROR)
    elif len(ran) < len(reports):  # some tests ran, and an exercise that errored lost its points
        status = str(Status.FAIL)
    else:
        status = str(roll_up(ran))
    result = {"version": 3, "status": status, "message": None, "tests": tests}
    if status == Status.ERROR:
        result["message"] = "\n".join(r["message"] or "" for r in reports if r["status"] == Status.ERROR)
    return result


# Points are read to the nearest 1/100 (so 0.3333 is a third), and a runner result holds at most
# this many entries: past it every check is one entry, and the reporter then weighs them alike.
POINT_PRECISION = 100
CLASSROOM_ENTRIES = 1000


def _points(test: dict) -> Fraction:
    return Fraction(str(test["max_score"])).limit_denominator(POINT_PRECISION)


def _point_unit(tests: list[dict]) -> Fraction | None:
    """The largest share of a point that divides every check's points (1 when all are whole), or None
    when splitting the checks into such shares would take more than CLASSROOM_ENTRIES entries."""
    shares = [_points(test) for test in tests if test["max_score"] > 0]
    if not shares:
        return Fraction(1)
    unit = Fraction(math.gcd(*(share.numerator for share in shares)), math.lcm(*(share.denominator for share in shares)))
    return unit if sum(shares) / unit <= CLASSROOM_ENTRIES else None


def _classroom_entries(test: dict, name: str, unit: Fraction | None, mistakes: list[str]) -> list[dict]:
    """One check as entries of equal weight, one per `unit` of its points.

    GitHub Classroom's reporter (autograding-grading-reporter v1) scores a runner as
    passed entries / all entries x max_score, as if every test were worth the same; a check worth
    k units is therefore k entries, so that its log and table agree with the kit's score. The
    reporter prints the name of a failed test but not its message, so a failed check's feedback
    follows its name in the first entry.
    """
    parts = 1 if unit is None else int(_points(test) / unit)
    status = _exercism_status(test["outcome"])
    passed = test["outcome"] == Outcome.PASSED
    feedback = None if passed else _feedback(test, mistakes) or "this check failed"
    entries = []
    for part in range(1, parts + 1):
        shown = name if parts == 1 else f"{name} (part {part} of {parts})"
        if feedback and part == 1:
            shown += "\n" + textwrap.indent(feedback, "    ")
        entries.append({
            "name": shown,
            "status": status,
            "score": test["max_score"] / parts if passed else 0.0,
            "message": feedback,
            "test_code": "",  # the reporter prints it under every test; the feedback is in the name
            "filename": test["id"].split("::", 1)[0],
            "line_no": 0,
            "execution_time": f"{test['duration_s']:.3f}s",
        })
    return entries


def to_classroom(document: dict) -> dict:
    """GitHub Classroom's runner result (what autograding-grading-reporter reads, base64-encoded)."""
    reports = _reports(document)
    many = len(reports) > 1
    statuses = [r["status"] for r in reports]
    every_test = [test for report in reports for test in report["tests"]]
    unit = _point_unit(every_test)
    return {
        "version": 1,
        "status": str(roll_up(statuses)),
        "max_score": sum(r["max_score"] for r in reports),
        "tests": [entry for report in reports for test in report["tests"]
                  for entry in _classroom_entries(test, _full_name(test, report, many), unit,
                                                  _mistakes_by_check(report).get(test["id"], []))],
    }


def to_junit(document: dict) -> str:
    """JUnit XML: one testsuite per exercise, a failure or error element per lost check."""
    # Imported here: only JUnit output needs it, and `grade` alone must start fast.
    import xml.etree.ElementTree as ET

    suites = ET.Element("testsuites")
    for report in _reports(document):
        tests = report["tests"]
        mistakes = _mistakes_by_check(report)
        suite = ET.SubElement(suites, "testsuite", {
            "name": f"{report['exercise']['id']} {report['exercise']['title']}",
            "tests": str(len(tests)),
            "failures": str(sum(t["outcome"] in (Outcome.FAILED, Outcome.TIMEOUT, Outcome.CRASHED) for t in tests)),
            "errors": str(sum(t["outcome"] == Outcome.ERROR for t in tests)),
            "time": f"{report['duration_s']:.3f}",
            "timestamp": report["started_at"],
        })
        properties = ET.SubElement(suite, "properties")
        for name in ("score", "max_score", "status", "seed"):
            ET.SubElement(properties, "property", {"name": name, "value": str(report[name])})
        if report["message"]:
            ET.SubElement(properties, "property", {"name": "message", "value": report["message"]})
        for test in tests:
            case = ET.SubElement(suite, "testcase", {
                "classname": f"{report['exercise']['id']}.{test['visibility']}",
                "name": test["name"],
                "time": f"{test['duration_s']:.3f}",
            })
            if test["outcome"] != Outcome.PASSED:
                tag = "error" if test["outcome"] == Outcome.ERROR else "failure"
                element = ET.SubElement(case, tag, {"message": (test["message"] or test["outcome"]).splitlines()[0],
                                                    "type": test["outcome"]})
                element.text = _feedback(test, mistakes.get(test["id"], []))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def render(document: dict, fmt: str = "json", hidden_visibility: str = DEFAULT_HIDDEN_VISIBILITY) -> str:
    """The native report (or `grade --all` summary) as text in format `fmt`."""
    if fmt == "junit":
        return to_junit(document)
    mappers = {"json": lambda d: d, "gradescope": lambda d: to_gradescope(d, hidden_visibility),
               "exercism": to_exercism, "classroom": to_classroom}
    if fmt not in mappers:
        raise ValueError(f"unknown report format {fmt!r}; choose one of: {', '.join(FORMATS)}")
    return json.dumps(mappers[fmt](document), indent=2, allow_nan=False) + "\n"

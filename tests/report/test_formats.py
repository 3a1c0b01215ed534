"""The report formats: each a faithful mapping of the native report that follows its own spec."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET

import pytest

from grader.catalog import Kit
from grader.report.formats import FORMATS, render, to_classroom, to_exercism, to_gradescope
from grader.grading.runner import grade
from grader.submission import Submission
from tests.conftest import REPO, TOY_KIT, run_grade

GOLDEN = REPO / "tests" / "golden"


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict:
    """Real native reports of the toy exercise: a partial solution, a full one, one that prints at import
    and one that does not import."""
    root = tmp_path_factory.mktemp("formats") / "kit"
    shutil.copytree(TOY_KIT, root, ignore=shutil.ignore_patterns("reports"))
    kit = Kit(root)
    exercise = kit.resolve("ex01")
    made = {}
    for case in ("partial_solution", "full_solution", "prints_at_import", "syntax_error"):
        path = GOLDEN / case / "toy.py"
        made[case] = grade(kit, exercise, Submission(path, "toy.py"), seed=1)
    return made


def test_json_is_the_native_report(reports, validate_report):
    assert validate_report(json.loads(render(reports["partial_solution"], "json"))) == reports["partial_solution"]


def test_gradescope_keeps_every_score_and_the_total(reports):
    native = reports["partial_solution"]
    result = to_gradescope(native)
    assert result["score"] == native["score"] == 4
    assert result["max_score"] == 8
    assert isinstance(result["execution_time"], float)
    assert [t["score"] for t in result["tests"]] == [t["score"] for t in native["tests"]]
    assert [t["max_score"] for t in result["tests"]] == [t["max_score"] for t in native["tests"]]
    assert {t["status"] for t in result["tests"]} == {"passed", "failed"}
    assert all(t["visibility"] in ("visible", "hidden", "after_due_date", "after_published") for t in result["tests"])
    pair = next(t for t in result["tests"] if t["name"] == "pair is a tuple")
    assert "assert [7, 7] == (7, 7)" in pair["output"]
    add = result["tests"][0]
    assert add["status"] == "passed" and "adding 2 3" in add["output"]


# The fields of Gradescope's results.json spec (gradescope/autograder_samples, docs/specs.md, 2025).
GRADESCOPE_TOP_FIELDS = {"score", "execution_time", "output", "output_format", "test_output_format",
                         "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
GRADESCOPE_TEST_FIELDS = {"score", "max_score", "status", "name", "name_format", "number", "output",
                          "output_format", "tags", "visibility", "extra_data"}
GRADESCOPE_VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
GRADESCOPE_FORMATS = {"text", "html", "simple_format", "md", "ansi"}


@pytest.mark.parametrize("case", ["partial_solution", "full_solution", "syntax_error"])
def test_gradescope_uses_only_the_specs_fields_and_values(reports, case):
    result = to_gradescope(reports[case])
    # max_score at the top is read by Gradescope though the spec's sample leaves it out.
    assert set(result) <= GRADESCOPE_TOP_FIELDS | {"max_score"}
    assert result["visibility"] in GRADESCOPE_VISIBILITY and result["stdout_visibility"] in GRADESCOPE_VISIBILITY
    assert {result[f] for f in ("output_format", "test_output_format", "test_name_format")} <= GRADESCOPE_FORMATS
    for test in result["tests"]:
        assert set(test) <= GRADESCOPE_TEST_FIELDS
        assert test["status"] in ("passed", "failed") and test["visibility"] in GRADESCOPE_VISIBILITY
        assert isinstance(test["output"], str) and "\r" not in test["output"]  # the spec asks for \n endings


def test_gradescope_hidden_checks_follow_the_chosen_visibility(reports):
    native = reports["partial_solution"]
    for chosen in ("after_due_date", "after_published", "hidden", "visible"):
        result = to_gradescope(native, chosen)
        for mapped, test in zip(result["tests"], native["tests"]):
            assert mapped["visibility"] == ("visible" if test["visibility"] == "public" else chosen)
    assert {t["visibility"] for t in to_gradescope(native)["tests"]} == {"visible", "after_due_date"}
    with pytest.raises(ValueError, match="unknown Gradescope visibility 'soon'"):
        to_gradescope(native, "soon")


def test_hidden_visibility_goes_only_with_the_gradescope_format(toy_kit, tmp_path):
    out = tmp_path / "results.json"
    ok = run_grade("ex01", "--solution", "--format", "gradescope", "--hidden-visibility", "hidden",
                   "--output", str(out), cwd=toy_kit.root)
    assert ok.returncode == 0, ok.stderr
    assert "hidden" in {t["visibility"] for t in json.loads(out.read_text())["tests"]}
    refused = run_grade("ex01", "--solution", "--format", "exercism", "--hidden-visibility", "hidden", cwd=toy_kit.root)
    assert refused.returncode == 2
    assert refused.stderr.strip().endswith("it goes with --format gradescope, not --format exercism")


def test_gradescope_error_report_says_why(reports):
    result = to_gradescope(reports["syntax_error"])
    assert result["score"] == 0 and "SyntaxError" in result["output"]


def test_gradescope_output_carries_what_the_module_printed_at_import_after_the_message(reports):
    heading = "Your module printed while it was imported:"
    printed = "trying add: 5\npair of 7 is (7, 7)\na warning on stderr"
    assert to_gradescope(reports["prints_at_import"])["output"] == f"{heading}\n{printed}"
    assert to_gradescope(reports["full_solution"])["output"] == ""
    failed = reports["syntax_error"]
    failed = {**failed, "submission": {**failed["submission"], "import_output": "loading\n"}}
    assert to_gradescope(failed)["output"] == f"{failed['message']}\n{heading}\nloading"


def test_exercism_v3_follows_the_interface(reports):
    result = to_exercism(reports["partial_solution"])
    assert result["version"] == 3 and result["status"] == "fail" and result["message"] is None
    for test in result["tests"]:
        assert set(test) <= {"name", "status", "message", "output", "test_code", "task_id"}
        assert test["status"] in ("pass", "fail", "error")
        assert (test["message"] is None) == (test["status"] == "pass")
        assert len(test.get("output", "")) <= 500
        assert test["test_code"]
    public = result["tests"][1]
    assert "def test_pair_is_a_tuple(student):" in public["test_code"]
    hidden = [t for t in result["tests"] if "hidden" in t["test_code"]]
    assert len(hidden) == 4 and not any("rng.randint" in t["test_code"] for t in hidden)


def test_exercism_error_needs_a_message(reports):
    result = to_exercism(reports["syntax_error"])
    assert result["status"] == "error" and "SyntaxError" in result["message"]


def test_exercism_caps_output_at_500_characters(reports):
    native = json.loads(json.dumps(reports["partial_solution"]))
    native["tests"][0]["output"] = "x" * 1500
    assert len(to_exercism(native)["tests"][0]["output"]) == 500


def test_classroom_runner_result(reports):
    result = to_classroom(reports["partial_solution"])
    assert result["version"] == 1 and result["status"] == "fail" and result["max_score"] == 8
    assert sum(t["score"] for t in result["tests"]) == 4
    assert all(t["status"] in ("pass", "fail", "error") for t in result["tests"])
    assert to_classroom(reports["full_solution"])["status"] == "pass"
    assert to_classroom(reports["syntax_error"])["status"] == "error"


def _with_points(report: dict, points: list[float]) -> dict:
    """The report with its checks worth `points`, a passed check scoring them all."""
    tests = [{**test, "max_score": worth, "score": worth if test["outcome"] == "passed" else 0.0}
             for test, worth in zip(report["tests"], points)]
    return {**report, "tests": tests, "max_score": sum(points), "score": sum(t["score"] for t in tests)}


@pytest.mark.parametrize("points, entries", [
    ([1, 2, 1, 1, 2, 1], 8),                 # whole points: one entry per point
    ([0.5, 1.5, 1, 0.5, 0.5, 1], 10),        # halves: one entry per half point
    ([1 / 3, 2 / 3, 1, 1, 1, 1], 15),        # thirds, however they were rounded
    ([20, 0.01, 1, 1, 1, 1], 6),             # 2,301 hundredths would be too many: one entry per check
])
def test_classroom_entries_of_equal_weight_add_up_to_the_score(reports, points, entries):
    native = _with_points(reports["partial_solution"], points)
    result = to_classroom(native)
    assert len(result["tests"]) == entries
    assert sum(t["score"] for t in result["tests"]) == pytest.approx(native["score"])
    if entries > len(points):  # the reporter's formula: passed entries / all entries x max_score
        passed = sum(t["status"] == "pass" for t in result["tests"])
        assert passed / len(result["tests"]) * result["max_score"] == pytest.approx(native["score"])


def test_junit_counts_failures_and_errors(reports):
    suites = ET.fromstring(render(reports["partial_solution"], "junit"))
    suite = suites.find("testsuite")
    assert suite.get("tests") == "6" and suite.get("failures") == "3" and suite.get("errors") == "0"
    properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert properties["score"] == "4.0" and properties["max_score"] == "8.0"
    failed = [case.get("name") for case in suite.findall("testcase") if case.find("failure") is not None]
    assert failed == ["pair is a tuple", "tag rejects a negative number", "push appends to the list it is given"]
    broken = ET.fromstring(render(reports["syntax_error"], "junit")).find("testsuite")
    assert broken.get("errors") == "6"


def test_unknown_format_is_refused(reports):
    with pytest.raises(ValueError, match="unknown report format 'yaml'"):
        render(reports["full_solution"], "yaml")


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_through_the_cli(fmt, toy_kit, tmp_path):
    out = tmp_path / f"report.{fmt}"
    result = run_grade("ex01", "--solution", "--format", fmt, "--output", str(out), cwd=toy_kit.root)
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    if fmt == "junit":
        assert ET.fromstring(text).find("testsuite").get("failures") == "0"
    else:
        assert json.loads(text)


def test_a_grade_all_summary_maps_every_exercise(reports, validate_report):
    from grader.report.scoring import summarize

    summary = validate_report(summarize([reports["partial_solution"], reports["full_solution"]]))
    assert (summary["score"], summary["max_score"], summary["status"]) == (12, 16, "fail")
    gradescope = to_gradescope(summary)
    assert gradescope["score"] == 12 and len(gradescope["tests"]) == 12
    assert gradescope["tests"][0]["name"] == "ex01: add of two small numbers"
    printed = to_gradescope(summarize([reports["full_solution"], reports["prints_at_import"]]))["output"]
    assert printed.startswith("ex01: Your module printed while it was imported:\ntrying add: 5\n")
    assert to_exercism(summary)["status"] == "fail"
    assert len(ET.fromstring(render(summary, "junit")).findall("testsuite")) == 2


def test_exercism_all_errors_only_when_nothing_ran(reports):
    from grader.report.scoring import summarize

    some_ran = to_exercism(summarize([reports["syntax_error"], reports["full_solution"]]))
    assert some_ran["status"] == "fail" and some_ran["message"] is None
    assert {t["status"] for t in some_ran["tests"]} == {"error", "pass"}
    all_passed = to_exercism(summarize([reports["full_solution"], reports["full_solution"]]))
    assert all_passed["status"] == "pass"
    nothing_ran = to_exercism(summarize([reports["syntax_error"], reports["syntax_error"]]))
    assert nothing_ran["status"] == "error" and "SyntaxError" in nothing_ran["message"]


PAIR_WHY = "pair returns a list where a tuple is asked for."


def test_the_diagnosis_reaches_every_format_and_gradescope_names_no_hidden_check_in_its_summary(reports):
    """The partial solution is the toy kit's wrong/pair_as_list.py: one public and two hidden checks match it."""
    report = reports["partial_solution"]
    assert [(entry["mistake"], len(entry["checks"])) for entry in report["diagnosis"]] == [("pair_as_list", 3)]
    gradescope = to_gradescope(report)
    # Shown to everyone at once (hidden checks' results may come later): public names, hidden ones counted.
    assert gradescope["output"].splitlines()[-1] == (f"Your answers match a known mistake: {PAIR_WHY} "
                                                     "(on 'pair is a tuple', 2 hidden checks)")
    matched = {test["name"] for test in gradescope["tests"] if PAIR_WHY in test["output"]}
    assert matched == {"pair is a tuple", "tag rejects a negative number", "push appends to the list it is given"}
    exercism = {test["name"]: test["message"] for test in to_exercism(report)["tests"]}
    assert exercism["pair is a tuple"].endswith(f"\nYour answers match a known mistake: {PAIR_WHY}")
    assert exercism["add of two small numbers"] is None  # passed
    classroom = [test for test in to_classroom(report)["tests"] if test["name"].startswith("pair is a tuple")]
    assert PAIR_WHY in classroom[0]["name"] and PAIR_WHY in classroom[0]["message"]
    junit = ET.fromstring(render(report, "junit"))
    assert PAIR_WHY in junit.find(".//testcase[@name='pair is a tuple']/failure").text


def test_a_report_without_a_diagnosis_still_renders(reports):
    """Reports stored before diagnoses lack the field; every format reads them as before."""
    older = {key: value for key, value in reports["partial_solution"].items() if key != "diagnosis"}
    for fmt in FORMATS:
        assert PAIR_WHY not in render(older, fmt)

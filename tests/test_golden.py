"""Golden reports: each fixture submission of the toy exercise must give exactly its expected report.

Each folder in tests/golden/ holds a submission (toy.py, toy.ipynb, submission.zip or submission/) and
expected.json. Fields that change from run to run (times, the machine) are left out of the
comparison. After a deliberate change, regenerate with UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py
and read the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from grader.sandbox.reaper import LINUX_MECHANISMS_ENV
from grader.grading.runner import grade
from grader.submission import Submission

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())


def stable_view(report: dict) -> dict:
    """The report without the fields that differ between runs and machines."""
    view = {key: value for key, value in report.items() if key not in ("started_at", "duration_s", "environment")}
    view["tests"] = [{k: v for k, v in test.items() if k != "duration_s"} for test in report["tests"]]
    return view


def submission_in(case: Path) -> Path:
    for name in ("toy.py", "toy.ipynb", "submission.zip", "submission"):
        if (case / name).exists():
            return case / name
    raise AssertionError(f"{case} holds no submission")


@pytest.mark.parametrize("case", CASES)
def test_golden_report(case, toy_kit, validate_report):
    folder = GOLDEN / case
    path = submission_in(folder)
    report = grade(toy_kit, toy_kit.resolve("ex01"), Submission(path, path.name), seed=1)
    validate_report(report)
    got = stable_view(report)
    expected_path = folder / "expected.json"
    if os.environ.get("UPDATE_GOLDEN"):
        expected_path.write_text(json.dumps(got, indent=2) + "\n", encoding="utf-8")
    assert got == json.loads(expected_path.read_text(encoding="utf-8"))


def test_every_case_has_an_expected_report():
    missing = [case for case in CASES if not (GOLDEN / case / "expected.json").is_file()]
    assert missing == []


@pytest.mark.parametrize("case", CASES)
def test_golden_report_without_the_linux_mechanisms(case, toy_kit, validate_report, monkeypatch):
    """The path macOS takes: no pidfd, /proc, prctl, cgroups or CPU pinning; the same report, and the
    environment says what did not hold."""
    monkeypatch.setenv(LINUX_MECHANISMS_ENV, "off")
    folder = GOLDEN / case
    path = submission_in(folder)
    report = grade(toy_kit, toy_kit.resolve("ex01"), Submission(path, path.name), seed=1)
    validate_report(report)
    assert stable_view(report) == json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    sandbox = report["environment"]["sandbox"]
    if "memory_cgroup" in sandbox:  # a submission that was never laid out never reached a sandbox
        assert sandbox["memory_cgroup"] is False
        # As root, escaped processes are still killed by uid; otherwise only a subreaper finds them.
        assert sandbox["escapees_killed"] is (os.geteuid() == 0)
    if sandbox.get("limits_held"):  # the worker's own facts, sent once it started
        assert sandbox["limits_held"]["die_with_parent"] is False

"""The grader run by an ordinary user: no uid drop, so the subreaper and kill_children clean up.

Everything else in the kit's tests runs as root, where each worker gets its own uid and is
killed by uid. On a student's own machine the grader is an ordinary user; there workers run
as that user, escaped processes are reparented to the grading process (a child subreaper), and
`kill_children` ends them. These tests make that path real: as root they lay out a world-readable
copy of the grader, its libraries and the toy kit, and grade as an unprivileged uid outside the
worker range.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from grader.sandbox import choose_interpreter, uid_range
from tests.conftest import TOY_KIT

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching to an ordinary user needs root")

# Libraries the grading process imports (pytest and its plugins, rich), found where this
# interpreter finds them; the copy is world-readable, unlike a venv under an owner-only folder.
LIBRARIES = ("pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "pytest_timeout", "pytest_jsonreport",
             "pytest_metadata", "rich", "markdown_it", "mdurl", "pygments")
HOSTILE = Path(__file__).parent / "hostile"
TOY_REFERENCE = TOY_KIT / "solutions" / "ex01_toy" / "toy.py"


def _ordinary_uid() -> int:
    """A uid outside the worker range, so the grader's own sweeps never touch it."""
    low, high = uid_range()
    return high + 500 if high + 500 < 65534 else low - 500


def _origin(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin, f"{name} is not importable"
    origin = Path(spec.origin)
    return origin.parent if origin.name == "__init__.py" else origin


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    """A world-readable grader, libraries and toy kit, the kit owned by the ordinary user."""
    uid = _ordinary_uid()
    root = tmp_path_factory.mktemp("unprivileged")
    site = root / "site"
    site.mkdir()
    for name in (*LIBRARIES, "grader"):
        origin = _origin(name)
        target = site / origin.name
        if origin.is_dir():
            shutil.copytree(origin, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(origin, target)
    kit = root / "kit"
    shutil.copytree(TOY_KIT, kit, ignore=shutil.ignore_patterns("reports", "__pycache__"))
    for folder, _, files in os.walk(root):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    for folder, _, files in os.walk(kit):
        os.chown(folder, uid, uid)
        for name in files:
            os.chown(os.path.join(folder, name), uid, uid)
    for parent in root.parents:  # pytest's temporary folders are owner-only by default
        if parent == Path(parent.anchor) or os.stat(parent).st_mode & 0o001:
            continue
        os.chmod(parent, os.stat(parent).st_mode | 0o005)
    return uid, site, kit


def _processes_of(uid: int) -> list[int]:
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        line = next((line for line in text.splitlines() if line.startswith("Uid:")), "")
        if line.split()[1:2] == [str(uid)]:
            found.append(int(status.parent.name))
    return found


def _grade_as(layout, attack: Path, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    uid, site, kit = layout
    submission = kit / "submission.py"
    shutil.copyfile(attack, submission)
    os.chown(submission, uid, uid)
    report_path = kit / "report.json"
    # An interpreter an unrelated uid can run, as the sandbox itself would choose for its workers.
    interpreter, warning = choose_interpreter(drop_privileges=True)
    assert warning is None, warning
    env = {"PATH": "/usr/bin:/bin", "HOME": str(kit), "PYTHONPATH": str(site), "LANG": "C.UTF-8"}
    result = subprocess.run(
        [interpreter, "-m", "grader.cli",
         "ex01", "--kit", str(kit), "--submission", str(submission), "--output", str(report_path), *extra],
        env=env, cwd=kit, user=uid, group=uid, extra_groups=[], capture_output=True, text=True, timeout=180)
    assert report_path.is_file(), result.stderr
    return result, json.loads(report_path.read_text())


def _wait_for_none(uid: int) -> list[int]:
    deadline = time.monotonic() + 5
    while _processes_of(uid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _processes_of(uid)


def test_an_ordinary_user_grades_as_itself_with_no_warning(layout, validate_report):
    uid = layout[0]
    result, report = _grade_as(layout, TOY_REFERENCE)
    validate_report(report)
    sandbox = report["environment"]["sandbox"]
    assert sandbox["privileges_dropped"] is False and sandbox["uid"] == uid
    assert sandbox["memory_cgroup"] is False
    # Nothing was weakened: an ordinary user has no privileges to drop, so there is no warning.
    assert sandbox["warning"] is None and "warning" not in result.stderr
    assert report["score"] == report["max_score"] == 8, result.stdout
    assert _wait_for_none(uid) == []


def test_escaped_sleepers_die_with_the_grade_without_a_uid_drop(layout, validate_report):
    uid = layout[0]
    result, report = _grade_as(layout, HOSTILE / "fork_sleepers.py")
    validate_report(report)
    assert report["score"] == report["max_score"] == 8, result.stderr
    assert _wait_for_none(uid) == []


def test_a_hung_submission_is_killed_without_a_uid_drop(layout, validate_report):
    uid = layout[0]
    result, report = _grade_as(layout, HOSTILE / "ignore_signals_then_loop.py")
    validate_report(report)
    # Its docstring gives the honest score: the checks that never call the looping add pass.
    assert report["score"] == 4 and "timeout" in {test["outcome"] for test in report["tests"]}
    assert _wait_for_none(uid) == []

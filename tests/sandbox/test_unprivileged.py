"""The grader run by an ordinary user: no uid drop, so the grade's reaper and kill_children clean up.

Most of the kit's tests run as root in CI, where each worker gets its own uid and is killed by
uid. On a student's own machine the grader is an ordinary user: workers run as that user, a
grade's escaped processes are reparented to that grade's reaper (a child subreaper), and the
reaper kills them when the grade ends, sparing every other grade of the same `grade` process.

Run as root, these tests lay out a world-readable copy of the grader, its libraries and the toy
kit, and run `grade` as an unprivileged uid outside the worker range. Run as an ordinary user (as
.ci/run also does), they run `grade` as that user itself. Either way `grade` runs as an ordinary
user, in a subprocess, exactly as a student runs it.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.sandbox.isolation import choose_interpreter, uid_range
from tests.conftest import TOY_KIT, namespaces_work

# Run again as an ordinary user by .ci/run (python -m pytest -m ordinary_user): what a uid without root meets.
pytestmark = pytest.mark.ordinary_user

AS_ROOT = os.geteuid() == 0
# Libraries the grading process imports (pytest and its plugins, rich), found where this
# interpreter finds them; the copy is world-readable, unlike a venv under an owner-only folder.
LIBRARIES = ("pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "pytest_timeout", "pytest_jsonreport",
             "pytest_metadata", "rich", "markdown_it", "mdurl", "pygments",
             # grade batch's class page (Jinja2, matplotlib and what matplotlib loads)
             "jinja2", "markupsafe", "matplotlib", "numpy", "PIL", "kiwisolver", "contourpy", "cycler", "dateutil",
             "pyparsing", "fontTools",
             # notebooks (nbformat and its validator)
             "nbformat", "fastjsonschema", "jsonschema", "jsonschema_specifications", "referencing", "rpds", "attr",
             "attrs", "traitlets", "idna", "typing_extensions",
             # grade batch's similar submissions (copydetect loads matplotlib's pyplot, and tqdm)
             "copydetect", "tqdm", "mpl_toolkits")
# Shared libraries that some wheels keep beside their package, not inside it.
BUNDLED = {"numpy": "numpy.libs", "PIL": "pillow.libs"}
HOSTILE = Path(__file__).resolve().parent.parent / "hostile"
TOY_SOLUTIONS = TOY_KIT / "solutions" / "ex01_toy"


def _ordinary_uid() -> int:
    """A uid outside the worker range, so the grader's own sweeps never touch it."""
    low, high = uid_range()
    return high + 500 if high + 500 < 65534 else low - 500


def _origin(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    assert spec is not None, f"{name} is not importable"
    if spec.origin is None:  # a namespace package (mpl_toolkits): its one folder
        return Path(next(iter(spec.submodule_search_locations)))
    origin = Path(spec.origin)
    return origin.parent if origin.name == "__init__.py" else origin


def _open_up(root: Path) -> None:
    """Make a tree world-readable, and the folders above it traversable (pytest's are owner-only)."""
    for folder, _, files in os.walk(root):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    for parent in root.parents:
        if parent == Path(parent.anchor) or os.stat(parent).st_mode & 0o001:
            continue
        os.chmod(parent, os.stat(parent).st_mode | 0o005)


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    """The uid `grade` runs as, the command that starts it, its environment, and a toy kit it owns."""
    root = tmp_path_factory.mktemp("unprivileged")
    kit = root / "kit"
    shutil.copytree(TOY_KIT, kit, ignore=shutil.ignore_patterns("reports", "__pycache__"))
    if not AS_ROOT:  # already an ordinary user: this interpreter, its own environment
        return os.getuid(), [sys.executable, "-m", "grader.cli"], {**os.environ, "HOME": str(kit)}, kit
    uid = _ordinary_uid()
    site = root / "site"
    site.mkdir()
    for name in (*LIBRARIES, "grader"):
        origin = _origin(name)
        target = site / origin.name
        if origin.is_dir():
            shutil.copytree(origin, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(origin, target)
        bundled = origin.parent / BUNDLED.get(name, "")
        if name in BUNDLED and bundled.is_dir():
            shutil.copytree(bundled, site / bundled.name)
    _open_up(root)
    for folder, _, files in os.walk(kit):
        os.chown(folder, uid, uid)
        for name in files:
            os.chown(os.path.join(folder, name), uid, uid)
    # An interpreter an unrelated uid can run, as the sandbox itself would choose for its workers.
    interpreter, warning = choose_interpreter(drop_privileges=True)
    assert warning is None, warning
    env = {"PATH": "/usr/bin:/bin", "HOME": str(kit), "PYTHONPATH": str(site), "LANG": "C.UTF-8"}
    return uid, [interpreter, "-m", "grader.cli"], env, kit


def _grade(layout, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `grade ARGS` in the kit as the ordinary user."""
    uid, command, env, kit = layout
    switch = {"user": uid, "group": uid, "extra_groups": []} if AS_ROOT else {}
    return subprocess.run([*command, *args, "--kit", str(kit)], env=env, cwd=kit, capture_output=True, text=True,
                          timeout=timeout, **switch)


def _own(layout, path: Path) -> None:
    """Give a file, or a folder and all it holds, to the ordinary user (who owns it already, unless root)."""
    if not AS_ROOT:
        return
    uid = layout[0]
    if path.is_file():
        os.chown(path, uid, uid)
        return
    for folder, _, files in os.walk(path):
        os.chown(folder, uid, uid)
        for name in files:
            os.chown(os.path.join(folder, name), uid, uid)


def _grade_file(layout, source: Path, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    kit = layout[3]
    submission = kit / "submission.py"
    shutil.copyfile(source, submission)
    _own(layout, submission)
    report_path = kit / "report.json"
    result = _grade(layout, "ex01", "--submission", str(submission), "--output", str(report_path), *extra)
    assert report_path.is_file(), result.stderr
    return result, json.loads(report_path.read_text())


def _workers() -> dict[int, int]:
    """Every process that carries a worker's settings (workers and their forks): pid -> its grade_pid."""
    found = {}
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = [arg for arg in cmdline.read_bytes().split(b"\0") if arg]
            settings = json.loads(args[-1]) if args and args[-1].startswith(b"{") else None
        except (OSError, ValueError):
            continue
        if isinstance(settings, dict) and "grade_pid" in settings:
            found[int(cmdline.parent.name)] = settings["grade_pid"]
    return found


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


@pytest.fixture
def nothing_left(layout):
    """After the test: no process of the test's grades is alive (every one of them has ended)."""
    before = set(_workers())
    yield

    def left() -> list[int]:
        if AS_ROOT:  # the whole uid belongs to these tests
            return _processes_of(layout[0])
        return sorted(set(_workers()) - before)

    deadline = time.monotonic() + 5  # a killed orphan may take a moment to leave /proc
    while left() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left() == [], "processes of these grades outlived them"


def test_an_ordinary_user_grades_as_itself_with_no_warning(layout, nothing_left, validate_report):
    result, report = _grade_file(layout, TOY_SOLUTIONS / "toy.py")
    validate_report(report)
    sandbox = report["environment"]["sandbox"]
    assert sandbox["privileges_dropped"] is False and sandbox["uid"] == layout[0]
    assert sandbox["memory_cgroup"] is False
    assert sandbox["escapees_killed"] is True  # by the reaper, on Linux
    # Where the kernel lets an ordinary user have a user namespace, the worker gets its others inside one.
    expected = namespaces_work(layout[0])
    assert sandbox["namespaces"] == dict.fromkeys(("net", "ipc", "mnt", "pid"), expected)
    # Nothing was weakened: an ordinary user has no privileges to drop, so there is no warning.
    assert sandbox["warning"] is None and "warning" not in result.stderr
    assert report["score"] == report["max_score"] == 8, result.stdout


def test_escaped_sleepers_die_with_the_grade_without_a_uid_drop(layout, nothing_left, validate_report):
    result, report = _grade_file(layout, HOSTILE / "fork_sleepers.py")
    validate_report(report)
    assert report["score"] == report["max_score"] == 8, result.stderr


def test_a_hung_submission_is_killed_without_a_uid_drop(layout, nothing_left, validate_report):
    result, report = _grade_file(layout, HOSTILE / "ignore_signals_then_loop.py")
    validate_report(report)
    # Its docstring gives the honest score: the checks that never call the looping add pass.
    assert report["score"] == 4 and "timeout" in {test["outcome"] for test in report["tests"]}


def test_grade_check_with_parallel_grades_passes(layout, nothing_left):
    """The reference, the alt, the stub and the wrong solution graded two at a time in one process."""
    result = _grade(layout, "check", "ex01", "--seeds", "1,2,3", "--jobs", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "reference 8/8" in result.stdout and "exited with -9" not in result.stdout + result.stderr


def test_a_class_with_killers_and_hangs_is_marked_right_two_at_a_time(layout, nothing_left):
    """Each grade's cleanup (timeouts, escaped sleepers) runs while the other job is grading."""
    kit = layout[3]
    classroom = kit / "classroom"
    submissions = {
        "ada": (TOY_SOLUTIONS / "toy.py", 8), "bob": (HOSTILE / "fork_sleepers.py", 8),
        "cy": (HOSTILE / "ignore_signals_then_loop.py", 4), "dee": (TOY_SOLUTIONS / "alt" / "plain.py", 8),
        "eve": (HOSTILE / "python_infinite_loop.py", 3), "fay": (TOY_SOLUTIONS / "wrong" / "pair_as_list.py", 4),
    }
    for name, (source, _) in submissions.items():
        (classroom / name).mkdir(parents=True)
        shutil.copyfile(source, classroom / name / "toy.py")
    _own(layout, classroom)
    out = kit / "marks"
    result = _grade(layout, "batch", str(classroom), "--exercise", "ex01", "--jobs", "2", "--out", str(out),
                    "--seed", "1")
    assert result.returncode == 0, result.stdout + result.stderr
    with open(out / "grades.csv", newline="") as handle:
        marks = {row["student"]: float(row["ex01"]) for row in csv.DictReader(handle)}
    assert marks == {name: float(score) for name, (_, score) in submissions.items()}
    for name in submissions:
        assert json.loads((out / "students" / name / "ex01.json").read_text())["status"] != "error", name

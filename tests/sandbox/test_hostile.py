"""The hostile corpus: every attack in tests/hostile/ scores only what it honestly earns.

Each file in tests/hostile/ is a toy.py for the toy exercise (ex01, 8 points), named for its
attack, whose docstring says what it tries and what it should score. Each is graded once, with
seed 1, through grader.grading.runner.grade, exactly as `grade` does. For every attack this asserts:

(a) the exact score it honestly earns: the checks it may pass are listed below, every other check
    scores 0 with one of the listed outcomes;
(b) the report is complete (every check, in report order, with its points) and schema-valid,
    and small however much the submission printed or returned;
(c) the grader survives: `grade` returns, every check reaches a verdict, the outer limit never
    fires, and the report's environment is the sandbox's own;
(d) nothing is left behind: as root, no process of the worker uid range 61000-61999 that started
    since the attack began, whatever it runs now (without root, none that a worker's command line
    ties to this test's grades), and as many children of this test process as before.

An environment canary is set in the grader's environment for every attack and must never reach
the report. Two more tests grade two submissions at the same time (the attacker must not touch its
neighbour), and grade after a killed grading process left a worker home behind. A hole found in the grader is marked xfail(strict=True) with the exact Hole it
raises, so the case turns red when the hole is fixed (then drop the mark) and any other failure
still fails. The attacks that rely on the uid drop (secrets, signals, /proc) run only as root.
"""

from __future__ import annotations

import ast
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from grader.classroom.batch import find_students, run_batch
from grader.catalog import Kit
from grader.outcomes import Regraded
from grader.grading.pytest_run import RUN_SLACK
from grader.grading.runner import grade
from grader.submission import Submission
from grader.report.scoring import MESSAGE_CAP
from grader.sandbox.isolation import SandboxError, UidLease, uid_range
from grader.sandbox.process import IMPORT_TIMEOUT, NAMESPACES_ENV
from tests import leftovers
from tests.conftest import REPO, TOY_KIT, memory_cgroups_work, namespaces_work

# Run again as an ordinary user by .ci/run (python -m pytest -m ordinary_user): what a uid without root meets.
pytestmark = pytest.mark.ordinary_user

HOSTILE = Path(__file__).resolve().parent.parent / "hostile"
AS_ROOT = os.geteuid() == 0

# The toy exercise's checks in report order (public first), with their points: 8 in all.
POINTS = {
    "add of two small numbers": 2.0,
    "pair is a tuple": 1.0,
    "add of random integers #1": 1.0,
    "add of random integers #2": 1.0,
    "tag rejects a negative number": 2.0,
    "push appends to the list it is given": 1.0,
}
ADD = ("add of two small numbers", "add of random integers #1", "add of random integers #2")
PAIR = ("pair is a tuple",)
TAG = ("tag rejects a negative number",)
PUSH = ("push appends to the list it is given",)
ALL = ADD + PAIR + TAG + PUSH
# The runner's outer wall-clock limit for the toy: six checks of check_timeout 10 s, plus the import and slack.
OUTER_LIMIT = len(POINTS) * 10.0 + IMPORT_TIMEOUT + RUN_SLACK


class Hole(AssertionError):
    """The grader broke one of its promises; each subclass names which."""


class DishonestScore(Hole):
    """A score other than the one the submission honestly earns."""


class GraderCrashed(Hole):
    """The grading process died, hung or stopped counting: a check never reached a verdict."""


class ForgedEnvironment(Hole):
    """The report's environment says what the student's code told it, not what the sandbox was."""


class ProcessLeftBehind(Hole):
    """A process the submission started outlived its grade."""


class MemoryNotBounded(Hole):
    """The worker's processes together held more memory than the exercise's memory_mb."""


class FilesLeftBehind(Hole):
    """A file the submission wrote outside its private folder outlived its grade."""


class DiskNotCapped(Hole):
    """What the worker wrote in its own folder was not bounded by a cap of its own."""


class SecretLeaked(Hole):
    """Something secret (hidden checks, solutions, the grader's environment, hidden inputs) got out."""


@dataclass(frozen=True)
class Attack:
    file: str
    score: float
    passes: tuple[str, ...]  # the checks it honestly passes; every other check must score 0 ...
    outcomes: tuple[str, ...]  # ... with one of these outcomes
    status: str = "fail"
    says: str | None = None  # words that must appear in the report (proof the attack really ran)
    root_only: bool = False
    extra: str | None = None  # the name of a further check, below


# -- the corpus: file, honest score, the checks it may pass, the outcomes of the others -------------
# `extra` names a further check, defined below, for what only that attack can show.

TIMEOUT, CRASHED, FAILED, ERROR = "timeout", "crashed", "failed", "error"

ATTACKS = [
    Attack("exit_at_import_os_exit.py", 0, (), (ERROR,), status="error", says="exited with status 0"),
    Attack("exit_at_import_sys_exit.py", 0, (), (ERROR,), status="error", says="SystemExit"),
    Attack("exit_in_call_os_exit.py", 0, (), (CRASHED,), says="exited with status 0"),
    Attack("exit_in_call_sys_exit.py", 0, (), (FAILED,), says="your code raised SystemExit"),
    Attack("keyboard_interrupt.py", 0, (), (FAILED,), says="your code raised KeyboardInterrupt"),
    Attack("custom_base_exception.py", 0, (), (FAILED,), says="your code raised Escape"),
    Attack("kill_the_grader.py", 8, ALL, (), status="pass", root_only=True),
    Attack("ignore_signals_then_loop.py", 4, PAIR + TAG + PUSH, (TIMEOUT,), says="add did not return within 1 s"),
    Attack("python_infinite_loop.py", 3, TAG + PUSH, (TIMEOUT,), says="pair did not return within 1 s"),
    Attack("c_infinite_loop.py", 4, PAIR + TAG + PUSH, (TIMEOUT,)),
    Attack("catastrophic_regex.py", 4, PAIR + TAG + PUSH, (TIMEOUT,)),
    Attack("swallow_every_exception.py", 4, PAIR + TAG + PUSH, (TIMEOUT,)),
    Attack("long_sleep.py", 2, PAIR + PUSH, (TIMEOUT,), says="tag did not return within 1 s"),
    # On a loaded machine building the 200,000 maps can outlast the 1 s deadline: a timeout then.
    Attack("deep_recursion_segfault.py", 4, PAIR + TAG + PUSH, (CRASHED, TIMEOUT)),
    Attack("memory_bomb.py", 4, PAIR + TAG + PUSH, (FAILED,), says="MemoryError", extra="_memory_limit_held"),
    Attack("fork_memory_bomb.py", 8, ALL, (), status="pass", extra="_memory_bounded_per_worker"),
    Attack("fork_sleepers.py", 8, ALL, (), status="pass"),
    Attack("escape_and_exec.py", 8, ALL, (), status="pass"),
    Attack("lingering_threads.py", 8, ALL, (), status="pass"),
    Attack("flood_output.py", 7, ADD + TAG + PUSH, (CRASHED,), says="SIGXFSZ", extra="_output_capped"),
    # Encoding 10**9 shared items stops at the 2,000,000-item cap, or at the deadline if slower.
    Attack("huge_return_values.py", 0, (), (FAILED, TIMEOUT), says="add returned a value too large"),
    Attack("nan_and_infinity.py", 0, (), (FAILED,), says="assert nan == 5"),
    Attack("deeply_nested_return.py", 0, (), (FAILED,), says="nested more than 1500 levels deep"),
    Attack("forged_equality.py", 0, (), (FAILED,), says="returned a value that is not plain data"),
    Attack("patch_pytest_and_gc.py", 0, (), (FAILED, CRASHED), says="broke the channel", extra="_found_no_checks"),
    Attack("read_caller_frames.py", 0, (), (FAILED,), extra="_only_the_worker_on_the_stack"),
    Attack("fake_report_output.py", 0, (), (FAILED,), says="8 passed in 0.01s"),
    Attack("forged_frames.py", 0, (), (CRASHED, FAILED)),
    Attack("forged_frame_of_many_values.py", 0, (), (CRASHED,), says="more values than 2,000,000 items can make"),
    Attack("forged_malformed_ready.py", 0, (), (ERROR,), status="error", says="start-up messages are malformed"),
    Attack("leak_hidden_inputs.py", 1, PAIR, (FAILED,), extra="_hidden_inputs_not_shown"),
    Attack("environment_canary.py", 0, (), (FAILED,), root_only=True, extra="_environment_is_the_workers"),
    Attack("read_secrets.py", 0, (), (FAILED,), root_only=True, extra="_every_secret_denied"),
    Attack("rewrite_reports.py", 0, (), (FAILED,), root_only=True, extra="_no_report_rewritten"),
    Attack("own_conftest_and_pytest.py", 0, (), (FAILED,), extra="_conftest_and_pytest_inert"),
    Attack("litter_shared_tmp.py", 8, ALL, (), status="pass", extra="_no_litter"),
    Attack("leave_ipc_behind.py", 8, ALL, (), status="pass", extra="_no_ipc_left"),
    Attack("send_inputs_over_the_network.py", 8, ALL, (), status="pass", extra="_nothing_reached_the_host"),
    # Kernel keys and the worker's own disk: tests/sandbox/test_kernel_state.py grades these again, closer.
    Attack("carry_inputs_in_kernel_keys.py", 6, ADD + PAIR + PUSH, (CRASHED,), says="KEY CALLS EPERM EPERM"),
    Attack("fill_the_worker_disk.py", 8, ALL, (), status="pass", extra="_disk_capped"),
    # Channels into a hidden check's entry; test_hidden_entries_carry_no_number_the_worker_chose grades each twice.
    Attack("hidden_channel_frame_size.py", 1, PAIR, (CRASHED,), says="announced a 2,000,054,321-byte message"),
    Attack("hidden_channel_json_position.py", 1, PAIR, (CRASHED,), says="line 54322 column 1"),
    Attack("hidden_channel_raised_where.py", 1, PAIR, (FAILED,), says="toy.py line 54322 in raise_54321"),
    Attack("hidden_channel_how_it_ended.py", 1, PAIR, (CRASHED, FAILED), says="exited with status 122"),
]
# The number each hidden-channel attack spells, unless a test chooses another.
NUMBER = 54321

# Holes that stay open where the grader cannot reach what closes them.
HOLES = {}
if not memory_cgroups_work():
    HOLES["fork_memory_bomb.py"] = (MemoryNotBounded, (
        "without a memory cgroup (root and a mounted memory controller), memory_mb is RLIMIT_AS, which "
        "bounds each process, and every forked child gets its own: one worker can hold PROCESS_LIMIT x "
        "memory_mb"))

if not namespaces_work():
    HOLES["fill_the_worker_disk.py"] = (DiskNotCapped, (
        "without a mount namespace the worker's folder is a folder on the machine's disk, bounded only by "
        "RLIMIT_FSIZE per file"))
    HOLES["send_inputs_over_the_network.py"] = (SecretLeaked, (
        "without a network namespace (Linux, and root or an unprivileged user namespace) the worker "
        "shares the machine's network, loopback included"))
    if not AS_ROOT:
        HOLES["litter_shared_tmp.py"] = (FilesLeftBehind, (
            "without root or a mount namespace the worker keeps the grader's uid and shares /tmp, so its "
            "files there cannot be told from the grader's and are not swept"))
        HOLES["leave_ipc_behind.py"] = (FilesLeftBehind, (
            "without root or an IPC namespace the worker keeps the grader's uid, so its SysV objects cannot "
            "be told from the grader's and are not swept"))

# -- the further checks that the table names -----------------------------------------------------


def _public(report: dict, name: str) -> dict:
    """The report's entry for the check of that name (the public ones show the student's output)."""
    return next(test for test in report["tests"] if test["name"] == name)


def _disk_capped(report, ctx):
    printed = report["submission"]["import_output"]
    if "RESERVED 512 MiB" in printed or "ENOSPC" not in printed:
        raise DiskNotCapped(f"the worker's folder took what it was given: {printed}")


def _memory_limit_held(report, ctx):
    assert report["environment"]["sandbox"]["limits_held"]["as"] is True


def _memory_bounded_per_worker(report, ctx):
    output = _public(report, "add of two small numbers")["output"]
    held = int(re.search(r"HELD (\d+) MiB", output).group(1))
    limit = report["environment"]["sandbox"]["memory_mb"]
    if held > limit or not report["environment"]["sandbox"]["memory_cgroup"]:
        raise MemoryNotBounded(f"the worker's children held {held} MiB besides the worker, over memory_mb {limit}")


def _output_capped(report, ctx):
    output = _public(report, "add of two small numbers")["output"]
    assert output.startswith("x" * 100) and output.endswith("[... truncated]")
    assert len(json.dumps(report)) < 16_000


def _found_no_checks(report, ctx):
    output = _public(report, "add of two small numbers")["output"]
    assert "check functions rewritten: 0" in output
    if AS_ROOT:  # the worker runs a system Python, which has no checks and no pytest of the kit
        assert "test functions rewritten: 0" in output


def _only_the_worker_on_the_stack(report, ctx):
    output = _public(report, "add of two small numbers")["output"]
    files = {line.split()[1] for line in output.splitlines() if line.startswith("FRAME ")}
    assert files and all(name.endswith(("/work/toy.py", "/worker.py", "/wire.py")) for name in files), files
    assert "SUSPECT" not in output


def _environment_is_the_workers(report, ctx):
    text = json.dumps(report)
    assert "PYTHONHASHSEED" in text  # the returned os.environ did cross, in the public message
    if "PARENT ENV DENIED PermissionError" not in _public(report, "pair is a tuple")["output"]:
        raise SecretLeaked("the worker read the grading process's /proc/<pid>/environ")


def _denial(report) -> str:
    """How a worker is kept from the machine's files: in a root of its own they are not there at all."""
    private_root = report["environment"]["sandbox"]["namespaces"].get("mnt")
    return "FileNotFoundError" if private_root else "PermissionError"


def _every_secret_denied(report, ctx):
    output = _public(report, "add of two small numbers")["output"]
    if "SUMMARY READ 0 " not in output:
        raise SecretLeaked(f"the worker read a secret file: {output}")
    for target in ctx["targets"]:
        assert f"DENIED {_denial(report)} {target}" in output, output
    # The run folders' copies were tried too; in a root of its own the worker cannot even list them.
    assert ("/pytest/checks/test_hidden.py" in output) != (_denial(report) == "FileNotFoundError"), output


def _no_report_rewritten(report, ctx):
    reports = ctx["kit"].root / "reports"
    if (reports / "ex01.json").read_text() != ctx["previous_report"] or (reports / "forged.json").exists():
        raise SecretLeaked("the worker wrote into the kit's reports/ folder")
    output = _public(report, "add of two small numbers")["output"]
    if "SUMMARY WROTE 0 " not in output:
        raise SecretLeaked(f"the worker rewrote a file it must not reach: {output}")
    denied = _denial(report)
    assert f"DENIED {denied} kit report" in output
    # In a root of its own the worker finds no run folder to try.
    assert (f"DENIED {denied} grading run" in output) != (denied == "FileNotFoundError"), output


def _conftest_and_pytest_inert(report, ctx):
    assert "fake: True" in _public(report, "add of two small numbers")["output"]  # the files were there
    for marker in Path(ctx["marker"]).parent.glob(Path(ctx["marker"]).name + ".*"):
        text = marker.read_text()
        if "/minimax-kit-worker-" not in text:  # the worker may import them (when not root, it may write here)
            raise DishonestScore(f"the grading process imported the submission's file: {text}")


def _no_litter(report, ctx):
    left = [path for folder in ("/tmp", "/var/tmp", "/dev/shm")
            for path in Path(folder).glob(f"minimax-kit-hostile-litter-{ctx['token']}-*")]
    if left:
        raise FilesLeftBehind(f"files of the worker uid outlived the grade: {sorted(map(str, left))}")


def _nothing_reached_the_host(report, ctx):
    listener = ctx["listener"]
    listener.stop()
    if listener.received:
        raise SecretLeaked(f"the worker sent {len(listener.received)} messages to the machine's loopback: "
                           f"{listener.received[:3]}")
    assert report["environment"]["sandbox"]["namespaces"]["net"] is True


def _no_ipc_left(report, ctx):
    key = int(ctx["token"][:7], 16)
    left = []
    for kind, offset in (("shm", 0), ("sem", 1), ("msg", 2)):
        for line in Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]:
            if int(line.split()[0]) == key + offset:
                left.append(f"a SysV {kind} object (id {line.split()[1]})")
    left += [str(path) for path in Path("/run/lock").glob(f"minimax-kit-hostile-lock-{ctx['token']}-*")]
    if left:
        raise FilesLeftBehind(f"what the worker uid made outlived the grade: {', '.join(left)}")


def _hidden_inputs_not_shown(report, ctx):
    hidden = {test["name"]: test["message"] or "" for test in report["tests"] if test["visibility"] == "hidden"}
    shown = []
    for case in (1, 2):  # the inputs the rng fixture draws for test_add_random[case] under seed 1
        rng = random.Random(f"1:checks/test_hidden.py::test_add_random[{case}]")
        a, b = rng.randint(-10**6, 10**6), rng.randint(-10**6, 10**6)
        if f"{a}_{b}".replace("-", "m") in hidden[f"add of random integers #{case}"]:
            shown.append(f"add of random integers #{case}: ({a}, {b}) in the exception's type name")
    if "n_is_4" in hidden["tag rejects a negative number"]:
        shown.append("tag rejects a negative number: 4 in a function name")
    if "line 3002" in hidden["push appends to the list it is given"]:
        shown.append("push appends to the list it is given: ([1, 2], 3) in a line number")
    if shown:
        raise SecretLeaked("hidden inputs reached the report: " + "; ".join(shown))


# The canary is set in the grading process's environment before every attack.
CANARY = "MINIMAX_KIT_CANARY"


def _params():
    for attack in ATTACKS:
        marks = []
        if attack.root_only:
            marks.append(pytest.mark.skipif(not AS_ROOT, reason="relies on the uid drop, which needs root"))
        if attack.file in HOLES:
            hole, reason = HOLES[attack.file]
            marks.append(pytest.mark.xfail(strict=True, raises=hole, reason=reason))
        yield pytest.param(attack, id=attack.file.removesuffix(".py"), marks=marks)


# -- the kit, the submission and the process bookkeeping ----------------------------------------


@pytest.fixture
def open_kit():
    """The toy kit laid out world-readable in a world-traversable folder, as a fresh clone would be.

    So only the grader's own protection (owner-only kit, worker uid) stands between a worker and
    the hidden checks. It also holds a report from an earlier grade, for the rewrite attack.
    """
    place = Path(tempfile.mkdtemp(prefix="minimax-kit-hostile-"))
    try:
        os.chmod(place, 0o755)
        kit = Kit(place / "kit")
        shutil.copytree(TOY_KIT, kit.root, ignore=shutil.ignore_patterns("reports", "__pycache__"))
        (kit.root / "reports").mkdir()
        (kit.root / "reports" / "ex01.json").write_text('{"score": 0.0, "max_score": 8.0}\n')
        for folder, _, files in os.walk(kit.root):
            os.chmod(folder, 0o755)
            for name in files:
                os.chmod(os.path.join(folder, name), 0o644)
        yield kit
    finally:
        shutil.rmtree(place, ignore_errors=True)


def _substitute(source: str, ctx: dict) -> str:
    source = source.replace('"@TARGETS@"', repr([str(target) for target in ctx["targets"]]))
    for key in ("KIT_ROOT", "MARKER", "TOKEN", "NUMBER"):
        source = source.replace(f"@{key}@", str(ctx[key.lower()]))
    if "@PADDING@" in source:  # the file grows to NUMBER lines, so that line exists in it
        source = source.replace("@PADDING@", "") + "\n" * ctx["number"]
    if "@PORT@" in source:
        ctx["listener"] = Listener()
        source = source.replace("@PORT@", str(ctx["listener"].port))
    return source


class Listener:
    """A server on the machine's loopback that keeps whatever any connection sends it."""

    def __init__(self):
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.socket.settimeout(0.1)
        self.port = self.socket.getsockname()[1]
        self.received: list[bytes] = []
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while self.running:
            try:
                connection, _ = self.socket.accept()
            except TimeoutError:
                continue
            with connection:
                connection.settimeout(1)
                try:
                    self.received.append(connection.recv(65536))
                except OSError:
                    self.received.append(b"")

    def stop(self):
        self.running = False
        self.thread.join()
        self.socket.close()


def _constants(source: str) -> dict:
    """The module-level string constants of an attack, read without running it."""
    values = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                values[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return values


def lay_out(name: str, kit: Kit, tmp_path: Path, number: int = NUMBER) -> tuple[Path, dict]:
    """Write the attack as toy.py (placeholders filled in), in a folder of its own; return it and the context."""
    ctx = {
        "number": number,
        "kit": kit,
        "kit_root": kit.root,
        "marker": str(tmp_path / "imported"),  # as root, only the grading process could write here (0700)
        "token": uuid.uuid4().hex[:12],
        "targets": [
            kit.root / "exercises" / "ex01_toy" / "checks" / "test_hidden.py",
            kit.root / "solutions" / "ex01_toy" / "toy.py",
            kit.root / "solutions" / "ex01_toy" / "alt" / "plain.py",
            kit.root / "pyproject.toml",
            TOY_KIT / "exercises" / "ex01_toy" / "checks" / "test_hidden.py",
            TOY_KIT / "solutions" / "ex01_toy" / "toy.py",
            REPO / "pyproject.toml",
        ],
        "previous_report": (kit.root / "reports" / "ex01.json").read_text(),
    }
    source = _substitute((HOSTILE / name).read_text(encoding="utf-8"), ctx)
    folder = tmp_path / "submission"
    folder.mkdir(parents=True)
    (folder / "toy.py").write_text(source, encoding="utf-8")
    constants = _constants(source)
    if "CONFTEST" in constants:
        (folder / "conftest.py").write_text(constants["CONFTEST"], encoding="utf-8")
        (folder / "pytest.py").write_text(constants["PYTEST"], encoding="utf-8")
        return folder, ctx
    return folder / "toy.py", ctx


class ProcessWatch:
    """Checks that nothing this test's grades started outlives them: processes, files, IPC objects.

    Found by ancestry (this test adopts every orphan its grades leave, as a child subreaper) and by
    owner: the worker uids as root, else this test's own. Other engineers grade on this machine too,
    with workers in the same uid range, so only what is new since this test began counts.
    """

    def __init__(self):
        self.leftovers = leftovers.Leftovers()

    def assert_nothing_left(self):
        """(d): nothing any of this test's grades started is left."""
        low, high = uid_range()
        left = self.leftovers.settle(range(low, high + 1))
        if left.processes:
            raise ProcessLeftBehind(f"processes outlived the grade: {left.processes}")
        if left.files or left.ipc:
            raise FilesLeftBehind(f"what the worker made outlived the grade: {sorted(left.files | left.ipc)}")


@pytest.fixture
def watch():
    """Watches this test's grades for leftovers; call assert_nothing_left() after grading."""
    watch = ProcessWatch()
    yield watch
    watch.leftovers.close()


@pytest.fixture
def canary(monkeypatch):
    """A secret in the grading process's environment, as a CI token would be."""
    value = f"canary-{uuid.uuid4().hex}"
    monkeypatch.setenv(CANARY, value)
    return value


def run_grade(kit: Kit, path: Path) -> dict:
    """Grade a submission of the toy exercise in-process, once, with seed 1."""
    return grade(kit, kit.resolve("ex01"), Submission(path, "toy.py"), seed=1)


# -- the assertions every attack must meet ---------------------------------------------------------


def assert_honest_score(report: dict, attack: Attack):
    """(a) The checks it may pass passed, every other check scored 0 with an expected outcome."""
    assert attack.score == sum(POINTS[name] for name in attack.passes), "the table is inconsistent"
    got = {test["name"]: (test["outcome"], test["score"]) for test in report["tests"]}
    wrong = {name: got.get(name) for name in POINTS
             if (got.get(name, (None, None))[1] == POINTS[name]) != (name in attack.passes)}
    if wrong or report["score"] != attack.score:
        raise DishonestScore(f"score {report['score']}, expected {attack.score}; wrong checks: {wrong}")
    for test in report["tests"]:
        if test["name"] in attack.passes:
            assert test["outcome"] == "passed", test
        elif "did not finish" not in (test["message"] or ""):  # a check with no verdict: assert_grader_survived
            assert test["outcome"] in attack.outcomes, test
    assert report["status"] == attack.status, report["message"]


def assert_complete(report: dict, validate_report):
    """(b) Schema-valid, every check once in report order with its points, and small."""
    validate_report(report)
    assert [test["name"] for test in report["tests"]] == list(POINTS)
    assert [test["max_score"] for test in report["tests"]] == list(POINTS.values())
    assert report["max_score"] == 8.0
    assert report["score"] == sum(test["score"] for test in report["tests"])
    assert all(test["score"] in (0.0, test["max_score"]) for test in report["tests"])
    for test in report["tests"]:
        for key in ("message", "output"):
            assert test[key] is None or len(test[key]) <= MESSAGE_CAP
        if test["visibility"] == "hidden":
            assert test["output"] is None
    assert len(json.dumps(report)) < 64 * 1024


def assert_grader_survived(report: dict, canary: str):
    """(c) Every check reached a verdict, nothing fell back to fail-closed, the environment is genuine."""
    assert report["duration_s"] < OUTER_LIMIT
    stuck = [test["name"] for test in report["tests"] if "did not finish" in (test["message"] or "")]
    message = report["message"] or ""
    if stuck or "ran past its" in message or "wrote no results" in message:
        raise GraderCrashed(f"the grading process did not see every check through: {message or stuck}")
    sandbox = report["environment"]["sandbox"]
    if not {"interpreter", "uid", "privileges_dropped", "limits_held"} <= set(sandbox):
        raise GraderCrashed(f"the report lost the sandbox's environment: {sandbox}")
    if canary in json.dumps(report):
        raise SecretLeaked("the grader's environment canary reached the report")
    if AS_ROOT:
        assert sandbox["privileges_dropped"] is True and sandbox["warning"] is None
        low, high = uid_range()
        genuine_uid = sandbox["uid"] is None or low <= sandbox["uid"] <= high
        genuine_python = sandbox["python"] is None or re.fullmatch(r"3\.\d+\.\d+\S*", str(sandbox["python"]))
        if not (genuine_uid and genuine_python):
            raise ForgedEnvironment(f"the report's sandbox environment was forged: {sandbox}")


# -- the tests -------------------------------------------------------------------------------------


@pytest.mark.parametrize("attack", list(_params()))
def test_an_attack_scores_only_what_it_honestly_earns(attack, open_kit, tmp_path, watch, canary, validate_report):
    _grade_attack(attack, open_kit, tmp_path, watch, canary, validate_report)


# What a worker uid leaves in the machine's shared folders and SysV IPC; in namespaces of its own it
# reaches neither, so only without them does the attack show that the uid sweep removes it.
LEFT_BEHIND = [attack for attack in ATTACKS if attack.file in ("litter_shared_tmp.py", "leave_ipc_behind.py")]


@pytest.mark.skipif(not AS_ROOT, reason="without root the worker keeps the grader's uid, which is not swept")
@pytest.mark.parametrize("attack", LEFT_BEHIND, ids=[attack.file.removesuffix(".py") for attack in LEFT_BEHIND])
def test_without_namespaces_the_uid_sweep_removes_what_the_worker_left(attack, open_kit, tmp_path, watch, canary,
                                                                       validate_report, monkeypatch):
    monkeypatch.setenv(NAMESPACES_ENV, "off")
    monkeypatch.setenv("GRADE_UID_RANGE", f"{(uid := _free_uid())}-{uid}")  # watched alone: others grade here too
    report = _grade_attack(attack, open_kit, tmp_path, watch, canary, validate_report)
    assert report["environment"]["sandbox"]["namespaces"].get("ipc", False) is False


def _grade_attack(attack, open_kit, tmp_path, watch, canary, validate_report) -> dict:
    """Grade one attack of the table and hold it to every promise the table makes; the report."""
    path, ctx = lay_out(attack.file, open_kit, tmp_path)
    try:
        report = run_grade(open_kit, path)
        assert_honest_score(report, attack)
        assert_complete(report, validate_report)
        if attack.says is not None:
            assert attack.says in json.dumps(report), f"{attack.says!r} is not in the report"
        watch.assert_nothing_left()
        assert_grader_survived(report, canary)
        if attack.extra is not None:
            globals()[attack.extra](report, ctx)
    finally:
        for folder in ("/tmp", "/var/tmp", "/dev/shm"):  # whatever litter_shared_tmp managed to leave
            for left in Path(folder).glob(f"minimax-kit-hostile-litter-{ctx['token']}-*"):
                left.unlink()
    return report


@pytest.mark.skipif(not AS_ROOT, reason="separate workers get separate uids only when grading as root")
def test_two_submissions_graded_at_the_same_time_cannot_touch_each_other(open_kit, tmp_path, watch, canary,
                                                                          validate_report):
    """The attacker signals every process it can and writes wherever it can; the neighbour keeps its 8."""
    attacker, _ = lay_out("attack_the_neighbour.py", open_kit, tmp_path / "attacker")
    victim, _ = lay_out("neighbour_victim.py", open_kit, tmp_path / "victim")
    reports, errors, spans = {}, {}, {}

    def grade_one(role: str, path: Path):
        started = time.monotonic()
        try:
            reports[role] = run_grade(open_kit, path)
        except BaseException as exc:  # noqa: BLE001 - reported below, in the test's own thread
            errors[role] = exc
        spans[role] = (started, time.monotonic())

    threads = [threading.Thread(target=grade_one, args=(role, path))
               for role, path in (("attacker", attacker), ("victim", victim))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a concurrent grade hung"
    assert not errors, errors
    assert max(start for start, _ in spans.values()) < min(end for _, end in spans.values()), "no overlap"

    for role, report in reports.items():
        assert_complete(report, validate_report)
        assert_grader_survived(report, canary)
    assert reports["attacker"]["environment"]["sandbox"]["uid"] != reports["victim"]["environment"]["sandbox"]["uid"]
    assert_honest_score(reports["victim"], Attack("neighbour_victim.py", 8, ALL, (), status="pass"))
    assert_honest_score(reports["attacker"], Attack("attack_the_neighbour.py", 0, (), (FAILED,)))
    output = _public(reports["attacker"], "add of two small numbers")["output"]
    assert "signalled: []" in output and "wrote: []" in output, output
    watch.assert_nothing_left()


def _free_uid() -> int:
    """A worker uid no grader holds now, from the top of the range, where parallel graders rarely reach."""
    low, high = uid_range()
    for uid in range(high, low - 1, -1):
        try:
            lease = UidLease(range(uid, uid + 1))
        except SandboxError:
            continue
        lease.release()
        return uid
    raise AssertionError("no free worker uid")


@pytest.mark.skipif(not AS_ROOT, reason="worker uids exist only when grading as root")
@pytest.mark.parametrize("namespaces", ["on", "off"])
def test_a_worker_home_left_by_a_killed_grader_is_not_readable_by_a_later_worker(
        namespaces, open_kit, tmp_path, watch, canary, validate_report, monkeypatch):
    """The later grade removes the home before its worker starts; without namespaces that alone keeps it unread."""
    monkeypatch.setenv(NAMESPACES_ENV, namespaces)
    monkeypatch.setenv("GRADE_UID_RANGE", f"{(uid := _free_uid())}-{uid}")  # both grades get this uid
    secret = f"SECRET = 'another student {uuid.uuid4().hex}'"
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "toy.py").write_text(f"{secret}\n\ndef add(a, b):\n    return a + b\n")
    script = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from grader.sandbox.service import Sandbox, SandboxSettings
        box = Sandbox(SandboxSettings(module="toy.py", functions=("add",), source_dir=Path({str(earlier)!r}),
                                      memory_mb=256, cpu_seconds=60, hash_seed=0))
        box.call("add", (1, 2), {{}}, timeout=5)
        print(box._worker.home, flush=True)
        time.sleep(600)
    """)
    killed = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=REPO)
    home = Path(killed.stdout.readline().strip())
    killed.send_signal(signal.SIGKILL)  # the grading process dies without closing its sandbox
    killed.wait()
    killed.stdout.close()
    try:
        assert (home / "work" / "toy.py").exists() and (home / "work").stat().st_uid == uid
        path, _ = lay_out("read_stale_worker_homes.py", open_kit, tmp_path / "later")
        report = run_grade(open_kit, path)
        assert not home.exists()
        assert_honest_score(report, Attack("read_stale_worker_homes.py", 0, (), (FAILED,)))
        assert_complete(report, validate_report)
        assert_grader_survived(report, canary)
        assert report["environment"]["sandbox"]["uid"] == uid
        held = namespaces == "on" and namespaces_work()
        assert report["environment"]["sandbox"]["namespaces"].get("mnt", False) is held
        watch.assert_nothing_left()
        output = _public(report, "add of two small numbers")["output"]
        assert output.startswith("SUMMARY READ")
        if secret in json.dumps(report):
            raise SecretLeaked(f"a later worker read a killed grade's submission: {output}")
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.mark.skipif(AS_ROOT, reason="what an ordinary user's grade promises only in namespaces; as root these hold")
@pytest.mark.parametrize("namespaces", ["on", "off"])
@pytest.mark.parametrize("attack, leaked", [
    ("read_secrets.py", "READ {kit}/exercises/ex01_toy/checks/test_hidden.py"),
    ("environment_canary.py", "{canary}"),
])
def test_without_root_secrets_hold_only_in_namespaces(attack, leaked, namespaces, open_kit, tmp_path, watch, canary,
                                                      validate_report, monkeypatch):
    """SECURITY.md: without root, student code runs as the grader's user. In a user namespace of its
    own it still cannot see the kit or the grading process's /proc; without one (refused by the
    kernel, or GRADE_NAMESPACES=off) it reads the hidden checks and the grader's environment. The
    score stays honest either way."""
    monkeypatch.setenv(NAMESPACES_ENV, namespaces)
    path, ctx = lay_out(attack, open_kit, tmp_path)
    report = run_grade(open_kit, path)
    assert_honest_score(report, Attack(attack, 0, (), (FAILED,)))
    assert_complete(report, validate_report)
    watch.assert_nothing_left()
    held = namespaces == "on" and namespaces_work()
    assert report["environment"]["sandbox"]["namespaces"].get("mnt", False) is held
    assert (leaked.format(kit=open_kit.root, canary=canary) in json.dumps(report)) is not held


def test_a_student_in_a_class_reaches_no_classmate_and_no_report(open_kit, watch):
    """zoe, graded last in a world-readable class, lists, reads and imports what she can find: nothing.

    Without a root of its own (GRADE_NAMESPACES=off) her worker reads the others' files, imports
    a classmate's module and scores 8.
    """
    place = Path(tempfile.mkdtemp(prefix="minimax-kit-class-"))
    try:
        os.chmod(place, 0o755)
        classroom, marks = place / "class", place / "marks"
        for name, source in (("amy", TOY_KIT / "solutions" / "ex01_toy" / "toy.py"),
                             ("bob", TOY_KIT / "solutions" / "ex01_toy" / "alt" / "plain.py")):
            (classroom / name).mkdir(parents=True)
            shutil.copyfile(source, classroom / name / "toy.py")
        exercises = [open_kit.resolve("ex01")]
        run_batch(open_kit, exercises, find_students(classroom), marks, jobs=2, force=False, seed=1,
                  advance=lambda: None)
        attack = (HOSTILE / "copy_a_classmate.py").read_text(encoding="utf-8")
        (classroom / "zoe").mkdir()
        (classroom / "zoe" / "toy.py").write_text(attack.replace("@CLASS@", str(classroom)).replace("@OUT@", str(marks)))
        for folder, _, files in os.walk(place):  # as an instructor leaves them: world-readable
            os.chmod(folder, 0o755)
            for name in files:
                os.chmod(os.path.join(folder, name), 0o644)
        results, _ = run_batch(open_kit, exercises, find_students(classroom), marks, jobs=2, force=False, seed=1,
                               advance=lambda: None)
        zoe = results["zoe"]["ex01"]
        output = _public(zoe, "add of two small numbers")["output"] or ""
        if zoe["score"] or "REACHED listed 0 read 0 imported 0" not in output:
            raise SecretLeaked(f"zoe reached her classmates' work and scored {zoe['score']}: {output}")
        assert results["amy"]["ex01"]["score"] == results["bob"]["ex01"]["score"] == 8
    finally:
        shutil.rmtree(place, ignore_errors=True)
    watch.assert_nothing_left()  # once this test's own class folder is gone: it is new in /tmp too


def test_a_neighbour_that_spins_every_cpu_and_fills_tmp_costs_only_itself(open_kit, tmp_path, watch):
    """hog, graded beside ann in `grade batch --jobs 2`, spins on every CPU and fills /tmp.

    ann's CPU-bound calls time out if hog takes her CPU. Where that happened her report says she
    waited for a CPU, and the batch grades her again alone: her report in the end is her honest 8.
    """
    classroom = tmp_path / "class"
    for name, file in (("ann", "busy_neighbour.py"), ("hog", "starve_the_neighbour.py")):
        (classroom / name).mkdir(parents=True)
        shutil.copyfile(HOSTILE / file, classroom / name / "toy.py")
    results, reasons = run_batch(open_kit, [open_kit.resolve("ex01")], find_students(classroom), tmp_path / "marks",
                                 jobs=2, force=False, seed=1, advance=lambda: None)
    ann, hog = results["ann"]["ex01"], results["hog"]["ex01"]
    filled, spinning = map(int, re.search(r"FILLED (\d+) MiB SPINNING (\d+)", hog["submission"]["import_output"]).groups())
    assert spinning > 0, "the attack ran"
    if hog["environment"]["sandbox"]["namespaces"].get("mnt"):
        assert filled < 96, "its private /tmp is capped"
    assert_honest_score(hog, Attack("starve_the_neighbour.py", 0, (), (FAILED, TIMEOUT)))
    if ann["score"] != 8:
        raise DishonestScore(f"ann lost points to her neighbour: {ann['score']} of 8, CPU {ann['environment']['sandbox']}; "
                             f"graded again after contention: {reasons[Regraded.CONTENTION]}")
    assert not ann["environment"]["sandbox"]["cpu"]["contended"]
    watch.assert_nothing_left()


CHANNELS = sorted(path.name for path in HOSTILE.glob("*.py") if "@NUMBER@" in path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("attack", CHANNELS, ids=[name.removesuffix(".py") for name in CHANNELS])
def test_hidden_entries_carry_no_number_the_worker_chose(attack, open_kit, tmp_path):
    """Graded with two different numbers, the attack's hidden entries are the same, in every field.

    The public entries differ (a public check may show what the code said), which proves that
    the number really was spelled out.
    """
    reports = []
    for number in (4321, 98765):
        path, _ = lay_out(attack, open_kit, tmp_path / str(number), number=number)
        reports.append(run_grade(open_kit, path))
    hidden = [[test for test in report["tests"] if test["visibility"] == "hidden"] for report in reports]
    assert hidden[0] and hidden[0] == hidden[1]
    public = [[test for test in report["tests"] if test["visibility"] == "public"] for report in reports]
    assert public[0] != public[1]


def test_every_attack_file_is_in_the_table():
    listed = {attack.file for attack in ATTACKS} | {"attack_the_neighbour.py", "neighbour_victim.py",
                                                    "read_stale_worker_homes.py", "copy_a_classmate.py",
                                                    "starve_the_neighbour.py", "busy_neighbour.py"}
    assert {path.name for path in HOSTILE.glob("*.py")} == listed
    for path in HOSTILE.glob("*.py"):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        assert "Should score" in doc, f"{path.name}: the docstring must say what it should score"

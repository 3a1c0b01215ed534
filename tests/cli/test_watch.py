"""`grade exNN --watch`: a grade on every save, and Ctrl-C that stops it cleanly."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import GRADE, REPO
from tests.cli.screen import NARROW
from tests.processes import descendants

# Run again as an ordinary user by .ci/run (python -m pytest -m ordinary_user): what a uid without root meets.
pytestmark = pytest.mark.ordinary_user


def test_watch_regrades_on_each_save_and_stops_cleanly_on_ctrl_c(toy_kit, tmp_path):
    stub = toy_kit.root / "exercises" / "ex01_toy" / "toy.py"
    with watching(toy_kit, tmp_path) as session:
        first = session.until("Watching")
        assert "Score 0/8 (fail)" in first and "Report written to reports/ex01.json" in first
        if Path("/proc/self/stat").exists():  # the next save's grading process waits, started ahead
            assert _eventually(lambda: any(b"--grade-wait" in _cmdline(pid) for pid in descendants(session.process.pid)))
        stub.write_text((toy_kit.root / "solutions" / "ex01_toy" / "toy.py").read_text())
        assert "Score 8/8 (pass)" in session.until("Watching")
        assert json.loads((toy_kit.root / "reports" / "ex01.json").read_text())["status"] == "pass"
        stub.write_text("def add(a, b:\n")  # saved half-way through an edit
        broken = session.until("Watching")
        assert "SyntaxError: '(' was never closed" in broken and "Score 0/8 (error)" in broken
        session.process.send_signal(signal.SIGINT)
        assert session.process.wait(timeout=60) == 0
    assert "Stopped watching." in session.rest()
    assert "Traceback" not in session.stderr()


def test_ctrl_c_during_a_watched_grading_stops_the_grading_too(toy_kit, tmp_path):
    if not Path("/proc/self/stat").exists():
        pytest.skip("finding the grading process needs /proc")
    stub = toy_kit.root / "exercises" / "ex01_toy" / "toy.py"
    stub.write_text((REPO / "tests" / "golden" / "infinite_loop" / "toy.py").read_text())
    with watching(toy_kit, tmp_path) as session:
        session.until("Grading")
        deadline = time.monotonic() + 60
        while not (children := child_pids(session.process.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert children, "the grading process never started"
        session.process.send_signal(signal.SIGINT)
        assert session.process.wait(timeout=60) == 0
    assert "Stopped watching." in session.rest()
    assert [pid for pid in children if Path(f"/proc/{pid}").exists()] == []


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:  # ended while being read
        return b""


def _eventually(condition, timeout: float = 30) -> bool:
    """Whether `condition()` becomes true within the timeout."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def child_pids(pid: int) -> list[int]:
    """The processes whose parent is `pid`, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # not a process, or one that ended while we looked
            continue
        if entry.name.isdigit() and int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


class WatchSession:
    """A running `grade ex01 --watch`, read line by line without blocking the test forever."""

    def __init__(self, process: subprocess.Popen):
        self.process = process
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def until(self, text: str, timeout: float = 120) -> str:
        """The output up to and including the next line holding `text`."""
        seen, deadline = [], time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            assert line is not None, "grade --watch ended early:\n" + "".join(seen) + self.stderr()
            seen.append(line)
            if text in line:
                return "".join(seen)

    def rest(self) -> str:
        """What was printed after the last line read, once the process has ended."""
        seen = []
        while (line := self.lines.get(timeout=30)) is not None:
            seen.append(line)
        return "".join(seen)

    def stderr(self) -> str:
        return self.process.stderr.read() if self.process.poll() is not None else ""


# A shell's background job ignores SIGINT and its children inherit that, so a test run from one could
# not press Ctrl-C: this restores SIGINT, then becomes `python -m grader.cli ...` in the same process.
RESTORE_CTRL_C = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                  "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")


@contextlib.contextmanager
def watching(kit, cwd: Path):
    """`grade ex01 --watch` on the kit, killed at the end if a failed assertion left it running."""
    process = subprocess.Popen(
        [sys.executable, "-c", RESTORE_CTRL_C, *GRADE[1:], "ex01", "--watch", "--kit", str(kit.root)], cwd=cwd,
        env={**os.environ, **NARROW, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield WatchSession(process)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

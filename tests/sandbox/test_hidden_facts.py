"""What a report says of the sandbox and of time: facts from the grading side, never the worker's words.

A worker started to replace a dead one runs after hidden calls may have been made, so what its import
says is not shown; the report says which namespaces held even when the first import fails; and the
whole grade's time is rounded as a hidden check's is, so a hidden call cannot move it by a millisecond.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from grader.catalog import Kit
from grader.grading.runner import grade
from grader.report.scoring import HIDDEN_DURATION_STEP_S
from grader.sandbox.process import NAMESPACES_ENV
from grader.sandbox.service import reimport_failed
from grader.submission import Submission
from grader.failures import StudentFailure
from tests.conftest import TOY_KIT, namespaces_work
from tests.sandbox.test_sandbox import call, make_sandbox

pytestmark = pytest.mark.ordinary_user

MARK = "SPELLED-BY-THE-WORKER"
HONEST = """
def add(a, b):
    return a + b
def crash():
    import os
    os._exit(9)
"""


def test_a_module_that_fails_to_import_again_is_described_in_fixed_words(tmp_path):
    """The first worker imports; the second, after a crash, meets code that raises and prints a marker."""
    box = make_sandbox(tmp_path, HONEST, functions=("add", "crash"))
    try:
        box.start()
        assert call(box, "add", 2, 3) == 5
        with pytest.raises(StudentFailure):
            call(box, "crash")
        # What the replacement imports now raises with text of its own (as if it had carried a hidden input).
        (tmp_path / "submission" / "mod.py").write_text(f"print({MARK!r})\nraise RuntimeError({MARK!r})\n")
        with pytest.raises(StudentFailure) as raised:
            call(box, "add", 1, 1)
        for text in (raised.value.failure.words(public=False), raised.value.failure.words(public=True),
                     box.import_error, raised.value.output):
            assert MARK not in (text or "")
        assert box.import_error == reimport_failed("mod.py")
    finally:
        box.close()


def test_the_first_import_still_says_what_went_wrong(tmp_path):
    box = make_sandbox(tmp_path, f"raise RuntimeError({MARK!r})\n")
    try:
        with pytest.raises(StudentFailure):
            box.start()
        assert MARK in box.import_error
    finally:
        box.close()


def _grade_toy(source: str, folder: Path) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "toy.py").write_text(textwrap.dedent(source))
    kit = Kit(TOY_KIT)
    return grade(kit, kit.resolve("ex01"), Submission(folder / "toy.py", "toy.py"), seed=1)


@pytest.mark.parametrize("namespaces", ["on", "off"])
def test_the_report_says_which_namespaces_held_when_the_first_import_crashes(tmp_path, monkeypatch, namespaces):
    monkeypatch.setenv(NAMESPACES_ENV, namespaces)
    report = _grade_toy("import os\nos._exit(3)\n", tmp_path)
    assert report["status"] == "error"
    held = report["environment"]["sandbox"]["namespaces"]
    assert set(held) == {"net", "ipc", "mnt", "pid"}
    expected = namespaces == "on" and namespaces_work()
    assert all(value is expected for value in held.values()), held


def test_a_hidden_call_cannot_move_the_grades_total_time(tmp_path):
    """A correct solution that sleeps 0.15 s in a hidden call: the total is whole seconds, as hidden durations are."""
    source = shutil.copy(TOY_KIT / "solutions" / "ex01_toy" / "toy.py", tmp_path / "reference.py")
    sleepy = Path(source).read_text() + textwrap.dedent("""
        import time
        _push = push
        def push(items, item):
            time.sleep(0.15)
            return _push(items, item)
    """)
    report = _grade_toy(sleepy, tmp_path / "sleepy")
    assert report["score"] == report["max_score"]
    assert report["duration_s"] % HIDDEN_DURATION_STEP_S == 0, report["duration_s"]


"""The human display: failure messages in words, the check table at 80 columns, and reading progress."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from grader import display

SANDBOX = {"memory_mb": 512}


def render(print_to, *args) -> str:
    """What a display function prints on a plain 80-column console."""
    out = io.StringIO()
    print_to(Console(file=out, width=80, color_system=None, highlight=False), *args)
    return out.getvalue()


@pytest.mark.parametrize("message, words", [
    ("the worker crashed during best_move: killed by SIGKILL: killed (a resource limit, or another process)",
     ("the process running your code was killed (SIGKILL) during best_move: a limit of the sandbox or another "
      "process stopped it")),
    ("the worker crashed during solve: killed by SIGXCPU: CPU time limit exceeded",
     ("the process running your code used up its CPU time (SIGXCPU) during solve: a search that never ends, "
      "or one far too slow")),
    ("the worker crashed during solve: killed by SIGXFSZ: file size limit exceeded (too much output?)",
     ("the process running your code wrote more than the file size limit allows (SIGXFSZ) during solve: "
      "too much output?")),
    ("the worker crashed during solve: killed by SIGABRT: aborted",
     "the process running your code crashed during solve: killed by SIGABRT: aborted"),
    ("the worker crashed during solve: exited with status 7 (os._exit, or a crash of the interpreter)",
     ("the process running your code exited during solve (status 7): a call to os._exit, or a crash of the "
      "interpreter")),
    ("the worker crashed during solve: the worker stopped answering",
     "the process running your code crashed during solve: the worker stopped answering"),
    ("the worker broke the channel during solve: a frame too long",
     "the process running your code broke the channel during solve: a frame too long"),
])
def test_crash_messages_in_words(message, words):
    assert display.crash_in_words(message, SANDBOX) == words


def test_running_out_of_memory_is_said_by_the_sandbox_and_shown_as_it_is():
    # With a memory cgroup the sandbox knows the kernel killed the worker for memory, and says so.
    message = "best_move: the process running your code ran out of memory (limit 512 MB)"
    assert display.crash_in_words(message, SANDBOX) == message


@pytest.mark.parametrize("message, words", [
    ("best_move did not return within 2 s", "best_move did not return within the 2 s allowed for one call"),
    ("the check did not finish within 10 s", "the whole check did not finish within the 10 s it is allowed"),
    ("something else timed out", "something else timed out"),
])
def test_timeouts_say_which_limit(message, words):
    assert display.timeout_in_words(message) == words


def test_hints_are_marked_and_memory_errors_explained():
    test = {"outcome": "failed", "message": "your code raised MemoryError (m.py line 3)\nHint: use a memo."}
    lines = [line.plain for line in display.failure_lines(test, SANDBOX)]
    assert lines == ["your code ran out of memory (limit 512 MB)", "your code raised MemoryError (m.py line 3)",
                     "Hint: use a memo."]


def test_long_check_names_wrap_within_80_columns_and_are_never_cut():
    name = "best_move finds the only winning drop in a crowded mid-game position " + "x" * 90
    tests = [{"name": name, "visibility": "hidden", "outcome": "timeout", "score": 0.0, "max_score": 2.0,
              "duration_s": 2.0}]
    text = render(lambda console: console.print(display._check_table(tests)))
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text
    assert "".join(text.split()).count("x") == 90 and "2.0 s" in text and "(hidden)" in text


@pytest.mark.parametrize("content, problem", [
    ({"exercise": {"id": "ex01"}, "score": True, "max_score": 8, "status": "pass"}, "is not a report of this exercise"),
    ({"exercise": {"id": "ex02"}, "score": 8, "max_score": 8, "status": "pass"}, "is not a report of this exercise"),
    ({"exercise": {"id": "ex01"}, "score": 8, "max_score": 8, "status": "great"}, "is not a report of this exercise"),
])
def test_reports_that_are_not_this_exercises_count_as_not_started(toy_kit, content, problem):
    exercise = toy_kit.resolve("ex01")
    toy_kit.progress_path(exercise).parent.mkdir()
    toy_kit.progress_path(exercise).write_text(json.dumps(content))
    progress = display.read_progress(toy_kit, exercise)
    assert (progress.status, progress.problem, progress.fraction) == ("not started", problem, 0.0)


def test_progress_of_an_exercise_with_no_points_is_its_status(toy_kit):
    exercise = toy_kit.resolve("ex01")
    assert display.ExerciseProgress(exercise, "partial", 0.0, 0.0, None).fraction == 0.0
    assert display.ExerciseProgress(exercise, "done", 0.0, 0.0, None).fraction == 1.0
    assert display.read_progress(toy_kit, exercise).status == "not started"


def test_a_kit_without_exercises_says_so(toy_kit):
    assert render(display.print_progress, toy_kit, []) == "This kit has no exercises yet.\n"

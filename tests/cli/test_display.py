"""The human display: failure messages in words, the check table at 80 columns, and reading progress."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
from rich.console import Console

from grader.cli import instructor_view
from grader.cli import student_view as display
from grader.outcomes import Regraded
from tests.conftest import REPO, golden_report

SANDBOX = {"memory_mb": 512}


def render(print_to, *args) -> str:
    """What a display function prints on a plain 80-column console."""
    out = io.StringIO()
    print_to(Console(file=out, width=80, color_system=None, highlight=False), *args)
    return out.getvalue()


@pytest.mark.parametrize("failure, words", [
    ({"kind": "crash", "call": "best_move", "signal": "SIGKILL"},
     ("the process running your code was killed (SIGKILL) during best_move: a limit of the sandbox or another "
      "process stopped it")),
    ({"kind": "crash", "call": "solve", "signal": "SIGXCPU"},
     ("the process running your code used up its CPU time (SIGXCPU) during solve: a search that never ends, "
      "or one far too slow")),
    ({"kind": "crash", "call": "solve", "signal": "SIGXFSZ"},
     ("the process running your code wrote more than the file size limit allows (SIGXFSZ) during solve: "
      "too much output?")),
    ({"kind": "crash", "call": "solve", "signal": "SIGABRT"},
     "the process running your code crashed during solve: killed by SIGABRT"),
    ({"kind": "exit", "call": "solve", "exit_status": 7},
     ("the process running your code exited during solve (status 7): a call to os._exit, or a crash of the "
      "interpreter")),
    ({"kind": "exit", "call": "solve"}, "your code ended the process it was running in (during solve)"),
    ({"kind": "crash", "call": "solve"}, "the process running your code crashed during solve: it stopped answering"),
])
def test_crash_messages_in_words(failure, words):
    assert display.crash_in_words(failure, SANDBOX) == words


def test_running_out_of_memory_is_said_with_its_limit():
    # With a memory cgroup the sandbox knows the kernel killed the worker for memory, and says so.
    failure = {"kind": "memory", "call": "best_move", "limit_mb": 512}
    assert (display.crash_in_words(failure, SANDBOX)
            == "best_move: the process running your code ran out of memory (limit 512 MB)")


def test_a_broken_channel_is_shown_as_the_report_says_it():
    test = {"outcome": "crashed", "message": "the worker broke the channel during solve: a frame too long",
            "failure": {"kind": "broken_channel", "call": "solve"}}
    assert [line.plain for line in display.failure_lines(test, SANDBOX)] == [test["message"]]


@pytest.mark.parametrize("failure, words", [
    ({"kind": "timeout", "call": "best_move", "limit_s": 2.0},
     "best_move did not return within the 2 s allowed for one call"),
    ({"kind": "timeout", "limit_s": 10.0}, "the whole check did not finish within the 10 s it is allowed"),
])
def test_timeouts_say_which_limit(failure, words):
    assert display.timeout_in_words(failure) == words


def test_hints_are_marked_and_memory_errors_explained():
    test = {"outcome": "failed", "message": "your code raised MemoryError (m.py line 3)\nHint: use a memo.",
            "failure": {"kind": "raised", "call": "solve", "exception": "MemoryError"}}
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


SHAPE = {"tests": [], "exercise": {"id": "ex01", "title": "Toy"}}


@pytest.mark.parametrize("content, problem", [
    ({**SHAPE, "score": True, "max_score": 8, "status": "pass"}, "is not a report of this exercise"),
    ({**SHAPE, "exercise": {"id": "ex02", "title": "Twin"}, "score": 8, "max_score": 8, "status": "pass"},
     "is not a report of this exercise"),
    ({**SHAPE, "score": 8, "max_score": 8, "status": "great"}, "is not a report of this exercise"),
    ({"exercise": {"id": "ex01"}, "score": 8, "max_score": 8, "status": "pass"}, "is not a report of this exercise"),
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


@pytest.mark.parametrize("cells, words", [
    ([4], "work.ipynb: IPython magics and shell lines were left out of cell 4"),
    ([2, 3, 5], "work.ipynb: IPython magics and shell lines were left out of cells 2, 3 and 5"),
])
def test_a_notebooks_left_out_magics_are_named_by_cell(cells, words):
    submission = {"path": "work.ipynb", "sha256": None,
                  "notebook": {"file": "work.ipynb", "code_cells": 6, "magic_cells": cells}}
    assert display.notebook_note(submission) == words


def test_a_notebook_without_magics_and_a_py_file_get_no_note():
    assert display.notebook_note({"path": "toy.py", "sha256": None}) is None
    assert display.notebook_note({"path": "w.ipynb", "sha256": None,
                                  "notebook": {"file": "w.ipynb", "code_cells": 1, "magic_cells": []}}) is None


def test_what_the_module_printed_at_import_shows_under_the_table_and_score():
    shown = render(display.print_report, golden_report("prints_at_import"), [])
    lines = shown.splitlines()
    start = lines.index("Your module printed while it was imported:")
    assert lines[start + 1:start + 4] == ["  | trying add: 5", "  | pair of 7 is (7, 7)", "  | a warning on stderr"]
    assert lines[start - 2].startswith("Score 8/8 (pass)") and lines[start - 1] == ""
    assert "push appends to the list it is given" in lines[start - 4] and lines[start - 3] == ""


def test_long_import_output_shows_its_first_lines_and_a_failed_import_shows_it_before_the_error():
    report = golden_report("notebook_failing_cell")
    report["submission"]["import_output"] = "".join(f"line {n}\n" for n in range(25))
    shown = render(display.print_report, report, [])
    assert "  | line 9\n  | ... 15 more lines in the report\n" in shown and "line 10" not in shown
    assert shown.index("Your module printed") < shown.index("Nothing could be graded: toy.ipynb cell 3")


def test_a_module_that_printed_nothing_at_import_gets_no_heading():
    assert "printed while it was imported" not in render(display.print_report, golden_report("full_solution"), [])


def test_a_grade_that_waited_for_a_cpu_says_so_and_one_that_did_not_is_silent():
    report = golden_report("full_solution")
    assert "waited" not in render(display.print_report, report, [])
    report["environment"]["sandbox"]["cpu"] = {"contended": True, "waited_s": 3}
    shown = render(display.print_report, report, [])
    assert "This grade waited 3 seconds for a CPU" in " ".join(shown.split())
    # Contention starts at half a second of waiting, which the report's whole seconds round down to 0.
    report["environment"]["sandbox"]["cpu"] = {"contended": True, "waited_s": 0}
    shown = " ".join(render(display.print_report, report, []).split())
    assert "This grade waited less than a second for a CPU" in shown and "0 s" not in shown
    report["environment"]["sandbox"]["cpu"] = {"contended": True, "waited_s": 1}
    assert "This grade waited 1 second for a CPU" in " ".join(render(display.print_report, report, []).split())
    assert "2 graded (1 new, 1 again alone after CPU contention)" in instructor_view.regraded_words(
        {Regraded.NEW: 1, Regraded.CONTENTION: 1})


@pytest.mark.parametrize("reasons, words", [
    ({Regraded.NEW: 4}, "4 graded (4 new)"),  # nothing reused: no "0 reused (nothing changed)"
    ({Regraded.REUSED: 4}, "4 reused (nothing changed)"),  # nothing graded: no "0 graded"
    ({Regraded.REUSED: 3, Regraded.SUBMISSION: 1}, "3 reused (nothing changed), 1 graded (1 submission changed)"),
    ({}, "nothing graded"),
])
def test_a_batch_names_only_what_it_reused_or_graded(reasons, words):
    assert instructor_view.regraded_words(reasons) == words


def test_a_diagnosis_is_shown_under_the_failed_checks_with_the_checks_it_matched():
    report = golden_report("partial_solution")
    shown = render(display.print_report, report, [])
    lines = shown.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("Your answers match a known mistake"))
    assert lines[start:start + 2] == ["Your answers match a known mistake: pair returns a list where a tuple is asked",
                                      "for."]  # wrapped at 80 columns
    assert lines[start + 2:start + 6] == ["      on the checks:", "      - pair is a tuple",
                                          "      - tag rejects a negative number",
                                          "      - push appends to the list it is given"]
    assert start > lines.index("Failed hidden checks (their inputs stay secret)")  # under the failed checks
    report["diagnosis"][0]["checks"] *= 2  # six: four are named, the rest counted
    assert "      and 2 more checks" in render(display.print_report, report, []).splitlines()


def test_no_diagnosis_no_words():
    assert "known mistake" not in render(display.print_report, golden_report("full_solution"), [])
    older = golden_report("partial_solution")
    del older["diagnosis"]  # a report stored before diagnoses
    assert "known mistake" not in render(display.print_report, older, [])


def test_a_prepared_display_loads_nothing_more_to_show_a_report():
    # A fresh interpreter: in this one, other tests have long since loaded whatever rich loads late.
    script = """
import io, json, sys
from rich.console import Console
from grader.cli import student_view
from tests.conftest import golden_report
student_view.prepare()
before = set(sys.modules)
for case in ("full_solution", "import_exception"):
    student_view.print_report(Console(file=io.StringIO(), highlight=False), golden_report(case), [])
print(json.dumps(sorted(set(sys.modules) - before)))
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


def test_a_batchs_totals_and_similarity_say_none_rather_than_count_nothing(tmp_path):
    stats = {"students": 3, "possible": 8, "mean": 4.0, "median": 4, "lowest": 2, "highest": 6, "full_marks": 0,
             "errors": 0}
    shown = " ".join(render(instructor_view.print_batch_summary, stats, 1, {Regraded.NEW: 3},
                            tmp_path / "grades.csv").split())
    assert "highest 6; none with full marks" in shown and "did not run" not in shown
    shown = " ".join(render(instructor_view.print_batch_summary, {**stats, "full_marks": 1, "errors": 2}, 1,
                            {Regraded.NEW: 3}, tmp_path / "grades.csv").split())
    assert "highest 6; 1 with full marks, 2 with a submission that did not run" in shown
    shown = " ".join(render(instructor_view.print_similarity, [], tmp_path / "similar.csv").split())
    assert shown.startswith("Similar submissions: none of 0 pairs compared.")

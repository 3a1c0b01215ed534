"""The `grade` script's first steps: the grades' launcher started before `grade` imports the rest of
itself, then the command.

A cold grade waits for `grade`'s start, then for the launcher's (an interpreter importing pytest and
the plugins), then for the grading process. Started first, the launcher imports on one CPU while
`grade` imports, parses its arguments and lays out the checks on another. So this module imports
only the standard library and the launcher's module.
"""

from __future__ import annotations

import contextlib
import os
import sys

# Every command but grading itself: its one-line help (where its code lives: cli/arguments.py).
COMMANDS = {
    "hint": "show the next hint for an exercise",
    "play": "play a game in the terminal against your own code (or the reference)",
    "check": "instructors: prove exercises sound (reference, alt/, wrong/, stub)",
    "new": "instructors: scaffold a new exercise and its solution folders",
    "export": "instructors: write the student handout or a Gradescope autograder bundle",
    "batch": "instructors: grade a class into one report per submission, grades.csv and a class report page",
    "arena": "instructors: play a class's game-playing code against each other and baselines, and rate it",
}
# Options with which `grade EXERCISE` does not grade at once: help, and a watch, which keeps a ready
# grade of its own.
NOT_GRADING = frozenset({"-h", "--help", "--watch"})


def grades_at_once(argv: list[str]) -> bool:
    """Whether `grade ARGV` grades as it starts: an exercise or --all, not a command, help or a watch.

    A guess made before the arguments are parsed; a wrong one costs a launcher started and killed.
    """
    if os.name == "nt" or not argv or argv[0] in COMMANDS or NOT_GRADING.intersection(argv):
        return False
    return "--all" in argv or any(not word.startswith("-") for word in argv)


def grade_command(argv: list[str]) -> int:
    """`grade ARGV`'s exit code: main(), with the grades' launcher started first if it grades at once."""
    launcher = None
    if grades_at_once(argv):
        from grader.grading import start_launcher

        launcher = start_launcher()
    try:
        from grader.cli.app import main

        return main(argv, launcher=launcher)
    finally:
        if launcher is not None:
            launcher.close()


def console() -> None:
    """The installed `grade` script and `python -m grader.cli`: grade_command(), then an exit without the
    interpreter's teardown.

    Everything is written by the time it returns; tearing down the modules and objects a grade
    loaded would only keep the student from the prompt (bench/RESULTS.md has what it costs).
    """
    code = grade_command(sys.argv[1:])
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BrokenPipeError, ValueError):  # a reader gone (grade ... | head), or closed
            stream.flush()
    os._exit(code)

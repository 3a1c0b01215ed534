"""The command line itself: help for every command, one-line usage errors, native Windows."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO, run_grade

# Run again as an ordinary user by .ci/run (python -m pytest -m ordinary_user): what a uid without root meets.
pytestmark = pytest.mark.ordinary_user


# Python as native Windows has it, as far as grade can tell: os.name and sys.platform say so, and
# the POSIX-only modules do not import. Set up before anything of the kit is imported.
AS_ON_WINDOWS = """
import os, sys
os.name, sys.platform = "nt", "win32"
for name in ("fcntl", "resource", "termios", "pwd", "grp", "posix"):
    sys.modules[name] = None
from grader.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("args", [[], ["ex04", "--solution"], ["--all"], ["check", "--all"]])
def test_native_windows_gets_one_line_pointing_to_wsl(args):
    result = subprocess.run([sys.executable, "-c", AS_ON_WINDOWS, *args], cwd=REPO, capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert "not supported" in result.stderr and "WSL" in result.stderr


COMMAND_NAMES = ("hint", "play", "check", "new", "export", "batch", "arena")


def test_grade_help_lists_every_command_with_one_line_each():
    result = run_grade("--help", cwd=REPO)
    assert result.returncode == 0
    listed = [line.split()[0] for line in result.stdout.split("commands (grade COMMAND --help for each):")[1]
              .strip().splitlines()]
    assert listed == list(COMMAND_NAMES)


@pytest.mark.parametrize("command", COMMAND_NAMES)
def test_each_command_has_its_own_help(command):
    result = run_grade(command, "--help", cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: grade {command} ")
    assert "--kit DIR" in result.stdout


@pytest.mark.parametrize("args, words", [
    (["hint"], "the following arguments are required: exercise"),
    (["play", "--first", "nobody"], "argument --first: invalid choice: 'nobody'"),
    (["check", "--all", "--jobs", "0"], "argument --jobs: expected a number >= 1, got 0"),
    (["new", "ex10"], "the following arguments are required: slug, title"),
    (["export", "--bogus"], "unrecognized arguments: --bogus"),
    (["batch", "somewhere"], "the following arguments are required: --out"),
    (["ex04", "--seed", "-1"], "argument --seed: expected a number >= 0, got -1"),
])
def test_bad_arguments_to_any_command_are_one_line_and_exit_2(args, words):
    result = run_grade(*args, cwd=REPO)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr
    assert result.stdout == ""

"""The `grade` script's first steps (grader/cli/entry.py): the grades' launcher started before the rest
of `grade` is imported, used by the grade, and ended with the command."""

from __future__ import annotations

import json

import pytest

from grader.grading import launching

pytestmark = pytest.mark.ordinary_user


@pytest.mark.parametrize(("argv", "grades"), [
    (["ex01"], True),
    (["ex04", "--solution", "--seed", "3"], True),
    (["--solution", "ex04"], True),
    (["--all", "--solution"], True),
    ([], False),  # the progress list
    (["--help"], False),
    (["ex04", "-h"], False),
    (["ex04", "--watch"], False),  # a watch keeps a ready grade of its own
    (["check", "ex04"], False),
    (["batch", "report", "out"], False),
    (["hint", "ex01"], False),
])
def test_grade_guesses_from_its_words_whether_it_grades_at_once(argv, grades):
    from grader.cli.entry import grades_at_once

    assert grades_at_once(argv) is grades


@pytest.fixture
def started(monkeypatch):
    """Every launcher the script starts ahead, with the grades each one launched."""
    probe = launching.start_launcher()
    if probe is None:
        pytest.skip("no launcher without the Linux mechanisms")
    probe.close()
    launchers: list[tuple[object, list]] = []
    start = launching.start_launcher

    def spy():
        launcher = start()
        launches: list = []
        launch = launcher.launch
        launcher.launch = lambda *args: launches.append(args) or launch(*args)
        launchers.append((launcher, launches))
        return launcher

    monkeypatch.setattr(launching, "start_launcher", spy)
    return launchers


def test_a_grade_is_forked_by_the_launcher_the_script_started_first(toy_kit, started, monkeypatch, tmp_path,
                                                                    validate_report):
    from grader.cli.entry import grade_command

    monkeypatch.chdir(toy_kit.root)
    report = tmp_path / "report.json"
    assert grade_command(["ex01", "--solution", "--seed", "1", "--output", str(report)]) == 0
    assert validate_report(json.loads(report.read_text()))["status"] == "pass"
    [(launcher, launches)] = started
    assert len(launches) == 1  # the grade's, and no launcher of its own
    assert launcher._process.poll() is not None  # ended with the command


def test_a_launcher_started_for_a_grade_that_never_comes_is_ended(toy_kit, started, monkeypatch, capsys):
    from grader.cli.entry import grade_command

    monkeypatch.chdir(toy_kit.root)
    assert grade_command(["nosuch"]) == 2
    assert "unknown exercise 'nosuch'" in capsys.readouterr().err
    [(launcher, launches)] = started
    assert launches == []
    assert launcher._process.poll() is not None


def test_no_launcher_is_started_for_a_command(toy_kit, started, monkeypatch, capsys):
    from grader.cli.entry import grade_command

    monkeypatch.chdir(toy_kit.root)
    assert grade_command(["hint", "ex01"]) == 0
    assert "Hint 1" in capsys.readouterr().out
    assert started == []

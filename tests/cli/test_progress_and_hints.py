"""`grade` on its own (the progress list) and `grade hint`, end to end."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_grade
from tests.cli.screen import NARROW, add_twin, assert_plain_and_narrow, one_line

# Run again as an ordinary user by .ci/run (python -m pytest -m ordinary_user): what a uid without root meets.
pytestmark = pytest.mark.ordinary_user


def test_listing_shows_progress(toy_kit):
    before = run_grade(cwd=toy_kit.root)
    assert before.returncode == 0
    assert "ex01_toy" in before.stdout and "not started" in before.stdout
    run_grade("ex01", cwd=toy_kit.root)
    after = run_grade(cwd=toy_kit.root)
    assert "0/8" in after.stdout and "partial" in after.stdout


def test_hints_come_one_more_at_a_time(toy_kit):
    first = run_grade("hint", "ex01", cwd=toy_kit.root)
    assert first.returncode == 0
    assert "Hint 1 of 2 (ex01): Read the docstrings." in first.stdout and "Hint 2" not in first.stdout
    second = run_grade("hint", "toy", cwd=toy_kit.root)
    assert "Hint 2 of 2 (ex01): add returns a + b." in second.stdout and "last hint" in second.stdout
    third = run_grade("hint", "ex01", cwd=toy_kit.root)
    assert third.stdout.count("Hint 2 of 2") == 1


def test_hint_errors_are_usage_errors(toy_kit):
    assert run_grade("hint", cwd=toy_kit.root).returncode == 2
    unknown = run_grade("hint", "ex42", cwd=toy_kit.root)
    assert unknown.returncode == 2 and "unknown exercise 'ex42'" in unknown.stderr


# -- what a person sees: the progress list, the result table, failures in words, watch mode


def write_last_report(kit, ex_id: str, score: float, max_score: float, status: str) -> None:
    """A last report with the fields every reader of a stored report needs (grader.report.read_report)."""
    (kit.root / "reports").mkdir(exist_ok=True)
    report = {"exercise": {"id": ex_id, "title": ex_id}, "tests": [], "score": score, "max_score": max_score,
              "status": status}
    (kit.root / "reports" / f"{ex_id}.json").write_text(json.dumps(report))


def test_listing_shows_each_status_the_progress_and_what_to_do_next(toy_kit):
    add_twin(toy_kit, "ex02", "twin", "A twin with a much longer title than the first one has")
    add_twin(toy_kit, "ex03", "triplet")
    add_twin(toy_kit, "ex04", "quad")
    stub = toy_kit.root / "exercises" / "ex01_toy" / "toy.py"
    stub.write_text((toy_kit.root / "solutions" / "ex01_toy" / "toy.py").read_text())
    assert run_grade("ex01", cwd=toy_kit.root).returncode == 0  # done, through a real grading
    write_last_report(toy_kit, "ex02", 3, 8, "fail")
    (toy_kit.root / "reports" / "ex03.json").write_text('{"score": 8, "max_sc')  # cut off mid-write
    listing = run_grade(cwd=toy_kit.root, env=NARROW)
    assert listing.returncode == 0 and listing.stderr == ""
    assert_plain_and_narrow(listing.stdout)
    rows = {line.split()[1]: line for line in listing.stdout.splitlines() if line.startswith(("✓", "◐", "○"))}
    assert rows["ex01_toy"].split()[-2:] == ["8/8", "done"]
    assert rows["ex02_twin"].split()[-2:] == ["3/8", "partial"] and "A twin with a much longer" in rows["ex02_twin"]
    assert rows["ex03_triplet"].split()[-3:] == ["-", "not", "started"]
    assert rows["ex04_quad"].split()[-3:] == ["-", "not", "started"]
    text = one_line(listing.stdout)
    assert "reports/ex03.json is not valid JSON, so ex03 shows as not started" in text
    assert "Progress: 1/4 done, 34% ██████████░░░░" in text  # (1 + 3/8) of 4 exercises
    assert "Next: ex02 A twin with a much longer title than the first one has (3/8 so far)" in text
    assert "Traceback" not in listing.stdout + listing.stderr


def test_listing_copes_with_reports_that_are_not_reports_and_says_when_all_is_done(toy_kit):
    add_twin(toy_kit, "ex02", "twin")
    (toy_kit.root / "reports").mkdir()
    (toy_kit.root / "reports" / "ex01.json").write_text('["a list"]')
    (toy_kit.root / "reports" / "ex02.json").write_bytes(b"\xff\xfe not text")
    damaged = run_grade(cwd=toy_kit.root, env=NARROW)
    assert damaged.returncode == 0 and "Traceback" not in damaged.stderr
    assert "reports/ex01.json is not a report of this exercise" in one_line(damaged.stdout)
    assert "reports/ex02.json cannot be read" in one_line(damaged.stdout)
    assert "Progress: 0/2 done, 0%" in damaged.stdout and "Next: ex01" in damaged.stdout
    write_last_report(toy_kit, "ex01", 8, 8, "pass")
    write_last_report(toy_kit, "ex02", 8, 8, "pass")
    done = run_grade(cwd=toy_kit.root, env=NARROW)
    assert "Progress: 2/2 done, 100%" in done.stdout and "All 2 exercises done." in done.stdout
    assert "Next:" not in done.stdout

"""Determinism: the same submission and seed always grade the same, however busy the machine is.

The main test grades ex04 with one of its wrong solutions (strict_greater.py, which passes some of
the random checks and fails others) twenty times with one seed, while busy loops keep every core
loaded, and compares every check's name, outcome and score, the lines of its message, and the
totals. A second test grades a toy submission whose random checks pass or fail with the inputs
drawn: under each seed the outcomes are the ones those inputs give, so other seeds draw other
inputs where a check uses the rng fixture, and the same inputs everywhere else.

A third test holds a hole found here and fixed: the order of the lines in a public check's message
followed the grading process's own hash seed; the runner now fixes that seed (one for every run).
"""

from __future__ import annotations

import ast
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.grading.runner import grade
from grader.submission import Submission
from tests.conftest import REPO, mutant_file

RUNS = 20
SEED = 20261129
# ex04's reference with the cutoff test `alpha > beta`: it loses some random checks and passes others.
WRONG_MUTANT = "strict_greater"
HIDDEN_CHECKS = REPO / "exercises" / "ex04_alpha_beta" / "checks" / "test_hidden.py"
# A busy loop gets at least this share of a core while it runs beside the grading, or the machine
# was not really loaded. Measured on this 2-core machine: 0.37 each while other people's test runs
# shared it too (load average 5), more when it is quiet.
LOADED_SHARE = 0.15


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.fixture
def wrong(repo_kit, tmp_path) -> Path:
    """The submission graded again and again: a known mistake of ex04."""
    return mutant_file(repo_kit, "ex04", WRONG_MUTANT, tmp_path)


@pytest.fixture
def busy_cores():
    """One busy-loop process per core (at least two), killed when the test ends; yields their pids."""
    hogs = []
    try:
        for _ in range(max(2, os.cpu_count() or 2)):
            # A session of its own puts each loop in its own scheduler autogroup, so it competes with
            # the grading process (which has its own session too) as an equal, not as a slice of ours.
            hogs.append(subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL,
                                         start_new_session=True))
        yield [hog.pid for hog in hogs]
        assert all(hog.poll() is None for hog in hogs), "a busy loop ended before the grading did"
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


class NondeterministicReport(AssertionError):
    """Grading the same submission with the same seed gave a different report."""


def outcome_view(report: dict) -> tuple:
    """What must repeat: every check's name, outcome, score and message lines, and the totals."""

    def lines(message: str | None) -> tuple[str, ...]:
        return tuple((message or "").splitlines())

    checks = tuple((test["name"], test["outcome"], test["score"], lines(test["message"])) for test in report["tests"])
    return checks, report["status"], report["score"], report["seed"]


def _random_check_functions(path: Path) -> set[str]:
    """The check functions in a check file that take the rng fixture."""
    return {node.name for node in ast.parse(path.read_text(encoding="utf-8")).body
            if isinstance(node, ast.FunctionDef) and "rng" in {arg.arg for arg in node.args.args}}


def test_the_same_submission_and_seed_grade_the_same_twenty_times_under_load(repo_kit, busy_cores, validate_report,
                                                                              wrong):
    exercise = repo_kit.resolve("ex04")
    cpu_before = {pid: _cpu_seconds(pid) for pid in busy_cores}
    started = time.monotonic()
    reports = [validate_report(grade(repo_kit, exercise, Submission(wrong, wrong.name), seed=SEED))
               for _ in range(RUNS)]
    elapsed = time.monotonic() - started
    shares = {pid: (_cpu_seconds(pid) - cpu_before[pid]) / elapsed for pid in busy_cores}
    assert all(share >= LOADED_SHARE for share in shares.values()), f"the cores were not kept busy: {shares}"

    first = outcome_view(reports[0])
    differing = {}
    for run, report in enumerate(reports[1:], start=1):
        view = outcome_view(report)
        if view != first:
            differing[run] = [(then, now) for then, now in zip(first[0], view[0]) if then != now] or view[1:]
    assert not differing, f"runs that differ from the first, with (first, this run): {differing}"

    # The submission must really exercise the random checks, passing some and failing others,
    # or the comparison above proves little.
    assert (reports[0]["status"], reports[0]["seed"]) == ("fail", SEED) and reports[0]["score"] > 0
    random_functions = _random_check_functions(HIDDEN_CHECKS)
    random_outcomes = {test["outcome"] for test in reports[0]["tests"]
                       if test["id"].split("::")[-1].split("[")[0] in random_functions}
    assert random_outcomes == {"passed", "failed"}, random_outcomes


def test_a_report_does_not_depend_on_the_grading_process_hash_seed(repo_kit, monkeypatch, validate_report, wrong):
    """Two hash seeds known to order the "Differing items" of "a tie is enough for a cutoff" apart."""
    views = {}
    for hash_seed in ("1", "5"):
        monkeypatch.setenv("PYTHONHASHSEED", hash_seed)
        report = grade(repo_kit, repo_kit.resolve("ex04"), Submission(wrong, wrong.name), seed=SEED)
        views[hash_seed] = outcome_view(validate_report(report))
    # Scores and outcomes agree already; only the order of a message's lines differs.
    assert outcome_view_without_messages(views["1"]) == outcome_view_without_messages(views["5"])
    if views["1"] != views["5"]:
        differing = [(one, five) for one, five in zip(views["1"][0], views["5"][0]) if one != five]
        raise NondeterministicReport(f"messages differ between grading hash seeds 1 and 5: {differing}")


def outcome_view_without_messages(view: tuple) -> tuple:
    """An outcome view without the checks' messages."""
    checks, *totals = view
    return tuple(check[:3] for check in checks), *totals


# A toy submission whose add is right only for an even sum: add(2, 3) always fails, and each random
# check passes exactly when the integers it draws have an even sum. The other functions are right.
PARITY_TOY = '''
def add(a, b):
    return a + b if (a + b) % 2 == 0 else a + b + 1


def pair(x):
    return (x, x)


def tag(n):
    if n < 0:
        raise ValueError("n must be >= 0")
    return {"n": n}


def push(items, item):
    items.append(item)
    return len(items)
'''
SEEDS = range(1, 9)
RANDOM_CASES = {"add of random integers #1": 1, "add of random integers #2": 2}


def drawn_sum_is_even(seed: int, case: int) -> bool:
    """Whether the integers test_add_random[case] draws under this seed have an even sum.

    The rng fixture seeds random.Random with "<seed>:<the check's node id>" (grader/plugin.py).
    """
    rng = random.Random(f"{seed}:checks/test_hidden.py::test_add_random[{case}]")
    return (rng.randint(-10**6, 10**6) + rng.randint(-10**6, 10**6)) % 2 == 0


def test_other_seeds_draw_other_inputs_only_where_a_check_uses_the_rng(toy_kit, tmp_path, validate_report):
    path = tmp_path / "toy.py"
    path.write_text(PARITY_TOY, encoding="utf-8")
    predicted = {seed: {name: drawn_sum_is_even(seed, case) for name, case in RANDOM_CASES.items()} for seed in SEEDS}
    # Both outcomes must occur among the seeds, or the test could not tell fresh inputs from stale ones.
    assert {passes for by_name in predicted.values() for passes in by_name.values()} == {True, False}

    fixed = set()
    for seed in SEEDS:
        report = validate_report(grade(toy_kit, toy_kit.resolve("ex01"), Submission(path, "toy.py"), seed=seed))
        assert report["seed"] == seed
        outcomes = {test["name"]: test["outcome"] for test in report["tests"]}
        for name, passes in predicted[seed].items():
            assert outcomes.pop(name) == ("passed" if passes else "failed"), (seed, name)
        fixed.add(tuple(sorted(outcomes.items())))
    # The checks with fixed inputs see the same inputs under every seed, so they grade the same.
    assert fixed == {(("add of two small numbers", "failed"), ("pair is a tuple", "passed"),
                      ("push appends to the list it is given", "passed"),
                      ("tag rejects a negative number", "passed"))}

"""The advisory mutation report: operator mutants of a reference, graded, with survivors as diffs."""

from __future__ import annotations

import pytest

from grader.catalog import KitError
from grader.known_mistakes import load_equivalent, mutants_path
from grader.authoring.operator_mutants import operator_mutants, mutation_report, survivor_diff
from tests.conftest import run_grade

SOURCE = '''def pick(values, limit):
    best = max(values)
    for value in values:
        if value >= limit and best:
            break
    return best == 1 or True


def skipped(n):
    return n < 0  # pragma: no mutate
'''


def test_each_standard_operator_makes_its_mutants_in_source_order():
    names = [mutant.name for mutant in operator_mutants(SOURCE)]
    assert names == ["max-min-1", "and-or-1", "comparison-1", "comparison-2", "remove-break-1", "remove-return-1",
                     "and-or-2", "comparison-3", "constant+1-1", "constant-1-1", "true-false-1"]
    sources = {mutant.name: mutant.source for mutant in operator_mutants(SOURCE)}
    assert "best = (min(values))" in sources["max-min-1"]
    assert "if (value < limit) and best:" in sources["comparison-1"]
    assert "if (value > limit) and best:" in sources["comparison-2"]
    assert "return (best == 1 and True)" in sources["and-or-2"]
    assert "return best == 2 or True" in sources["constant+1-1"]
    assert "return best == 1 or False" in sources["true-false-1"]
    # The marked line is never mutated, and every mutant differs from the source in one place.
    assert all("return n < 0  # pragma: no mutate" in source for source in sources.values())


def test_a_survivor_is_shown_as_a_diff_of_its_one_change():
    mutant = next(m for m in operator_mutants(SOURCE) if m.name == "remove-break-1")
    diff = survivor_diff(SOURCE, mutant, "pick.py")
    assert diff.splitlines()[:2] == ["--- reference/pick.py", "+++ remove-break-1/pick.py"]
    assert "-            break" in diff and "+            pass" in diff


def test_the_report_scores_killed_mutants_and_leaves_equivalent_ones_out(toy_kit):
    exercise = toy_kit.resolve("ex01")
    report = mutation_report(toy_kit, exercise, {})
    # The toy's checks never try tag(0), so the two boundary changes of `n < 0` survive.
    assert sorted(mutant.name for mutant in report.survived) == ["comparison-2", "constant+1-1"]
    assert len(report.killed) == 6 and report.score == 0.75
    equivalent = mutation_report(toy_kit, exercise, {"comparison-2": "tag(0) is outside the contract",
                                                     "constant+1-1": "the same", "comparison-99": "gone"})
    assert equivalent.score == 1.0 and len(equivalent.equivalent) == 2 and not equivalent.survived
    assert equivalent.stale == ["comparison-99"]


def test_grade_check_prints_the_report_and_exits_0_whatever_survives(toy_kit):
    result = run_grade("check", "ex01", "--mutation-report", cwd=toy_kit.root)
    assert result.returncode == 0, result.stderr
    assert "ex01_toy: 6 of 8 operator mutants killed (75%), 0 marked equivalent, 2 survived" in result.stdout
    assert "+++ comparison-2/toy.py" in result.stdout and "+    if (n <= 0):" in result.stdout


def test_equivalent_mutants_are_read_from_mutants_toml_with_their_reasons(toy_kit):
    exercise = toy_kit.resolve("ex01")
    path = mutants_path(exercise, toy_kit.root)
    path.write_text('format_version = 1\n[equivalent]\n"comparison-2" = "tag(0) is outside the contract"\n')
    assert load_equivalent(exercise, toy_kit.root) == {"comparison-2": "tag(0) is outside the contract"}
    path.write_text('format_version = 1\nequivalent = ["comparison-2"]\n')
    with pytest.raises(KitError, match="field 'equivalent' must be a table of mutant names and reasons"):
        load_equivalent(exercise, toy_kit.root)
    path.write_text('format_version = 1\n[equivalent]\n"comparison-2" = ""\n')
    with pytest.raises(KitError, match="equivalent mutant 'comparison-2': the reason must be a non-empty string"):
        load_equivalent(exercise, toy_kit.root)


def test_a_stale_equivalent_name_is_reported(toy_kit):
    exercise = toy_kit.resolve("ex01")
    mutants_path(exercise, toy_kit.root).write_text('format_version = 1\n[equivalent]\n"and-or-7" = "gone"\n')
    result = run_grade("check", "ex01", "--mutation-report", cwd=toy_kit.root)
    assert result.returncode == 0, result.stderr
    assert "marked equivalent but no longer made, so the reference changed under them: and-or-7" in result.stdout

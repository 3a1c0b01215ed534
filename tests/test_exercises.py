"""Every exercise in the kit is sound: the reference and alt/ get full marks, the stub scores 0, and
every wrong/ solution loses points under several seeds (the proof `grade check` will give)."""

from __future__ import annotations

import ast

import pytest

from grader.runner import Submission, grade
from tests.conftest import REPO
from grader.catalog import Kit

KIT = Kit(REPO)
EXERCISES = KIT.exercises()
# Random checks must catch every wrong solution whatever the seed; these are a few fixed ones.
WRONG_SEEDS = (1, 20261129)


def _solutions(kind: str):
    cases = []
    for exercise in EXERCISES:
        folder = exercise.solution_dir(REPO) / kind
        for path in sorted(folder.glob("*.py")):
            cases.append(pytest.param(exercise, path, id=f"{exercise.id}-{path.stem}"))
    return cases


def _grade(exercise, path, seed=None):
    return grade(KIT, exercise, Submission(path, path.name), seed=seed)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
def test_the_reference_gets_full_marks(exercise, validate_report):
    report = validate_report(_grade(exercise, exercise.solution_dir(REPO) / exercise.module))
    failed = [(t["name"], t["message"]) for t in report["tests"] if t["outcome"] != "passed"]
    assert report["status"] == "pass", failed
    assert report["score"] == report["max_score"] > 0


@pytest.mark.parametrize("exercise, path", _solutions("alt"))
def test_every_alt_solution_gets_full_marks(exercise, path, validate_report):
    report = validate_report(_grade(exercise, path))
    failed = [(t["name"], t["message"]) for t in report["tests"] if t["outcome"] != "passed"]
    assert report["status"] == "pass", failed


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
def test_the_untouched_stub_scores_zero(exercise, validate_report):
    report = validate_report(_grade(exercise, exercise.stub_path))
    if exercise.stub_may_score is None:
        assert report["score"] == 0, [t["name"] for t in report["tests"] if t["score"]]
    assert report["status"] != "pass"


@pytest.mark.parametrize("seed", WRONG_SEEDS)
@pytest.mark.parametrize("exercise, path", _solutions("wrong"))
def test_every_wrong_solution_loses_points(exercise, path, seed, validate_report):
    report = validate_report(_grade(exercise, path, seed=seed))
    assert report["score"] < report["max_score"], f"{path.name} got full marks: a check is missing"


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
def test_metadata_stub_and_solutions_agree(exercise):
    stub = exercise.stub_path.read_text(encoding="utf-8")
    assert "# TODO" in stub
    assert exercise.hints and all(hint.strip() for hint in exercise.hints)
    assert (exercise.path / "README.md").is_file()
    for path in (exercise.stub_path, exercise.solution_dir(REPO) / exercise.module):
        defined = {node.name for node in ast.parse(path.read_text(encoding="utf-8")).body
                   if isinstance(node, ast.FunctionDef)}
        assert set(exercise.functions) <= defined, f"{path} lacks {set(exercise.functions) - defined}"
    assert list(exercise.solution_dir(REPO).glob("alt/*.py")), "every exercise needs a naive alt/ solution"


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
def test_checks_never_import_the_solutions(exercise):
    for path in exercise.checks_dir.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [alias.name for alias in node.names] + [getattr(node, "module", None) or ""]
                assert not any("solution" in name for name in names), f"{path} imports {names}"

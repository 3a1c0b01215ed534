"""grader/nothing.py: the reference's public answers, recorded, and the battery of modules that compute nothing."""

from __future__ import annotations

import ast

import pytest

from grader.catalog import KitError, load_exercise
from grader.authoring.nothing import FIXED, RECORDED_ANSWERS, battery, recorded_answers


def _toy(toy_kit):
    exercise = load_exercise(toy_kit.root / "exercises" / "ex01_toy")
    return exercise, exercise.solution_dir(toy_kit.root) / exercise.module


def test_the_public_checks_answers_are_recorded_in_order_and_once_each(toy_kit):
    exercise, reference = _toy(toy_kit)
    public = exercise.checks_dir / "test_public.py"
    public.write_text(public.read_text() + "\n\ndef test_add_again(student):\n    assert student.add(2, 3) == 5\n")
    # add answered 5, -3 and 5 again; pair two tuples; tag and push were never asked.
    assert recorded_answers(exercise, reference) == {"add": ["5", "-3"], "pair": ["(7, 7)", "('a', 'a')"]}


def test_an_answer_that_is_not_a_literal_is_left_out(toy_kit):
    exercise, reference = _toy(toy_kit)
    reference.write_text(reference.read_text().replace("return (x, x)", "return object()"))
    assert recorded_answers(exercise, reference) == {"add": ["5", "-3"]}


def test_public_checks_that_never_end_are_a_kit_error(toy_kit):
    exercise, reference = _toy(toy_kit)
    public = exercise.checks_dir / "test_public.py"
    public.write_text(public.read_text() + "\n\ndef test_forever(student):\n    while True:\n        pass\n")
    with pytest.raises(KitError, match=r"test_public.py: the public checks did not end within 2 s against the "
                                       r"reference"):
        recorded_answers(exercise, reference, timeout=2)


def test_a_reference_that_cannot_be_imported_records_nothing_and_says_so(toy_kit):
    exercise, reference = _toy(toy_kit)
    reference.write_text("def add(a, b:\n")
    with pytest.raises(KitError, match="running the public checks against the reference recorded nothing"):
        recorded_answers(exercise, reference)


def test_the_battery_holds_the_fixed_behaviours_then_each_recorded_answer_as_a_constant(toy_kit, tmp_path):
    exercise, _ = _toy(toy_kit)
    answers = {"add": ["5", "-3", "9"], "pair": ["(7, 7)"]}
    modules = battery(exercise, answers, tmp_path)
    assert len(modules) == len(FIXED) + 3
    assert [module.label for module in modules[len(FIXED):]] == [
        f"every function returns the {ordinal} answer the reference gave the public checks"
        for ordinal in ("first", "second", "third")]
    third = ast.parse(modules[-1].path.read_text())
    returns = {node.name: ast.unparse(node.body[0]) for node in third.body if isinstance(node, ast.FunctionDef)}
    # A function with fewer answers keeps its last one; one never asked returns None.
    assert returns == {"add": "return 9", "pair": "return (7, 7)", "tag": "return None", "push": "return None"}


def test_the_battery_keeps_at_most_four_recorded_answers(toy_kit, tmp_path):
    exercise, _ = _toy(toy_kit)
    modules = battery(exercise, {"add": [str(n) for n in range(10)]}, tmp_path)
    assert len(modules) == len(FIXED) + RECORDED_ANSWERS


@pytest.mark.parametrize("exercise_id", ["ex03", "ex04", "ex07"])
def test_the_recorder_hears_every_function_of_checks_that_explain_their_failures(repo_kit, exercise_id):
    """Public checks that call feedback.on_failure still give the recorder every function's answers."""
    exercise = repo_kit.resolve(exercise_id)
    reference = exercise.solution_dir(repo_kit.root) / exercise.module
    heard = recorded_answers(exercise, reference)
    assert set(heard) == set(exercise.functions)

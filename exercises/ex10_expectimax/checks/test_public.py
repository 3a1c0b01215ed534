"""Public checks for ex10: exactly the examples in the README."""

import math

import pytest

COIN_OR_SURE = {"max": [{"chance": [[0.5, 10], [0.5, 0]]}, {"min": [4, 6]}]}
SQUARES_MATTER = {"max": [{"chance": [[0.5, 2], [0.5, 8]]}, {"chance": [[0.5, 5], [0.5, 6]]}]}
SQUARED = {"max": [{"chance": [[0.5, 4], [0.5, 64]]}, {"chance": [[0.5, 25], [0.5, 36]]}]}
TWO_GHOSTS = {"max": [{"min": [{"min": [3, 7]}, {"min": [5, 1]}]},
                      {"chance": [(0.25, {"min": [4, 8]}), (0.75, 2)]}]}


def close(answer, expected):
    """The README's tolerance: 1e-9, relative, or absolute near 0."""
    return (isinstance(answer, (int, float)) and not isinstance(answer, bool)
            and math.isclose(answer, expected, rel_tol=1e-9, abs_tol=1e-9))


@pytest.mark.points(2)
@pytest.mark.hint(
    "A leaf is worth itself; 'max' takes the largest child value, 'min' the smallest, and "
    "'chance' the sum of p times each child's value."
)
def test_expectimax_examples(student):
    """expectimax on the README's trees"""
    assert close(student.expectimax(7), 7)
    assert close(student.expectimax({"chance": [[0.5, 3], [0.5, {"min": [2, 8]}]]}), 2.5)
    assert close(student.expectimax(COIN_OR_SURE), 5)
    assert close(student.expectimax(TWO_GHOSTS), 2.5)
    assert close(student.expectimax(SQUARES_MATTER), 5.5)
    assert close(student.expectimax(SQUARED), 34)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Value each child of the 'max' root and return the index (not the value) of the best one; "
    "values within 1e-9 are tied and the first of them wins."
)
def test_best_action_examples(student):
    """best_action on the README's trees, and a tie within 1e-9"""
    assert student.best_action(COIN_OR_SURE) == 0
    assert student.best_action({"max": [{"min": [10, 0]}, {"min": [4, 6]}]}) == 1
    assert student.best_action(SQUARES_MATTER) == 1
    assert student.best_action(SQUARED) == 0
    assert student.best_action({"max": [0.3, {"chance": [[0.5, 0.2], [0.5, 0.4]]}]}) == 0


@pytest.mark.points(2)
@pytest.mark.hint(
    "Keep two chances per pile size: Max to move (the best of Max's moves) and Min to move (the "
    "average over Min's legal moves). 0 counters with Max to move is a win for Max."
)
def test_win_probability_examples(student):
    """win_probability on piles 0 to 12"""
    expected = [1, 0, 1, 1, 1, 2 / 3, 1, 1, 1, 8 / 9, 1, 1, 1]
    for counters, chance in enumerate(expected):
        assert close(student.win_probability(counters), chance), f"win_probability({counters})"


@pytest.mark.points(2)
@pytest.mark.hint(
    "Value each of your moves by the average over the opponent's replies, not their minimum; "
    "on your own turns take the best. Ties go to the smallest square."
)
def test_best_move_vs_random_examples(student):
    """best_move_vs_random on the empty board and on the README's example"""
    assert student.best_move_vs_random("         ") == 0
    assert student.best_move_vs_random("   X     ") == 2
    assert student.best_move_vs_random("XX OO    ") == 2


# Raising is easy without computing anything: the points come once the functions called here
# also answer their examples right.
@pytest.mark.requires("test_expectimax_examples", "test_best_action_examples", "test_win_probability_examples",
                      "test_best_move_vs_random_examples")
@pytest.mark.hint(
    "Check the whole tree before valuing it: one key per dict, non-empty lists, numbers that are "
    "not bool, NaN or infinite, probabilities in (0, 1] that sum to 1. Check n and the board too."
)
def test_bad_input_examples(student):
    """the README's bad inputs raise ValueError"""
    for bad in ({"max": []}, {"chance": [[0.5, 1], [0.4, 2]]}, {"max": [1, True]}, {"avg": [1, 2]}):
        with pytest.raises(ValueError):
            student.expectimax(bad)
    with pytest.raises(ValueError):
        student.best_action({"min": [1, 2]})
    for bad in (-1, True, 2.0):
        with pytest.raises(ValueError):
            student.win_probability(bad)
    for bad in ("XXXOO    ", "XX       "):
        with pytest.raises(ValueError):
            student.best_move_vs_random(bad)

"""Public checks for ex01: exactly the examples in the README."""

import pytest


@pytest.mark.hint(
    "With no counters left, the player to move has already won: the opponent took the last one."
)
def test_empty_pile(student):
    """an empty pile: the player to move has won"""
    assert student.minimax(0, max_turn=True) == 1
    assert student.minimax(0, max_turn=False) == -1


@pytest.mark.points(2)
@pytest.mark.hint(
    "Score every state one move away with the other player to move; Max takes the highest score "
    "and Min the lowest."
)
def test_minimax_examples(student):
    """minimax from 6, 5 and 4 counters"""
    assert student.minimax(6, max_turn=True) == 1
    assert student.minimax(5, max_turn=False) == 1
    assert student.minimax(4, max_turn=False) == -1


@pytest.mark.points(2)
@pytest.mark.hint(
    "Score each move with Min to move next, and return the largest (score, new_state) tuple: "
    "among equal scores, the most counters left wins."
)
def test_best_move_examples(student):
    """best_move from 6 and from 5 counters"""
    assert student.best_move(6) == (1, 5)
    assert student.best_move(5) == (-1, 4)


@pytest.mark.hint("With 0 counters the game is over, so there is no move: raise ValueError.")
def test_best_move_on_empty_pile_raises(student):
    """best_move(0) raises ValueError"""
    with pytest.raises(ValueError):
        student.best_move(0)

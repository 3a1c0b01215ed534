"""Public checks for ex01: exactly the examples in the README."""

import pytest


@pytest.mark.hint(
    "With no counters left, the player to move has already won: the opponent took the last one. "
    "Scores are for Max, so that is 1 when Max is to move and -1 when Min is. A pile of 0 is the "
    "base case of minimax, not an error."
)
def test_empty_pile(student):
    """an empty pile: the player to move has won"""
    assert student.minimax(0, max_turn=True) == 1
    assert student.minimax(0, max_turn=False) == -1


@pytest.mark.points(2)
@pytest.mark.hint(
    "Score every state one move away with the other player to move; Max takes the highest score "
    "and Min the lowest. A move takes 1, 2 or 3 counters, never more than are left, and taking the "
    "last counter loses."
)
def test_minimax_examples(student):
    """minimax from 6, 5 and 4 counters"""
    assert student.minimax(6, max_turn=True) == 1
    assert student.minimax(5, max_turn=False) == 1
    assert student.minimax(4, max_turn=False) == -1


@pytest.mark.points(2)
@pytest.mark.hint(
    "Score each move with Min to move next, and return the largest (score, new_state) tuple: "
    "among equal scores, the most counters left wins. new_state is the pile left after the move, "
    "not the counters taken, and the result is a tuple, not a list."
)
def test_best_move_examples(student):
    """best_move from 6 and from 5 counters"""
    assert student.best_move(6) == (1, 5)
    assert student.best_move(5) == (-1, 4)


# Raising ValueError is also what code that computes nothing does, so this pays only once
# best_move gets the README's examples right.
@pytest.mark.requires("test_best_move_examples")
@pytest.mark.hint(
    "With 0 counters the game is over, so there is no move: raise ValueError, rather than return "
    "anything or raise another error. This check counts once best_move's examples pass."
)
def test_best_move_on_empty_pile_raises(student):
    """best_move(0) raises ValueError"""
    with pytest.raises(ValueError):
        student.best_move(0)

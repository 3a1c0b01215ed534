"""Public checks for ex06: exactly the examples in the README."""

import pytest


@pytest.mark.hint(
    "Look at all 8 lines: 3 rows, 3 columns and 2 diagonals. When no line is complete, winner "
    "returns None, on a full board too."
)
def test_winner_examples(student):
    """winner on the README's boards"""
    assert student.winner("XXXOO    ") == "X"
    assert student.winner("XO XO X  ") == "X"
    assert student.winner("XXOXO O  ") == "O"
    assert student.winner("         ") is None
    assert student.winner("XOXXOOOXX") is None
    assert student.winner("XXX      ") == "X"


# Other checks wait on this one, so it asks only for finished boards: the unfinished board is its
# own rule, in the next check, and costs only that check's points.
@pytest.mark.hint("score is +1 if ai won, -1 if it lost and 0 for a draw.")
def test_score_examples(student):
    """score on the README's boards"""
    assert student.score("XXXOO    ", "X") == 1
    assert student.score("XXXOO    ", "O") == -1
    assert student.score("XOXXOOOXX", "O") == 0


# Raising is easy without computing anything: the point comes once score's examples are right.
@pytest.mark.requires("test_score_examples")
@pytest.mark.hint(
    "While the game goes on (nobody has a line and a square is empty), score raises ValueError. "
    "This check counts once score's examples are right."
)
def test_score_unfinished_example(student):
    """score raises ValueError on the README's unfinished board"""
    with pytest.raises(ValueError):
        student.score("XX OO    ", "X")


@pytest.mark.points(2)
@pytest.mark.call_timeout(60)
@pytest.mark.timeout(180)
@pytest.mark.hint(
    "minimax gives the value for ai: maximise on ai's turns, minimise on the other side's. "
    "The side to move follows from the counts."
)
def test_minimax_examples(student):
    """minimax on the README's boards"""
    assert student.minimax("         ", "X") == 0
    assert student.minimax("         ", "O") == 0
    assert student.minimax("XX OO    ", "X") == 1
    assert student.minimax("XX OO    ", "O") == -1
    assert student.minimax("X       O", "X") == 1
    assert student.minimax("XXXOO    ", "O") == -1


@pytest.mark.points(2)
@pytest.mark.hint(
    "Try every empty square and return the number (0 to 8) of one whose minimax value is best "
    "for the side to move."
)
def test_best_move_examples(student):
    """best_move on the README's boards"""
    assert student.best_move("XX OO    ") == 2
    assert student.best_move("XX  O    ") == 2
    assert student.best_move("X       O") in (2, 6)
    assert student.best_move("  X OOX  ") == 3


# Raising is easy without computing anything: the points come once each function called here
# also answers its examples right.
@pytest.mark.requires("test_best_move_examples", "test_minimax_examples", "test_winner_examples")
@pytest.mark.hint(
    "Check the board first: 9 characters of 'X', 'O' and ' ' for every function; for minimax and "
    "best_move also the counts and at most one line; best_move also needs a game that is not over. "
    "This check counts once winner, minimax and best_move also get their examples right."
)
def test_bad_input_examples(student):
    """the README's bad boards raise ValueError"""
    with pytest.raises(ValueError):
        student.best_move("XXXOO    ")
    with pytest.raises(ValueError):
        student.best_move("XX       ")
    with pytest.raises(ValueError):
        student.minimax("XXXOOO   ", "X")
    with pytest.raises(ValueError):
        student.winner("XXO")
    with pytest.raises(ValueError):
        student.winner("xx o     ")

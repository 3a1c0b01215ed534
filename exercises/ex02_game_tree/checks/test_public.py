"""Public checks for ex02: exactly the examples in the README."""

import pytest


@pytest.mark.points(2)
@pytest.mark.hint(
    "Compare with the README's drawing of the tree for 4: from 2 or more a player leaves at least "
    "one counter, and the 0 at the end of a game is not written. Each game is a tuple of the piles "
    "before each move, and the list of games is sorted."
)
def test_games_of_four(student):
    """games(4), the tree drawn in the README"""
    assert student.games(4) == [(4, 1), (4, 2, 1), (4, 3, 1), (4, 3, 2, 1)]


@pytest.mark.hint(
    "The games are sorted in ascending order, the order sorted() puts tuples in, and each is a "
    "tuple that starts at the pile and ends at 1. From 2 or more a player leaves at least one "
    "counter."
)
def test_first_and_last_game_of_six(student):
    """the first and last of the games from 6"""
    got = student.games(6)
    assert got[0] == (6, 3, 1)
    assert got[-1] == (6, 5, 4, 3, 2, 1)


@pytest.mark.hint("Count every number in the README's drawing, the root 4 and the four 0s included.")
def test_count_nodes_of_four(student):
    """count_nodes(4)"""
    assert student.count_nodes(4) == 12


@pytest.mark.hint(
    "Whoever moves from 1 takes the last counter and loses; the first player moves from the root. "
    "Return a tuple, the first player's wins first and the second player's wins second."
)
def test_wins(student):
    """wins(4) and wins(5)"""
    assert student.wins(4) == (2, 2)
    assert student.wins(5) == (3, 4)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Follow the README's worked example: count every node as you enter it, the root and the leaf "
    "included; the first child of 4 is 1 (take 3), its leaf scores +1 because it is Max's turn "
    "there, and then beta <= alpha at the root, so nothing else is entered or counted."
)
def test_pruned_nodes_of_four(student):
    """pruned_nodes(4), the worked example"""
    assert student.pruned_nodes(4) == 3


# Raising ValueError is also what code that computes nothing does, so this pays only once every
# function it calls gets its README example right.
@pytest.mark.requires("test_games_of_four", "test_count_nodes_of_four", "test_wins",
                      "test_pruned_nodes_of_four")
@pytest.mark.hint(
    "Every function starts by rejecting n < 1 with a ValueError, not another error and not a "
    "result. This check counts once all four functions get their examples for 4 right."
)
def test_zero_raises_value_error(student):
    """a pile of 0 raises ValueError in every function"""
    with pytest.raises(ValueError):
        student.games(0)
    with pytest.raises(ValueError):
        student.count_nodes(0)
    with pytest.raises(ValueError):
        student.wins(0)
    with pytest.raises(ValueError):
        student.pruned_nodes(0)

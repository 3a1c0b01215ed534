"""Public checks for ex02: exactly the examples in the README."""

import pytest


@pytest.mark.points(3)
@pytest.mark.hint(
    "Compare with the README's drawing of the tree for 4: from 2 or more a player leaves at least "
    "one counter, and the 0 at the end of a game is not written. Each game is a tuple of the piles "
    "before each move, from the pile down to 1, and the list of games is sorted the way sorted() "
    "sorts tuples."
)
def test_games_of_four_and_six(student):
    """games(4), the tree drawn in the README, and the first and last games from 6"""
    assert student.games(4) == [(4, 1), (4, 2, 1), (4, 3, 1), (4, 3, 2, 1)]
    got = student.games(6)
    assert got[0] == (6, 3, 1)
    assert got[-1] == (6, 5, 4, 3, 2, 1)


@pytest.mark.hint(
    "Count every number in the README's drawing of the tree for 4, the root 4 and the four 0s "
    "included: 12. The tree for 5, drawn in the second worked example, has 22."
)
def test_count_nodes_of_four_and_five(student):
    """count_nodes(4) and count_nodes(5)"""
    assert student.count_nodes(4) == 12
    assert student.count_nodes(5) == 22


@pytest.mark.hint(
    "Whoever moves from 1 takes the last counter and loses; the first player moves from the root. "
    "Return a tuple, the first player's wins first and the second player's wins second."
)
def test_wins(student):
    """wins(4) and wins(5)"""
    assert student.wins(4) == (2, 2)
    assert student.wins(5) == (3, 4)


@pytest.mark.points(3)
@pytest.mark.hint(
    "Follow the README's two worked examples: count every node as you enter it, the root and the "
    "leaves included, and nothing under a skipped child. For 4, the first leaf scores +1 and the "
    "root stops at once (3 nodes); for 5, the root tries 2, 3 and 4, and inside 3 and 4 the first "
    "child already scores -1, so the rest of each is skipped (10 nodes)."
)
def test_pruned_nodes_of_four_and_five(student):
    """pruned_nodes(4) and pruned_nodes(5), the worked examples"""
    assert student.pruned_nodes(4) == 3
    assert student.pruned_nodes(5) == 10


# One answer per function: each of them alone is also what code that returns a constant gives,
# so this pays only once every function gets its examples for 4 and 5 right.
@pytest.mark.requires("test_games_of_four_and_six", "test_count_nodes_of_four_and_five", "test_wins",
                      "test_pruned_nodes_of_four_and_five")
@pytest.mark.points(2)
@pytest.mark.hint(
    "The README's table for a pile of 6: 13 games, 41 nodes, 7 games won by the first player and "
    "6 by the second, and 17 nodes entered by alpha-beta. This check counts once all four "
    "functions get their examples for 4 and 5 right."
)
def test_pile_of_six(student):
    """the headline numbers for a pile of 6"""
    assert len(student.games(6)) == 13
    assert student.count_nodes(6) == 41
    assert student.wins(6) == (7, 6)
    assert student.pruned_nodes(6) == 17


# Raising ValueError is also what code that computes nothing does, so this pays only once every
# function it calls gets its README examples right.
@pytest.mark.requires("test_games_of_four_and_six", "test_count_nodes_of_four_and_five", "test_wins",
                      "test_pruned_nodes_of_four_and_five")
@pytest.mark.hint(
    "Every function starts by rejecting n < 1 with a ValueError, not another error and not a "
    "result. This check counts once all four functions get their examples for 4 and 5 right."
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

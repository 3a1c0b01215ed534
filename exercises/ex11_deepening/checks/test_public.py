"""Public checks for ex11: exactly the examples in the README."""

import pytest
from time_allowance import allowed_s

EMPTY_BOARD = (".......",) * 6
WIN_NOW = (".......", ".......", ".......", ".......", "OOO....", "XXX....")
# Columns 2 and 4 tie at depth 1, and at depth 2 two children are cut off where alpha equals beta.
CENTRE_STACK = (".......", ".......", ".......", ".......", "...O...", "...X...")


def triple(answer):
    """A (col, value, leaves) answer as a tuple, from a tuple or a list."""
    return tuple(answer) if isinstance(answer, (tuple, list)) else answer


@pytest.mark.points(2)
@pytest.mark.hint(
    "Score the root's children as leaves at depth 1, then go one ply deeper at a time. Count every "
    "position you score (won, full or at the depth limit) and no other, and try columns 3, 2, 4, 1, 5, 0, 6."
)
def test_search_on_the_empty_board(student):
    """search on the empty board at depths 1 to 3"""
    assert triple(student.search(EMPTY_BOARD, 1)) == (3, 3, 7)
    assert triple(student.search(EMPTY_BOARD, 2)) == (3, 0, 13)
    assert triple(student.search(EMPTY_BOARD, 3)) == (3, 6, 55)


@pytest.mark.hint(
    "At the root only, try `first` before the centre-out order, and do not try it twice. The root's "
    "alpha rises after every child, and only a strictly larger value replaces the best column."
)
def test_search_with_first(student):
    """search with a first column"""
    assert triple(student.search(EMPTY_BOARD, 3, first=0)) == (3, 6, 61)
    assert triple(student.search(EMPTY_BOARD, 3, first=3)) == (3, 6, 55)


@pytest.mark.hint(
    "At the root, keep the first column that reaches the best value; a later column replaces it "
    "only with a strictly larger value."
)
def test_a_tie_keeps_the_first_column(student):
    """search where two columns tie at depth 1"""
    assert triple(student.search(CENTRE_STACK, 1)) == (2, 6, 7)


@pytest.mark.hint(
    "Cut off as soon as alpha >= beta: a reply that brings beta down to alpha already settles the "
    "position. A later root column whose value only equals the best keeps the earlier column."
)
def test_a_cutoff_where_alpha_equals_beta(student):
    """search where children are cut off with alpha equal to beta"""
    assert triple(student.search(CENTRE_STACK, 2)) == (3, 0, 15)


@pytest.mark.hint("A win k plies below the root scores WIN + (depth - k): the same win found sooner is worth more.")
def test_a_quicker_win_is_worth_more(student):
    """search where the side to move wins at once"""
    assert triple(student.search(WIN_NOW, 1)) == (3, 1_000_000, 7)
    assert triple(student.search(WIN_NOW, 3)) == (3, 1_000_002, 43)


@pytest.mark.requires("test_search_on_the_empty_board")
@pytest.mark.hint("deepen is one search per depth, each given the previous depth's column as first.")
def test_deepen_on_the_empty_board(student):
    """deepen on the empty board to depth 3"""
    assert [triple(entry) for entry in student.deepen(EMPTY_BOARD, 3)] == [
        (1, 3, 3, 7), (2, 3, 0, 13), (3, 3, 6, 55)]


# The call's own limit is the time the README allows: a timed_move that runs past it is stopped there.
@pytest.mark.call_timeout(allowed_s(0.3))
@pytest.mark.requires("test_search_on_the_empty_board")
@pytest.mark.hint(
    "Check the clock inside the search and give up a depth that runs past the deadline; return the "
    "column of the deepest search that finished, and at least depth 1's."
)
def test_timed_move_is_legal_and_on_time(student):
    """timed_move with a budget of 0.3 s"""
    assert student.timed_move(EMPTY_BOARD, 0.3) in range(7)


# Raising is easy without searching anything: the points come once search also counts right.
@pytest.mark.requires("test_search_on_the_empty_board")
@pytest.mark.hint(
    "Check the board (the given to_move does), that the game is not over, the depth (an int of at "
    "least 1, not a bool), first (None or an int from 0 to 6, not a bool) and seconds (a positive number)."
)
def test_bad_input_examples(student):
    """the README's bad inputs raise ValueError"""
    for depth in (0, -1, True, 2.0):
        with pytest.raises(ValueError):
            student.search(EMPTY_BOARD, depth)
    for first in (7, False):
        with pytest.raises(ValueError):
            student.search(EMPTY_BOARD, 2, first=first)
    # four X and no O is a bad board; WIN_NOW after X's winning move is a game that is over
    for board in (("XXXX...", ) + (".......",) * 5, (".......",) * 4 + ("OOO....", "XXXX...")):
        with pytest.raises(ValueError):
            student.search(board, 2)
    with pytest.raises(ValueError):
        student.deepen(EMPTY_BOARD, 0)
    for seconds in (0, -1, True):
        with pytest.raises(ValueError):
            student.timed_move(EMPTY_BOARD, seconds)

"""Public checks for ex08: exactly the examples in the README."""

import pytest

EMPTY = (".......",) * 6
COLUMN_0_FULL = ("X......", "O......", "X......", "O......", "X......", "O......")


def mirror(board):
    """The board seen in a mirror: column c becomes column 6 - c."""
    return tuple(row[::-1] for row in board)


def play(moves):
    """The board after playing these columns from the empty board, X first (written out by hand)."""
    boards = {
        (0, 0, 1, 1, 2, 2): (".......",) * 4 + ("OOO....", "XXX...."),
        (1, 1, 2, 2, 3, 3): (".......",) * 4 + (".OOO...", ".XXX..."),
        (0, 5, 6, 5, 0, 5): (".......",) * 3 + (".....O.", "X....O.", "X....OX"),
        (2, 6, 3, 6): (".......",) * 4 + ("......O", "..XX..O"),
        (0, 1, 0, 1, 0, 1, 0): (".......",) * 2 + ("X......", "XO.....", "XO.....", "XO....."),
        (6, 0, 6, 1, 5, 2, 4, 3): (".......",) * 4 + ("......X", "OOOOXXX"),
    }
    return boards[tuple(moves)]


@pytest.mark.hint(
    "A column is a legal move while its top cell, board[0][col], is empty; return those columns "
    "as a list, in ascending order."
)
def test_legal_moves_examples(student):
    """legal_moves on the empty board and with column 0 full"""
    assert student.legal_moves(EMPTY) == [0, 1, 2, 3, 4, 5, 6]
    assert student.legal_moves(COLUMN_0_FULL) == [1, 2, 3, 4, 5, 6]


@pytest.mark.hint(
    "The piece falls to the lowest empty cell; board[5] is the bottom row. X moves first, then O "
    "(when X has one more piece), and drop returns a new tuple of 6 strings."
)
def test_drop_examples(student):
    """drop into the middle column, twice"""
    once = (".......",) * 5 + ("...X...",)
    twice = (".......",) * 4 + ("...O...", "...X...")
    assert student.drop(EMPTY, 3) == once
    assert student.drop(once, 3) == twice


@pytest.mark.hint(
    "Look for four in a row across, up and down, and along both diagonals, and return the "
    "piece that made it (\"X\" or \"O\"), or None when nobody has one."
)
def test_winner_examples(student):
    """winner: none, a column of four, a diagonal"""
    assert student.winner(EMPTY) is None
    assert student.winner((".......", ".......", "O......", "O......", "OXXX...", "OXXX...")) == "O"
    assert student.winner((".......", ".......", "...X...", "..XO...", ".XOX...", "XOXO..O")) == "X"


@pytest.mark.hint("Score a position where the move just made four in a row as a win, before anything else.")
def test_best_move_takes_the_win(student):
    """best_move takes the win after [0,0,1,1,2,2] and [1,1,2,2,3,3] (depth 1)"""
    assert student.best_move(play([0, 0, 1, 1, 2, 2]), 1) == 3
    assert student.best_move(play([1, 1, 2, 2, 3, 3]), 1) in (0, 4)


@pytest.mark.hint(
    "At depth 2 the search sees the opponent's reply; on the opponent's turn it takes the minimum."
)
def test_best_move_blocks(student):
    """best_move blocks after [0,5,6,5,0,5], and in the mirror (depth 2)"""
    assert student.best_move(play([0, 5, 6, 5, 0, 5]), 2) == 5
    assert student.best_move(mirror(play([0, 5, 6, 5, 0, 5])), 2) == 1


@pytest.mark.hint(
    "At depth 4 the search sees that two threats at once win: pass depth - 1 down the recursion."
)
def test_best_move_makes_a_fork(student):
    """best_move makes a fork after [2,6,3,6], and in the mirror (depth 4)"""
    assert student.best_move(play([2, 6, 3, 6]), 4) in (1, 4)
    assert student.best_move(mirror(play([2, 6, 3, 6])), 4) in (2, 5)


# X to move, with columns 0, 4 and 5 open: 5 holds the draw, 0 and 4 let O win. Searched centre
# first with alpha-beta, column 0 comes last and its score is only a bound, equal to the draw's.
ROOT_TIE_BOARD = (".XXO..X", "XOOX..O", "OXXXO.X", "XOOOXOO", "OOXXXOX", "XXOXOOO")


@pytest.mark.hint(
    "At the root, keep the first column that reaches the best score and change it only for a "
    "strictly higher one: with alpha-beta, a column searched later can come back with a score "
    "equal to the best so far that is only a bound, while its real value is lower."
)
def test_best_move_keeps_the_first_best_column(student):
    """best_move holds the draw on the README's nearly full board (depths 3 and 8)"""
    for depth in (3, 8):
        assert student.best_move(ROOT_TIE_BOARD, depth) == 5
        assert student.best_move(mirror(ROOT_TIE_BOARD), depth) == 1


@pytest.mark.hint(
    "evaluate returns an int or a float, and a won board scores higher than a lost one for the "
    "same player."
)
def test_evaluate_example(student):
    """evaluate scores X's win above X's loss"""
    won = student.evaluate(play([0, 1, 0, 1, 0, 1, 0]), "X")
    lost = student.evaluate(play([6, 0, 6, 1, 5, 2, 4, 3]), "X")
    assert type(won) in (int, float) and type(lost) in (int, float)
    assert won > lost


# Raising is easy without computing anything: each point comes once the function that raises
# answers the README's examples right. Each rule has its own check, so a mistake in one costs only
# that one.
@pytest.mark.requires("test_drop_examples")
@pytest.mark.hint(
    "A column with 6 pieces has no room: drop raises ValueError. This check counts once drop's "
    "examples are right."
)
def test_full_column_example(student):
    """drop raises ValueError for the README's full column"""
    with pytest.raises(ValueError):
        student.drop(COLUMN_0_FULL, 0)


@pytest.mark.requires("test_drop_examples")
@pytest.mark.hint(
    "Columns are 0 to 6: drop raises ValueError for any other. This check counts once drop's "
    "examples are right."
)
def test_column_out_of_range_example(student):
    """drop raises ValueError for column 7"""
    with pytest.raises(ValueError):
        student.drop(EMPTY, 7)


@pytest.mark.requires("test_best_move_takes_the_win")
@pytest.mark.hint(
    "best_move needs a depth of at least 1: depth 0 raises ValueError. This check counts once "
    "best_move's winning move is right."
)
def test_small_depth_example(student):
    """best_move raises ValueError for depth 0"""
    with pytest.raises(ValueError):
        student.best_move(EMPTY, 0)

"""WRONG ON PURPOSE: score returns 0 for a game that is still going instead of raising.
"""

from __future__ import annotations

from functools import cache

__all__ = ["winner", "score", "minimax", "best_move"]

MARKS = ("X", "O")
EMPTY = " "
LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),             # diagonals
)


def winner(board):
    """Return ``"X"`` or ``"O"`` if that side has three in a line, else ``None``.

    Only the board's length and characters are checked; piece counts are not.
    Raises ``ValueError`` for a board that is not 9 characters of ``"X"``,
    ``"O"`` and ``" "``.
    """
    _check_board(board)
    return _line_owner(board)


def score(board, ai):
    """Score a finished board for ``ai``: +1 if ``ai`` won, -1 if it lost, 0 for a draw.

    A board is finished when a side has a line or no square is empty. Raises
    ``ValueError`` for a malformed board, an ``ai`` that is not ``"X"`` or
    ``"O"``, or a board on which the game is still going.
    """
    _check_board(board)
    _check_mark(ai, "ai")
    owner = _line_owner(board)
    return _outcome(owner, ai)


def minimax(board, ai):
    """Return the value of ``board`` for ``ai`` when both sides play perfectly.

    +1 means ``ai`` can force a win, -1 that the opponent can, 0 a draw. On a
    finished board this is its ``score``. Raises ``ValueError`` for a
    malformed or impossible board (see ``_check_position``) or a bad ``ai``.
    """
    _check_position(board)
    _check_mark(ai, "ai")
    value = _value_for_x(board)
    return value if ai == "X" else -value


def best_move(board):
    """Return a square (0-8) where the side to move reaches the best value it can force.

    Among equally good squares the lowest is chosen. Raises ``ValueError`` for
    a malformed or impossible board, or when the game is already over.
    """
    _check_position(board)
    owner = _line_owner(board)
    if owner is not None:
        raise ValueError(f"the game is over: {owner} has already won")
    if EMPTY not in board:
        raise ValueError("the game is over: the board is full")
    mover = _side_to_move(board)
    sign = 1 if mover == "X" else -1

    def value_for_mover(square):
        return sign * _value_for_x(_play(board, square, mover))

    # max keeps the first of equal values, so ties go to the lowest square.
    return max(_empty_squares(board), key=value_for_mover)


# --------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------

def _line_owner(board):
    """The side owning the first complete line, or None."""
    for a, b, c in LINES:
        if board[a] != EMPTY and board[a] == board[b] == board[c]:
            return board[a]
    return None


def _has_line(board, mark):
    return any(board[a] == board[b] == board[c] == mark for a, b, c in LINES)


def _outcome(owner, ai):
    """+1, -1 or 0 for ``ai``, given the winner (None for a draw)."""
    if owner is None:
        return 0
    return 1 if owner == ai else -1


def _side_to_move(board):
    return "X" if board.count("X") == board.count("O") else "O"


def _empty_squares(board):
    return [square for square in range(9) if board[square] == EMPTY]


def _play(board, square, mark):
    """A new board with ``mark`` on ``square``."""
    return board[:square] + mark + board[square + 1:]


@cache
def _value_for_x(board):
    """Minimax value of a (checked) position from X's point of view."""
    owner = _line_owner(board)
    if owner is not None or EMPTY not in board:
        return _outcome(owner, "X")
    mover = _side_to_move(board)
    values = [_value_for_x(_play(board, square, mover)) for square in _empty_squares(board)]
    return max(values) if mover == "X" else min(values)


# --------------------------------------------------------------------------
# Checking the input
# --------------------------------------------------------------------------

def _check_board(board):
    """A board is a str of exactly 9 characters, each "X", "O" or " "."""
    if not isinstance(board, str):
        raise ValueError(f"a board must be a str of 9 characters, not a {type(board).__name__}")
    if len(board) != 9:
        raise ValueError(f"a board must have exactly 9 characters, this one has {len(board)}")
    for square, char in enumerate(board):
        if char not in ("X", "O", EMPTY):
            raise ValueError(f"square {square} holds {char!r}; only 'X', 'O' and ' ' are allowed")


def _check_mark(mark, name):
    if mark not in MARKS:
        raise ValueError(f"{name} must be 'X' or 'O', got {mark!r}")


def _check_position(board):
    """A well-formed board that could be a position: sane piece counts and at most one winner."""
    _check_board(board)
    xs, os = board.count("X"), board.count("O")
    if xs - os not in (0, 1):
        raise ValueError(
            f"X has {xs} pieces and O has {os}; since X moves first, X must have as many pieces "
            "as O or exactly one more"
        )
    if _has_line(board, "X") and _has_line(board, "O"):
        raise ValueError("both X and O have a line of three; at most one side can have won")

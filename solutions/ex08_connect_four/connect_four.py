"""Connect-4 with a depth-limited alpha-beta search (reference solution).

A board is a tuple of 6 strings of 7 characters, the top row first. ``"."``
is an empty cell, ``"X"`` moved first and ``"O"`` moved second, so the side
to move follows from the piece counts. A piece dropped into a column falls to
the lowest empty cell of that column.

The search cannot reach the end of the game from most positions, so it looks
``depth`` plies ahead. A position where someone has four in a row is scored
as a win or a loss straight away; only the positions at the depth limit are
scored by the heuristic ``evaluate``.
"""

from __future__ import annotations

import itertools
import math

__all__ = ["legal_moves", "drop", "winner", "evaluate", "best_move"]

ROWS = 6
COLS = 7
EMPTY = "."
PLAYERS = ("X", "O")
CELLS = {EMPTY, *PLAYERS}

# The four directions a line can run in: right, down, down-right, up-right.
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (-1, 1))


def _on_board(row: int, col: int) -> bool:
    """True if (row, col) is a cell of the board."""
    return 0 <= row < ROWS and 0 <= col < COLS


def _all_windows():
    """Every group of four cells in a straight line, as lists of (row, col); there are 69."""
    windows = []
    for row in range(ROWS):
        for col in range(COLS):
            for d_row, d_col in DIRECTIONS:
                cells = [(row + k * d_row, col + k * d_col) for k in range(4)]
                if all(_on_board(r, c) for r, c in cells):
                    windows.append(cells)
    return windows


WINDOWS = _all_windows()
# The same windows as positions in the 42-character string "".join(board), for fast scoring.
FLAT_WINDOWS = tuple(tuple(r * COLS + c for r, c in cells) for cells in WINDOWS)

# Score of the won position found ``k`` plies before the depth limit: WIN + k.
# Winning sooner scores higher, and every heuristic value lies far below WIN.
WIN = 1_000_000  # pragma: no mutate (any WIN far above every heuristic value plays the same)
# Heuristic points for a window of four that holds k pieces of one player and none of the other,
# indexed by k. A full window is a four in a row, which evaluate scores before it counts windows.
WINDOW_WEIGHTS = (0, 0, 2, 5, 0)  # pragma: no mutate (the heuristic is the student's own)
CENTRE_WEIGHT = 3  # pragma: no mutate (the heuristic is the student's own)
# Columns tried centre first: the centre usually holds the best move, which makes cutoffs come earlier.
SEARCH_ORDER = (3, 2, 4, 1, 5, 0, 6)


# --------------------------------------------------------------------------
# Checking boards
# --------------------------------------------------------------------------

def _check_shape(board) -> None:
    """Raise ValueError unless ``board`` is a tuple of 6 strings of 7 characters from ".XO"."""
    if type(board) is not tuple:
        raise ValueError(f"a board is a tuple of {ROWS} strings, not a {type(board).__name__}")
    if len(board) != ROWS:
        raise ValueError(f"a board has {ROWS} rows, this one has {len(board)}")
    for index, row in enumerate(board):
        if type(row) is not str:
            raise ValueError(f"row {index} is a {type(row).__name__}, not a str")
        if len(row) != COLS:
            raise ValueError(f"row {index} is {row!r}: a row has {COLS} characters, not {len(row)}")
        bad = set(row) - CELLS
        if bad:
            raise ValueError(f"row {index} is {row!r}: {sorted(bad)!r} not allowed, only '.', 'X' and 'O'")


def _lines_of(board) -> set[str]:
    """The players that have at least one four in a row on ``board``."""
    owners = set()
    for cells in WINDOWS:
        first = board[cells[0][0]][cells[0][1]]
        if first != EMPTY and all(board[r][c] == first for r, c in cells[1:]):
            owners.add(first)
    return owners


def _side_to_move(board) -> str:
    """The player to move in a plausible position; ValueError for an impossible one.

    X moves first, so X has as many pieces as O or one more. At most one of
    them may have four in a row.
    """
    x_count = sum(row.count("X") for row in board)
    o_count = sum(row.count("O") for row in board)
    if x_count not in (o_count, o_count + 1):
        raise ValueError(
            f"impossible counts: {x_count} X and {o_count} O (X moves first, so X has as many as O or one more)"
        )
    if len(_lines_of(board)) == 2:
        raise ValueError("impossible board: both X and O have four in a row")
    return "X" if x_count == o_count else "O"


def _landing_row(board, col: int):
    """The row a piece dropped into ``col`` lands on, or None when the column is full."""
    for row in range(ROWS - 1, -1, -1):
        if board[row][col] == EMPTY:
            return row
    return None


def _place(board, row: int, col: int, piece: str):
    """A new board with ``piece`` at (row, col); nothing is checked."""
    line = board[row]
    return board[:row] + (line[:col] + piece + line[col + 1:],) + board[row + 1:]


# --------------------------------------------------------------------------
# The public functions
# --------------------------------------------------------------------------

def legal_moves(board) -> list[int]:
    """The columns that are not full, in ascending order.

    Only the shape and the characters of ``board`` are checked; on a finished
    game this still lists the columns that have room.
    """
    _check_shape(board)
    return [col for col in range(COLS) if board[0][col] == EMPTY]


def drop(board, col):
    """The board after the side to move drops a piece into column ``col``.

    Raises ValueError for a bad or impossible board, a column that is not an
    int from 0 to 6, a full column, or a game that is already over.
    """
    _check_shape(board)
    piece = _side_to_move(board)
    if type(col) is not int or not 0 <= col < COLS:
        raise ValueError(f"column must be an int from 0 to 6, got {col!r}")
    if winner(board) is not None:
        raise ValueError(f"the game is over: {winner(board)} has four in a row")
    row = _landing_row(board, col)
    if row is None:
        raise ValueError(f"column {col} is full")
    return _place(board, row, col, piece)


def winner(board):
    """``"X"`` or ``"O"`` if that player has four in a row (in any direction), else None.

    Only the shape and the characters of ``board`` are checked.
    """
    _check_shape(board)
    owners = _lines_of(board)
    return owners.pop() if owners else None


def evaluate(board, player) -> float:
    """A heuristic score of ``board`` for ``player``: higher is better for ``player``.

    A won board scores WIN and a lost one -WIN. Otherwise every window of four
    cells that holds only one player's pieces counts for that player (2 points
    for two pieces, 5 for three), and every piece in the centre column is worth
    3 points; the score is ``player``'s points minus the opponent's.
    """
    _check_shape(board)
    if player not in PLAYERS:
        raise ValueError(f"player must be 'X' or 'O', got {player!r}")
    opponent = "O" if player == "X" else "X"
    owners = _lines_of(board)
    if owners == {player}:
        return float(WIN)
    if owners == {opponent}:
        return float(-WIN)
    # Only the windows are left to count (also, for want of anything better, when both players
    # have four in a row, which no game can reach).
    return _window_score(board, player)


def _window_points_for_x(window: str) -> int:
    """X's points for one window of four cells; O's points are the same with the sign flipped."""
    x_count, o_count = window.count("X"), window.count("O")
    if o_count == 0:
        return WINDOW_WEIGHTS[x_count]
    if x_count == 0:
        return -WINDOW_WEIGHTS[o_count]
    # Both players have a piece here: nobody can make four in this window.
    return 0  # pragma: no mutate (the heuristic is the student's own)


# X's points for each of the 81 possible contents of a window, so that scoring a board takes one
# lookup per window. The search scores thousands of boards per move, so this matters.
POINTS_FOR_X = {
    "".join(cells): _window_points_for_x("".join(cells)) for cells in itertools.product(".XO", repeat=4)
}


def _window_score(board, player) -> float:
    """The heuristic part of evaluate(): window and centre points, for a board nobody has won."""
    flat = "".join(board)
    score_for_x = sum(POINTS_FOR_X[flat[a] + flat[b] + flat[c] + flat[d]] for a, b, c, d in FLAT_WINDOWS)
    centre = flat[COLS // 2::COLS]  # pragma: no mutate (the heuristic is the student's own)
    score_for_x += CENTRE_WEIGHT * (centre.count("X") - centre.count("O"))
    return float(score_for_x if player == "X" else -score_for_x)


def best_move(board, depth):
    """The column the side to move should play, found by alpha-beta looking ``depth`` plies ahead.

    Raises ValueError for a bad or impossible board, a finished or full game,
    or a ``depth`` that is not an int of at least 1.
    """
    _check_shape(board)
    me = _side_to_move(board)
    if type(depth) is not int or depth < 1:
        raise ValueError(f"depth must be an int of at least 1, got {depth!r}")
    if winner(board) is not None:
        raise ValueError(f"the game is over: {winner(board)} has four in a row")
    if not legal_moves(board):
        raise ValueError("the board is full: there is no move to make")

    best_col, best_score = None, -math.inf
    alpha = -math.inf
    for col, child, won in _children(board, me):
        score = WIN + depth - 1 if won else _search(child, depth - 1, alpha, math.inf, me, False)
        if score > best_score:
            best_col, best_score = col, score
        alpha = max(alpha, best_score)
    return best_col


def _children(board, piece):
    """(column, next board, whether that move made four in a row) for every legal move, centre first."""
    for col in SEARCH_ORDER:
        row = _landing_row(board, col)
        if row is not None:
            child = _place(board, row, col, piece)
            yield col, child, _makes_four(child, row, col)


def _makes_four(board, row: int, col: int) -> bool:
    """True if the piece at (row, col) is part of four in a row."""
    piece = board[row][col]
    for d_row, d_col in DIRECTIONS:
        run = 1
        for sign in (1, -1):
            r, c = row + sign * d_row, col + sign * d_col
            while _on_board(r, c) and board[r][c] == piece:
                run += 1
                r, c = r + sign * d_row, c + sign * d_col
        if run >= 4:
            return True
    return False


def _search(board, depth, alpha, beta, me, my_turn):
    """Alpha-beta value of a game that is not over, for player ``me``, ``depth`` plies deep.

    A move that makes four in a row ends that line of play at once, worth
    WIN plus the plies left to spare for the player who made it.
    """
    if EMPTY not in board[0]:
        return 0  # a full board with no four in a row is a draw
    if depth == 0:
        # Nobody has won here (the search stops at a four), so this is exactly evaluate(board, me).
        return _window_score(board, me)
    mover = me if my_turn else ("O" if me == "X" else "X")
    best = -math.inf if my_turn else math.inf
    for _col, child, won in _children(board, mover):
        if won:
            score = WIN + depth - 1 if my_turn else -(WIN + depth - 1)
        else:
            score = _search(child, depth - 1, alpha, beta, me, not my_turn)
        if my_turn:
            best = max(best, score)
            alpha = max(alpha, best)
        else:
            best = min(best, score)
            beta = min(beta, best)
        if alpha >= beta:
            break
    return best

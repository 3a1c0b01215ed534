"""Iterative deepening for Connect-4 against the clock (reference solution).

The rules and the heuristic are given (connect_four_rules); this is the search alone. Positions
are valued from the point of view of the side to move at the root ("me"), by alpha-beta in
minimax form: the best found is returned (fail-soft), and a node stops as soon as alpha >= beta.
"""

from __future__ import annotations

import math
import time

from connect_four_rules import WIN, evaluate, legal_moves, to_move, winner

__all__ = ["search", "deepen", "timed_move"]

# Columns from the centre out: the order every node tries its moves in, after `first` at the root.
CENTRE_OUT = (3, 2, 4, 1, 5, 0, 6)
# timed_move returns within its budget plus this: the time a search checks the clock after.
SLACK_S = 0.05


class _OutOfTime(Exception):
    """The deadline passed in the middle of a search; that depth's search is thrown away."""


def search(board, depth, first=None):
    """Alpha-beta `depth` plies ahead for the side to move: (best column, its value, leaves scored)."""
    _check_depth(depth)
    return _root(board, depth, first, deadline=None)


def deepen(board, max_depth):
    """`search` at depths 1 to max_depth, each with the previous depth's column first: (depth, col, value, leaves)."""
    _check_depth(max_depth)
    results, first = [], None
    for depth in range(1, max_depth + 1):
        col, value, leaves = _root(board, depth, first, deadline=None)
        results.append((depth, col, value, leaves))
        first = col
    return results


def timed_move(board, seconds):
    """The column of the deepest search that finishes within `seconds` (plus SLACK_S), and at least depth 1's."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds < math.inf:
        raise ValueError(f"seconds must be a positive number, not {seconds!r}")
    deadline = time.monotonic() + seconds
    col, value, _ = _root(board, 1, None, deadline=None)  # depth 1 always finishes: it is at least that
    empty = sum(row.count(".") for row in board)
    for depth in range(2, empty + 1):  # no search goes deeper than the moves left in the game
        if abs(value) >= WIN:
            break  # a proven win or loss: no deeper search changes the verdict
        try:
            col, value, _ = _root(board, depth, col, deadline)
        except _OutOfTime:
            break
    return col


def _check_depth(depth):
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise ValueError(f"depth must be an int of at least 1, not {depth!r}")


def _root(board, depth, first, deadline):
    """The root of one search: every move in order, keeping the first column that reaches the best value."""
    me = to_move(board)  # the given rules check the board once; below the root, moves are made here
    if winner(board) is not None or not legal_moves(board):
        raise ValueError("the game is over")
    if first is not None and (type(first) is not int or first not in CENTRE_OUT):
        raise ValueError(f"first must be None or a column, an int from 0 to 6, not {first!r}")
    order = list(CENTRE_OUT)
    if first in legal_moves(board):  # a full column as `first` is passed over
        order.remove(first)
        order.insert(0, first)
    tally = [0]
    best_col, best, alpha = None, -math.inf, -math.inf
    for col in order:
        if board[0][col] != EMPTY:
            continue
        child, won = _play(board, col, me)
        value = _value(child, won, depth, 1, alpha, math.inf, me, tally, deadline)
        if value > best:
            best_col, best = col, value
        alpha = max(alpha, best)
    return best_col, best, tally[0]


def _value(board, won, depth, ply, alpha, beta, me, tally, deadline):
    """The value for `me` of `board`, `ply` plies below a root searched `depth` plies deep.

    `won` says whether the move that made `board` made four in a row: the position before it had
    none, so that move's side is the only one that can have won.
    """
    if deadline is not None and time.monotonic() > deadline:
        raise _OutOfTime
    my_turn = ply % 2 == 0  # the root's children are the opponent's to move
    if won or EMPTY not in board[0] or ply == depth:
        tally[0] += 1
        if won:  # the side that just moved, the opponent on my turn
            return -(WIN + (depth - ply)) if my_turn else WIN + (depth - ply)
        return 0 if EMPTY not in board[0] else evaluate(board, me)
    mover = me if my_turn else _OTHER[me]
    best = -math.inf if my_turn else math.inf
    for col in CENTRE_OUT:
        if board[0][col] != EMPTY:
            continue
        child, child_won = _play(board, col, mover)
        value = _value(child, child_won, depth, ply + 1, alpha, beta, me, tally, deadline)
        if my_turn:
            best = max(best, value)
            alpha = max(alpha, best)
        else:
            best = min(best, value)
            beta = min(beta, best)
        if alpha >= beta:
            break
    return best


EMPTY = "."
_OTHER = {"X": "O", "O": "X"}
# The four directions a line of four can run in: across, down, and the two diagonals.
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def _play(board, col, piece):
    """The board after `piece` drops into `col` (which has room), and whether that made four in a row."""
    row = max(r for r in range(6) if board[r][col] == EMPTY)
    line = board[row]
    child = board[:row] + (line[:col] + piece + line[col + 1:],) + board[row + 1:]
    return child, _makes_four(child, row, col, piece)


def _makes_four(board, row, col, piece):
    """Whether the piece at (row, col) is part of four in a row."""
    for d_row, d_col in _DIRECTIONS:
        run = 1
        for sign in (1, -1):
            r, c = row + sign * d_row, col + sign * d_col
            while 0 <= r < 6 and 0 <= c < 7 and board[r][c] == piece:
                run += 1
                r, c = r + sign * d_row, c + sign * d_col
        if run >= 4:
            return True
    return False

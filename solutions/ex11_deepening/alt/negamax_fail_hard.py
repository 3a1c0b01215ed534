"""Iterative deepening in negamax form, fail-hard, with a timer that predicts the next depth.

Another correct way: every value is from the side to move's point of view and negated on the way
up, values are clamped to the window (fail-hard), which the README says gives the same counts and
the same root value, and timed_move does not start a depth it predicts will not finish.
"""

from __future__ import annotations

import time

from connect_four_rules import WIN, drop, evaluate, legal_moves, to_move, winner

__all__ = ["search", "deepen", "timed_move"]

_ORDER = (3, 2, 4, 1, 5, 0, 6)
_INF = float("inf")
# How much longer than the last depth the next one is taken to need, at worst, before it is begun.
_GROWTH = 3.0


class _Deadline(Exception):
    pass


def _valid_depth(depth) -> int:
    if type(depth) is not int or depth < 1:
        raise ValueError(f"depth must be an int >= 1, got {depth!r}")
    return depth


def search(board, depth, first=None):
    return _search(board, _valid_depth(depth), first, None)


def deepen(board, max_depth):
    out, first = [], None
    for depth in range(1, _valid_depth(max_depth) + 1):
        col, value, leaves = _search(board, depth, first, None)
        out.append((depth, col, value, leaves))
        first = col
    return out


def timed_move(board, seconds):
    if type(seconds) not in (int, float) or not 0 < seconds < _INF:
        raise ValueError(f"seconds must be a positive, finite number, got {seconds!r}")
    start = time.monotonic()
    deadline = start + seconds
    col, value, _ = _search(board, 1, None, None)
    last = time.monotonic() - start
    for depth in range(2, sum(row.count(".") for row in board) + 1):
        begun = time.monotonic()
        if begun + _GROWTH * last > deadline or abs(value) >= WIN:
            break  # predicted not to finish, or the result is proven already: not begun at all
        try:
            col, value, _ = _search(board, depth, col, deadline)
        except _Deadline:
            break
        last = time.monotonic() - begun
    return col


def _search(board, depth, first, deadline):
    me = to_move(board)
    if first is not None and (type(first) is not int or not 0 <= first <= 6):
        raise ValueError(f"first must be None or a column 0-6, got {first!r}")
    moves = legal_moves(board)
    if winner(board) or not moves:
        raise ValueError("the game is already over")
    order = ([first] if first in moves else []) + [c for c in _ORDER if c in moves and c != first]
    count = [0]
    best_col, best, alpha = None, -_INF, -_INF
    for col in order:
        # the child is the opponent's to move: its negamax value, negated, is mine
        value = -_negamax(drop(board, col), depth, 1, -_INF, -alpha, me, count, deadline)
        if value > best:
            best_col, best = col, value
        alpha = max(alpha, best)
    return best_col, best, count[0]


def _negamax(board, depth, ply, alpha, beta, me, count, deadline):
    """The value for the side to move on `board`, clamped to [alpha, beta] (fail-hard)."""
    if deadline is not None and time.monotonic() > deadline:
        raise _Deadline
    mover = to_move(board)
    sign = 1 if mover == me else -1
    side, moves = winner(board), legal_moves(board)
    if side is not None or not moves or ply == depth:
        count[0] += 1
        if side is not None:
            mine = WIN + depth - ply if side == me else -(WIN + depth - ply)
        else:
            mine = evaluate(board, me) if moves else 0
        return min(max(sign * mine, alpha), beta)
    for col in _ORDER:
        if col in moves:
            alpha = max(alpha, -_negamax(drop(board, col), depth, ply + 1, -beta, -alpha, me, count, deadline))
            if alpha >= beta:
                return beta
    return alpha

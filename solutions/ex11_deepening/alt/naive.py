"""Iterative deepening written the plain way a first-time student might.

This is the naive alternative the time-based checks are calibrated with: every position calls
the given module's checked functions (to_move, winner, legal_moves, drop, evaluate), and the
clock is looked at in every position searched.
"""

import math
import time

from connect_four_rules import WIN, drop, evaluate, legal_moves, to_move, winner

ORDER = [3, 2, 4, 1, 5, 0, 6]


class TimeUp(Exception):
    pass


def check(board, depth):
    to_move(board)
    if winner(board) is not None or len(legal_moves(board)) == 0:
        raise ValueError("the game is over")
    if type(depth) != int or depth < 1:
        raise ValueError("depth must be an int of at least 1")


def minimax(board, depth, k, alpha, beta, me, count, deadline):
    if deadline is not None and time.monotonic() > deadline:
        raise TimeUp()
    w = winner(board)
    if w is not None:
        count[0] += 1
        if w == me:
            return WIN + (depth - k)
        return -(WIN + (depth - k))
    moves = legal_moves(board)
    if len(moves) == 0:
        count[0] += 1
        return 0
    if k == depth:
        count[0] += 1
        return evaluate(board, me)
    if to_move(board) == me:
        best = -math.inf
        for col in ORDER:
            if col in moves:
                v = minimax(drop(board, col), depth, k + 1, alpha, beta, me, count, deadline)
                best = max(best, v)
                alpha = max(alpha, best)
                if alpha >= beta:
                    break
        return best
    best = math.inf
    for col in ORDER:
        if col in moves:
            v = minimax(drop(board, col), depth, k + 1, alpha, beta, me, count, deadline)
            best = min(best, v)
            beta = min(beta, best)
            if alpha >= beta:
                break
    return best


def run(board, depth, first, deadline):
    check(board, depth)
    if first is not None and (type(first) != int or first < 0 or first > 6):
        raise ValueError("first must be None or a column from 0 to 6")
    me = to_move(board)
    moves = legal_moves(board)
    order = []
    if first is not None and first in moves:
        order.append(first)
    for col in ORDER:
        if col in moves and col not in order:
            order.append(col)
    count = [0]
    best_col = None
    best = -math.inf
    alpha = -math.inf
    for col in order:
        v = minimax(drop(board, col), depth, 1, alpha, math.inf, me, count, deadline)
        if v > best:
            best = v
            best_col = col
        alpha = max(alpha, best)
    return (best_col, best, count[0])


def search(board, depth, first=None):
    return run(board, depth, first, None)


def deepen(board, max_depth):
    check(board, max_depth)
    results = []
    first = None
    for depth in range(1, max_depth + 1):
        col, value, leaves = search(board, depth, first)
        results.append((depth, col, value, leaves))
        first = col
    return results


def timed_move(board, seconds):
    if type(seconds) != int and type(seconds) != float:
        raise ValueError("seconds must be a number")
    if not (seconds > 0) or seconds == math.inf:
        raise ValueError("seconds must be positive and finite")
    deadline = time.monotonic() + seconds
    col, value, leaves = search(board, 1)
    empty = 0
    for row in board:
        empty += row.count(".")
    depth = 2
    while depth <= empty and value < WIN and value > -WIN:
        try:
            col, value, leaves = run(board, depth, col, deadline)
        except TimeUp:
            break
        depth += 1
    return col

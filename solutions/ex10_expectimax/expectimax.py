"""Expectimax: game trees with chance nodes, and two games against a random opponent (reference solution).

A tree is a leaf (an ``int`` or ``float``, never a ``bool``, NaN or infinity)
or a ``dict`` with exactly one key: ``"max"`` or ``"min"`` mapping to a
non-empty list of children, or ``"chance"`` mapping to a non-empty list of
``[p, child]`` pairs whose probabilities are each in (0, 1] and sum to 1
within 1e-9.

The public functions check the whole tree first, so that a bad node is
reported wherever it sits, with its path (``node["chance"][1][0]``).
"""

from __future__ import annotations

import math
from functools import cache

__all__ = ["expectimax", "best_action", "win_probability", "best_move_vs_random"]

# Two values closer than this are tied, and probabilities may miss 1 by this much in sum.
TOLERANCE = 1e-9
KINDS = ("max", "min", "chance")


def expectimax(node):
    """Return the value of ``node``: max and min over children, the probability-weighted sum at chance nodes."""
    _check_tree(node, "node")
    return _value(node)


def best_action(node):
    """Return the index of the best child of a ``"max"`` node; values within 1e-9 tie, and ties go to the first."""
    _check_tree(node, "node")
    if not isinstance(node, dict) or "max" not in node:
        raise ValueError("best_action needs a 'max' node at the root")
    values = [_value(child) for child in node["max"]]
    best = max(values)
    return next(index for index, value in enumerate(values) if value >= best - TOLERANCE)


def win_probability(n):
    """Max's chance of winning Simple-Nim from ``n`` counters, Max to move, against a uniformly random Min.

    Each side takes 1, 2 or 3 counters; whoever takes the last one loses.
    """
    if type(n) is not int or n < 0:
        raise ValueError(f"n must be an int of at least 0, got {n!r}")
    # max_to_move[k]: Max's chance with k counters and Max to move; min_to_move[k]: Min to move.
    # Zero counters left means the other side took the last one, and lost.
    max_to_move, min_to_move = [1.0], [0.0]
    for counters in range(1, n + 1):
        takes = range(1, min(3, counters) + 1)
        max_to_move.append(max(min_to_move[counters - take] for take in takes))
        min_to_move.append(sum(max_to_move[counters - take] for take in takes) / len(takes))
    return max_to_move[n]


LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def best_move_vs_random(board):
    """Return the square that maximises the mover's expected score against an opponent who moves at random."""
    _check_board(board)
    if _owner(board) is not None or " " not in board:
        raise ValueError("the game is over")
    mover = "X" if board.count("X") == board.count("O") else "O"
    values = {square: _after_my_move(_play(board, square, mover), mover) for square in _empties(board)}
    best = max(values.values())
    return next(square for square, value in values.items() if value >= best - TOLERANCE)


# --------------------------------------------------------------------------
# Trees
# --------------------------------------------------------------------------

def _is_number(value) -> bool:
    """An int or float that is finite; a bool is not a number here."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_tree(node, where):
    """Raise ValueError, naming the path, at the first node that breaks the rules."""
    if _is_number(node):
        return
    if not isinstance(node, dict):
        raise ValueError(f"{where} is {node!r}: a node is a finite int or float, or a dict")
    if len(node) != 1 or next(iter(node)) not in KINDS:
        raise ValueError(f"{where} must have exactly one key, 'max', 'min' or 'chance', not {list(node)!r}")
    kind, children = next(iter(node.items()))
    inner = f"{where}[{kind!r}]"
    if not isinstance(children, list) or not children:
        raise ValueError(f"{inner} must be a non-empty list")
    if kind != "chance":
        for index, child in enumerate(children):
            _check_tree(child, f"{inner}[{index}]")
        return
    total = 0.0
    for index, pair in enumerate(children):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError(f"{inner}[{index}] must be a pair [p, child]")
        p, child = pair
        if not _is_number(p) or not 0 < p <= 1:
            raise ValueError(f"{inner}[{index}][0] is {p!r}: a probability is an int or float in (0, 1]")
        total += p
        _check_tree(child, f"{inner}[{index}][1]")
    if abs(total - 1) > TOLERANCE:
        raise ValueError(f"the probabilities of {inner} sum to {total}, not 1")


def _value(node):
    """The expectimax value of an already checked tree."""
    if not isinstance(node, dict):
        return node
    kind, children = next(iter(node.items()))
    if kind == "max":
        return max(_value(child) for child in children)
    if kind == "min":
        return min(_value(child) for child in children)
    return sum(p * _value(child) for p, child in children)


# --------------------------------------------------------------------------
# Tic-tac-toe against a random opponent
# --------------------------------------------------------------------------

def _check_board(board):
    """A str of 9 characters 'X', 'O' or ' ', with counts X moving first can reach and at most one line."""
    if not isinstance(board, str) or len(board) != 9 or any(mark not in "XO " for mark in board):
        raise ValueError(f"a board is a str of 9 characters 'X', 'O' or ' ', not {board!r}")
    if board.count("X") - board.count("O") not in (0, 1):
        raise ValueError("X moves first, so X has as many pieces as O or one more")
    if _has_line(board, "X") and _has_line(board, "O"):
        raise ValueError("both sides have a line")


def _has_line(board, mark):
    return any(board[a] == board[b] == board[c] == mark for a, b, c in LINES)


def _owner(board):
    return next((mark for mark in "XO" if _has_line(board, mark)), None)


def _empties(board):
    return [square for square in range(9) if board[square] == " "]


def _play(board, square, mark):
    return board[:square] + mark + board[square + 1:]


@cache
def _after_my_move(board, me):
    """My expected score once I have moved to ``board``: the opponent moves next, at random."""
    if _owner(board) == me:
        return 1
    if " " not in board:
        return 0
    other = "O" if me == "X" else "X"
    replies = _empties(board)
    return sum(_my_turn(_play(board, square, other), me) for square in replies) / len(replies)


@cache
def _my_turn(board, me):
    """My expected score with me to move, playing my best against the random opponent."""
    if _owner(board) is not None:
        return -1  # the opponent's random move made a line
    if " " not in board:
        return 0
    return max(_after_my_move(_play(board, square, me), me) for square in _empties(board))

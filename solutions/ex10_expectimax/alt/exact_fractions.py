"""Expectimax in exact arithmetic, with Nim's pattern and a negamax-style memo.

Another correct way: values are worked out as ``Fraction``s (a float converts
to one exactly) and turned into a float at the end, so ties are exact;
``win_probability`` uses the pattern of the small piles, 1 unless
``n % 4 == 1``, where it is ``1 - (1/3) ** (n // 4)``; tic-tac-toe is scored
from the side to move, with one dict as the memo.
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["expectimax", "best_action", "win_probability", "best_move_vs_random"]


def _exact(node, where: str) -> Fraction:
    """The exact value of ``node``, checked on the way (every node is visited)."""
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        if not math.isfinite(node):
            raise ValueError(f"{where} is {node!r}, not a finite number")
        return Fraction(node)
    if not isinstance(node, dict) or len(node) != 1:
        raise ValueError(f"{where} is neither a number nor a dict with one key")
    (kind, children), = node.items()
    if kind not in ("max", "min", "chance"):
        raise ValueError(f"{where} has the key {kind!r}; only 'max', 'min' and 'chance' are allowed")
    if not isinstance(children, list) or not children:
        raise ValueError(f"{where}[{kind!r}] is not a non-empty list")
    if kind == "max":
        return max(_exact(child, f"{where}['max'][{i}]") for i, child in enumerate(children))
    if kind == "min":
        return min(_exact(child, f"{where}['min'][{i}]") for i, child in enumerate(children))
    total, weight = Fraction(0), 0.0
    for i, pair in enumerate(children):
        here = f"{where}['chance'][{i}]"
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError(f"{here} is not a pair [p, child]")
        p, child = pair
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p <= 1:
            raise ValueError(f"{here}[0] is not a probability in (0, 1]")
        weight += p
        total += Fraction(p) * _exact(child, f"{here}[1]")
    if abs(weight - 1) > 1e-9:
        raise ValueError(f"the probabilities of {where} add up to {weight}")
    return total


def expectimax(node):
    return float(_exact(node, "node"))


def best_action(node):
    _exact(node, "node")
    if not isinstance(node, dict) or list(node) != ["max"]:
        raise ValueError("best_action needs a 'max' root")
    values = [expectimax(child) for child in node["max"]]
    top = max(values)
    return min(i for i, value in enumerate(values) if top - value <= 1e-9)


def win_probability(n):
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError("n must be an int of at least 0")
    if n % 4 != 1:
        return 1.0
    return float(1 - Fraction(1, 3) ** (n // 4))


_LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def _won(board: str, mark: str) -> bool:
    return any(all(board[i] == mark for i in line) for line in _LINES)


def _mover_value(board: str, movers_turn_is_chance: bool, memo: dict) -> Fraction:
    """The expected score of the side to move on ``board``, which moves at random if ``movers_turn_is_chance``."""
    key = (board, movers_turn_is_chance)
    if key in memo:
        return memo[key]
    mover = "X" if board.count("X") == board.count("O") else "O"
    last = "O" if mover == "X" else "X"
    if _won(board, last):
        result = Fraction(-1)
    elif " " not in board:
        result = Fraction(0)
    else:
        # each reply's value for the mover is minus its value for the side that replies
        replies = [-_mover_value(board[:i] + mover + board[i + 1:], not movers_turn_is_chance, memo)
                   for i in range(9) if board[i] == " "]
        result = sum(replies) / len(replies) if movers_turn_is_chance else max(replies)
    memo[key] = result
    return result


def best_move_vs_random(board):
    if not isinstance(board, str) or len(board) != 9 or set(board) - set("XO "):
        raise ValueError("a board is 9 characters 'X', 'O' or ' '")
    if board.count("X") - board.count("O") not in (0, 1):
        raise ValueError("X has as many pieces as O or one more")
    if _won(board, "X") or _won(board, "O") or " " not in board:
        raise ValueError("the game is over, or impossible")
    mover = "X" if board.count("X") == board.count("O") else "O"
    memo: dict = {}
    values = {i: -_mover_value(board[:i] + mover + board[i + 1:], True, memo) for i in range(9) if board[i] == " "}
    top = max(values.values())
    return min(i for i, value in values.items() if value == top)

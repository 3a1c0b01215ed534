"""WRONG: winning_move searches the game tree (memoised minimax, as in ex05)
instead of using the theory.

Every answer it gives is right, and small positions are instant. But the
number of moves grows with the pile sizes: on piles of 10**18 counters, where
the winning move leaves a big pile or no move wins, the search never finishes
and the per-call timeout stops it. The Grundy functions are correct.
"""

from __future__ import annotations

import sys
from functools import cache

__all__ = ["nim_sum", "winning_move", "grundy", "split_winning_move"]

sys.setrecursionlimit(10_000)


def nim_sum(piles) -> int:
    """Return the XOR of all pile sizes."""
    total = 0
    for counters in _checked(piles):
        total ^= counters
    return total


def _nim_moves(piles):
    """Every position reachable by taking counters from one pile, pile by pile, fewest left first."""
    for index, counters in enumerate(piles):
        for remain in range(counters):
            yield piles[:index] + (remain,) + piles[index + 1:]


@cache
def _wins(piles, misere):
    """True if the player to move wins, by trying every move."""
    if all(counters == 0 for counters in piles):
        return misere  # the opponent took the last counter
    return any(not _wins(after, misere) for after in _nim_moves(piles))


def winning_move(piles, misere=False):
    """The first move that leaves the opponent lost, or None."""
    piles = _checked(piles)
    for after in _nim_moves(piles):
        if not _wins(after, misere):
            return after
    return None


_grundy_values = [0, 0, 0]


def grundy(n: int) -> int:
    """Grundy value of one pile, from a table grown on demand."""
    _check_pile(n, "n")
    while len(_grundy_values) <= n:
        size = len(_grundy_values)
        options = {_grundy_values[size - take] ^ _grundy_values[take] for take in range(1, (size + 1) // 2)}
        value = 0
        while value in options:
            value += 1
        _grundy_values.append(value)
    return _grundy_values[n]


def split_winning_move(piles):
    """A split that leaves a Grundy XOR of 0, or None."""
    piles = _checked(piles)
    for index, counters in enumerate(piles):
        for take in range(1, (counters + 1) // 2):
            after = piles[:index] + (counters - take, take) + piles[index + 1:]
            total = 0
            for pile in after:
                total ^= grundy(pile)
            if total == 0:
                return after
    return None


def _check_pile(counters, what: str) -> None:
    if isinstance(counters, bool) or not isinstance(counters, int):
        raise ValueError(f"{what} must be an int, got {counters!r}")
    if counters < 0:
        raise ValueError(f"{what} is {counters}; a pile cannot hold a negative number of counters")


def _checked(piles) -> tuple:
    piles = tuple(piles)
    for index, counters in enumerate(piles):
        _check_pile(counters, f"pile {index}")
    return piles

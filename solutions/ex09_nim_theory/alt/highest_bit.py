"""Nim theory in a second style: the highest bit of the nim-sum, and functools.cache.

winning_move picks the pile that holds the highest set bit of the nim-sum, the
textbook proof of Bouton's rule. Misere play starts from the normal-play
move and repairs it when it would leave only piles of 0 and 1. grundy is a
recursive function under functools.cache, and split_winning_move compares a
whole position's Grundy XOR after each split.
"""

from functools import cache, reduce
from operator import xor


def _validate(piles):
    piles = tuple(piles)
    negative = [p for p in piles if p < 0]
    if negative:
        raise ValueError(f"piles must not be negative, got {negative[0]} in {piles}")
    return piles


def nim_sum(piles):
    return reduce(xor, _validate(piles), 0)


def winning_move(piles, misere=False):
    piles = _validate(piles)
    s = nim_sum(piles)
    ones = sum(1 for p in piles if p == 1)
    big = [i for i, p in enumerate(piles) if p > 1]

    if misere and not big:
        # Only 0s and 1s: leave an odd number of 1-piles, if a move can.
        if ones == 0 or ones % 2 == 1:
            return None
        i = piles.index(1)
        return piles[:i] + (0,) + piles[i + 1:]

    if s == 0:
        return None  # misere with a big pile follows the normal rule here too
    top = 1 << (s.bit_length() - 1)
    i = next(k for k, p in enumerate(piles) if p & top)
    move = piles[:i] + (piles[i] ^ s,) + piles[i + 1:]

    if misere and all(p <= 1 for p in move):
        # The normal move emptied the last big pile; choose 0 or 1 for it so
        # that an odd number of 1-piles is left instead.
        others = ones - (1 if piles[i] == 1 else 0)
        move = piles[:i] + (0 if others % 2 == 1 else 1,) + piles[i + 1:]
    return move


@cache
def _grundy(n):
    return _mex({_grundy(n - take) ^ _grundy(take) for take in range(1, (n + 1) // 2)})


def _mex(values):
    m = 0
    while m in values:
        m += 1
    return m


def grundy(n):
    if n < 0:
        raise ValueError(f"a pile cannot be negative, got {n}")
    # Fill the cache from the bottom up, so the recursion never goes deep.
    for k in range(n + 1):
        _grundy(k)
    return _grundy(n)


def split_winning_move(piles):
    piles = _validate(piles)
    for i, c in enumerate(piles):
        for take in range(1, (c + 1) // 2):
            after = piles[:i] + (c - take, take) + piles[i + 1:]
            if reduce(xor, map(grundy, after), 0) == 0:
                return after
    return None

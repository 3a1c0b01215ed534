"""WRONG: no check for negative piles: a negative pile is XOR-ed like any other
instead of raising ValueError.
"""

from __future__ import annotations

__all__ = ["nim_sum", "winning_move", "grundy", "split_winning_move"]


def nim_sum(piles) -> int:
    """Return the XOR of all pile sizes (0 for no piles or only empty ones).

    Raises ``ValueError`` if a pile is negative.
    """
    total = 0
    for counters in _checked(piles):
        total ^= counters
    return total


def winning_move(piles, misere=False):
    """Return the position after a winning move, or ``None`` if there is none.

    A move takes at least one counter from exactly one pile; the answer is the
    whole new position, a tuple as long as ``piles``. It is winning when it
    leaves the opponent in a lost position. ``misere=True`` plays the misere
    rule (taking the last counter loses); the default is normal play (taking
    the last counter wins).

    ``None`` means every move loses, or there is no move at all because every
    pile is empty. Raises ``ValueError`` if a pile is negative.
    """
    piles = _checked(piles)
    big = [index for index, counters in enumerate(piles) if counters >= 2]
    if misere and len(big) <= 1:
        return _misere_endgame_move(piles, big)
    total = nim_sum(piles)
    if total == 0:
        return None
    # Some pile has the highest set bit of `total`; XOR-ing that pile with
    # `total` clears the bit, so the pile shrinks and the nim-sum becomes 0.
    for index, counters in enumerate(piles):
        target = counters ^ total
        if target < counters:
            # In misere play with two or more big piles, one big pile is
            # still there afterwards, so the normal-play rule still applies.
            return _replace(piles, index, target)
    raise AssertionError("a pile with the top bit of the nim-sum always exists")


def _misere_endgame_move(piles, big):
    """Misere play with at most one pile of two or more counters.

    The winner is the one who leaves an odd number of 1-piles and nothing
    bigger, so that the opponent takes the last counter.
    """
    ones = piles.count(1)
    if big:
        # Reduce the only big pile to 0 or 1, whichever leaves an odd count of 1-piles.
        return _replace(piles, big[0], 0 if ones % 2 == 1 else 1)
    if ones % 2 == 1 or ones == 0:
        # An odd count is lost (each move removes one 1-pile); zero piles means no move at all.
        return None
    return _replace(piles, piles.index(1), 0)


_grundy_values = [0, 0, 0]
"""Grundy values found so far, grown on demand: piles of 0, 1 and 2 cannot be split."""


def grundy(n: int) -> int:
    """Return the Grundy value of one pile of ``n`` counters in Grundy's game.

    A move splits a pile into two non-empty piles of different sizes. The value
    is the mex (the smallest non-negative integer not among them) of
    ``grundy(a) ^ grundy(b)`` over every split ``n = a + b`` with ``a > b >= 1``.
    The values are kept in a table, so each one is worked out once.

    Raises ``ValueError`` if ``n`` is negative.
    """
    _check_pile(n, "n")
    if n < 0:
        return 0
    while len(_grundy_values) <= n:
        size = len(_grundy_values)
        options = {
            _grundy_values[size - take] ^ _grundy_values[take]
            for take in range(1, (size + 1) // 2)  # take < size - take
        }
        _grundy_values.append(_mex(options))
    return _grundy_values[n]


def split_winning_move(piles):
    """Return the position after a winning split in Grundy's game, or ``None``.

    A split replaces one pile of ``counters`` by the two piles
    ``counters - take, take`` in the same place, with ``1 <= take`` and
    ``take < counters - take``. It is winning when the XOR of the Grundy values
    of the new position is 0. ``None`` means no split wins, which includes
    positions where no pile can be split at all.

    Raises ``ValueError`` if a pile is negative.
    """
    piles = _checked(piles)
    total = 0
    for counters in piles:
        total ^= grundy(counters)
    if total == 0:
        return None
    for index, counters in enumerate(piles):
        # The split must turn this pile's Grundy value into this one.
        wanted = grundy(counters) ^ total
        for take in range(1, (counters + 1) // 2):
            if grundy(counters - take) ^ grundy(take) == wanted:
                return piles[:index] + (counters - take, take) + piles[index + 1:]
    raise AssertionError("a non-zero Grundy XOR always has a winning split")


def _mex(values) -> int:
    """The smallest non-negative integer that is not in ``values``."""
    candidate = 0
    while candidate in values:
        candidate += 1
    return candidate


def _replace(piles: tuple, index: int, counters: int) -> tuple:
    """A copy of ``piles`` with the pile at ``index`` set to ``counters``."""
    return piles[:index] + (counters,) + piles[index + 1:]


def _check_pile(counters, what: str) -> None:
    """Raise ``ValueError`` unless ``counters`` is a non-negative int."""
    if isinstance(counters, bool) or not isinstance(counters, int):
        raise ValueError(f"{what} must be an int, got {counters!r} of type {type(counters).__name__}")


def _checked(piles) -> tuple:
    """``piles`` as a tuple, after checking that every pile is a non-negative int."""
    piles = tuple(piles)
    for index, counters in enumerate(piles):
        _check_pile(counters, f"pile {index}")
    return piles

"""Nim theory, written the plain way a first-time student might.

This is the naive alternative the timeouts are measured against. It writes
the two losing rules as functions, then tries a few candidate moves from each
pile (shrink it to ``pile ^ nim_sum``, to 0 or to 1) and keeps the first one
that leaves a lost position. Grundy values use a plain recursive function with
a dict as memo, and split_winning_move tries every split in order and
recomputes the whole XOR for each one.
"""


def check_piles(piles):
    """Raise ValueError if a pile is negative."""
    for p in piles:
        if p < 0:
            raise ValueError("pile " + str(p) + " is negative")


def nim_sum(piles):
    check_piles(piles)
    result = 0
    for p in piles:
        result = result ^ p
    return result


def is_lost(piles, misere):
    """True if the player to move loses (by the theory, not by search)."""
    if misere:
        all_small = True
        for p in piles:
            if p > 1:
                all_small = False
        if all_small:
            ones = 0
            for p in piles:
                if p == 1:
                    ones = ones + 1
            return ones % 2 == 1
    return nim_sum(piles) == 0


def winning_move(piles, misere=False):
    check_piles(piles)
    s = nim_sum(piles)
    for i in range(len(piles)):
        p = piles[i]
        for new in [p ^ s, 0, 1]:
            if new < p:
                after = list(piles)
                after[i] = new
                after = tuple(after)
                if is_lost(after, misere):
                    return after
    return None


memo = {}


def grundy(n):
    if n < 0:
        raise ValueError("n must not be negative, got " + str(n))
    if n in memo:
        return memo[n]
    seen = []
    take = 1
    while take < n - take:
        seen.append(grundy(n - take) ^ grundy(take))
        take = take + 1
    value = 0
    while value in seen:
        value = value + 1
    memo[n] = value
    return value


def split_moves(piles):
    for i in range(len(piles)):
        counters = piles[i]
        take = 1
        while take < counters - take:
            yield piles[:i] + (counters - take, take) + piles[i + 1:]
            take = take + 1


def grundy_total(piles):
    total = 0
    for p in piles:
        total = total ^ grundy(p)
    return total


def split_winning_move(piles):
    check_piles(piles)
    piles = tuple(piles)
    for after in split_moves(piles):
        if grundy_total(after) == 0:
            return after
    return None

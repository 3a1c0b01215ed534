"""Counting games in the Simple-Nim tree by way of the moves taken (a second correct style).

A game is described here by the counters taken on each turn: any sequence of
1s, 2s and 3s that leaves exactly one counter, followed by the final 1. The
games are built breadth-first from those sequences, the nodes are counted as
the distinct paths that start at the root, and alpha-beta runs
in negamax form, scoring every position for the player to move.
"""

import math


def _check(n):
    if isinstance(n, bool) or not isinstance(n, int):
        raise ValueError(f"n must be an int, not {type(n).__name__}")
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")


def _take_sequences(n):
    """Every list of takes that plays a pile of n out under the tree's rules."""
    finished = []
    frontier = [((), n)]
    while frontier:
        grown = []
        for takes, left in frontier:
            if left == 1:
                finished.append(takes + (1,))
                continue
            for take in (1, 2, 3):
                if left - take >= 1:
                    grown.append((takes + (take,), left - take))
        frontier = grown
    return finished


def _piles(n, takes):
    """The pile sizes before each move of a game given by its takes."""
    piles = []
    for take in takes:
        piles.append(n)
        n -= take
    return tuple(piles)


def games(n):
    _check(n)
    return sorted(_piles(n, takes) for takes in _take_sequences(n))


def count_nodes(n):
    _check(n)
    paths = set()
    for game in games(n):
        full = game + (0,)
        for length in range(1, len(full) + 1):
            paths.add(full[:length])
    return len(paths)


def wins(n):
    _check(n)
    first = sum(1 for takes in _take_sequences(n) if len(takes) % 2 == 0)
    return first, len(_take_sequences(n)) - first


def pruned_nodes(n):
    _check(n)
    entered = 0

    def negamax(pile, alpha, beta):
        # Score for the player to move: at 0 that player has won.
        nonlocal entered
        entered += 1
        if pile == 0:
            return 1
        children = [0] if pile == 1 else [pile - t for t in (3, 2, 1) if pile - t >= 1]
        best = -math.inf
        for child in children:
            best = max(best, -negamax(child, -beta, -alpha))
            alpha = max(alpha, best)
            if alpha >= beta:
                break
        return best

    negamax(n, -1, 1)
    return entered

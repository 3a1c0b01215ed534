"""Counting games in the game tree of Simple-Nim (reference solution).

The tree is the one the README draws: nobody takes the last counter
voluntarily. From a pile of 2 or more a player leaves n-3, n-2 or n-1
counters, but never 0; from a pile of 1 the player must take it, leaving 0.
A node is a pile size on a path, the root and the leaves (0) included. The
player who moves from 1 takes the last counter and loses.

``games`` and ``pruned_nodes`` walk the tree itself. ``count_nodes`` and
``wins`` only need totals, so they add up the totals of the children, with a
memo because the same pile size turns up in many places in the tree.
"""

from __future__ import annotations

from functools import cache

__all__ = ["games", "count_nodes", "wins", "pruned_nodes"]

MAX_WINS = 1
"""A leaf's score when the first player (Max) has won."""
MIN_WINS = -1
"""A leaf's score when the second player (Min) has won."""


def games(n: int) -> list[tuple[int, ...]]:
    """Every complete game from a pile of ``n``, as the pile sizes before each move, sorted.

    Raises ``ValueError`` if ``n < 1``.
    """
    _check_pile(n)
    return sorted(_games_from(n))


def count_nodes(n: int) -> int:
    """The number of nodes in the game tree of ``n``, the root and the leaves included.

    Raises ``ValueError`` if ``n < 1``.
    """
    _check_pile(n)
    return _node_total(n)


def wins(n: int) -> tuple[int, int]:
    """``(games won by the first player, games won by the second player)`` from a pile of ``n``.

    Raises ``ValueError`` if ``n < 1``.
    """
    _check_pile(n)
    even, odd = _games_by_parity(n)
    # A game of an even number of moves ends with the second player moving
    # from 1, so the first player wins it.
    return even, odd


def pruned_nodes(n: int) -> int:
    """How many nodes alpha-beta enters in the tree of ``n``, the root and the leaves included.

    Max moves at the root. Children are tried smallest pile first, the window
    starts at (-1, +1), and a node stops as soon as beta <= alpha.

    Raises ``ValueError`` if ``n < 1``.
    """
    _check_pile(n)
    entered = [0]
    _alpha_beta(n, True, MIN_WINS, MAX_WINS, entered)
    return entered[0]


def next_piles(pile: int) -> list[int]:
    """The piles a player may leave, smallest first (take 3, take 2, take 1).

    From 1 the only move is to take the last counter; from 2 or more the player
    leaves at least one counter. A pile of 0 has no moves: the game is over.
    """
    if pile == 1:
        return [0]
    return [pile - take for take in (3, 2, 1) if pile - take >= 1]


def _check_pile(n) -> None:
    """Raise ValueError unless ``n`` is a whole number of at least 1."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise ValueError(f"the pile must be an int, not {type(n).__name__}")
    if n < 1:
        raise ValueError(f"the pile must hold at least 1 counter, got {n}")


def _games_from(pile: int) -> list[tuple[int, ...]]:
    """All games from ``pile``; the empty game from 0, where play has ended."""
    if pile == 0:
        return [()]
    return [(pile,) + rest for after in next_piles(pile) for rest in _games_from(after)]


@cache
def _node_total(pile: int) -> int:
    """Nodes in the subtree rooted at ``pile``: itself plus those under its children."""
    return 1 + sum(_node_total(after) for after in next_piles(pile))


@cache
def _games_by_parity(pile: int) -> tuple[int, int]:
    """(games of an even number of moves, games of an odd number) from ``pile``."""
    if pile == 0:
        return 1, 0
    even = odd = 0
    for after in next_piles(pile):
        # One more move flips the parity of every game below.
        child_even, child_odd = _games_by_parity(after)
        even += child_odd
        odd += child_even
    return even, odd


def _alpha_beta(pile: int, maximizing: bool, alpha: int, beta: int, entered: list[int]) -> int:
    """Alpha-beta over the tree below ``pile``; adds every node it enters to ``entered[0]``."""
    entered[0] += 1
    if pile == 0:
        # The player to move at 0 did not take the last counter, so that player has won.
        return MAX_WINS if maximizing else MIN_WINS

    best = MIN_WINS if maximizing else MAX_WINS
    for after in next_piles(pile):
        score = _alpha_beta(after, not maximizing, alpha, beta, entered)
        if maximizing:
            best = max(best, score)
            alpha = max(alpha, best)
        else:
            best = min(best, score)
            beta = min(beta, best)
        if beta <= alpha:
            # The player above can already do at least as well elsewhere.
            break
    return best

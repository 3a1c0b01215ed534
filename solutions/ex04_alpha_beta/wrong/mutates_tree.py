"""WRONG ON PURPOSE: the search empties the lists it walks.

Children are taken off the front of each list with ``pop(0)``, so the
answer is right but the caller's tree is destroyed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["minimax_with_pruning", "best_counter_bid"]


def minimax_with_pruning(node, maximizing, alpha=float("-inf"), beta=float("inf")):
    """Return the minimax value of ``node``, skipping branches that cannot matter.

    ``maximizing`` says whether the player at ``node`` maximises. ``alpha`` is
    the score the maximiser is already sure of and ``beta`` the score the
    minimiser is already sure of. Children are searched left to right, and a
    node stops searching them as soon as ``alpha >= beta``.

    Raises ``ValueError`` if the tree holds an empty list or a leaf that is not
    an ``int`` or ``float``.
    """
    _count_valid_leaves(node)
    return _search(node, maximizing, alpha, beta, _Tally())


def best_counter_bid(tree):
    """Search ``tree`` from a maximising root and report the value and the work done.

    Returns a dict with four keys:

    - ``"value"``: the minimax value of the root;
    - ``"nodes_visited"``: how many leaves were evaluated;
    - ``"nodes_pruned"``: how many leaves lie under the children that were
      skipped, however deep;
    - ``"total_leaves"``: how many leaves the tree has, which is always
      ``nodes_visited + nodes_pruned``.

    Raises ``ValueError`` on the same bad trees as ``minimax_with_pruning``.
    """
    total = _count_valid_leaves(tree)
    tally = _Tally()
    value = _search(tree, True, -math.inf, math.inf, tally)
    return {
        "value": value,
        "nodes_visited": tally.visited,
        "nodes_pruned": tally.pruned,
        "total_leaves": total,
    }


@dataclass
class _Tally:
    """Running counts of one search."""

    visited: int = 0
    """Leaves evaluated so far."""
    pruned: int = 0
    """Leaves under the children skipped so far."""


def _is_leaf_value(node) -> bool:
    """True for an int or float; ``bool`` is a subclass of ``int`` but not a score."""
    return isinstance(node, (int, float)) and not isinstance(node, bool)


def _count_valid_leaves(tree) -> int:
    """Check every node of ``tree`` and return its number of leaves.

    An explicit stack keeps this independent of the recursion limit and lets
    the error message say where the bad node sits, as in ``tree[1][0]``.
    """
    leaves = 0
    pending = [(tree, "tree")]
    while pending:
        node, where = pending.pop()
        if isinstance(node, list):
            if not node:
                raise ValueError(f"{where} is an empty list; every internal node needs at least one child")
            # Reversed, so that the leftmost problem is the one reported.
            pending.extend((node[i], f"{where}[{i}]") for i in reversed(range(len(node))))
        elif _is_leaf_value(node):
            leaves += 1
        else:
            kind = type(node).__name__
            raise ValueError(f"{where} is {node!r} of type {kind}; a leaf must be an int or a float")
    return leaves


def _leaf_count(node) -> int:
    """The number of leaves in an already checked subtree."""
    if not isinstance(node, list):
        return 1
    return sum(_leaf_count(child) for child in node)


def _search(node, maximizing, alpha, beta, tally):
    """Alpha-beta over an already checked tree; counts leaves seen and skipped in ``tally``."""
    if not isinstance(node, list):
        tally.visited += 1
        return node

    best = -math.inf if maximizing else math.inf
    while node:
        child = node.pop(0)
        score = _search(child, not maximizing, alpha, beta, tally)
        if maximizing:
            best = max(best, score)
            alpha = max(alpha, best)
        else:
            best = min(best, score)
            beta = min(beta, best)
        if alpha >= beta:
            # The player above already has something at least as good elsewhere,
            # so nothing in the remaining children can change its choice.
            tally.pruned += sum(_leaf_count(rest) for rest in node)  # what pop(0) has not taken yet
            break
    return best

"""WRONG ON PURPOSE: ``pruned_fraction`` counts the skipped children, not the leaves under them.

Right whenever every skipped child is a leaf, wrong as soon as a whole
subtree is skipped.
"""

from __future__ import annotations

import math

__all__ = ["pruned_fraction", "order_best_first", "minimal_leaves"]


def pruned_fraction(tree) -> float:
    """Return the share of ``tree``'s leaves that alpha-beta never evaluates.

    The search starts at a maximising root with the window (-inf, +inf),
    visits children left to right and leaves a node as soon as
    ``alpha >= beta``. Every leaf it does not evaluate is pruned, so the
    answer is ``(total - visited) / total``, a float between 0 and 1.

    Raises ``ValueError`` if the tree holds an empty list or a leaf that is not
    an ``int`` or ``float``.
    """
    total = _count_valid_leaves(tree)
    skipped = [0]

    def search(node, maximizing, alpha, beta):
        if not isinstance(node, list):
            return node
        best = -math.inf if maximizing else math.inf
        for index, child in enumerate(node):
            score = search(child, not maximizing, alpha, beta)
            if maximizing:
                best = max(best, score)
                alpha = max(alpha, best)
            else:
                best = min(best, score)
                beta = min(beta, best)
            if alpha >= beta:
                skipped[0] += len(node) - index - 1
                break
        return best

    search(tree, True, -math.inf, math.inf)
    return skipped[0] / total


def order_best_first(tree):
    """Return a new tree with every node's children sorted best-first.

    At a maximising node the children come in decreasing order of their
    minimax value, at a minimising node in increasing order. The root
    maximises. Children of equal value keep their original order (any order
    of them would do). The result has the same shape and the same leaves as
    ``tree``, which is left unchanged.

    Raises ``ValueError`` on the same bad trees as ``pruned_fraction``.
    """
    _count_valid_leaves(tree)
    ordered, _value = _order(tree, True)
    return ordered


def minimal_leaves(branching: int, depth: int) -> int:
    """Return the Knuth-Moore bound ``b**ceil(d/2) + b**floor(d/2) - 1``.

    This is how many leaves alpha-beta evaluates in a uniform tree with
    ``branching`` children per node and all leaves at ``depth``, when every
    node's best child comes first and no two leaves are equal.

    Raises ``ValueError`` unless both arguments are ints with
    ``branching >= 1`` and ``depth >= 0``.
    """
    for name, number in (("branching", branching), ("depth", depth)):
        if type(number) is not int:
            raise ValueError(f"{name} must be an int, got {number!r} of type {type(number).__name__}")
    if branching < 1:
        raise ValueError(f"branching must be at least 1, got {branching}")
    if depth < 0:
        raise ValueError(f"depth must be at least 0, got {depth}")
    return branching ** ((depth + 1) // 2) + branching ** (depth // 2) - 1


def _order(node, maximizing):
    """Best-first copy of an already checked subtree, together with its minimax value."""
    if not isinstance(node, list):
        return node, node
    pairs = [_order(child, not maximizing) for child in node]
    # sort() is stable, so equal values keep their original order.
    pairs.sort(key=lambda pair: pair[1], reverse=maximizing)
    value = pairs[0][1]
    return [child for child, _ in pairs], value


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
            pending.extend((node[i], f"{where}[{i}]") for i in reversed(range(len(node))))
        elif _is_leaf_value(node):
            leaves += 1
        else:
            kind = type(node).__name__
            raise ValueError(f"{where} is {node!r} of type {kind}; a leaf must be an int or a float")
    return leaves

"""Plain minimax on nested-list game trees (reference solution).

A tree is either a leaf, an ``int`` or ``float`` (never a ``bool``), or a
non-empty ``list`` of subtrees. The root maximises and the player changes at
every level below it, however uneven the depths are.

Every function walks the whole tree, so each one checks every node it meets
and raises ``ValueError`` on a bad one.
"""

from __future__ import annotations

__all__ = ["count_leaves", "minimax", "best_child"]


def count_leaves(tree) -> int:
    """Return the number of leaves in ``tree`` (a single leaf counts as 1).

    Raises ``ValueError`` if the tree holds an empty list or a leaf that is not
    an ``int`` or ``float``.
    """
    if not isinstance(tree, list):
        _check_leaf(tree)
        return 1
    _check_children(tree)
    return sum(count_leaves(child) for child in tree)


def minimax(tree, maximizing=True):
    """Return the minimax value of ``tree``, looking at every leaf.

    ``maximizing`` says whether the player at the root of ``tree`` maximises;
    the player changes at every level. A leaf is its own value.

    Raises ``ValueError`` on the same bad trees as ``count_leaves``.
    """
    if not isinstance(tree, list):
        _check_leaf(tree)
        return tree
    _check_children(tree)
    values = [minimax(child, not maximizing) for child in tree]
    return max(values) if maximizing else min(values)


def best_child(tree) -> int:
    """Return the index of the root's best child, for a maximising root.

    Each child is valued as a minimising node, since the other player moves
    there. Of several children with the best value, the first one wins.

    Raises ``ValueError`` if ``tree`` is a single leaf (there is nothing to
    choose), and on the same bad trees as ``count_leaves``.
    """
    if not isinstance(tree, list):
        _check_leaf(tree)
        raise ValueError(f"the tree is the single leaf {tree!r}; it has no children to choose from")
    _check_children(tree)
    values = [minimax(child, False) for child in tree]
    best = 0
    for index in range(1, len(values)):
        if values[index] > values[best]:  # strictly better: a tie keeps the earlier child
            best = index
    return best


def _check_leaf(node) -> None:
    """Raise ``ValueError`` unless ``node`` is an int or a float (bools are not scores)."""
    if isinstance(node, bool) or not isinstance(node, (int, float)):
        raise ValueError(f"{node!r} is a {type(node).__name__}; a leaf must be an int or a float")


def _check_children(node: list) -> None:
    """Raise ``ValueError`` for an internal node without children."""
    if not node:
        raise ValueError("the tree contains an empty list; every internal node needs at least one child")

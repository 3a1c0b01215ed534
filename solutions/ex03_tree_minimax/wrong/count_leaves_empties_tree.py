"""WRONG ON PURPOSE: count_leaves empties the tree it was given.

It counts with a stack, but the stack IS the caller's list (no copy), so
popping from it empties the caller's tree. Every answer is right; the tree
is gone afterwards.
"""

from __future__ import annotations


def count_leaves(tree) -> int:
    """Count leaves with a stack... that is the caller's own list."""
    if not isinstance(tree, list):
        _check_leaf(tree)
        return 1
    _check_children(tree)
    stack = tree  # should be list(tree)
    count = 0
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            _check_children(node)
            stack.extend(node)
        else:
            _check_leaf(node)
            count += 1
    return count


def minimax(tree, maximizing=True):
    if not isinstance(tree, list):
        _check_leaf(tree)
        return tree
    _check_children(tree)
    values = [minimax(child, not maximizing) for child in tree]
    return max(values) if maximizing else min(values)


def best_child(tree) -> int:
    if not isinstance(tree, list):
        _check_leaf(tree)
        raise ValueError("a single leaf has no children to choose from")
    _check_children(tree)
    values = [minimax(child, False) for child in tree]
    best = 0
    for index in range(1, len(values)):
        if values[index] > values[best]:
            best = index
    return best


def _check_leaf(node) -> None:
    if isinstance(node, bool) or not isinstance(node, (int, float)):
        raise ValueError(f"{node!r} is a {type(node).__name__}; a leaf must be an int or a float")


def _check_children(node: list) -> None:
    if not node:
        raise ValueError("the tree contains an empty list")

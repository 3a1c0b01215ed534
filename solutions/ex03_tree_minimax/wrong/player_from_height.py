"""WRONG ON PURPOSE: whose turn it is comes from the height above the leaves.

Textbook pictures have every leaf on the same level, with the minimiser just
above the leaves. This version makes every node whose height is odd (1 = just
above its deepest leaf) a minimiser, for a maximising root; for a minimising
root the roles swap. On trees with all leaves at an even depth that is right,
on uneven trees it is not.
"""

from __future__ import annotations


def count_leaves(tree) -> int:
    if not isinstance(tree, list):
        _check_leaf(tree)
        return 1
    _check_children(tree)
    return sum(count_leaves(child) for child in tree)


def _height(node):
    if not isinstance(node, list):
        return 0
    return 1 + max(_height(child) for child in node)


def _value(node, odd_minimises):
    if not isinstance(node, list):
        return node
    values = [_value(child, odd_minimises) for child in node]
    minimising = (_height(node) % 2 == 1) == odd_minimises
    return min(values) if minimising else max(values)


def minimax(tree, maximizing=True):
    count_leaves(tree)  # checks the tree
    if not isinstance(tree, list):
        return tree
    # Pick the parity rule that makes the root's own player come out right.
    root_odd = _height(tree) % 2 == 1
    odd_minimises = root_odd != maximizing
    return _value(tree, odd_minimises)


def best_child(tree) -> int:
    if not isinstance(tree, list):
        _check_leaf(tree)
        raise ValueError("a single leaf has no children to choose from")
    count_leaves(tree)
    odd_minimises = _height(tree) % 2 == 0
    values = [_value(child, odd_minimises) for child in tree]
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

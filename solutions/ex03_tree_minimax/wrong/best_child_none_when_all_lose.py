"""WRONG ON PURPOSE: best_child starts from (None, -inf) and only moves on a strict improvement.

When every child is worth -inf (every move loses for sure), no child is ever
strictly better than -inf, so best_child returns None instead of 0.
"""

from __future__ import annotations

import math


def count_leaves(tree) -> int:
    if not isinstance(tree, list):
        _check_leaf(tree)
        return 1
    _check_children(tree)
    return sum(count_leaves(child) for child in tree)


def minimax(tree, maximizing=True):
    if not isinstance(tree, list):
        _check_leaf(tree)
        return tree
    _check_children(tree)
    values = [minimax(child, not maximizing) for child in tree]
    return max(values) if maximizing else min(values)


def best_child(tree):
    if not isinstance(tree, list):
        _check_leaf(tree)
        raise ValueError("a single leaf has no children to choose from")
    _check_children(tree)
    best_index, best_value = None, -math.inf
    for index, child in enumerate(tree):
        value = minimax(child, False)
        if value > best_value:
            best_index, best_value = index, value
    return best_index


def _check_leaf(node) -> None:
    if isinstance(node, bool) or not isinstance(node, (int, float)):
        raise ValueError(f"{node!r} is a {type(node).__name__}; a leaf must be an int or a float")


def _check_children(node: list) -> None:
    if not node:
        raise ValueError("the tree contains an empty list")

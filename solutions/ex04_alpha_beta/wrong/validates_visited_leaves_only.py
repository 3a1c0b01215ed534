"""WRONG ON PURPOSE: only the parts of the tree the search reaches are checked.

Each leaf is checked when it is evaluated and each list when it is entered,
so a bad leaf or an empty list under a skipped child goes unnoticed. The
README asks for a ValueError wherever the bad node sits.
"""

import math


def _leaf_count(node) -> int:
    """Leaves of a subtree, counted without looking at what they are."""
    if not isinstance(node, list):
        return 1
    return sum(_leaf_count(child) for child in node)


def _search(node, maximizing, alpha, beta, counts):
    """Alpha-beta that checks each node only when it gets there."""
    if not isinstance(node, list):
        if isinstance(node, bool) or not isinstance(node, (int, float)):
            raise ValueError(f"leaf {node!r} is not an int or a float")
        counts["visited"] += 1
        return node
    if not node:
        raise ValueError("the tree contains an empty list")
    best = -math.inf if maximizing else math.inf
    for index, child in enumerate(node):
        score = _search(child, not maximizing, alpha, beta, counts)
        if maximizing:
            best = max(best, score)
            alpha = max(alpha, best)
        else:
            best = min(best, score)
            beta = min(beta, best)
        if alpha >= beta:
            counts["pruned"] += sum(_leaf_count(rest) for rest in node[index + 1:])
            break
    return best


def minimax_with_pruning(node, maximizing, alpha=float("-inf"), beta=float("inf")):
    """Alpha-beta value of node; bad nodes are found only if the search reaches them."""
    return _search(node, maximizing, alpha, beta, {"visited": 0, "pruned": 0})


def best_counter_bid(tree):
    """Value and counts from a maximising root; skipped parts are never checked."""
    counts = {"visited": 0, "pruned": 0}
    value = _search(tree, True, -math.inf, math.inf, counts)
    return {
        "value": value,
        "nodes_visited": counts["visited"],
        "nodes_pruned": counts["pruned"],
        "total_leaves": counts["visited"] + counts["pruned"],
    }

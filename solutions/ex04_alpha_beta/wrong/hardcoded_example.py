"""WRONG ON PURPOSE: the worked example is hard-coded.

The README's tree gets the README's answer; every other tree gets plain
minimax with no pruning at all, reported as if every leaf were visited.
"""

WORKED_TREE = [[3, 5, 2], [9, 1, 0], [7, 4, 8]]
WORKED_ANSWER = {"value": 4, "nodes_visited": 8, "nodes_pruned": 1, "total_leaves": 9}


def _check(node) -> int:
    """Raise ValueError on a bad tree; return its number of leaves."""
    if isinstance(node, list):
        if not node:
            raise ValueError("the tree contains an empty list")
        return sum(_check(child) for child in node)
    if isinstance(node, bool) or not isinstance(node, (int, float)):
        raise ValueError(f"leaf {node!r} is not an int or a float")
    return 1


def _minimax(node, maximizing):
    """Plain minimax: every leaf is looked at."""
    if not isinstance(node, list):
        return node
    scores = [_minimax(child, not maximizing) for child in node]
    return max(scores) if maximizing else min(scores)


def minimax_with_pruning(node, maximizing, alpha=float("-inf"), beta=float("inf")):
    """Plain minimax under a pruning name; the window is ignored."""
    _check(node)
    return _minimax(node, maximizing)


def best_counter_bid(tree):
    """The README's answer for the README's tree, no pruning for anything else."""
    total = _check(tree)
    if tree == WORKED_TREE:
        return dict(WORKED_ANSWER)
    return {"value": _minimax(tree, True), "nodes_visited": total, "nodes_pruned": 0, "total_leaves": total}

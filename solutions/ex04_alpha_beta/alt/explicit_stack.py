"""Alpha-beta pruning without recursion: the search keeps its own stack of frames.

Each frame remembers one internal node, its window, its best score so far and
the index of the next child to try. When a child's score is known, it is
folded into the frame below it, which then either moves on to its next child
or, once ``alpha >= beta``, gives up on the rest. Depth is limited only by
memory, never by Python's recursion limit.
"""

import math

__all__ = ["minimax_with_pruning", "best_counter_bid"]


def minimax_with_pruning(node, maximizing, alpha=float("-inf"), beta=float("inf")):
    """Minimax value of ``node`` by alpha-beta (left to right, stop when alpha >= beta).

    Raises ``ValueError`` for an empty list anywhere or a leaf that is not an
    ``int`` or ``float``.
    """
    _leaves_of_valid_tree(node)
    value, _visited, _pruned = _run(node, maximizing, alpha, beta)
    return value


def best_counter_bid(tree):
    """Value of ``tree`` for a maximising root, with the leaves visited, pruned and in total."""
    total = _leaves_of_valid_tree(tree)
    value, visited, pruned = _run(tree, True, -math.inf, math.inf)
    return {"value": value, "nodes_visited": visited, "nodes_pruned": pruned, "total_leaves": total}


def _leaves_of_valid_tree(tree):
    """Count the leaves, raising ValueError at the first bad node found."""
    leaves = 0
    todo = [tree]
    while todo:
        node = todo.pop()
        if type(node) is list:
            if not node:
                raise ValueError("the tree contains an empty list")
            todo.extend(node)
        elif type(node) in (int, float):
            leaves += 1
        else:
            raise ValueError(f"leaf {node!r} is a {type(node).__name__}, not an int or float")
    return leaves


def _leaves(tree):
    """Leaves of a tree that is already known to be valid."""
    leaves = 0
    todo = [tree]
    while todo:
        node = todo.pop()
        if type(node) is list:
            todo.extend(node)
        else:
            leaves += 1
    return leaves


class _Frame:
    """The search state at one internal node."""

    __slots__ = ("children", "maximizing", "alpha", "beta", "best", "next_child")

    def __init__(self, children, maximizing, alpha, beta):
        self.children = children
        self.maximizing = maximizing
        self.alpha = alpha
        self.beta = beta
        self.best = -math.inf if maximizing else math.inf
        self.next_child = 0


def _run(tree, maximizing, alpha, beta):
    """Return (value, leaves visited, leaves pruned) for a valid tree."""
    if type(tree) is not list:
        return tree, 1, 0
    visited = pruned = 0
    stack = [_Frame(tree, maximizing, alpha, beta)]
    returned = None  # score handed up by the frame or leaf just finished
    while True:
        frame = stack[-1]
        if returned is not None:
            score, returned = returned[0], None
            if frame.maximizing:
                frame.best = max(frame.best, score)
                frame.alpha = max(frame.alpha, frame.best)
            else:
                frame.best = min(frame.best, score)
                frame.beta = min(frame.beta, frame.best)
            if frame.alpha >= frame.beta:
                for rest in frame.children[frame.next_child:]:
                    pruned += _leaves(rest)
                frame.next_child = len(frame.children)
        if frame.next_child == len(frame.children):
            stack.pop()
            if not stack:
                return frame.best, visited, pruned
            returned = (frame.best,)
            continue
        child = frame.children[frame.next_child]
        frame.next_child += 1
        if type(child) is list:
            stack.append(_Frame(child, not frame.maximizing, frame.alpha, frame.beta))
        else:
            visited += 1
            returned = (child,)

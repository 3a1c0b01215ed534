"""Move ordering, written the plain way a first-time student might.

This is the naive alternative the timeouts are measured against.
``pruned_fraction`` is the stub with the two missing cutoffs added.
``order_best_first`` recurses into every child first, then sorts the new
children with a key that runs plain minimax on each of them again, so every
subtree's value is recomputed at every level above it (slow, but simple and
correct). ``minimal_leaves`` uses integer division for the two halves.
"""

import math


def check_tree(node):
    """Raise ValueError if the tree is bad; otherwise return how many leaves it has."""
    if type(node) == list:
        if len(node) == 0:
            raise ValueError("empty list in the tree")
        count = 0
        for child in node:
            count = count + check_tree(child)
        return count
    if type(node) == int or type(node) == float:
        return 1
    raise ValueError("bad leaf: " + repr(node))


def minimax(node, maximizing):
    """Plain minimax: every leaf is looked at."""
    if type(node) != list:
        return node
    values = []
    for child in node:
        values.append(minimax(child, not maximizing))
    if maximizing:
        return max(values)
    return min(values)


def pruned_fraction(tree):
    """Share of the leaves that alpha-beta (>= cutoff, left to right) never evaluates."""
    total = check_tree(tree)
    visited = 0

    def search(node, maximizing, alpha, beta):
        nonlocal visited
        if not isinstance(node, list):
            visited += 1
            return node
        if maximizing:
            best = -math.inf
            for child in node:
                best = max(best, search(child, False, alpha, beta))
                alpha = max(alpha, best)
                if alpha >= beta:
                    break
            return best
        best = math.inf
        for child in node:
            best = min(best, search(child, True, alpha, beta))
            beta = min(beta, best)
            if alpha >= beta:
                break
        return best

    search(tree, True, -math.inf, math.inf)
    return (total - visited) / total


def order(node, maximizing):
    """A new, best-first copy of node; the player at node is given by maximizing."""
    if type(node) != list:
        return node
    children = []
    for child in node:
        children.append(order(child, not maximizing))
    # The children's player is the other one, so their values use `not maximizing`.
    return sorted(children, key=lambda child: minimax(child, not maximizing), reverse=maximizing)


def order_best_first(tree):
    """Return a new tree with every node's children sorted best-first (the root maximises)."""
    check_tree(tree)
    return order(tree, True)


def minimal_leaves(branching, depth):
    """Knuth-Moore bound b**ceil(d/2) + b**floor(d/2) - 1."""
    if branching < 1:
        raise ValueError("branching must be at least 1")
    if depth < 0:
        raise ValueError("depth must be at least 0")
    up = (depth + 1) // 2
    down = depth // 2
    return branching ** up + branching ** down - 1

"""ex07: move ordering changes the work alpha-beta does, not its answer.

A tree is either
  - a leaf: an int or a float (but not a bool), or
  - an internal node: a non-empty list of trees.
The root maximises and the player changes at every level.

Three functions live here:
  - pruned_fraction is already written, but it is BROKEN on purpose: it
    gives wrong answers on the README's examples. Find the bug and fix it
    first.
  - order_best_first and minimal_leaves are yours to write.
The places to work on are marked "# TODO". Keep the names and the signatures
exactly as they are, because the checks call them. You may add helper
functions of your own, and you may use the ones below. Read README.md, then
run `grade ex07`.
"""

import math


def pruned_fraction(tree):
    """Return the share of ``tree``'s leaves that alpha-beta never evaluates.

    The rules are those of ex04: the root maximises, the window starts at
    (-inf, +inf), children are searched from left to right, and a node stops
    searching its children as soon as ``alpha >= beta``. A leaf the search
    never reaches is pruned, so the answer is
    ``(total leaves - visited leaves) / total leaves``, a float from 0.0 to
    1.0.

    Raises:
        ValueError: if the tree contains an empty list anywhere, or a leaf
            that is not an int or a float (a bool, a str, None, ...).

    Example:
        >>> pruned_fraction([[3, 5, 2], [9, 1, 0], [7, 4, 8]])  # 1 leaf of 9
        0.1111111111111111
    """
    # TODO: this function is broken on purpose. Compare what it does with the
    #       rules above and the README's examples, then find the bug and fix it.
    total = count_checked_leaves(tree)
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
            return best
        best = math.inf
        for child in node:
            best = min(best, search(child, True, alpha, beta))
            beta = min(beta, best)
        return best

    search(tree, True, -math.inf, math.inf)
    return (total - visited) / total


def order_best_first(tree):
    """Return a NEW tree in which every node's children come best-first.

    The root maximises and the player changes at every level. At a
    maximising node, the children are sorted by their minimax value from
    highest to lowest; at a minimising node, from lowest to highest. Children
    with equal values may come in any order. Every subtree is sorted the same
    way, all the way down. The result holds the same subtrees and leaves as
    ``tree``, only reordered.

    The tree you are given must be left unchanged: build new lists, don't
    sort the given ones in place.

    Raises:
        ValueError: on the same bad trees as ``pruned_fraction``.

    Example:
        >>> order_best_first([[3, 5, 2], [9, 1, 0], [7, 4, 8]])
        [[4, 7, 8], [2, 3, 5], [0, 1, 9]]
    """
    # TODO: check the tree (count_checked_leaves below does it).
    # TODO: a leaf stays as it is.
    # TODO: order each child's own subtree first (the player flips one level down).
    # TODO: sort the ordered children by their minimax values, best first for this node's player.
    raise NotImplementedError("order_best_first is not written yet")


def minimal_leaves(branching, depth):
    """Return the Knuth-Moore bound ``b**ceil(d/2) + b**floor(d/2) - 1``.

    It is the number of leaves alpha-beta evaluates in a uniform tree where
    every internal node has ``branching`` children and every leaf sits at
    ``depth``, when the best child always comes first and no two leaves are
    equal. The answer is an int.

    Raises:
        ValueError: if ``branching < 1`` or ``depth < 0``.

    Examples:
        >>> minimal_leaves(3, 4)
        17
        >>> minimal_leaves(2, 6)
        15
    """
    # TODO: reject branching < 1 and depth < 0.
    # TODO: compute the bound with integer arithmetic only.
    raise NotImplementedError("minimal_leaves is not written yet")


def count_checked_leaves(tree):
    """Return the number of leaves in ``tree``, raising ValueError on a bad tree.

    This helper is complete; you don't need to change it.
    """
    if isinstance(tree, list):
        if not tree:
            raise ValueError("an internal node is an empty list; it needs at least one child")
        return sum(count_checked_leaves(child) for child in tree)
    if isinstance(tree, bool) or not isinstance(tree, (int, float)):
        raise ValueError(f"{tree!r} is a {type(tree).__name__}, but a leaf must be an int or a float")
    return 1

"""ex04: alpha-beta pruning on nested-list game trees.

Our bid desk makes the first move and wants the outcome as HIGH as possible;
the rival replies and wants it as LOW as possible. The turns alternate level
by level down to the leaves, which hold the final outcomes.

A tree is either
  - a leaf: an int or a float (but not a bool), or
  - an internal node: a non-empty list of trees.

Fill in the two functions below; the places to work on are marked "# TODO".
Keep the names and the signatures exactly as they are, because the checks
call them. You may add helper functions of your own. Read README.md for the
counting rules and the worked example, then run `grade ex04`.
"""


def minimax_with_pruning(node, maximizing, alpha=float("-inf"), beta=float("inf")):
    """Return the minimax value of ``node``, using alpha-beta pruning.

    Args:
        node: the tree (or subtree) to search.
        maximizing: True if the player to move at ``node`` maximises (the bid
            desk), False if it minimises (the rival). The player changes at
            every level below.
        alpha: the score the maximiser is already sure it can get elsewhere.
        beta: the score the minimiser is already sure it can hold it to.

    Children are searched from left to right. As soon as ``alpha >= beta`` at
    a node, its remaining children are skipped.

    Returns:
        The minimax value: the same number plain minimax would give, whenever
        the true value lies strictly between ``alpha`` and ``beta`` (always
        the case with the default window).

    Raises:
        ValueError: if the tree contains an empty list anywhere, or a leaf
            that is not an int or a float (a bool, a str, None, ...), even in
            a part of the tree the search would skip.

    Example:
        >>> minimax_with_pruning([[3, 5, 2], [9, 1, 0], [7, 4, 8]], True)
        4
    """
    # TODO: check the tree (empty lists, leaves that are not numbers).
    # TODO: a leaf is its own value.
    # TODO: fold each child's value into alpha (desk to move) or beta (rival to move).
    # TODO: pass alpha and beta down, and stop looping once alpha >= beta.
    raise NotImplementedError("minimax_with_pruning is not written yet")


def best_counter_bid(tree):
    """Search ``tree`` from a maximising root and report the value and the work done.

    The root is the bid desk (it maximises) and the window starts at
    (-inf, +inf). The search follows the same rules as
    ``minimax_with_pruning``.

    Returns:
        A plain dict with exactly these four keys:
          "value":         the minimax value of the root;
          "nodes_visited": how many leaves were evaluated (an int);
          "nodes_pruned":  how many leaves lie under the children that were
                           skipped, however deep they sit (an int);
          "total_leaves":  how many leaves the tree has (an int).
        nodes_visited + nodes_pruned always equals total_leaves.

    Raises:
        ValueError: on the same bad trees as ``minimax_with_pruning``.

    The tree you are given must be left unchanged.

    Example:
        >>> best_counter_bid([[3, 5, 2], [9, 1, 0], [7, 4, 8]])
        {'value': 4, 'nodes_visited': 8, 'nodes_pruned': 1, 'total_leaves': 9}
    """
    # TODO: check the tree and count all of its leaves.
    # TODO: run alpha-beta from a maximising root, counting every leaf you evaluate.
    # TODO: when a node stops early, add the leaves under each child it skips.
    # TODO: return the dict described above.
    raise NotImplementedError("best_counter_bid is not written yet")

"""ex03: plain minimax on nested-list game trees.

Our bid desk moves first and wants the final outcome as HIGH as possible; the
rival answers and wants it as LOW as possible. The turns alternate level by
level down to the leaves, which hold the final outcomes.

A tree is either
  - a leaf: an int or a float (but not a bool), or
  - an internal node: a non-empty list of trees.

Fill in the three functions below; the places to work on are marked "# TODO".
Keep the names and the signatures exactly as they are, because the checks
call them. You may add helper functions of your own. Read README.md for the
rules and the worked example, then run `grade ex03`.
"""


def count_leaves(tree):
    """Return how many leaves ``tree`` has.

    Args:
        tree: a leaf (an int or a float) or a non-empty list of trees.

    Returns:
        The number of leaves, as an int. Internal nodes (the lists) are not
        counted, and a tree that is a single leaf has 1 leaf.

    Raises:
        ValueError: if the tree contains an empty list anywhere, or a leaf
            that is not an int or a float (a bool, a str, None, ...).

    Example:
        >>> count_leaves([[1, 2], [3, 4]])
        4
    """
    # TODO: a leaf (check that it is an int or a float, not a bool) counts as 1.
    # TODO: a list must not be empty; add up the leaves of its children.
    raise NotImplementedError("count_leaves is not written yet")


def minimax(tree, maximizing=True):
    """Return the minimax value of ``tree``, looking at every leaf.

    Args:
        tree: a leaf (an int or a float) or a non-empty list of trees.
        maximizing: True if the player at the root of ``tree`` maximises (the
            bid desk), False if it minimises (the rival). The player changes
            at every level below.

    Returns:
        A leaf is its own value. A list is worth the largest of its
        children's values when its player maximises, and the smallest when
        its player minimises.

    Raises:
        ValueError: on the same bad trees as ``count_leaves``.

    Example:
        >>> minimax([[3, 5, 2], [9, 1, 0], [7, 4, 8]])
        4
    """
    # TODO: a leaf is its own value (check it first).
    # TODO: a list must not be empty; value each child with the OTHER player to move.
    # TODO: take the max of the children's values if maximizing, else the min.
    raise NotImplementedError("minimax is not written yet")


def best_child(tree):
    """Return the index of the root's best child, for a maximising root.

    The root maximises, so each child is a position where the other player
    (the minimiser) moves next. The best child is the one with the largest
    minimax value. When several children share that value, the first one wins.

    Args:
        tree: a non-empty list of trees.

    Returns:
        An int from 0 to len(tree) - 1.

    Raises:
        ValueError: if ``tree`` is a single leaf (there is no child to pick),
            and on the same bad trees as ``count_leaves``.

    Example:
        >>> best_child([[3, 5, 2], [9, 1, 0], [7, 4, 8]])
        2
    """
    # TODO: a single leaf has no children: raise ValueError.
    # TODO: value every child as a minimising node.
    # TODO: return the index of the largest value; on a tie keep the earliest index.
    raise NotImplementedError("best_child is not written yet")

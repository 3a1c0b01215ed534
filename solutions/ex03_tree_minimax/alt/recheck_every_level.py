"""A slower correct style: every recursive call checks its whole subtree again.

``minimax`` and ``count_leaves`` call themselves, and each call starts by
checking the subtree it was given, so a leaf at depth d is checked d times.
That is O(leaves x depth) rather than O(leaves). It is still correct, and the
timeouts are set so that it passes too.
"""


def check(node):
    """Raise ValueError if the tree is bad."""
    if isinstance(node, list):
        if not node:
            raise ValueError("an empty list is not a tree")
        for child in node:
            check(child)
    elif isinstance(node, bool) or not isinstance(node, (int, float)):
        raise ValueError(f"{node!r} is not an int or a float")


def count_leaves(tree):
    """Number of leaves."""
    check(tree)
    if not isinstance(tree, list):
        return 1
    return sum([count_leaves(child) for child in tree])


def minimax(tree, maximizing=True):
    """Minimax value, root maximising by default."""
    check(tree)
    if not isinstance(tree, list):
        return tree
    scores = [minimax(child, not maximizing) for child in tree]
    if maximizing:
        return max(scores)
    return min(scores)


def best_child(tree):
    """First index whose child has the largest value for a minimising child."""
    check(tree)
    if not isinstance(tree, list):
        raise ValueError("best_child needs a list of children, not a single leaf")
    scores = [minimax(child, False) for child in tree]
    return scores.index(max(scores))

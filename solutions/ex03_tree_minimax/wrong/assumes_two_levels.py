"""WRONG ON PURPOSE: every tree is assumed to look like the worked example.

The root is taken to be a list of lists of leaves, exactly two levels deep:
count_leaves adds up the lengths of the root's children, minimax is a max of
mins (or a min of maxes), and best_child picks the child with the largest
min. It gets the worked example right and fails on anything shaped otherwise.
"""


def _check(node):
    """Raise ValueError on an empty list or a leaf that is not an int or a float."""
    if isinstance(node, list):
        if not node:
            raise ValueError("the tree contains an empty list")
        for child in node:
            _check(child)
    elif isinstance(node, bool) or not isinstance(node, (int, float)):
        raise ValueError(f"{node!r} is not an int or a float")


def _as_list(node):
    """A leaf where a list was expected becomes a list of one leaf."""
    return node if isinstance(node, list) else [node]


def _flat(node):
    """The numbers in a node, treating deeper lists as if they were a single level."""
    return [_flat_value(item) for item in _as_list(node)]


def _flat_value(item):
    while isinstance(item, list):
        item = item[0]
    return item


def count_leaves(tree):
    _check(tree)
    return sum(len(_as_list(child)) for child in _as_list(tree))


def minimax(tree, maximizing=True):
    _check(tree)
    if not isinstance(tree, list):
        return tree
    if maximizing:
        return max(min(_flat(child)) for child in tree)
    return min(max(_flat(child)) for child in tree)


def best_child(tree):
    _check(tree)
    if not isinstance(tree, list):
        raise ValueError("a single leaf has no children")
    values = [min(_flat(child)) for child in tree]
    return values.index(max(values))

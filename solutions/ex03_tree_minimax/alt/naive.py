"""Minimax on nested lists, written the plain way a first-time student might.

This is the naive alternative the timeouts are measured against: plain
recursion, a new list of child values at every node, and a separate
``check_tree`` pass at the start of every public call. ``best_child`` calls
``minimax`` once per child, so each child is checked again there.
"""


def is_number(x):
    """True for the leaves we accept: ints and floats, but not True/False."""
    if type(x) == bool:
        return False
    return type(x) == int or type(x) == float


def check_tree(node):
    """Raise ValueError if the tree is bad."""
    if type(node) == list:
        if len(node) == 0:
            raise ValueError("empty list in the tree")
        for child in node:
            check_tree(child)
    elif not is_number(node):
        raise ValueError("bad leaf: " + repr(node))


def leaves(node):
    """How many leaves a (checked) tree has."""
    if type(node) != list:
        return 1
    count = 0
    for child in node:
        count = count + leaves(child)
    return count


def value(node, maximizing):
    """Minimax value of a (checked) tree."""
    if type(node) != list:
        return node
    values = []
    for child in node:
        values.append(value(child, not maximizing))
    if maximizing:
        return max(values)
    else:
        return min(values)


def count_leaves(tree):
    """Number of leaves in the tree."""
    check_tree(tree)
    return leaves(tree)


def minimax(tree, maximizing=True):
    """Minimax value; the root maximises unless told otherwise."""
    check_tree(tree)
    return value(tree, maximizing)


def best_child(tree):
    """Index of the root's best child; ties go to the first."""
    check_tree(tree)
    if type(tree) != list:
        raise ValueError("a single leaf has no children")
    best_index = 0
    best_value = minimax(tree[0], False)
    i = 1
    while i < len(tree):
        v = minimax(tree[i], False)
        if v > best_value:
            best_value = v
            best_index = i
        i = i + 1
    return best_index

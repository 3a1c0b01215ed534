"""Minimax without recursion: one explicit stack walks the tree in post-order.

Each stack entry is a node whose children have not all been valued yet,
together with the values collected so far. This works at any depth, not just
under Python's recursion limit.
"""


def _is_number(node):
    return isinstance(node, (int, float)) and not isinstance(node, bool)


def _fold(tree, maximizing, on_leaf):
    """Value every node bottom-up; ``on_leaf`` sees each leaf. Returns the root's value."""
    if not isinstance(tree, list):
        if not _is_number(tree):
            raise ValueError(f"leaf {tree!r} is not an int or a float")
        on_leaf(tree)
        return tree
    if not tree:
        raise ValueError("empty list in the tree")
    # Entries: [node, maximizing, index of next child, values so far].
    stack = [[tree, maximizing, 0, []]]
    result = None
    while stack:
        top = stack[-1]
        node, player, index, values = top
        if index == len(node):
            stack.pop()
            result = max(values) if player else min(values)
            if stack:
                stack[-1][3].append(result)
            continue
        top[2] = index + 1
        child = node[index]
        if isinstance(child, list):
            if not child:
                raise ValueError("empty list in the tree")
            stack.append([child, not player, 0, []])
        elif _is_number(child):
            on_leaf(child)
            values.append(child)
        else:
            raise ValueError(f"leaf {child!r} is not an int or a float")
    return result


def count_leaves(tree):
    """Number of leaves in the tree."""
    seen = [0]

    def bump(_leaf):
        seen[0] += 1

    _fold(tree, True, bump)
    return seen[0]


def minimax(tree, maximizing=True):
    """Minimax value of the tree."""
    return _fold(tree, maximizing, lambda _leaf: None)


def best_child(tree):
    """Index of the root's best child (valued as MIN nodes); ties go to the first."""
    if not isinstance(tree, list):
        _fold(tree, True, lambda _leaf: None)  # a bad leaf is reported as such
        raise ValueError("a single leaf has no children")
    if not tree:
        raise ValueError("empty list in the tree")
    best_index, best_value = None, None
    for index, child in enumerate(tree):
        score = _fold(child, False, lambda _leaf: None)
        if best_index is None or score > best_value:
            best_index, best_value = index, score
    return best_index

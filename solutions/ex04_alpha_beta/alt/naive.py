"""Alpha-beta pruning, written the plain way a first-time student might.

This is the naive alternative the timeouts are measured against. It checks
the tree in a first pass, then runs a straightforward recursive alpha-beta.
``minimax_with_pruning`` calls itself, so it re-checks every subtree it enters
(slow, but simple and correct). ``best_counter_bid`` keeps its counts in a
dict and counts the leaves of each skipped child with a separate recursive
function.
"""


def is_number(x):
    """True for the leaves we accept: ints and floats, but not True/False."""
    if type(x) == bool:
        return False
    return type(x) == int or type(x) == float


def check_tree(node):
    """Raise ValueError if the tree is bad; otherwise return how many leaves it has."""
    if type(node) == list:
        if len(node) == 0:
            raise ValueError("empty list in the tree")
        count = 0
        for child in node:
            count = count + check_tree(child)
        return count
    if is_number(node):
        return 1
    raise ValueError("bad leaf: " + repr(node))


def count_leaves(node):
    """How many leaves a (checked) tree has."""
    if type(node) != list:
        return 1
    count = 0
    for child in node:
        count = count + count_leaves(child)
    return count


def minimax_with_pruning(node, maximizing, alpha=float("-inf"), beta=float("inf")):
    """Minimax value of node with alpha-beta pruning (children left to right, stop when alpha >= beta)."""
    check_tree(node)
    if type(node) != list:
        return node
    if maximizing:
        best = float("-inf")
        for child in node:
            value = minimax_with_pruning(child, False, alpha, beta)
            if value > best:
                best = value
            if best > alpha:
                alpha = best
            if alpha >= beta:
                break
        return best
    else:
        best = float("inf")
        for child in node:
            value = minimax_with_pruning(child, True, alpha, beta)
            if value < best:
                best = value
            if best < beta:
                beta = best
            if alpha >= beta:
                break
        return best


def search(node, maximizing, alpha, beta, counts):
    """Alpha-beta that adds to counts["visited"] and counts["pruned"] as it goes."""
    if type(node) != list:
        counts["visited"] = counts["visited"] + 1
        return node
    if maximizing:
        best = float("-inf")
    else:
        best = float("inf")
    i = 0
    while i < len(node):
        value = search(node[i], not maximizing, alpha, beta, counts)
        if maximizing:
            if value > best:
                best = value
            if best > alpha:
                alpha = best
        else:
            if value < best:
                best = value
            if best < beta:
                beta = best
        if alpha >= beta:
            # skip the rest, but remember how many leaves they hold
            j = i + 1
            while j < len(node):
                counts["pruned"] = counts["pruned"] + count_leaves(node[j])
                j = j + 1
            break
        i = i + 1
    return best


def best_counter_bid(tree):
    """Search from a maximising root; return the value and the leaf counts."""
    total = check_tree(tree)
    counts = {"visited": 0, "pruned": 0}
    value = search(tree, True, float("-inf"), float("inf"), counts)
    return {
        "value": value,
        "nodes_visited": counts["visited"],
        "nodes_pruned": counts["pruned"],
        "total_leaves": total,
    }

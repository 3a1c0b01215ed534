"""ex10: expectimax, for an opponent who is not a genius.

A tree is either a leaf, a number (an int or a float, but not a bool, NaN or
infinity), or a dict with exactly one key:

    {"max": [child, child, ...]}          the maximiser picks a child
    {"min": [child, child, ...]}          the minimiser picks a child
    {"chance": [[p, child], [p, child]]}  chance picks child with probability p

For example {"chance": [[0.5, 3], [0.5, {"min": [2, 8]}]]} is worth
0.5 * 3 + 0.5 * 2 = 2.5.

Fill in the four functions below; the places to work on are marked
"# TODO". Keep the names and the signatures exactly as they are, because the
checks call them. You may add helper functions of your own. Read README.md,
then run `grade ex10`.
"""


def expectimax(node):
    """Return the value of the tree ``node``.

    A leaf is worth itself. A "max" node is worth its largest child's value,
    a "min" node its smallest child's, and a "chance" node the sum of
    p * value over its pairs.

    Raises:
        ValueError: if any node of the tree breaks the rules above (see the
            README); the message says where, as in node["max"][1].

    Examples:
        >>> expectimax({"chance": [[0.5, 3], [0.5, {"min": [2, 8]}]]})
        2.5
    """
    # TODO: check the whole tree first, and raise ValueError naming the bad node.
    # TODO: then value it: the three kinds of node, and a leaf.
    raise NotImplementedError("expectimax is not written yet")


def best_action(node):
    """Return the index of the child of the "max" node ``node`` with the largest value.

    Values within 1e-9 of each other are tied, and a tie goes to the smallest
    index.

    Raises:
        ValueError: for a bad tree, or a root that is not a "max" node.

    Examples:
        >>> best_action({"max": [1, {"chance": [[0.5, 0], [0.5, 4]]}]})
        1
    """
    # TODO: value every child and keep the first one within 1e-9 of the best.
    raise NotImplementedError("best_action is not written yet")


def win_probability(n):
    """Return Max's chance of winning Simple-Nim from ``n`` counters, Max to move.

    Each side takes 1, 2 or 3 counters (never more than are left), and whoever
    takes the last counter loses. Max plays to win; Min takes 1, 2 or 3 at
    random, each legal move equally likely. 0 counters with Max to move means
    Min took the last one: Max has won.

    Raises:
        ValueError: unless ``n`` is an int (not a bool) of at least 0.

    Examples:
        >>> win_probability(5)
        0.6666666666666666
    """
    # TODO: work out the chances for small piles first and build up to n.
    raise NotImplementedError("win_probability is not written yet")


def best_move_vs_random(board):
    """Return the square (0-8) that gives the side to move the best expected score against a random opponent.

    The board is ex06's: a str of 9 characters "X", "O" or " ", X moves
    first, and the counts say whose turn it is. A win counts +1, a draw 0 and
    a loss -1. The opponent fills an empty square at random, each one equally
    likely. Ties (within 1e-9) go to the smallest square.

    Raises:
        ValueError: for a bad board, or a game that is already over.

    Examples:
        >>> best_move_vs_random("         ")
        0
    """
    # TODO: check the board; then value each of your moves: what the random
    # TODO: opponent does next is an average, what you do next is a max.
    raise NotImplementedError("best_move_vs_random is not written yet")

"""ex02: counting games in the game tree of Simple-Nim.

One pile of n counters. The two players take turns. In the tree you count
here, nobody takes the last counter voluntarily:

  - from a pile of 2 or more, a player takes 1, 2 or 3 counters but always
    leaves at least 1, so the next pile is n-3, n-2 or n-1 (only those >= 1);
  - from a pile of 1, the player must take it, which leaves 0.

A node is a pile size on a path from the root (n) down to a leaf (0). A game
is one such path, written as the pile sizes before each move, so the 0 at
the end is not part of it. The player who moves from 1 takes the last counter
and loses.

Fill in the four functions below; the places to work on are marked "# TODO".
Keep the names and the signatures exactly as they are, because the checks
call them. You may add helper functions of your own. Read README.md for the
rules, the drawing of the tree for n = 4 and the examples, then run
`grade ex02`.
"""


def games(n):
    """Return every complete game that starts from a pile of ``n``, sorted.

    Args:
        n: the number of counters in the pile at the start (an int >= 1).

    Returns:
        A list of tuples of ints. Each tuple is one game: the pile sizes
        before each move, from ``n`` down to ``1`` (the 0 at the end is left
        out). The list is sorted in ascending order, the order ``sorted()``
        gives tuples.

    Raises:
        ValueError: if ``n < 1``.

    Example:
        >>> games(4)
        [(4, 1), (4, 2, 1), (4, 3, 1), (4, 3, 2, 1)]
    """
    # TODO: reject n < 1 with a ValueError.
    # TODO: list the piles a player may leave (from 1 only 0; otherwise n-3, n-2, n-1 that are >= 1).
    # TODO: a game from n is n followed by a game from one of those piles; the 0 ends it.
    # TODO: return the games as tuples, sorted.
    raise NotImplementedError("games is not written yet")


def count_nodes(n):
    """Return how many nodes the game tree of a pile of ``n`` has.

    Every pile size on every path counts as a node, including the root
    (``n`` itself) and every leaf (each 0 at the end of a game). The same
    pile size appearing in several places counts once per place.

    Args:
        n: the number of counters at the start (an int >= 1).

    Returns:
        The number of nodes, an int.

    Raises:
        ValueError: if ``n < 1``.

    Example:
        >>> count_nodes(4)
        12
    """
    # TODO: reject n < 1 with a ValueError.
    # TODO: a leaf (0) is one node; any other node is itself plus all the nodes below its children.
    raise NotImplementedError("count_nodes is not written yet")


def wins(n):
    """Return how many games each player wins, starting from a pile of ``n``.

    The first player moves from ``n``; the players then alternate. Whoever
    moves from a pile of 1 takes the last counter and loses the game.

    Args:
        n: the number of counters at the start (an int >= 1).

    Returns:
        A tuple ``(first_player_wins, second_player_wins)`` of two ints that
        add up to ``len(games(n))``.

    Raises:
        ValueError: if ``n < 1``.

    Example:
        >>> wins(5)
        (3, 4)
    """
    # TODO: reject n < 1 with a ValueError.
    # TODO: for each game, work out who made the last move (from 1); that player lost.
    # TODO: return (games the first player wins, games the second player wins).
    raise NotImplementedError("wins is not written yet")


def pruned_nodes(n):
    """Return how many nodes alpha-beta pruning enters in the tree of ``n``.

    The first player (Max) moves at the root and the players alternate. A
    leaf (0) scores +1 if it is Max's turn there (the other player took the
    last counter) and -1 if it is Min's turn. The search:

      - tries the children from the smallest pile left to the largest
        (take 3, then take 2, then take 1, whichever are allowed);
      - starts with the window alpha = -1, beta = +1;
      - after each child, raises alpha (at a Max node) or lowers beta (at a
        Min node) to that child's score, and skips the remaining children as
        soon as beta <= alpha.

    Every node the search enters counts once, the root and the leaves
    included. Nodes under skipped children are not entered and not counted.

    Args:
        n: the number of counters at the start (an int >= 1).

    Returns:
        The number of nodes entered, an int.

    Raises:
        ValueError: if ``n < 1``.

    Example:
        >>> pruned_nodes(4)
        3
    """
    # TODO: reject n < 1 with a ValueError.
    # TODO: count a node as soon as the search enters it; score a leaf (0) by whose turn it is.
    # TODO: try the children smallest pile first and pass alpha and beta down to each.
    # TODO: update alpha or beta after each child and stop once beta <= alpha.
    raise NotImplementedError("pruned_nodes is not written yet")

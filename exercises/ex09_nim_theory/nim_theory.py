"""ex09: when theory beats search.

A position is a tuple of pile sizes, each an int of 0 or more, such as
(2, 3, 5). Instead of searching the game tree, these functions use the
theory of Nim:

  - normal play (taking the last counter wins): the player to move loses
    exactly when the nim-sum (the XOR of the piles) is 0;
  - misere play (taking the last counter loses): the same, except when every
    pile is 0 or 1; then the player to move loses exactly when the number of
    1-piles is odd;
  - Grundy's game (split a pile into two unequal piles): the player to move
    loses exactly when the XOR of the piles' Grundy values is 0.

Fill in the four functions below; the places to work on are marked "# TODO".
Keep the names and the signatures exactly as they are, because the checks
call them. You may add helper functions of your own. Read README.md for the
rules and the examples, then run `grade ex09`.
"""


def nim_sum(piles):
    """Return the nim-sum of ``piles``: the XOR (``^``) of all the pile sizes.

    Args:
        piles: a tuple of pile sizes, each an int of 0 or more.

    Returns:
        An int. A position with only empty piles has nim-sum 0.

    Raises:
        ValueError: if a pile is negative.

    Example:
        >>> nim_sum((2, 3, 5))
        4
    """
    # TODO: raise ValueError if any pile is negative.
    # TODO: combine the piles with ^, starting from 0.
    raise NotImplementedError("nim_sum is not written yet")


def winning_move(piles, misere=False):
    """Return the position after a winning Nim move, or None if no move wins.

    A move takes one or more counters from exactly one pile. It is written as
    the whole position it leads to: a tuple as long as ``piles``, with the
    piles in the same order. A move is winning when the position it leads to
    is lost for the opponent, who moves next. Any winning move is accepted.

    Args:
        piles: a tuple of pile sizes, each an int of 0 or more. Piles can be
            huge (10**18 counters), so use the theory, not a search.
        misere: False for normal play (taking the last counter wins), True
            for misere play (taking the last counter loses).

    Returns:
        The new position as a tuple, or None when every move loses, and also
        when there is no move at all because every pile is empty.

    Raises:
        ValueError: if a pile is negative.

    Examples:
        >>> winning_move((2, 3, 5))
        (2, 3, 1)
        >>> winning_move((5, 1), misere=True)
        (0, 1)
        >>> winning_move((2, 3, 1)) is None
        True
    """
    # TODO: raise ValueError if any pile is negative.
    # TODO: misere play when no pile (or only one pile) has 2 or more counters:
    #       leave an odd number of 1-piles, or return None if you cannot.
    # TODO: otherwise use the nim-sum: None when it is 0, else shrink a pile
    #       to pile ^ nim-sum where that is smaller than the pile.
    raise NotImplementedError("winning_move is not written yet")


def grundy(n):
    """Return the Grundy value of one pile of ``n`` counters in Grundy's game.

    A move splits a pile into two non-empty piles of different sizes. The
    Grundy value of a pile is the mex (the smallest non-negative integer not
    among them) of ``grundy(a) ^ grundy(b)`` over every split of ``n`` into
    ``a + b`` with ``a > b >= 1``. Piles of 0, 1 and 2 cannot be split, so
    their value is 0.

    Remember the values you have found (a dict, a list, or functools.cache),
    so that grundy(300) is quick.

    Args:
        n: the pile size, an int of 0 or more.

    Returns:
        An int of 0 or more.

    Raises:
        ValueError: if n is negative.

    Example:
        >>> [grundy(n) for n in range(7)]
        [0, 0, 0, 1, 0, 2, 1]
    """
    # TODO: raise ValueError if n is negative.
    # TODO: collect grundy(n - take) ^ grundy(take) for every take with
    #       1 <= take < n - take.
    # TODO: return the mex of that collection, and remember it.
    raise NotImplementedError("grundy is not written yet")


def split_winning_move(piles):
    """Return the position after a winning split in Grundy's game, or None.

    A split replaces one pile of ``counters`` by the two piles
    ``counters - take, take``, in its place, where ``1 <= take`` and
    ``take < counters - take``. For example, the splits of (3, 6) are
    (2, 1, 6), (3, 5, 1) and (3, 4, 2). A split is winning when the XOR of
    the Grundy values of the new position is 0. Any winning split is accepted.

    Args:
        piles: a tuple of pile sizes, each an int from 0 to about 300.

    Returns:
        The new position as a tuple, or None when no split wins, including
        when no pile can be split at all.

    Raises:
        ValueError: if a pile is negative.

    Examples:
        >>> split_winning_move((6,))
        (4, 2)
        >>> split_winning_move((7,)) is None
        True
    """
    # TODO: raise ValueError if any pile is negative.
    # TODO: XOR the Grundy values of all the piles; None if that is 0.
    # TODO: otherwise find a split that brings the XOR to 0 and return it.
    raise NotImplementedError("split_winning_move is not written yet")

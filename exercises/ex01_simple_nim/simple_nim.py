"""ex01: minimax for Simple-Nim.

Simple-Nim is played with one pile of counters. The two players, Max and Min,
take turns. On a turn a player takes 1, 2 or 3 counters, but never more than
are left. Whoever takes the LAST counter LOSES.

A state is the number of counters left in the pile, an int >= 0. A state of 0
on your turn means your opponent took the last counter: you have won.

Fill in the two functions below; the places to work on are marked "# TODO".
Keep the names and the signatures exactly as they are (the checks also call
them with keyword arguments, such as ``minimax(5, max_turn=False)``). You may
add helper functions of your own. Read README.md, then run `grade ex01`.
"""


def minimax(state, max_turn):
    """Return the minimax score of ``state`` for Max: +1 if Max wins, -1 if Max loses.

    Both players are assumed to play perfectly from here on.

    Args:
        state: the number of counters left in the pile (an int, 0 or more).
        max_turn: True if Max is the player to move, False if Min is.

    Returns:
        +1 if Max wins with perfect play from both sides, -1 otherwise.
        With 0 counters left the player to move has already won, so
        ``minimax(0, True) == 1`` and ``minimax(0, False) == -1``.

    Raises:
        ValueError: if ``state`` is negative.

    Examples:
        >>> minimax(6, max_turn=True)
        1
        >>> minimax(4, max_turn=False)
        -1
    """
    # TODO: raise ValueError for a negative state.
    # TODO: the base case: no counters left means the player to move has won.
    # TODO: list the states one move can reach: take 1, 2 or 3, never more than are left.
    # TODO: score each of them with the other player to move (call minimax again).
    # TODO: Max picks the highest score, Min the lowest.
    raise NotImplementedError("minimax is not written yet")


def best_move(state):
    """Choose a move for the player to move, who plays as Max.

    Args:
        state: the number of counters left in the pile (an int, 1 or more).

    Returns:
        A tuple ``(score, new_state)``: ``new_state`` is the pile left after
        the move, and ``score`` is its minimax score for Max with Min to move
        next (+1 or -1). When several moves share the best score, the one that
        leaves the MOST counters wins the tie; in other words, return the
        largest ``(score, new_state)`` tuple.

    Raises:
        ValueError: if ``state`` is 0 (the game is over, there is no move to
            make) or negative.

    Examples:
        >>> best_move(6)
        (1, 5)
        >>> best_move(5)
        (-1, 4)
    """
    # TODO: raise ValueError for a state of 0 or less.
    # TODO: for each legal move, score the new state with minimax (whose turn is it next?).
    # TODO: return the largest (score, new_state) tuple.
    raise NotImplementedError("best_move is not written yet")

"""ex05: one minimax, many Nim variants.

A state is a tuple of pile sizes, such as (2, 3, 5). Three rule sets share
one minimax; only the moves and the end of the game change:

  "misere"  take one or more counters from one pile; whoever takes the
            last counter LOSES.
  "normal"  the same moves; whoever takes the last counter WINS.
  "split"   (Grundy's game) split one pile into two unequal, non-empty
            piles; a player who cannot split any pile LOSES.

Scores are from Max's point of view: +1 when Max wins with perfect play from
both sides, -1 when Max loses.

Fill in the four functions below; the places to work on are marked "# TODO".
Keep the names and the signatures exactly as they are, because the checks
call them. You may add helper functions (and a memo) of your own. Read
README.md for the exact move orders and rules, then run `grade ex05`.
"""

VARIANTS = ("misere", "normal", "split")


def nim_moves(state):
    """Yield every state reachable by removing one or more counters from one pile.

    Args:
        state: a tuple of pile sizes, such as (2, 3, 5).

    The order is part of the spec: piles are taken left to right, and within
    a pile the number of counters LEFT goes from 0 upwards (0, 1, ...,
    counters - 1). Each new state is a tuple.

    Raises:
        ValueError: if a pile is negative.

    Example:
        >>> list(nim_moves((1, 2)))
        [(0, 2), (1, 0), (1, 1)]
    """
    # TODO: raise ValueError if a pile is negative.
    # TODO: for each pile, left to right, and each number of counters left,
    #       from 0 upwards, yield the new state.
    raise NotImplementedError("nim_moves is not written yet")


def split_moves(state):
    """Yield every state reachable by splitting one pile into two unequal, non-empty piles.

    Args:
        state: a tuple of pile sizes, such as (6,).

    The order is part of the spec: piles are taken left to right. A pile of
    ``counters`` is replaced, in place, by the two piles
    ``(counters - take, take)``, for take = 1, 2, ... as long as
    ``take < counters - take``. Piles of 0, 1 or 2 counters cannot be split,
    and two equal piles are never a split.

    Raises:
        ValueError: if a pile is negative.

    Example:
        >>> list(split_moves((6,)))
        [(5, 1), (4, 2)]
        >>> list(split_moves((1, 4)))
        [(1, 3, 1)]
    """
    # TODO: raise ValueError if a pile is negative.
    # TODO: for each pile, left to right, and take = 1, 2, ... while
    #       take < counters - take, yield the state with that pile replaced
    #       by the two piles counters - take and take.
    raise NotImplementedError("split_moves is not written yet")


def minimax(state, is_maximizing, variant):
    """Return +1 if Max wins from ``state`` with perfect play, and -1 if Max loses.

    Args:
        state: a tuple of pile sizes.
        is_maximizing: True if Max is the player to move, False if Min is.
        variant: "misere", "normal" or "split".

    When the game is already over, return its score:
      - "misere": every pile is empty, so the OTHER player took the last
        counter and the player to move has won;
      - "normal": every pile is empty, so the other player took the last
        counter and the player to move has lost;
      - "split": no pile can be split, so the player to move has lost.

    Use a memo (remember the value of every position you have solved): the
    largest checks need it. Sort the piles before using them as a memo key,
    at least in the "split" game. Alpha-beta pruning makes the search faster
    and is recommended, but the checks grade only the values, not pruning.

    Raises:
        ValueError: for an unknown variant or a negative pile.

    Example:
        >>> minimax((1,), True, "misere")
        -1
        >>> minimax((1,), True, "normal")
        1
    """
    # TODO: raise ValueError for an unknown variant or a negative pile.
    # TODO: if the game is over, return its score for the player to move.
    # TODO: look the position up in your memo (sorted piles, is_maximizing, variant).
    # TODO: score the moves (nim_moves or split_moves) with the other player
    #       to move; stopping once the player to move has found a win
    #       (alpha-beta here) saves time.
    # TODO: store the answer in the memo and return it.
    raise NotImplementedError("minimax is not written yet")


def best_move(state, variant):
    """Return ``(score, new_state)`` for the player to move, who plays as Max.

    Args:
        state: a tuple of pile sizes.
        variant: "misere", "normal" or "split".

    The answer is the largest ``(minimax(new_state, False, variant),
    new_state)`` over all moves: the best score, and among moves with that
    score, the largest new state (tuples compare item by item).

    Raises:
        ValueError: for an unknown variant, a negative pile, or a state where
            the game is already over (there is no move to choose).

    Example:
        >>> best_move((2, 3, 5), "misere")
        (1, (2, 3, 1))
        >>> best_move((6,), "split")
        (1, (4, 2))
    """
    # TODO: raise ValueError for an unknown variant or a negative pile.
    # TODO: raise ValueError if the game is already over.
    # TODO: return the max over (minimax(new_state, False, variant), new_state).
    raise NotImplementedError("best_move is not written yet")

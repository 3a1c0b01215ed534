"""Simple-Nim minimax with the rules of the game kept apart from the search.

A second correct style: ``legal_piles`` and ``outcome`` hold everything that
is particular to Simple-Nim, and the search only asks them questions. There is
no memo, and the search passes generators straight to max() and min().
"""


def legal_piles(state):
    """Every pile one move can leave: take 1, 2 or 3, never more than there are."""
    return (state - take for take in (1, 2, 3) if take <= state)


def outcome(state, max_turn):
    """+1 or -1 when the game is over, None while it goes on."""
    if state == 0:
        # the player to move has won: the other one took the last counter
        return 1 if max_turn else -1
    return None


def check(state):
    """A pile cannot hold fewer than no counters."""
    if state < 0:
        raise ValueError(f"a pile of {state} counters is impossible")


def minimax(state, max_turn):
    """+1 if Max wins from ``state`` with best play, -1 otherwise."""
    check(state)
    if (score := outcome(state, max_turn)) is not None:
        return score
    choose = max if max_turn else min
    return choose(minimax(pile, not max_turn) for pile in legal_piles(state))


def best_move(state):
    """The largest (score, new_state) over the moves of the player to move (Max)."""
    check(state)
    if outcome(state, True) is not None:
        raise ValueError("the pile is empty, so the game is already over")
    return max((minimax(pile, max_turn=False), pile) for pile in legal_piles(state))

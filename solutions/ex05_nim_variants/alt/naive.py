"""Nim variants, written the plain way a first-time student might.

This is the naive alternative the timeouts are measured against. The move
generators build lists. minimax is plain recursion that scores every child
(no pruning at all) and remembers its answers in a dict. The memo key uses
the state exactly as given, except in the split game, where the piles are
sorted first (as the README asks): the slowest memo the exercise accepts.
"""

VARIANTS = ["misere", "normal", "split"]

memo = {}


def check_state(state):
    """Raise ValueError if some pile is negative."""
    for pile in state:
        if pile < 0:
            raise ValueError("negative pile in " + repr(state))


def check_variant(variant):
    """Raise ValueError if the variant is not one we know."""
    if variant not in VARIANTS:
        raise ValueError("unknown variant: " + repr(variant))


def nim_moves(state):
    """Every state reachable by taking one or more counters from one pile."""
    check_state(state)
    result = []
    for i in range(len(state)):
        for left in range(state[i]):
            new_state = list(state)
            new_state[i] = left
            result.append(tuple(new_state))
    return result


def split_moves(state):
    """Every state reachable by splitting one pile into two unequal piles."""
    check_state(state)
    result = []
    for i in range(len(state)):
        counters = state[i]
        take = 1
        while take < counters - take:
            new_state = list(state[:i]) + [counters - take, take] + list(state[i + 1:])
            result.append(tuple(new_state))
            take = take + 1
    return result


def moves(state, variant):
    """The moves of the given variant."""
    if variant == "split":
        return split_moves(state)
    return nim_moves(state)


def game_over(state, variant):
    """True if the player to move has no move."""
    return len(moves(state, variant)) == 0


def minimax(state, is_maximizing, variant):
    """+1 if Max wins with perfect play, -1 if Max loses."""
    check_state(state)
    check_variant(variant)
    if variant == "split":
        key = (tuple(sorted(state)), is_maximizing, variant)
    else:
        key = (state, is_maximizing, variant)
    if key in memo:
        return memo[key]

    if game_over(state, variant):
        if variant == "misere":
            # the other player took the last counter, so the player to move won
            result = 1 if is_maximizing else -1
        else:
            # the player to move is stuck (or the other took the last counter)
            result = -1 if is_maximizing else 1
    else:
        scores = []
        for new_state in moves(state, variant):
            scores.append(minimax(new_state, not is_maximizing, variant))
        if is_maximizing:
            result = max(scores)
        else:
            result = min(scores)

    memo[key] = result
    return result


def best_move(state, variant):
    """(score, new_state) for the player to move, ties to the largest new state."""
    check_state(state)
    check_variant(variant)
    if game_over(state, variant):
        raise ValueError("the game is over, there is no move")
    best = None
    for new_state in moves(state, variant):
        candidate = (minimax(new_state, False, variant), new_state)
        if best is None or candidate > best:
            best = candidate
    return best

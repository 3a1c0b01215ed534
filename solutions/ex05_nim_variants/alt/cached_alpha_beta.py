"""Nim variants in the style of a textbook's game framework.

The rules live in two small functions, ``possible_new_states`` and
``evaluate`` (which returns None while the game goes on). The search is
alpha-beta with the window carried down as arguments, memoised with
``functools.cache``; the public ``minimax`` sorts the piles once, and every
recursive call sorts them again, so the cache sees each position once.
"""

from functools import cache

RULES = ("misere", "normal", "split")


def nim_moves(state):
    """Yield every state reachable by removing counters from one pile."""
    _validate(state)
    return _removals(tuple(state))


def split_moves(state):
    """Yield every state reachable by splitting one pile into two unequal piles."""
    _validate(state)
    return _splits(tuple(state))


def minimax(state, is_maximizing, variant):
    """+1 if Max wins from state with perfect play, -1 if Max loses."""
    _validate(state, variant)
    return _alpha_beta(tuple(sorted(state)), bool(is_maximizing), variant)


def best_move(state, variant):
    """(score, new_state) for the player to move; ties go to the largest new state."""
    _validate(state, variant)
    state = tuple(state)
    if evaluate(state, True, variant) is not None:
        raise ValueError(f"no move left in {state} ({variant}): the game is over")
    return max(
        (_alpha_beta(tuple(sorted(new_state)), False, variant), new_state)
        for new_state in possible_new_states(state, variant)
    )


def _validate(state, variant="normal"):
    """Raise ValueError for a negative pile or an unknown variant."""
    if any(pile < 0 for pile in state):
        raise ValueError(f"a pile cannot be negative: {tuple(state)}")
    if variant not in RULES:
        raise ValueError(f"variant must be one of {RULES}, not {variant!r}")


def _removals(state):
    for pile, counters in enumerate(state):
        for remain in range(counters):
            yield state[:pile] + (remain,) + state[pile + 1:]


def _splits(state):
    for pile, counters in enumerate(state):
        for take in range(1, (counters + 1) // 2):
            yield state[:pile] + (counters - take, take) + state[pile + 1:]


def possible_new_states(state, variant):
    """The moves of a variant."""
    return _splits(state) if variant == "split" else _removals(state)


def evaluate(state, is_maximizing, variant):
    """The score of a finished game, or None if the game goes on."""
    if variant == "split":
        if all(counters <= 2 for counters in state):
            return -1 if is_maximizing else 1
    elif all(counters == 0 for counters in state):
        if variant == "misere":
            return 1 if is_maximizing else -1
        return -1 if is_maximizing else 1
    return None


@cache
def _alpha_beta(state, is_maximizing, variant, alpha=-1, beta=1):
    if (score := evaluate(state, is_maximizing, variant)) is not None:
        return score
    scores = []
    for new_state in possible_new_states(state, variant):
        score = _alpha_beta(tuple(sorted(new_state)), not is_maximizing, variant, alpha, beta)
        scores.append(score)
        if is_maximizing:
            alpha = max(alpha, score)
        else:
            beta = min(beta, score)
        if beta <= alpha:
            break
    return (max if is_maximizing else min)(scores)

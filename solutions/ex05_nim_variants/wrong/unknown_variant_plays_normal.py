"""WRONG ON PURPOSE: an unknown variant is never rejected.

Anything that is not "split" or "misere" quietly plays normal Nim.
"""

from __future__ import annotations

from functools import cache

__all__ = ["nim_moves", "split_moves", "minimax", "best_move"]

VARIANTS = ("misere", "normal", "split")
"""The rule sets that ``minimax`` and ``best_move`` know."""
WIN = 1
"""Max wins."""
LOSS = -1
"""Max loses."""


def nim_moves(state):
    """Return a generator of every state reachable by removing counters from one pile.

    Piles are taken left to right; within a pile, the number of counters left
    goes from 0 up to one less than the pile had. For example,
    ``list(nim_moves((1, 2)))`` is ``[(0, 2), (1, 0), (1, 1)]``.

    Raises ``ValueError`` if a pile is negative or not an ``int``.
    """
    return _nim_moves(_checked_piles(state))


def split_moves(state):
    """Return a generator of every state reachable by splitting one pile into two unequal piles.

    Piles are taken left to right. A pile of ``counters`` is replaced, in
    place, by ``(counters - take, take)`` for ``take = 1, 2, ...`` while
    ``take < counters - take``. For example, ``list(split_moves((6,)))`` is
    ``[(5, 1), (4, 2)]``: ``(3, 3)`` is not a move, because the piles must
    differ.

    Raises ``ValueError`` if a pile is negative or not an ``int``.
    """
    return _split_moves(_checked_piles(state))


def minimax(state, is_maximizing, variant):
    """Return ``+1`` if Max wins from ``state`` with perfect play, else ``-1``.

    ``is_maximizing`` is True when Max is the player to move. ``variant`` is
    ``"misere"``, ``"normal"`` or ``"split"``. A state where the game is over
    gets its terminal score: in ``"misere"`` the player to move has won (the
    other player took the last counter); in ``"normal"`` and ``"split"`` the
    player to move has lost.

    Raises ``ValueError`` for an unknown variant or a negative pile.
    """
    piles = _checked_piles(state)
    return _search(_memo_key(piles), bool(is_maximizing), variant)


def best_move(state, variant):
    """Return ``(score, new_state)`` for the player to move, who plays as Max.

    The answer is the largest ``(minimax(new_state, False, variant),
    new_state)`` over all moves, so among equally good moves the largest new
    state wins the tie.

    Raises ``ValueError`` for an unknown variant, a negative pile, or a state
    where the game is already over (there is no move to choose).
    """
    piles = _checked_piles(state)
    if _is_over(piles, variant):
        raise ValueError(f"the {variant} game is already over at {piles}: there is no move to choose")
    return max(
        (_search(_memo_key(new_state), False, variant), new_state)
        for new_state in _moves(piles, variant)
    )


# --------------------------------------------------------------------------
# Checking arguments.
# --------------------------------------------------------------------------

def _checked_piles(state) -> tuple[int, ...]:
    """Return ``state`` as a tuple, or raise ValueError naming the bad pile."""
    piles = tuple(state)
    for index, counters in enumerate(piles):
        if type(counters) is not int:
            raise ValueError(
                f"pile {index} of {piles!r} is {counters!r} of type {type(counters).__name__}; "
                "a pile must be an int"
            )
        if counters < 0:
            raise ValueError(f"pile {index} of {piles} has {counters} counters; a pile cannot be negative")
    return piles


def _check_variant(variant) -> None:
    """Raise ValueError unless ``variant`` is one of VARIANTS."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {', '.join(VARIANTS)}")


# --------------------------------------------------------------------------
# The rules.
# --------------------------------------------------------------------------

def _nim_moves(piles):
    """Remove one or more counters from one pile (piles already checked)."""
    for index, counters in enumerate(piles):
        for remaining in range(counters):
            yield piles[:index] + (remaining,) + piles[index + 1:]


def _split_moves(piles):
    """Split one pile into two unequal, non-empty piles (piles already checked)."""
    for index, counters in enumerate(piles):
        take = 1
        while take < counters - take:
            yield piles[:index] + (counters - take, take) + piles[index + 1:]
            take += 1


def _moves(piles, variant):
    """The moves of ``variant``: misère and normal Nim share theirs."""
    return _split_moves(piles) if variant == "split" else _nim_moves(piles)


def _is_over(piles, variant) -> bool:
    """True when the player to move has no move left."""
    if variant == "split":
        return all(counters <= 2 for counters in piles)  # 1 and 2 cannot be split unequally
    return all(counters == 0 for counters in piles)


def _terminal_score(is_maximizing, variant) -> int:
    """The score of a finished game, where ``is_maximizing`` says whose turn it would be."""
    mover_won = variant == "misere"  # the other player took the last counter
    return WIN if mover_won == is_maximizing else LOSS


# --------------------------------------------------------------------------
# The search.
# --------------------------------------------------------------------------

def _memo_key(piles) -> tuple[int, ...]:
    """The piles in sorted order.

    The order of the piles never changes who wins, so sorting lets every
    arrangement of the same piles share one memo entry. For splits this is
    what keeps the memo small: the same piles turn up in many orders.
    """
    return tuple(sorted(piles))


@cache
def _search(piles, is_maximizing, variant):
    """Alpha-beta minimax over sorted piles, memoised on (piles, player, variant).

    The only scores are -1 and +1, so every node starts with the full window
    (alpha, beta) = (-1, +1), and it closes exactly when the player to move
    finds a move that wins for them. A parent only searches a child while its
    own window is still (-1, +1), so passing the window down would change
    nothing; and because every node is searched with the full window, each
    memoised value is exact, not just a bound.
    """
    if _is_over(piles, variant):
        return _terminal_score(is_maximizing, variant)

    alpha, beta = LOSS, WIN
    best = LOSS if is_maximizing else WIN
    for new_state in _moves(piles, variant):
        score = _search(_memo_key(new_state), not is_maximizing, variant)
        if is_maximizing:
            best = max(best, score)
            alpha = max(alpha, best)
        else:
            best = min(best, score)
            beta = min(beta, best)
        if alpha >= beta:
            break  # the player to move has found a win; nothing can beat it
    return best

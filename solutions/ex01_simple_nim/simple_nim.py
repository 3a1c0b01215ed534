"""Minimax for Simple-Nim (reference solution).

Simple-Nim has one pile of counters. On a turn a player takes 1, 2 or 3
counters, never more than are left, and whoever takes the last counter loses.
A state is the number of counters left; ``max_turn`` says whether Max is the
player to move.

The public functions check their input; the recursion itself is the private
``_value``. Its cache only saves time: plain recursion gives the same answers.
"""

from __future__ import annotations

from functools import cache

__all__ = ["minimax", "best_move"]

TAKES = (1, 2, 3)
"""How many counters a player may take on one turn."""


def minimax(state: int, max_turn: bool) -> int:
    """Return +1 if Max wins from ``state`` under perfect play, else -1.

    ``max_turn`` is True when Max is to move. With 0 counters left the player
    to move has already won, since the opponent took the last counter.

    Raises ``ValueError`` if ``state`` is not a whole number of counters
    (a negative number, a float, a bool, ...).
    """
    _check_state(state)
    return _value(state, bool(max_turn))


def best_move(state: int) -> tuple[int, int]:
    """Return ``(score, new_state)`` for the player to move, who plays as Max.

    ``score`` is the minimax value (+1 or -1) of moving to ``new_state``, where
    the opponent moves next. Of the moves with the best score, the one that
    leaves the most counters is chosen: this is the max over
    ``(score, new_state)`` pairs.

    Raises ``ValueError`` if ``state`` is 0 (the game is over) or not a whole
    number of counters.
    """
    _check_state(state)
    if state == 0:
        raise ValueError("best_move(0): no counters are left, so the game is already over")
    return max((_value(new_state, False), new_state) for new_state in _next_states(state))


def _check_state(state) -> None:
    """Reject anything that is not a number of counters, naming the bad value."""
    if type(state) is not int:
        raise ValueError(f"state must be an int number of counters, not {state!r} ({type(state).__name__})")
    if state < 0:
        raise ValueError(f"state must be 0 or more counters, not {state}")


def _next_states(state: int) -> list[int]:
    """The piles that one legal move from ``state`` can leave."""
    return [state - take for take in TAKES if take <= state]


@cache
def _value(state: int, max_turn: bool) -> int:
    """Minimax value for Max of an already checked state."""
    if state == 0:
        # The opponent took the last counter, so the player to move has won.
        return 1 if max_turn else -1
    scores = [_value(new_state, not max_turn) for new_state in _next_states(state)]
    return max(scores) if max_turn else min(scores)

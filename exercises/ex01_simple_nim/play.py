"""Simple-Nim for `grade play simple-nim`: you against your own best_move.

Your best_move only proposes moves. This file keeps the pile and judges every
move by the rules, so a move that breaks them ends the game rather than
counting. A position is the number of counters left.
"""

from __future__ import annotations

NAME = "simple-nim"
RULES = "One pile of counters. Take 1, 2 or 3 a turn; whoever takes the last counter loses."
FUNCTION = "best_move"

# A plain search without a memo answers a pile of 20 well within the exercise's 3 s per call.
LARGEST_PILE = 20
# With 15 counters the player to move can win, so going first is a fair challenge.
DEFAULT_PILE = 15
MOST_TAKEN = 3


def setup(ask) -> int:
    """The starting pile, chosen by the player."""
    return ask(f"Counters in the pile, 1 to {LARGEST_PILE}? [{DEFAULT_PILE}] ", _starting_pile)


def _starting_pile(text: str) -> int:
    if not text:
        return DEFAULT_PILE
    try:
        pile = int(text)
    except ValueError:
        raise ValueError(f"type a whole number from 1 to {LARGEST_PILE}, not {text!r}") from None
    if not 1 <= pile <= LARGEST_PILE:
        raise ValueError(f"the pile must hold 1 to {LARGEST_PILE} counters, not {pile}")
    return pile


def draw(pile: int) -> str:
    """The pile as strokes in groups of five, and its size."""
    strokes = " ".join("|" * min(5, pile - start) for start in range(0, pile, 5))
    return f"Pile: {strokes or '(empty)'}  ({pile} left)"


def _most(pile: int) -> int:
    return min(MOST_TAKEN, pile)


def prompt(pile: int) -> str:
    """The question for the player's move."""
    return f"Take how many counters, 1 to {_most(pile)}? "


def human_move(pile: int, text: str) -> int:
    """The pile after the player takes the counters they typed."""
    try:
        taken = int(text)
    except ValueError:
        raise ValueError(f"type how many counters to take (1 to {_most(pile)}), not {text!r}") from None
    if not 1 <= taken <= _most(pile):
        raise ValueError(f"you may take 1 to {_most(pile)} counters from a pile of {pile}, not {taken}")
    return pile - taken


def ai_args(pile: int) -> tuple:
    """best_move(state)."""
    return (pile,)


def ai_move(pile: int, value) -> tuple[int, str]:
    """The pile best_move chose, judged by the rules; ValueError says why it cannot be played."""
    if type(value) is not tuple or len(value) != 2:
        raise ValueError("best_move must return a tuple (score, new_state)")
    left = value[1]
    if type(left) is not int:
        raise ValueError("new_state must be an int: the counters left after the move")
    if not max(0, pile - MOST_TAKEN) <= left < pile:
        raise ValueError(f"from {pile} counters a move leaves {max(0, pile - MOST_TAKEN)} to {pile - 1}, not {left}")
    taken = pile - left
    return left, f"takes {taken} counter{'s' if taken > 1 else ''}, leaving {left}"


def result(pile: int) -> int | None:
    """-1 once the pile is empty: the player who just moved took the last counter and lost."""
    return -1 if pile == 0 else None

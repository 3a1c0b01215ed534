"""Nim with several piles for `grade play nim`: you against your own best_move.

You choose misère play (whoever takes the last counter loses) or normal play
(whoever takes it wins). Your best_move only proposes moves: this file keeps
the piles and judges every move by the rules, so a move that breaks them ends
the game rather than counting.
"""

from __future__ import annotations

from typing import NamedTuple

NAME = "nim"
RULES = ("Several piles. On a turn, take one or more counters from one pile. In misère play whoever "
         "takes the last counter loses; in normal play they win.")
FUNCTION = "best_move"
# The exercise's memo checks give four piles of up to 7 counters 4 s a call (MEMO_CALL_TIMEOUT in
# its hidden checks); its default 2 s is for smaller positions than a player may choose here.
CALL_TIMEOUT = 4.0

MOST_PILES = 4
LARGEST_PILE = 7
# The README's own example: the player to move wins it, in either variant, by leaving (2, 3, 1).
DEFAULT_PILES = (2, 3, 5)
VARIANTS = {"misere": "misère: whoever takes the last counter loses",
            "normal": "normal: whoever takes the last counter wins"}


class Position(NamedTuple):
    """The piles and the variant being played."""

    piles: tuple[int, ...]
    variant: str


def setup(ask) -> Position:
    """The variant and the starting piles, chosen by the player."""
    variant = ask("Misère or normal play? [misere] ", _variant)
    piles = ask(f"Starting piles, up to {MOST_PILES} numbers from 1 to {LARGEST_PILE}? "
                f"[{' '.join(map(str, DEFAULT_PILES))}] ", _starting_piles)
    return Position(piles, variant)


def _variant(text: str) -> str:
    answer = text.lower().replace("è", "e")
    if answer in ("", "m", "misere"):
        return "misere"
    if answer in ("n", "normal"):
        return "normal"
    raise ValueError(f"answer misere or normal, not {text!r}")


def _starting_piles(text: str) -> tuple[int, ...]:
    if not text:
        return DEFAULT_PILES
    try:
        piles = tuple(int(part) for part in text.replace(",", " ").split())
    except ValueError:
        raise ValueError(f"type the pile sizes as numbers, such as 3 4 5, not {text!r}") from None
    if not 1 <= len(piles) <= MOST_PILES:
        raise ValueError(f"choose 1 to {MOST_PILES} piles, not {len(piles)}")
    if not all(1 <= counters <= LARGEST_PILE for counters in piles):
        raise ValueError(f"each pile holds 1 to {LARGEST_PILE} counters")
    return piles


def draw(position: Position) -> str:
    """One line per pile, numbered from 1, with its counters as strokes."""
    lines = [f"Piles ({VARIANTS[position.variant]}):"]
    for number, counters in enumerate(position.piles, start=1):
        lines.append(f"  pile {number}: {'|' * counters:<{LARGEST_PILE}}  {counters}")
    return "\n".join(lines)


def prompt(position: Position) -> str:
    """The question for the player's move."""
    return "Your move: the pile, then how many to take (3 2 takes 2 from pile 3)? "


def human_move(position: Position, text: str) -> Position:
    """The position after the player takes what they typed from one pile."""
    piles = position.piles
    try:
        number, taken = (int(part) for part in text.replace(",", " ").split())
    except ValueError:
        raise ValueError(f"type two numbers, the pile and how many to take, such as 3 2; not {text!r}") from None
    if not 1 <= number <= len(piles):
        raise ValueError(f"there is no pile {number}: the piles are numbered 1 to {len(piles)}")
    counters = piles[number - 1]
    if counters == 0:
        raise ValueError(f"pile {number} is empty; take from another pile")
    if not 1 <= taken <= counters:
        raise ValueError(f"pile {number} holds {counters}: take 1 to {counters} counters, not {taken}")
    return position._replace(piles=piles[: number - 1] + (counters - taken,) + piles[number:])


def ai_args(position: Position) -> tuple:
    """best_move(state, variant)."""
    return (position.piles, position.variant)


def ai_move(position: Position, value) -> tuple[Position, str]:
    """The state best_move chose, judged by the rules; ValueError says why it cannot be played."""
    piles = position.piles
    if type(value) is not tuple or len(value) != 2:
        raise ValueError("best_move must return a tuple (score, new_state)")
    new = value[1]
    if type(new) is not tuple or len(new) != len(piles) or not all(type(n) is int for n in new):
        raise ValueError(f"new_state must be a tuple of {len(piles)} ints, one per pile")
    changed = [index for index, (before, after) in enumerate(zip(piles, new)) if before != after]
    if len(changed) != 1 or not 0 <= new[changed[0]] < piles[changed[0]]:
        raise ValueError(f"a move takes one or more counters from exactly one pile of {piles}")
    index = changed[0]
    taken = piles[index] - new[index]
    return position._replace(piles=new), f"takes {taken} from pile {index + 1}, leaving {new}"


def result(position: Position) -> int | None:
    """Once every pile is empty, the player who just moved took the last counter: -1 in misère, +1 in normal."""
    if any(position.piles):
        return None
    return -1 if position.variant == "misere" else 1

"""Connect-4 for `grade play deepening`: you against your own timed_move, with a time budget per move.

The board, the rules and the judging of moves are ex08's Connect-4 (its play.py, loaded from
beside this exercise's folder), so both games keep one set of rules. Only the player differs:
timed_move searches as deep as its budget allows.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

_CONNECT_FOUR = Path(__file__).resolve().parent.parent / "ex08_connect_four" / "play.py"
_spec = importlib.util.spec_from_file_location("minimax_kit_game_deepening_rules", _CONNECT_FOUR)
_rules = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_rules)

NAME = "deepening"
RULES = _rules.RULES + " The computer thinks for as long as its budget per move allows."
FUNCTION = "timed_move"
DEFAULT_BUDGET_S = 1.0
LONGEST_BUDGET_S = 5.0
# A move may take its budget and the README's 0.1 s of slack; the rest is room for a busy machine.
CALL_TIMEOUT = LONGEST_BUDGET_S + 2.0

draw, prompt, human_move, result = _rules.draw, _rules.prompt, _rules.human_move, _rules.result


def setup(ask):
    """The empty board and the computer's time per move, chosen by the player.

    The position is ex08's, whose third field (the search depth there) holds the budget here.
    """
    budget = ask(f"How many seconds may the computer think per move, 0.1 to {LONGEST_BUDGET_S:g}? "
                 f"[{DEFAULT_BUDGET_S:g}] ", _budget)
    return _rules.Position((_rules.EMPTY * _rules.COLS,) * _rules.ROWS, None, budget)


def _budget(text: str) -> float:
    if not text:
        return DEFAULT_BUDGET_S
    try:
        budget = float(text)
    except ValueError:
        raise ValueError(f"type a number of seconds from 0.1 to {LONGEST_BUDGET_S:g}, not {text!r}") from None
    if not 0.1 <= budget <= LONGEST_BUDGET_S:
        raise ValueError(f"the budget must be 0.1 to {LONGEST_BUDGET_S:g} seconds, not {text}")
    return budget


def ai_args(position) -> tuple:
    """timed_move(board, seconds)."""
    return (position.rows, position.depth)


def ai_move(position, value):
    """The column timed_move chose, judged by Connect-4's rules."""
    try:
        return _rules.ai_move(position, value)
    except ValueError as exc:  # the rules' words name best_move; this game's function is another
        raise ValueError(str(exc).replace("best_move must", f"{FUNCTION} must")) from None


# ---- grade arena ex11: the class's timed_move against each other, on Connect-4's arena players ----

# Each student's timed_move thinks 0.2 s a move: a whole game is then a few seconds, and depth 5
# or more is in reach. The references at 0.05 s and 0.2 s bracket it.
ARENA_SETTING = 0.2
ARENA_REFERENCES = {"reference with 0.05 s": 0.05, "reference with 0.2 s": 0.2}
ARENA_BASELINES = _rules.ARENA_BASELINES


def arena_start():
    """Connect-4's empty board; each player's budget comes with its own arguments."""
    return _rules.arena_start()._replace(depth=ARENA_SETTING)


def arena_args(position, seconds: float) -> tuple:
    """timed_move(board, seconds) for a player with that budget."""
    return (position.rows, seconds)

"""Tic-tac-toe for `grade play chance`: you against your own best_move_vs_random.

The board, the rules and the judging of moves are ex06's tic-tac-toe (its play.py, loaded from
beside this exercise's folder), so both games keep one set of rules. Only the player differs:
best_move_vs_random assumes that you move at random, so a careful human can punish it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

_TIC_TAC_TOE = Path(__file__).resolve().parent.parent / "ex06_tic_tac_toe" / "play.py"
_spec = importlib.util.spec_from_file_location("minimax_kit_game_chance_rules", _TIC_TAC_TOE)
_rules = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_rules)

NAME = "chance"
RULES = _rules.RULES + " The computer assumes you pick a free square at random."
FUNCTION = "best_move_vs_random"
# best_move_vs_random on the empty board searches the whole game; ex10's own calls get 10 s.
CALL_TIMEOUT = 10.0

setup, draw, prompt, human_move, ai_args, result = (
    _rules.setup, _rules.draw, _rules.prompt, _rules.human_move, _rules.ai_args, _rules.result)


def ai_move(position, value):
    """The square best_move_vs_random chose, judged by tic-tac-toe's rules."""
    try:
        return _rules.ai_move(position, value)
    except ValueError as exc:  # the rules' words name best_move; this game's function is another
        raise ValueError(str(exc).replace("best_move must", f"{FUNCTION} must")) from None

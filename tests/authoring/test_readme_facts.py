"""The facts ex10's and ex11's READMEs state, counted again here by brute force.

Each count is the tests' own: exact fractions over the whole game for ex10, and plain minimax (no
cutoffs) beside an alpha-beta written for these tests for ex11, so that neither the reference nor
the hidden oracle vouches for itself.
"""

from __future__ import annotations

import importlib.util
import math
import sys
import warnings
from fractions import Fraction
from functools import cache

import pytest

from tests.conftest import REPO

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- ex10


def _nim_chances(top):
    """Max's chance from 0..top counters, Max to move, Min at random: by recursion on the two turns."""

    @cache
    def chance(counters, max_to_move):
        if counters == 0:  # the side to move did not take the last counter: it has won
            return Fraction(1) if max_to_move else Fraction(0)
        after = [chance(counters - take, not max_to_move) for take in (1, 2, 3) if take <= counters]
        return max(after) if max_to_move else sum(after) / len(after)

    return [chance(counters, True) for counters in range(top + 1)]


def test_ex10_win_probability_table():
    assert _nim_chances(12) == [1, 0, 1, 1, 1, Fraction(2, 3), 1, 1, 1, Fraction(8, 9), 1, 1, 1]


def _line(board, mark):
    return any(board[a] == board[b] == board[c] == mark for a, b, c in LINES)


def _over(board):
    return _line(board, "X") or _line(board, "O") or " " not in board


def _mover(board):
    return "X" if board.count("X") == board.count("O") else "O"


def _play(board, square):
    return board[:square] + _mover(board) + board[square + 1:]


@cache
def _worth(board, me, perfect):
    """`me`'s score with `me` maximising and the other side at random (or perfect, minimising)."""
    if _over(board):
        return Fraction(1 if _line(board, me) else -1 if _line(board, "O" if me == "X" else "X") else 0)
    after = [_worth(_play(board, square), me, perfect) for square in range(9) if board[square] == " "]
    if _mover(board) == me:
        return max(after)
    return min(after) if perfect else sum(after, Fraction(0)) / len(after)


def _values(board, perfect):
    me = _mover(board)
    return {square: _worth(_play(board, square), me, perfect) for square in range(9) if board[square] == " "}


def test_ex10_tic_tac_toe_facts():
    empty = " " * 9
    assert _values(empty, perfect=False)[0] == max(_values(empty, perfect=False).values()) == Fraction(191, 192)
    assert set(_values(empty, perfect=True).values()) == {0}
    chance, perfect = _values("   X     ", perfect=False), _values("   X     ", perfect=True)
    assert chance == {0: Fraction(92, 105), 1: Fraction(88, 105), 2: Fraction(101, 105), 4: Fraction(33, 35),
                      5: Fraction(26, 35), 6: Fraction(92, 105), 7: Fraction(88, 105), 8: Fraction(101, 105)}
    assert perfect == {0: 0, 1: -1, 2: -1, 4: 0, 5: 0, 6: 0, 7: -1, 8: -1}
    positions, pending = set(), [empty]
    while pending:
        board = pending.pop()
        if board not in positions and not _over(board):
            positions.add(board)
            pending += [_play(board, square) for square in range(9) if board[square] == " "]
    differ = 0
    for board in positions:
        chance, perfect = _values(board, False), _values(board, True)
        best = min(square for square, worth in chance.items() if worth == max(chance.values()))
        differ += perfect[best] != max(perfect.values())
    assert (len(positions), differ) == (4520, 57)


# -- ex11


@pytest.fixture(scope="module")
def rules():
    return _load(REPO / "exercises" / "ex11_deepening" / "connect_four_rules.py", "facts_connect_four_rules")


def _count(rules, board, depth, first=None, cutoffs=True, cut_on_equal=True, tie_replaces=False):
    """The README's (col, value, leaves), with the given module's rules; without cutoffs, plain minimax.

    cut_on_equal=False cuts off only on alpha > beta, and tie_replaces=True lets an equal root value
    replace the column: the two mistakes the README's example with the centre stack tells apart.
    """
    me = rules.to_move(board)
    leaves = 0

    def value(board, ply, alpha, beta):
        nonlocal leaves
        side, moves = rules.winner(board), rules.legal_moves(board)
        if side is not None or not moves or ply == depth:
            leaves += 1
            if side is not None:
                return (rules.WIN + depth - ply) * (1 if side == me else -1)
            return rules.evaluate(board, me) if moves else 0
        mine = rules.to_move(board) == me
        best = -math.inf if mine else math.inf
        for col in (3, 2, 4, 1, 5, 0, 6):
            if col in moves:
                score = value(rules.drop(board, col), ply + 1, alpha, beta)
                best = max(best, score) if mine else min(best, score)
                alpha, beta = (max(alpha, best), beta) if mine else (alpha, min(beta, best))
                if cutoffs and (alpha >= beta if cut_on_equal else alpha > beta):
                    break
        return best

    order = [first] if first in rules.legal_moves(board) else []
    order += [col for col in (3, 2, 4, 1, 5, 0, 6) if col in rules.legal_moves(board) and col not in order]
    best_col, best, alpha = None, -math.inf, -math.inf
    for col in order:
        score = value(rules.drop(board, col), 1, alpha, math.inf)
        if score > best or (tie_replaces and score == best):
            best_col, best = col, score
        alpha = max(alpha, best)
    return best_col, best, leaves


@pytest.mark.parametrize("board, depth, first, expected", [
    ((".......",) * 6, 1, None, (3, 3, 7)),
    ((".......",) * 6, 2, None, (3, 0, 13)),
    ((".......",) * 6, 3, None, (3, 6, 55)),
    ((".......",) * 6, 3, 0, (3, 6, 61)),
    ((".......", ".......", ".......", ".......", "...O...", "...X..."), 1, None, (2, 6, 7)),
    ((".......", ".......", ".......", ".......", "...O...", "...X..."), 2, None, (3, 0, 15)),
    ((".......", ".......", ".......", ".......", "OOO....", "XXX...."), 1, None, (3, 1_000_000, 7)),
    ((".......", ".......", ".......", ".......", "OOO....", "XXX...."), 3, None, (3, 1_000_002, 43)),
    ((".......", ".......", ".......", ".......", "O..O...", "OX.X.X."), 5, None, (4, 1_000_002, 1252)),
    ((".......", ".......", ".......", ".......", "O..O...", "OX.X.X."), 5, 4, (4, 1_000_002, 748)),
    ((".......", ".......", ".......", "...X.X.", "...O.X.", ".OOXOX."), 5, None, (5, -4, 1456)),
    ((".......", ".......", ".......", "...X.X.", "...O.X.", ".OOXOX."), 5, 5, (5, -4, 798)),
    ((".......", ".......", ".......", "O....X.", "O....X.", "O.X..OX"), 5, None, (0, 9, 2400)),
    ((".......", ".......", ".......", "O....X.", "O....X.", "O.X..OX"), 5, 0, (0, 9, 1276)),
])
def test_ex11_readme_counts(rules, board, depth, first, expected):
    assert _count(rules, board, depth, first) == expected
    # alpha-beta's root value is plain minimax's, which has to look at every leaf
    col, value, leaves = _count(rules, board, depth, first, cutoffs=False)
    assert value == expected[1] and leaves >= expected[2]


def test_ex11_centre_stack_tells_both_mistakes_apart(rules):
    """A cutoff on alpha > beta searches on below columns 2 and 4; a tie that replaces plays column 4."""
    board = (".......", ".......", ".......", ".......", "...O...", "...X...")
    assert _count(rules, board, 2, cut_on_equal=False) == (3, 0, 25)
    assert _count(rules, board, 1, tie_replaces=True)[0] == 4
    assert _count(rules, board, 2, tie_replaces=True)[0] == 4


def test_ex11_readme_states_the_time_allowed(ex11_checks):
    """The README states the slack and the transport allowance of time_allowance.py, which the checks time with."""
    allowance = _load(REPO / "exercises" / "ex11_deepening" / "checks" / "time_allowance.py", "facts_ex11_allowance")
    readme = " ".join((REPO / "exercises" / "ex11_deepening" / "README.md").read_text().split())
    assert f"plus **{allowance.OVERRUN_S} s** of slack" in readme
    assert f"allow **{allowance.TRANSPORT_S} s** for the trip" in readme
    assert f"a budget of 0.2 s, a call passes if it comes back within {allowance.allowed_s(0.2):.1f} s" in readme
    assert ex11_checks.allowed_s.__module__ == "time_allowance"


def test_ex11_table_columns_are_depth_fours(rules):
    for board, first in [((".......",) * 4 + ("O..O...", "OX.X.X."), 4),
                         ((".......",) * 3 + ("...X.X.", "...O.X.", ".OOXOX."), 5),
                         ((".......",) * 3 + ("O....X.", "O....X.", "O.X..OX"), 0)]:
        assert _count(rules, board, 4)[0] == first


@pytest.fixture(scope="module")
def ex11_checks():
    """ex11's hidden check module, loaded with its helpers beside it as a grade lays them out."""
    checks = REPO / "exercises" / "ex11_deepening" / "checks"
    helpers = ("hidden_oracle", "connect_four_rules", "time_allowance")
    sys.path[:0] = [str(checks), str(checks.parent)]
    try:
        with warnings.catch_warnings():  # the kit's markers are registered by the grading plugin, not here
            warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
            return _load(checks / "test_hidden.py", "facts_ex11_hidden_checks")
    finally:  # other tests load helpers of the same names from other exercises
        del sys.path[:2]
        for name in helpers:
            sys.modules.pop(name, None)


def test_ex11_checks_first_pays_table(rules, ex11_checks):
    """The hidden check's table of (col, value, leaves) at depth 5, without and with depth 4's column first."""
    for board, first, without, with_first in ex11_checks.FIRST_PAYS:
        assert _count(rules, board, 4)[0] == first
        assert (_count(rules, board, 5), _count(rules, board, 5, first)) == (without, with_first)


def test_ex11_checks_forced_win(rules, ex11_checks):
    """FORCED_WIN: exactly one column wins by force, and no search shallower than 5 plays it."""
    board = ex11_checks.FORCED_WIN
    winning = {col for col in rules.legal_moves(board)
               if -_count(rules, rules.drop(board, col), 6)[1] > rules.WIN // 2}
    assert winning == {ex11_checks.FORCED_WIN_COLUMN}
    assert all(_count(rules, board, depth)[0] != ex11_checks.FORCED_WIN_COLUMN for depth in range(1, 5))
    assert _count(rules, board, 5)[0] == ex11_checks.FORCED_WIN_COLUMN

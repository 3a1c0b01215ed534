"""The shortcuts taken where every grade pays, against the plain computations they stand for.

ex08's oracle prunes its win/loss look-ahead (alpha-beta on -1, 0 and +1) and plays its random
games on bitboards, and ex11's given evaluate looks each window up in a table; all run thousands of
times a grade. Here they must give what a look-ahead through every move, a game played board by
board, and a count of every window's pieces, give.
"""

from __future__ import annotations

import importlib.util
import random

import pytest

from tests.conftest import REPO


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def ex08_oracle():
    return _load(REPO / "exercises" / "ex08_connect_four" / "checks" / "hidden_oracle.py", "oracles_ex08_hidden_oracle")


def _plain_forced(oracle, board, mover, plies):
    """+1, 0 or -1 by looking at every line of play for plies plies: no pruning at all."""
    values = []
    for col in oracle.open_columns(board) if plies else []:
        child, row = oracle.place(board, col, mover)
        won = oracle.four_through(child, row, col)
        values.append(1 if won else -_plain_forced(oracle, child, oracle.other(mover), plies - 1))
    return max(values, default=0)


def _random_positions(oracle, rng, wanted):
    """Positions of random games that are not over, from the opening to nearly full boards."""
    found = []
    while len(found) < wanted:
        board, mover = oracle.EMPTY_BOARD, "X"
        for _ in range(rng.randint(2, 40)):
            col = rng.choice(oracle.open_columns(board))
            board, row = oracle.place(board, col, mover)
            if oracle.four_through(board, row, col):
                break
            mover = oracle.other(mover)
        else:
            if oracle.open_columns(board):
                found.append(board)
    return found


def test_ex08_pruned_look_ahead_is_the_plain_one(ex08_oracle):
    oracle, rng = ex08_oracle, random.Random(8)
    decided = 0
    for board in _random_positions(oracle, rng, 150):
        mover = oracle.to_move(board)
        for plies in (1, 2, 3, 4):
            value = oracle.forced(board, mover, plies)
            assert value == _plain_forced(oracle, board, mover, plies), (board, plies)
            decided += value != 0
    assert decided > 50  # wins and losses within reach, not only draws, were compared


def _plain_random_game(oracle, rng, plies, weights):
    """The last board of a random game played move by move with place and four_through, and whether it was won."""
    board, mover = oracle.EMPTY_BOARD, "X"
    for _ in range(plies):
        cols = oracle.open_columns(board)
        if not cols:
            break
        col = rng.choices(cols, weights=[weights[c] for c in cols])[0] if weights else rng.choice(cols)
        board, row = oracle.place(board, col, mover)
        if oracle.four_through(board, row, col):
            return board, True
        mover = oracle.other(mover)
    return board, False


def test_ex08_bitboard_random_game_is_the_plain_one(ex08_oracle):
    """Same games from the same rng: the checks' positions, and every later draw, stay as they were."""
    oracle, draws = ex08_oracle, random.Random(9)
    endings = set()
    for _ in range(3000):
        seed, plies = draws.randrange(2**32), draws.randint(0, 45)
        weights = [draws.choice((0.2, 1, 1, 3, 8)) for _ in range(oracle.COLS)] if draws.random() < 0.4 else None
        plain, fast = random.Random(seed), random.Random(seed)
        expected = _plain_random_game(oracle, plain, plies, weights)
        assert oracle.last_of_random_game(fast, plies, weights) == expected, (seed, plies, weights)
        assert fast.getstate() == plain.getstate()
        endings.add((expected[1], "." in expected[0][0]))
    assert {(True, True), (False, True), (False, False)} <= endings  # wins, live games and full boards


def _counted_evaluate(rules, board, player):
    """The given evaluate's docstring, word for word: wins, then every window's pieces counted, then the centre."""
    cells = "".join(board)
    owners = {cells[a] for a, b, c, d in rules.WINDOWS if cells[a] != "." and cells[a] == cells[b] == cells[c] == cells[d]}
    if len(owners) == 1:
        return rules.WIN if player in owners else -rules.WIN
    points = 0
    for window in rules.WINDOWS:
        xs, os = [cells[i] for i in window].count("X"), [cells[i] for i in window].count("O")
        points += rules.WINDOW_POINTS[xs] if os == 0 else -rules.WINDOW_POINTS[os] if xs == 0 else 0
    points += rules.CENTRE_POINTS * (cells[3::7].count("X") - cells[3::7].count("O"))
    return points if player == "X" else -points


def test_ex11_given_evaluate_is_the_counted_one():
    rules = _load(REPO / "exercises" / "ex11_deepening" / "connect_four_rules.py", "oracles_ex11_rules")
    rng, seen = random.Random(11), set()
    for _ in range(2000):
        # Boards of any fill, won by one side, by both, or by neither: evaluate takes any well-formed board.
        cells = [rng.choice("..XO") for _ in range(42)]
        board = tuple("".join(cells[row * 7:(row + 1) * 7]) for row in range(6))
        for player in "XO":
            value = rules.evaluate(board, player)
            assert value == _counted_evaluate(rules, board, player), (board, player)
            seen.add("win" if abs(value) == rules.WIN else "score")
    assert seen == {"win", "score"}

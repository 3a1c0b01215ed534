"""Hidden checks for ex11 (iterative deepening); never shipped to students.

Expected counts come from hidden_oracle.py, the README's search written again on flat boards.
Seeded positions come from the run's seed (the `rng` fixture), so every run can be repeated.

Time-based checks, calibrated with the naive alt (solutions/ex11_deepening/alt/naive.py, which
calls the given module's checked functions at every position) under three CPU hogs on a 2-core
machine (load average 4): see CALIBRATION below.
"""

import time

import pytest
from hidden_oracle import CENTRE_OUT, WIN, deepen, flat, open_columns, play, random_position, search, unflat

# CALIBRATION. The naive alt, in-process, with three CPU hogs running on this 2-core machine
# (python3 /tmp/calib11.py-style timing of every check, 2026-12-02):
# - timed_move at budgets of 0.02 to 0.5 s on 20 seeded positions overran its budget by at most
#   0.0041 s (one position's work between two looks at the clock): the README's 0.1 s is 24x that.
# - on FORCED_WIN it proves the win at depth 5 after 0.16 s and finishes depth 7 after 1.06 s: the
#   10 s budget is 60x and 9x those.
# - on END_IN_REACH it deepens to the end of the game in at most 0.20 s: the 2 s budget is 10x.
# - its slowest call outside the budgets is a depth-5 search, 0.24 s (the exercise's 10 s per call
#   is 40x), and its heaviest check, oracle included, 1.23 s (the 60 s per check is 48x).
OVERRUN_S = 0.1
TRANSPORT_S = 0.4  # the trip to the worker and back, with room for a busy machine
# The on-time checks' limit per call: 5x the largest budget (0.5 s) and its slack, so that a
# timed_move that never looks at the clock is stopped soon rather than at the exercise's 10 s.
ON_TIME_CALL_S = 3
# Depths 1 to 4 play column 3 or 4 here; depth 5 and deeper see that column 5, and no other, wins
# by force (O to move). The naive alt finishes depth 7 on it after 1.2 s on a quiet machine.
# tests/authoring/test_readme_facts.py proves both facts with a search of its own, once, rather
# than every grade paying for them.
FORCED_WIN = (".......", ".......", "......O", "......X", ".....OO", "XX..XOX")
FORCED_WIN_COLUMN = 5
DEEP_BUDGET_S = 10.0

EMPTY_BOARD = (".......",) * 6
FIXED = [
    EMPTY_BOARD,
    (".......", ".......", ".......", ".......", ".......", "...X..."),
    (".......", ".......", ".......", ".......", "OOO....", "XXX...."),
    (".......", ".......", ".......", ".......", "...O...", "..XXX.O"),  # O must block, or lose
    (".......", ".......", "....X.O", "....O.X", "....X.O", ".XOOXOX"),
    # nearly full: the search reaches the end of the game, and full boards score 0
    ("....XOO", "XXXOOOX", "XOOOXOO", "XXXOXXX", "OOOXOOO", "OXXXOXX"),
    # fours that run through the top row
    (".X.O.O.", "OX.O.XX", "XO.X.XO", "OXXOOXO", "OOOXOOX", "XXOXXXO"),
    (".XX..XO", "XOO.OXX", "OOX.XOX", "XXXOOXO", "OOOXXXO", "XXOOXOO"),
    # two moves from a drawn full board whose centre column holds more X than O (the heuristic
    # would score it 6 for X, not 0)
    ("OO.X.OO", "XXXOOOX", "XOOXXOO", "XXXOXXX", "OOOXOOO", "OXXXOXX"),
]
# The README's table: a position, depth 4's column, and depth 5's (col, value, leaves) without and
# with it first. tests/authoring/test_readme_facts.py counts them again with a search of its own.
FIRST_PAYS = [
    ((".......", ".......", ".......", ".......", "O..O...", "OX.X.X."), 4,
     (4, WIN + 2, 1252), (4, WIN + 2, 748)),
    ((".......", ".......", ".......", "...X.X.", "...O.X.", ".OOXOX."), 5, (5, -4, 1456), (5, -4, 798)),
    ((".......", ".......", ".......", "O....X.", "O....X.", "O.X..OX"), 0, (0, 9, 2400), (0, 9, 1276)),
]


def triple(answer):
    return tuple(answer) if isinstance(answer, (tuple, list)) else answer


@pytest.mark.points(3)
@pytest.mark.hint(
    "Follow the README's order at every position: four in a row first, then a full board, then the "
    "depth limit. Count each of those as a leaf, and nothing else."
)
def test_fixed_positions(student):
    """exact (col, value, leaves) on fixed positions, depths 1 to 4"""
    for board in FIXED:
        for depth in range(1, 5):
            assert triple(student.search(board, depth)) == search(board, depth), (board, depth)


@pytest.mark.points(3)
@pytest.mark.hint(
    "Cut off as soon as alpha >= beta (not >), pass the current alpha and beta to each child, and "
    "let the root keep the first column that reaches the best value."
)
def test_seeded_positions(student, rng):
    """exact (col, value, leaves) on seeded positions, depths 1 to 5, with and without first"""
    for _ in range(6):
        board = random_position(rng, rng.randint(4, 20))
        for depth in range(1, 6):
            first = rng.choice((None, *CENTRE_OUT))
            assert triple(student.search(board, depth, first)) == search(board, depth, first), (board, depth, first)


@pytest.mark.points(2)
@pytest.mark.hint(
    "A win k plies below the root is worth WIN + (depth - k) to its winner: prefer the quickest win "
    "and the slowest loss. Check for four in a row before the depth limit."
)
def test_wins_and_losses_in_reach(student, rng):
    """exact results where a side can win within the search's depth"""
    boards = [FIXED[2], FIXED[3], FIXED[4]]
    while len(boards) < 8:
        cells = flat(random_position(rng, rng.randint(6, 16)))
        board = unflat(play(cells, rng.choice(open_columns(cells))))  # no move there wins at once
        if "." in board[0] and abs(search(board, 4)[1]) > WIN // 2:
            boards.append(board)
    for board in boards:
        for depth in (2, 3, 4):
            assert triple(student.search(board, depth)) == search(board, depth), (board, depth)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Try first before the others at the root, and never twice. With the previous depth's best column "
    "first, alpha rises at once and the other columns are cut off sooner."
)
def test_first_searched_first_pays_where_the_readme_says(student):
    """the README's table: the previous depth's column first costs fewer leaves"""
    for board, first, without, with_first in FIRST_PAYS:
        assert triple(student.search(board, 5)) == without, board
        assert triple(student.search(board, 5, first)) == with_first, board


@pytest.mark.points(2)
@pytest.mark.hint("deepen is search at depths 1, 2, ..., each given the previous depth's column as first.")
def test_deepen_is_search_depth_by_depth(student, rng):
    """deepen against search, depth by depth"""
    for board in [FIXED[1], FIXED[4], random_position(rng, rng.randint(4, 16))]:
        assert [triple(entry) for entry in student.deepen(board, 5)] == deepen(board, 5), board


# Any legal column passes this check, so it counts once the search also counts right.
@pytest.mark.call_timeout(ON_TIME_CALL_S)
@pytest.mark.requires("test_fixed_positions")
@pytest.mark.points(2)
@pytest.mark.hint(
    "Look at the clock inside the search, and abandon the depth that runs past the deadline: its "
    "half-finished best column is not to be trusted. Depth 1 always runs."
)
def test_timed_move_is_legal_and_on_time(student, rng):
    """timed_move at budgets of 0.02 s to 0.5 s: a legal column, back in time"""
    for budget in (0.02, 0.05, 0.2, 0.5):
        board = random_position(rng, rng.randint(0, 20))
        started = time.monotonic()
        col = student.timed_move(board, budget)
        elapsed = time.monotonic() - started
        assert type(col) is int and col in range(7) and board[0][col] == ".", (board, col)
        assert elapsed <= budget + OVERRUN_S + TRANSPORT_S, f"{elapsed:.2f} s with a budget of {budget} s"


# Nine empty cells: with time to spare, the deepest search reaches the end of every game, and
# there the column differs from the one a search a ply shorter plays. The naive alt deepens to the
# end of these games in 0.09 s on a quiet machine: the 2 s budget is over 10x that under load.
END_IN_REACH = [("..X..X.", "..X.OXX", "O.OXOOO", "XXXOXXO", "XOOOXOO", "XXOOXOX"),
                ("....XOX", "..X.OXX", ".XOXOXO", ".OXOOOX", "XOOOXOX", "OXXXOOX")]


@pytest.mark.call_timeout(DEEP_BUDGET_S)
@pytest.mark.hint(
    "Keep going deeper while time is left, up to the number of empty cells: there the search sees "
    "the end of every game, and the last ply can change the best column."
)
def test_timed_move_searches_to_the_end_of_the_game(student):
    """timed_move where the end of the game is within the budget's reach"""
    for board in END_IN_REACH:
        empty = sum(row.count(".") for row in board)
        assert student.timed_move(board, 2.0) == deepen(board, empty)[-1][1], board


@pytest.mark.points(2)
@pytest.mark.call_timeout(DEEP_BUDGET_S + 5)
@pytest.mark.hint(
    "With time to spare, keep going deeper: depth 3 misses this win, depth 5 finds it. Stop only when "
    "the next search would not finish in time, or when the game's end is within reach."
)
def test_timed_move_finds_a_win_depth_3_misses(student):
    """timed_move with time for depth 7 plays the forced win"""
    assert student.timed_move(FORCED_WIN, DEEP_BUDGET_S) == FORCED_WIN_COLUMN


@pytest.mark.requires("test_fixed_positions")
@pytest.mark.hint(
    "search, deepen and timed_move check their arguments: a bad board or a finished game, a depth "
    "that is not an int of at least 1, a first that is not None or 0 to 6, seconds that is not a "
    "positive number."
)
def test_bad_input(student):
    """bad boards, finished games, depths, firsts and budgets raise ValueError"""
    full_drawn = ("OOXXXOO", "XXXOOOX", "XOOOXOO", "XXXOXXX", "OOOXOOO", "OXXXOXX")
    won = (".......", ".......", ".......", "O......", "O......", "OXXXX..")
    bad_boards = [won, full_drawn, (".......",) * 5, ["......."] * 6, (".......",) * 5 + ("XX.....",),
                  (".......",) * 5 + ("...x...",), "." * 42, None]
    for board in bad_boards:
        for call in (lambda: student.search(board, 2), lambda: student.deepen(board, 2),
                     lambda: student.timed_move(board, 0.1)):
            with pytest.raises(ValueError):
                call()
    for depth in (0, -3, True, False, 1.0, "2", None):
        with pytest.raises(ValueError):
            student.search(EMPTY_BOARD, depth)
        with pytest.raises(ValueError):
            student.deepen(EMPTY_BOARD, depth)
    for first in (-1, 7, True, 3.0, "3"):
        with pytest.raises(ValueError):
            student.search(EMPTY_BOARD, 2, first)
    for seconds in (0, -0.5, True, float("inf"), float("nan"), "1", None):
        with pytest.raises(ValueError):
            student.timed_move(EMPTY_BOARD, seconds)

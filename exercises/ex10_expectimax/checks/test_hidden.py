"""Hidden checks for ex10 (expectimax); never shipped to students.

Expected answers come from hidden_oracle.py, which computes them exactly with fractions. Random
trees are drawn from the run's seed (the `rng` fixture), so every run can be repeated.
"""

import pytest
from hidden_oracle import (
    as_lists,
    best_index,
    best_vs_random,
    chance_to_min,
    clear_winner,
    close,
    coin_choices,
    minimax_best_squares,
    minimax_of_lists,
    random_tree,
    reachable,
    squared,
    value,
    win_chances,
)

# The kinds of level of the "several ghosts" trees: Pacman's move, then two ghosts, in turn.
GHOSTS = ("max", "min", "min", "max", "min", "min")
# Pacman's move, then ghosts that move at random.
RANDOM_GHOSTS = ("max", "chance", "chance", "max", "chance", "chance")
MIXED = ("max", "chance", "min", "chance", "max", "chance")


def trees(rng, kinds, count, width=(1, 3)):
    return [random_tree(rng, kinds, width) for _ in range(count)]


@pytest.mark.points(2)
@pytest.mark.hint("Check each kind of node on its own tree first: 'max', 'min', 'chance', and a leaf.")
def test_small_fixed_trees(student):
    """values of small hand-made trees"""
    fixed = [
        (-3.5, -3.5),
        ({"max": [2]}, 2),
        ({"min": [2, -1, 5]}, -1),
        ({"max": [2, -1, 5]}, 5),
        ({"chance": [[1, 4]]}, 4),
        ({"chance": [[0.25, 4], [0.75, -4]]}, -2),
        ({"chance": [(0.1, 10), (0.2, 20), (0.7, 30)]}, 26),
        ({"min": [{"chance": [[0.5, 1], [0.5, 3]]}, {"max": [0, 1.5]}]}, 1.5),
        ({"max": [{"min": [{"min": [9, 4]}, {"min": [6, 8]}]}, {"min": [{"min": [5]}, {"min": [7, 5.5]}]}]}, 5),
    ]
    for tree, expected in fixed:
        assert close(student.expectimax(tree), expected), tree


@pytest.mark.points(3)
@pytest.mark.hint(
    "Every level of the tree is valued by its own kind: several 'min' levels in a row (one per "
    "ghost) each take a minimum, and chance levels average with the probabilities given."
)
def test_random_trees(student, rng):
    """values of seeded random trees, with runs of 'min' levels and chance levels"""
    for kinds in (GHOSTS, RANDOM_GHOSTS, MIXED):
        for tree in trees(rng, kinds, 8):
            assert close(student.expectimax(tree), value(tree))


@pytest.mark.points(2)
@pytest.mark.hint("A 'chance' node is an average weighted by its probabilities, never a minimum or a maximum.")
def test_chance_as_min_is_minimax(student, rng):
    """every 'chance' made a 'min' gives minimax's value; left as chance it is at least that"""
    for tree in trees(rng, ("max", "chance") * 3, 8, width=(2, 3)):
        pessimist = chance_to_min(tree)
        assert close(student.expectimax(pessimist), minimax_of_lists(as_lists(tree)))
        assert close(student.expectimax(tree), value(tree))


@pytest.mark.points(2)
@pytest.mark.hint(
    "Squaring the leaves keeps their order, so minimax picks the same child; an average weights big "
    "leaves more after squaring, so expectimax may change its mind. Value each child, then pick."
)
def test_squared_leaves_change_expectimax_not_minimax(student, rng):
    """trees where squaring the leaves changes expectimax's choice but not minimax's"""
    found = 0
    while found < 6:
        tree = coin_choices(rng)
        square = squared(tree)
        if not all(map(clear_winner, (tree, square, chance_to_min(tree), chance_to_min(square)))):
            continue
        if best_index(tree) == best_index(square) or \
                best_index(chance_to_min(tree)) != best_index(chance_to_min(square)):
            continue
        found += 1
        assert student.best_action(tree) == best_index(tree)
        assert student.best_action(square) == best_index(square)
        assert student.best_action(chance_to_min(square)) == best_index(chance_to_min(square))


@pytest.mark.points(2)
@pytest.mark.hint(
    "Return the index of the best child, not its value. Values within 1e-9 are tied and the "
    "first of them wins, so compare with that tolerance, not with ==."
)
def test_best_action_ties(student, rng):
    """best_action on ties, near-ties within 1e-9 and random trees"""
    assert student.best_action({"max": [5, 5, 5]}) == 0
    assert student.best_action({"max": [1, 5, 5]}) == 1
    assert student.best_action({"max": [1, 2, {"chance": [[0.5, 0], [0.5, 4]]}]}) == 1
    assert student.best_action({"max": [1.5, {"chance": [[0.5, 1], [0.5, 2.0000000001]]}]}) == 0
    assert student.best_action({"max": [1.5, {"chance": [[0.5, 1], [0.5, 2.00001]]}]}) == 1
    assert student.best_action({"max": [0.3, {"chance": [[0.5, 0.2], [0.5, 0.4]]}]}) == 0
    for tree in trees(rng, ("max", "chance", "min", "chance"), 10, width=(2, 3)):
        if isinstance(tree, dict) and clear_winner(tree):
            assert student.best_action(tree) == best_index(tree)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Max picks its best move; Min's chance is the average over its legal moves only (fewer than "
    "three when fewer counters are left). 0 counters with Max to move: Max has won."
)
def test_win_probability_many_piles(student, rng):
    """win_probability against exact fractions on piles up to 400"""
    exact = win_chances(400)
    for counters in list(range(13, 60)) + rng.sample(range(60, 401), 20):
        assert close(student.win_probability(counters), exact[counters]), f"win_probability({counters})"


# Past about 80 counters every chance is 1 within the tolerance, which a constant also answers:
# this check is about answering big piles in time, and counts once the small ones are right.
@pytest.mark.requires("test_win_probability_many_piles")
@pytest.mark.hint(
    "A pile of 10,000 is too deep for recursion: fill a table from 0 counters upwards, or find "
    "the pattern in the small piles."
)
def test_win_probability_big_piles(student, rng):
    """win_probability on piles up to 10,000"""
    exact = win_chances(10_000)
    for counters in [10_000, 9_997, 9_999] + rng.sample(range(1_000, 10_000), 5):
        assert close(student.win_probability(counters), exact[counters]), f"win_probability({counters})"


OPENINGS = ("X   O    ", "O   X    ", " X   O   ", "X       O")


@pytest.mark.points(3)
@pytest.mark.hint(
    "On your turns take the best move; on the opponent's, the average over every empty square. A "
    "line made by the random opponent counts -1, a full board 0. Ties go to the smallest square."
)
@pytest.mark.parametrize("opening", OPENINGS)
def test_every_position_of_an_opening(student, opening):
    """best_move_vs_random on every position that can follow an opening"""
    for board in reachable(opening):
        assert student.best_move_vs_random(board) == best_vs_random(board), board


@pytest.mark.points(2)
@pytest.mark.hint(
    "Against a random opponent the best move need not be minimax's: a move that wins more often "
    "can be worth a risk a perfect opponent would punish. Average the opponent's replies."
)
def test_where_random_and_perfect_differ(student):
    """positions where the best move against chance is not a minimax move"""
    differ = [board for board in reachable(" " * 9) if best_vs_random(board) not in minimax_best_squares(board)]
    assert len(differ) == 57  # the oracle's own fact, checked by brute force
    for board in differ:
        assert student.best_move_vs_random(board) == best_vs_random(board), board


@pytest.mark.requires("test_small_fixed_trees", "test_random_trees")
@pytest.mark.hint(
    "Check the whole tree first, every node however deep, and raise ValueError: one key per dict, "
    "'max', 'min' or 'chance'; non-empty lists; pairs of two; numbers that are not bool, NaN or "
    "infinite; probabilities in (0, 1] whose sum is 1 within 1e-9."
)
@pytest.mark.parametrize("bad", [
    True, None, "3", [1, 2], float("nan"), float("inf"), -float("inf"),
    {}, {"max": [1], "min": [2]}, {"avg": [1]}, {"max": []}, {"min": ()}, {"max": 3},
    {"max": [1, {"min": [2, False]}]},
    {"chance": []}, {"chance": [[1]]}, {"chance": [[0.5, 1, 2], [0.5, 1]]}, {"chance": [1]},
    {"chance": [[0.5, 1], [0.4, 2]]}, {"chance": [[0.6, 1], [0.6, 2]]}, {"chance": [[0, 1], [1, 2]]},
    {"chance": [[-0.5, 1], [1.5, 2]]}, {"chance": [[1 + 5e-10, 7]]}, {"chance": [[True, 1]]}, {"chance": [["1", 1]]},
    {"chance": [[float("nan"), 1]]}, {"chance": [[1, float("nan")]]},
    {"max": [{"min": [1, {"chance": [[0.5, 1], [0.5, [2]]]}]}]},
    {"max": [1, 2, {"min": [3, {"max": [4, {"chance": [[0.5, 5], [0.5, {"max": []}]]}]}]}]},
])
def test_bad_trees(student, bad):
    """a bad node anywhere in the tree raises ValueError"""
    with pytest.raises(ValueError):
        student.expectimax(bad)


@pytest.mark.requires("test_best_action_ties")
@pytest.mark.hint("best_action needs a 'max' node at the root: a leaf, 'min' or 'chance' root raises ValueError.")
def test_best_action_bad_roots(student):
    """best_action on a root that is not 'max', or a bad tree"""
    for bad in (3, {"min": [1, 2]}, {"chance": [[1, 4]]}, {"max": []}, {"max": [1, True]}):
        with pytest.raises(ValueError):
            student.best_action(bad)


@pytest.mark.requires("test_win_probability_many_piles")
@pytest.mark.hint("n must be an int of at least 0; a bool, a float or a str raises ValueError, even 2.0.")
def test_win_probability_bad_n(student):
    """win_probability on bad piles"""
    for bad in (-1, -5, True, False, 2.0, "3", None):
        with pytest.raises(ValueError):
            student.win_probability(bad)


@pytest.mark.requires("test_every_position_of_an_opening")
@pytest.mark.hint(
    "A board is ex06's: 9 characters 'X', 'O' or ' ', X has as many pieces as O or one more, at "
    "most one side has a line. A game with a line or a full board is over: ValueError."
)
def test_best_move_vs_random_bad_boards(student):
    """bad boards and finished games raise ValueError"""
    for bad in ("XXX OO   ", "OOO XX X ", "XOXXOOOXX", "XXOOXXXOO", "XX       ", "O        ", "XXXOOO   ",
                "XO", "XO XO X  X", "xo       ", 9 * [" "], None):
        with pytest.raises(ValueError):
            student.best_move_vs_random(bad)

"""Hidden checks for ex03 (plain minimax on nested lists); never shipped to students.

Expected values come from verified facts or from the small oracle of the
hidden helper hidden_random_trees (shared with ex04 and ex07) and below,
written for the checks on purpose rather than imported from solutions/.

Every random tree is drawn from the ``rng`` fixture inside a check, so a run
is reproducible from its seed.
"""

import copy

import pytest

import hidden_random_trees
from hidden_random_trees import (
    INF,
    TIE_SETS_WITH_INT_AND_FLOAT,
    caterpillar_tree,
    few_values_leaf,
    float_leaf_within,
    int_leaf,
    leaf_total,
    mixed_leaf_within,
    plain_minimax,
    ragged_tree,
    same_tree,
    smallest_failing_picture,
    uniform_tree,
)

# ex03's own figures for the shared generators. Each is part of what a seed draws (the trees a
# check asks about), so changing one changes the grade's inputs: tests/golden/tree_draws.json.
RAGGED_MAX_LEAVES = 2000
BUSH_STOP, BUSH_LEAVES = 0.25, 12
# A float with all its digits, often negative.
float_leaf = float_leaf_within(500.0)
# An int or a short float in a narrow range, so that 3 and 3.0 can meet.
mixed_leaf = mixed_leaf_within(15, digits=1)

# --------------------------------------------------------------------------
# The rest of the oracle: the first best child and the depth.
# --------------------------------------------------------------------------


def first_best(tree):
    """Index of the first child of a maximising root with the largest (minimising) value."""
    return first_best_of([plain_minimax(child, False) for child in tree])


def first_best_of(values):
    """Index of the first of the values that is the largest."""
    best = 0
    for index, value in enumerate(values):
        if value > values[best]:
            best = index
    return best


def tree_depth(tree):
    """Levels of lists above the deepest leaf (a bare leaf has depth 0)."""
    if not isinstance(tree, list):
        return 0
    return 1 + max(tree_depth(child) for child in tree)


# --------------------------------------------------------------------------
# Random trees of ex03's own. Every generator takes the check's rng.
# --------------------------------------------------------------------------


def wandering_tree(rng, length, make_leaf):
    """A deep tree whose longest path turns left and right at random, siblings all the way."""
    node = make_leaf(rng)
    for _ in range(length):
        width = rng.randint(1, 4)
        children = [make_leaf(rng) if rng.random() < 0.6 else [make_leaf(rng), make_leaf(rng)]
                    for _ in range(width - 1)]
        children.insert(rng.randint(0, width - 1), node)
        node = children
    return node


def broom_tree(rng, make_leaf, target_leaves, handle_length):
    """About `target_leaves` leaves in a bushy head, plus one long deep handle."""
    head = []
    grown = 0
    while grown < target_leaves:
        branch = uniform_tree(rng, rng.randint(2, 6), rng.randint(1, 4), make_leaf)
        grown += leaf_total(branch)
        head.append(branch)
    handle = caterpillar_tree(rng, handle_length, make_leaf, BUSH_STOP, bush_leaves=6)
    head.insert(rng.randint(0, len(head)), handle)
    return head


def mixed_trees(rng, bare_leaves=True):
    """Small and medium trees of many shapes, with flat lists and (unless told not to) two bare leaves."""
    return hidden_random_trees.mixed_trees(rng, float_leaf, mixed_leaf, RAGGED_MAX_LEAVES, min_depth=1,
                                           flat_lists=2, bare_leaves=bare_leaves)


def tie_heavy_trees(rng):
    """Trees whose leaves come from a handful of values, flat lists among them, shuffled."""
    return hidden_random_trees.tie_heavy_trees(rng, TIE_SETS_WITH_INT_AND_FLOAT, count=20, min_depth=1,
                                               max_leaves=RAGGED_MAX_LEAVES, flat_lists=8, shuffle=True)


def deep_trees(rng):
    """Uneven trees from about 150 to about 200 levels deep."""
    return [
        caterpillar_tree(rng, rng.randint(180, 196), int_leaf, BUSH_STOP, BUSH_LEAVES),
        caterpillar_tree(rng, rng.randint(150, 196), mixed_leaf, BUSH_STOP, BUSH_LEAVES),
        wandering_tree(rng, rng.randint(180, 198), float_leaf),
        wandering_tree(rng, rng.randint(150, 198), few_values_leaf((0, 1, 2))),
        caterpillar_tree(rng, rng.randint(150, 196), few_values_leaf((-1, 0, 1)), BUSH_STOP, BUSH_LEAVES),
    ]


# --------------------------------------------------------------------------
# Verified facts about known trees.
# --------------------------------------------------------------------------

WORKED_TREE = [[3, 5, 2], [9, 1, 0], [7, 4, 8]]


@pytest.mark.points(2)
@pytest.mark.hint(
    "The root maximises and the level below it minimises; count only leaves; best_child returns "
    "an index."
)
def test_worked_example_facts(student):
    """the worked example: 9 leaves, value 4, best child 2"""
    assert student.count_leaves(WORKED_TREE) == 9
    assert student.minimax(WORKED_TREE) == 4
    assert student.best_child(WORKED_TREE) == 2


@pytest.mark.hint(
    "A tree can be a bare number, and a list can have a single child; neither needs a special "
    "value, in any of the three functions. A list with one child still flips the player, and "
    "best_child of it has exactly one child to choose."
)
def test_single_leaves_and_chains(student):
    """single leaves and one-child chains"""
    assert student.minimax(5) == 5
    assert student.minimax([7]) == 7
    assert student.minimax([[[-2]]]) == -2
    assert student.minimax([[[-2]]], False) == -2
    assert student.count_leaves(5) == 1
    assert student.count_leaves([7]) == 1
    assert student.count_leaves([[[-2]]]) == 1
    assert student.best_child([7]) == 0
    assert student.best_child([[[-2]]]) == 0


@pytest.mark.points(2)
@pytest.mark.hint(
    "Leaves can sit at any depth: whose turn it is depends on the level, not on whether a child "
    "is a leaf. count_leaves counts the leaves at every depth, and best_child values every child "
    "as a minimising node, leaf or list."
)
def test_uneven_depths(student):
    """trees with leaves at uneven depths"""
    first = [3, [5, [1, 8]], [[2, 9], 0]]
    second = [[1, [4, 6]], 2, [[0, 7], [3]]]
    assert student.minimax(first) == 5
    assert student.minimax(first, False) == 2
    assert student.count_leaves(first) == 7
    assert student.best_child(first) == 1
    assert student.minimax(second) == 3
    assert student.minimax(second, False) == 2
    assert student.count_leaves(second) == 7
    assert student.best_child(second) == 2
    third = [[5, 6], [[1, 9], 4]]
    assert student.minimax(third) == 5
    assert student.minimax(third, False) == 4
    assert student.count_leaves(third) == 5


@pytest.mark.hint(
    "Leaves can be floats and negative numbers: a float is a leaf just like an int, in all three "
    "functions. Do not start a max or a min at 0."
)
def test_floats_and_negatives(student):
    """float and negative leaves"""
    tree = [[-1.5, 2.25], [-3, 0.5], [-0.5, -2]]
    assert student.minimax(tree) == -1.5
    assert student.minimax(tree, False) == -0.5
    assert student.count_leaves(tree) == 6
    assert student.best_child([[-3, 0.5], [-0.5, -2], [-1.5, 2.25]]) == 2
    assert student.minimax([[-7.25], [-8, -6.5]]) == -7.25


@pytest.mark.points(2)
@pytest.mark.hint(
    "When several children share the best value, return the first of them (an int and a float "
    "of the same value tie). Value each child as a minimising node and return its index, not its "
    "value."
)
def test_best_child_ties_go_first(student):
    """ties in best_child go to the first child"""
    assert student.best_child([4, 4]) == 0
    assert student.best_child([[2, 2], [2, 2], [2, 2]]) == 0
    assert student.best_child([1, [5, 9], 5, [7, 5]]) == 1
    assert student.best_child([[-1], [0, 3], [-4], [3, 0], [6, 0.0]]) == 1
    assert student.best_child([[0, 3], [-1], [3, 0.0], [6, 0], [0]]) == 0
    assert student.best_child([[1], [2.5, 9], [2.5], [[3, 0], 2.5]]) == 1


@pytest.mark.hint(
    "float('inf') and float('-inf') are floats, so they are leaves too, in all three functions. "
    "Make sure best_child still returns an index whatever the values: start from child 0 and its "
    "value, not from None."
)
def test_infinite_leaves(student):
    """infinite leaves are numbers too"""
    assert student.best_child([-INF, -INF]) == 0
    assert student.best_child([[-INF, 4], [-INF]]) == 0
    assert student.best_child([[INF], [1, INF], [INF, INF]]) == 0
    assert student.minimax([[INF, 1], [2, INF]]) == 2
    assert student.minimax([[-INF], [-INF, 0]]) == -INF
    assert student.count_leaves([INF, [-INF, 0.5]]) == 3


@pytest.mark.hint(
    "count_leaves returns an int, minimax returns one of the leaves as it is, best_child returns "
    "an int index (not a bool or a float), and each must be the right answer."
)
def test_result_types(student, rng):
    """the results are plain ints and leaf values"""
    trees = [WORKED_TREE, [[-1.5, 2.25], [-3, 0.5]], uniform_tree(rng, 3, 3, mixed_leaf)]
    for tree in trees:
        count = student.count_leaves(tree)
        assert type(count) is int and count == leaf_total(tree)
        index = student.best_child(tree)
        assert type(index) is int and index == first_best(tree)
        value = student.minimax(tree)
        assert type(value) in (int, float) and value == plain_minimax(tree)


# --------------------------------------------------------------------------
# Random trees against the oracle.
# --------------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.hint(
    "Add up the leaves of every child, however deep; the lists themselves are not leaves. Float "
    "leaves count like int ones, and a bare number is a tree of 1 leaf."
)
def test_count_leaves_random(student, rng, feedback):
    """count_leaves on random trees"""
    feedback.on_failure(lambda: smallest_failing_picture(student, "count_leaves", leaf_total))
    for tree in mixed_trees(rng):
        assert student.count_leaves(tree) == leaf_total(tree)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Flip the player at every level, use max for the maximiser and min for the minimiser, and "
    "respect the maximizing argument, passed by position or by keyword. Float leaves and bare "
    "numbers are trees too."
)
def test_minimax_random(student, rng, feedback):
    """minimax on random trees, either player at the root"""
    feedback.on_failure(lambda: smallest_failing_picture(student, "minimax", plain_minimax, (True,))
                        or smallest_failing_picture(student, "minimax", lambda tree: plain_minimax(tree, False),
                                                    (False,), maximizing=False))
    for index, tree in enumerate(mixed_trees(rng)):
        maximizing = index % 2 == 0
        assert student.minimax(tree, maximizing) == plain_minimax(tree, maximizing)
        other = not maximizing
        assert student.minimax(tree, maximizing=other) == plain_minimax(tree, other)


@pytest.mark.hint(
    "Without a second argument, the root maximises, and the value must be right for trees of "
    "every shape."
)
def test_minimax_root_maximises_by_default(student, rng):
    """the root maximises by default"""
    for tree in mixed_trees(rng)[:12]:
        assert student.minimax(tree) == plain_minimax(tree, True)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Value every child of the root as a minimising node and return the index of the largest; "
    "on a tie keep the first. Children may be leaves or lists of any depth."
)
def test_best_child_random(student, rng, feedback):
    """best_child on random trees"""
    feedback.on_failure(lambda: smallest_failing_picture(student, "best_child", first_best))
    for tree in mixed_trees(rng, bare_leaves=False):
        assert student.best_child(tree) == first_best(tree)


@pytest.mark.points(2)
@pytest.mark.hint(
    "With many equal values, best_child must still return the first best child, and minimax must "
    "still return the right value."
)
def test_tie_heavy_random_trees(student, rng):
    """random trees with many ties"""
    for tree in tie_heavy_trees(rng):
        assert student.best_child(tree) == first_best(tree)
        assert student.minimax(tree) == plain_minimax(tree)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Trees about 200 levels deep, with leaves at every depth, must work too, in all three "
    "functions: flip the player at every level, counted from the root, and recurse once per child."
)
def test_deep_trees(student, rng):
    """deep and lopsided trees"""
    for index, tree in enumerate(deep_trees(rng)):
        assert 150 <= tree_depth(tree) <= 205
        assert student.count_leaves(tree) == leaf_total(tree)
        maximizing = index % 2 == 0
        assert student.minimax(tree, maximizing) == plain_minimax(tree, maximizing)
        assert student.best_child(tree) == first_best(tree)


LARGE_SHAPES = ["uniform", "ragged", "broom"]


def large_tree(rng, shape):
    """A tree of about 10^5 leaves, and how many leaves it has."""
    if shape == "uniform":
        tree = uniform_tree(rng, 10, 5, int_leaf)
        return tree, leaf_total(tree)
    if shape == "broom":
        tree = broom_tree(rng, float_leaf, 99_000, 190)
        return tree, leaf_total(tree)
    while True:  # a ragged tree can die out early; draw again until it is big
        tree = ragged_tree(rng, 11, (2, 3, 4, 5, 6, 7), mixed_leaf, 0.2, max_leaves=100_000)
        leaves = leaf_total(tree)
        if leaves >= 90_000:
            return tree, leaves


# Sending a 10^5-leaf tree into the sandbox and back takes a few tenths of a second of the
# call's time on its own, so these checks get their own, larger budgets (figures in
# exercise.toml).
@pytest.mark.points(2)
@pytest.mark.parametrize("shape", LARGE_SHAPES)
@pytest.mark.call_timeout(10)
@pytest.mark.timeout(90)
@pytest.mark.hint(
    "Trees of about 100,000 leaves must get the right answers from all three functions, within "
    "the time limit: one recursive call per node is plenty fast, but walking the same subtrees "
    "again and again is not."
)
def test_large_trees(student, rng, shape):
    """large trees"""
    tree, leaves = large_tree(rng, shape)
    assert 90_000 <= leaves <= 110_000
    assert student.count_leaves(tree) == leaves
    # The root's children's values answer both minimax and best_child: the oracle walks the big
    # tree once for the two.
    values = [plain_minimax(child, False) for child in tree]
    assert student.minimax(tree) == max(values)
    assert student.best_child(tree) == first_best_of(values)


# --------------------------------------------------------------------------
# Bad input and leaving the input alone.
# --------------------------------------------------------------------------

EMPTY_SOMEWHERE = [
    [], [[]], [[1, 2], []], [[1, []], 3], [[[[]]]], [[[1, [2, []]]]], [4, [5, 6], [[7], []]],
]
NOT_A_NUMBER = [
    True, False, "3", None, [1, True], [[1, 2], [3, None]], [["a"]], [[1, [2, False]]],
    [0.5, [None]], [[1, 2], (3, 4)], [[False]],
]
FUNCTIONS = ["count_leaves", "minimax", "best_child"]


# Raising ValueError, or handing the tree back untouched, is also what code that computes nothing
# does: the checks of bad trees and of leaving the tree alone pay only once the functions they
# call compute right answers.
@pytest.mark.requires("test_count_leaves_random", "test_minimax_random", "test_best_child_random")
@pytest.mark.hint(
    "An internal node must have at least one child: an empty list anywhere in the tree, however "
    "deep, is a ValueError (not another error), in every function. This check counts once all "
    "three functions are right on random trees."
)
def test_empty_lists_rejected(student):
    """empty lists raise ValueError"""
    for name in FUNCTIONS:
        for tree in EMPTY_SOMEWHERE:
            with pytest.raises(ValueError):
                getattr(student, name)(tree)


@pytest.mark.requires("test_count_leaves_random", "test_minimax_random", "test_best_child_random")
@pytest.mark.hint(
    "A leaf must be an int or a float: anything else that is not a list (a str, None, a tuple) "
    "is a ValueError in every function, at any depth or as the whole tree. bool is a subclass of "
    "int in Python, but True is not a score. This check counts once all three functions are right "
    "on random trees."
)
def test_non_number_leaves_rejected(student):
    """leaves that are not numbers raise ValueError"""
    for name in FUNCTIONS:
        for tree in NOT_A_NUMBER:
            with pytest.raises(ValueError):
                getattr(student, name)(tree)


@pytest.mark.requires("test_minimax_random")
@pytest.mark.hint(
    "minimax checks its tree whichever player is at the root: an empty list or a leaf that is not "
    "an int or float is a ValueError. This check counts once minimax is right on random trees."
)
def test_minimax_rejects_bad_trees_for_either_player(student):
    """minimax rejects bad trees for either player"""
    for index, tree in enumerate(EMPTY_SOMEWHERE + NOT_A_NUMBER):
        with pytest.raises(ValueError):
            student.minimax(tree, index % 2 == 0)


@pytest.mark.requires("test_best_child_random", "test_best_child_ties_go_first")
@pytest.mark.hint(
    "best_child needs children to choose from: a tree that is one number, int or float, is a "
    "ValueError (not another error, and not an index). This check counts once best_child is right "
    "on random trees and on ties."
)
def test_best_child_of_a_single_leaf(student):
    """best_child of a single leaf raises ValueError"""
    for leaf in (5, 0, -2.5, 0.0, INF):
        with pytest.raises(ValueError):
            student.best_child(leaf)


@pytest.mark.requires("test_count_leaves_random", "test_minimax_random", "test_best_child_random")
@pytest.mark.hint(
    "Leave the tree you are given exactly as it was, in every function: read it, do not change, "
    "sort or empty its lists, and do not replace its leaves (an int stays an int). This check "
    "counts once all three functions are right on random trees."
)
def test_tree_not_mutated(student, rng):
    """the input tree is left unchanged"""
    trees = [
        [[3, 5, 2], [9, 1, 0], [7, 4, 8]],
        uniform_tree(rng, 3, 4, few_values_leaf((0, 1, 2))),
        ragged_tree(rng, 6, (1, 2, 3), mixed_leaf, 0.25, RAGGED_MAX_LEAVES),
    ]
    for tree in trees:
        original = copy.deepcopy(tree)
        for name in FUNCTIONS:
            _, (after,), _ = student.call_observed(name, tree)
            assert same_tree(after, original)
        _, (after, _flag), _ = student.call_observed("minimax", tree, False)
        assert same_tree(after, original)

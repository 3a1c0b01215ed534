"""Hidden checks for ex04 (alpha-beta pruning); never shipped to students.

Expected values come from a table of known trees, from the
Knuth-Moore bound, or from the small oracle of the hidden helper
hidden_random_trees (shared with ex03 and ex07), written for the checks on
purpose rather than imported from solutions/.

Every random tree is drawn from the ``rng`` fixture inside a check, so a run
is reproducible from its seed.
"""

import copy

import pytest

import hidden_random_trees
from hidden_random_trees import (
    INF,
    TIE_SETS,
    alpha_beta,
    caterpillar_tree,
    distinct_uniform_tree,
    few_values_leaf,
    float_leaf_within,
    int_leaf,
    knuth_moore,
    leaf_total,
    mixed_leaf_within,
    plain_minimax,
    ragged_tree,
    reorder,
    same_tree,
    smallest_failing_picture,
    uniform_tree,
)

REPORT_KEYS = {"value", "nodes_visited", "nodes_pruned", "total_leaves"}

# Raising, leaving the tree alone and the right shape are easy for code that computes nothing,
# so each of those checks pays only once the functions it calls also answer correctly: the
# README's example and the random trees, for each function it calls.
COUNTER_BID_CORRECT = ("test_worked_example", "test_random_trees_match_oracle")
PRUNING_CORRECT = ("test_minimax_with_pruning_value", "test_pruning_value_full_window")

# ex04's own figures for the shared generators. Each is part of what a seed draws (the trees a
# check asks about), so changing one changes the grade's inputs: tests/golden/tree_draws.json.
RAGGED_MAX_LEAVES = 1500
BUSH_STOP = 0.2
# A float with all its digits.
float_leaf = float_leaf_within(250.0)
# An int or a short float, in a narrow range.
mixed_leaf = mixed_leaf_within(20, digits=2)


def oracle_report(tree):
    """What best_counter_bid must return for a tree."""
    value, evaluated, skipped = alpha_beta(tree)
    total = leaf_total(tree)
    assert evaluated + skipped == total  # the oracle's own sanity check
    return {"value": value, "nodes_visited": evaluated, "nodes_pruned": skipped, "total_leaves": total}


def mixed_trees(rng):
    """Small and medium trees of many shapes: uniform, ragged, one-child chains, deep, wide."""
    return hidden_random_trees.mixed_trees(rng, float_leaf, mixed_leaf, RAGGED_MAX_LEAVES, min_depth=1)


def tie_heavy_trees(rng):
    """Trees whose leaves come from a handful of values."""
    return hidden_random_trees.tie_heavy_trees(rng, TIE_SETS, count=20, min_depth=2, max_leaves=RAGGED_MAX_LEAVES)


# --------------------------------------------------------------------------
# The table of known trees (verified with the >= rule).
# --------------------------------------------------------------------------

def report(value, visited, pruned, total):
    """The dict best_counter_bid should return."""
    return {"value": value, "nodes_visited": visited, "nodes_pruned": pruned, "total_leaves": total}


@pytest.mark.hint(
    "A tree can be a bare number, and a node can have a single child; a reached leaf counts as "
    "visited."
)
def test_single_leaves_and_chains(student):
    """single leaves and one-child chains"""
    assert student.best_counter_bid(5) == report(5, 1, 0, 1)
    assert student.best_counter_bid([7]) == report(7, 1, 0, 1)
    assert student.best_counter_bid([[[-2]]]) == report(-2, 1, 0, 1)


@pytest.mark.hint(
    "Leaves can sit at any depth; whose turn it is depends on the level, not on whether a child"
    " is a leaf."
)
def test_uneven_depths(student):
    """trees with leaves at uneven depths"""
    assert student.best_counter_bid([3, [5, [1, 8]], [[2, 9], 0]]) == report(5, 7, 0, 7)
    assert student.best_counter_bid([[1, [4, 6]], 2, [[0, 7], [3]]]) == report(3, 6, 1, 7)


@pytest.mark.hint(
    "Search the children left to right and pass the window down; the order changes the work, "
    "not the value."
)
def test_worked_example_both_orders(student):
    """the worked example in two orders"""
    assert student.best_counter_bid([[3, 5, 2], [9, 1, 0], [7, 4, 8]]) == report(4, 8, 1, 9)
    assert student.best_counter_bid([[7, 4, 8], [9, 1, 0], [3, 5, 2]]) == report(4, 6, 3, 9)


@pytest.mark.hint("The search stops when alpha >= beta: equal values are enough for a cutoff.")
def test_equal_values_cut_off(student):
    """equal values trigger a cutoff"""
    assert student.best_counter_bid([[3, 5], [3, 1]]) == report(3, 3, 1, 4)
    assert student.best_counter_bid([[2, 2], [2, 2], [2, 2]]) == report(2, 4, 2, 6)


@pytest.mark.hint(
    "Leaves can be floats and negative numbers; start the window at -inf and +inf, not at 0."
)
def test_floats_and_negatives(student):
    """float and negative leaves"""
    got = student.best_counter_bid([[-1.5, 2.25], [-3, 0.5], [-0.5, -2]])
    assert got == report(-1.5, 5, 1, 6)


@pytest.mark.points(2)
@pytest.mark.hint(
    "nodes_pruned counts leaves, not subtrees: add up every leaf under each skipped child, "
    "however deep."
)
def test_deep_skipped_subtrees(student):
    """leaves under deep skipped subtrees"""
    first = [[[[3, 17], [2, 12]], [[15, 25], [0, 2]]], [[[2, 5], [3, 2]], [[14, 1], [8, 6]]]]
    second = [[[[8, 7], [3, 9]], [[9, 8], [2, 4]]], [[[1, 8], [8, 9]], [[9, 9], [3, 4]]]]
    assert student.best_counter_bid(first) == report(3, 7, 9, 16)
    assert student.best_counter_bid(second) == report(8, 10, 6, 16)


# --------------------------------------------------------------------------
# The shape of the answer and the counting rule.
# --------------------------------------------------------------------------

@pytest.mark.requires(*COUNTER_BID_CORRECT)
@pytest.mark.hint(
    "Return a plain dict with exactly the keys value, nodes_visited, nodes_pruned and "
    "total_leaves; the counts are ints and the value is an int or a float. This check counts "
    "once best_counter_bid's values and counts are right."
)
def test_result_is_plain_dict(student, rng):
    """the result is a dict with exactly four keys"""
    trees = [[[-1.5, 2.25], [-3, 0.5], [-0.5, -2]], uniform_tree(rng, 3, 3, int_leaf)]
    for tree in trees:
        got = student.best_counter_bid(tree)
        assert type(got) is dict
        assert set(got) == REPORT_KEYS
        for key in ("nodes_visited", "nodes_pruned", "total_leaves"):
            assert type(got[key]) is int
        assert type(got["value"]) in (int, float)


# A search that never prunes keeps this rule too (it visits every leaf and prunes none), so the
# rule pays only once the counts are also right where leaves are pruned.
@pytest.mark.points(2)
@pytest.mark.requires(*COUNTER_BID_CORRECT)
@pytest.mark.hint(
    "total_leaves counts every leaf of the tree, and every leaf is either evaluated or under a "
    "skipped child, so nodes_visited + nodes_pruned == total_leaves; at least one leaf is always "
    "evaluated, and value is plain minimax's value. This check counts once the worked example and "
    "random trees get the counts of a search that prunes."
)
def test_counting_rule_on_random_trees(student, rng):
    """visited and pruned leaves add up to all leaves"""
    trees = mixed_trees(rng)[:15] + tie_heavy_trees(rng)[::4]
    for tree in trees:
        got = student.best_counter_bid(tree)
        total = leaf_total(tree)
        assert got["total_leaves"] == total
        assert got["nodes_visited"] + got["nodes_pruned"] == total
        assert 1 <= got["nodes_visited"] <= total
        assert got["value"] == plain_minimax(tree)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Go left to right, hand alpha and beta down to every child, and stop a node's loop as soon "
    "as alpha >= beta."
)
def test_random_trees_match_oracle(student, rng, feedback):
    """random trees of mixed shapes"""
    feedback.on_failure(lambda: smallest_failing_picture(student, "best_counter_bid", oracle_report,
                                                         shown_keys=tuple(oracle_report([1]))))
    for tree in mixed_trees(rng):
        assert student.best_counter_bid(tree) == oracle_report(tree)


@pytest.mark.hint(
    "With many equal leaves, cutoffs on alpha == beta matter: the test is alpha >= beta."
)
def test_tie_heavy_random_trees(student, rng):
    """random trees with many ties"""
    for tree in tie_heavy_trees(rng):
        assert student.best_counter_bid(tree) == oracle_report(tree)


@pytest.mark.hint(
    "Large trees must work too: count the leaves under a skipped child once, and keep the "
    "recursion simple."
)
def test_larger_trees(student, rng):
    """larger random trees"""
    trees = [
        uniform_tree(rng, 4, 6, int_leaf),
        uniform_tree(rng, 3, 8, few_values_leaf((0, 1, 2, 3))),
        uniform_tree(rng, 60, 2, float_leaf),
        ragged_tree(rng, 12, (2, 3, 4, 5), mixed_leaf, 0.2, max_leaves=5000),
        caterpillar_tree(rng, 120, int_leaf, BUSH_STOP, RAGGED_MAX_LEAVES),
    ]
    for tree in trees:
        assert student.best_counter_bid(tree) == oracle_report(tree)


@pytest.mark.hint(
    "With the best move first everywhere and no ties, alpha-beta evaluates b**ceil(d/2) + "
    "b**floor(d/2) - 1 leaves."
)
def test_knuth_moore_bound(student, rng):
    """best-first ordering meets the Knuth-Moore bound"""
    # (3, 4) and (2, 6) are the verified shapes (17 and 15 leaves).
    shapes = [(3, 4), (2, 6), (2, 1), (3, 0), (2, 3), (3, 3), (4, 3), (3, 5), (4, 4), (5, 3)]
    shapes += [(2, 9), (6, 2)]
    shapes += [(rng.randint(2, 4), rng.randint(1, 5)) for _ in range(4)]
    for branching, depth in shapes:
        tree = reorder(distinct_uniform_tree(rng, branching, depth))
        got = student.best_counter_bid(tree)
        assert got["nodes_visited"] == knuth_moore(branching, depth)
        assert got["value"] == plain_minimax(tree)


# --------------------------------------------------------------------------
# minimax_with_pruning on its own.
# --------------------------------------------------------------------------

@pytest.mark.hint(
    "minimax_with_pruning(tree, maximizing) must give plain minimax's value, for either player "
    "at the root, whether the full window is left out or passed in (by position or by name)."
)
def test_pruning_value_full_window(student, rng):
    """minimax_with_pruning with the full window"""
    trees = mixed_trees(rng)[:10] + tie_heavy_trees(rng)[:6]
    for index, tree in enumerate(trees):
        maximizing = index % 2 == 0
        expected = plain_minimax(tree, maximizing)
        assert student.minimax_with_pruning(tree, maximizing) == expected
        assert student.minimax_with_pruning(tree, maximizing, -INF, INF) == expected
        other = not maximizing
        assert student.minimax_with_pruning(tree, other, alpha=-INF, beta=INF) == plain_minimax(tree, other)


@pytest.mark.hint(
    "Start from the alpha and beta you are given, by position or by name; when the true value "
    "lies strictly inside them, that value comes back."
)
def test_pruning_value_inside_window(student, rng):
    """minimax_with_pruning with a window around the answer"""
    trees = mixed_trees(rng)[:12] + tie_heavy_trees(rng)[:12]
    margins = [0.5, 1, 3, 25, INF]
    for index, tree in enumerate(trees):
        maximizing = rng.random() < 0.5
        expected = plain_minimax(tree, maximizing)
        alpha = expected - rng.choice(margins)
        beta = expected + rng.choice(margins)
        if index % 2:
            got = student.minimax_with_pruning(tree, maximizing, alpha, beta)
        else:
            got = student.minimax_with_pruning(tree, maximizing, alpha=alpha, beta=beta)
        assert got == expected


# --------------------------------------------------------------------------
# Bad input and leaving the input alone.
# --------------------------------------------------------------------------

EMPTY_SOMEWHERE = [
    [], [[]], [[1, 2], []], [[1, []], 3], [[[[]]]], [[[1, [2, []]]]], [4, [5, 6], [[7], []]],
]
NOT_A_NUMBER = [
    True, False, "3", None, [1, True], [[1, 2], [3, None]], [["a"]], [[1, [2, False]]], [0.5, [None]],
]


@pytest.mark.requires(*COUNTER_BID_CORRECT)
@pytest.mark.hint(
    "An internal node must have at least one child: an empty list anywhere in the tree, the "
    "whole tree included, is a ValueError. This check counts once best_counter_bid's values and "
    "counts are right."
)
def test_empty_lists_rejected(student):
    """empty lists raise ValueError"""
    for tree in EMPTY_SOMEWHERE:
        with pytest.raises(ValueError):
            student.best_counter_bid(tree)


@pytest.mark.requires(*COUNTER_BID_CORRECT)
@pytest.mark.hint(
    "A leaf must be an int or a float, wherever it sits, even when the whole tree is one leaf. "
    "bool is a subclass of int in Python, but True is not a score. This check counts once "
    "best_counter_bid's values and counts are right."
)
def test_non_number_leaves_rejected(student):
    """leaves that are not numbers raise ValueError"""
    for tree in NOT_A_NUMBER:
        with pytest.raises(ValueError):
            student.best_counter_bid(tree)


@pytest.mark.requires(*PRUNING_CORRECT)
@pytest.mark.hint(
    "minimax_with_pruning checks its tree too, whichever player is at the root: empty lists and "
    "non-number leaves raise ValueError. This check counts once minimax_with_pruning's values "
    "are right."
)
def test_pruning_rejects_bad_trees(student):
    """minimax_with_pruning rejects bad trees"""
    for index, tree in enumerate(EMPTY_SOMEWHERE + NOT_A_NUMBER):
        with pytest.raises(ValueError):
            student.minimax_with_pruning(tree, index % 2 == 0)


@pytest.mark.requires(*COUNTER_BID_CORRECT, *PRUNING_CORRECT)
@pytest.mark.hint(
    "Check the whole tree before you search it, in both functions: a bad node must be caught "
    "even where the search would skip it. This check counts once both functions answer "
    "correctly."
)
def test_bad_input_where_pruning_skips(student):
    """bad input is rejected even where pruning would skip it"""
    # Each bad node sits under a child that alpha-beta never enters.
    hidden_bad = [
        [[3, 5, 2], [9, 1, "x"], [7, 4, 8]],
        [[3, 5, 2], [9, 1, []], [7, 4, 8]],
        [[3, 5], [3, None]],
        [[7, 4, 8], [9, 1, 0], [3, True, 2]],
        [[8, [9, 9]], [2, [[[]]], 7]],
    ]
    for tree in hidden_bad:
        with pytest.raises(ValueError):
            student.best_counter_bid(tree)
        with pytest.raises(ValueError):
            student.minimax_with_pruning(tree, True)


@pytest.mark.requires(*COUNTER_BID_CORRECT, *PRUNING_CORRECT)
@pytest.mark.hint(
    "Both functions must leave the tree they are given exactly as it was: read it, do not "
    "change, sort or empty its lists, nor turn its numbers into other types. This check counts "
    "once both functions answer correctly."
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
        _, (after,), _ = student.call_observed("best_counter_bid", tree)
        assert same_tree(after, original)
        _, (after, _flag), _ = student.call_observed("minimax_with_pruning", tree, True)
        assert same_tree(after, original)

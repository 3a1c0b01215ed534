"""Hidden checks for ex07 (move ordering); never shipped to students.

Expected values come from known facts, from the Knuth-Moore
formula, or from the small oracle of the hidden helper hidden_random_trees
(shared with ex03 and ex04), written for the checks on purpose rather than
imported from solutions/. Reordered trees are judged by their properties
(the same subtrees, only reordered, and best-first by value at every node),
so children with equal values may come in any order.

Every random tree is drawn from the ``rng`` fixture inside a check, so a run
is reproducible from its seed.
"""

import copy

import pytest

import hidden_random_trees
from hidden_random_trees import (
    TIE_SETS_WITH_INT_AND_FLOAT,
    alpha_beta,
    distinct_uniform_tree,
    few_values_leaf,
    float_leaf_within,
    int_leaf,
    knuth_moore,
    leaf_total,
    plain_minimax,
    ragged_tree,
    reorder,
    same_tree,
    smallest_failing_picture,
    uniform_tree,
)

# Raising for bad input, leaving the tree alone and keeping its shape are easy for code that
# computes nothing (raise for everything, hand the tree back), so each of those checks pays only
# once the function it calls also answers correctly on the known trees.
FRACTION_CORRECT = ("test_known_trees",)
ORDER_CORRECT = ("test_known_orders",)
MINIMAL_LEAVES_CORRECT = ("test_minimal_leaves_formula",)

# ex07's own figures for the shared generators. Each is part of what a seed draws (the trees a
# check asks about), so changing one changes the grade's inputs: tests/golden/tree_draws.json.
RAGGED_MAX_LEAVES = 1500
# A float with all its digits.
float_leaf = float_leaf_within(250.0)


def mixed_leaf(rng):
    """An int or a whole or half float, in a narrow range (so 3 and 3.0 can both occur)."""
    return rng.randint(-20, 20) if rng.random() < 0.5 else float(rng.randint(-40, 40)) / 2


def mixed_trees(rng):
    """Small and medium trees of many shapes: uniform (two levels or more), ragged, one-child chains, deep, wide."""
    return hidden_random_trees.mixed_trees(rng, float_leaf, mixed_leaf, RAGGED_MAX_LEAVES, min_depth=2)


def tie_heavy_trees(rng):
    """Trees whose leaves come from a handful of values."""
    return hidden_random_trees.tie_heavy_trees(rng, TIE_SETS_WITH_INT_AND_FLOAT, count=16, min_depth=2,
                                               max_leaves=RAGGED_MAX_LEAVES)


# --------------------------------------------------------------------------
# The rest of the oracle: the share alpha-beta skips, and what a reordering keeps.
# --------------------------------------------------------------------------

def oracle_fraction(tree):
    """The share of leaves alpha-beta skips, as pruned_fraction must report it."""
    total = leaf_total(tree)
    return (total - alpha_beta(tree)[1]) / total


def canonical(tree):
    """A form that forgets the order of children but keeps everything else, leaf types included.

    Two trees have the same canonical form exactly when one is the other with
    the children of some nodes reordered.
    """
    if type(tree) is list:
        return (1, tuple(sorted(canonical(child) for child in tree)))
    return (0, type(tree).__name__, tree if type(tree) in (int, float) else repr(tree))


def shape(tree):
    """The tree's shape with the leaves blanked out, children in any order."""
    if type(tree) is list:
        return (1, tuple(sorted(shape(child) for child in tree)))
    return (0,)


def leaf_multiset(tree):
    """All leaves with their types, sorted."""
    found, pending = [], [tree]
    while pending:
        node = pending.pop()
        if type(node) is list:
            pending.extend(node)
        else:
            found.append((type(node).__name__, repr(node)))
    return sorted(found)


def is_best_first(tree):
    """True when every node's children are best-first by their minimax values."""
    ok = True

    def value_of(node, maximizing):
        nonlocal ok
        if not isinstance(node, list):
            return node
        values = [value_of(child, not maximizing) for child in node]
        for earlier, later in zip(values, values[1:]):
            if (maximizing and earlier < later) or (not maximizing and earlier > later):
                ok = False
        return max(values) if maximizing else min(values)

    value_of(tree, True)
    return ok


def assert_best_first_reordering(got, tree):
    """got must be tree with children reordered, best-first by value at every node."""
    assert shape(got) == shape(tree), "the result does not have the tree's shape"
    assert leaf_multiset(got) == leaf_multiset(tree), "the result does not hold the tree's leaves"
    assert canonical(got) == canonical(tree), "the result is not the tree with its children reordered"
    assert plain_minimax(got) == plain_minimax(tree)
    assert is_best_first(got), "a node's children are not best-first"


# --------------------------------------------------------------------------
# pruned_fraction: ex04's counting rules, as a share of the leaves.
# --------------------------------------------------------------------------

# (tree, leaves skipped, leaves in all), from ex04's table of known trees.
KNOWN_PRUNING = [
    ([[3, 5, 2], [9, 1, 0], [7, 4, 8]], 1, 9),
    ([[7, 4, 8], [9, 1, 0], [3, 5, 2]], 3, 9),
    ([[1, [4, 6]], 2, [[0, 7], [3]]], 1, 7),
    ([[3, 5], [3, 1]], 1, 4),
    ([[2, 2], [2, 2], [2, 2]], 2, 6),
    ([[-1.5, 2.25], [-3, 0.5], [-0.5, -2]], 1, 6),
    ([[[[3, 17], [2, 12]], [[15, 25], [0, 2]]], [[[2, 5], [3, 2]], [[14, 1], [8, 6]]]], 9, 16),
    ([[[[8, 7], [3, 9]], [[9, 8], [2, 4]]], [[[1, 8], [8, 9]], [[9, 9], [3, 4]]]], 6, 16),
]


@pytest.mark.points(2)
@pytest.mark.hint(
    "Use ex04's rules: maximising root, full window, children left to right, stop a node once "
    "alpha >= beta (equality included), and divide the skipped leaves by all the leaves."
)
def test_known_trees(student):
    """pruned_fraction on the known trees"""
    for tree, skipped, total in KNOWN_PRUNING:
        assert student.pruned_fraction(tree) == pytest.approx(skipped / total)


# Answering 0.0 to everything passes this alone, so it pays only once pruned_fraction also finds
# the cutoffs of the known trees.
@pytest.mark.requires("test_known_trees")
@pytest.mark.hint(
    "When no node stops early, nothing is pruned and the answer is 0.0, a float (not the int 0); "
    "a single leaf is one visited leaf. This check counts once pruned_fraction is right on the "
    "known trees."
)
def test_nothing_pruned(student, rng):
    """pruned_fraction is 0.0 where no node stops early"""
    trees = [5, -2.5, [7], [[[-2]]], [3, [5, [1, 8]], [[2, 9], 0]]]
    # Worst-first ordering with distinct leaves never cuts off at depth 3 or less.
    trees += [reorder(distinct_uniform_tree(rng, rng.randint(2, 5), rng.randint(1, 3)), worst_first=True)
              for _ in range(6)]
    for tree in trees:
        got = student.pruned_fraction(tree)
        assert type(got) is float
        assert got == 0.0


def _close(value, expected):
    """pytest.approx's test, for the smallest failing tree (a hidden probe's float may be the kit's subclass)."""
    return isinstance(value, float) and value == pytest.approx(expected)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Search left to right, pass alpha and beta down to every child, stop once alpha >= beta, and "
    "return (all leaves - evaluated leaves) / all leaves as a float."
)
def test_random_trees(student, rng, feedback):
    """pruned_fraction on random trees of mixed shapes"""
    feedback.on_failure(lambda: smallest_failing_picture(student, "pruned_fraction", oracle_fraction, same=_close))
    for tree in mixed_trees(rng):
        got = student.pruned_fraction(tree)
        assert type(got) is float
        assert got == pytest.approx(oracle_fraction(tree))


@pytest.mark.hint("With many equal leaves, cutoffs on alpha == beta matter: the test is alpha >= beta.")
def test_tie_heavy_trees(student, rng):
    """pruned_fraction on random trees with many ties"""
    for tree in tie_heavy_trees(rng):
        assert student.pruned_fraction(tree) == pytest.approx(oracle_fraction(tree))


@pytest.mark.points(2)
@pytest.mark.hint(
    "On a perfectly ordered uniform tree with distinct leaves, alpha-beta evaluates exactly the "
    "Knuth-Moore number of leaves, minimal_leaves(b, d), and skips the rest of the b**d; check "
    "pruned_fraction against it on small shapes you can draw."
)
def test_knuth_moore_fraction(student, rng):
    """pruned_fraction on perfectly ordered trees matches Knuth-Moore"""
    shapes = [(3, 4), (2, 6), (2, 1), (3, 2), (2, 3), (3, 3), (4, 3), (3, 5), (4, 4), (5, 3), (2, 8)]
    shapes += [(rng.randint(2, 5), rng.randint(1, 4)) for _ in range(4)]
    for branching, depth in shapes:
        tree = reorder(distinct_uniform_tree(rng, branching, depth))
        total = branching ** depth
        expected = (total - knuth_moore(branching, depth)) / total
        assert student.pruned_fraction(tree) == pytest.approx(expected)


@pytest.mark.hint(
    "Large trees must work too, by the same rules as small ones: keep the recursion simple and "
    "count each leaf once."
)
def test_larger_trees(student, rng):
    """pruned_fraction on larger random trees"""
    trees = [
        uniform_tree(rng, 4, 6, int_leaf),
        uniform_tree(rng, 3, 8, few_values_leaf((0, 1, 2, 3))),
        ragged_tree(rng, 12, (2, 3, 4, 5), mixed_leaf, 0.2, max_leaves=5000),
    ]
    for tree in trees:
        assert student.pruned_fraction(tree) == pytest.approx(oracle_fraction(tree))


EMPTY_SOMEWHERE = [
    [], [[]], [[1, 2], []], [[1, []], 3], [[[[]]]], [4, [5, 6], [[7], []]],
]
NOT_A_NUMBER = [
    True, "3", None, [1, True], [[1, 2], [3, None]], [["a"]], [[1, [2, False]]], [0.5, [None]],
]
# Each bad node sits under a child that alpha-beta never enters.
BAD_WHERE_PRUNED = [
    [[3, 5, 2], [9, 1, "x"], [7, 4, 8]],
    [[3, 5, 2], [9, 1, []], [7, 4, 8]],
    [[3, 5], [3, None]],
]


@pytest.mark.requires(*FRACTION_CORRECT)
@pytest.mark.hint(
    "Check the whole tree before searching: an empty list or a leaf that is not an int or float "
    "(bool included) is a ValueError, even where the search would not go. This check counts once "
    "pruned_fraction answers the known trees correctly."
)
def test_pruned_fraction_rejects_bad_trees(student):
    """pruned_fraction rejects bad trees"""
    for tree in EMPTY_SOMEWHERE + NOT_A_NUMBER + BAD_WHERE_PRUNED:
        with pytest.raises(ValueError):
            student.pruned_fraction(tree)


# --------------------------------------------------------------------------
# order_best_first.
# --------------------------------------------------------------------------

# Distinct leaves, so the best-first order is unique.
KNOWN_ORDERS = [
    ([[3, 5, 2], [9, 1, 0], [7, 4, 8]], [[4, 7, 8], [2, 3, 5], [0, 1, 9]]),
    ([[-1.5, 2.25], [-3, 0.5], [-0.5, -2]], [[-1.5, 2.25], [-2, -0.5], [-3, 0.5]]),
    ([[1, [4, 6]], 2, [[0, 7], [3]]], [[[3], [7, 0]], 2, [1, [6, 4]]]),
    ([[[8, 3], [5, 9]], [[1, 12], [7, 4]]], [[[8, 3], [9, 5]], [[7, 4], [12, 1]]]),
    ([[3, 5], [1, 3.5]], [[3, 5], [1, 3.5]]),
    ([2, 9, -4, 7], [9, 7, 2, -4]),
]


@pytest.mark.points(2)
@pytest.mark.hint(
    "At a maximising node sort the children by value from high to low, at a minimising node "
    "from low to high, and do it at every level, with the player flipping each time; every leaf "
    "keeps its value and its type."
)
def test_known_orders(student):
    """order_best_first on known trees with distinct leaves"""
    for tree, expected in KNOWN_ORDERS:
        assert same_tree(student.order_best_first(tree), expected)


@pytest.mark.hint(
    "A tree that is a single leaf comes back as that leaf, with its type; a one-child node keeps "
    "its child, and the nodes below it are still sorted."
)
def test_order_single_leaves_and_chains(student):
    """order_best_first on single leaves and one-child chains"""
    cases = [(5, 5), (-2.5, -2.5), ([7], [7]), ([[[-2]]], [[[-2]]]), ([[[1, 2]]], [[[2, 1]]])]
    for tree, expected in cases:
        assert same_tree(student.order_best_first(tree), expected)


@pytest.mark.points(2)
@pytest.mark.requires(*ORDER_CORRECT)
@pytest.mark.hint(
    "Only reorder: every node of the result must hold the same subtrees as the original node, "
    "and leaves keep their values and types. This check counts once order_best_first sorts the "
    "known trees correctly."
)
def test_order_keeps_the_tree(student, rng):
    """order_best_first keeps the shape, the leaves and the value"""
    for tree in mixed_trees(rng)[:20]:
        got = student.order_best_first(tree)
        assert shape(got) == shape(tree)
        assert leaf_multiset(got) == leaf_multiset(tree)
        assert canonical(got) == canonical(tree)
        assert plain_minimax(got) == plain_minimax(tree)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Sort by each child's minimax value (the player flips one level down), not by its first leaf"
    " or its size, and sort every node, not only the root; only reorder, keeping every subtree "
    "and leaf."
)
def test_order_is_best_first_everywhere(student, rng):
    """order_best_first sorts every node best-first"""
    for tree in mixed_trees(rng):
        assert_best_first_reordering(student.order_best_first(tree), tree)


@pytest.mark.hint(
    "Ties may come in any order, but the children must still be best-first by value, and the "
    "result must hold the same subtrees and leaves."
)
def test_order_tie_heavy(student, rng):
    """order_best_first on random trees with many ties"""
    for tree in tie_heavy_trees(rng):
        assert_best_first_reordering(student.order_best_first(tree), tree)


@pytest.mark.points(2)
@pytest.mark.hint(
    "After a correct best-first ordering (the same subtrees, only reordered), alpha-beta on a "
    "uniform tree with distinct leaves evaluates exactly minimal_leaves(b, d) leaves."
)
def test_order_meets_knuth_moore(student, rng):
    """alpha-beta on the best-first tree meets the Knuth-Moore bound"""
    # (3, 4) and (2, 6) are the README's shapes (17 and 15 leaves).
    shapes = [(3, 4), (2, 6), (2, 2), (3, 3), (4, 3), (3, 5), (4, 4), (5, 3), (2, 9), (6, 2)]
    shapes += [(rng.randint(2, 5), rng.randint(2, 4)) for _ in range(4)]
    for branching, depth in shapes:
        tree = distinct_uniform_tree(rng, branching, depth)
        got = student.order_best_first(tree)
        assert canonical(got) == canonical(tree)
        assert alpha_beta(got)[1] == knuth_moore(branching, depth)


@pytest.mark.points(2)
@pytest.mark.requires(*ORDER_CORRECT)
@pytest.mark.hint(
    "Leave the tree you are given exactly as it was: build new lists (sorted() or a copy), "
    "never list.sort() on the original, and return the reordered tree with the same subtrees. "
    "This check counts once order_best_first sorts the known trees correctly."
)
def test_order_does_not_mutate(student, rng):
    """order_best_first leaves its input unchanged"""
    trees = [
        [[3, 5, 2], [9, 1, 0], [7, 4, 8]],
        [3, [5, [1, 8]], [[2, 9], 0]],
        distinct_uniform_tree(rng, 3, 3),
        ragged_tree(rng, 6, (1, 2, 3), mixed_leaf, 0.25, RAGGED_MAX_LEAVES),
        uniform_tree(rng, 3, 4, few_values_leaf((0, 1, 2))),
    ]
    for tree in trees:
        original = copy.deepcopy(tree)
        result, (after,), _ = student.call_observed("order_best_first", tree)
        assert same_tree(after, original)
        assert canonical(result) == canonical(original)


@pytest.mark.hint(
    "Large trees must work too, sorted best-first by the same rules as small ones: compute each "
    "subtree's value once, on the way back up."
)
def test_order_larger_trees(student, rng):
    """order_best_first on larger random trees"""
    trees = [
        uniform_tree(rng, 4, 7, int_leaf),
        uniform_tree(rng, 3, 8, few_values_leaf((0, 1, 2, 3))),
        ragged_tree(rng, 12, (2, 3, 4, 5), mixed_leaf, 0.2, max_leaves=5000),
    ]
    for tree in trees:
        assert_best_first_reordering(student.order_best_first(tree), tree)


@pytest.mark.requires(*ORDER_CORRECT)
@pytest.mark.hint(
    "order_best_first checks its tree too: an empty list anywhere, or a leaf that is not an int "
    "or float (bool included), is a ValueError, even a tree that is a single bad leaf. This check "
    "counts once order_best_first sorts the known trees correctly."
)
def test_order_rejects_bad_trees(student):
    """order_best_first rejects bad trees"""
    for tree in EMPTY_SOMEWHERE + NOT_A_NUMBER:
        with pytest.raises(ValueError):
            student.order_best_first(tree)


# --------------------------------------------------------------------------
# minimal_leaves.
# --------------------------------------------------------------------------

@pytest.mark.points(2)
@pytest.mark.hint(
    "For odd depths the two exponents differ: ceil(d/2) is one more than floor(d/2). Use "
    "integer arithmetic only."
)
def test_minimal_leaves_formula(student, rng):
    """minimal_leaves matches the Knuth-Moore formula"""
    cases = [(b, d) for b in range(2, 7) for d in range(0, 9)]
    cases += [(rng.randint(2, 40), rng.randint(0, 30)) for _ in range(20)]
    for branching, depth in cases:
        got = student.minimal_leaves(branching, depth)
        assert type(got) is int
        assert got == knuth_moore(branching, depth)


@pytest.mark.hint(
    "A single move per node (branching 1) or a tree that is just a leaf (depth 0) still fit the "
    "formula; depth 1 means looking at every child."
)
def test_minimal_leaves_edges(student, rng):
    """minimal_leaves for branching 1, depth 0 and depth 1"""
    for depth in [0, 1, 2, 3, 50, 501]:
        assert student.minimal_leaves(1, depth) == 1
    for branching in [1, 2, 3, 17, 1000]:
        assert student.minimal_leaves(branching, 0) == 1
        assert student.minimal_leaves(branching, 1) == branching


@pytest.mark.hint("Use ints all the way: big answers must be exact, and the result must be an int.")
def test_minimal_leaves_big_numbers(student):
    """minimal_leaves is exact for large answers"""
    for branching, depth in [(2, 64), (2, 65), (10, 31), (10, 40), (7, 101), (1000, 9)]:
        got = student.minimal_leaves(branching, depth)
        assert type(got) is int
        assert got == knuth_moore(branching, depth)


@pytest.mark.requires(*MINIMAL_LEAVES_CORRECT)
@pytest.mark.hint(
    "Raise ValueError when branching < 1 or depth < 0, each on its own or both at once. This "
    "check counts once minimal_leaves matches the formula."
)
def test_minimal_leaves_rejects_bad_sizes(student):
    """minimal_leaves rejects branching < 1 and depth < 0"""
    for branching, depth in [(0, 0), (0, 3), (-1, 2), (-5, -5), (2, -1), (1, -1), (3, -10), (0, 4)]:
        with pytest.raises(ValueError):
            student.minimal_leaves(branching, depth)

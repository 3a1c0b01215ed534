"""Public checks for ex07: exactly the examples in the README."""

import pytest

WORKED_TREE = [[3, 5, 2], [9, 1, 0], [7, 4, 8]]


@pytest.mark.points(2)
@pytest.mark.hint(
    "pruned_fraction never stops early: add the cutoff (if alpha >= beta: break) to both loops."
)
def test_fixed_pruned_fraction(student):
    """fix pruned_fraction: the worked example skips 1 leaf of 9"""
    assert student.pruned_fraction(WORKED_TREE) == pytest.approx(1 / 9)


@pytest.mark.hint("The same leaves with the strongest branch first: 3 of the 9 leaves are skipped.")
def test_strongest_branch_first(student):
    """pruned_fraction with the strongest branch first: 3 leaves of 9"""
    assert student.pruned_fraction([[7, 4, 8], [9, 1, 0], [3, 5, 2]]) == pytest.approx(3 / 9)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Sort each inner list low to high (the rival minimises there), then sort the root's children "
    "by their values, high to low."
)
def test_order_worked_example(student):
    """order_best_first on the worked example, then pruned_fraction on the result"""
    ordered = student.order_best_first(WORKED_TREE)
    assert ordered == [[4, 7, 8], [2, 3, 5], [0, 1, 9]]
    assert student.pruned_fraction(ordered) == pytest.approx(4 / 9)


@pytest.mark.hint(
    "A leaf's value is itself, and the player flips at every level, whether a child is a leaf or "
    "a list."
)
def test_order_uneven_tree(student):
    """order_best_first on a tree with leaves at uneven depths"""
    tree = [3, [5, [1, 8]], [[2, 9], 0]]
    ordered = student.order_best_first(tree)
    assert ordered == [[5, [8, 1]], 3, [0, [9, 2]]]
    assert student.pruned_fraction(tree) == 0.0
    assert student.pruned_fraction(ordered) == pytest.approx(3 / 7)


@pytest.mark.hint("minimal_leaves is b**ceil(d/2) + b**floor(d/2) - 1, as an int.")
def test_minimal_leaves_examples(student):
    """minimal_leaves(3, 4), (2, 6) and (3, 2)"""
    assert student.minimal_leaves(3, 4) == 17
    assert student.minimal_leaves(2, 6) == 15
    assert student.minimal_leaves(3, 2) == 5


@pytest.mark.hint("A node needs at least one child: branching < 1 is a ValueError.")
def test_minimal_leaves_rejects_zero_branching(student):
    """minimal_leaves(0, 3) raises ValueError"""
    with pytest.raises(ValueError):
        student.minimal_leaves(0, 3)

"""Public checks for ex07: exactly the examples in the README.

A failed check on a tree also shows a picture of that tree, and the smallest tree the function gets
wrong (tree_picture.py).
"""

import pytest
from smallest_case import pictures_first
from tree_picture import fraction_picture, order_picture, smallest_wrong_picture

WORKED_TREE = [[3, 5, 2], [9, 1, 0], [7, 4, 8]]


def mirror(tree):
    """The tree with every list reversed."""
    return [mirror(child) for child in reversed(tree)] if isinstance(tree, list) else tree


@pytest.mark.points(2)
@pytest.mark.hint(
    "Compare the two columns of the picture below: find the first leaf your code evaluates that "
    "alpha-beta skips, and check which of the README's rules should have stopped the search before "
    "it. The answer is the share of the leaves skipped, not of those looked at."
)
def test_fixed_pruned_fraction(student, feedback):
    """fix pruned_fraction: the worked example skips 1 leaf of 9"""
    pictures = pictures_first(feedback, lambda: smallest_wrong_picture(student, "pruned_fraction"))
    got = student.pruned_fraction(WORKED_TREE)
    if got != pytest.approx(1 / 9):
        pictures.append(lambda: fraction_picture(student, WORKED_TREE))
    assert got == pytest.approx(1 / 9)
    assert student.pruned_fraction(mirror(WORKED_TREE)) == pytest.approx(4 / 9)


@pytest.mark.hint(
    "The same leaves with the strongest branch first: 3 of the 9 leaves are skipped, one in the "
    "middle branch and two in the last. Follow the search by hand with the README's rules and "
    "compare with the picture below; every leaf the search does not evaluate counts as skipped."
)
def test_strongest_branch_first(student, feedback):
    """pruned_fraction with the strongest branch first: 3 leaves of 9 (2 in a mirror)"""
    pictures = pictures_first(feedback, lambda: smallest_wrong_picture(student, "pruned_fraction"))
    tree = [[7, 4, 8], [9, 1, 0], [3, 5, 2]]
    got = student.pruned_fraction(tree)
    if got != pytest.approx(3 / 9):
        pictures.append(lambda: fraction_picture(student, tree))
    assert got == pytest.approx(3 / 9)
    assert student.pruned_fraction(mirror(tree)) == pytest.approx(2 / 9)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Sort each inner list low to high (the rival minimises there), then sort the root's children "
    "by their values, high to low; pruned_fraction must then skip 4 of the 9 leaves of the result."
)
def test_order_worked_example(student, feedback):
    """order_best_first on the worked example, then pruned_fraction on the result"""
    pictures = pictures_first(feedback, lambda: smallest_wrong_picture(student, "order_best_first", "pruned_fraction"))
    ordered = student.order_best_first(WORKED_TREE)
    if ordered != [[4, 7, 8], [2, 3, 5], [0, 1, 9]]:
        pictures.append(lambda: order_picture(WORKED_TREE))
    assert ordered == [[4, 7, 8], [2, 3, 5], [0, 1, 9]]
    got = student.pruned_fraction(ordered)
    if got != pytest.approx(4 / 9):
        pictures.append(lambda: fraction_picture(student, ordered))
    assert got == pytest.approx(4 / 9)


@pytest.mark.hint(
    "A leaf's value is itself, and the player flips at every level, whether a child is a leaf or "
    "a list. pruned_fraction counts the leaves at every depth: 0 of 7 skipped before the "
    "reordering, 3 of 7 after it."
)
def test_order_uneven_tree(student, feedback):
    """order_best_first on a tree with leaves at uneven depths"""
    pictures = pictures_first(feedback, lambda: smallest_wrong_picture(student, "order_best_first", "pruned_fraction"))
    tree = [3, [5, [1, 8]], [[2, 9], 0]]
    ordered = student.order_best_first(tree)
    if ordered != [[5, [8, 1]], 3, [0, [9, 2]]]:
        pictures.append(lambda: order_picture(tree))
    assert ordered == [[5, [8, 1]], 3, [0, [9, 2]]]
    got = student.pruned_fraction(tree)
    if got != 0.0:
        pictures.append(lambda: fraction_picture(student, tree))
    assert got == 0.0
    got = student.pruned_fraction(ordered)
    if got != pytest.approx(3 / 7):
        pictures.append(lambda: fraction_picture(student, ordered))
    assert got == pytest.approx(3 / 7)


@pytest.mark.hint(
    "In a best-first tree, the leaves alpha-beta must see are those that prove MAX's value and "
    "those that prove MIN's, less the one leaf they share. Check your count on trees you can draw: "
    "(3, 2) gives 5, (2, 3) gives 5. Keep to integer arithmetic: the answer is an int."
)
def test_minimal_leaves_examples(student):
    """minimal_leaves(3, 4), (2, 6) and (3, 2)"""
    assert student.minimal_leaves(3, 4) == 17
    assert student.minimal_leaves(2, 6) == 15
    assert student.minimal_leaves(3, 2) == 5


# Raising for bad sizes pays only once minimal_leaves computes: code that raises ValueError for
# every input must not earn it.
@pytest.mark.requires("test_minimal_leaves_examples")
@pytest.mark.hint(
    "A node needs at least one child: branching < 1 is a ValueError. This check counts once "
    "minimal_leaves gets the README's examples right."
)
def test_minimal_leaves_rejects_zero_branching(student):
    """minimal_leaves(0, 3) raises ValueError"""
    with pytest.raises(ValueError):
        student.minimal_leaves(0, 3)

"""Public checks for ex04: exactly the examples in the README.

A failed check on a tree also shows a picture of alpha-beta on that tree, and the smallest tree the
function gets wrong (tree_picture.py).
"""

import pytest
from smallest_case import pictures_first
from tree_picture import counts_picture, smallest_wrong_picture, values_picture

WORKED_TREE = [[3, 5, 2], [9, 1, 0], [7, 4, 8]]


def mirror(tree):
    """The tree with every list reversed."""
    return [mirror(child) for child in reversed(tree)] if isinstance(tree, list) else tree


def report(value, visited, pruned, total):
    """The dict best_counter_bid should return."""
    return {"value": value, "nodes_visited": visited, "nodes_pruned": pruned, "total_leaves": total}


@pytest.mark.points(3)
@pytest.mark.hint(
    "Return a dict with the four keys. Walk through the README's worked example by hand: the "
    "value is 4, and only the 0 in the middle branch is skipped (8 leaves visited, 1 pruned, 9 "
    "in all)."
)
def test_worked_example(student, feedback):
    """worked example [[3,5,2],[9,1,0],[7,4,8]], and in a mirror"""
    pictures = pictures_first(feedback, lambda: smallest_wrong_picture(student, "best_counter_bid"))
    tree = [[3, 5, 2], [9, 1, 0], [7, 4, 8]]
    got = student.best_counter_bid(tree)
    if got != report(4, 8, 1, 9):
        pictures.append(lambda: counts_picture(student, tree))
    assert got == report(4, 8, 1, 9)
    assert student.best_counter_bid(mirror(tree)) == report(4, 5, 4, 9)


@pytest.mark.hint(
    "The same leaves in another order give the same value, 4, but less work: the 0 of the middle "
    "branch and the 5 and the 2 of the last one are skipped."
)
def test_worked_example_reordered(student, feedback):
    """the strongest branch first: [[7,4,8],[9,1,0],[3,5,2]], and in a mirror"""
    pictures = pictures_first(feedback, lambda: smallest_wrong_picture(student, "best_counter_bid"))
    tree = [[7, 4, 8], [9, 1, 0], [3, 5, 2]]
    got = student.best_counter_bid(tree)
    if got != report(4, 6, 3, 9):
        pictures.append(lambda: counts_picture(student, tree))
    assert got == report(4, 6, 3, 9)
    assert student.best_counter_bid(mirror(tree)) == report(4, 7, 2, 9)


@pytest.mark.hint(
    "The search stops when alpha >= beta, so it also stops when they are equal: the value is 3 "
    "and only the 1 is skipped."
)
def test_equal_values_cut_off(student, feedback):
    """a tie is enough for a cutoff: [[3,5],[3,1]], and in a mirror"""
    pictures = pictures_first(feedback, lambda: smallest_wrong_picture(student, "best_counter_bid"))
    tree = [[3, 5], [3, 1]]
    got = student.best_counter_bid(tree)
    if got != report(3, 3, 1, 4):
        pictures.append(lambda: counts_picture(student, tree))
    assert got == report(3, 3, 1, 4)
    assert student.best_counter_bid(mirror(tree)) == report(3, 4, 0, 4)


@pytest.mark.hint(
    "minimax_with_pruning returns just the value (a number, not a dict), for whichever player "
    "the flag says is at the root: True means the root maximises, False that it minimises."
)
def test_minimax_with_pruning_value(student, feedback):
    """minimax_with_pruning on the worked example, either player at the root"""
    pictures = pictures_first(feedback, lambda: smallest_wrong_picture(student, "minimax_with_pruning"))
    got = student.minimax_with_pruning(WORKED_TREE, True)
    if got != 4:
        pictures.append(lambda: values_picture(WORKED_TREE, maximizing=True))
    assert got == 4
    got = student.minimax_with_pruning(WORKED_TREE, False)
    if got != 5:
        pictures.append(lambda: values_picture(WORKED_TREE, maximizing=False))
    assert got == 5


# Raising is easy without computing anything: the points come once both functions answer the
# worked example right.
@pytest.mark.requires("test_worked_example", "test_minimax_with_pruning_value")
@pytest.mark.hint(
    "Check the whole tree before searching, in both functions: an empty list or a leaf that is "
    "not a number is a ValueError. This check counts once both functions get the worked example "
    "right."
)
def test_bad_trees_raise_value_error(student):
    """an empty list or a non-number leaf raises ValueError"""
    with pytest.raises(ValueError):
        student.best_counter_bid([[1, 2], []])
    with pytest.raises(ValueError):
        student.minimax_with_pruning([1, "2"], True)

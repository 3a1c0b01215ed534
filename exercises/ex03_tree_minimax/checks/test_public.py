"""Public checks for ex03: exactly the examples in the README.

A failed check also shows the smallest tree the function gets wrong, drawn (tree_picture.py).
"""

import pytest
from tree_picture import smallest_wrong_picture

WORKED_TREE = [[3, 5, 2], [9, 1, 0], [7, 4, 8]]
UNEVEN_TREE = [3, [5, [1, 8]], [[2, 9], 0]]


@pytest.mark.hint("Count only the numbers, not the lists; a single number is a tree with 1 leaf.")
def test_count_leaves_examples(student, feedback):
    """count_leaves on the README's trees"""
    feedback.on_failure(lambda: smallest_wrong_picture(student, "count_leaves"))
    assert student.count_leaves([[1, 2], [3, 4]]) == 4
    assert student.count_leaves(WORKED_TREE) == 9
    assert student.count_leaves(UNEVEN_TREE) == 7
    assert student.count_leaves(5) == 1


@pytest.mark.points(2)
@pytest.mark.hint(
    "The root maximises, the level below minimises, and so on: flip the player at every level. "
    "With maximizing=False the root minimises instead, and without the argument it maximises."
)
def test_minimax_worked_example(student, feedback):
    """minimax on the worked example [[3,5,2],[9,1,0],[7,4,8]]"""
    feedback.on_failure(lambda: smallest_wrong_picture(student, "minimax"))
    assert student.minimax(WORKED_TREE) == 4
    assert student.minimax(WORKED_TREE, True) == 4
    assert student.minimax(WORKED_TREE, False) == 5


@pytest.mark.hint(
    "Whose turn it is depends on the level, not on whether a child is a leaf or a list, and "
    "maximizing=False makes the root minimise. A bare number is a tree too, worth itself."
)
def test_minimax_uneven_tree(student, feedback):
    """minimax on the uneven tree [3,[5,[1,8]],[[2,9],0]]"""
    feedback.on_failure(lambda: smallest_wrong_picture(student, "minimax"))
    assert student.minimax(UNEVEN_TREE) == 5
    assert student.minimax(UNEVEN_TREE, False) == 2
    assert student.minimax(5) == 5


@pytest.mark.points(2)
@pytest.mark.hint(
    "Value each child as a minimising node and return the index (not the value) of the best; "
    "on a tie keep the first."
)
def test_best_child_examples(student, feedback):
    """best_child on the worked example and on a tie"""
    feedback.on_failure(lambda: smallest_wrong_picture(student, "best_child"))
    assert student.best_child(WORKED_TREE) == 2
    assert student.best_child([[1, 2], [6, 3], [3, 7]]) == 1


# Raising ValueError is also what code that computes nothing does, so this pays only once the
# three functions it calls get the README's examples right.
@pytest.mark.requires("test_count_leaves_examples", "test_minimax_worked_example",
                      "test_minimax_uneven_tree", "test_best_child_examples")
@pytest.mark.hint(
    "An empty list or a leaf that is not an int or float is a ValueError (test for bool first: "
    "True is an int in Python), and best_child needs a list of children. Raise ValueError, not "
    "another error. This check counts once all three functions get the README's examples right."
)
def test_bad_trees_raise_value_error(student):
    """bad trees raise ValueError"""
    with pytest.raises(ValueError):
        student.count_leaves([[1, 2], []])
    with pytest.raises(ValueError):
        student.minimax([1, True])
    with pytest.raises(ValueError):
        student.best_child(5)

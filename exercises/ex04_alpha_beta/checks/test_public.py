"""Public checks for ex04: exactly the examples in the README."""

import pytest

WORKED_TREE = [[3, 5, 2], [9, 1, 0], [7, 4, 8]]


def report(value, visited, pruned, total):
    """The dict best_counter_bid should return."""
    return {"value": value, "nodes_visited": visited, "nodes_pruned": pruned, "total_leaves": total}


@pytest.mark.points(3)
@pytest.mark.hint(
    "Walk through the README's worked example by hand: only the 0 in the middle branch is "
    "skipped."
)
def test_worked_example(student):
    """worked example [[3,5,2],[9,1,0],[7,4,8]]"""
    got = student.best_counter_bid([[3, 5, 2], [9, 1, 0], [7, 4, 8]])
    assert got == report(4, 8, 1, 9)


@pytest.mark.hint("The same leaves in another order give the same value but less work.")
def test_worked_example_reordered(student):
    """the strongest branch first: [[7,4,8],[9,1,0],[3,5,2]]"""
    got = student.best_counter_bid([[7, 4, 8], [9, 1, 0], [3, 5, 2]])
    assert got == report(4, 6, 3, 9)


@pytest.mark.hint("The search stops when alpha >= beta, so it also stops when they are equal.")
def test_equal_values_cut_off(student):
    """a tie is enough for a cutoff: [[3,5],[3,1]]"""
    got = student.best_counter_bid([[3, 5], [3, 1]])
    assert got == report(3, 3, 1, 4)


@pytest.mark.hint(
    "minimax_with_pruning returns just the value, for whichever player the flag says is at the "
    "root."
)
def test_minimax_with_pruning_value(student):
    """minimax_with_pruning on the worked example, either player at the root"""
    assert student.minimax_with_pruning(WORKED_TREE, True) == 4
    assert student.minimax_with_pruning(WORKED_TREE, False) == 5


@pytest.mark.hint(
    "Check the whole tree before searching: an empty list or a leaf that is not a number is a "
    "ValueError."
)
def test_bad_trees_raise_value_error(student):
    """an empty list or a non-number leaf raises ValueError"""
    with pytest.raises(ValueError):
        student.best_counter_bid([[1, 2], []])
    with pytest.raises(ValueError):
        student.minimax_with_pruning([1, "2"], True)

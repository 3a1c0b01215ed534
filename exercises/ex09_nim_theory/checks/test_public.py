"""Public checks for ex09: exactly the examples in the README."""

import pytest


@pytest.mark.hint("The nim-sum is the XOR (^) of all the pile sizes, starting from 0.")
def test_nim_sum_examples(student):
    """nim_sum of (2,3,5), (1,2,3) and (0,0,0)"""
    assert student.nim_sum((2, 3, 5)) == 4
    assert student.nim_sum((1, 2, 3)) == 0
    assert student.nim_sum((0, 0, 0)) == 0


@pytest.mark.points(2)
@pytest.mark.hint(
    "The second fact behind Bouton's rule in the README says which pile can shrink, and to what, "
    "so that the nim-sum becomes 0; return the whole new position as a tuple and check that its "
    "nim-sum is 0. In misere play, when at most one pile has 2 or more counters, shrink it to 0 "
    "or 1 so that an odd number of 1-piles is left."
)
def test_winning_move_examples(student):
    """winning moves from (2,3,5), (5,1) and (1,1,1)"""
    assert student.winning_move((2, 3, 5)) == (2, 3, 1)
    assert student.winning_move((2, 3, 5), misere=True) == (2, 3, 1)
    assert student.winning_move((5, 1)) == (1, 1)
    assert student.winning_move((5, 1), misere=True) == (0, 1)
    assert student.winning_move((1, 1, 1)) in {(0, 1, 1), (1, 0, 1), (1, 1, 0)}


# Answering None is easy without computing anything: the points come once winning_move finds
# the README's winning moves.
@pytest.mark.points(2)
@pytest.mark.requires("test_winning_move_examples")
@pytest.mark.hint(
    "Return None when no move wins: a nim-sum of 0 (outside the misere endgame), an odd "
    "number of 1-piles in the misere endgame, or all piles empty. This check counts once "
    "winning_move finds the README's winning moves."
)
def test_winning_move_none(student):
    """None when no move wins"""
    assert student.winning_move((2, 3, 1)) is None
    assert student.winning_move((1, 1, 1), misere=True) is None
    assert student.winning_move((0, 0, 0)) is None


@pytest.mark.points(2)
@pytest.mark.hint(
    "Use the nim-sum rule, not a search: these piles have 10**18 counters. In misere play a "
    "single big pile is shrunk to 1; two equal piles have nim-sum 0, so None."
)
def test_winning_move_huge_piles(student):
    """huge piles: (10**18,) in misere play and (10**18, 10**18)"""
    assert student.winning_move((10**18,), misere=True) == (1,)
    assert student.winning_move((10**18, 10**18)) is None


@pytest.mark.points(2)
@pytest.mark.hint(
    "Build the values upwards: 0, 1 and 2 have no splits and are worth 0; every larger pile needs "
    "the values of both parts of each of its legal splits, combined as in Nim, and then their "
    "mex. Compare your values with the README's table for 3 to 6."
)
def test_grundy_first_values(student):
    """grundy(0) to grundy(10)"""
    assert [student.grundy(n) for n in range(11)] == [0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0]


@pytest.mark.points(2)
@pytest.mark.hint(
    "XOR the Grundy values of the piles; return None when that is 0, else a split "
    "(counters - take, take) that brings it to 0."
)
def test_split_winning_move_examples(student):
    """split_winning_move on (6,), (7,) and (1,2)"""
    assert student.split_winning_move((6,)) == (4, 2)
    assert student.split_winning_move((7,)) is None
    assert student.split_winning_move((1, 2)) is None


# Raising is easy without computing anything: the points come once nim_sum and grundy answer the
# README's examples right.
@pytest.mark.requires("test_nim_sum_examples", "test_grundy_first_values")
@pytest.mark.hint(
    "A negative pile raises ValueError, in nim_sum (any pile of the tuple) and in grundy. This "
    "check counts once nim_sum and grundy get the README's examples right."
)
def test_negative_piles_raise_value_error(student):
    """a negative pile raises ValueError"""
    with pytest.raises(ValueError):
        student.nim_sum((3, -1))
    with pytest.raises(ValueError):
        student.grundy(-1)

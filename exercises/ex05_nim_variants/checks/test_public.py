"""Public checks for ex05: exactly the examples in the README."""

import pytest


def test_nim_moves_example(student):
    """nim_moves((2, 3, 5)) in order"""
    assert student.nim_moves((2, 3, 5)) == [
        (0, 3, 5), (1, 3, 5), (2, 0, 5), (2, 1, 5), (2, 2, 5),
        (2, 3, 0), (2, 3, 1), (2, 3, 2), (2, 3, 3), (2, 3, 4),
    ]


def test_split_moves_examples(student):
    """split_moves((6,)) and split_moves((1, 4))"""
    assert student.split_moves((6,)) == [(5, 1), (4, 2)]
    assert student.split_moves((1, 4)) == [(1, 3, 1)]


def test_minimax_examples(student):
    """minimax on one counter and on a finished game"""
    assert student.minimax((1,), True, "misere") == -1
    assert student.minimax((1,), True, "normal") == 1
    assert student.minimax((0, 0), True, "misere") == 1
    assert student.minimax((0, 0), True, "normal") == -1
    assert student.minimax((1, 2), False, "split") == 1


@pytest.mark.points(2)
def test_best_move_misere_examples(student):
    """best_move in misère Nim: (2, 3, 5) and (2, 3, 1)"""
    assert student.best_move((2, 3, 5), "misere") == (1, (2, 3, 1))
    assert student.best_move((2, 3, 1), "misere") == (-1, (2, 3, 0))


def test_best_move_normal_example(student):
    """best_move in normal Nim: (2, 3, 5) and (5, 1)"""
    assert student.best_move((2, 3, 5), "normal") == (1, (2, 3, 1))
    assert student.best_move((5, 1), "normal") == (1, (1, 1))


@pytest.mark.points(2)
def test_best_move_split_examples(student):
    """best_move in the split game: (6,) and (7,)"""
    assert student.best_move((6,), "split") == (1, (4, 2))
    assert student.best_move((7,), "split") == (-1, (6, 1))


# Raising is easy without computing anything: the points come once each function called here
# also answers its examples right.
@pytest.mark.requires("test_best_move_misere_examples", "test_minimax_examples", "test_nim_moves_example")
@pytest.mark.hint(
    "best_move on a game with no move left, minimax with a variant other than 'misere', "
    "'normal' and 'split', and nim_moves with a negative pile each raise ValueError. This check "
    "counts once best_move, minimax and nim_moves also get their examples right."
)
def test_bad_input_raises_value_error(student):
    """a finished game, an unknown variant and a negative pile raise ValueError"""
    with pytest.raises(ValueError):
        student.best_move((0, 0, 0), "misere")
    with pytest.raises(ValueError):
        student.minimax((1, 2), True, "chess")
    with pytest.raises(ValueError):
        student.nim_moves((3, -1))

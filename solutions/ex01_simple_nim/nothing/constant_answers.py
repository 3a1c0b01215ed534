"""Computes nothing: minimax always answers 1, and best_move takes one counter with that score.

The two agree with each other on every pile, which is no reason to pay them.
"""


def minimax(state, max_turn):
    """Always 1."""
    return 1


def best_move(state):
    """Always the score 1 and one counter fewer."""
    return (1, state - 1)

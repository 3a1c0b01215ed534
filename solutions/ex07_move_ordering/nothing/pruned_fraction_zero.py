"""Computes nothing: pruned_fraction is always 0.0, which is right only where no node stops early."""


def pruned_fraction(tree):
    """Always 0.0."""
    return 0.0


def order_best_first(tree):
    """Not written."""
    raise NotImplementedError


def minimal_leaves(branching, depth):
    """Not written."""
    raise NotImplementedError

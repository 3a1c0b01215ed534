"""ex11: iterative deepening for Connect-4, against the clock.

The rules and a fixed heuristic are given in connect_four_rules.py, beside
this file: import them, and do not edit that file (the grader uses its own
copy). A board is a tuple of 6 strings of 7 characters, the top row first,
as in ex08.

Fill in the three functions below; the places to work on are marked
"# TODO". Keep the names and the signatures exactly as they are, because the
checks call them and count what your search does. README.md pins every
convention the counts depend on. Then run `grade ex11`.
"""

from connect_four_rules import WIN, drop, evaluate, legal_moves, to_move, winner  # noqa: F401

# The order every node tries its moves in (after `first`, at the root only).
CENTRE_OUT = (3, 2, 4, 1, 5, 0, 6)


def search(board, depth, first=None):
    """Alpha-beta ``depth`` plies ahead for the side to move; returns (col, value, leaves).

    ``col`` is the best column (the first to reach the best value), ``value``
    its value for the side to move, and ``leaves`` how many positions were
    scored without searching below them. ``first``, when it is a column with
    room, is tried first at the root.

    Raises:
        ValueError: for a bad board, a game that is over, a ``depth`` that is
            not an int of at least 1, or a ``first`` that is not None or an
            int from 0 to 6 (a bool is neither a depth nor a column).

    Examples:
        >>> from connect_four_rules import EMPTY_BOARD
        >>> search(EMPTY_BOARD, 1)
        (3, 3, 7)
    """
    # TODO: check the arguments.
    # TODO: try each root move in order, with alpha-beta below it, and count the leaves.
    raise NotImplementedError("search is not written yet")


def deepen(board, max_depth):
    """``search`` at depths 1 to ``max_depth``; returns a list of (depth, col, value, leaves).

    Each depth gets the previous depth's column as ``first``.
    """
    # TODO: one search per depth, passing the last column on.
    raise NotImplementedError("deepen is not written yet")


def timed_move(board, seconds):
    """Deepen until the time budget would run out; return the column of the deepest finished search.

    Always at least depth 1's column, never an illegal move, and back within
    ``seconds`` plus 0.1 s. Look at the clock inside the search: one depth
    can take many times the budget.
    """
    # TODO: search depth 1, then deeper and deeper while time is left; stop a
    # TODO: search that runs past the deadline and keep the last finished one.
    raise NotImplementedError("timed_move is not written yet")

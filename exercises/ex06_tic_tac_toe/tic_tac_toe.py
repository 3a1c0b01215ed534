"""ex06: perfect tic-tac-toe with minimax.

A board is a string of exactly 9 characters, read row by row, each one
"X", "O" or " " (a space for an empty square). The squares are numbered

     0 | 1 | 2
    ---+---+---
     3 | 4 | 5
    ---+---+---
     6 | 7 | 8

so "XXXOO    " has X on the top row and O on squares 3 and 4.

X always moves first. The side to move therefore follows from the counts:
X when both sides have the same number of pieces, O when X has one more.

Fill in the four functions below; the places to work on are marked
"# TODO". Keep the names and the signatures exactly as they are, because the
checks call them. You may add helper functions of your own (a list of the 8
lines, a "whose turn is it" helper, ...). Read README.md, then run
`grade ex06`.
"""


def winner(board):
    """Return "X" or "O" if that side has three in a line, otherwise None.

    The 8 lines are the 3 rows, the 3 columns and the 2 diagonals (squares
    0-4-8 and 2-4-6).

    Only the board's length and characters are checked. The piece counts are
    not, so a hand-made board such as "XXX      " is fine here.

    Raises:
        ValueError: if the board is not a string of exactly 9 characters, or
            holds a character other than "X", "O" and " ".

    Examples:
        >>> winner("XXXOO    ")
        'X'
        >>> winner("         ") is None
        True
    """
    # TODO: check the length and the characters (ValueError otherwise).
    # TODO: look at each of the 8 lines and return the side that fills one.
    raise NotImplementedError("winner is not written yet")


def score(board, ai):
    """Score a finished board from the point of view of ``ai`` ("X" or "O").

    A board is finished when a side has a line or when no square is empty.

    Returns:
        +1 if ``ai`` has won, -1 if the other side has won, 0 for a draw (a
        full board with no line).

    Like ``winner``, this checks only the board's length and characters,
    not the piece counts.

    Raises:
        ValueError: if the board is malformed (as in ``winner``), if ``ai`` is
            not exactly "X" or "O", or if the game is not over yet.

    Examples:
        >>> score("XXXOO    ", "X")
        1
        >>> score("XXXOO    ", "O")
        -1
    """
    # TODO: check the board and ai.
    # TODO: raise ValueError if nobody has a line and some square is empty.
    # TODO: return +1, -1 or 0 for ai.
    raise NotImplementedError("score is not written yet")


def minimax(board, ai):
    """Return the value of ``board`` for ``ai`` when both sides play perfectly.

    The side to move follows from the counts (X when they are equal). On
    ``ai``'s turns the search takes the best value for ``ai`` (the maximum);
    on the other side's turns it takes the worst one (the minimum). On a
    finished board the value is simply its ``score``.

    Returns:
        +1 if ``ai`` can force a win, -1 if the other side can, 0 if perfect
        play ends in a draw.

    Raises:
        ValueError: if the board is malformed (as in ``winner``), if ``ai`` is
            not exactly "X" or "O", or if the position is impossible: X must
            have as many pieces as O or exactly one more, and at most one side
            may have a line.

    Examples:
        >>> minimax("         ", "X")
        0
        >>> minimax("XX OO    ", "O")
        -1
    """
    # TODO: check the board, the counts, "at most one winner", and ai.
    # TODO: a finished board is worth its score.
    # TODO: otherwise, try every empty square for the side to move, work out
    #       the value of each new board, and take the max on ai's turn, the
    #       min on the other side's turn.
    raise NotImplementedError("minimax is not written yet")


def best_move(board):
    """Return the best square (0 to 8) for the side to move.

    The chosen square must be empty, and the position it leads to must be
    worth as much to the side to move as the best it can force. When several
    squares are equally good, any of them is accepted.

    Raises:
        ValueError: for the same malformed or impossible boards as
            ``minimax``, and when the game is already over (a side has a line,
            or the board is full).

    Examples:
        >>> best_move("XX OO    ")
        2
        >>> best_move("XX  O    ")
        2
    """
    # TODO: check the board and the counts, as minimax does.
    # TODO: raise ValueError if the game is already over.
    # TODO: for each empty square, put the mover's mark there and ask minimax
    #       what the new board is worth to the mover; return a best square.
    raise NotImplementedError("best_move is not written yet")

"""ex08: Connect-4 with a depth-limited alpha-beta search.

A board is a tuple of 6 strings of 7 characters, the TOP row first:

    (".......",
     ".......",
     ".......",
     ".......",
     "...O...",
     "..XX...")      # the bottom row is board[5]

"." is an empty cell, "X" is the player who moved first and "O" the player
who moved second, so the side to move follows from the counts: X when both
have the same number of pieces, O when X has one more. Columns are numbered
0 to 6 from the left, and a piece dropped into a column falls to the lowest
empty cell of that column.

Fill in the five functions below; the places to work on are marked "# TODO".
Keep the names and the signatures exactly as they are, because the checks
call them. You may add helper functions and constants of your own. Read
README.md for the rules and the examples, then run `grade ex08`.
"""


def legal_moves(board):
    """Return the columns that still have room, in ascending order.

    Args:
        board: a tuple of 6 strings of 7 characters, each ".", "X" or "O".

    Only the shape and the characters of the board are checked, not the
    piece counts. On a finished game this still lists every column whose top
    cell is empty.

    Returns:
        A list of ints from 0 to 6, smallest first.

    Raises:
        ValueError: if the board is not a tuple of 6 strings of 7 characters
            from ".XO".

    Example:
        >>> legal_moves(("X......", "O......", "X......", "O......", "X......", "O......"))
        [1, 2, 3, 4, 5, 6]
        >>> legal_moves((".......",) * 6)
        [0, 1, 2, 3, 4, 5, 6]
    """
    # TODO: check the shape and the characters of the board.
    # TODO: a column has room while its top cell (row 0) is empty.
    raise NotImplementedError("legal_moves is not written yet")


def drop(board, col):
    """Return a new board: the side to move drops a piece into column ``col``.

    The piece lands on the lowest empty cell of the column. The board you are
    given is not changed (tuples and strings cannot be), and the result is a
    tuple of 6 strings again.

    Args:
        board: a board that could arise in a game.
        col: the column, an int from 0 to 6.

    Returns:
        The board after the move.

    Raises:
        ValueError: if the board has the wrong shape or characters, if its
            counts are impossible (X must have as many pieces as O or one
            more) or both players have four in a row, if ``col`` is not an
            int from 0 to 6, if the column is full, or if the game is already
            over (someone has four in a row).

    Example:
        >>> drop((".......",) * 6, 3)
        ('.......', '.......', '.......', '.......', '.......', '...X...')
    """
    # TODO: check the board: shape, characters, counts, at most one winner.
    # TODO: work out whose turn it is from the counts.
    # TODO: reject a bad column, a full column and a finished game.
    # TODO: find the lowest empty cell of the column and build the new tuple of strings.
    raise NotImplementedError("drop is not written yet")


def winner(board):
    """Return "X" or "O" if that player has four in a row, otherwise None.

    A line counts in all four directions: across, up and down, and along
    both diagonals. Only the shape and the characters of the board are
    checked, so hand-made boards work too.

    Raises:
        ValueError: if the board is not a tuple of 6 strings of 7 characters
            from ".XO".

    Example:
        >>> winner((".......",) * 2 + ("O......", "O......", "OXXX...", "OXXX..."))
        'O'
    """
    # TODO: check the shape and the characters of the board.
    # TODO: look at every group of four cells in a line, in all four directions.
    raise NotImplementedError("winner is not written yet")


def evaluate(board, player):
    """Return your own heuristic score of ``board`` for ``player`` ("X" or "O").

    Higher means better for ``player``. The score must be an int or a float
    (not a bool), and a board that ``player`` has won must score higher than
    a board that ``player`` has lost. Apart from that, the heuristic is yours
    to design: README.md describes a simple one that works well.

    Only the shape and the characters of the board are checked, not the
    piece counts.

    Raises:
        ValueError: if the board is not a tuple of 6 strings of 7 characters
            from ".XO", or if ``player`` is not "X" or "O".
    """
    # TODO: check the board and the player.
    # TODO: a won board scores very high and a lost one very low.
    # TODO: otherwise add up points for promising groups of four (and the centre column, if you like).
    raise NotImplementedError("evaluate is not written yet")


def best_move(board, depth):
    """Return the column the side to move should play, looking ``depth`` plies ahead.

    Use minimax with alpha-beta pruning, limited to ``depth`` plies (one ply
    is one move by one player). A position where someone has four in a row
    ends that line of play and is scored as a win or a loss before anything
    else; a full board is a draw; positions at the depth limit are scored
    with ``evaluate`` from the point of view of the player choosing the move.

    Args:
        board: a board that could arise in a game, with the game not over.
        depth: how many plies to look ahead, an int of at least 1.

    Returns:
        A column from 0 to 6 that is not full.

    Raises:
        ValueError: if the board has the wrong shape or characters, its
            counts are impossible or both players have four in a row, the
            game is already over or the board is full, or ``depth`` is not an
            int of at least 1.

    Example:
        >>> board = (".......",) * 4 + ("OO.....", "XXX..O.")
        >>> best_move(board, 1)     # X takes the win
        3
    """
    # TODO: check the board and the depth; find whose turn it is.
    # TODO: for each legal column, score the board it leads to with a depth-limited alpha-beta search.
    # TODO: in the search, score wins and losses first, then a full board, then evaluate() at depth 0.
    # TODO: return the column with the best score.
    raise NotImplementedError("best_move is not written yet")

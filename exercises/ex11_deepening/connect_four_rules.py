"""Connect-4's rules and a fixed heuristic, given for ex11: import them, never edit them.

A board is a tuple of 6 strings of 7 characters, the top row first. "." is an empty cell, "X"
moved first and "O" second, so the side to move follows from the counts. A piece dropped into a
column falls to the lowest empty cell of that column. Four in a row, in any direction, wins.

    from connect_four_rules import WIN, drop, evaluate, legal_moves, winner
"""

import itertools

ROWS, COLS = 6, 7
EMPTY = "."
EMPTY_BOARD = (EMPTY * COLS,) * ROWS

# A won position scores WIN (and more for a quicker win, in ex11's search); every heuristic score
# lies far below it.
WIN = 1_000_000


def _windows():
    """Every four cells in a line, as positions in the 42-character string "".join(board): 69 of them."""
    found = []
    for row in range(ROWS):
        for col in range(COLS):
            for d_row, d_col in ((0, 1), (1, 0), (1, 1), (-1, 1)):
                cells = [(row + k * d_row, col + k * d_col) for k in range(4)]
                if all(0 <= r < ROWS and 0 <= c < COLS for r, c in cells):
                    found.append(tuple(r * COLS + c for r, c in cells))
    return tuple(found)


WINDOWS = _windows()
# Heuristic points of a window that holds k pieces of one side and none of the other, by k.
WINDOW_POINTS = (0, 0, 2, 5, 0)
# Points of each piece in the centre column.
CENTRE_POINTS = 3


def _window_values():
    """X's points for each of the 81 ways a window can be filled, keyed by its four characters."""
    values = {}
    for cells in itertools.product((EMPTY, "X", "O"), repeat=4):
        xs, os = cells.count("X"), cells.count("O")
        values["".join(cells)] = WINDOW_POINTS[xs] if os == 0 else -WINDOW_POINTS[os] if xs == 0 else 0
    return values


# Looked up rather than counted at every window: evaluate runs at every leaf of every search.
WINDOW_VALUES = _window_values()


def _lines():
    """Every row, column and diagonal of four cells or more, as a slice of the flat board."""
    found = []
    for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for row in range(ROWS):
            for col in range(COLS):
                if 0 <= row - d_row < ROWS and 0 <= col - d_col < COLS:
                    continue  # not the first cell of its line
                length = 0
                while 0 <= row + length * d_row < ROWS and 0 <= col + length * d_col < COLS:
                    length += 1
                if length >= 4:
                    step = d_row * COLS + d_col
                    start = row * COLS + col
                    found.append(slice(start, start + (length - 1) * step + 1, step))
    return tuple(found)


# evaluate cuts the 69 windows out of the lines joined by "|" (see _window_starts): a slice each,
# where picking four cells one by one would cost evaluate, which runs at every leaf, twice as long.
LINE_SLICES = _lines()


def _window_starts():
    """Where each window of four begins in the lines joined by "|"."""
    starts, offset = [], 0
    for line in LINE_SLICES:
        length = len(range(ROWS * COLS)[line])
        starts.extend(range(offset, offset + length - 3))
        offset += length + 1
    return tuple(starts)


WINDOW_STARTS = _window_starts()


def _check(board):
    """Raise ValueError unless `board` is a tuple of 6 strings of 7 characters '.', 'X' or 'O'."""
    if type(board) is not tuple or len(board) != ROWS:
        raise ValueError(f"a board is a tuple of {ROWS} strings, not {board!r}")
    for index, row in enumerate(board):
        if type(row) is not str or len(row) != COLS or set(row) - {EMPTY, "X", "O"}:
            raise ValueError(f"row {index} is {row!r}: a row is a str of {COLS} characters '.', 'X' or 'O'")


def _owners(flat):
    """The sides that have four in a row on the flat board."""
    return {flat[a] for a, b, c, d in WINDOWS if flat[a] != EMPTY and flat[a] == flat[b] == flat[c] == flat[d]}


def to_move(board):
    """'X' or 'O', the side to move; ValueError for a bad board or counts X-first play cannot reach."""
    _check(board)
    flat = "".join(board)
    xs, os = flat.count("X"), flat.count("O")
    if xs - os not in (0, 1):
        raise ValueError(f"{xs} X and {os} O: X moves first, so X has as many pieces as O or one more")
    if len(_owners(flat)) == 2:
        raise ValueError("both X and O have four in a row")
    return "X" if xs == os else "O"


def legal_moves(board):
    """The columns that are not full, in ascending order."""
    _check(board)
    return [col for col in range(COLS) if board[0][col] == EMPTY]


def winner(board):
    """'X' or 'O' if that side has four in a row, else None."""
    _check(board)
    owners = _owners("".join(board))
    return owners.pop() if len(owners) == 1 else None


def drop(board, col):
    """The board after the side to move drops a piece into column `col`.

    Raises ValueError for a bad board, a column that is not an int from 0 to 6, a full column, or
    a game that is over.
    """
    piece = to_move(board)
    if type(col) is not int or not 0 <= col < COLS:
        raise ValueError(f"a column is an int from 0 to 6, not {col!r}")
    if winner(board) is not None:
        raise ValueError("the game is over")
    for row in range(ROWS - 1, -1, -1):
        if board[row][col] == EMPTY:
            line = board[row]
            return board[:row] + (line[:col] + piece + line[col + 1:],) + board[row + 1:]
    raise ValueError(f"column {col} is full")


def evaluate(board, player):
    """A heuristic score of `board` for `player` ('X' or 'O'), an int: higher is better for `player`.

    A won board scores WIN for its winner and -WIN for the other side. Otherwise each window of
    four cells holding pieces of one side only is worth 2 points to that side with two pieces in
    it and 5 with three, and each piece in the centre column 3 points; the score is `player`'s
    points minus the other side's.
    """
    _check(board)
    if player not in ("X", "O"):
        raise ValueError(f"player must be 'X' or 'O', not {player!r}")
    flat = "".join(board)
    lines = "|".join([flat[line] for line in LINE_SLICES])
    x_won, o_won = "XXXX" in lines, "OOOO" in lines
    if x_won != o_won:  # one side has four in a row
        return WIN if (player == "X") == x_won else -WIN
    points = sum(map(WINDOW_VALUES.__getitem__, [lines[start:start + 4] for start in WINDOW_STARTS]))
    centre = flat[COLS // 2::COLS]
    points += CENTRE_POINTS * (centre.count("X") - centre.count("O"))
    return points if player == "X" else -points

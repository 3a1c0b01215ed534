"""The oracle of ex08's hidden checks: boards, lines, a win/loss-only look-ahead, and the match's baseline and referee.

Hidden-only: its name starts with `hidden_`, only test_hidden.py imports it, and it never ships to
students (it computes the answers the hidden checks expect). It is written for the checks on
purpose rather than imported from solutions/, and kept deliberately small and obvious.

The oracle judges a move the way "any optimal move is accepted" asks: by the win/loss value the
search can see within its depth (a heuristic score always lies strictly between a loss and a
win), never by its column.
"""

from itertools import accumulate

ROWS, COLS = 6, 7
EMPTY_BOARD = ("." * COLS,) * ROWS
# (row step, column step) of the four kinds of line: across, down, and the two diagonals.
STEPS = ((0, 1), (1, 0), (1, 1), (1, -1))


# --------------------------------------------------------------------------
# Boards, lines and a win/loss-only look-ahead.
# --------------------------------------------------------------------------

def other(piece):
    """The opponent of "X" or "O"."""
    return "O" if piece == "X" else "X"


def count(board, piece):
    """How many of piece are on the board."""
    return sum(row.count(piece) for row in board)


def to_move(board):
    """The side to move in a plausible position: X on equal counts, O otherwise."""
    return "X" if count(board, "X") == count(board, "O") else "O"


def line_owners(board):
    """The set of players with four in a row, found by stepping from every cell."""
    owners = set()
    for r in range(ROWS):
        for c in range(COLS):
            piece = board[r][c]
            if piece == ".":
                continue
            for dr, dc in STEPS:
                end_r, end_c = r + 3 * dr, c + 3 * dc
                if not (0 <= end_r < ROWS and 0 <= end_c < COLS):
                    continue
                if all(board[r + k * dr][c + k * dc] == piece for k in (1, 2, 3)):
                    owners.add(piece)
    return owners


def oracle_winner(board):
    """The winner of a board on which at most one player has a line."""
    owners = line_owners(board)
    assert len(owners) <= 1  # the oracle's own sanity check: such boards are never asked about
    return owners.pop() if owners else None


def open_columns(board):
    """The columns whose top cell is empty."""
    return [c for c in range(COLS) if board[0][c] == "."]


def put(board, row, col, piece):
    """A copy of board with piece at (row, col)."""
    line = board[row]
    return board[:row] + (line[:col] + piece + line[col + 1:],) + board[row + 1:]


def place(board, col, piece):
    """(new board, landing row) after piece falls down column col, which must have room."""
    row = ROWS - 1
    while board[row][col] != ".":  # the lowest empty cell: a full column is never asked for
        row -= 1
    return put(board, row, col, piece), row


def four_through(board, row, col):
    """True if the piece at (row, col) is part of four in a row."""
    piece = board[row][col]
    for dr, dc in STEPS:
        run = 1
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < ROWS and 0 <= c < COLS and board[r][c] == piece:
                run += 1
                r, c = r + sign * dr, c + sign * dc
        if run >= 4:
            return True
    return False


def play(moves):
    """The board after playing the columns in moves from the empty board, X first."""
    board = EMPTY_BOARD
    for col in moves:
        board, _ = place(board, col, to_move(board))
    return board


def mirror(board):
    """The board seen in a mirror: column c becomes column 6 - c."""
    return tuple(row[::-1] for row in board)


def last_of_random_game(rng, plies, weights=None):
    """(last board, whether its last move won) of a random game of at most plies plies from the empty board.

    The same game, drawn with the same calls on rng, as playing it with place and four_through
    (tests/authoring/test_oracles.py compares the two); it is the hot loop of the checks that
    draw thousands of games to find one rare position, so it keeps a column's height and one
    bitboard per player instead of building a board per move, and the open columns (with their
    cumulative weights) change only when a column fills. Bit 7 * col + height is the cell
    `height` up from the bottom of column col; the seventh bit of each column stays empty, so
    no line runs from one column's top into the next column's bottom.
    """
    heights, bits, mover = [0] * COLS, [0, 0], 0
    cols = list(range(COLS))
    cum_weights = list(accumulate(weights)) if weights else None
    won = False
    for _ in range(plies):
        # rng.choices with the running sums of the open columns' weights draws as it does with the
        # weights themselves: it would add them up the same way.
        col = rng.choices(cols, cum_weights=cum_weights)[0] if weights else rng.choice(cols)
        height = heights[col]
        mine = bits[mover] = bits[mover] | 1 << (7 * col + height)
        heights[col] = height + 1
        # No four stood before this move (the game ends at the first), so a four now runs through it.
        if _has_four(mine):
            won = True
            break
        mover = 1 - mover
        if height + 1 == ROWS:
            cols.remove(col)
            if not cols:
                break
            if weights:
                cum_weights = list(accumulate(weights[c] for c in cols))
    return _board_of(heights, bits[0]), won


def _board_of(heights, x_bits):
    """The board whose columns hold heights[col] pieces, X where x_bits has the cell's bit."""
    return tuple("".join("." if height <= row else "X" if x_bits >> (7 * col + row) & 1 else "O"
                         for col, height in enumerate(heights))
                 for row in range(ROWS - 1, -1, -1))


def forced(board, mover, plies, alpha=-1, beta=1):
    """+1 if mover can force four in a row within plies plies, -1 if the opponent can, else 0.

    board must not be over. A full board is a draw (0). The value is exact when it lies strictly
    between alpha and beta; at or below alpha it says only that it is no more, and at or above
    beta that it is no less (alpha-beta in negamax form: the default window gives it exactly).
    The search runs on bitboards (see last_of_random_game), trying the columns in the order
    open_columns gives them; tests/authoring/test_oracles.py holds it to a plain look-ahead.
    """
    heights, bits = [0] * COLS, {"X": 0, "O": 0}
    for row in range(ROWS):
        for col, cell in enumerate(board[ROWS - 1 - row]):
            if cell != ".":
                bits[cell] |= 1 << (7 * col + row)
                heights[col] = row + 1
    return _forced_bits(heights, bits[mover], bits[other(mover)], plies, alpha, beta)


def _has_four(bits):
    """Whether the bitboard holds four in a row, in any of the four directions."""
    for shift in (1, 7, 6, 8):
        pairs = bits & (bits >> shift)
        if pairs & (pairs >> 2 * shift):
            return True
    return False


def _forced_bits(heights, mine, theirs, plies, alpha, beta):
    """forced on bitboards: mine are the mover's pieces, theirs the opponent's, neither with a four."""
    if plies == 0:
        return 0
    best = None
    for col in range(COLS):
        height = heights[col]
        if height == ROWS:
            continue
        placed = mine | 1 << (7 * col + height)
        if _has_four(placed):  # mine had none, so this four runs through the new piece
            return 1
        if plies > 1:
            heights[col] = height + 1
            value = -_forced_bits(heights, theirs, placed, plies - 1, -beta, -alpha)
            heights[col] = height
        else:
            value = 0
        if best is None or value > best:
            best = value
        alpha = max(alpha, value)
        if alpha >= beta:  # the opponent will not allow this position: the rest cannot matter
            break
    return 0 if best is None else best


def move_values(board, depth):
    """{column: +1 / 0 / -1}: what a correct depth-limited search can prove about each move."""
    mover = to_move(board)
    values = {}
    for col in open_columns(board):
        child, row = place(board, col, mover)
        values[col] = 1 if four_through(child, row, col) else -forced(child, other(mover), depth - 1)
    return values


def good_moves(board, depth):
    """The columns a correct search may return at this depth: those with the best provable value."""
    values = move_values(board, depth)
    best = max(values.values())
    return {col for col, value in values.items() if value == best}


def has_immediate_win(board):
    """True if the side to move can make four in a row now."""
    mover = to_move(board)
    for col in open_columns(board):
        child, row = place(board, col, mover)
        if four_through(child, row, col):
            return True
    return False


# --------------------------------------------------------------------------
# The match: a baseline that wins if it can, else blocks, else plays at random, and the referee.
# --------------------------------------------------------------------------

def baseline_move(board, piece, rng):
    """Win if possible, else block the opponent's immediate win, else a random column."""
    cols = open_columns(board)
    for player in (piece, other(piece)):
        hits = []
        for col in cols:
            child, row = place(board, col, player)
            if four_through(child, row, col):
                hits.append(col)
        if hits:
            return rng.choice(hits)
    return rng.choice(cols)


class Blunder(Exception):
    """The student's move in a match was one its depth can prove worse than another move."""


def play_one_game(choose, rng, student_piece, depth):
    """Play one game of the student against the baseline to its end; True if the student wins it.

    choose(board, depth) gives the student's move. Every move of the student's must be one a
    search of this depth can justify (good_moves), or the game stops with Blunder: that holds for
    every correct search, whatever its evaluate.
    """
    board, piece = EMPTY_BOARD, "X"
    while True:
        if piece == student_piece:
            col = choose(board, depth)
            if col not in good_moves(board, depth):
                raise Blunder
        else:
            col = baseline_move(board, piece, rng)
        board, row = place(board, col, piece)
        if four_through(board, row, col):
            return piece == student_piece
        if not open_columns(board):
            return False  # a draw
        piece = other(piece)

"""Connect-4 in negamax form, with a heuristic that scores boards by a checksum: at random, but always the same.

The README allows any evaluate that gives the same board the same number and puts a win above a
loss, so this one must get full marks on every seed too. It also tries the columns from the right.
"""

import zlib

ROWS, COLS = 6, 7
LINES = [
    [(r + k * dr, c + k * dc) for k in range(4)]
    for r in range(ROWS) for c in range(COLS) for dr, dc in ((0, 1), (1, 0), (1, 1), (-1, 1))
    if 0 <= r + 3 * dr < ROWS and 0 <= c + 3 * dc < COLS
]
WIN = 10**9


def _shape(board):
    """Raise ValueError unless board is 6 strings of 7 characters from '.XO'."""
    if not isinstance(board, tuple) or len(board) != ROWS:
        raise ValueError("a board is a tuple of 6 rows")
    for row in board:
        if not isinstance(row, str) or len(row) != COLS or set(row) - set(".XO"):
            raise ValueError(f"a row is 7 characters from '.XO', not {row!r}")


def _mover(board):
    """The side to move; ValueError for a position no game reaches."""
    xs = sum(row.count("X") for row in board)
    os_ = sum(row.count("O") for row in board)
    if xs - os_ not in (0, 1):
        raise ValueError(f"{xs} X and {os_} O cannot happen in a game")
    if _owners(board) == {"X", "O"}:
        raise ValueError("both players have four in a row")
    return "X" if xs == os_ else "O"


def _owners(board):
    """The players with four in a row."""
    owners = set()
    for line in LINES:
        pieces = {board[r][c] for r, c in line}
        if len(pieces) == 1 and "." not in pieces:
            owners |= pieces
    return owners


def legal_moves(board):
    _shape(board)
    return [c for c in range(COLS) if board[0][c] == "."]


def _put(board, col, piece):
    """The board with piece on the lowest empty cell of col."""
    row = max(r for r in range(ROWS) if board[r][col] == ".")
    return tuple(line if r != row else line[:col] + piece + line[col + 1:] for r, line in enumerate(board))


def drop(board, col):
    _shape(board)
    piece = _mover(board)
    if type(col) is not int or col < 0 or col >= COLS:
        raise ValueError(f"no column {col!r}")
    if _owners(board):
        raise ValueError("the game is over")
    if board[0][col] != ".":
        raise ValueError(f"column {col} is full")
    return _put(board, col, piece)


def winner(board):
    _shape(board)
    owners = _owners(board)
    return owners.pop() if owners else None


def evaluate(board, player):
    """A win, a loss, or a number from the board's checksum (from -50 to 49) for a board nobody has won."""
    _shape(board)
    if player not in ("X", "O"):
        raise ValueError(f"no player {player!r}")
    owners = _owners(board)
    if owners == {player}:
        return WIN
    if owners and player not in owners:
        return -WIN
    return zlib.crc32(("".join(board) + player).encode()) % 100 - 50


def _negamax(board, depth, alpha, beta, me, to_move):
    """The value of board for to_move (me's value with the sign of whose turn it is)."""
    if _owners(board):
        return -WIN - depth  # the move that led here won, for the other side
    moves = legal_moves(board)
    if not moves:
        return 0
    if depth == 0:
        return evaluate(board, me) if to_move == me else -evaluate(board, me)
    best = -2 * WIN
    for col in reversed(moves):
        value = -_negamax(_put(board, col, to_move), depth - 1, -beta, -alpha, me, "O" if to_move == "X" else "X")
        best = max(best, value)
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    return best


def best_move(board, depth):
    _shape(board)
    me = _mover(board)
    if type(depth) is not int or depth < 1:
        raise ValueError(f"depth must be at least 1, not {depth!r}")
    if _owners(board):
        raise ValueError("the game is over")
    moves = legal_moves(board)
    if not moves:
        raise ValueError("the board is full")
    best_col, alpha = None, -2 * WIN
    for col in reversed(moves):
        value = -_negamax(_put(board, col, me), depth - 1, -2 * WIN, -alpha, me, "O" if me == "X" else "X")
        if best_col is None or value > alpha:
            best_col, alpha = col, value
    return best_col

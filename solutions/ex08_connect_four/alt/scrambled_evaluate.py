"""Connect-4 with a heuristic that scores boards by a checksum: at random, but always the same for a board.

The README allows any evaluate that gives the same board the same number and puts a win above a
loss, so a correct search with this one must get full marks on every seed too. The search is a
plain minimax with alpha-beta, written with a maximising flag, and it tries the columns from the
right.
"""

import math
import zlib

HEIGHT, WIDTH = 6, 7
WON = 10**6
STEPS = ((0, 1), (1, 0), (1, 1), (1, -1))


def _check(board):
    """Raise ValueError unless board is a tuple of 6 strings of 7 characters from '.XO'."""
    if type(board) is not tuple or len(board) != HEIGHT:
        raise ValueError("expected a tuple of 6 rows")
    for text in board:
        if type(text) is not str or len(text) != WIDTH or any(ch not in ".XO" for ch in text):
            raise ValueError(f"bad row {text!r}")


def _lines(board):
    """Each player who has four in a row, found by walking from every cell in every direction."""
    found = set()
    for r in range(HEIGHT):
        for c in range(WIDTH):
            who = board[r][c]
            if who == ".":
                continue
            for dr, dc in STEPS:
                cells = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= y < HEIGHT and 0 <= x < WIDTH and board[y][x] == who for y, x in cells):
                    found.add(who)
    return found


def _turn(board):
    """Whose move it is; ValueError for counts or lines no game can reach."""
    x = "".join(board).count("X")
    o = "".join(board).count("O")
    if not (x == o or x == o + 1) or len(_lines(board)) > 1:
        raise ValueError("this position cannot happen in a game")
    return "X" if x == o else "O"


def legal_moves(board):
    """The columns with room, left to right."""
    _check(board)
    return [c for c in range(WIDTH) if board[0][c] == "."]


def _landing(board, col):
    """The row a piece dropped into col (which has room) comes to rest on."""
    r = HEIGHT - 1
    while board[r][col] != ".":
        r -= 1
    return r


def _after(board, col, who):
    """The board once who drops into col (which has room)."""
    r = _landing(board, col)
    rows = list(board)
    rows[r] = rows[r][:col] + who + rows[r][col + 1:]
    return tuple(rows)


def _wins(board, r, c):
    """True if the piece at (r, c) is part of four in a row."""
    who = board[r][c]
    for dr, dc in STEPS:
        run = 1
        for sign in (1, -1):
            y, x = r + sign * dr, c + sign * dc
            while 0 <= y < HEIGHT and 0 <= x < WIDTH and board[y][x] == who:
                run += 1
                y, x = y + sign * dr, x + sign * dc
        if run >= 4:
            return True
    return False


def drop(board, col):
    """The board after the side to move plays col."""
    _check(board)
    who = _turn(board)
    if type(col) is not int or not 0 <= col < WIDTH:
        raise ValueError(f"bad column {col!r}")
    if _lines(board):
        raise ValueError("someone has already won")
    if board[0][col] != ".":
        raise ValueError(f"column {col} has no room")
    return _after(board, col, who)


def winner(board):
    """'X' or 'O' for a four in a row, else None."""
    _check(board)
    found = _lines(board)
    return found.pop() if found else None


def evaluate(board, player):
    """A win, a loss, or a checksum of the board and player from -500 to 499."""
    _check(board)
    if player not in ("X", "O"):
        raise ValueError(f"bad player {player!r}")
    found = _lines(board)
    if player in found:
        return WON
    if found:
        return -WON
    return _checksum(board, player)


def _checksum(board, player):
    """The score of a board nobody has won: a checksum of it and the player, from -500 to 499."""
    return zlib.crc32(f"{player}:{''.join(board)}".encode()) % 1000 - 500


def _value(board, depth, alpha, beta, maximizing, me, last):
    """Minimax with alpha-beta: board's value for me, with depth plies left; last is the cell just played."""
    if _wins(board, *last):
        return -WON - depth if maximizing else WON + depth  # the player who just moved has won
    cols = [c for c in range(WIDTH) if board[0][c] == "."]
    if not cols:
        return 0
    if depth == 0:
        return _checksum(board, me)  # what evaluate gives a board nobody has won
    mover = me if maximizing else ("O" if me == "X" else "X")
    best = -math.inf if maximizing else math.inf
    for col in reversed(cols):
        row = _landing(board, col)
        value = _value(_after(board, col, mover), depth - 1, alpha, beta, not maximizing, me, (row, col))
        if maximizing:
            best = max(best, value)
            alpha = max(alpha, best)
        else:
            best = min(best, value)
            beta = min(beta, best)
        if alpha >= beta:
            break
    return best


def best_move(board, depth):
    """The column with the highest minimax value for the side to move, depth plies ahead."""
    _check(board)
    me = _turn(board)
    if type(depth) is not int or depth < 1:
        raise ValueError(f"bad depth {depth!r}")
    if _lines(board):
        raise ValueError("someone has already won")
    cols = legal_moves(board)
    if not cols:
        raise ValueError("no room left on the board")
    choice, alpha = None, -math.inf
    for col in reversed(cols):
        row = _landing(board, col)
        value = _value(_after(board, col, me), depth - 1, alpha, math.inf, False, me, (row, col))
        if choice is None or value > alpha:  # a later tie may be only a bound: keep the first
            choice, alpha = col, value
    return choice

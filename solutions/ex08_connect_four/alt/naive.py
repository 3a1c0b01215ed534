"""Connect-4, written the plain way a first-time student might.

This is the naive alternative the timeouts are measured against. Boards are
turned into lists of lists to be changed and back into tuples of strings.
The search calls the public drop() (which checks the whole board every time)
and winner() (which scans the whole board) at every node, tries the columns
from left to right, and has no shortcut for a win on the next move.
"""

ROWS = 6
COLS = 7


def check_board(board):
    """Raise ValueError if the board is not a tuple of 6 strings of 7 characters from '.XO'."""
    if type(board) != tuple or len(board) != ROWS:
        raise ValueError("the board must be a tuple of 6 strings")
    for row in board:
        if type(row) != str or len(row) != COLS:
            raise ValueError("each row must be a string of 7 characters")
        for ch in row:
            if ch != "." and ch != "X" and ch != "O":
                raise ValueError("bad character in the board: " + repr(ch))


def to_grid(board):
    """The board as a list of lists of characters (a fresh copy)."""
    grid = []
    for row in board:
        grid.append(list(row))
    return grid


def to_board(grid):
    """A list of lists of characters back as a tuple of strings."""
    rows = []
    for row in grid:
        rows.append("".join(row))
    return tuple(rows)


def has_four(board, player):
    """True if player has four in a row anywhere on the board."""
    # across
    for r in range(ROWS):
        for c in range(COLS - 3):
            if board[r][c] == player and board[r][c + 1] == player and board[r][c + 2] == player and board[r][c + 3] == player:
                return True
    # down
    for r in range(ROWS - 3):
        for c in range(COLS):
            if board[r][c] == player and board[r + 1][c] == player and board[r + 2][c] == player and board[r + 3][c] == player:
                return True
    # diagonal going down to the right
    for r in range(ROWS - 3):
        for c in range(COLS - 3):
            if board[r][c] == player and board[r + 1][c + 1] == player and board[r + 2][c + 2] == player and board[r + 3][c + 3] == player:
                return True
    # diagonal going up to the right
    for r in range(3, ROWS):
        for c in range(COLS - 3):
            if board[r][c] == player and board[r - 1][c + 1] == player and board[r - 2][c + 2] == player and board[r - 3][c + 3] == player:
                return True
    return False


def winner(board):
    """'X' or 'O' if that player has four in a row, otherwise None."""
    check_board(board)
    if has_four(board, "X"):
        return "X"
    if has_four(board, "O"):
        return "O"
    return None


def legal_moves(board):
    """The columns whose top cell is empty."""
    check_board(board)
    moves = []
    for c in range(COLS):
        if board[0][c] == ".":
            moves.append(c)
    return moves


def whose_turn(board):
    """'X' or 'O', from the counts; ValueError if the counts or lines are impossible."""
    x = 0
    o = 0
    for row in board:
        x = x + row.count("X")
        o = o + row.count("O")
    if not (x == o or x == o + 1):
        raise ValueError("impossible piece counts")
    if has_four(board, "X") and has_four(board, "O"):
        raise ValueError("both players have four in a row")
    if x == o:
        return "X"
    return "O"


def drop(board, col):
    """A new board with the side to move's piece dropped into column col."""
    check_board(board)
    player = whose_turn(board)
    if type(col) != int or col < 0 or col >= COLS:
        raise ValueError("column out of range")
    if winner(board) is not None:
        raise ValueError("the game is already over")
    grid = to_grid(board)
    r = ROWS - 1
    while r >= 0:
        if grid[r][col] == ".":
            grid[r][col] = player
            return to_board(grid)
        r = r - 1
    raise ValueError("column is full")


def other(player):
    """The opponent of player."""
    if player == "X":
        return "O"
    return "X"


def score_window(window, player):
    """Points for one window of four cells."""
    mine = window.count(player)
    theirs = window.count(other(player))
    if theirs == 0 and mine == 3:
        return 5
    if theirs == 0 and mine == 2:
        return 2
    if mine == 0 and theirs == 3:
        return -5
    if mine == 0 and theirs == 2:
        return -2
    return 0


def evaluate(board, player):
    """Add up score_window over every window of four cells (across, down and both diagonals)."""
    check_board(board)
    if player != "X" and player != "O":
        raise ValueError("player must be 'X' or 'O'")
    w = winner(board)
    if w == player:
        return 1000000
    if w == other(player):
        return -1000000
    grid = to_grid(board)
    score = 0
    for r in range(ROWS):
        for c in range(COLS - 3):
            score = score + score_window([grid[r][c + k] for k in range(4)], player)
    for r in range(ROWS - 3):
        for c in range(COLS):
            score = score + score_window([grid[r + k][c] for k in range(4)], player)
    for r in range(ROWS - 3):
        for c in range(COLS - 3):
            score = score + score_window([grid[r + k][c + k] for k in range(4)], player)
    for r in range(3, ROWS):
        for c in range(COLS - 3):
            score = score + score_window([grid[r - k][c + k] for k in range(4)], player)
    return score


def minimax(board, depth, alpha, beta, maximizing, me):
    """Alpha-beta value of board for player me, looking depth plies ahead."""
    w = winner(board)
    if w == me:
        return 1000000
    if w is not None:
        return -1000000
    moves = legal_moves(board)
    if len(moves) == 0:
        return 0
    if depth == 0:
        return evaluate(board, me)
    if maximizing:
        best = float("-inf")
        for col in moves:
            value = minimax(drop(board, col), depth - 1, alpha, beta, False, me)
            if value > best:
                best = value
            if best > alpha:
                alpha = best
            if alpha >= beta:
                break
        return best
    else:
        best = float("inf")
        for col in moves:
            value = minimax(drop(board, col), depth - 1, alpha, beta, True, me)
            if value < best:
                best = value
            if best < beta:
                beta = best
            if alpha >= beta:
                break
        return best


def best_move(board, depth):
    """The column with the best minimax score for the side to move."""
    check_board(board)
    me = whose_turn(board)
    if type(depth) != int or depth < 1:
        raise ValueError("depth must be at least 1")
    if winner(board) is not None:
        raise ValueError("the game is already over")
    moves = legal_moves(board)
    if len(moves) == 0:
        raise ValueError("the board is full")
    best_col = moves[0]
    best_score = float("-inf")
    for col in moves:
        score = minimax(drop(board, col), depth - 1, float("-inf"), float("inf"), False, me)
        if score > best_score:
            best_score = score
            best_col = col
    return best_col

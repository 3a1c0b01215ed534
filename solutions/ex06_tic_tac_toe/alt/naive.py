"""Tic-tac-toe minimax, written the plain way a first-time student might.

This is the naive alternative the timeouts are measured against: plain
recursion, a new string for every move, no memo of any kind. best_move runs
a whole minimax below each empty square, so a call on the empty board
searches the full game tree (549,946 positions, 255,168 complete games).
"""

LINES = [
    [0, 1, 2], [3, 4, 5], [6, 7, 8],
    [0, 3, 6], [1, 4, 7], [2, 5, 8],
    [0, 4, 8], [2, 4, 6],
]


def check_board(board):
    """Raise ValueError unless board is 9 characters of X, O and space."""
    if type(board) != str:
        raise ValueError("the board must be a string")
    if len(board) != 9:
        raise ValueError("the board must have 9 characters")
    for c in board:
        if c != "X" and c != "O" and c != " ":
            raise ValueError("bad character in the board: " + repr(c))


def check_player(ai):
    if ai != "X" and ai != "O":
        raise ValueError("ai must be 'X' or 'O'")


def has_line(board, player):
    for line in LINES:
        if board[line[0]] == player and board[line[1]] == player and board[line[2]] == player:
            return True
    return False


def check_position(board):
    """Like check_board, plus the counts and at most one winner."""
    check_board(board)
    x = board.count("X")
    o = board.count("O")
    if x != o and x != o + 1:
        raise ValueError("impossible piece counts")
    if has_line(board, "X") and has_line(board, "O"):
        raise ValueError("both players have a line")


def winner(board):
    check_board(board)
    if has_line(board, "X"):
        return "X"
    if has_line(board, "O"):
        return "O"
    return None


def game_over(board):
    return winner(board) is not None or " " not in board


def score(board, ai):
    check_board(board)
    check_player(ai)
    if not game_over(board):
        raise ValueError("the game is not over")
    w = winner(board)
    if w is None:
        return 0
    if w == ai:
        return 1
    return -1


def whose_turn(board):
    if board.count("X") == board.count("O"):
        return "X"
    return "O"


def other(player):
    if player == "X":
        return "O"
    return "X"


def search(board, ai):
    """Plain minimax: ai maximises, the other side minimises."""
    if game_over(board):
        return score(board, ai)
    player = whose_turn(board)
    results = []
    for i in range(9):
        if board[i] == " ":
            new_board = board[:i] + player + board[i + 1:]
            results.append(search(new_board, ai))
    if player == ai:
        return max(results)
    return min(results)


def minimax(board, ai):
    check_position(board)
    check_player(ai)
    return search(board, ai)


def best_move(board):
    check_position(board)
    if game_over(board):
        raise ValueError("the game is already over")
    me = whose_turn(board)
    best_square = None
    best_value = -2
    for i in range(9):
        if board[i] == " ":
            new_board = board[:i] + me + board[i + 1:]
            value = search(new_board, me)
            if value > best_value:
                best_value = value
                best_square = i
    return best_square

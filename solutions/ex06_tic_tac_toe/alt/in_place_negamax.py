"""Tic-tac-toe in another style: a mutable list, moves made and undone in place, negamax.

negamax keeps one rule instead of two: the value of a position for the side
to move is the largest of minus the values of the positions it can reach
(for the opponent, who moves next). Squares are tried centre first, then
corners, then edges, so among equally good moves this file picks different
squares from the reference: the checks must accept any optimal move.
No memo: the search is plain, but it mutates one list instead of copying.
"""

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
ORDER = (4, 0, 2, 6, 8, 1, 3, 5, 7)


def _cells(board):
    if not isinstance(board, str) or len(board) != 9 or any(c not in "XO " for c in board):
        raise ValueError("a board is a string of 9 characters, each 'X', 'O' or ' '")
    return list(board)


def _line_of(cells):
    for a, b, c in LINES:
        if cells[a] != " " and cells[a] == cells[b] == cells[c]:
            return cells[a]
    return None


def _plausible(board):
    cells = _cells(board)
    xs, os = cells.count("X"), cells.count("O")
    if xs - os not in (0, 1):
        raise ValueError(f"impossible counts: {xs} X and {os} O")
    sides = {cells[a] for a, b, c in LINES if cells[a] != " " and cells[a] == cells[b] == cells[c]}
    if len(sides) == 2:
        raise ValueError("both sides have a line")
    return cells


def _player(ai):
    if ai not in ("X", "O"):
        raise ValueError(f"ai must be 'X' or 'O', got {ai!r}")


def winner(board):
    return _line_of(_cells(board))


def score(board, ai):
    cells = _cells(board)
    _player(ai)
    won = _line_of(cells)
    if won is None:
        if " " in cells:
            raise ValueError("the game is still going")
        return 0
    return 1 if won == ai else -1


def _negamax(cells, mover):
    """Value of the position for `mover`, the side to move; `cells` is restored before returning."""
    won = _line_of(cells)
    if won is not None:
        return 1 if won == mover else -1
    if " " not in cells:
        return 0
    nxt = "O" if mover == "X" else "X"
    best = -1
    for square in ORDER:
        if cells[square] == " ":
            cells[square] = mover
            best = max(best, -_negamax(cells, nxt))
            cells[square] = " "
            if best == 1:
                break  # nothing beats a win
    return best


def _mover(cells):
    return "X" if cells.count("X") == cells.count("O") else "O"


def minimax(board, ai):
    cells = _plausible(board)
    _player(ai)
    mover = _mover(cells)
    value = _negamax(cells, mover)
    return value if mover == ai else -value


def best_move(board):
    cells = _plausible(board)
    if _line_of(cells) is not None or " " not in cells:
        raise ValueError("the game is over")
    mover = _mover(cells)
    nxt = "O" if mover == "X" else "X"
    best_square, best_value = None, -2
    for square in ORDER:
        if cells[square] == " ":
            cells[square] = mover
            value = -_negamax(cells, nxt)
            cells[square] = " "
            if value > best_value:
                best_square, best_value = square, value
    return best_square

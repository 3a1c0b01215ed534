"""Tic-tac-toe for `grade play tictactoe`: you against your own best_move.

Your best_move only proposes squares. This file keeps the board and judges
every move by the rules, so a move that breaks them ends the game rather than
counting. X moves first: whoever moves first plays X.
"""

from __future__ import annotations

from typing import NamedTuple

NAME = "tictactoe"
RULES = "Three in a row, across, down or diagonally, wins. X moves first. Squares are numbered 0 to 8."
FUNCTION = "best_move"
# The exercise's checks that ask about the empty board allow 60 s a call: a plain search of the
# whole tree took up to 9 s on a loaded machine, and the computer may well move first here.
CALL_TIMEOUT = 60.0

EMPTY = " "
SIZE = 3


class Position(NamedTuple):
    """The board (9 characters, row by row) and the square played last, if any."""

    board: str
    last: int | None


def setup(ask) -> Position:
    """The empty board; there is nothing to choose."""
    return Position(EMPTY * SIZE * SIZE, None)


def _mover(board: str) -> str:
    return "O" if board.count("X") > board.count("O") else "X"


def draw(position: Position) -> str:
    """The board, with each free square showing its number."""
    cells = [mark if mark != EMPTY else str(square) for square, mark in enumerate(position.board)]
    rows = [" " + " | ".join(cells[start:start + SIZE]) for start in range(0, SIZE * SIZE, SIZE)]
    return "\n---+---+---\n".join(rows)


def prompt(position: Position) -> str:
    """The question for the player's move."""
    return f"Your move as {_mover(position.board)}: which free square? "


def _play(position: Position, square: int) -> Position:
    board = position.board
    return Position(board[:square] + _mover(board) + board[square + 1:], square)


def _free_squares(board: str) -> str:
    return ", ".join(str(square) for square, mark in enumerate(board) if mark == EMPTY)


def human_move(position: Position, text: str) -> Position:
    """The position after the player marks the square they typed."""
    board = position.board
    try:
        square = int(text)
    except ValueError:
        raise ValueError(f"type the number of a free square ({_free_squares(board)}), not {text!r}") from None
    if not 0 <= square < SIZE * SIZE:
        raise ValueError(f"the squares are numbered 0 to 8, not {square}")
    if board[square] != EMPTY:
        raise ValueError(f"square {square} holds {board[square]}; the free squares are {_free_squares(board)}")
    return _play(position, square)


def ai_args(position: Position) -> tuple:
    """best_move(board)."""
    return (position.board,)


def ai_move(position: Position, value) -> tuple[Position, str]:
    """The square best_move chose, judged by the rules; ValueError says why it cannot be played."""
    board = position.board
    if type(value) is not int:
        raise ValueError("best_move must return an int, the number of a square from 0 to 8")
    if not 0 <= value < SIZE * SIZE or board[value] != EMPTY:
        raise ValueError(f"that is not a free square; the free squares are {_free_squares(board)}")
    return _play(position, value), f"plays {_mover(board)} on square {value}"


def _lines_through(square: int) -> list[list[int]]:
    """The row, the column and any diagonal that pass through `square`."""
    row, col = divmod(square, SIZE)
    lines = [[row * SIZE + c for c in range(SIZE)], [r * SIZE + col for r in range(SIZE)]]
    if row == col:
        lines.append([i * SIZE + i for i in range(SIZE)])
    if row + col == SIZE - 1:
        lines.append([i * SIZE + SIZE - 1 - i for i in range(SIZE)])
    return lines


def result(position: Position) -> int | None:
    """+1 if the last move completed a line, 0 for a full board, None while the game goes on.

    Only lines through the last square need looking at: any other line was already there
    before that move, and the game would have ended then.
    """
    board, last = position
    if last is None:
        return None
    if any(all(board[square] == board[last] for square in line) for line in _lines_through(last)):
        return 1
    return 0 if EMPTY not in board else None

"""Connect-4 for `grade play connect4`: you against your own best_move.

Your best_move only proposes columns. This file keeps the board and judges
every move by the rules, so a move that breaks them ends the game rather than
counting. X moves first: whoever moves first plays X.
"""

from __future__ import annotations

from typing import NamedTuple

NAME = "connect4"
RULES = ("Drop pieces into the 7 columns (numbered 0 to 6); four in a row across, down or diagonally "
         "wins. X moves first.")
FUNCTION = "best_move"

ROWS, COLS = 6, 7
EMPTY = "."
IN_A_ROW = 4
# Depth 4 takes milliseconds; a naive search at depth 6 still answers well within the exercise's
# 10 s per call, while depth 7 took over 6 s on some positions.
DEFAULT_DEPTH = 4
DEEPEST = 6


class Position(NamedTuple):
    """The board (6 strings of 7 cells, top row first), the cell played last, and the search depth."""

    rows: tuple[str, ...]
    last: tuple[int, int] | None
    depth: int


def setup(ask) -> Position:
    """The empty board and how far ahead the AI looks, chosen by the player."""
    depth = ask(f"How many moves ahead should the AI look, 1 to {DEEPEST}? [{DEFAULT_DEPTH}] ", _depth)
    return Position((EMPTY * COLS,) * ROWS, None, depth)


def _depth(text: str) -> int:
    if not text:
        return DEFAULT_DEPTH
    try:
        depth = int(text)
    except ValueError:
        raise ValueError(f"type a whole number from 1 to {DEEPEST}, not {text!r}") from None
    if not 1 <= depth <= DEEPEST:
        raise ValueError(f"the depth must be 1 to {DEEPEST}, not {depth}")
    return depth


def _mover(rows: tuple[str, ...]) -> str:
    pieces = "".join(rows)
    return "X" if pieces.count("X") == pieces.count("O") else "O"


def draw(position: Position) -> str:
    """The board, top row first, with the column numbers underneath."""
    lines = [" " + " ".join(row) for row in position.rows]
    lines.append(" " + " ".join(str(col) for col in range(COLS)))
    return "\n".join(lines)


def prompt(position: Position) -> str:
    """The question for the player's move."""
    return f"Your move as {_mover(position.rows)}: which column? "


def _open_columns(rows: tuple[str, ...]) -> list[int]:
    return [col for col in range(COLS) if rows[0][col] == EMPTY]


def _play(position: Position, col: int) -> Position:
    rows = position.rows
    row = max(r for r in range(ROWS) if rows[r][col] == EMPTY)
    cells = rows[row][:col] + _mover(rows) + rows[row][col + 1:]
    return position._replace(rows=rows[:row] + (cells,) + rows[row + 1:], last=(row, col))


def human_move(position: Position, text: str) -> Position:
    """The position after the player drops a piece into the column they typed."""
    open_columns = ", ".join(map(str, _open_columns(position.rows)))
    try:
        col = int(text)
    except ValueError:
        raise ValueError(f"type the number of a column that is not full ({open_columns}), not {text!r}") from None
    if not 0 <= col < COLS:
        raise ValueError(f"the columns are numbered 0 to 6, not {col}")
    if col not in _open_columns(position.rows):
        raise ValueError(f"column {col} is full; the open columns are {open_columns}")
    return _play(position, col)


def ai_args(position: Position) -> tuple:
    """best_move(board, depth)."""
    return (position.rows, position.depth)


def ai_move(position: Position, value) -> tuple[Position, str]:
    """The column best_move chose, judged by the rules; ValueError says why it cannot be played."""
    open_columns = _open_columns(position.rows)
    if type(value) is not int:
        raise ValueError("best_move must return an int, the number of a column from 0 to 6")
    if value not in open_columns:
        raise ValueError(f"that is not a column that can take a piece; the open columns are "
                         f"{', '.join(map(str, open_columns))}")
    return _play(position, value), f"drops {_mover(position.rows)} into column {value}"


def _run_length(rows: tuple[str, ...], row: int, col: int, step_row: int, step_col: int) -> int:
    """How many cells in a row, going one way from (row, col) and not counting it, match its piece."""
    piece, length = rows[row][col], 0
    row, col = row + step_row, col + step_col
    while 0 <= row < ROWS and 0 <= col < COLS and rows[row][col] == piece:
        length += 1
        row, col = row + step_row, col + step_col
    return length


def result(position: Position) -> int | None:
    """+1 if the last piece made four in a row, 0 for a full board, None while the game goes on.

    Only lines through the last piece need looking at: any other line was already there before
    that move, and the game would have ended then.
    """
    rows, last, _ = position
    if last is None:
        return None
    for step in ((0, 1), (1, 0), (1, 1), (1, -1)):
        backwards = (-step[0], -step[1])
        if 1 + _run_length(rows, *last, *step) + _run_length(rows, *last, *backwards) >= IN_A_ROW:
            return 1
    return 0 if not _open_columns(rows) else None


# ---- grade arena ex08: the class's best_move against each other and against these players ----

# Depth 4 is the depth the exercise's match plays; the references at 2 and 4 bracket it.
ARENA_SETTING = 4
ARENA_REFERENCES = {"reference at depth 2": 2, "reference at depth 4": 4}


def arena_start() -> Position:
    """The empty board; each player's depth comes with its own arguments."""
    return Position((EMPTY * COLS,) * ROWS, None, ARENA_SETTING)


def arena_args(position: Position, depth: int) -> tuple:
    """best_move(board, depth) for a player that searches `depth` plies."""
    return (position.rows, depth)


def _random_player(position: Position, rng) -> int:
    """Any open column, at random."""
    return rng.choice(_open_columns(position.rows))


def _greedy_player(position: Position, rng) -> int:
    """A column that wins now; else one that stops the opponent winning next; else one nearest the centre."""
    columns = _open_columns(position.rows)
    opponent = position._replace(rows=_passed(position.rows))
    for board in (position, opponent):
        for col in columns:
            if result(_play(board, col)) == 1:
                return col
    nearest = min(abs(col - COLS // 2) for col in columns)
    return rng.choice([col for col in columns if abs(col - COLS // 2) == nearest])


def _passed(rows: tuple[str, ...]) -> tuple[str, ...]:
    """The board with the colours swapped, so that the opponent's winning drops show as the mover's."""
    return tuple(row.translate(str.maketrans("XO", "OX")) for row in rows)


ARENA_BASELINES = {"random": _random_player, "greedy": _greedy_player}

"""The oracle of ex11's hidden checks: the README's search, written again on flat boards, and seeded positions.

Hidden-only: its name starts with `hidden_`, only test_hidden.py imports it, and it never ships to
students. It is written for the checks on purpose rather than imported from solutions/: a board
is a 42-character string here, and the search is a plain minimax-form alpha-beta that follows the
README's conventions word for word. The heuristic is the given module's, since the counts are
defined against it.
"""

import math

import connect_four_rules as rules  # the given module: the grader lays it beside the checks

ROWS, COLS = 6, 7
CENTRE_OUT = (3, 2, 4, 1, 5, 0, 6)
WIN = rules.WIN
LINES = rules.WINDOWS


def flat(board):
    return "".join(board)


def unflat(cells):
    return tuple(cells[row * COLS:(row + 1) * COLS] for row in range(ROWS))


def mover(cells):
    return "X" if cells.count("X") == cells.count("O") else "O"


def won_by(cells):
    for a, b, c, d in LINES:
        if cells[a] != "." and cells[a] == cells[b] == cells[c] == cells[d]:
            return cells[a]
    return None


def play(cells, col):
    """The flat board after the side to move drops into `col` (which has room)."""
    for row in range(ROWS - 1, -1, -1):
        if cells[row * COLS + col] == ".":
            at = row * COLS + col
            return cells[:at] + mover(cells) + cells[at + 1:]
    raise AssertionError("a full column")


def open_columns(cells):
    return [col for col in range(COLS) if cells[col] == "."]


def search(board, depth, first=None, cutoffs=True):
    """(col, value, leaves) as the README defines them; with cutoffs=False, plain minimax's count."""
    cells = flat(board)
    me = mover(cells)
    leaves = 0

    def value(cells, ply, alpha, beta):
        nonlocal leaves
        side = won_by(cells)
        if side is not None:
            leaves += 1
            return (WIN + depth - ply) * (1 if side == me else -1)
        if "." not in cells[:COLS]:
            leaves += 1
            return 0
        if ply == depth:
            leaves += 1
            return rules.evaluate(unflat(cells), me)
        maximise = mover(cells) == me
        best = -math.inf if maximise else math.inf
        for col in CENTRE_OUT:
            if cells[col] != ".":
                continue
            score = value(play(cells, col), ply + 1, alpha, beta)
            if maximise:
                best, alpha = max(best, score), max(alpha, score)
            else:
                best, beta = min(best, score), min(beta, score)
            if cutoffs and alpha >= beta:
                break
        return best

    order = [first] if first is not None and cells[first] == "." else []
    order += [col for col in CENTRE_OUT if col not in order and cells[col] == "."]
    best_col, best, alpha = None, -math.inf, -math.inf
    for col in order:
        score = value(play(cells, col), 1, alpha, math.inf)
        if score > best:
            best_col, best = col, score
        alpha = max(alpha, best)
    return best_col, best, leaves


def deepen(board, max_depth):
    results, first = [], None
    for depth in range(1, max_depth + 1):
        col, best, leaves = search(board, depth, first)
        results.append((depth, col, best, leaves))
        first = col
    return results


def random_position(rng, plies):
    """A position after `plies` random moves that is not over and has no immediate win for either side."""
    while True:
        cells = "." * (ROWS * COLS)
        for _ in range(plies):
            cells = play(cells, rng.choice(open_columns(cells)))
            if won_by(cells):
                break
        else:
            if all(won_by(play(cells, col)) is None for col in open_columns(cells)):
                return unflat(cells)

"""Hidden checks for ex06 (perfect tic-tac-toe); never shipped to students.

Expected values come from the small oracle below: the rules, written again
here on purpose rather than imported from solutions/, and a memoised minimax
over the 5,478 positions that can arise in a real game. The oracle depends
only on the rules, so it is worked out once per run and shared by the checks;
nothing the student returns is ever kept from one check to the next.

Only positions that can really arise are used for values, moves and
"the game is over". Boards where both sides have a line are used only where
the rules say they must be rejected (minimax and best_move), never with
winner or score, whose answer on them is left open.
"""

import functools
import itertools

import pytest

EMPTY_BOARD = " " * 9
LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)
SIDES = ("X", "O")


# --------------------------------------------------------------------------
# The oracle.
# --------------------------------------------------------------------------

def lines_of(board, mark):
    """How many complete lines `mark` has."""
    return sum(board[a] == board[b] == board[c] == mark for a, b, c in LINES)


@functools.cache  # asked of the same few thousand boards by every check that filters positions
def owner(board):
    """The side with a line, or None (only used on boards with at most one such side)."""
    for mark in SIDES:
        if lines_of(board, mark):
            return mark
    return None


def is_over(board):
    return owner(board) is not None or " " not in board


def to_move(board):
    return "X" if board.count("X") == board.count("O") else "O"


def other(mark):
    return "O" if mark == "X" else "X"


def empties(board):
    return [square for square in range(9) if board[square] == " "]


def put(board, square, mark):
    return board[:square] + mark + board[square + 1:]


def outcome(board, side):
    """+1, -1 or 0 for `side` on a finished board."""
    won = owner(board)
    return 0 if won is None else (1 if won == side else -1)


@functools.cache
def value_for_x(board):
    """Perfect-play value of a position from X's side."""
    if is_over(board):
        return outcome(board, "X")
    mover = to_move(board)
    values = [value_for_x(put(board, square, mover)) for square in empties(board)]
    return max(values) if mover == "X" else min(values)


def value(board, side):
    """Perfect-play value of a position for `side`."""
    return value_for_x(board) if side == "X" else -value_for_x(board)


@functools.cache
def reachable():
    """Every position of a real game, in a fixed order (so that rng draws repeat)."""
    seen = set()
    pending = [EMPTY_BOARD]
    while pending:
        board = pending.pop()
        if board in seen:
            continue
        seen.add(board)
        if not is_over(board):
            mover = to_move(board)
            pending.extend(put(board, square, mover) for square in empties(board))
    positions = sorted(seen)
    assert len(positions) == 5478  # every position a game can reach
    return tuple(positions)


def pieces(board):
    return 9 - board.count(" ")


def positions_where(test):
    return [board for board in reachable() if test(board)]


def terminal_positions():
    return positions_where(is_over)


def live_positions(count=None):
    """Unfinished positions, optionally with exactly `count` pieces."""
    return positions_where(lambda b: not is_over(b) and (count is None or pieces(b) == count))


def searched_positions():
    """Unfinished positions with at least 2 pieces: cheap for a plain minimax without a memo.

    Checks that use the default per-call deadline draw from these; the empty
    board and the 1-piece boards (a whole or a ninth of the game tree) are
    only asked in the checks marked with a longer call_timeout.
    """
    return positions_where(lambda b: not is_over(b) and pieces(b) >= 2)


def full_draws():
    return positions_where(lambda b: " " not in b and owner(b) is None)


@functools.cache
def two_winner_boards():
    """Boards that pass the count rule but where both X and O have a line."""
    boards = []
    for cells in itertools.product("XO ", repeat=9):
        board = "".join(cells)
        if board.count("X") - board.count("O") in (0, 1) and lines_of(board, "X") and lines_of(board, "O"):
            boards.append(board)
    assert len(boards) == 156
    return tuple(boards)


def stratified(rng, boards_by_count):
    """Draw rng.sample(group, k) for every (group, k), keeping the order of the draws."""
    drawn = []
    for group, k in boards_by_count:
        drawn += rng.sample(group, min(k, len(group)))
    return drawn


def worst_result(student, board, me):
    """Play `me` with the student's best_move against every line of the opponent from `board`.

    Returns the worst result for `me` over all opponent lines (+1, 0 or -1),
    stopping at the first loss. Every move the student returns must be an
    empty square.
    """
    if is_over(board):
        return outcome(board, me)
    mover = to_move(board)
    if mover == me:
        square = student.best_move(board)
        assert type(square) is int and 0 <= square <= 8 and board[square] == " "
        return worst_result(student, put(board, square, me), me)
    worst = 1
    for square in empties(board):
        worst = min(worst, worst_result(student, put(board, square, mover), me))
        if worst < 0:
            break
    return worst


@functools.cache
def trap_positions():
    """Drawn positions where a move that leaves the opponent no immediate win still loses."""
    traps = []
    for board in searched_positions():
        mover = to_move(board)
        if value(board, mover) != 0 or any(owner(put(board, s, other(mover))) for s in empties(board)):
            continue  # not a draw, or a threat has to be blocked right now

        def looks_safe_but_loses(square):
            after = put(board, square, mover)
            no_threat = not any(owner(put(after, s, other(mover))) for s in empties(after))
            return no_threat and value(after, mover) == -1

        if any(looks_safe_but_loses(square) for square in empties(board)):
            traps.append(board)
    return tuple(traps)


# Well-known ones: the opposite corners, the anti-diagonal, and the edge-and-corner openings.
CLASSIC_TRAPS = ("X   O   X", "  X O X  ", " X   OX  ", " XO      ", "OX       ", "O X    X ", "   XO   X")


# Forced wins with no immediate win, where the lowest square that does not lose only draws.
FORCED_WINS = ("XO       ", "O X      ", " OX      ", "X      O ", "XXO      ", "OX   X   ", "   X   XO", " XOX     ")


def assert_optimal_move(student, board):
    """best_move returns an empty square that keeps the best value the mover can force."""
    mover = to_move(board)
    square = student.best_move(board)
    assert type(square) is int
    assert 0 <= square <= 8 and board[square] == " "
    assert value(put(board, square, mover), mover) == value(board, mover)


def line_board(line, mark):
    """A hand-made board (any counts): `mark` on the three squares of `line`, the rest empty."""
    board = EMPTY_BOARD
    for square in line:
        board = put(board, square, mark)
    return board


# Raising ValueError and answering None are easy for code that computes nothing, so each such
# check pays only once the functions it calls also answer correctly: the README's examples and
# the oracle's positions, for each function it calls.
WINNER_CORRECT = ("test_winner_examples", "test_winner_every_line")
SCORE_CORRECT = ("test_score_examples", "test_score_finished_boards")
MINIMAX_CORRECT = ("test_minimax_examples", "test_minimax_sampled_positions")
BEST_MOVE_CORRECT = ("test_best_move_examples", "test_best_move_sampled_positions")


MALFORMED = [
    "", " ", "X", "XO", "XXOO", "        ", "          ", "XOXOXOXOXO", "X" * 12,
    "xxx      ", "X o      ", "XO.      ", "0        ", "X-O------", "XX\tOO    ",
    "XXOO\n    ", " " * 8 + "_", "XOX OXOX*", "ХОХ      ",
]
BAD_COUNTS = [
    "XX       ", "O        ", "XXX      ", "OOO      ", "OO X     ", "XXXOO  X ",
    "XXXXXXXXX", "OOOOOOOOO", "X O O O  ", "XXOX  X  ", "XOXOXOXOO", "OXO      ",
]


# --------------------------------------------------------------------------
# winner
# --------------------------------------------------------------------------

@pytest.mark.points(2)
@pytest.mark.hint("There are 8 lines: 3 rows, 3 columns and both diagonals (0-4-8 and 2-4-6).")
def test_winner_every_line(student):
    """winner finds every one of the 8 lines, for X and for O"""
    for line in LINES:
        for mark in SIDES:
            assert student.winner(line_board(line, mark)) == mark
            # The same line among other pieces that make no line of their own.
            rest = [square for square in range(9) if square not in line]
            for filler_squares in (rest[:2], rest[1:4:2], rest[-2:]):
                board = line_board(line, mark)
                for square in filler_squares:
                    board = put(board, square, other(mark))
                assert student.winner(board) == mark


@pytest.mark.requires(*WINNER_CORRECT)
@pytest.mark.hint(
    "With no three in a line, winner returns None: also on a full board that is a draw. This "
    "check counts once winner finds the lines that are there."
)
def test_winner_none(student, rng):
    """winner returns None when nobody has a line"""
    boards = [EMPTY_BOARD, "XX OO    ", "XO       ", "X O X O  ", "XXOOOXXOX"]
    boards += full_draws()
    boards += rng.sample(positions_where(lambda b: owner(b) is None and " " in b), 20)
    for board in boards:
        assert student.winner(board) is None


@pytest.mark.hint(
    "winner and score look only at the board's lines (and, for score, at its empty squares): "
    "they do not check whose turn it is or the counts."
)
def test_winner_and_score_ignore_counts(student):
    """winner and score accept hand-made boards with any counts"""
    assert student.winner("XXX      ") == "X"
    assert student.winner("OOO      ") == "O"
    assert student.winner("   OOO   ") == "O"
    assert student.winner("X   X   X") == "X"
    assert student.winner("O   OO  O") == "O"
    assert student.winner("XXXXXXXXX") == "X"
    assert student.winner("XX       ") is None
    assert student.winner("OO O     ") is None
    assert student.score("XXX      ", "X") == 1
    assert student.score("XXX      ", "O") == -1
    assert student.score("  O  O  O", "O") == 1
    assert student.score("  O  O  O", "X") == -1


@pytest.mark.hint("Compare winner with your own games: a side wins as soon as it completes any of the 8 lines.")
def test_winner_on_real_positions(student, rng):
    """winner on positions from real games"""
    boards = terminal_positions()
    boards = rng.sample(boards, 150) + rng.sample(live_positions(), 50)
    for board in boards:
        assert student.winner(board) == owner(board)


@pytest.mark.requires(*WINNER_CORRECT)
@pytest.mark.hint(
    "A board is exactly 9 characters, each 'X', 'O' or ' '; anything else is a ValueError. This "
    "check counts once winner answers correctly."
)
def test_winner_rejects_malformed_boards(student):
    """winner rejects boards of the wrong length or with other characters"""
    for board in MALFORMED:
        with pytest.raises(ValueError):
            student.winner(board)


# --------------------------------------------------------------------------
# score
# --------------------------------------------------------------------------

@pytest.mark.points(2)
@pytest.mark.hint("score is +1 when ai won, -1 when the other side won and 0 for a full board with no line.")
def test_score_finished_boards(student, rng):
    """score on finished boards, for both sides"""
    boards = full_draws() + rng.sample(terminal_positions(), 60)
    for board in boards:
        for side in SIDES:
            assert student.score(board, side) == outcome(board, side)


@pytest.mark.requires(*SCORE_CORRECT)
@pytest.mark.hint(
    "A game is over only when a side has a line or no square is empty; otherwise score raises "
    "ValueError, whichever ai it is asked for. This check counts once score answers correctly."
)
def test_score_rejects_unfinished_games(student, rng):
    """score raises ValueError while the game is still going"""
    boards = [EMPTY_BOARD, "XX OO    ", "XOXOXOOX ", "XX       ", " OOXXOXOX"]
    boards += rng.sample(live_positions(), 25)
    for index, board in enumerate(boards):
        with pytest.raises(ValueError):
            student.score(board, SIDES[index % 2])


@pytest.mark.requires(*SCORE_CORRECT)
@pytest.mark.hint(
    "score checks its board like winner does: exactly 9 characters, each 'X', 'O' or ' '. This "
    "check counts once score answers correctly."
)
def test_score_rejects_malformed_boards(student):
    """score rejects boards of the wrong length or with other characters"""
    for index, board in enumerate(MALFORMED):
        with pytest.raises(ValueError):
            student.score(board, SIDES[index % 2])


@pytest.mark.requires(*SCORE_CORRECT, *MINIMAX_CORRECT)
@pytest.mark.hint(
    "ai must be exactly 'X' or 'O'; anything else is a ValueError, in score and in minimax, on "
    "finished and unfinished boards. This check counts once score and minimax answer correctly."
)
def test_bad_ai_rejected(student):
    """score and minimax reject an ai that is not 'X' or 'O'"""
    for ai in ("x", "o", "Z", "0"):
        with pytest.raises(ValueError):
            student.score("XOXXOOOXX", ai)
        with pytest.raises(ValueError):
            student.score("XXXOO    ", ai)
        with pytest.raises(ValueError):
            student.minimax("XX OO    ", ai)


# --------------------------------------------------------------------------
# minimax
# --------------------------------------------------------------------------

@pytest.mark.call_timeout(60)
@pytest.mark.timeout(180)
@pytest.mark.hint(
    "After X's first move the side to move is O, and after O's reply it is X again. The value is "
    "for ai, whoever moves next: search every reply to the end of the game."
)
def test_minimax_after_first_move(student):
    """minimax after each first move"""
    for square in range(9):
        board = put(EMPTY_BOARD, square, "X")
        side = SIDES[square % 2]
        assert student.minimax(board, side) == value(board, side)
        # Every first move is worth the same, so a constant could pass the line above: a reply that
        # loses for O gives a position worth +1 to X and -1 to O, which no constant matches.
        losing = [reply for reply in empties(board) if value(put(board, reply, "O"), "O") == -1]
        assert losing  # the oracle's own sanity check: every first move has a reply that loses
        after = put(board, losing[0], "O")
        for ai in SIDES:
            assert student.minimax(after, ai) == value(after, ai)


@pytest.mark.points(3)
@pytest.mark.hint(
    "Maximise on ai's turns and minimise on the other side's; the side to move follows from the "
    "counts (X when they are equal). Return a plain int: 1, 0 or -1."
)
def test_minimax_sampled_positions(student, rng):
    """minimax on sampled positions, for both sides"""
    boards = stratified(rng, [(live_positions(count), 10) for count in range(2, 9)])
    boards += rng.sample(searched_positions(), 20)
    rng.shuffle(boards)
    for board in boards:
        for side in rng.sample(SIDES, 2):
            got = student.minimax(board, side)
            assert type(got) is int
            assert got == value(board, side)


@pytest.mark.hint("On a finished board there is nothing left to play: minimax is that board's score.")
def test_minimax_on_finished_boards(student, rng):
    """minimax on finished boards equals their score"""
    boards = full_draws() + rng.sample(terminal_positions(), 40)
    for board in boards:
        for side in SIDES:
            assert student.minimax(board, side) == outcome(board, side)


@pytest.mark.points(2)
@pytest.mark.requires(*MINIMAX_CORRECT)
@pytest.mark.hint(
    "minimax checks that the position is plausible: 9 characters of 'X', 'O' and ' ', X has as "
    "many pieces as O or one more, and at most one side has a line. This check counts once "
    "minimax answers correctly."
)
def test_minimax_rejects_impossible_boards(student, rng):
    """minimax rejects bad counts, two winners and malformed boards"""
    boards = BAD_COUNTS + ["XXXOOO   ", "XO XO XO ", "XXXOOOX  "]
    boards += rng.sample(two_winner_boards(), 12) + MALFORMED
    for index, board in enumerate(boards):
        with pytest.raises(ValueError):
            student.minimax(board, SIDES[index % 2])


# --------------------------------------------------------------------------
# best_move
# --------------------------------------------------------------------------

@pytest.mark.points(3)
@pytest.mark.hint(
    "Return an empty square, as an int from 0 to 8, whose position is worth as much to the side "
    "to move as the best it can force; any such square is accepted."
)
def test_best_move_sampled_positions(student, rng):
    """best_move on sampled positions is an optimal empty square"""
    boards = stratified(rng, [(live_positions(count), 10) for count in range(2, 9)])
    boards += rng.sample(searched_positions(), 20)
    rng.shuffle(boards)
    for board in boards:
        assert_optimal_move(student, board)


@pytest.mark.points(2)
@pytest.mark.hint("When the side to move can force a win, a move that only draws is not good enough.")
def test_best_move_keeps_a_won_game_won(student, rng):
    """best_move keeps a forced win"""
    won = positions_where(lambda b: not is_over(b) and value(b, to_move(b)) == 1)
    boards = list(FORCED_WINS)
    boards += stratified(rng, [([b for b in won if pieces(b) == count], 6) for count in range(2, 9)])
    for board in boards:
        assert_optimal_move(student, board)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Look ahead to the end of the game: a move that leaves no threat right now can still let the "
    "opponent set up two threats at once."
)
def test_best_move_avoids_traps(student, rng):
    """best_move avoids moves that look safe but lose"""
    boards = list(CLASSIC_TRAPS) + rng.sample(trap_positions(), 15)
    for board in boards:
        assert_optimal_move(student, board)


@pytest.mark.points(4)
@pytest.mark.call_timeout(60)
@pytest.mark.timeout(180)
@pytest.mark.hint(
    "Playing X, best_move must never lose, whatever O does, and always return an empty square "
    "as an int. Search to the end of the game; don't stop at the first move that looks good."
)
def test_never_loses_as_x(student):
    """never loses as X against every line of play"""
    assert worst_result(student, EMPTY_BOARD, "X") >= 0


@pytest.mark.points(4)
@pytest.mark.call_timeout(60)
@pytest.mark.timeout(180)
@pytest.mark.hint(
    "Playing O, best_move must never lose, whatever X does, and always return an empty square "
    "as an int. O moves when X has one piece more, and O maximises its own result."
)
def test_never_loses_as_o(student):
    """never loses as O against every line of play"""
    assert worst_result(student, EMPTY_BOARD, "O") >= 0


@pytest.mark.points(2)
@pytest.mark.hint(
    "From any position, keep playing best_move: a forced win must end in a win, and a draw must "
    "never turn into a loss. Every move must be an empty square, as an int."
)
def test_plays_out_positions(student, rng):
    """plays out won and drawn positions against every reply"""
    def group(count, result):
        return [b for b in live_positions(count) if value(b, to_move(b)) == result]

    boards = stratified(rng, [(group(count, 1), 2) for count in (2, 3, 4, 5)])
    boards += stratified(rng, [(group(count, 0), 2) for count in (2, 3, 4, 5)])
    for board in boards:
        me = to_move(board)
        assert worst_result(student, board, me) == value(board, me)


@pytest.mark.points(2)
@pytest.mark.requires(*BEST_MOVE_CORRECT)
@pytest.mark.hint(
    "A game that is over has no move: best_move raises ValueError when a side has a line or the "
    "board is full. This check counts once best_move answers correctly."
)
def test_best_move_rejects_finished_games(student, rng):
    """best_move raises ValueError when the game is over"""
    boards = full_draws() + ["XXXOO    ", "XO XO X  ", "XXOXO O  ", "XXOXOOXOX"]
    x_wins = positions_where(lambda b: owner(b) == "X")
    o_wins = positions_where(lambda b: owner(b) == "O")
    boards += rng.sample(x_wins, 12) + rng.sample(o_wins, 12)
    for board in boards:
        with pytest.raises(ValueError):
            student.best_move(board)


@pytest.mark.points(2)
@pytest.mark.requires(*BEST_MOVE_CORRECT)
@pytest.mark.hint(
    "best_move checks the position like minimax: 9 characters of 'X', 'O' and ' ', X has as "
    "many pieces as O or one more, and at most one side has a line. This check counts once "
    "best_move answers correctly."
)
def test_best_move_rejects_impossible_boards(student, rng):
    """best_move rejects bad counts, two winners and malformed boards"""
    boards = BAD_COUNTS + ["XXXOOO   ", "XO XO XO ", "XXXOOOX  "]
    boards += rng.sample(two_winner_boards(), 12) + MALFORMED
    for board in boards:
        with pytest.raises(ValueError):
            student.best_move(board)

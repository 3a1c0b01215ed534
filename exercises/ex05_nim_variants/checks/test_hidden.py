"""Hidden checks for ex05 (Nim variants); never shipped to students.

Expected values come from verified facts and from closed
forms: the nim-sum for normal play, the misère rule, and Grundy values for
the split game, computed by the small table below (written here on purpose
rather than imported from solutions/). The move orders are checked against
tiny generators written here too.

Every random position is drawn from the ``rng`` fixture inside a check, so a
run is reproducible from its seed. The random positions are kept small: the
checks that need a memo are the ones marked with ``call_timeout``.
"""

from functools import reduce
from operator import xor

import pytest

VARIANTS = ("misere", "normal", "split")

# A memoised search answers every position in the memo checks in well under
# 0.2 s, even keyed on unsorted Nim states and without pruning. Without a
# memo, or with split states used unsorted as keys, the same calls take from
# 8 s to several minutes. See exercise.toml for the measurements.
MEMO_CALL_TIMEOUT = 4.0

# Raising ValueError is easy for code that computes nothing, so each bad-input check pays only
# once the functions it calls also answer correctly: the README's examples and the positions of
# every variant, for each function it calls.
MOVES_CORRECT = ("test_nim_moves_random_states", "test_split_moves_random_states")
MINIMAX_CORRECT = ("test_minimax_examples", "test_same_position_every_variant_and_player")
BEST_MOVE_CORRECT = ("test_verified_best_moves",)


# --------------------------------------------------------------------------
# The oracle: move lists, Grundy values and the closed forms.
# --------------------------------------------------------------------------

def oracle_nim_moves(piles):
    """Every removal, pile by pile, fewest counters left first."""
    return [piles[:i] + (left,) + piles[i + 1:] for i in range(len(piles)) for left in range(piles[i])]


def oracle_split_moves(piles):
    """Every unequal split, pile by pile, the bigger part first, smallest `take` first."""
    return [
        piles[:i] + (piles[i] - take, take) + piles[i + 1:]
        for i in range(len(piles))
        for take in range(1, piles[i])
        if take < piles[i] - take
    ]


def oracle_moves(piles, variant):
    """The moves of a variant."""
    return oracle_split_moves(piles) if variant == "split" else oracle_nim_moves(piles)


def grundy_table(limit):
    """Grundy values of single piles in the split game, 0..limit, by the mex rule."""
    values = []
    for n in range(limit + 1):
        reachable = {values[n - take] ^ values[take] for take in range(1, n) if take < n - take}
        mex = 0
        while mex in reachable:
            mex += 1
        values.append(mex)
    return values


GRUNDY = grundy_table(60)
# The table must agree with OEIS A002188 (verified values).
assert GRUNDY[:30] == [0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3, 0, 4, 3, 0, 4, 3, 0, 4, 1, 2]


def nim_sum(numbers):
    """The xor of the numbers."""
    return reduce(xor, numbers, 0)


def mover_loses(piles, variant):
    """True when the player to move loses with perfect play (closed forms)."""
    if variant == "normal":
        return nim_sum(piles) == 0
    if variant == "misere":
        if all(p <= 1 for p in piles):
            return sum(piles) % 2 == 1  # an odd number of single counters: the mover takes the last
        return nim_sum(piles) == 0
    return nim_sum(GRUNDY[p] for p in piles) == 0


def expected_minimax(piles, is_maximizing, variant):
    """+1 if Max wins, -1 if Max loses."""
    mover_score = -1 if mover_loses(piles, variant) else 1
    return mover_score if is_maximizing else -mover_score


def expected_best_move(piles, variant):
    """The largest (score, new_state), where a new state lost for its mover scores +1."""
    return max((1 if mover_loses(child, variant) else -1, child) for child in oracle_moves(piles, variant))


def is_over(piles, variant):
    """True when the player to move has no move."""
    return not oracle_moves(piles, variant)


# --------------------------------------------------------------------------
# Random positions. Every generator takes the check's rng.
# --------------------------------------------------------------------------

def random_nim_position(rng, max_piles=4, max_pile=5, max_total=10):
    """A few small piles, zeros included."""
    while True:
        piles = tuple(rng.randint(0, max_pile) for _ in range(rng.randint(1, max_piles)))
        if sum(piles) <= max_total:
            return piles


def random_lost_nim_position(rng, max_total=10):
    """Piles whose nim-sum is 0 (lost in normal play): every move ties at -1."""
    while True:
        piles = [rng.randint(0, 5) for _ in range(rng.randint(1, 3))]
        piles.insert(rng.randint(0, len(piles)), nim_sum(piles))
        if 0 < sum(piles) <= max_total:
            return tuple(piles)


def random_misere_endgame(rng):
    """Mostly single counters, perhaps one bigger pile: where misère and normal differ."""
    piles = [rng.choice((0, 1, 1)) for _ in range(rng.randint(1, 6))]
    if rng.random() < 0.5:
        piles.insert(rng.randint(0, len(piles)), rng.randint(2, 4))
    return tuple(piles)


def random_split_position(rng, max_total=16):
    """One to three piles for the split game, small and dead piles included."""
    while True:
        piles = tuple(rng.randint(0, 14) for _ in range(rng.randint(1, 3)))
        if sum(piles) <= max_total:
            return piles


def nim_positions(rng, count):
    """A mix of random, lost and endgame positions for misère and normal play."""
    makers = (random_nim_position, random_lost_nim_position, random_misere_endgame)
    return [makers[i % 3](rng) for i in range(count)]


def playable(positions, variant):
    """Only the positions where a move is left."""
    return [p for p in positions if not is_over(p, variant)]


# --------------------------------------------------------------------------
# The verified facts.
# --------------------------------------------------------------------------

@pytest.mark.hint(
    "Go pile by pile, left to right; within a pile, the number of counters left goes from 0 up. "
    "Yield tuples."
)
def test_nim_moves_worked_example(student):
    """nim_moves of the worked example"""
    assert student.nim_moves((2, 3, 5)) == [
        (0, 3, 5), (1, 3, 5), (2, 0, 5), (2, 1, 5), (2, 2, 5),
        (2, 3, 0), (2, 3, 1), (2, 3, 2), (2, 3, 3), (2, 3, 4),
    ]


@pytest.mark.hint("A split replaces the pile with (counters - take, take), take = 1, 2, ... while take < counters - take.")
def test_split_moves_worked_example(student):
    """split_moves of a pile of six"""
    assert student.split_moves((6,)) == [(5, 1), (4, 2)]


@pytest.mark.points(2)
@pytest.mark.hint(
    "best_move returns a (score, new_state) tuple: the player to move is Max and the opponent "
    "moves next, so each move is scored with Min to move; the best score wins, and among equal "
    "scores the largest new state."
)
def test_verified_best_moves(student):
    """the verified best moves of all three variants"""
    assert student.best_move((2, 3, 5), "misere") == (1, (2, 3, 1))
    assert student.best_move((2, 3, 1), "misere") == (-1, (2, 3, 0))
    assert student.best_move((2, 3, 5), "normal") == (1, (2, 3, 1))
    assert student.best_move((6,), "split") == (1, (4, 2))
    assert student.best_move((7,), "split") == (-1, (6, 1))


# --------------------------------------------------------------------------
# The move generators: their order is part of the spec.
# --------------------------------------------------------------------------

@pytest.mark.hint(
    "Empty piles give no moves, and a state with no piles has no moves; each new state is a "
    "tuple of the same length."
)
def test_nim_moves_small_states(student):
    """nim_moves on empty and tiny states"""
    for piles in [(), (0,), (0, 0, 0), (1,), (3,), (1, 0, 2), (0, 4, 0)]:
        assert student.nim_moves(piles) == oracle_nim_moves(piles)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Piles left to right; within a pile, the number LEFT goes 0, 1, ..., counters - 1 (not the "
    "number taken)."
)
def test_nim_moves_random_states(student, rng):
    """nim_moves on random states, in order"""
    states = [tuple(rng.randint(0, 9) for _ in range(rng.randint(1, 6))) for _ in range(30)]
    for piles in states:
        assert student.nim_moves(piles) == oracle_nim_moves(piles)


@pytest.mark.hint(
    "Piles of 0, 1 and 2 cannot be split, and two equal halves are not a split: take < counters "
    "- take."
)
def test_split_moves_small_states(student):
    """split_moves on empty, tiny and even piles"""
    assert student.split_moves(()) == []
    assert student.split_moves((0, 1, 2)) == []
    assert student.split_moves((2, 2, 1)) == []
    assert student.split_moves((3,)) == [(2, 1)]
    assert student.split_moves((4,)) == [(3, 1)]
    assert student.split_moves((8,)) == [(7, 1), (6, 2), (5, 3)]
    assert student.split_moves((5, 3)) == [(4, 1, 3), (3, 2, 3), (5, 2, 1)]


@pytest.mark.points(2)
@pytest.mark.hint(
    "The pile is replaced IN PLACE by two piles, the bigger one first, and every other pile keeps "
    "its position, as in the README's example for (1, 4)."
)
def test_split_moves_random_states(student, rng):
    """split_moves on random states, in order"""
    states = [tuple(rng.randint(0, 13) for _ in range(rng.randint(1, 5))) for _ in range(30)]
    for piles in states:
        assert student.split_moves(piles) == oracle_split_moves(piles)


# --------------------------------------------------------------------------
# minimax: finished games, then the closed forms.
# --------------------------------------------------------------------------

FINISHED = {
    "misere": [(), (0,), (0, 0, 0)],
    "normal": [(), (0,), (0, 0)],
    "split": [(), (0,), (1,), (2,), (1, 2, 0, 2, 1)],
}


@pytest.mark.points(2)
@pytest.mark.hint(
    "When no move is left: in misère the player to move has WON (the other took the last "
    "counter); in normal and split they have LOST. The score is Max's: +1 when Max has won, -1 "
    "when Max has lost, whoever is to move."
)
def test_minimax_on_finished_games(student):
    """minimax returns the score of a finished game"""
    for variant, states in FINISHED.items():
        for piles in states:
            for is_maximizing in (True, False):
                assert student.minimax(piles, is_maximizing, variant) == expected_minimax(piles, is_maximizing, variant)


@pytest.mark.hint("Keep the parameter names: state, is_maximizing and variant (and state, variant for best_move).")
def test_keyword_arguments(student):
    """calls with keyword arguments"""
    assert student.minimax((1, 2), is_maximizing=True, variant="misere") == 1
    assert student.minimax(state=(3,), is_maximizing=False, variant="split") == -1
    assert student.best_move((2, 3, 5), variant="normal") == (1, (2, 3, 1))
    assert student.best_move(state=(7,), variant="split") == (-1, (6, 1))
    assert student.nim_moves(state=(0, 2)) == [(0, 0), (0, 1)]
    assert student.split_moves(state=(0, 4)) == [(0, 3, 1)]


@pytest.mark.points(2)
@pytest.mark.hint(
    "Misère: taking the last counter loses, so a player facing only empty piles has won. With "
    "only single counters left, the player to move loses when their number is odd."
)
def test_misere_random_positions(student, rng):
    """misère positions against the closed form"""
    for index, piles in enumerate(nim_positions(rng, 36)):
        is_maximizing = index % 2 == 0
        assert student.minimax(piles, is_maximizing, "misere") == expected_minimax(piles, is_maximizing, "misere")


@pytest.mark.points(2)
@pytest.mark.hint(
    "Normal play: taking the last counter wins, so a player facing only empty piles has lost."
)
def test_normal_random_positions(student, rng):
    """normal-play positions against the nim-sum"""
    for index, piles in enumerate(nim_positions(rng, 36)):
        is_maximizing = index % 2 == 1
        assert student.minimax(piles, is_maximizing, "normal") == expected_minimax(piles, is_maximizing, "normal")


@pytest.mark.points(2)
@pytest.mark.hint(
    "Split game: a player who cannot split any pile has lost; piles of 1 and 2 cannot be split."
)
def test_split_random_positions(student, rng):
    """split positions against the Grundy values"""
    positions = [random_split_position(rng) for _ in range(30)] + [(n,) for n in rng.sample(range(3, 17), 6)]
    for index, piles in enumerate(positions):
        is_maximizing = index % 2 == 0
        assert student.minimax(piles, is_maximizing, "split") == expected_minimax(piles, is_maximizing, "split")


@pytest.mark.points(2)
@pytest.mark.hint(
    "Each variant keeps its own moves and its own ending, for either player to move; and the "
    "memo key must hold everything the answer depends on: the piles, whose turn it is and the "
    "variant."
)
def test_same_position_every_variant_and_player(student, rng):
    """one position under every variant, for either player"""
    positions = [(1, 1), (1,), (3,), (1, 1, 1), (2, 1, 3), (4, 1), (1, 4, 2), (6,), (1, 1, 5)]
    positions += [random_misere_endgame(rng) for _ in range(4)]
    for piles in positions:
        for variant in ("misere", "normal", "split", "normal", "misere"):
            for is_maximizing in (True, False, True):
                assert student.minimax(piles, is_maximizing, variant) == expected_minimax(piles, is_maximizing, variant)


# --------------------------------------------------------------------------
# best_move: the score and the tie-break.
# --------------------------------------------------------------------------

@pytest.mark.points(2)
@pytest.mark.hint(
    "Score each move with minimax(new_state, False, variant); among moves with the best score, "
    "return the LARGEST new state: take the max over (score, new_state) tuples."
)
def test_best_move_misere(student, rng):
    """misère best moves and their tie-breaks"""
    fixed = [(1, 1), (1, 1, 1), (2, 1, 1), (1, 0, 3), (1, 2, 3), (4, 4)]
    for piles in fixed + playable(nim_positions(rng, 30), "misere"):
        assert student.best_move(piles, "misere") == expected_best_move(piles, "misere")


@pytest.mark.points(2)
@pytest.mark.hint(
    "Score each move with minimax(new_state, False, variant); among moves with the best score, "
    "return the LARGEST new state: take the max over (score, new_state) tuples."
)
def test_best_move_normal(student, rng):
    """normal-play best moves and their tie-breaks"""
    fixed = [(1, 1), (1,), (2, 1, 1), (1, 0, 3), (1, 2, 3), (4, 4)]
    for piles in fixed + playable(nim_positions(rng, 30), "normal"):
        assert student.best_move(piles, "normal") == expected_best_move(piles, "normal")


@pytest.mark.points(2)
@pytest.mark.hint(
    "Score each split with minimax(new_state, False, 'split'), and return the new state exactly "
    "as split_moves gives it (not sorted); ties go to the largest new state."
)
def test_best_move_split(student, rng):
    """split best moves and their tie-breaks"""
    fixed = [(7,), (10,), (1, 5), (3, 3), (2, 9, 1), (4, 5)]
    positions = [random_split_position(rng) for _ in range(24)] + [(n,) for n in rng.sample(range(3, 17), 6)]
    for piles in fixed + playable(positions, "split"):
        assert student.best_move(piles, "split") == expected_best_move(piles, "split")


# --------------------------------------------------------------------------
# Bad input.
# --------------------------------------------------------------------------

UNKNOWN_VARIANTS = ["chess", "Normal", "MISERE", "misère", "", "split ", "grundy", None]


@pytest.mark.requires(*MINIMAX_CORRECT, *BEST_MOVE_CORRECT)
@pytest.mark.hint(
    "minimax and best_move accept only 'misere', 'normal' and 'split', spelt exactly so; "
    "anything else raises ValueError, even on a finished game. This check counts once minimax "
    "and best_move answer correctly."
)
def test_unknown_variants_rejected(student):
    """an unknown variant raises ValueError"""
    for variant in UNKNOWN_VARIANTS:
        with pytest.raises(ValueError):
            student.minimax((2, 3), True, variant)
        with pytest.raises(ValueError):
            student.minimax((0, 0), False, variant)
        with pytest.raises(ValueError):
            student.best_move((5,), variant)


@pytest.mark.requires(*BEST_MOVE_CORRECT)
@pytest.mark.hint(
    "best_move needs a move to choose: when the game is over (check it with the variant's own "
    "rule), raise ValueError. This check counts once best_move answers correctly."
)
def test_best_move_on_finished_games(student):
    """best_move on a finished game raises ValueError"""
    for variant, states in FINISHED.items():
        for piles in states:
            with pytest.raises(ValueError):
                student.best_move(piles, variant)


@pytest.mark.requires(*MOVES_CORRECT, *MINIMAX_CORRECT, *BEST_MOVE_CORRECT)
@pytest.mark.hint(
    "A negative pile raises ValueError in all four functions, whichever pile it is and whatever "
    "the variant. This check counts once all four functions answer correctly."
)
def test_negative_piles_rejected(student):
    """a negative pile raises ValueError"""
    bad_states = [(-1,), (3, -1), (-2, 0, 4), (5, 2, -7)]
    for piles in bad_states:
        with pytest.raises(ValueError):
            student.nim_moves(piles)
        with pytest.raises(ValueError):
            student.split_moves(piles)
        for variant in VARIANTS:
            with pytest.raises(ValueError):
                student.minimax(piles, True, variant)
            with pytest.raises(ValueError):
                student.best_move(piles, variant)


# --------------------------------------------------------------------------
# Positions that need a memo.
# --------------------------------------------------------------------------

@pytest.mark.points(2)
@pytest.mark.call_timeout(MEMO_CALL_TIMEOUT)
@pytest.mark.hint(
    "Four piles of a few counters each need a memo: remember the value of every position you "
    "have solved. The answers follow the same rules as on small positions, ties included."
)
def test_memo_four_piles_normal(student):
    """four piles in normal play (needs a memo)"""
    assert student.minimax((4, 4, 4, 4), True, "normal") == -1
    assert student.best_move((4, 4, 5, 5), "normal") == (-1, (4, 4, 5, 4))
    assert student.best_move((3, 6, 5, 6), "normal") == expected_best_move((3, 6, 5, 6), "normal")


@pytest.mark.points(2)
@pytest.mark.call_timeout(MEMO_CALL_TIMEOUT)
@pytest.mark.hint(
    "Four piles of a few counters each need a memo: remember the value of every position you "
    "have solved. The answers follow the same rules as on small positions, ties included."
)
def test_memo_four_piles_misere(student):
    """four piles in misère play (needs a memo)"""
    assert student.minimax((4, 4, 4, 4), False, "misere") == 1
    assert student.best_move((5, 4, 5, 4), "misere") == (-1, (5, 4, 5, 3))
    assert student.best_move((2, 7, 5, 6), "misere") == expected_best_move((2, 7, 5, 6), "misere")


@pytest.mark.points(2)
@pytest.mark.call_timeout(MEMO_CALL_TIMEOUT)
@pytest.mark.hint(
    "A big split pile needs a memo keyed on the SORTED piles: the same piles turn up in many "
    "orders. The answers follow the same rules as on small piles, ties included."
)
def test_memo_split_single_pile(student):
    """a single big split pile (needs a sorted memo)"""
    assert student.minimax((25,), True, "split") == 1
    assert student.best_move((26,), "split") == (-1, (25, 1))


@pytest.mark.points(2)
@pytest.mark.call_timeout(MEMO_CALL_TIMEOUT)
@pytest.mark.hint(
    "Large positions of every variant must be answered quickly: memoise, and sort the piles of "
    "split states for the key. The answers follow the same rules as on small positions, ties "
    "included."
)
def test_memo_random_large_positions(student, rng):
    """random large positions (needs a memo)"""
    for _ in range(3):
        piles = [rng.randint(3, 5) for _ in range(3)]
        piles.insert(rng.randint(0, 3), nim_sum(piles))  # lost: every move must be refuted
        piles = tuple(piles)
        variant = rng.choice(("misere", "normal"))
        assert student.best_move(piles, variant) == expected_best_move(piles, variant)
    for n in rng.sample(range(21, 27), 2):
        assert student.best_move((n,), "split") == expected_best_move((n,), "split")

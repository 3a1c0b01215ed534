"""Hidden checks for ex09 (Nim theory); never shipped to students.

Expected answers come from the closed forms (Bouton's nim-sum rule, the misere
rule, Sprague-Grundy), from OEIS A002188, from a Grundy table built here, and,
for small positions, from a tiny brute-force search written here. Nothing is
imported from solutions/.

Where several moves win, any is accepted: an answer is judged by being a legal
move from the position that leaves a position lost for the player then to
move. ``None`` is required exactly when no such move exists.

Every random position is drawn from the ``rng`` fixture inside a check, so a
run is reproducible from its seed.
"""

import functools
import itertools

import pytest

HUGE = 10**18

# Raising for negative piles, answering None and answering with a legal move are easy for code
# that computes nothing (raise for everything, return None), so each of those checks pays only
# once the function it calls also answers correctly: the README's examples and random positions.
NIM_SUM_CORRECT = ("test_nim_sum_examples", "test_nim_sum_random")
WINNING_MOVE_CORRECT = ("test_winning_move_examples", "test_normal_random_positions",
                        "test_misere_random_positions")
GRUNDY_CORRECT = ("test_grundy_first_values", "test_grundy_oeis_a002188")
SPLIT_CORRECT = ("test_split_winning_move_examples", "test_split_random_positions")


# --------------------------------------------------------------------------
# Oracles: closed forms, a brute-force search for small positions, and the
# Grundy table.
# --------------------------------------------------------------------------

def xor_of(values):
    """XOR of the values, 0 for none."""
    return functools.reduce(lambda left, right: left ^ right, values, 0)


def normal_lost(piles):
    """Normal play: the player to move loses iff the nim-sum is 0 (Bouton)."""
    return xor_of(piles) == 0


def misere_lost(piles):
    """Misere play: lost iff (all piles <= 1 and an odd number of 1-piles) or (some pile >= 2 and nim-sum 0)."""
    if all(counters <= 1 for counters in piles):
        return sum(piles) % 2 == 1
    return xor_of(piles) == 0


def lost(piles, misere):
    """Whether the player to move loses, by the closed form of the rule set."""
    return misere_lost(piles) if misere else normal_lost(piles)


def no_winning_move(piles, misere):
    """True exactly when winning_move must return None: the position is lost, or there is no move."""
    return all(counters == 0 for counters in piles) or lost(piles, misere)


@functools.lru_cache(maxsize=None)
def brute_force_wins(piles, misere):
    """Whether the player to move wins, found by trying every move (``piles`` sorted, small)."""
    if all(counters == 0 for counters in piles):
        # The previous player took the last counter.
        return misere
    for index, counters in enumerate(piles):
        for remain in range(counters):
            after = tuple(sorted(piles[:index] + (remain,) + piles[index + 1:]))
            if not brute_force_wins(after, misere):
                return True
    return False


def is_plain_int(value):
    """An int that is not a bool."""
    return type(value) is int


def is_nim_move(before, after):
    """Whether ``after`` is a tuple reached from ``before`` by taking counters from exactly one pile."""
    if type(after) is not tuple or len(after) != len(before):
        return False
    if not all(is_plain_int(counters) for counters in after):
        return False
    changed = [index for index in range(len(before)) if before[index] != after[index]]
    return len(changed) == 1 and 0 <= after[changed[0]] < before[changed[0]]


def assert_nim_answer(answer, piles, misere):
    """The answer is None exactly when no move wins; otherwise a legal move to a lost position."""
    if no_winning_move(piles, misere):
        assert answer is None
    else:
        assert answer is not None
        assert is_nim_move(piles, answer)
        assert lost(answer, misere)


def build_grundy_table(limit):
    """Grundy values of Grundy's game for piles 0..limit, each the mex of its unequal splits."""
    table = []
    for size in range(limit + 1):
        reachable = set()
        larger = size - 1
        while larger > size - larger:  # the split (larger, size - larger), larger part first
            reachable.add(table[larger] ^ table[size - larger])
            larger -= 1
        value = 0
        while value in reachable:
            value += 1
        table.append(value)
    return table


GRUNDY_LIMIT = 300
GRUNDY = build_grundy_table(GRUNDY_LIMIT)

# OEIS A002188.
A002188 = [0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3, 0, 4, 3, 0, 4, 3, 0, 4, 1, 2]
assert GRUNDY[:30] == A002188, "the check file's Grundy table disagrees with OEIS A002188"

# First-player losses of a single pile, up to 60 (worked out by hand and by search).
SINGLE_PILE_LOSSES = {0, 1, 2, 4, 7, 10, 20, 23, 26, 50, 53}


def split_moves(piles):
    """Every split of one pile into (counters - take, take) with 1 <= take < counters - take, in place."""
    moves = []
    for index, counters in enumerate(piles):
        take = 1
        while take < counters - take:
            moves.append(piles[:index] + (counters - take, take) + piles[index + 1:])
            take += 1
    return moves


def grundy_xor(piles):
    """XOR of the Grundy values of the piles."""
    return xor_of(GRUNDY[counters] for counters in piles)


def assert_split_answer(answer, piles):
    """None exactly when the Grundy XOR is 0; otherwise one of the split moves, leaving XOR 0."""
    if grundy_xor(piles) == 0:
        assert answer is None
    else:
        assert type(answer) is tuple
        assert answer in split_moves(piles)
        assert grundy_xor(answer) == 0


# --------------------------------------------------------------------------
# Random positions. Every generator takes the check's rng.
# --------------------------------------------------------------------------

def random_piles(rng, count, top):
    """``count`` piles of 0..top counters, with small and equal piles mixed in often."""
    piles = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.15:
            piles.append(rng.choice((0, 1)))
        elif roll < 0.25 and piles:
            piles.append(rng.choice(piles))
        else:
            piles.append(rng.randint(0, top))
    return tuple(piles)


def made_lost_for_nim(rng, count, top):
    """A position with nim-sum 0: random piles, then one pile equal to their XOR, put anywhere."""
    piles = list(random_piles(rng, count - 1, top))
    piles.insert(rng.randint(0, len(piles)), xor_of(piles))
    return tuple(piles)


def huge_pile(rng):
    """A pile of up to 10**18 counters, often close to it, sometimes a power of two."""
    roll = rng.random()
    if roll < 0.2:
        return HUGE - rng.randint(0, 10)
    if roll < 0.3:
        return 2 ** rng.randint(50, 59)
    return rng.randint(HUGE // 1000, HUGE)


def huge_positions(rng):
    """Positions with piles near 10**18: winning ones, lost ones, and huge leftovers."""
    positions = [
        (HUGE, HUGE - 1, 5),
        (HUGE - 1, HUGE, 5),
        (5, HUGE, HUGE - 1),
        (HUGE, HUGE - 1, 5, 0),
        (HUGE, HUGE),
        (HUGE, HUGE - 1, 1),
        (HUGE, HUGE, 7, 7),
        (HUGE, HUGE - 3, 2, 1),
    ]
    for _ in range(10):
        # Only one pile can shrink here, and its winning move leaves a huge pile.
        big = huge_pile(rng)
        high = 1 << (big.bit_length() - 1)
        others = [rng.randint(0, high - 1) for _ in range(rng.randint(1, 3))] + [rng.randint(0, 1000)]
        piles = [big] + others
        rng.shuffle(piles)
        positions.append(tuple(piles))
    for _ in range(8):
        positions.append(tuple(huge_pile(rng) for _ in range(rng.randint(2, 5))))
    for _ in range(8):
        # Nim-sum 0 with huge piles: a search would have to try every move.
        piles = [huge_pile(rng) for _ in range(rng.randint(1, 4))]
        piles.insert(rng.randint(0, len(piles)), xor_of(piles))
        positions.append(tuple(piles))
    for _ in range(4):
        # One huge pile among zeros and ones: the misere endgame is one move away.
        piles = [huge_pile(rng)] + [rng.choice((0, 1, 1)) for _ in range(rng.randint(0, 4))]
        rng.shuffle(piles)
        positions.append(tuple(piles))
    return positions


# --------------------------------------------------------------------------
# nim_sum.
# --------------------------------------------------------------------------

@pytest.mark.hint("The nim-sum is the XOR (^) of the pile sizes, not their sum; start from 0.")
def test_nim_sum_known_values(student):
    """nim_sum of known positions"""
    known = {
        (2, 3, 5): 4,
        (1, 2, 3): 0,
        (0,): 0,
        (7,): 7,
        (1, 1): 0,
        (6, 6, 6): 6,
        (1, 2, 4, 8): 15,
        (5, 0, 5): 0,
        (HUGE, HUGE - 1, 5): 524282,
    }
    for piles, expected in known.items():
        assert student.nim_sum(piles) == expected


@pytest.mark.hint(
    "XOR every pile, however many there are and however large they get, and return a plain int."
)
def test_nim_sum_random(student, rng):
    """nim_sum of random positions, small and huge"""
    for _ in range(40):
        top = rng.choice((3, 15, 1000, 2**40, HUGE))
        piles = random_piles(rng, rng.randint(1, 9), top)
        got = student.nim_sum(piles)
        assert is_plain_int(got)
        assert got == xor_of(piles)


@pytest.mark.requires(*NIM_SUM_CORRECT)
@pytest.mark.hint(
    "A pile cannot hold a negative number of counters: raise ValueError, wherever the negative "
    "pile sits. This check counts once nim_sum answers correctly."
)
def test_nim_sum_rejects_negative_piles(student):
    """nim_sum rejects negative piles"""
    for piles in [(-1,), (3, -1), (0, 0, -5), (-HUGE, HUGE), (4, -2, 4)]:
        with pytest.raises(ValueError):
            student.nim_sum(piles)


# --------------------------------------------------------------------------
# winning_move under normal play.
# --------------------------------------------------------------------------

@pytest.mark.points(2)
@pytest.mark.hint(
    "Normal play: None when the nim-sum is 0; otherwise the move takes counters from one pile "
    "only and must leave a nim-sum of 0. Return the whole new position as a tuple."
)
def test_normal_known_positions(student):
    """normal play: known positions"""
    known = {
        (2, 3, 5): (2, 3, 1),
        (2, 3, 1): None,
        (1, 2, 3): None,
        (7,): (0,),
        (1,): (0,),
        (1, 1): None,
        (5, 1): (1, 1),
        (0, 4, 0): (0, 0, 0),
        (3, 4, 5): (1, 4, 5),
        (6, 6): None,
    }
    for piles, expected in known.items():
        got = student.winning_move(piles)
        assert got == expected
        assert got is None or type(got) is tuple


@pytest.mark.points(2)
@pytest.mark.hint(
    "Normal play, taking the last counter wins: check your answer against Bouton's rule on "
    "small positions, including empty and equal piles."
)
def test_normal_every_small_position(student):
    """normal play: every position of up to 3 piles of up to 5"""
    for count in (1, 2, 3):
        for piles in itertools.product(range(6), repeat=count):
            answer = student.winning_move(piles)
            wins = brute_force_wins(tuple(sorted(piles)), False)
            assert (answer is not None) == wins
            if wins:
                assert is_nim_move(piles, answer)
                assert not brute_force_wins(tuple(sorted(answer)), False)


@pytest.mark.hint(
    "Normal play on many piles: the answer takes counters from one pile only and leaves a "
    "nim-sum of 0, or is None when the nim-sum already is 0."
)
def test_normal_random_positions(student, rng):
    """normal play: random positions"""
    for _ in range(30):
        piles = random_piles(rng, rng.randint(1, 7), rng.choice((3, 10, 100)))
        assert_nim_answer(student.winning_move(piles), piles, False)
    for _ in range(15):
        piles = made_lost_for_nim(rng, rng.randint(2, 7), rng.choice((3, 10, 100)))
        assert_nim_answer(student.winning_move(piles), piles, False)


@pytest.mark.points(3)
@pytest.mark.hint(
    "Piles of 10**18 counters: only the nim-sum rule answers in time; a search, even a memoised "
    "one, never finishes when the winning move leaves a big pile or no move wins."
)
def test_normal_huge_piles(student, rng):
    """normal play: piles of about 10**18"""
    for piles in huge_positions(rng):
        assert_nim_answer(student.winning_move(piles), piles, False)


# --------------------------------------------------------------------------
# winning_move under misere play.
# --------------------------------------------------------------------------

@pytest.mark.points(2)
@pytest.mark.hint(
    "Misere play: taking the last counter loses. Play as in normal Nim, except when at most one "
    "pile has 2 or more counters: then leave an odd number of 1-piles. Return the new position "
    "as a tuple, or None."
)
def test_misere_known_positions(student):
    """misere play: known positions"""
    known = {
        (2, 3, 5): (2, 3, 1),
        (2, 3, 1): None,
        (1,): None,
        (1, 1, 1): None,
        (5, 1): (0, 1),
        (5,): (1,),
        (2, 2): None,
        (1, 1, 4): (1, 1, 1),
        (0, 7, 1, 0): (0, 0, 1, 0),
        (1, 0): None,
        (1, 1, 0, 1, 1, 1): None,
    }
    for piles, expected in known.items():
        got = student.winning_move(piles, misere=True)
        assert got == expected
        assert got is None or type(got) is tuple


@pytest.mark.points(2)
@pytest.mark.hint(
    "Misere play, taking the last counter loses: check your answer against the rule on small "
    "positions, including the endgame of 0s and 1s."
)
def test_misere_every_small_position(student):
    """misere play: every position of up to 3 piles of up to 5"""
    for count in (1, 2, 3):
        for piles in itertools.product(range(6), repeat=count):
            if not any(piles):  # every pile empty is test_all_piles_empty's rule, and costs only its point
                continue
            answer = student.winning_move(piles, misere=True)
            wins = brute_force_wins(tuple(sorted(piles)), True) and any(piles)
            assert (answer is not None) == wins
            if wins:
                assert is_nim_move(piles, answer)
                assert not brute_force_wins(tuple(sorted(answer)), True)


@pytest.mark.points(2)
@pytest.mark.hint(
    "The misere endgame: with only 0s and 1s the player facing an odd number of 1-piles loses, "
    "and with every pile empty there is no move (None); with one bigger pile, shrink it to 0 or 1 "
    "to leave an odd number of 1-piles."
)
def test_misere_endgame(student, rng):
    """misere play: the endgame of 0s, 1s and at most one bigger pile"""
    for _ in range(20):
        piles = tuple(rng.choice((0, 1, 1)) for _ in range(rng.randint(1, 8)))
        if not any(piles):  # every pile empty is test_all_piles_empty's rule, and costs only its point
            continue
        assert_nim_answer(student.winning_move(piles, misere=True), piles, True)
    for _ in range(20):
        piles = [rng.choice((0, 1, 1)) for _ in range(rng.randint(0, 7))]
        piles.insert(rng.randint(0, len(piles)), rng.choice((2, 3, rng.randint(2, 50))))
        piles = tuple(piles)
        assert_nim_answer(student.winning_move(piles, misere=True), piles, True)


@pytest.mark.hint(
    "Misere play on many piles: with two or more piles of 2 or more, the normal-play move is the "
    "right one."
)
def test_misere_random_positions(student, rng):
    """misere play: random positions"""
    # Other checks wait on this one, so it leaves out every pile empty (drawn as it was, so each
    # seed's other positions stay the same): that is test_all_piles_empty's rule alone.
    for _ in range(30):
        piles = random_piles(rng, rng.randint(1, 7), rng.choice((3, 10, 100)))
        if any(piles):
            assert_nim_answer(student.winning_move(piles, misere=True), piles, True)
    for _ in range(15):
        piles = made_lost_for_nim(rng, rng.randint(2, 7), rng.choice((3, 10, 100)))
        if any(piles):
            assert_nim_answer(student.winning_move(piles, misere=True), piles, True)


@pytest.mark.points(3)
@pytest.mark.hint(
    "Misere play with piles of 10**18 counters: use the rule, not a search, including when one "
    "huge pile sits among 1-piles."
)
def test_misere_huge_piles(student, rng):
    """misere play: piles of about 10**18"""
    for piles in huge_positions(rng) + [(HUGE, 1), (HUGE, 1, 1), (1, 0, HUGE, 1, 1)]:
        assert_nim_answer(student.winning_move(piles, misere=True), piles, True)


# --------------------------------------------------------------------------
# winning_move: None, legality, both ways of passing misere, bad input.
# --------------------------------------------------------------------------

@pytest.mark.requires(*WINNING_MOVE_CORRECT)
@pytest.mark.hint(
    "When every pile is empty there is no move at all, so return None in both rule sets, "
    "however many piles there are. This check counts once winning_move answers correctly."
)
def test_all_piles_empty(student):
    """None when every pile is empty"""
    for piles in [(0,), (0, 0), (0, 0, 0), (0, 0, 0, 0, 0, 0)]:
        assert student.winning_move(piles) is None
        assert student.winning_move(piles, misere=True) is None


@pytest.mark.points(2)
@pytest.mark.hint(
    "When every move loses, return None rather than some move: the player has no winning move "
    "to give. When a move wins, return one, in normal and in misere play."
)
def test_none_exactly_when_lost(student, rng):
    """None exactly when every move loses"""
    for _ in range(25):
        misere = rng.random() < 0.5
        piles = made_lost_for_nim(rng, rng.randint(2, 6), rng.choice((1, 4, 60, HUGE)))
        if misere and all(counters <= 1 for counters in piles):
            piles = piles + (1,) if sum(piles) % 2 == 0 else piles
        assert lost(piles, misere)
        assert student.winning_move(piles, misere=misere) is None
    for _ in range(25):
        misere = rng.random() < 0.5
        piles = random_piles(rng, rng.randint(1, 6), rng.choice((1, 4, 60)))
        if misere and not any(piles):  # test_all_piles_empty's rule, and costs only its point
            continue
        assert_nim_answer(student.winning_move(piles, misere=misere), piles, misere)


@pytest.mark.requires(*WINNING_MOVE_CORRECT)
@pytest.mark.hint(
    "A move takes at least one counter from exactly one pile; return the new position as a tuple "
    "of ints with as many piles as before. misere may also come as the second argument, by "
    "position. This check counts once winning_move answers correctly."
)
def test_move_is_legal(student, rng):
    """the move takes counters from exactly one pile"""
    for _ in range(30):
        misere = rng.random() < 0.5
        piles = random_piles(rng, rng.randint(1, 8), rng.choice((2, 9, 300)))
        if misere and not any(piles):  # test_all_piles_empty's rule, and costs only its point
            continue
        answer = student.winning_move(piles, misere)
        if answer is not None:
            assert is_nim_move(piles, answer)


@pytest.mark.requires(*WINNING_MOVE_CORRECT)
@pytest.mark.hint(
    "A negative pile raises ValueError, in normal and in misere play, wherever it sits. This "
    "check counts once winning_move answers correctly."
)
def test_winning_move_rejects_negative_piles(student):
    """winning_move rejects negative piles"""
    for piles in [(-1,), (3, -1), (0, 0, -5), (HUGE, -HUGE), (-2, 2), (1, 1, -1)]:
        with pytest.raises(ValueError):
            student.winning_move(piles)
        with pytest.raises(ValueError):
            student.winning_move(piles, misere=True)


# --------------------------------------------------------------------------
# grundy.
# --------------------------------------------------------------------------

@pytest.mark.points(2)
@pytest.mark.hint(
    "Each Grundy value is the mex over the legal splits only: equal halves are not a split, and "
    "the mex is the smallest value from 0 up that is missing, not the largest plus one."
)
def test_grundy_oeis_a002188(student):
    """grundy(0) to grundy(29) are OEIS A002188"""
    got = [student.grundy(n) for n in range(30)]
    assert all(is_plain_int(value) for value in got)
    assert got == A002188


@pytest.mark.hint("A single pile is lost for the player to move exactly when its Grundy value is 0.")
def test_grundy_single_pile_losses(student):
    """single piles up to 60 with Grundy value 0"""
    zeros = {n for n in range(61) if student.grundy(n) == 0}
    assert zeros == SINGLE_PILE_LOSSES


@pytest.mark.points(2)
@pytest.mark.hint(
    "Remember every Grundy value you compute (a dict, a list or functools.cache), so that "
    "grundy(300) is quick; without a memo the work grows exponentially."
)
def test_grundy_up_to_300(student, rng):
    """grundy(n) for n up to 300"""
    sizes = [300, 299, 270, 128, 255, 256] + rng.sample(range(30, GRUNDY_LIMIT + 1), 40)
    for n in sizes:
        assert student.grundy(n) == GRUNDY[n]


@pytest.mark.requires(*GRUNDY_CORRECT)
@pytest.mark.hint(
    "grundy(n) with a negative n raises ValueError. This check counts once grundy's values are "
    "right."
)
def test_grundy_rejects_negative(student):
    """grundy rejects a negative pile"""
    for n in (-1, -2, -300):
        with pytest.raises(ValueError):
            student.grundy(n)


# --------------------------------------------------------------------------
# split_winning_move.
# --------------------------------------------------------------------------

@pytest.mark.points(2)
@pytest.mark.hint(
    "Return the position with the split pile replaced in place by (counters - take, take), the "
    "larger part first, so that the Grundy values XOR to 0."
)
def test_split_known_positions(student):
    """split_winning_move on known positions"""
    known = {
        (6,): (4, 2),
        (7,): None,
        (5,): (4, 1),
        (8,): (7, 1),
        (3, 2): (2, 1, 2),
        (3, 6): None,
        (0, 5, 0): (0, 4, 1, 0),
        (20,): None,
        (53,): None,
    }
    for piles, expected in known.items():
        assert student.split_winning_move(piles) == expected


@pytest.mark.requires(*SPLIT_CORRECT)
@pytest.mark.hint(
    "Piles of 0, 1 and 2 cannot be split (a split must give two different, non-empty piles), so "
    "with only such piles there is no winning split: None. This check counts once "
    "split_winning_move finds winning splits."
)
def test_split_nothing_to_split(student, rng):
    """None when no pile can be split"""
    positions = [(0,), (1,), (2,), (2, 2), (1, 2), (2, 2, 2), (0, 1, 2, 1, 0)]
    positions += [tuple(rng.choice((0, 1, 2, 2)) for _ in range(rng.randint(1, 7))) for _ in range(10)]
    for piles in positions:
        assert student.split_winning_move(piles) is None


@pytest.mark.points(2)
@pytest.mark.hint(
    "XOR the Grundy values of all the piles; if that is not 0, find a pile and a split of it "
    "that brings the XOR to 0."
)
def test_split_random_positions(student, rng):
    """split_winning_move on random positions"""
    for _ in range(40):
        piles = random_piles(rng, rng.randint(1, 5), rng.choice((8, 30, GRUNDY_LIMIT)))
        assert_split_answer(student.split_winning_move(piles), piles)


@pytest.mark.requires(*SPLIT_CORRECT)
@pytest.mark.hint(
    "When the Grundy values already XOR to 0, every split loses: return None, for piles of up to "
    "about 300 counters too. This check counts once split_winning_move finds winning splits."
)
def test_split_lost_positions(student, rng):
    """None when the Grundy values XOR to 0"""
    by_value = {}
    for n, value in enumerate(GRUNDY):
        by_value.setdefault(value, []).append(n)
    made = 0
    while made < 20:
        piles = list(random_piles(rng, rng.randint(1, 4), rng.choice((10, 60, GRUNDY_LIMIT))))
        needed = grundy_xor(piles)
        if needed not in by_value:
            continue  # no pile up to the limit has this value (15, for example)
        made += 1
        piles.insert(rng.randint(0, len(piles)), rng.choice(by_value[needed]))
        piles = tuple(piles)
        assert grundy_xor(piles) == 0
        assert student.split_winning_move(piles) is None


@pytest.mark.requires(*SPLIT_CORRECT)
@pytest.mark.hint(
    "A negative pile raises ValueError in split_winning_move as well, wherever it sits. This "
    "check counts once split_winning_move finds winning splits."
)
def test_split_rejects_negative_piles(student):
    """split_winning_move rejects negative piles"""
    for piles in [(-1,), (6, -1), (0, -3, 7), (-6,)]:
        with pytest.raises(ValueError):
            student.split_winning_move(piles)

"""Hidden checks for ex01 (minimax for Simple-Nim); never shipped to students.

Expected values come from the closed form below (the player to move loses
exactly when the pile size is 1 more than a multiple of 4), which a tiny
brute-force search in this file confirms before it is used. Nothing is
imported from solutions/.

States stay at or below 22: a plain recursive minimax with no memo, which is
what the README teaches, does about 1.84 times more work per extra counter.
At 22 it still answers within a second or so, but only the largest-piles check
goes that far; the sweeps over every pile stop at 17.

Every check that could be passed by luck in one call order or another covers
all the states it is about deterministically; the rng only adds random calls
and random orders on top, so every wrong solution fails under any seed.
"""

import pytest

LARGEST = 22
"""The biggest pile any check asks about (see the module docstring)."""
SWEEP = 17
"""Checks that go through every pile stop here. 0 to 17 holds each residue mod 4 at least four
times, and costs a plain search about 1/20 of what going to LARGEST would."""


# --------------------------------------------------------------------------
# The oracle.
# --------------------------------------------------------------------------

def mover_loses(state):
    """Closed form: the player to move loses exactly when state % 4 == 1."""
    return state % 4 == 1


def score_for_max(state, max_turn):
    """What minimax(state, max_turn) must return."""
    mover_wins = not mover_loses(state)
    return 1 if mover_wins == max_turn else -1


def moves(state):
    """The piles one legal move can leave, largest first."""
    return [state - take for take in (1, 2, 3) if take <= state]


def expected_best_move(state):
    """What best_move(state) must return: the largest (score, new_state) tuple."""
    return max((score_for_max(new_state, False), new_state) for new_state in moves(state))


def brute_force_mover_wins(limit):
    """Whether the player to move wins each pile from 0 to `limit`, by searching bottom-up."""
    wins = [True]  # 0 counters: the opponent took the last one, so the player to move has won
    for state in range(1, limit + 1):
        wins.append(any(not wins[new_state] for new_state in moves(state)))
    return wins


# Guard the closed form every check relies on; a failure here stops collection loudly.
assert brute_force_mover_wins(4 * LARGEST) == [not mover_loses(n) for n in range(4 * LARGEST + 1)]


# --------------------------------------------------------------------------
# Known facts.
# --------------------------------------------------------------------------

@pytest.mark.hint(
    "With no counters left the player to move has won (0 is the base case, not an error); with "
    "one counter left the player to move must take it, and loses. Scores are for Max: 1 when Max "
    "wins, -1 when Min wins, whoever is to move."
)
def test_tiny_piles(student):
    """piles of 0 and 1 counters"""
    assert student.minimax(0, True) == 1
    assert student.minimax(0, False) == -1
    assert student.minimax(1, True) == -1
    assert student.minimax(1, False) == 1


@pytest.mark.points(2)
@pytest.mark.hint(
    "Taking the last counter loses. Each player picks the best score for themselves: the highest "
    "for Max, the lowest for Min. A move takes 1, 2 or 3 counters but never more than are left, "
    "and the other player moves next."
)
def test_known_values(student):
    """the worked values"""
    assert student.minimax(6, True) == 1
    assert student.minimax(5, False) == 1
    assert student.minimax(4, False) == -1
    assert student.minimax(2, True) == 1
    assert student.minimax(9, True) == -1


@pytest.mark.points(2)
@pytest.mark.hint(
    "best_move scores each new state with Min to move next, and keeps the largest "
    "(score, new_state) tuple: among equal scores the most counters left wins. new_state is the "
    "pile left, not the counters taken."
)
def test_known_best_moves(student):
    """the worked best moves"""
    assert student.best_move(6) == (1, 5)
    assert student.best_move(5) == (-1, 4)
    assert student.best_move(2) == (1, 1)
    assert student.best_move(1) == (-1, 0)
    assert student.best_move(9) == (-1, 8)


# --------------------------------------------------------------------------
# Every state, both players, in a random order.
# --------------------------------------------------------------------------

@pytest.mark.points(3)
@pytest.mark.hint(
    "minimax must be right for every pile and either player to move: take 1, 2 or 3 but never "
    "more than are left, and flip the player at every move. If you keep a memo, its key must "
    "include whose turn it is."
)
def test_every_state_both_players(student, rng):
    """every small pile, either player to move"""
    cases = [(state, max_turn) for state in range(SWEEP + 1) for max_turn in (True, False)]
    rng.shuffle(cases)
    for state, max_turn in cases:
        assert student.minimax(state, max_turn) == score_for_max(state, max_turn)


@pytest.mark.hint(
    "Keep the parameter names state and max_turn: the checks may pass either one by keyword, in "
    "any order, and the answers must still be right."
)
def test_keyword_arguments(student, rng):
    """minimax and best_move called with keyword arguments"""
    assert student.minimax(state=7, max_turn=False) == -1
    assert student.minimax(max_turn=True, state=8) == 1
    assert student.best_move(state=10) == (1, 9)
    for _ in range(10):
        state = rng.randint(0, SWEEP)
        max_turn = rng.random() < 0.5
        assert student.minimax(state=state, max_turn=max_turn) == score_for_max(state, max_turn)


# A result of the right type says nothing about a function that computes nothing (it can return
# the int 0), so this pays only once both functions give right answers on every small pile.
@pytest.mark.requires("test_every_state_both_players", "test_best_move_when_winning",
                      "test_best_move_when_losing")
@pytest.mark.hint(
    "minimax returns the int 1 or -1 (not True, False or a float), and best_move a tuple of two "
    "ints (not a list). This check counts once minimax and best_move are right on every small pile."
)
def test_result_types(student, rng):
    """minimax returns an int, best_move a tuple of two ints"""
    for state in (0, 3, rng.randint(4, 14)):
        for max_turn in (True, False):
            assert type(student.minimax(state, max_turn)) is int
    for state in (1, 6, rng.randint(7, 14)):
        got = student.best_move(state)
        assert type(got) is tuple
        assert len(got) == 2
        assert all(type(part) is int for part in got)


# --------------------------------------------------------------------------
# best_move.
# --------------------------------------------------------------------------

@pytest.mark.points(2)
@pytest.mark.hint(
    "From a pile the player to move can win, exactly one move wins: find it with minimax, "
    "scoring the new state with Min to move, and return the tuple (score, new_state), new_state "
    "being the pile left."
)
def test_best_move_when_winning(student, rng):
    """best_move from every pile that can be won"""
    states = [state for state in range(2, SWEEP + 1) if not mover_loses(state)]
    rng.shuffle(states)
    for state in states:
        assert student.best_move(state) == expected_best_move(state)


@pytest.mark.points(2)
@pytest.mark.hint(
    "When every move loses, all scores tie; ties go to the move that leaves the most counters, "
    "because the largest (score, new_state) tuple wins. The score is still minimax of the new "
    "state with Min to move."
)
def test_best_move_when_losing(student, rng):
    """best_move from every pile that is lost"""
    states = [state for state in range(1, SWEEP + 1) if mover_loses(state)]
    rng.shuffle(states)
    for state in states:
        assert student.best_move(state) == expected_best_move(state)


@pytest.mark.hint(
    "A move takes 1, 2 or 3 counters and never more than are left, so new_state is between "
    "state - 3 and state - 1, and never below 0. The score beside it is minimax(new_state, False), "
    "and the result is a pair (score, new_state)."
)
def test_best_move_is_a_legal_move(student):
    """best_move always makes a legal move"""
    for state in range(1, 15):
        score, new_state = student.best_move(state)
        assert new_state in moves(state)
        assert score == score_for_max(new_state, False)


# A minimax and a best_move that answer one constant agree with each other, so agreeing pays only
# once both are right on their own.
@pytest.mark.requires("test_every_state_both_players", "test_best_move_when_winning", "test_best_move_when_losing")
@pytest.mark.hint(
    "best_move's score is the value of the position for the player to move, so it must equal "
    "minimax(state, True) and minimax(new_state, False). This check counts once minimax and "
    "best_move are right on their own."
)
def test_best_move_agrees_with_minimax(student, rng):
    """best_move agrees with the student's own minimax"""
    states = [rng.randint(1, SWEEP) for _ in range(8)] + [1, 2, 3, 4, 5]
    for state in states:
        score, new_state = student.best_move(state)
        assert score == student.minimax(state, True)
        assert score == student.minimax(new_state, False)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Play your best_move against every reply: from a pile that can be won it must always make a "
    "legal move, never take the last counter itself, and never be left to take it."
)
def test_never_loses_from_a_winning_pile(student):
    """best_move never loses from a pile that can be won"""
    # The student moves with best_move; the opponent tries every legal reply. Piles the student
    # faces are explored once each, so the whole game tree costs at most SWEEP calls.
    to_explore = [state for state in range(SWEEP, 1, -1) if not mover_loses(state)]
    explored = set()
    while to_explore:
        state = to_explore.pop()
        if state in explored:
            continue
        explored.add(state)
        if state == 1:
            pytest.fail("best_move let the opponent leave it the last counter")
        _, new_state = student.best_move(state)
        assert new_state in moves(state), "best_move made an illegal move"
        assert new_state != 0, "best_move took the last counter"
        # A reply that takes the last counter loses for the opponent, so 0 needs no exploring.
        to_explore.extend(reply for reply in moves(new_state) if reply > 0)


# The one check that goes up to LARGEST. A plain search's single call there takes 0.12-0.34 s of
# CPU on this machine, depending on style (up to 2 s of wall time with both cores busy), so it
# gets more time than exercise.toml's defaults; the measured figures are there.
@pytest.mark.call_timeout(20)
@pytest.mark.timeout(60)
@pytest.mark.hint(
    "The answers must be right for the largest piles too: minimax for either player to move, and "
    "best_move's largest (score, new_state) tuple, ties going to the most counters left. Plain "
    "recursion is fast enough, as long as each call tries each legal move once and does nothing "
    "slow on the way."
)
def test_largest_piles(student, rng):
    """the largest piles"""
    state = rng.randint(LARGEST - 2, LARGEST)
    max_turn = rng.random() < 0.5
    assert student.minimax(state, max_turn) == score_for_max(state, max_turn)
    state = rng.randint(LARGEST - 2, LARGEST)
    assert student.best_move(state) == expected_best_move(state)


# --------------------------------------------------------------------------
# Bad input.
# --------------------------------------------------------------------------

# Raising ValueError is also what code that computes nothing does, so this pays only once
# best_move is right from every small pile.
@pytest.mark.requires("test_best_move_when_winning", "test_best_move_when_losing")
@pytest.mark.hint(
    "With 0 counters the game is over and there is no move to make: raise ValueError, rather "
    "than return anything or raise another error. This check counts once best_move is right from "
    "every small pile."
)
def test_best_move_on_empty_pile_raises(student):
    """best_move on an empty pile raises ValueError"""
    with pytest.raises(ValueError):
        student.best_move(0)


# Raising ValueError is also what code that computes nothing does, so this pays only once both
# functions it calls give right answers on every small pile.
@pytest.mark.requires("test_every_state_both_players", "test_best_move_when_winning",
                      "test_best_move_when_losing")
@pytest.mark.hint(
    "A pile cannot hold fewer than 0 counters: raise ValueError in both functions, for either "
    "player to move, before any search (not another error, and not a score). This check counts "
    "once minimax and best_move are right on every small pile."
)
def test_negative_piles_raise(student, rng):
    """negative piles raise ValueError"""
    for state in (-1, -2, -3, -4, rng.randint(-100, -5)):
        for max_turn in (True, False):
            with pytest.raises(ValueError):
                student.minimax(state, max_turn)
        with pytest.raises(ValueError):
            student.best_move(state)

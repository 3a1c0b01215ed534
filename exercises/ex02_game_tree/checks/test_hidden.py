"""Hidden checks for ex02 (counting games in the Simple-Nim tree); never shipped to students.

Expected values come from facts verified by brute force (the pile of 6 and
the table for piles 1 to 12) or from the small oracle below, which is written
here on purpose rather than imported from solutions/. The oracle works from
the counters taken rather than from the pile sizes, counts with tables built
bottom-up, and runs alpha-beta in negamax form, so it shares no code or shape
with a typical submission.

Every random pile is drawn from the ``rng`` fixture inside a check, so a run
is reproducible from its seed.
"""

import math

import pytest

INF = math.inf

# --------------------------------------------------------------------------
# Facts verified by brute force.
# --------------------------------------------------------------------------

# The 13 games from 6, written as the counters taken on each turn.
SIX_AS_TAKES = [
    "111111", "11121", "11211", "1131", "12111", "1221", "1311",
    "21111", "2121", "2211", "231", "3111", "321",
]

# n: (games, nodes, games won by the first player)
TABLE = {
    1: (1, 2, 0),
    2: (1, 3, 1),
    3: (2, 6, 1),
    4: (4, 12, 2),
    5: (7, 22, 3),
    6: (13, 41, 7),
    7: (24, 76, 12),
    8: (44, 140, 22),
    9: (81, 258, 40),
    10: (149, 475, 75),
    11: (274, 874, 137),
    12: (504, 1608, 252),
}

# --------------------------------------------------------------------------
# The oracle.
# --------------------------------------------------------------------------


def piles_from_takes(n, takes):
    """The pile sizes before each move of the game that takes `takes` from a pile of n."""
    piles = []
    for take in takes:
        piles.append(n)
        n -= take
    assert n == 0, "the takes must empty the pile"
    return tuple(piles)


def take_sequences(n):
    """Every game from n as its takes: 1s, 2s and 3s that add up to n - 1, then the forced 1."""
    sequences = []

    def extend(prefix, still_to_take):
        if still_to_take == 0:
            sequences.append(prefix + (1,))
            return
        for take in (1, 2, 3):
            if take <= still_to_take:
                extend(prefix + (take,), still_to_take - take)

    extend((), n - 1)
    return sequences


def oracle_games(n):
    """games(n), built from the take sequences."""
    return sorted(piles_from_takes(n, takes) for takes in take_sequences(n))


def oracle_tables(limit):
    """Bottom-up tables for piles 0..limit: (nodes, games of even length, games of odd length)."""
    nodes = [1]          # a pile of 0 is a single leaf
    even = [1]           # ... with one game of no moves
    odd = [0]
    for pile in range(1, limit + 1):
        children = [0] if pile == 1 else [pile - take for take in (1, 2, 3) if pile - take >= 1]
        nodes.append(1 + sum(nodes[c] for c in children))
        even.append(sum(odd[c] for c in children))
        odd.append(sum(even[c] for c in children))
    return nodes, even, odd


def oracle_count_nodes(n):
    """count_nodes(n) from the table."""
    return oracle_tables(n)[0][n]


def oracle_wins(n):
    """wins(n): the first player wins the games with an even number of moves."""
    _nodes, even, odd = oracle_tables(n)
    return even[n], odd[n]


def oracle_pruned(n, alpha=-1, beta=1, take_one_first=False):
    """Nodes entered by alpha-beta (negamax form, cut when alpha >= beta) from a pile of n.

    In negamax form every score is for the player to move, and the window is
    negated and swapped on the way down. At 0 the player to move has won
    (the other one took the last counter), so a leaf is worth +1. The node
    counts are the same as for the max/min form with the cut beta <= alpha.
    """
    entered = 0

    def negamax(pile, alpha, beta):
        nonlocal entered
        entered += 1
        if pile == 0:
            return 1
        children = [0] if pile == 1 else [pile - take for take in (3, 2, 1) if pile - take >= 1]
        if take_one_first:
            children.reverse()
        best = -INF
        for child in children:
            best = max(best, -negamax(child, -beta, -alpha))
            alpha = max(alpha, best)
            if alpha >= beta:
                break
        return best

    negamax(n, alpha, beta)
    return entered


# --------------------------------------------------------------------------
# The pile of 6 in full, and the pile of 7 beside it. The public checks give the pile of 6's
# numbers, so each check here also asks for 7: an answer learnt by heart for 6 earns nothing.
# --------------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.hint(
    "From 2 or more a player leaves at least one counter; from 1 the player must take it. Write "
    "each game as the piles before each move, without the final 0, and sort the list."
)
def test_six_games(student):
    """every game from piles of 6 and 7"""
    expected = sorted(piles_from_takes(6, [int(take) for take in word]) for word in SIX_AS_TAKES)
    assert expected == oracle_games(6)  # the oracle agrees with the list above
    assert student.games(6) == expected
    assert student.games(7) == oracle_games(7)


@pytest.mark.hint(
    "Count every pile size on every path: the root once, and every 0 at the end of a game."
)
def test_six_nodes(student):
    """the node counts for piles of 6 and 7"""
    assert [oracle_count_nodes(6), oracle_count_nodes(7)] == [41, 76]
    assert student.count_nodes(6) == 41
    assert student.count_nodes(7) == 76


@pytest.mark.hint(
    "The player who moves from 1 loses. The first player moves first, so count the moves in a "
    "game to see who moved last. Return the tuple (first player's wins, second player's wins)."
)
def test_six_wins(student):
    """the wins for piles of 6 and 7"""
    assert [oracle_wins(6), oracle_wins(7)] == [(7, 6), (12, 12)]
    assert student.wins(6) == (7, 6)
    assert student.wins(7) == (12, 12)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Try the smallest pile first, start the window at (-1, +1), pass it down, cut as soon as beta "
    "<= alpha, and count every node you enter, the root and the leaves included."
)
def test_six_pruned(student):
    """alpha-beta on piles of 6 and 7"""
    # Known counts: 17 as specified, 20 with the window (-inf, inf), 23 take-1-first.
    assert oracle_pruned(6) == 17
    assert oracle_pruned(6, -INF, INF) == 20
    assert oracle_pruned(6, take_one_first=True) == 23
    assert student.pruned_nodes(6) == 17
    assert student.pruned_nodes(7) == oracle_pruned(7)


# --------------------------------------------------------------------------
# The table for piles 1 to 12, and the smallest piles in full.
# --------------------------------------------------------------------------


@pytest.mark.hint(
    "Nobody takes the last counter voluntarily: from 2 or 3 a player must leave at least one, "
    "from 4 or more there are three moves, and from 1 the only move is to take it."
)
def test_game_counts_table(student):
    """the number of games for piles 1 to 12"""
    for n, (game_count, _nodes, _first) in TABLE.items():
        assert len(student.games(n)) == game_count


@pytest.mark.hint("Count the root and every leaf 0; a pile of 1 is a node with one child, the 0.")
def test_node_counts_table(student):
    """the node counts for piles 1 to 12"""
    for n, (_games, node_count, _first) in TABLE.items():
        assert student.count_nodes(n) == node_count


@pytest.mark.hint(
    "Return (the first player's wins, the second player's wins); whoever moves from 1 loses."
)
def test_wins_table(student):
    """the wins for piles 1 to 12"""
    for n, (game_count, _nodes, first) in TABLE.items():
        assert student.wins(n) == (first, game_count - first)


@pytest.mark.hint(
    "The smallest piles follow the same rules as the others, in all four functions: from 1 the "
    "only move is to 0, and from 2 a player must leave 1. Count the root and every 0, in "
    "count_nodes and in pruned_nodes alike."
)
def test_smallest_piles(student):
    """the smallest piles in full"""
    assert student.games(1) == [(1,)]
    assert student.games(2) == [(2, 1)]
    assert student.games(3) == [(3, 1), (3, 2, 1)]
    assert [student.count_nodes(n) for n in (1, 2, 3)] == [2, 3, 6]
    assert [student.wins(n) for n in (1, 2, 3)] == [(0, 1), (1, 0), (1, 1)]
    assert [student.pruned_nodes(n) for n in (1, 2, 3)] == [2, 3, 3]


@pytest.mark.hint(
    "A leaf 0 scores +1 when it is Max's (the first player's) turn there; the children go from "
    "the smallest pile left to the largest. Start with the window (-1, +1), cut as soon as beta "
    "<= alpha at Max and Min nodes alike, and count every node you enter, the root and the leaves "
    "included, but nothing you skip."
)
def test_pruned_table(student):
    """alpha-beta on piles 1 to 12"""
    for n in range(1, 13):
        assert student.pruned_nodes(n) == oracle_pruned(n)


# --------------------------------------------------------------------------
# Random piles against the oracle.
# --------------------------------------------------------------------------


# The right shape is easy without computing anything (a list of the one game that always takes
# 1, say), so this pays only once games finds the right number of games.
@pytest.mark.requires("test_game_counts_table")
@pytest.mark.hint(
    "Return a list of tuples of ints: each starts at n, ends at 1 and goes down by 1, 2 or 3 at "
    "a time; the list is sorted and has no repeats. This check counts once games lists the right "
    "number of games for piles 1 to 12."
)
def test_games_shape(student, rng):
    """the games are sorted tuples of legal piles"""
    for n in [rng.randint(1, 5), rng.randint(6, 10), rng.randint(11, 14)]:
        got = student.games(n)
        assert type(got) is list and got
        for game in got:
            assert type(game) is tuple
            assert all(type(pile) is int for pile in game)
            assert game[0] == n and game[-1] == 1
            assert all(1 <= a - b <= 3 for a, b in zip(game, game[1:]))
        in_order = got == sorted(set(got))
        assert in_order  # not `assert got == ...`: pytest's diff of long lists takes minutes


@pytest.mark.points(2)
@pytest.mark.hint(
    "List every game from larger piles too: leave n-3, n-2 or n-1 counters (at least 1) and "
    "sort the tuples."
)
def test_random_games(student, rng):
    """games for random piles"""
    piles = [rng.randint(1, 6)] + rng.sample(range(7, 17), 5)
    for n in piles:
        matches = student.games(n) == oracle_games(n)
        assert matches  # a bare bool: pytest's diff of thousands of tuples would take minutes


@pytest.mark.hint(
    "A node's count is 1 for itself plus the counts of all its children; a 0 has no children."
)
def test_random_node_counts(student, rng):
    """node counts for random piles"""
    piles = [rng.randint(1, 12)] + rng.sample(range(13, 21), 4)
    for n in piles:
        assert student.count_nodes(n) == oracle_count_nodes(n)


@pytest.mark.hint(
    "The first player wins the games in which the second player moves from 1; the two counts add "
    "up to the number of games. Return them as a tuple, the first player's wins first."
)
def test_random_wins(student, rng):
    """wins for random piles"""
    piles = [rng.randint(1, 12)] + rng.sample(range(13, 19), 4)
    for n in piles:
        assert student.wins(n) == oracle_wins(n)


@pytest.mark.points(2)
@pytest.mark.hint(
    "Count the nodes you enter, the root and the leaves included, not the ones you skip, and "
    "search afresh on every call: a memo hides nodes that are entered again. Follow the README's "
    "rules exactly: smallest pile first, the window (-1, +1), a leaf +1 on Max's turn, and a cut "
    "as soon as beta <= alpha."
)
def test_random_pruned(student, rng):
    """alpha-beta on random piles"""
    piles = rng.sample(range(13, 29), 8)
    for n in piles:
        assert student.pruned_nodes(n) == oracle_pruned(n)


# --------------------------------------------------------------------------
# Bad input.
# --------------------------------------------------------------------------

BAD_PILES = [0, -1, -2, -3, -50]


# Raising ValueError is also what code that computes nothing does: each of these four pays only
# once the function it calls computes right answers.
@pytest.mark.requires("test_six_games", "test_random_games")
@pytest.mark.hint(
    "games must reject a pile smaller than 1 with a ValueError, not another error and not a list. "
    "This check counts once games lists the right games."
)
def test_games_rejects_small_piles(student):
    """games raises ValueError for n < 1"""
    for n in BAD_PILES:
        with pytest.raises(ValueError):
            student.games(n)


@pytest.mark.requires("test_node_counts_table", "test_random_node_counts")
@pytest.mark.hint(
    "count_nodes must reject a pile smaller than 1 with a ValueError, not another error and not "
    "a count. This check counts once count_nodes gives the right counts."
)
def test_count_nodes_rejects_small_piles(student):
    """count_nodes raises ValueError for n < 1"""
    for n in BAD_PILES:
        with pytest.raises(ValueError):
            student.count_nodes(n)


@pytest.mark.requires("test_wins_table", "test_random_wins")
@pytest.mark.hint(
    "wins must reject a pile smaller than 1 with a ValueError, not another error and not a pair. "
    "This check counts once wins gives the right counts."
)
def test_wins_rejects_small_piles(student):
    """wins raises ValueError for n < 1"""
    for n in BAD_PILES:
        with pytest.raises(ValueError):
            student.wins(n)


@pytest.mark.requires("test_pruned_table", "test_random_pruned")
@pytest.mark.hint(
    "pruned_nodes must reject a pile smaller than 1 with a ValueError, not another error and not "
    "a count. This check counts once pruned_nodes gives the right counts."
)
def test_pruned_nodes_rejects_small_piles(student):
    """pruned_nodes raises ValueError for n < 1"""
    for n in BAD_PILES:
        with pytest.raises(ValueError):
            student.pruned_nodes(n)

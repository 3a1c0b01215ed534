"""Counting games in the Simple-Nim tree, written the plain way a first-time student might.

This is the naive alternative the timeouts are measured against: plain
recursion everywhere and no memo. ``wins`` builds the whole list of games and
looks at the length of each one.
"""


def check(n):
    """Raise ValueError for a pile smaller than 1."""
    if n < 1:
        raise ValueError("n must be at least 1, got " + str(n))


def moves(pile):
    """The piles a player may leave from `pile`, smallest first."""
    if pile == 1:
        return [0]
    result = []
    for take in [3, 2, 1]:
        if pile - take >= 1:
            result.append(pile - take)
    return result


def all_games(pile):
    """Every game from `pile` as a list of lists; from 0 there is one empty game."""
    if pile == 0:
        return [[]]
    result = []
    for new_pile in moves(pile):
        for rest in all_games(new_pile):
            result.append([pile] + rest)
    return result


def games(n):
    """Every game from a pile of n, as tuples of pile sizes, sorted."""
    check(n)
    result = []
    for game in all_games(n):
        result.append(tuple(game))
    result.sort()
    return result


def nodes_below(pile):
    """The number of nodes in the tree from `pile`, counting `pile` itself."""
    total = 1
    for new_pile in moves(pile):
        total = total + nodes_below(new_pile)
    return total


def count_nodes(n):
    """All the nodes in the tree of n, with the root and the zeros."""
    check(n)
    return nodes_below(n)


def wins(n):
    """(first player's wins, second player's wins) over all the games from n."""
    check(n)
    first = 0
    second = 0
    for game in all_games(n):
        # The first player makes moves 1, 3, 5, ...; whoever makes the last move loses.
        if len(game) % 2 == 1:
            second = second + 1
        else:
            first = first + 1
    return (first, second)


def alphabeta(pile, max_turn, alpha, beta, counter):
    """Minimax score of `pile` with alpha-beta; counter[0] counts every node entered."""
    counter[0] = counter[0] + 1
    if pile == 0:
        if max_turn:
            return 1
        return -1
    scores = []
    for new_pile in moves(pile):
        score = alphabeta(new_pile, not max_turn, alpha, beta, counter)
        scores.append(score)
        if max_turn:
            alpha = max(alpha, score)
        else:
            beta = min(beta, score)
        if beta <= alpha:
            break
    if max_turn:
        return max(scores)
    return min(scores)


def pruned_nodes(n):
    """How many nodes alpha-beta enters from n, with the window (-1, +1)."""
    check(n)
    counter = [0]
    alphabeta(n, True, -1, 1, counter)
    return counter[0]

"""The oracle of ex10's hidden checks: exact values with fractions, random trees, and tic-tac-toe against chance.

Hidden-only: its name starts with `hidden_`, only test_hidden.py imports it, and it never ships to
students. It is written for the checks on purpose rather than imported from solutions/, and it
computes with `fractions.Fraction` throughout (a float converts to a Fraction exactly), so that
its answers carry no rounding of their own.
"""

import math
from fractions import Fraction
from functools import cache

# Values are compared within this, relative or (near 0) absolute: the README pins it.
TOLERANCE = 1e-9


def close(answer, expected) -> bool:
    """Whether the student's number is the expected one, within the README's tolerance."""
    return (isinstance(answer, (int, float)) and not isinstance(answer, bool)
            and math.isclose(answer, expected, rel_tol=TOLERANCE, abs_tol=TOLERANCE))


# --------------------------------------------------------------------------
# Trees
# --------------------------------------------------------------------------

def value(node) -> Fraction:
    """The exact expectimax value of a valid tree."""
    if not isinstance(node, dict):
        return Fraction(node)
    (kind, children), = node.items()
    if kind == "max":
        return max(value(child) for child in children)
    if kind == "min":
        return min(value(child) for child in children)
    return sum((Fraction(p) * value(child) for p, child in children), Fraction(0))


def best_index(node) -> int:
    """The first child of a "max" root whose exact value is the largest."""
    values = [value(child) for child in node["max"]]
    return values.index(max(values))


def clear_winner(node) -> bool:
    """Whether the best child of a "max" root beats every other by more than the tie tolerance."""
    values = sorted((value(child) for child in node["max"]), reverse=True)
    return len(values) == 1 or values[0] - values[1] > 1000 * TOLERANCE


def probabilities(rng, count):
    """`count` probabilities that sum to 1 within 1e-9: whole-number weights over their total, or halves."""
    if rng.random() < 0.3:  # exact in binary: the sum is 1 on the nose
        return [1 / count] * count if count != 3 else rng.sample([0.25, 0.25, 0.5], 3)
    weights = [rng.randint(1, 9) for _ in range(count)]
    return [weight / sum(weights) for weight in weights]


def leaf(rng):
    """An int or a float leaf, either sign."""
    return rng.randint(-20, 20) if rng.random() < 0.6 else round(rng.uniform(-20, 20), 3)


def random_tree(rng, kinds, width=(1, 3), leaf_chance=0.1):
    """A tree whose levels take their kinds in turn from `kinds` (leaves below the last, and now and then sooner)."""
    if not kinds or rng.random() < leaf_chance:
        return leaf(rng)
    kind, rest = kinds[0], kinds[1:]
    count = rng.randint(*width)
    children = [random_tree(rng, rest, width, leaf_chance) for _ in range(count)]
    if kind != "chance":
        return {kind: children}
    pairs = [[p, child] for p, child in zip(probabilities(rng, count), children)]
    return {"chance": [tuple(pair) if rng.random() < 0.3 else pair for pair in pairs]}


def coin_choices(rng):
    """A "max" root over 2-3 "chance" nodes, each over 2-3 positive whole-number leaves."""
    return {"max": [{"chance": [[p, rng.randint(1, 12)] for p in probabilities(rng, rng.randint(2, 3))]}
                    for _ in range(rng.randint(2, 3))]}


def chance_to_min(node):
    """The same tree with every "chance" node made a "min" node over the same children."""
    if not isinstance(node, dict):
        return node
    (kind, children), = node.items()
    if kind == "chance":
        return {"min": [chance_to_min(child) for _, child in children]}
    return {kind: [chance_to_min(child) for child in children]}


def squared(node):
    """The same tree with every leaf squared."""
    if not isinstance(node, dict):
        return node * node
    (kind, children), = node.items()
    if kind == "chance":
        return {"chance": [[p, squared(child)] for p, child in children]}
    return {kind: [squared(child) for child in children]}


def minimax_of_lists(tree, maximizing=True) -> Fraction:
    """ex03's minimax on nested lists: levels alternate, the root maximises."""
    if not isinstance(tree, list):
        return Fraction(tree)
    values = [minimax_of_lists(child, not maximizing) for child in tree]
    return max(values) if maximizing else min(values)


def as_lists(node):
    """A tree of alternating "max" and "chance" levels as ex03's nested lists (probabilities dropped)."""
    if not isinstance(node, dict):
        return node
    (kind, children), = node.items()
    return [as_lists(child if kind == "max" else child[1]) for child in children]


# --------------------------------------------------------------------------
# Simple-Nim against a random Min
# --------------------------------------------------------------------------

def win_chances(top):
    """Max's exact chance of winning from 0..top counters, Max to move, against a uniformly random Min."""
    max_to_move, min_to_move = [Fraction(1)], [Fraction(0)]
    for counters in range(1, top + 1):
        takes = range(1, min(3, counters) + 1)
        max_to_move.append(max(min_to_move[counters - take] for take in takes))
        min_to_move.append(sum(max_to_move[counters - take] for take in takes) / len(takes))
    return max_to_move


# --------------------------------------------------------------------------
# Tic-tac-toe against a random opponent
# --------------------------------------------------------------------------

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def has_line(board, mark):
    return any(board[a] == board[b] == board[c] == mark for a, b, c in LINES)


# Memoised, as expected and perfect are: a pure function of a board string, asked about every
# reachable position again and again by the searches and the checks that walk them all.
@cache
def is_over(board):
    return has_line(board, "X") or has_line(board, "O") or " " not in board


def to_move(board):
    return "X" if board.count("X") == board.count("O") else "O"


def moves(board):
    return [square for square in range(9) if board[square] == " "]


def play(board, square):
    return board[:square] + to_move(board) + board[square + 1:]


def score(board, me):
    """+1, -1 or 0 for `me` on a finished board."""
    return 1 if has_line(board, me) else -1 if has_line(board, "O" if me == "X" else "X") else 0


@cache
def expected(board, me) -> Fraction:
    """`me`'s exact expected score: `me` maximises on its turns, the other side moves uniformly at random."""
    if is_over(board):
        return Fraction(score(board, me))
    after = [expected(play(board, square), me) for square in moves(board)]
    return max(after) if to_move(board) == me else sum(after, Fraction(0)) / len(after)


@cache
def perfect(board, me) -> int:
    """`me`'s minimax value against a perfect opponent."""
    if is_over(board):
        return score(board, me)
    after = [perfect(play(board, square), me) for square in moves(board)]
    return max(after) if to_move(board) == me else min(after)


@cache
def best_vs_random(board) -> int:
    """The smallest square with the best exact expected score for the side to move."""
    me = to_move(board)
    values = {square: expected(play(board, square), me) for square in moves(board)}
    return min(square for square, worth in values.items() if worth == max(values.values()))


@cache
def minimax_best_squares(board) -> frozenset:
    """Every square that keeps the side to move's minimax value."""
    me = to_move(board)
    values = {square: perfect(play(board, square), me) for square in moves(board)}
    return frozenset(square for square, worth in values.items() if worth == max(values.values()))


def reachable(board):
    """Every position that is not over and can follow `board` in a game, `board` included."""
    seen, pending = set(), [board]
    while pending:
        position = pending.pop()
        if position in seen or is_over(position):
            continue
        seen.add(position)
        pending.extend(play(position, square) for square in moves(position))
    return sorted(seen)

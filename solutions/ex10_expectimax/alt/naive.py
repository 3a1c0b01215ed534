"""Expectimax written the plain way a first-time student might.

This is the naive alternative the timeouts are measured against: the tree is
checked and valued in one recursion, win_probability fills two lists from 0
upwards, and best_move_vs_random searches the whole game below every square
with no memo of any kind.
"""

import math


def is_number(x):
    if type(x) != int and type(x) != float:
        return False
    return math.isfinite(x)


def value(node, where):
    if is_number(node):
        return node
    if type(node) != dict or len(node) != 1:
        raise ValueError(where + " is not a number or a dict with one key")
    key = list(node.keys())[0]
    children = node[key]
    if type(children) != list or len(children) == 0:
        raise ValueError(where + " needs a non-empty list")
    if key == "max" or key == "min":
        values = []
        for i in range(len(children)):
            values.append(value(children[i], where + "[" + repr(key) + "][" + str(i) + "]"))
        if key == "max":
            return max(values)
        return min(values)
    if key == "chance":
        total = 0
        probability_sum = 0
        for i in range(len(children)):
            pair = children[i]
            here = where + "['chance'][" + str(i) + "]"
            if (type(pair) != list and type(pair) != tuple) or len(pair) != 2:
                raise ValueError(here + " is not a pair")
            p = pair[0]
            if not is_number(p) or p <= 0 or p > 1:
                raise ValueError(here + "[0] is not a probability")
            probability_sum = probability_sum + p
            total = total + p * value(pair[1], here + "[1]")
        if abs(probability_sum - 1) > 1e-9:
            raise ValueError(where + ": the probabilities do not sum to 1")
        return total
    raise ValueError(where + " has an unknown key " + repr(key))


def expectimax(node):
    return value(node, "node")


def best_action(node):
    expectimax(node)
    if type(node) != dict or "max" not in node:
        raise ValueError("the root must be a max node")
    values = []
    for child in node["max"]:
        values.append(expectimax(child))
    best = max(values)
    for i in range(len(values)):
        if values[i] >= best - 1e-9:
            return i


def win_probability(n):
    if type(n) != int or n < 0:
        raise ValueError("n must be an int of at least 0")
    max_turn = [1.0]
    min_turn = [0.0]
    for k in range(1, n + 1):
        moves = []
        for take in [1, 2, 3]:
            if take <= k:
                moves.append(take)
        best = 0.0
        total = 0.0
        for take in moves:
            best = max(best, min_turn[k - take])
            total = total + max_turn[k - take]
        max_turn.append(best)
        min_turn.append(total / len(moves))
    return max_turn[n]


LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]


def has_line(board, mark):
    for line in LINES:
        if board[line[0]] == mark and board[line[1]] == mark and board[line[2]] == mark:
            return True
    return False


def other(mark):
    if mark == "X":
        return "O"
    return "X"


def worth(board, me, my_turn):
    """My expected score on board, with me to move if my_turn."""
    if has_line(board, me):
        return 1
    if has_line(board, other(me)):
        return -1
    if " " not in board:
        return 0
    if my_turn:
        mark = me
    else:
        mark = other(me)
    values = []
    for i in range(9):
        if board[i] == " ":
            values.append(worth(board[:i] + mark + board[i + 1:], me, not my_turn))
    if my_turn:
        return max(values)
    return sum(values) / len(values)


def best_move_vs_random(board):
    if type(board) != str or len(board) != 9:
        raise ValueError("the board must be a string of 9 characters")
    for c in board:
        if c != "X" and c != "O" and c != " ":
            raise ValueError("bad character " + repr(c))
    xs = board.count("X")
    os = board.count("O")
    if xs - os != 0 and xs - os != 1:
        raise ValueError("impossible piece counts")
    if has_line(board, "X") or has_line(board, "O") or " " not in board:
        raise ValueError("the game is over or impossible")
    if xs == os:
        me = "X"
    else:
        me = "O"
    best_square = None
    best_value = None
    for i in range(9):
        if board[i] == " ":
            v = worth(board[:i] + me + board[i + 1:], me, False)
            if best_value is None or v > best_value + 1e-9:
                best_square = i
                best_value = v
    return best_square

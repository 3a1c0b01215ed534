"""Attack: return values too big to cross the boundary, or big enough to hurt.

add returns a 40 MB string (over the 32 MiB message limit), pair a 24 MiB
string (under it, so it crosses, is wrong, and pytest has to describe it), tag
a list that shares one inner list a billion times over (10**9 items in a few
kilobytes of memory: encoding stops at the item cap, or the call's deadline
stops it first), push an integer of 5,000 digits (over Python's int-to-str
limit).

Should score 0 of 8: every check fails ("failed", or "timeout" for tag),
none of them crashes the grader.
"""


def add(a, b):
    return "x" * (40 * 10**6)


def pair(x):
    return "y" * (24 * 2**20)


def tag(n):
    row = [n] * 1000
    square = [row] * 1000
    return [square] * 1000


def push(items, item):
    items.append(item)
    return 10**5000

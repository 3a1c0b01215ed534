"""Attack: return values nested deep enough to break recursive code.

add returns a list nested 100,000 deep (past the wire's depth cap), pair a
tuple nested 1,400 deep (under the cap: it crosses, and pytest's assertion
message has to print it), tag a dict nested 3,000 deep, push a list that
contains itself.

Should score 0 of 8: every check "failed", and the grading process neither
crashes nor hangs on the deep values.
"""


def _nest(depth, wrap):
    value = 0
    for _ in range(depth):
        value = wrap(value)
    return value


def add(a, b):
    return _nest(100_000, lambda inner: [inner])


def pair(x):
    return _nest(1400, lambda inner: (inner, x))


def tag(n):
    return _nest(3000, lambda inner: {"n": inner})


def push(items, item):
    items.append(items)
    return items

"""Attack: answer with NaN and infinities, which compare strangely.

NaN is unequal even to itself and infinities swamp arithmetic; they cross the
boundary (ex04 and ex08 need them) and must simply be wrong answers here.

Should score 0 of 8: every check "failed".
"""

NAN = float("nan")
INF = float("inf")


def add(a, b):
    return NAN


def pair(x):
    return (INF, -INF)


def tag(n):
    return {"n": NAN}


def push(items, item):
    items.append(NAN)
    return INF

"""Attack: an endless computation inside C code, sum(range(10**13)), in add.

The interpreter never returns to Python bytecode, so signal handlers (and any
in-process timeout) never run; only killing the worker stops it. pair, tag and
push are correct.

Should score 4 of 8: pair, tag and push pass; the three add checks time out.
"""


def add(a, b):
    return sum(range(10**13)) + a + b


def pair(x):
    return (x, x)


def tag(n):
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    items.append(item)
    return len(items)

"""A full solution that tries itself out at the top level, as students do."""

import sys


def add(a, b):
    return a + b


def pair(x):
    return (x, x)


def tag(n):
    if n < 0:
        raise ValueError("negative")
    return {"n": n}


def push(items, item):
    items.append(item)
    return len(items)


print("trying add:", add(2, 3))
print("pair of 7 is", pair(7))
print("a warning on stderr", file=sys.stderr)

"""Attack: sleep for a very long time (time.sleep(10**6)) in add and in tag.

A sleeping worker uses no CPU, so a CPU limit alone would never stop it; the
wall-clock deadline of each call must. pair and push are correct.

Should score 2 of 8: "pair is a tuple" and "push appends ..." pass; the three
add checks and "tag rejects a negative number" time out.
"""

import time


def add(a, b):
    time.sleep(10**6)
    return a + b


def pair(x):
    return (x, x)


def tag(n):
    time.sleep(10**6)
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    items.append(item)
    return len(items)

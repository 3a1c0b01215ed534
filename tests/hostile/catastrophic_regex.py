"""Attack: a catastrophically backtracking regular expression in add.

re's matcher runs in C and backtracks for about 2**40 steps on this input,
holding the GIL the whole time. pair, tag and push are correct.

Should score 4 of 8: pair, tag and push pass; the three add checks time out.
"""

import re


def add(a, b):
    if re.match(r"^(a+)+$", "a" * 40 + "!"):
        return 0
    return a + b


def pair(x):
    return (x, x)


def tag(n):
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    items.append(item)
    return len(items)

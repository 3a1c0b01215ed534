"""Attack: an infinite loop in pure Python, in add and in pair.

Should score 3 of 8: "tag rejects a negative number" and "push appends ..."
pass; the three add checks and "pair is a tuple" time out.
"""


def add(a, b):
    while True:
        pass


def pair(x):
    n = 0
    while n >= 0:
        n += 1


def tag(n):
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    items.append(item)
    return len(items)

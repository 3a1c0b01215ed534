"""Attack: recursion through C deep enough to overflow the C stack and segfault.

Two hundred thousand nested map objects: consuming the outermost recurses through C once
per level, which Python 3.11's recursion limit does not count, so the worker
dies with SIGSEGV. pair, tag and push are correct.

Should score 4 of 8: pair, tag and push pass; the three add checks "crashed"
(the public one names SIGSEGV).
"""


def add(a, b):
    nested = [a + b]
    for _ in range(200_000):
        nested = map(abs, nested)
    return list(nested)[0]


def pair(x):
    return (x, x)


def tag(n):
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    items.append(item)
    return len(items)

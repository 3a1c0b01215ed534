"""Attack: end the worker with os._exit(0) while the module is being imported.

A naive grader that runs student code in its own process would stop there with
status 0 and might count "no failures" as a pass. Here the worker dies before it
sends its ready message, so the import is reported as failed.

Should score 0 of 8: status "error", every check "error", one message naming
the exit.
"""

import os

os._exit(0)


def add(a, b):
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

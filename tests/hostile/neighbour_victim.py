"""Not an attack: the honest neighbour of attack_the_neighbour.py.

Graded at the same time as the attacker. It is correct, takes 0.2 s per call
so that the two runs overlap, and at import writes a sentinel file into its own
working folder; every call answers correctly only while that sentinel is intact
and the worker that imported the module is still the one answering. If the
attacker could write into its folder the answers would turn wrong; if it could
stop or kill the worker, calls would time out or crash.

Should score 8 of 8.
"""

import os
import time

SENTINEL = os.path.join(os.getcwd(), "sentinel.txt")
TEXT = "untouched\n"
with open(SENTINEL, "w") as handle:
    handle.write(TEXT)


def _intact():
    time.sleep(0.2)
    with open(SENTINEL) as handle:
        return handle.read() == TEXT and not os.path.exists(os.path.join(os.getcwd(), "planted.txt"))


def add(a, b):
    return a + b if _intact() else None


def pair(x):
    return (x, x) if _intact() else None


def tag(n):
    if not _intact():
        return None
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    if _intact():
        items.append(item)
    return len(items)

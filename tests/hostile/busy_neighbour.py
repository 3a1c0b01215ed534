"""Not an attack: the honest, CPU-bound neighbour of starve_the_neighbour.py.

Every call does about 0.3 s of arithmetic before it answers (a third of the
toy's 1 s call timeout), so a neighbour that takes its CPU makes it time out.
At import it writes a scratch file to /tmp, and every call reads it back: a
neighbour that filled a /tmp they share would have stopped it.

Should score 8 of 8.
"""

import os
import time

SCRATCH = f"/tmp/minimax-kit-busy-{os.getpid()}"
with open(SCRATCH, "w") as handle:
    handle.write("scratch\n")


def _work():
    deadline = time.process_time() + 0.3
    while time.process_time() < deadline:
        pass
    with open(SCRATCH) as handle:
        return handle.read() == "scratch\n"


def add(a, b):
    return a + b if _work() else None


def pair(x):
    return (x, x) if _work() else None


def tag(n):
    if not _work():
        return None
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    if _work():
        items.append(item)
    return len(items)

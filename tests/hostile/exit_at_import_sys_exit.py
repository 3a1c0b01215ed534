"""Attack: raise SystemExit(0) with sys.exit(0) while the module is being imported.

pytest treats SystemExit in a test as an exit of the whole run; a grader that
imports student code in-process can be stopped with a "success" status. The
worker catches it as a failed import.

Should score 0 of 8: status "error", every check "error", "SystemExit" in the
message.
"""

import sys

sys.exit(0)


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

"""Attack: raise SystemExit(0) with sys.exit(0) inside every function.

In an in-process grader SystemExit would end pytest itself. In the worker it
ends only the call, and comes back as an ordinary failure, "your code raised
SystemExit".

Should score 0 of 8: every check "failed".
"""

import sys


def add(a, b):
    sys.exit(0)


def pair(x):
    sys.exit(0)


def tag(n):
    sys.exit(0)


def push(items, item):
    sys.exit(0)

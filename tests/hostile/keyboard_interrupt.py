"""Attack: raise KeyboardInterrupt inside every function.

Raised as itself in the grading process, a KeyboardInterrupt stops the pytest
run and pytest-json-report then records the interrupted check as passed. The
worker reports it as "your code raised KeyboardInterrupt", an ordinary failure.

Should score 0 of 8: every check "failed".
"""


def add(a, b):
    raise KeyboardInterrupt


def pair(x):
    raise KeyboardInterrupt


def tag(n):
    raise KeyboardInterrupt


def push(items, item):
    raise KeyboardInterrupt

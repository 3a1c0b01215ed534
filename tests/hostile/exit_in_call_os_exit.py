"""Attack: call os._exit(0) inside every function, so each call kills the worker.

A clean exit status (0) must not look like success: every call is a crash of
the worker, and the next check gets a fresh one.

Should score 0 of 8: every check "crashed".
"""

import os


def add(a, b):
    os._exit(0)


def pair(x):
    os._exit(0)


def tag(n):
    os._exit(0)


def push(items, item):
    items.append(item)  # mutate first, then die before anyone can observe it
    os._exit(0)

"""Attack: write 100 MB to stdout and 100 MB to stderr in add and in pair.

add ignores SIGXFSZ, so when its capture file reaches RLIMIT_FSIZE further
writes just fail (EFBIG); it swallows those errors and returns the right sum.
pair leaves SIGXFSZ at its default, so the file size limit kills the worker.
The report must stay small: captured output is capped per call and again per
report field.

Should score 7 of 8: the three add checks, tag and push pass; "pair is a
tuple" crashes (SIGXFSZ). Every output in the report stays within 2,000
characters.
"""

import os
import signal
import sys

MEGABYTE = "x" * (2**20 - 1) + "\n"


def _flood():
    for stream in (sys.stdout, sys.stderr):
        for _ in range(100):
            stream.write(MEGABYTE)
        stream.flush()
    for fd in (1, 2):
        for _ in range(100):
            os.write(fd, MEGABYTE.encode())


def add(a, b):
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        _flood()
    except OSError:  # EFBIG once the capture file reaches the size limit
        pass
    return a + b


def pair(x):
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    _flood()
    return (x, x)


def tag(n):
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    items.append(item)
    return len(items)

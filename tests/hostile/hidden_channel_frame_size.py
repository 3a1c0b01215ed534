"""Attack: spell a number into a hidden check's message through the size a frame header announces.

Every call into add, tag and push (the functions the hidden checks call) writes
a frame header to the worker's reply pipe (its fd is in the worker's argv)
announcing a message of 2,000,000,000 + NUMBER bytes, far past the limit. The
grading side rejects it, and a public check may say how big it was; a hidden
check must not, or a hidden input could leave through that size. NUMBER is
filled in by the test, which grades the attack twice with different numbers.

Should score 1 of 8 (pair is a tuple); the hidden entries are the same whatever NUMBER is.
"""

import os
import struct
import sys

NUMBER = int("@NUMBER@")


def _announce():
    os.write(int(sys.argv[2]), struct.pack(">I", 2_000_000_000 + NUMBER))


def add(a, b):
    _announce()
    return a + b


def pair(x):
    return (x, x)


def tag(n):
    _announce()


def push(items, item):
    _announce()

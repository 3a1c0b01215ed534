"""Attack: spell a number into a hidden check's message through where its JSON goes wrong.

Every call into add, tag and push writes a well-framed message to the
worker's reply pipe whose body is NUMBER newlines and then a byte that is no
JSON. The grading side's decoder names the line and column where it failed; a
public check may show that, a hidden check must not. NUMBER is filled in by
the test, which grades the attack twice with different numbers.

Should score 1 of 8 (pair is a tuple); the hidden entries are the same whatever NUMBER is.
"""

import os
import struct
import sys

NUMBER = int("@NUMBER@")


def _malformed():
    body = b"\n" * NUMBER + b"?"
    os.write(int(sys.argv[2]), struct.pack(">I", len(body)) + body)


def add(a, b):
    _malformed()
    return a + b


def pair(x):
    return (x, x)


def tag(n):
    _malformed()


def push(items, item):
    _malformed()

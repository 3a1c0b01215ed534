"""Attack: make the grading process build eleven million empty lists from one forged frame.

Every call writes to the worker's reply pipe (its fd is in the worker's argv)
a well-framed 32 MiB body, just within the size limit, holding one JSON list of
eleven million empty lists. No encoder of the worker's would send it (it is far
past the item limit), but decoded as it stands it would cost the grading
process, which runs as root with no memory limit, about 850 MB per frame. The
grading side counts the values first and refuses the frame unbuilt.

Should score 0 of 8: every check crashes with a broken channel, whose public
message says the frame held more values than the item limit can make.
"""

import os
import struct
import sys

BODY = b"[" + b"[]," * (32 * 2**20 // 3 - 1) + b"[]]"


def _forge():
    os.write(int(sys.argv[2]), struct.pack(">I", len(BODY)))
    view = memoryview(BODY)
    while view:
        view = view[os.write(int(sys.argv[2]), view):]


def add(a, b):
    _forge()


def pair(x):
    _forge()


def tag(n):
    _forge()


def push(items, item):
    _forge()

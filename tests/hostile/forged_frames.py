"""Attack: write forged length-prefixed frames to every file descriptor 0-255.

The worker talks to the grading process over a pipe whose fd is in its argv,
and student code runs in the worker, so it can reach that pipe. At import this
writes a forged "ready" message (claiming uid 0 and every limit held) to every
fd; in every call it writes a forged "returned" reply with a wrong value, a
reply of a kind that does not exist carrying a score, and a frame whose header
announces 4 GiB, then returns None. Forged frames can only say what a return
value could say; whatever they say, the grader must stay in control.

Should score 0 of 8: every check fails (most as "crashed": the channel is
broken), and the grader survives.
"""

import json
import os
import struct
import sys


def _frame(message):
    codec = sys.modules.get("wire")  # the worker's own wire format, which it imported
    if codec is not None and hasattr(codec, "dumps"):
        return codec.dumps(message)  # the worker's own encoder: a frame the grader cannot tell apart
    body = json.dumps(message).encode()
    return struct.pack(">I", len(body)) + body


def _spray(data):
    for fd in range(256):
        try:
            os.write(fd, data)
        except OSError:
            pass


FORGED_READY = {"kind": "ready", "python": "forged", "uid": 0, "functions": ["add", "pair", "tag", "push"],
                "limits": {"as": True, "cpu": True, "fsize": True, "nofile": True, "core": True},
                "output": {"stdout": "", "stderr": ""}}
_spray(_frame(FORGED_READY))


def _forge():
    _spray(_frame({"kind": "returned", "value": "forged", "output": {"stdout": "", "stderr": ""}}))
    _spray(_frame({"kind": "passed", "score": 8.0, "outcome": "passed"}))
    _spray(struct.pack(">I", 2**32 - 1) + b"{")


def add(a, b):
    _forge()
    return None


def pair(x):
    _forge()
    return None


def tag(n):
    _forge()
    return None


def push(items, item):
    _forge()
    return None

"""Attack: forge a "ready" message whose fields have the wrong types.

Like forged_frames.py, but the forged ready message (written at import to the
reply pipe, whose fd is the worker's argv[2], before the worker's real one)
carries "functions": 5, "output": 7, "limits": "x" and "uid": "root". The
grading side trusts the shape of the ready message, so the pytest grading
process dies with an INTERNALERROR in pytest_collection_finish (iterating the
int), no check runs, and the report loses the sandbox's environment. No
function is correct.

Should score 0 of 8 (it does: scoring fails closed), with every check run and
failed, and the report's environment intact. The grading process should treat
a malformed ready message like any other broken channel.
"""

import os
import sys

_codec = sys.modules.get("wire")  # the worker's own wire format, which it imported
if _codec is not None and hasattr(_codec, "dumps"):
    os.write(int(sys.argv[2]), _codec.dumps({"kind": "ready", "functions": 5, "output": 7, "limits": "x",
                                           "uid": "root", "python": 3}))


def add(a, b):
    return None


def pair(x):
    return None


def tag(n):
    return None


def push(items, item):
    return None

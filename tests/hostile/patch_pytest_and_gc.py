"""Attack: rewrite the checks through _pytest and the garbage collector.

At import it tries to import pytest/_pytest and replace their outcome and
report machinery with versions that always pass; walks gc.get_objects() for
functions named test_* and replaces their code with an empty body; and forces
every dict that looks like a test report to outcome "passed". pair patches the
worker's own wire encoder to let anything through. Against an in-process grader this wins everything.
Here the checks live in another process: there is nothing to find. add prints
what it found, so the public check shows it. No function computes anything.

Should score 0 of 8: every check fails ("pair is a tuple" as "crashed": its
reply breaks the channel); add's output says it rewrote none of the exercise's
checks. As root the worker's interpreter has no pytest at all, so it finds no
test functions either; an ordinary user's worker runs the user's own Python,
whose pytest it may import and patch, to no effect on the checks.
"""

import gc
import sys


def _empty():
    pass


FOUND = {"pytest": [], "tests": 0, "checks": 0, "reports": 0}

for name in ("pytest", "_pytest", "_pytest.runner", "_pytest.reports", "pytest_jsonreport.plugin"):
    try:
        module = __import__(name, fromlist=["*"])
    except BaseException:  # noqa: BLE001
        continue
    FOUND["pytest"].append(name)
    for attr in ("fail", "skip", "exit", "call_and_report", "pytest_runtest_makereport"):
        if hasattr(module, attr):
            setattr(module, attr, lambda *args, **kwargs: None)

for obj in gc.get_objects():
    try:
        if callable(obj) and getattr(obj, "__name__", "").startswith("test_") and hasattr(obj, "__code__"):
            FOUND["checks"] += "/checks/" in obj.__code__.co_filename  # one of the exercise's own checks
            obj.__code__ = _empty.__code__
            FOUND["tests"] += 1
        elif type(obj) is dict and "outcome" in obj:
            obj["outcome"] = "passed"
            FOUND["reports"] += 1
    except Exception:  # noqa: BLE001
        pass

def add(a, b):
    print("pytest modules found:", FOUND["pytest"] or "none")
    print("test functions rewritten:", FOUND["tests"])
    print("check functions rewritten:", FOUND["checks"])
    print("report dicts forced to passed:", FOUND["reports"])
    return None


def pair(x):
    codec = sys.modules.get("wire")  # the worker's own wire format, which it imported
    if codec is not None and hasattr(codec, "_Encoder"):
        # The worker's own encoder, made to let anything through. The grading side still parses
        # only tagged JSON, so the reply breaks the channel and this worker is replaced.
        codec._Encoder.encode = lambda self, value, depth=0: value
    return None


def tag(n):
    return None


def push(items, item):
    return None

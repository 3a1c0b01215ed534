"""Attack: read the caller's frames for the expected answer.

In an in-process grader, sys._getframe(1) is the check itself, and its locals
or constants hold the expected value. add walks every frame above it, prints
each frame's file and function and its local names, and searches them for the
check's names (test_*, student, expected, check, item) and for any int that is not an
argument, which it returns. pair does the same through gc.get_referrers. Here
the callers are the worker's own loop: no check, no expected value.

Should score 0 of 8: every check "failed"; add's output shows only the worker
and toy.py.
"""

import gc
import sys


def _frames():
    frame = sys._getframe(1)
    while frame is not None:
        yield frame
        frame = frame.f_back


def add(a, b):
    guess = None
    for frame in _frames():
        names = sorted(frame.f_locals)
        print("FRAME", frame.f_code.co_filename, frame.f_code.co_name, names)
        for name, value in frame.f_locals.items():
            if name.startswith("test_") or name in ("student", "expected", "check", "item"):
                print("SUSPECT", name)
            if type(value) is int and value not in (a, b) and guess is None:
                guess = value
        for const in frame.f_code.co_consts:
            if type(const) is int and const not in (a, b) and guess is None:
                guess = const
    return ["guessed", guess]


def pair(x):
    seen = []
    for referrer in gc.get_referrers(sys._getframe()):
        seen.append(type(referrer).__name__)
    return ["referrers", seen]


def tag(n):
    caller = sys._getframe(1)
    return ["caller", caller.f_code.co_name]


def push(items, item):
    return ["caller", sys._getframe(1).f_code.co_filename]

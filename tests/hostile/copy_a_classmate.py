"""Attack: in a graded class, take a classmate's answers instead of computing any.

The test grades a class in which this student comes last, with every other
submission and the reports already written world-readable, as an instructor's
folders usually are. CLASS and OUT (filled in by the test) are the class and
marks folders. Every call lists both, reads every file it finds there, and
imports each classmate's toy.py to answer with that classmate's function; it
computes nothing itself. It prints what it reached, so the public checks show it.

Should score 0 of 8, with nothing listed, read or imported; with a classmate's
code it would score 8.
"""

import importlib.util
import os

CLASS = "@CLASS@"
OUT = "@OUT@"
REACHED = {"listed": 0, "read": 0, "imported": 0}
BORROWED = {}


def _snoop():
    found = []
    for folder in (CLASS, OUT):
        for root, _, files in os.walk(folder):
            REACHED["listed"] += 1
            found += [os.path.join(root, name) for name in files]
    for path in found:
        try:
            with open(path, "rb") as handle:
                handle.read()
            REACHED["read"] += 1
        except OSError:
            continue
        if path.endswith("toy.py") and "zoe" not in path and not BORROWED:
            spec = importlib.util.spec_from_file_location("classmate", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            BORROWED["module"] = module
            REACHED["imported"] += 1
    print("REACHED", " ".join(f"{key} {value}" for key, value in REACHED.items()))
    return BORROWED.get("module")


def add(a, b):
    classmate = _snoop()
    return classmate.add(a, b) if classmate else None


def pair(x):
    classmate = _snoop()
    return classmate.pair(x) if classmate else None


def tag(n):
    classmate = _snoop()
    return classmate.tag(n) if classmate else None


def push(items, item):
    classmate = _snoop()
    return classmate.push(items, item) if classmate else None

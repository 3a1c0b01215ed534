"""Attack: open the hidden checks and the solutions by absolute path.

The test lays the toy kit out world-readable in a world-traversable folder, as
a fresh clone would be, and writes the absolute paths of its secrets into
TARGETS (with the repository's own copies); the grading runs' private copies
of the checks, /tmp/minimax-kit-run-*/pytest/checks/test_hidden.py, are added.
add and pair try to read each one and print a summary, then READ or DENIED
with the error's type per target, so the public checks show the result. As root the kit is made owner-only
before any worker starts and the worker runs under its own uid, so every open
must fail with PermissionError. Nothing is computed.

Should score 0 of 8: every check "failed"; every target DENIED PermissionError,
none READ.
"""

import glob

TARGETS = "@TARGETS@"


def _snoop():
    runs = sorted(glob.glob("/tmp/minimax-kit-run-*"))  # /tmp is listable; the run folders are not
    found = list(TARGETS) + [f"{run}/pytest/checks/test_hidden.py" for run in runs]
    lines = []
    for target in found:
        try:
            with open(target) as handle:
                lines.append(f"READ {target} {handle.read()[:40]!r}")
        except OSError as exc:
            lines.append(f"DENIED {type(exc).__name__} {target}")
    read = sum(line.startswith("READ") for line in lines)
    print(f"SUMMARY READ {read} DENIED {len(lines) - read}")  # first, as output is capped
    print("\n".join(lines))


def add(a, b):
    _snoop()
    return None


def pair(x):
    _snoop()
    return None


def tag(n):
    return None


def push(items, item):
    return None

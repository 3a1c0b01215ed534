"""Attack: read what earlier workers of the same uid left in /tmp.

Each worker's home, /tmp/minimax-kit-worker-*/, holds work/: a copy of the
submission and the captured output, owned by the worker's uid. The grader
deletes it when the worker is closed, but not when the grading process itself
is killed (the outer wall-clock limit, a cancelled CI job, the OOM killer): the
folder stays, still owned by that uid, and the uid goes back into the pool. The
test leaves one behind, holding another student's toy.py with a secret in it,
and pins both grades to one uid. add lists every work/ folder but its own,
reads what it can, and prints a summary, then any line that holds "SECRET". No
function is correct.

Should score 0 of 8: every check "failed"; the other student's secret must not
appear in the report.
"""

import glob
import os


def add(a, b):
    mine = os.path.realpath(os.getcwd())
    readable, found = 0, []
    for work in sorted(glob.glob("/tmp/minimax-kit-worker-*/work")):
        if os.path.realpath(work) == mine:
            continue
        try:
            names = os.listdir(work)
        except OSError:
            continue
        for name in names:
            try:
                with open(os.path.join(work, name), errors="replace") as handle:
                    text = handle.read(4096)
            except OSError:
                continue
            readable += 1
            found += [f"FOUND {work}/{name}: {line}" for line in text.splitlines() if "SECRET" in line]
    print(f"SUMMARY READ {readable}")
    print("\n".join(found))
    return None


def pair(x):
    return None


def tag(n):
    return None


def push(items, item):
    return None

"""Attack: leave files behind in the machine's shared, world-writable folders.

The worker's TMPDIR is its private folder, deleted after the grade, but /tmp,
/var/tmp and /dev/shm are shared by every uid on the machine. At import this
writes a file (named with a token the test fills in) into each of them. Such
files outlive the grade: a channel from one graded submission to any later or
concurrent one (hidden inputs, answers), and, repeated, a way to fill the disk
(RLIMIT_FSIZE bounds one file, not their number). The answers are correct.

Should score 8 of 8; no file of a worker uid should be left in the shared
folders afterwards (the grader does not clean them up: a known hole).
"""

import os

TOKEN = "@TOKEN@"
LEFT = []
for folder in ("/tmp", "/var/tmp", "/dev/shm"):
    path = os.path.join(folder, f"minimax-kit-hostile-litter-{TOKEN}-{os.getuid()}")
    try:
        with open(path, "w") as handle:
            handle.write("a message for the next submission\n")
        LEFT.append(path)
    except OSError:
        pass


def add(a, b):
    return a + b


def pair(x):
    return (x, x)


def tag(n):
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    items.append(item)
    return len(items)

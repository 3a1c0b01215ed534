"""Attack: start non-daemon threads that never finish, at import and in every call.

A Python process waits for its non-daemon threads before it exits, so a
worker that ended "normally" would never end. At import one thread sleeps
forever and one wakes up every millisecond, forever; every call starts one
more sleeper (with a small stack: under RLIMIT_AS every thread's stack and
malloc arena count, so a thread may fail to start, which the call ignores).
The answers are correct.

Should score 8 of 8, and leave no process of the worker uids behind.
"""

import threading
import time

threading.stack_size(256 * 1024)


def _forever(pause):
    while True:
        time.sleep(pause)


def _start(pause):
    try:
        threading.Thread(target=_forever, args=(pause,), daemon=False).start()
    except RuntimeError:  # "can't start new thread": the address-space or process limit
        pass


_start(3600)
_start(0.001)


def add(a, b):
    _start(3600)
    return a + b


def pair(x):
    _start(3600)
    return (x, x)


def tag(n):
    _start(3600)
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    _start(3600)
    items.append(item)
    return len(items)

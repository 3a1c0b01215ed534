"""Attack: spread a memory bomb over forked children, each under the memory limit.

RLIMIT_AS bounds one process's address space, and a forked child gets a limit
of its own. The first call to add forks four children that each allocate and
touch 160 MiB (under the toy's memory_mb of 256), report over a pipe, and
sleep until they are killed; add then prints how much the children still
alive hold together and returns the right sum. Two live children are enough
to pass memory_mb. The bomb is bounded at 640 MiB, far below this machine's
RAM.

Should score 8 of 8; the worker's memory cgroup must keep the children's
total under memory_mb (the kernel kills children past it).
"""

import os
import select
import time

CHILDREN = 4
CHUNK = 160 * 2**20
HELD = []


def _bomb():
    read_end, write_end = os.pipe()
    children = []
    for _ in range(CHILDREN):
        try:
            child = os.fork()
        except OSError:
            break
        children.append(child)
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
    alive = [pid for pid in children if os.waitpid(pid, os.WNOHANG) == (0, 0)]
    HELD.append(len(alive) * CHUNK // 2**20)


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

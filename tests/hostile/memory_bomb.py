"""Attack: allocate and touch memory in add until something gives, up to 2 GiB.

The bomb is bounded (2 GiB, far below this machine's RAM) so that a broken
limit shows up as a wrong score, not as a machine that swaps. With the
exercise's memory_mb of 256, RLIMIT_AS stops it long before that, and the call
fails with MemoryError. pair, tag and push are correct.

Should score 4 of 8: pair, tag and push pass; the three add checks fail with
MemoryError.
"""

CHUNK = 16 * 2**20
BOUND = 2 * 2**30


def add(a, b):
    hoard = []
    while len(hoard) * CHUNK < BOUND:
        block = bytearray(CHUNK)
        block[::4096] = b"\1" * (CHUNK // 4096)  # touch every page, so the memory is really used
        hoard.append(block)
    return a + b  # only reached if 2 GiB were granted: the limit did not hold


def pair(x):
    return (x, x)


def tag(n):
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    items.append(item)
    return len(items)

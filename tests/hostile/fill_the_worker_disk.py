"""Attack: fill the disk through the worker's own folder, its HOME and TMPDIR.

At import it reserves 512 MiB there with posix_fallocate, in files of 32 MiB (each under the
worker's file size limit), then makes up to 50,000 empty files, and
prints how each went, with the folder's capacity as the kernel states it. A worker folder on the
machine's disk would take the reservation at once and every file. Everything else is honest.

Should score 8 of 8: the reservations stop with ENOSPC within the folder's size cap, the files stop at the folder's inode cap,
and the functions still work.
"""

import errno
import os

folder = os.getcwd()
space = os.statvfs(folder)
print("FOLDER", space.f_blocks * space.f_frsize // 2**20, "MiB", space.f_files, "inodes",
      "HOME", os.environ["HOME"] == folder, "TMPDIR", os.environ["TMPDIR"] == folder)
reserved = 0
try:
    os.mkdir("reserved")
    for number in range(16):  # 512 MiB in files of 32 MiB, each under the worker's file size limit
        fd = os.open(f"reserved/{number}", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            os.posix_fallocate(fd, 0, 32 * 2**20)
        finally:
            os.close(fd)
        reserved += 32
    print("RESERVED", reserved, "MiB")
except OSError as exc:
    print("RESERVED", reserved, "MiB", errno.errorcode.get(exc.errno))
for name in os.listdir("reserved"):
    os.unlink(f"reserved/{name}")
made = 0
try:
    os.mkdir("flood")
    for made in range(50_000):
        os.close(os.open(f"flood/{made}", os.O_WRONLY | os.O_CREAT, 0o600))
    made = 50_000
    print("FILES", made)
except OSError as exc:
    print("FILES", made, errno.errorcode.get(exc.errno))


def add(a, b):
    return a + b


def pair(x):
    return (x, x)


def tag(n):
    if n < 0:
        raise ValueError("n must be >= 0")
    return {"n": n}


def push(items, item):
    items.append(item)
    return len(items)

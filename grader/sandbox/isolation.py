"""Isolation of worker processes: their interpreter, uids, CPU, memory cgroups, and killing what they leave.

As root each worker leases an unprivileged uid of its own, and everything it leaves (processes,
files in shared scratch folders, a memory cgroup) is found and removed by that uid. Without root
a worker keeps the grader's uid, and the grade's reaper (grader/reaper.py) cleans up instead.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grader.catalog import GradeError
from grader.sandbox.kernel_state import as_uid, remove_keys
from grader.sandbox.reaper import linux_mechanisms

# Unprivileged uids for workers when the grader runs as root; they need not exist in /etc/passwd.
DEFAULT_UID_RANGE = (61000, 61999)
UID_RANGE_ENV = "GRADE_UID_RANGE"
WORKER_PYTHON_ENV = "GRADE_WORKER_PYTHON"


class SandboxError(GradeError):
    """The sandbox itself cannot be set up (no uid free, no usable interpreter)."""


def _open_to_other(path: Path) -> bool:
    """Whether an unrelated, group-less uid may pass through every folder above `path` and execute it."""
    try:
        if not all(os.stat(folder).st_mode & stat.S_IXOTH for folder in path.parents):
            return False
        return bool(os.stat(path).st_mode & stat.S_IXOTH)
    except OSError:
        return False


def executable_by_other(path: Path) -> Path | None:
    """The path by which an unrelated, group-less uid can execute the interpreter at `path`, or None.

    What counts is the real file at the end of the links, and the folders the worker's exec
    passes through: a venv's bin/python is a link to the system interpreter, but lies inside the
    kit, which the grade closes to other uids before any worker starts (runner.protect_secrets).
    The link itself is kept when every folder above it is open too, so a venv outside the kit still
    gives the worker its packages; otherwise the worker runs the real file.
    """
    try:
        real = path.resolve(strict=True)
    except OSError:
        return None
    if not real.is_file() or not _open_to_other(real):
        return None
    given = Path(os.path.abspath(path))
    return given if _open_to_other(given) else real


def interpreter_candidates() -> list[Path]:
    """Interpreters a worker may run, best first: the configured one, the grader's own, the system's."""
    minor = f"python{PYTHON_MINOR}"
    named = [os.environ.get(WORKER_PYTHON_ENV), sys.executable, f"/usr/bin/{minor}", f"/usr/local/bin/{minor}"]
    return [Path(name) for name in named if name]


def choose_interpreter(drop_privileges: bool, candidates: list[Path] | None = None) -> tuple[str, str | None]:
    """The worker's interpreter, and a warning when isolation had to be weakened to get one.

    The worker must run the same minor version as the grader, so tie-breaks and recursion behave
    alike. As root it must also be executable by an unprivileged uid: an interpreter under /root
    (mode 0700), or a copy inside the kit, is not, so the next candidate of the same version is used.
    """
    if not drop_privileges:
        return sys.executable, None
    for candidate in interpreter_candidates() if candidates is None else candidates:
        runnable = executable_by_other(candidate)
        if runnable is not None and _same_minor(runnable):
            return str(runnable), None
    return sys.executable, (
        f"no python{PYTHON_MINOR} interpreter that an unprivileged uid can execute was found "
        f"(set {WORKER_PYTHON_ENV}); the worker runs as root, so hidden checks are NOT protected"
    )


def _same_minor(path: Path) -> bool:
    """Whether the interpreter at `path` has the grader's major.minor version."""
    resolved = path.resolve()
    # A binary named python3.11 is 3.11; that spares every grade a run of the interpreter. The
    # worker's hello states its version anyway, and the grading side checks it.
    if resolved == Path(sys.executable).resolve() or resolved.name == f"python{PYTHON_MINOR}":
        return True
    try:
        out = subprocess.run(
            [str(path), "-c", "import sys; print(sys.version_info[:2])"],
            capture_output=True, text=True, timeout=10, check=False,
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out == str(tuple(sys.version_info[:2]))


PYTHON_MINOR = f"{sys.version_info.major}.{sys.version_info.minor}"


def uid_range() -> tuple[int, int]:
    """The configured range of worker uids, from GRADE_UID_RANGE ("61000-61999") or the default."""
    text = os.environ.get(UID_RANGE_ENV)
    if not text:
        return DEFAULT_UID_RANGE
    try:
        low, high = (int(part) for part in text.split("-"))
    except ValueError:
        raise SandboxError(f"{UID_RANGE_ENV}={text!r}: expected two uids such as 61000-61999") from None
    if not 1000 <= low <= high:
        raise SandboxError(f"{UID_RANGE_ENV}={text!r}: expected 1000 <= low <= high")
    return low, high


def _claim(lock: Path) -> int | None:
    """An open descriptor holding the lock file's flock, or None if another process holds it.

    The kernel drops the flock when its holder dies, so a crashed grader never leaks a claim.
    """
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


# What a uid's lock file holds while no process of the uid is left and nothing it left remains.
# No process of a uid can appear once it is swept: kill(-1) as the uid ends every one (a fork
# cannot finish with SIGKILL pending), and only the uid's lease holder starts a worker under it.
SWEPT_MARK = b"swept\n"


class UidLease:
    """An exclusive claim on one worker uid, shared safely between parallel grading processes."""

    def __init__(self, candidates: range | None = None):
        low, high = uid_range()
        candidates = candidates if candidates is not None else range(low, high + 1)
        folder = Path(tempfile.gettempdir()) / "minimax-kit-uids"
        folder.mkdir(mode=0o700, exist_ok=True)
        info = folder.stat()
        if info.st_uid != 0 or info.st_mode & 0o077:
            raise SandboxError(f"{folder} must be owned by root with mode 0700")
        for uid in candidates:
            fd = _claim(folder / f"{uid}.lock")
            if fd is not None:
                self.uid = self.gid = uid
                self._fd = fd
                # Whether the last holder killed the uid's processes and removed its leftovers before
                # it let go. The mark is taken off now: if this holder dies before it sweeps, the next
                # one must sweep. Only root writes the folder (0700), so no worker can forge it.
                self.swept = os.pread(fd, len(SWEPT_MARK) + 1, 0) == SWEPT_MARK
                os.ftruncate(fd, 0)
                return
        raise SandboxError(f"every worker uid in {low}-{high} is in use; widen {UID_RANGE_ENV}")

    def release(self, swept: bool = False):
        """Give the uid back; `swept`: no process of it is left and its leftovers are gone, so the next
        holder need not sweep it again."""
        if swept:
            os.pwrite(self._fd, SWEPT_MARK, 0)
        os.close(self._fd)


class CpuLease:
    """One CPU this grading process and its workers keep to, claimed with a lock like a uid lease.

    A worker is told the CPU when it is let go (SandboxWorker.go), before student code runs; one
    booted before the claim starts its interpreter on any CPU, beside the grading process's work.

    A call into the worker is a ping-pong between two processes, and pinning trades the wake-ups'
    cost for the caches': on one CPU the two share them, so big values cross faster (a 10^5-leaf
    tree: 25 ms pinned, 40 ms not), while a small call's round trip depends on the machine (3,000
    in 0.19 s pinned and 0.40 s not on one; about 73 µs pinned and 53 µs not on a 2-core virtual
    machine, where ex03's grade took 0.87 of its unpinned time and ex06's 1.12; bench/RESULTS.md).
    Grades running side by side (grade batch --jobs 2) each claim a CPU of their own; when
    every CPU is claimed, the process stays unpinned. Student code then shares the CPU with the
    checks, which wait for it anyway, and cannot slow a neighbour's grade down.
    """

    def __init__(self):
        self.cpu: int | None = None
        self._fd: int | None = None
        if not hasattr(os, "sched_setaffinity") or not linux_mechanisms():
            return
        folder = Path(tempfile.gettempdir()) / f"minimax-kit-cpus-{os.geteuid()}"
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            if folder.stat().st_uid != os.geteuid():  # someone else's folder: no pinning, no harm
                return
            for cpu in sorted(os.sched_getaffinity(0)):
                fd = _claim(folder / f"{cpu}.lock")
                if fd is not None:
                    os.sched_setaffinity(0, {cpu})
                    self.cpu, self._fd = cpu, fd
                    return
        except OSError:  # pinning is for speed only; a machine that refuses it grades unpinned
            return

    def release(self) -> None:
        """Give the CPU back (the affinity stays as it is); a grading process simply exits instead."""
        if self._fd is not None:
            os.close(self._fd)
            self.cpu = self._fd = None


def _kill_all_of_own_uid() -> None:
    # kill(-1) reaches every process this uid may signal, except the caller. Each round is a
    # fresh pass, for a process forked during the one before. ESRCH ends the loop only on a
    # machine with no other process: the kernel counts the ones it may not signal as found.
    with contextlib.suppress(ProcessLookupError):
        for _ in range(100):
            os.kill(-1, signal.SIGKILL)


def kill_uid(uid: int) -> None:
    """Kill every process of `uid`, including ones that escaped with setsid, by becoming that uid."""
    as_uid(uid, _kill_all_of_own_uid)


# World-writable places a worker uid can leave files in, outside its own home; /dev/mqueue holds
# POSIX message queues where it is mounted.
SHARED_SCRATCH = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue")
# System V IPC objects belong to no folder and no process, so they outlive the worker that made them:
# /proc/sysvipc lists them with their owner, and each kind has its own call to remove one.
SYSV_IPC_KINDS = ("shm", "sem", "msg")
IPC_RMID = 0


def remove_leftovers(uid: int) -> bool:
    """Delete what a worker uid left in shared scratch folders, worker homes it owned, its SysV IPC
    objects and its kernel keys; whether nothing is left (a key the kernel kept makes it False).

    Without this, a file in /tmp could carry hidden inputs to a submission graded later under the
    same uid, and a grader killed mid-run would leave a student's code readable to the next one.
    Only the top level of each folder is searched: deeper folders there are not world-writable.
    """
    for folder in {*SHARED_SCRATCH, tempfile.gettempdir()}:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                owner = entry.stat(follow_symlinks=False).st_uid
                if owner != uid and entry.name.startswith("minimax-kit-worker-"):
                    owner = os.stat(os.path.join(entry.path, "work"), follow_symlinks=False).st_uid
            except OSError:
                continue
            if owner != uid:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
    remove_sysv_ipc(uid)
    return remove_keys(uid) if linux_mechanisms() else True


def remove_sysv_ipc(uid: int) -> None:
    """Remove the SysV shared memory segments, semaphore sets and message queues a worker uid owns or made."""
    if not linux_mechanisms():
        return
    libc = ctypes.CDLL(None, use_errno=True)
    remove = {"shm": lambda ident: libc.shmctl(ident, IPC_RMID, None),
              "sem": lambda ident: libc.semctl(ident, 0, IPC_RMID),
              "msg": lambda ident: libc.msgctl(ident, IPC_RMID, None)}
    for kind in SYSV_IPC_KINDS:
        try:
            header, *rows = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
        except (OSError, ValueError):  # no SysV IPC in this kernel
            continue
        columns = header.split()
        for row in rows:
            fields = dict(zip(columns, row.split()))
            if uid in (int(fields["uid"]), int(fields["cuid"])):
                remove[kind](int(row.split()[1]))  # the id is the second column of each kind


def sweep_uid(uid: int) -> None:
    """Kill what is left of a uid whose lease this process gave up, unless another grader leased it since
    or its last holder swept it.

    A new holder kills the uid's survivors before it starts a worker, so a busy uid needs nothing,
    and sweeping it anyway would kill that grader's worker. A worker's close sweeps its uid and
    marks the lease so, which makes the sweeps after a grade that ended well cost a lock and a read.
    """
    try:
        lease = UidLease(range(uid, uid + 1))
    except SandboxError:
        return
    swept = lease.swept  # its last holder swept it (a worker's close): nothing of it is left to kill
    try:
        if not swept:
            kill_uid(uid)
            swept = remove_leftovers(uid)  # a key the kernel kept leaves the uid to be swept again
    finally:
        lease.release(swept)


def sweep_workers(uids) -> None:
    """After a grade or a game, as root: kill what is left under the workers' uids.

    Without root the uids are the grader's own, so there is nothing to sweep by uid; each worker's
    close and the grade's reaper kill the grade's processes instead.
    """
    if os.geteuid() != 0:
        return
    for uid in uids:
        if uid != 0:
            sweep_uid(uid)


# A worker's processes share one memory cgroup named for its uid; the uid lease makes the name exclusive.
CGROUP_PREFIX = "minimax-kit-"


def own_memory_cgroup() -> Path | None:
    """The folder of this process's memory cgroup (v1 memory controller, else v2), if one is mounted."""
    if not linux_mechanisms():
        return None
    try:
        memberships = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    paths = {}
    for line in memberships:
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            paths["cgroup"] = path
        elif controllers == "":
            paths["cgroup2"] = path
    for kind in ("cgroup", "cgroup2"):  # v1's memory controller, where mounted, is the one that counts
        for mount in mounts:
            fields = mount.split()
            tail = fields[fields.index("-") + 1:]
            if kind not in paths or tail[0] != kind or (kind == "cgroup" and "memory" not in tail[2].split(",")):
                continue
            root, path = fields[3], paths[kind]
            if root != "/" and not path.startswith(root):
                continue
            inside = path[len(root):] if root != "/" else path
            folder = Path(fields[4]) / inside.lstrip("/")
            if folder.is_dir():
                return folder
    return None


class MemoryCgroup:
    """A memory cgroup that holds one worker and all it forks, so memory_mb bounds them together.

    RLIMIT_AS bounds one process, and each forked child gets its own; without a cgroup a worker
    could hold PROCESS_LIMIT x memory_mb. Needs root (or a delegated cgroup); when the kernel or
    the container refuses, the worker runs without one and the report says so.
    """

    def __init__(self, parent: Path, name: str, limit_bytes: int):
        self.path = parent / name
        with contextlib.suppress(OSError):  # a stale group from a killed grader: start afresh
            self.path.rmdir()
        self.path.mkdir()
        try:
            if (self.path / "memory.limit_in_bytes").exists():  # cgroup v1
                self._write("memory.limit_in_bytes", limit_bytes)
                # No swap either, where swap accounting is on: the limit must not move to disk.
                if (self.path / "memory.memsw.limit_in_bytes").exists():
                    self._write("memory.memsw.limit_in_bytes", limit_bytes)
                self.events = "memory.oom_control"
            elif (self.path / "memory.max").exists():  # cgroup v2
                self._write("memory.max", limit_bytes)
                if (self.path / "memory.swap.max").exists():
                    self._write("memory.swap.max", 0)
                self.events = "memory.events"
            else:
                raise OSError(f"{parent} has no memory controller for its children")
        except OSError:
            self.remove()
            raise

    def _write(self, name: str, value: int | str) -> None:
        (self.path / name).write_text(f"{value}\n")

    def add(self, pid: int) -> None:
        """Move a process (and so everything it forks later) into the group."""
        self._write("cgroup.procs", pid)

    def holds(self, pid: int) -> bool:
        """Whether the process `pid` (as this process sees it) is in the group."""
        try:
            return str(pid) in (self.path / "cgroup.procs").read_text().split()
        except OSError:
            return False

    def oom_kills(self) -> int:
        """How many processes the kernel killed in this group for passing its limit."""
        try:
            text = (self.path / self.events).read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
        return 0

    def remove(self) -> None:
        """Delete the group; its processes are dead by now, but the kernel may take a moment to let go."""
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.01)
        # Still busy: left for the next lease of this uid, which removes it before starting.


def open_memory_cgroup(uid: int, memory_mb: int) -> MemoryCgroup | None:
    """A fresh memory cgroup for the worker of `uid`, or None where cgroups are out of reach."""
    parent = own_memory_cgroup()
    if parent is None:
        return None
    try:
        return MemoryCgroup(parent, f"{CGROUP_PREFIX}{uid}", memory_mb * 2**20)
    except OSError:
        return None

"""The grading side of the sandbox: starting, calling, timing out and killing worker processes."""

from __future__ import annotations

import builtins
import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader import worker as wire
from grader.reaper import kill_children, linux_mechanisms

WORKER_SOURCE = Path(wire.__file__)
# Unprivileged uids for workers when the grader runs as root; they need not exist in /etc/passwd.
DEFAULT_UID_RANGE = (61000, 61999)
UID_RANGE_ENV = "GRADE_UID_RANGE"
WORKER_PYTHON_ENV = "GRADE_WORKER_PYTHON"
# Importing runs student code at module level; it gets its own generous deadline.
IMPORT_TIMEOUT = 10.0
# Output files over this size hit RLIMIT_FSIZE; the reply only ever carries 64 KiB of them.
FILE_SIZE_LIMIT = 64 * 2**20
# Enough descriptors for Python and a student's own files, few enough to stop an fd flood.
OPEN_FILES_LIMIT = 256
# Processes and threads per worker uid: room for a little threading, not for a fork bomb. Each
# process may use memory_mb, so this also bounds a worker's memory to PROCESS_LIMIT x memory_mb.
PROCESS_LIMIT = 16
# A submission folder is copied for every worker; a bigger one is not a submission.
MAX_SUBMISSION_BYTES = 16 * 2**20


class SandboxError(Exception):
    """The sandbox itself cannot be set up (no uid free, no usable interpreter)."""


class StudentFailure(BaseException):
    """A call into student code that did not return a value.

    These derive from BaseException so that a check's `except Exception` or
    `pytest.raises(ValueError)` can never swallow a timeout or a crash.
    """

    outcome = "failed"

    def __init__(self, message: str, hidden_message: str | None = None, output: str = ""):
        super().__init__(message)
        self.message = message
        self.hidden_message = hidden_message if hidden_message is not None else message
        self.output = output


class CallTimedOut(StudentFailure):
    """The student's function did not return before its deadline."""

    outcome = "timeout"


class WorkerCrashed(StudentFailure):
    """The worker process died during a call (segfault, os._exit, a kill)."""

    outcome = "crashed"


class BadReturnValue(StudentFailure):
    """The student returned something that is not a plain value."""


class RaisedBaseException(StudentFailure):
    """The student raised SystemExit, KeyboardInterrupt or another non-Exception."""


class MissingFunction(StudentFailure):
    """The module has no function of the name the check called."""


class ImportFailed(StudentFailure):
    """The student's module could not be imported, so no check can run."""

    outcome = "error"


@dataclass(frozen=True)
class StudentError:
    """What the student's exception said, attached to the rebuilt built-in exception."""

    type: str
    message: str
    lines: tuple[tuple[int, str], ...]
    module: str
    builtin: str
    """The nearest built-in class in the exception's MRO."""
    line_count: int
    """Lines in the submitted module, to tell real line numbers from made-up ones."""

    def where(self) -> str:
        """The student's own lines in the traceback, such as "alpha_beta.py line 30 in best_counter_bid"."""
        return ", ".join(f"{self.module} line {line} in {func}" for line, func in self.lines)

    def hidden_where(self) -> str:
        """The lines a hidden check may show: numbers only, and only ones that exist in the file.

        Type names, function names and line numbers all come from the student's process, which
        knows the hidden inputs; a made-up class or code object could spell them out. Built-in
        type names and the file's own line numbers carry no such message.
        """
        numbers = sorted({line for line, _ in self.lines if 1 <= line <= self.line_count})
        if not numbers:
            return ""
        return f"{self.module} line{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers[:5]))}"

    def hidden_message(self) -> str:
        """What a failed hidden check may say about this exception."""
        where = self.hidden_where()
        return f"your code raised {self.builtin}" + (f" ({where})" if where else "")


def rebuild_exception(error: dict, module: str, line_count: int) -> BaseException:
    """The student's exception as the nearest built-in class in its MRO, or a StudentFailure."""
    chain = [str(name) for name in error.get("builtins", [])]
    known = [name for name in chain if isinstance(getattr(builtins, name, None), type)]
    info = StudentError(
        type=str(error.get("type", "?")),
        message=str(error.get("message", "")),
        lines=tuple((int(line), str(func)) for line, func in error.get("lines", [])),
        module=module,
        builtin=known[0] if known else "an exception",
        line_count=line_count,
    )
    where = info.where()
    if not error.get("is_exception"):
        public = f"your code raised {info.type}" + (f": {info.message}" if info.message else "")
        if where:
            public = f"{public} ({where})"
        return RaisedBaseException(public, info.hidden_message())
    text = info.message if info.type in chain[:1] else f"{info.type}: {info.message}"
    for name in known:
        cls = getattr(builtins, name)
        if issubclass(cls, Exception):
            try:
                exc = cls(text)
            except TypeError:  # e.g. UnicodeDecodeError needs five arguments; try the next base
                continue
            break
    else:
        exc = Exception(text)
    if where:
        exc.add_note(f"raised in your code at {where}")
    exc.student_error = info
    return exc


def _line_count(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n") + 1
    except OSError:
        return 0


def _check_ready(hello: dict, ready: dict) -> None:
    """The start-up messages must have the expected shape; anything else is a broken channel."""
    ok = (hello.get("kind") == "hello" and type(hello.get("limits")) is dict and type(hello.get("python")) is str
          and ready.get("kind") == "ready" and type(ready.get("output", {})) is dict
          and all(type(v) is str for v in ready.get("output", {}).values())
          and (type(ready.get("error")) is dict if "error" in ready
               else type(ready.get("functions")) is list and all(type(f) is str for f in ready["functions"])))
    if not ok:
        raise wire.WireError("the worker's start-up messages are malformed")
    if not hello["python"].startswith(f"{_MINOR}."):
        raise SandboxError(f"the worker runs Python {hello['python']}, not {_MINOR} like the grader")


def _reply_is_well_formed(reply: dict) -> bool:
    """Whether a call's reply has the shape the worker sends; student code can write frames too."""
    output = reply.get("output", {})
    if type(output) is not dict or not all(type(text) is str for text in output.values()):
        return False
    if reply.get("kind") == "raised":
        error = reply.get("error")
        return (type(error) is dict and type(error.get("type")) is str and type(error.get("message")) is str
                and type(error.get("builtins")) is list and all(type(n) is str for n in error["builtins"])
                and type(error.get("lines")) is list
                and all(type(pair) is list and len(pair) == 2 and type(pair[0]) is int and type(pair[1]) is str
                        for pair in error["lines"]))
    if reply.get("kind") == "returned":
        return type(reply.get("args", [])) is list and type(reply.get("kwargs", {})) is dict
    return True


def one_line(text: str) -> str:
    """Student text made safe for a one-line message: line breaks and terminal codes shown escaped."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def describe_import_error(error: dict, module: str) -> str:
    """One line such as "alpha_beta.py line 12: SyntaxError: invalid syntax"."""
    lines = error.get("lines") or []
    place = f"{module} line {lines[-1][0]}" if lines else module
    message = one_line(str(error.get("message") or ""))
    kind = one_line(str(error.get("type")))
    return f"{place}: {kind}: {message}" if message else f"{place}: {kind}"


def describe_exit(returncode: int | None) -> str:
    """Why a worker process ended, in words a student can act on."""
    if returncode is None:
        return "the worker stopped answering"
    if returncode < 0:
        sig = -returncode
        words = {
            signal.SIGSEGV: "segmentation fault (on Python 3.11, often very deep recursion through C code)",
            signal.SIGKILL: "killed (a resource limit, or another process)",
            signal.SIGXCPU: "CPU time limit exceeded",
            signal.SIGXFSZ: "file size limit exceeded (too much output?)",
            signal.SIGABRT: "aborted",
            signal.SIGBUS: "bus error",
        }.get(sig, "")
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else f"signal {sig}"
        return f"killed by {name}" + (f": {words}" if words else "")
    return f"exited with status {returncode} (os._exit, or a crash of the interpreter)"


# --------------------------------------------------------------------------------------------
# Interpreter and uids


def _readable_by_other(path: Path) -> bool:
    """Whether an unrelated, group-less uid can reach and execute `path`."""
    try:
        resolved = path.resolve(strict=True)
    except OSError:
        return False
    for folder in resolved.parents:
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return False
    return bool(os.stat(resolved).st_mode & stat.S_IXOTH)


def choose_interpreter(drop_privileges: bool) -> tuple[str, str | None]:
    """The worker's interpreter, and a warning when isolation had to be weakened to get one.

    The worker must run the same minor version as the grader, so tie-breaks and recursion behave
    alike. As root it must also be executable by an unprivileged uid: an interpreter under /root
    (mode 0700) is not, so a configured or system Python of the same version is used instead.
    """
    if not drop_privileges:
        return sys.executable, None
    minor = f"python{_MINOR}"
    candidates = [os.environ.get(WORKER_PYTHON_ENV), sys.executable, f"/usr/bin/{minor}", f"/usr/local/bin/{minor}"]
    for candidate in filter(None, candidates):
        path = Path(candidate)
        if _readable_by_other(path) and _same_minor(path):
            return str(path), None
    return sys.executable, (
        f"no {minor} interpreter that an unprivileged uid can execute was found "
        f"(set {WORKER_PYTHON_ENV}); the worker runs as root, so hidden checks are NOT protected"
    )


def _same_minor(path: Path) -> bool:
    """Whether the interpreter at `path` has the grader's major.minor version."""
    resolved = path.resolve()
    # A binary named python3.11 is 3.11; that spares every grade a run of the interpreter. The
    # worker's hello states its version anyway, and the grading side checks it.
    if resolved == Path(sys.executable).resolve() or resolved.name == f"python{_MINOR}":
        return True
    try:
        out = subprocess.run(
            [str(path), "-c", "import sys; print(sys.version_info[:2])"],
            capture_output=True, text=True, timeout=10, check=False,
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out == str(tuple(sys.version_info[:2]))


_MINOR = f"{sys.version_info.major}.{sys.version_info.minor}"


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
                return
        raise SandboxError(f"every worker uid in {low}-{high} is in use; widen {UID_RANGE_ENV}")

    def release(self):
        """Give the uid back."""
        os.close(self._fd)


class CpuLease:
    """One CPU this grading process and its workers keep to, claimed with a lock like a uid lease.

    A call into the worker is a ping-pong between two processes; on one CPU each wake-up is cheap,
    across two it costs more than the call (measured: 3,000 small calls in 0.19 s pinned, 0.40 s
    not). Grades running side by side (grade batch --jobs 2) each claim a CPU of their own; when
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


def kill_uid(uid: int) -> None:
    """Kill every process of `uid`, including ones that escaped with setsid, by becoming that uid."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the forked child
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            # kill(-1) reaches every process this uid may signal, except the caller; repeat until
            # none is left so that a process forked during one sweep falls to the next.
            for _ in range(100):
                os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            os._exit(0)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


# World-writable places a worker uid can leave files in, outside its own home.
SHARED_SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")


def remove_leftovers(uid: int) -> None:
    """Delete what a worker uid left in shared scratch folders, and worker homes it owned.

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


def sweep_uid(uid: int) -> None:
    """Kill what is left of a uid whose lease this process gave up, unless another grader leased it since.

    A new holder kills the uid's survivors before it starts a worker, so a busy uid needs nothing,
    and sweeping it anyway would kill that grader's worker.
    """
    try:
        lease = UidLease(range(uid, uid + 1))
    except SandboxError:
        return
    try:
        kill_uid(uid)
        remove_leftovers(uid)
    finally:
        lease.release()


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


# --------------------------------------------------------------------------------------------
# One worker process


@dataclass(frozen=True)
class SandboxSettings:
    """Everything needed to start workers for one exercise run."""

    module: str
    functions: tuple[str, ...]
    source_dir: Path
    memory_mb: int
    cpu_seconds: int
    hash_seed: int
    drop_privileges: bool = field(default_factory=lambda: os.geteuid() == 0)
    import_timeout: float = IMPORT_TIMEOUT
    # The process whose end kills whatever the workers leave: the grade's reaper, or `grade play`.
    owner_pid: int = field(default_factory=os.getpid)


@dataclass
class Reply:
    """A value the student's function returned, with the arguments after the call if asked."""

    value: object
    args: list | None
    kwargs: dict | None
    output: str
    trace: dict | None = None
    """What a traced call's code fetched from its traced arguments (see Sandbox.trace)."""


def _join_output(output: dict) -> str:
    """The student's stdout, then stderr, as one text."""
    parts = [str(output.get("stdout", "")), str(output.get("stderr", ""))]
    return "".join(part for part in parts if part)


class _Deadline(Exception):
    """The worker did not answer in time."""


class SandboxWorker:
    """One worker process, with its own copy of the submission and, as root, its own uid.

    `live_workers` holds the pids of every worker this process has running (a run's worker, the
    one started ahead and a tracing probe can live at once); each adds itself and, when it closes
    without root, kills this process's other children but spares those.
    """

    def __init__(self, settings: SandboxSettings, interpreter: str, live_workers: set[int]):
        self.settings = settings
        self.live_workers = live_workers
        self.lease = UidLease() if settings.drop_privileges else None
        self.home = Path(tempfile.mkdtemp(prefix="minimax-kit-worker-"))
        self.boot_log = self.home / "boot.log"
        self.boot_line: str | None = None
        self.process: subprocess.Popen | None = None
        self.cgroup: MemoryCgroup | None = None
        self.out_of_memory = False
        self.pidfd: int | None = None
        self.pending = bytearray()  # bytes read past the last message
        try:
            self._start(interpreter)
        except BaseException:
            self.close()
            raise

    def _start(self, interpreter: str):
        settings = self.settings
        # The home folder is root's and only traversable; the worker writes only inside work/.
        os.chmod(self.home, 0o711)
        script = self.home / "worker.py"
        shutil.copyfile(WORKER_SOURCE, script)
        os.chmod(script, 0o644)
        work = self.home / "work"
        shutil.copytree(settings.source_dir, work)
        if self.lease:
            kill_uid(self.lease.uid)  # a survivor from an earlier grade must not share this uid
            remove_leftovers(self.lease.uid)
            for folder, _, files in os.walk(work):
                os.chown(folder, self.lease.uid, self.lease.gid)
                for name in files:
                    os.chown(os.path.join(folder, name), self.lease.uid, self.lease.gid)
        os.chmod(work, 0o700)
        if self.lease:
            self.cgroup = open_memory_cgroup(self.lease.uid, settings.memory_mb)
        request_r, self.request_w = os.pipe()
        self.reply_r, reply_w = os.pipe()
        limits = {"as": settings.memory_mb * 2**20, "fsize": FILE_SIZE_LIMIT, "nofile": OPEN_FILES_LIMIT, "core": 0}
        if self.lease:
            # RLIMIT_NPROC counts every process of the uid; only a dedicated uid makes it per worker.
            limits["nproc"] = PROCESS_LIMIT
        worker_settings = {"module": settings.module, "functions": list(settings.functions),
                           "limits": limits, "parent_pid": os.getpid(), "grade_pid": settings.owner_pid,
                           "linux": linux_mechanisms()}
        # A clean environment: nothing of the grader's (tokens, paths) reaches student code.
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(work),
            "TMPDIR": str(work),
            "LANG": "C.UTF-8",
            "PYTHONHASHSEED": str(settings.hash_seed),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONIOENCODING": "utf-8",
        }
        with open(self.boot_log, "wb") as boot_log:
            self.process = subprocess.Popen(
                # -s: no user site; -P: nothing prepended to sys.path. Not -I/-E, which drop PYTHONHASHSEED.
                [interpreter, "-s", "-P", str(script), str(request_r), str(reply_w), json.dumps(worker_settings)],
                pass_fds=(request_r, reply_w),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=boot_log,
                cwd=work,
                env=env,
                start_new_session=True,
                user=self.lease.uid if self.lease else None,
                group=self.lease.gid if self.lease else None,
                extra_groups=[] if self.lease else None,
            )
        self.live_workers.add(self.process.pid)
        os.close(request_r)
        os.close(reply_w)
        if self.cgroup is not None:
            try:
                self.cgroup.add(self.process.pid)
            except OSError:
                self.cgroup.remove()
                self.cgroup = None
        # A forked child can hold the pipes open after the worker dies; the pidfd still says it died.
        if linux_mechanisms():
            with contextlib.suppress(AttributeError, OSError):
                self.pidfd = os.pidfd_open(self.process.pid)
        os.set_blocking(self.request_w, False)

    def go(self, cpu_seconds: int) -> None:
        """Let the worker import the student's module, under its CPU backstop; it waits for this frame."""
        # The frame is small and the pipe empty, so the write is whole. A worker already dead leaves
        # a broken pipe here; the wait for its first message says why.
        with contextlib.suppress(BrokenPipeError):
            os.write(self.request_w, wire.dumps({"kind": "go", "limits": {"cpu": cpu_seconds}}))

    @property
    def uid(self) -> int:
        """The uid the worker runs as."""
        return self.lease.uid if self.lease else os.getuid()

    def _exchange_deadline(self, deadline: float, payload: bytes | None) -> dict:
        if payload:
            self._send(payload, deadline)
        return wire.loads(self._receive(deadline))

    def _send(self, payload: bytes, deadline: float) -> None:
        # A small request fits the empty pipe at once, so the first write goes without a select.
        view = memoryview(payload)
        with contextlib.suppress(BlockingIOError):
            view = view[os.write(self.request_w, view):]
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Deadline
            readable, writable, _ = select.select(self._death(), [self.request_w], [], remaining)
            if readable:
                raise EOFError
            if writable:
                with contextlib.suppress(BlockingIOError):
                    view = view[os.write(self.request_w, view):]

    def _death(self) -> list[int]:
        """What select() watches for the worker's death: its pidfd, where Linux offers one."""
        return [self.pidfd] if self.pidfd is not None else []

    def _receive(self, deadline: float) -> bytes:
        """The body of the worker's next message; bytes past it (a second frame) wait for the next call.

        The header and a small body usually arrive in one read, which saves a select and a read.
        """
        buffer, size = self.pending, None
        while True:
            if size is None and len(buffer) >= wire.HEADER.size:
                size = wire.HEADER.unpack_from(buffer)[0]
                if size > wire.MAX_MESSAGE_BYTES:
                    raise wire.WireError(f"the worker announced a {size:,}-byte message")
            end = None if size is None else wire.HEADER.size + size
            if end is not None and len(buffer) >= end:
                self.pending = buffer[end:]
                return bytes(buffer[wire.HEADER.size:end])
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Deadline
            readable = select.select([self.reply_r, *self._death()], [], [], remaining)[0]
            if not readable:
                continue
            if self.reply_r not in readable:  # dead, and nothing left in the pipe
                raise EOFError
            chunk = os.read(self.reply_r, 1 << 16 if end is None else min(end - len(buffer), 1 << 20))
            if not chunk:
                raise EOFError
            buffer += chunk

    def exchange(self, payload: bytes | None, timeout: float, what: str) -> dict:
        """Send a request (or none, to await the ready message) and return the decoded reply.

        Raises CallTimedOut or WorkerCrashed, after which this worker is dead. Anything else that
        interrupts the wait (pytest-timeout's signal, for one) also kills it, since its state is
        then unknown.
        """
        try:
            message = self._exchange_deadline(time.monotonic() + timeout, payload)
            if type(message) is not dict or type(message.get("kind")) is not str:
                raise wire.WireError("the reply is not a message")
            return message
        except _Deadline:
            self.close()
            raise CallTimedOut(f"{what} did not return within {timeout:g} s") from None
        except (EOFError, BrokenPipeError):
            returncode = self.close()
            if self.out_of_memory:
                words = f"the process running your code ran out of memory (limit {self.settings.memory_mb} MB)"
                raise WorkerCrashed(f"{what}: {words}") from None
            # An exit status is a number the student picks, so a hidden check shows only that it exited.
            hidden = describe_exit(returncode) if returncode is None or returncode < 0 else "your code ended the process"
            raise WorkerCrashed(f"the worker crashed during {what}: {describe_exit(returncode)}",
                                f"the worker crashed during {what}: {hidden}") from None
        except wire.WireError as exc:
            self.close()
            raise WorkerCrashed(f"the worker broke the channel during {what}: {exc}") from None
        except BaseException:
            self.close()
            raise

    def close(self) -> int | None:
        """Kill the worker and everything it started; return its exit status."""
        returncode = None
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            returncode = self.process.wait()
            self.live_workers.discard(self.process.pid)
            self.process = None
            for fd in (self.request_w, self.reply_r, *self._death()):
                with contextlib.suppress(OSError):
                    os.close(fd)
            self.pidfd = None
        if self.lease is not None:
            kill_uid(self.lease.uid)
        else:
            # Without a uid of its own, what the worker forked is known only as this process's
            # children (escaped ones adopted as subreaper); the other live workers are spared.
            kill_children(keep=self.live_workers)
        if self.cgroup is not None:
            self.out_of_memory = self.out_of_memory or self.cgroup.oom_kills() > 0
            self.cgroup.remove()
            self.cgroup = None
        if self.boot_line is None:  # read before the home goes: it says why a worker never started
            self.boot_line = self._last_boot_line()
        shutil.rmtree(self.home, ignore_errors=True)
        if self.lease is not None:
            remove_leftovers(self.lease.uid)
            self.lease.release()
            self.lease = None
        return returncode

    def _last_boot_line(self) -> str:
        try:
            lines = self.boot_log.read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return lines[-1][:300] if lines else ""

    def boot_error(self) -> str:
        """The last line the interpreter printed before the worker was ready, if any."""
        return self.boot_line if self.boot_line is not None else self._last_boot_line()


# --------------------------------------------------------------------------------------------
# The sandbox: a worker that is replaced whenever it dies


class Sandbox:
    """Calls into the student's module, each in the current worker, restarting it after a failure."""

    def __init__(self, settings: SandboxSettings, live_workers: set[int] | None = None):
        self.settings = settings
        # Shared with a tracing probe's sandbox, so that neither one's cleanup kills the other's worker.
        self.live_workers = live_workers if live_workers is not None else set()
        self.interpreter, self.warning = choose_interpreter(settings.drop_privileges)
        self.drop_privileges = settings.drop_privileges and self.warning is None
        self._worker: SandboxWorker | None = None
        self.import_error: str | None = None
        self.hello: dict = {}
        self.ready: dict = {}
        self.uid: int | None = None
        self.line_count = _line_count(settings.source_dir / settings.module)
        self.uids_used: set[int] = set()
        self.memory_cgroup = False
        self.cpu_seconds = settings.cpu_seconds
        self._spare: SandboxWorker | None = None

    def boot(self) -> None:
        """Start a worker process ahead of need, so its interpreter starts while the caller works.

        It runs no student code until start() or a call lets it go.
        """
        if self._spare is None and self.import_error is None:
            self._spare = self._spawn()

    def start(self, cpu_seconds: int | None = None) -> dict:
        """Start the first worker and import the module; returns the worker's ready message.

        `cpu_seconds` replaces the settings' CPU backstop for this and every later worker.
        """
        if cpu_seconds is not None:
            self.cpu_seconds = cpu_seconds
        self._ensure_worker()
        return self.ready

    def _spawn(self) -> SandboxWorker:
        settings = self.settings
        if not self.drop_privileges and settings.drop_privileges:
            settings = SandboxSettings(**{**settings.__dict__, "drop_privileges": False})
        worker = SandboxWorker(settings, self.interpreter, self.live_workers)
        self.uids_used.add(worker.uid)
        return worker

    def _ensure_worker(self) -> SandboxWorker:
        if self.import_error is not None:
            raise ImportFailed(self.import_error)
        if self._worker is not None and self._worker.process is not None:
            return self._worker
        module = self.settings.module
        settings = self.settings
        worker, self._spare = self._spare or self._spawn(), None
        self.uid = worker.uid
        self.memory_cgroup = worker.cgroup is not None
        worker.go(self.cpu_seconds)
        try:
            hello = worker.exchange(None, settings.import_timeout, "the worker's start")
            ready = worker.exchange(None, settings.import_timeout, f"the import of {module}")
            _check_ready(hello, ready)
        except CallTimedOut:
            self.import_error = f"{module}: importing the module did not finish within {settings.import_timeout:g} s"
            raise ImportFailed(self.import_error) from None
        except WorkerCrashed as exc:
            detail = worker.boot_error()
            self.import_error = exc.message + (f" ({detail})" if detail else "")
            raise ImportFailed(self.import_error) from None
        except wire.WireError as exc:
            worker.close()
            self.import_error = f"the worker broke the channel during the import of {module}: {exc}"
            raise ImportFailed(self.import_error) from None
        except SandboxError:
            worker.close()
            raise
        if "error" in ready:
            worker.close()
            self.import_error = describe_import_error(ready["error"], module)
            raise ImportFailed(self.import_error, output=_join_output(ready.get("output", {})))
        self.hello, self.ready = hello, ready
        self._worker = worker
        return worker

    def missing_functions(self) -> list[str]:
        """Functions the exercise names that the module does not define (after start())."""
        present = set(self.ready.get("functions", []))
        return [name for name in self.settings.functions if name not in present]

    def call(self, name: str, args: tuple, kwargs: dict, *, timeout: float, observe: bool = False,
             trace: list[int] | None = None) -> Reply:
        """Call `name(*args, **kwargs)` in the worker and return its plain value.

        Student exceptions come back as built-in exceptions carrying `student_error`; timeouts,
        crashes, bad values and BaseExceptions come back as StudentFailure subclasses. `trace`
        lists the arguments whose nested lists record what the student's code fetches from them.
        """
        if observe and trace:
            raise ValueError("a call can observe its arguments or trace them, not both")
        request = {"kind": "call", "name": name, "args": list(args), "kwargs": dict(kwargs), "observe": observe}
        if trace:
            request["trace"] = list(trace)
        payload = wire.dumps(request)
        worker = self._ensure_worker()
        try:
            reply = worker.exchange(payload, timeout, name)
        except BaseException:  # the worker is dead now (exchange closed it); the next call starts another
            self._worker = None
            raise
        if not _reply_is_well_formed(reply):
            self.close()
            raise WorkerCrashed(f"the worker broke the channel during {name}: a malformed reply")
        output = _join_output(reply.get("output") or {})
        kind = reply["kind"]
        if kind == "returned":
            return Reply(reply.get("value"), reply.get("args"), reply.get("kwargs"), output, reply.get("trace"))
        if kind == "raised":
            exc = rebuild_exception(reply.get("error") or {}, self.settings.module, self.line_count)
            if isinstance(exc, StudentFailure):
                exc.output = output
            else:
                exc.student_output = output
            raise exc
        if kind == "bad_value":
            # The problem names the student's own type, which a hidden check must not echo.
            raise BadReturnValue(f"{name} returned {reply.get('problem')}",
                                 f"{name} returned a value that is not plain data; return only None, bool, int, "
                                 "float, str, list, tuple and dict with str keys", output=output)
        if kind == "missing":
            raise MissingFunction(f"{self.settings.module} has no function {name}", output=output)
        self.close()
        raise WorkerCrashed(f"the worker sent an unknown reply kind {kind!r} during {name}")

    def trace(self, name: str, args: tuple, kwargs: dict, *, timeout: float, trace: list[int]) -> tuple[Reply, Reply]:
        """Call `name` twice in a fresh worker of its own, traced and then plainly; return both replies."""
        # A diagnostic for feedback only. A throwaway worker leaves this run's worker, and the state
        # the student's module built up in it, exactly as the checks left it, so tracing cannot change
        # any later check's result; a timeout or crash here ends only the throwaway worker.
        probe = Sandbox(self.settings, self.live_workers)
        probe.cpu_seconds = self.cpu_seconds
        try:
            traced = probe.call(name, args, kwargs, timeout=timeout, trace=trace)
            plain = probe.call(name, args, kwargs, timeout=timeout)
        finally:
            probe.close()
            self.uids_used |= probe.uids_used
        return traced, plain

    def environment(self) -> dict:
        """What the report's environment says about the sandbox: facts sent before student code ran."""
        return {
            "interpreter": self.interpreter,
            "python": self.hello.get("python"),
            "uid": self.uid,
            "privileges_dropped": self.drop_privileges,
            "memory_mb": self.settings.memory_mb,
            # Whether memory_mb bounds the worker and its children together, not each process alone.
            "memory_cgroup": self.memory_cgroup,
            "limits_held": self.hello.get("limits", {}),
            # Whether processes that escape a worker (setsid, double fork) are found and killed: by
            # uid as root; otherwise only as a child subreaper's orphans, which needs Linux.
            "escapees_killed": self.drop_privileges or linux_mechanisms(),
            "warning": self.warning,
        }

    def close(self):
        """Stop the current worker and any started ahead."""
        for worker in (self._worker, self._spare):
            if worker is not None:
                worker.close()
        self._worker = self._spare = None

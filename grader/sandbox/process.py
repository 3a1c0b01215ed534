"""One worker process: started with its limits, spoken to over its pipes, and killed with all it started."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader import text
from grader.sandbox import wire
from grader.sandbox.cpu_accounting import CpuAccount, CpuTime, cpu_time, worker_pid
from grader.sandbox.framing import Channel, Deadline
from grader.failures import Failure, FailureKind, StudentFailure, broken_channel, ended
from grader.sandbox.isolation import (
    MemoryCgroup,
    SandboxError,
    UidLease,
    kill_uid,
    open_memory_cgroup,
    remove_leftovers,
)
from grader.sandbox.kernel_state import keyctl_number
from grader.sandbox.namespaces import SUBMISSION_FOLDER, Confinement, Launch, linux_namespaces_possible
from grader.sandbox.reaper import kill_children, linux_mechanisms
from grader.source_map import SourceMap

# The worker's script and what it loads beside it (the wire format, tracing, the truncation helper),
# copied into each worker's home.
WORKER_FILES = (Path(wire.__file__).with_name("worker.py"), Path(wire.__file__),
                Path(wire.__file__).with_name("worker_trace.py"), Path(text.__file__))
# Importing runs student code at module level; it gets its own generous deadline.
IMPORT_TIMEOUT = 10.0
# A worker's CPU rlimit is a backstop behind the wall-clock deadlines: what its calls may take, plus this.
CPU_SLACK = 60
# Output files over this size hit RLIMIT_FSIZE; the reply only ever carries 64 KiB of them.
FILE_SIZE_LIMIT = 64 * 2**20
# Enough descriptors for Python and a student's own files, few enough to stop an fd flood.
OPEN_FILES_LIMIT = 256
# Processes and threads per worker uid: room for a little threading, not for a fork bomb. Each
# process may use memory_mb, so this also bounds a worker's memory to PROCESS_LIMIT x memory_mb.
PROCESS_LIMIT = 16
# How long a worker seen to end may take to pass its exit status on (see close).
END_GRACE = 1.0
# GRADE_NAMESPACES=off starts workers without namespaces of their own: for measuring what they cost.
NAMESPACES_ENV = "GRADE_NAMESPACES"


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
    # How the report names the module's lines when it was made from a notebook (None: as its own).
    source_map: SourceMap | None = None


@dataclass
class Reply:
    """A value the student's function returned, with the arguments after the call if asked."""

    value: object
    args: list | None
    kwargs: dict | None
    output: str
    trace: dict | None = None
    """What a traced call's code fetched from its traced arguments (see Sandbox.trace)."""


def join_output(output: dict) -> str:
    """The student's stdout, then stderr, as one text."""
    parts = [str(output.get("stdout", "")), str(output.get("stderr", ""))]
    return "".join(part for part in parts if part)


def worker_limits(memory_mb: int, own_uid: bool) -> dict:
    """The rlimits the worker sets on itself before it runs student code."""
    limits = {"as": memory_mb * 2**20, "fsize": FILE_SIZE_LIMIT, "nofile": OPEN_FILES_LIMIT, "core": 0}
    if own_uid:
        # RLIMIT_NPROC counts every process of the uid; only a dedicated uid makes it per worker.
        limits["nproc"] = PROCESS_LIMIT
    return limits


def worker_environment(work: Path, hash_seed: int) -> dict[str, str]:
    """A clean environment: nothing of the grader's (tokens, paths) reaches student code."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(work),
        "TMPDIR": str(work),
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": str(hash_seed),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
    }


class SandboxWorker:
    """One worker process, with its own copy of the submission and, as root, its own uid.

    `live_workers` holds the pids of every worker this process has running (a run's worker, the
    one started ahead and a tracing probe can live at once); each adds itself and, when it closes
    without root, kills this process's other children but spares those.
    """

    def __init__(self, settings: SandboxSettings, interpreter: str, live_workers: set[int], account: CpuAccount):
        self.settings = settings
        self.live_workers = live_workers
        self.account = account
        # The worker's own pid and its CPU time when let go, once go() found it; counted at close().
        self.measured: tuple[int, CpuTime] | None = None
        self.lease = UidLease() if settings.drop_privileges else None
        self.home = Path(tempfile.mkdtemp(prefix="minimax-kit-worker-"))
        self.boot_log = self.home / "boot.log"
        self.boot_line: str | None = None
        self.process: subprocess.Popen | None = None
        self.cgroup: MemoryCgroup | None = None
        self.out_of_memory = False
        self.channel: Channel | None = None
        self.launch: Launch | None = None
        try:
            self._start(interpreter)
        except BaseException:
            self.close()
            raise

    def _start(self, interpreter: str) -> None:
        """Lay out the worker's home, bound its memory, and launch it; it then waits for go()."""
        work = self._lay_out_home()
        if self.lease:
            self.cgroup = open_memory_cgroup(self.lease.uid, self.settings.memory_mb)
        self._launch(interpreter, work)
        self._join_cgroup()

    def _lay_out_home(self) -> Path:
        """The worker's script in its home, and the empty folder it works in (returned).

        The submission is copied in only by go(): a worker started ahead of its submission (a ready
        grade of grade --watch) then never holds an earlier version of the student's file.
        """
        # The home folder is root's and only traversable; the worker writes only inside work/.
        os.chmod(self.home, 0o711)
        for source in WORKER_FILES:
            shutil.copyfile(source, self.home / source.name)
            os.chmod(self.home / source.name, 0o644)
        work = self.home / "work"
        work.mkdir()
        # In namespaces, `work` is where go() puts the submission's copies; the worker sees them here,
        # read-only, and copies them into its own capped folder (namespaces.Confinement).
        (self.home / SUBMISSION_FOLDER).mkdir(mode=0o755)
        if self.lease:
            if not self.lease.swept:  # a survivor from an earlier grade must not share this uid
                kill_uid(self.lease.uid)
                if not remove_leftovers(self.lease.uid):  # fail closed: no worker beside what is left
                    raise SandboxError(f"worker uid {self.lease.uid} still owns kernel keys after its sweep")
            os.chown(work, self.lease.uid, self.lease.gid)
        os.chmod(work, 0o700)
        return work

    def _copy_submission(self) -> None:
        """Copy the submission into the worker's folder, owned by the worker's uid, before it may run."""
        source, work = self.settings.source_dir, self.home / "work"
        shutil.copytree(source, work, dirs_exist_ok=True)
        os.chmod(work, 0o700)  # copytree gave it the source folder's mode
        if self.lease:
            # Only the copies are given to the worker's uid, found from the source: the worker, booted
            # ahead, makes and removes its own files in the folder meanwhile (its output files), and
            # one removed between a listing and its chown would stop the grade.
            for folder, _, files in os.walk(source):
                copied = work / os.path.relpath(folder, source)
                os.chown(copied, self.lease.uid, self.lease.gid, follow_symlinks=False)
                for name in files:
                    os.chown(copied / name, self.lease.uid, self.lease.gid, follow_symlinks=False)

    def _cgroup_descriptor(self) -> int | None:
        """The descriptor through which the worker is moved into its memory cgroup, if it has one.

        The move waits on the kernel (its lock on migrations waits out an RCU grace period: 6 to 24 ms
        when no move ran lately), so it is made while pytest collects, and not in the part of the
        launch that this process's Popen waits for: in namespaces by the worker's process 1, once the
        worker has exec'd; else by the worker itself, first thing after its exec. Opened here, as
        root; through it an unprivileged process may move only processes of its own uid, the
        worker's alone (and the worker closes it before any student code runs). go() makes sure the
        move happened, and makes it itself where there is no descriptor or the kernel refused the
        namespaces.
        """
        if self.cgroup is None or not linux_mechanisms():
            return None
        try:
            return os.open(self.cgroup.path / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)
        except OSError:  # go() moves the worker instead, or fails closed
            return None

    def _launch(self, interpreter: str, work: Path) -> None:
        """Start the worker's interpreter on its script, with its pipes, limits, namespaces and uid."""
        settings = self.settings
        uid, gid = (self.lease.uid, self.lease.gid) if self.lease else (None, None)
        confinement = None
        if linux_namespaces_possible() and os.environ.get(NAMESPACES_ENV, "on") != "off":
            confinement = Confinement.for_worker(self.home, work, interpreter)
        request_r, request_w = os.pipe()
        reply_r, reply_w = os.pipe()
        cgroup_fd = self._cgroup_descriptor()
        # In namespaces of its own, the worker is moved by its process 1, which has nothing else to do
        # and starts the move once the worker has exec'd: the wait passes while the worker's
        # interpreter starts and imports, not after them. Otherwise the worker moves itself.
        moved_by_launch = cgroup_fd is not None and confinement is not None and linux_mechanisms()
        worker_cgroup_fd = None if moved_by_launch else cgroup_fd
        passed = (request_r, reply_w) if worker_cgroup_fd is None else (request_r, reply_w, worker_cgroup_fd)
        worker_settings = {"module": settings.module, "functions": list(settings.functions),
                           "limits": worker_limits(settings.memory_mb, self.lease is not None),
                           "linux": linux_mechanisms(),
                           # Which grade a worker belongs to, for the kit's tests that look for leftovers.
                           "parent_pid": os.getpid(), "grade_pid": settings.owner_pid,
                           # Checked by the worker: in a root of its own, the grade's files are out of sight.
                           "outside": str(settings.source_dir), "memory_cgroup_fd": worker_cgroup_fd,
                           # Where the worker finds the submission to copy into its tmpfs; None: it
                           # works in the folder go() fills (no namespaces, so no tmpfs of its own).
                           "submission": None if confinement is None else str(confinement.submission),
                           # keyctl's number, with which the worker tells the report its filter held.
                           "keyctl": keyctl_number() if linux_mechanisms() else None}
        # On Linux the launch (namespaces.Launch) drops the uid itself, after the namespaces, which
        # need the grader's privileges; elsewhere subprocess drops the uid.
        self.launch = (Launch(confinement, uid, gid, cgroup_fd if moved_by_launch else None)
                       if linux_mechanisms() else None)
        drop = self.lease is not None and self.launch is None
        try:
            with open(self.boot_log, "wb") as boot_log:
                self.process = subprocess.Popen(
                    # -s: no user site; -P: nothing prepended to sys.path. Not -I/-E, which drop PYTHONHASHSEED.
                    [interpreter, "-s", "-P", str(self.home / "worker.py"), str(request_r), str(reply_w),
                     json.dumps(worker_settings)],
                    pass_fds=passed,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=boot_log,
                    cwd=work,
                    env=worker_environment(work, settings.hash_seed),
                    start_new_session=True,
                    preexec_fn=self.launch,
                    user=uid if drop else None,
                    group=gid if drop else None,
                    extra_groups=[] if drop else None,
                )
        except BaseException:
            for fd in (request_w, reply_r):
                os.close(fd)
            raise
        finally:
            for fd in {*passed, cgroup_fd} - {None}:  # the cgroup's descriptor is in `passed` only for the worker
                os.close(fd)
        self.live_workers.add(self.process.pid)
        self.channel = Channel(request_w, reply_r)
        # A forked child can hold the pipes open after the worker dies; the pidfd still says it died.
        if linux_mechanisms():
            self.channel.watch(self.process.pid)

    def _join_cgroup(self) -> None:
        """Put the worker in its memory cgroup, where the launch did not; without one, it runs without."""
        if self.cgroup is not None and self.launch is None:
            try:
                self.cgroup.add(self.process.pid)
            except OSError:
                self.cgroup.remove()
                self.cgroup = None

    def _hold_in_cgroup(self, pid: int) -> None:
        """Make sure the worker is in its memory cgroup before it is let go: it was moved at its start
        unless the kernel refused it or it is still waiting, and then it is moved from here."""
        if self.cgroup is None or self.cgroup.holds(pid):
            return
        try:
            self.cgroup.add(pid)
        except OSError as exc:  # no student code may run outside the group the report says it ran in
            self.close()
            raise SandboxError(f"the worker could not be moved into its memory cgroup: {exc}") from None

    def go(self, cpu_seconds: int) -> None:
        """Hand the worker the submission and let it import the module, under its CPU backstop; it waits for this frame."""
        self._copy_submission()
        # The frame is small and the pipe empty, so the write is whole. A worker already dead leaves
        # a broken pipe here; the wait for its first message says why.
        if linux_mechanisms() and self.process is not None and (pid := worker_pid(self.process.pid)) is not None:
            self._hold_in_cgroup(pid)
            self.measured = (pid, cpu_time(pid))  # before any student code runs
        go = {"kind": "go", "limits": {"cpu": cpu_seconds}}
        if hasattr(os, "sched_getaffinity"):  # the worker keeps to this process's CPU (CpuLease) from here on
            go["cpus"] = sorted(os.sched_getaffinity(0))
        self.channel.send_small(wire.dumps_request(go))

    @property
    def uid(self) -> int:
        """The uid the worker runs as."""
        return self.lease.uid if self.lease else os.getuid()

    def exchange(self, payload: bytes | None, timeout: float, what: str) -> dict:
        """Send a request (or none, to await the ready message) and return the decoded reply.

        Raises StudentFailure (a timeout, a crash, a broken channel), after which this worker is dead. Anything else that
        interrupts the wait (pytest-timeout's signal, for one) also kills it, since its state is
        then unknown.
        """
        try:
            message = self.channel.exchange(payload, time.monotonic() + timeout)
            if type(message) is not dict or type(message.get("kind")) is not str:
                raise wire.WireError("the reply is not a message")
            return message
        except Deadline:
            self.close()
            raise StudentFailure(Failure(FailureKind.TIMEOUT, call=what, limit_s=timeout)) from None
        except (EOFError, BrokenPipeError):
            returncode = self.close(ended=True)
            if self.out_of_memory:
                raise StudentFailure(Failure(FailureKind.MEMORY, call=what, limit_mb=self.settings.memory_mb)) from None
            raise StudentFailure(ended(returncode, what)) from None
        except wire.WireError as exc:
            self.close()
            raise StudentFailure(broken_channel(what, str(exc))) from None
        except BaseException:
            self.close()
            raise

    def close(self, ended: bool = False) -> int | None:
        """Kill the worker and everything it started; return its exit status.

        `ended`: the worker was seen to end; in namespaces its status reaches the launch's waiter a
        moment later, through process 1, and a kill before then would replace it with SIGKILL.
        """
        returncode = None
        if self.measured is not None:  # while the worker is still there to be read
            pid, start = self.measured
            self.account.add(cpu_time(pid) - start)
            self.measured = None
        if self.process is not None and ended:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=END_GRACE)
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            returncode = self.process.wait()
            self.live_workers.discard(self.process.pid)
            self.process = None
        if self.channel is not None:
            self.channel.close()
            self.channel = None
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
            # Killed above, and no process of the uid can start since; marked swept only if no key is left.
            self.lease.release(swept=remove_leftovers(self.lease.uid))
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

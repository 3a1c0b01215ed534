"""Linux namespaces for one worker: no network, its own IPC and processes, and a root of its own.

The launch runs in the forked child between fork and exec (subprocess's preexec_fn), still with
the grader's privileges, in this order:

1. unshare the network, IPC, mount and PID namespaces (as an ordinary user, inside a user namespace
   of its own, where the kernel allows one);
2. fork: the child is process 1 of the new PID namespace; the parent stays outside, waits for it
   and exits as the worker did, so the grading side sees one process that lives and dies with it;
3. process 1 builds a fresh root in a tmpfs: the system's program folders and the interpreter's
   own, bound in; private, size-capped /tmp, /var/tmp and /dev/shm; a few device nodes; its own
   /proc; and the worker's home, bound at its own path. Nothing else of the machine is there: not
   the kit, not a class folder, not another student's submission or report;
4. it changes into that root (pivot_root) and forks the worker, process 2, which drops to the
   worker's uid with no way back and execs; process 1 reaps orphans until the worker ends.

Process 1 also moves the worker into its memory cgroup, once the worker has exec'd, so the move's
wait passes while the worker's interpreter starts (grader/sandbox/process.py says why it is not made
before the exec); the grading side checks the move before any student code runs.

Whatever cannot be had (no Linux, a container that forbids unshare) is left out, and the worker
says in its first message which namespaces it really runs in; the report shows that.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import resource
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.sandbox.kernel_state import CallGuard

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 0x20, 0x1000, 0x4000, 0x40000
MNT_DETACH = 2
# A mount's flags that statvfs reports with the same values as mount takes them (ST_* = MS_*):
# nodev, noexec and the access-time ones.
MOUNT_FLAGS_KEPT = MS_NODEV | MS_NOEXEC | 0x400 | 0x800 | 0x1000
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS = 1, 38
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}

# The namespaces a worker asks for, by the name /proc/self/ns gives each.
NAMESPACES = ("net", "ipc", "mnt", "pid")
# The machine's program folders, bound read-only into the worker's root (those that exist): the
# interpreter, its shared libraries and the dynamic linker's configuration live there. Everything
# else (/home, /root, /srv, /opt, the kit, a class folder) is simply absent.
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", "/etc")
# Device nodes a Python program may open; /dev itself is a small tmpfs, so nothing else is there.
DEVICES = ("null", "zero", "full", "random", "urandom")
# Scratch folders each worker gets privately: a worker that fills one fills only its own.
SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")
# Each private scratch folder holds at most this much (tmpfs pages count toward the worker's
# memory cgroup too); a full one fails the worker's own writes with ENOSPC, and no neighbour's.
SCRATCH_MB = 64
# Files and folders each scratch folder may hold: a flood of empty files costs inodes, not bytes,
# and an inode is kernel memory; plenty for a program's temporary files.
SCRATCH_INODES = 1024
# The worker's working folder (its HOME and TMPDIR too) is a tmpfs of its own, so nothing it writes
# reaches the machine's disk: room for the submission (at most 16 MiB, MAX_SUBMISSION_BYTES) and the
# two files that capture its output, each up to RLIMIT_FSIZE (64 MiB, FILE_SIZE_LIMIT), so that a
# flood of output still meets the file size limit first; and as many files as a submission folder
# may hold beside what the student's code makes. A reservation or a flood past either cap fails
# with ENOSPC inside the worker and costs only that student's checks.
WORK_MB = 160
WORK_INODES = 4096
# The mount point, in the worker's home, of the submission's copies (Confinement.submission).
SUBMISSION_FOLDER = "submission"
# Proc files that show kernel state beyond the worker's namespaces (every uid's key counts, and the
# keys other uids let all see), masked with /dev/null as container runtimes do.
MASKED_PROC = ("keys", "key-users")


def linux_namespaces_possible() -> bool:
    """Whether this platform has the calls (Linux, and an architecture whose pivot_root number is known)."""
    return sys.platform.startswith("linux") and platform.machine() in SYS_PIVOT_ROOT


@dataclass(frozen=True)
class Confinement:
    """The root one worker gets: built by the grading side, set up by the launch in the child."""

    home: Path  # the worker's home, bound read-only at its own path inside the new root
    work: Path  # the folder the worker starts in, inside the home: a tmpfs inside the new root
    binds: tuple[str, ...]  # the folders bound in: the system's, and the interpreter's installation
    scratch_mb: int = SCRATCH_MB
    work_mb: int = WORK_MB

    @property
    def submission(self) -> Path:
        """Where the worker finds the submission's copies inside its root: the machine's `work`
        folder, which go() fills, bound read-only; the worker copies them into its own `work`."""
        return self.home / SUBMISSION_FOLDER

    @classmethod
    def for_worker(cls, home: Path, work: Path, interpreter: str) -> Confinement:
        """The confinement of one worker, with the folders its interpreter needs."""
        return cls(home, work, _folders_to_bind(interpreter))


def _folders_to_bind(interpreter: str) -> tuple[str, ...]:
    """The system folders, and the installation the interpreter lives in where that is elsewhere.

    Python finds its standard library from the real executable (PREFIX/bin/python3.11 ->
    PREFIX/lib/python3.11), and a venv's pyvenv.cfg beside the folder its link lies in. An
    interpreter that is no such installation (a wrapper script, say) brings only its own folder.
    """
    given = Path(os.path.abspath(interpreter))
    real = given.resolve()
    found = [folder for folder in SYSTEM_FOLDERS if os.path.lexists(folder)]
    for executable in (real, given):
        prefix = executable.parent.parent
        installed = (prefix / "lib").is_dir() or (prefix / "pyvenv.cfg").is_file()
        text = str(prefix if installed and prefix != Path("/") else executable.parent)
        if not any(text == f or text.startswith(f + "/") for f in found if not os.path.islink(f)):
            found.append(text)
    return tuple(found)


class _Libc:
    """The few libc calls the launch needs, loaded before the fork so the child imports nothing."""

    def __init__(self):
        self.lib = ctypes.CDLL(None, use_errno=True)

    def check(self, result: int, what: str) -> None:
        if result != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"{what}: {os.strerror(errno)}")

    def unshare(self, flags: int) -> None:
        self.check(self.lib.unshare(flags), "unshare")

    def mount(self, source: str | None, target: str, kind: str | None, flags: int, data: str | None = None) -> None:
        encode = (lambda text: None if text is None else text.encode())
        self.check(self.lib.mount(encode(source), encode(target), encode(kind), ctypes.c_ulong(flags),
                                  encode(data)), f"mount {target}")

    def pivot_root(self) -> None:
        number = SYS_PIVOT_ROOT[platform.machine()]
        self.check(self.lib.syscall(number, b".", b"."), "pivot_root")
        self.check(self.lib.umount2(b".", MNT_DETACH), "umount the old root")

    def prctl(self, option: int, value: int) -> None:
        self.check(self.lib.prctl(option, value, 0, 0, 0), "prctl")


class Launch:
    """The preexec function of one worker's Popen: namespaces, a root of its own, then the uid drop."""

    def __init__(self, confinement: Confinement | None, uid: int | None, gid: int | None,
                 cgroup_fd: int | None = None):
        self.confinement = confinement
        self.uid, self.gid = uid, gid
        # The worker's memory cgroup's cgroup.procs, open for writing: process 1 moves the worker
        # into it (root's descriptor; the worker never holds it).
        self.cgroup_fd = cgroup_fd
        self.libc = _Libc() if sys.platform.startswith("linux") else None
        # The worker's own session keyring and its seccomp filter, built here: the child only loads it.
        self.guard = CallGuard.for_worker(self.libc.lib) if self.libc is not None else None
        # Names and numbers the child needs, worked out here: the child must not import or allocate much.
        self.real_uid, self.real_gid = os.getuid(), os.getgid()
        self.grader_pid = os.getpid()

    def __call__(self) -> None:
        """Runs in the forked child before exec; an exception here fails the Popen in the grader."""
        if self.confinement is not None and self.libc is not None and self._unshare():
            self._split()
        self._drop_privileges()

    def _unshare(self) -> bool:
        """Enter new namespaces; False (and none entered) where the kernel or the container refuses."""
        flags = CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWNS | CLONE_NEWPID
        try:
            if self.real_uid == 0:
                self.libc.unshare(flags)
            else:
                # An ordinary user may make namespaces only inside a user namespace of its own, in
                # which its one uid is mapped to itself: no other uid exists there.
                self.libc.unshare(flags | CLONE_NEWUSER)
                _write("/proc/self/setgroups", "deny")
                _write("/proc/self/uid_map", f"{self.real_uid} {self.real_uid} 1")
                _write("/proc/self/gid_map", f"{self.real_gid} {self.real_gid} 1")
        except OSError:
            return False
        return True

    def _split(self) -> None:
        """Fork twice: a waiter outside the PID namespace, its process 1, and the worker as process 2.

        The worker must not be process 1 itself: the kernel spares a namespace's first process the
        signals it has no handler for, so student code would survive SIGXFSZ and its own kill().
        Process 1 builds the root, then reaps orphans until the worker ends; when it exits, the
        kernel kills whatever else is left in the namespace. The waiter outside passes the worker's
        end on as its own, so the grading side sees one process that lives and dies with the worker.
        """
        status_r, status_w = os.pipe()  # process 1 tells the waiter how the worker ended
        first = os.fork()
        if first != 0:
            self._wait_outside(first, status_r)
        os.close(status_r)
        self._build_root(self.confinement)  # an error here reaches subprocess as a failed launch
        # Sessions of their own, in the namespace's numbers: process 1 leads group 1 alone and the
        # worker group 2, so a killpg(getpgid(getppid())) by student code reaches only process 1,
        # which ignores it, and not the worker itself through a group it cannot name.
        os.setsid()
        # Closed by the worker's exec (close-on-exec), which process 1 waits for before it moves the
        # worker into its memory cgroup: a move under way would hold up the exec that Popen awaits.
        exec_r, exec_w = os.pipe2(os.O_CLOEXEC)
        worker = os.fork()
        if worker != 0:
            os.close(exec_w)
            self._be_process_one(worker, status_w, exec_r)
        os.close(exec_r)
        os.close(status_w)
        os.setsid()

    def _wait_outside(self, first: int, status_r: int) -> None:
        """The waiter: hold nothing, die with the grading process, and end as the worker ended."""
        try:
            # No pipe end of the worker's may stay open here: the grading side reads a pipe's end
            # of file, and subprocess the success of exec, from the worker alone.
            os.closerange(0, status_r)
            os.closerange(status_r + 1, 1 << 16)
            self.libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
            if os.getppid() != self.grader_pid:
                os._exit(70)
            told = b""
            while chunk := _read(status_r):
                told += chunk
            _, status = _wait(first)
            if told.isdigit():
                status = int(told)
            if os.WIFSIGNALED(status):
                # The worker's own signal, so the grading side's words (killed by SIGSEGV ...) hold.
                number = os.WTERMSIG(status)
                if number not in (signal.SIGKILL, signal.SIGSTOP):  # the two whose action is fixed
                    signal.signal(number, signal.SIG_DFL)
                resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the worker's death leaves no core file
                os.kill(os.getpid(), number)
            os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)
        finally:
            os._exit(70)

    def _be_process_one(self, worker: int, status_w: int, exec_r: int) -> None:
        """Process 1 of the namespace: move the worker into its memory cgroup once it has exec'd, reap
        every orphan until the worker ends, then say how it ended."""
        try:
            # Every descriptor but these three goes first: Popen's error pipe among them, whose end
            # of file, with the worker's exec, lets the grading side go on.
            kept = sorted({status_w, exec_r, *(() if self.cgroup_fd is None else (self.cgroup_fd,))})
            for low, high in zip([-1, *kept], [*kept, 1 << 16]):
                os.closerange(low + 1, high)
            _read(exec_r)  # end of file: the worker has exec'd (or died)
            os.close(exec_r)
            if self.cgroup_fd is not None:
                # The worker's number in this namespace, which is this process's too. Made while the
                # worker's interpreter starts and imports; the grading side checks it before any
                # student code runs, and moves the worker itself if this failed or is not over yet.
                with contextlib.suppress(OSError):
                    os.write(self.cgroup_fd, str(worker).encode())
                os.close(self.cgroup_fd)
            self.libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))  # the waiter gone, the namespace goes
            while True:
                pid, status = _wait(-1)
                if pid in (worker, 0):
                    break
            os.write(status_w, str(status).encode())
            os._exit(0)
        finally:
            os._exit(70)

    def _build_root(self, confinement: Confinement) -> None:
        """Mount the worker's root in a tmpfs, bind what it needs into it, and change into it."""
        libc = self.libc
        libc.mount(None, "/", None, MS_REC | MS_PRIVATE)
        # The new root lives on a mount point inside the worker's home, which only root may enter.
        root = str(confinement.home / "root")
        os.mkdir(root, 0o755)
        libc.mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
        os.makedirs(root + "/dev", exist_ok=True)
        libc.mount("tmpfs", root + "/dev", "tmpfs", MS_NOSUID, "size=64k,mode=0755")
        for name in DEVICES:
            node = f"{root}/dev/{name}"
            os.close(os.open(node, os.O_CREAT | os.O_WRONLY, 0o666))
            libc.mount(f"/dev/{name}", node, None, MS_BIND)
        for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                             ("stderr", "/proc/self/fd/2")):
            os.symlink(target, f"{root}/dev/{name}")
        for folder in SCRATCH:
            os.makedirs(root + folder, exist_ok=True)
            # Private and capped: what one worker writes here no other process sees, and it ends
            # with the worker's mount namespace. Mounted before the binds, which may lie below them.
            libc.mount("tmpfs", root + folder, "tmpfs", MS_NOSUID | MS_NODEV,
                       f"size={confinement.scratch_mb}m,nr_inodes={SCRATCH_INODES},mode=1777")
        for folder in confinement.binds:
            inside = root + folder
            if os.path.islink(folder):  # /bin -> usr/bin on a merged /usr
                os.makedirs(os.path.dirname(inside), exist_ok=True)
                os.symlink(os.readlink(folder), inside)
                continue
            os.makedirs(inside, exist_ok=True)
            libc.mount(folder, inside, None, MS_BIND | MS_REC)
            _read_only(libc, inside)
        self._mount_home(root, confinement)
        os.makedirs(root + "/proc", exist_ok=True)
        # This process is the PID namespace's first, so its /proc shows that namespace alone. Mounted
        # while the machine's /proc is still in view: a user namespace may mount proc only then.
        libc.mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        for name in MASKED_PROC:
            with contextlib.suppress(OSError):  # a kernel without keys has neither file
                libc.mount(root + "/dev/null", f"{root}/proc/{name}", None, MS_BIND)
        libc.mount(None, root, None, MS_REMOUNT | MS_NOSUID | MS_NODEV | MS_RDONLY, "size=1m,mode=0755")
        os.chdir(root)
        libc.pivot_root()
        os.chdir(str(confinement.work))

    def _mount_home(self, root: str, confinement: Confinement) -> None:
        """The worker's home, read-only from the machine; its `work`, a capped tmpfs; the submission beside it.

        Nothing the worker writes reaches the machine's disk: its working folder, HOME and TMPDIR
        are the tmpfs, capped in bytes and inodes, and its pages count toward the memory cgroup.
        """
        libc = self.libc
        home, work = root + str(confinement.home), root + str(confinement.work)
        os.makedirs(home, exist_ok=True)
        libc.mount(str(confinement.home), home, None, MS_BIND)
        libc.mount(str(confinement.work), root + str(confinement.submission), None, MS_BIND)
        owner = "" if self.uid is None else f",uid={self.uid},gid={self.gid}"
        libc.mount("tmpfs", work, "tmpfs", MS_NOSUID | MS_NODEV,
                   f"size={confinement.work_mb}m,nr_inodes={WORK_INODES},mode=0700{owner}")
        for folder in (home, root + str(confinement.submission)):
            _read_only(libc, folder)

    def _drop_privileges(self) -> None:
        """Become the worker's uid with no supplementary groups and no way to gain privileges again."""
        # In a user namespace of an ordinary user, this process holds every capability there; exec
        # drops them, since its uid is not 0 there, so student code cannot unmount what hides the machine.
        if self.guard is not None:
            self.guard.leave_session_keyring()
        if self.uid is not None:
            os.setgroups([])
            os.setgid(self.gid)
            os.setuid(self.uid)
        if self.libc is not None:
            self.libc.prctl(PR_SET_NO_NEW_PRIVS, 1)
        if self.guard is not None:
            self.guard.refuse_calls()  # last: a filter may refuse calls the steps above still make


def _read_only(libc: _Libc, inside: str) -> None:
    """Make a bind mount read-only, keeping the flags it has: a user namespace may not clear the
    ones its mount came with (nodev on the machine's /tmp, say), and refuses a remount that would."""
    kept = os.statvfs(inside).f_flag & MOUNT_FLAGS_KEPT
    try:
        libc.mount(None, inside, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | kept)
    except OSError:  # a kernel may still refuse; the system's files are not the worker's to change
        pass


def _read(fd: int) -> bytes:
    while True:
        try:
            return os.read(fd, 64)
        except InterruptedError:
            continue


def _wait(pid: int) -> tuple[int, int]:
    """waitpid, retried when interrupted; (0, 0) when there is no child left to wait for."""
    while True:
        try:
            return os.waitpid(pid, 0)
        except InterruptedError:
            continue
        except ChildProcessError:
            return 0, 0


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def namespaces_held(reported: dict) -> dict[str, bool]:
    """Which namespaces the worker runs in apart from the grading process, from the ids it reported.

    The PID namespace counts only with a /proc of its own, in which the worker finds itself.
    """
    held = {}
    for name in NAMESPACES:
        try:
            own = os.readlink(f"/proc/self/ns/{name}")
        except OSError:
            own = None
        held[name] = bool(own) and type(reported.get(name)) is str and reported[name] != own
    held["pid"] = held["pid"] and reported.get("own_proc") is True
    held["mnt"] = held["mnt"] and reported.get("private_root") is True
    return held

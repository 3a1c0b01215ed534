"""Kernel state that no namespace covers: the system calls a worker is refused, and its uid's keys.

Namespaces give a worker its own network, IPC objects, mounts and processes, but some kernel objects
belong to none of them and can outlive the process that made them. Kernel keys are the plain case:
a key linked into a uid's user keyring stays there after the uid's last process ends, and a later
worker of the same uid, in the same grade or a later one, could read it. So each worker, before its
exec, leaves the grader's session keyring for an empty one of its own and gets a seccomp filter
(libseccomp, through pyseccomp) that refuses, with EPERM, every call in REFUSED_CALLS; the uid sweep
(grader/sandbox/isolation.py) also removes any key a worker uid still owns (remove_keys, here, with
as_uid, the way the sweep acts as a uid).
"""

from __future__ import annotations

import ctypes
import errno
import os
import time
from dataclasses import dataclass
from pathlib import Path

try:
    import pyseccomp
except (ImportError, RuntimeError, OSError):  # not Linux, or no libseccomp on the machine: see available()
    pyseccomp = None

# The calls a worker is refused, in the manner of Docker's default profile and nsjail. Each reaches
# kernel state that no namespace covers or that outlives its process:
# - add_key, request_key, keyctl: kernel keys, kept per uid (a user keyring lives on after the uid's
#   last process) and listed in /proc/keys to every uid the key allows;
# - fanotify_init: marks on whole mounts and filesystems, beyond the worker's own files;
# - bpf: maps and programs that can be pinned and shared past the process;
# - userfaultfd, io_uring_setup, io_uring_enter, io_uring_register, perf_event_open: no lasting
#   state, but each opens the kernel far wider than a Python function needs (a common way in for
#   exploits, and perf events and page faults are clocks a hidden call could time itself by).
# Inotify marks and timers are left: they end with the descriptor that holds them (SECURITY.md).
REFUSED_CALLS = ("add_key", "request_key", "keyctl", "fanotify_init", "bpf", "userfaultfd",
                 "io_uring_setup", "io_uring_enter", "io_uring_register", "perf_event_open")
# keyctl's operations and special keyring ids (linux/keyctl.h).
KEYCTL_GET_KEYRING_ID, KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_CLEAR, KEYCTL_INVALIDATE = 0, 1, 7, 21
KEY_SPEC_SESSION_KEYRING, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -3, -4, -5
# The kernel's count of keys per uid, readable by every uid; a uid with no key has no line.
KEY_USERS = Path("/proc/key-users")


def available() -> bool:
    """Whether a filter can be built here: Linux with libseccomp on the machine."""
    return pyseccomp is not None


def keyctl_number() -> int | None:
    """keyctl's system call number on this machine's architecture, or None where it is not known."""
    if pyseccomp is None:
        return None
    number = pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, "keyctl")
    return number if number >= 0 else None


@dataclass
class CallGuard:
    """What a worker's launch does about kernel state, made before the fork so the child allocates little."""

    filter: object | None  # a pyseccomp.SyscallFilter, or None where none can be built
    keyctl: int | None  # keyctl's number, for leaving the session keyring
    libc: ctypes.CDLL

    @classmethod
    def for_worker(cls, libc: ctypes.CDLL) -> CallGuard:
        """The filter of REFUSED_CALLS, and keyctl's number; both None where libseccomp is missing."""
        if pyseccomp is None:
            return cls(None, None, libc)
        refused = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
        for name in REFUSED_CALLS:
            if pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name) >= 0:  # an older kernel's table may lack some
                refused.add_rule(pyseccomp.ERRNO(errno.EPERM), name)
        return cls(refused, keyctl_number(), libc)

    def leave_session_keyring(self) -> None:
        """Join a new, empty session keyring: the grader's (a CI token in a container's, say) is out of reach.

        Made before the uid drop, so the keyring is the grader's uid's and counts against no worker
        uid; it ends with the worker's last process. A kernel or container that refuses keyctl is
        no loss: the filter refuses the worker the same calls.
        """
        if self.keyctl is not None:
            self.libc.syscall(ctypes.c_long(self.keyctl), ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING), None)

    def refuse_calls(self) -> None:
        """Load the filter into this process, which passes it on through exec to all the worker starts.

        Called after no_new_privs is set, which an unprivileged process needs to load one. A filter
        that was built but does not load fails the launch: the worker never runs without it.
        """
        if self.filter is not None:
            self.filter.load()  # type: ignore[attr-defined]


def key_count(uid: int) -> int:
    """How many kernel keys `uid` owns, by the kernel's count (0 where the kernel has no keys)."""
    try:
        lines = KEY_USERS.read_text().splitlines()
    except OSError:
        return 0
    for line in lines:
        owner, _, counts = line.partition(":")
        if owner.strip() == str(uid):
            return int(counts.split()[1].split("/")[0])  # "usage nkeys/nikeys ...": nkeys counts every key of the uid
    return 0


def drop_own_keys(keyctl: int) -> None:
    """As the uid whose keys go: empty and invalidate its user and user-session keyrings.

    Every key a worker could still reach was linked into one of them (its session, process and
    thread keyrings ended with it); unlinked, the kernel's collector frees each one.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    call = (lambda *numbers: libc.syscall(*(ctypes.c_long(number) for number in (keyctl, *numbers))))
    # Both found before either is invalidated: a look-up after that would make a new user keyring.
    keyrings = [call(KEYCTL_GET_KEYRING_ID, special, 0) for special in (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING)]
    for keyring in keyrings:
        if keyring > 0:
            call(KEYCTL_CLEAR, keyring)
    for keyring in keyrings:
        if keyring > 0:
            call(KEYCTL_INVALIDATE, keyring)


def as_uid(uid: int, act) -> None:
    """Run `act()` in a forked child that has become `uid` (no groups), and wait for it to end."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the forked child
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            act()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


# How long the kernel's key collector may take to free the keys a sweep unlinked; it runs as soon as
# a key's last link goes, so this is a bound for a busy machine, not a wait every sweep pays.
KEY_COLLECTION_WAIT_S = 2.0


def remove_keys(uid: int) -> bool:
    """Remove the kernel keys `uid` owns, once none of its processes is left; whether none remains.

    A worker's filter refuses it every key call, so a worker uid normally owns none, and this costs
    one read of /proc/key-users. Where a key is found (a worker that ran without a filter), the
    uid's user keyrings are emptied and invalidated as the uid, and the kernel's count is read
    until it falls to 0.
    """
    if key_count(uid) == 0:
        return True
    keyctl = keyctl_number()
    if keyctl is None:
        return False
    as_uid(uid, lambda: drop_own_keys(keyctl))
    deadline = time.monotonic() + KEY_COLLECTION_WAIT_S
    while key_count(uid) > 0:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True

"""Kernel state that no namespace covers: keys and the other refused calls, and the worker's own disk.

A worker leaves the grader's session keyring and gets a seccomp filter that refuses the calls of
grader/sandbox/kernel_state.REFUSED_CALLS; its working folder (its HOME and TMPDIR) is a tmpfs capped
in bytes and inodes; and as root the uid sweep removes any key a worker uid owns, and marks the uid
swept only once none is left. Each attack is graded on the toy exercise, through the runner, as
`grade` does.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import signal
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from grader.catalog import Kit
from grader.grading.runner import grade
from grader.sandbox import kernel_state
from grader.sandbox.isolation import UidLease, remove_leftovers, sweep_uid, uid_range
from grader.sandbox.namespaces import WORK_INODES, WORK_MB
from grader.submission import Submission
from tests.conftest import GRADE, TOY_KIT, namespaces_work

pytestmark = [pytest.mark.ordinary_user,
              pytest.mark.skipif(not kernel_state.available() or not sys.platform.startswith("linux"),
                                 reason="seccomp filters need Linux with libseccomp")]

HOSTILE = Path(__file__).resolve().parent.parent / "hostile"
AS_ROOT = os.geteuid() == 0
root_only = pytest.mark.skipif(not AS_ROOT, reason="worker uids of their own need root")
KEYCTL = kernel_state.keyctl_number()


def _grade_toy(source: Path | str, folder: Path) -> dict:
    """Grade a toy.py (a file of the hostile corpus, or text) with seed 1, in-process."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "toy.py"
    if isinstance(source, Path):
        shutil.copy(source, target)
    else:
        target.write_text(source)
    kit = Kit(TOY_KIT)
    return grade(kit, kit.resolve("ex01"), Submission(target, "toy.py"), seed=1)


def _keyctl(*numbers) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.syscall(ctypes.c_long(KEYCTL), *(ctypes.c_long(n) if isinstance(n, int) else n for n in numbers))


def _add_key(description: bytes, payload: bytes, keyring: int) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    number = kernel_state.pyseccomp.resolve_syscall(kernel_state.pyseccomp.Arch.NATIVE, "add_key")
    return libc.syscall(ctypes.c_long(number), b"user", description, payload, ctypes.c_long(len(payload)),
                        ctypes.c_long(keyring))


def test_a_key_planted_in_one_call_is_not_readable_in_the_next_worker_of_the_grade(tmp_path):
    report = _grade_toy(HOSTILE / "carry_inputs_in_kernel_keys.py", tmp_path / "one")
    text = json.dumps(report)
    assert "CARRIED" not in text and "FOUND" not in text
    assert report["submission"]["import_output"] == "KEY CALLS EPERM EPERM\n"  # the attack ran, and was refused
    assert report["score"] == 6
    assert report["environment"]["sandbox"]["syscall_filter"] is True


@root_only
def test_a_key_planted_in_one_grade_is_not_readable_in_the_next_grade_under_that_uid(tmp_path, monkeypatch):
    uid = uid_range()[0] + 7
    monkeypatch.setenv("GRADE_UID_RANGE", f"{uid}-{uid}")
    reports = [_grade_toy(HOSTILE / "carry_inputs_in_kernel_keys.py", tmp_path / name) for name in ("first", "then")]
    for report in reports:
        assert report["environment"]["sandbox"]["uid"] == uid
        assert "CARRIED" not in json.dumps(report), report["submission"]["import_output"]
    # Nothing is left in the kernel's count of the uid's keys, so nothing in /proc/keys either.
    assert kernel_state.key_count(uid) == 0


def test_a_key_in_the_graders_session_keyring_is_invisible_to_the_worker(tmp_path):
    """The grade runs in a session keyring holding a key, as a container's CI token would be."""
    description, token = f"minimax-kit-test-{uuid.uuid4().hex}", f"TOKEN-{uuid.uuid4().hex}"
    folder = tmp_path / "student"
    folder.mkdir()
    shutil.copy(HOSTILE / "carry_inputs_in_kernel_keys.py", folder / "toy.py")

    def in_a_keyring_with_the_token():
        _keyctl(kernel_state.KEYCTL_JOIN_SESSION_KEYRING, None)
        assert _add_key(description.encode(), token.encode(), kernel_state.KEY_SPEC_SESSION_KEYRING) > 0

    import subprocess

    done = subprocess.run([*GRADE, "ex01", "--kit", str(TOY_KIT), "--submission", str(folder / "toy.py"),
                           "--seed", "1", "--output", "-"], env={**os.environ, "GRADER_KEY": description},
                          capture_output=True, text=True, timeout=300, preexec_fn=in_a_keyring_with_the_token)
    report = json.loads(done.stdout)
    assert token not in done.stdout and "FOUND" not in done.stdout
    assert report["submission"]["import_output"] == "KEY CALLS EPERM EPERM\n"


@pytest.mark.skipif(not namespaces_work(), reason="the calls are refused in the launch that namespaces need too")
def test_every_refused_call_is_refused_in_the_worker(tmp_path):
    numbers = {name: kernel_state.pyseccomp.resolve_syscall(kernel_state.pyseccomp.Arch.NATIVE, name)
               for name in kernel_state.REFUSED_CALLS}
    probe = textwrap.dedent(f"""
        import ctypes, errno
        libc = ctypes.CDLL(None, use_errno=True)
        for name, number in {numbers!r}.items():
            found = libc.syscall(ctypes.c_long(number), 0, 0, 0, 0, 0)
            print(name, found, errno.errorcode.get(ctypes.get_errno()))
        def add(a, b):
            return a + b
    """)
    printed = _grade_toy(probe, tmp_path)["submission"]["import_output"].splitlines()
    assert printed == [f"{name} -1 EPERM" for name in kernel_state.REFUSED_CALLS]


@pytest.mark.skipif(not namespaces_work(), reason="the worker's own tmpfs is mounted in its mount namespace")
def test_a_huge_reservation_or_a_flood_of_files_fails_inside_the_worker_and_costs_nothing(tmp_path):
    report = _grade_toy(HOSTILE / "fill_the_worker_disk.py", tmp_path)
    printed = report["submission"]["import_output"].splitlines()
    assert printed[0] == f"FOLDER {WORK_MB} MiB {WORK_INODES} inodes HOME True TMPDIR True"
    reserved = printed[1].split()
    assert reserved[0] == "RESERVED" and int(reserved[1]) < WORK_MB and reserved[3] == "ENOSPC", printed
    files = printed[2].split()
    assert files[0] == "FILES" and int(files[1]) < WORK_INODES and files[2] == "ENOSPC", printed
    assert report["score"] == report["max_score"] == 8


@pytest.mark.skipif(not namespaces_work(), reason="the worker's own tmpfs is mounted in its mount namespace")
def test_a_submission_folder_reaches_the_workers_own_folder_whole(tmp_path):
    """The worker copies the submission into its tmpfs: every file, at its place, with its bytes."""
    folder = tmp_path / "student"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "table.txt").write_text("7 7\n")
    (folder / "toy.py").write_text(textwrap.dedent("""
        import os
        A, B = map(int, open(os.path.join(os.path.dirname(__file__), "data", "table.txt")).read().split())
        print("HERE", sorted(os.listdir(".")), os.statvfs(".").f_files)
        def pair(x):
            return (x, x) if (A, B) == (7, 7) else None
    """))
    kit = Kit(TOY_KIT)
    report = grade(kit, kit.resolve("ex01"), Submission(folder, "toy.py"), seed=1)
    assert report["submission"]["import_output"].startswith(f"HERE ['data', 'toy.py'] {WORK_INODES}")
    assert next(test for test in report["tests"] if test["name"] == "pair is a tuple")["outcome"] == "passed"


def _own_a_key(uid: int) -> None:
    """As `uid`, link a key into its user keyring, where it outlives every process of the uid."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            os._exit(0 if _add_key(b"minimax-kit-left", b"left", kernel_state.KEY_SPEC_USER_KEYRING) > 0 else 1)
        finally:
            os._exit(2)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


@root_only
def test_the_sweep_removes_the_keys_a_worker_uid_left(tmp_path):
    uid = uid_range()[0] + 11
    _own_a_key(uid)
    assert kernel_state.key_count(uid) > 0
    assert remove_leftovers(uid) is True
    assert kernel_state.key_count(uid) == 0


@root_only
def test_a_uid_is_never_marked_swept_while_a_key_it_owns_remains(tmp_path):
    """A key the uid owns but cannot reach (given to it by root, held in root's keyring) stays, so no mark."""
    uid = uid_range()[0] + 12
    ready_r, ready_w = os.pipe()
    holder = os.fork()
    if holder == 0:
        try:
            _keyctl(kernel_state.KEYCTL_JOIN_SESSION_KEYRING, None)
            key = _add_key(b"minimax-kit-given", b"given", kernel_state.KEY_SPEC_SESSION_KEYRING)
            KEYCTL_CHOWN = 4
            _keyctl(KEYCTL_CHOWN, key, uid, -1)
            os.write(ready_w, b"x")
            signal.pause()
        finally:
            os._exit(0)
    os.close(ready_w)
    try:
        assert os.read(ready_r, 1) == b"x"
        assert kernel_state.key_count(uid) > 0
        UidLease(range(uid, uid + 1)).release(swept=False)  # as a grade that died would leave it
        sweep_uid(uid)
        lease = UidLease(range(uid, uid + 1))
        lease.release(swept=False)
        assert lease.swept is False  # its key is still there
    finally:
        os.kill(holder, signal.SIGKILL)
        os.waitpid(holder, 0)
        os.close(ready_r)
    sweep_uid(uid)  # the holder's keyring, and with it the key, went with the holder
    lease = UidLease(range(uid, uid + 1))
    assert lease.swept is True
    lease.release(swept=True)
    assert kernel_state.key_count(uid) == 0


@pytest.mark.skipif(not namespaces_work(), reason="the worker's own tmpfs is mounted in its mount namespace")
def test_nothing_outside_the_workers_own_folder_takes_a_write(tmp_path):
    """Its home (the kit's worker files) and the submission's copies are read-only: only the tmpfs is written."""
    probe = textwrap.dedent("""
        import os
        home = os.path.dirname(os.getcwd())
        for target in ("x", "submission/x", "submission/toy.py", "worker.py"):
            try:
                with open(os.path.join(home, target), "a") as f:
                    f.write("x")
                print("WROTE", target)
            except OSError as exc:
                print("REFUSED", target)
        def add(a, b):
            return a + b
    """)
    printed = _grade_toy(probe, tmp_path)["submission"]["import_output"].splitlines()
    assert printed == ["REFUSED x", "REFUSED submission/x", "REFUSED submission/toy.py", "REFUSED worker.py"]

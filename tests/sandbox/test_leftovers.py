"""The leftover finder the hostile and fuzz tests trust: by ancestry, uid and start time, never by command line."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from tests import leftovers, processes

# Run again as an ordinary user by .ci/run (python -m pytest -m ordinary_user): what a uid without root meets.
pytestmark = [pytest.mark.ordinary_user, pytest.mark.skipif(not leftovers.supported(), reason="needs Linux's /proc")]

# A child that leaves a grandchild in a session of its own, running /bin/sleep, and ends: nothing
# in the sleeper's command line, group or session names the test, and its parent is gone. Its pid
# comes back on the pipe WRITER, written just before the exec.
ESCAPE = textwrap.dedent("""
    import os
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(WRITER, str(os.getpid()).encode())
            os.close(WRITER)
            os.execv("/bin/sleep", ["sleep", "600"])
        os._exit(0)
    os.wait()
""")
# Started before a watch begins, this child starts a sleeper under uid 65534 when told to, so the
# sleeper is new but not below anything the watch began with.
SPAWNER = "import subprocess, sys; sys.stdin.readline(); print(subprocess.Popen(['/bin/sleep', '600'], user=65534).pid, flush=True); sys.stdin.readline()"


def _escape() -> int:
    """Run ESCAPE to its end and return the pid of the sleeper it left."""
    reader, writer = os.pipe()
    subprocess.run([sys.executable, "-c", ESCAPE.replace("WRITER", str(writer))], check=True, pass_fds=(writer,))
    os.close(writer)
    with os.fdopen(reader) as pipe:
        return int(pipe.read())


def test_an_escaped_process_that_became_another_program_is_found_and_killed():
    watch = leftovers.Leftovers()
    try:
        sleeper = _escape()
        assert sleeper in watch.left().processes, "the sleeper stays below this test, as its orphan"
        with pytest.raises(AssertionError, match=str(sleeper)):
            watch.assert_none(settle_s=0.2)  # it will not go by itself
    finally:
        watch.close()
    assert processes.state(sleeper) == "", "closing the watch killed and reaped it"


def test_a_new_process_of_a_worker_uid_is_found_as_root_even_outside_the_watched_tree():
    if os.geteuid() != 0:
        pytest.skip("a worker uid of its own needs root")
    spawner = subprocess.Popen([sys.executable, "-c", SPAWNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    try:
        watch = leftovers.Leftovers()
        try:
            spawner.stdin.write("go\n"), spawner.stdin.flush()
            sleeper = int(spawner.stdout.readline())
            assert sleeper not in watch.left().processes, "not by ancestry: its parent was there before the watch"
            assert sleeper in watch.left({65534}).processes, "but by its uid and start time"
        finally:
            watch.close()
    finally:
        for pid in processes.descendants(spawner.pid):
            os.kill(pid, 9)
        spawner.kill(), spawner.wait()


def test_children_from_before_the_watch_are_not_leftovers_and_survive_it():
    before = subprocess.Popen(["/bin/sleep", "600"])
    try:
        watch = leftovers.Leftovers()
        try:
            assert before.pid not in watch.left().processes
            watch.assert_none()
        finally:
            watch.close()
        assert before.poll() is None
    finally:
        before.kill(), before.wait()


# Run under the owner's uid: makes a SysV shared memory segment that outlives it, and prints its id.
MAKE_SEGMENT = "import ctypes; print(ctypes.CDLL(None).shmget(0, 4096, 0o1600))"


def test_a_new_file_and_sysv_object_of_the_owner_are_found_and_older_ones_are_not(tmp_path):
    owner = 65534 if os.geteuid() == 0 else os.getuid()  # without root the workers keep this uid
    older = Path("/dev/shm") / f"minimax-kit-leftover-test-{uuid.uuid4().hex}-older"
    newer = older.with_name(older.name.replace("older", "newer"))
    segment = None
    older.write_text("there before the watch\n"), os.chown(older, owner, -1)
    try:
        watch = leftovers.Leftovers()
        try:
            newer.write_text("left by a grade\n"), os.chown(newer, owner, -1)
            # As root, the system's interpreter: the one running the tests may sit where 65534 cannot reach.
            python = "/usr/bin/python3" if os.geteuid() == 0 else sys.executable
            made = subprocess.run([python, "-c", MAKE_SEGMENT], capture_output=True, text=True, check=True,
                                  user=owner if os.geteuid() == 0 else None)
            segment = int(made.stdout)
            left = watch.left({owner})
            assert str(newer) in left.files and str(older) not in left.files
            assert f"shm {segment}" in left.ipc
            with pytest.raises(AssertionError, match="minimax-kit-leftover-test"):
                watch.assert_none({owner}, settle_s=0.2)
        finally:
            watch.close()
    finally:
        older.unlink(), newer.unlink(missing_ok=True)
        if segment is not None:
            ctypes.CDLL(None).shmctl(segment, 0, None)  # IPC_RMID

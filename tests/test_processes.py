"""The leftover finder the hostile and fuzz tests trust: it finds a process whatever it runs and wherever it moved."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests import processes

pytestmark = pytest.mark.skipif(not processes.supported(), reason="needs Linux's /proc")

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
    leftovers = processes.Leftovers()
    try:
        sleeper = _escape()
        assert sleeper in leftovers.alive(), "the sleeper stays below this test, as its orphan"
        with pytest.raises(AssertionError, match=str(sleeper)):
            leftovers.assert_none()
    finally:
        leftovers.close()
    assert processes._state(sleeper) == "", "closing the watch killed and reaped it"


def test_a_new_process_of_a_worker_uid_is_found_as_root_even_outside_the_watched_tree():
    if os.geteuid() != 0:
        pytest.skip("a worker uid of its own needs root")
    spawner = subprocess.Popen([sys.executable, "-c", SPAWNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    try:
        leftovers = processes.Leftovers()
        try:
            spawner.stdin.write("go\n"), spawner.stdin.flush()
            sleeper = int(spawner.stdout.readline())
            assert sleeper not in leftovers.alive(), "not by ancestry: its parent was there before the watch"
            assert sleeper in leftovers.alive({65534}), "but by its uid and start time"
        finally:
            leftovers.close()
    finally:
        for pid in processes.descendants(spawner.pid):
            os.kill(pid, 9)
        spawner.kill(), spawner.wait()


def test_children_from_before_the_watch_are_not_leftovers_and_survive_it():
    before = subprocess.Popen(["/bin/sleep", "600"])
    try:
        leftovers = processes.Leftovers()
        try:
            assert before.pid not in leftovers.alive()
            leftovers.assert_none()
        finally:
            leftovers.close()
        assert before.poll() is None
    finally:
        before.kill(), before.wait()

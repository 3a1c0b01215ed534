"""The grade's reaper: it runs the grading process, kills what that leaves behind, and ends as it ended.

These run the real reaper both ways the runner starts one: as a script (`python -I -S reaper.py --
COMMAND`), and forked by a launcher (sandbox.Launcher) with the command run as a module, with
small commands standing in for pytest, as whatever user runs the tests.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from grader.sandbox import Launch, Launcher, reaper

# Run again as an ordinary user by .ci/run (python -m pytest -m ordinary_user): what a uid without root meets.
pytestmark = pytest.mark.ordinary_user

LINUX = sys.platform.startswith("linux")


def launcher_env(folder: Path) -> dict[str, str]:
    """A launcher's environment that finds the grader and the modules written to `folder`."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PYTHONPATH": os.pathsep.join([str(folder), str(Path(reaper.__file__).parents[2])])}


def launch_code(launcher: Launcher, code: str, folder: Path, module: str = "under_test") -> object:
    """`code` written to `module` in `folder` (on the launcher's path) and launched by `launcher`, in
    `folder` and its output to a log there."""
    (folder / f"{module}.py").write_text(textwrap.dedent(code), encoding="utf-8")
    with open(folder / f"{module}.log", "wb") as log:
        return launcher.launch(Launch(module, (), launcher_env(folder), str(folder)), log.fileno())


@pytest.fixture(params=["script", "launcher"])
def start_reaper(request, tmp_path):
    """A function that starts the reaper running `code`, in a session of its own, as the runner starts it."""
    if request.param == "script":
        def start(code: str, folder: Path):
            return subprocess.Popen([sys.executable, "-I", "-S", reaper.__file__, "--", sys.executable, "-c",
                                     textwrap.dedent(code)], cwd=folder, start_new_session=True)

        yield start
        return
    if not LINUX:
        pytest.skip("the launcher needs Linux")
    with Launcher(launcher_env(tmp_path), ()) as launcher:
        yield lambda code, folder: launch_code(launcher, code, folder)


def _alive(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie waiting for its parent counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _wait_dead(pid: int, seconds: float = 5) -> bool:
    deadline = time.monotonic() + seconds
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not _alive(pid)


# A command that leaves a daemon: it forks, the child calls setsid and forks again, and the
# grandchild sleeps; the pid of the grandchild is written to pid.txt.
LEAVE_A_DAEMON = textwrap.dedent("""
    import os, time
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open("pid.txt.part", "w") as out:
                out.write(str(os.getpid()))
            os.rename("pid.txt.part", "pid.txt")
            time.sleep(600)
        os._exit(0)
    while not os.path.exists("pid.txt"):
        time.sleep(0.01)
""")


def kill_grade_and_expect_all_dead(runner: str, cwd: Path, folder: Path, names: tuple[str, ...]) -> None:
    """Run `runner` (a stand-in for `grade` that prints the pids of `names` on one line and sleeps),
    SIGKILL it once the daemon it started is up in `folder`, and expect each of those and the daemon to die."""
    outer = subprocess.Popen([sys.executable, "-c", runner], cwd=cwd, stdout=subprocess.PIPE, text=True)
    pids = dict(zip(names, map(int, outer.stdout.readline().split())))
    daemon = _daemon_pid(folder)
    outer.kill()
    outer.wait()
    outer.stdout.close()
    for name, pid in {**pids, "daemon": daemon}.items():
        assert _wait_dead(pid), f"the {name} outlived grade"


def _wait_for_file(path: Path, what: str, seconds: float = 10) -> None:
    """Wait until `path` exists (a stand-in command says it is ready); fail if it never comes."""
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{what} never came"
        time.sleep(0.01)


def _daemon_pid(folder: Path) -> int:
    _wait_for_file(folder / "pid.txt", "the daemon")
    return int((folder / "pid.txt").read_text())


@pytest.mark.parametrize("status", [0, 1, 3])
def test_the_reaper_exits_with_the_commands_status(start_reaper, tmp_path, status):
    process = start_reaper(f"import sys; sys.exit({status})", tmp_path)
    assert process.wait(timeout=30) == status


def test_the_reaper_ends_by_the_signal_that_ended_the_command(start_reaper, tmp_path):
    process = start_reaper("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", tmp_path)
    assert process.wait(timeout=30) == -signal.SIGSEGV


@pytest.mark.skipif(not LINUX, reason="a child subreaper needs Linux")
def test_an_escaped_daemon_dies_when_the_command_ends(start_reaper, tmp_path):
    process = start_reaper(LEAVE_A_DAEMON, tmp_path)
    daemon = _daemon_pid(tmp_path)
    assert process.wait(timeout=30) == 0
    assert _wait_dead(daemon), "the daemon outlived its grade"


@pytest.mark.skipif(not LINUX, reason="a child subreaper needs Linux")
def test_sigterm_kills_the_command_and_what_it_left(start_reaper, tmp_path):
    process = start_reaper(LEAVE_A_DAEMON + "\ntime.sleep(600)\n", tmp_path)
    daemon = _daemon_pid(tmp_path)
    time.sleep(0.2)
    assert process.poll() is None
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == -signal.SIGKILL  # it ends as its command did
    assert _wait_dead(daemon), "the daemon outlived its grade"


def test_sigint_reaches_the_command_which_may_close_first(start_reaper, tmp_path):
    # Short sleeps, not one long one: a Python handler runs between bytecodes, so a SIGINT landing
    # just before a sleep's system call would wait for the sleep's end (CI met one such 600 s sleep).
    code = """
        import signal, sys, time
        def closing(signum, frame):
            open("closed.txt", "w").write("closed")
            sys.exit(7)
        signal.signal(signal.SIGINT, closing)
        open("ready.txt", "w").write("ready")
        while True:
            time.sleep(0.05)
    """
    process = start_reaper(code, tmp_path)
    _wait_for_file(tmp_path / "ready.txt", "the command's ready")
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == 7
    assert (tmp_path / "closed.txt").read_text() == "closed"


def test_a_signal_that_lands_before_the_reapers_wait_still_reaches_the_command(tmp_path):
    """A signal whose C handler ran where no system call of the reaper's wait could be interrupted.

    The reaper's main thread blocks SIGINT, so the kernel hands it to a thread that only sleeps: its
    C handler runs there, as it would in a reaper preempted just before its wait's system call. A
    wait in a blocking waitpid then never runs the Python handler, and the Ctrl-C never comes.
    """
    code = textwrap.dedent("""
        import os, signal, sys, threading, time
        from grader.sandbox import reaper

        threading.Thread(target=time.sleep, args=(600,), daemon=True).start()  # SIGINT not blocked there
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})

        def start():
            parent, pid = os.getpid(), os.fork()
            if pid == 0:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
                signal.signal(signal.SIGINT, lambda signum, frame: os._exit(7))
                open("ready.txt", "w").close()
                while os.getppid() == parent:  # a reaper that hung and was killed leaves no orphan
                    time.sleep(0.05)
                os._exit(1)
            return pid

        print(reaper.reap(start), flush=True)
    """)
    process = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(Path(reaper.__file__).parents[2])})
    try:
        _wait_for_file(tmp_path / "ready.txt", "the command's ready")
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
        assert process.stdout.read().strip() == "7"
    finally:
        process.kill()
        process.wait()
        process.stdout.close()


@pytest.mark.skipif(not LINUX, reason="a parent-death signal and a subreaper need Linux")
def test_when_grade_dies_the_reaper_still_kills_the_grade(tmp_path):
    """The runner's process is SIGKILLed mid-grade: the grading process and its daemon die too."""
    runner = textwrap.dedent(f"""
        import subprocess, sys, time
        command = [sys.executable, "-I", "-S", {reaper.__file__!r}, "--", sys.executable, "-c",
                   {LEAVE_A_DAEMON + "time.sleep(600)"!r}]
        reaper = subprocess.Popen(command, start_new_session=True)
        print(reaper.pid, flush=True)
        time.sleep(600)
    """)
    kill_grade_and_expect_all_dead(runner, tmp_path, tmp_path, ("reaper",))


def test_a_bad_command_line_is_one_line(tmp_path):
    result = subprocess.run([sys.executable, "-I", "-S", reaper.__file__, "sleep", "1"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert result.stderr.strip() == "usage: reaper.py -- COMMAND..."


def test_the_linux_mechanisms_can_be_switched_off(monkeypatch):
    monkeypatch.setenv(reaper.LINUX_MECHANISMS_ENV, "off")
    assert reaper.linux_mechanisms() is False
    assert reaper.become_subreaper() is False
    monkeypatch.delenv(reaper.LINUX_MECHANISMS_ENV)
    assert reaper.linux_mechanisms() is LINUX


@pytest.mark.skipif(not LINUX, reason="listing children needs /proc")
def test_kill_children_spares_the_pids_it_is_told_to_keep():
    kept = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    killed = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        reaper.kill_children(keep={kept.pid})  # it reaps what it kills, so only /proc can tell
        assert _wait_dead(killed.pid)
        assert kept.poll() is None
    finally:
        kept.kill()
        kept.wait()


# A process that is all children's parent, as a reaper is: a live child, a dead one not yet reaped and an
# orphan adopted as subreaper, each a sleeper it prints; then kill_children(all_ours=True) and what is left.
ALL_OURS = """
import os, sys, time
sys.path.insert(0, sys.argv[1])
from grader.sandbox import reaper

reaper.become_subreaper()
sleep = lambda: (time.sleep(600), os._exit(0))
live = os.fork() or sleep()
dead = os.fork() or os._exit(0)
middle = os.fork()
if middle == 0:  # forks the orphan, then dies: the orphan comes to this process
    orphan = os.fork() or sleep()
    print(orphan, flush=True)
    os._exit(0)
orphan = int(sys.stdin.readline())
time.sleep(0.2)  # the middle one's death reparents the orphan
if sys.argv[2] == "no scan":  # nothing left: the kernel's answer ends the sweep before any /proc search
    reaper._children = None
print(live, orphan, flush=True)
reaper.kill_children(all_ours=True)
try:
    os.waitpid(-1, os.WNOHANG)
    print("a child is left")
except ChildProcessError:
    print("no child left")
"""


@pytest.mark.skipif(not LINUX, reason="a child subreaper and /proc are Linux's")
def test_kill_children_of_a_reaper_kills_the_live_the_dead_and_the_adopted_and_ends_when_none_is_left(tmp_path):
    script = tmp_path / "all_ours.py"
    script.write_text(ALL_OURS, encoding="utf-8")
    # stdin carries the orphan's pid back to its adoptive parent (printed by the middle process)
    runner = subprocess.Popen([sys.executable, str(script), str(Path(reaper.__file__).parents[2]), "scan"],
                              stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True)
    orphan_line = runner.stdout.readline()
    runner.stdin.write(orphan_line)
    runner.stdin.flush()
    live, orphan = (int(pid) for pid in runner.stdout.readline().split())
    assert runner.stdout.readline().strip() == "no child left"
    assert runner.wait(timeout=30) == 0
    assert _wait_dead(live) and _wait_dead(orphan)


@pytest.mark.skipif(not LINUX, reason="a child subreaper and /proc are Linux's")
def test_kill_children_of_a_reaper_with_nothing_left_searches_no_further(tmp_path):
    script = tmp_path / "all_ours.py"
    # Only the dead child and the middle one's: both reaped by the kernel's answer, with no /proc search.
    script.write_text(ALL_OURS.replace("live = os.fork() or sleep()", "live = os.getpid()")
                      .replace("orphan = os.fork() or sleep()", "orphan = os.getpid()"), encoding="utf-8")
    runner = subprocess.Popen([sys.executable, str(script), str(Path(reaper.__file__).parents[2]), "no scan"],
                              stdout=subprocess.PIPE, stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    runner.stdin.write(runner.stdout.readline())
    runner.stdin.flush()
    runner.stdout.readline()
    assert runner.stdout.readline().strip() == "no child left"
    assert runner.wait(timeout=30) == 0, runner.stderr.read()


@pytest.mark.skipif(not LINUX, reason="a child subreaper and /proc are Linux's")
def test_a_reaper_whose_grade_left_nothing_ends_without_searching_the_machines_processes(tmp_path):
    script = textwrap.dedent("""
        import os, sys
        sys.path.insert(0, sys.argv[1])
        from grader.sandbox import reaper

        reaper._children = None  # a /proc search would fail
        print(reaper.reap(lambda: os.fork() or os._exit(3)))
    """)
    done = subprocess.run([sys.executable, "-c", script, str(Path(reaper.__file__).parents[2])],
                          capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stdout.strip()) == (0, "3"), done.stderr

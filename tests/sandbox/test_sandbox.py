"""The sandbox with real worker processes: values, exceptions, timeouts, crashes, limits and isolation."""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from grader.failures import FailureKind, ImportFailed, StudentFailure, StudentRaised, describe_signal, ended
from grader.sandbox.cpu_accounting import worker_pid
from grader.sandbox.framing import Channel
from grader.sandbox.isolation import MemoryCgroup, SandboxError, choose_interpreter, own_memory_cgroup, uid_range
from grader.sandbox.service import Sandbox, SandboxSettings, WorkerStartedAhead
from grader.sandbox.process import NAMESPACES_ENV, SandboxWorker
from tests import processes
from tests.conftest import memory_cgroups_work


@contextlib.contextmanager
def fails(kind: FailureKind, match: str | None = None):
    """Expect a call into student code to fail with a StudentFailure of this kind (and these words)."""
    with pytest.raises(StudentFailure, match=match) as caught:
        yield caught
    assert caught.value.failure.kind is kind, caught.value.failure

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the uid drop happens only when grading as root")

STUDENT = '''
import os, signal, sys, time

def add(a, b):
    return a + b

def echo(*args, **kwargs):
    return [list(args), kwargs]

def pid():
    return os.getpid()

# Which worker answers: each import draws its own (a pid inside a PID namespace is always 2).
INSTANCE = os.urandom(8).hex()

def instance():
    return INSTANCE

def python_loop():
    while True:
        pass

def c_loop():
    return sum(range(10**13))

def stubborn_loop():
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGXCPU):
        signal.signal(sig, signal.SIG_IGN)
    while True:
        try:
            time.sleep(0.01)
        except BaseException:
            pass

class BadTree(ValueError):
    pass

def bad_tree():
    raise BadTree("the tree is empty")

def decode_error():
    b"\\xff".decode("utf-8")

def exits():
    sys.exit(3)

def interrupted():
    raise KeyboardInterrupt

def hard_exit():
    os._exit(0)

def raise_builtin(name):
    import builtins
    kind = getattr(builtins, name)
    # Whichever of these argument lists the class accepts: most take a message, a few need more.
    for args in (("m",), ("utf-8", b"x", 0, 1, "m"), ("utf-8", "x", 0, 1, "m"), ("x", 0, 1, "m"),
                 ("m", [KeyboardInterrupt()]), ("m", [ValueError("inner")])):
        try:
            exc = kind(*args)
        except TypeError:
            continue
        raise exc
    raise RuntimeError(f"no way to build {name}")

def segfault():
    nested = [0]
    for _ in range(200_000):  # deep enough to overflow the C stack, quick to build
        nested = map(abs, nested)
    return list(nested)

def returns_set():
    return {1, 2}

def returns_generator():
    return (i * i for i in range(4))

def mutate(items):
    items.append("added")
    items[0] = "changed"

def noisy():
    print("x" * 200_000)
    print("to stderr", file=sys.stderr)
    return 1

def environment():
    return dict(os.environ)

def identity():
    return [os.getuid(), os.getgid(), os.getgroups(), os.getcwd()]

def read(path):
    with open(path) as handle:
        return handle.read()

def hash_order(words):
    return list(set(words))

def allocate(megabytes):
    return len(bytearray(megabytes * 2**20))

def hold_in_child_then_allocate(child_mb, own_mb):
    child = os.fork()
    if child == 0:
        block = bytearray(child_mb * 2**20)
        block[::4096] = b"\\1" * (len(block) // 4096)  # touch every page, so it is really held
        time.sleep(600)
        os._exit(0)
    time.sleep(0.3)
    block = bytearray(own_mb * 2**20)
    block[::4096] = b"\\1" * (len(block) // 4096)
    return len(block)

def spawn_escaper():
    child = os.fork()
    if child == 0:
        os.setsid()
        time.sleep(600)
        os._exit(0)
    return child
'''


def make_sandbox(tmp_path: Path, source: str = STUDENT, **overrides) -> Sandbox:
    folder = tmp_path / "submission"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mod.py").write_text(textwrap.dedent(source), encoding="utf-8")
    settings = dict(module="mod.py", functions=("add", "echo", "absent"), source_dir=folder, memory_mb=256,
                    cpu_seconds=120, hash_seed=1234, import_timeout=3.0)
    settings.update(overrides)
    return Sandbox(SandboxSettings(**settings))


@pytest.fixture
def sandbox(tmp_path):
    box = make_sandbox(tmp_path)
    box.start()
    yield box
    box.close()


def call(box: Sandbox, name: str, *args, timeout: float = 5.0, **kwargs):
    return box.call(name, args, kwargs, timeout=timeout).value


def worker_processes(box: Sandbox) -> list[int]:
    """The current worker's processes as this process sees them: the one it started, and all below it.

    In namespaces that is the launch's waiter, process 1 of the worker's PID namespace, then the
    worker and what it forked; pids the worker names are its namespace's, which mean nothing here.
    """
    started = box._worker.process.pid
    return [started, *processes.descendants(started)]


def test_a_call_returns_the_plain_value(sandbox):
    assert call(sandbox, "add", 2, 3) == 5
    assert call(sandbox, "echo", (1, 2), key={"a": (3,)}) == [[(1, 2)], {"key": {"a": (3,)}}]


def test_missing_functions_are_reported(sandbox):
    assert sandbox.missing_functions() == ["absent"]
    with fails(FailureKind.MISSING, "mod.py has no function absent"):
        call(sandbox, "absent")


def test_observed_call_returns_the_arguments_after_the_call(sandbox):
    reply = sandbox.call("mutate", (["a", "b"],), {}, timeout=5, observe=True)
    assert reply.value is None
    assert reply.args == [["changed", "b", "added"]]


def test_student_exception_comes_back_as_its_nearest_builtin(sandbox):
    with pytest.raises(ValueError) as caught:
        call(sandbox, "bad_tree")
    assert isinstance(caught.value, StudentRaised)
    info = caught.value.student
    assert (info.type, info.message) == ("BadTree", "the tree is empty")
    assert info.lines and info.lines[-1][1] == "bad_tree"
    assert "BadTree: the tree is empty" in str(caught.value)


def test_builtin_with_a_special_constructor_falls_back_to_a_base(sandbox):
    with pytest.raises(ValueError) as caught:
        call(sandbox, "decode_error")
    assert caught.value.student.type == "UnicodeDecodeError"


BUILTIN_EXCEPTIONS = sorted(name for name, value in vars(builtins).items()
                            if isinstance(value, type) and issubclass(value, BaseException))


def test_every_builtin_exception_comes_back_as_a_raised_failure(sandbox):
    """No built-in exception class breaks the rebuild: each is a `raised` failure naming the class."""
    for name in BUILTIN_EXCEPTIONS:
        with pytest.raises(BaseException) as caught:
            call(sandbox, "raise_builtin", name)
        exc = caught.value
        assert isinstance(exc, (StudentRaised, StudentFailure)), (name, exc)
        failure = exc.student.failure("raise_builtin") if isinstance(exc, StudentRaised) else exc.failure
        assert failure.kind is FailureKind.RAISED, (name, failure)
        # EnvironmentError and IOError are other names of OSError, and are raised as it.
        assert failure.words(public=True).startswith(f"your code raised {getattr(builtins, name).__name__}"), name
        if isinstance(exc, StudentRaised):  # caught by `except` of the class, or of the nearest one that could be built
            assert isinstance(exc, getattr(builtins, name)) or name.startswith(("Unicode", "ExceptionGroup")), name


@pytest.mark.parametrize("name, raised", [("exits", "SystemExit"), ("interrupted", "KeyboardInterrupt")])
def test_base_exceptions_end_only_the_call(sandbox, name, raised):
    before = call(sandbox, "instance")
    with fails(FailureKind.RAISED, f"your code raised {raised}"):
        call(sandbox, name)
    assert call(sandbox, "instance") == before


@pytest.mark.parametrize("name", ["python_loop", "c_loop", "stubborn_loop"])
def test_a_call_past_its_deadline_is_killed_and_the_next_gets_a_fresh_worker(sandbox, name):
    before, processes = call(sandbox, "instance"), worker_processes(sandbox)
    started = time.monotonic()
    with fails(FailureKind.TIMEOUT, f"{name} did not return within 0.5 s") as caught:
        call(sandbox, name, timeout=0.5)
    assert time.monotonic() - started < 3
    assert (caught.value.failure.call, caught.value.failure.limit_s) == (name, 0.5)
    assert call(sandbox, "instance") != before
    for pid in processes:
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]


def test_timeouts_cannot_be_caught_by_a_broad_except(sandbox):
    with fails(FailureKind.TIMEOUT):
        try:
            call(sandbox, "python_loop", timeout=0.3)
        except Exception:  # what a careless check might write; the timeout must not vanish into it
            pytest.fail("a timeout was caught as an ordinary exception")


@pytest.mark.parametrize("name, kind, words", [("hard_exit", FailureKind.EXIT, "exited with status 0"),
                                               ("segfault", FailureKind.CRASH, "SIGSEGV")])
def test_a_crash_fails_the_call_with_its_cause_and_the_next_call_works(sandbox, name, kind, words):
    with fails(kind, words) as caught:
        call(sandbox, name, timeout=20)
    facts = caught.value.failure.facts(public=True)
    assert facts.get("exit_status") == 0 if kind is FailureKind.EXIT else facts.get("signal") == "SIGSEGV"
    assert call(sandbox, "add", 1, 1) == 2


def test_values_that_are_not_plain_are_refused(sandbox):
    with fails(FailureKind.BAD_VALUE, "returns_set returned a set; return a list or tuple"):
        call(sandbox, "returns_set")


def test_a_returned_generator_is_drained(sandbox):
    assert call(sandbox, "returns_generator") == [0, 1, 4, 9]


def test_output_is_captured_per_call_and_capped(sandbox):
    reply = sandbox.call("noisy", (), {}, timeout=5)
    assert reply.value == 1
    assert "[... truncated]" in reply.output
    assert len(reply.output) < 70_000
    assert sandbox.call("add", (1, 2), {}, timeout=5).output == ""


def test_the_environment_is_clean_and_the_hash_seed_fixed(tmp_path, monkeypatch):
    monkeypatch.setenv("MINIMAX_KIT_CANARY", "do-not-leak")
    box = make_sandbox(tmp_path)
    try:
        env = call(box, "environment")
    finally:
        box.close()
    assert "MINIMAX_KIT_CANARY" not in env
    assert env["PYTHONHASHSEED"] == "1234"
    assert set(env) <= {"PATH", "HOME", "TMPDIR", "LANG", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE",
                        "PYTHONIOENCODING", "LC_CTYPE"}


def test_set_order_repeats_with_the_same_hash_seed(tmp_path):
    words = [f"w{i}" for i in range(50)]
    orders = []
    for attempt in range(2):
        box = make_sandbox(tmp_path / str(attempt))
        try:
            orders.append(call(box, "hash_order", words))
        finally:
            box.close()
    assert orders[0] == orders[1]


def test_the_memory_limit_holds(sandbox):
    with pytest.raises(MemoryError):
        call(sandbox, "allocate", 1024)
    assert call(sandbox, "allocate", 16) == 16 * 2**20


@pytest.mark.parametrize(
    "source, words",
    [
        ("def add(a, b):\n    return a +\n", "mod.py line 2: SyntaxError: invalid syntax"),
        ("x = 1 / 0\n", "mod.py line 1: ZeroDivisionError: division by zero"),
        ("import sys\nsys.exit(4)\n", "mod.py line 2: SystemExit: 4"),
        ("while True:\n    pass\n", "importing the module did not finish within 1 s"),
        ("import os\nos._exit(9)\n", "exited with status 9"),
    ],
)
def test_import_failures_are_one_clear_line_and_final(tmp_path, source, words):
    box = make_sandbox(tmp_path, source, import_timeout=1.0)
    with pytest.raises(ImportFailed) as caught:
        box.start()
    assert words in caught.value.message
    assert "\n" not in caught.value.message
    with pytest.raises(ImportFailed):  # no second attempt: every later call fails at once
        call(box, "add", 1, 2)
    box.close()


PRINTS_AT_IMPORT = '''
import os, sys

def add(a, b):
    return a + b

def crash():
    os._exit(1)

INSTANCE = os.urandom(8).hex()

def instance():
    return INSTANCE

print("add(2, 3) is", add(2, 3))
print("worker", INSTANCE, file=sys.stderr)
'''


def test_what_the_module_prints_at_import_is_kept_apart_from_the_calls(tmp_path):
    box = make_sandbox(tmp_path, PRINTS_AT_IMPORT)
    try:
        assert box.import_output is None  # nothing imported yet
        box.start()
        first_pid = box.call("instance", (), {}, timeout=5)
        assert first_pid.output == ""  # the first call does not inherit what the import printed
        assert box.import_output == f"add(2, 3) is 5\nworker {first_pid.value}\n"
        with pytest.raises(StudentFailure):
            call(box, "crash")
        # A fresh worker imported the module again and printed its own pid; the first import's output stays.
        assert call(box, "instance") != first_pid.value
        assert box.import_output == f"add(2, 3) is 5\nworker {first_pid.value}\n"
    finally:
        box.close()


def test_what_printed_before_an_exception_at_import_is_kept(tmp_path):
    box = make_sandbox(tmp_path, "print('loading the table')\nTABLE = {}\nFIRST = TABLE['first']\n")
    with pytest.raises(ImportFailed) as caught:
        box.start()
    box.close()
    assert caught.value.message == "mod.py line 3: KeyError: 'first'"
    assert caught.value.output == box.import_output == "loading the table\n"


def test_how_a_worker_ended_becomes_a_failure_with_its_facts():
    assert ended(-signal.SIGKILL, "solve").signal == "SIGKILL"
    assert "SIGKILL" in ended(-signal.SIGKILL, "solve").words(public=True)
    assert ended(3, "solve").exit_status == 3 and "status 3" in ended(3, "solve").words(public=True)
    assert ended(3, "solve").facts(public=False).get("exit_status") is None  # a number the student picks
    assert "your code ended the process" in ended(3, "solve").words(public=False)
    assert describe_signal(None) == "the worker stopped answering"


@as_root
def test_as_root_the_worker_runs_as_a_group_less_unprivileged_uid(sandbox):
    uid, gid, groups, cwd = call(sandbox, "identity")
    low, high = uid_range()
    assert low <= uid <= high and gid == uid and groups == []
    assert stat.S_IMODE(os.stat(cwd).st_mode) == 0o700 and os.stat(cwd).st_uid == uid
    assert sandbox.environment()["privileges_dropped"] is True


@as_root
@pytest.mark.parametrize("namespaces, denied", [("off", PermissionError), ("on", FileNotFoundError)])
def test_as_root_the_worker_cannot_read_owner_only_files(tmp_path, monkeypatch, namespaces, denied):
    """By its uid alone the file is unreadable; in a root of its own it is not there at all."""
    monkeypatch.setenv(NAMESPACES_ENV, namespaces)
    box = make_sandbox(tmp_path)
    secret_dir = tmp_path / "secret"
    secret_dir.mkdir(mode=0o700)
    (secret_dir / "test_hidden.py").write_text("EXPECTED = 42\n")
    os.chmod(secret_dir, 0o700)
    try:
        with pytest.raises(denied):
            call(box, "read", str(secret_dir / "test_hidden.py"))
    finally:
        box.close()


def _runs_as_a_worker_uid(interpreter: str) -> bool:
    """Whether an unrelated, group-less uid can really execute `interpreter` and get the grader's version."""
    uid = uid_range()[0]
    try:
        done = subprocess.run([interpreter, "-I", "-S", "-c", "import sys; print(sys.version_info[:2])"],
                              user=uid, group=uid, extra_groups=[], capture_output=True, text=True, timeout=30)
    except PermissionError:
        return False
    return done.stdout.strip() == str(tuple(sys.version_info[:2]))


@pytest.fixture
def open_folder():
    """A folder every uid may pass through, as /opt or /srv are (pytest's own tmp_path is owner-only as root)."""
    place = Path(tempfile.mkdtemp(prefix="minimax-kit-interpreters-"))
    os.chmod(place, 0o755)
    yield place
    shutil.rmtree(place, ignore_errors=True)


def _an_open_interpreter() -> Path:
    """The real file of an interpreter of the grader's version that every uid can run (the system's, here)."""
    interpreter, warning = choose_interpreter(drop_privileges=True)
    assert warning is None, warning
    return Path(interpreter).resolve()


@as_root
def test_as_root_the_chosen_interpreter_runs_as_an_unprivileged_uid():
    interpreter, warning = choose_interpreter(drop_privileges=True)
    assert warning is None
    assert _runs_as_a_worker_uid(interpreter)


@as_root
def test_as_root_a_venv_inside_a_closed_kit_gives_the_worker_the_real_interpreter(open_folder):
    """A venv inside the kit, which the grade closes to other uids, as in a container: python -m venv .venv."""
    kit = open_folder / "kit"
    (kit / ".venv" / "bin").mkdir(parents=True)
    link = kit / ".venv" / "bin" / "python"
    link.symlink_to(_an_open_interpreter())
    os.chmod(kit, 0o700)  # what runner.protect_secrets does before any worker starts
    interpreter, warning = choose_interpreter(drop_privileges=True, candidates=[link])
    assert warning is None and interpreter == str(_an_open_interpreter())
    assert _runs_as_a_worker_uid(interpreter)
    assert not _runs_as_a_worker_uid(str(link))


@as_root
def test_as_root_a_venv_in_an_open_folder_is_run_as_itself(open_folder):
    """A venv outside the kit (in /opt, say) stays the worker's interpreter, so its packages stay importable."""
    (open_folder / "venv" / "bin").mkdir(parents=True)
    link = open_folder / "venv" / "bin" / "python"
    link.symlink_to(_an_open_interpreter())
    assert choose_interpreter(drop_privileges=True, candidates=[link]) == (str(link), None)
    assert _runs_as_a_worker_uid(str(link))


@as_root
def test_as_root_an_interpreter_in_an_owner_only_folder_takes_the_fallback(open_folder):
    """Like a Python under /root (mode 0700): the next candidate is taken, or the grade warns."""
    closed = open_folder / "closed"
    closed.mkdir(mode=0o700)
    copy = closed / f"python{sys.version_info.major}.{sys.version_info.minor}"
    shutil.copy2(_an_open_interpreter(), copy)
    assert not _runs_as_a_worker_uid(str(copy))
    fallback = _an_open_interpreter()
    assert choose_interpreter(drop_privileges=True, candidates=[copy, fallback]) == (str(fallback), None)
    interpreter, warning = choose_interpreter(drop_privileges=True, candidates=[copy])
    assert interpreter == sys.executable and "hidden checks are NOT protected" in warning


@as_root
@pytest.mark.parametrize("namespaces", ["off", "on"])
def test_as_root_processes_that_escaped_with_setsid_die_with_the_worker(tmp_path, monkeypatch, namespaces):
    """Killed by uid without namespaces; with them, also as the worker's PID namespace ends."""
    monkeypatch.setenv(NAMESPACES_ENV, namespaces)
    box = make_sandbox(tmp_path)
    call(box, "spawn_escaper")
    uid = box.uid
    escapers = [process.pid for process in processes.live_processes() if uid in process.uids]
    assert len(escapers) >= 2  # the worker and the escaper, at least
    box.close()
    deadline = time.monotonic() + 5
    while any(Path(f"/proc/{pid}").exists() for pid in escapers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(Path(f"/proc/{pid}").exists() for pid in escapers)


needs_cgroup = pytest.mark.skipif(not memory_cgroups_work(),
                                  reason="a memory cgroup per worker needs root and a memory controller it may use")


def memory_group(pid: int) -> str:
    """The memory cgroup of `pid`, from its /proc entry (v1's memory line, else v2's)."""
    return next(line for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines()
                if "memory" in line.split(":")[1] or line.startswith("0::"))


@needs_cgroup
def test_as_root_the_worker_and_its_children_share_one_memory_cgroup(sandbox):
    worker = worker_pid(sandbox._worker.process.pid)
    call(sandbox, "spawn_escaper")
    children = processes.descendants(worker)
    assert children
    for pid in (worker, *children):
        assert memory_group(pid).endswith(f"/minimax-kit-{sandbox.uid}")
    folder = own_memory_cgroup() / f"minimax-kit-{sandbox.uid}"
    assert folder.is_dir() and sandbox.environment()["memory_cgroup"] is True
    sandbox.close()
    assert not folder.exists()


@needs_cgroup
@pytest.mark.parametrize("namespaces", ["on", "off"])
def test_as_root_a_worker_is_in_its_memory_cgroup_before_it_is_let_go_and_holds_no_way_into_it(
        tmp_path, monkeypatch, namespaces):
    """Moved by its process 1 in namespaces of its own, else by itself, while it starts; the
    descriptor that moves it is gone from the worker before it could run student code."""
    monkeypatch.setenv(NAMESPACES_ENV, namespaces)
    box = make_sandbox(tmp_path)
    try:
        box.boot()  # started ahead: go() has not run, so only the launch or the worker can have moved it
        worker = box._spare
        pid = worker_pid(worker.process.pid)
        deadline = time.monotonic() + 10
        while not (worker.cgroup.holds(pid) and not _opens_cgroup_procs(pid)) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert memory_group(pid).endswith(f"/minimax-kit-{worker.uid}")
        assert not _opens_cgroup_procs(pid)
        held = box.start()
        assert held["kind"] == "ready" and box.environment()["namespaces"]["pid"] is (namespaces == "on")
    finally:
        box.close()


def _opens_cgroup_procs(pid: int) -> bool:
    """Whether process `pid` holds a descriptor of a cgroup's cgroup.procs."""
    links = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):
            links.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
    return any(link.endswith("/cgroup.procs") for link in links)


@needs_cgroup
def test_as_root_a_worker_that_did_not_move_itself_is_moved_into_its_memory_cgroup_before_it_is_let_go(tmp_path, monkeypatch):
    monkeypatch.setattr(SandboxWorker, "_cgroup_descriptor", lambda self: None)
    box = make_sandbox(tmp_path)
    try:
        box.start()
        assert memory_group(worker_pid(box._worker.process.pid)).endswith(f"/minimax-kit-{box.uid}")
        assert call(box, "add", 1, 2) == 3
    finally:
        box.close()


@needs_cgroup
def test_as_root_a_worker_that_cannot_be_moved_into_its_memory_cgroup_runs_no_student_code(tmp_path, monkeypatch):
    def refused(self, pid):
        raise PermissionError(13, "Permission denied")

    sent, send = [], Channel.send_small
    monkeypatch.setattr(SandboxWorker, "_cgroup_descriptor", lambda self: None)
    monkeypatch.setattr(MemoryCgroup, "add", refused)
    monkeypatch.setattr(Channel, "send_small", lambda self, payload: (sent.append(payload), send(self, payload)))
    box = make_sandbox(tmp_path)
    try:
        with pytest.raises(SandboxError, match="could not be moved into its memory cgroup: .*Permission denied"):
            box.start()
    finally:
        box.close()
    assert sent == []  # never let go: the worker imported nothing


@needs_cgroup
def test_as_root_memory_held_by_a_child_counts_against_the_worker(sandbox):
    # Each process stays under RLIMIT_AS (256 MiB); together they pass the cgroup's 256 MiB.
    started = time.monotonic()
    with fails(FailureKind.MEMORY) as caught:
        call(sandbox, "hold_in_child_then_allocate", 120, 180, timeout=20.0)
    assert "ran out of memory (limit 256 MB)" in caught.value.message
    # The child still held the pipes; the worker's pidfd told of its death long before the deadline.
    assert time.monotonic() - started < 10
    assert call(sandbox, "add", 1, 2) == 3


def test_limits_that_held_are_reported(sandbox):
    held = sandbox.environment()["limits_held"]
    if sys.platform.startswith("linux"):
        assert held["as"] and held["cpu"] and held["fsize"] and held["nofile"] and held["core"]
        assert held["die_with_parent"]


@as_root
def test_as_root_go_gives_the_worker_only_the_submissions_copies(tmp_path):
    """A worker booted ahead makes and removes its own files in its folder while go() copies the
    submission in; go() must touch only the copies, or a file gone before its chown stops the grade."""
    (tmp_path / "submission" / "data").mkdir(parents=True)
    (tmp_path / "submission" / "data" / "table.txt").write_text("1 2 3\n", encoding="utf-8")
    box = make_sandbox(tmp_path)
    try:
        box.boot()
        work = box._spare.home / "work"
        # Entries of the folder that are not copies, root's here so that a chown shows: a file, and a
        # link to nothing, as one the worker removes before a chown could reach it would be.
        (work / "not-a-copy").write_text("", encoding="utf-8")
        (work / ".gone").symlink_to(work / "removed-meanwhile")
        box.start()
        assert call(box, "add", 2, 3) == 5
        for copied in (work / "mod.py", work / "data", work / "data" / "table.txt"):
            assert copied.stat().st_uid == box.uid
        assert [(work / name).lstat().st_uid for name in ("not-a-copy", ".gone")] == [0, 0]
    finally:
        box.close()


def test_a_worker_dies_with_its_grading_process(tmp_path):
    """If the grading process is killed outright, its worker must not live on (PR_SET_PDEATHSIG)."""
    import subprocess

    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "mod.py").write_text("import os\n\ndef pid():\n    return os.getpid()\n")
    script = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from grader.sandbox.service import Sandbox, SandboxSettings
        box = Sandbox(SandboxSettings(module="mod.py", functions=("pid",), source_dir=Path({str(folder)!r}),
                                      memory_mb=256, cpu_seconds=60, hash_seed=0))
        box.call("pid", (), {{}}, timeout=5)
        print(box._worker.process.pid, flush=True)
        time.sleep(600)
    """)
    grading = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    started = int(grading.stdout.readline())
    workers = [started, *processes.descendants(started)]
    assert all(Path(f"/proc/{pid}").exists() for pid in workers)
    grading.send_signal(signal.SIGKILL)
    grading.wait()
    deadline = time.monotonic() + 5
    while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)


@as_root
def test_as_root_a_sweep_spares_a_uid_another_grader_has_leased():
    """The runner's final sweep must not kill a worker that a parallel grade started under a reused uid."""
    import subprocess

    from grader.sandbox.isolation import UidLease, sweep_uid

    lease = UidLease()
    uid = lease.uid
    sleeper = subprocess.Popen(["/bin/sleep", "60"], user=uid, group=uid, extra_groups=[])
    try:
        sweep_uid(uid)  # leased (by this test, standing in for another grader): left alone
        time.sleep(0.2)
        assert sleeper.poll() is None
    finally:
        lease.release()
    sweep_uid(uid)  # free again: whatever is left of it dies
    assert sleeper.wait(timeout=5) == -signal.SIGKILL


@as_root
def test_as_root_a_uid_is_swept_before_its_next_worker_unless_its_last_holder_swept_it(tmp_path, monkeypatch):
    """A worker's close marks its uid's lease swept, which spares the next holder a sweep; a holder
    that let go without sweeping (a grader killed) leaves no mark, and its survivor dies first."""
    from grader.sandbox.isolation import UidLease

    low, high = uid_range()
    probe = next(lease for uid in range(high, low - 1, -1)
                 if (lease := _try_lease(UidLease, uid)) is not None)  # a uid no grader holds now
    uid = probe.uid
    monkeypatch.setenv("GRADE_UID_RANGE", f"{uid}-{uid}")
    survivor = subprocess.Popen(["/bin/sleep", "60"], user=uid, group=uid, extra_groups=[])
    probe.release()  # no mark: whoever holds the uid next must kill the survivor
    box = make_sandbox(tmp_path)
    try:
        assert call(box, "add", 2, 3) == 5
        assert box.uid == uid
        assert survivor.wait(timeout=5) == -signal.SIGKILL
    finally:
        box.close()
    after = UidLease(range(uid, uid + 1))
    assert after.swept  # the worker's close swept the uid
    late = subprocess.Popen(["/bin/sleep", "60"], user=uid, group=uid, extra_groups=[])
    after.release()  # started while this lease held the uid, and not swept: the mark is gone
    again = UidLease(range(uid, uid + 1))
    try:
        assert not again.swept
    finally:
        again.release()
        late.kill()
        late.wait()


def _try_lease(lease_type, uid):
    try:
        return lease_type(range(uid, uid + 1))
    except SandboxError:
        return None


def test_a_malformed_reply_forged_by_student_code_is_a_broken_channel(tmp_path):
    """Student code can write frames to the reply pipe; one of the wrong shape must not crash the grader."""
    forger = '''
import os, sys

def forge():
    wire = sys.modules["wire"]  # the wire format the worker script imported: well-tagged frames
    os.write(int(sys.argv[2]), wire.dumps({"kind": "raised", "error": {"type": 5}, "output": {}}))
    os._exit(0)
'''
    box = make_sandbox(tmp_path, forger)
    try:
        with fails(FailureKind.BROKEN_CHANNEL, "broke the channel during forge: a malformed reply"):
            call(box, "forge")
    finally:
        box.close()


def test_a_worker_that_never_starts_says_why(tmp_path, monkeypatch):
    """What the interpreter printed before the worker was ready goes into the import error."""
    from grader.sandbox import wire
    from grader.sandbox import process as worker_process

    broken = tmp_path / "worker.py"
    broken.write_text("import sys\nprint('worker script cannot start: missing piece', file=sys.stderr)\nsys.exit(3)\n")
    monkeypatch.setattr(worker_process, "WORKER_FILES", (broken, Path(wire.__file__)))
    box = make_sandbox(tmp_path)
    with pytest.raises(ImportFailed, match=r"exited with status 3.*\(worker script cannot start: missing piece\)"):
        box.start()
    box.close()


@as_root
def test_a_worker_interpreter_of_another_python_version_is_a_kit_fault(tmp_path, monkeypatch):
    # A wrapper named like the right version that runs the worker under a different sys.version.
    place = Path(tempfile.mkdtemp(prefix="minimax-kit-fake-python-"))
    try:
        os.chmod(place, 0o755)
        (place / "fake.py").write_text("import runpy, sys\nsys.version = '3.99.0 (fake)'\n"
                                       "sys.argv = [arg for arg in sys.argv[1:] if arg not in ('-s', '-P')]\n"
                                       "runpy.run_path(sys.argv[0], run_name='__main__')\n")
        wrapper = place / f"python{sys.version_info.major}.{sys.version_info.minor}"
        real = choose_interpreter(drop_privileges=True)[0]
        wrapper.write_text(f'#!/bin/sh\nexec {real} -s -P {place / "fake.py"} "$@"\n')
        os.chmod(wrapper, 0o755)
        os.chmod(place / "fake.py", 0o644)
        monkeypatch.setenv("GRADE_WORKER_PYTHON", str(wrapper))
        box = make_sandbox(tmp_path)
        with pytest.raises(SandboxError, match="the worker runs Python 3.99.0, not"):
            box.start()
        box.close()
    finally:
        shutil.rmtree(place, ignore_errors=True)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="CPU affinity is a Linux feature, and pinning needs two CPUs to show")
def test_a_worker_booted_before_the_pin_keeps_to_the_grading_process_cpu_once_let_go(tmp_path):
    # A grade boots its first worker before its CpuLease pins it, so the worker's interpreter starts on
    # any CPU; go() must still keep the worker, and the student code it runs, to the grader's CPU.
    allowed = os.sched_getaffinity(0)
    box = make_sandbox(tmp_path, STUDENT + "\ndef affinity():\n    return sorted(os.sched_getaffinity(0))\n",
                       functions=("add", "affinity"))
    try:
        box.boot()
        cpu = max(allowed)
        os.sched_setaffinity(0, {cpu})
        box.start()
        assert call(box, "affinity") == [cpu]
    finally:
        os.sched_setaffinity(0, allowed)
        box.close()


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="CPU affinity is a Linux feature")
def test_cpu_leases_pin_side_by_side_grades_to_different_cpus():
    # Grading processes side by side, each holding its lease until its stdin closes.
    script = ("import os, sys\nfrom grader.sandbox.isolation import CpuLease\nlease = CpuLease()\n"
              "print(lease.cpu, sorted(os.sched_getaffinity(0)), flush=True)\nsys.stdin.read()\n")
    allowed = sorted(os.sched_getaffinity(0))
    children = [subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True) for _ in range(len(allowed) + 1)]
    try:
        seen = [child.stdout.readline().split(" ", 1) for child in children]
    finally:
        for child in children:
            child.stdin.close()
            child.wait(timeout=30)
    # One CPU each, pinned to it, until none is left: then a grade runs unpinned. (A grade running
    # elsewhere on the machine may hold a CPU too, so which child gets which is not fixed.)
    pinned = [int(cpu) for cpu, _ in seen if cpu != "None"]
    assert pinned and len(set(pinned)) == len(pinned) and set(pinned) <= set(allowed)
    assert all(json.loads(affinity) == ([int(cpu)] if cpu != "None" else allowed) for cpu, affinity in seen)
    assert len(pinned) < len(seen)


def test_the_next_throwaway_worker_starts_on_a_thread_and_goes_with_the_sandbox(tmp_path):
    box = make_sandbox(tmp_path)
    try:
        box.start()
        with box.throwaway() as probe:
            assert probe.call("add", (2, 3), {}, timeout=5.0).value == 5
        ahead = box._throwaway_spare
        assert isinstance(ahead, WorkerStartedAhead)
        with box.throwaway() as probe:  # takes the worker started ahead, and starts the next one
            assert probe.call("add", (1, 1), {}, timeout=5.0).value == 2
        assert ahead.take() is None and box._throwaway_spare is not ahead
        waiting = box._throwaway_spare.take()
        box._throwaway_spare = None
        assert waiting.process.poll() is None  # started, waiting for its go
        waiting.close()
        assert waiting.process is None or waiting.process.poll() is not None
    finally:
        box.close()


def test_a_worker_that_could_not_be_started_ahead_leaves_the_start_to_its_taker():
    def refused() -> SandboxWorker:
        raise SandboxError("no uid is free")

    with ThreadPoolExecutor(max_workers=1) as starter:
        ahead = WorkerStartedAhead.on(starter, refused)
        assert ahead.take() is None and isinstance(ahead.error, SandboxError)
        ahead.close()  # nothing to close

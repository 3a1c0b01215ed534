"""The sandbox: calls into the student's module, each in the current worker, which is replaced whenever it dies."""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from grader.sandbox import wire
from grader.sandbox.cpu_accounting import CpuAccount
from grader.failures import (
    Failure,
    FailureKind,
    StudentFailure,
    broken_channel,
    describe_import_error,
    import_failed,
    rebuild_exception,
)
from grader.sandbox.isolation import PYTHON_MINOR, SandboxError, choose_interpreter
from grader.sandbox.namespaces import namespaces_held
from grader.sandbox.reaper import linux_mechanisms
from grader.sandbox.process import Reply, SandboxSettings, SandboxWorker, join_output

# What a hidden check says of a value that cannot cross: the student's own type name might spell an input.
NOT_PLAIN_DATA = ("a value that is not plain data; return only None, bool, int, float, str, list, tuple and dict "
                  "with str keys")


def reimport_failed(module: str) -> str:
    """Fixed words for a module that imported once but not in a worker started to replace a dead one."""
    return f"{module} imported once, but not again in the worker started after an earlier call ended its own"


def _line_count(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n") + 1
    except OSError:
        return 0


class WorkerStartedAhead:
    """A worker being started on the sandbox's starter thread, for a throwaway sandbox that will want it soon.

    The thread is the sandbox's own, ended only by its close(), after every worker: a worker is told
    to die with the thread that started it (PR_SET_PDEATHSIG follows the thread, not the process).
    """

    def __init__(self, future: Future[SandboxWorker]):
        self._future: Future[SandboxWorker] | None = future
        self.error: BaseException | None = None

    @classmethod
    def on(cls, starter: ThreadPoolExecutor, spawn: Callable[[], SandboxWorker]) -> WorkerStartedAhead:
        """A worker started on `starter`, the sandbox's own thread."""
        return cls(starter.submit(spawn))

    @classmethod
    def now(cls, spawn: Callable[[], SandboxWorker]) -> WorkerStartedAhead:
        """A worker started here, before this returns (a fault in its start is raised here)."""
        future: Future[SandboxWorker] = Future()
        future.set_result(spawn())
        return cls(future)

    def take(self) -> SandboxWorker | None:
        """The started worker, now the caller's; None if it could not be started (`error` says why:
        the caller then starts one itself, and meets the fault where it can say so)."""
        future, self._future = self._future, None
        if future is None:
            return None
        self.error = future.exception()  # waits for the start; Ctrl-C meanwhile reaches the caller
        return None if self.error is not None else future.result()

    def close(self) -> None:
        """Close the worker unless it was taken, once it has started."""
        worker = self.take()
        if worker is not None:
            worker.close()


def _hello_is_well_formed(hello: dict) -> bool:
    """Whether the worker's first message, its facts sent before any student code ran, has the expected shape."""
    return (hello.get("kind") == "hello" and type(hello.get("limits")) is dict and type(hello.get("python")) is str
            and type(hello.get("confinement", {})) is dict)


def _check_ready(hello: dict, ready: dict) -> None:
    """The start-up messages must have the expected shape; anything else is a broken channel."""
    ok = (_hello_is_well_formed(hello) and ready.get("kind") == "ready" and type(ready.get("output", {})) is dict
          and all(type(v) is str for v in ready.get("output", {}).values())
          and (type(ready.get("error")) is dict if "error" in ready
               else type(ready.get("functions")) is list and all(type(f) is str for f in ready["functions"])))
    if not ok:
        raise wire.WireError("the worker's start-up messages are malformed")
    if not hello["python"].startswith(f"{PYTHON_MINOR}."):
        raise SandboxError(f"the worker runs Python {hello['python']}, not {PYTHON_MINOR} like the grader")


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
        # What the module printed while the first worker imported it (None until an import ended).
        self.import_output: str | None = None
        self.hello: dict = {}
        self.ready: dict = {}
        self.uid: int | None = None
        self.uids_used: set[int] = set()
        self.memory_cgroup = False
        self.cpu_seconds = settings.cpu_seconds
        # What this sandbox's workers ran and waited for a CPU, counted as each one closes.
        self.cpu = CpuAccount()
        self._spare: SandboxWorker | None = None
        # The next throwaway sandbox's worker, started as the last one opened (see throwaway).
        self._throwaway_spare: WorkerStartedAhead | None = None
        # The thread that starts them, which lives as long as they may (see WorkerStartedAhead).
        self._starter: ThreadPoolExecutor | None = None
        self._closing: list[threading.Thread] = []

    @functools.cached_property
    def line_count(self) -> int:
        """How many lines the module has, read once its first call fails (the folder may be filled only at go)."""
        return _line_count(self.settings.source_dir / self.settings.module)

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
        worker = SandboxWorker(settings, self.interpreter, self.live_workers, self.cpu)
        self.uids_used.add(worker.uid)
        return worker

    def _ensure_worker(self) -> SandboxWorker:
        if self.import_error is not None:
            raise import_failed(self.import_error)
        if self._worker is not None and self._worker.process is not None:
            return self._worker
        module = self.settings.module
        settings = self.settings
        # The module imported before, so this worker replaces one that died, maybe in a hidden check:
        # what its import says is then the student's code's to choose, and only fixed words are kept.
        again = bool(self.ready)
        worker, self._spare = self._spare or self._spawn(), None
        self.uid = worker.uid
        self.memory_cgroup = worker.cgroup is not None
        worker.go(self.cpu_seconds)
        try:
            hello = worker.exchange(None, settings.import_timeout, "the worker's start")
            if not self.hello and _hello_is_well_formed(hello):
                # The first worker's facts, sent before the student's code ran: the report says which
                # namespaces held even when that code then fails to import.
                self.hello = hello
            ready = worker.exchange(None, settings.import_timeout, f"the import of {module}")
            _check_ready(hello, ready)
        except StudentFailure as exc:
            if exc.failure.kind is FailureKind.TIMEOUT:
                self.import_error = (f"{module}: importing the module did not finish within "
                                     f"{settings.import_timeout:g} s")
            elif again:
                self.import_error = reimport_failed(module)
            else:
                detail = worker.boot_error()
                self.import_error = exc.message + (f" ({detail})" if detail else "")
            raise import_failed(self.import_error) from None
        except wire.WireError as exc:
            worker.close()
            self.import_error = (reimport_failed(module) if again else
                                 broken_channel(f"the import of {module}", str(exc)).words(public=True))
            raise import_failed(self.import_error) from None
        except SandboxError:
            worker.close()
            raise
        output = join_output(ready.get("output", {}))
        if self.import_output is None:
            # Only the first import's: a worker replaced after a crash imports the module again, and
            # what that prints repeats the first or depends on the checks run so far.
            self.import_output = output
        if "error" in ready:
            worker.close()
            if again:
                self.import_error = reimport_failed(module)
                raise import_failed(self.import_error)
            self.import_error = describe_import_error(ready["error"], module, settings.source_map)
            raise import_failed(self.import_error, output=output)
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

        Student exceptions come back as built-in exceptions marked StudentRaised; timeouts,
        crashes, bad values and BaseExceptions come back as a StudentFailure. `trace`
        lists the arguments whose nested lists record what the student's code fetches from them.
        """
        if observe and trace:
            raise ValueError("a call can observe its arguments or trace them, not both")
        request = {"kind": "call", "name": name, "args": list(args), "kwargs": dict(kwargs), "observe": observe}
        if trace:
            request["trace"] = list(trace)
        payload = wire.dumps_request(request)
        worker = self._ensure_worker()
        try:
            reply = worker.exchange(payload, timeout, name)
        except BaseException:  # the worker is dead now (exchange closed it); the next call starts another
            self._worker = None
            raise
        if not _reply_is_well_formed(reply):
            self.close()
            raise StudentFailure(broken_channel(name, "a malformed reply"))
        output = join_output(reply.get("output") or {})
        kind = reply["kind"]
        if kind == "returned":
            return Reply(reply.get("value"), reply.get("args"), reply.get("kwargs"), output, reply.get("trace"))
        if kind == "raised":
            raise rebuild_exception(reply.get("error") or {}, self.settings.module, self.line_count, name, output,
                                    self.settings.source_map)
        if kind == "bad_value":
            # The problem names the student's own type, which a hidden check must not echo.
            raise StudentFailure(Failure(FailureKind.BAD_VALUE, call=name, detail=str(reply.get("problem")),
                                         hidden_detail=NOT_PLAIN_DATA), output=output)
        if kind == "missing":
            missing = f"{self.settings.module} has no function {name}"
            raise StudentFailure(Failure(FailureKind.MISSING, call=name, detail=missing, hidden_detail=missing),
                                 output=output)
        self.close()
        # The kind is the student's own text (a forged frame), so a hidden check does not show it.
        raise StudentFailure(Failure(FailureKind.BROKEN_CHANNEL, call=name, detail=f"an unknown reply kind {kind!r}",
                                     hidden_detail="an unknown reply kind"))

    @contextlib.contextmanager
    def throwaway(self) -> Iterator[Sandbox]:
        """A sandbox of its own for calls made for feedback only, closed (and its uids noted) at the end.

        Its workers leave this run's worker, and the state the student's module built up in it,
        exactly as the checks left it, so nothing called there can change any later check's result;
        a timeout or crash there ends only the throwaway worker.
        """
        probe = Sandbox(self.settings, self.live_workers)
        probe.cpu_seconds = self.cpu_seconds
        probe.cpu = self.cpu  # what feedback's calls ran and waited is part of the grade's
        # Feedback seldom comes alone: a failed check traces one call and then probes, and the next
        # check to fail does the same. So the next throwaway's worker starts its interpreter now, on
        # another CPU while this one works, and waits for its go as a boot()ed one does; close()
        # ends it if no throwaway takes it. Only a grade with feedback pays for it.
        # Started on a thread: starting a worker (its home, its memory cgroup, its interpreter's
        # launch) took 40 to 60 ms of this process, which each explanation of a failed check waited for.
        spare = self._throwaway_spare.take() if self._throwaway_spare is not None else None
        probe._spare = spare or self._spawn()
        self._throwaway_spare = None
        if self.import_error is None and not probe.drop_privileges:
            # Without a uid of its own, a closing worker kills this process's other children but the
            # live ones, and a worker still being started on a thread is not one of them yet.
            self._throwaway_spare = WorkerStartedAhead.now(self._spawn)
        elif self.import_error is None:
            if self._starter is None:
                self._starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="worker starter")
            self._throwaway_spare = WorkerStartedAhead.on(self._starter, self._spawn)
        try:
            yield probe
        finally:
            self.uids_used |= probe.uids_used  # each noted as its worker started
            if probe.drop_privileges:
                # Its workers close (killed by their uid, their leftovers swept) on a thread of their
                # own while the check goes on: nothing later waits for them but this sandbox's close(),
                # which joins it. Without a uid of its own a worker is killed with this process's other
                # children, which a thread could not tell from a worker that another is starting.
                closing = threading.Thread(target=probe.close, name="throwaway close")
                closing.start()
                self._closing.append(closing)
            else:
                probe.close()

    def trace(self, name: str, args: tuple, kwargs: dict, *, timeout: float, trace: list[int]) -> tuple[Reply, Reply]:
        """Call `name` twice in a fresh worker of its own, traced and then plainly; return both replies."""
        with self.throwaway() as probe:
            traced = probe.call(name, args, kwargs, timeout=timeout, trace=trace)
            plain = probe.call(name, args, kwargs, timeout=timeout)
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
            # Which namespaces of its own the worker ran in, as it said before student code ran; none
            # counts as held when the worker never said (it died before its first message).
            "namespaces": namespaces_held(self.hello.get("confinement") or {}),
            # Whether the kernel refused the worker the calls that reach state no namespace covers
            # (kernel keys and the rest of kernel_state.REFUSED_CALLS), as the worker found.
            "syscall_filter": (self.hello.get("confinement") or {}).get("keys_refused") is True,
            "warning": self.warning,
        }

    def close(self):
        """Stop the current worker and any started ahead, and wait for the throwaways' to close."""
        if self._throwaway_spare is not None:
            self._throwaway_spare.close()
        for worker in (self._worker, self._spare):
            if worker is not None:
                worker.close()
        self._worker = self._spare = self._throwaway_spare = None
        while self._closing:
            self._closing.pop().join()
        if self._starter is not None:  # every worker it started is closed by now
            self._starter.shutdown()
            self._starter = None

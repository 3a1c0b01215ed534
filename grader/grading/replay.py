"""Replaying recorded calls on the instructor's programs: answers as typed values, and a forked child to run in.

The proxy records every call a check makes into the student's code, with what came back (an
`Answer`). The diagnosis (`diagnosis`) and the handout's sealed mistakes (`sealed_mistakes`)
replay those calls on the known mistakes and the reference, here: each call on a copy of its
arguments, under a probe limit, in a forked child of the grading process under a deadline, so
that a program that loops, recurses past the stack or prints cannot touch the grade.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import hashlib
import importlib.util
import json
import math
import os
import select
import signal
import sys
import time
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from grader.failures import FailureKind
from grader.sandbox import wire

# The name the reference goes by among the programs replayed.
REFERENCE = "reference"
# In a student's grade, how long a mistake may take on one call before its answer counts as none. A
# student's call that timed out matches a mistake that is still running after this long; so does a
# reference that slow, which then tells nothing apart on that call. (grade check's proof and grade
# export give each replay the call's own limit in the worker instead.)
PROBE_LIMIT_S = 0.5
# A first pass replays every call within this much: most mistakes are told apart at once, and the
# slow programs (a search without its memo, say) wait for a second pass, if the deadline allows one.
QUICK_PROBE_S = 0.02
# A call that one side (the student's worker, or a replay) answered after this share of the time it
# had, and the other did not answer at all, is a race between two clocks and not a different answer.
RACE_SHARE = 0.5
# The recursion the replayed programs get, as the worker gives the student's (ex03's deep trees).
REPLAY_RECURSION_LIMIT = 10_000
# Which failures of a call count as the same answer. A call that ended without an answer is one kind:
# a replay has no memory cap and no process of its own to crash, and the same mistake that runs past
# a deadline on a busy machine fills the worker's memory (and ends it) on a quiet one.
_FAILURE_ANSWERS: dict[FailureKind, str] = {
    FailureKind.TIMEOUT: "no_answer", FailureKind.MEMORY: "no_answer", FailureKind.CRASH: "no_answer",
    FailureKind.EXIT: "no_answer", FailureKind.BROKEN_CHANNEL: "no_answer",
    FailureKind.BAD_VALUE: "bad_value",
    FailureKind.MISSING: "missing",
}


@dataclass(frozen=True)
class Answer:
    """What one call did: returned a value, raised a built-in class of exception, or failed some other way."""

    kind: str  # "returned", "raised" or "failed"
    value: object = None
    """The value returned (with the arguments after the call, for an observed call), the exception's nearest
    built-in class, or how the call failed ("no_answer", "bad_value", "missing")."""

    @classmethod
    def failed(cls, kind: FailureKind) -> Answer:
        """A call that did not return a value, by the kind of its failure."""
        return cls("failed", _FAILURE_ANSWERS.get(kind, str(kind)))

    def canonical(self) -> str:
        """The answer as text that two equal answers share: exact types, floats to 12 significant digits."""
        return json.dumps([self.kind, _plain(self.value)], separators=(",", ":"))


def _plain(value):
    """A value as JSON-ready data that keeps its types apart (a tuple is not a list, True is not 1)."""
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return {"int": str(value)}
    if kind is float:
        return {"float": format(value, ".12g") if math.isfinite(value) else repr(value)}
    if kind is list or kind is tuple:
        return {kind.__name__: [_plain(item) for item in value]}
    if kind is dict:
        return {"dict": [[_plain(key), _plain(item)] for key, item in value.items()]}
    return {"other": kind.__name__}


# The canonical text of a call that ended without an answer.
NO_ANSWER = Answer.failed(FailureKind.TIMEOUT).canonical()


@dataclass(frozen=True)
class RecordedCall:
    """One call a check made into the student's code, and what the student's code did."""

    function: str
    args: tuple
    kwargs: dict
    observed: bool
    """Whether the check also read the arguments after the call (`student.call_observed`)."""
    answer: Answer
    limit_s: float
    seconds: float = 0.0
    """How long the student's code took to answer (its limit, if it did not)."""

    def digest(self) -> str:
        """The call itself (function and arguments) as a digest, the key of a handout's table."""
        text = json.dumps([self.function, _plain(tuple(self.args)), _plain(dict(self.kwargs)), self.observed],
                          separators=(",", ":"))
        return _digest(text)


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16, person=b"minimax-kit").hexdigest()


# -- replaying a call on a known mistake, in the child


class _OutOfTime(BaseException):
    """A replayed call ran past PROBE_LIMIT_S (a BaseException: the program's own except cannot keep it)."""


def _nearest_builtin(exc: BaseException) -> str:
    """The first built-in class in the exception's MRO, as a student's exception is reported."""
    for klass in type(exc).__mro__:
        if getattr(builtins, klass.__name__, None) is klass:
            return klass.__name__
    return "an exception"


def _on_alarm(signum, frame):
    raise _OutOfTime


def replay(module: types.ModuleType, call: RecordedCall, limit_s: float | None = None) -> Answer:
    """What `module` answers to the recorded call, on a copy of its arguments, within `limit_s` or else
    within the call's own limit in the worker (None), as the student's code had."""
    function = getattr(module, call.function, None)
    if not callable(function):
        return Answer.failed(FailureKind.MISSING)
    args, kwargs = copy.deepcopy((tuple(call.args), dict(call.kwargs)))
    try:
        try:
            signal.setitimer(signal.ITIMER_REAL, call.limit_s if limit_s is None else min(call.limit_s, limit_s))
            value = function(*args, **kwargs)
            if isinstance(value, types.GeneratorType):  # the worker drains one into a list
                value = list(value)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    # Outside the finally: an alarm that fires just as the call returns, before the timer is
    # stopped, still ends here (the call ran to its limit) and not in the caller.
    except _OutOfTime:
        return Answer.failed(FailureKind.TIMEOUT)
    except Exception as exc:  # the program's own exception is its answer, as the student's is
        return Answer("raised", _nearest_builtin(exc))
    except BaseException:  # SystemExit and the like end the student's worker: a crash
        return Answer.failed(FailureKind.CRASH)
    try:
        wire.dumps(value)
    except wire.WireError:
        return Answer.failed(FailureKind.BAD_VALUE)
    return Answer("returned", (value, args, kwargs) if call.observed else value)


def load_program(name: str, source: str) -> types.ModuleType | None:
    """A known mistake's code as a module of its own, or None if it does not even import."""
    module = types.ModuleType(f"minimax_kit_mistake_{name}")
    module.__file__ = f"<known mistake {name}>"
    # dataclasses and the like look their module up by name while it is executed.
    sys.modules[module.__name__] = module
    try:
        try:
            signal.setitimer(signal.ITIMER_REAL, PROBE_LIMIT_S)
            exec(compile(source, module.__file__, "exec"), module.__dict__)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except BaseException:  # a mistake that cannot be imported (or takes too long to) matches nothing
        return None
    return module


class replay_room:
    """The recursion room, the alarm handler and the given modules a replay needs, restored afterwards.

    `given` are the exercise's given modules (catalog.Exercise.given_paths): the programs import
    them by name, as the student's module does in the worker, so each is loaded from the kit's own
    file under that name for the replays and taken away after them.
    """

    def __init__(self, given: tuple[Path, ...] = ()):
        self._given = given

    def __enter__(self):
        self._limit = sys.getrecursionlimit()
        self._handler = signal.signal(signal.SIGALRM, _on_alarm)
        sys.setrecursionlimit(max(self._limit, REPLAY_RECURSION_LIMIT))
        self._shadowed = {path.stem: sys.modules.get(path.stem) for path in self._given}
        for path in self._given:
            spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[path.stem] = module
            spec.loader.exec_module(module)

    def __exit__(self, *exc):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._handler)
        sys.setrecursionlimit(self._limit)
        for name, module in self._shadowed.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def _encoded_calls(nodeid: str, calls: list[RecordedCall]) -> bytes:
    """A check's calls as lines in the wire's exact encoding (tuples stay tuples): read_calls's format."""
    return b"".join(wire.dumps((nodeid, call.function, call.args, call.kwargs, call.observed, call.answer.kind,
                                call.answer.value, call.limit_s, call.seconds))[wire.HEADER.size:] + b"\n"
                    for call in calls)


def _decoded_calls(lines: bytes) -> dict[str, list[RecordedCall]]:
    calls: dict[str, list[RecordedCall]] = {}
    for line in lines.splitlines():
        nodeid, function, args, kwargs, observed, kind, value, limit_s, seconds = wire.loads(line)
        calls.setdefault(nodeid, []).append(
            RecordedCall(function, tuple(args), dict(kwargs), observed, Answer(kind, value), limit_s, seconds))
    return calls


def write_calls(path: Path, calls: dict[str, list[RecordedCall]]) -> None:
    """Keep checks' recorded calls in a file, a line per call in the wire's exact encoding (tuples stay tuples).

    A line per call, since one message of the wire is bounded and a check's calls together may not be.
    """
    with path.open("wb") as out:
        for nodeid, recorded in calls.items():
            out.write(_encoded_calls(nodeid, recorded))


def read_calls(path: Path) -> dict[str, list[RecordedCall]]:
    """The recorded calls that write_calls kept; none if the run kept none."""
    if not path.is_file():
        return {}
    return _decoded_calls(path.read_bytes())


class ChildOnTheSide:
    """A forked child that takes checks' calls while the checks still run, and yields what it finds from them.

    `produce(checks)` runs in the child: `checks` gives each (nodeid, calls) that `send` was handed,
    as it comes, and ends once `collect` is called. The calls go through a file in `folder` and only
    their place in it through a pipe, so `send` never waits for a child that is busy. The child runs
    at the idle priority (SCHED_IDLE) while checks run, so that it takes only a CPU that nothing
    else wants and never slows the student's timed code; `collect` gives it back its share. Where
    that share could not be given back (an ordinary user, or root without CAP_SYS_NICE, as in a
    default Docker container), a busy machine would starve it: then there is no such child, and
    `start` says so with None. It runs the instructor's programs only, never the student's (see in_child).
    """

    @classmethod
    def start(cls, produce: Callable[[Iterator[tuple[str, list[RecordedCall]]]], Iterator[list]],
              folder: Path) -> ChildOnTheSide | None:
        """The child, running at the idle priority; None where it could not have its share back later."""
        child = cls(produce, folder)
        try:
            # Idle, then back, then idle again: the kernel allows the first always, the second only to
            # the privileged or a generous RLIMIT_NICE, and collect() needs it.
            for policy in (os.SCHED_IDLE, os.SCHED_OTHER, os.SCHED_IDLE):
                os.sched_setscheduler(child.pid, policy, os.sched_param(0))
        except OSError:
            child.collect(0)  # ends it
            return None
        return child

    def __init__(self, produce: Callable[[Iterator[tuple[str, list[RecordedCall]]]], Iterator[list]], folder: Path):
        self._inbox = folder / "diagnosis-calls.bin"
        self._inbox.write_bytes(b"")
        self._written = 0
        notes_read, self._notes = os.pipe()
        self._findings, findings_written = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover - runs in the forked child
            # Only its two pipes: it lives while the checks run, and a copy of a worker's channel or
            # of a uid lease's lock kept here would outlive the parent's closing of it.
            _close_all_but(notes_read, findings_written)
            _run_child(lambda: produce(_arrivals(notes_read, self._inbox)), findings_written)
        os.close(notes_read)
        os.close(findings_written)

    def send(self, nodeid: str, calls: list[RecordedCall]) -> None:
        """Hand the child one failed check's calls."""
        data = _encoded_calls(nodeid, calls)
        with self._inbox.open("ab") as inbox:
            inbox.write(data)
        # A note of a few bytes: the pipe holds thousands of them, so this never blocks.
        os.write(self._notes, f"{self._written} {len(data)}\n".encode("ascii"))
        self._written += len(data)

    def collect(self, limit_s: float) -> tuple[list[list], bool]:
        """Tell the child that no more checks come; the lists it yields within `limit_s` from now, and whether it
        finished."""
        os.close(self._notes)
        with contextlib.suppress(OSError):  # allowed (see start), unless the child has ended already
            os.sched_setscheduler(self.pid, os.SCHED_OTHER, os.sched_param(0))
        return _read_findings(self.pid, self._findings, limit_s)


def _close_all_but(*kept: int) -> None:
    """Close every file descriptor above stderr except `kept`."""
    bounds = [2, *sorted(kept), os.sysconf("SC_OPEN_MAX")]
    for low, high in zip(bounds, bounds[1:]):
        os.closerange(low + 1, high)


def _arrivals(notes: int, inbox: Path) -> Iterator[tuple[str, list[RecordedCall]]]:
    """In the child: each check's calls as its note arrives, until the parent closes the pipe."""
    with os.fdopen(notes, "rb") as lines, inbox.open("rb") as calls:
        for line in lines:
            offset, length = map(int, line.split())
            calls.seek(offset)
            yield from _decoded_calls(calls.read(length)).items()


def _run_child(produce: Callable[[], Iterator[list]], writing: int) -> NoReturn:
    """In a forked child: one JSON line per finding, then END, then out without any of pytest's teardown."""
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    status = 0
    try:
        for finding in produce():
            os.write(writing, (json.dumps(finding) + "\n").encode("utf-8"))
        os.write(writing, b"END\n")
    except BaseException:  # the parent keeps what was written; nothing else may escape a fork
        status = 1
    os._exit(status)


def in_child(produce: Callable[[], Iterator[list]], limit_s: float) -> tuple[list[list], bool]:
    """Run `produce` in a forked child and collect the lists it yields within `limit_s`, and whether it finished.

    The child runs the instructor's programs only, never the student's; forking keeps whatever
    they do (loop, crash the interpreter, print, change the recursion limit) out of the grade.
    """
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the forked child
        os.close(reading)
        _run_child(produce, writing)
    os.close(writing)
    return _read_findings(pid, reading, limit_s)


def _read_findings(pid: int, reading: int, limit_s: float) -> tuple[list[list], bool]:
    """The lists a child writes on `reading` within `limit_s`, and whether it finished; the child is ended."""
    buffer = b""
    deadline = time.monotonic() + limit_s
    try:
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([reading], [], [], left)
            if not ready:
                break
            chunk = os.read(reading, 65536)
            if not chunk:
                break
            buffer += chunk
    finally:
        os.close(reading)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    lines = buffer.split(b"\n")
    findings = []
    for line in lines:
        try:
            finding = json.loads(line)
        except ValueError:  # END, or the last line, cut off by the deadline
            continue
        if isinstance(finding, list):
            findings.append(finding)
    return findings, b"END" in lines

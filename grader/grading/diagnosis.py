"""Which known mistake a failed submission made: its answers on a failed check's calls, matched to each mistake's.

The proxy records every call a check makes into the student's code, with what came back (an
`Answer`). When the checks are over, the calls of the checks that failed are replayed on the
grading side against each known mistake of the exercise (`grader.known_mistakes`: the
instructor's own mutants and wrong/ programs, never the student's code), and a mistake is named
for a check when it answers every one of that check's calls as the student did, and answers one
of them differently from the reference.

Where the kit ships without solutions (a student handout), `grade export` has already replayed
the public checks' calls and left, per call and mistake, an entry sealed with the mistake's answer
there (`MistakeDigests`): only a student who gives that answer can open it, so the file shows
nothing the public checks do not.

The replay runs in a forked child of the grading process, under a deadline: a mistake that loops,
recurses past the stack or prints cannot touch the grade, and a diagnosis that is too slow is cut
off with what it found so far.
"""

from __future__ import annotations

import builtins
import copy
import hashlib
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
from typing import TYPE_CHECKING

from grader.failures import FailureKind
from grader.run_contract import DiagnosedMistake
from grader.sandbox import wire

if TYPE_CHECKING:
    from grader.known_mistakes import KnownMistake

DIGESTS_FORMAT = 1
# How long a mistake may take on one call before its answer counts as a timeout. A student's call
# that timed out matches a mistake that is still running after this long; so does a reference that
# slow, which then tells nothing apart on that call.
PROBE_LIMIT_S = 0.5
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

    def digest(self) -> str:
        """The call itself (function and arguments) as a digest, the key of a handout's table."""
        text = json.dumps([self.function, _plain(tuple(self.args)), _plain(dict(self.kwargs)), self.observed],
                          separators=(",", ":"))
        return _digest(text)


def write_calls(path: Path, calls: dict[str, list[RecordedCall]]) -> None:
    """Keep checks' recorded calls in a file, a line per call in the wire's exact encoding (tuples stay tuples).

    A line per call, since one message of the wire is bounded and a check's calls together may not be.
    """
    with path.open("wb") as out:
        for nodeid, recorded in calls.items():
            for call in recorded:
                line = (nodeid, call.function, call.args, call.kwargs, call.observed, call.answer.kind,
                        call.answer.value, call.limit_s)
                out.write(wire.dumps(line)[wire.HEADER.size:] + b"\n")


def read_calls(path: Path) -> dict[str, list[RecordedCall]]:
    """The recorded calls that write_calls kept; none if the run kept none."""
    if not path.is_file():
        return {}
    calls: dict[str, list[RecordedCall]] = {}
    with path.open("rb") as lines:
        for line in lines:
            nodeid, function, args, kwargs, observed, kind, value, limit_s = wire.loads(line.rstrip(b"\n"))
            calls.setdefault(nodeid, []).append(
                RecordedCall(function, tuple(args), dict(kwargs), observed, Answer(kind, value), limit_s))
    return calls


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


def replay(module: types.ModuleType, call: RecordedCall) -> Answer:
    """What `module` answers to the recorded call, on a copy of its arguments and within the probe limit."""
    function = getattr(module, call.function, None)
    if not callable(function):
        return Answer.failed(FailureKind.MISSING)
    args, kwargs = copy.deepcopy((tuple(call.args), dict(call.kwargs)))
    signal.setitimer(signal.ITIMER_REAL, min(call.limit_s, PROBE_LIMIT_S))
    try:
        value = function(*args, **kwargs)
        if isinstance(value, types.GeneratorType):  # the worker drains one into a list
            value = list(value)
    except _OutOfTime:
        return Answer.failed(FailureKind.TIMEOUT)
    except Exception as exc:  # the program's own exception is its answer, as the student's is
        return Answer("raised", _nearest_builtin(exc))
    except BaseException:  # SystemExit and the like end the student's worker: a crash
        return Answer.failed(FailureKind.CRASH)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
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
    signal.setitimer(signal.ITIMER_REAL, PROBE_LIMIT_S)
    try:
        exec(compile(source, module.__file__, "exec"), module.__dict__)
    except BaseException:  # a mistake that cannot be imported matches nothing
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return module


class CodeLibrary:
    """Known mistakes as code (the kit itself): each replayed on the calls, and the reference beside them."""

    def __init__(self, mistakes: list[KnownMistake], reference: str):
        self._mistakes = mistakes
        self._reference = reference
        self._modules: dict[str, types.ModuleType | None] = {}

    def _module(self, name: str, source: str) -> types.ModuleType | None:
        if name not in self._modules:
            self._modules[name] = load_program(name, source)
        return self._modules[name]

    def matches(self, calls: list[RecordedCall]) -> Iterator[KnownMistake]:
        """Each mistake that answers every call as the student did, and one of them unlike the reference."""
        # Calls that got no answer go last: a replay of one may take the whole probe limit, and most
        # mistakes are ruled out sooner by a value. The order does not change what matches.
        calls = sorted(calls, key=lambda call: call.answer.canonical() == NO_ANSWER)
        reference_answers: dict[int, str] = {}
        for mistake in self._mistakes:
            module = self._module(mistake.name, mistake.source)
            if module is None:
                continue
            answers = []
            for call in calls:  # the first call it answers otherwise rules it out: most stop at once
                answer = replay(module, call).canonical()
                if answer != call.answer.canonical():
                    break
                answers.append(answer)
            else:
                reference = self._module("reference", self._reference)
                for index, call in enumerate(calls):
                    if index not in reference_answers:
                        reference_answers[index] = (replay(reference, call).canonical() if reference
                                                    else call.answer.canonical())
                    if reference_answers[index] != answers[index]:
                        yield mistake
                        break


@dataclass(frozen=True)
class NamedMistake:
    """A known mistake a handout's table names once the student's answers open it."""

    name: str
    why: str


# What every opened entry starts with: an answer that is not the one an entry was sealed with opens noise.
SEAL_MARK = b"minimax-kit:"
MISTAKE_KEY_BYTES = 16
DIFFERS, AGREES = b"d", b"a"


def _stream(key: bytes, size: int) -> bytes:
    return hashlib.shake_256(key).digest(size)


def _xor(data: bytes, stream: bytes) -> bytes:
    return bytes(a ^ b for a, b in zip(data, stream))


def _answer_key(call_digest: str, answer: Answer) -> bytes:
    return hashlib.blake2b((call_digest + answer.canonical()).encode("utf-8"), digest_size=32,
                           person=b"minimax-kit-seal").digest()


def seal_entry(mistake_key: bytes, differs: bool, call_digest: str, answer: Answer) -> str:
    """A mistake's key and whether its answer here is wrong, sealed with its answer: only that answer opens it."""
    text = SEAL_MARK + mistake_key + (DIFFERS if differs else AGREES)
    return _xor(text, _stream(_answer_key(call_digest, answer), len(text))).hex()


def open_entry(sealed: str, call_digest: str, answer: Answer) -> tuple[bytes, bool] | None:
    """(the mistake's key, whether its answer there is wrong) if `answer` is the one it was sealed with, else None."""
    try:
        data = bytes.fromhex(sealed)
    except ValueError:
        return None
    text = _xor(data, _stream(_answer_key(call_digest, answer), len(data)))
    body = text[len(SEAL_MARK):]
    if not text.startswith(SEAL_MARK) or len(body) != MISTAKE_KEY_BYTES + 1 or body[-1:] not in (DIFFERS, AGREES):
        return None
    return body[:-1], body[-1:] == DIFFERS


def seal_name(mistake: NamedMistake, mistake_key: bytes) -> str:
    """A mistake's name and why, sealed with its key, which only its sealed entries give out."""
    text = SEAL_MARK + json.dumps([mistake.name, mistake.why]).encode("utf-8")
    return _xor(text, _stream(mistake_key, len(text))).hex()


def open_name(sealed: str, mistake_key: bytes) -> NamedMistake | None:
    """The mistake sealed with this key, or None."""
    try:
        text = _xor(bytes.fromhex(sealed), _stream(mistake_key, len(sealed) // 2))
        name, why = json.loads(text[len(SEAL_MARK):]) if text.startswith(SEAL_MARK) else (None, None)
    except ValueError:
        return None
    return NamedMistake(name, why) if isinstance(name, str) and isinstance(why, str) else None


class MistakeDigests:
    """Known mistakes as a handout ships them, for the public checks' calls, with nothing in the clear.

    Per call (by its digest) there is an entry per mistake: a random key of the mistake's and whether its
    answer there is wrong, sealed with its answer there; per mistake, its name and why, sealed with its key.
    An entry opens only with the answer it was sealed with, so the file gives a name and why only to
    code that answers as the mistake does, and brute force on an entry yields at most a known mistake's
    answer to a public check's call. As from the kit's code, a mistake matches a failed check's calls when
    each of them that the table has opens with the student's answer, and one says the answer is wrong.
    """

    def __init__(self, names: list[str], calls: dict[str, list[str]]):
        self.names = names
        self.calls = calls

    def matches(self, calls: list[RecordedCall]) -> Iterator[NamedMistake]:
        """Each mistake that answers every covered call as the student did, and one of them wrongly."""
        keyed = [(digest, call.answer) for call in calls if (digest := call.digest()) in self.calls]
        for index, sealed in enumerate(self.names):
            opened = [open_entry(self.calls[digest][index], digest, answer) for digest, answer in keyed]
            if not opened or not all(opened) or len({key for key, _ in opened}) != 1:
                continue
            if any(differs for _, differs in opened):
                named = open_name(sealed, opened[0][0])
                if named is not None:
                    yield named

    def as_data(self) -> dict:
        """The handout's file."""
        return {"format_version": DIGESTS_FORMAT, "mistakes": self.names, "calls": self.calls}

    @classmethod
    def read(cls, path: Path) -> MistakeDigests | None:
        """The handout's table, or None if there is none or it is not one this kit wrote."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format_version") != DIGESTS_FORMAT:
            return None
        names, calls = data.get("mistakes"), data.get("calls")
        if not (isinstance(names, list) and all(isinstance(name, str) for name in names) and isinstance(calls, dict)
                and all(isinstance(entries, list) and len(entries) == len(names)
                        and all(isinstance(entry, str) for entry in entries) for entries in calls.values())):
            return None
        return cls(names, calls)


def mistake_digests(calls: list[RecordedCall], mistakes: list[KnownMistake], reference: str,
                    limit_s: float) -> MistakeDigests | None:
    """What a handout ships: the known mistakes that answer one of the public checks' calls wrongly, sealed.

    None if the replays, in a forked child, took longer than `limit_s`.
    """
    found, finished = _in_child(lambda: _sealed(calls, mistakes, reference), limit_s)
    if not finished:
        return None
    names = [name for kind, name, _ in found if kind == "name"]
    table: dict[str, list[str]] = {}
    for kind, digest, entries in found:
        if kind == "call":
            table[digest] = entries
    return MistakeDigests(names, table)


def _sealed(calls: list[RecordedCall], mistakes: list[KnownMistake], reference: str) -> Iterator[list]:
    with replay_room():
        reference_module = load_program(REFERENCE, reference)
        expected = [replay(reference_module, call).canonical() if reference_module else None for call in calls]
        answers = {}
        for mistake in mistakes:
            module = load_program(mistake.name, mistake.source)
            replies = [replay(module, call) if module else Answer.failed(FailureKind.CRASH) for call in calls]
            if any(reply.canonical() != right for reply, right in zip(replies, expected)):
                answers[mistake] = replies  # only a mistake that some call shows is worth shipping
        keys = {mistake: os.urandom(MISTAKE_KEY_BYTES) for mistake in answers}
        for mistake in answers:
            yield ["name", seal_name(NamedMistake(mistake.name, mistake.why), keys[mistake]), None]
        for index, (call, right) in enumerate(zip(calls, expected)):
            digest = call.digest()
            yield ["call", digest, [seal_entry(keys[mistake], replies[index].canonical() != right, digest,
                                               replies[index]) for mistake, replies in answers.items()]]


class replay_room:
    """The recursion room and the alarm handler a replay needs, restored afterwards."""

    def __enter__(self):
        self._limit = sys.getrecursionlimit()
        self._handler = signal.signal(signal.SIGALRM, _on_alarm)
        sys.setrecursionlimit(max(self._limit, REPLAY_RECURSION_LIMIT))

    def __exit__(self, *exc):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._handler)
        sys.setrecursionlimit(self._limit)


# -- the diagnosis of one grade, in a forked child under a deadline


Library = CodeLibrary | MistakeDigests


def diagnose(library: Callable[[], Library | None], failed: dict[str, list[RecordedCall]],
             limit_s: float) -> tuple[DiagnosedMistake, ...]:
    """The known mistakes the failed checks' calls match, most checks first; whatever is found within `limit_s`.

    `library` is called in the child, so that reading the mistakes is part of what the limit bounds.
    """
    found, _ = _in_child(lambda: _matches(library, failed), limit_s)
    checks: dict[str, list[str]] = {}
    whys: dict[str, str] = {}
    for nodeid, name, why in (finding for finding in found
                              if len(finding) == 3 and all(isinstance(part, str) for part in finding)):
        checks.setdefault(name, []).append(nodeid)
        whys[name] = why
    # A mistake that matches on only some of the checks another one matches on explains less of what
    # went wrong than that one does; it is left out. Mistakes with the same checks are all kept.
    kept = [name for name in checks
            if not any(set(checks[name]) < set(checks[other]) for other in checks)]
    order = sorted(kept, key=lambda name: -len(checks[name]))  # stable: ties keep the library's order
    return tuple(DiagnosedMistake(name, whys[name], tuple(checks[name])) for name in order)


def _matches(build: Callable[[], Library | None], failed: dict[str, list[RecordedCall]]) -> Iterator[list[str]]:
    library = build()
    if library is None:
        return
    with replay_room():
        for nodeid, calls in failed.items():
            for mistake in library.matches(calls):
                yield [nodeid, mistake.name, mistake.why]


REFERENCE = "reference"


def alike(calls: dict[str, list[RecordedCall]], mistakes: list[KnownMistake], reference: str,
          limit_s: float) -> list[tuple[str, ...]] | None:
    """The groups of known mistakes (and the reference, as REFERENCE) that answer every one of the calls alike.

    None if telling them apart took longer than `limit_s`. The groups are refined call by call, and
    a mistake is replayed only while another still answers as it does, so most stop within a few calls.
    """
    found, finished = _in_child(lambda: _alike([call for recorded in calls.values() for call in recorded],
                                               mistakes, reference), limit_s)
    if not finished:
        return None
    return [tuple(group) for group in found if all(isinstance(name, str) for name in group)]


def _alike(calls: list[RecordedCall], mistakes: list[KnownMistake], reference: str) -> Iterator[list[str]]:
    with replay_room():
        programs = {REFERENCE: load_program(REFERENCE, reference)}
        programs.update((mistake.name, load_program(mistake.name, mistake.source)) for mistake in mistakes)
        groups = [[name for name, module in programs.items() if module is not None]]
        for call in calls:
            refined = []
            for group in groups:
                by_answer: dict[str, list[str]] = {}
                for name in group:
                    by_answer.setdefault(replay(programs[name], call).canonical(), []).append(name)
                refined += [names for names in by_answer.values() if len(names) > 1]
            groups = refined
            if not groups:
                break
        yield from groups


def _in_child(produce: Callable[[], Iterator[list]], limit_s: float) -> tuple[list[list], bool]:
    """Run `produce` in a forked child and collect the lists it yields within `limit_s`, and whether it finished.

    The child runs the instructor's programs only, never the student's; forking keeps whatever
    they do (loop, crash the interpreter, print, change the recursion limit) out of the grade.
    """
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: one JSON line per finding, then out without any of pytest's teardown
        os.close(reading)
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
    os.close(writing)
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

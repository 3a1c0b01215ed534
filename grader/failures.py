"""Failures as data: what went wrong in a call into student code, as a kind and its facts.

A failure is a `Failure` value: its kind (timeout, crash, exit, memory, raised, bad value, broken
channel, ...) and the facts that go with it (the call, the signal, the exit status, the limit).
The report carries these fields, and every sentence about a failure, in the report or on the
terminal, is worded from them at the edge. Nothing parses a message back.

A student's own exception comes back as a class that is both the nearest built-in class in its
MRO (so `pytest.raises(ValueError)` accepts a `class BadBoard(ValueError)`) and `StudentRaised`,
which the kit catches by type.
"""

from __future__ import annotations

import builtins
import signal
from dataclasses import dataclass, field
from enum import StrEnum

from grader.outcomes import Outcome
from grader.source_map import SourceMap


class FailureKind(StrEnum):
    """What kind of thing went wrong; the report's `failure.kind`."""

    TIMEOUT = "timeout"  # a call, or the whole check, passed its time limit
    CRASH = "crash"  # the process running the student's code was killed by a signal
    EXIT = "exit"  # that process exited on its own (os._exit, an interpreter crash)
    MEMORY = "memory"  # it was killed for passing its memory limit
    RAISED = "raised"  # the student's code raised an exception
    BAD_VALUE = "bad_value"  # it returned something that is not plain data
    BROKEN_CHANNEL = "broken_channel"  # it broke the channel between the processes
    MISSING = "missing"  # the module has no function of that name
    IMPORT = "import"  # the module could not be imported
    ASSERTION = "assertion"  # the check's own assertion failed: a wrong answer
    ERROR = "error"  # the check itself could not start or finish
    WAITING = "waiting"  # the check earns its points only once another check passes


# Failures that show nothing of what the code answered: a deadline passing (a busy machine's comes
# first), the check itself not running, or a check waiting on another to pass.
_SHOWS_NO_ANSWER = frozenset({FailureKind.TIMEOUT, FailureKind.WAITING, FailureKind.ERROR})


def caught_on_an_answer(kind: str | None) -> bool:
    """Whether a failure of this kind caught the code on what it did: a value, an exception or a crash."""
    return kind not in _SHOWS_NO_ANSWER


# The outcome a failure of each kind gives its check.
OUTCOMES = {
    FailureKind.TIMEOUT: Outcome.TIMEOUT,
    FailureKind.CRASH: Outcome.CRASHED, FailureKind.EXIT: Outcome.CRASHED, FailureKind.MEMORY: Outcome.CRASHED,
    FailureKind.BROKEN_CHANNEL: Outcome.CRASHED,
    FailureKind.RAISED: Outcome.FAILED, FailureKind.BAD_VALUE: Outcome.FAILED, FailureKind.MISSING: Outcome.FAILED,
    FailureKind.ASSERTION: Outcome.FAILED, FailureKind.WAITING: Outcome.FAILED,
    FailureKind.IMPORT: Outcome.ERROR, FailureKind.ERROR: Outcome.ERROR,
}

# Words for the signals students meet, in the report's (the grader's) plainer voice.
SIGNAL_WORDS = {
    "SIGSEGV": "segmentation fault (on Python 3.11, often very deep recursion through C code)",
    "SIGKILL": "killed (a resource limit, or another process)",
    "SIGXCPU": "CPU time limit exceeded",
    "SIGXFSZ": "file size limit exceeded (too much output?)",
    "SIGABRT": "aborted",
    "SIGBUS": "bus error",
}


@dataclass(frozen=True)
class Failure:
    """One failure, as data. Only `detail` may hold what the student's code said; a hidden check drops it."""

    kind: FailureKind
    call: str | None = None
    """The call it happened in ("best_move"), or the stage ("the import of nim.py"); None for a whole check."""
    limit_s: float | None = None
    """A time limit that was passed."""
    limit_mb: int | None = None
    """A memory limit that was passed."""
    signal: str | None = None
    """The signal that killed the process, such as "SIGSEGV"."""
    exit_status: int | None = None
    """The status the process exited with (a number the student picks, so never shown by a hidden check)."""
    exception: str | None = None
    """The nearest built-in class of what the student raised, or its own name when it is no Exception."""
    detail: str | None = None
    """Public-only words from the student's side: the exception's message, the bad value, the broken frame."""
    hidden_detail: str | None = None
    """What a hidden check may say instead of `detail`, when anything."""

    @property
    def outcome(self) -> Outcome:
        """The outcome this failure gives its check."""
        return OUTCOMES[self.kind]

    def shown_signal(self, public: bool) -> str | None:
        """The signal a check of that visibility may name: a hidden one names only those a limit or a
        crash sends, since student code may kill its own process with any signal it likes."""
        if public or self.signal is None or self.signal in SIGNAL_WORDS:
            return self.signal
        return "another signal"

    def facts(self, public: bool) -> dict:
        """The report's `failure` field: the kind and the facts a check of that visibility may show."""
        facts = {"kind": str(self.kind), "call": self.call, "limit_s": self.limit_s, "limit_mb": self.limit_mb,
                 "signal": self.shown_signal(public), "exit_status": self.exit_status if public else None,
                 "exception": self.exception}
        return {key: value for key, value in facts.items() if value is not None or key == "kind"}

    def words(self, public: bool) -> str:
        """The report's one-line message for this failure, worded from the fields."""
        detail = self.detail if public else self.hidden_detail
        during = self.call or "the call"
        if self.kind is FailureKind.TIMEOUT:
            if self.call is None:
                return f"the check did not finish within {self.limit_s:g} s"
            return f"{self.call} did not return within {self.limit_s:g} s"
        if self.kind is FailureKind.MEMORY:
            return f"{during}: the process running your code ran out of memory (limit {self.limit_mb} MB)"
        if self.kind is FailureKind.CRASH:
            return f"the worker crashed during {during}: {describe_signal(self.shown_signal(public))}"
        if self.kind is FailureKind.EXIT:
            if not public:
                return f"the worker crashed during {during}: your code ended the process"
            return (f"the worker crashed during {during}: exited with status {self.exit_status} "
                    "(os._exit, or a crash of the interpreter)")
        if self.kind is FailureKind.BROKEN_CHANNEL:
            return f"the worker broke the channel during {during}" + (f": {detail}" if detail else "")
        if self.kind is FailureKind.BAD_VALUE:
            return f"{during} returned {detail}"
        return detail or ""


def describe_signal(name: str | None) -> str:
    """How a worker was killed, in words: "killed by SIGSEGV: segmentation fault ..."."""
    if name is None:
        return "the worker stopped answering"
    words = SIGNAL_WORDS.get(name)
    return f"killed by {name}" + (f": {words}" if words else "")


def signal_name(number: int) -> str:
    """The name of a signal number, such as "SIGSEGV", or "signal 77" for one with no name."""
    return signal.Signals(number).name if number in signal.Signals._value2member_map_ else f"signal {number}"


def ended(returncode: int | None, call: str) -> Failure:
    """The failure of a worker that ended during `call` with this exit status (negative: killed by a signal)."""
    if returncode is not None and returncode >= 0:
        return Failure(FailureKind.EXIT, call=call, exit_status=returncode)
    return Failure(FailureKind.CRASH, call=call, signal=signal_name(-returncode) if returncode is not None else None)


def broken_channel(call: str, problem: str) -> Failure:
    """The failure of a worker that broke the channel during `call`; `problem` says how, for a public check only.

    The grading side words the problem, but from the bytes student code wrote: a size it announced,
    where its JSON went wrong. A hidden check says only that the channel broke, and during what.
    """
    return Failure(FailureKind.BROKEN_CHANNEL, call=call, detail=problem)


class StudentFailure(BaseException):
    """A call into student code that did not return a value; it carries the Failure.

    It derives from BaseException so that a check's `except Exception` or
    `pytest.raises(ValueError)` can never swallow a timeout or a crash.
    """

    def __init__(self, failure: Failure, output: str = ""):
        super().__init__(failure.words(public=True))
        self.failure = failure
        self.output = output

    @property
    def message(self) -> str:
        """What a public check shows."""
        return self.failure.words(public=True)

    @property
    def hidden_message(self) -> str:
        """What a hidden check shows."""
        return self.failure.words(public=False)


class ImportFailed(StudentFailure):
    """The student's module could not be imported, so no check can run."""


@dataclass(frozen=True)
class StudentError:
    """What the student's exception said: its type, message and the lines of the student's file it passed."""

    type: str
    message: str
    lines: tuple[tuple[int, str], ...]
    module: str
    builtin: str
    """The nearest built-in class in the exception's MRO."""
    line_count: int
    """Lines in the submitted module, to tell real line numbers from made-up ones."""
    call: str = ""
    """The function the check called."""
    output: str = field(default="", compare=False)
    """What the student's code printed during the call."""
    source: SourceMap | None = field(default=None, compare=False)
    """How the lines are named when the module was made from a notebook; None: as lines of the module."""

    def _source(self) -> SourceMap:
        return self.source or SourceMap(self.module)

    def where(self) -> str:
        """The student's own lines in the traceback, such as "alpha_beta.py line 30 in best_counter_bid"."""
        return ", ".join(f"{self._source().place(line)} in {func}" for line, func in self.lines)

    def hidden_message(self) -> str:
        """What a failed hidden check may say about this exception: its nearest built-in class, no more.

        Type names, messages, function names and line numbers all come from the student's process,
        which knows the hidden inputs: a made-up class or code object, or a file padded to any
        length, could spell them out. Only the built-in class is shown, one of a fixed few.
        """
        return f"your code raised {self.builtin}"

    def failure(self, call: str) -> Failure:
        """This exception as a Failure of kind raised."""
        public = f"your code raised {self.type}" + (f": {self.message}" if self.message else "")
        where = self.where()
        return Failure(FailureKind.RAISED, call=call, exception=self.builtin,
                       detail=f"{public} ({where})" if where else public, hidden_detail=self.hidden_message())


class StudentRaised(Exception):
    """The marker of a student's exception rebuilt in the grading process; `student` holds what it said.

    A rebuilt exception's class derives from the nearest built-in class and from this, and carries
    its StudentError as a class attribute, set when the class is made.
    """

    student: StudentError


def rebuild_exception(error: dict, module: str, line_count: int, call: str, output: str = "",
                      source: SourceMap | None = None) -> BaseException:
    """The student's exception as the nearest built-in class in its MRO (marked StudentRaised), or a StudentFailure."""
    chain = [str(name) for name in error.get("builtins", [])]
    known = [name for name in chain if isinstance(getattr(builtins, name, None), type)]
    info = StudentError(
        type=str(error.get("type", "?")),
        message=str(error.get("message", "")),
        lines=tuple((int(line), str(func)) for line, func in error.get("lines", [])),
        module=module,
        builtin=known[0] if known else "an exception",
        line_count=line_count,
        call=call,
        output=output,
        source=source,
    )
    if not error.get("is_exception"):
        return StudentFailure(info.failure(call), output=output)
    text = info.message if info.type in chain[:1] else f"{info.type}: {info.message}"
    for name in known:
        base = getattr(builtins, name)
        if not issubclass(base, Exception):
            continue
        # Named and placed as the built-in, so pytest shows "ValueError: ..." just as for the real one.
        # The marker comes first: after the built-in, it could not follow Exception itself, its own base.
        rebuilt = type(name, (StudentRaised, base), {"student": info, "__module__": "builtins",
                                                     "__qualname__": name})
        try:
            exc = rebuilt(text)
        except TypeError:  # e.g. UnicodeDecodeError needs five arguments; try the next base
            continue
        break
    else:
        exc = type("Exception", (StudentRaised,), {"student": info, "__module__": "builtins",
                                                    "__qualname__": "Exception"})(text)
    where = info.where()
    if where:
        exc.add_note(f"raised in your code at {where}")
    return exc


def one_line(text: str) -> str:
    """Student text made safe for a one-line message: line breaks and terminal codes shown escaped."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def describe_import_error(error: dict, module: str, source: SourceMap | None = None) -> str:
    """One line such as "alpha_beta.py line 12: SyntaxError: invalid syntax" (or "work.ipynb cell 3 line 2: ...")."""
    lines = error.get("lines") or []
    source = source or SourceMap(module)
    place = source.place(lines[-1][0]) if lines else source.file
    if source.cells and len(lines) > 1 and lines[0][1] == "<module>":
        # A notebook's reader looks for the cell that did not run first, then for where it raised.
        place = f"{source.place(lines[0][0])} (raised in {lines[-1][1]} at {source.where(lines[-1][0])})"
    message = one_line(str(error.get("message") or ""))
    kind = one_line(str(error.get("type")))
    return f"{place}: {kind}: {message}" if message else f"{place}: {kind}"


def import_failed(message: str, output: str = "") -> ImportFailed:
    """The failure of a module that could not be imported, with the one-line message the report gives."""
    return ImportFailed(Failure(FailureKind.IMPORT, detail=message, hidden_detail=message), output=output)

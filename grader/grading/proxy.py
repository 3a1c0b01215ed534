"""What a check holds: the `student` proxy, whose calls cross into the sandbox, and the `feedback` notes.

The fixtures that hand these to a check live in `grader.grading.plugin`; these classes only call and record.
"""

from __future__ import annotations

import functools

from grader.failures import StudentFailure, StudentRaised
from grader.grading.diagnosis import Answer, RecordedCall
from grader.sandbox import Sandbox, SandboxError, wire
from grader.grading.tracing import TRACED_LISTS_HINT, Trace, TracingUnavailable, parse_trace


class StudentProxy:
    """The `student` fixture: `student.name(*args)` runs `name` in the sandbox and returns a plain value."""

    def __init__(self, sandbox: Sandbox, timeout: float, outputs: list[str], calls: list[RecordedCall]):
        self._sandbox = sandbox
        self._timeout = timeout
        self._outputs = outputs
        # Every call and what came back, for the diagnosis of a failed check. The arguments are kept
        # as they are, not copied: a grade that passes pays nothing for it (docs/authoring.md asks a
        # check not to change an argument after the call, and grade check proves the diagnosis).
        self._calls = calls

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return functools.partial(self._call, name, False)

    def call_observed(self, name: str, *args, **kwargs):
        """Call `name` and also return the arguments as they were after the call: (value, args, kwargs)."""
        reply = self._call(name, True, *args, **kwargs)
        return reply.value, tuple(reply.args), reply.kwargs

    def traced(self, name: str, *args, trace_arg: int = 0, **kwargs) -> Trace:
        """Call `name` with the lists in args[trace_arg] recording what its code fetches, for feedback only."""
        # The calls run in a throwaway worker and their output is not kept, so tracing never changes
        # a check's outcome or any later check. A failed call, or one that answers differently on
        # the traced lists than on plain ones, raises TracingUnavailable with the reason.
        try:
            traced, plain = self._sandbox.trace(name, args, kwargs, timeout=self._timeout, trace=[trace_arg])
        except StudentFailure as exc:
            raise TracingUnavailable(f"the traced call failed: {exc.message}") from None
        except SandboxError as exc:
            raise TracingUnavailable(f"no sandbox could be started for the traced call: {exc}") from None
        except StudentRaised as exc:
            raise TracingUnavailable(f"your code raised {exc.student.builtin} when the lists it was given were "
                                     f"traced; {TRACED_LISTS_HINT}") from None
        if wire.dumps(traced.value) != wire.dumps(plain.value):
            raise TracingUnavailable("your code gave a different answer when the lists it was given were traced; "
                                     f"{TRACED_LISTS_HINT}")
        reads, sizes = parse_trace(traced.trace)
        return Trace(traced.value, reads, sizes)

    def _call(self, name: str, observe: bool, *args, **kwargs):
        try:
            reply = self._sandbox.call(name, args, kwargs, timeout=self._timeout, observe=observe)
        except StudentFailure as exc:
            self._outputs.append(exc.output)
            self._record(name, args, kwargs, observe, Answer.failed(exc.failure.kind))
            raise
        except StudentRaised as exc:  # the student's exception, rebuilt as a built-in one; keep its output
            self._outputs.append(exc.student.output)
            self._record(name, args, kwargs, observe, Answer("raised", exc.student.builtin))
            raise
        self._outputs.append(reply.output)
        value = (reply.value, tuple(reply.args), reply.kwargs) if observe else reply.value
        self._record(name, args, kwargs, observe, Answer("returned", value))
        return reply if observe else reply.value

    def _record(self, name: str, args: tuple, kwargs: dict, observe: bool, answer: Answer) -> None:
        self._calls.append(RecordedCall(name, args, kwargs, observe, answer, self._timeout))


class Feedback:
    """The `feedback` fixture: text a check adds to its own failure message, such as a picture of the input."""

    # Only a failed public check shows it; a hidden check never does, since the text may show its input.

    def __init__(self, notes: list[str]):
        self._notes = notes

    def add(self, text: str) -> None:
        """Show `text` after this check's failure message (and hint), if the check is public and fails."""
        if type(text) is not str:
            raise TypeError(f"feedback.add takes a str, not {type(text).__name__}")
        self._notes.append(text)

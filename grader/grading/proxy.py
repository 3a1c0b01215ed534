"""What a check holds: the `student` proxy, whose calls cross into the sandbox, and the `feedback` notes.

The fixtures that hand these to a check live in `grader.grading.plugin`; these classes only call and record.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

from grader.failures import StudentFailure, StudentRaised
from grader.grading.replay import Answer, RecordedCall
from grader.sandbox import Sandbox, SandboxError, wire
from grader.grading.tracing import TRACED_LISTS_HINT, Trace, TracingUnavailable, parse_trace


# A call made for feedback only (a probe for the smallest failing case) gets at most this long:
# the inputs are tiny, and a search that takes longer on them has shown its mistake already.
PROBE_CALL_LIMIT_S = 1.0
# All of one check's probes together get at most this long: feedback must not make a grade slow.
PROBE_BUDGET_S = 5.0


# What a hidden check's explanation may show of a value the student's code returned: it reaches the
# report's after_due text, which must hold only fixed words and values of the grading side's kind.
# Whole numbers under SHOWN_INT_LIMIT, floats to SHOWN_FLOAT_DIGITS significant digits, and lists,
# tuples and dicts (keyed by words the check names) of at most SHOWN_NUMBERS of them: the answers of
# a small case, at most about 40 bits of the student's choosing. Anything else (text, other keys, a
# long list, a big number) stands as Withheld.
SHOWN_INT_LIMIT = 1000
SHOWN_FLOAT_DIGITS = 3
SHOWN_NUMBERS = 4


class Withheld:
    """A returned value a hidden check's explanation compares but never shows."""

    __hash__ = None  # type: ignore[assignment]  # compares as its value, which may be a list

    def __init__(self, value: object):
        self._value = value

    def __eq__(self, other: object) -> bool:
        return self._value == (other._value if isinstance(other, Withheld) else other)

    def __repr__(self) -> str:
        return "a value not shown"

    __str__ = __repr__


class ShownFloat(float):
    """A returned float, compared exactly and shown to SHOWN_FLOAT_DIGITS significant digits."""

    def __repr__(self) -> str:
        return format(float(self), f".{SHOWN_FLOAT_DIGITS}g")

    __str__ = __repr__


def hidden_view(value: object, shown_keys: frozenset[str] = frozenset()) -> object:
    """`value` as a hidden check's explanation may show it: unchanged, rounded in its words, or Withheld.

    `shown_keys`: the keys a dict may have, words of the check's own (an answer's fields).
    """
    numbers = 0

    def view(item: object) -> object:
        nonlocal numbers
        if item is None or type(item) is bool:
            return item
        if type(item) in (int, float):
            numbers += 1
            if numbers > SHOWN_NUMBERS:
                raise OverflowError
            if type(item) is int and abs(item) < SHOWN_INT_LIMIT:  # type: ignore[arg-type]
                return item
            if type(item) is float:
                return ShownFloat(item)  # type: ignore[arg-type]
        if type(item) in (list, tuple):
            return type(item)(view(element) for element in item)  # type: ignore[call-arg, attr-defined]
        if type(item) is dict and all(type(key) is str and key in shown_keys for key in item):  # type: ignore[attr-defined]
            return {key: view(element) for key, element in item.items()}  # type: ignore[attr-defined]
        raise OverflowError

    try:
        return view(value)
    except (OverflowError, RecursionError):
        return Withheld(value)


class ProbeOver(Exception):
    """A probe's budget is spent, or no sandbox could be started for it: the feedback makes do without it."""


class StudentProxy:
    """The `student` fixture: `student.name(*args)` runs `name` in the sandbox and returns a plain value."""

    def __init__(self, sandbox: Sandbox, timeout: float, outputs: list[str], calls: list[RecordedCall],
                 hidden: bool = False):
        self._sandbox = sandbox
        self._timeout = timeout
        self._outputs = outputs
        # A hidden check's probes answer in hidden_view: their explanation is kept for after the due date.
        self._hidden = hidden
        # Every call and what came back, for the diagnosis of a failed check. The arguments are kept
        # as they are, not copied: a grade that passes pays nothing for it (docs/authoring.md asks a
        # check not to change an argument after the call, and grade check proves the diagnosis).
        self._calls = calls

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return StudentFunction(self, name)

    def __repr__(self) -> str:
        return "student"

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

    @contextlib.contextmanager
    def probing(self, budget_s: float = PROBE_BUDGET_S,
                shown_keys: tuple[str, ...] = ()) -> Iterator[Callable[..., Answer]]:
        """A function `ask(name, *args) -> Answer` that calls the student's code for feedback only.

        Each call runs in a throwaway worker, within PROBE_CALL_LIMIT_S, so probing never changes a
        check's outcome or any later check; once `budget_s` is spent, or no sandbox can be started,
        `ask` raises ProbeOver. Use it after a check has failed (`feedback.on_failure`).

        In a hidden check each answer's value is hidden_view's: it compares as the student's value, but
        its repr shows only small numbers, and dicts keyed by `shown_keys`; anything else "a value not shown".
        """
        started = time.monotonic()
        limit = min(self._timeout, PROBE_CALL_LIMIT_S)
        keys = frozenset(shown_keys)
        with self._sandbox.throwaway() as sandbox:
            def ask(name: str, *args) -> Answer:
                if time.monotonic() - started > budget_s:
                    raise ProbeOver(f"the probes' {budget_s:g} s are spent")
                try:
                    reply = sandbox.call(name, args, {}, timeout=limit)
                except StudentFailure as exc:
                    return Answer.failed(exc.failure.kind)
                except StudentRaised as exc:
                    return Answer("raised", exc.student.builtin)
                except SandboxError as exc:
                    raise ProbeOver(f"no sandbox could be started: {exc}") from None
                return Answer("returned", hidden_view(reply.value, keys) if self._hidden else reply.value)

            yield ask

    def _call(self, name: str, observe: bool, *args, **kwargs):
        started = time.monotonic()  # how long it took tells a diagnosis a slow answer from a wrong one
        try:
            reply = self._sandbox.call(name, args, kwargs, timeout=self._timeout, observe=observe)
        except StudentFailure as exc:
            self._outputs.append(exc.output)
            self._record(name, args, kwargs, observe, Answer.failed(exc.failure.kind), started)
            raise
        except StudentRaised as exc:  # the student's exception, rebuilt as a built-in one; keep its output
            self._outputs.append(exc.student.output)
            self._record(name, args, kwargs, observe, Answer("raised", exc.student.builtin), started)
            raise
        self._outputs.append(reply.output)
        value = (reply.value, tuple(reply.args), reply.kwargs) if observe else reply.value
        self._record(name, args, kwargs, observe, Answer("returned", value), started)
        return reply if observe else reply.value

    def _record(self, name: str, args: tuple, kwargs: dict, observe: bool, answer: Answer, started: float) -> None:
        self._calls.append(RecordedCall(name, args, kwargs, observe, answer, self._timeout,
                                        min(time.monotonic() - started, self._timeout)))


class StudentFunction:
    """`student.NAME`: a call of it runs NAME in the sandbox; pytest's assertion message names it as written."""

    def __init__(self, proxy: StudentProxy, name: str):
        self._proxy = proxy
        self._name = name

    def __call__(self, *args, **kwargs):
        return self._proxy._call(self._name, False, *args, **kwargs)

    def __repr__(self) -> str:
        # pytest writes "where 9 = student.minimax([3, [5, [1, 8]]])", not an object's address.
        return f"student.{self._name}"


class Feedback:
    """The `feedback` fixture: text a check adds to its own failure message, such as a picture of the input."""

    # Only a failed public check shows it; a hidden check never does, since the text may show its input.

    def __init__(self, notes: list[str], later: list[Callable[[], str | None]]):
        self._notes = notes
        self._later = later

    def on_failure(self, explain: Callable[[], str | None]) -> None:
        """Call `explain()` if the check fails, once the last check has ended, and show the text it returns.

        It runs outside every check's time limit (so probing the student's code with
        `student.probing()` cannot change an outcome). A public check shows the text after its
        message; a hidden one keeps it for after the due date, where the report's format has such a
        place (Gradescope's hidden tests), since it may show inputs.
        """
        if not callable(explain):
            raise TypeError(f"feedback.on_failure takes a function, not {type(explain).__name__}")
        self._later.append(explain)

    def add(self, text: str) -> None:
        """Show `text` after this check's failure message (and hint), if the check is public and fails."""
        if type(text) is not str:
            raise TypeError(f"feedback.add takes a str, not {type(text).__name__}")
        self._notes.append(text)

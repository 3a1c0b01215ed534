"""Which known mistake a failed submission made: its answers on a failed check's calls, matched to each mistake's.

When the checks are over, the calls of the checks that failed are replayed (`replay`) against
each known mistake of the exercise (`grader.known_mistakes`: the instructor's own mutants and
wrong/ programs, never the student's code), and a mistake is named for a check when it answers
every one of that check's calls as the student did, and one of them unlike the reference. A
handout matches its sealed mistakes instead (`sealed_mistakes`). The replay runs in a forked
child under a deadline; a diagnosis that is too slow is cut off with what it found so far.
"""

from __future__ import annotations

import time
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from grader.grading.replay import (
    NO_ANSWER,
    PROBE_LIMIT_S,
    QUICK_PROBE_S,
    RACE_SHARE,
    REFERENCE,
    Answer,
    ChildOnTheSide,
    RecordedCall,
    in_child,
    load_program,
    replay,
    replay_room,
)
from grader.grading.sealed_mistakes import MistakeDigests
from grader.run_contract import DiagnosedMistake

if TYPE_CHECKING:
    from grader.known_mistakes import KnownMistake

# What a call into a function the student has not written yet answers: the stubs raise this.
UNWRITTEN_EXCEPTION = "NotImplementedError"
UNWRITTEN = Answer("raised", UNWRITTEN_EXCEPTION)


class CodeLibrary:
    """Known mistakes as code (the kit itself): each replayed on the calls, and the reference beside them."""

    def __init__(self, mistakes: list[KnownMistake], reference: str, given: tuple[Path, ...] = ()):
        self._mistakes = mistakes
        self.given = given
        """The exercise's given modules, which the programs import (see replay_room)."""
        self._sources = {REFERENCE: reference} | {mistake.name: mistake.source for mistake in mistakes}
        self._modules: dict[str, types.ModuleType | None] = {}
        # Whether the given modules name the stubs' exception (see may_answer_unwritten).
        self._given_unwritten = any(UNWRITTEN_EXCEPTION in path.read_text(encoding="utf-8") for path in given)

    def names(self) -> list[str]:
        """The reference's name (REFERENCE), then the mistakes' names, in the library's order."""
        return list(self._sources)

    def mistakes(self) -> list[KnownMistake]:
        """The known mistakes, in the library's order."""
        return list(self._mistakes)

    def mistake(self, name: str) -> KnownMistake | None:
        """The known mistake of that name, if the library has it."""
        return next((mistake for mistake in self._mistakes if mistake.name == name), None)

    def may_answer_unwritten(self, name: str) -> bool:
        """Whether the program may raise the stubs' NotImplementedError, as an unwritten function does.

        Only code that names it raises it: the interpreter raises it only from abstract methods of
        the standard library, which no exercise's program calls. So a mistake whose code (and the
        given modules) never names it cannot answer a call as an unwritten function did, and is not
        replayed on that check: a student's first grades are mostly of stubs, and replaying every
        mistake on them (a search without its memo among them) cost the diagnosis seconds.
        """
        return self._given_unwritten or UNWRITTEN_EXCEPTION in self._sources[name]

    def imports(self, name: str) -> bool:
        """Whether the program of that name (a mistake's, or REFERENCE) imports, within PROBE_LIMIT_S."""
        if name not in self._modules:
            self._modules[name] = load_program(name, self._sources[name])
        return self._modules[name] is not None

    def answer(self, name: str, call: RecordedCall, limit_s: float | None) -> tuple[str, float] | None:
        """The program's answer to the call, as canonical text, and the seconds it took; None if it does not import."""
        if not self.imports(name):
            return None
        started = time.monotonic()
        answer = replay(self._modules[name], call, limit_s).canonical()
        seconds = time.monotonic() - started
        if answer == NO_ANSWER:
            # The worker is replaced after a call that got no answer, and its successor starts with
            # the program's state afresh (a memo, say): so does the replay. Kept, a half-filled memo
            # would answer a later call the worker could not, and the mistake would not match.
            del self._modules[name]
        return answer, seconds

    def matches(self, calls: list[RecordedCall], limit_s: float | None = None,
                only: list[KnownMistake] | None = None) -> Iterator[tuple[KnownMistake, bool]]:
        """(mistake, True) for each mistake that answers every call as the student did, and one of them unlike
        the reference; (mistake, False) for one left undecided, since a replay of its (or of the reference)
        did not end within `limit_s`. One at a time, so that what is found is kept if the deadline comes.

        A call that the two answered apart only in time is not told apart by it (see _late and _outlasted).
        """
        # Calls that got no answer go last: a replay of one may take the whole probe limit, and most
        # mistakes are ruled out sooner by a value. The order does not change what matches.
        calls = sorted(calls, key=lambda call: call.answer.canonical() == NO_ANSWER)
        cut_short = limit_s is not None and limit_s < PROBE_LIMIT_S
        unwritten = any(call.answer == UNWRITTEN for call in calls)
        reference_answers: dict[int, str] = {}
        for mistake in self._mistakes if only is None else only:
            if unwritten and not self.may_answer_unwritten(mistake.name):
                continue  # it cannot answer every call as the student's code did
            if not self.imports(mistake.name):
                continue
            same = []  # the calls it answered exactly as the student did, by index
            for index, call in enumerate(calls):  # the first call it answers otherwise rules it out: most stop at once
                replayed = self.answer(mistake.name, call, limit_s)
                if replayed is None:  # its state afresh, the program no longer imports in time
                    break
                answer, seconds = replayed
                if cut_short and answer == NO_ANSWER:
                    yield mistake, False
                    break
                if _late(call, answer, seconds):
                    answer = NO_ANSWER
                if answer == call.answer.canonical():
                    same.append(index)
                elif not _outlasted(call, answer, limit_s):
                    break
            else:
                for index in same:
                    if index not in reference_answers:
                        replayed = self.answer(REFERENCE, calls[index], limit_s)
                        reference_answers[index] = replayed[0] if replayed else calls[index].answer.canonical()
                    if cut_short and reference_answers[index] == NO_ANSWER:
                        del reference_answers[index]  # the next pass replays it in full
                        yield mistake, False
                        break
                    if reference_answers[index] != calls[index].answer.canonical():
                        yield mistake, True
                        break


def _late(call: RecordedCall, answer: str, seconds: float) -> bool:
    """Whether the program answered a call the student's code did not, but only after most of its time.

    The worker's clock and the replay's run at different moments on a machine whose load changes,
    so the same code may answer in one and run out of time in the other: such an answer counts as
    none, the student's, so that a race never tells a program apart from itself.
    """
    return call.answer.canonical() == NO_ANSWER and answer != NO_ANSWER and seconds >= RACE_SHARE * call.limit_s


def _outlasted(call: RecordedCall, answer: str, limit_s: float | None) -> bool:
    """Whether the replay ran out of time on a call the student's code answered, but only after most of it.

    The other way round from _late: the call rules nothing out, but the program's answer is not known,
    so it names nothing either (a search without its memo does not return a slow student's wrong value).
    """
    ran_s = call.limit_s if limit_s is None else min(call.limit_s, limit_s)
    return answer == NO_ANSWER and call.seconds >= RACE_SHARE * ran_s


# -- the diagnosis of one grade, in a forked child under a deadline


Library = CodeLibrary | MistakeDigests


class RunningDiagnosis:
    """The diagnosis of one grade, made beside its checks: each failed check's calls go to a child as it ends.

    The child (replay.ChildOnTheSide) starts at the first failed check, reads the known mistakes,
    and replays each check's calls while the next checks run, on a CPU they leave idle; at the end
    only what is left waits (`finish`). Where no such child can be had, the calls are kept and
    diagnosed at the end, as `diagnose` does. `library` is called in the child. `settle` ends a
    check's diagnosis once its first pass has named a mistake (see _matches); without it every
    mistake is decided, as grade check's proof needs.
    """

    def __init__(self, library: Callable[[], Library | None], folder: Path, settle: bool = True,
                 target: str | None = None):
        self._library = library
        self._folder = folder
        self._settle = settle
        self._target = target
        self._child: ChildOnTheSide | None = None
        self._kept: dict[str, list[RecordedCall]] | None = None
        """The failed checks' calls, where they wait for the end (no child beside the checks)."""

    def add(self, nodeid: str, calls: list[RecordedCall]) -> None:
        """A failed check's calls, to diagnose from now on."""
        if self._child is None and self._kept is None:
            self._child = ChildOnTheSide.start(
                lambda checks: _matches(self._library, checks, self._settle, self._target), self._folder)
            if self._child is None:
                self._kept = {}
        if self._child is not None:
            self._child.send(nodeid, calls)
        else:
            self._kept[nodeid] = calls

    @property
    def beside(self) -> bool:
        """Whether the diagnosis is being made beside the checks, by a child of its own."""
        return self._child is not None

    def finish(self, limit_s: float) -> tuple[DiagnosedMistake, ...]:
        """The known mistakes the failed checks' calls match, most checks first; whatever is found within
        `limit_s` from now."""
        if self._child is not None:
            found, _ = self._child.collect(limit_s)
            return _ranked(found)
        return diagnose(self._library, self._kept, limit_s, self._settle, self._target) if self._kept else ()


def diagnose(library: Callable[[], Library | None], failed: dict[str, list[RecordedCall]],
             limit_s: float, settle: bool = True, target: str | None = None) -> tuple[DiagnosedMistake, ...]:
    """The known mistakes the failed checks' calls match, most checks first; whatever is found within `limit_s`.

    `library` is called in the child, so that reading the mistakes is part of what the limit bounds.
    With `target` (see _target_matches), whether that one mistake is named is what is asked.
    """
    found, _ = in_child(lambda: _matches(library, iter(failed.items()), settle, target), limit_s)
    return _ranked(found)


def _ranked(found: list[list]) -> tuple[DiagnosedMistake, ...]:
    """The child's findings, [nodeid, mistake, why], as the diagnosis: the mistakes that explain most first."""
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


def _matches(build: Callable[[], Library | None], failed: Iterator[tuple[str, list[RecordedCall]]],
             settle: bool, target: str | None = None) -> Iterator[list[str]]:
    """[nodeid, mistake, why] for each match, each check's first pass as its calls come, then the rest."""
    library = build()
    if library is None:
        return
    wanted = library.mistake(target) if target is not None and isinstance(library, CodeLibrary) else None
    with replay_room(library.given):
        if wanted is not None:
            yield from _target_matches(library, failed, wanted)
            return
        # Two passes: every replay within QUICK_PROBE_S first, so that a slow program cannot keep
        # the others from their turn before the deadline; then the undecided ones in full.
        # With `settle`, a check whose calls all got answers, and that the first pass found a mistake for,
        # is settled: a program too slow for that pass could match it too only if it answers the same
        # wrong answers, and waiting for it would cost every failing grade the whole deadline. (On a
        # busy machine the first pass leaves more undecided, so only a student's grade settles.)
        pending = []
        for nodeid, calls in failed:
            undecided, named = [], False
            for mistake, decided in library.matches(calls, QUICK_PROBE_S):
                if decided:
                    named = True
                    yield [nodeid, mistake.name, mistake.why]
                else:
                    undecided.append(mistake)
            unanswered = any(call.answer.canonical() == NO_ANSWER for call in calls)
            if undecided and (unanswered or not named or not settle):
                pending.append((nodeid, calls, undecided))
        # A student's grade replays within PROBE_LIMIT_S; grade check's proof within each call's own limit.
        limit_s = PROBE_LIMIT_S if settle else None
        for nodeid, calls, undecided in pending:
            for mistake, decided in library.matches(calls, limit_s, undecided):
                if decided:
                    yield [nodeid, mistake.name, mistake.why]


def _target_matches(library: CodeLibrary, failed: Iterator[tuple[str, list[RecordedCall]]],
                    target: KnownMistake) -> Iterator[list[str]]:
    """[nodeid, mistake, why] for each match, `target`'s first: every other mistake's only where it may matter.

    grade check's proof grades a known mistake and asks whether the diagnosis names it. A mistake
    is left out of the diagnosis only where another one matches on more checks than it does
    (_ranked): so when `target` matches on every failed check, no other can, and it is named
    whatever the others match. Only where it misses a check are the others replayed, every one
    decided, and then the diagnosis is the one a whole replay gives. Replaying every mistake on
    every failed check's calls under their own limits took most of a proof grade's time.
    """
    seen = []
    matched = 0
    for nodeid, calls in failed:
        seen.append((nodeid, calls))
        for mistake, decided in library.matches(calls, None, [target]):
            if decided:
                matched += 1
                yield [nodeid, mistake.name, mistake.why]
    if matched == len(seen):
        return
    others = [mistake for mistake in library.mistakes() if mistake.name != target.name]
    for nodeid, calls in seen:
        for mistake, decided in library.matches(calls, None, others):
            if decided:
                yield [nodeid, mistake.name, mistake.why]


def alike(calls: dict[str, list[RecordedCall]], mistakes: list[KnownMistake], reference: str,
          limit_s: float, given: tuple[Path, ...] = ()) -> list[tuple[str, ...]] | None:
    """The groups of known mistakes (and the reference, as REFERENCE) that answer every one of the calls alike.

    None if telling them apart took longer than `limit_s`. The groups are refined call by call, and
    a mistake is replayed only while another still answers as it does, so most stop within a few calls.
    """
    found, finished = in_child(lambda: _alike([call for recorded in calls.values() for call in recorded],
                                               CodeLibrary(mistakes, reference, given)), limit_s)
    if not finished:
        return None
    return [tuple(group) for group in found if all(isinstance(name, str) for name in group)]


def _alike(calls: list[RecordedCall], library: CodeLibrary) -> Iterator[list[str]]:
    with replay_room(library.given):
        groups = [[name for name in library.names() if library.imports(name)]]
        for call in calls:
            refined = []
            for group in groups:
                by_answer: dict[str, list[str]] = {}
                for name in group:
                    if (replayed := library.answer(name, call, PROBE_LIMIT_S)) is not None:
                        by_answer.setdefault(replayed[0], []).append(name)
                refined += [names for names in by_answer.values() if len(names) > 1]
            groups = refined
            if not groups:
                break
        yield from groups

"""The pytest side of grading: markers, the `student` and `rng` fixtures, and per-check feedback.

pytest is handed this module by `grader.grading.pytest_main` in the grading process, which never runs student
code itself: every call goes through the sandbox. The hooks only collect; `scoring` turns what they
recorded (pytest-json-report's raw report, with each check's feedback as its metadata) into the score report.
The files it shares with the runner are typed, in `grader.run_contract`.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from grader.failures import (
    Failure,
    FailureKind,
    ImportFailed,
    StudentFailure,
    StudentRaised,
    caught_on_an_answer,
    import_failed,
)
from grader.catalog import Kit
from grader.grading.check_list import (
    BadMarker,
    CheckItem,
    Marker,
    call_timeout,
    describe,
    is_public,
    resolve_requirements,
)
from grader.grading.check_source import CheckSources
from grader.grading.replay import RecordedCall, write_calls
from grader.grading.proxy import Feedback, StudentProxy
from grader.grading.wording import check_message, explanation, raised_words
from grader.outcomes import Outcome
from grader.report import cap
from grader.run_contract import (
    CallRecording,
    Check,
    CheckFeedback,
    Collected,
    CpuWait,
    Diagnosis,
    Explained,
    RunFiles,
    RunSettings,
    SandboxFacts,
    StopAt,
)
from grader.sandbox import CPU_SLACK, CpuLease, CpuTime, Sandbox, cpu_time, open_sandbox, sandbox_settings

if TYPE_CHECKING:
    from grader.grading.diagnosis import RunningDiagnosis

MARKERS = {
    "points(n)": "the check is worth n points (default 1); each parametrized case is one check",
    "hint(text)": "shown to the student when this check fails, even when the check is hidden",
    "call_timeout(seconds)": "deadline for each call into student code made by this check",
    "requires(*names)": ("the check earns its points only once every check of these test functions has passed "
                         "(each case of a parametrized one): for checks of robustness, shape or non-mutation"),
}

GRADING = pytest.StashKey["GradingSession"]()
# Once the checks are over, the diagnosis of a failed grade (made beside them, see RunningDiagnosis)
# may go on for this share of the time the grade took so far, and at least the floor: what it finds
# by then is kept. A diagnosis that kept up with the checks ends at once; the floor is for one that
# a busy machine held back, so that a fast grade does not cut it off after a few of its checks.
DIAGNOSIS_SHARE = 0.1
DIAGNOSIS_FLOOR_S = 0.3


def pytest_addoption(parser):
    """The options the runner passes: this run's folder, and the kit whose secrets the sandbox closes."""
    parser.addoption("--grade-run", default=None, help="the folder of a minimax-kit grading run")
    parser.addoption("--grade-kit", default=None, help="the root of the kit being graded")
    parser.addoption("--grade-wait", type=int, default=None, metavar="FD",
                     help="collect, then wait on this pipe for the word that the run's settings are written")


def pytest_configure(config):
    """Register the markers, and start a grading session when the runner asked for one."""
    for marker, text in MARKERS.items():
        config.addinivalue_line("markers", f"{marker}: {text}")
    folder = config.getoption("--grade-run")
    if folder:
        files = RunFiles(Path(folder))
        session = GradingSession(RunSettings.read(files.settings), files, Path(config.getoption("--grade-kit")),
                                 wait_fd=config.getoption("--grade-wait"))
        config.stash[GRADING] = session
        config.pluginmanager.register(session, "minimax-kit-grading")
        config.pluginmanager.register(CheckTimer(), "minimax-kit-check-timer")


def check_item(item: pytest.Item, public_file: str, sources: CheckSources) -> CheckItem:
    """What the check list needs of a pytest item; the source only of a public check, the one that shows it."""
    markers = {}
    for marker in reversed(list(item.iter_markers())):  # the closest of each name wins, as get_closest_marker
        markers[marker.name] = Marker(tuple(marker.args), dict(marker.kwargs))
    callspec = getattr(item, "callspec", None)
    return CheckItem(nodeid=item.nodeid, function=item.originalname, doc=getattr(item.function, "__doc__", None),
                     case=callspec.id if callspec is not None else None, markers=markers,
                     source=sources.of(item.function) if is_public(item.nodeid, public_file) else None)


@pytest.fixture
def student(request) -> StudentProxy:
    """A proxy to the submitted module, which runs in the sandbox worker."""
    grading = request.config.stash[GRADING]
    timeout = grading.call_timeouts.get(request.node.nodeid) or grading.settings.call_timeout
    return StudentProxy(grading.sandbox(), float(timeout), grading.outputs.setdefault(request.node.nodeid, []),
                        grading.calls.setdefault(request.node.nodeid, []),
                        hidden=not is_public(request.node.nodeid, grading.settings.public_file))


@pytest.fixture
def feedback(request) -> Feedback:
    """Extra text for this check's failure message; shown only by public checks."""
    grading = request.config.stash[GRADING]
    return Feedback(grading.notes.setdefault(request.node.nodeid, []), grading.later.setdefault(request.node.nodeid, []))


@pytest.fixture
def rng(request) -> random.Random:
    """A random.Random seeded from the run's seed and this check, so every run can be repeated."""
    grading = request.config.stash[GRADING]
    return random.Random(f"{grading.settings.seed}:{request.node.nodeid}")


class GradingSession:
    """The grading run inside pytest: the check list, the sandbox's life, and what each check showed."""

    def __init__(self, settings: RunSettings, files: RunFiles, kit_root: Path, wait_fd: int | None = None):
        self.settings = settings
        # Started ahead of its submission (runner.ReadyGrade): its settings come, said on this pipe, once collected.
        self.wait_fd = wait_fd
        self.files = files
        self.kit = Kit(kit_root)
        self.checks: dict[str, Check] = {}
        # Each check's own deadline per call, where it sets one (@pytest.mark.call_timeout).
        self.call_timeouts: dict[str, float] = {}
        self.outputs: dict[str, list[str]] = {}
        self.notes: dict[str, list[str]] = {}
        # Each check's explanations to run if it fails (feedback.on_failure).
        self.later: dict[str, list[Callable[[], str | None]]] = {}
        # Each check's calls into the student's code; a passed check's are let go at its end.
        self.calls: dict[str, list[RecordedCall]] = {}
        self.feedback: dict[str, CheckFeedback] = {}
        self.collection_errors: list[str] = []
        self._sandbox: Sandbox | None = None
        self._closing = contextlib.ExitStack()
        self.facts = SandboxFacts()
        self.cpu_lease: CpuLease | None = None
        self.cpu_start = CpuTime()
        self.exitstatus: int | None = None
        self.started = time.monotonic()
        self._diagnosis: RunningDiagnosis | None = None
        # Failed checks whose explanations run once the last check has ended (_explain_failures).
        self._unexplained: dict[str, Unexplained] = {}
        # Failed checks that caught nothing on an answer, held back from grade check's diagnosis (_diagnose).
        self._held_back: list[str] = []

    # -- collection: the list of checks is written before anything runs, so scoring fails closed.

    def pytest_collectreport(self, report):
        """Remember check files that failed to import: a fault in the kit, not in the submission."""
        if report.failed:
            lines = [line for line in str(report.longrepr).splitlines() if line.startswith("E ")]
            detail = lines[-1][1:].strip() if lines else str(report.longrepr).strip().splitlines()[-1]
            self.collection_errors.append(f"{report.nodeid}: {detail}")

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        """Record every check with its name, visibility, points, budget and what it waits on."""
        sources = CheckSources()
        described = [check_item(item, self.settings.public_file, sources) for item in items]
        try:
            checks = describe(described, self.settings.public_file, self.settings.check_timeout, cap)
            self.call_timeouts = {item.nodeid: timeout for item in described if (timeout := call_timeout(item))}
        except BadMarker as exc:
            raise pytest.UsageError(str(exc)) from None
        checks, errors = resolve_requirements(described, checks)
        self.collection_errors.extend(errors)
        self.checks = {check.nodeid: check for check in checks}
        Collected(tuple(checks), tuple(self.collection_errors)).write(self.files.collected)

    # -- the sandbox's life: opened before collection, started once it ends, closed at the end.

    def pytest_sessionstart(self, session):
        """Open the sandbox and boot its first worker now, so its interpreter starts while pytest collects."""
        if session.config.option.collectonly or self.settings.submission_error:
            return
        self.cpu_start = cpu_time()
        # Its folder holds no submission yet: go() copies it in (in a ready grade, once it is laid out).
        # Booted before this process pins itself, so the worker's interpreter starts on any CPU, beside
        # the collection, not on this one; go() keeps it to this process's CPU before student code runs.
        self.sandbox().boot()
        self.cpu_lease = CpuLease()

    def _wait_for_submission(self) -> None:
        """Block until the runner says the run's settings are written, then read them.

        The worker booted ahead has run nothing: the submission is copied into it when it is let go.
        """
        # A pipe of its own, not stdin, which pytest's capturing points at /dev/null.
        if not os.read(self.wait_fd, 16):  # the runner let this run go unused
            os._exit(0)
        os.close(self.wait_fd)
        self.settings = RunSettings.read(self.files.settings)
        self.started = time.monotonic()
        if self._sandbox is not None:  # a notebook's cells name the module's lines
            self._sandbox.settings = replace(self._sandbox.settings, source_map=self.settings.source_map)

    def pytest_collection_finish(self, session):
        """Start the sandbox and import the module once, before the first check."""
        if session.config.option.collectonly:
            return
        if isinstance(sys.exc_info()[1], KeyboardInterrupt):
            # Ctrl-C came during collection: pytest calls this hook from a `finally` on its way out,
            # and letting the worker import the module now would hold the stop up until the import's
            # time limit. Nothing is graded, so no student code runs.
            return
        if self.wait_fd is not None:
            self._wait_for_submission()
        if self.settings.only:
            self._leave_unrun_all_but(self.settings.only, session)
        if self.settings.submission_error:
            self.facts = replace(self.facts, import_error=self.settings.submission_error)
        else:
            sandbox = self.sandbox()
            # A backstop only: every check's budget, plus slack, of CPU for one worker.
            cpu_seconds = math.ceil(sum(check.budget_s for check in self.checks.values()) + CPU_SLACK)
            try:
                sandbox.start(cpu_seconds)
            except ImportFailed as exc:
                self.facts = replace(self.facts, import_error=exc.message)
            else:
                self.facts = replace(self.facts, missing_functions=tuple(sandbox.missing_functions()))
            # Kept on a failed import too: what printed before the exception is what the student needs.
            self.facts = replace(self.facts, import_output=sandbox.import_output, environment=sandbox.environment(),
                                 uids_used=tuple(sorted(sandbox.uids_used)))
        self.facts.write(self.files.sandbox)

    def _leave_unrun_all_but(self, functions: frozenset[str], session: pytest.Session) -> None:
        """Run only the checks of these test functions and the checks they wait on (grade check's proof).

        The rest stay in the list written at collection, so they score 0 as checks that never ran.
        """
        kept = {item.nodeid for item in session.items if item.originalname in functions}
        kept |= {waited for nodeid in kept for waited in self.checks[nodeid].requires}
        session.items[:] = [item for item in session.items if item.nodeid in kept]

    def sandbox(self) -> Sandbox:
        """The run's sandbox, opened on first use."""
        if self.settings.submission_error:
            raise import_failed(self.settings.submission_error)
        if self._sandbox is None:
            settings = sandbox_settings(
                self.settings, Path(self.settings.source_dir),
                # Replaced by the checks' own backstop once they are collected (start()).
                cpu_seconds=CPU_SLACK,
                # The runner starts this process under the grade's reaper.
                owner_pid=os.getppid(), source_map=self.settings.source_map)
            self._sandbox = self._closing.enter_context(open_sandbox(self.kit, settings))
        return self._sandbox

    def pytest_sessionfinish(self, session, exitstatus):
        """Explain the failed checks, close the sandbox and note which uids were used (for the runner's
        final sweep); then diagnose."""
        self.exitstatus = int(exitstatus)
        # After pytest-json-report (tryfirst) has written the checks' results, which the runner shows now;
        # not after Ctrl-C, which must end the grade within its grace.
        if exitstatus != pytest.ExitCode.INTERRUPTED:
            self._explain_failures()
        self._close_sandbox()
        if self.settings.record_calls is not CallRecording.NONE:
            write_calls(self.files.calls, {nodeid: calls for nodeid, calls in self.calls.items()
                                           if self._keeps_calls(self.checks[nodeid])})
        if self._diagnosis is not None:
            limit = self.settings.diagnosis_limit_s
            if limit is None:
                limit = max(DIAGNOSIS_FLOOR_S, DIAGNOSIS_SHARE * (time.monotonic() - self.started))
            Diagnosis(self._diagnosis.finish(limit)).write(self.files.diagnosis)

    def _diagnose(self, nodeid: str, caught: bool) -> None:
        """Hand a failed check's calls to the diagnosis, which starts with the first of them."""
        if not self.settings.diagnose:
            return
        proof = self.settings.diagnosis_limit_s is not None
        if self._diagnosis is None:
            if proof and not caught:
                # grade check's proof reads a diagnosis only where a check caught the code on an answer:
                # till one does, a check that only timed out waits here, since replaying every known
                # mistake on its calls under their own limits took most of a deadline mistake's grade.
                self._held_back.append(nodeid)
                return
            from grader.grading.diagnosis import RunningDiagnosis  # only a failed grade diagnoses

            # A limit of the runner's (grade check's proof) asks for every mistake decided; a student's
            # grade gives the diagnosis a share of its time and settles each check at its first name.
            self._diagnosis = RunningDiagnosis(self._library, self.files.folder, settle=not proof,
                                               target=self.settings.diagnosis_target)
        for held in [*self._held_back, nodeid]:  # in the checks' order, as if none had waited
            self._diagnosis.add(held, self.calls[held])
        self._held_back.clear()

    def _keeps_calls(self, check: Check) -> bool:
        """Whether the run keeps this check's calls whether it passes or not (settings.record_calls)."""
        recording = self.settings.record_calls
        return recording is CallRecording.ALL or (recording is CallRecording.PUBLIC and check.public)

    def _library(self):
        """The exercise's known mistakes: as code in the kit, as digests in a handout (built in the diagnosing child)."""
        from grader.grading.diagnosis import CodeLibrary
        from grader.grading.sealed_mistakes import MistakeDigests
        from grader.known_mistakes import known_mistakes, reference_source  # only a failed grade reads them

        exercise = self.kit.resolve(self.settings.exercise)
        reference = reference_source(exercise, self.kit.root)
        if reference is not None:
            return CodeLibrary(known_mistakes(exercise, self.kit.root), reference, exercise.given_paths)
        return MistakeDigests.read(exercise.mistake_digests_path)

    def _close_sandbox(self) -> None:
        if self._sandbox is not None:
            sandbox = self._sandbox
            self._closing.close()
            # The checks ran here and the student's code in the workers: a wait in either can
            # turn into a timeout that says nothing about the student's code.
            used = cpu_time() - self.cpu_start + sandbox.cpu.total
            self.facts = replace(self.facts, uids_used=tuple(sorted(sandbox.uids_used)),
                                 cpu=CpuWait(contended=used.contended, waited_s=used.waited_ns // 10**9))
            self.facts.write(self.files.sandbox)

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config):
        """End the grading process at once: every file the runner reads is written by now, and the
        interpreter's own teardown (thousands of modules and objects) would only delay the grade."""
        if self.exitstatus is None:  # no session ran (an error in the command line): let pytest finish
            return
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(self.exitstatus)

    # -- per-check feedback

    @pytest.hookimpl(hookwrapper=True, trylast=True)
    def pytest_runtest_makereport(self, item, call):
        """Keep the first failure of each check; at its teardown, its feedback is complete.

        trylast: this wrapper is the innermost, so the feedback is ready before pytest-json-report
        asks for the check's metadata (pytest_json_runtest_metadata) in its own wrapper.
        """
        yield
        check = self.checks.get(item.nodeid)
        if check is None:
            return
        if call.excinfo is not None and item.nodeid not in self.feedback:
            failure, words = self._failure_in_words(check, call)
            notes = list(self.notes.get(item.nodeid, []))
            self.feedback[item.nodeid] = CheckFeedback(
                failure.outcome, cap(check_message(words, public=check.public, hint=check.hint, notes=notes)),
                failure.facts(check.public))
            explanations = self.later.pop(item.nodeid, []) if call.when == "call" else []
            if explanations and self.settings.explain:
                self._unexplained[item.nodeid] = Unexplained(words, notes, explanations)
            kind = failure.kind
            if self.settings.stop_at is StopAt.FIRST_CATCH and kind not in (FailureKind.TIMEOUT, FailureKind.ERROR):
                # The check caught the submission on a value, an exception or a crash; the rest cannot change that.
                item.session.shouldstop = "a check caught the submission"
        if call.when == "teardown":
            if item.nodeid not in self.feedback and not self._keeps_calls(check):
                self.calls.pop(item.nodeid, None)  # passed: nothing to diagnose
            outputs = "".join(self.outputs.pop(item.nodeid, []))
            self.notes.pop(item.nodeid, None)
            self.later.pop(item.nodeid, None)
            ended = self.feedback.get(item.nodeid, CheckFeedback(Outcome.PASSED))
            # A hidden check never shows the student's output: it can echo a hidden input.
            self.feedback[item.nodeid] = replace(ended, output=cap(outputs) if check.public and outputs else None)
            if ended.outcome != Outcome.PASSED and self.calls.get(item.nodeid):
                self._diagnose(item.nodeid, caught_on_an_answer((ended.failure or {}).get("kind")))

    @pytest.hookimpl(optionalhook=True)
    def pytest_json_runtest_metadata(self, item, call):
        """A check's feedback, as its metadata in pytest-json-report's raw report, once its teardown ends."""
        if call.when != "teardown" or item.nodeid not in self.feedback:
            return None
        return self.feedback[item.nodeid].as_metadata()

    def _explain_failures(self) -> None:
        """Run the failed checks' feedback.on_failure explanations, now that the last check has ended.

        The score and the table need none of them, and pytest-json-report has written them already
        (raw.json), so the runner shows them while these run (runner.grade's on_table). Each probes
        the student's code in throwaway workers of its own (StudentProxy.probing, .trace), which
        start from the module as imported, so running them after the later checks changes no answer.
        """
        explained = {}
        for nodeid, pending in self._unexplained.items():
            check = self.checks[nodeid]
            texts = [text for explain in pending.explanations if (text := _explanation(explain, check.public))]
            if not texts:
                continue
            ended = self.feedback[nodeid]
            if check.public:
                message = check_message(pending.words, public=True, hint=check.hint, notes=[*pending.notes, *texts])
                explained[nodeid] = replace(ended, message=cap(message))
            else:  # a hidden check's explanation may show its input: kept for after the due date
                explained[nodeid] = replace(ended, after_due=cap("\n\n".join(texts)))
        self._unexplained.clear()
        if explained:
            Explained(explained).write(self.files.explained)

    def _failure_in_words(self, check: Check, call) -> tuple[Failure, str | None]:
        """Classify a failed stage, and put what the student may see of it into words."""
        exc = call.excinfo.value
        public = check.public
        if isinstance(exc, StudentFailure):  # a call's failure, or the check's own time limit (see CheckTimer)
            return exc.failure, exc.failure.words(public)
        if call.when != "call":
            stage = "start" if call.when == "setup" else "finish"
            return Failure(FailureKind.ERROR), (explanation(call.excinfo.exconly()) if public
                                                else f"the check could not {stage}")
        if isinstance(exc, pytest.fail.Exception):
            # A message the check's author wrote for the student; safe to show even when hidden.
            return Failure(FailureKind.ASSERTION), "\n".join(map(raised_words, str(exc).splitlines()))
        if isinstance(exc, StudentRaised):
            failure = exc.student.failure(exc.student.call)
            return failure, failure.words(public)
        # The check's assertion failed, or it choked on what the student's code returned.
        return Failure(FailureKind.ASSERTION), explanation(call.excinfo.exconly()) if public else None


@dataclass(frozen=True)
class Unexplained:
    """A failed check whose explanations wait for the last check to end: its words, notes and explanations."""

    words: str | None
    notes: list[str]
    explanations: list[Callable[[], str | None]]


def _explanation(explain: Callable[[], str | None], public: bool) -> str | None:
    """What one feedback.on_failure explanation says, or why it could not say it."""
    try:
        text = explain()
    except Exception as exc:  # the check's own code: its author should see why it said nothing
        # Its words may be the student's (an exception raised through the check): a hidden
        # check keeps only the class, whose name is the kit's or a built-in one.
        why = f"{type(exc).__name__}: {exc}" if public else type(exc).__name__
        return f"(This check's explanation could not be worked out: {why})"
    return str(text) if text else None


class CheckTimer:
    """Each check's own time limit: pytest-timeout's, enforced as a timeout of the check."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_timeout_set_timer(self, item, settings):
        """Enforce pytest-timeout's limit for a check with an alarm that fails it as a timeout of the check.

        pytest-timeout resolves the limit (marker, then command line) and asks for the timer here;
        its own signal method would fail the check with a message, which could only be told from a
        check's failure by its words. No student code runs in this process, so the alarm is safe.
        """
        limit = float(settings.timeout)
        if limit <= 0:
            return None

        def on_alarm(signum, frame):
            raise StudentFailure(Failure(FailureKind.TIMEOUT, limit_s=limit))

        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_timeout_cancel_timer(self, item):
        """Stop the check's alarm."""
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        return True
